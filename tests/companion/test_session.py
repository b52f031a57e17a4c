"""The Session's editing of the past: amend, refusal, reopening the store, undo after amend."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from companion.games import find_game
from companion.moves import Move
from companion.errors import IllegalMoveError, MoveFormatError
from companion.session import BEFORE, ENTRY_KIND_LIMIT, AmendError, Session
from companion.simulate import play_random_game
from companion.store import LogStore, StoreError

# The seed's example: 5-5 leads (10), 5-0 on it (10), 3-5 on the spinner (no score), 0-2 on
# the 0 (5).
SEED_PLAYS = [{"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"},
              {"player": "Ann", "play": "3-5", "on": "5-5"},
              {"player": "Bob", "play": "0-2", "on": "0-5"}]


def started(tmp_path: Path) -> tuple[LogStore, Session]:
    store = LogStore(tmp_path / "games.sqlite")
    session = Session.start(store, "allfives", ["Ann", "Bob"])
    for e in SEED_PLAYS:
        assert session.submit(e).status == "accepted"
    return store, session


def comparable(state: dict) -> dict:
    """A state without the version counter (which every change moves)."""
    return {k: v for k, v in state.items() if k != "version"}


def test_amend_replaces_an_entry_and_rescores(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    assert s.state()["scores"] == {"Ann": 10, "Bob": 15}
    seq = s.seqs[2]
    item = s.amend(seq, {"player": "Ann", "play": "5-6", "on": "5-5"})
    # 5-6 instead of 3-5: the ends are then 0 and 6 (6: no score), and 0-2 makes 2 + 6 = 8
    assert s.state()["scores"] == {"Ann": 10, "Bob": 10}
    assert item["seq"] == seq and item["amended"] is True and item["source"] == "correction"
    assert item["original"]["play"] == "3-5" and item["original"]["source"] == "hand"
    assert [a["replaced"] for a in item["amendments"]] == ["Ann plays 3-5 on 5-5"]
    assert item["amendments"][0]["text"] == "Ann plays 5-6 on 5-5"
    state = s.state()
    assert state["amended"] == 1
    assert [h["amended"] for h in state["history"]] == [False, False, True, False]
    assert [h["source"] for h in state["history"]] == ["hand", "hand", "correction", "hand"]
    assert state["view"]["table"] == ["5-5", "0-5", "5-6", "0-2"]


def test_amend_that_breaks_a_later_line_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.amend(s.seqs[2], {"player": "Ann", "play": "5-6", "on": "5-5"})
    before = comparable(s.state())
    rows = len(list(store.entries(s.game_id)))
    # Bob's 0-5 on the spinner becomes 5-6 on it: the later 5-6 (line 3) is then a second 5-6
    with pytest.raises(AmendError, match=r"line 3.*5-6 is already on the table"):
        s.amend(s.seqs[1], {"player": "Bob", "play": "5-6", "on": "5-5"})
    assert comparable(s.state()) == before
    assert len(list(store.entries(s.game_id))) == rows  # nothing appended


def test_illegal_amendment_itself_is_refused(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    before = comparable(s.state())
    with pytest.raises(AmendError, match=r"line 2, the amended entry itself"):
        s.amend(s.seqs[1], {"player": "Bob", "play": "1-2", "on": "5-5"})
    assert comparable(s.state()) == before


@pytest.mark.parametrize("seq, source, match", [
    (999, "correction", "entry 999 is not in force"),
    ("2", "correction", "a whole number"),
    (True, "correction", "a whole number"),
    (2, "ghost", "not one of camera, hand, correction"),
])
def test_amend_bad_requests(tmp_path: Path, seq: object, source: str, match: str) -> None:
    _, s = started(tmp_path)
    before = comparable(s.state())
    with pytest.raises(AmendError, match=match):
        s.amend(seq, {"player": "Bob", "play": "0-5", "on": "5-5"}, source=source)  # type: ignore[arg-type]
    assert comparable(s.state()) == before


def test_amendment_survives_reopening_the_store(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.amend(s.seqs[2], {"player": "Ann", "play": "5-6", "on": "5-5"})
    state = comparable(s.state())
    store.close()
    again = Session.resume(LogStore(tmp_path / "games.sqlite"))
    assert again is not None
    assert comparable(again.state()) == state
    # the original row is still on disk, and the file says it holds amendments (schema 2)
    db = sqlite3.connect(str(tmp_path / "games.sqlite"))
    kinds = [r[0] for r in db.execute("SELECT kind FROM entries ORDER BY seq")]
    schema = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0]
    bodies = [json.loads(r[0]) for r in db.execute("SELECT body FROM entries WHERE kind='move'")]
    db.close()
    assert kinds == ["move"] * 4 + ["amend"]
    assert schema == "2"
    assert bodies[2]["play"] == "3-5"


def test_undo_after_amend(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    last = s.seqs[-1]
    s.amend(last, {"player": "Bob", "play": "2-5", "on": "5-5"})
    assert s.history[-1]["text"] == "Bob plays 2-5 on 5-5"
    undone = s.undo()
    assert undone is not None and undone["seq"] == last and undone["amended"] is True
    assert s.state()["moves"] == 3
    assert s.state()["scores"] == {"Ann": 10, "Bob": 10}
    # an undone entry can no longer be amended
    with pytest.raises(AmendError, match="not in force"):
        s.amend(last, {"player": "Bob", "play": "0-2", "on": "0-5"})


def test_amend_twice_keeps_every_change(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    seq = s.seqs[2]
    s.amend(seq, {"player": "Ann", "play": "5-6", "on": "5-5"}, source="hand")
    item = s.amend(seq, {"player": "Ann", "play": "4-5", "on": "5-5"})
    assert [a["replaced"] for a in item["amendments"]] == ["Ann plays 3-5 on 5-5",
                                                           "Ann plays 5-6 on 5-5"]
    assert [a["source"] for a in item["amendments"]] == ["hand", "correction"]
    assert item["original"]["play"] == "3-5"


def test_amended_log_equals_the_log_played_right(tmp_path: Path) -> None:
    """Amending a random game's entry to what it already was changes no score; the export
    carries the amended entries."""
    sim = play_random_game("chickenfoot", 3, seed=5, max_moves=60)
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "chickenfoot", list(sim.header.players))
    for m in sim.moves:
        assert s.submit(m).status == "accepted"
    before = s.state()["scores"]
    seq = s.seqs[10]
    s.amend(seq, s.history[10]["entry"], source="camera")
    assert s.state()["scores"] == before
    assert s.state()["view"] == sim.game.view()
    assert '"source": "camera"' in s.export_jsonl()


def test_state_offers_entry_kinds(tmp_path: Path) -> None:
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    kinds = s.state()["entry_kinds"]
    assert [k["kind"] for k in kinds] == ["bid"]
    assert kinds[0]["player"] == "Bob"  # left of the shuffler (Ann)
    assert kinds[0]["values"] == ["pass"] + list(range(30, 43))
    assert kinds[0]["more"] == 0
    s2 = Session.start(store, "castlerock", ["Sol"])
    draw = s2.state()["entry_kinds"][0]
    assert draw["kind"] == "draw" and len(draw["entries"]) == min(55, ENTRY_KIND_LIMIT)


@pytest.mark.parametrize("name, seed", [("allfives", 1), ("castlerock", 2), ("moon", 3),
                                        ("super", 4)])
def test_amend_to_another_legal_move_equals_replaying_the_edited_log(
        tmp_path: Path, name: str, seed: int) -> None:
    """Replace a seeded game's entry by another move legal at that point: either the session
    refuses and nothing changes, or its state is the fold of the edited log."""
    sim = play_random_game(name, find_game(name).min_players, seed=seed, max_moves=40)
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, name, list(sim.header.players), dict(sim.header.options))
    for m in sim.moves:
        assert s.submit(m).status == "accepted"
    rng = random.Random(seed)
    outcomes = set()
    # the last entries (few lines after them to break) and a few anywhere
    picks = [len(s.seqs) - 1, len(s.seqs) - 2] + [rng.randrange(len(s.seqs)) for _ in range(4)]
    for i in picks:
        log = [h["entry"] for h in s.history]
        game = s.header.new_game()
        for e in log[:i]:
            game.apply(Move.from_json(e))
        others = [m for m in game.legal_moves() if m.to_json() != {k: v for k, v in log[i].items()
                                                                   if k not in ("source", "t")}]
        if not others:
            continue
        new = rng.choice(others).to_json()
        before = comparable(s.state())
        try:
            s.amend(s.seqs[i], new)
        except AmendError as exc:
            assert "line" in str(exc)
            assert comparable(s.state()) == before
            outcomes.add("refused")
            continue
        outcomes.add("amended")
        fresh = s.header.new_game()
        for e in log[:i] + [new] + log[i + 1:]:
            fresh.apply(Move.from_json(e))
        assert s.game.snapshot() == fresh.snapshot()
        assert s.state()["view"] == fresh.view()
    assert "amended" in outcomes, "no amendment was taken"


# --- open alerts are stored and come back after a restart -----------------------------------

def _with_open_alerts(tmp_path: Path) -> tuple[LogStore, Session, dict[str, int]]:
    """Ann's 5-5 and Bob's 0-5 logged; then an illegal placement, an uncertain reading and a
    notice, all left open."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    for e in SEED_PLAYS[:2]:
        assert s.submit(e).status == "accepted"
    ids = {}
    r = s.submit({"player": "Ann", "play": "6-6", "on": "5-5", "confidence": 0.97}, source="camera")
    assert r.status == "illegal"
    ids["illegal"] = r.alert.id
    r = s.submit({"player": "Ann", "play": "3-5", "on": "5-5", "confidence": 0.6,
                  "alternatives": [{"tile": "3-6", "p": 0.3}]}, source="camera")
    assert r.status == "confirm"
    ids["confirm"] = r.alert.id
    ids["notice"] = s.notice("a tile was knocked off the table").id
    return store, s, ids


def test_the_file_says_which_features_it_holds(tmp_path: Path) -> None:
    """Moves only: schema 1 (older companions read it); an amendment: 2; an alert: 3. A file
    marked higher than this companion reads is refused with a message naming both levels."""
    store, s = started(tmp_path)
    assert store.schema() == 1
    s.amend(s.seqs[2], {"player": "Ann", "play": "5-6", "on": "5-5"})
    assert store.schema() == 2
    s.notice("a tile was knocked off the table")
    assert store.schema() == 3
    s.amend(s.seqs[1], {"player": "Bob", "play": "0-5", "on": "5-5"})
    assert store.schema() == 3  # never lowered
    store.close()
    db = sqlite3.connect(str(tmp_path / "games.sqlite"))
    db.execute("UPDATE meta SET value='9' WHERE key='schema'")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"newer companion \(schema 9, this one reads up to 3\)"):
        LogStore(tmp_path / "games.sqlite")


def test_open_alerts_come_back_after_a_restart(tmp_path: Path) -> None:
    store, s, ids = _with_open_alerts(tmp_path)
    before = [a.to_json() for a in s.alerts]
    assert len(set(ids.values())) == 3
    store.close()
    store = LogStore(tmp_path / "games.sqlite")
    again = Session.resume(store)
    assert again is not None
    assert [a.to_json() for a in again.alerts] == before  # same ids, messages, entries, choices
    assert again.state()["alerts"] == before
    assert again.alerts[1].alternatives == [{"player": "Ann", "play": "3-6", "on": "5-5"}]
    # the restored questions are answered as if nothing had happened
    assert again.confirm(ids["confirm"]).status == "accepted"
    assert again.history[-1]["text"] == "Ann plays 3-5 on 5-5"
    again.dismiss(ids["illegal"])
    new_alert = again.notice("another notice")
    assert new_alert.id not in ids.values()  # ids are never reused
    store.close()
    store = LogStore(tmp_path / "games.sqlite")
    third = Session.resume(store)
    assert [a.id for a in third.alerts] == [ids["notice"], new_alert.id]
    assert len(third.history) == 3
    # the store kept everything, in order: raised, raised, raised, closed, closed, raised
    rows = list(store.alert_rows(third.game_id))
    assert [r.kind for r in rows] == ["raised"] * 3 + ["closed", "closed", "raised"]
    assert rows[3].body == {"alert": ids["confirm"], "how": "confirmed", "seq": third.seqs[-1]}
    assert rows[4].body == {"alert": ids["illegal"], "how": "dismissed"}
    store.close()


def test_a_correction_of_a_restored_alert_keeps_the_reading(tmp_path: Path) -> None:
    store, _, ids = _with_open_alerts(tmp_path)
    store.close()
    store = LogStore(tmp_path / "games.sqlite")
    again = Session.resume(store)
    r = again.correct(ids["confirm"], {"player": "Ann", "play": "5-6", "on": "5-5"})
    assert r.status == "accepted"
    entry = again.history[-1]["entry"]
    assert entry["source"] == "correction" and entry["reading"]["play"] == "3-5"
    # a correction the rules refuse closes the alert in favour of the new one
    r = again.correct(ids["illegal"], {"player": "Bob", "play": "4-4", "on": "5-5"})
    assert r.status == "illegal"
    rows = list(store.alert_rows(again.game_id))
    assert rows[-1].body == {"alert": ids["illegal"], "how": "corrected",
                             "replaced_by": r.alert.id}
    # the new alert keeps the place of the play it answers, ahead of the later notice (also
    # after a restart)
    assert [a.id for a in again.alerts] == [r.alert.id, ids["notice"]]
    assert r.alert.seen == ids["illegal"]
    store.close()
    store = LogStore(tmp_path / "games.sqlite")
    assert [a.id for a in Session.resume(store).alerts] == [r.alert.id, ids["notice"]]
    store.close()


def test_an_answer_is_stored_with_its_entry_or_not_at_all(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry a confirmation logs and the alert's closing are one transaction: if the
    closing cannot be written, the entry is not in the log either and the question stays."""
    store, s, ids = _with_open_alerts(tmp_path)
    entries = len(list(store.entries(s.game_id)))

    def broken(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "close_alert", broken)
    with pytest.raises(sqlite3.OperationalError):
        s.confirm(ids["confirm"])
    monkeypatch.undo()
    assert len(list(store.entries(s.game_id))) == entries
    assert len(s.history) == 2 and s.game.current_player == "Ann"  # nor in the state
    assert [a.id for a in s.alerts] == sorted(ids.values())
    assert [a.seq for a in store.open_alerts(s.game_id)] == sorted(ids.values())
    store.close()


def test_the_camera_taking_a_tile_back_closes_its_stored_alert(tmp_path: Path) -> None:
    from companion.tiles import Tile

    store, s, ids = _with_open_alerts(tmp_path)
    gone = s.resolve_taken_back({Tile.parse("5-5"), Tile.parse("0-5"), Tile.parse("3-5")})
    assert [a.id for a in gone] == [ids["illegal"]]
    assert [a.seq for a in store.open_alerts(s.game_id)] == [ids["confirm"], ids["notice"]]
    with pytest.raises(Exception, match="not open"):
        store.close_alert(s.game_id, ids["illegal"], "dismissed")
    store.close()


def test_the_camera_proposing_a_pending_tile_again_asks_no_second_time(tmp_path: Path) -> None:
    """After a restart the live loop sees every tile anew: a tile whose question is still open
    (restored) gets that question back, not a second one."""
    store, _, ids = _with_open_alerts(tmp_path)
    store.close()
    store = LogStore(tmp_path / "games.sqlite")
    again = Session.resume(store)
    rows = len(list(store.alert_rows(again.game_id)))
    r = again.submit({"player": "Ann", "play": "3-5", "on": "5-5", "confidence": 0.58},
                     source="camera")
    assert r.status == "confirm" and r.alert.id == ids["confirm"]
    r = again.submit({"player": "Ann", "play": "6-6", "on": "5-5", "confidence": 0.99},
                     source="camera")
    assert r.status == "illegal" and r.alert.id == ids["illegal"]
    assert len(list(store.alert_rows(again.game_id))) == rows and len(again.alerts) == 3
    # a person typing the same entry is not the camera: it is checked and logged as usual
    assert again.submit({"player": "Ann", "play": "3-5", "on": "5-5"}).status == "accepted"
    store.close()


# ---- a question that holds up the camera's later plays ---------------------------------------

def _asked(tmp_path: Path) -> tuple[LogStore, Session, int]:
    """Ann's 5-5 and Bob's 0-5 logged; the camera then reads Ann's 3-5 on the spinner unsure:
    the id of that question, still open."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    for e in SEED_PLAYS[:2]:
        assert s.submit(e).status == "accepted"
    asked = s.submit({"player": "Ann", "play": "3-5", "on": "5-5", "confidence": 0.6},
                     source="camera")
    assert asked.status == "confirm"
    return store, s, asked.alert.id


def _camera_alert(s: Session, play: str, on: str, confidence: float) -> int:
    """The camera proposes Ann's ``play`` on ``on``: the id of the alert it raises."""
    result = s.submit({"player": "Ann", "play": play, "on": on, "confidence": confidence},
                      source="camera")
    assert result.alert is not None, result
    return result.alert.id


def _held_up(tmp_path: Path) -> tuple[LogStore, Session, list[int]]:
    """:func:`_asked`, and while the 3-5 question waits the camera sees Bob's 2-3 on it and
    Ann's 2-2 on the 2-3: both are illegal without the 3-5 (no 3 is open; the turn is still
    Ann's, so the 2-3 is proposed as Ann's)."""
    store, s, asked = _asked(tmp_path)
    first = s.submit({"player": "Ann", "play": "2-3", "on": "3-5", "confidence": 0.99},
                     source="camera")
    second = s.submit({"player": "Ann", "play": "2-2", "on": "2-3", "confidence": 0.98},
                      source="camera")
    assert (first.status, second.status) == ("illegal", "illegal")
    return store, s, [asked, first.alert.id, second.alert.id]


def test_a_play_held_up_by_an_open_question_says_so(tmp_path: Path) -> None:
    store, s, (asked, first, second) = _held_up(tmp_path)
    message = next(a.message for a in s.alerts if a.id == first)
    reason, _, legal = message.partition("; legal: ")
    assert reason.endswith("(an earlier question is still open: this play is checked again "
                           "when it is answered)") and legal  # before the legal moves
    # the dashboard lists it with the waiting entries; the question itself is not waiting
    by_id = {a.id: a.to_json() for a in s.alerts}
    assert by_id[first]["waiting"] is True and "waiting" not in by_id[asked]
    # a person's own entry, or a camera play with no question open, gets no such note
    assert "earlier question" not in s.submit({"player": "Ann", "play": "6-6"}).alert.message
    store.close()


def test_answering_the_question_logs_the_plays_it_held_up(tmp_path: Path) -> None:
    """Confirmed, the 3-5 is logged, then the held plays in order, each by the player whose
    turn it is now (Bob's 2-3: proposed as Ann's; Ann's 2-2 as proposed), and their alerts
    close as rechecked."""
    store, s, (asked, first, second) = _held_up(tmp_path)
    assert s.confirm(asked).status == "accepted"
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5", "Bob plays 2-3 on 3-5",
                                                 "Ann plays 2-2 on 2-3"]
    assert all(h["entry"]["source"] == "camera" for h in s.history[2:])
    assert s.alerts == []
    closed = {e.body["alert"]: e.body for e in store.alert_rows(s.game_id) if e.kind == "closed"}
    assert closed[first]["how"] == closed[second]["how"] == "rechecked"
    assert closed[first]["seq"] == s.seqs[3] and closed[second]["seq"] == s.seqs[4]
    # the same after a restart: the log holds them and no question is open again
    store.close()
    again = Session.resume(LogStore(tmp_path / "games.sqlite"))
    assert [h["text"] for h in again.history] == [h["text"] for h in s.history]
    assert again.alerts == []
    again.store.close()


def test_a_correction_logs_the_held_plays_that_fit_it_and_leaves_the_rest(tmp_path: Path) -> None:
    """Corrected to 3-5 on 5-5 by Ann (the reading was right, the player asked): the held 2-3
    fits and is logged; a held play that fits nothing stays an open question, judged again
    (its message no longer says an earlier question is open), in its place."""
    store, s, (asked, first, second) = _held_up(tmp_path)
    third = s.submit({"player": "Bob", "play": "6-6", "on": "5-5", "confidence": 0.99},
                     source="camera").alert.id
    assert s.correct(asked, {"player": "Ann", "play": "3-5", "on": "5-5"}).status == "accepted"
    assert [h["text"] for h in s.history[3:]] == ["Bob plays 2-3 on 3-5", "Ann plays 2-2 on 2-3"]
    assert [a.seen for a in s.alerts] == [third] and s.alerts[0].kind == "illegal"
    assert "earlier question" not in s.alerts[0].message
    store.close()


def test_a_dismissed_question_holds_nothing_to_recheck(tmp_path: Path) -> None:
    """Dismissed (a phantom), nothing is logged: the held plays stay open, in order; the first
    is judged again (no earlier question is open now), the second still waits for it."""
    store, s, (asked, first, second) = _held_up(tmp_path)
    s.dismiss(asked)
    assert len(s.history) == 2 and [a.seen for a in s.alerts] == [first, second]
    assert "earlier question" not in s.alerts[0].message
    assert s.alerts[1].id == second and "earlier question" in s.alerts[1].message
    store.close()


def test_a_recheck_that_cannot_be_stored_leaves_its_alert_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer stands; a held play whose closing row cannot be written is not logged and
    its question stays open (in memory and in the store)."""
    store, s, (asked, first, second) = _held_up(tmp_path)
    real = store.close_alert

    def broken(game_id, alert_id, how, **kwargs):
        if how == "rechecked":
            raise sqlite3.OperationalError("disk I/O error")
        return real(game_id, alert_id, how, **kwargs)

    monkeypatch.setattr(store, "close_alert", broken)
    assert s.confirm(asked).status == "accepted"
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5"]
    assert [a.id for a in s.alerts] == [first, second]
    assert [e.seq for e in store.open_alerts(s.game_id)] == [first, second]
    assert len(list(store.entries(s.game_id))) == 3
    store.close()


def test_a_held_play_is_tried_again_at_the_other_places_the_camera_saw_it_touch(
        tmp_path: Path) -> None:
    """Raised on the spinner (the only logged tile it touched), with its placement on the
    3-5 (still a question then) offered: once the 3-5 is logged, that placement is the play.
    An illegal alert offers only the tile's other placements, not other values."""
    store, s, asked = _asked(tmp_path)
    held = s.submit({"player": "Ann", "play": "2-3", "on": "5-5", "confidence": 0.99,
                     "alternatives": [{"player": "Ann", "play": "2-3", "on": "3-5"},
                                      {"tile": "2-8", "p": 0.01}]}, source="camera").alert
    assert held.kind == "illegal"
    assert held.alternatives == [{"player": "Ann", "play": "2-3", "on": "3-5"}]
    assert s.confirm(asked).status == "accepted"
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5", "Bob plays 2-3 on 3-5"]
    assert s.alerts == []
    store.close()


def test_the_recheck_stops_at_the_first_play_still_waiting(tmp_path: Path) -> None:
    """A second question between the answered one and a held play: the held play waits for it
    (nothing is logged ahead of an earlier play); answered, the held play follows."""
    store, s, asked = _asked(tmp_path)
    also = _camera_alert(s, "2-3", "3-5", 0.7)
    held = _camera_alert(s, "2-2", "2-3", 0.99)
    assert s.confirm(asked).status == "accepted"
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5"]
    assert [a.id for a in s.alerts] == [also, held]
    assert s.correct(also, {"player": "Bob", "play": "2-3", "on": "3-5"}).status == "accepted"
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5", "Bob plays 2-3 on 3-5",
                                                 "Ann plays 2-2 on 2-3"]
    assert s.alerts == []
    store.close()


def test_dismissing_a_question_lets_the_plays_behind_it_through(tmp_path: Path) -> None:
    """The 3-5 question answered, a 4-4 laid where it fits nowhere still blocks the held 2-3
    behind it; the 4-4 dismissed (taken back), the 2-3 is logged."""
    store, s, asked = _asked(tmp_path)
    stray = _camera_alert(s, "4-4", "5-5", 0.99)
    held = _camera_alert(s, "2-3", "3-5", 0.99)
    assert s.confirm(asked).status == "accepted"
    assert [a.seen for a in s.alerts] == [stray, held] and len(s.history) == 3
    s.dismiss(s.alerts[0].id)
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5", "Bob plays 2-3 on 3-5"]
    assert s.alerts == []
    store.close()


def test_a_legal_play_seen_while_a_question_waits_is_held_and_logged_in_its_turn(
        tmp_path: Path) -> None:
    """The camera sees a 0-0 on the 0-5 while Ann's 3-5 is asked about: the rules would take
    it now as Ann's (the turn without the 3-5), but logged it would go ahead of the 3-5 and
    score for the wrong player. It is held (a confirm alert marked held, not logged); once
    the 3-5 is confirmed it follows it, as Bob's, and closes as rechecked. A person's own
    entry is never held."""
    store, s, asked = _asked(tmp_path)
    held = s.submit({"player": "Ann", "play": "0-0", "on": "0-5", "confidence": 0.99},
                    source="camera")
    assert held.status == "confirm" and held.alert.held and len(s.history) == 2
    assert held.alert.message.startswith("Ann plays 0-0 on 0-5: held behind an earlier question")
    assert held.alert.to_json()["held"] is True and "held" not in s.alerts[0].to_json()
    # stored as held: a restarted companion holds it still
    store.close()
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.resume(store)
    assert [(a.id, a.held) for a in s.alerts] == [(asked, False), (held.alert.id, True)]
    assert s.confirm(asked).status == "accepted"
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5", "Bob plays 0-0 on 0-5"]
    assert s.alerts == []
    closed = {e.body["alert"]: e.body["how"] for e in store.alert_rows(s.game_id)
              if e.kind == "closed"}
    assert closed[held.alert.id] == "rechecked"
    assert s.submit({"player": "Ann", "play": "2-3", "on": "3-5"}).status == "accepted"
    store.close()


def test_a_pass_entered_after_the_play_in_question_is_held_not_refused(tmp_path: Path) -> None:
    """Ann's 3-5 is asked about; Bob, next, cannot play and passes, and someone enters it on
    the tablet: refused against the log (it is Ann's turn there), the rules take it after the
    3-5, so it is held and logged after it once the question is answered. An entry the rules
    refuse either way is refused as before."""
    store, s, asked = _asked(tmp_path)
    held = s.submit({"player": "Bob", "pass": True})
    assert held.status == "confirm" and held.alert.held and len(s.history) == 2
    assert held.alert.message.startswith("Bob passes: held behind an earlier question")
    assert "whose turn" not in held.alert.message  # a person named the player
    assert s.submit({"player": "Bob", "play": "6-6", "on": "5-5"}).status == "illegal"
    s.dismiss(s.alerts[-1].id)
    assert s.confirm(asked).status == "accepted"
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5", "Bob passes"]
    assert s.alerts == [] and s.game.current_player == "Ann"
    closed = {e.body["alert"]: e.body["how"] for e in store.alert_rows(s.game_id)
              if e.kind == "closed"}
    assert closed[held.alert.id] == "rechecked"
    assert s.history[-1]["entry"]["source"] == "hand"
    # a stray tile the camera found illegal puts nothing ahead of a person's entry: logged now
    stray = _camera_alert(s, "4-4", "5-5", 0.99)
    assert s.submit({"player": "Ann", "play": "2-3", "on": "3-5"}).status == "accepted"
    assert [a.id for a in s.alerts] == [stray]
    store.close()

def test_a_tablet_entry_off_only_by_the_guessed_turn_is_held(tmp_path: Path) -> None:
    """Who led the 5-5 is asked (the camera guessed Ann); Cy passes and it is entered: after
    Ann's lead it would be Bob's turn, so the rules refuse it there only for the turn, which
    rests on the camera's guess: held. Answered "Bob led", Cy's pass is logged after it. Had
    Ann led, the pass is refused with the rules' reason once first in line, and the camera's
    play held behind it is logged all the same (a person's refused entry holds nothing up)."""
    for leader, log in (("Bob", ["Bob plays 5-5", "Cy passes"]),
                        ("Ann", ["Ann plays 5-5", "Bob plays 0-5 on 5-5"])):
        store = LogStore(tmp_path / f"{leader}.sqlite")
        s = Session.start(store, "allfives", ["Ann", "Bob", "Cy"])
        asked = _who_led(s, "5-5")
        passed = s.submit({"player": "Cy", "pass": True})
        assert passed.status == "confirm" and passed.alert.held
        if leader == "Ann":
            s.submit({"player": "Cy", "play": "0-5", "on": "5-5", "confidence": 0.99},
                     source="camera")
        assert s.correct(asked, {"player": leader, "play": "5-5"}).status == "accepted"
        assert [h["text"] for h in s.history] == log
        if leader == "Ann":
            (refused,) = s.alerts
            assert refused.kind == "illegal" and refused.seen == passed.alert.id
            assert "Bob's turn" in refused.message
        else:
            assert s.alerts == []
        store.close()

def test_a_held_play_can_be_logged_at_once(tmp_path: Path) -> None:
    """Confirmed, a held play is logged as it reads, ahead of the question still open. One the
    rules refuse by then (a person entered that tile by hand meanwhile) raises an illegal alert
    that keeps its place in line, before the plays seen after it."""
    store, s, asked = _asked(tmp_path)
    held = _camera_alert(s, "0-0", "0-5", 0.99)
    assert s.confirm(held).status == "accepted"
    assert s.history[-1]["text"] == "Ann plays 0-0 on 0-5"
    assert [a.id for a in s.alerts] == [asked]
    held = s.submit({"player": "Bob", "play": "0-6", "on": "0-0", "confidence": 0.99},
                    source="camera").alert.id
    later = _camera_alert(s, "5-6", "5-5", 0.99)
    assert s.submit({"player": "Bob", "play": "0-6", "on": "0-0"}).status == "accepted"
    refused = s.confirm(held)
    assert refused.status == "illegal" and refused.alert.seen == held
    assert [a.id for a in s.alerts] == [asked, refused.alert.id, later]
    store.close()


def test_a_held_play_the_answer_made_illegal_keeps_its_place_in_line(tmp_path: Path) -> None:
    """The question is corrected to the 0-0 on the 0-5 the camera then saw (and held): the
    held 0-0 is no longer legal, so the recheck stops there and the held 5-6 behind it waits.
    The 0-0 is judged again: an illegal alert raised in its place keeps its place before the
    5-6 (``seen``), saying why; taken back, the 5-6 follows."""
    store, s, asked = _asked(tmp_path)
    stale = _camera_alert(s, "0-0", "0-5", 0.99)
    later = _camera_alert(s, "5-6", "5-5", 0.99)
    assert s.correct(asked, {"player": "Ann", "play": "0-0", "on": "0-5"}).status == "accepted"
    assert [a.seen for a in s.alerts] == [stale, later] and len(s.history) == 3
    refused = s.alerts[0]
    assert refused.id != stale and refused.kind == "illegal" and "0-0" in refused.message
    s.dismiss(refused.id)
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 0-0 on 0-5", "Bob plays 5-6 on 5-5"]
    assert s.alerts == []
    store.close()

def test_the_game_as_the_open_questions_would_leave_it(tmp_path: Path) -> None:
    """``as_answered``: the session's own game while nothing is in question; with Ann's 3-5
    asked about and a 2-3 on it held up, a copy with both played as proposed (the 2-3 by the
    player whose turn follows the 3-5); the log and the session's game are not changed."""
    store, s, (asked, first, second) = _held_up(tmp_path)
    game = s.as_answered()
    assert game is not s.game and len(s.history) == 2
    assert game.current_player == "Bob"  # after 3-5 (Ann), 2-3 (Bob), 2-2 (Ann)
    assert not s.game.accepts(Move.from_json({"player": "Bob", "play": "2-4", "on": "2-2"}))
    assert game.accepts(Move.from_json({"player": "Bob", "play": "2-4", "on": "2-2"}))
    s.confirm(asked)
    assert s.alerts == [] and s.as_answered() is s.game
    store.close()

def test_a_held_play_still_refused_after_the_answer_says_why_now(tmp_path: Path) -> None:
    """Judged while the lead was asked about, the 1-2 on the 5-5 was refused for a reason of
    an empty table; the lead answered, the rules still refuse it, for another reason: it is
    raised again with the reason and legal moves of now, in its place, the old alert closed
    as rechecked and replaced by it. Still refused for the same reason, nothing changes."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    first = _who_led(s, "5-5")
    stale = s.submit({"player": "Ann", "play": "1-2", "on": "5-5", "confidence": 0.99},
                     source="camera").alert
    assert "first tile" in stale.message and "earlier question" in stale.message
    assert s.confirm(first).status == "accepted"
    (now,) = s.alerts
    assert now.id != stale.id and now.seen == stale.seen == stale.id and now.kind == "illegal"
    assert "first tile" not in now.message and "earlier question" not in now.message
    assert "Bob plays 0-5 on 5-5" in now.legal
    closed = {e.body["alert"]: e.body for e in store.alert_rows(s.game_id) if e.kind == "closed"}
    assert closed[stale.id]["how"] == "rechecked" and closed[stale.id]["replaced_by"] == now.id
    s.dismiss(_camera_alert(s, "4-4", "5-5", 0.99))  # an answer: the recheck runs again
    assert [a.id for a in s.alerts] == [now.id]
    store.close()

def _who_led(s: Session, play: str, confidence: float = 0.5, sure_reading: bool = True) -> int:
    """The camera asks who led ``play`` (the log empty, no seat seen): its reading marked as
    asking only the player when ``sure_reading``; the id of the question."""
    reading: dict = {"tile": play, "halves": [int(v) for v in play.split("-")]}
    if sure_reading:
        reading["unsure_of"] = "player"
    result = s.submit({"player": "Ann", "play": play, "confidence": confidence,
                       "reading": reading,
                       "alternatives": [{"player": "Bob", "play": play}]}, source="camera")
    assert result.status == "confirm", result
    return result.alert.id


def test_a_held_question_of_who_led_is_settled_by_the_turn_once_a_tile_is_logged(
        tmp_path: Path) -> None:
    """Two doubles seen while the log was empty both ask who led; once the first is answered,
    the second asks nothing any more (only the player whose turn it is may play it now): it is
    logged as theirs and closes as rechecked, after the play held up before it."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    first = _who_led(s, "5-5")
    held = s.submit({"player": "Ann", "play": "0-5", "on": "5-5", "confidence": 0.99},
                    source="camera").alert.id
    second = _who_led(s, "0-0")
    assert s.correct(first, {"player": "Bob", "play": "5-5"}).status == "accepted"
    assert [h["text"] for h in s.history] == ["Bob plays 5-5", "Ann plays 0-5 on 5-5",
                                              "Bob plays 0-0"]
    assert s.alerts == []
    closed = {e.body["alert"]: e.body["how"] for e in store.alert_rows(s.game_id)
              if e.kind == "closed"}
    assert closed == {first: "corrected", second: "rechecked", held: "rechecked"}
    store.close()


def test_a_held_question_of_who_led_stays_while_it_still_asks_something(tmp_path: Path) -> None:
    """Still a question: the first tile dismissed (the log still empty: anyone may lead the
    0-0), or a reading that was unsure itself (no mark: its value is in doubt too)."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    first = _who_led(s, "5-5")
    second = _who_led(s, "0-0")
    s.dismiss(first)
    assert s.history == [] and [a.id for a in s.alerts] == [second]
    doubtful = _who_led(s, "6-6", confidence=0.5, sure_reading=False)
    assert s.confirm(second).status == "accepted"
    assert [h["text"] for h in s.history] == ["Ann plays 0-0"]
    assert [a.id for a in s.alerts] == [doubtful]
    store.close()


def test_taking_a_stray_tile_back_lets_the_plays_behind_it_through(tmp_path: Path) -> None:
    """As the dismissal above, the way it happens at a table: the 4-4 is taken back, the camera
    no longer sees it, and the held 2-3 behind it is logged."""
    from companion.tiles import Tile

    store, s, asked = _asked(tmp_path)
    stray = _camera_alert(s, "4-4", "5-5", 0.99)
    s.submit({"player": "Ann", "play": "2-3", "on": "3-5", "confidence": 0.99}, source="camera")
    assert s.confirm(asked).status == "accepted"
    gone = s.resolve_taken_back({Tile.parse(t) for t in ("5-5", "0-5", "3-5", "2-3")})
    assert [a.seen for a in gone] == [stray]
    assert [h["text"] for h in s.history[2:]] == ["Ann plays 3-5 on 5-5", "Bob plays 2-3 on 3-5"]
    assert s.alerts == []
    store.close()


def _three_after_lead(tmp_path: Path) -> tuple[LogStore, Session]:
    """Ann, Bob and Cy play All Fives; Ann's 5-5 lead is logged: Bob's turn."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob", "Cy"])
    assert s.submit({"player": "Ann", "play": "5-5"}).status == "accepted"
    return store, s


def test_an_answer_refused_only_for_the_turn_offers_the_pass_the_camera_missed(
        tmp_path: Path) -> None:
    """The camera asks about the 0-5 it proposed as Bob's; Cy laid it. Answered "Cy", the
    rules refuse it (Bob's turn): the refusal offers "Bob passed, then Cy's 0-5", and that
    one tap logs both, Cy scoring the 10."""
    store, s = _three_after_lead(tmp_path)
    asked = _camera_alert_by(s, "Bob", "0-5", "5-5", 0.6)
    refused = s.correct(asked, {"player": "Cy", "play": "0-5", "on": "5-5"})
    assert refused.status == "illegal" and "Bob's turn" in refused.alert.message
    assert "the camera cannot see a pass" in refused.alert.message
    offered = [a for a in refused.alert.alternatives if BEFORE in a]
    assert offered == [{"player": "Cy", "play": "0-5", "on": "5-5",
                        BEFORE: [{"player": "Bob", "pass": True}]}]
    assert refused.alert.to_json()["alternatives"] == refused.alert.alternatives
    assert s.correct(refused.alert.id, offered[0]).status == "accepted"
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob passes",
                                              "Cy plays 0-5 on 5-5"]
    assert [h["entry"]["source"] for h in s.history[1:]] == ["correction", "correction"]
    assert s.game.scores == {"Ann": 10, "Bob": 0, "Cy": 10} and s.alerts == []
    # the same log after a restart
    store.close()
    again = Session.resume(LogStore(tmp_path / "games.sqlite"))
    assert [h["text"] for h in again.history] == [h["text"] for h in s.history]
    assert again.alerts == []
    again.store.close()


def test_a_draw_or_pass_entered_out_of_turn_offers_the_passes_before_it(tmp_path: Path) -> None:
    """Bob passed without a tap; Cy's draw entered on the tablet is refused for the turn (Bob's)
    and offers "Bob passed, then Cy draws 1", which logs both in one tap. A pass entered out of
    turn offers the same; a move refused for another reason offers nothing of the kind."""
    store, s = _three_after_lead(tmp_path)
    passed = s.submit({"player": "Cy", "pass": True}, source="hand")
    assert passed.status == "illegal"
    assert passed.alert.alternatives == [{"player": "Cy", "pass": True,
                                          BEFORE: [{"player": "Bob", "pass": True}]}]
    s.dismiss(passed.alert.id)
    refused = s.submit({"player": "Cy", "draw": 1}, source="hand")
    assert refused.status == "illegal" and "Bob's turn" in refused.alert.message
    assert "if the players before Cy passed" in refused.alert.message
    assert refused.alert.alternatives == [{"player": "Cy", "draw": 1,
                                           BEFORE: [{"player": "Bob", "pass": True}]}]
    assert s.correct(refused.alert.id, refused.alert.alternatives[0]).status == "accepted"
    assert [h["text"] for h in s.history[1:]] == ["Bob passes", "Cy draws 1"]
    # Cy drew (the boneyard is not known: Cy may have drawn its last tile and passed)
    early = s.submit({"player": "Ann", "draw": 1}, source="hand")
    assert early.status == "illegal" and early.alert.alternatives == [
        {"player": "Ann", "draw": 1, BEFORE: [{"player": "Cy", "pass": True}]}]
    # a move refused for another reason than the turn offers nothing of the kind
    wrong = s.submit({"player": "Cy", "play": "6-6", "on": "5-5"}, source="hand")
    assert wrong.status == "illegal" and "the camera cannot see a pass" not in wrong.alert.message
    assert not [a for a in wrong.alert.alternatives if BEFORE in a]
    store.close()


def _camera_alert_by(s: Session, player: str, play: str, on: str, confidence: float) -> int:
    """The camera proposes ``player``'s ``play`` on ``on``: the id of the alert it raises."""
    result = s.submit({"player": player, "play": play, "on": on, "confidence": confidence},
                      source="camera")
    assert result.alert is not None, result
    return result.alert.id


def test_an_answer_refused_only_for_the_turn_offers_the_other_tile_in_question_first(
        tmp_path: Path) -> None:
    """The camera saw the 0-5 and the 3-5 at once and guessed the 0-5 first (Bob's, asked),
    the 3-5 held behind it. Really Bob laid the 3-5 and then Cy the 0-5: answered "Cy", the
    refusal offers both explanations, the pass first; "Bob laid the 3-5 first" logs the two
    in the true order and closes the held question too."""
    store, s = _three_after_lead(tmp_path)
    asked = _camera_alert_by(s, "Bob", "0-5", "5-5", 0.6)
    held = _camera_alert_by(s, "Bob", "3-5", "5-5", 0.99)
    refused = s.correct(asked, {"player": "Cy", "play": "0-5", "on": "5-5"})
    offered = [a[BEFORE] for a in refused.alert.alternatives if BEFORE in a]
    assert offered == [[{"player": "Bob", "pass": True}],
                       [{"player": "Bob", "play": "3-5", "on": "5-5"}]]
    answer = next(a for a in refused.alert.alternatives if a.get(BEFORE) == offered[1])
    assert s.correct(refused.alert.id, answer).status == "accepted"
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 3-5 on 5-5",
                                              "Cy plays 0-5 on 5-5"]
    assert s.alerts == []
    closed = {e.body["alert"]: e.body for e in store.alert_rows(s.game_id) if e.kind == "closed"}
    assert closed[held]["how"] == "corrected" and closed[held]["seq"] == s.seqs[1]
    assert closed[refused.alert.id]["seq"] == s.seqs[2]
    store.close()


def test_a_before_the_log_already_ends_with_is_not_logged_twice(tmp_path: Path) -> None:
    """An answer offered before another answer logged the first of its ``before`` entries
    (the lead asked about, then the other order of the plays after it): what the log already
    ends with is left out, the rest is logged in one tap; a ``before`` whose entries the log
    holds elsewhere than at its end is refused as before."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob", "Cy"])
    lead = s.submit({"player": "Ann", "play": "5-5", "confidence": 0.5}, source="camera")
    asked = _camera_alert_by(s, "Bob", "0-5", "5-5", 0.5)
    assert s.confirm(lead.alert.id).status == "accepted"
    answer = {"player": "Cy", "play": "0-5", "on": "5-5",
              BEFORE: [{"player": "Ann", "play": "5-5"}, {"player": "Bob", "pass": True}]}
    assert s.correct(asked, answer).status == "accepted"
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob passes",
                                              "Cy plays 0-5 on 5-5"]
    assert s.alerts == []
    again = _camera_alert_by(s, "Ann", "3-5", "5-5", 0.5)
    with pytest.raises(IllegalMoveError):
        s.correct(again, {"player": "Ann", "play": "3-5", "on": "5-5",
                          BEFORE: [{"player": "Ann", "play": "5-5"}]})
    assert len(s.history) == 3
    store.close()


def test_a_before_the_rules_refuse_logs_nothing(tmp_path: Path) -> None:
    """A ``before`` that does not lead to the answer (Cy's pass while it is Bob's turn), or
    that is no list of passes and plays, is refused with the reason: nothing is logged and
    the question stays open. A refusal for more than the turn, or a camera play's, offers no
    explanation."""
    store, s = _three_after_lead(tmp_path)
    asked = _camera_alert_by(s, "Bob", "0-5", "5-5", 0.6)
    with pytest.raises(IllegalMoveError, match="Bob's turn"):
        s.correct(asked, {"player": "Cy", "play": "0-5", "on": "5-5",
                          BEFORE: [{"player": "Cy", "pass": True}]})
    for told in ("Bob passed", [], [{"player": "Bob", "bid": 30}]):
        with pytest.raises(MoveFormatError, match='"before" lists the passes, draws and plays'):
            s.correct(asked, {"player": "Cy", "play": "0-5", "on": "5-5", BEFORE: told})
    assert len(s.history) == 1 and [a.id for a in s.alerts] == [asked]
    wrong = s.correct(asked, {"player": "Cy", "play": "6-6", "on": "5-5"})
    assert wrong.status == "illegal" and not any(BEFORE in a for a in wrong.alert.alternatives)
    assert "cannot see a pass" not in wrong.alert.message
    camera = s.submit({"player": "Cy", "play": "1-5", "on": "5-5", "confidence": 0.99},
                      source="camera")
    assert not any(BEFORE in a for a in camera.alert.alternatives)
    store.close()


def test_a_held_stacked_play_is_tried_on_the_levels_around_its_own() -> None:
    """A camera play on a stack held behind a question was placed on the stack as the log and
    the questions then stood; the answer may have put a tile under it (the tile asked about,
    corrected) or taken one away, so after the play as raised and by the player whose turn it
    is, the same cells at the nearest levels above and below are tried (never below 0)."""
    from companion.session import LEVELS_AROUND, Alert, _candidates

    entry = {"player": "Dee", "play": "3-9", "at": [[-2, 0], [-1, 0]], "level": 1,
             "source": "camera", "confidence": 0.99}
    tried = list(_candidates(Alert(1, "illegal", "", entry), "Ann"))
    assert LEVELS_AROUND == 2
    assert [(m.player, m.extra["level"]) for m in tried] == [
        ("Dee", 1), ("Ann", 1), ("Dee", 2), ("Ann", 2), ("Dee", 0), ("Ann", 0), ("Dee", 3),
        ("Ann", 3)]
    assert all(m.extra["at"] == [[-2, 0], [-1, 0]] for m in tried)
    # a person's entry is theirs: as entered only
    hand = dict(entry, source="hand")
    assert [m.extra["level"] for m in _candidates(Alert(2, "illegal", "", hand), "Ann")] == [1]


def test_a_play_the_log_fails_to_store_is_not_kept_on_the_table(tmp_path: Path,
                                                                monkeypatch) -> None:
    """The rules take a play but the log's file refuses it (the disk full, say): the error
    goes to the caller and the game stays as the log has it, so the table shown, the log and a
    restart agree, and the next play is refused or taken as the log says."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])

    def full(*_a, **_k):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "append", full)
    with pytest.raises(sqlite3.OperationalError):
        s.submit({"player": "Ann", "play": "5-5"})
    assert s.game.moves == 0 and s.history == []
    monkeypatch.undo()
    assert s.submit({"player": "Ann", "play": "5-5"}).status == "accepted"
    assert [h["text"] for h in Session.resume(store).history] == [h["text"] for h in s.history]


def test_an_answer_with_plays_before_it_the_log_fails_to_store_changes_nothing(
        tmp_path: Path, monkeypatch) -> None:
    """An answer that logs entries before it (``before``): the rules take them, the log's file
    refuses them: the question is open again and the game is as the log has it."""
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    assert s.submit({"player": "Ann", "play": "5-5"}).status == "accepted"
    asked = s.submit({"player": "Bob", "play": "0-5", "on": "5-5", "source": "camera",
                      "confidence": 0.3}).alert
    answer = {"player": "Ann", "play": "0-5", "on": "5-5",
              BEFORE: [{"player": "Bob", "draw": 1}, {"player": "Bob", "pass": True}]}
    scores = dict(s.game.scores)

    def full(*_a, **_k):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "append", full)
    with pytest.raises(sqlite3.OperationalError):
        s.correct(asked.id, answer)
    assert s.game.moves == 1 and [a.id for a in s.alerts] == [asked.id]
    assert s.game.scores == scores and [h["text"] for h in s.history] == ["Ann plays 5-5"]
    monkeypatch.undo()
    assert s.correct(asked.id, answer).status == "accepted"
    assert [h["text"] for h in Session.resume(store).history] == [h["text"] for h in s.history]


def test_a_reread_request_with_a_reading_that_is_no_object_is_refused(tmp_path: Path) -> None:
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    assert s.submit({"player": "Ann", "play": "5-5"}).status == "accepted"
    with pytest.raises(MoveFormatError, match='"reading" is an object'):
        s.submit({"reread": {"was": "5-5", "as": {"play": "6-6"}}, "reading": 5}, source="camera")
    assert s.alerts == [] and s.game.moves == 1


def test_a_line_game_play_naming_cells_is_refused_without_nearby_places(tmp_path: Path) -> None:
    """Only games whose plays name grid cells offer nearby places for a refused play; a line
    game's play with stray ``at``/``level`` keys is refused by the rules as any other."""
    s = Session.start(LogStore(tmp_path / "g.db"), "allfives", ["Ann", "Bob"])
    assert s.submit({"player": "Ann", "play": "5-5"}).status == "accepted"
    r = s.submit({"player": "Bob", "play": "3-4", "at": [[0, 0], [1, 0]], "level": 0})
    assert r.status == "illegal" and r.alert.alternatives == []
