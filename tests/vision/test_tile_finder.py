"""The learned tile finder: the shipped ONNX model, its maps, its tiles, and clear errors."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.evaluate import _poly_iou
from vision.tile_finder import (CLOSE_UP_SIDE, KERNEL_SHRINK, WORK_SIDE, TileFinder,
                                TileFinderError, TileFinderMissingError, default_model_path,
                                shared_finder, tiles_from_kernel)


def test_shipped_model_loads_and_gives_maps_of_the_right_shape():
    finder = TileFinder()
    frame = np.full((720, 1280, 3), 90, np.uint8)
    maps, scale = finder.maps(frame)
    assert scale == pytest.approx(WORK_SIDE / 1280)
    assert maps.shape == (2, 180, 320)  # working size 640x360, maps at half of it
    assert maps.dtype == np.float32
    assert 0.0 <= float(maps.min()) and float(maps.max()) <= 1.0
    small = np.full((400, 300, 3), 90, np.uint8)  # a close-up: worked at CLOSE_UP_SIDE
    maps, scale = finder.maps(small)
    assert scale == pytest.approx(CLOSE_UP_SIDE / 400)
    assert maps.shape == (2, CLOSE_UP_SIDE // 2, math.ceil(round(300 * scale) / 2))


def test_a_blank_table_gives_no_tiles():
    rng = np.random.default_rng(0)
    frame = np.clip(rng.normal(110, 6, (360, 640, 3)), 0, 255).astype(np.uint8)
    assert shared_finder().find(frame) == []


def _should_read(truth: dict) -> list[np.ndarray]:
    return [np.asarray(t["corners"]) for t in truth["tiles"]
            if t["face_up"] and t["visible"] >= 0.9 and not t["cut"]]


def _held_out_scenes(count: int = 6):
    """The first ``count`` held-out double-six scenes from seed 1,700,000 (seeds no training or
    evaluation uses) with at least 5 tiles to read."""
    from vision.render import random_scene_spec, render_scene
    seed = 1_700_000
    while count:
        scene = render_scene(random_scene_spec(seed, held_out=True, set_max=6))
        seed += 1
        if len(_should_read(scene.truth)) >= 5:
            count -= 1
            yield scene


def test_finds_the_tiles_of_held_out_rendered_scenes():
    """At most one phantom per scene that the detector could keep (kernel score at least
    ``vision.detect.NET_LOW_SCORE``; weaker tiles are never kept), and at least 80 % of the tiles
    found. Measured: 5-epoch model 76 of 91 found; shipped 9-epoch model 80 of 91, with two
    phantoms at scores 0.64 and 0.67 on the checked-cloth scene 1700000 that the gate drops."""
    from vision.detect import NET_LOW_SCORE
    truth = matched = 0
    for scene in _held_out_scenes():
        truths = _should_read(scene.truth)
        found = [t for t in shared_finder().find(np.array(scene.image_bgr)) if not t.cut]
        truth += len(truths)
        matched += sum(1 for q in truths if any(_poly_iou(t.corners, q) >= 0.5 for t in found))
        faceup = [np.asarray(t["corners"]) for t in scene.truth["tiles"] if t["face_up"]]
        phantoms = [t for t in found if t.score >= NET_LOW_SCORE
                    and all(_poly_iou(t.corners, q) < 0.3 for q in faceup)]
        assert len(phantoms) <= 1
    assert truth >= 60
    assert matched / truth >= 0.8


def test_kernel_blob_grows_back_to_the_tile():
    # a tile 40 x 20 working px at 30 degrees, its kernel drawn at half the working size
    scale = 0.5  # working px per image px
    c, angle, length, width = np.array([150.0, 100.0]), math.radians(30), 40.0, 20.0
    ua = np.array([math.cos(angle), math.sin(angle)])
    ub = np.array([-ua[1], ua[0]])

    def quad(f: float) -> np.ndarray:
        hl, hw = f * length / 2, f * width / 2
        return np.array([c - hl * ua - hw * ub, c - hl * ua + hw * ub, c + hl * ua + hw * ub,
                         c + hl * ua - hw * ub])

    # the kernel at half of a 320x200 working picture: drawn 8 times finer, averaged down
    fine = np.zeros((800, 1280), np.float32)
    corners_fine = (quad(KERNEL_SHRINK) + 0.5) * 4 - 0.5  # working px -> 1/8 half px
    cv2.fillConvexPoly(fine, np.round(corners_fine * 16).astype(np.int32), 1.0, cv2.LINE_8, 4)
    kernel = cv2.resize(fine, (160, 100), interpolation=cv2.INTER_AREA)
    tiles = tiles_from_kernel(kernel, scale, 640, 400)
    assert len(tiles) == 1 and not tiles[0].cut
    truth = (quad(1.0) + 0.5) / scale - 0.5
    assert _poly_iou(tiles[0].corners, truth) > 0.85
    # the long axis runs from corners 0-1 to corners 2-3
    along = tiles[0].corners[2] - tiles[0].corners[1]
    assert np.linalg.norm(along) > 1.6 * np.linalg.norm(tiles[0].corners[1] - tiles[0].corners[0])


def test_a_kernel_at_the_border_is_a_cut_tile():
    kernel = np.zeros((100, 160), np.float32)
    kernel[40:52, 0:10] = 1.0  # runs into the left edge
    kernel[40:52, 80:104] = 1.0  # a whole tile in the middle
    tiles = sorted(tiles_from_kernel(kernel, 0.5, 640, 400), key=lambda t: t.corners[0, 0])
    assert [t.cut for t in tiles] == [True, False]


def test_missing_model_names_the_path_and_the_rebuild_command(tmp_path):
    missing = tmp_path / "nowhere.onnx"
    with pytest.raises(TileFinderMissingError) as err:
        TileFinder(missing)
    assert str(missing) in str(err.value)
    assert "models/train_tile_finder.py" in str(err.value)


def test_corrupt_model_names_the_path_and_the_rebuild_command(tmp_path):
    bad = tmp_path / "tile_finder.onnx"
    bad.write_bytes(b"not an onnx model at all")
    with pytest.raises(TileFinderError) as err:
        TileFinder(bad)
    assert str(bad) in str(err.value)
    assert "models/train_tile_finder.py" in str(err.value)


def test_bad_input_is_refused_clearly():
    with pytest.raises(TileFinderError, match="BGR uint8"):
        shared_finder().maps(np.zeros((10, 10), np.uint8))
    with pytest.raises(TileFinderError, match="threads"):
        TileFinder(default_model_path(), threads=0)


def test_the_shipped_networks_give_the_same_answers_at_one_thread_and_at_their_default():
    """The networks run at :data:`vision.onnx_session.INFERENCE_THREADS` threads for speed; the
    reading must not depend on it: the finder's maps of a rendered table and the layer cue's
    and the pip classifier's probabilities are the same at one thread (session 20: largest
    difference 0.0)."""
    from vision.classifier import PipClassifier
    from vision.layer_cue import CHANNELS, CROP, LayerCue
    from vision.onnx_session import INFERENCE_THREADS
    from vision.render import random_scene_spec, render_scene

    frame = render_scene(random_scene_spec(11)).image_bgr
    one, default = TileFinder(threads=1), TileFinder()
    assert default.threads == INFERENCE_THREADS
    np.testing.assert_allclose(one.maps(frame)[0], default.maps(frame)[0], atol=1e-5)
    rng = np.random.default_rng(3)
    crops = rng.normal(0.0, 0.3, (6, CHANNELS, CROP, CROP)).astype(np.float32)
    np.testing.assert_allclose(LayerCue(threads=1).predict(crops), LayerCue().predict(crops),
                               atol=1e-5)
    halves = rng.uniform(-0.5, 1.5, (20, 48, 48)).astype(np.float32)
    np.testing.assert_allclose(PipClassifier(threads=1).predict(halves),
                               PipClassifier().predict(halves), atol=1e-5)


@pytest.mark.parametrize("rescue", [True, False])
def test_a_kernel_marked_only_in_part_takes_the_outline_of_its_face(monkeypatch, rescue):
    """A tile 80 x 40 working px whose kernel the network marked only 28 px long (as square as
    a tile's kernel can never be): no split makes a tile of it; with FACE_RESCUE the face
    pixels nearest it, a whole 2:1 face, give the tile's outline."""
    import vision.tile_finder as tf
    monkeypatch.setattr(tf, "FACE_RESCUE", rescue)
    scale = 0.5
    kernel = np.zeros((100, 160), np.float32)   # half of a 320 x 200 working picture
    face = np.zeros((100, 160), np.float32)
    face[30:50, 60:100] = 1.0                    # working 120..200 x 60..100: 80 x 40
    kernel[34:46, 73:87] = 1.0                   # working 28 x 24: 0.35 of the length
    tiles = tf.tiles_from_maps(kernel, face, scale, 640, 400)
    if not rescue:
        assert tiles == []
        return
    assert len(tiles) == 1 and not tiles[0].cut and not tiles[0].split
    truth = np.array([[120.0, 60.0], [120.0, 100.0], [200.0, 100.0], [200.0, 60.0]])
    assert _poly_iou(tiles[0].corners, (truth + 0.5) / scale - 0.5) > 0.8
