"""The tile finder's passes over small pictures (close-ups): a small picture taken for a table
keeps the close-up pass's sure tiles when the table-size pass finds none
(vision.tile_finder.TABLE_KEEPS_SURE), and a close-up in which no sure tile is found is worked
again at the retry sides (vision.tile_finder.RETRY_SIDES)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.tile_finder as tf

SIDE = 400  # the reader enlarges a 100 px phone close-up to 400 px


def _kernels(size: int, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
    """A kernel map at half the working size ``size`` with sure kernels in ``boxes`` (y0, y1,
    x0, x1)."""
    k = np.zeros((size // 2, size // 2), np.float32)
    for y0, y1, x0, x1 in boxes:
        k[y0:y1, x0:x1] = 0.95
    return k


def _fake(finder: tf.TileFinder, monkeypatch: pytest.MonkeyPatch,
          by_side: dict[int, np.ndarray]) -> list[int]:
    """Make ``finder.maps`` give ``by_side[working side]`` (and nothing at other sides); the
    working sides asked for are recorded in the returned list."""
    asked: list[int] = []

    def fake_maps(frame_bgr: np.ndarray, side: int | None = None) -> tuple[np.ndarray, float]:
        work = tf.CLOSE_UP_SIDE if side is None else side
        asked.append(work)
        k = by_side.get(work, np.zeros((work // 2, work // 2), np.float32))
        return np.stack([k, k]), work / SIDE

    monkeypatch.setattr(finder, "maps", fake_maps)
    return asked


def test_small_tiles_of_a_close_up_stay_when_the_table_pass_finds_none(monkeypatch) -> None:
    """Two small tiles (about 35 px wide, under CLOSE_UP_MIN_WIDTH of the 400 px side) make the
    finder try the table size; it finds nothing there, so the close-up's tiles stay."""
    finder = tf.shared_finder()
    two = _kernels(tf.CLOSE_UP_SIDE, [(20, 30, 20, 25), (50, 60, 60, 65)])
    asked = _fake(finder, monkeypatch, {tf.CLOSE_UP_SIDE: two})
    found, _, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert asked == [tf.CLOSE_UP_SIDE, tf.WORK_SIDE]
    assert len(found) == 2 and s == tf.CLOSE_UP_SIDE / SIDE
    assert all(tf._sides_of(t.corners)[0] < tf.CLOSE_UP_MIN_WIDTH * SIDE for t in found)
    monkeypatch.setattr(tf, "TABLE_KEEPS_SURE", False)  # as before: the table pass is taken
    found, _, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert found == [] and s == tf.WORK_SIDE / SIDE


def test_a_small_picture_of_a_table_is_still_read_at_the_table_size(monkeypatch) -> None:
    finder = tf.shared_finder()
    two = _kernels(tf.CLOSE_UP_SIDE, [(20, 30, 20, 25), (50, 60, 60, 65)])
    table = _kernels(tf.WORK_SIDE, [(20, 40, 20, 30), (100, 120, 60, 70), (200, 220, 200, 210)])
    _fake(finder, monkeypatch, {tf.CLOSE_UP_SIDE: two, tf.WORK_SIDE: table})
    found, _, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert len(found) == 3 and s == tf.WORK_SIDE / SIDE


def test_a_close_up_with_no_sure_tile_is_worked_again_at_the_retry_sides(monkeypatch) -> None:
    finder = tf.shared_finder()
    monkeypatch.setattr(tf, "RETRY_SIDES", (128, 256))
    one = _kernels(128, [(16, 40, 20, 30)])  # kernel score 0.92: sure (RETRY_SCORE)
    asked = _fake(finder, monkeypatch, {128: one})
    found, maps, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert asked == [tf.CLOSE_UP_SIDE, 128]  # the first side that finds a sure tile is taken
    assert len(found) == 1 and found[0].score >= tf.RETRY_SCORE
    assert s == 128 / SIDE and maps.shape[1:] == (64, 64)  # the maps are that pass's
    monkeypatch.setattr(tf, "RETRY_SIDES", ())
    found, _, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert found == [] and s == tf.CLOSE_UP_SIDE / SIDE


def test_a_close_up_whose_tile_is_only_fairly_sure_is_worked_again(monkeypatch) -> None:
    """A kernel of 0.85 at the close-up side is sure enough for the detector's least score but
    not for the retry (RETRY_SCORE): the picture is worked again, and the pass at 256 px, whose
    kernel is surer, is taken; with the bar at the detector's least score it is worked once."""
    finder = tf.shared_finder()
    monkeypatch.setattr(tf, "RETRY_SIDES", (128, 256))
    fair = _kernels(tf.CLOSE_UP_SIDE, [(30, 50, 30, 40)]) * (0.85 / 0.95)
    sure = _kernels(256, [(40, 66, 40, 53)])
    asked = _fake(finder, monkeypatch, {tf.CLOSE_UP_SIDE: fair, 256: sure})
    found, _, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert asked == [tf.CLOSE_UP_SIDE, 128, 256]
    assert len(found) == 1 and found[0].score >= tf.RETRY_SCORE and s == 256 / SIDE
    monkeypatch.setattr(tf, "RETRY_SCORE", tf.ZOOM_SCORE)
    asked.clear()
    found, _, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert asked == [tf.CLOSE_UP_SIDE] and len(found) == 1
    assert tf.ZOOM_SCORE <= found[0].score < 0.9 and s == tf.CLOSE_UP_SIDE / SIDE


def test_a_close_up_with_a_sure_tile_is_worked_once(monkeypatch) -> None:
    finder = tf.shared_finder()
    monkeypatch.setattr(tf, "RETRY_SIDES", (128,))
    one = _kernels(tf.CLOSE_UP_SIDE, [(30, 50, 30, 40)])
    asked = _fake(finder, monkeypatch, {tf.CLOSE_UP_SIDE: one, 128: _kernels(128, [
        (5, 15, 5, 10), (40, 50, 40, 45)])})
    found, _, s = finder.find_with_maps(np.zeros((SIDE, SIDE, 3), np.uint8))
    assert asked == [tf.CLOSE_UP_SIDE] and len(found) == 1 and s == tf.CLOSE_UP_SIDE / SIDE


def test_a_frame_of_a_table_is_never_retried(monkeypatch) -> None:
    """The retry is for small pictures only: a 1280x720 frame with nothing found is worked once."""
    finder = tf.shared_finder()
    monkeypatch.setattr(tf, "RETRY_SIDES", (128,))
    asked: list[int | None] = []

    def fake_maps(frame_bgr: np.ndarray, side: int | None = None) -> tuple[np.ndarray, float]:
        asked.append(side)
        return np.zeros((2, 180, 320), np.float32), 0.5

    monkeypatch.setattr(finder, "maps", fake_maps)
    found, _, _ = finder.find_with_maps(np.zeros((720, 1280, 3), np.uint8))
    assert found == [] and asked == [None]


# ----------------------------------------------------------------------------- two networks


def test_the_shipped_finder_sees_close_ups_with_the_close_up_network() -> None:
    finder = tf.TileFinder()
    assert finder.path == tf.default_model_path()
    assert finder.close_up_path == tf.default_close_up_model_path()
    one = tf.TileFinder(tf.default_model_path(), close_up_path=tf.default_model_path())
    small = np.random.default_rng(5).integers(0, 256, (300, 400, 3), dtype=np.uint8)
    small[100:160, 150:190] = 235  # a pale block
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[300:360, 600:640] = 235
    near, s = finder.maps(small)
    near_one, s_one = one.maps(small)
    assert s == s_one == tf.CLOSE_UP_SIDE / 400
    assert not np.allclose(near, near_one, atol=1e-4)  # another network for close-ups ...
    table, _ = finder.maps(small, tf.WORK_SIDE)
    table_one, _ = one.maps(small, tf.WORK_SIDE)
    assert np.array_equal(table, table_one)  # ... but not for a small picture at the table size
    assert np.array_equal(finder.maps(frame)[0], one.maps(frame)[0])  # nor for table frames


def test_a_tried_model_sees_every_picture(tmp_path) -> None:
    """A finder made with another model file uses it for close-ups too (vision.tune --model)."""
    other = tmp_path / "other.onnx"
    other.write_bytes(tf.default_model_path().read_bytes())
    assert tf.TileFinder(other).close_up_path == other


def test_a_missing_close_up_model_is_named_when_a_close_up_comes(tmp_path) -> None:
    missing = tmp_path / "nowhere_closeup.onnx"
    finder = tf.TileFinder(close_up_path=missing)
    finder.maps(np.zeros((720, 1280, 3), np.uint8))  # table frames never need it
    with pytest.raises(tf.TileFinderMissingError) as err:
        finder.maps(np.zeros((300, 400, 3), np.uint8))
    assert str(missing) in str(err.value) and "tile_finder_closeup" in str(err.value)


@pytest.mark.parametrize("name", ["tile_finder", "tile_finder_closeup"])
def test_the_shipped_models_are_the_ones_their_cards_describe(name: str) -> None:
    import hashlib
    import json

    meta = json.loads((tf.MODEL_DIR / f"{name}.json").read_text())
    onnx = (tf.MODEL_DIR / f"{name}.onnx").read_bytes()
    assert meta["model"] == f"{name}.onnx"
    assert meta["sha256"] == hashlib.sha256(onnx).hexdigest()
    assert meta["bytes"] == len(onnx)
    assert meta["sha256"] in (tf.MODEL_DIR / f"{name}.md").read_text()
