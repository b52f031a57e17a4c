"""The JSON API and the pages, through Flask's test client: every command calls the Session."""

from __future__ import annotations

import csv
import io

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.gamelog import replay_lines
from companion.moves import Move
from companion.simulate import play_random_game
from webui_helpers import PLAYERS, make_app, pair, post


def feed(client: FlaskClient, moves: list) -> None:
    for m in moves:
        resp = post(client, "/api/submit", {"entry": m.to_json()})
        assert resp.status_code == 200, resp.get_json()
        assert resp.get_json()["status"] == "accepted", resp.get_json()


def test_page_loads_with_state_and_token(client: FlaskClient) -> None:
    resp = client.get("/")
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert 'name="csrf-token"' in html and "undo-btn" in html
    assert "<svg" in html  # the QR code of the address, inline
    assert "No camera in this mode" in html
    assert resp.headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_state_json(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    assert state["game"] == "allfives"
    assert state["players"] == PLAYERS
    assert state["scores"] == {p: 0 for p in PLAYERS}
    assert state["target"] == 100
    assert state["alerts"] == [] and state["history"] == []


def test_full_game_through_the_api_matches_replay(client: FlaskClient) -> None:
    sim = play_random_game("allfives", PLAYERS, seed=3)
    feed(client, sim.moves)
    state = client.get("/api/state").get_json()
    assert state["finished"] is True
    assert state["scores"] == sim.game.scores
    assert len(state["round_scores"]) == len(sim.game.round_scores)
    # the exported log replays to the same scores
    log = client.get("/export.jsonl")
    assert log.status_code == 200
    assert "attachment" in log.headers["Content-Disposition"]
    replayed = replay_lines(log.get_data(as_text=True).splitlines())
    assert replayed.game.scores == sim.game.scores
    rows = list(csv.reader(io.StringIO(client.get("/export.csv").get_data(as_text=True))))
    assert rows[0][0] == "round"
    assert rows[-1][0] == "now"
    assert [int(x) for x in rows[-1][1 + len(PLAYERS):]] == [sim.game.scores[p] for p in PLAYERS]


def test_illegal_placement_raises_alert_and_changes_nothing(client: FlaskClient) -> None:
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=4)
    feed(client, sim.moves)
    before = client.get("/api/state").get_json()
    wrong = {"player": "Ann", "play": "6-6"}  # already on the table / not Ann's turn
    resp = post(client, "/api/submit", {"entry": wrong})
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["status"] == "illegal"
    assert body["alert"]["legal"], "an illegal alert says what would be legal"
    after = client.get("/api/state").get_json()
    assert after["moves"] == before["moves"] and after["scores"] == before["scores"]
    assert [a["id"] for a in after["alerts"]] == [body["alert"]["id"]]


def test_a_pass_entered_while_the_camera_asks_is_held_until_it_is_answered(
        client: FlaskClient) -> None:
    """The camera asks about Cy's 3-5; Ann, next, passes and it is entered on the tablet: the
    answer is ``confirm`` with the alert marked held (the dashboard says it is logged in its
    turn), and confirming the question logs both, in order."""
    session = client.application.extensions["session"].session
    feed(client, [Move.from_json({"player": "Ann", "play": "5-5"}),
                  Move.from_json({"player": "Bob", "play": "0-5", "on": "5-5"})])
    asked = session.submit({"player": "Cy", "play": "3-5", "on": "5-5", "confidence": 0.6},
                           source="camera").alert
    body = post(client, "/api/submit", {"entry": {"player": "Ann", "pass": True}}).get_json()
    assert body["status"] == "confirm" and body["alert"]["held"] is True
    assert len(client.get("/api/state").get_json()["history"]) == 2
    assert post(client, f"/api/alerts/{asked.id}/confirm", {}).get_json()["status"] == "accepted"
    state = client.get("/api/state").get_json()
    assert [h["text"] for h in state["history"][2:]] == ["Cy plays 3-5 on 5-5", "Ann passes"]
    assert state["alerts"] == []

def test_correct_an_illegal_alert(client: FlaskClient) -> None:
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=6)
    feed(client, sim.moves[:5])
    right = sim.moves[5].to_json()
    wrong = dict(right, play="6-6")
    alert = post(client, "/api/submit", {"entry": wrong}).get_json()["alert"]
    resp = post(client, f"/api/alerts/{alert['id']}/correct", {"entry": right})
    assert resp.status_code == 200 and resp.get_json()["status"] == "accepted"
    state = client.get("/api/state").get_json()
    assert state["alerts"] == []
    last = state["history"][-1]["entry"]
    assert last["source"] == "correction" and last["reading"]["play"] == "6-6"


def test_dismiss_and_unknown_alert(client: FlaskClient) -> None:
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=2)
    feed(client, sim.moves)
    alert = post(client, "/api/submit", {"entry": {"player": "Ann", "play": "0-0", "on": "3-3"}}
                 ).get_json()["alert"]
    assert post(client, f"/api/alerts/{alert['id']}/dismiss").get_json() == {"dismissed": alert["id"]}
    assert client.get("/api/state").get_json()["alerts"] == []
    resp = post(client, f"/api/alerts/{alert['id']}/dismiss")
    assert resp.status_code == 400
    assert f"no open alert {alert['id']}" in resp.get_json()["error"]


def test_confirm_an_uncertain_camera_reading(app: Flask, client: FlaskClient) -> None:
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=3)
    feed(client, sim.moves[:2])
    session = app.extensions["session"].session
    reading = dict(sim.moves[2].to_json(), confidence=0.55,
                   alternatives=[{"player": sim.moves[2].player, "play": "0-0"}])
    result = session.submit(reading, source="camera")
    assert result.status == "confirm"
    state = client.get("/api/state").get_json()
    assert state["alerts"][0]["kind"] == "confirm"
    assert state["alerts"][0]["alternatives"][0]["play"] == "0-0"
    resp = post(client, f"/api/alerts/{result.alert.id}/confirm")
    assert resp.get_json()["status"] == "accepted"
    state = client.get("/api/state").get_json()
    assert state["alerts"] == [] and state["moves"] == 3
    # confirming an illegal-placement alert is refused with a clear message
    bad = post(client, "/api/submit", {"entry": {"player": "Ann", "play": "6-6"}}).get_json()
    resp = post(client, f"/api/alerts/{bad['alert']['id']}/confirm")
    assert resp.status_code == 400 and "correct or dismiss" in resp.get_json()["error"]


def test_undo(client: FlaskClient) -> None:
    assert post(client, "/api/undo").get_json() == {"undone": None}
    sim = play_random_game("allfives", PLAYERS, seed=2, max_moves=3)
    feed(client, sim.moves)
    undone = post(client, "/api/undo").get_json()["undone"]
    assert undone["entry"]["play"] == str(sim.moves[2].tile) or undone["text"] == str(sim.moves[2])
    assert client.get("/api/state").get_json()["moves"] == 2


def test_bad_requests_get_400_and_change_nothing(client: FlaskClient) -> None:
    cases = [
        ({"entry": {"player": "Ann"}}, "exactly one of the keys"),
        ({"entry": {"player": "Ann", "play": "9-x"}}, "cannot read tile '9-x'"),
        ({"nothing": 1}, 'must be {"entry"'),
        ({"entry": {"pass": True}}, 'needs "player"'),
    ]
    for body, words in cases:
        resp = post(client, "/api/submit", body)
        assert resp.status_code == 400, body
        assert words in resp.get_json()["error"], (body, resp.get_json())
    stranger = post(client, "/api/submit", {"entry": {"player": "Zed", "pass": True}})
    assert stranger.status_code == 400
    assert "'Zed' is not playing; the players are Ann, Bob" in stranger.get_json()["error"]
    assert client.get("/api/state").get_json()["alerts"] == []
    resp = client.post("/api/submit", data="not json", headers={
        "X-CSRF-Token": client.get_cookie("dc_csrf").value, "Content-Type": "application/json"})
    assert resp.status_code == 400 and "JSON object" in resp.get_json()["error"]
    assert client.get("/api/state").get_json()["moves"] == 0
    assert client.get("/api/nope").status_code == 404
    assert "error" in client.get("/api/nope").get_json()


@pytest.mark.parametrize("raw, words", [
    ('{"entry": {"player": "Ann", "play": "5-5", "t": null}}', '"t" is when the entry was made'),
    ('{"entry": {"player": "Ann", "play": "5-5", "t": %d}}' % 2 ** 70, '"t" is when'),
    ('{"entry": {"player": "Ann", "play": "5-5", "t": -5}}', '"t" is when'),
    ('{"entry": {"player": "Ann", "play": "5-5", "confidence": Infinity}}', "must be finite"),
    ('{"entry": {"player": "Ann", "play": "5-5", "note": NaN}}', "must be finite"),
    ('{"entry": {"player": "Ann", "play": "5-5", "reading": {"p": 1e999}}}', "must be finite"),
    ('{"entry": {"player": "Ann", "play": "5-5", "confidence": 7}}', '"confidence" is a number'),
    ('{"entry": {"player": "Ann", "play": "5-5", "source": {"x": 1}}}',
     'leave "source" out'),
    ('{"entry": {"player": "Ann", "play": "5-5", "reading": 5}}', '"reading" is an object'),
    ('{"entry": {"player": "Ann", "play": "5-5", "alternatives": 5}}', '"alternatives" is a list'),
    ('{"entry": {"end_round": {"hands": {"Ann": null}}}}', "must be a list of the tiles left"),
    ('{"entry": {"reread": {"was": "5-5", "as": {"play": "6-6"}}, "reading": 5}}',
     'an entry from the tablet is the players\' own'),
    ('{"entry": {"player": "Ann", "play": "5-5", "source": "camera", "confidence": 0.1}}',
     'an entry from the tablet is the players\' own'),
    ('{"entry": ' + "[" * 50000 + "]" * 50000 + "}", "nested too deeply"),
])
def test_bad_entry_fields_get_400_and_change_nothing(client: FlaskClient, raw: str,
                                                     words: str) -> None:
    """Entry fields of the wrong kind (a time that is no time, numbers that are not JSON, a
    reading that is no object...) are refused naming the field, before anything is applied:
    the table, the log and a restart agree afterwards (a ``t`` of null used to be applied and
    then fail to store, so the dashboard showed a play the log did not have)."""
    if "reread" in raw:
        assert post(client, "/api/submit", {"entry": {"player": "Ann", "play": "5-5"}}
                    ).status_code == 200
    before = client.get("/api/state").get_json()
    resp = client.post("/api/submit", data=raw, headers={
        "X-CSRF-Token": client.get_cookie("dc_csrf").value, "Content-Type": "application/json"})
    assert resp.status_code == 400 and words in resp.get_json()["error"], resp.get_json()
    after = client.get("/api/state").get_json()
    assert (after["moves"], after["scores"], after["history"]) == (
        before["moves"], before["scores"], before["history"])
    follow = {"player": "Bob", "play": "0-5", "on": "5-5"} if "reread" in raw else \
        {"player": "Ann", "play": "5-5"}
    assert post(client, "/api/submit", {"entry": follow}).get_json()["status"] == "accepted"
    assert client.get("/api/state").get_json()["moves"] == before["moves"] + 1


def test_pair_and_calibration_refuse_bodies_they_cannot_read(client: FlaskClient) -> None:
    """The other JSON routes read bodies the same strict way: 400 naming what was wrong."""
    headers = {"X-CSRF-Token": client.get_cookie("dc_csrf").value,
               "Content-Type": "application/json"}
    for path in ("/api/pair", "/api/calibration", "/api/calibration/corners"):
        resp = client.post(path, data='{"code": NaN}', headers=headers)
        assert resp.status_code == 400 and "must be finite" in resp.get_json()["error"], path
        resp = client.post(path, data="[" * 50000 + "]" * 50000, headers=headers)
        assert resp.status_code == 400 and "nested too deeply" in resp.get_json()["error"], path


@pytest.mark.parametrize("options, target", [({"marks": True}, 7),
                                             ({"marks": True, "marks_to_win": 3}, 3),
                                             ({}, 250)])
def test_fortytwo_target_is_marks_in_marks_mode(client: FlaskClient, options: dict,
                                                target: int) -> None:
    """The player cards' "needs N to reach T" uses the state's target: marks in marks mode."""
    resp = post(client, "/api/new_game", {"game": "fortytwo", "players": ["Ann", "Bob", "Cy",
                                                                           "Dee"],
                                          "options": options, "leave_unfinished": True})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["target"] == target
    assert client.get("/api/state").get_json()["target"] == target


#: Forty-Two without the deal: Bob bids 30, trump 4; Dee plays 1-1 on the 6-6 lead (no 6),
#: then shows the 3-6 in trick 2: a renege the table has proved.
RENEGE_42 = [{"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"},
             {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"},
             {"player": "Bob", "trump": 4},
             {"player": "Bob", "play": "6-6"}, {"player": "Cy", "play": "5-6"},
             {"player": "Dee", "play": "1-1"}, {"player": "Ann", "play": "0-6"},
             {"player": "Bob", "play": "5-5"}, {"player": "Cy", "play": "0-5"},
             {"player": "Dee", "play": "6-3"}]


def test_a_trick_hand_ends_early_from_the_tablet_with_taken(client: FlaskClient) -> None:
    """The trick view carries this hand's reneges; the page has the "End the hand early" form,
    whose entry ({"end_round": {"taken": ...}}) the API takes mid-hand as the table's ruling."""
    resp = post(client, "/api/new_game", {"game": "fortytwo", "players": ["Ann", "Bob", "Cy",
                                                                           "Dee"],
                                          "leave_unfinished": True})
    assert resp.status_code == 200
    for entry in RENEGE_42:
        assert post(client, "/api/submit", {"entry": entry}).get_json()["status"] == "accepted"
    view = client.get("/api/state").get_json()["view"]
    assert [(r["player"], r["trick"]) for r in view["reneges"]] == [("Dee", 1)]
    assert (view["hand_total"], view["taken_unit"]) == (42, "points")
    html = client.get("/").get_data(as_text=True)
    assert 'id="taken-form"' in html and 'id="taken-sides"' in html
    # what the form posts: each side by its first player, the values the table ruled
    resp = post(client, "/api/submit", {"entry": {"end_round": {"taken": {"Ann": 42,
                                                                          "Bob": 0}}}})
    assert resp.status_code == 200 and resp.get_json()["status"] == "accepted", resp.get_json()
    state = client.get("/api/state").get_json()
    assert state["scores"] == {"Ann": 72, "Bob": 0, "Cy": 72, "Dee": 0}
    assert state["view"]["reneges"] == [] and state["view"]["phase"] == "bid"


def test_new_game_and_rematch(client: FlaskClient) -> None:
    resp = post(client, "/api/new_game", {"game": "allfives", "players": ["Dee", "Eve"],
                                          "options": {"target": 150}})
    assert resp.status_code == 200
    state = resp.get_json()
    assert state["players"] == ["Dee", "Eve"] and state["target"] == 150
    gen = state["generation"]
    sim = play_random_game("allfives", ["Dee", "Eve"], seed=4, max_moves=3,
                           options={"target": 150})
    feed(client, sim.moves)
    # one stray tap does not leave a game in progress: the dashboard asks first
    for path, body in [("/api/rematch", {}), ("/api/new_game", {"game": "allfives",
                                                               "players": ["Dee", "Eve"]})]:
        resp = post(client, path, body)
        assert resp.status_code == 409, path
        assert 'is not finished: send "leave_unfinished": true' in resp.get_json()["error"]
    assert client.get("/api/state").get_json()["generation"] == gen
    resp = post(client, "/api/rematch", {"leave_unfinished": "yes"})
    assert resp.status_code == 400 and "true or false" in resp.get_json()["error"]
    again = post(client, "/api/rematch", {"leave_unfinished": True}).get_json()
    assert again["players"] == ["Dee", "Eve"] and again["options"]["target"] == 150
    assert again["moves"] == 0 and again["generation"] == gen + 1
    for body, words in [({"game": "nosuch", "players": ["A", "B"]}, "no game called"),
                        ({"game": "allfives", "players": ["A"]}, "2 to 8 players"),
                        ({"game": "allfives", "players": ["A", "B"], "options": {"x": 1}},
                         "no option x"),
                        ({"players": ["A", "B"]}, '"game"'),
                        ({"game": "allfives", "players": ["Ann", "Ann "]}, "no spaces at"),
                        ({"game": "allfives", "players": ["Ann", "B" * 41]}, "at most 40"),
                        ({"game": "allfives", "players": ["A", "B"], "options": 0},
                         '"options" must be an object'),
                        ({"game": "allfives", "players": ["A", "B"], "options": []},
                         '"options" must be an object')]:
        resp = post(client, "/api/new_game", body)
        assert resp.status_code == 400, body
        assert words in resp.get_json()["error"], resp.get_json()
    assert client.get("/api/state").get_json()["generation"] == gen + 1


def test_no_game_yet(tmp_path) -> None:
    app = make_app(tmp_path, start=False)
    with app.test_client() as c:
        pair(c, app)
        assert c.get("/api/state").get_json()["game"] is None
        assert c.get("/").status_code == 200
        resp = post(c, "/api/submit", {"entry": {"player": "Ann", "pass": True}})
        assert resp.status_code == 409 and "/api/new_game" in resp.get_json()["error"]
        assert c.get("/export.csv").status_code == 409
        resp = post(c, "/api/new_game", {"game": "allfives", "players": "Ann, Bob"})
        assert resp.get_json()["players"] == ["Ann", "Bob"]


def test_games_list(client: FlaskClient) -> None:
    data = client.get("/api/games").get_json()
    allfives = next(g for g in data["games"] if g["name"] == "allfives")
    assert allfives["options"]["target"]["default"] == 100
    assert "bid" in data["kinds"] and "end_round" in data["kinds"]


def test_camera_without_source(client: FlaskClient) -> None:
    cam = client.get("/api/camera").get_json()
    assert cam["state"] == "none" and "No camera" in cam["message"]
    resp = client.get("/video.mjpg")
    assert resp.status_code == 404 and "no camera in this mode" in resp.get_json()["error"]


def test_qr_svg(client: FlaskClient) -> None:
    resp = client.get("/qr.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    assert resp.get_data(as_text=True).startswith("<svg")


SEED_PLAYS = [{"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"},
              {"player": "Cy", "play": "3-5", "on": "5-5"},
              {"player": "Ann", "play": "0-2", "on": "0-5"}]


def test_amend_a_past_entry(client: FlaskClient) -> None:
    for e in SEED_PLAYS:
        assert post(client, "/api/submit", {"entry": e}).get_json()["status"] == "accepted"
    state = client.get("/api/state").get_json()
    assert state["scores"] == {"Ann": 15, "Bob": 10, "Cy": 0}
    seq = state["history"][2]["seq"]
    resp = post(client, "/api/amend", {"seq": seq, "entry": {"player": "Cy", "play": "5-6", "on": "5-5"}})
    assert resp.status_code == 200, resp.get_json()
    item = resp.get_json()["amended"]
    assert item["amended"] is True and item["original_text"] == "Cy plays 3-5 on 5-5"
    state = client.get("/api/state").get_json()
    assert state["scores"] == {"Ann": 10, "Bob": 10, "Cy": 0}  # 0-2 now makes 2 + 6 = 8
    assert state["history"][2]["source"] == "correction" and state["amended"] == 1
    history = client.get("/api/history").get_json()["history"]
    assert [h["seq"] for h in history] == [h["seq"] for h in state["history"]]


def test_amend_bad_requests_are_400_and_change_nothing(client: FlaskClient) -> None:
    for e in SEED_PLAYS:
        post(client, "/api/submit", {"entry": e})
    before = client.get("/api/state").get_json()
    seq = before["history"][1]["seq"]
    cases = [
        ({"seq": seq, "entry": {"player": "Bob", "play": "0-2", "on": "5-5"}}, "the amended entry itself"),
        ({"seq": before["history"][2]["seq"], "entry": {"player": "Cy", "play": "0-2", "on": "0-5"}}, "line 4"),
        ({"seq": "2", "entry": {"player": "Bob", "pass": True}}, '"seq" must be the sequence number'),
        ({"seq": 999, "entry": {"player": "Bob", "pass": True}}, "entry 999 is not in force"),
        ({"seq": seq}, 'the body must be {"entry"'),
        ({"seq": seq, "entry": {"player": "Bob"}}, "needs exactly one of the keys"),
    ]
    for body, message in cases:
        resp = post(client, "/api/amend", body)
        assert resp.status_code == 400, (body, resp.get_json())
        assert message in resp.get_json()["error"], (body, resp.get_json())
    after = client.get("/api/state").get_json()
    assert {k: v for k, v in after.items() if k != "version"} == \
        {k: v for k, v in before.items() if k != "version"}


def test_spectator_cannot_amend(client: FlaskClient, app: Flask) -> None:
    post(client, "/api/submit", {"entry": SEED_PLAYS[0]})
    seq = client.get("/api/state").get_json()["history"][0]["seq"]
    spectator = app.test_client()
    spectator.get("/")
    resp = post(spectator, "/api/amend", {"seq": seq, "entry": {"player": "Ann", "play": "6-6"}})
    assert resp.status_code == 403
    assert client.get("/api/state").get_json()["history"][0]["text"] == "Ann plays 5-5"


def test_an_other_reading_offered_by_its_tile_is_posted_back_as_the_correction(
        app: Flask, client: FlaskClient) -> None:
    """The interpreters name the camera's other readings by tile (``{"tile", "p"}``); the
    alert offers each as a whole entry (the proposed play with that tile), and posting one, as
    the dashboard's "It was ..." button does, logs it as the correction."""
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=3)
    feed(client, sim.moves[:2])
    session = app.extensions["session"].session
    true = sim.moves[2].to_json()
    misread = dict(true, play=next(t for t in ("0-0", "1-1") if t != true["play"]))
    result = session.submit(dict(misread, confidence=0.55,
                                 alternatives=[{"tile": true["play"], "p": 0.3}]),
                            source="camera")
    assert result.status == "confirm"
    (offered,) = client.get("/api/state").get_json()["alerts"][0]["alternatives"]
    assert offered == true
    answer = post(client, f"/api/alerts/{result.alert.id}/correct", {"entry": offered})
    assert answer.get_json()["status"] == "accepted", answer.get_json()
    assert session.history[-1]["text"] == str(sim.moves[2])


def test_a_logged_play_the_camera_reads_again_is_amended_or_kept_with_one_tap(
        app: Flask, client: FlaskClient) -> None:
    """The camera now reads 5-6 where it first read Cy's 3-5: the state carries an ``amend``
    alert (the amended entry, the entry it replaces); ``confirm`` amends it through the rules
    and rescores; a tap the rules refuse (the log changed since) is a 400 with their reason and
    leaves the question open; ``dismiss`` keeps the play as logged."""
    for e in SEED_PLAYS:
        assert post(client, "/api/submit", {"entry": e}).get_json()["status"] == "accepted"
    session = app.extensions["session"].session
    seq = client.get("/api/state").get_json()["history"][2]["seq"]
    result = session.submit({"reread": {"was": "3-5", "as": {"play": "5-6"}}, "confidence": 0.97},
                            source="camera")
    (alert,) = client.get("/api/state").get_json()["alerts"]
    assert alert["id"] == result.alert.id and alert["kind"] == "amend"
    assert alert["amend"] == {"seq": seq, "was": "3-5", "text": "Cy plays 3-5 on 5-5"}
    assert (alert["entry"]["player"], alert["entry"]["play"], alert["entry"]["on"]) == \
        ("Cy", "5-6", "5-5")
    resp = post(client, f"/api/alerts/{alert['id']}/confirm")
    assert resp.status_code == 200 and resp.get_json()["status"] == "amended"
    state = client.get("/api/state").get_json()
    assert state["alerts"] == [] and state["scores"] == {"Ann": 10, "Bob": 10, "Cy": 0}
    assert state["history"][2]["amended"] and state["history"][2]["entry"]["play"] == "5-6"
    assert replay_lines(client.get("/export.jsonl").get_data(as_text=True).splitlines()
                        ).game.scores == state["scores"]
    # Ann's 0-2 read again as 0-4: amendable until Bob's 2-3 goes on the 2 of 0-2
    kept = session.submit({"reread": {"was": "0-2", "as": {"play": "0-4"}}}, source="camera")
    assert kept.status == "amend"
    post(client, "/api/submit", {"entry": {"player": "Bob", "play": "2-3", "on": "0-2"}})
    before = client.get("/api/state").get_json()
    resp = post(client, f"/api/alerts/{kept.alert.id}/confirm")
    assert resp.status_code == 400 and "Bob plays 2-3 on 0-2" in resp.get_json()["error"]
    after = client.get("/api/state").get_json()
    assert [a["id"] for a in after["alerts"]] == [kept.alert.id]
    assert after["history"] == before["history"] and after["scores"] == before["scores"]
    assert post(client, f"/api/alerts/{kept.alert.id}/dismiss").status_code == 200
    assert client.get("/api/state").get_json()["history"][3]["entry"]["play"] == "0-2"


def test_a_body_of_another_type_or_too_large_says_what_was_wrong(client: FlaskClient) -> None:
    """A good body sent as text/plain is refused naming the Content-Type; a body over the
    size limit is refused naming the limit; nothing changes."""
    csrf = client.get_cookie("dc_csrf").value
    body = '{"entry": {"player": "Ann", "play": "5-5"}}'
    resp = client.post("/api/submit", data=body,
                       headers={"X-CSRF-Token": csrf, "Content-Type": "text/plain"})
    assert resp.status_code == 400
    assert "Content-Type: application/json, got Content-Type 'text/plain'" in \
        resp.get_json()["error"]
    resp = client.post("/api/submit", data="x" * (300 * 1024),
                       headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
    assert resp.status_code == 413 and "larger than the 256 KB" in resp.get_json()["error"]
    assert client.get("/api/state").get_json()["moves"] == 0
