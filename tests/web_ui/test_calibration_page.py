"""The Table setup page (/calibration): stored calibration, calibrating from the camera frame.

Frames are rendered scenes with markers (``vision.render``, clean: no distortion, blur or noise),
served through ``StillFrames`` the way the live camera loop serves its frames."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from webui_helpers import make_app, pair, post

from calibration.files import TABLE_FILE, load_plane
from vision.render import random_scene_spec, render_scene
from web_ui.services import StillFrames

SEED = 102  # a scene tilted about 15 degrees: height from the markers within a few percent


@functools.lru_cache(maxsize=2)
def _scene(seed: int) -> tuple[Any, np.ndarray]:
    spec = random_scene_spec(seed, markers=True, degrade=False, hands=0, tilt_range=(12.0, 20.0))
    return spec, render_scene(spec).image_bgr


def _form(spec: Any) -> dict[str, float]:
    x0, y0, x1, y1 = spec.marker_rect_mm
    return {"width_mm": x1 - x0, "height_mm": y1 - y0, "marker_mm": spec.marker_size_mm}


def _jpeg(frame_bgr: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", frame_bgr, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    return buf.tobytes()


def _camera_app(tmp_path: Path, frame_bgr: np.ndarray) -> Flask:
    frames = StillFrames()
    frames.push(_jpeg(frame_bgr))
    return make_app(tmp_path, frames=frames)


def _cal_dir(app: Flask) -> Path:
    return Path(app.config["DATA_DIR"])


def test_page_without_camera_or_calibration_says_what_to_do(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with app.test_client() as c:
        html = c.get("/calibration").get_data(as_text=True)
        assert "No table calibration yet" in html
        assert "domino-companion run --camera" in html
        assert 'id="cal-form"' not in html  # nothing to calibrate from
        assert 'href="/calibration"' in c.get("/").get_data(as_text=True)  # linked from the header
        assert c.get("/calibration/frame.jpg").status_code == 404
        pair(c, app)
        resp = post(c, "/api/calibration", {"width_mm": 600, "height_mm": 400, "marker_mm": 40})
        assert resp.status_code == 409 and "--camera" in resp.get_json()["error"]
        assert not (_cal_dir(app) / TABLE_FILE).exists()


def test_post_without_token_or_pairing_is_refused(tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    app = _camera_app(tmp_path, frame)
    with app.test_client() as c:
        c.get("/calibration")
        assert post(c, "/api/calibration", _form(spec), csrf=False).status_code == 403
        assert post(c, "/api/calibration", _form(spec)).status_code == 403  # spectator
        pair(c, app)
        assert post(c, "/api/calibration", _form(spec), csrf=False).status_code == 403
    assert not (_cal_dir(app) / TABLE_FILE).exists()


def test_calibrates_from_the_camera_frame_and_saves(tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    app = _camera_app(tmp_path, frame)
    form = _form(spec)
    with app.test_client() as c:
        pair(c, app)
        html = c.get("/calibration").get_data(as_text=True)
        assert 'id="cal-form"' in html and 'id="frame"' in html
        frame_resp = c.get("/calibration/frame.jpg")
        assert frame_resp.status_code == 200 and frame_resp.data.startswith(b"\xff\xd8")
        resp = post(c, "/api/calibration", form)
        assert resp.status_code == 200, resp.get_json()
        got = resp.get_json()
        assert got["saved"] is True and got["markers_missing"] == []
        assert not [p for p in got["problems"] if p["severity"] == "error"]
        table = got["table"]
        assert table["camera_height_mm"] == pytest.approx(spec.camera.height_mm, rel=0.08)
        assert table["camera_tilt_deg"] == pytest.approx(spec.camera.tilt_deg, abs=1.5)
        plane, problems = load_plane(_cal_dir(app))
        assert plane is not None and problems == []
        assert plane.table_size_mm == pytest.approx((form["width_mm"], form["height_mm"]))
        assert plane.layout is not None and plane.layout.marker_mm == form["marker_mm"]
        for path in ("/calibration/preview.png", "/calibration/topdown.png"):
            img = c.get(path)
            assert img.status_code == 200 and img.mimetype == "image/png"
            decoded = cv2.imdecode(np.frombuffer(img.data, np.uint8), cv2.IMREAD_COLOR)
            assert decoded is not None and decoded.shape[0] > 100
        assert (_cal_dir(app) / "preview.png").exists()
        page = c.get("/calibration").get_data(as_text=True)  # now shown as the stored one
        assert f"{round(form['width_mm'], 1):g} × {round(form['height_mm'], 1):g} mm" in page
        state = c.get("/api/calibration").get_json()
        assert state["stored"]["camera_height_mm"] == table["camera_height_mm"]
        assert state["stored"]["made_at"] == table["made_at"]


def test_hidden_markers_are_reported_and_nothing_is_saved(tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    from calibration.plane import detect_markers

    detection = detect_markers(frame)
    hidden = frame.copy()
    for i in (2, 3):  # cover the bottom-right and bottom-left markers
        x0, y0 = np.floor(detection.corners_px[i].min(axis=0)).astype(int) - 6
        x1, y1 = np.ceil(detection.corners_px[i].max(axis=0)).astype(int) + 6
        hidden[max(y0, 0):y1, max(x0, 0):x1] = (90, 110, 60)
    app = _camera_app(tmp_path, hidden)
    with app.test_client() as c:
        pair(c, app)
        got = post(c, "/api/calibration", _form(spec)).get_json()
        assert got["saved"] is False and got["markers_missing"] == [2, 3]
        text = " ".join(p["message"] for p in got["problems"])
        assert "missing 2, 3" in text and "bottom-right" in text and "bottom-left" in text
        assert not (_cal_dir(app) / TABLE_FILE).exists()
        assert c.get("/calibration/preview.png").status_code == 200
        assert c.get("/calibration/topdown.png").status_code == 404


@pytest.mark.parametrize("body, field", [
    ({"width_mm": "wide", "height_mm": 400, "marker_mm": 40}, "width_mm"),
    ({"width_mm": 600, "marker_mm": 40}, "height_mm"),
    ({"width_mm": 600, "height_mm": 400, "marker_mm": -3}, "marker_mm"),
    ({"width_mm": 600, "height_mm": 400, "marker_mm": True}, "marker_mm"),
    ({"width_mm": 100, "height_mm": 100, "marker_mm": 40}, "too small"),
    ({"width_mm": 600, "height_mm": 400, "marker_mm": 40, "tilt": 3}, "tilt"),
    (["600x400"], "JSON object"),
])
def test_bad_form_values_get_400_and_save_nothing(tmp_path: Path, body: Any, field: str) -> None:
    _, frame = _scene(SEED)
    app = _camera_app(tmp_path, frame)
    with app.test_client() as c:
        pair(c, app)
        resp = post(c, "/api/calibration", body)
        assert resp.status_code == 400
        assert field in resp.get_json()["error"]
    assert not (_cal_dir(app) / TABLE_FILE).exists()
    assert "calibration_run" not in app.extensions


def test_damaged_stored_file_is_reported_on_the_page(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    (_cal_dir(app) / TABLE_FILE).write_text("{not json", encoding="utf-8")
    with app.test_client() as c:
        html = c.get("/calibration").get_data(as_text=True)
        assert 'id="stored-problems"' in html and "calibrate" in html
        assert c.get("/api/calibration").get_json()["stored"] is None


# ---- the manual four-corner fallback: POST /api/calibration/corners ----------------------


def _corner_taps(frame: np.ndarray, spec: Any, scale: float = 1.0) -> list[list[float]]:
    """The play area's corners (marker centres) as a person would tap them on a picture
    ``scale`` times the frame's size: from the marker plane of the same frame."""
    from calibration.plane import MarkerLayout, plane_from_markers

    form = _form(spec)
    layout = MarkerLayout(form["width_mm"], form["height_mm"], form["marker_mm"], "center")
    corners = plane_from_markers(frame, layout).table_corners_px() * scale
    return [[round(float(x), 1), round(float(y), 1)] for x, y in corners]


def _corners_body(frame: np.ndarray, spec: Any, scale: float = 0.5) -> dict[str, Any]:
    form = _form(spec)
    h, w = frame.shape[:2]
    return {"corners": _corner_taps(frame, spec, scale), "image_size": [w * scale, h * scale],
            "width_mm": form["width_mm"], "height_mm": form["height_mm"]}


def test_corners_tapped_on_a_smaller_picture_calibrate_like_the_markers(tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    app = _camera_app(tmp_path, frame)
    body = _corners_body(frame, spec, scale=0.5)
    with app.test_client() as c:
        pair(c, app)
        html = c.get("/calibration").get_data(as_text=True)
        assert 'id="corners-card"' in html and 'id="tap-area"' in html
        resp = post(c, "/api/calibration/corners", body)
        assert resp.status_code == 200, resp.get_json()
        got = resp.get_json()
        assert got["saved"] is True and got["table"]["method"] == "manual"
        assert got["table"]["marker_mm"] is None
        assert not [p for p in got["problems"] if p["severity"] == "error"]
        # the corners were scaled from the half-size picture to the frame
        assert np.allclose(got["corners"], np.array(body["corners"]) * 2, atol=0.2)
        plane, problems = load_plane(_cal_dir(app))
        assert plane is not None and problems == [] and plane.method == "manual"
        assert plane.table_size_mm == pytest.approx((body["width_mm"], body["height_mm"]))
        # the same table millimetres as the marker calibration of the frame, within 2 mm
        from calibration.plane import MarkerLayout, plane_from_markers

        form = _form(spec)
        markers = plane_from_markers(frame, MarkerLayout(form["width_mm"], form["height_mm"],
                                                         form["marker_mm"], "center"))
        gx, gy = np.meshgrid(np.linspace(0, form["width_mm"], 5),
                             np.linspace(0, form["height_mm"], 4))
        grid = np.column_stack([gx.ravel(), gy.ravel()])
        assert np.abs(plane.to_table(markers.to_image(grid)) - grid).max() < 2.0
        assert got["table"]["camera_height_mm"] == pytest.approx(spec.camera.height_mm, rel=0.15)
        for path in ("/calibration/preview.png", "/calibration/topdown.png"):
            img = c.get(path)
            assert img.status_code == 200 and img.mimetype == "image/png"
        page = c.get("/calibration").get_data(as_text=True)
        assert "none (corners given by hand)" in page


@pytest.mark.parametrize("change, words", [
    (lambda b: b.update(corners=b["corners"][:3]), "3 point(s) given; tap exactly 4"),
    (lambda b: b.update(corners=b["corners"] + [[5, 5]]), "5 point(s) given"),
    (lambda b: b.update(corners=None), "tap exactly 4"),
    (lambda b: b["corners"].__setitem__(2, [b["image_size"][0] + 3, 10]),
     "bottom-right corner"),
    (lambda b: b["corners"].__setitem__(0, [-1, 4]), "outside the"),
    (lambda b: b["corners"].__setitem__(1, ["x", 4]), "must be [x, y]"),
    (lambda b: b.update(corners=[b["corners"][i] for i in (0, 2, 1, 3)]), "edges cross"),
    (lambda b: b.update(corners=b["corners"][::-1]), "anticlockwise"),
    (lambda b: b.update(corners=[[10, 10], [11, 10], [12, 10], [10, 11]]), "convex"),
    (lambda b: b.pop("image_size"), "image_size"),
    (lambda b: b.pop("width_mm"), "width_mm is missing"),
    (lambda b: b.update(height_mm=-4), "height_mm"),
    (lambda b: b.update(marker_mm=40), "unknown field(s) marker_mm"),
])
def test_bad_corners_get_400_naming_the_fix_and_save_nothing(tmp_path: Path, change: Any,
                                                             words: str) -> None:
    spec, frame = _scene(SEED)
    app = _camera_app(tmp_path, frame)
    body = _corners_body(frame, spec)
    change(body)
    with app.test_client() as c:
        pair(c, app)
        resp = post(c, "/api/calibration/corners", body)
        assert resp.status_code == 400, resp.get_json()
        assert words in resp.get_json()["error"]
    assert not (_cal_dir(app) / TABLE_FILE).exists()
    assert "calibration_run" not in app.extensions


def test_corners_with_sizes_no_camera_fits_save_nothing(tmp_path: Path) -> None:
    """Sizes mistyped (5 m by 5 m): the corners put the camera many metres up, an
    error (calibration cannot go on), so the answer says so and the good calibration stays."""
    spec, frame = _scene(SEED)
    app = _camera_app(tmp_path, frame)
    body = _corners_body(frame, spec)
    with app.test_client() as c:
        pair(c, app)
        assert post(c, "/api/calibration/corners", body).get_json()["saved"] is True
        good = (_cal_dir(app) / TABLE_FILE).read_bytes()
        wrong = dict(body, width_mm=5000, height_mm=5000)
        resp = post(c, "/api/calibration/corners", wrong)
        got = resp.get_json()
        assert resp.status_code == 200 and got["saved"] is False, got
        assert [p["code"] for p in got["problems"] if p["severity"] == "error"] == [
            "pose-impossible"]
    assert (_cal_dir(app) / TABLE_FILE).read_bytes() == good


def test_corners_without_token_pairing_or_camera_are_refused(tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    app = _camera_app(tmp_path, frame)
    body = _corners_body(frame, spec)
    with app.test_client() as c:
        c.get("/calibration")
        assert post(c, "/api/calibration/corners", body, csrf=False).status_code == 403
        spectator = post(c, "/api/calibration/corners", body)
        assert spectator.status_code == 403 and "spectator" in spectator.get_json()["error"]
        pair(c, app)
        assert post(c, "/api/calibration/corners", body, csrf=False).status_code == 403
    assert not (_cal_dir(app) / TABLE_FILE).exists()
    no_camera = make_app(tmp_path / "other")
    with no_camera.test_client() as c:
        pair(c, no_camera)
        resp = post(c, "/api/calibration/corners", body)
        assert resp.status_code == 409 and "--camera" in resp.get_json()["error"]


# ---- an uploaded photo instead of the camera frame ----------------------------------------


def _png_bytes(image_bgr: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", image_bgr)
    assert ok
    return buf.tobytes()


def _upload(c: Any, data: bytes, csrf: bool = True) -> Any:
    from webui_helpers import csrf_of

    headers = {"X-CSRF-Token": csrf_of(c)} if csrf else {}
    return c.post("/api/calibration/photo", data=data, headers=headers,
                  content_type="image/png")


def test_calibrates_from_an_uploaded_photo_without_a_camera(tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    app = make_app(tmp_path)  # no camera
    with app.test_client() as c:
        pair(c, app)
        assert 'id="photo-form"' in c.get("/calibration").get_data(as_text=True)
        resp = _upload(c, _png_bytes(frame))
        assert resp.status_code == 200, resp.get_json()
        assert resp.get_json() == {"photo": True, "width": frame.shape[1],
                                   "height": frame.shape[0]}
        html = c.get("/calibration").get_data(as_text=True)
        assert "Uploaded photo" in html and 'id="cal-form"' in html and 'id="tap-area"' in html
        shown = c.get("/calibration/frame.jpg")
        assert shown.status_code == 200 and shown.mimetype == "image/jpeg"
        assert c.get("/api/calibration").get_json()["photo"] is True
        got = post(c, "/api/calibration", _form(spec)).get_json()
        assert got["saved"] is True and got["markers_missing"] == []
        assert json.loads((_cal_dir(app) / TABLE_FILE).read_text())["extra"]["source"] \
            == "uploaded photo"
        corners = post(c, "/api/calibration/corners", _corners_body(frame, spec, 1.0))
        assert corners.status_code == 200 and corners.get_json()["table"]["method"] == "manual"
        assert post(c, "/api/calibration/photo/forget").get_json() == {"photo": False}
        assert c.get("/calibration/frame.jpg").status_code == 404
        assert post(c, "/api/calibration", _form(spec)).status_code == 409


def test_an_uploaded_photo_is_used_instead_of_the_camera_frame(tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    app = _camera_app(tmp_path, np.full_like(frame, 90))  # the camera sees no markers
    with app.test_client() as c:
        pair(c, app)
        assert post(c, "/api/calibration", _form(spec)).get_json()["saved"] is False
        assert _upload(c, _png_bytes(frame)).status_code == 200
        assert 'id="photo-forget"' in c.get("/calibration").get_data(as_text=True)
        assert post(c, "/api/calibration", _form(spec)).get_json()["saved"] is True
        post(c, "/api/calibration/photo/forget")
        assert post(c, "/api/calibration", _form(spec)).get_json()["saved"] is False


@pytest.mark.parametrize("data, status, words", [
    (b"", 400, "no photo"),
    (b"hello, this is not a picture" * 4, 400, "not a PNG or JPEG"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 200, 400, "not a PNG or JPEG"),
    ("truncated", 400, "cannot be decoded"),
    ("tiny", 400, "too small"),
    ("huge", 413, "larger than the 20480 KB this address takes; send a smaller one (scale the"),
])
def test_bad_uploads_are_refused_and_keep_nothing(tmp_path: Path, data: Any, status: int,
                                                  words: str) -> None:
    _, frame = _scene(SEED)
    if data == "truncated":
        data = _png_bytes(frame)[:5000]
    elif data == "tiny":
        data = _png_bytes(frame[:32, :32])
    elif data == "huge":
        data = _png_bytes(frame)[:64] + bytes(21 * 1024 * 1024)
    app = make_app(tmp_path)
    with app.test_client() as c:
        pair(c, app)
        resp = _upload(c, data)
        assert resp.status_code == status
        assert words in (resp.get_json() or {}).get("error", "")
    assert "calibration_photo" not in app.extensions


def test_uploads_need_pairing_and_the_token(tmp_path: Path) -> None:
    _, frame = _scene(SEED)
    app = make_app(tmp_path)
    with app.test_client() as c:
        c.get("/calibration")
        assert _upload(c, _png_bytes(frame), csrf=False).status_code == 403
        assert _upload(c, _png_bytes(frame)).status_code == 403  # spectator
        assert post(c, "/api/calibration/photo/forget").status_code == 403
    assert "calibration_photo" not in app.extensions
