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

    def read(self, frame_bgr, set_max, **_):  # pragma: no cover - never called here
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


# --- a tile replaced at its place by one of another value -------------------------------------

PIPS = {0: [], 1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (-1, 1), (1, -1), (1, 1)], 5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
        6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


def _upright(a: int, b: int, cx: float, cy: float, w: float = 56.0):
    """A tile upright at (cx, cy), ``w`` px wide (as the demo's 720p tiles), ``a`` on top."""
    from companion.tiles import Tile
    from companion.tracking import Seen

    corners = ((cx + w / 2, cy - w), (cx - w / 2, cy - w), (cx - w / 2, cy + w),
               (cx + w / 2, cy + w))
    return Seen(Tile.of(a, b), (a, b), corners, 0.99)


def _drawn(tiles) -> np.ndarray:
    """A green felt table with ivory tiles and their pips (dark dots a sixth of a tile wide)."""
    import cv2

    rng = np.random.default_rng(0)
    img = np.clip(np.full((SIZE[1], SIZE[0], 3), (60, 120, 40), np.int16)
                  + rng.integers(-2, 3, (SIZE[1], SIZE[0], 3)), 0, 255).astype(np.uint8)
    for s in tiles:
        c = np.asarray(s.corners)
        cv2.fillConvexPoly(img, np.round(c).astype(np.int32), (215, 230, 235))
        cx, cy = s.center
        w = s.width
        for k, v in enumerate(s.halves):
            hy = cy + (k - 0.5) * w
            for dx, dy in PIPS[v]:
                cv2.circle(img, (int(cx + dx * w / 4), int(hy + dy * w / 4)), int(w / 12),
                           (30, 30, 30), -1, cv2.LINE_AA)
    return img


class _ScriptedReader:
    """Reads what its ``table`` holds, as much of it as the frame (or crop) shows."""

    reads_crops = True

    def __init__(self) -> None:
        self.table: list = []

    def read(self, frame_bgr, set_max, **_):
        from live_helpers import _R, in_view

        return _R(in_view(self.table, frame_bgr))


def test_a_row_closing_up_over_a_removed_tile_is_read_again(tmp_path: Path) -> None:
    """Castle Rock demo step 62: 5-6 is taken out from between 4-6 and 6-6, and the 6-6 slides
    into its place. At the 5-6's place only pips change (5 -> 6), too little for the gate's
    coarse picture: that place was not read again, the 5-6 was kept as accepted, and the
    camera alleged the 6-6 removed. The finer picture sees the pips change there."""
    from vision.virtual_camera import add_hand

    s = Session.start(LogStore(tmp_path / "g.db"), "castlerock", ["Sol"])

    reader = _ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    row = [_upright(4, 6, 500, 360), _upright(5, 6, 600, 360), _upright(6, 6, 700, 360)]
    for k in range(1, 4):  # three draws, one at a time
        reader.table = row[:k]
        hand = add_hand(_drawn(row[:k - 1]), (0.5, 1.0), (0.5, 0.5))
        for f in [hand] * 3 + [_drawn(row[:k])] * 6:
            loop.process(f)
    assert [h["text"] for h in s.history] == ["Sol draws 4-6", "Sol draws 5-6", "Sol draws 6-6"]
    closed = [row[0], _upright(6, 6, 600, 360)]
    reader.table = closed
    for f in [add_hand(_drawn(row), (0.5, 1.0), (0.5, 0.5))] * 3 + [_drawn(closed)] * 8:
        loop.process(f)
    assert [h["text"] for h in s.history][-1] == "Sol removes 5-6"
    assert s.alerts == []


def test_a_tile_laid_running_out_of_the_picture_is_told_once(tmp_path: Path) -> None:
    """A tile laid at the frame's edge, partly out of it, is read as cut with no half read
    (the reader does not guess it): it never reaches the game, so the players are told, once,
    where it is and what to do; a tile laid whole afterwards is read as ever."""
    from vision.virtual_camera import add_hand

    s = Session.start(LogStore(tmp_path / "g.db"), "castlerock", ["Sol"])

    reader = _ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    first, out, second = _upright(4, 6, 500, 360), _upright(5, 6, 600, 10), \
        _upright(6, 6, 700, 360)
    events = []
    for tiles in ([first], [first, out], [first, out, second]):
        reader.table = tiles
        hand = add_hand(_drawn(tiles[:-1]), (0.5, 1.0), (0.5, 0.5))
        for f in [hand] * 3 + [_drawn(tiles)] * 8:
            events += loop.process(f)
    told = [e["notice"] for e in events if "notice" in e]
    assert len(told) == 1 and "top edge of the picture" in told[0], told
    assert "enter that play on the tablet" in told[0]
    assert [a.message for a in s.alerts if a.kind == "notice"] == told
    assert [h["text"] for h in s.history] == ["Sol draws 4-6", "Sol draws 6-6"]
    # moved in, all of it showing, it is read as any tile laid, and not told again
    moved_in = [first, second, _upright(5, 6, 800, 360)]
    reader.table = moved_in
    for f in [add_hand(_drawn([first, second]), (0.5, 1.0), (0.5, 0.5))] * 3 + \
            [_drawn(moved_in)] * 8:
        events += loop.process(f)
    assert [h["text"] for h in s.history][-1] == "Sol draws 5-6"
    assert len([e for e in events if "notice" in e]) == 1


class _HalfReader(_ScriptedReader):
    """As :class:`_ScriptedReader`, and of a tile running out of the picture it reads the half
    wholly inside (as :func:`vision.read.seen_halves` does), surely."""

    def read(self, frame_bgr, set_max, **kw):
        import dataclasses

        h, w = frame_bgr.shape[:2]
        out = []
        for t in super().read(frame_bgr, set_max, **kw).tiles:
            if t.cut:
                c = np.asarray(t.corners)
                for k in (0, 1):  # half k: the corners' end nearer corner 0/1 or 2/3
                    ends = np.array([c[k * 2], c[k * 2 + 1], c.mean(axis=0)])
                    if np.all((ends >= 0) & (ends < (w, h))):
                        t = dataclasses.replace(t, seen_half=(k, t.halves[k], 0.97))
            out.append(t)
        from live_helpers import _R

        return _R(tuple(out))


def test_a_tile_running_out_of_the_picture_with_one_half_read_is_asked_about(
        tmp_path: Path) -> None:
    """The same tile at the frame's top edge, its 6 half wholly in the picture and read surely:
    the players are not told to enter it, they are asked which tile it is (the note says only
    its 6 half is in the picture), and their tap logs it; nothing is asked or told twice."""
    from vision.virtual_camera import add_hand

    s = Session.start(LogStore(tmp_path / "g.db"), "castlerock", ["Sol"])
    reader = _HalfReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    first, out = _upright(4, 6, 500, 360), _upright(5, 6, 600, 20)
    assert out.corners[1][1] < 0 < out.corners[2][1] - out.width  # the 5 half runs out
    events = []
    for tiles in ([first], [first, out]):
        reader.table = tiles
        hand = add_hand(_drawn(tiles[:-1]), (0.5, 1.0), (0.5, 0.5))
        for f in [hand] * 3 + [_drawn(tiles)] * 8:
            events += loop.process(f)
    assert not [e for e in events if "notice" in e]
    asked = [a for a in s.alerts if a.kind == "confirm"]
    assert len(asked) == 1, s.alerts
    assert "only its 6 half is in the picture" in asked[0].entry["note"]
    assert asked[0].entry["draw"] == "0-6"  # the guess: the lowest value not drawn
    offered = [a["draw"] for a in asked[0].alternatives]
    assert offered == ["1-6", "2-6", "3-6", "5-6", "6-6", "6-7", "6-8", "6-9"], offered  # no 4-6
    pick = next(a for a in asked[0].alternatives if a["draw"] == "5-6")
    assert s.correct(asked[0].id, pick).status == "accepted"
    assert [h["text"] for h in s.history] == ["Sol draws 4-6", "Sol draws 5-6"]
    for f in [_drawn([first, out])] * 8:  # the table stays as it is: nothing more
        events += loop.process(f)
    assert s.alerts == [] and len(s.history) == 2


def test_bad_blank_and_resized_frames_lose_nothing(tmp_path: Path) -> None:
    """Frames a driver may hand over between good ones: none, empty, float, 16-bit, grey,
    BGRA, tiny; a blank picture (a lens cap); and the picture changing size mid-game. None
    stops the loop or changes the game: the bad ones are skipped and counted, a blank picture
    is not read as an empty table (no "taken off the table" notices), a resized picture is
    read anew without proposing the tiles already drawn again; the next draw is logged."""
    import cv2
    from vision.virtual_camera import add_hand

    s = Session.start(LogStore(tmp_path / "g.db"), "castlerock", ["Sol"])
    reader = _ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    first = _upright(4, 6, 500, 360)
    reader.table = [first]
    for f in [add_hand(_drawn([]), (0.5, 1.0), (0.5, 0.5))] * 3 + [_drawn([first])] * 8:
        loop.process(f)
    assert [h["text"] for h in s.history] == ["Sol draws 4-6"]
    good = _drawn([first])
    bad = [None, np.zeros((0, 0, 3), np.uint8), good.astype(np.float32),
           good.astype(np.uint16), np.zeros((4, 4, 3), np.uint8)]
    for f in bad:
        assert loop.process(f) == []
    assert loop.stats.bad_frames == len(bad) and "skipped" in loop.status()["frame_problem"]
    for f in [cv2.cvtColor(good, cv2.COLOR_BGR2GRAY), cv2.cvtColor(good, cv2.COLOR_BGR2BGRA)]:
        loop.process(f)  # grey and BGRA are read as BGR
    events = []
    for f in [np.zeros_like(good)] * 6 + [good] * 6:  # a lens cap on, then off
        events += loop.process(f)
    assert not [e for e in events if "notice" in e] and s.alerts == []
    assert "blank" in loop.status()["frame_problem"]
    # the camera renegotiates a smaller picture: the same table, half the pixels
    half = [_Half(t) for t in (first,)]
    reader.table = half
    small = cv2.resize(good, (SIZE[0] // 2, SIZE[1] // 2), interpolation=cv2.INTER_AREA)
    for f in [small] * 6:
        events += loop.process(f)
    assert "changed size" in loop.status()["frame_problem"]
    assert not [e for e in events if "notice" in e] and s.alerts == []
    second = _upright(6, 6, 700, 360)
    reader.table = half + [_Half(second)]
    hand = cv2.resize(add_hand(_drawn([first]), (0.5, 1.0), (0.5, 0.5)), small.shape[1::-1])
    for f in [hand] * 3 + [cv2.resize(_drawn([first, second]), small.shape[1::-1])] * 8:
        events += loop.process(f)
    assert [h["text"] for h in s.history] == ["Sol draws 4-6", "Sol draws 6-6"]
    assert s.alerts == []


def _Half(s):
    """``s`` as a camera giving half the pixels sees it."""
    from companion.tracking import Seen

    return Seen(s.tile, s.halves, tuple((x / 2, y / 2) for x, y in s.corners), s.confidence)


def _plain(tiles, table_grey: int = 140, tile_grey: int = 158) -> np.ndarray:
    """A grey table with plain tiles a little lighter than it (an ivory tile on a light table
    in dim light), sensor noise on both."""
    import cv2

    rng = np.random.default_rng(1)
    img = np.full((SIZE[1], SIZE[0], 3), table_grey, np.uint8)
    for s in tiles:
        cv2.fillConvexPoly(img, np.round(np.asarray(s.corners)).astype(np.int32),
                           (tile_grey,) * 3)
    return np.clip(img.astype(np.int16) + rng.integers(-2, 3, img.shape), 0, 255
                   ).astype(np.uint8)


def test_a_faint_tile_the_coarse_picture_blurs_away_is_read_from_the_finer_one(
        tmp_path: Path) -> None:
    """The All Fives demo dimmed: an ivory 5-6 on the light table changed the coarse picture by
    16 grey levels at most, under REGION_DELTA, so after the hand left nothing was read and the
    play was missed. With no coarse change after a hand, the finer picture decides."""
    from companion.live import REGION_DELTA
    from vision.still import small_grey
    from vision.virtual_camera import add_hand

    s = Session.start(LogStore(tmp_path / "g.db"), "castlerock", ["Sol"])
    reader = _ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    first, faint = _upright(4, 6, 500, 360), _upright(5, 6, 800, 360, w=16.0)
    assert not ChangedRegion(small_grey(_plain([first])), small_grey(_plain([first, faint])),
                             SIZE, REGION_DELTA).mask.any()  # the coarse picture sees nothing
    for tiles in ([first], [first, faint]):
        reader.table = tiles
        for f in [add_hand(_plain(tiles[:-1]), (0.5, 1.0), (0.5, 0.5))] * 3 + \
                [_plain(tiles)] * 8:
            loop.process(f)
    assert [h["text"] for h in s.history] == ["Sol draws 4-6", "Sol draws 5-6"]
