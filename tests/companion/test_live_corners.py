"""A table calibrated by hand (``calibrate --corners``: the four corners tapped or typed, no
markers found) gives the live loop a camera too (:mod:`calibration.cornercam`): the start line
says it and that it came from the corners, every read is given it, and the layers of a cold
start are those of the true camera."""

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

from test_live_camera import (RecordingReader, _camera_height_tilt, _layers_right,
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


#: Training seeds (17 probed between 4703 and 4760, marker-free clean double-nine pictures, corners
#: tapped 2 px off): the corners' camera puts more found tiles on the right layer than the picture
#: alone, as the true camera does: 4759 (tilt 32 degrees, focal length from the corners) 1 -> 2
#: of 4; 4741 (tilt 0.5 degrees, the assumed field of view) 0 -> 2 of 5. On the other 15 probed
#: every mode gave the same.
TILTED_SEED = 4759
FLAT_SEED = 4741


def _layers_three_ways(tmp_path: Path, scene, tracker) -> dict[str, tuple[int, int]]:
    """(found, on the right layer) of the loop's accepted table: with the stored calibration,
    with the picture alone, with the true camera."""
    set_max = scene.truth["set_max"]
    out = {}
    for name, reader, given in (("calibrated", RecordingReader(), tracker),
                                ("plain", RecordingReader(), None),
                                ("truecam", _TrueCamera(RecordingReader(), scene.truth), None)):
        loop = _loop(tmp_path, reader, given, set_max, name)
        _show(loop, scene.image_bgr, 1)
        out[name] = _layers_right(loop, scene.truth, None if given is None else given.plane)
        if name == "calibrated":
            assert loop.plane_status["state"] == "found"
            assert "four corners given by hand" in loop.status()["layers"]
            assert reader.calls and all(g is not None for _, g in reader.calls)
            out["geometry"] = reader.calls[-1][1]
    return out


def test_a_table_calibrated_by_hand_gives_the_live_loop_its_camera(tmp_path: Path,
                                                                    capsys) -> None:
    scene, spec, layout = _scene(TILTED_SEED)
    out, _ = _calibrate_by_hand(scene.image_bgr, tapped_corners(spec, TILTED_SEED), layout,
                                tmp_path, capsys)
    assert "from the four corners" in out  # the camera's focal length, said by `calibrate`
    stored = json.loads((tmp_path / "table.json").read_text())
    assert stored["method"] == "manual" and stored["camera"]["source"] == "corners"
    tracker, notes = tracker_from_store(tmp_path)
    assert isinstance(tracker, FixedPlaneTracker) and any("by hand" in n for n in notes)
    line = camera_layers_line(tracker, *camera_tiles(None, scene.truth["set_max"]))
    assert line.startswith("layers use the calibrated camera (height ")
    assert "focal length estimated from the four corners given by hand" in line

    got = _layers_three_ways(tmp_path, scene, tracker)
    height, tilt = _camera_height_tilt(got["geometry"])
    true_height, true_tilt = _camera_height_tilt(Geometry.from_truth(scene.truth))
    assert height == pytest.approx(true_height, rel=0.06)
    assert tilt == pytest.approx(true_tilt, abs=1.5)
    assert got["calibrated"] == got["truecam"] and got["calibrated"][0] >= 4


def test_a_straight_down_table_by_hand_says_the_focal_length_is_assumed(tmp_path: Path,
                                                                         capsys) -> None:
    """A view 0.5 degrees from straight down: the corners cannot tell the focal length, the
    calibration warns that it is assumed and the start line says so; the assumed camera costs
    no layer against the true camera (until session 20 both put 3 of the 7 found tiles on their
    layer; with the 8-bit layer cue of session 21 the assumed camera puts 4, the true camera 3:
    one tile near the camera-weighed lift bar)."""
    scene, spec, layout = _scene(FLAT_SEED)
    _, err = _calibrate_by_hand(scene.image_bgr, tapped_corners(spec, FLAT_SEED), layout,
                                tmp_path, capsys)
    assert "warning: the camera looks too nearly straight down" in err
    assert "field of view is assumed" in err
    tracker, _ = tracker_from_store(tmp_path)
    assert isinstance(tracker, FixedPlaneTracker)
    assert tracker.plane.camera.source == "assumed-fov"
    line = camera_layers_line(tracker, *camera_tiles(None, scene.truth["set_max"]))
    assert "focal length assumed" in line and "four corners given by hand" in line
    got = _layers_three_ways(tmp_path, scene, tracker)
    assert got["calibrated"][0] == got["truecam"][0] >= 4
    assert got["calibrated"][1] >= got["truecam"][1]


@pytest.mark.parametrize("seed", [
    pytest.param(TILTED_SEED, marks=pytest.mark.xfail(strict=True, reason=(
        "known failure (session 13): this seed was chosen (session 12) where the camera put more "
        "found tiles on their layer than the picture alone (4759: 1 -> 2 of 4); with the "
        "retrained layer cue and tile finder the picture alone does as well as any camera on "
        "it. Held out the same: livelayers 83 / 83 / 83 / 83 of 156 (no calibration, corners, "
        "markers, true camera). Session 16 (the layer cue retrained on more scenes): 3 of 4 "
        "with or without a camera; livelayers 90 / 92 / 92 / 92 of 156. Session 21 (the 8-bit "
        "cue): 3 of 4 either way; livelayers 95 / 98 / 98 / 98 of 158"))),
    FLAT_SEED,
])
def test_the_corners_camera_puts_more_layers_right_than_the_picture_alone(
        tmp_path: Path, capsys, seed: int) -> None:
    """Seed 4741 (chosen in session 12: 0 -> 2 of 5): a known failure from session 13 to 20 (3
    of 7 with or without a camera); with the 8-bit layer cue of session 21 the corners camera
    puts 4 of 7 on their layer, the picture alone 3 (the true camera 3 too)."""
    scene, spec, layout = _scene(seed)
    _calibrate_by_hand(scene.image_bgr, tapped_corners(spec, seed), layout, tmp_path, capsys)
    tracker, _ = tracker_from_store(tmp_path)
    got = _layers_three_ways(tmp_path, scene, tracker)
    assert got["calibrated"][1] > got["plain"][1], got
