"""The Build Up interpreter: set colours from the picture, plays on stack tops."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.interpret import interpreter_for
from companion.interpret_stacks import BuildUpInterpreter, classify, face_colour, set_references
from companion.gamelog import replay_lines
from companion.moves import Move
from companion.session import REREAD, Session
from companion.store import LogStore
from companion.tiles import Tile
from companion.tracking import Seen, TableChange, diff
from live_helpers import confirm_lead, on_cells

W, L = 24.0, 48.0
RED, BLUE = (40, 40, 185), (150, 80, 30)  # BGR faces as a camera sees red and blue sets
LAYOUTS = {"Ann": ["red:2-6", "red:4-5", "red:3-5", "red:0-5", "red:0-6", "red:0-1"],
           "Bob": ["blue:0-3", "blue:1-5", "blue:2-3", "blue:2-4", "blue:0-4", "blue:3-5"]}
FIRST = {"Ann": "red:1-4", "Bob": "blue:1-3"}


def _at(tile: str, col: int, row: int, dx: float = 0.0, dy: float = 0.0) -> Seen:
    """A tile upright in layout ``row`` (0 Ann, 1 Bob), stack ``col``; ``tile`` may be plain."""
    t = Tile.parse(tile)
    cx, cy = 60 + col * (W + 22) + dx, 60 + row * (L + 28) + dy
    corners = ((cx + W / 2, cy - L / 2), (cx - W / 2, cy - L / 2), (cx - W / 2, cy + L / 2),
               (cx + W / 2, cy + L / 2))
    return Seen(t, t.halves, corners, 0.99)


def _frame(tiles: list[tuple[Seen, tuple[int, int, int]]]) -> np.ndarray:
    img = np.full((260, 360, 3), (70, 110, 150), np.uint8)  # a wooden table
    for s, bgr in tiles:
        cv2.fillConvexPoly(img, np.round(np.asarray(s.corners)).astype(np.int32), bgr)
        c = s.center.astype(int)
        cv2.circle(img, (int(c[0]), int(c[1] - 12)), 3, (240, 240, 240), -1)  # a pip
    return img


def _session(tmp_path: Path) -> Session:
    s = Session.start(LogStore(tmp_path / "g.db"), "buildup", ["Ann", "Bob"])
    r = s.submit({"deal": {}, "layouts": LAYOUTS, "first": FIRST}, source="hand")
    assert r.status == "accepted"
    return s


def _layout_seen(plain: bool = True) -> list[tuple[Seen, tuple[int, int, int]]]:
    out = []
    for row, p in enumerate(("Ann", "Bob")):
        for col, t in enumerate(LAYOUTS[p]):
            name = str(Tile.parse(t).plain()) if plain else t
            out.append((_at(name, col, row), RED if p == "Ann" else BLUE))
    return out


def test_buildup_has_an_interpreter_with_a_colour_look() -> None:
    assert isinstance(interpreter_for("buildup"), BuildUpInterpreter)


def test_observe_gives_each_tile_its_set_colour(tmp_path: Path) -> None:
    s = _session(tmp_path)
    tiles = _layout_seen()
    seen = BuildUpInterpreter().observe([t for t, _ in tiles], _frame(tiles), s.game)
    assert [str(x.tile) for x in seen] == LAYOUTS["Ann"] + LAYOUTS["Bob"]
    assert all(x.face_lab is not None and x.confidence > 0.9 for x in seen)
    # the layouts teach the references: each is the measured face of its set
    refs = set_references(seen, s.game)
    red_lab = cv2.cvtColor(np.uint8([[RED]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    assert np.linalg.norm(refs["red"] - red_lab) < 3
    # a reader that already tells sets apart keeps its colour
    given = dataclasses.replace(tiles[0][0], tile=Tile.parse("blue:2-6"))
    (kept,) = BuildUpInterpreter().observe([given], _frame(tiles), s.game)
    assert str(kept.tile) == "blue:2-6"


def test_classify_is_unsure_between_two_near_colours() -> None:
    refs = {"red": np.array([100.0, 170.0, 150.0]), "blue": np.array([80.0, 140.0, 90.0])}
    assert classify([101.0, 169.0, 149.0], refs)[0] == "red"
    colour, conf, clear = classify([90.0, 155.0, 120.0], refs)
    assert not clear and conf < 0.7
    with pytest.raises(ValueError, match="no set colours"):
        classify([0, 0, 0], {})


def test_face_colour_of_a_tile_outside_the_picture_is_none() -> None:
    img = np.zeros((50, 50, 3), np.uint8)
    assert face_colour(img, _at("1-2", 5, 3)) is None


def _observed(s: Session, tiles: list[tuple[Seen, tuple[int, int, int]]]) -> list[Seen]:
    return BuildUpInterpreter().observe([t for t, _ in tiles], _frame(tiles), s.game)


def _lay(table: list[tuple[Seen, tuple[int, int, int]]], tile: str, col: int, row: int,
         bgr: tuple[int, int, int], dx: float = 1.0, dy: float = -1.0
         ) -> list[tuple[Seen, tuple[int, int, int]]]:
    """The table with ``tile`` laid on stack (col, row): the top under it is hidden now."""
    new = _at(tile, col, row, dx, dy)
    return [(t, c) for t, c in table
            if np.linalg.norm(t.center - _at("0-0", col, row).center) > 5] + [(new, bgr)]


def test_layouts_are_no_play_and_a_tile_on_a_stack_is_a_play_on_its_top(tmp_path: Path) -> None:
    s = _session(tmp_path)
    interp = BuildUpInterpreter()
    table = _layout_seen()
    first = diff([], _observed(s, table))
    assert interp.proposals(first, s.game) == []
    # Ann lays red 1-1 on her 0-1 (stack 5): a double covers any non-double
    table2 = _lay(table, "1-1", 5, 0, RED)
    change = diff(first.table, _observed(s, table2))
    (p,) = interp.proposals(change, s.game)
    assert p.entry["player"] == "Ann" and p.entry["play"] == "red:1-1"
    assert p.entry["on"] == "red:0-1" and p.entry["source"] == "camera"
    assert change.added[0].layer == 1
    assert s.submit(p.entry).status == "accepted"
    # Bob lays blue 4-4 on Ann's red 0-5: the colour tells it is his
    table3 = _lay(table2, "4-4", 3, 0, BLUE, -1.0, 1.0)
    change = diff(change.table, _observed(s, table3))
    (p,) = interp.proposals(change, s.game)
    assert (p.entry["player"], p.entry["play"], p.entry["on"]) == ("Bob", "blue:4-4", "red:0-5")
    assert s.submit(p.entry).status == "accepted"
    assert s.game.view()["layouts"]["Ann"][3]["level"] == 1


def test_same_value_in_the_other_set_on_top_is_told_by_colour(tmp_path: Path) -> None:
    s = _session(tmp_path)
    interp = BuildUpInterpreter()
    s.submit({"player": "Ann", "play": "red:1-1", "on": "red:0-1"}, source="hand")
    table = _layout_seen()
    table[5] = (_at("1-1", 5, 0), RED)
    before = diff([], _observed(s, table)).table
    # Bob covers Ann's red 2-6 with his blue 2-6 (equal totals): the same value, one place
    table2 = _lay(table, "2-6", 0, 0, BLUE)
    change = diff(before, _observed(s, table2))
    assert [str(x.tile) for x in change.added] == ["blue:2-6"]
    assert [(o.tile, n.tile) for o, n in change.covered] == [
        (Tile.parse("red:2-6"), Tile.parse("blue:2-6"))]
    (p,) = interp.proposals(change, s.game)
    assert (p.entry["player"], p.entry["play"], p.entry["on"]) == ("Bob", "blue:2-6", "red:2-6")
    assert s.submit(p.entry).status == "accepted"


def test_a_copy_of_a_value_on_the_table_read_in_an_unclear_colour_is_the_other_sets(
        tmp_path: Path) -> None:
    """Bob's blue 0-5 read in a colour between red and blue: ``observe`` gives it the one set
    the table holds 0-5 in (red), but red 0-5 is still there (under it, or at its own place),
    and a set holds each tile once, so it is blue's copy and Bob's play, not a tile already on
    the table (before, the play was dropped without a word)."""
    purple = (95, 60, 112)  # as near red as blue
    for col, row, on in ((3, 0, "red:0-5"), (2, 1, "blue:2-3")):
        s = _session(tmp_path / on)
        s.submit({"player": "Ann", "play": "red:1-1", "on": "red:0-1"}, source="hand")
        table = _layout_seen()
        table[5] = (_at("1-1", 5, 0), RED)
        before = diff([], _observed(s, table)).table
        table2 = _lay(table, "0-5", col, row, purple)
        seen = _observed(s, table2)
        assert str(seen[-1].tile) == "red:0-5"  # the fallback's set, before the change
        (p,) = BuildUpInterpreter().proposals(diff(before, seen), s.game)
        assert (p.entry["player"], p.entry["play"], p.entry["on"]) == ("Bob", "blue:0-5", on)
        assert s.submit(p.entry).status in ("accepted", "confirm")
        assert Tile.parse("blue:0-5") in s.game.table_tiles()


def test_a_tile_read_clearly_as_the_top_it_lies_on_asks_which_tile(tmp_path: Path) -> None:
    """A tile on red 0-5 read as red 0-5 in a clear red: a set holds each tile once, so the
    camera could not read it; a person is asked which of Bob's tiles covered it (before, it
    was dropped as a tile already on the table, without a word)."""
    s = _session(tmp_path)
    s.submit({"player": "Ann", "play": "red:1-1", "on": "red:0-1"}, source="hand")
    table = _layout_seen()
    table[5] = (_at("1-1", 5, 0), RED)
    before = diff([], _observed(s, table)).table
    seen = _observed(s, _lay(table, "0-5", 3, 0, RED))
    assert str(seen[-1].tile) == "red:0-5"
    near = _at("0-5", 3, 0).center  # the picture changed there as a tile laid does

    def changed(x: Seen) -> float:
        return 0.9 if np.linalg.norm(x.center - near) < 6 else 0.0

    change = diff(before, seen, changed=changed, fixed=True)
    assert [(str(a.tile), str(b.tile)) for a, b in change.covered] == [("red:0-5", "red:0-5")]
    (p,) = BuildUpInterpreter().proposals(change, s.game)
    assert p.entry["reading"] == {"unread_on": "red:0-5"} and p.entry["confidence"] <= 0.5
    assert (p.entry["player"], p.entry["on"]) == ("Bob", "red:0-5")
    offered = [p.entry["play"]] + [a["tile"] for a in p.entry["alternatives"]]
    assert "blue:0-5" in offered and all(t.startswith("blue:") for t in offered)
    assert "could not read" in p.message


def test_illegal_cover_alerts_and_taking_it_back_is_no_entry(tmp_path: Path) -> None:
    s = _session(tmp_path)
    interp = BuildUpInterpreter()
    table = _layout_seen()
    before = diff([], _observed(s, table)).table
    # Ann lays red 3-4 (7) on her red 2-6 (8): a non-double covers only an equal total
    bad = _lay(table, "3-4", 0, 0, RED)
    change = diff(before, _observed(s, bad))
    (p,) = interp.proposals(change, s.game)
    assert p.entry["on"] == "red:2-6"
    result = s.submit(p.entry)
    assert result.status == "illegal" and "cannot cover" in str(result.to_json())
    back = diff(change.table, _observed(s, table))
    assert [str(x.tile) for x in back.uncovered] == ["red:2-6"]
    assert interp.proposals(back, s.game) == []


def test_notices_before_the_deal_and_for_a_tile_beside_the_stacks(tmp_path: Path) -> None:
    s = Session.start(LogStore(tmp_path / "g.db"), "buildup", ["Ann", "Bob"])
    interp = BuildUpInterpreter()
    table = _layout_seen()
    (p,) = interp.proposals(diff([], _observed(s, table)), s.game)
    assert p.entry is None and "before the deal" in p.message
    s2 = _session(tmp_path / "two")
    before = diff([], _observed(s2, table)).table
    aside = table + [(_at("1-1", 3, 2), RED)]  # on the table in front of the rows
    (p,) = interp.proposals(diff(before, _observed(s2, aside)), s2.game)
    assert p.entry is None and "not on a stack top" in p.message
    gone = diff(before, _observed(s2, table[1:]))
    (p,) = interp.proposals(gone, s2.game)
    assert p.entry is None and "taken off the table" in p.message
    assert "laid on it that the camera could not read" in p.message


# --- Stackernoes ----------------------------------------------------------------------------------

CELL = 24.0


def _on_cells(a: int, b: int, ca: tuple[int, int], cb: tuple[int, int], lift: float = 0.0) -> Seen:
    """A tile with the half showing ``a`` over cell ``ca`` and ``b`` over ``cb`` (a cell is
    CELL px; ``lift`` px shifts it up the picture, as a stacked tile looks)."""
    return on_cells(a, b, ca, cb, CELL, lift=lift)


def _snap_session(tmp_path: Path) -> Session:
    return Session.start(LogStore(tmp_path / "s.db"), "stackernoes", ["Ann", "Bob"])


def _play(s: Session, before: list[Seen], after: list[Seen]) -> tuple[dict, list[Seen]]:
    change = diff(before, after)
    (p,) = interpreter_for("stackernoes").proposals(change, s.game)
    assert p.entry is not None, p.message
    return p.entry, change.table


def test_stackernoes_run_stack_and_illegal_end(tmp_path: Path) -> None:
    s = _snap_session(tmp_path)
    # a double led: its cell (0, 0) is the left one in the picture
    lead = _on_cells(2, 2, (0, 0), (1, 0))
    entry, table = _play(s, [], [lead])
    assert (entry["play"], entry["at"], entry["level"]) == ("2-2", [[0, 0], [1, 0]], 0)
    assert s.submit(entry).status == "confirm"  # who led is not seen: a person is asked
    confirm_lead(s)
    # Bob extends the run to the left: the 2 touches the double, the low half first
    t25 = _on_cells(5, 2, (-2, 0), (-1, 0))
    entry, table = _play(s, table, table + [t25])
    assert (entry["player"], entry["play"], entry["at"], entry["level"]) == (
        "Bob", "2-5", [[-1, 0], [-2, 0]], 0)
    assert s.submit(entry).status == "accepted"
    # Ann extends it further; Bob stacks 2-9 on the 2-5 (its 2 over the 2), one level up, seen a
    # little up the picture as stacked tiles look
    t57 = _on_cells(7, 5, (-4, 0), (-3, 0))
    entry, table = _play(s, table, table + [t57])
    assert (entry["player"], entry["at"]) == ("Ann", [[-3, 0], [-4, 0]])
    assert s.submit(entry).status == "accepted"
    t29 = _on_cells(9, 2, (-2, 0), (-1, 0), lift=3.0)
    after = [x for x in table if x.tile != Tile.of(2, 5)] + [t29]
    entry, table = _play(s, table, after)
    assert (entry["player"], entry["play"], entry["at"], entry["level"]) == (
        "Bob", "2-9", [[-1, 0], [-2, 0]], 1)
    assert s.submit(entry).status == "accepted"
    assert {(c["x"], c["level"]) for c in s.game.view()["cells"]} >= {(-1, 1), (-2, 1)}
    # Ann lays 6-8 at the right end of the run, which shows 2: the rules say why not
    t68 = _on_cells(6, 8, (2, 0), (3, 0))
    entry, _ = _play(s, table, table + [t68])
    assert entry["at"] == [[2, 0], [3, 0]] and entry["level"] == 0
    result = s.submit(entry)
    assert result.status == "illegal" and "must show 2" in str(result.to_json())


def test_stackernoes_play_right_after_a_draw_asks_whether_the_drawer_passed(
        tmp_path: Path) -> None:
    """Bob drew; the tile laid next is his drawn tile, or Ann's after a pass nobody entered (the
    camera cannot see a pass). It asks, offering Ann's play after Bob's pass as one tap."""
    s = Session.start(LogStore(tmp_path / "s.db"), "stackernoes", ["Ann", "Bob", "Cy"])
    lead = _on_cells(2, 2, (0, 0), (1, 0))
    entry, table = _play(s, [], [lead])
    s.submit(entry)
    confirm_lead(s)  # Ann led
    assert s.submit({"player": "Bob", "draw": 1}, source="hand").status == "accepted"
    t25 = _on_cells(5, 2, (-2, 0), (-1, 0))
    entry, table = _play(s, table, table + [t25])
    assert (entry["player"], entry["play"], entry["confidence"]) == ("Bob", "2-5", 0.5)
    assert "Bob drew" in entry["note"]
    assert entry["alternatives"][0] == {"player": "Cy", "play": "2-5", "at": [[-1, 0], [-2, 0]],
                                        "level": 0, "before": [{"player": "Bob", "pass": True}]}
    asked = s.submit(entry)
    assert asked.status == "confirm"
    assert s.correct(asked.alert.id, asked.alert.alternatives[0]).status == "accepted"
    assert [h["text"] for h in s.history[-2:]][0] == "Bob passes"
    assert s.history[-1]["entry"]["player"] == "Cy"


def test_stackernoes_tiles_laid_while_the_lead_is_asked_about_follow_it(tmp_path: Path) -> None:
    """Nobody has said who led the 2-2 yet: read against the game as that question would
    leave it (``Session.as_answered``), the next tile is a play beside it, on its grid, by the
    next player, held until the question is answered; then both are logged, in order. Read
    against the log alone it would be taken for a first tile of its own."""
    s = _snap_session(tmp_path)
    lead = _on_cells(2, 2, (0, 0), (1, 0))
    entry, table = _play(s, [], [lead])
    asked = s.submit(entry).alert
    assert asked is not None and asked.kind == "confirm"
    t25 = _on_cells(5, 2, (-2, 0), (-1, 0))
    change = diff(table, table + [t25])
    (alone,) = interpreter_for("stackernoes").proposals(change, s.game)
    assert alone.entry["at"] == [[0, 0], [1, 0]]  # the log alone: no grid yet
    (p,) = interpreter_for("stackernoes").proposals(change, s.as_answered())
    assert (p.entry["player"], p.entry["play"], p.entry["at"], p.entry["level"]) == (
        "Bob", "2-5", [[-1, 0], [-2, 0]], 0)
    held = s.submit(p.entry)
    assert held.status == "confirm" and held.alert.held and s.history == []
    assert s.confirm(asked.id).status == "accepted"
    assert [h["entry"]["play"] for h in s.history] == ["2-2", "2-5"]
    assert s.history[1]["entry"]["player"] == "Bob" and s.alerts == []

def test_stackernoes_grid_needs_known_tiles(tmp_path: Path) -> None:
    from companion.interpret_stacks import grid_estimate

    s = _snap_session(tmp_path)
    lone = _on_cells(3, 4, (0, 0), (1, 0))
    assert grid_estimate(lone, s.game, []) is None
    entry, table = _play(s, [], [lone])
    assert entry["at"] == [[0, 0], [1, 0]]  # a non-double led: its low half on (0, 0)
    s.submit(entry)
    confirm_lead(s)
    low, high = grid_estimate(_on_cells(4, 6, (2, 0), (3, 0)), s.game, table)
    assert np.allclose(low, [2, 0], atol=0.05) and np.allclose(high, [3, 0], atol=0.05)


def test_a_tile_over_a_lost_stack_guesses_the_one_top_it_may_cover(tmp_path: Path) -> None:
    s = _session(tmp_path)
    table = _layout_seen()
    before = diff([], _observed(s, table)).table
    # the camera lost sight of Ann's 4-5 stack; her 3-6 (9) is then seen there over nothing
    # known: 4-5 is the only top of total 9, so that is the guess, and a person is asked
    lost = [x for x in before if x.tile != Tile.parse("red:4-5")]
    laid = table[:1] + table[2:] + [(_at("3-6", 1, 0, 1.0, 1.0), RED)]
    (p,) = BuildUpInterpreter().proposals(diff(lost, _observed(s, laid)), s.game)
    assert (p.entry["play"], p.entry["on"]) == ("red:3-6", "red:4-5")
    assert p.entry["confidence"] <= 0.5


def test_a_tile_laid_on_a_top_but_not_read_asks_which_tile(tmp_path: Path) -> None:
    """The Build Up demo's step 13: Ann lays red:0-3 exactly on Bob's blue:0-3 under a glare
    spot and the reader finds neither there. The picture at blue:0-3 changed as a tile laid
    does with nothing read: not a notice to type the play on the tablet but a question about
    Ann's play on blue:0-3, the tiles the covering rules let go there to pick from. Where the
    picture changed less than a tile laid (a shadow, or the reader missing the top), the top is
    kept, unseen, and nothing is asked (Build Up tiles stay where they are laid)."""
    s = _session(tmp_path)
    table = _layout_seen()
    before = diff([], _observed(s, table)).table
    top = next(x for x in before if x.tile == Tile.parse("blue:0-3"))
    after = [x for x in before if x.tile != top.tile]

    def changed(at: float):
        return lambda x: at if np.linalg.norm(x.center - top.center) < 5 else 0.0

    (p,) = BuildUpInterpreter().proposals(diff(before, after, changed=changed(0.9), fixed=True),
                                          s.game)
    # Ann's red tiles not on the table that cover a 0-3: total 3, or any double
    fits = ["red:0-0", "red:0-3", "red:1-1", "red:1-2", "red:2-2", "red:3-3", "red:4-4",
            "red:5-5", "red:6-6"]
    assert (p.entry["player"], p.entry["on"]) == ("Ann", "blue:0-3")
    assert [p.entry["play"]] + [a["tile"] for a in p.entry["alternatives"]] == fits
    assert p.entry["confidence"] == round(1 / len(fits), 4)
    assert "If nothing was laid and blue:0-3 was knocked off, dismiss this" in p.message
    assert s.submit(p.entry).status == "confirm"
    quiet = diff(before, after, changed=changed(0.1), fixed=True)
    assert not quiet.removed
    assert [x.unseen for x in quiet.table if x.tile == top.tile] == [1]
    assert BuildUpInterpreter().proposals(quiet, s.game) == []


def test_a_tile_read_with_the_value_it_lies_on_asks_which_tile_nearest_first(
        tmp_path: Path) -> None:
    """Stackernoes seed 4: Dee lays 0-8 exactly on the 0-9 (0 over 0), and the reader reads it
    0-9. The tracking sees a tile laid on the 0-9 with the 0-9's value: a set holds each tile
    once, so it is a tile the camera could not read, and a person is asked which, the plays
    whose numbers are nearest those read coming first (before, nothing was asked and the play
    was lost, and every later play went to the wrong player)."""
    s = _snap_session(tmp_path)
    lead = _on_cells(2, 2, (0, 0), (1, 0))
    entry, table = _play(s, [], [lead])
    s.submit(entry)
    confirm_lead(s)
    nine, five = _on_cells(2, 9, (2, 0), (3, 0)), _on_cells(9, 5, (4, 0), (5, 0))
    for t in (nine, five):  # the 2-9 in the run's middle: a tile may go on it
        entry, table = _play(s, table, table + [t])
        assert s.submit(entry).status == "accepted"
    misread = _on_cells(2, 9, (2, 0), (3, 0), lift=1.0)  # a 2-8 laid on it, read 2-9
    near = nine.center
    change = diff(table, [lead, misread, five],
                  changed=lambda x: 0.9 if np.linalg.norm(x.center - near) < 6 else 0.0,
                  fixed=True)
    assert [a.tile for a, _ in change.covered] == [Tile.of(2, 9)]
    (p,) = interpreter_for("stackernoes").proposals(change, s.game)
    assert p.entry["reading"] == {"unread_on": "2-9"} and p.entry["confidence"] <= 0.5
    offered = [(p.entry["play"], p.entry["at"])] + [(a["tile"], a["at"])
                                                    for a in p.entry["alternatives"]]

    def off(tile: str, at: list) -> int:  # pips from the numbers read (2 on (2,0), 9 on (3,0))
        t = Tile.parse(tile)
        read = {(2, 0): 2, (3, 0): 9}
        return sum(abs(v - read[tuple(c)]) for c, v in zip(at, (t.low, t.high)))

    assert off(*offered[0]) == 1 and ("2-8", [[2, 0], [3, 0]]) in offered[:3], offered
    assert [off(*o) for o in offered] == sorted(off(*o) for o in offered)
    # with a play seen in the same change (a tile laid beside it changes part of its picture
    # too), the known tile read again is not asked about
    beside = _on_cells(5, 6, (6, 0), (7, 0))
    both = diff(table, [lead, misread, five, beside],
                changed=lambda x: 0.9 if min(np.linalg.norm(x.center - near),
                                             np.linalg.norm(x.center - beside.center)) < 6
                else 0.0, fixed=True)
    asked = interpreter_for("stackernoes").proposals(both, s.game)
    assert [p.entry["play"] for p in asked if p.entry] == ["5-6"]


def test_a_play_refused_where_it_is_offers_the_same_play_nearby(tmp_path: Path) -> None:
    """A person's play on cells the rules refuse (the camera's cells of a misread tile kept
    with the value put right: Stackernoes seed 3, a 4-5 across the run where it lies along it)
    offers the same play on the places nearby the rules take, one tap each; a play far from
    any such place, or by a player whose turn it is not, offers none."""
    s = _snap_session(tmp_path)
    entry, table = _play(s, [], [_on_cells(2, 2, (0, 0), (1, 0))])
    s.submit(entry)
    confirm_lead(s)
    r = s.submit({"player": "Bob", "play": "2-5", "at": [[2, 1], [3, 1]], "level": 0})
    assert r.status == "illegal"
    assert r.alert.alternatives == [{"player": "Bob", "play": "2-5", "at": [[2, 0], [3, 0]],
                                     "level": 0}]
    assert s.correct(r.alert.id, r.alert.alternatives[0]).status == "accepted"
    far = s.submit({"player": "Ann", "play": "5-6", "at": [[9, 5], [10, 5]], "level": 0})
    assert far.status == "illegal" and far.alert.alternatives == []
    wrong_turn = s.submit({"player": "Bob", "play": "5-6", "at": [[4, 1], [5, 1]], "level": 0})
    assert wrong_turn.status == "illegal"
    assert all(a.get("player") != "Bob" or a.get("play") != "5-6" or "before" in a
               for a in wrong_turn.alert.alternatives)


def test_a_stackernoes_tile_gone_from_sight_asks_whether_it_was_covered_or_taken(
        tmp_path: Path) -> None:
    """A tile that vanishes may be under a tile the camera did not read (the tracker cannot
    tell): the notice names both ways and enters nothing."""
    s = _snap_session(tmp_path)
    lead = _on_cells(2, 2, (0, 0), (1, 0))
    entry, table = _play(s, [], [lead])
    s.submit(entry)
    confirm_lead(s)
    (p,) = interpreter_for("stackernoes").proposals(diff(table, []), s.game)
    assert p.entry is None and "2-2 is not seen any more" in p.message
    assert "taken off the table, put it back" in p.message
    assert "laid on it that the camera could not read" in p.message



def _run_of_three(tmp_path: Path, last: tuple[int, int] = (2, 7)
                  ) -> tuple[Session, list[Seen], Seen]:
    """Stackernoes: 2-2 led, 2-5 and 2-7 (``last``) laid at either end (Bob to play); the
    session, the tracked table and 2-2."""
    s = _snap_session(tmp_path)
    lead = _on_cells(2, 2, (0, 0), (1, 0))
    entry, table = _play(s, [], [lead])
    s.submit(entry)
    confirm_lead(s)
    for tile in (_on_cells(5, 2, (-2, 0), (-1, 0)), _on_cells(*last, (2, 0), (3, 0))):
        entry, table = _play(s, table, table + [tile])
        assert s.submit(entry).status == "accepted"
    return s, table, lead


def test_a_stackernoes_tile_covered_by_a_tile_not_read_asks_which_play(tmp_path: Path) -> None:
    """Bob lays a tile on the double 2-2 in the middle of the run under a glare spot and the
    reader finds neither: the picture at 2-2 changed as a tile laid does with nothing read
    there (the tracking's ``unread``). Not the notice to type the play on the tablet but a
    question about Bob's stacked play on 2-2, the placements the rules allow there to pick
    from; a tile gone where the tracking cannot say that stays the removal notice."""
    s, table, lead = _run_of_three(tmp_path)
    after = [x for x in table if x.tile != lead.tile]

    def changed(x: Seen) -> float:
        return 0.9 if np.linalg.norm(x.center - lead.center) < 5 else 0.0

    change = diff(table, after, changed=changed, fixed=True)
    assert change.removed == [] and [x.tile for x in change.unread] == [lead.tile]
    (p,) = interpreter_for("stackernoes").proposals(change, s.game)
    assert p.entry is not None, p.message
    assert (p.entry["player"], p.entry["level"]) == ("Bob", 1)
    assert p.entry["reading"] == {"unread_on": "2-2"}
    # the camera cannot tell that from 2-2 knocked off: the question says what to do then
    assert "If nothing was laid and 2-2 was knocked off, dismiss this" in p.message
    # Bob's tiles not on the table with a 2 (over the double's 2s), each either way round:
    # 14 plays, the first 12 offered
    plays = [(p.entry["play"], p.entry["at"])] + [(a["tile"], a["at"]) for a in p.alternatives]
    assert len(plays) == 12 and p.entry["confidence"] == round(1 / 14, 4)
    assert all("2" in t.split("-") and sorted(map(tuple, at)) == [(0, 0), (1, 0)]
               for t, at in plays)
    asked = s.submit(p.entry)
    assert asked.status == "confirm" and asked.alert is not None
    # an other play offered (its tile, cells and level) is a whole entry the rules accept
    other = asked.alert.alternatives[0]
    assert (other["play"], other["at"]) == plays[1] and other["level"] == 1
    assert s.correct(asked.alert.id, other).status == "accepted"
    # without the memory the tracking cannot say a tile was laid on it: the removal notice
    (n,) = interpreter_for("stackernoes").proposals(diff(table, after), s.game)
    assert n.entry is None and "2-2 is not seen any more" in n.message


def test_a_tile_not_read_is_a_notice_when_a_play_was_seen_in_the_same_change(
        tmp_path: Path) -> None:
    """A tile read and laid in the same change as a tile covered by one not read: the play
    read is proposed; the tile not read is a notice (one question at a time about the turn)."""
    s, table, lead = _run_of_three(tmp_path)
    t79 = _on_cells(7, 9, (4, 0), (5, 0))
    after = [x for x in table if x.tile != lead.tile] + [t79]

    def changed(x: Seen) -> float:
        return 0.9 if min(np.linalg.norm(x.center - t.center) for t in (lead, t79)) < 5 else 0.0

    change = diff(table, after, changed=changed, fixed=True)
    assert [x.tile for x in change.unread] == [lead.tile]
    out = interpreter_for("stackernoes").proposals(change, s.game)
    assert [p.entry is None for p in out] == [False, True]
    assert (out[0].entry["play"], out[0].entry["at"]) == ("7-9", [[4, 0], [5, 0]])
    assert "2-2 is not seen any more" in out[1].message


def _read_again_as(table: list[Seen], tile: Tile, as_tile: Tile, halves: tuple[int, int]
                   ) -> tuple[TableChange, TableChange]:
    """The tracking over two still readings in which the tile ``tile`` of ``table`` is read,
    sure, as ``as_tile`` (halves in picture order ``halves``) at its place: the first change
    (nothing yet) and the second (``replaced``)."""
    first = next(x for x in table if x.tile == tile)
    other = dataclasses.replace(first, tile=as_tile, halves=halves, confidence=0.99)
    after = [x for x in table if x.tile != tile] + [other]

    def still(x: Seen) -> float:
        return 0.0

    once = diff(table, after, changed=still, fixed=True)
    twice = diff(once.table, after, changed=still, fixed=True)
    return once, twice


def _replayed(s: Session) -> dict:
    """The scores and table of the session's exported log, replayed."""
    result = replay_lines(s.export_jsonl().splitlines())
    return {"scores": result.game.scores, "view": result.game.view()}


def test_a_logged_tile_the_tracking_reads_again_as_another_value_asks_to_amend_its_play(
        tmp_path: Path) -> None:
    """2-7 is entered from the one reading that found it; then the reader reads 2-8 at its
    place, sure, twice while nothing changes there: the tracking takes the first reading for a
    misreading (``replaced``). The camera does not change the log: it asks to amend the play
    of 2-7 to 2-8 on the same cells and level, one tap; the tap amends it (a correction, the
    camera's readings kept), and the log replays as one that had 2-8 from the start. Before
    the second reading nothing is said; a tile replaced that was never entered gets nothing."""
    s, table, _ = _run_of_three(tmp_path)
    seq = next(h["seq"] for h in s.history if h["entry"]["play"] == "2-7")
    once, twice = _read_again_as(table, Tile.of(2, 7), Tile.of(2, 8), (2, 8))
    interp = interpreter_for("stackernoes")
    assert once.empty and interp.proposals(once, s.game) == []
    assert [(a.tile, b.tile) for a, b in twice.replaced] == [(Tile.of(2, 7), Tile.of(2, 8))]
    (p,) = interp.proposals(twice, s.game)
    assert p.entry is not None and p.entry[REREAD] == {
        "was": "2-7", "as": {"play": "2-8", "at": [[2, 0], [3, 0]]}}
    asked = s.submit(p.entry, source="camera")
    assert asked.status == "amend" and asked.alert is not None
    alert = asked.alert
    assert alert.kind == "amend" and alert.amend == {"seq": seq, "was": "2-7",
                                                     "text": "Ann plays 2-7 on the table at cells (2, 0) and (3, 0)"}
    assert alert.message.startswith("the camera now reads 2-8 where it first read 2-7: amend "
                                    "the play of 2-7 to 2-8?")
    assert [h["entry"]["play"] for h in s.history] == ["2-2", "2-5", "2-7"]  # not changed yet
    from_start, _, _ = _run_of_three(tmp_path / "x", last=(2, 8))
    assert _replayed(s) != _replayed(from_start)
    assert s.submit(p.entry, source="camera").alert is alert  # asked once
    done = s.confirm(alert.id)
    assert (done.status, done.seq) == ("amended", seq) and s.alerts == []
    item = s.history[-1]
    assert (item["seq"], item["entry"]["play"], item["entry"]["at"], item["entry"]["level"]) == \
        (seq, "2-8", [[2, 0], [3, 0]], 0)
    assert item["amended"] and item["source"] == "correction"
    assert item["entry"]["reading"]["tile"] == "2-8"
    assert item["entry"]["reading"]["first_read"]["tile"] == "2-7"
    assert _replayed(s) == _replayed(from_start)  # as a log that had 2-8 from the start
    s.undo()  # 2-8 no longer in the log: nothing to say
    assert interp.proposals(twice, s.game) == []


def test_a_tile_read_again_turned_round_keeps_each_half_on_its_cell(tmp_path: Path) -> None:
    """The first reading said 2-7 (2 next to the run's 2, 7 outside); the picture now says 0-2
    with its 2 where the 2 was: the amended play puts 0-2's low half (0) on the outer cell,
    which the rules accept (the 2 still meets the run's 2)."""
    s, table, _ = _run_of_three(tmp_path)
    _, twice = _read_again_as(table, Tile.of(2, 7), Tile.of(0, 2), (2, 0))
    (p,) = interpreter_for("stackernoes").proposals(twice, s.game)
    assert p.entry[REREAD]["as"] == {"play": "0-2", "at": [[3, 0], [2, 0]]}
    alert = s.submit(p.entry, source="camera").alert
    assert alert is not None and alert.kind == "amend"
    s.confirm(alert.id)
    assert s.history[-1]["entry"]["at"] == [[3, 0], [2, 0]]


def test_a_tile_read_again_the_rules_refuse_stays_a_notice_that_says_why(tmp_path: Path) -> None:
    """2-7 read again as 2-5, which lies at the other end of the run: the amended log would hold
    2-5 twice, so no amendment is offered; a notice names the rules' reason and the log is as
    it was."""
    s, table, _ = _run_of_three(tmp_path)
    before = [h["entry"] for h in s.history]
    _, twice = _read_again_as(table, Tile.of(2, 7), Tile.of(2, 5), (2, 5))
    (p,) = interpreter_for("stackernoes").proposals(twice, s.game)
    got = s.submit(p.entry, source="camera")
    assert got.status == "notice" and got.alert is not None and got.alert.kind == "notice"
    assert got.alert.message.startswith("the camera now reads 2-5 where it first read 2-7, but "
                                        "the play of 2-7 cannot be amended to 2-5 (")
    assert ("line 3, the amended entry itself, breaks: Ann plays 2-5 on the table at cells "
            "(2, 0) and (3, 0): 2-5 is already on the table): if 2-5 was played there"
            in got.alert.message)
    assert "legal:" not in got.alert.message
    assert [h["entry"] for h in s.history] == before


def _buildup_round(tmp_path: Path, tile: str) -> Session:
    """Build Up: Ann (red) plays ``tile`` on Bob's blue:1-5 from the camera, both pass, the
    round ends."""
    s = _session(tmp_path)
    entries = [{"player": "Ann", "play": tile, "on": "blue:1-5", "confidence": 0.99},
               {"player": "Bob", "pass": True}, {"player": "Ann", "pass": True},
               {"end_round": {}}]
    for e in entries:
        assert s.submit(e, source="camera" if "play" in e else "hand").status == "accepted"
    return s


def test_buildup_a_play_read_again_is_amended_with_one_tap_and_rescored(tmp_path: Path) -> None:
    """Ann's red 3-3 on Bob's blue 1-5 was entered from one reading; the tracking now reads
    4-4 there (its set not read: it stays the first reading's, red). One tap amends the play,
    and the round's scores are those of a log that had red 4-4 from the start (Ann's tops
    score 8 instead of 6); "keep" (dismiss) leaves the log as it was."""
    s = _buildup_round(tmp_path, "red:3-3")
    old = dataclasses.replace(_at("red:3-3", 1, 1), layer=1)
    new = dataclasses.replace(_at("4-4", 1, 1), layer=1)
    change = TableChange(replaced=[(old, new)], table=[new])
    (p,) = BuildUpInterpreter().proposals(change, s.game)
    assert p.entry[REREAD] == {"was": "red:3-3", "as": {"play": "red:4-4"}}
    right = _buildup_round(tmp_path / "right", "red:4-4")
    assert s.game.scores != right.game.scores
    # kept: nothing changes
    kept = s.submit(p.entry, source="camera").alert
    assert kept is not None and kept.kind == "amend"
    s.dismiss(kept.id)
    assert s.history[1]["entry"]["play"] == "red:3-3" and s.game.scores != right.game.scores
    # amended with one tap
    alert = s.submit(p.entry, source="camera").alert
    assert alert is not None and alert.kind == "amend" and alert.id != kept.id
    assert s.confirm(alert.id).status == "amended"
    assert (s.history[1]["entry"]["play"], s.history[1]["entry"]["on"]) == ("red:4-4", "blue:1-5")
    assert s.game.scores == right.game.scores == {"Ann": 45, "Bob": 26}
    assert _replayed(s) == _replayed(right)


def test_buildup_a_layout_tile_read_again_is_a_notice(tmp_path: Path) -> None:
    """A tile of the layouts read again as another value: no play put it there (the deal did),
    so nothing is offered to amend; a notice says where to change it."""
    s = _session(tmp_path)
    old, new = _at("red:0-1", 5, 0), _at("red:0-2", 5, 0)
    (p,) = BuildUpInterpreter().proposals(TableChange(replaced=[(old, new)], table=[new]), s.game)
    got = s.submit(p.entry, source="camera")
    assert got.status == "notice" and got.alert is not None
    assert "no play of red:0-1 is in the log to amend" in got.alert.message


def test_tiles_seen_at_once_offer_the_other_order_on_the_guessed_grid(tmp_path: Path) -> None:
    """The camera first sees the table with two tiles on it (the first was laid out of its
    sight): which was laid first, and so who laid each, is a guess. The first question offers
    the other order in one tap (the other tile first, then this one: ``before``), with each
    player leading, its cells on the grid of the guessed order; taking it logs both in that
    order and closes both questions."""
    from companion.interpret_base import propose
    from companion.session import BEFORE

    s = _snap_session(tmp_path)
    eight, blank = _on_cells(8, 0, (-2, 0), (-1, 0)), _on_cells(0, 0, (0, 0), (1, 0))
    change = diff([], [eight, blank])
    props = propose(interpreter_for("stackernoes"), change, s.game)
    first, second = props
    assert (first.entry["player"], first.entry["play"]) == ("Ann", "0-8")
    assert (second.entry["player"], second.entry["play"]) == ("Bob", "0-0")
    assert first.entry["confidence"] <= 0.5 and second.entry["confidence"] <= 0.5
    # who led is not seen either: the other order once with each player leading
    other = [a for a in first.entry["alternatives"] if BEFORE in a]
    assert [(a[BEFORE][0]["player"], a["player"]) for a in other] == [("Ann", "Bob"),
                                                                       ("Bob", "Ann")]
    (told,) = other[0][BEFORE]
    # the double on the cells the guessed order gave it, then the 0-8 where it was guessed
    assert (told["play"], told["at"]) == ("0-0", second.entry["at"])
    assert other[0]["at"] == first.entry["at"]
    asked = s.submit(first.entry).alert
    held = s.submit(second.entry).alert
    assert asked is not None and held is not None
    result = s.correct(asked.id, other[0])
    assert result.status == "accepted"
    assert [(h["entry"]["player"], h["entry"]["play"]) for h in s.history] == [
        ("Ann", "0-0"), ("Bob", "0-8")]
    assert s.alerts == []


def test_three_tiles_seen_at_once_offer_every_legal_order(tmp_path: Path) -> None:
    """Three tiles in a row seen at once (the camera started on a table in play): every order
    the rules take is a tap away, not only those with another tile first. The 0-8 guessed
    first may have come last after the 0-0 and then the 0-5 (each offered with either player
    leading), or after the 0-5 and then the 0-0; an order whose second tile touches nothing
    laid before it (0-8, then 0-5) is not offered."""
    from companion.interpret_base import propose
    from companion.session import BEFORE

    s = _snap_session(tmp_path)
    eight, blank = _on_cells(8, 0, (-2, 0), (-1, 0)), _on_cells(0, 0, (0, 0), (1, 0))
    five = _on_cells(0, 5, (2, 0), (3, 0))
    props = propose(interpreter_for("stackernoes"), diff([], [eight, blank, five]), s.game)
    assert [p.entry["play"] for p in props] == ["0-8", "0-0", "0-5"]
    last = {tuple(b["play"] for b in a[BEFORE]) for p in props for a in p.entry["alternatives"]
            if BEFORE in a and len(a[BEFORE]) == 2}
    assert ("0-0", "0-5") in last and ("0-5", "0-0") in last  # the 0-8 last
    assert ("0-0", "0-8") in last and ("0-8", "0-0") in last  # the 0-5 last
    assert ("0-8", "0-5") not in last and ("0-5", "0-8") not in last
    asked = [s.submit(p.entry).alert for p in props]
    answer = next(a for a in props[0].entry["alternatives"] if BEFORE in a
                  and [b["play"] for b in a[BEFORE]] == ["0-0", "0-5"] and a["player"] == "Ann")
    assert s.correct(asked[0].id, answer).status == "accepted"
    assert [(h["entry"]["player"], h["entry"]["play"]) for h in s.history] == [
        ("Ann", "0-0"), ("Bob", "0-5"), ("Ann", "0-8")]
    assert s.alerts == []


def test_one_tile_seen_offers_no_other_order(tmp_path: Path) -> None:
    from companion.interpret_base import propose
    from companion.session import BEFORE

    s = _snap_session(tmp_path)
    (p,) = propose(interpreter_for("stackernoes"), diff([], [_on_cells(2, 2, (0, 0), (1, 0))]),
                   s.game)
    assert not any(BEFORE in a for a in p.entry["alternatives"])


def test_same_grid_turns_and_shifts_a_plan_onto_the_guessed_grid() -> None:
    """A plan that laid the double first put it on (0, 0)-(1, 0); the guessed order laid the
    3-4 there first, so the same places are other cells, turned half round and shifted."""
    from companion.interpret_stacks import StackernoesInterpreter

    guessed = [{"player": "Ann", "play": "3-4", "at": [[0, 0], [1, 0]], "level": 0},
               {"player": "Bob", "play": "4-4", "at": [[2, 0], [3, 0]], "level": 0}]
    plan = [{"player": "Ann", "play": "4-4", "at": [[0, 0], [1, 0]], "level": 0},
            {"player": "Bob", "play": "3-4", "at": [[3, 0], [2, 0]], "level": 0}]
    moved = StackernoesInterpreter.same_grid(plan, guessed)
    assert moved == [{"player": "Ann", "play": "4-4", "at": [[3, 0], [2, 0]], "level": 0},
                     {"player": "Bob", "play": "3-4", "at": [[0, 0], [1, 0]], "level": 0}]
    # no turn of the grid puts the tiles where the guess has them: the plan as it is
    apart = [dict(plan[0]), dict(plan[1], at=[[5, 5], [5, 6]])]
    assert StackernoesInterpreter.same_grid(apart, guessed) == apart


def test_tiles_seen_at_once_are_played_in_an_order_the_rules_take(tmp_path: Path) -> None:
    """The camera first sees a run of three tiles, read in the order 0-2, 0-9, 0-0, where the
    0-9 touches only the 0-0 (Stackernoes seed 7, started at frame 4). Read in that order the
    0-9 would be a tile apart from the run, refused; the 0-0 the rules take goes before it.
    Each play asks (the order is a guess) and all three are legal in turn."""
    s = _snap_session(tmp_path)
    run = [_on_cells(0, 2, (0, 0), (1, 0)), _on_cells(9, 0, (-4, 0), (-3, 0)),
           _on_cells(0, 0, (-2, 0), (-1, 0))]
    props = interpreter_for("stackernoes").proposals(diff([], run), s.game)
    assert [(p.entry["player"], p.entry["play"]) for p in props] == [
        ("Ann", "0-2"), ("Bob", "0-0"), ("Ann", "0-9")]
    assert all(p.entry["confidence"] <= 0.5 for p in props)
    trial = copy.deepcopy(s.game)
    for p in props:
        move = Move.from_json({k: v for k, v in p.entry.items()
                               if k in ("player", "play", "at", "level")})
        assert trial.accepts(move), p.entry
        trial.apply(move)


def _partly(value: int, ca: tuple[int, int], cb: tuple[int, int]) -> Seen:
    """A tile whose half showing ``value`` lies on cell ``ca`` and whose other half, on ``cb``,
    runs out of the picture (as the live loop makes it from the reader's cut tile)."""
    whole = _on_cells(value, 0, ca, cb)
    cut = SimpleNamespace(seen_half=(0, value, 0.99), corners=whole.corners, layer=0)
    return Seen.partly_from_reading(cut, 9)


def test_a_tile_running_out_of_the_picture_asks_which_tile_it_is(tmp_path: Path) -> None:
    """Only the 2 half of a tile laid against the led 2-2 is in the picture: the play is the
    lowest value's tile (0-2) with the 2 on its cell, asked with a note that says why, and each
    other value not on the table is offered on the same cells with its 2 on the 2's cell (2-5
    names the 2 first, so its cells are the other way round)."""
    s = _snap_session(tmp_path)
    entry, table = _play(s, [], [_on_cells(2, 2, (0, 0), (1, 0))])
    s.submit(entry)
    confirm_lead(s)
    entry, table = _play(s, table, table + [_partly(2, (2, 0), (3, 0))])
    assert (entry["player"], entry["play"], entry["at"], entry["level"]) == (
        "Bob", "0-2", [[3, 0], [2, 0]], 0)
    assert entry["confidence"] < 0.5 and "only its 2 half is in the picture" in entry["note"]
    offered = {a["tile"]: a["at"] for a in entry["alternatives"]}
    assert offered["1-2"] == [[3, 0], [2, 0]] and offered["2-5"] == [[2, 0], [3, 0]]
    assert "2-2" not in offered and len(offered) == 8  # the 2-2 is on the table
    result = s.submit(entry)
    assert result.status == "confirm" and "only its 2 half" in result.alert.message
    answer = next(a for a in result.alert.alternatives if a["play"] == "2-5")
    assert s.correct(result.alert.id, answer).status == "accepted"
    assert s.history[-1]["entry"]["at"] == [[2, 0], [3, 0]]


def test_a_whole_tile_of_the_guessed_value_is_played_not_dropped(tmp_path: Path) -> None:
    """The tile running out of the picture was guessed 0-2 and its question is open (the game
    the next change is read against has the guess); a 0-2 then laid in full on the other side
    of the double is a play of its own, on its cells, not the guessed tile seen again."""
    s = _snap_session(tmp_path)
    entry, table = _play(s, [], [_on_cells(2, 2, (0, 0), (1, 0))])
    s.submit(entry)
    confirm_lead(s)
    guess, table = _play(s, table, table + [_partly(2, (2, 0), (3, 0))])
    assert s.submit(guess).status == "confirm"
    whole = _on_cells(0, 2, (-2, 0), (-1, 0))
    change = diff(table, table + [whole])
    props = interpreter_for("stackernoes").proposals(change, s.as_answered())
    assert [(p.entry["play"], p.entry["at"]) for p in props if p.entry] == [
        ("0-2", [[-2, 0], [-1, 0]])]
