"""A span laid across two known tiles that the reader did not find, reading each partly covered
support as another value instead (companion.tracking.diff, ``fixed`` with the memory): the
supports are read again, not each covered by a tile laid on it; the surest reading is kept as
a tile laid when sure enough; a lone tile laid on a known tile is still laid on it."""

from __future__ import annotations

import dataclasses

from live_helpers import L, changed_at, laid_on, tile_at

from companion.tiles import Tile
from companion.tracking import SPLIT_KEEP_CONFIDENCE, SPLIT_MAX_GAP, diff


def _supports():
    left = tile_at(2, 2, 100, 100)
    right = tile_at(3, 4, 100 + L, 100)
    far = tile_at(5, 5, 300, 300)
    return left, right, far, diff([], [left, right, far]).table


def test_a_span_read_as_one_tile_on_each_support_leaves_the_supports_as_they_were() -> None:
    left, right, far, table = _supports()
    unsure = SPLIT_KEEP_CONFIDENCE - 0.2
    on_left = laid_on(left, 0, 1)
    on_right = laid_on(right, 1, 3)
    readings = [dataclasses.replace(on_left, confidence=unsure),
                dataclasses.replace(on_right, confidence=unsure - 0.1), far]
    step = diff(table, readings, changed=changed_at((100, 100), (100 + L, 100)), fixed=True)
    assert step.added == [] and step.covered == []
    shown = sorted((s.tile, s.layer) for s in step.table if not s.hidden)
    assert shown == sorted([(Tile.of(2, 2), 0), (Tile.of(3, 4), 0), (Tile.of(5, 5), 0)])
    # the same two readings without the memory of a game whose tiles stay: both laid
    moving = diff(table, readings, changed=changed_at((100, 100), (100 + L, 100)))
    assert len(moving.added) == 2


def test_the_surest_of_a_split_span_is_a_tile_laid_and_a_lone_tile_laid_is_laid() -> None:
    left, right, far, table = _supports()
    sure = laid_on(left, 0, 1)  # read at 0.99
    assert sure.confidence >= SPLIT_KEEP_CONFIDENCE
    other = laid_on(right, 1, 3)
    other = dataclasses.replace(other, confidence=SPLIT_KEEP_CONFIDENCE - 0.3)
    step = diff(table, [sure, other, far], changed=changed_at((100, 100), (100 + L, 100)),
                fixed=True)
    assert [(s.tile, s.layer) for s in step.added] == [(Tile.of(0, 1), 1)]
    assert [o.tile for o, _ in step.covered] == [Tile.of(2, 2)]
    assert [(s.tile, s.layer) for s in step.table if s.tile == Tile.of(3, 4)] == [
        (Tile.of(3, 4), 0)]
    # one tile laid on a known tile, unsure, with no second one beside it: laid on it
    alone = other
    lone = diff(table, [left, alone, far], changed=changed_at((100 + L, 100)), fixed=True)
    assert [(s.tile, s.layer) for s in lone.added] == [(Tile.of(1, 3), 1)]
    # two tiles laid at known tiles' places far apart (more than SPLIT_MAX_GAP): both laid
    apart = tile_at(6, 6, 100 + L + (SPLIT_MAX_GAP + 1.0) * L, 100)
    table2 = diff([], [left, apart]).table
    unsure_left = laid_on(left, 0, 1)
    unsure_left = dataclasses.replace(unsure_left, confidence=0.5)
    unsure_apart = laid_on(apart, 1, 6)
    unsure_apart = dataclasses.replace(unsure_apart, confidence=0.5)
    both = diff(table2, [unsure_left, unsure_apart],
                changed=changed_at((100, 100), tuple(apart.center)), fixed=True)
    assert sorted(s.tile for s in both.added) == sorted([Tile.of(0, 1), Tile.of(1, 6)])
