"""What the reader leaves out and reads again after the pips (vision.read: ``blank``, ``drop``):
a small unsure outline, a blank-blank tile face down among tiles with dividers; the divider
measure (vision.outline.divider_strength); squares with the lighting taken out
(vision.halves.tile_crops_flattened)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.read as read_mod
from tests.vision.reader_synth import draw_tile, table, tile_corners
from vision.halves import tile_crops, tile_crops_flattened
from vision.outline import OutlineError, divider_strength, surround_contrast
from vision.pips import PipReader, TileValue


def _value(halves: tuple[int, int], confidence: float) -> TileValue:
    return TileValue(halves, confidence, (confidence, confidence), ())


def _face_down(canvas: np.ndarray, center: tuple[float, float], angle: float, width: float,
               face=(225, 240, 245)) -> np.ndarray:
    """A tile lying face down: its rim and a plain face, no divider, no pips."""
    corners = tile_corners(center, angle, width)
    cv2.fillConvexPoly(canvas, np.round(corners).astype(np.int32), tuple(int(v * 0.55) for v in face))
    inner = corners + (corners.mean(axis=0) - corners) * (2.0 / width)
    cv2.fillConvexPoly(canvas, np.round(inner).astype(np.int32), face)
    return corners


def test_a_drawn_divider_is_strong_and_a_plain_face_weak():
    canvas = table(640, 360)
    with_divider = draw_tile(canvas, (160, 180), 0.0, 60.0, (0, 0))
    plain = _face_down(canvas, (460, 180), 90.0, 60.0)
    strong, weak = divider_strength(canvas, [with_divider, plain])
    assert strong > 0.8, f"a drawn divider should measure about 1, got {strong:.2f}"
    assert weak < 0.3, f"a face without a divider should measure under 0.3, got {weak:.2f}"


def test_divider_strength_refuses_bad_input():
    with pytest.raises(OutlineError, match="outline 0: expected 4 finite"):
        divider_strength(table(64, 48), [np.zeros((3, 2))])
    with pytest.raises(OutlineError, match="frame_bgr"):
        divider_strength(np.zeros((10, 10), np.float32), [])
    assert divider_strength(table(64, 48), []).shape == (0,)


def test_a_small_unsure_outline_is_dropped_and_a_small_sure_one_kept():
    frame = table(640, 360)
    big = [tile_corners((100 + 120 * k, 100), 0.0, 50.0) for k in range(4)]
    small = tile_corners((300, 260), 0.0, 30.0)          # 0.36 of the others' area
    values = [_value((3, 4), 0.99)] * 4
    assert read_mod._plausible(frame, big + [small], values + [_value((1, 2), 0.6)]) == \
        [True] * 4 + [False]
    assert read_mod._plausible(frame, big + [small], values + [_value((1, 2), 0.95)]) == \
        [True] * 5
    # a tile as large as the others is kept however unsure
    assert read_mod._plausible(frame, big, values[:3] + [_value((1, 2), 0.2)]) == [True] * 4


def test_a_blank_blank_face_down_among_tiles_with_dividers_is_dropped():
    frame = table(900, 360)
    tiles = [draw_tile(frame, (100 + 150 * k, 120), 90.0, 50.0, (k + 1, k + 2)) for k in range(4)]
    real_blank = draw_tile(frame, (200, 270), 0.0, 50.0, (0, 0))
    face_down = _face_down(frame, (500, 270), 0.0, 50.0)
    values = [_value((k + 1, k + 2), 0.99) for k in range(4)] + [_value((0, 0), 0.99)] * 2
    keep = read_mod._plausible(frame, tiles + [real_blank, face_down], values)
    assert keep == [True] * 5 + [False]


def test_a_blank_blank_of_a_set_without_dividers_is_kept(monkeypatch):
    frame = table(900, 360)
    tiles = [_face_down(frame, (100 + 150 * k, 120), 90.0, 50.0) for k in range(4)]
    face_down_like = _face_down(frame, (500, 270), 0.0, 50.0)
    # the other tiles' faces show no divider either: the set has none, the 0-0 stays
    values = [_value((k + 1, k + 2), 0.99) for k in range(4)] + [_value((0, 0), 0.99)]
    assert read_mod._plausible(frame, tiles + [face_down_like], values) == [True] * 5


def _glinted_tile() -> tuple[np.ndarray, np.ndarray]:
    """A yellow tile with white pips, 2-5, a glint washing its first half out."""
    frame = table(400, 300)
    corners = draw_tile(frame, (200, 150), 0.0, 80.0, (2, 5), face=(60, 200, 250),
                        ink=(235, 245, 250))
    ys, xs = np.mgrid[0:300, 0:400]
    glint = np.exp(-(((xs - 150.0) / 60) ** 2 + ((ys - 150.0) / 60) ** 2))[..., None]
    return np.clip(frame + glint * 180.0, 0, 255).astype(np.uint8), corners


def test_flattened_squares_show_pips_a_glint_washed_out():
    lit, corners = _glinted_tile()
    reader = PipReader()
    plain = reader.read_tiles(tile_crops(lit, [corners]), 9)[0]
    flat = reader.read_tiles(tile_crops_flattened(lit, [corners]), 9)[0]
    assert plain.halves == (0, 5), "the glint should wash the 2 out on the plain squares"
    assert flat.halves == (2, 5)


def test_the_reader_reads_a_blank_half_again_with_the_lighting_taken_out():
    lit, corners = _glinted_tile()
    reader = read_mod.Reader()
    again = reader.reread_blank(lit, [corners], [_value((0, 5), 0.6)], 9)
    assert again[0].halves == (2, 5)
    # a tile read without a blank half is not read again
    kept = _value((3, 5), 0.6)
    assert reader.reread_blank(lit, [corners], [kept], 9)[0] is kept


def test_flattened_squares_of_no_tiles_and_of_a_grey_frame():
    frame = table(200, 120)
    assert tile_crops_flattened(frame, []).shape == (0, 48, 48)
    corners = draw_tile(frame, (100, 60), 0.0, 40.0, (1, 3))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert tile_crops_flattened(grey, [corners]).shape == (2, 48, 48)


def _speckled(width: int, height: int, seed: int = 3) -> np.ndarray:
    """A dark stone table with pale grain (seeded)."""
    rng = np.random.default_rng(seed)
    frame = np.full((height, width, 3), (70, 75, 80), np.uint8)
    for _ in range(width * height // 120):
        x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
        cv2.circle(frame, (x, y), int(rng.integers(1, 3)), (125, 130, 135), -1)
    return frame


def test_surround_contrast_tells_a_tile_from_the_table_grain():
    frame = _speckled(640, 360)
    tile = draw_tile(frame, (160, 180), 0.0, 60.0, (3, 5))
    grain = tile_corners((460, 180), 90.0, 60.0)
    (on_table, in_grain), (tile_ink, grain_ink) = surround_contrast(frame, [tile, grain])
    assert on_table > 0.5, f"a tile on a dark table should stand out, got {on_table:.2f}"
    assert in_grain < read_mod.GRAIN_SURROUND, f"grain is its own surround, got {in_grain:.2f}"
    assert grain_ink <= read_mod.GRAIN_INK < tile_ink, (grain_ink, tile_ink)
    with pytest.raises(OutlineError, match="outline 0: expected 4 finite"):
        surround_contrast(frame, [np.zeros((2, 2))])
    contrast, ink = surround_contrast(frame, [])
    assert contrast.shape == ink.shape == (0,)


def test_table_grain_read_unsurely_with_unsharp_sides_is_dropped():
    frame = _speckled(900, 360)
    tiles = [draw_tile(frame, (100 + 150 * k, 100), 90.0, 50.0, (k + 1, k + 2)) for k in range(4)]
    grain = tile_corners((450, 260), 0.0, 50.0)
    values = [_value((k + 1, k + 2), 0.99) for k in range(4)]
    unsure = TileValue((3, 5), 0.3, (0.7, 0.6), ())
    one_half_sure = TileValue((3, 5), 0.3, (0.3, 0.999), ())
    sharp = [0.8] * 4
    assert read_mod._plausible(frame, tiles + [grain], values + [unsure], sharp + [0.2]) == \
        [True] * 4 + [False]
    # any one sign missing keeps it: sharp sides, a sure reading, one half read surely
    assert read_mod._plausible(frame, tiles + [grain], values + [unsure], sharp + [0.5])[-1]
    assert read_mod._plausible(frame, tiles + [grain], values + [_value((3, 5), 0.7)],
                               sharp + [0.2])[-1]
    assert read_mod._plausible(frame, tiles + [grain], values + [one_half_sure],
                               sharp + [0.2])[-1]
    # a tile of crisp pips lying in the grain is kept (its ink is far stronger than the grain's)
    crisp = draw_tile(frame, (750, 260), 0.0, 50.0, (3, 5), face=(80, 85, 90), ink=(250, 250, 250))
    assert read_mod._plausible(frame, tiles + [crisp], values + [unsure], sharp + [0.2])[-1]
    # a tile unlike the table around it is kept, however unsure and unsharp
    assert read_mod._plausible(frame, tiles + [grain], [unsure] + values[1:] + [unsure],
                               [0.2] + sharp[1:] + [0.2]) == [True] * 4 + [False]
    # nothing is said without the outlines' sharpness
    assert read_mod._plausible(frame, tiles + [grain], values + [unsure])[-1]
    with pytest.raises(ValueError, match="one sharpness per outline"):
        read_mod._plausible(frame, tiles + [grain], values + [unsure], sharp)


def test_a_blank_half_read_otherwise_half_by_half_leaves_the_tile_doubtful():
    """vision.read.HALF_BY_HALF_SURE: the pale 1 of a colour-per-value set vanishes on the
    tile's colour axis (read 0-5 surely); normalised on its own the half reads 1, surely, so
    the tile stays doubtful with both; with the rule off it is read 0-5 surely."""
    from tests.vision.test_halves import LEFT_TO_RIGHT, pale_pip_tile
    from vision.halves import tile_crops_washed
    frame = pale_pip_tile()
    reader = read_mod.Reader()
    crops, washed = tile_crops_washed(frame, [LEFT_TO_RIGHT])
    seen = reader.pips.read_tiles(crops, 9, washed=washed)
    assert seen[0].halves == (0, 5) and seen[0].confidence > 0.99
    again = reader.reread_blank(frame, [LEFT_TO_RIGHT], seen, 9, washed)
    assert {str(again[0].tile), *dict(again[0].alternatives)} >= {"1-5", "0-5"}
    assert again[0].confidence < 0.9
    old = read_mod.HALF_BY_HALF_SURE
    try:
        read_mod.HALF_BY_HALF_SURE = 1.5
        kept = reader.reread_blank(frame, [LEFT_TO_RIGHT], seen, 9, washed)
    finally:
        read_mod.HALF_BY_HALF_SURE = old
    assert str(kept[0].tile) == "0-5" and kept[0].confidence > 0.99
