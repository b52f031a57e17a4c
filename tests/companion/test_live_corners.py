"""A table calibrated by hand (``calibrate --corners``: the four corners tapped or typed, no
markers found) gives the live loop a camera too (:mod:`calibration.cornercam`): the start line
says it and that it came from the corners, every read is given it, and the layers of a cold
start are as right as with the markers' camera."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.files import tracker_from_store
from calibration.plane import FixedPlaneTracker
from companion import cli
from companion.livecmd import camera_layers_line, camera_tiles
from companion.livelayers import _TrueCamera, tapped_corners, with_markers
from vision.layers import Geometry

from test_live_camera import (COLD_SEED, RecordingReader, _camera_height_tilt, _layers_right,
                              _loop, _show)


@functools.lru_cache(maxsize=1)
def _scene(seed: int):
    """Stacked scene ``seed`` (double-nine, clean) framed for the markers but with none on the
    table (so ``calibrate`` needs the corners), its spec and the play area's layout."""
    from vision.render.scene import render_scene
    from vision.render.stacking import stacked_scene_spec

    spec, layout = with_markers(stacked_scene_spec(seed, set_max=9, degrade=False))
    spec = dataclasses.replace(spec, markers=False)
    return render_scene(spec), spec, layout


def _calibrate_by_hand(frame_bgr: np.ndarray, corners: np.ndarray, layout, folder: Path,
                       capsys) -> tuple[str, str]:
    photo = folder / "table.png"
    cv2.imwrite(str(photo), frame_bgr)
    rc = cli.main(["calibrate", "--image", str(photo), "--table-mm",
                   f"{layout.width_mm}x{layout.height_mm}", "--out", str(folder),
                   "--corners", ",".join(f"{v:.1f}" for v in corners.ravel())])
    assert rc == 0
    said = capsys.readouterr()
    return said.out, said.err


def test_a_table_calibrated_by_hand_gives_the_live_loop_its_camera(tmp_path: Path,
                                                                    capsys) -> None:
    scene, spec, layout = _scene(COLD_SEED)
    out, _ = _calibrate_by_hand(scene.image_bgr, tapped_corners(spec, COLD_SEED), layout, tmp_path,
                             capsys)
    assert "from the four corners" in out  # the camera's focal length, said by `calibrate`
    stored = json.loads((tmp_path / "table.json").read_text())
    assert stored["method"] == "manual" and stored["camera"]["source"] == "corners"
    tracker, notes = tracker_from_store(tmp_path)
    assert isinstance(tracker, FixedPlaneTracker) and any("by hand" in n for n in notes)
    set_max = scene.truth["set_max"]
    line = camera_layers_line(tracker, *camera_tiles(None, set_max))
    assert line.startswith("layers use the calibrated camera (height ")
    assert "focal length estimated from the four corners given by hand" in line

    reader = RecordingReader()
    loop = _loop(tmp_path, reader, tracker, set_max, "by_hand")
    _show(loop, scene.image_bgr, 1)
    assert loop.plane_status["state"] == "found"
    assert "four corners given by hand" in loop.status()["layers"]
    assert reader.calls and all(g is not None for _, g in reader.calls)
    height, tilt = _camera_height_tilt(reader.calls[-1][1])
    true_height, true_tilt = _camera_height_tilt(Geometry.from_truth(scene.truth))
    # measured: 1012 mm against 1022 (taps 2 px off), tilt within half a degree
    assert height == pytest.approx(true_height, rel=0.06)
    assert tilt == pytest.approx(true_tilt, abs=1.5)
    found, right = _layers_right(loop, scene.truth, tracker.plane)

    # the layers the loop accepted are those the true camera gives (what a perfect calibration
    # would give; the picture alone puts as many right on this scene, measured 2 of 6 each)
    true_reader = _TrueCamera(RecordingReader(), scene.truth)
    truecam = _loop(tmp_path, true_reader, None, set_max, "truecam")
    _show(truecam, scene.image_bgr, 1)
    assert (found, right) == _layers_right(truecam, scene.truth, None), (found, right)
    assert found >= 4


def test_a_straight_down_table_by_hand_says_the_focal_length_is_assumed(tmp_path: Path,
                                                                         capsys) -> None:
    """Exact corners of a view looking straight down: the calibration warns that the focal
    length is assumed, and the start line says so."""
    scene, spec, layout = _scene(COLD_SEED)
    flat = dataclasses.replace(spec, camera=dataclasses.replace(spec.camera, tilt_deg=0.0))
    from vision.render.scene import render_scene

    image = render_scene(flat).image_bgr
    _, err = _calibrate_by_hand(image, tapped_corners(flat, 1, rms_px=0.0), layout, tmp_path,
                                capsys)
    assert "warning: the camera looks too nearly straight down" in err
    assert "field of view is assumed" in err
    tracker, _ = tracker_from_store(tmp_path)
    assert isinstance(tracker, FixedPlaneTracker)
    assert tracker.plane.camera.source == "assumed-fov"
    line = camera_layers_line(tracker, *camera_tiles(None, 9))
    assert "focal length assumed" in line and "four corners given by hand" in line
