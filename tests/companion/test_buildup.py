"""Build Up rules: covering, colours, turns, must-play, round end, scoring, rounds, known answers."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from companion.errors import IllegalMoveError, MoveFormatError, OptionError
from companion.games.buildup import BuildUp, covers
from companion.moves import Move
from companion.tiles import Tile, full_set

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "known_answers" /
                   "buildup.json").read_text())

LAYOUTS = {"Ann": ["red:0-1", "red:2-3", "red:1-5", "red:3-3", "red:0-6", "red:4-4"],
           "Bob": ["blue:0-2", "blue:1-4", "blue:2-6", "blue:5-5", "blue:0-0", "blue:3-6"]}
FIRST = {"Ann": "red:5-6", "Bob": "blue:6-6"}
HANDS = {"Ann": ["red:5-6", "red:2-2", "red:4-5", "red:0-0", "red:1-2", "red:6-6"],
         "Bob": ["blue:6-6", "blue:1-1", "blue:4-5", "blue:0-3", "blue:1-2", "blue:2-3"]}


def play(players: list[str], entries: list[dict], options: dict | None = None) -> BuildUp:
    g = BuildUp(players, options)
    for e in entries:
        g.apply(Move.from_json(e))
    return g


def known() -> BuildUp:
    return play(["Ann", "Bob"], [{"deal": HANDS, "layouts": LAYOUTS, "first": FIRST}])


@pytest.mark.parametrize("row", DATA["covering"], ids=[r["note"] for r in DATA["covering"]])
def test_covering_rules(row: dict) -> None:
    assert covers(Tile.parse(row["tile"]), Tile.parse(row["top"])) is row["legal"]


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_known_answers(case: dict) -> None:
    if "error" in case:
        g = play(case["players"], case["log"][:-1])
        before = g.snapshot()
        with pytest.raises(IllegalMoveError, match=re.escape(case["error"])):
            g.apply(Move.from_json(case["log"][-1]))
        assert g.snapshot() == before
        return
    g = play(case["players"], case["log"])
    if "scores" in case:
        assert g.scores == case["scores"]
    if "turn" in case:
        assert g.current_player == case["turn"]
    if "held" in case:
        assert g.held == case["held"]


def test_round_score_events_and_next_round() -> None:
    g = play(["Ann", "Bob"], DATA["cases"][0]["log"][:-2])
    assert g.round_over and g.legal_moves() == []
    events = g.apply(Move.end_round())
    assert [(e.kind, e.player, e.points) for e in events[:2]] == [("score", "Ann", 44),
                                                                  ("score", "Bob", 26)]
    assert g.round == 2 and g.needs_deal and g.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="round 2 has not been dealt yet"):
        g.apply(Move.pass_("Ann"))


def test_known_hands_must_play_and_hold_the_tile() -> None:
    g = known()
    assert g.current_player == "Bob"
    legal = [str(m) for m in g.legal_moves()]
    assert "Bob passes" not in legal and "Bob plays blue:1-1 on red:0-1" in legal
    with pytest.raises(IllegalMoveError, match="Bob can play, so may not pass"):
        g.apply(Move.pass_("Bob"))
    with pytest.raises(IllegalMoveError, match="Bob does not hold blue:3-3"):
        g.apply(Move.play("Bob", "blue:3-3", "red:0-1"))
    g.apply(Move.play("Bob", "blue:1-1", "red:0-1"))
    assert g.hands is not None and Tile.parse("blue:1-1") not in g.hands["Bob"]


def test_three_rounds_then_highest_total_wins() -> None:
    g = play(["Ann", "Bob"], DATA["cases"][2]["log"])  # round 1 blocked: 60 each
    for _ in range(2):
        g.apply(g.deal_round(random.Random(g.round)))
        while not g.round_over:
            g.apply(g.legal_moves()[0])
        g.apply(g.end_round_move())
    assert g.finished and len(g.round_scores) == 3
    best = max(g.scores.values())
    assert g.winners == [p for p in g.players if g.scores[p] == best]
    assert g.scores == {p: sum(r[p] for r in g.round_scores) for p in g.players}


def test_deal_checks() -> None:
    g = BuildUp(["Ann", "Bob"])
    with pytest.raises(MoveFormatError, match='needs "layouts"'):
        g.apply(Move.from_json({"deal": {}, "first": FIRST}))
    bad = dict(LAYOUTS, Bob=LAYOUTS["Ann"])
    with pytest.raises(MoveFormatError, match="red:0-1 is not a tile of the blue"):
        g.apply(Move.from_json({"deal": {}, "layouts": bad, "first": FIRST}))
    with pytest.raises(MoveFormatError, match="first tile red:0-6 of Ann must be in their hand"):
        g.apply(Move.from_json({"deal": HANDS, "layouts": LAYOUTS,
                                "first": {"Ann": "red:0-6", "Bob": "blue:6-6"}}))
    dup = dict(HANDS, Ann=["red:0-1"] + HANDS["Ann"][1:])
    with pytest.raises(MoveFormatError, match="red:0-1 is already dealt or on the table"):
        g.apply(Move.from_json({"deal": dup, "layouts": LAYOUTS, "first": {"Ann": "red:0-1", "Bob": "blue:6-6"}}))


def test_colour_option() -> None:
    g = BuildUp(["Ann", "Bob"], {"colours": ["ivory", "jade"]})
    assert g.colour == {"Ann": "ivory", "Bob": "jade"}
    assert len(g.round_set()) == 56 and {t.colour for t in g.round_set()} == {"ivory", "jade"}
    with pytest.raises(OptionError, match="must list 2 different lower-case colour words"):
        BuildUp(["Ann", "Bob"], {"colours": ["red", "red"]})
    with pytest.raises(OptionError, match="must list 2"):
        BuildUp(["Ann", "Bob"], {"colours": ["red"]})


def test_play_needs_on() -> None:
    g = known()
    with pytest.raises(MoveFormatError, match="must say which stack top"):
        g.apply(Move.from_json({"player": "Bob", "play": "blue:1-1"}))


def test_end_round_counts_checked_without_hands() -> None:
    g = play(["Ann", "Bob"], DATA["cases"][0]["log"][:-2])
    with pytest.raises(IllegalMoveError, match="Ann holds 4 tiles by the log, not 1"):
        g.apply(Move.end_round({"Ann": ["red:1-1"]}))


def test_seeded_games_keep_every_tile_and_replay() -> None:
    for n, seed in ((2, 1), (3, 2), (5, 3)):
        rng = random.Random(seed)
        g = BuildUp(["Ann", "Bob", "Cy", "Dee", "Eve"][:n])
        log = []
        while not g.finished:
            if g.needs_deal:
                m = g.deal_round(rng)
            elif g.round_over:
                m = g.end_round_move()
            else:
                m = rng.choice(g.legal_moves())
            g.apply(m)
            log.append(m.to_json())
            assert g.hands is not None and g.boneyard is not None
            everything = [t for h in g.hands.values() for t in h] + g.table_tiles() + g.boneyard
            assert sorted(everything) == sorted(g.round_set())
            lo, hi = g.score_bounds()
            assert all(lo <= s <= hi for s in g.scores.values())
        again = play(g.players, log)
        assert again.snapshot() == g.snapshot()


def test_generator_and_checker_agree_on_every_tile_and_top() -> None:
    """Without hands: each unplayed tile of Bob's colour on each top is accepted exactly when
    legal_moves lists it."""
    g = play(["Ann", "Bob"], DATA["cases"][0]["log"][:3])  # Bob to play after two plays
    legal = g.legal_moves()
    on_table = set(g.table_tiles())
    tried = ok = 0
    for tile in full_set(6, "blue"):
        for top in g.tops():
            m = Move.play("Bob", tile, top)
            listed = m in legal
            if listed:
                copy.deepcopy(g).apply(m)
            else:
                with pytest.raises(IllegalMoveError):
                    g.apply(m)
            tried += 1
            ok += listed
    assert tried == 28 * 12 and 0 < ok < tried
    assert ok == len([m for m in legal if m.kind == "play"])
    assert all(m.tile not in on_table for m in legal if m.kind == "play")


@pytest.mark.parametrize("tile,top,seed_rule,designer_rule", [
    ("red:2-4", "blue:1-2", False, True),
    ("red:2-4", "blue:1-5", True, True),
    ("red:1-2", "blue:2-4", False, False),
    ("red:1-5", "blue:3-3", False, False),
    ("red:3-4", "blue:3-3", True, True),
])
def test_cover_option(tile: str, top: str, seed_rule: bool, designer_rule: bool) -> None:
    t, s = Tile.parse(tile), Tile.parse(top)
    assert covers(t, s) is seed_rule
    assert covers(t, s, or_more=True) is designer_rule


def test_cover_option_in_play() -> None:
    log = DATA["cases"][0]["log"][:1]  # Bob starts; tops include red:2-3 (5) and red:0-1 (1)
    g = play(["Ann", "Bob"], log)
    with pytest.raises(IllegalMoveError, match=r"only of equal total \(6 vs 5\)"):
        g.apply(Move.play("Bob", "blue:2-4", "red:2-3"))
    g = play(["Ann", "Bob"], log, {"cover": "equal_or_more"})
    g.apply(Move.play("Bob", "blue:2-4", "red:2-3"))
    with pytest.raises(IllegalMoveError, match=r"of equal or lower total \(3 vs 6\)"):
        g.apply(Move.play("Ann", "red:1-2", "red:1-5"))


def test_four_rounds_option_empties_the_boneyards() -> None:
    rng = random.Random(4)
    g = BuildUp(["Ann", "Bob"], {"rounds": 4})
    while not g.finished:
        if g.needs_deal:
            g.apply(g.deal_round(rng))
        elif g.round_over:
            g.apply(g.end_round_move())
        else:
            g.apply(rng.choice(g.legal_moves()))
    assert len(g.round_scores) == 4 and g.boneyard == []
    with pytest.raises(OptionError, match="choose one of 3, 4"):
        BuildUp(["Ann", "Bob"], {"rounds": 5})
