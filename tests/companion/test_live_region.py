"""The live loop's changed region at its edge: a tile whose accepted centre lies in a changed
cell of the region and whose new reading, a pixel off, lies in the next cell (that did not
change) is kept, not taken away (the chickenfoot demo's step 14: 3-5 laid against 5-9)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from live_helpers import tile_at

from companion.live import LiveLoop
from companion.session import Session
from companion.store import LogStore
from companion.tracking import diff
from vision.still import ChangedRegion, StillGate

SIZE = (1280, 720)  # frame pixels; the region's cells are 8 x 8 of them (160 px wide small)


class _NoReader:
    reads_crops = True

    def read(self, frame_bgr, set_max):  # pragma: no cover - never called here
        raise AssertionError("the region test reads nothing")


def _loop(tmp_path: Path) -> LiveLoop:
    s = Session.start(LogStore(tmp_path / "g.db"), "allfives", ["Ann", "Bob"])
    return LiveLoop(s, _NoReader(), gate=StillGate(still_frames=2), agree=2)


def _region(cells: list[tuple[int, int]]) -> ChangedRegion:
    """A changed region of exactly ``cells`` ((row, column) of the small picture)."""
    region = ChangedRegion(None, np.zeros((90, 160), np.uint8), SIZE)
    region.mask = np.zeros((90, 160), bool)
    for i, j in cells:
        region.mask[i, j] = True
    return region


def test_a_tile_at_a_cell_boundary_stays(tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    accepted = tile_at(5, 9, 631.7, 323.4)  # cell (40, 78)
    read = tile_at(5, 9, 632.8, 323.9)  # the same tile read a pixel off: cell (40, 79)
    laid = tile_at(3, 5, 631.7 - 41, 323.4)  # the new tile against it, on the left
    loop.baseline = [accepted]
    region = _region([(40, j) for j in range(70, 79)])  # the new tile and the 5-9's left end
    assert region.contains(accepted.center) and not region.contains(read.center)
    inside = loop._inside([laid, read], region, None)
    table = loop._compose(inside, region, None)
    assert sorted(str(s.tile) for s in table) == ["3-5", "5-9"]
    change = diff(loop.baseline, table)
    assert [str(s.tile) for s in change.added] == ["3-5"] and not change.removed


def test_the_other_way_round_the_tile_is_kept_once(tmp_path: Path) -> None:
    """The accepted centre outside the region, the new reading inside: the accepted tile is
    kept and its reading is not taken as a second one."""
    loop = _loop(tmp_path)
    accepted = tile_at(5, 9, 632.8, 323.9)  # cell (40, 79)
    read = tile_at(5, 9, 631.7, 323.4)  # cell (40, 78)
    loop.baseline = [accepted]
    region = _region([(40, j) for j in range(70, 79)])
    table = loop._compose(loop._inside([read], region, None), region, None)
    assert [str(s.tile) for s in table] == ["5-9"] and not diff(loop.baseline, table).removed


def test_a_tile_taken_away_or_replaced_in_the_region_still_changes(tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    accepted = tile_at(5, 9, 631.7, 323.4)
    loop.baseline = [accepted]
    region = _region([(40, j) for j in range(70, 80)])
    assert loop._compose(loop._inside([], region, None), region, None) == []
    other = tile_at(4, 9, 632.8, 323.9)  # another value at its place: the new reading counts
    table = loop._compose(loop._inside([other], region, None), region, None)
    assert [str(s.tile) for s in table] == ["4-9"]


def test_a_new_tile_that_changed_only_at_one_end_is_read(tmp_path: Path) -> None:
    """An ivory tile on light wood changes the grey picture only at its pips and edges (the
    chickenfoot demo's 5-6 at step 22): its centre may lie outside the changed region while
    its outline overlaps it; it is in. A tile of another value read where an accepted one
    lies (a misread of it) is not taken as new for that."""
    loop = _loop(tmp_path)
    kept = tile_at(4, 5, 494.0, 322.0)
    loop.baseline = [kept]
    new = tile_at(5, 6, 444.0, 274.0)  # outline 424..464 x 264..284 (40 x 20 px)
    region = _region([(35, 57)])  # the small cell around (460, 284): its right end only
    assert not region.contains(new.center) and region.overlaps(new.corners)
    misread = tile_at(4, 6, 494.0 - 3, 322.0)  # the accepted 4-5 read as 4-6
    region2 = region.union(_region([(41, 58)]))  # also a cell under the 4-5's left end
    assert region2.overlaps(misread.corners) and not region2.contains(kept.center)
    inside = loop._inside([new, misread], region2, None)
    assert [str(s.tile) for s in inside] == ["5-6"]
    table = loop._compose(inside, region2, None)
    assert sorted(str(s.tile) for s in table) == ["4-5", "5-6"]


def test_overlaps_counts_an_outline_outside_the_frame_as_changed() -> None:
    region = _region([])
    assert not region.overlaps(tile_at(1, 2, 640.0, 360.0).corners)
    assert region.overlaps(tile_at(1, 2, -200.0, 360.0).corners)
