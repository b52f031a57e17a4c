"""Bad set-ups in words: what is wrong and what to do.

Each check returns a list of :class:`Problem` (empty when all is well); :func:`check_setup` runs
them all on one frame and returns every problem at once, so a person can fix everything in one go
(the way ``chess.Board.status()`` reports every problem of a position).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.markers import CORNER_NAMES
from calibration.plane import (CalibrationError, CameraModel, MarkerDetection, MarkerLayout,
                               TablePlane, detect_markers, plane_from_markers)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the set-up: a stable ``code``, ``"error"`` (calibration cannot go
    on) or ``"warning"`` (it works, but reading will suffer), and the message with the fix."""

    code: str
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {self.message}"


@dataclass(frozen=True)
class Limits:
    """Thresholds of the checks (stated here, not buried in code).

    Exposure: the median grey level below ``dark_median`` is too dark. Glare: pixels at or above
    ``glare_level`` on all three channels are blown out; more than ``glare_fraction`` of the play
    area blown out is glare. Pose: the camera lower than ``min_height_mm`` sees tiles too
    obliquely at the far side and stacked tiles hide each other; tilted more than
    ``max_tilt_deg`` the far tiles shrink and lean. Framing: every play-area corner should be at
    least ``edge_margin_px`` inside the image. Markers: narrower than ``min_marker_px`` in the
    picture is a warning (in the renderer bench the detector's misses are 16-24 px markers under
    blur). Fit: the marker corners' RMS distance from where the stated sizes put them above
    ``max_fit_rms_px`` (rendered scenes: at most 1.98 px; a 40 mm size given for 50 mm markers:
    11.2 px)."""

    dark_median: float = 50.0
    glare_level: int = 250
    glare_fraction: float = 0.01
    min_height_mm: float = 350.0
    max_height_mm: float = 2000.0
    max_tilt_deg: float = 35.0
    edge_margin_px: float = 2.0
    min_marker_px: float = 20.0
    max_fit_rms_px: float = 3.0
    #: above this many times ``max_fit_rms_px`` the sizes are wrong, not the markers a little
    #: uneven: an error, nothing saved
    fit_error_factor: float = 3.0
    #: a pose this far out (tilted more, or this many times ``max_height_mm`` up) is no camera
    #: above a table: the sizes given or the corners' order are wrong (an error)
    impossible_tilt_deg: float = 80.0
    impossible_height_factor: float = 2.5


DEFAULT_LIMITS = Limits()


def check_exposure(frame_bgr: np.ndarray, plane: TablePlane | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> list[Problem]:
    """Too dark, and glare (blown-out regions) on the play area (the whole frame without a
    plane)."""
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
    mask = None
    if plane is not None:
        mask = np.zeros(gray.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(plane.table_corners_px()).astype(np.int32), 255)
        if not mask.any():
            mask = None
    region = gray[mask > 0] if mask is not None else gray.ravel()
    problems: list[Problem] = []
    median = float(np.median(region))
    if median < limits.dark_median:
        problems.append(Problem(
            "too-dark", "error" if median < limits.dark_median / 2 else "warning",
            f"the picture is too dark (median brightness {median:.0f} of 255, want at least "
            f"{limits.dark_median:.0f}): turn on a light over the table or open the curtains"))
    blown = np.all(frame_bgr >= limits.glare_level, axis=2) if frame_bgr.ndim == 3 else \
        gray >= limits.glare_level
    blown_region = blown[mask > 0] if mask is not None else blown.ravel()
    frac = float(np.mean(blown_region)) if blown_region.size else 0.0
    if frac > limits.glare_fraction:
        problems.append(Problem(
            "glare", "warning",
            f"glare: {100 * frac:.1f}% of the play area is blown out (pure white; allowed "
            f"{100 * limits.glare_fraction:.0f}%): move the lamp to the side or tilt it away, "
            "close blinds on a window reflecting in the tiles, or lower the camera's exposure"))
    return problems


def check_markers(detection: MarkerDetection, limits: Limits = DEFAULT_LIMITS) -> list[Problem]:
    """Which markers are missing, by id and corner, and what to check; markers that are small in
    the picture (hard to find again after a bump, in blur or noise)."""
    problems: list[Problem] = []
    if detection.missing:
        problems.append(Problem("markers-missing", "error", detection.message()))
    sides = [float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))
             for c in detection.corners_px.values()]
    if sides and min(sides) < limits.min_marker_px:
        problems.append(Problem(
            "markers-small", "warning",
            f"the markers are only {min(sides):.0f} px wide in the picture (want at least "
            f"{limits.min_marker_px:.0f}): print bigger ones (--marker-mm 50) or bring the "
            "camera closer"))
    return problems


def check_pose(plane: TablePlane, limits: Limits = DEFAULT_LIMITS) -> list[Problem]:
    """Camera too low, too high or too tilted, from the estimated pose."""
    pose = plane.pose
    if pose is None:
        return []
    problems: list[Problem] = []
    assumed = "" if plane.camera is None or plane.camera.source != "assumed-fov" else \
        " (estimated with an assumed lens; calibrate the lens for a firmer figure)"
    if pose.tilt_deg > limits.impossible_tilt_deg or \
            pose.height_mm > limits.impossible_height_factor * limits.max_height_mm:
        return [Problem(
            "pose-impossible", "error",
            f"the sizes given put the camera about {pose.height_mm:.0f} mm above the table, "
            f"tilted {pose.tilt_deg:.0f} degrees{assumed}: no camera over a table sees it so; "
            "check the play area's width and height (in mm) and that the corners run top-left, "
            "top-right, bottom-right, bottom-left")]
    if pose.height_mm < limits.min_height_mm:
        problems.append(Problem(
            "camera-too-low", "warning",
            f"the camera is about {pose.height_mm:.0f} mm above the table{assumed}, lower than "
            f"{limits.min_height_mm:.0f} mm: raise it so stacked tiles do not hide each other"))
    if pose.height_mm > limits.max_height_mm:
        problems.append(Problem(
            "camera-too-high", "warning",
            f"the camera is about {pose.height_mm:.0f} mm above the table{assumed}, higher than "
            f"{limits.max_height_mm:.0f} mm: pips will be too small; lower it or zoom in"))
    if pose.tilt_deg > limits.max_tilt_deg:
        problems.append(Problem(
            "camera-too-tilted", "warning",
            f"the camera is tilted {pose.tilt_deg:.0f} degrees from straight down{assumed}, more "
            f"than {limits.max_tilt_deg:.0f}: point it more directly down at the table centre"))
    return problems


def check_fit(plane: TablePlane, limits: Limits = DEFAULT_LIMITS) -> list[Problem]:
    """Marker corners that do not fit the stated sizes: a wrong ``--marker-mm`` or
    ``--table-mm`` (or markers not flat, or put at the wrong corners)."""
    if plane.method != "markers" or plane.reprojection_px <= limits.max_fit_rms_px:
        return []
    wrong = plane.reprojection_px > limits.fit_error_factor * limits.max_fit_rms_px
    return [Problem(
        "sizes-do-not-fit", "error" if wrong else "warning",
        f"the marker corners miss the stated sizes by {plane.reprojection_px:.1f} px RMS (want at "
        f"most {limits.max_fit_rms_px:g}): check --marker-mm (the side of a printed black square) "
        "and --table-mm (centre to centre), that the markers lie flat, and that id 0 is "
        "top-left, then clockwise")]


def check_framing(plane: TablePlane, limits: Limits = DEFAULT_LIMITS) -> list[Problem]:
    """Play-area corners outside the image (the table partly out of frame)."""
    w, h = plane.image_size
    corners = plane.table_corners_px()
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    m = limits.edge_margin_px
    out = [n for n, (x, y) in zip(names, corners)
           if not (m <= x <= w - 1 - m and m <= y <= h - 1 - m)]
    if not out:
        return []
    return [Problem("table-out-of-frame", "warning",
                    f"the play area's {', '.join(out)} corner{'s are' if len(out) > 1 else ' is'} "
                    "outside the picture: move the camera back or up, or point it at the table "
                    "centre, so the whole play area is in view")]


@dataclass(frozen=True)
class SetupReport:
    """Everything :func:`check_setup` found: the problems, the markers and, if it could be made,
    the plane."""

    problems: list[Problem]
    detection: MarkerDetection
    plane: TablePlane | None

    @property
    def ok(self) -> bool:
        return self.plane is not None and not any(p.severity == "error" for p in self.problems)


def check_setup(frame_bgr: np.ndarray, layout: MarkerLayout, camera: CameraModel | None = None,
                limits: Limits = DEFAULT_LIMITS) -> SetupReport:
    """Run every check on one frame and return all problems at once."""
    detection = detect_markers(frame_bgr)
    problems = check_markers(detection, limits)
    plane: TablePlane | None = None
    if len(detection.found) >= 3:
        try:
            plane = plane_from_markers(detection, layout, camera, min_markers=3)
        except CalibrationError as exc:
            problems.append(Problem("plane", "error", str(exc)))
    if plane is not None and detection.missing:
        # where the missing markers should be: outside the picture, or in it but not seen
        w, h = plane.image_size
        for i in detection.missing:
            corners = plane.to_image(layout.marker_corners_mm(i))
            x, y = corners.mean(axis=0)
            where = CORNER_NAMES[i]
            inside = (corners[:, 0] >= 0) & (corners[:, 0] < w) & (corners[:, 1] >= 0) & \
                (corners[:, 1] < h)
            if inside.all():
                problems.append(Problem(
                    "marker-hidden", "error",
                    f"marker {i} ({where}) should be at pixel ({x:.0f}, {y:.0f}) but is not seen "
                    "there: is it covered, in glare or shadow, or put down turned over?"))
            else:
                part = "partly " if inside.any() else ""
                problems.append(Problem(
                    "table-out-of-frame", "error",
                    f"marker {i} ({where}) is {part}outside the picture (it would be at pixel "
                    f"({x:.0f}, {y:.0f}) in a {w}x{h} image): move the camera back or up, or "
                    "point it at the table centre"))
        plane = None  # a three-marker plane is for advice only; calibration wants all four
    problems += check_exposure(frame_bgr, plane, limits)
    if plane is not None:
        problems += check_fit(plane, limits)
        problems += check_pose(plane, limits)
        problems += check_framing(plane, limits)
    return SetupReport(problems, detection, plane)
