"""Where tiles stay where they are laid (companion.tracking.diff with ``fixed`` and the memory):
a tile laid over part of a known tile changes part of its picture, and the reader may then read
the known tile with the new tile's pips. Such a reading is the known tile read again, not a tile
laid on it, and not a known tile of that value moved; an unsure value found where nothing was
laid is left out. A tile laid exactly on a known one (its matching half directly above the
matching half, as Stackernoes lays them) changes only that tile's place, and may change it
little: it is a tile laid on it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from live_helpers import tile_at

from companion.tiles import Tile
from companion.tracking import (
    AROUND_GAP,
    EXACT_MIN_CHANGED,
    LAID_MIN_CHANGED,
    LATE_MIN_CONFIDENCE,
    Seen,
    around,
    changed_fractions,
    diff,
    half_outlines,
)


def changed_where(*boxes: tuple[int, int, int, int]):
    """``changed`` from a mask (300 x 200 pixels) that changed inside the boxes (x0, y0, x1,
    y1) only, as a tile laid there changes the picture."""
    mask = np.zeros((200, 300), bool)
    for x0, y0, x1, y1 in boxes:
        mask[y0:y1, x0:x1] = True
    return changed_fractions(SimpleNamespace(mask=mask, scale=1.0))


def as_value(s: Seen, a: int, b: int, conf: float = 0.99) -> Seen:
    """``s``'s outline read as (a, b)."""
    return Seen(Tile.of(a, b), (a, b), s.corners, conf)


def shown(table: list[Seen]) -> list[tuple[Tile, int]]:
    return sorted(((s.tile, s.layer) for s in table if not s.hidden), key=str)


def test_half_outlines_split_a_tile_at_its_middle_across_its_length() -> None:
    s = tile_at(1, 2, 100, 100)  # horizontal: 80..120 by 90..110, half 1 on the left
    left, right = half_outlines(s)
    assert np.allclose(left.center, (90, 100)) and np.allclose(right.center, (110, 100))
    assert left.tile == right.tile == Tile.of(1, 2)
    frac = changed_where((100, 90, 120, 110))
    # (the rasterised outlines share the middle column of pixels)
    assert frac(left) < 0.05 and frac(right) > 0.85 and abs(frac(s) - 0.5) < 0.05


def test_a_bridge_not_found_whose_support_is_read_as_another_value_is_inferred_over_both() -> None:
    a = tile_at(1, 2, 100, 100)  # 80..120
    b = tile_at(3, 4, 150, 100)  # 130..170: end to end, a 10 px gap
    far = tile_at(5, 5, 100, 160)
    table = diff([], [a, b, far]).table
    # a tile laid across the gap (105..145) covers a's right half and b's left half; the
    # reader misses it and reads a, with its outline, as 1-6
    bridge = changed_where((105, 90, 145, 110))
    ch = diff(table, [as_value(a, 1, 6), b, far], changed=bridge, fixed=True)
    assert ch.added == [] and ch.covered == [] and ch.removed == [] and ch.unread == []
    assert shown(ch.table) == sorted([(Tile.of(1, 2), 0), (Tile.of(3, 4), 0),
                                      (Tile.of(5, 5), 0)], key=str)
    inferred = [s for s in ch.table if s.inferred]
    assert len(inferred) == 1 and inferred[0].layer == 1  # the bridge, on a and b
    # the next tile, laid on the bridge, lies above it (layer 2, one tile under it inferred)
    top = tile_at(0, 6, 125, 100)
    on = diff(ch.table, [a, b, far, top], changed=changed_where((105, 90, 145, 110)),
              fixed=True)
    assert [(s.tile, s.layer, s.inferred_under) for s in on.added] == [(Tile.of(0, 6), 2, 1)]
    # where all of a changed (a tile laid along it), the other value is a tile laid on it
    along = diff(table, [as_value(a, 1, 6), b, far], changed=changed_where((80, 90, 120, 110)),
                 fixed=True)
    assert [(s.tile, s.layer) for s in along.added] == [(Tile.of(1, 6), 1)]
    assert [(o.tile, s.tile) for o, s in along.covered] == [(Tile.of(1, 2), Tile.of(1, 6))]


def test_a_known_value_read_over_half_its_place_changed_stays_and_is_not_laid_on_itself() -> None:
    a = tile_at(1, 2, 100, 100)
    b = tile_at(3, 4, 150, 100)
    table = diff([], [a, b]).table
    # a tile laid across a's right half and b's left half, not found: a read as itself stays
    ch = diff(table, [a, b], changed=changed_where((105, 90, 145, 110)), fixed=True)
    assert ch.added == [] and shown(ch.table) == sorted([(Tile.of(1, 2), 0),
                                                         (Tile.of(3, 4), 0)], key=str)
    # all of its place changed: the same value read there is a tile laid on it (as before)
    whole = diff(table, [a, b], changed=changed_where((80, 90, 120, 110)), fixed=True)
    assert [(s.tile, s.layer) for s in whole.added] == [(Tile.of(1, 2), 1)]


def test_another_value_over_a_tile_partly_covered_by_a_tile_found_is_that_tile_read_again() -> None:
    a = tile_at(1, 2, 100, 100)  # 80..120 by 90..110
    far = tile_at(5, 5, 200, 160)
    table = diff([], [a, far]).table
    # a tile laid crosswise over a's middle (90..110 by 80..120) changes half of each half of
    # a; the reader finds it, and reads a as 1-6: its change is the crosswise tile's
    cross = tile_at(0, 3, 100, 100, vertical=True)
    changed = changed_where((90, 80, 110, 120))
    ch = diff(table, [as_value(a, 1, 6), cross, far], changed=changed, fixed=True)
    assert [(s.tile, s.layer) for s in ch.added] == [(Tile.of(0, 3), 1)]
    assert Tile.of(1, 6) not in [s.tile for s in ch.table]
    assert (Tile.of(1, 2), 0) in shown(ch.table)
    # without the crosswise tile found, 1-6 is a tile laid on a (its change is unexplained)
    alone = diff(table, [as_value(a, 1, 6), far], changed=changed, fixed=True)
    assert [(s.tile, s.layer) for s in alone.added] == [(Tile.of(1, 6), 1)]


def test_a_known_value_read_over_another_known_tile_not_found_is_that_tile_not_a_move() -> None:
    a = tile_at(0, 3, 100, 100, vertical=True)  # 90..110 by 80..120
    b = tile_at(3, 5, 130, 100, vertical=True)  # 120..140: side by side, a 10 px gap
    far = tile_at(6, 6, 250, 40)
    table = diff([], [a, b, far]).table
    # a tile laid across both (found), a not found, b read as 0-3 with its own outline
    span = tile_at(1, 6, 115, 100)
    changed = changed_where((95, 90, 135, 110))
    ch = diff(table, [span, as_value(b, 0, 3), far], changed=changed, fixed=True)
    assert ch.moved == []
    assert [(s.tile, s.layer) for s in ch.added] == [(Tile.of(1, 6), 1)]
    at_b = [s for s in ch.table if not s.hidden and np.allclose(s.center, b.center)]
    assert [s.tile for s in at_b] == [Tile.of(3, 5)]
    # in a game that moves tiles the same reading is 0-3 moved (the rule is the game's)
    moved = diff(table, [span, as_value(b, 0, 3), far], changed=changed)
    assert [(o.tile, s.tile) for o, s in moved.moved] == [(Tile.of(0, 3), Tile.of(0, 3))]
    assert np.allclose(moved.moved[0][0].center, a.center)


def test_an_unsure_value_found_where_nothing_was_laid_is_left_out() -> None:
    a = tile_at(1, 2, 100, 100)
    table = diff([], [a]).table
    nothing = changed_where()
    assert LATE_MIN_CONFIDENCE > 0.5
    unsure = tile_at(4, 4, 200, 100, conf=0.5)
    ch = diff(table, [a, unsure], changed=nothing, fixed=True)
    assert ch.empty and [s.tile for s in ch.table] == [Tile.of(1, 2)]
    # read surely, it is a tile found late (kept as before); and a game that moves tiles
    # keeps the unsure one too
    sure = tile_at(4, 4, 200, 100, conf=0.95)
    assert [s.tile for s in diff(table, [a, sure], changed=nothing, fixed=True).added] \
        == [Tile.of(4, 4)]
    assert [s.tile for s in diff(table, [a, unsure], changed=nothing).added] == [Tile.of(4, 4)]


def test_around_lies_beyond_the_ends_and_beside_each_half() -> None:
    s = tile_at(1, 2, 100, 100)  # 80..120 by 90..110: halves 20 long, 20 wide
    off = 20 * (1 + AROUND_GAP)
    centres = sorted(tuple(np.round(q.center, 6)) for q in around(s))
    assert centres == sorted([(90 - off, 100), (110 + off, 100), (90, 100 - off),
                              (90, 100 + off), (110, 100 - off), (110, 100 + off)])
    assert all(q.tile == s.tile and abs(q.width - 20) < 1e-9 for q in around(s))
    # none of them overlaps the tile
    frac = changed_where((80, 90, 120, 110))
    assert all(frac(q) == 0.0 for q in around(s))


def test_a_tile_laid_exactly_on_a_known_one_with_its_matching_half_unchanged_lies_on_it() -> None:
    a = tile_at(1, 2, 100, 100)  # 80..120 by 90..110, 1 on the left
    far = tile_at(5, 5, 200, 160)
    table = diff([], [a, far]).table
    # 1-6 laid exactly on a, its 1 over a's 1: only the right half changed (2 -> 6), nothing
    # around a did
    right = changed_where((100, 90, 120, 110))
    ch = diff(table, [as_value(a, 1, 6), far], changed=right, fixed=True)
    assert [(s.tile, s.layer) for s in ch.added] == [(Tile.of(1, 6), 1)]
    assert [(o.tile, s.tile) for o, s in ch.covered] == [(Tile.of(1, 2), Tile.of(1, 6))]
    # the same change, with a tile (not found) laid on beyond a's right end as well: one tile
    # laid across a's right half and beyond it; 1-6 is a read again (as without the rule)
    across = changed_where((100, 90, 145, 110))
    again = diff(table, [as_value(a, 1, 6), far], changed=across, fixed=True)
    assert again.added == [] and (Tile.of(1, 2), 0) in shown(again.table)


def test_a_tile_laid_exactly_on_a_known_one_changing_its_picture_little_lies_on_it() -> None:
    a = tile_at(1, 1, 100, 100)
    far = tile_at(5, 5, 200, 160)
    table = diff([], [a, far]).table
    # 0-1 laid exactly on the 1-1: one pip gone and the edges shifted, 15 % of its outline
    pip = changed_where((84, 92, 94, 100), (80, 90, 120, 92))
    part = pip(a)
    assert EXACT_MIN_CHANGED < part < LAID_MIN_CHANGED
    ch = diff(table, [as_value(a, 0, 1), far], changed=pip, fixed=True)
    assert [(s.tile, s.layer) for s in ch.added] == [(Tile.of(0, 1), 1)]
    assert [o.tile for o, _ in ch.covered] == [Tile.of(1, 1)]
    # a tile laid beside it that changed the picture around it too: the 0-1 read there is
    # the 1-1 read again
    beside = changed_where((84, 92, 94, 100), (80, 90, 120, 92), (80, 60, 120, 88))
    assert diff(table, [as_value(a, 0, 1), far], changed=beside, fixed=True).added == []
    # where its outline hardly changed, another value read there is a misreading
    little = changed_where((84, 92, 90, 98))
    assert little(a) <= EXACT_MIN_CHANGED
    assert diff(table, [as_value(a, 0, 1), far], changed=little, fixed=True).added == []
