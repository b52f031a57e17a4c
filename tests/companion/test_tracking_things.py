"""Something that is not a tile put down over tiles (a mug, a phone, a score pad): the tracking
keeps the tiles under it where they lay, out of sight, instead of reporting them taken away
(companion.tracking.ChangedFractions.mark_things, Seen.obscured, TableChange.obscured)."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
from live_helpers import tile_at

from companion.tiles import Tile
from companion.tracking import UNSEEN_MAX, ChangedFractions, diff


def _changed(shape: tuple[int, int], *, discs=(), tiles=(), fringe: float = 0.0
             ) -> ChangedFractions:
    """A change picture (frame pixels, scale 1) where ``discs`` ((x, y, r): a mug seen from
    above) and the outlines of ``tiles`` (grown by ``fringe`` px: side walls and shadows of
    tiles taken away) changed."""
    mask = np.zeros(shape, np.uint8)
    for x, y, r in discs:
        cv2.circle(mask, (x, y), r, 1, -1)
    for s in tiles:
        c = np.asarray(s.corners, np.float64)
        m = c.mean(axis=0)
        grown = m + (c - m) * (1 + 2 * fringe / np.linalg.norm(c[1] - c[0]))
        cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 1)
    return ChangedFractions(SimpleNamespace(mask=mask > 0, scale=1.0))


def _row() -> list:
    return [tile_at(1, 2, 100, 100), tile_at(2, 3, 140, 100), tile_at(3, 4, 180, 100),
            tile_at(4, 5, 220, 100)]


def test_a_mug_put_down_over_two_tiles_keeps_them_out_of_sight_and_reports_no_removal() -> None:
    row = _row()
    first = diff([], row).table
    mug = _changed((240, 320), discs=[(160, 100, 34)])  # over 2-3 and 3-4, part of 1-2 / 4-5
    seen = [row[0], row[3]]  # the reader finds the two tiles at its rim
    assert mug.mark_things(first + seen) == 1
    assert mug.under_thing(row[1]) and mug.under_thing(row[2])
    assert not mug.under_thing(tile_at(6, 6, 100, 200))  # a tile elsewhere
    change = diff(first, seen, changed=mug)
    assert change.removed == [] and change.added == []
    assert sorted(str(s.tile) for s in change.obscured) == ["2-3", "3-4"]
    kept = {s.tile: s for s in change.table}
    assert kept[Tile.of(2, 3)].obscured and kept[Tile.of(3, 4)].obscured
    # it stays there for more plays than the memory keeps a missed tile: still not removed
    table = change.table
    far = tile_at(0, 0, 100, 200)
    for k in range(UNSEEN_MAX + 2):
        laid = diff(table, seen + [far], changed=_changed((240, 320), tiles=[far]))
        assert laid.removed == [] and laid.obscured == []
        table = laid.table
    # taken away: the tiles show again where they lay, which is no change at all
    lifted = diff(table, row + [far], changed=_changed((240, 320), discs=[(160, 100, 34)]))
    assert lifted.empty and lifted.obscured == []
    assert not any(s.obscured for s in lifted.table)


def test_tiles_taken_away_are_removed_fringe_and_all() -> None:
    """A row of tiles cleared leaves its outlines changed, with a thin fringe of side walls and
    shadows around them: that is no thing put down; the tiles are removed."""
    row = _row()
    first = diff([], row).table
    cleared = _changed((240, 320), tiles=row, fringe=5.0)
    assert cleared.mark_things(first) == 0
    change = diff(first, [], changed=cleared)
    assert sorted(str(s.tile) for s in change.removed) == ["1-2", "2-3", "3-4", "4-5"]
    assert change.obscured == []


def test_a_tile_laid_that_the_reader_missed_is_no_thing() -> None:
    """One tile's worth of unexplained change (a tile laid and not found) stays a tile's:
    nothing is marked, so the tracking's other rules (inferred tiles) see it."""
    row = _row()
    first = diff([], row).table
    laid = _changed((240, 320), tiles=[tile_at(5, 6, 260, 100)], fringe=2.0)
    assert laid.mark_things(first) == 0
    assert laid.blobs() is not None and len(laid.blobs()) == 1


def test_a_thing_taken_for_a_patch_of_change_is_no_blob_of_a_tile_laid() -> None:
    row = _row()
    mug = _changed((240, 320), discs=[(160, 100, 34)])
    assert len(mug.blobs()) == 1
    mug.mark_things(row)
    assert mug.blobs() == []


def test_nothing_is_marked_when_most_of_the_picture_changed() -> None:
    """A bumped camera or the light changes most of the picture: no thing is marked there."""
    row = _row()
    bumped = _changed((240, 320), discs=[(160, 120, 200)])
    assert bumped.mark_things(row) == 0 and not bumped.under_thing(row[1])
