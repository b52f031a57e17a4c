"""The calibrated camera reaches the live reader: a stacked scene rendered with the four table
markers is calibrated from its first frame as ``domino-companion calibrate`` does, and the live
loop reads it through the virtual camera with the stored calibration (its plane tracker and the
camera for the layer estimate, :class:`vision.layers.Geometry`, moved to each crop's origin);
without a calibration, or with one that cannot be used, it reads without a camera and says
why."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.files import tracker_from_store
from calibration.plane import MarkerLayout, TablePlaneTracker
from companion import cli
from companion.live import (STANDARD_TILE_MM, TILE_TOP_MM, LiveLoop, layer_geometry,
                            standard_tile_mm, tile_mm_from_profile)
from companion.livecmd import camera_layers_line, camera_tiles
from companion.livelayers import MARKER_MM, with_markers
from companion.session import Session
from companion.store import LogStore
from vision.layers import Geometry
from vision.read import Reader
from vision.still import StillGate
from vision.virtual_camera import VirtualCamera
from live_helpers import _R, crop_offset

#: A training seed whose stacks the calibrated camera puts on the right layers where the
#: picture alone does not (probe of seeds 4700-4759, double-nine, clean pictures: 1 -> 3 of 5 found tiles; 7 seeds gain, 1 loses)
COLD_SEED = 4740
SEQUENCE_SEED = 4801
#: stills of its build (a tile on layer 2 among them)
SEQUENCE_FRAMES = 6


@functools.lru_cache(maxsize=4)
def _scenes(seed: int, frames: int | None):
    """The rendered pictures of stacked scene ``seed`` with markers: the whole scene
    (``frames`` None), or the first ``frames`` stills of its build (one tile more each)."""
    from vision.render.scene import render_scene
    from vision.render.stacking import stacked_scene_spec

    spec, layout = with_markers(stacked_scene_spec(seed, set_max=9, degrade=False))
    if frames is None:
        specs = [spec]
    else:
        specs = [dataclasses.replace(spec, placements=spec.placements[:k],
                                     tile_styles=spec.tile_styles[:k], frame=k - 1)
                 for k in range(1, frames + 1)]
    return [render_scene(s) for s in specs], layout


def _calibrate(frame_bgr: np.ndarray, layout: MarkerLayout, folder: Path) -> None:
    """``domino-companion calibrate --image`` on the frame, saving to ``folder``."""
    photo = folder / "table.png"
    cv2.imwrite(str(photo), frame_bgr)
    rc = cli.main(["calibrate", "--image", str(photo), "--table-mm",
                   f"{layout.width_mm}x{layout.height_mm}", "--marker-mm", str(MARKER_MM),
                   "--placement", "center", "--out", str(folder)])
    assert rc == 0 and (folder / "table.json").exists()


class RecordingReader:
    """The real reader, noting the camera each read was given and where its crop lay."""

    reads_crops = True

    def __init__(self) -> None:
        self.reader = Reader()
        self.calls: list[tuple[tuple[int, int], Geometry | None]] = []

    def read(self, frame_bgr, set_max, geometry=None, **kw):
        self.calls.append((crop_offset(frame_bgr), geometry))
        return self.reader.read(frame_bgr, set_max, geometry=geometry, **kw)


def _loop(tmp_path: Path, reader, tracker, set_max: int, name: str) -> LiveLoop:
    s = Session.start(LogStore(tmp_path / f"{name}.db"), "stackernoes", ["Ann", "Bob"])
    return LiveLoop(s, reader, gate=StillGate(still_frames=2), plane_tracker=tracker,
                    camera_layers=True, set_max=set_max)


def _show(loop: LiveLoop, frame_bgr: np.ndarray, seed: int) -> None:
    """Play ``frame_bgr`` through a virtual camera (fresh sensor noise each frame) until the
    loop accepts the table."""
    cam = VirtualCamera([frame_bgr] * 30, realtime=False, seed=seed)
    accepted = loop.stats.accepted
    while (f := cam.read()) is not None and loop.stats.accepted == accepted:
        loop.process(f.frame_bgr, f.index)
    assert loop.stats.accepted > accepted


def _layers_right(loop: LiveLoop, truth: dict, plane) -> tuple[int, int]:
    """(tiles of the accepted table matched to a truth tile, of those on the right layer)."""
    from vision.render.layerlive import match_found

    shown = [b for b in loop.baseline if not b.hidden]
    quads = [np.asarray(b.corners, np.float64) if plane is None
             else plane.to_image(np.asarray(b.corners, np.float64), z_mm=TILE_TOP_MM)
             for b in shown]
    must = [t for t in truth["tiles"] if not t["cut"] and t["face_up"] and t["visible"] >= 0.9]
    matched = match_found(must, quads)
    return len(matched), sum(shown[j].layer == t["layer"] for t, j in matched)


def _camera_height_tilt(g: Geometry) -> tuple[float, float]:
    R = cv2.Rodrigues(g.rvec)[0]
    centre = -R.T @ g.tvec
    return float(-centre[2]), float(np.degrees(np.arccos((R.T @ [0.0, 0.0, 1.0])[2])))


def _cold_start(tmp_path: Path) -> tuple[int, int, int, int]:
    """A cold start of the live loop on a calibrated table and on the same table uncalibrated,
    checking on the way that every read is given the calibration's camera; (found, right) of
    the accepted table with the camera and without it."""
    scenes, layout = _scenes(COLD_SEED, None)
    scene = scenes[0]
    _calibrate(scene.image_bgr, layout, tmp_path)
    tracker, problems = tracker_from_store(tmp_path)
    assert tracker is not None and problems == []
    set_max = scene.truth["set_max"]
    line = camera_layers_line(tracker, *camera_tiles(None, set_max))
    assert line.startswith("layers use the calibrated camera (height ") and \
        "focal length estimated from the markers" in line and "50 x 25 x 9 mm, a standard" in line

    reader = RecordingReader()
    loop = _loop(tmp_path, reader, tracker, set_max, "calibrated")
    _show(loop, scene.image_bgr, 1)
    assert loop.status()["layers"].startswith("layers use the calibrated camera (height ")
    # every read was given the camera the calibration measured (the whole frame: a cold start)
    assert reader.calls and all(off == (0, 0) and g is not None for off, g in reader.calls)
    geometry = reader.calls[-1][1]
    truth_cam = Geometry.from_truth(scene.truth)
    height, tilt = _camera_height_tilt(geometry)
    true_height, true_tilt = _camera_height_tilt(truth_cam)
    assert height == pytest.approx(true_height, rel=0.06)
    assert tilt == pytest.approx(true_tilt, abs=1.0)
    assert geometry.tile_mm == STANDARD_TILE_MM[set_max] == tuple(scene.truth["style"]["tile_mm"])
    # the layers the loop accepted are the reader's with that camera (of the frame accepted)...
    direct = reader.reader.read(loop._last_frame, set_max, geometry=geometry)
    layers = {t.tile: t.layer for t in direct.tiles if not t.cut and t.tile is not None}
    assert loop.baseline and {b.tile: b.layer for b in loop.baseline}.items() <= layers.items()
    found, right = _layers_right(loop, scene.truth, tracker.plane)

    # ...and more of them are right against the truth than the same loop reads without it
    plain_reader = RecordingReader()
    plain = _loop(tmp_path, plain_reader, None, set_max, "plain")
    _show(plain, scene.image_bgr, 1)
    assert all(g is None for _, g in plain_reader.calls)
    assert plain.status()["layers"].startswith("layers from the picture alone")
    found_plain, right_plain = _layers_right(plain, scene.truth, None)
    return found, right, found_plain, right_plain


def test_a_cold_start_reads_the_layers_with_the_calibrated_camera(tmp_path: Path) -> None:
    found, _, found_plain, _ = _cold_start(tmp_path)
    assert found == found_plain >= 4


@pytest.mark.xfail(strict=True, reason=(
    "known failure (session 13): with the retrained layer cue and tile finder the camera no "
    "longer puts more of this cold start's tiles on their layer than the picture alone: 2 of 6 "
    "either way (3+ with the camera against fewer without, before). Held out the same: "
    "layerlive one photo 84 picture only, 87 with the camera, of 175; livelayers 83 = 83 of 156. "
    "Session 16 (the layer cue retrained on more scenes): 6 of 6 either way; held out 109 = 109 "
    "of 175, livelayers 90 without a calibration, 92 with one, of 156"))
def test_the_calibrated_camera_puts_more_cold_start_layers_right(tmp_path: Path) -> None:
    _, right, _, right_plain = _cold_start(tmp_path)
    assert right >= 3 and right > right_plain, (right, right_plain)


def test_crops_of_a_build_are_read_with_the_camera_moved_to_their_origin(tmp_path: Path) -> None:
    scenes, layout = _scenes(SEQUENCE_SEED, SEQUENCE_FRAMES)
    _calibrate(scenes[0].image_bgr, layout, tmp_path)
    tracker, _ = tracker_from_store(tmp_path)
    reader = RecordingReader()
    loop = _loop(tmp_path, reader, tracker, scenes[0].truth["set_max"], "build")
    for k, scene in enumerate(scenes):
        _show(loop, scene.image_bgr, k)
    whole = [g for off, g in reader.calls if off == (0, 0)]
    crops = [(off, g) for off, g in reader.calls if off != (0, 0)]
    assert whole and crops  # the first still is read whole, the tiles added later in crops
    full = whole[0]
    for (x0, y0), g in crops:  # the principal point moved by the crop's origin, nothing else
        assert g is not None
        np.testing.assert_allclose(g.K[:2, 2] + [x0, y0], full.K[:2, 2])
        assert g.K[0, 0] == pytest.approx(full.K[0, 0], rel=0.02)
        assert _camera_height_tilt(g) == pytest.approx(_camera_height_tilt(full), rel=0.02)
    # the build was followed: every tile of the last still is on the table at its layer
    truth = scenes[-1].truth
    must = [t for t in truth["tiles"] if not t["cut"] and t["face_up"] and t["visible"] >= 0.9]
    assert _layers_right(loop, truth, tracker.plane) == (len(must), len(must))


class _Nothing:
    """A reader that finds no tile and notes the camera it was given."""

    reads_crops = True

    def __init__(self) -> None:
        self.geometries: list[Geometry | None] = []

    def read(self, frame_bgr, set_max, geometry=None, **_):
        self.geometries.append(geometry)
        return _R(())


def test_the_camera_follows_the_tracker_when_it_is_bumped(tmp_path: Path) -> None:
    from calibration.bench import moved, renderer_case

    base = renderer_case(102, degrade=False, hands=0, tilt_range=(12.0, 20.0), layout="line",
                         n_tiles=5, set_max=6, loose=0, boneyard=False)
    bumped = moved(base, d_height=150.0, d_tilt=8.0, d_rot=15.0)
    reader = _Nothing()
    loop = _loop(tmp_path, reader, TablePlaneTracker(base.layout, every_n=1), 6, "bump")
    heights = []
    for case in (base, bumped):
        n = len(reader.geometries)
        for k in range(5):
            loop.process(case.image_bgr)
        assert len(reader.geometries) > n and all(g is not None for g in reader.geometries[n:])
        height, tilt = _camera_height_tilt(reader.geometries[-1])
        true_height, true_tilt = _camera_height_tilt(Geometry.from_truth(case.truth))
        assert height == pytest.approx(true_height, rel=0.06)
        assert tilt == pytest.approx(true_tilt, abs=1.0)
        heights.append(height)
    assert loop.plane_status["state"] in ("moved", "steady")
    assert heights[1] > heights[0] + 100  # raised 150 mm


def test_without_a_calibration_the_loop_reads_without_a_camera_and_says_why(
        tmp_path: Path) -> None:
    tracker, problems = tracker_from_store(tmp_path)
    assert tracker is None and "no table calibration" in problems[0]
    line = camera_layers_line(tracker, STANDARD_TILE_MM[6], "standard")
    assert "without the camera" in line and "no table calibration" in line
    reader = _Nothing()
    loop = _loop(tmp_path, reader, None, 6, "none")
    table = np.random.default_rng(0).integers(70, 110, (360, 640, 3)).astype(np.uint8)
    for _ in range(4):  # (a textured table: a blank picture is not read at all)
        loop.process(table)
    assert reader.geometries and all(g is None for g in reader.geometries)
    assert "alone" in loop.status()["layers"]


def test_a_damaged_calibration_leaves_the_camera_out_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "table.json").write_text("{not json")
    tracker, problems = tracker_from_store(tmp_path)
    assert tracker is None and problems
    assert "without the camera" in camera_layers_line(tracker, (48.0, 24.0, 8.0), "standard")


def test_a_calibration_of_other_frames_is_dropped_at_the_first_frame(tmp_path: Path) -> None:
    """A stored calibration made at another aspect ratio cannot be used on these frames: the
    loop follows the table in pixels and reads without the camera, saying why (it stopped the
    live thread before)."""
    scenes, layout = _scenes(SEQUENCE_SEED, SEQUENCE_FRAMES)
    _calibrate(scenes[0].image_bgr, layout, tmp_path)
    tracker, _ = tracker_from_store(tmp_path)
    reader = _Nothing()
    loop = _loop(tmp_path, reader, tracker, 6, "aspect")
    square = np.random.default_rng(0).integers(70, 110, (600, 600, 3)).astype(np.uint8)
    for _ in range(4):  # (a textured table: a blank picture is not read at all)
        loop.process(square)
    assert loop.plane_tracker is None and loop.plane_status["state"] == "error"
    assert reader.geometries and all(g is None for g in reader.geometries)
    assert "layers without the camera" in loop.status()["layers"]
    assert "aspect ratio" in loop.status()["layers"]


def test_a_plane_without_a_usable_camera_gives_no_geometry(tmp_path: Path) -> None:
    scenes, layout = _scenes(SEQUENCE_SEED, SEQUENCE_FRAMES)
    _calibrate(scenes[0].image_bgr, layout, tmp_path)
    plane = tracker_from_store(tmp_path)[0].plane
    geometry, line = layer_geometry(plane, (48.0, 24.0, 8.0))
    assert geometry is not None and "focal length" in line
    # no pose: the homography and the camera's focal length give the same camera
    posed = layer_geometry(dataclasses.replace(plane, pose=None), (48.0, 24.0, 8.0))[0]
    assert _camera_height_tilt(posed) == pytest.approx(_camera_height_tilt(geometry), rel=0.01)
    assert layer_geometry(dataclasses.replace(plane, camera=None), (48, 24, 8))[0] is None
    bad = dataclasses.replace(plane.camera, dist=np.zeros(12))  # a model the estimate lacks
    none, why = layer_geometry(dataclasses.replace(plane, camera=bad), (48.0, 24.0, 8.0))
    assert none is None and "cannot be used" in why


@pytest.mark.parametrize("profile_mm, set_max, expected, source", [
    ((50.0, 25.0), 6, (50.0, 25.0, 7.75), "enrolled"),  # thickness 0.31 of the width
    (None, 6, (48.0, 24.0, 8.0), "standard"),           # enrolled without a calibration
    (None, 9, (50.0, 25.0, 9.0), "standard"),
    (None, 7, (50.0, 25.0, 9.0), "standard"),           # the next larger standard set
    (None, 18, (54.0, 27.0, 10.0), "standard"),
])
def test_the_tile_size_comes_from_the_enrolled_set_else_a_standard_set(
        profile_mm, set_max, expected, source) -> None:
    class Profile:
        tile_mm = profile_mm

    class Hints:
        profile = Profile()

    assert camera_tiles(Hints(), set_max) == (expected, source)
    if profile_mm is None:
        assert camera_tiles(None, set_max) == (expected, "standard")
        assert tile_mm_from_profile(Profile()) is None
        assert standard_tile_mm(set_max) == expected


def test_run_stops_at_once_for_a_camera_file_that_will_not_come_back(tmp_path, capsys) -> None:
    """A video file that is not there, a single photo, bad sizes or a calibration folder that
    does not exist: exit 2 with what to give, before any game is started (a camera index or a
    URL that fails is retried instead: it may come back)."""
    from companion.cli import main
    from vision.sources import may_come_back
    from companion.store import LogStore

    photo = tmp_path / "one.png"
    cv2.imwrite(str(photo), np.zeros((32, 32, 3), np.uint8))
    base = ["run", "--game", "allfives", "--players", "Ann,Bob", "--data-dir", str(tmp_path),
            "--port", "0", "--no-browser"]
    for extra, words in [(["--camera", str(tmp_path / "missing.mp4")], "no such file or folder"),
                         (["--camera", str(photo)], "is a single image"),
                         (["--camera", "0", "--width", "-5"], "--width must be more than 0"),
                         (["--camera", "0", "--calibration", str(tmp_path / "nocal")],
                          "no such folder")]:
        assert main(base + extra) == 2, extra
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (extra, err)
    assert not (tmp_path / "games.sqlite").exists() or \
        LogStore(tmp_path / "games.sqlite").latest_game() is None
    assert may_come_back("0") and may_come_back("/dev/video2") and may_come_back("rtsp://cam/1")
    assert not may_come_back(str(photo)) and not may_come_back("clip.mp4")


def test_run_loads_the_calibration_of_its_data_folder(tmp_path, capsys, monkeypatch) -> None:
    """`run --data-dir D` takes the table calibration and set profile from D (where the
    dashboard's Table setup page saves them), not from the default data folder; the setup page
    it serves saves there too. `--calibration C` still names another folder."""
    import calibration.enroll
    import calibration.files
    from companion import serve
    from companion.cli import main

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f0.png"), np.full((120, 160, 3), 90, np.uint8))
    asked: dict[str, list] = {"plane": [], "profile": [], "served": []}

    def tracker(folder, *a, **k):
        asked["plane"].append(folder)
        return None, []

    def hints(folder, *a, **k):
        asked["profile"].append(folder)
        return None, []

    def served(*a, calibration_dir=None, **k):
        asked["served"].append(calibration_dir)
        return 0

    monkeypatch.setattr(calibration.files, "tracker_from_store", tracker)
    monkeypatch.setattr(calibration.enroll, "hints_from", hints)
    monkeypatch.setattr(serve, "serve_dashboard", served)
    data = tmp_path / "data"
    base = ["run", "--game", "allfives", "--players", "Ann,Bob", "--port", "0", "--no-browser",
            "--camera", str(frames)]
    assert main(base + ["--data-dir", str(data)]) == 0
    other = tmp_path / "cal"
    other.mkdir()
    assert main(base + ["--data-dir", str(data), "--calibration", str(other)]) == 0
    want = [data.resolve(), other]
    assert [Path(f).resolve() for f in asked["plane"]] == [w.resolve() for w in want]
    assert [Path(f).resolve() for f in asked["profile"]] == [w.resolve() for w in want]
    assert [Path(f).resolve() for f in asked["served"]] == [w.resolve() for w in want]
