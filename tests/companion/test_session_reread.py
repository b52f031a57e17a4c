"""The Session's answer to a camera request to amend a logged play (a tile the tracking now
reads as another value at its place): an ``amend`` alert whose tap amends the play through the
rules, or a notice; stored like every alert."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.errors import MoveFormatError
from companion.session import REREAD, AmendError, Session
from companion.store import LogStore

# All Fives, the seed's example: 5-5 leads (10), 0-5 on it (10), 3-5 on the spinner, 0-2 on
# the 0 (5).
SEED_PLAYS = [{"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"},
              {"player": "Ann", "play": "3-5", "on": "5-5"},
              {"player": "Bob", "play": "0-2", "on": "0-5"}]


def _request(was: str, now: str) -> dict:
    """What the camera sends when it reads ``now`` where the logged ``was`` lies."""
    return {REREAD: {"was": was, "as": {"play": now}}, "source": "camera", "confidence": 0.97,
            "reading": {"tile": now, "halves": [int(v) for v in now.split("-")]}}


def _started(tmp_path: Path, plays: int = 4) -> tuple[LogStore, Session]:
    store = LogStore(tmp_path / "games.sqlite")
    s = Session.start(store, "allfives", ["Ann", "Bob"])
    for e in SEED_PLAYS[:plays]:
        assert s.submit(e).status == "accepted"
    return store, s


def test_an_amend_alert_comes_back_after_a_restart_and_its_tap_amends(tmp_path: Path) -> None:
    store, s = _started(tmp_path)
    seq = s.seqs[2]
    asked = s.submit(_request("3-5", "5-6"), source="camera")
    assert asked.status == "amend" and asked.alert is not None
    alert = asked.alert
    assert alert.to_json()["amend"] == {"seq": seq, "was": "3-5", "text": "Ann plays 3-5 on 5-5"}
    assert alert.entry["play"] == "5-6" and alert.entry["on"] == "5-5"
    assert alert.entry["reading"]["first_read"] == {"play": "3-5"}  # typed, not read
    store.close()
    store = LogStore(tmp_path / "games.sqlite")
    again = Session.resume(store)
    assert again is not None
    (back,) = again.alerts
    assert (back.id, back.kind, back.amend, back.entry) == (alert.id, "amend", alert.amend,
                                                            alert.entry)
    done = again.confirm(back.id)
    assert (done.status, done.seq) == ("amended", seq)
    assert again.game.scores == {"Ann": 10, "Bob": 10}
    assert again.history[2]["amended"] and again.history[2]["entry"]["confidence"] == 0.97
    rows = list(store.alert_rows(again.game_id))
    assert rows[-1].body == {"alert": alert.id, "how": "amended", "seq": seq}
    assert store.open_alerts(again.game_id) == []
    store.close()


def test_a_tap_the_rules_refuse_now_changes_nothing_and_keeps_the_question(
        tmp_path: Path) -> None:
    """0-5 read again as 5-6 while it is the last play: amendable then. Bob's 0-2 then goes on
    the 0 of 0-5, so by the time of the tap the amended log no longer replays: the tap is
    refused with the rules' reason, nothing is stored, the alert stays; "keep" closes it."""
    store, s = _started(tmp_path, plays=2)
    alert = s.submit(_request("0-5", "5-6"), source="camera").alert
    assert alert is not None and alert.kind == "amend"
    for e in SEED_PLAYS[2:]:
        assert s.submit(e).status == "accepted"
    rows = len(list(store.entries(s.game_id)))
    with pytest.raises(AmendError, match=r"entry 4 \(Bob plays 0-2 on 0-5\), breaks: .*0-5 is "
                                         "not on the table"):
        s.confirm(alert.id)
    assert len(list(store.entries(s.game_id))) == rows
    assert [h["entry"]["play"] for h in s.history] == ["5-5", "0-5", "3-5", "0-2"]
    assert [a.id for a in s.alerts] == [alert.id]
    assert [a.seq for a in store.open_alerts(s.game_id)] == [alert.id]
    with pytest.raises(MoveFormatError, match="amend it .*or keep the play as logged"):
        s.correct(alert.id, {"player": "Bob", "play": "5-6", "on": "5-5"})
    s.dismiss(alert.id)
    assert s.alerts == [] and s.game.scores == {"Ann": 10, "Bob": 15}
    store.close()


def test_the_amendment_and_the_closing_are_stored_together(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, s = _started(tmp_path)
    alert = s.submit(_request("3-5", "5-6"), source="camera").alert
    assert alert is not None
    rows = len(list(store.entries(s.game_id)))

    def broken(*args: object, **kwargs: object) -> int:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "close_alert", broken)
    with pytest.raises(sqlite3.OperationalError):
        s.confirm(alert.id)
    monkeypatch.undo()
    assert len(list(store.entries(s.game_id))) == rows
    assert s.history[2]["entry"]["play"] == "3-5" and s.game.scores == {"Ann": 10, "Bob": 15}
    assert [a.id for a in s.alerts] == [alert.id]
    store.close()


def test_a_tile_no_play_put_there_or_a_bad_request_is_no_amend_alert(tmp_path: Path) -> None:
    store, s = _started(tmp_path)
    s.undo()  # 0-2 withdrawn: no play of it in force
    got = s.submit(_request("0-2", "0-3"), source="camera")
    assert got.status == "notice" and got.alert is not None
    assert got.alert.message == ("the camera now reads 0-3 where it first read 0-2, but no play "
                                 "of 0-2 is in the log to amend: if 0-3 lies there, change the "
                                 "entry that put 0-2 on the table in the history")
    with pytest.raises(MoveFormatError, match="'reread' request is"):
        s.submit({REREAD: {"was": "0-2"}}, source="camera")
    assert len(s.history) == 3
    store.close()
