"""The tracking's short memory (companion.tracking.diff with ``changed``): a reader that misses a
tile for a reading, or reads it with another outline or value, where the picture did not change,
does not make the table lose it; real removals and tiles laid still count."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pytest
from live_helpers import changed_at, laid_on, tile_at

from companion.tiles import Tile
from companion.tracking import (
    GONE_MAX,
    REPLACE_AFTER,
    REPLACE_MIN_CONFIDENCE,
    UNSEEN_MAX,
    Seen,
    changed_fractions,
    diff,
)


def test_a_tile_missed_for_one_reading_where_nothing_changed_is_kept_and_still_supports() -> None:
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    first = diff([], [low, side]).table
    # the reader misses 1-2 while 4-4 is laid far from it: kept, not removed
    far = tile_at(4, 4, 300, 100)
    missed = diff(first, [side, far], changed=changed_at((300, 100)))
    assert missed.removed == [] and [s.tile for s in missed.added] == [Tile.of(4, 4)]
    kept = {s.tile: s for s in missed.table}
    assert kept[Tile.of(1, 2)].unseen == 1 and not kept[Tile.of(1, 2)].hidden
    # the next tile is laid on it (still not found, covered now): one layer up, 1-2 covered
    top = laid_on(low, 3, 0)
    laid = diff(missed.table, [side, far, top], changed=changed_at((100, 100)))
    assert laid.added[0].tile == Tile.of(0, 3) and laid.added[0].layer == 1
    assert [(a.tile, b.tile) for a, b in laid.covered] == [(Tile.of(1, 2), Tile.of(0, 3))]
    assert laid.removed == []
    # without the memory the same readings lose 1-2, and 0-3 lands on the table
    lost = diff(diff(first, [side, far]).table, [side, far, top])
    assert lost.added[0].layer == 0


def test_a_tile_found_again_is_seen_and_one_missed_too_long_is_removed() -> None:
    a = tile_at(1, 2, 100, 100)
    b = tile_at(5, 5, 200, 100)
    table = diff([], [a, b]).table
    still = changed_at()  # nothing changed anywhere
    once = diff(table, [b], changed=still)
    back = diff(once.table, [a, b], changed=still)
    assert back.empty and {s.unseen for s in back.table} == {0}
    # missed in more readings in a row than the memory holds: removed
    for _ in range(UNSEEN_MAX):
        table = diff(table, [b], changed=still).table
    gone = diff(table, [b], changed=still)
    assert [s.tile for s in gone.removed] == [Tile.of(1, 2)]
    assert gone.removed[0].unseen == 0


def test_a_tile_taken_away_where_the_picture_changed_is_removed() -> None:
    a = tile_at(1, 2, 100, 100)
    b = tile_at(5, 5, 200, 100)
    table = diff([], [a, b]).table
    gone = diff(table, [b], changed=changed_at((100, 100)))
    assert gone.removed == [a] and gone.covered == []
    assert [s.tile for s in gone.table if not s.hidden] == [Tile.of(5, 5)]
    # remembered as where a tile went (hidden) for GONE_MAX readings, then forgotten without
    # a second removal
    assert [(s.tile, s.gone) for s in gone.table if s.hidden] == [(Tile.of(1, 2), True)]
    later = gone.table
    for _ in range(GONE_MAX - 1):
        step = diff(later, [b], changed=changed_at())
        assert step.empty and Tile.of(1, 2) in [s.tile for s in step.table if s.gone]
        later = step.table
    last = diff(later, [b], changed=changed_at())
    assert last.empty and [s.tile for s in last.table] == [Tile.of(5, 5)]
    # put back where it lay: added again, as without the memory (Castle Rock's row)
    back = diff(gone.table, [a, b], changed=changed_at((100, 100)))
    assert back.added == [a] and back.covered == [] and back.added[0].layer == 0
    # a whole stack taken away: the hidden tile goes with it, memory or not
    top = laid_on(a, 3, 4)
    stacked = diff(table, [b, top], changed=changed_at((100, 100))).table
    cleared = diff(stacked, [b], changed=changed_at((100, 100)))
    assert sorted(str(s.tile) for s in cleared.removed) == ["1-2", "3-4"]


def test_another_outline_where_nothing_changed_is_the_same_tile_not_a_move() -> None:
    a = dataclasses.replace(tile_at(1, 2, 100, 100), layer=2)
    table = diff([], [a]).table
    shifted = tile_at(1, 2, 112, 100)  # 0.6 widths along: a move without the memory
    assert [o.tile for o, _ in diff(table, [shifted]).moved] == [Tile.of(1, 2)]
    same = diff(table, [shifted], changed=changed_at())
    assert same.empty
    assert [(s.tile, s.layer, s.center.tolist()) for s in same.table] == [
        (Tile.of(1, 2), 2, [100.0, 100.0])]
    # its value read far away (another tile misread) is not a move either
    far = tile_at(1, 2, 300, 100)
    other = diff(table, [far], changed=changed_at((300, 100)))
    assert other.moved == [] and [s.center.tolist() for s in other.added] == [[300.0, 100.0]]
    assert [s.unseen for s in other.table if s.center[0] == 100.0] == [1]


def test_another_value_where_nothing_changed_is_the_known_tile_read_again() -> None:
    low = tile_at(3, 4, 100, 100)
    table = diff([], [low]).table
    misread = Seen(Tile.of(3, 5), (3, 5), low.corners, 0.7)
    again = diff(table, [misread], changed=changed_at())
    assert again.empty and [s.tile for s in again.table] == [Tile.of(3, 4)]
    # where the picture changed it is a tile laid on it
    laid = diff(table, [misread], changed=changed_at((100, 100)))
    assert laid.added[0].layer == 1 and [a.tile for a, _ in laid.covered] == [Tile.of(3, 4)]
    # and without the memory too (the old behaviour)
    assert diff(table, [misread]).added[0].layer == 1


def test_a_tile_laid_and_found_once_read_again_surely_as_another_value_is_that_value() -> None:
    """6-14 is found once where a tile is laid on 1-2 (a 4-5 misread when laid); then the
    reader reads 4-5 there, sure, where nothing changes. Where tiles stay where laid, after
    REPLACE_AFTER readings in a row the table shows 4-5 in 6-14's place and layer, reported in
    ``replaced``, not as a play (training build sequences 7030-7059: tile-frames on the right
    layer 2359/2365 -> 2379/2385). A tile found in two readings, an unsure reading, or a game
    that moves tiles keeps the known value."""
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    misread = laid_on(low, 6, 14)
    right = Seen(Tile.of(4, 5), (4, 5), misread.corners, REPLACE_MIN_CONFIDENCE)
    for twice, conf, fixed in ((False, right.confidence, True), (True, right.confidence, True),
                               (False, 0.8, True), (False, right.confidence, False)):
        table = diff([], [low, side], fixed=fixed).table
        laid = diff(table, [misread, side], changed=changed_at((101, 99)), fixed=fixed)
        assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(6, 14), 1)]
        table = laid.table
        if twice:
            table = diff(table, [misread, side], changed=changed_at(), fixed=fixed).table
        shown = []
        for _ in range(REPLACE_AFTER):
            step = diff(table, [dataclasses.replace(right, confidence=conf), side],
                        changed=changed_at(), fixed=fixed)
            assert not step.added and not step.removed and not step.unread
            table = step.table
            shown.append({(s.tile, s.layer) for s in table if not s.hidden})
        if not twice and conf >= REPLACE_MIN_CONFIDENCE and fixed:
            assert [(a.tile, b.tile) for a, b in step.replaced] == [(Tile.of(6, 14), Tile.of(4, 5))]
            assert (Tile.of(6, 14), 1) in shown[-2] and (Tile.of(4, 5), 1) in shown[-1]
            assert "read again 6-14 as 4-5" in step.describe()
        else:
            assert step.replaced == [] and (Tile.of(6, 14), 1) in shown[-1]


def test_a_tile_found_late_where_nothing_changed_covers_nothing_and_keeps_its_cold_layer() -> None:
    low = tile_at(1, 2, 100, 100)
    table = diff([], [low]).table
    late = dataclasses.replace(laid_on(low, 6, 6, dx=20.0, dy=0.0), layer=0)
    found = diff(table, [low, late], changed=changed_at())
    assert [(s.tile, s.layer) for s in found.added] == [(Tile.of(6, 6), 0)]
    assert found.covered == [] and found.under[found.added[0]] == []
    # laid there now (the picture changed): on 1-2, one layer up
    laid = diff(table, [low, late], changed=changed_at((120, 100)))
    assert laid.added[0].layer == 1 and laid.under[laid.added[0]] == [low]


def test_changed_fractions_reads_the_changed_mask_over_each_outline() -> None:
    mask = np.zeros((50, 100), bool)  # frame 200 x 100 px at half size
    mask[:, 50:] = True  # the right half of the frame changed
    frac = changed_fractions(SimpleNamespace(mask=mask, scale=0.5))
    assert frac(tile_at(1, 2, 40, 50)) == 0.0
    assert frac(tile_at(1, 2, 160, 50)) == 1.0
    assert 0.4 < frac(tile_at(1, 2, 100, 50)) < 0.6
    assert frac(tile_at(1, 2, 900, 50)) == 1.0  # outside the picture: nothing known
    nothing = changed_fractions(SimpleNamespace(mask=np.zeros((50, 100), bool), scale=0.5))
    assert nothing(tile_at(1, 2, 40, 50)) == 0.0
    # tracked in other units: the caller maps a tile's corners to frame pixels
    shifted = changed_fractions(SimpleNamespace(mask=mask, scale=0.5),
                                to_image=lambda s: np.asarray(s.corners) + [120.0, 0.0])
    assert shifted(tile_at(1, 2, 40, 50)) == 1.0
    with pytest.raises(ValueError, match="2-d mask and a positive scale"):
        changed_fractions(SimpleNamespace(mask=np.zeros(5, bool), scale=0.5))


def test_another_value_over_a_tile_seen_in_the_same_reading_is_that_tile_read_twice() -> None:
    low = tile_at(3, 7, 100, 100)
    table = diff([], [low]).table
    twice = Seen(Tile.of(2, 7), (2, 7), tuple((x + 2.0, y) for x, y in low.corners), 0.6)
    again = diff(table, [low, twice])
    assert again.empty and [s.tile for s in again.table] == [Tile.of(3, 7)]
    # a tile laid across half of it (the span of a stacking game) is laid on it
    span = Seen(Tile.of(2, 7), (2, 7), tuple((x + 20.0, y) for x, y in low.corners), 0.9)
    laid = diff(table, [low, span])
    assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(2, 7), 1)]


def test_a_sighting_whose_own_outline_hardly_changed_was_not_laid_now() -> None:
    """As in the Stackernoes demo: a tall stack laid beside 4-7 changes a sixth of its outline
    (not still), and 4-7 read as 7-8 there changes a tenth of its own: not a tile laid on 4-7.
    A tile really laid changes a third of its outline and more."""
    low = tile_at(4, 7, 100, 100)
    table = diff([], [low]).table
    misread = Seen(Tile.of(7, 8), (7, 8), tuple((x - 3.0, y) for x, y in low.corners), 0.8)

    def fractions(at_misread: float) -> Callable[[Seen], float]:
        return lambda s: at_misread if s.tile == Tile.of(7, 8) else 0.17

    again = diff(table, [misread], changed=fractions(0.11))
    assert again.empty and [(s.tile, s.layer) for s in again.table] == [(Tile.of(4, 7), 0)]
    laid = diff(table, [misread], changed=fractions(0.34))
    assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(7, 8), 1)]
    assert [a.tile for a, _ in laid.covered] == [Tile.of(4, 7)]


def test_a_tile_found_late_where_a_tile_went_out_of_sight_was_laid_on_it() -> None:
    """The reader misses a tile laid on 1-2 and 1-2 under it (the picture changed there, so
    1-2 is removed); the next reading finds the new tile: it lies on 1-2, one layer up."""
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    table = diff([], [low, side]).table
    missed = diff(table, [side], changed=changed_at((100, 100)))
    assert [s.tile for s in missed.removed] == [Tile.of(1, 2)]
    top = laid_on(low, 3, 0)
    found = diff(missed.table, [side, top], changed=changed_at())
    assert [(s.tile, s.layer) for s in found.added] == [(Tile.of(0, 3), 1)]
    assert [(a.tile, b.tile) for a, b in found.covered] == [(Tile.of(1, 2), Tile.of(0, 3))]
    assert {(s.tile, s.hidden, s.gone) for s in found.table} == {
        (Tile.of(5, 5), False, False), (Tile.of(0, 3), False, False),
        (Tile.of(1, 2), True, False)}
    # without the memory it lands on the table
    assert diff(diff(table, [side]).table, [side, top]).added[0].layer == 0


def test_a_covered_value_read_on_the_top_tile_where_nothing_changed_does_not_uncover_it() -> None:
    """The reader reads the top tile of a stack with the value of the tile hidden under it
    (seen on held-out build sequence 1,005,101: 2-4 on layer 3 read 2-3, the hidden tile's
    value). Where the picture did not change, that is a misreading of the top tile, not the top
    tile taken away: the hidden tile stays hidden and the top tile keeps its layer. Taken away
    (the picture changed there), the hidden tile is uncovered as before."""
    low = tile_at(2, 3, 100, 100)
    top = laid_on(low, 2, 4)
    stacked = diff(diff([], [low]).table, [top], changed=changed_at((100, 100))).table
    assert {(s.tile, s.layer, s.hidden) for s in stacked} == {
        (Tile.of(2, 3), 0, True), (Tile.of(2, 4), 1, False)}
    misread = dataclasses.replace(top, tile=Tile.of(2, 3), halves=(2, 3))
    still = diff(stacked, [misread], changed=changed_at())
    assert still.uncovered == [] and still.removed == []
    assert {(s.tile, s.hidden) for s in still.table if s.tile == Tile.of(2, 3)} == {
        (Tile.of(2, 3), True)}
    taken = diff(stacked, [dataclasses.replace(low)], changed=changed_at((100, 100)))
    assert [s.tile for s in taken.uncovered] == [Tile.of(2, 3)]
    assert [s.tile for s in taken.removed] == [Tile.of(2, 4)]
