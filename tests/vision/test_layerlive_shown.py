"""``python -m vision.render.layerlive``'s count of the watched tiles the table shows that are not
there (:func:`vision.render.layerlive.shown_not_there`)."""

from __future__ import annotations

from companion.tiles import Tile
from companion.tracking import Seen
from vision.render.layerlive import shown_not_there


def _box(cx: float, cy: float) -> list[list[float]]:
    return [[cx - 20, cy - 10], [cx - 20, cy + 10], [cx + 20, cy + 10], [cx + 20, cy - 10]]


def _seen(a: int, b: int, cx: float, cy: float) -> Seen:
    return Seen(Tile.of(a, b), (a, b), tuple((x, y) for x, y in _box(cx, cy)))


def test_tiles_shown_where_no_tile_is_or_with_a_value_not_there_are_counted() -> None:
    truth = [{"halves": [2, 1], "corners": _box(100, 100)},  # covered by the 3-3 over it
             {"halves": [3, 3], "corners": _box(102, 101)},
             {"halves": [5, 4], "corners": _box(200, 100)}]
    right = [_seen(1, 2, 100, 100), _seen(3, 3, 101, 100), _seen(4, 5, 201, 100)]
    assert shown_not_there(right, truth) == (0, 0)
    misread = _seen(6, 6, 200, 100)  # over the 4-5: a value no truth tile there has
    nowhere = _seen(4, 5, 300, 100)  # the 4-5's value, where no tile is
    assert shown_not_there(right + [misread, nowhere], truth) == (1, 1)
    assert shown_not_there([], truth) == (0, 0)
