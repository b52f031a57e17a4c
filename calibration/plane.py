"""The table plane: from the four corner markers (or four clicked corners) to millimetres.

Table frame (the same as the renderer's): millimetres, origin at the play area's top-left corner
(where marker 0 goes), ``x`` to the right (towards marker 1), ``y`` down (towards marker 3), ``z``
INTO the table, so a point ``h`` mm above the table top has ``z = -h``. The play area is the
rectangle ``0..width_mm`` x ``0..height_mm``.

A :class:`TablePlane` holds the homography from table millimetres (on the table top, ``z = 0``) to
undistorted image pixels, and, when it could be estimated, the camera pose (from ``solvePnP`` on
the marker corners with a camera matrix that comes from a ChArUco lens calibration, or is
estimated from the homography itself, or is assumed from a typical webcam field of view). The pose
gives the camera height and tilt, and lets points above the table (the top of a tile, a stacked
tile) be converted without parallax: ``plane.to_table(px, z_mm=tile_thickness)``.

:class:`TablePlaneTracker` keeps the last good plane, re-detects the markers every few frames and
says when the camera moved, when it lost the markers and when it found them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping

import cv2
import numpy as np

from calibration.markers import CORNER_NAMES, MARKER_IDS, aruco_dictionary
from companion.errors import DominoError

Placement = Literal["center", "inside", "outside"]
#: Horizontal field of view assumed for a webcam without lens calibration (typical USB webcams
#: are 60-70 degrees horizontally); used only when the homography cannot tell the focal length.
DEFAULT_HFOV_DEG = 65.0
#: Smallest camera tilt (degrees) at which the focal length is estimated from the homography.
MIN_TILT_FOR_FOCAL = 4.0
#: Plausible lenses: horizontal field of view, degrees (a focal length from the table's
#: homography or from four corners outside it is refused).
HFOV_RANGE_DEG = (30.0, 120.0)


class CalibrationError(DominoError):
    """Calibration input that cannot be used (sizes, points, stored fields)."""


class MarkersNotFoundError(CalibrationError):
    """Too few of the four table markers were found to place the table.

    ``found`` and ``missing`` are marker ids; the message names the corners that are missing and
    what to check."""

    def __init__(self, found: Iterable[int], missing: Iterable[int], need: int) -> None:
        self.found = sorted(found)
        self.missing = sorted(missing)
        self.need = need
        super().__init__(markers_message(self.found, self.missing)
                         + f" (need at least {need} of 4)")


def markers_message(found: list[int], missing: list[int]) -> str:
    """"found markers 0, 1; missing 2, 3 (bottom-right, bottom-left): is the table fully in
    view?" and the like."""
    if not missing:
        return "found all four markers"
    names = ", ".join(CORNER_NAMES[i] for i in missing)
    found_text = ("found markers " + ", ".join(map(str, found))) if found else "found no markers"
    hint = ("is the table fully in view, are the markers lit and flat, and is nothing covering "
            "them?" if found else
            "are the printed markers on the table, in view and lit? (print them with "
            "`domino-companion markers --out markers.pdf`)")
    return f"{found_text}; missing {', '.join(map(str, missing))} ({names}): {hint}"


# --- layout --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MarkerLayout:
    """Where the markers are on the table.

    ``width_mm`` x ``height_mm`` is the play area. ``placement`` says how a marker sits on its
    corner: ``"center"`` (the marker's centre on the corner, the default and what the printed
    sheet tells people), ``"inside"`` (the marker inside the play area, its outer corner on the
    play-area corner) or ``"outside"`` (the marker outside, its inner corner on the play-area
    corner). Markers lie upright: their top edge faces the top of the play area. A marker turned
    by a multiple of 90 degrees is still recognised (see :func:`fit_homography`).
    """

    width_mm: float
    height_mm: float
    marker_mm: float = 40.0
    placement: Placement = "center"

    def __post_init__(self) -> None:
        for name in ("width_mm", "height_mm", "marker_mm"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and np.isfinite(v) and v > 0):
                raise CalibrationError(f"{name} {v!r} must be a positive number of millimetres")
        if self.placement not in ("center", "inside", "outside"):
            raise CalibrationError(f"placement {self.placement!r} is not known; "
                                   "use center, inside or outside")
        if min(self.width_mm, self.height_mm) < 3 * self.marker_mm:
            raise CalibrationError(
                f"table {self.width_mm:g}x{self.height_mm:g} mm is too small for "
                f"{self.marker_mm:g} mm markers; measure the distance between markers in mm "
                "(e.g. --table-mm 600x600)")

    @property
    def size_mm(self) -> tuple[float, float]:
        return (float(self.width_mm), float(self.height_mm))

    def table_corners_mm(self) -> np.ndarray:
        """The play area's corners TL, TR, BR, BL (4x2)."""
        w, h = self.size_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)

    def marker_corners_mm(self, marker_id: int) -> np.ndarray:
        """Marker ``marker_id``'s corners in the detector's order (its own TL, TR, BR, BL), 4x2."""
        if marker_id not in MARKER_IDS:
            raise CalibrationError(f"marker id {marker_id} is not a table marker; use 0..3")
        m = float(self.marker_mm)
        corner = self.table_corners_mm()[marker_id]
        sx = 1.0 if marker_id in (0, 3) else -1.0  # direction into the play area
        sy = 1.0 if marker_id in (0, 1) else -1.0
        if self.placement == "center":
            centre = corner
        elif self.placement == "inside":
            centre = corner + np.array([sx, sy]) * m / 2
        else:
            centre = corner - np.array([sx, sy]) * m / 2
        half = m / 2
        return centre + np.array([[-half, -half], [half, -half], [half, half], [-half, half]])

    def marker_centres_mm(self) -> np.ndarray:
        return np.array([self.marker_corners_mm(i).mean(axis=0) for i in MARKER_IDS])

    def to_dict(self) -> dict[str, Any]:
        return {"width_mm": self.width_mm, "height_mm": self.height_mm,
                "marker_mm": self.marker_mm, "placement": self.placement}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "MarkerLayout":
        return cls(float(d["width_mm"]), float(d["height_mm"]), float(d["marker_mm"]),
                   str(d["placement"]))  # type: ignore[arg-type]


def parse_table_mm(text: str) -> tuple[float, float]:
    """``"600x450"`` -> (600.0, 450.0); a clear error for anything else."""
    parts = str(text).lower().replace("×", "x").replace("mm", "").split("x")
    try:
        if len(parts) != 2:
            raise ValueError
        w, h = (float(p.strip()) for p in parts)
    except ValueError:
        raise CalibrationError(f"table size {text!r} is not WIDTHxHEIGHT in mm; "
                               "e.g. --table-mm 600x450") from None
    if not (w > 0 and h > 0 and np.isfinite(w) and np.isfinite(h)):
        raise CalibrationError(f"table size {text!r} must be two positive numbers of mm")
    return w, h


# --- detection -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class MarkerDetection:
    """Table markers found in one image: id -> 4x2 pixel corners (detector order), and the
    image size (width, height)."""

    corners_px: dict[int, np.ndarray]
    image_size: tuple[int, int]

    @property
    def found(self) -> list[int]:
        return sorted(self.corners_px)

    @property
    def missing(self) -> list[int]:
        return [i for i in MARKER_IDS if i not in self.corners_px]

    def message(self) -> str:
        return markers_message(self.found, self.missing)


_DETECTORS: dict[str, cv2.aruco.ArucoDetector] = {}


def _detector(kind: str = "plain") -> cv2.aruco.ArucoDetector:
    """``"plain"``: OpenCV's defaults with sub-pixel corners (the default polygon accuracy,
    0.03, is kept: 0.05 found one more rendered scene's markers but lost a marker on a clean
    straight-down view). ``"small"``: for the second pass on a sharpened frame, reading each
    marker cell from more pixels with a wider ignored margin (small, blurred markers)."""
    if kind not in _DETECTORS:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        if kind == "small":
            params.perspectiveRemovePixelPerCell = 8
            params.perspectiveRemoveIgnoredMarginPerCell = 0.2
        _DETECTORS[kind] = cv2.aruco.ArucoDetector(aruco_dictionary(), params)
    return _DETECTORS[kind]


def _sharpen(gray: np.ndarray, amount: float = 1.0, sigma: float = 1.5) -> np.ndarray:
    """Unsharp mask: restores the edges of small markers softened by focus blur."""
    blurred = cv2.GaussianBlur(gray, (0, 0), sigma)
    return cv2.addWeighted(gray, 1.0 + amount, blurred, -amount, 0)


def _check_frame(frame_bgr: np.ndarray) -> None:
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.dtype != np.uint8 or \
            frame_bgr.ndim not in (2, 3) or frame_bgr.shape[0] < 8 or frame_bgr.shape[1] < 8:
        if isinstance(frame_bgr, np.ndarray) and frame_bgr.dtype == np.uint8 and \
                frame_bgr.ndim in (2, 3):
            h, w = frame_bgr.shape[:2]
            raise CalibrationError(f"the picture is {w}x{h} px: too small to find the table in; "
                                   "give a photo or camera frame of the whole table (at least "
                                   "8x8 px, in practice hundreds)")
        got = (f"{frame_bgr.dtype} array of shape {frame_bgr.shape}"
               if isinstance(frame_bgr, np.ndarray) else type(frame_bgr).__name__)
        raise CalibrationError(f"the picture must be an 8-bit colour image (H x W x 3), got {got}")


def detect_markers(frame_bgr: np.ndarray) -> MarkerDetection:
    """Find table markers 0..3 (DICT_4X4_50) with OpenCV's ``ArucoDetector``.

    When a marker is missing after the first pass, a second pass runs on a sharpened frame with
    settings for small markers (rendered scenes at the calibration bench: 18 -> 22 of 24 with
    all four found; the other two have a hand over a marker). Other ids are ignored; when an id
    appears twice the larger marker wins."""
    _check_frame(frame_bgr)
    gray = frame_bgr if frame_bgr.ndim == 2 else cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    found: dict[int, np.ndarray] = {}
    passes = (("plain", lambda g: g), ("small", _sharpen))
    for kind, prepare in passes:
        corners, ids, _rejected = _detector(kind).detectMarkers(prepare(gray))
        new: dict[int, np.ndarray] = {}
        if ids is not None:
            for c, i in zip(corners, ids.ravel()):
                i = int(i)
                if i not in MARKER_IDS or i in found:
                    continue
                c = c.reshape(4, 2).astype(np.float64)
                if i in new and cv2.contourArea(new[i].astype(np.float32)) >= \
                        cv2.contourArea(c.astype(np.float32)):
                    continue
                new[i] = c
        found.update(new)
        if len(found) == len(MARKER_IDS):
            break  # the second pass runs only when a marker is still missing
    return MarkerDetection(found, (frame_bgr.shape[1], frame_bgr.shape[0]))


# --- camera --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CameraModel:
    """Intrinsics: 3x3 ``K``, distortion ``dist`` (k1, k2, p1, p2, k3) and where they came from:
    ``"lens-calibration"`` (ChArUco), ``"homography"`` (focal length estimated from the table
    homography of the markers), ``"corners"`` (estimated from the four corners given by hand,
    :mod:`calibration.cornercam`) or ``"assumed-fov"`` (from the image size and
    :data:`DEFAULT_HFOV_DEG`)."""

    K: np.ndarray
    dist: np.ndarray
    source: str
    image_size: tuple[int, int]

    @property
    def has_distortion(self) -> bool:
        return bool(np.any(np.asarray(self.dist) != 0))

    def to_dict(self) -> dict[str, Any]:
        return {"K": np.asarray(self.K, float).tolist(),
                "dist": np.asarray(self.dist, float).ravel().tolist(),
                "source": self.source, "image_size": list(self.image_size)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CameraModel":
        K = np.array(d["K"], np.float64)
        dist = np.array(d["dist"], np.float64).ravel()
        if K.shape != (3, 3) or dist.size not in (4, 5, 8, 12, 14):
            raise CalibrationError(f"camera K must be 3x3 and dist 4-14 numbers; got K "
                                   f"{K.shape}, dist {dist.size}")
        return cls(K, dist, str(d["source"]), (int(d["image_size"][0]), int(d["image_size"][1])))

    def scaled_to(self, image_size: tuple[int, int]) -> "CameraModel":
        """The same lens at another resolution of the same aspect (webcams scale their modes)."""
        if tuple(image_size) == tuple(self.image_size):
            return self
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise CalibrationError(
                f"lens calibration was made at {self.image_size[0]}x{self.image_size[1]} and "
                f"cannot be used at {image_size[0]}x{image_size[1]} (another aspect ratio); "
                "calibrate the lens again at this resolution")
        K = self.K.copy()
        K[0] *= sx
        K[1] *= sy
        return CameraModel(K, self.dist, self.source, tuple(image_size))  # type: ignore[arg-type]


def assumed_camera(image_size: tuple[int, int], hfov_deg: float = DEFAULT_HFOV_DEG) -> CameraModel:
    """A pinhole camera with the principal point at the image centre and the given horizontal
    field of view, no distortion."""
    w, h = image_size
    f = (w / 2) / np.tan(np.deg2rad(hfov_deg) / 2)
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
    return CameraModel(K, np.zeros(5), "assumed-fov", (int(w), int(h)))


def _centred_homography(H: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """``H`` with the principal point (the centre of an ``image_size`` (width, height)
    picture) moved to the origin, scaled so its first two columns have unit norm together."""
    w, h = image_size
    T = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]], np.float64)
    G = T @ np.asarray(H, np.float64)
    return G / np.linalg.norm(G[:, :2])


def focal_least_squares(H: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """``u = 1 / f^2`` that makes the table homography ``H`` (table -> pixels) a rotation,
    assuming square pixels and the principal point at the centre of an ``image_size`` (width,
    height) picture (Zhang's constraints from one view): ``r1 . r2 = 0`` and ``|r1| = |r2|``
    give two equations linear in ``u``, solved in least squares (see
    :mod:`calibration.cornercam`). ``None`` when both equations vanish (exactly straight
    down). ``u`` may come out zero or negative (no real focal length: the view is straight
    down and the corners a little off)."""
    return _focal_u(_centred_homography(H, image_size))


def _focal_u(G: np.ndarray) -> float | None:
    """:func:`focal_least_squares` of a centred homography ``G`` (:func:`_centred_homography`)."""
    (a1, b1, c1), (a2, b2, c2) = G[:, 0], G[:, 1]
    A = np.array([a1 * a2 + b1 * b2, a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2])
    B = np.array([c1 * c2, c1 * c1 - c2 * c2])
    denom = float(A @ A)
    if not denom > 1e-18:
        return None
    return -float(A @ B) / denom


def focal_from_homography(H: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """The focal length (pixels) that makes the table homography a rotation, assuming square
    pixels and the principal point at the image centre (:func:`focal_least_squares`).

    Returns ``None`` when the view is too close to straight down for the focal length to show
    (the constraints become 0 = 0) or the answer is implausible."""
    w = image_size[0]
    G = _centred_homography(H, image_size)
    u = _focal_u(G)
    if u is None or not np.isfinite(u) or u <= 0:
        return None
    f = 1.0 / np.sqrt(u)
    # plausible lenses only (HFOV_RANGE_DEG)
    lo, hi = HFOV_RANGE_DEG
    if not (w / 2 / np.tan(np.deg2rad(hi / 2)) <= f <= w / 2 / np.tan(np.deg2rad(lo / 2))):
        return None
    # the constraints only carry information when the view is tilted: below MIN_TILT_FOR_FOCAL
    # the estimate is noise (measured on rendered scenes: 1-3 degree views gave focal lengths
    # 1.5-2.8x too long; 5+ degrees within 6%)
    Kinv = np.diag([1 / f, 1 / f, 1.0])
    r1, r2 = Kinv @ G[:, 0], Kinv @ G[:, 1]
    normal = np.cross(r1 / np.linalg.norm(r1), r2 / np.linalg.norm(r2))
    tilt = np.degrees(np.arccos(min(1.0, abs(normal[2]) / np.linalg.norm(normal))))
    if tilt < MIN_TILT_FOR_FOCAL:
        return None
    return float(f)


@dataclass(frozen=True)
class CameraPose:
    """Where the camera is relative to the table: ``rvec``/``tvec`` (table mm -> camera frame,
    as ``solvePnP`` gives them), the camera's height above the table (mm), its tilt from straight
    down (degrees), its turn about the vertical (degrees, the renderer's ``rotation_deg``), and the
    RMS reprojection error of the points it was fitted to (pixels)."""

    rvec: np.ndarray
    tvec: np.ndarray
    height_mm: float
    tilt_deg: float
    rotation_deg: float
    reprojection_px: float

    @property
    def R(self) -> np.ndarray:
        return cv2.Rodrigues(np.asarray(self.rvec, np.float64))[0]

    @property
    def centre_mm(self) -> np.ndarray:
        """The camera centre in the table frame (``z`` negative above the table)."""
        return -self.R.T @ np.asarray(self.tvec, np.float64).ravel()

    def to_dict(self) -> dict[str, Any]:
        return {"rvec": np.asarray(self.rvec, float).ravel().tolist(),
                "tvec": np.asarray(self.tvec, float).ravel().tolist(),
                "height_mm": self.height_mm, "tilt_deg": self.tilt_deg,
                "rotation_deg": self.rotation_deg, "reprojection_px": self.reprojection_px}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CameraPose":
        return cls(np.array(d["rvec"], np.float64), np.array(d["tvec"], np.float64),
                   float(d["height_mm"]), float(d["tilt_deg"]), float(d["rotation_deg"]),
                   float(d["reprojection_px"]))


def estimate_pose(points_mm: np.ndarray, points_px: np.ndarray, camera: CameraModel) -> CameraPose:
    """Camera pose from table points (Nx2 mm on the table top) and their pixels (Nx2, as seen,
    i.e. distorted if the lens distorts), with ``solvePnP`` (IPPE for planar targets)."""
    obj = np.column_stack([np.asarray(points_mm, np.float64), np.zeros(len(points_mm))])
    img = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
    # Every solver's answers (IPPE gives both planar solutions; it returns NaN on some exactly
    # fronto-parallel views, found by a property test, so SQPnP and the iterative solver back it
    # up), refined; the physical one (camera above the table) that reprojects best wins.
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    mirrored = False
    for flag in (cv2.SOLVEPNP_IPPE, cv2.SOLVEPNP_SQPNP, cv2.SOLVEPNP_ITERATIVE):
        try:
            n, rvecs, tvecs, _ = cv2.solvePnPGeneric(obj, img, camera.K, camera.dist, flags=flag)
        except cv2.error:
            continue
        for rv, tv in zip(rvecs[:n], tvecs[:n]):
            if not (np.all(np.isfinite(rv)) and np.all(np.isfinite(tv))):
                continue
            rv, tv = cv2.solvePnPRefineLM(obj, img, camera.K, camera.dist, rv.copy(), tv.copy())
            centre = -cv2.Rodrigues(rv)[0].T @ tv.ravel()
            if centre[2] > 0:  # the mirror solution (camera under the table): not physical
                mirrored = True
                continue
            proj, _ = cv2.projectPoints(obj, rv, tv, camera.K, camera.dist)
            err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img.reshape(-1, 2)) ** 2, 1))))
            if best is None or err < best[0] - 1e-9:
                best = (err, rv, tv)
    if best is None:
        if mirrored:
            raise CalibrationError("the camera pose came out under the table; check the marker "
                                   "order (id 0 top-left, clockwise) and the table size")
        raise CalibrationError("the camera pose could not be estimated from the markers")
    _, rvec, tvec = best
    return pose_from_rvec_tvec(rvec, tvec, obj, img, camera)


def pose_from_rvec_tvec(rvec: np.ndarray, tvec: np.ndarray, obj: np.ndarray, img: np.ndarray,
                        camera: CameraModel) -> CameraPose:
    """The :class:`CameraPose` of ``rvec``/``tvec`` (table mm -> camera frame): height, tilt,
    turn, and the RMS reprojection error of the table points ``obj`` (Nx3) on their pixels
    ``img`` (Nx1x2 or Nx2, as seen)."""
    rvec = np.asarray(rvec, np.float64).reshape(3, 1)
    tvec = np.asarray(tvec, np.float64).reshape(3, 1)
    R = cv2.Rodrigues(rvec)[0]
    C = -R.T @ tvec.ravel()
    axis = R.T @ np.array([0.0, 0.0, 1.0])
    tilt = float(np.degrees(np.arccos(np.clip(axis[2], -1.0, 1.0))))
    y_world = R[1]  # the image's "down" direction, in table coordinates
    rotation = float(np.degrees(np.arctan2(-y_world[0], y_world[1])))
    proj, _ = cv2.projectPoints(np.asarray(obj, np.float64), rvec, tvec, camera.K, camera.dist)
    rms = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) -
                                        np.asarray(img, np.float64).reshape(-1, 2)) ** 2, 1))))
    return CameraPose(rvec.ravel(), tvec.ravel(), float(-C[2]), tilt, rotation, rms)


# --- the plane -----------------------------------------------------------------------------------
def _apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(H, np.float64).T
    return q[:, :2] / q[:, 2:3]


@dataclass(frozen=True)
class TablePlane:
    """The table as the camera sees it. ``table_to_image`` maps table mm (``z = 0``) to
    *undistorted* pixels; :meth:`to_table` and :meth:`to_image` handle the lens (when ``camera``
    has distortion) and points above the table (with the pose)."""

    table_to_image: np.ndarray
    table_size_mm: tuple[float, float]
    image_size: tuple[int, int]
    method: str  # "markers" or "manual"
    marker_ids: tuple[int, ...] = ()
    reprojection_px: float = 0.0
    camera: CameraModel | None = None
    pose: CameraPose | None = None
    layout: MarkerLayout | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def image_to_table(self) -> np.ndarray:
        Hi = np.linalg.inv(self.table_to_image)
        return Hi / Hi[2, 2]

    def _undistort(self, pts: np.ndarray) -> np.ndarray:
        if self.camera is None or not self.camera.has_distortion:
            return pts
        und = cv2.undistortPoints(pts.reshape(-1, 1, 2), self.camera.K, self.camera.dist,
                                  None, None, self.camera.K,
                                  (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-8))
        return und.reshape(-1, 2)

    def _distort(self, pts: np.ndarray) -> np.ndarray:
        if self.camera is None or not self.camera.has_distortion:
            return pts
        K = self.camera.K
        norm = np.column_stack([(pts[:, 0] - K[0, 2]) / K[0, 0], (pts[:, 1] - K[1, 2]) / K[1, 1],
                                np.ones(len(pts))])
        out, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), K, self.camera.dist)
        return out.reshape(-1, 2)

    def homography_at(self, z_mm: float) -> np.ndarray:
        """Table mm on the plane ``z_mm`` above the table top -> undistorted pixels. Needs the
        pose for ``z_mm != 0``."""
        if z_mm == 0:
            return np.asarray(self.table_to_image, np.float64)
        if self.pose is None or self.camera is None:
            raise CalibrationError(f"converting points {z_mm:g} mm above the table needs the "
                                   "camera pose; calibrate with markers or four corners first")
        R = self.pose.R
        t = np.asarray(self.pose.tvec, np.float64).ravel()
        H = self.camera.K @ np.column_stack([R[:, 0], R[:, 1], t - R[:, 2] * float(z_mm)])
        return H / H[2, 2]

    def to_table(self, points_px: Any, z_mm: float = 0.0) -> np.ndarray:
        """Image pixels (Nx2, as the camera sees them) -> table mm (Nx2) on the plane ``z_mm``
        above the table top (0: the table; a tile's thickness: its top face)."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 2)
        return _apply_h(np.linalg.inv(self.homography_at(z_mm)), self._undistort(pts))

    def to_image(self, points_mm: Any, z_mm: float = 0.0) -> np.ndarray:
        """Table mm (Nx2) at ``z_mm`` above the table -> image pixels (Nx2, as the camera sees)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        return self._distort(_apply_h(self.homography_at(z_mm), pts))

    def table_corners_px(self) -> np.ndarray:
        w, h = self.table_size_mm
        return self.to_image([[0, 0], [w, 0], [w, h], [0, h]])

    def px_per_mm_at(self, point_mm: Any) -> float:
        """Image pixels per table millimetre around a table point (the square root of the local
        area scale)."""
        p = np.asarray(point_mm, np.float64).reshape(2)
        q = self.to_image(np.array([p, p + [1, 0], p + [0, 1]]))
        a, b = q[1] - q[0], q[2] - q[0]
        return float(np.sqrt(abs(a[0] * b[1] - a[1] * b[0])))

    def scaled_to(self, image_size: tuple[int, int]) -> "TablePlane":
        """The same calibration for frames of another size with the same aspect (a webcam mode
        of another resolution). Raises :class:`CalibrationError` for another aspect ratio."""
        w, h = (int(v) for v in image_size)
        if (w, h) == tuple(self.image_size):
            return self
        sx, sy = w / self.image_size[0], h / self.image_size[1]
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise CalibrationError(
                f"the table was calibrated on {self.image_size[0]}x{self.image_size[1]} frames "
                f"and cannot be used on {w}x{h} (another aspect ratio): run "
                "`domino-companion calibrate` again at this resolution")
        S = np.diag([sx, sy, 1.0])
        H = S @ self.table_to_image
        camera = None if self.camera is None else self.camera.scaled_to((w, h))
        return TablePlane(H / H[2, 2], self.table_size_mm, (w, h), self.method, self.marker_ids,
                          self.reprojection_px * sx, camera, self.pose, self.layout)

    def to_dict(self) -> dict[str, Any]:
        return {
            "table_to_image": np.asarray(self.table_to_image, float).tolist(),
            "table_size_mm": list(self.table_size_mm),
            "image_size": list(self.image_size),
            "method": self.method,
            "marker_ids": list(self.marker_ids),
            "reprojection_px": self.reprojection_px,
            "camera": None if self.camera is None else self.camera.to_dict(),
            "pose": None if self.pose is None else self.pose.to_dict(),
            "layout": None if self.layout is None else self.layout.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TablePlane":
        H = np.array(d["table_to_image"], np.float64)
        if H.shape != (3, 3) or not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
            raise CalibrationError("table_to_image must be an invertible 3x3 matrix")
        size = tuple(float(v) for v in d["table_size_mm"])
        img = tuple(int(v) for v in d["image_size"])
        if len(size) != 2 or len(img) != 2:
            raise CalibrationError("table_size_mm and image_size must have two numbers each")
        return cls(H, size, img, str(d["method"]),  # type: ignore[arg-type]
                   tuple(int(i) for i in d.get("marker_ids", [])),
                   float(d.get("reprojection_px", 0.0)),
                   CameraModel.from_dict(d["camera"]) if d.get("camera") else None,
                   CameraPose.from_dict(d["pose"]) if d.get("pose") else None,
                   MarkerLayout.from_dict(d["layout"]) if d.get("layout") else None)


def _match_corner_order(corners_px: np.ndarray, expected_mm: np.ndarray,
                        approx: np.ndarray) -> np.ndarray:
    """Reorder a marker's detected corners (a cyclic shift: the marker may be turned by a
    multiple of 90 degrees on the table) to best match the expected table corners under the
    approximate table->image transform ``approx``."""
    target = _apply_h(approx, expected_mm)
    best, best_err = corners_px, np.inf
    for k in range(4):
        cand = np.roll(corners_px, -k, axis=0)
        err = float(np.sum((cand - target) ** 2))
        if err < best_err:
            best, best_err = cand, err
    return best


def fit_homography(detection: MarkerDetection, layout: MarkerLayout,
                   camera: CameraModel | None = None, min_markers: int = 3
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Table->undistorted-image homography from the detected markers' corners.

    A first transform from the marker centres (a homography with four markers, an affine with
    three) decides each marker's corner order, then all corners are fitted by least squares.
    Returns ``(H, points_mm, points_px_seen, rms_px)``. Raises :class:`MarkersNotFoundError`
    with fewer than ``min_markers``."""
    ids = detection.found
    if len(ids) < max(3, min_markers):
        raise MarkersNotFoundError(ids, detection.missing, max(3, min_markers))
    seen = {i: detection.corners_px[i] for i in ids}
    tmp_plane = TablePlane(np.eye(3), layout.size_mm, detection.image_size, "markers",
                           camera=camera)
    und = {i: tmp_plane._undistort(seen[i]) for i in ids}
    centres_mm = np.array([layout.marker_corners_mm(i).mean(0) for i in ids])
    centres_px = np.array([und[i].mean(0) for i in ids])
    if len(ids) >= 4:
        approx = cv2.getPerspectiveTransform(centres_mm.astype(np.float32),
                                             centres_px.astype(np.float32))
    else:
        A = cv2.getAffineTransform(centres_mm.astype(np.float32), centres_px.astype(np.float32))
        approx = np.vstack([A, [0, 0, 1]])
    mm_list, px_list, seen_list = [], [], []
    for i in ids:
        exp = layout.marker_corners_mm(i)
        ordered = _match_corner_order(und[i], exp, approx)
        shift = next(k for k in range(4) if np.allclose(np.roll(und[i], -k, 0), ordered))
        mm_list.append(exp)
        px_list.append(ordered)
        seen_list.append(np.roll(seen[i], -shift, 0))
    pts_mm = np.vstack(mm_list)
    pts_px = np.vstack(px_list)
    H, _ = cv2.findHomography(pts_mm, pts_px, 0)
    if H is None:
        raise CalibrationError("the marker corners do not define a table plane (degenerate)")
    H = H / H[2, 2]
    rms = float(np.sqrt(np.mean(np.sum((_apply_h(H, pts_mm) - pts_px) ** 2, 1))))
    return H, pts_mm, np.vstack(seen_list), rms


def _camera_for(H: np.ndarray, image_size: tuple[int, int],
                camera: CameraModel | None) -> CameraModel:
    if camera is not None:
        return camera.scaled_to(image_size)
    f = focal_from_homography(H, image_size)
    if f is None:
        return assumed_camera(image_size)
    w, h = image_size
    return CameraModel(np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]]), np.zeros(5),
                       "homography", (int(w), int(h)))


def plane_from_markers(frame_or_detection: np.ndarray | MarkerDetection, layout: MarkerLayout,
                       camera: CameraModel | None = None, min_markers: int = 4) -> TablePlane:
    """The table plane from a frame (or a detection already made) and the marker layout.

    ``camera`` is a lens calibration if there is one; without, the focal length is estimated from
    the homography when the view is tilted enough, else assumed (:data:`DEFAULT_HFOV_DEG`).
    Raises :class:`MarkersNotFoundError` (which markers are missing, what to check)."""
    det = (frame_or_detection if isinstance(frame_or_detection, MarkerDetection)
           else detect_markers(frame_or_detection))
    if camera is not None:
        camera = camera.scaled_to(det.image_size)
    H, pts_mm, pts_seen, rms = fit_homography(det, layout, camera, min_markers)
    cam = _camera_for(H, det.image_size, camera)
    pose = estimate_pose(pts_mm, pts_seen, cam)
    return TablePlane(H, layout.size_mm, det.image_size, "markers", tuple(det.found), rms, cam,
                      pose, layout)


def checked_corners(corners_px: Any, table_size_mm: tuple[float, float]
                    ) -> tuple[np.ndarray, tuple[float, float]]:
    """Four play-area corners as a (4, 2) float array and the play area's (width, height) in mm,
    refused with :class:`CalibrationError` when they are not four finite points or two
    positive sizes."""
    pts = np.asarray(corners_px, np.float64)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise CalibrationError(f"corners must be four (x, y) pixel points, got shape {pts.shape}")
    w, h = (float(v) for v in table_size_mm)
    if not (w > 0 and h > 0):
        raise CalibrationError(f"table size {table_size_mm!r} must be two positive mm values")
    return pts, (w, h)


def plane_from_corners(corners_px: Any, table_size_mm: tuple[float, float],
                       image_size: tuple[int, int], camera: CameraModel | None = None
                       ) -> TablePlane:
    """The manual fallback: four clicked pixels of the play area's corners (top-left, top-right,
    bottom-right, bottom-left, as seen) and the play area's size in mm.

    With a lens calibration (``camera``) the pose is fitted with its intrinsics; without, the
    camera is recovered from the corners (:func:`calibration.cornercam.camera_from_corners`: the
    focal length when the view is tilted enough to tell it, else the assumed field of view) and
    what was done is said in ``extra["camera"]`` of the returned plane (not stored)."""
    pts, (w, h) = checked_corners(corners_px, table_size_mm)
    iw, ih = image_size
    if np.any(pts < -0.5 * max(iw, ih)) or np.any(pts[:, 0] > 1.5 * iw) or \
            np.any(pts[:, 1] > 1.5 * ih):
        raise CalibrationError(f"corners {pts.tolist()} are far outside the {iw}x{ih} image")
    quad = pts.astype(np.float32).reshape(-1, 1, 2)
    if not cv2.isContourConvex(quad) or abs(cv2.contourArea(quad)) < 100:
        raise CalibrationError(
            f"corners {pts.round(1).tolist()} do not form a convex four-sided area; click them "
            "in order top-left, top-right, bottom-right, bottom-left")
    if camera is not None:
        camera = camera.scaled_to(image_size)
    table = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    tmp = TablePlane(np.eye(3), (w, h), image_size, "manual", camera=camera)
    und = tmp._undistort(pts)
    H = cv2.getPerspectiveTransform(table.astype(np.float32), und.astype(np.float32))
    H = H / H[2, 2]
    extra: dict[str, Any] = {}
    pose: CameraPose | None
    if camera is None:
        from calibration.cornercam import camera_from_corners

        try:
            found = camera_from_corners(pts, (w, h), (int(iw), int(ih)))
        except CalibrationError as exc:
            cam, pose, extra["camera"] = assumed_camera((int(iw), int(ih))), None, str(exc)
        else:
            cam, pose, extra["camera"] = found.camera, found.pose, found.message
        return TablePlane(H, (w, h), (int(iw), int(ih)), "manual", (), 0.0, cam, pose, None,
                          extra)
    cam = _camera_for(H, image_size, camera)
    try:
        pose = estimate_pose(table, pts, cam)
    except CalibrationError:
        pose = None
    return TablePlane(H, (w, h), (int(iw), int(ih)), "manual", (), 0.0, cam, pose, None)


def rectify(frame_bgr: np.ndarray, plane: TablePlane, px_per_mm: float = 2.0,
            margin_mm: float = 0.0, z_mm: float = 0.0) -> np.ndarray:
    """The top-down view of the play area: output pixel ``(u, v)`` shows table point
    ``(u / px_per_mm - margin_mm, v / px_per_mm - margin_mm)`` mm (at ``z_mm`` above the table).
    Lens distortion is removed when the plane's camera has it."""
    _check_frame(frame_bgr)
    if not (0 < px_per_mm <= 20):
        raise CalibrationError(f"px_per_mm {px_per_mm!r} must be in (0, 20]")
    w, h = plane.table_size_mm
    out_w = int(round((w + 2 * margin_mm) * px_per_mm))
    out_h = int(round((h + 2 * margin_mm) * px_per_mm))
    if out_w * out_h > 40_000_000:
        raise CalibrationError(f"rectified view {out_w}x{out_h} is too large; lower px_per_mm")
    S = np.array([[px_per_mm, 0, px_per_mm * margin_mm], [0, px_per_mm, px_per_mm * margin_mm],
                  [0, 0, 1]], np.float64)
    H = plane.homography_at(z_mm)
    if plane.camera is None or not plane.camera.has_distortion:
        return cv2.warpPerspective(frame_bgr, S @ np.linalg.inv(H), (out_w, out_h),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    u, v = np.meshgrid(np.arange(out_w, dtype=np.float64), np.arange(out_h, dtype=np.float64))
    table = np.column_stack([u.ravel() / px_per_mm - margin_mm, v.ravel() / px_per_mm - margin_mm])
    src = plane.to_image(table, z_mm).astype(np.float32)
    mx = src[:, 0].reshape(out_h, out_w)
    my = src[:, 1].reshape(out_h, out_w)
    return cv2.remap(frame_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


# --- tracking ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TrackerUpdate:
    """What one :meth:`TablePlaneTracker.update` found.

    ``status``: ``"searching"`` (no plane yet), ``"found"`` (first plane), ``"steady"`` (markers
    where they were), ``"moved"`` (the camera or table moved; new plane), ``"lost"`` (markers not
    found; the last good plane is kept), ``"recovered"`` (found again after being lost),
    ``"skipped"`` (not a detection frame; the current plane). ``plane`` is the plane to use now
    (``None`` before the first), ``message`` says it in words."""

    status: str
    plane: TablePlane | None
    frame_index: int
    message: str
    found: tuple[int, ...] = ()
    shift_px: float = 0.0


class TablePlaneTracker:
    """Keeps the table plane up to date while the camera runs.

    Detects markers every frame until it has a plane, then every ``every_n`` frames. A new
    detection whose table corners moved more than ``moved_px`` pixels replaces the plane
    (``"moved"``); when the markers cannot be found the last good plane is kept (``"lost"``) and
    detection runs every frame until they are back (``"recovered"``)."""

    def __init__(self, layout: MarkerLayout, camera: CameraModel | None = None,
                 every_n: int = 5, moved_px: float = 2.0, min_markers: int = 4,
                 initial: TablePlane | None = None) -> None:
        if every_n < 1:
            raise CalibrationError(f"every_n {every_n!r} must be at least 1")
        self.layout = layout
        self.camera = camera
        self.every_n = int(every_n)
        self.moved_px = float(moved_px)
        self.min_markers = int(min_markers)
        #: the stored calibration to start from (checked against the markers on the first frame)
        self.plane: TablePlane | None = initial
        self.lost = False
        self._frames = 0
        self._since_detect = 0

    def update(self, frame_bgr: np.ndarray) -> TrackerUpdate:
        index = self._frames
        self._frames += 1
        if self.plane is not None and index == 0:
            self.plane = self.plane.scaled_to((frame_bgr.shape[1], frame_bgr.shape[0]))
        due = (self.plane is None or self.lost or index == 0
               or self._since_detect + 1 >= self.every_n)
        if not due:
            self._since_detect += 1
            return TrackerUpdate("skipped", self.plane, index, "using the current table plane")
        self._since_detect = 0
        det = detect_markers(frame_bgr)
        try:
            new = plane_from_markers(det, self.layout, self.camera, self.min_markers)
        except MarkersNotFoundError as exc:
            if self.plane is None:
                return TrackerUpdate("searching", None, index, str(exc), tuple(det.found))
            self.lost = True
            return TrackerUpdate("lost", self.plane, index,
                                 f"{exc}; keeping the last table position until they are back",
                                 tuple(det.found))
        except CalibrationError as exc:
            status = "searching" if self.plane is None else "lost"
            self.lost = self.plane is not None
            return TrackerUpdate(status, self.plane, index, str(exc), tuple(det.found))
        if self.plane is None:
            self.plane = new
            return TrackerUpdate("found", new, index, "table found", tuple(det.found))
        shift = float(np.max(np.linalg.norm(new.table_corners_px() - self.plane.table_corners_px(),
                                            axis=1)))
        was_lost = self.lost
        self.lost = False
        if shift > self.moved_px:
            self.plane = new
            status = "recovered" if was_lost else "moved"
            msg = (f"markers found again; the table moved by {shift:.1f} px" if was_lost else
                   f"the camera or table moved ({shift:.1f} px); using the new position")
            return TrackerUpdate(status, new, index, msg, tuple(det.found), shift)
        if was_lost:
            return TrackerUpdate("recovered", self.plane, index,
                                 "markers found again where they were", tuple(det.found), shift)
        return TrackerUpdate("steady", self.plane, index, "table where it was", tuple(det.found),
                             shift)


#: What the live companion says of a table calibrated by hand (it has no markers to follow).
FIXED_PLANE_MESSAGE = ("table from the four corners given by hand: a moved camera is not "
                       "followed (calibrate again after moving it, or use the markers)")


class FixedPlaneTracker:
    """A stored table plane that is not followed, with :class:`TablePlaneTracker`'s ``update``:
    a calibration from four corners given by hand has no markers to look for again. The plane
    is scaled to the first frame's size, and again whenever the frames change size
    (:meth:`TablePlane.scaled_to`, which raises :class:`CalibrationError` for another aspect
    ratio); those frames' updates are ``"found"``, every other one ``"skipped"`` with the same
    plane."""

    def __init__(self, plane: TablePlane) -> None:
        if plane.pose is None or plane.camera is None:
            raise CalibrationError("a table plane without a camera pose cannot be used to follow "
                                   "tiles above the table; calibrate again")
        self.plane: TablePlane | None = plane
        self.lost = False
        self._frames = 0

    def update(self, frame_bgr: np.ndarray) -> TrackerUpdate:
        index = self._frames
        self._frames += 1
        assert self.plane is not None
        size = (frame_bgr.shape[1], frame_bgr.shape[0])
        if index == 0 or tuple(self.plane.image_size) != size:
            # the first frame, or the camera changed its picture size: scaled to it
            self.plane = self.plane.scaled_to(size)
            return TrackerUpdate("found", self.plane, index, FIXED_PLANE_MESSAGE)
        return TrackerUpdate("skipped", self.plane, index, "using the table plane of the corners")
