"""Tests of the layer estimator (vision.layers) on drawn and rendered stacks."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from layer_shapes import draw_tile as _draw_tile
from layer_shapes import rect as _rect

from companion.errors import DominoError
from companion.tiles import Tile
from vision.layers import (
    CUES,
    Geometry,
    LayeredTileReading,
    LayerEstimate,
    LayerInputError,
    LayerTracker,
    apply_layers,
    estimate_layers,
    occlusion_score,
    tile_height,
)
from vision.render import CameraSpec, render_scene
from vision.render.camera import Camera
from vision.render.stacking import stack_sequence, stacked_scene_spec
from vision.types import Reading, TileReading


def _visible_tiles(truth: dict) -> list[dict]:
    return [t for t in truth["tiles"] if t["visible"] > 0]


# --- occlusion ----------------------------------------------------------------------------------

def test_occlusion_cue_says_which_of_two_overlapping_tiles_is_on_top() -> None:
    rng = np.random.default_rng(5)
    frame_bgr = np.full((240, 320, 3), 60, np.uint8)
    lower = _rect(140, 120, 120, 60, 0)
    upper = _rect(180, 120, 120, 60, 90)
    _draw_tile(frame_bgr, lower)
    _draw_tile(frame_bgr, upper)
    frame_bgr = cv2.add(frame_bgr, rng.integers(0, 6, frame_bgr.shape, dtype=np.uint8))
    s_up, n = occlusion_score(frame_bgr, upper, lower)
    s_down, _ = occlusion_score(frame_bgr, lower, upper)
    assert n > 20
    assert s_up > 0.3 and s_down < -0.3
    far = _rect(40, 40, 30, 15, 0)
    assert occlusion_score(frame_bgr, far, lower) == (0.0, 0)


def test_layer_unit_is_the_one_layer_difference_despite_a_few_small_noisy_ones() -> None:
    from vision.layers import _layer_unit

    rng = np.random.default_rng(3)
    one = rng.normal(1.0, 0.08, 30)
    two = rng.normal(2.0, 0.12, 14)
    noise = rng.uniform(0.3, 0.6, 12)  # small differences of pairs misjudged by a pixel or two
    diffs = np.abs(np.concatenate([one, two, noise]))
    assert float(np.percentile(diffs, 25)) < 0.9  # a quartile alone is pulled down
    assert _layer_unit(diffs) == pytest.approx(1.0, abs=0.05)


# --- parallax -----------------------------------------------------------------------------------

@pytest.mark.parametrize("tilt, layer", [(0.0, 0), (0.0, 2), (30.0, 1), (30.0, 3)])
def test_parallax_gives_the_height_of_a_lone_tile(tilt: float, layer: int) -> None:
    cam = Camera(CameraSpec(height_mm=450.0, tilt_deg=tilt, rotation_deg=20.0, hfov_deg=60.0),
                 1280, 720)
    L, W, T = 48.0, 24.0, 8.0
    geom = Geometry(cam.K, cam.rvec, cam.t, (L, W, T))
    top = _rect(30.0, -20.0, L, W, 35.0)
    quad = cam.project(np.column_stack([top, np.full(4, -(layer + 1) * T)]))
    z, err = tile_height(quad, geom)
    assert abs(z - (layer + 1) * T) < 0.5 and err < 0.01
    frame_bgr = np.full((720, 1280, 3), 80, np.uint8)
    (est,) = estimate_layers(frame_bgr, [quad], geom)
    assert est.layer == layer
    assert est.cue == ("parallax" if layer else "table")
    assert est.confidence > 0.8


def test_outlines_a_few_pixels_off_do_not_lift_a_table_tile_by_parallax() -> None:
    # the reader's outlines run 2-3 px outside a top face: as a size that says several layers
    from vision.layers import READER_OUTLINE_PX

    cam = Camera(CameraSpec(height_mm=450.0, tilt_deg=0.0, rotation_deg=20.0, hfov_deg=60.0),
                 1280, 720)
    L, W, T = 48.0, 24.0, 8.0
    geom = Geometry(cam.K, cam.rvec, cam.t, (L, W, T))
    top = _rect(30.0, -20.0, L + 2.0, W + 2.0, 35.0)  # about 2.5 px wider each way
    quad = cam.project(np.column_stack([top, np.full(4, -T)]))
    frame_bgr = np.full((720, 1280, 3), 80, np.uint8)
    (exact,) = estimate_layers(frame_bgr, [quad], geom)
    assert exact.layer > 0  # taken as exact, the larger outline reads as a higher tile
    (est,) = estimate_layers(frame_bgr, [quad], geom, outline_px=READER_OUTLINE_PX)
    assert (est.layer, est.cue) == (0, "table")
    with pytest.raises(LayerInputError, match="outline_px"):
        estimate_layers(frame_bgr, [quad], geom, outline_px=-1.0)


def test_geometry_from_homography_matches_the_pose() -> None:
    spec = stacked_scene_spec(11, size=(640, 360), tilt_range=(20, 35))
    truth = render_scene(spec).truth
    g = Geometry.from_truth(truth)
    h = Geometry.from_homography(truth["table_to_image"], truth["camera"]["K"],
                                 truth["style"]["tile_mm"], truth["camera"]["dist"])
    for height in (0.0, 24.0):
        a, b = g.plane_homography(height), h.plane_homography(height)
        assert np.allclose(a / a[2, 2], b / b[2, 2], atol=1e-6 * np.abs(a).max())


# --- rendered stacks ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [3, 4])
def test_rendered_stacks_cold_start(seed: int) -> None:
    scene = render_scene(stacked_scene_spec(seed))
    tiles = _visible_tiles(scene.truth)
    truth = [t["layer"] for t in tiles]
    assert max(truth) >= 2
    with_geometry = estimate_layers(scene.image_bgr, tiles, Geometry.from_truth(scene.truth))
    image_only = estimate_layers(scene.image_bgr, tiles)
    acc_g = np.mean([e.layer == t for e, t in zip(with_geometry, truth)])
    acc_i = np.mean([e.layer == t for e, t in zip(image_only, truth)])
    assert acc_g >= 0.95, acc_g
    assert acc_i >= 0.75, acc_i
    # with geometry, what a tile rests on matches the ground truth for most stacked tiles
    index = {t["id"]: k for k, t in enumerate(tiles)}
    right = [set(e.supports) == {index[s] for s in t["supports"] if s in index}
             for e, t in zip(with_geometry, tiles) if t["layer"] > 0]
    assert np.mean(right) >= 0.8
    for e in with_geometry:
        assert isinstance(e, LayerEstimate) and 0 <= e.confidence <= 1


def _table_quads(cam: Camera, heights_layers: list[int], T: float = 8.0,
                 seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    """Top faces of 48x24 mm tiles spread over the table at the given layers, as the camera
    (with its lens) records them, and their layers."""
    rng = np.random.default_rng(seed)
    quads = []
    for k, layer in enumerate(heights_layers):
        x, y = rng.uniform(-260, 260), rng.uniform(-150, 150)
        top = _rect(x, y, 48.0, 24.0, float(rng.uniform(0, 180)))
        uv = cam.project(np.column_stack([top, np.full(4, -(layer + 1) * T)]))
        quads.append(cam.distort_pixels(uv))
    return quads, np.array(heights_layers)


@pytest.mark.parametrize("tilt, k1", [(0.0, -0.1), (30.0, -0.1), (20.0, 0.04), (35.0, 0.0)])
def test_lens_and_flat_sizes_from_the_tiles_shapes(tilt: float, k1: float) -> None:
    from vision.layers import _norm, flat_log_sizes, lens_distortion, size_heights

    cam = Camera(CameraSpec(height_mm=700.0, tilt_deg=tilt, rotation_deg=25.0, hfov_deg=70.0,
                            dist=(k1, 0.0, 0.0, 0.0, 0.0)), 1280, 720)
    layers = [0] * 10 + [1] * 5 + [2] * 3 + [3] * 2
    quads, truth = _table_quads(cam, layers)
    shape = (720, 1280, 3)
    # the lens: k in picture widths is k1 * (width / f)^2
    k = lens_distortion(np.stack([_norm(q, shape) for q in quads]))
    assert k == pytest.approx(k1 * (1280 / cam.K[0, 0]) ** 2, abs=0.02)
    # flat sizes: one value per layer wherever the tile lies, one unit more per layer
    logs = flat_log_sizes(quads, shape)
    per_layer = [logs[truth == L] for L in range(4)]
    steps = np.diff([float(np.median(v)) for v in per_layer])
    unit = float(np.median(steps))
    assert np.all(np.abs(steps - unit) < 0.15 * unit)
    assert max(float(np.ptp(v)) for v in per_layer) < 0.5 * unit
    z = size_heights(logs, unit)
    assert np.array_equal(np.round(z).astype(int), truth)
    # the anchor: which whole layer is the table comes from most tiles' first guess
    assert np.array_equal(np.round(size_heights(logs, unit, truth + 1)).astype(int), truth + 1)
    with pytest.raises(LayerInputError, match="unit"):
        size_heights(logs, 0.0)
    with pytest.raises(LayerInputError, match="one first guess per tile"):
        size_heights(logs, unit, truth[:3])
    assert flat_log_sizes([], shape).shape == (0,)


@pytest.mark.parametrize("seed", [208, 225])
def test_a_tower_top_with_nothing_below_it_in_the_input_gets_its_layer(seed: int) -> None:
    # 208: camera tilted 29 degrees; 225: straight down through a barrel lens (k1 -0.10). The
    # tower's lower tiles are left out of the input, as a tower hides them (or the reader
    # misses them): the top's size above the table still says its layer.
    scene = render_scene(stacked_scene_spec(seed))
    tiles = _visible_tiles(scene.truth)
    by_id = {t["id"]: t for t in scene.truth["tiles"]}
    top = next(t for t in tiles if t["layer"] == 3 and t["visible"] > 0.9)
    below, todo = set(), list(top["supports"])
    while todo:
        k = todo.pop()
        below.add(k)
        todo += by_id[k]["supports"]
    assert len(below) >= 3
    rest = [t for t in tiles if t["id"] not in below]
    # the size cue alone (the learned cue left out) says its layer
    est = estimate_layers(scene.image_bgr, rest, learned=False)
    mine = est[rest.index(top)]
    assert (mine.layer, mine.cue) == (3, "parallax") and mine.confidence > 0.8
    assert mine.supports == ()  # nothing seen under it
    assert [e.layer for e in est] == [t["layer"] for t in rest]
    # with the learned cue too (which may decide it first) every layer stays right
    est = estimate_layers(scene.image_bgr, rest)
    assert est[rest.index(top)].supports == ()
    assert [e.layer for e in est] == [t["layer"] for t in rest]
    # the chain of overlaps alone (the size cue switched off, and the learned cue left out: it
    # reads the picture, not the chain) puts it on the table
    from vision import layers
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(layers, "HEIGHT_CLEAR", 0.0)
        assert estimate_layers(scene.image_bgr, rest,
                               learned=False)[rest.index(top)].layer == 0


def test_size_heights_are_left_out_when_the_outlines_are_a_tenth_of_a_pixel_off() -> None:
    # corners jittered by 0.1 px scatter the tiles' sizes between whole layers: the estimate
    # is then the chain of overlaps alone, not sizes that would move whole towers
    from vision import layers

    scene = render_scene(stacked_scene_spec(208))
    tiles = _visible_tiles(scene.truth)
    rng = np.random.default_rng(1)
    jittered = [np.array(t["corners"]) + rng.normal(0.0, 0.1, (4, 2)) for t in tiles]
    exact = [np.array(t["corners"], float) for t in tiles]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(layers, "HEIGHT_CLEAR", 0.0)  # sizes never overrule the chain
        chain_jittered = estimate_layers(scene.image_bgr, jittered)
        chain_exact = estimate_layers(scene.image_bgr, exact)
    assert estimate_layers(scene.image_bgr, jittered) == chain_jittered
    sized_exact = estimate_layers(scene.image_bgr, exact)
    assert sized_exact != chain_exact  # the gate is what left them out, not the scene
    assert [e.layer for e in sized_exact] == [t["layer"] for t in tiles]


@pytest.mark.slow
def test_tracker_follows_a_rendered_build() -> None:
    tracker = LayerTracker()
    right = total = 0
    for fr in stack_sequence(2, size=(960, 540)):
        scene = render_scene(fr.spec)
        tiles = _visible_tiles(scene.truth)
        est = tracker.update(scene.image_bgr, tiles)
        right += sum(e.layer == t["layer"] for e, t in zip(est, tiles))
        total += len(tiles)
    assert right / total >= 0.95
    assert any(e.cue == "order" for e in est)


def test_tracker_uses_the_order_tiles_appeared_in() -> None:
    base = np.full((240, 320, 3), 60, np.uint8)
    a = _rect(100, 120, 120, 60, 0)
    b = _rect(110, 125, 120, 60, 90)   # laid on a: it changes a's picture
    c = _rect(160, 200, 120, 60, 0)    # laid next to the stack, partly under b's picture
    f1 = base.copy()
    _draw_tile(f1, a)
    f2 = f1.copy()
    _draw_tile(f2, b)
    f3 = base.copy()
    _draw_tile(f3, a)
    _draw_tile(f3, c)
    _draw_tile(f3, b)  # b is still drawn over c: c went in under b's picture
    assert cv2.intersectConvexConvex(c.astype(np.float32), b.astype(np.float32))[0] > 50
    tracker = LayerTracker()
    (e1,) = tracker.update(f1, [a])
    assert e1.layer == 0
    e2 = tracker.update(f2, [a, b])
    assert [e.layer for e in e2] == [0, 1]
    assert e2[1].cue == "order" and e2[1].supports == (0,)
    e3 = tracker.update(f3, [a, b, c])
    assert [e.layer for e in e3] == [0, 1, 0]


# --- inputs and outputs -------------------------------------------------------------------------

def test_apply_layers_returns_a_new_reading() -> None:
    quad_a, quad_b = _rect(100, 100, 80, 40, 0), _rect(110, 100, 80, 40, 90)
    tiles = tuple(TileReading(tile=Tile.of(1, 2), halves=(1, 2), corners=tuple(map(tuple, q)),
                              center=tuple(q.mean(0)), angle=0.0, confidence=0.9)
                  for q in (quad_a, quad_b))
    reading = Reading(tiles, 320, 240)
    est = [LayerEstimate(0, 0.9, "table"), LayerEstimate(1, 0.8, "occlusion", (0,))]
    new = apply_layers(reading, est)
    assert [t.layer for t in new.tiles] == [0, 1]
    assert [t.layer_cue for t in new.tiles] == ["table", "occlusion"]
    assert new.tiles[1].supports == (0,) and new.tiles[1].layer_confidence == 0.8
    assert [t.layer for t in reading.tiles] == [0, 0]
    with pytest.raises(LayerInputError, match="one per tile"):
        apply_layers(reading, est[:1])


@pytest.mark.parametrize("frame, tiles, needle", [
    (np.zeros((50, 50), np.uint8), [_rect(20, 20, 10, 5, 0)], "frame_bgr"),
    (np.zeros((50, 50, 3), np.float32), [_rect(20, 20, 10, 5, 0)], "uint8"),
    (np.zeros((50, 50, 3), np.uint8), [[[0, 0], [1, 1], [2, 2]]], "tiles\\[0\\]"),
    (np.zeros((50, 50, 3), np.uint8), [[[0, 0], [np.nan, 1], [2, 2], [3, 3]]], "finite"),
    (np.zeros((50, 50, 3), np.uint8), [[[0, 0], [1, 0], [1, 0], [0, 0]]], "px\\^2"),
    (np.zeros((50, 50, 3), np.uint8), "tiles", "list of tiles"),
])
def test_bad_inputs_raise_clear_errors(frame, tiles, needle: str) -> None:
    with pytest.raises(LayerInputError, match=needle) as info:
        estimate_layers(frame, tiles)
    assert isinstance(info.value, (ValueError, DominoError))


def test_bad_geometry_and_history_raise_clear_errors() -> None:
    frame_bgr = np.zeros((60, 60, 3), np.uint8)
    quad = _rect(30, 30, 20, 10, 0)
    with pytest.raises(LayerInputError, match="3x3 camera matrix"):
        Geometry(np.eye(2), np.zeros(3), np.array([0, 0, 500.0]), (48, 24, 8))
    with pytest.raises(LayerInputError, match="length >= width"):
        Geometry(np.eye(3) * 500, np.zeros(3), np.array([0, 0, 500.0]), (24, 48, 8))
    with pytest.raises(LayerInputError, match="behind this camera"):
        Geometry(np.diag([500.0, 500.0, 1.0]), np.zeros(3), np.array([0, 0, -500.0]),
                 (48, 24, 8))
    with pytest.raises(LayerInputError, match="vision.layers.Geometry"):
        estimate_layers(frame_bgr, [quad], geometry={"K": 1})
    tracker = LayerTracker()
    tracker.update(frame_bgr, [quad])
    with pytest.raises(LayerInputError, match="last update saw 1"):
        estimate_layers(frame_bgr, [quad, _rect(10, 10, 8, 4, 0)], history=tracker)
    with pytest.raises(LayerInputError, match="differs from the tracker"):
        tracker.update(np.zeros((30, 30, 3), np.uint8), [quad])
    with pytest.raises(LayerInputError, match="match_iou"):
        LayerTracker(match_iou=0.0)
    with pytest.raises(LayerInputError, match="cue"):
        dataclasses.replace(LayerEstimate(0, 0.5, "table"), cue="magic")


def test_layers_eval_command_prints_figures_and_refuses_training_seeds(capsys,
                                                                      monkeypatch) -> None:
    import argparse
    import json

    from vision.render import layerbench
    from vision.render.errors import RenderSpecError
    from vision.render.layerbench import configure, run

    parser = argparse.ArgumentParser()
    configure(parser)
    with pytest.raises(RenderSpecError, match="training seed"):
        run(parser.parse_args(["--scenes", "1", "--sequences", "0", "--seed", "5"]))
    with pytest.raises(RenderSpecError, match="not both 0"):
        run(parser.parse_args(["--scenes", "0", "--sequences", "0"]))
    assert run(parser.parse_args(["--scenes", "1", "--sequences", "0"])) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cold_geometry"]["tiles"] == out["cold_image"]["tiles"] > 0
    assert 0.0 <= out["cold_image"]["accuracy"] <= 1.0
    assert "cold_image_failures" not in out
    # by default the same photos are also judged with every corner 1 px off at random
    assert out["jitter_px"] == 1.0
    assert out["cold_image_jittered"]["tiles"] == out["cold_image"]["tiles"]
    with pytest.raises(RenderSpecError, match="--jitter -1.0: expected a corner noise"):
        run(parser.parse_args(["--scenes", "1", "--sequences", "0", "--jitter", "-1"]))
    # more than 20 px is refused before any scene (100000 broke OpenCV, 1e9 exhausted memory)
    for far in ("20.5", "100000", "1e9", "inf", "nan"):
        with pytest.raises(RenderSpecError, match="pixels from 0 to 20"):
            run(parser.parse_args(["--scenes", "1", "--sequences", "0", "--jitter", far]))
    assert run(parser.parse_args(["--scenes", "1", "--sequences", "0", "--jitter", "0"])) == 0
    assert "cold_image_jittered" not in json.loads(capsys.readouterr().out)
    # --failures lists every wrong tile: an estimator that lifts the first tile of each scene
    # by one layer (image cues only) makes exactly one per scene
    real = layerbench.estimate_layers

    def lifted(frame_bgr, tiles, geometry=None, *args, **kw):
        est = real(frame_bgr, tiles, geometry, *args, **kw)
        if geometry is None:
            est[0] = dataclasses.replace(est[0], layer=est[0].layer + 1)
        return est

    monkeypatch.setattr(layerbench, "estimate_layers", lifted)
    assert run(parser.parse_args(["--scenes", "2", "--sequences", "0", "--seed", "1000112",
                                  "--failures"])) == 0
    out = json.loads(capsys.readouterr().out)
    wrong = out["cold_image"]["tiles"] - out["cold_image"]["right"]
    assert len(out["cold_image_failures"]) == wrong >= 2
    firsts = [f for f in out["cold_image_failures"] if f["tile"] == 0]
    assert [f["seed"] for f in firsts] == [1000112, 1000113]
    assert all(f["estimate"] == f["truth"] + 1 and f["cue"] in CUES for f in firsts)
    # ... and, with the default 1 px jitter, the tiles the jittered estimate got wrong
    noisy_wrong = out["cold_image_jittered"]["tiles"] - out["cold_image_jittered"]["right"]
    assert len(out["cold_image_jittered_failures"]) == noisy_wrong >= 2
    assert sum(out["cold_image_jittered_failure_cues"].values()) == noisy_wrong
    assert set(out["cold_image_jittered_failure_cues"]) <= set(CUES)


# --- the reader gives every tile its layer ------------------------------------------------------

def test_layered_tile_reading_carries_confidence_cue_and_supports() -> None:
    q = _rect(100, 100, 80, 40, 0)
    base = TileReading(tile=Tile.of(1, 2), halves=(1, 2), corners=tuple(map(tuple, q)),
                       center=tuple(q.mean(0)), angle=0.0, confidence=0.9)
    t = LayeredTileReading.of(base, LayerEstimate(2, 0.8, "occlusion", (0, 3)))
    assert isinstance(t, TileReading)
    assert (t.layer, t.layer_confidence, t.layer_cue, t.supports) == (2, 0.8, "occlusion", (0, 3))
    assert t.tile == base.tile and t.corners == base.corners
    js = t.to_json()
    assert (js["layer"], js["layer_confidence"], js["layer_cue"], js["supports"]) == (
        2, 0.8, "occlusion", [0, 3])
    with pytest.raises(LayerInputError, match="layer_cue"):
        dataclasses.replace(t, layer_cue="guess")
    with pytest.raises(LayerInputError, match="layer_confidence"):
        dataclasses.replace(t, layer_confidence=1.5)


def test_reader_gives_every_tile_a_layer_with_confidence_and_cue() -> None:
    import reader_synth as synth

    from vision.pips import PipReader
    from vision.read import Reader

    img = synth.table(640, 400, seed=11)
    synth.draw_tile(img, (150, 150), 0, 34, (2, 6))
    synth.draw_tile(img, (400, 220), 60, 34, (5, 1))
    reader = Reader(PipReader(classifier=None))
    r = reader.read(img)
    assert len(r.read_tiles) == 2
    for t in r.tiles:
        assert isinstance(t, LayeredTileReading)
        assert t.layer == 0 and t.layer_cue == "table" and t.layer_confidence >= 0.75
    assert "layers" in r.timings_ms
    assert r.to_json()["tiles"][0]["layer_cue"] == "table"
    with pytest.raises(LayerInputError, match="geometry"):
        reader.read(img, geometry="calibrated")  # type: ignore[arg-type]


def test_reader_layers_on_a_rendered_stack_follow_the_estimator() -> None:
    """The reader's layers are the estimator's on the reader's own quads (outlines taken to be
    READER_OUTLINE_PX off), with the camera given to it the calibrated ones."""
    from vision.layers import READER_OUTLINE_PX
    from vision.read import Reader

    scene = render_scene(stacked_scene_spec(17, size=(960, 540), tilt_range=(10, 25)))
    geom = Geometry.from_truth(scene.truth)
    reader = Reader()
    r = reader.read(scene.image_bgr, scene.truth["set_max"])
    assert r.tiles, "the reader should find tiles in a stacked scene"
    want = estimate_layers(scene.image_bgr, list(r.tiles), outline_px=READER_OUTLINE_PX)
    assert [t.layer for t in r.tiles] == [e.layer for e in want]
    assert [t.layer_cue for t in r.tiles] == [e.cue for e in want]
    rg = reader.read(scene.image_bgr, scene.truth["set_max"], geometry=geom)
    want_g = estimate_layers(scene.image_bgr, list(rg.tiles), geom, outline_px=READER_OUTLINE_PX)
    assert [t.layer for t in rg.tiles] == [e.layer for e in want_g]


def test_layerlive_measures_the_readers_layers_and_refuses_training_seeds() -> None:
    from vision.render import layerlive
    from vision.render.errors import RenderSpecError

    out = layerlive.evaluate(1, layerlive.DEFAULT_SEED, 0)
    cold = out["cold"]
    assert cold["must_report"] > 0 and 0 <= cold["found"] <= cold["must_report"]
    assert 0 <= cold["image_right"] <= cold["found"]
    assert 0.0 <= cold["image_accuracy_on_found"] <= 1.0
    assert "watched" not in out
    with pytest.raises(RenderSpecError, match="training seed"):
        layerlive.evaluate(1, 5, 0)
