"""The camera from the four corners of the play area (the manual calibration's camera).

A calibration made by giving the play area's corners by hand (``calibrate --corners``, or tapped
on the Table setup page) has only four points and the table's size. With square pixels and the
principal point at the picture's centre, that is enough for a camera when the view is tilted:

* the focal length ``f``: the plane homography ``H`` (table mm -> pixels) is ``K [r1 r2 t]`` up
  to scale, and ``r1``, ``r2`` are orthonormal. With the principal point moved to the origin
  (``G = T H``, columns ``(a, b, c)``), ``r1 . r2 = 0`` and ``|r1| = |r2|`` give two equations
  linear in ``u = 1 / f^2``::

      (a1 a2 + b1 b2) u + c1 c2 = 0
      (a1^2 + b1^2 - a2^2 - b2^2) u + c1^2 - c2^2 = 0

  solved for ``u`` in least squares (:func:`calibration.plane.focal_least_squares`);
* the pose: ``K^-1 H`` scaled so its first two columns have unit length on average, the third
  rotation column their cross product, the rotation made orthonormal (the nearest rotation, by
  SVD), the camera put above the table; then refined on the four corners
  (``cv2.solvePnPRefineLM``) (:func:`pose_from_homography`).

When the camera looks (nearly) straight down both equations tend to ``0 = 0``: the corners then
tell the focal length poorly or not at all. How poorly is measured, not guessed: the corners are
moved by the error a tap has (:data:`TAP_SIGMA_PX`) and the spread of ``f`` that follows
(:func:`focal_spread`) is compared with :data:`MAX_FOCAL_REL_SPREAD`. Beyond it (or with no real
``f``, or an implausible one) the camera falls back to :data:`calibration.plane.DEFAULT_HFOV_DEG`
and :attr:`CornerCamera.message` says so and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.plane import (DEFAULT_HFOV_DEG, HFOV_RANGE_DEG, CalibrationError, CameraModel,
                               CameraPose, assumed_camera, checked_corners, focal_least_squares,
                               pose_from_rvec_tvec)

#: The error of one corner given by hand, pixels per axis (the issue's "a user's taps": a tap on
#: the tablet or a pixel read off the preview is about this far off).
TAP_SIGMA_PX = 2.0
#: The focal length is taken from the corners only when taps :data:`TAP_SIGMA_PX` off would move
#: it by less than this share (one standard deviation): beyond, the assumed field of view (whose
#: own error for webcams of 50-85 degrees is up to about 40%, 15-20% typically) is no worse.
#: Chosen on synthetic cameras (``runs/D12/exp2.py``, seed 11: 600 views, tilt 0-40 degrees,
#: field of view 50-85 degrees, taps 0-2 px off, none of them rendered scenes): 0.20 / 0.25 /
#: 0.30 gave focal-length errors of 13.4 / 11.9 / 11.8% (90th percentile) and 42 / 44 / 44%
#: (worst) on the views tilted 10 degrees or more, where taking every estimate (no fallback)
#: gave 10.8% and 111%.
MAX_FOCAL_REL_SPREAD = 0.25
#: Where the camera's focal length came from, for :class:`CameraModel.source`.
SOURCE = "corners"


@dataclass(frozen=True)
class CornerCamera:
    """The camera recovered from four corners: ``camera`` (``source`` ``"corners"``, or
    ``"assumed-fov"`` when the corners could not tell the focal length), its ``pose``, the
    focal length the corners gave (``None``: none) and its relative spread for taps
    :data:`TAP_SIGMA_PX` off (``None``: not measurable), and ``message``: what was done, in
    words (the fallback with what to do)."""

    camera: CameraModel
    pose: CameraPose
    focal_measured_px: float | None
    focal_spread: float | None
    message: str

    @property
    def measured(self) -> bool:
        """Whether the focal length comes from the corners (not the assumed field of view)."""
        return self.camera.source == SOURCE


def _homography(table_mm: np.ndarray, corners_px: np.ndarray) -> np.ndarray:
    H = cv2.getPerspectiveTransform(table_mm.astype(np.float32), corners_px.astype(np.float32))
    return np.asarray(H, np.float64)


def focal_spread(table_mm: np.ndarray, corners_px: np.ndarray, image_size: tuple[int, int],
                 sigma_px: float = TAP_SIGMA_PX) -> tuple[float | None, float | None]:
    """The focal length the corners give (pixels, ``None`` when they give no real one) and its
    relative spread (one standard deviation over ``f``) when each corner coordinate is off by
    ``sigma_px``, to first order (central differences of ``u`` for each of the 8 coordinates;
    ``f = u^-1/2`` so the relative spread of ``f`` is half that of ``u``)."""
    u = focal_least_squares(_homography(table_mm, corners_px), image_size)
    if u is None or not np.isfinite(u) or u <= 0:
        return None, None
    step = 0.5
    grads = []
    for i in range(8):
        d = np.zeros(8)
        d[i] = step
        d = d.reshape(4, 2)
        up = focal_least_squares(_homography(table_mm, corners_px + d), image_size)
        down = focal_least_squares(_homography(table_mm, corners_px - d), image_size)
        if up is None or down is None:
            return 1.0 / np.sqrt(u), None
        grads.append((up - down) / (2 * step))
    spread = 0.5 * sigma_px * float(np.linalg.norm(grads)) / u
    return 1.0 / float(np.sqrt(u)), spread


def pose_from_homography(H: np.ndarray, camera: CameraModel, table_mm: np.ndarray,
                         corners_px: np.ndarray) -> CameraPose:
    """The camera pose from the plane homography ``H`` and the intrinsics: ``K^-1 H`` scaled,
    its rotation made orthonormal (SVD) with the camera above the table, then refined on the
    corners (``solvePnPRefineLM``). Raises :class:`CalibrationError` when the corners put the
    camera under the table (they were given mirrored)."""
    M = np.linalg.inv(camera.K) @ np.asarray(H, np.float64)
    scale = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    if M[2, 2] < 0:  # the table must lie in front of the camera (positive depth)
        scale = -scale
    r1, r2, t = M[:, 0] * scale, M[:, 1] * scale, M[:, 2] * scale
    U, _s, Vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
    R = U @ np.diag([1.0, 1.0, float(np.sign(np.linalg.det(U @ Vt)))]) @ Vt
    obj = np.column_stack([table_mm, np.zeros(len(table_mm))])
    img = np.asarray(corners_px, np.float64).reshape(-1, 1, 2)
    rvec = cv2.Rodrigues(R)[0]
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, camera.K, camera.dist, rvec, t.reshape(3, 1))
    centre = -cv2.Rodrigues(rvec)[0].T @ tvec.ravel()
    if centre[2] >= 0:  # z is into the table: a camera above it has z < 0
        raise CalibrationError("the four corners put the camera under the table; give them "
                               "clockwise as seen: top-left, top-right, bottom-right, bottom-left")
    return pose_from_rvec_tvec(rvec, tvec, obj, img, camera)


def _camera_with(f: float, image_size: tuple[int, int]) -> CameraModel:
    w, h = image_size
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
    return CameraModel(K, np.zeros(5), SOURCE, (int(w), int(h)))


def _hfov(f: float, width: int) -> float:
    return float(np.degrees(2 * np.arctan(width / 2 / f)))


def camera_from_corners(corners_px: Any, table_size_mm: tuple[float, float],
                        image_size: tuple[int, int]) -> CornerCamera:
    """The camera (intrinsics and pose) from the play area's four corners in pixels (top-left,
    top-right, bottom-right, bottom-left as seen, without lens distortion taken out) and its size
    in mm, for an ``image_size`` (width, height) picture: the focal length from the corners when
    they tell it to within :data:`MAX_FOCAL_REL_SPREAD`, else the assumed field of view
    (:data:`calibration.plane.DEFAULT_HFOV_DEG`), said in :attr:`CornerCamera.message`."""
    pts, (w, h) = checked_corners(corners_px, table_size_mm)
    table = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    H = _homography(table, pts)
    f, spread = focal_spread(table, pts, image_size)
    width = int(image_size[0])
    lo, hi = HFOV_RANGE_DEG
    why = ""
    if f is None:
        why = "they give no focal length at all"
    elif spread is None or spread > 1.0:
        why = (f"taps {TAP_SIGMA_PX:g} px off would change the focal length they give more than "
               "twofold")
    elif spread > MAX_FOCAL_REL_SPREAD:
        why = (f"they tell it only to within about {100 * spread:.0f}% (taps {TAP_SIGMA_PX:g} px "
               "off)")
    elif not (lo <= _hfov(f, width) <= hi):
        why = (f"they give {f:.0f} px, a {_hfov(f, width):.0f}-degree field of view no webcam "
               f"has ({lo:g}-{hi:g}): are the corners and the table size right?")
    if not why:
        assert f is not None and spread is not None
        camera = _camera_with(f, image_size)
        pose = pose_from_homography(H, camera, table, pts)
        message = (f"focal length {f:.0f} px ({_hfov(f, width):.0f}-degree field of view) from "
                   f"the four corners, to within about {100 * spread:.0f}% for taps "
                   f"{TAP_SIGMA_PX:g} px off")
        return CornerCamera(camera, pose, f, spread, message)
    camera = assumed_camera((int(image_size[0]), int(image_size[1])))
    pose = pose_from_homography(H, camera, table, pts)
    lead = ("the corners do not give a plausible focal length" if why.endswith("right?") else
            f"the camera looks too nearly straight down (tilted about {pose.tilt_deg:.0f} "
            "degrees) for the corners to tell its focal length")
    message = (f"{lead}: {why}. A "
               f"{DEFAULT_HFOV_DEG:g}-degree field of view is assumed, so the camera height "
               "(and the layers of stacked tiles) may be off by up to about 40% (webcams see "
               "50 to 85 degrees across): tilt the "
               "camera 15-20 degrees from straight down and give the corners again, or "
               "calibrate the lens (`domino-companion calibrate --lens-photos`)")
    return CornerCamera(camera, pose, f, spread, message)
