"""Table changes with layers as the table was watched being built (companion.tracking)."""

from __future__ import annotations

import dataclasses

from companion.tiles import Tile
from companion.tracking import Seen, diff, overlap_fraction
from live_helpers import tile_at


def _on(s: Seen, a: int, b: int, dx: float = 1.0, dy: float = -1.0, **kw) -> Seen:
    """A tile (a, b) laid on ``s``, slightly askew."""
    corners = tuple((x + dx, y + dy) for x, y in s.corners)
    return Seen(Tile.of(a, b), (a, b), corners, 0.99, **kw)


def test_first_reading_keeps_the_readers_cold_layers() -> None:
    low = tile_at(1, 2, 100, 100)
    high = dataclasses.replace(_on(low, 3, 4), layer=1)
    change = diff([], [low, high])
    assert [s.layer for s in change.table] == [0, 1]
    assert change.covered == [] and change.removed == []


def test_a_tile_laid_over_a_known_one_is_one_layer_above_it_and_covers_it() -> None:
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    # the reader's cold guess says layer 0 for the new tile: the watched order wins
    top = _on(low, 3, 0)
    change = diff([low, side], [side, top])
    assert [s.tile for s in change.added] == [Tile.of(0, 3)]
    assert change.added[0].layer == 1
    assert change.covered == [(low, change.added[0])]
    assert change.removed == []
    assert change.under[change.added[0]] == [low]
    # the next one on top: two up, and what stayed keeps its layer
    top2 = _on(top, 6, 6, dx=-1.0, dy=1.0)
    change2 = diff(change.table, [side, top2])
    assert change2.added[0].layer == 2
    assert {s.tile: s.layer for s in change2.table if not s.hidden} == {
        Tile.of(5, 5): 0, Tile.of(6, 6): 2}
    # the covered tiles are remembered, hidden, with their layers
    assert {s.tile: s.layer for s in change2.table if s.hidden} == {
        Tile.of(1, 2): 0, Tile.of(0, 3): 1}
    assert "covered 0-3 by 6-6" in change2.describe()


def test_a_tile_taken_back_uncovers_the_one_under_it() -> None:
    low = tile_at(1, 2, 100, 100)
    top = _on(low, 3, 4)
    laid = diff([low], [top])
    back = diff(laid.table, [low])
    assert back.added == [] and back.uncovered == [low]
    assert [s.tile for s in back.removed] == [Tile.of(3, 4)]
    assert [(s.tile, s.layer, s.hidden) for s in back.table] == [(Tile.of(1, 2), 0, False)]
    # a whole stack taken away: the hidden tile goes with it
    gone = diff(laid.table, [])
    assert sorted(str(s.tile) for s in gone.removed) == ["1-2", "3-4"]
    assert gone.table == []


def test_a_tile_laid_beside_on_the_table_is_layer_zero_and_a_lone_removal_is_removed() -> None:
    a = tile_at(1, 2, 100, 100)
    b = dataclasses.replace(tile_at(2, 2, 140, 100), layer=2)  # a wrong cold guess
    change = diff([a], [a, b])
    assert change.added[0].layer == 0 and change.under[change.added[0]] == []
    gone = diff(change.table, [b])
    assert gone.removed == [a] and gone.covered == []


def test_a_tall_neighbours_sliver_of_overlap_is_not_a_support() -> None:
    a = tile_at(1, 2, 100, 100)
    b = tile_at(3, 3, 100, 100 + 20 - 3)  # overlaps a by 3 of its 20 px width
    assert 0.0 < overlap_fraction(a, b) < 0.25
    assert diff([a], [a, b]).added[0].layer == 0


def test_same_value_at_the_same_place_in_another_colour_is_a_new_tile() -> None:
    red, blue = (110.0, 170.0, 150.0), (80.0, 140.0, 90.0)
    low = dataclasses.replace(tile_at(2, 5, 100, 100), face_lab=blue)
    top = _on(low, 2, 5, face_lab=red)
    change = diff([low], [top])
    assert len(change.added) == 1 and change.added[0].layer == 1
    assert change.covered == [(low, change.added[0])]
    # measured the same (within the tolerance): the same tile that stayed
    again = dataclasses.replace(top, face_lab=(112.0, 168.0, 151.0))
    assert diff(change.table, [again]).empty


def test_duplicate_values_are_matched_by_position() -> None:
    a1 = tile_at(2, 5, 100, 100)
    a2 = tile_at(2, 5, 300, 100)
    b = tile_at(4, 4, 200, 100)
    change = diff([a1, a2], [a1, a2, b])
    assert [s.tile for s in change.added] == [Tile.of(4, 4)]
    assert change.moved == [] and change.removed == []
    gone = diff(change.table, [a2, b])
    assert [s.center.tolist() for s in gone.removed] == [[100.0, 100.0]]


class _Scripted:
    """Reads the tiles the test puts on the table, each with the reader's cold layer 0."""

    def __init__(self) -> None:
        self.table: list[Seen] = []

    def read(self, frame_bgr, set_max, **_):
        from live_helpers import _R, _T

        return _R(tuple(_T(s.tile, s.halves, s.corners, s.confidence) for s in self.table))


class _Quiet:
    def proposals(self, change, game):
        return []


def test_live_loop_keeps_the_watched_layers(tmp_path) -> None:
    import numpy as np

    from companion.live import LiveLoop
    from companion.session import Session
    from companion.store import LogStore
    from vision.still import StillGate

    s = Session.start(LogStore(tmp_path / "g.db"), "allfives", ["Ann", "Bob"])
    reader = _Scripted()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), interpreter=_Quiet(), agree=2)
    import cv2

    empty = np.full((240, 320, 3), 90, np.uint8)
    moving = empty.copy()
    moving[60:180, 100:220] = 200

    def show(tiles):
        reader.table = list(tiles)
        frame = empty.copy()  # the camera sees the tiles: the picture changes where they lie
        for k, t in enumerate(tiles):
            cv2.fillConvexPoly(frame, np.round(np.asarray(t.corners)).astype(np.int32),
                               (230 - 40 * k, 230, 200 + 10 * k))
        for f in [moving] * 2 + [frame] * 5:
            loop.process(f)

    low = tile_at(1, 2, 100, 100)
    show([low])
    mid = _on(low, 3, 0)
    show([mid])
    top = _on(mid, 6, 6, dx=-1.0, dy=1.0)
    beside = tile_at(4, 4, 200, 100)
    show([top, beside])
    assert {str(b.tile): b.layer for b in loop.baseline if not b.hidden} == {"6-6": 2, "4-4": 0}
