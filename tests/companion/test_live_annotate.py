"""The picture the dashboard shows: the live loop's status line and the tiles' values stay
legible on a tablet, and the tiles drawn after a crop of the frame was read."""

from __future__ import annotations

import numpy as np
import pytest

from companion.live import _merged, annotate
from companion.tiles import Tile
from vision.types import Reading, TileReading


def _text_box(img: np.ndarray, background: int) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero((img != background).any(axis=2))
    return int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())


@pytest.mark.parametrize("width, height", [(1280, 720), (1920, 1080), (640, 480)])
def test_the_status_line_grows_with_the_frame(width: int, height: int) -> None:
    """On a 1280-px frame the letters are over 30 px tall, so about 10 px or more where the
    tablet shows the picture 430 px wide; they stay inside the frame."""
    frame = np.full((height, width, 3), 120, np.uint8)
    out = annotate(frame, None, "something is moving over the table")
    y0, y1, x0, x1 = _text_box(out, 120)
    assert (y1 - y0) * 430 / width >= 9.5
    assert x1 < width - 1 and y1 < height // 4
    assert np.array_equal(frame, np.full((height, width, 3), 120, np.uint8))  # not drawn on


def test_a_long_status_line_is_made_smaller_to_fit() -> None:
    frame = np.full((720, 1280, 3), 120, np.uint8)
    out = annotate(frame, None, "the camera stopped sending pictures; trying it again " * 2)
    _, _, x0, x1 = _text_box(out, 120)
    assert x0 > 0 and x1 < 1279


def test_no_message_draws_nothing() -> None:
    frame = np.full((240, 320, 3), 120, np.uint8)
    assert np.array_equal(annotate(frame, None, ""), frame)


def _chip(img: np.ndarray) -> tuple[int, int, int, int]:
    """The box of the label's dark chip (the frame is mid grey, the outline green)."""
    ys, xs = np.nonzero((img == 32).all(axis=2))
    return int(ys.min()), int(ys.max()), int(xs.min()), int(xs.max())


@pytest.mark.parametrize("short", [30, 45, 90])
def test_a_tiles_value_is_drawn_centred_on_it_and_sized_to_it(short: int) -> None:
    """The label sits on the tile's centre, its chip over a third of the tile's short side
    tall (the old fixed 0.5-scale label was about 10 px on any tile); an unsure tile's label
    adds its confidence."""
    frame = np.full((720, 1280, 3), 120, np.uint8)
    tile = _tile(600, 300, 600 + 2 * short, 300 + short, "3-5")
    y0, y1, x0, x1 = _chip(annotate(frame, Reading((tile,), 1280, 720)))
    assert abs((y0 + y1) / 2 - (300 + short / 2)) <= 3 and abs((x0 + x1) / 2 - (600 + short)) <= 3
    assert y1 - y0 >= short / 3 and y1 - y0 <= short
    unsure = TileReading(tile.tile, tile.halves, tile.corners, tile.center, 0.0, confidence=0.72)
    wide = _chip(annotate(frame, Reading((unsure,), 1280, 720)))
    assert wide[3] - wide[2] > 1.5 * (x1 - x0)


# ---- what the video shows after a crop of the frame was read ---------------------------------



def _tile(x0: float, y0: float, x1: float, y1: float, value: str | None) -> TileReading:
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    if value is None:
        return TileReading(None, None, corners, centre, 0.0, cut=True)
    t = Tile.parse(value)
    return TileReading(t, (t.low, t.high), corners, centre, 0.0, confidence=0.99)


def test_a_tile_the_crop_cut_inside_the_frame_is_not_drawn_as_cut() -> None:
    """A crop (400-800 x 200-500 of a 1280x720 frame) cuts a whole tile at its left edge: the
    video keeps the earlier reading's whole tile there, not a red cut box."""
    earlier = Reading((_tile(350, 300, 450, 350, "2-5"), _tile(900, 300, 1000, 350, "1-1")),
                      1280, 720)
    crop = Reading((_tile(400, 300, 450, 350, None), _tile(600, 300, 700, 350, "3-4")), 400, 300)
    shown = _merged(earlier, crop, (400, 200, 800, 500), (1280, 720))
    assert sorted(str(t.tile) for t in shown.tiles) == ["1-1", "2-5", "3-4"]
    assert not any(t.cut for t in shown.tiles)


def test_a_tile_the_frame_cut_stays_cut_and_replaces_the_earlier_one() -> None:
    """A crop at the frame's left edge: the tile running out of the frame is shown cut (the
    earlier tile whose centre is in the crop is replaced by what the crop read)."""
    earlier = Reading((_tile(0, 300, 60, 350, "2-5"),), 1280, 720)
    crop = Reading((_tile(0, 300, 60, 350, None),), 300, 300)
    shown = _merged(earlier, crop, (0, 200, 300, 500), (1280, 720))
    assert len(shown.tiles) == 1 and shown.tiles[0].cut


def test_a_crop_with_nothing_earlier_drops_only_the_tiles_it_cut() -> None:
    crop = Reading((_tile(400, 300, 450, 350, None), _tile(600, 300, 700, 350, "3-4")), 400, 300)
    shown = _merged(None, crop, (400, 200, 800, 500), (1280, 720))
    assert [str(t.tile) for t in shown.tiles] == ["3-4"]
