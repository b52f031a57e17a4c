"""Tiles lying flat on the table stay on layer 0 with the reader's outlines (a few pixels off),
with and without the calibrated camera; the calibrated heights are searched in one batch."""

from __future__ import annotations

import numpy as np
import pytest
from layer_shapes import draw_tile as _draw_tile
from layer_shapes import rect as _rect

from vision import layers
from vision.layers import (
    READER_OUTLINE_PX,
    Geometry,
    estimate_layers,
    tile_height,
    tile_heights,
)
from vision.render import render_scene
from vision.render.sampling import random_scene_spec
from vision.render.stacking import stacked_scene_spec


def test_tile_heights_in_one_batch_equal_the_search_per_tile() -> None:
    scene = render_scene(stacked_scene_spec(203))
    geom = Geometry.from_truth(scene.truth)
    rng = np.random.default_rng(3)
    quads = [np.asarray(t["corners"], float) + rng.normal(0, 1.0, (4, 2))
             for t in scene.truth["tiles"] if t["visible"] > 0]
    z, err = tile_heights(quads, geom)
    for q, zi, ei in zip(quads, z, err):
        assert (zi, ei) == tile_height(q, geom)
    assert tile_heights([], geom)[0].shape == (0,)
    zs = np.arange(0.0, 7 * geom.tile_mm[2], 0.4)
    batch = geom.plane_homographies(zs)
    assert batch.shape == (len(zs), 3, 3)
    for z, h in zip(zs, batch):
        assert np.array_equal(h, geom.plane_homography(float(z)))


def test_tiles_touching_on_the_table_are_not_stacked_when_outlines_are_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tiles end to end whose outlines reach 3 px into each other (as the reader's do)
    both stay on the table; a tile lying across one of them is still above it."""
    frame = np.full((240, 400, 3), 60, np.uint8)
    left, right = _rect(130, 120, 120, 60, 0), _rect(250, 120, 120, 60, 0)
    _draw_tile(frame, left)
    _draw_tile(frame, right)
    grown = [_rect(133, 120, 126, 60, 0), _rect(247, 120, 126, 60, 0)]
    flat = estimate_layers(frame, grown, outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in flat] == [0, 0]
    # the same quads without the overlap's depth test: one of them is lifted
    monkeypatch.setattr(layers, "OVERLAP_MIN_DEPTH", 0.0)
    monkeypatch.setattr(layers, "OVERLAP_MIN_SHARE", 0.0)
    assert max(e.layer for e in estimate_layers(frame, grown,
                                                outline_px=READER_OUTLINE_PX)) == 1
    monkeypatch.undo()
    cross = _rect(130, 120, 120, 60, 90)
    _draw_tile(frame, cross)
    est = estimate_layers(frame, [left, right, cross], outline_px=READER_OUTLINE_PX)
    assert [e.layer for e in est] == [0, 0, 1]
    assert est[2].supports == (0,)


def test_the_reader_with_the_calibrated_pose_keeps_a_flat_scene_on_the_table() -> None:
    """A flat rendered scene (training seed 218, a chickenfoot layout of touching tiles) read
    by the reader with the scene's camera: every tile of the 23 on layer 0 (before: 7 lifted
    by parallax, 7 without the camera)."""
    from vision.read import Reader

    seed = 218
    layout = ("line", "spinner", "chickenfoot", "trains", "grid", "loose")[seed % 6]
    scene = render_scene(random_scene_spec(seed, layout=layout))
    geom = Geometry.from_truth(scene.truth)
    reading = Reader().read(scene.image_bgr, scene.truth["set_max"], geometry=geom)
    assert len(reading.tiles) >= 10
    assert [t.layer for t in reading.tiles] == [0] * len(reading.tiles)
    assert all(t.layer_cue == "table" for t in reading.tiles)


def test_layerlive_counts_the_flat_tiles_it_lifts_and_refuses_training_seeds() -> None:
    from vision.render import layerlive
    from vision.render.errors import RenderSpecError

    out = layerlive.evaluate(0, layerlive.DEFAULT_SEED, 0, flat=1)["flat"]
    for key in ("image", "geometry"):
        fig = out[key]
        assert fig["tiles"] >= 5
        assert 0 <= fig["table_tiles_lifted"] <= fig["lifted"] <= fig["tiles"]
        assert 0 < fig["table_tiles"] <= fig["tiles"]
        assert fig["table_tiles_lifted"] == 0  # seed 1,000,200: a line of touching tiles
    with pytest.raises(RenderSpecError, match="training seed"):
        layerlive.flat_lifted(1, seed=5)


def test_the_tile_whose_middle_lies_under_the_other_is_the_lower_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On a blank picture with two equal quads (no picture evidence, sizes equal to 1e-8) the
    crosswise tile covering the other's middle is put above it by that cue; without it
    nothing to speak of decides (strength about 0, confidence 0.5)."""
    frame = np.full((300, 300, 3), 128, np.uint8)
    lower = _rect(150, 120, 120, 60, 0)
    upper = _rect(150, 170, 120, 60, 90)  # covers the lower tile's middle, its own is clear
    assert layers._centre_under(upper, lower) == 1
    assert layers._centre_under(lower, upper) == -1
    assert layers._centre_under(lower, _rect(150, 120, 120, 60, 90)) == 0  # a square cross
    est = estimate_layers(frame, [lower, upper], outline_px=1.0)
    assert [e.layer for e in est] == [0, 1] and est[1].cue == "occlusion"
    assert est[1].confidence >= 0.6 and est[1].supports == (0,)
    swapped = estimate_layers(frame, [upper, lower], outline_px=1.0)
    assert [e.layer for e in swapped] == [1, 0] and swapped[0].confidence >= 0.6
    monkeypatch.setattr(layers, "CENTRE_VOTE", 0.0)
    for quads in ([lower, upper], [upper, lower]):
        assert max((e.confidence for e in estimate_layers(frame, quads, outline_px=1.0)
                    if e.layer > 0), default=0.5) < 0.51
