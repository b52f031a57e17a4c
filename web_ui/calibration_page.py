"""The "Table setup" page: the stored calibration, the camera frame, and calibrating from it.

The same steps as ``domino-companion calibrate --image`` (:mod:`calibration.calibrate`), run on
the newest frame of the dashboard's frame source (``app.extensions["frames"]``), or on a photo
uploaded to the page (taken by the table camera from where it stands; it is used instead of the
camera frame until it is forgotten or the server restarts):

=====================================  ========================================================
``GET  /calibration``                  the page: stored calibration, camera frame, the form
``GET  /api/calibration``              the stored calibration (``stored``, ``problems``), whether
                                       there is a camera, the last result on this server
``POST /api/calibration``              ``{"width_mm": 600, "height_mm": 450, "marker_mm": 40}``:
                                       find the markers in the newest frame, check the set-up,
                                       save ``table.json`` when a plane was found; answers
                                       ``saved``, ``problems`` (each with its fix), ``table``
``POST /api/calibration/corners``      the manual fallback when markers are not found:
                                       ``{"corners": [[x, y] x 4], "image_size": [w, h],
                                       "width_mm": 600, "height_mm": 450}``, the play area's
                                       corners tapped on the camera frame (top-left, top-right,
                                       bottom-right, bottom-left, in pixels of a picture
                                       ``image_size`` big); the plane as ``calibrate --corners``
                                       makes it (:func:`calibration.calibrate.manual_plane`),
                                       saved like the marker calibration
``POST /api/calibration/photo``        the photo to calibrate from: the PNG or JPEG file as the
                                       body (at most :data:`PHOTO_MAX_BYTES`); answers its
                                       ``width`` and ``height``
``POST /api/calibration/photo/forget`` back to the camera frame
``GET  /calibration/frame.jpg``        the picture calibrated from: the uploaded photo, else the
                                       newest camera frame (404 without either)
``GET  /calibration/preview.png``      the last run's preview: markers outlined with ids, the
                                       play area outline, the top-down view, the problems
``GET  /calibration/topdown.png``      the last run's rectified top-down view of the play area
=====================================  ========================================================

Bad form values get 400 naming the field and the fix (for the corners also: not four points,
a point outside the picture, corners whose edges cross or that go anticlockwise); nothing is
saved. Markers that cannot be
found are not a bad request: the answer is 200 with ``saved: false`` and every problem (which
markers are missing, by id and corner), and the stored calibration stays as it was. Files go to
``CALIBRATION_DIR`` (default: ``DATA_DIR``, the folder the live companion loads from).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from flask import Blueprint, Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from calibration.calibrate import CORNER_NAMES, PREVIEW_FILE, draw_preview, manual_plane
from calibration.checks import check_setup
from calibration.files import LENS_FILE, TABLE_FILE, load_lens, load_plane, save_plane
from calibration.plane import (
    CalibrationError,
    CameraModel,
    MarkerLayout,
    TablePlane,
    rectify,
)
from calibration.store import write_atomic
from web_ui.body import json_body
from web_ui.security import csrf_token, is_controller

bp = Blueprint("calibration_page", __name__)

#: What the page says when the dashboard has no frame source.
NO_CAMERA_HELP = ("There is no camera in this mode, so there is no picture to calibrate from. "
                  "Start the companion with the camera, e.g. `domino-companion run --camera 0`, "
                  "and open this page again; or upload a photo taken by the table camera from "
                  "where it stands (below), or calibrate from one in a terminal with "
                  "`domino-companion calibrate --image table.jpg --table-mm 600x450`.")
#: Largest photo upload, in bytes.
PHOTO_MAX_BYTES = 20 * 1024 * 1024

#: Limits on the form values, in mm (the printed markers go from 15 to 124 mm).
MARKER_MM_RANGE = (10.0, 200.0)
TABLE_MM_RANGE = (30.0, 5000.0)
TOPDOWN_PX_PER_MM = 1.0


@dataclass(frozen=True)
class Photo:
    """A photo uploaded to calibrate from: the decoded picture and its JPEG for the page."""

    bgr: np.ndarray
    jpeg: bytes


@dataclass
class CalibrationRun:
    """The last calibration run on this server: its images (PNG) and what it found."""

    preview_png: bytes
    topdown_png: bytes | None
    result: dict[str, Any]


class CalibrationRequestError(Exception):
    """A form value the calibration cannot use (answered with 400)."""


def calibration_folder() -> Path:
    """Where ``table.json`` and ``preview.png`` live: ``CALIBRATION_DIR`` or ``DATA_DIR``."""
    return Path(current_app.config.get("CALIBRATION_DIR") or current_app.config["DATA_DIR"])


def _number(body: dict[str, Any], name: str, low: float, high: float) -> float:
    """A form field as a finite number within ``[low, high]``, or CalibrationRequestError."""
    if name not in body or body[name] in (None, ""):
        raise CalibrationRequestError(f"{name} is missing: give it in millimetres "
                                      f"({low:g} to {high:g})")
    raw = body[name]
    if isinstance(raw, bool):
        raise CalibrationRequestError(f"{name} {raw!r} must be a number of millimetres")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise CalibrationRequestError(f"{name} {raw!r} is not a number: give millimetres, "
                                      "e.g. 600") from None
    if not math.isfinite(value) or not low <= value <= high:
        raise CalibrationRequestError(f"{name} {raw!r} is out of range: give {low:g} to "
                                      f"{high:g} mm")
    return value


def parse_form(body: Any) -> MarkerLayout:
    """The marker layout from ``{"width_mm", "height_mm", "marker_mm"}`` (numbers or numeric
    strings); raises CalibrationRequestError naming the bad field."""
    if not isinstance(body, dict):
        raise CalibrationRequestError(
            'the body must be a JSON object like {"width_mm": 600, "height_mm": 450, '
            f'"marker_mm": 40}}, got {str(body)[:60]!r}')
    unknown = sorted(set(body) - {"width_mm", "height_mm", "marker_mm"})
    if unknown:
        raise CalibrationRequestError(f"unknown field(s) {', '.join(unknown)}: the form takes "
                                      "width_mm, height_mm and marker_mm")
    width = _number(body, "width_mm", *TABLE_MM_RANGE)
    height = _number(body, "height_mm", *TABLE_MM_RANGE)
    marker = _number(body, "marker_mm", *MARKER_MM_RANGE)
    try:
        return MarkerLayout(width, height, marker, "center")
    except CalibrationError as exc:
        raise CalibrationRequestError(str(exc)) from None


def _point(value: Any, name: str, size: tuple[float, float]) -> tuple[float, float]:
    """One tapped corner ``[x, y]`` inside a picture of ``size`` pixels."""
    if not isinstance(value, (list, tuple)) or len(value) != 2 or \
            any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value):
        raise CalibrationRequestError(f"the {name} corner {str(value)[:40]!r} must be [x, y] in "
                                      "pixels of the picture")
    x, y = float(value[0]), float(value[1])
    w, h = size
    if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= w and 0 <= y <= h):
        raise CalibrationRequestError(f"the {name} corner ({x:g}, {y:g}) is outside the "
                                      f"{w:g}x{h:g} picture: tap inside it")
    return x, y


def parse_corners_form(body: Any) -> tuple[np.ndarray, tuple[float, float], tuple[float, float]]:
    """``{"corners", "image_size", "width_mm", "height_mm"}`` -> (4x2 corners in pixels of the
    tapped picture, its (w, h), the play area's (width, height) in mm); raises
    CalibrationRequestError naming what is wrong and the fix."""
    fields = {"corners", "image_size", "width_mm", "height_mm"}
    if not isinstance(body, dict):
        raise CalibrationRequestError(
            'the body must be a JSON object like {"corners": [[x, y], [x, y], [x, y], [x, y]], '
            f'"image_size": [w, h], "width_mm": 600, "height_mm": 450}}, got {str(body)[:60]!r}')
    unknown = sorted(set(body) - fields)
    if unknown:
        raise CalibrationRequestError(f"unknown field(s) {', '.join(unknown)}: the corners form "
                                      f"takes {', '.join(sorted(fields))}")
    size = body.get("image_size")
    if not isinstance(size, (list, tuple)) or len(size) != 2 or \
            any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 16 <= v <= 20000
                for v in size):
        raise CalibrationRequestError(f"image_size {str(size)[:40]!r} must be [width, height] of "
                                      "the tapped picture in pixels (16 to 20000)")
    wh = (float(size[0]), float(size[1]))
    corners = body.get("corners")
    if not isinstance(corners, list) or len(corners) != 4:
        got = len(corners) if isinstance(corners, list) else "no list of"
        raise CalibrationRequestError(
            f"corners: {got} point(s) given; tap exactly 4: {', '.join(CORNER_NAMES)}")
    pts = np.array([_point(v, n, wh) for v, n in zip(corners, CORNER_NAMES)], np.float64)
    table = (_number(body, "width_mm", *TABLE_MM_RANGE), _number(body, "height_mm", *TABLE_MM_RANGE))
    return pts, wh, table


def plane_summary(plane: TablePlane) -> dict[str, Any]:
    """What the page shows about a calibration: sizes, camera height and tilt, method, fit."""
    out: dict[str, Any] = {
        "width_mm": round(plane.table_size_mm[0], 1),
        "height_mm": round(plane.table_size_mm[1], 1),
        "marker_mm": plane.layout.marker_mm if plane.layout is not None else None,
        "method": plane.method,
        "image_size": list(plane.image_size),
        "fit_rms_px": round(plane.reprojection_px, 2),
        "camera_height_mm": None, "camera_tilt_deg": None, "lens": None,
        "made_at": plane.extra.get("made_at") if isinstance(plane.extra, dict) else None,
    }
    if plane.pose is not None:
        out["camera_height_mm"] = round(plane.pose.height_mm, 0)
        out["camera_tilt_deg"] = round(plane.pose.tilt_deg, 1)
    if plane.camera is not None:
        out["lens"] = plane.camera.source
    return out


def stored_calibration() -> dict[str, Any]:
    """The stored calibration (``stored`` or None) and the problems met loading it."""
    folder = calibration_folder()
    plane, problems = load_plane(folder)
    stored = plane_summary(plane) if plane is not None else None
    if stored is not None and not stored["made_at"]:
        path = folder / TABLE_FILE
        if path.exists():
            stored["made_at"] = datetime.fromtimestamp(path.stat().st_mtime, UTC) \
                .isoformat(timespec="seconds")
    return {"stored": stored, "problems": problems}


def latest_frame_bgr() -> np.ndarray | None:
    """The newest camera frame decoded to BGR, or None when there is none yet."""
    frames = current_app.extensions.get("frames")
    raw = getattr(frames, "raw_frame", None)
    if callable(raw):  # the live camera's own picture, without the annotations drawn on it
        picture = raw()
        if picture is not None:
            return picture
    latest = frames.latest() if frames is not None else None
    if latest is None:
        return None
    frame_bgr = cv2.imdecode(np.frombuffer(latest[1], np.uint8), cv2.IMREAD_COLOR)
    return frame_bgr


def calibration_picture() -> tuple[np.ndarray | None, str]:
    """The picture to calibrate from and where it came from (the uploaded photo, else the
    newest camera frame), or None and what to do."""
    photo: Photo | None = current_app.extensions.get("calibration_photo")
    if photo is not None:
        return photo.bgr, "uploaded photo"
    if current_app.extensions.get("frames") is None:
        return None, NO_CAMERA_HELP
    frame_bgr = latest_frame_bgr()
    if frame_bgr is None:
        return None, ("the camera has sent no usable frame yet: check that it is connected and "
                      "pointing at the table, then try again")
    return frame_bgr, "dashboard camera frame"


def decode_photo(data: bytes) -> np.ndarray:
    """An uploaded PNG or JPEG decoded to BGR, or CalibrationRequestError saying what is wrong."""
    from vision.read import MAX_PIXELS, header_size

    if not data:
        raise CalibrationRequestError("no photo in the request: send the PNG or JPEG file as "
                                      "the body")
    size = header_size(data[:65536])
    if size is None:
        raise CalibrationRequestError("the upload is not a PNG or JPEG photo")
    if size[0] * size[1] > MAX_PIXELS:
        raise CalibrationRequestError(f"the photo is {size[0]}x{size[1]} px, more than "
                                      f"{MAX_PIXELS / 1e6:.0f} megapixels: scale it down")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise CalibrationRequestError("the photo cannot be decoded (a damaged PNG or JPEG?)")
    if min(image.shape[:2]) < 64:
        raise CalibrationRequestError(f"the photo is {image.shape[1]}x{image.shape[0]} px: too "
                                      "small to calibrate from; use the camera's full size")
    return image


def _png(image_bgr: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", image_bgr)
    if not ok:
        raise RuntimeError("OpenCV could not encode a PNG image")
    return buf.tobytes()


def calibrate_frame(frame_bgr: np.ndarray, layout: MarkerLayout, folder: Path,
                    source: str = "dashboard camera frame") -> CalibrationRun:
    """``domino-companion calibrate --image`` on one frame: check the set-up (with the stored
    lens when there is one), write ``preview.png``, save ``table.json`` when a plane was found."""
    camera: CameraModel | None = None
    lens_problems: list[str] = []
    if (folder / LENS_FILE).exists():
        camera, lens_problems = load_lens(folder)
    started = time.perf_counter()
    report = check_setup(frame_bgr, layout, camera)
    elapsed_ms = (time.perf_counter() - started) * 1000
    plane = report.plane
    problems = [{"code": p.code, "severity": p.severity, "message": p.message}
                for p in report.problems]
    problems += [{"code": "lens", "severity": "warning", "message": f"lens calibration: {m}"}
                 for m in lens_problems]
    folder.mkdir(parents=True, exist_ok=True)
    preview_png = _png(draw_preview(frame_bgr, report.detection, plane, report.problems))
    write_atomic(folder / PREVIEW_FILE, preview_png, keep_previous=False)
    topdown_png = None
    result: dict[str, Any] = {
        "saved": False, "problems": problems, "table": None,
        "markers_found": report.detection.found, "markers_missing": report.detection.missing,
        "elapsed_ms": round(elapsed_ms, 1),
    }
    if report.ok:  # a plane and no error: an error means calibration cannot go on
        margin = layout.marker_mm
        topdown_png = _png(rectify(frame_bgr, plane, TOPDOWN_PX_PER_MM, margin_mm=margin))
        made_at = datetime.now(UTC).isoformat(timespec="seconds")
        path = save_plane(plane, folder, extra={"source": source, "made_at": made_at})
        result.update(saved=True, path=str(path), table={**plane_summary(plane),
                                                          "made_at": made_at})
    return CalibrationRun(preview_png, topdown_png, result)


def calibrate_corners(frame_bgr: np.ndarray, corners_px: np.ndarray,
                      table_mm: tuple[float, float], folder: Path,
                      source: str = "dashboard camera frame") -> CalibrationRun:
    """``domino-companion calibrate --corners`` on one frame: the plane from the tapped corners
    (:func:`calibration.calibrate.manual_plane`, with the stored lens when there is one), the
    preview (the tapped corners marked) and top-down images, ``table.json`` saved. Raises
    :class:`CalibrationError` for corners that cannot be the play area."""
    camera: CameraModel | None = None
    lens_problems: list[str] = []
    if (folder / LENS_FILE).exists():
        camera, lens_problems = load_lens(folder)
    started = time.perf_counter()
    plane, found = manual_plane(frame_bgr, corners_px, table_mm, camera)
    elapsed_ms = (time.perf_counter() - started) * 1000
    problems = [{"code": p.code, "severity": p.severity, "message": p.message} for p in found]
    problems += [{"code": "lens", "severity": "warning", "message": f"lens calibration: {m}"}
                 for m in lens_problems]
    marked = frame_bgr.copy()
    radius = max(4, round(max(frame_bgr.shape[:2]) / 160))
    for k, (x, y) in enumerate(np.round(corners_px).astype(int)):
        cv2.circle(marked, (int(x), int(y)), radius, (0, 0, 255), -1, cv2.LINE_AA)
        cv2.putText(marked, str(k + 1), (int(x) + radius + 2, int(y) - radius),
                    cv2.FONT_HERSHEY_SIMPLEX, radius / 8, (0, 0, 255), max(1, radius // 4),
                    cv2.LINE_AA)
    folder.mkdir(parents=True, exist_ok=True)
    preview_png = _png(draw_preview(marked, None, plane, found))
    write_atomic(folder / PREVIEW_FILE, preview_png, keep_previous=False)
    corners_out = [[round(float(x), 1), round(float(y), 1)] for x, y in corners_px]
    if any(p.severity == "error" for p in found):  # calibration cannot go on: nothing saved
        return CalibrationRun(preview_png, None, {
            "saved": False, "problems": problems, "table": None, "corners": corners_out,
            "elapsed_ms": round(elapsed_ms, 1)})
    topdown_png = _png(rectify(frame_bgr, plane, TOPDOWN_PX_PER_MM))
    made_at = datetime.now(UTC).isoformat(timespec="seconds")
    path = save_plane(plane, folder, extra={"source": f"{source}, corners by hand",
                                            "made_at": made_at})
    result: dict[str, Any] = {
        "saved": True, "path": str(path), "problems": problems,
        "table": {**plane_summary(plane), "made_at": made_at},
        "corners": corners_out,
        "elapsed_ms": round(elapsed_ms, 1),
    }
    return CalibrationRun(preview_png, topdown_png, result)


def _lock() -> threading.Lock:
    return current_app.extensions.setdefault("calibration_lock", threading.Lock())


@bp.get("/calibration")
def page() -> ResponseReturnValue:
    """The Table setup page."""
    frames = current_app.extensions.get("frames")
    last: CalibrationRun | None = current_app.extensions.get("calibration_run")
    has_photo = current_app.extensions.get("calibration_photo") is not None
    has_frame = frames is not None and frames.latest() is not None
    return render_template("calibration.html", csrf=csrf_token(), controller=is_controller(),
                           has_camera=frames is not None, has_frame=has_frame,
                           has_photo=has_photo, has_picture=has_photo or has_frame,
                           no_camera_help=NO_CAMERA_HELP, last=last.result if last else None,
                           **stored_calibration())


@bp.get("/api/calibration")
def state() -> ResponseReturnValue:
    """The stored calibration, whether there is a camera or an uploaded photo, the last
    result."""
    frames = current_app.extensions.get("frames")
    last: CalibrationRun | None = current_app.extensions.get("calibration_run")
    return jsonify(**stored_calibration(), camera=frames is not None,
                   photo=current_app.extensions.get("calibration_photo") is not None,
                   no_camera_help=None if frames is not None else NO_CAMERA_HELP,
                   last=last.result if last else None)


@bp.post("/api/calibration")
def calibrate() -> ResponseReturnValue:
    """Calibrate from the markers in the uploaded photo or the newest camera frame (see the
    module docstring)."""
    try:
        layout = parse_form(json_body())
    except CalibrationRequestError as exc:
        return jsonify(error=str(exc)), 400
    frame_bgr, source = calibration_picture()
    if frame_bgr is None:
        return jsonify(error=source), 409
    with _lock():
        run = calibrate_frame(frame_bgr, layout, calibration_folder(), source)
        current_app.extensions["calibration_run"] = run
    return jsonify(run.result)


@bp.post("/api/calibration/corners")
def calibrate_by_corners() -> ResponseReturnValue:
    """The manual four-corner fallback on the uploaded photo or the newest camera frame (see the
    module docstring). Corners tapped on a picture of another size than the frame (the page
    shows the JPEG of the annotated video) are scaled to the frame."""
    try:
        corners, (tap_w, tap_h), table_mm = parse_corners_form(json_body())
    except CalibrationRequestError as exc:
        return jsonify(error=str(exc)), 400
    frame_bgr, source = calibration_picture()
    if frame_bgr is None:
        return jsonify(error=source), 409
    h, w = frame_bgr.shape[:2]
    corners_px = corners * [w / tap_w, h / tap_h]
    with _lock():
        try:
            run = calibrate_corners(frame_bgr, corners_px, table_mm, calibration_folder(), source)
        except CalibrationError as exc:
            return jsonify(error=str(exc)), 400
        current_app.extensions["calibration_run"] = run
    return jsonify(run.result)


@bp.post("/api/calibration/photo")
def upload_photo() -> ResponseReturnValue:
    """Keep an uploaded photo (the body: a PNG or JPEG file) to calibrate from."""
    request.max_content_length = PHOTO_MAX_BYTES
    try:
        image = decode_photo(request.get_data(cache=False))
    except CalibrationRequestError as exc:
        return jsonify(error=str(exc)), 400
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise RuntimeError("OpenCV could not encode a JPEG image")
    current_app.extensions["calibration_photo"] = Photo(image, jpeg.tobytes())
    return jsonify(photo=True, width=int(image.shape[1]), height=int(image.shape[0]))


@bp.post("/api/calibration/photo/forget")
def forget_photo() -> ResponseReturnValue:
    """Calibrate from the camera frame again."""
    current_app.extensions.pop("calibration_photo", None)
    return jsonify(photo=False)


def _image(data: bytes | None, what: str, mimetype: str,
           fix: str = "calibrate from the camera on /calibration first") -> ResponseReturnValue:
    if data is None:
        return jsonify(error=f"no {what} yet: {fix}"), 404
    return Response(data, mimetype=mimetype, headers={"Cache-Control": "no-store"})


@bp.get("/calibration/frame.jpg")
def frame_jpg() -> ResponseReturnValue:
    photo: Photo | None = current_app.extensions.get("calibration_photo")
    if photo is not None:
        return _image(photo.jpeg, "photo", "image/jpeg")
    frames = current_app.extensions.get("frames")
    latest = frames.latest() if frames is not None else None
    fix = ("start the companion with a camera (`domino-companion run --camera 0`)"
           if frames is None else "check that the camera is connected, then reload")
    return _image(latest[1] if latest else None, "camera frame", "image/jpeg", fix)


@bp.get("/calibration/preview.png")
def preview_png() -> ResponseReturnValue:
    run: CalibrationRun | None = current_app.extensions.get("calibration_run")
    return _image(run.preview_png if run else None, "preview", "image/png")


@bp.get("/calibration/topdown.png")
def topdown_png() -> ResponseReturnValue:
    run: CalibrationRun | None = current_app.extensions.get("calibration_run")
    return _image(run.topdown_png if run else None, "top-down view", "image/png")
