"""Optional lens calibration with a ChArUco board (``cv2.aruco.CharucoDetector`` and
``cv2.calibrateCamera``).

Without it the companion estimates the focal length from the table homography (or assumes a
typical webcam field of view); with it the camera height and tilt, and the parallax correction of
stacked tiles, rest on measured intrinsics and lens distortion is removed.

The board uses the ``DICT_5X5_100`` dictionary so its markers can never be mistaken for the four
table markers (``DICT_4X4_50`` ids 0..3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import cv2
import numpy as np

from calibration.plane import CalibrationError, CameraModel

BOARD_DICTIONARY_ID = cv2.aruco.DICT_5X5_100
#: Default board: 7 x 5 squares of 30 mm with 22 mm markers (fits A4 landscape at 100%).
DEFAULT_SQUARES = (7, 5)
DEFAULT_SQUARE_MM = 30.0
DEFAULT_MARKER_MM = 22.0
MIN_VIEWS = 4
MIN_CORNERS = 6


def charuco_board(squares: tuple[int, int] = DEFAULT_SQUARES, square_mm: float = DEFAULT_SQUARE_MM,
                  marker_mm: float = DEFAULT_MARKER_MM) -> cv2.aruco.CharucoBoard:
    """The ChArUco board the lens calibration looks for."""
    if not marker_mm < square_mm:
        raise CalibrationError(f"ChArUco marker {marker_mm:g} mm must be smaller than the square "
                               f"{square_mm:g} mm")
    dictionary = cv2.aruco.getPredefinedDictionary(BOARD_DICTIONARY_ID)
    return cv2.aruco.CharucoBoard(squares, float(square_mm), float(marker_mm), dictionary)


def board_image(board: cv2.aruco.CharucoBoard, px_per_mm: float = 300 / 25.4,
                margin_mm: float = 10.0) -> np.ndarray:
    """The board drawn for printing (greyscale), ``px_per_mm`` (300 dpi by default)."""
    cols, rows = board.getChessboardSize()
    sq = board.getSquareLength()
    w = int(round((cols * sq + 2 * margin_mm) * px_per_mm))
    h = int(round((rows * sq + 2 * margin_mm) * px_per_mm))
    return board.generateImage((w, h), marginSize=int(round(margin_mm * px_per_mm)))


@dataclass(frozen=True)
class LensCalibration:
    """A measured lens: the camera model, the RMS reprojection error of the fit (pixels) and how
    many views and corners it used."""

    camera: CameraModel
    rms_px: float
    views: int
    corners: int


def calibrate_lens(frames_bgr: Iterable[np.ndarray],
                   board: cv2.aruco.CharucoBoard | None = None) -> LensCalibration:
    """Calibrate from several photos of the ChArUco board at different angles and places.

    Views with fewer than :data:`MIN_CORNERS` board corners are skipped; fewer than
    :data:`MIN_VIEWS` usable views is a :class:`CalibrationError` saying how many were usable."""
    board = board or charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    obj_pts: list[np.ndarray] = []
    img_pts: list[np.ndarray] = []
    size: tuple[int, int] | None = None
    total = 0
    for k, frame in enumerate(frames_bgr):
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3):
            raise CalibrationError(f"view {k} is not a uint8 image")
        total += 1
        this_size = (frame.shape[1], frame.shape[0])
        if size is None:
            size = this_size
        elif size != this_size:
            raise CalibrationError(f"view {k} is {this_size[0]}x{this_size[1]}, the first was "
                                   f"{size[0]}x{size[1]}: use one resolution for every view")
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        ch_corners, ch_ids, _mc, _mi = detector.detectBoard(gray)
        if ch_ids is None or len(ch_ids) < MIN_CORNERS:
            continue
        obj, img = board.matchImagePoints(ch_corners, ch_ids)
        if obj is None or len(obj) < MIN_CORNERS:
            continue
        obj_pts.append(obj.reshape(-1, 3).astype(np.float32))
        img_pts.append(img.reshape(-1, 2).astype(np.float32))
    if size is None or len(obj_pts) < MIN_VIEWS:
        raise CalibrationError(
            f"lens calibration needs at least {MIN_VIEWS} views showing {MIN_CORNERS}+ ChArUco "
            f"corners; {len(obj_pts)} of {total} views were usable: photograph the whole board, "
            "sharp and well lit, from several angles and positions")
    rms, K, dist, _r, _t = cv2.calibrateCamera(obj_pts, img_pts, size, None, None,
                                               flags=cv2.CALIB_FIX_ASPECT_RATIO)
    cam = CameraModel(np.asarray(K, np.float64), np.asarray(dist, np.float64).ravel()[:5],
                      "lens-calibration", size)
    return LensCalibration(cam, float(rms), len(obj_pts), int(sum(len(p) for p in obj_pts)))
