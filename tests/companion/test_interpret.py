"""The interpreters, game by game, on synthetic camera readings: a :class:`Seen` per tile at a
known place, diffed with :func:`companion.tracking.diff` and submitted to a real session."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.interpret import (
    INTERPRETERS,
    RowInterpreter,
    TrickInterpreter,
    interpreter_for,
)
from companion.gamelog import replay_lines
from companion.session import REREAD, Session
from companion.store import LogStore
from companion.tiles import Tile
from companion.tracking import Seen, TableChange, diff
from live_helpers import W, L, confirm_lead, tile_at




def _session(tmp_path: Path, game: str, players: list[str]) -> Session:
    return Session.start(LogStore(tmp_path / "g.db"), game, players)


def _feed(s: Session, before: list[Seen], after: list[Seen]) -> list[dict]:
    """Interpret the change and submit every entry; returns what happened."""
    out = []
    for p in interpreter_for(s.game.name).proposals(diff(before, after), s.game):
        if p.entry is None:
            out.append({"notice": p.message})
        else:
            out.append({"entry": p.entry, "status": s.submit(p.entry, source="camera").status})
    return out


def test_every_camera_game_has_an_interpreter() -> None:
    assert set(INTERPRETERS) == {"allfives", "chickenfoot", "super", "castlerock", "fortytwo",
                                 "moon", "buildup", "stackernoes"}
    with pytest.raises(ValueError, match="cannot follow snooker yet"):
        interpreter_for("snooker")


# --- line games -------------------------------------------------------------------------------

def test_allfives_chain_of_two_at_once_and_an_illegal_tile(tmp_path: Path) -> None:
    s = _session(tmp_path, "allfives", ["Ann", "Bob", "Cy"])
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    far = tile_at(0, 2, 100 + W / 2 + L + L / 2 + 2, 100)
    _feed(s, [], [spinner])
    confirm_lead(s)
    # two tiles appear in one still picture: the one touching the table goes first
    got = _feed(s, [spinner], [spinner, far, right])
    assert [(g["entry"]["player"], g["entry"]["play"], g["entry"]["on"], g["status"])
            for g in got] == [("Bob", "0-5", "5-5", "accepted"), ("Cy", "0-2", "0-5", "accepted")]
    wrong = tile_at(6, 6, 100 - W / 2 - L / 2 - 1, 100)
    got = _feed(s, [spinner, right, far], [spinner, right, far, wrong])
    assert got[0]["status"] == "illegal"
    alert = s.state()["alerts"][0]
    assert alert["kind"] == "illegal" and "6-6" in alert["message"]


def test_chickenfoot_centre_double_is_no_play(tmp_path: Path) -> None:
    s = _session(tmp_path, "chickenfoot", ["Ann", "Bob"])
    hub = tile_at(9, 9, 100, 100, vertical=True)
    toe = tile_at(9, 4, 100 + W / 2 + L / 2 + 1, 100)
    got = _feed(s, [], [hub, toe])
    assert [(g["entry"]["play"], g["entry"]["on"], g["status"]) for g in got] == [
        ("4-9", "9-9", "accepted")]


def test_chickenfoot_toe_a_little_off_its_double_is_played_on_it(tmp_path: Path) -> None:
    """A second toe laid at an angle touches the first toe (no legal play there) and lies half
    a tile width off the double: the legal play on the double is proposed, not an illegal one
    on the toe it touches."""
    s = _session(tmp_path, "chickenfoot", ["Ann", "Bob"])
    hub = tile_at(9, 9, 100, 100, vertical=True)
    toe = tile_at(9, 4, 100 + W / 2 + L / 2 + 1, 100)
    _feed(s, [], [hub, toe])
    second = tile_at(9, 5, 100 + W / 2 + W / 2 + L / 2, 100 + W + 1)
    got = _feed(s, [hub, toe], [hub, toe, second])
    assert [(g["entry"]["play"], g["entry"]["on"], g["status"]) for g in got] == [
        ("5-9", "9-9", "accepted")]
    assert not s.state()["alerts"]


def test_super_first_double(tmp_path: Path) -> None:
    s = _session(tmp_path, "super", ["Ann", "Bob"])
    got = _feed(s, [], [tile_at(15, 15, 100, 100, vertical=True)])
    assert got[0]["status"] == "confirm" and "on" not in got[0]["entry"]
    confirm_lead(s)
    assert s.history[-1]["text"] == "Ann plays 15-15"


def test_who_led_a_round_is_asked_unless_the_hands_seat_says(tmp_path: Path) -> None:
    """Without the deal any player may lead the round's double: the camera does not guess the
    player whose turn it is (the All Fives demo took 4 openers wrong that way); it asks, unless
    the live loop knows over which side of the table the hand came (``reached_by``). Later
    plays follow the turn, whatever the hand's side says."""
    s = _session(tmp_path, "allfives", ["Ann", "Bob", "Cy"])
    lead = tile_at(6, 6, 100, 100, vertical=True)
    (p,) = interpreter_for("allfives").proposals(diff([], [lead]), s.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Ann", 0.5)
    # the reading is sure: the question asks only the player (a held one is settled by the
    # turn once a tile is logged); an unsure reading asks its value too, and is not so marked
    assert p.entry["reading"]["unsure_of"] == "player"
    (unsure,) = interpreter_for("allfives").proposals(
        diff([], [tile_at(6, 6, 100, 100, vertical=True, conf=0.8)]), s.game)
    assert unsure.entry["confidence"] == 0.5 and "unsure_of" not in unsure.entry["reading"]
    # the other players who may lead it are offered (one tap on the dashboard), first
    offered = [(a.get("player"), a.get("play")) for a in p.entry["alternatives"]]
    assert offered[:2] == [("Bob", "6-6"), ("Cy", "6-6")]
    tap = _session(tmp_path / "tap", "allfives", ["Ann", "Bob", "Cy"])
    asked = tap.submit(p.entry)
    assert asked.status == "confirm" and asked.alert is not None
    assert tap.correct(asked.alert.id, asked.alert.alternatives[1]).status == "accepted"
    assert tap.history[-1]["text"] == "Cy plays 6-6"
    change = diff([], [lead])
    change.reached_by = "Cy"
    (p,) = interpreter_for("allfives").proposals(change, s.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Cy", 0.99)
    assert "unsure_of" not in p.entry["reading"]
    assert s.submit(p.entry).status == "accepted"
    nxt = tile_at(6, 2, 100 + W / 2 + L / 2 + 1, 100)
    change = diff([lead], [lead, nxt])
    change.reached_by = "Ann"  # the turn's seat: nothing to ask
    (p,) = interpreter_for("allfives").proposals(change, s.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Ann", 0.99) and "note" not in p.entry
    # another seat does not override the turn the rules enforce, but it asks whether the
    # players between passed (the camera never sees a pass), offering that as one tap
    change.reached_by = "Bob"
    (p,) = interpreter_for("allfives").proposals(change, s.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Ann", 0.5)
    assert "unsure_of" not in p.entry["reading"]  # not settled by the turn behind a question
    assert p.entry["alternatives"][0] == {"player": "Bob", "play": "2-6", "on": "6-6",
                                          "before": [{"player": "Ann", "pass": True}]}
    asked = s.submit(p.entry, source="camera")
    assert asked.status == "confirm"
    assert asked.alert.message.endswith(": the hand came from Bob's side of the table, but the "
                                        "log has it Ann's turn: did the players between pass?")
    assert s.correct(asked.alert.id, asked.alert.alternatives[0]).status == "accepted"
    assert [h["text"] for h in s.history[-2:]] == ["Ann passes", "Bob plays 2-6 on 6-6"]
    # Stackernoes: who leads the first tile is as open
    st = _session(tmp_path / "st", "stackernoes", ["Ann", "Bob"])
    change = diff([], [tile_at(2, 2, 100, 100)])
    (p,) = interpreter_for("stackernoes").proposals(change, st.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Ann", 0.5)
    assert p.entry["reading"]["unsure_of"] == "player"
    assert (p.entry["alternatives"][0]["player"], p.entry["alternatives"][0]["play"]) == \
        ("Bob", "2-2")
    change.reached_by = "Bob"
    (p,) = interpreter_for("stackernoes").proposals(change, st.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Bob", 0.99)


def test_a_play_right_after_the_turns_draw_asks_whether_they_passed(tmp_path: Path) -> None:
    """Chickenfoot: Ann drew; the tile laid next may be hers (the drawn tile) or the next
    player's after a pass nobody entered (the camera never sees a pass). Unless her seat is
    known to have laid it, the play asks, offering the next players' plays with the passes
    before them as one tap; one of those taken logs the pass and the play."""
    s = _session(tmp_path, "chickenfoot", ["Ann", "Bob", "Cy"])
    hub = tile_at(9, 9, 100, 100, vertical=True)
    toe = tile_at(9, 4, 100 + W / 2 + L / 2 + 1, 100)
    _feed(s, [], [hub])
    assert s.submit({"player": "Ann", "draw": 1}, source="hand").status == "accepted"
    change = diff([hub], [hub, toe])
    (p,) = interpreter_for("chickenfoot").proposals(change, s.game)
    assert (p.entry["player"], p.entry["play"], p.entry["confidence"]) == ("Ann", "4-9", 0.5)
    assert "Ann drew" in p.entry["note"] and "pass" in p.entry["note"]
    assert p.entry["alternatives"][:2] == [
        {"player": "Bob", "play": "4-9", "on": "9-9", "before": [{"player": "Ann", "pass": True}]},
        {"player": "Cy", "play": "4-9", "on": "9-9",
         "before": [{"player": "Ann", "pass": True}, {"player": "Bob", "pass": True}]}]
    asked = s.submit(p.entry, source="camera")
    assert asked.status == "confirm" and "did Ann lay the drawn tile" in asked.alert.message
    assert s.correct(asked.alert.id, asked.alert.alternatives[0]).status == "accepted"
    assert [h["text"] for h in s.history[-2:]] == ["Ann passes", "Bob plays 4-9 on 9-9"]
    # the hand from the drawer's own seat: her play, nothing asked; no draw: nothing asked
    again = _session(tmp_path / "again", "chickenfoot", ["Ann", "Bob", "Cy"])
    _feed(again, [], [hub])
    again.submit({"player": "Ann", "draw": 1}, source="hand")
    change.reached_by = "Ann"
    (p,) = interpreter_for("chickenfoot").proposals(change, again.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Ann", 0.99) and "note" not in p.entry
    plain = _session(tmp_path / "plain", "chickenfoot", ["Ann", "Bob", "Cy"])
    _feed(plain, [], [hub])
    (p,) = interpreter_for("chickenfoot").proposals(diff([hub], [hub, toe]), plain.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Ann", 0.99) and "note" not in p.entry
    # the draw named the tile laid: it is the drawer's, nothing to ask
    named = _session(tmp_path / "named", "chickenfoot", ["Ann", "Bob", "Cy"])
    _feed(named, [], [hub])
    assert named.submit({"player": "Ann", "draw": "4-9"}, source="hand").status == "accepted"
    (p,) = interpreter_for("chickenfoot").proposals(diff([hub], [hub, toe]), named.game)
    assert (p.entry["player"], p.entry["confidence"]) == ("Ann", 0.99) and "note" not in p.entry


# --- Castle Rock --------------------------------------------------------------------------------

def _row(values: list[tuple[int, int]], x0: float = 100.0) -> list[Seen]:
    return [tile_at(a, b, x0 + i * (W + 6), 200, vertical=True) for i, (a, b) in enumerate(values)]


def test_castlerock_array_of_three_then_draws_in_row_order(tmp_path: Path) -> None:
    s = _session(tmp_path, "castlerock", ["Sol"])
    three = _row([(1, 2), (3, 4), (5, 6)])
    # read in any order: the draw names them left to right
    got = _feed(s, [], [three[2], three[0], three[1]])
    assert got == [{"entry": got[0]["entry"], "status": "accepted"}]
    assert got[0]["entry"]["draw"] == ["1-2", "3-4", "5-6"]
    assert s.game.row == [Tile.of(1, 2), Tile.of(3, 4), Tile.of(5, 6)]
    four = _row([(1, 2), (3, 4), (5, 6), (0, 7)])
    got = _feed(s, three, four)
    assert [(g["entry"]["draw"], g["status"]) for g in got] == [("0-7", "accepted")]


def test_castlerock_a_draw_laid_at_the_left_end_asks_and_says_to_move_it(
        tmp_path: Path) -> None:
    """Draws go to the right end of the row (seed: "always adding them to the right side"): one
    laid at the left end, or inside the row, was logged as a right-end draw without a word,
    and the rules' row then differed from the table (found by a rules audit). Now a person is
    asked, told to move it; the same row seen from the other side of the table is measured
    along the row, not the picture."""
    s = _session(tmp_path, "castlerock", ["Sol"])
    three = _row([(1, 2), (3, 4), (5, 6)])
    _feed(s, [], three)
    left = tile_at(0, 7, 100 - (W + 6), 200, vertical=True)
    got = _feed(s, three, three + [left])
    assert [(g["entry"]["draw"], g["status"]) for g in got] == [("0-7", "confirm")]
    assert got[0]["entry"]["confidence"] <= 0.5
    assert "0-7 lies at the left end of the row or inside it, but a draw goes to the right end" \
        in got[0]["entry"]["note"]
    # the camera on the other side of the table: the row runs right to left in the picture,
    # and its right end is at the picture's left
    from companion.interpret import _not_right_of_row

    row = [Tile.of(1, 2), Tile.of(3, 4), Tile.of(5, 6)]
    seen_turned = _row([(5, 6), (3, 4), (1, 2)])
    far_left = tile_at(0, 7, 100 - (W + 6), 200, vertical=True)
    far_right = tile_at(0, 7, 100 + 3 * (W + 6), 200, vertical=True)
    assert _not_right_of_row([far_left], row, seen_turned) == []
    assert _not_right_of_row([far_right], row, seen_turned) == [far_right]
    assert _not_right_of_row([far_right], row[:1], seen_turned) == []  # nothing to measure by


def test_a_value_already_seen_on_the_table_is_a_misread_and_asks(tmp_path: Path) -> None:
    """One set holds each value once: a drawn tile read with the value of a tile still seen in
    the row (the Castle Rock demo's 2-7 under a glare spot, read 0-7, was dropped as "known"
    and the draw missed) is proposed as its likeliest value not on the table, and a person is
    asked; with no such alternative, as read, asking. The same in a line game."""
    import dataclasses

    s = _session(tmp_path, "castlerock", ["Sol"])
    three = _row([(1, 2), (0, 7), (5, 6)])
    _feed(s, [], three)
    misread = dataclasses.replace(_row([(1, 2), (0, 7), (5, 6), (0, 7)])[3], confidence=0.95,
                                  alternatives=(("1-2", 0.03), ("2-7", 0.02)))
    got = _feed(s, three, three + [misread])
    assert [(g["entry"]["draw"], g["entry"]["confidence"], g["status"]) for g in got] == [
        ("2-7", 0.02, "confirm")]
    assert got[0]["entry"]["alternatives"] == []
    bare = dataclasses.replace(misread, alternatives=())
    got = _feed(s, three, three + [bare])
    assert [(g["entry"]["draw"], g["entry"]["confidence"]) for g in got] == [("0-7", 0.5)]
    # a tile put back where it lay (nothing else of its value seen) is still no entry
    assert _feed(s, three[:2], three) == []
    # All Fives: 5-0 read as 5-5 (the spinner, seen where it lies) at the spinner's side
    a5 = _session(tmp_path / "a5", "allfives", ["Ann", "Bob"])
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    _feed(a5, [], [spinner])
    confirm_lead(a5)
    side = dataclasses.replace(tile_at(5, 5, 100 + W / 2 + L / 2 + 1, 100),
                               alternatives=(("5-5", 0.1), ("0-5", 0.05)))
    got = _feed(a5, [spinner], [spinner, side])
    assert [(g["entry"]["play"], g["entry"]["on"], g["entry"]["confidence"], g["status"])
            for g in got] == [("0-5", "5-5", 0.05, "confirm")]


def test_an_unsure_reading_that_makes_no_legal_play_proposes_a_legal_alternative(
        tmp_path: Path) -> None:
    """A half under a glare spot read blank (the demos' glare tiles: 5-6 read 0-5 against the
    6-6, 7-8 read 0-7 against an 8): the value read makes no legal play where the tile lies,
    so the likeliest of the reader's other values that does is proposed, still as a question
    (the value read offered too, and kept as the reading); a sure reading stays as read, for
    the rules to raise their alert."""
    import dataclasses

    s = _session(tmp_path, "allfives", ["Ann", "Bob"])
    spinner = tile_at(6, 6, 100, 100, vertical=True)
    _feed(s, [], [spinner])
    confirm_lead(s)
    glare = dataclasses.replace(tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100), confidence=0.3,
                                alternatives=(("2-5", 0.1), ("6-6", 0.1), ("5-6", 0.1)))
    (p,) = interpreter_for("allfives").proposals(diff([spinner], [spinner, glare]), s.game)
    assert (p.entry["play"], p.entry["on"], p.entry["confidence"]) == ("5-6", "6-6", 0.3)
    assert p.entry["reading"]["tile"] == "0-5"
    assert [a["tile"] for a in p.entry["alternatives"]] == ["0-5", "2-5", "6-6"]
    sure = dataclasses.replace(glare, confidence=0.95)
    (p,) = interpreter_for("allfives").proposals(diff([spinner], [spinner, sure]), s.game)
    assert (p.entry["play"], p.entry["on"]) == ("0-5", "6-6")
    assert s.submit(p.entry).status == "illegal"


def _partly(whole: Seen, set_max: int, index: int = 0) -> Seen:
    """``whole`` running out of the picture with only its half ``index`` in it, read surely (as
    the live loop makes it from the reader's cut tile: a guess for the other half)."""
    from types import SimpleNamespace

    cut = SimpleNamespace(seen_half=(index, whole.halves[index], 0.99), corners=whole.corners,
                          layer=0)
    return Seen.partly_from_reading(cut, set_max)


def test_a_tile_running_out_of_the_picture_is_guessed_among_tiles_not_taken(
        tmp_path: Path) -> None:
    """Only the 6 half of a drawn tile is in the picture: the guess is the lowest value whose
    tile is not drawn yet (the 0-6 is in the row), the draw asks with a note that says why, and
    only tiles not drawn are offered. In a trick game the guess is the first value the rules
    take from the player (with the deal entered, Cy must follow suit 5: not the 0-5 he does not
    hold, the 2-5 he does); a guess is no renege."""
    s = _session(tmp_path, "castlerock", ["Sol"])
    three = _row([(0, 6), (3, 4), (5, 9)])
    _feed(s, [], three)
    cut = _partly(_row([(0, 6), (3, 4), (5, 9), (6, 2)])[3], 9)
    assert str(cut.tile) == "0-6"
    got = _feed(s, three, three + [cut])
    assert [(g["entry"]["draw"], g["status"]) for g in got] == [("1-6", "confirm")]
    assert "only its 6 half is in the picture" in got[0]["entry"]["note"]
    offered = [a["tile"] for a in got[0]["entry"]["alternatives"]]
    assert offered == ["2-6", "3-6", "4-6", "5-6", "6-6", "6-7", "6-8", "6-9"], offered

    t = _session(tmp_path / "42", "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    deal = {"Ann": ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
            "Bob": ["1-1", "1-2", "1-3", "1-4", "1-5", "1-6", "2-2"],
            "Cy": ["2-3", "2-4", "2-5", "2-6", "3-3", "3-4", "3-5"],
            "Dee": ["3-6", "4-4", "4-5", "4-6", "5-5", "5-6", "6-6"]}
    assert t.submit({"deal": deal}).status == "accepted"
    _bid_42(t)
    lead = tile_at(1, 5, 100, 60)
    _feed(t, [], [lead])
    cut = _partly(tile_at(5, 2, 140, 100), 6)
    got = _feed(t, [lead], [lead, cut])
    assert [(g["entry"]["player"], g["entry"]["play"], g["status"]) for g in got] == [
        ("Cy", "2-5", "confirm")]
    assert "only its 5 half" in got[0]["entry"]["note"]
    assert "1-5" not in [a["tile"] for a in got[0]["entry"]["alternatives"]]  # led already
    assert t.state()["alerts"][0]["kind"] == "confirm"

    a5 = _session(tmp_path / "a5", "allfives", ["Ann", "Bob"])
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    _feed(a5, [], [spinner])
    confirm_lead(a5)
    _feed(a5, [spinner], [spinner, right])
    cut = _partly(tile_at(3, 5, 100 - W / 2 - L / 2 - 1, 100), 6, 1)  # its 3 half runs out
    got = _feed(a5, [spinner, right], [spinner, right, cut])
    assert [(g["entry"]["play"], g["entry"]["on"], g["status"]) for g in got] == [
        ("1-5", "5-5", "confirm")]


def test_a_guess_without_the_deal_is_never_a_renege(tmp_path: Path) -> None:
    """Forty-Two without the deal, trump 6: Cy showed void in 5 in trick 1; in trick 2 he lays
    the 5-6 (a trump) with only its 5 half in the picture. The lowest untaken value, 0-5, would
    prove a renege: the guess passes over every value that would, and proposes the 5-6."""
    s = _session(tmp_path, "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    for e in [{"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"},
              {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"},
              {"player": "Bob", "trump": 6}]:
        assert s.submit(e).status == "accepted"
    table: list[Seen] = []
    for t in (tile_at(1, 5, 100, 60), tile_at(3, 4, 140, 100), tile_at(5, 5, 100, 140),
              tile_at(0, 1, 60, 100)):  # Bob leads 1-5; Cy plays 3-4: no 5
        assert [g["status"] for g in _feed(s, table, table + [t])] == ["accepted"]
        table.append(t)
    _feed(s, table, [])
    table = []
    for t in (tile_at(2, 2, 100, 60), tile_at(0, 2, 140, 100), tile_at(1, 2, 100, 140)):
        assert [g["status"] for g in _feed(s, table, table + [t])] == ["accepted"]
        table.append(t)
    cut = _partly(tile_at(5, 6, 60, 100), 6)
    assert str(cut.tile) == "0-5"
    got = _feed(s, table, table + [cut])
    assert [(g["entry"]["player"], g["entry"]["play"], g["status"]) for g in got] == [
        ("Cy", "5-6", "confirm")]
    assert not s.state().get("reneges") and "reneges" not in s.game.result()


def test_castlerock_draw_while_a_removal_is_due_is_illegal(tmp_path: Path) -> None:
    s = _session(tmp_path, "castlerock", ["Sol"])
    row = _row([(1, 2), (3, 4), (1, 5), (5, 8)])
    for k in range(1, 4):
        assert _feed(s, row[:k - 1], row[:k])[0]["status"] == "accepted"
    # 3-4 lies between 1-2 and 1-5 (both show 1): it must go before 5-8 is drawn
    got = _feed(s, row[:3], row)
    assert got[0]["entry"]["draw"] == "5-8" and got[0]["status"] == "illegal"
    assert "compulsory" in s.state()["alerts"][0]["message"]


def test_castlerock_triple_in_one_picture(tmp_path: Path) -> None:
    s = _session(tmp_path, "castlerock", ["Sol"])
    row = _row([(2, 6), (3, 6), (6, 9)])
    _feed(s, [], row)
    # a triple (all show 6) or the middle 3-6 may go; all three vanish: the triple
    got = _feed(s, row, [])
    assert [(g["entry"]["remove"], g["status"]) for g in got] == [
        (["2-6", "3-6", "6-9"], "accepted")]
    assert s.game.row == []


def test_castlerock_chain_of_removals_in_one_picture(tmp_path: Path) -> None:
    s = _session(tmp_path, "castlerock", ["Sol"])
    row = _row([(3, 4), (4, 6), (7, 9), (3, 6)])
    for k in range(1, 5):
        assert _feed(s, row[:k - 1], row[:k])[0]["status"] == "accepted"
    # 7-9 may go (4-6 and 3-6 share 6); only then 4-6 (3-4 and 3-6 share 3). Both vanish at
    # once: the rules' order is found, not the reading order
    got = _feed(s, row, [row[0], row[3]])
    assert [(g["entry"]["remove"], g["status"]) for g in got] == [
        (["7-9"], "accepted"), (["4-6"], "accepted")]
    assert [str(t) for t in s.game.row] == ["3-4", "3-6"]


def test_castlerock_illegal_removal_alerts_and_put_back_is_no_entry(tmp_path: Path) -> None:
    s = _session(tmp_path, "castlerock", ["Sol"])
    row = _row([(1, 2), (3, 4), (5, 6)])
    _feed(s, [], row)
    got = _feed(s, row, [row[0], row[2]])  # 3-4 taken out: its neighbours share no number
    assert got[0]["entry"]["remove"] == ["3-4"] and got[0]["status"] == "illegal"
    assert "share no number" in s.state()["alerts"][0]["message"]
    got = _feed(s, [row[0], row[2]], row)  # put back: the rules still have it in the row
    assert got == []
    assert [str(t) for t in s.game.row] == ["1-2", "3-4", "5-6"]


def test_castlerock_interpreter_is_a_row_interpreter() -> None:
    assert isinstance(interpreter_for("castlerock"), RowInterpreter)


# --- trick games --------------------------------------------------------------------------------

def _bid_42(s: Session) -> None:
    for entry in ({"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"},
                  {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"},
                  {"player": "Bob", "trump": 6}):
        assert s.submit(entry).status == "accepted"


def test_fortytwo_plays_in_turn_and_gathered_trick_is_no_entry(tmp_path: Path) -> None:
    s = _session(tmp_path, "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    _bid_42(s)
    trick = [tile_at(5, 3, 100, 60), tile_at(5, 1, 140, 100), tile_at(5, 5, 100, 140),
             tile_at(2, 3, 60, 100)]
    table: list[Seen] = []
    for k, t in enumerate(trick):
        got = _feed(s, table, table + [t])
        assert [(g["entry"]["player"], g["entry"]["play"], g["status"]) for g in got] == [
            (["Bob", "Cy", "Dee", "Ann"][k], str(t.tile), "accepted")]
        assert "on" not in got[0]["entry"]
        table = table + [t]
    assert s.game.tricks_won["Dee"] == 1  # 5-5 is the highest of suit 5
    assert _feed(s, table, []) == []  # gathered face down: nothing to log
    got = _feed(s, [], [tile_at(6, 4, 100, 60)])
    assert got[0]["entry"]["player"] == "Dee" and got[0]["status"] == "accepted"


def test_fortytwo_notices_tile_turned_up_and_taken_from_trick(tmp_path: Path) -> None:
    s = _session(tmp_path, "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    _bid_42(s)
    a = tile_at(5, 3, 100, 60)
    _feed(s, [], [a])
    got = _feed(s, [a], [])
    assert "taken out of the trick" in got[0]["notice"]
    for v, p in (("5-1", "Cy"), ("5-5", "Dee"), ("2-3", "Ann")):
        assert s.submit({"player": p, "play": v}).status == "accepted"
    got = _feed(s, [], [tile_at(5, 5, 100, 140)])  # a gathered tile turned face up
    assert "face up again" in got[0]["notice"] and len(got) == 1


def test_fortytwo_several_new_tiles_ask_a_person(tmp_path: Path) -> None:
    s = _session(tmp_path, "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    _bid_42(s)
    got = _feed(s, [], [tile_at(5, 3, 100, 60), tile_at(5, 1, 140, 100)])
    assert [g["status"] for g in got] == ["confirm", "confirm"]
    assert all(g["entry"]["confidence"] <= 0.5 for g in got)


def test_fortytwo_follow_suit_with_the_deal_raises_the_illegal_alert(tmp_path: Path) -> None:
    s = _session(tmp_path, "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    deal = {"Ann": ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
            "Bob": ["1-1", "1-2", "1-3", "1-4", "1-5", "1-6", "2-2"],
            "Cy": ["2-3", "2-4", "2-5", "2-6", "3-3", "3-4", "3-5"],
            "Dee": ["3-6", "4-4", "4-5", "4-6", "5-5", "5-6", "6-6"]}
    assert s.submit({"deal": deal}).status == "accepted"
    _bid_42(s)  # Bob bids 30, trump 6
    _feed(s, [], [tile_at(1, 5, 100, 60)])  # Bob leads 1-5: suit 5
    got = _feed(s, [tile_at(1, 5, 100, 60)], [tile_at(1, 5, 100, 60), tile_at(3, 4, 140, 100)])
    assert got[0]["status"] == "illegal"  # Cy holds 2-5 and 3-5
    msg = s.state()["alerts"][0]["message"]
    assert "must follow suit 5" in msg and "2-5" in msg


def test_fortytwo_renege_without_a_deal_is_flagged_later(tmp_path: Path) -> None:
    s = _session(tmp_path, "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    _bid_42(s)
    table: list[Seen] = []
    # trick 1: Bob leads 1-5 (suit 5); Cy plays 3-4, not a 5 (legal as far as the table knows)
    for t in (tile_at(1, 5, 100, 60), tile_at(3, 4, 140, 100), tile_at(5, 5, 100, 140),
              tile_at(0, 1, 60, 100)):
        got = _feed(s, table, table + [t])
        assert got[0]["status"] == "accepted"
        table.append(t)
    _feed(s, table, [])
    # Dee won with 5-5 and leads 0-2; Ann 0-3, Bob 0-4, then Cy shows 2-5: a 5 he had
    table = []
    events = []
    for t in (tile_at(0, 2, 100, 60), tile_at(0, 3, 140, 100), tile_at(0, 4, 100, 140),
              tile_at(2, 5, 60, 100)):
        for p in interpreter_for("fortytwo").proposals(diff(table, table + [t]), s.game):
            r = s.submit(p.entry, source="camera")
            assert r.status == "accepted"
            events += r.events
        table.append(t)
    reneges = [e for e in events if e["event"] == "renege"]
    assert len(reneges) == 1 and reneges[0]["player"] == "Cy"
    assert s.game.result()["reneges"][0]["player"] == "Cy"


def test_moon_lead_before_trump_is_illegal_then_discard_and_play(tmp_path: Path) -> None:
    s = _session(tmp_path, "moon", ["Ann", "Bob", "Cy"])
    for entry in ({"player": "Bob", "bid": 5}, {"player": "Cy", "bid": "pass"},
                  {"player": "Ann", "bid": "pass"}):
        assert s.submit(entry).status == "accepted"
    lead = tile_at(6, 6, 100, 60)
    got = _feed(s, [], [lead])
    assert got[0]["status"] == "illegal" and "names trump next" in s.state()["alerts"][0]["message"]
    s.resolve_taken_back(set())  # the tile is taken back
    assert s.submit({"player": "Bob", "trump": 3}).status == "accepted"
    assert s.submit({"player": "Bob", "discard": "1-2"}).status == "accepted"
    got = _feed(s, [], [lead])
    assert (got[0]["entry"]["player"], got[0]["status"]) == ("Bob", "accepted")
    got = _feed(s, [lead], [lead, tile_at(1, 2, 140, 100)])  # the discard cannot be played
    assert got[0]["status"] == "illegal"
    assert isinstance(interpreter_for("moon"), TrickInterpreter)


def test_moon_all_tricks_played_extra_tile_is_a_notice(tmp_path: Path) -> None:
    s = _session(tmp_path, "moon", ["Ann", "Bob", "Cy"])
    from companion.simulate import play_random_game

    sim = play_random_game("moon", ["Ann", "Bob", "Cy"], 3)
    for m in sim.moves:
        if m.kind == "end_round":
            break
        if m.kind != "deal":
            assert s.submit(m.to_json()).status == "accepted"
    assert s.game.round_over
    got = _feed(s, [], [tile_at(0, 0, 100, 100)])
    assert got and all("notice" in g for g in got)


def test_castlerock_draw_and_the_removal_it_allows_in_one_picture(tmp_path: Path) -> None:
    s = _session(tmp_path, "castlerock", ["Sol"])
    row = _row([(3, 4), (4, 6), (7, 9), (3, 6)])
    for k in range(1, 4):
        assert _feed(s, row[:k - 1], row[:k])[0]["status"] == "accepted"
    # 3-6 is laid and 7-9 taken out before the camera sees a still table: draw, then remove
    got = _feed(s, row[:3], [row[0], row[1], row[3]])
    assert [(g["entry"].get("draw"), g["entry"].get("remove"), g["status"]) for g in got] == [
        ("3-6", None, "accepted"), (None, ["7-9"], "accepted")]


def test_row_order_across_and_upright() -> None:
    from companion.interpret import _row_order

    across = [tile_at(1, 2, 300, 105, vertical=True), tile_at(3, 4, 100, 100, vertical=True),
              tile_at(5, 6, 200, 95, vertical=True)]
    assert [str(s.tile) for s in _row_order(across)] == ["3-4", "5-6", "1-2"]
    upright = [tile_at(1, 2, 101, 300), tile_at(3, 4, 99, 100), tile_at(5, 6, 100, 200)]
    assert [str(s.tile) for s in _row_order(upright)] == ["3-4", "5-6", "1-2"]


# --- a logged tile read again as another value ------------------------------------------------

# All Fives, the seed's example: 5-5 leads (10), 0-5 on it (10), 3-5 on the spinner, 0-2 on the
# 0 (5).
SEED_PLAYS = [{"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"},
              {"player": "Ann", "play": "3-5", "on": "5-5"},
              {"player": "Bob", "play": "0-2", "on": "0-5"}]


def _seed_game(tmp_path: Path, third: str = "3-5") -> Session:
    s = _session(tmp_path, "allfives", ["Ann", "Bob"])
    for e in SEED_PLAYS:
        e = dict(e, play=third) if e["play"] == "3-5" else e
        assert s.submit(e).status == "accepted"
    return s


def test_a_line_game_play_read_again_is_amended_with_one_tap(tmp_path: Path) -> None:
    """Should the tracking report a logged tile read again as another value (it does so where
    tiles stay where laid; the line games' interpreter takes the same report): 3-5 on the
    spinner read again as 5-6. The camera asks to amend the play, one tap amends it (on the
    same tile), and the log replays to the scores of a log that had 5-6 from the start (the
    ends 0 and 6 then count 8: no score for Bob's 0-2)."""
    s = _seed_game(tmp_path)
    assert s.game.scores == {"Ann": 10, "Bob": 15}
    old, new = tile_at(3, 5, 100, 60, vertical=True), tile_at(6, 5, 100, 60, vertical=True)
    change = TableChange(replaced=[(old, new)], table=[new])
    (p,) = interpreter_for("allfives").proposals(change, s.game)
    assert p.entry[REREAD] == {"was": "3-5", "as": {"play": "5-6"}}
    alert = s.submit(p.entry, source="camera").alert
    assert alert is not None and alert.kind == "amend" and alert.amend["was"] == "3-5"
    assert s.confirm(alert.id).status == "amended"
    assert s.history[2]["entry"]["play"] == "5-6" and s.history[2]["entry"]["on"] == "5-5"
    right = _seed_game(tmp_path / "right", third="5-6")
    assert s.game.scores == right.game.scores == {"Ann": 10, "Bob": 10}
    replayed = replay_lines(s.export_jsonl().splitlines())
    assert replayed.game.scores == right.game.scores


def test_a_line_game_play_a_later_play_depends_on_stays_a_notice(tmp_path: Path) -> None:
    """0-5 read again as 5-6: Bob's later 0-2 went on the 0 of 0-5, so the amended log would not
    replay; no amendment is offered, the notice names the play that depends on it."""
    s = _seed_game(tmp_path)
    old, new = tile_at(0, 5, 140, 100), tile_at(6, 5, 140, 100)
    (p,) = interpreter_for("allfives").proposals(
        TableChange(replaced=[(old, new)], table=[new]), s.game)
    got = s.submit(p.entry, source="camera")
    assert got.status == "notice" and got.alert is not None and got.alert.kind == "notice"
    assert "cannot be amended to 5-6" in got.alert.message
    assert "entry 4 (Bob plays 0-2 on 0-5), breaks: Bob plays 0-2 on 0-5: 0-5 is not on the table" \
        in got.alert.message
    assert [h["entry"]["play"] for h in s.history] == ["5-5", "0-5", "3-5", "0-2"]
    assert s.game.scores == {"Ann": 10, "Bob": 15}


def test_a_lead_laid_while_the_bids_are_typed_is_logged_once_the_bidding_closes(
        tmp_path: Path) -> None:
    """Forty-Two: the lead is on the table before the last bids and the trump are entered on
    the tablet. The camera's play was refused (the bidding was on, and it named the player
    bidding next) and its alert went stale; a person's entry that makes a held-up camera play
    legal now logs it, by the player whose turn it is (found by a trick-game audit)."""
    s = Session.start(LogStore(tmp_path / "g.db"), "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    assert s.submit({"player": "Bob", "bid": 30}).status == "accepted"
    for p in interpreter_for("fortytwo").proposals(diff([], [tile_at(6, 6, 300, 160)]), s.game):
        assert p.entry is not None and s.submit(p.entry, source="camera").status == "illegal"
    assert [a.kind for a in s.alerts] == ["illegal"]
    for entry in ({"player": "Cy", "bid": "pass"}, {"player": "Dee", "bid": "pass"},
                  {"player": "Ann", "bid": "pass"}):
        assert s.submit(entry).status == "accepted"
        assert [a.kind for a in s.alerts] == ["illegal"]  # still no trick to lead to
    assert s.submit({"player": "Bob", "trump": 4}).status == "accepted"
    assert s.alerts == []
    assert [h["text"] for h in s.state()["history"]][-2:] == ["Bob names trump 4",
                                                             "Bob plays 6-6"]
    assert s.state()["view"]["trick"] == [{"player": "Bob", "tile": "6-6"}]
