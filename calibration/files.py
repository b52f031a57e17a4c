"""The calibration files: the table plane, the lens and the enrolled set, each a versioned JSON
file written atomically with its previous version kept (see :mod:`calibration.store`).

``load_*`` never raise for a bad file: they return the object (or ``None``) and the list of
problems found (corrupt, wrong version, fell back to the previous version), for the caller to
show.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from calibration.cornercam import camera_from_corners
from calibration.plane import (CalibrationError, CameraModel, FixedPlaneTracker, TablePlane,
                               TablePlaneTracker)
from calibration.store import default_home, load_versioned, previous_path, save_versioned

TABLE_KIND, TABLE_VERSION = "table-calibration", 1
LENS_KIND, LENS_VERSION = "lens-calibration", 1
TABLE_FILE = "table.json"
LENS_FILE = "lens.json"


def calibration_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """``path`` if given, else the default data folder (``$DOMINO_COMPANION_HOME`` or the
    platform's user data folder)."""
    return Path(path).expanduser() if path is not None else default_home()


def save_plane(plane: TablePlane, folder: str | os.PathLike[str] | None = None,
               extra: dict[str, Any] | None = None) -> Path:
    """Write ``table.json`` (keeping ``table.prev.json``)."""
    payload = plane.to_dict()
    if extra:
        payload["extra"] = extra
    return save_versioned(calibration_dir(folder) / TABLE_FILE, TABLE_KIND, TABLE_VERSION, payload)


def load_plane(folder: str | os.PathLike[str] | None = None) -> tuple[TablePlane | None, list[str]]:
    """The stored table plane (falling back to the previous file), and the problems met."""
    path = calibration_dir(folder) / TABLE_FILE
    if not path.exists() and not previous_path(path).exists():
        return None, [f"no table calibration in {path.parent}: put the markers on the table and "
                      "run `domino-companion calibrate`"]
    loaded = load_versioned(path, TABLE_KIND, TABLE_VERSION,
                            validate=lambda d: TablePlane.from_dict(d) and None)
    if loaded.data is None:
        return None, loaded.problems + ["run `domino-companion calibrate` again"]
    return TablePlane.from_dict(loaded.data), loaded.problems


def tracker_from_store(folder: str | os.PathLike[str] | None = None, every_n: int = 5
                       ) -> tuple[TablePlaneTracker | FixedPlaneTracker | None, list[str]]:
    """A :class:`TablePlaneTracker` for the live companion, started from the stored calibration
    (its marker layout, lens and plane), and the problems met. A calibration made by hand (four
    corners, no markers) gives a :class:`FixedPlaneTracker` of its plane (with its camera, from
    the corners: :mod:`calibration.cornercam`), said among the problems: a moved camera is not
    followed. ``None`` when there is no usable calibration, or a manual one without a camera
    pose."""
    plane, problems = load_plane(folder)
    if plane is None:
        return None, problems
    if plane.layout is None:
        if plane.pose is None or plane.camera is None:
            return None, problems + ["the table was calibrated by hand (four corners) and has no "
                                     "camera pose: tiles are tracked in image pixels; calibrate "
                                     "again (with the markers, so a moved camera is followed)"]
        return FixedPlaneTracker(_with_corner_camera(plane)), problems + [
            "the table was calibrated by hand (four corners), so a moved camera is not "
            "followed: calibrate with the markers to have it followed"]
    lens = plane.camera if plane.camera is not None and \
        plane.camera.source == "lens-calibration" else None
    return TablePlaneTracker(plane.layout, camera=lens, every_n=every_n, initial=plane), problems


def _with_corner_camera(plane: TablePlane) -> TablePlane:
    """A manual calibration's plane with the camera that
    :func:`calibration.cornercam.camera_from_corners` gives from its four corners (where the
    plane puts the table's corners). Calibrations made by hand before the corners' camera
    (session 12) stored a focal length taken from the homography whenever the view was tilted
    4 degrees or more, however poorly noisy corners told it. Kept as stored when it came from a
    lens calibration, or when the corners give no camera."""
    if plane.camera is None or plane.camera.source in ("lens-calibration", "corners"):
        return plane
    try:
        found = camera_from_corners(plane.table_corners_px(), plane.table_size_mm,
                                    plane.image_size)
    except CalibrationError:
        return plane
    return dataclasses.replace(plane, camera=found.camera, pose=found.pose)


def save_lens(camera: CameraModel, rms_px: float, views: int,
              folder: str | os.PathLike[str] | None = None) -> Path:
    """Write ``lens.json`` (keeping ``lens.prev.json``)."""
    payload = {"camera": camera.to_dict(), "rms_px": rms_px, "views": views}
    return save_versioned(calibration_dir(folder) / LENS_FILE, LENS_KIND, LENS_VERSION, payload)


def load_lens(folder: str | os.PathLike[str] | None = None) -> tuple[CameraModel | None, list[str]]:
    """The stored lens calibration, or ``None`` (no file, or corrupt without a good previous
    one), and the problems met."""
    loaded = load_versioned(calibration_dir(folder) / LENS_FILE, LENS_KIND, LENS_VERSION,
                            validate=lambda d: CameraModel.from_dict(d["camera"]) and None)
    if loaded.data is None:
        return None, loaded.problems
    return CameraModel.from_dict(loaded.data["camera"]), loaded.problems
