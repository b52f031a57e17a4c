"""The Table setup page in headless Chromium (Playwright with Debian's /usr/bin/chromium, as in
``test_browser.py``): calibrating from the page as a controller; the manual four-corner fallback
(markers not found, the corners tapped (touch) and clicked (mouse) on the camera frame, a wrong
tap undone, the result stored); a photo uploaded without a camera."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_browser import (  # skips without them
    SHOT_DIR,
    Live,
    open_page,
    pair_in_page,
)
from test_calibration_page import SEED, _corner_taps, _form, _jpeg, _scene
from webui_helpers import wait_js

from calibration.files import load_plane
from calibration.plane import detect_markers
from web_ui.services import StillFrames

pytestmark = pytest.mark.browser


def _hide_markers(frame: np.ndarray, ids: tuple[int, ...]) -> np.ndarray:
    detection = detect_markers(frame)
    hidden = frame.copy()
    for i in ids:
        x0, y0 = np.floor(detection.corners_px[i].min(axis=0)).astype(int) - 6
        x1, y1 = np.ceil(detection.corners_px[i].max(axis=0)).astype(int) + 6
        hidden[max(y0, 0):y1, max(x0, 0):x1] = (90, 110, 60)
    return hidden


def test_tapping_the_four_corners_calibrates_when_markers_are_missing(browser: Any,
                                                                      tmp_path: Path) -> None:
    spec, frame = _scene(SEED)
    taps = _corner_taps(frame, spec)  # where the play area's corners are in the frame
    frames = StillFrames(stall_after=60.0)
    frames.push(_jpeg(_hide_markers(frame, (2, 3))))
    live = Live(tmp_path, frames=frames)
    errors: list[str] = []
    form = _form(spec)
    try:
        page = open_page(browser, live, errors, viewport={"width": 1024, "height": 768},
                         has_touch=True)
        pair_in_page(page, live)
        page.goto(live.url + "/calibration")
        # the markers first: two are hidden, so nothing is saved and the fallback opens
        for name, value in form.items():
            page.fill(f"#cal-form input[name={name}]", str(value))
        page.click("#cal-submit")
        page.wait_for_selector("#cal-result.cal-bad")
        assert "missing 2, 3" in page.inner_text("#cal-problems")
        assert page.eval_on_selector("#corners-card", "d => d.open")
        wait_js(page, "document.getElementById('tap-frame').naturalWidth > 0")
        assert page.inner_text("#tap-next") == "Tap the top-left corner (1 of 4)."
        assert page.is_disabled("#tap-save") and page.is_disabled("#tap-undo")
        img = page.locator("#tap-frame")
        img.evaluate("i => i.scrollIntoView({block: 'center'})")
        box = img.bounding_box()  # in the viewport, where taps land
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 768
        assert box is not None and box["width"] > 300
        natural = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")

        def screen(p: list[float]) -> tuple[float, float]:
            return (box["x"] + p[0] * box["width"] / natural[0],
                    box["y"] + p[1] * box["height"] / natural[1])

        page.mouse.click(*screen(taps[2]))
        page.wait_for_selector("#tap-area[data-taps='1']")
        page.click("#tap-refresh")  # a new picture: the taps start again
        page.wait_for_selector("#tap-area[data-taps='0']")
        wait_js(page, "document.getElementById('tap-frame').complete && "
                       "document.getElementById('tap-frame').naturalWidth > 0")
        page.touchscreen.tap(*screen(taps[0]))  # touch
        page.mouse.click(*screen([natural[0] * 0.5, natural[1] * 0.5]))  # a wrong tap
        page.wait_for_selector("#tap-area[data-taps='2']")
        assert "bottom-right corner (3 of 4)" in page.inner_text("#tap-next")
        page.click("#tap-undo")
        page.wait_for_selector("#tap-area[data-taps='1']")
        assert "top-right corner (2 of 4)" in page.inner_text("#tap-next")
        page.mouse.click(*screen(taps[1]))  # mouse
        page.touchscreen.tap(*screen(taps[2]))
        page.touchscreen.tap(*screen(taps[3]))
        page.wait_for_selector("#tap-area[data-taps='4']")
        assert page.locator("#tap-marks circle").count() == 4
        assert page.locator("#tap-marks polygon").count() == 1
        assert "All four corners tapped" in page.inner_text("#tap-next")
        page.mouse.click(*screen([natural[0] * 0.5, natural[1] * 0.5]))  # a fifth: ignored
        assert page.get_attribute("#tap-area", "data-taps") == "4"
        save = page.locator("#tap-save").bounding_box()
        assert save is not None and save["height"] >= 44 and save["width"] >= 44
        page.fill("#tap-form input[name=width_mm]", str(form["width_mm"]))
        page.fill("#tap-form input[name=height_mm]", str(form["height_mm"]))
        page.click("#tap-save")
        page.wait_for_selector("#tap-result.cal-ok")
        assert "from the corners you tapped" in page.inner_text("#tap-result")
        wait_js(page, "document.getElementById('topdown').naturalWidth > 0")
        wait_js(page, "document.getElementById('preview').naturalWidth > 0")
        page.screenshot(path=str(SHOT_DIR / "calibration-corners-1024x768.png"),
                        full_page=True)
        # the stored calibration's card shows it without a reload, and after one
        page.wait_for_selector("#stored-marker:has-text('corners given by hand')")
        page.reload()
        assert "corners given by hand" in page.inner_text("#stored-marker")
    finally:
        live.close()
    plane, problems = load_plane(Path(live.app.config["DATA_DIR"]))
    assert plane is not None and problems == [] and plane.method == "manual"
    assert plane.table_size_mm == pytest.approx((form["width_mm"], form["height_mm"]))
    # the taps landed where the corners are: within 3 screen pixels (a screen pixel is
    # natural/displayed image pixels; touch and mouse positions are whole screen pixels)
    px_per_screen_px = natural[0] / box["width"]
    assert np.abs(plane.table_corners_px() - np.array(taps)).max() < 3.0 * px_per_screen_px
    assert errors == []


def test_a_photo_uploaded_without_a_camera_is_calibrated_from(browser: Any, tmp_path: Path) -> None:
    """No camera: upload a photo from the page (file chooser), calibrate from its markers."""
    import cv2

    spec, frame = _scene(SEED)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), frame)
    live = Live(tmp_path / "srv")
    errors: list[str] = []
    try:
        page = open_page(browser, live, errors, viewport={"width": 1024, "height": 768})
        pair_in_page(page, live)
        page.goto(live.url + "/calibration")
        page.wait_for_selector("#no-camera")
        assert page.locator("#cal-form").count() == 0
        page.set_input_files("#photo-file", str(photo))
        page.click("#photo-submit")
        page.wait_for_selector("#cal-form")  # the page reloads with the photo
        assert "Uploaded photo" in page.inner_text("#camera-card h2")
        wait_js(page, "document.getElementById('frame').naturalWidth > 0")
        for name, value in _form(spec).items():
            page.fill(f"#cal-form input[name={name}]", str(value))
        page.click("#cal-submit")
        page.wait_for_selector("#cal-result.cal-ok")
    finally:
        live.close()
    plane, _ = load_plane(Path(live.app.config["DATA_DIR"]))
    assert plane is not None and plane.method == "markers"
    assert errors == []


def test_setup_page_in_the_browser_at_1024x768(browser: Any, tmp_path: Path) -> None:
    """Open the page from the dashboard header, calibrate as a controller, see the result."""
    spec, frame = _scene(SEED)
    frames = StillFrames(stall_after=60.0)
    frames.push(_jpeg(frame))
    live = Live(tmp_path, frames=frames)
    errors: list[str] = []
    try:
        page = open_page(browser, live, errors, viewport={"width": 1024, "height": 768})
        pair_in_page(page, live)
        page.click("#setup-link")
        page.wait_for_selector("#stored-none")
        wait_js(page, "document.getElementById('frame').naturalWidth > 0")
        form = _form(spec)
        for name, value in form.items():
            page.fill(f"#cal-form input[name={name}]", str(value))
        box = page.locator("#cal-submit").bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44
        page.click("#cal-submit")
        page.wait_for_selector("#cal-result.cal-ok")
        assert "Saved: table" in page.inner_text("#cal-result")
        wait_js(page, "document.getElementById('topdown').naturalWidth > 0")
        wait_js(page, "document.getElementById('preview').naturalWidth > 0")
        page.screenshot(path=str(SHOT_DIR / "calibration-1024x768.png"), full_page=True)
        page.reload()
        assert "mm above the table" in page.inner_text("#stored-camera")
    finally:
        live.close()
    plane, _ = load_plane(Path(live.app.config["DATA_DIR"]))
    assert plane is not None
    assert errors == []
