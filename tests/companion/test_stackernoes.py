"""Stackernoes rules: grid geometry, runs, caps, spans, roots, branches, bridges, draws, going
out, scoring; hand-checked known answers in tests/data/known_answers/stackernoes.json."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from companion.errors import IllegalMoveError, MoveFormatError
from companion.games.stackernoes import Stackernoes
from companion.moves import Move
from companion.tiles import Tile, full_set

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "known_answers" /
                   "stackernoes.json").read_text())
CASES = DATA["cases"]
ANN = ["3-3", "2-2", "0-2", "0-3", "0-4", "0-5", "0-6", "0-7", "0-8"]
BOB = ["1-1", "1-2", "1-3", "1-4", "1-5", "1-6", "1-7", "1-8", "1-9"]


def play(entries: list[dict], players: tuple[str, ...] = ("Ann", "Bob")) -> Stackernoes:
    g = Stackernoes(list(players))
    for e in entries:
        g.apply(Move.from_json(e))
    return g


def case(name: str) -> dict:
    return next(c for c in CASES if c["name"] == name)


def at(player: str, tile: str, cells: list[list[int]], level: int) -> Move:
    return Move.play(player, tile, at=cells, level=level)


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_known_answers(c: dict) -> None:
    if "error" in c:
        g = play(c["log"][:-1])
        before = g.snapshot()
        with pytest.raises(IllegalMoveError, match=re.escape(c["error"])):
            g.apply(Move.from_json(c["log"][-1]))
        assert g.snapshot() == before
        return
    g = Stackernoes(["Ann", "Bob"])
    events = [[[e.kind, e.player, e.points] for e in g.apply(Move.from_json(x))] for x in c["log"]]
    assert g.scores == c["scores"]
    if "turn" in c:
        assert g.current_player == c["turn"]
    if "held" in c:
        assert g.held == c["held"]
    if "winner" in c:
        assert g.finished and g.result()["winner"] == c["winner"]
    if "events" in c:
        assert events[-len(c["events"]):] == c["events"]


def test_several_events_add_up_with_the_value_once() -> None:
    g = play(case("stacked branch over the root, also capping a one-tile branch")["log"][:-1])
    events = g.apply(at("Bob", "2-2", [[5, 0], [5, 1]], 1))
    assert [(e.kind, e.points) for e in events] == [("score", 4 + 8 + 6)]
    assert "branch +8" in events[0].detail and "cap +6" in events[0].detail


def test_bridge_ends_the_root_and_is_only_along_the_run() -> None:
    log = case("root +12 with an extra turn, branch +8, branch cap +6, bridge with its supports")["log"]
    g = play(log[:-1])
    assert g.roots == [(5, 0)]
    with pytest.raises(IllegalMoveError, match="needs a root at"):
        g.apply(at("Ann", "1-8", [[5, -1], [5, 1]], 2))
    g.apply(Move.from_json(log[-1]))
    assert g.roots == [] and (5, 0) in g.bridged


def test_lead_is_the_lowest_double_dealt() -> None:
    g = play([{"deal": {"Ann": ANN, "Bob": BOB}}])
    assert g.lead == Tile.parse("1-1") and g.current_player == "Bob"
    assert [str(m) for m in g.legal_moves()] == ["Bob plays 1-1 on the table at cells (0, 0) and (1, 0)"]
    with pytest.raises(IllegalMoveError, match="the lowest double dealt, 1-1, is led first"):
        g.apply(at("Bob", "1-2", [[0, 0], [1, 0]], 0))
    with pytest.raises(IllegalMoveError, match="it is Bob's turn"):
        g.apply(at("Ann", "2-2", [[0, 0], [1, 0]], 0))


def test_without_a_double_the_lowest_tile_leads() -> None:
    hands = {"Ann": ["0-1", "2-3", "4-5", "6-7", "8-9", "0-9", "1-8", "2-7", "3-6"],
             "Bob": ["0-2", "1-3", "2-4", "3-5", "4-6", "5-7", "6-8", "7-9", "0-8"]}
    g = play([{"deal": hands}])
    assert g.lead == Tile.parse("0-1") and g.current_player == "Ann"


def test_must_draw_when_nothing_fits_and_a_dud_draw_ends_the_turn() -> None:
    g = play([{"deal": {"Ann": ANN, "Bob": BOB}}, at("Bob", "1-1", [[0, 0], [1, 0]], 0).to_json()])
    assert [str(m) for m in g.legal_moves()] == ["Ann draws 1"]
    with pytest.raises(IllegalMoveError, match="Ann must draw"):
        g.apply(Move.pass_("Ann"))
    g.apply(Move.draw("Ann", "5-9"))
    assert g.current_player == "Bob" and g.held["Ann"] == 10 and g.pile == 36


def test_a_useful_draw_may_be_played_or_kept() -> None:
    g = play([{"deal": {"Ann": ANN, "Bob": BOB}}, at("Bob", "1-1", [[0, 0], [1, 0]], 0).to_json()])
    g.apply(Move.draw("Ann", "0-1"))
    legal = [str(m) for m in g.legal_moves()]
    assert g.current_player == "Ann" and legal[-1] == "Ann passes"
    assert all(m.startswith("Ann plays 0-1 ") for m in legal[:-1]) and len(legal) > 1
    with pytest.raises(IllegalMoveError, match="has drawn already this turn"):
        g.apply(Move.draw("Ann", "0-0"))
    g.apply(Move.pass_("Ann"))
    assert g.current_player == "Bob" and Tile.parse("0-1") in (g.hands or {})["Ann"]


def test_known_hand_may_draw_instead_of_playing() -> None:
    g = play([{"deal": {"Ann": ANN, "Bob": BOB}}, at("Bob", "1-1", [[0, 0], [1, 0]], 0).to_json(),
              {"player": "Ann", "draw": "0-1"}, {"player": "Ann", "pass": True}])
    legal = [str(m) for m in g.legal_moves()]
    assert "Bob draws 1" in legal and any(m.startswith("Bob plays") for m in legal)
    with pytest.raises(IllegalMoveError, match="Bob does not hold 0-1"):
        g.apply(at("Bob", "0-1", [[-2, 0], [-1, 0]], 0))


def test_blocked_game_ends_after_everyone_passes() -> None:
    g = play(case("cap +6 on the run's right end after 7 tiles")["log"])
    g.pile = 0  # as if every other tile had been drawn: the pass rule with an empty pile
    g.apply(Move.pass_("Ann"))
    assert not g.round_over
    g.apply(Move.pass_("Bob"))
    assert g.round_over and g.legal_moves() == []
    events = g.apply(Move.end_round())
    assert events[0].detail == "blocked" and g.result()["winner"] == "Bob"



def test_passes_on_ones_own_extra_turns_do_not_block_the_game() -> None:
    """Bob's 2-2 makes two roots (two extra turns) with the pile empty; passing on both is one
    player passing, not everybody: the game goes on to Ann, and is blocked once she passes."""
    run = [("Ann", "0-0", [[0, 0], [1, 0]]), ("Bob", "0-1", [[2, 0], [3, 0]]),
           ("Ann", "1-2", [[4, 0], [5, 0]]), ("Bob", "2-3", [[6, 0], [7, 0]]),
           ("Ann", "3-4", [[8, 0], [9, 0]]), ("Bob", "4-5", [[10, 0], [11, 0]]),
           ("Ann", "5-6", [[12, 0], [13, 0]])]
    g = play([{"player": p, "play": t, "at": c, "level": 0} for p, t, c in run])
    g.apply(at("Bob", "0-7", [[2, 0], [3, 0]], 1))
    g.apply(at("Ann", "4-9", [[9, 0], [8, 0]], 1))
    g.pile = 0  # as if every other tile had been drawn
    events = g.apply(at("Bob", "2-2", [[5, 0], [6, 0]], 1))
    assert [e.kind for e in events].count("extra_turn") == 2
    g.apply(Move.pass_("Bob"))
    g.apply(Move.pass_("Bob"))
    assert not g.round_over and g.current_player == "Ann" and g.legal_moves()
    g.apply(Move.pass_("Ann"))
    assert g.round_over


def test_refusals_say_what_would_be_right() -> None:
    """A pass before the lead says the first tile must be led (not "draw instead", which is
    refused too); a tile whose cells are given high half first says the order of "at"."""
    g = Stackernoes(["Ann", "Bob"])
    with pytest.raises(IllegalMoveError, match="nobody passes before the first tile"):
        g.apply(Move.pass_("Ann"))
    g = play([{"player": p, "play": t, "at": c, "level": 0} for p, t, c in (
        ("Ann", "0-0", [[0, 0], [1, 0]]), ("Bob", "0-6", [[2, 0], [3, 0]]))])
    with pytest.raises(IllegalMoveError, match=r"must show 6, not 7 \(the cells of \"at\" are "
                                               r"the low half's, then the high half's: "
                                               r"\[\[4, 0\], \[5, 0\]\] puts the 6 there\)"):
        g.apply(at("Ann", "6-7", [[5, 0], [4, 0]], 0))
    g.apply(at("Ann", "6-7", [[4, 0], [5, 0]], 0))

def test_entry_format_errors() -> None:
    g = play(case("cap +6 on the run's right end after 7 tiles")["log"][:7])
    with pytest.raises(MoveFormatError, match='"at" must give the cells'):
        g.apply(Move.from_json({"player": "Bob", "play": "6-7", "at": [14, 0], "level": 0}))
    with pytest.raises(MoveFormatError, match='"level" must be a whole number'):
        g.apply(Move.from_json({"player": "Bob", "play": "6-7", "at": [[14, 0], [15, 0]]}))
    with pytest.raises(MoveFormatError, match='not "on"'):
        g.apply(Move.from_json({"player": "Bob", "play": "6-7", "on": "5-6",
                                "at": [[14, 0], [15, 0]], "level": 0}))
    with pytest.raises(IllegalMoveError, match="already on the table"):
        g.apply(at("Bob", "5-6", [[14, 0], [15, 0]], 0))


def test_run_axis_follows_the_first_tile() -> None:
    g = play([{"player": "Ann", "play": "4-4", "at": [[3, 3], [3, 4]], "level": 0}])
    assert g.axis == (0, 1)
    g.apply(at("Bob", "4-6", [[3, 5], [3, 6]], 0))
    with pytest.raises(IllegalMoveError, match="must extend an open end"):
        g.apply(at("Ann", "4-5", [[4, 4], [5, 4]], 0))


def test_seeded_games_keep_every_tile_and_replay() -> None:
    for n, seed in ((2, 1), (3, 2), (6, 3)):
        rng = random.Random(seed)
        g = Stackernoes(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"][:n])
        log = []
        while not g.finished:
            if g.needs_deal:
                m = g.deal_round(rng)
            elif g.round_over:
                assert g.legal_moves() == []
                m = g.end_round_move()
            else:
                m = g.resolve_draw(rng.choice(g.legal_moves()), rng)
            g.apply(m)
            log.append(m.to_json())
            assert g.hands is not None and g.boneyard is not None
            everything = [t for h in g.hands.values() for t in h] + g.table_tiles() + g.boneyard
            assert sorted(everything) == full_set(9)
            assert all(0 <= s <= g.score_bounds()[1] for s in g.scores.values())
        assert play(log, tuple(g.players)).snapshot() == g.snapshot()


def test_branch_grows_in_line_and_matches_its_end() -> None:
    log = case("root +12 with an extra turn, branch +8, branch cap +6, bridge with its supports")["log"]
    g = play(log[:10])  # the run, 1-1, 3-8 (root), 2-7 (branch from the root)
    assert g.current_player == "Bob"
    with pytest.raises(IllegalMoveError, match=re.escape(
            "the half touching the end of the branch at [5, 2] must show 7, not 9")):
        g.apply(at("Bob", "6-9", [[5, 4], [5, 3]], 0))
    with pytest.raises(IllegalMoveError, match="must extend an open end"):
        g.apply(at("Bob", "7-9", [[6, 2], [7, 2]], 0))  # a 90-degree turn
    assert g.apply(at("Bob", "7-9", [[5, 3], [5, 4]], 0)) == []
    assert g.current_player == "Ann" and g.scores == {"Ann": 40, "Bob": 0}


def test_unseen_hands_offer_every_unplayed_tile_that_fits() -> None:
    g = play(case("cap +6 on the run's right end after 7 tiles")["log"][:7])
    legal = g.legal_moves()
    tiles = {m.tile for m in legal if m.kind == "play"}
    assert Tile.parse("6-9") in tiles and Tile.parse("0-0") not in tiles
    assert [str(m) for m in legal if m.kind != "play"] == ["Bob draws 1"]
    for m in legal:  # every legal move is accepted
        copy.deepcopy(g).apply(m)


def _canon(m: Move) -> Move:
    """A double's two cell orders are one placement: sort them."""
    if m.kind == "play" and m.tile is not None and m.tile.is_double:
        return Move.play(m.player or "", m.tile, at=sorted(m.extra["at"]), level=m.extra["level"])
    return m


def _near_miss(m: Move, rng: random.Random, unplayed: list[Tile]) -> Move:
    """A legal play changed a little: one cell moved, the level changed, halves swapped or
    another tile."""
    cells = [list(c) for c in m.extra["at"]]
    level = m.extra["level"]
    tile = m.tile
    kind = rng.randrange(4)
    if kind == 0:
        c = rng.randrange(2)
        cells[c][rng.randrange(2)] += rng.choice((-1, 1))
    elif kind == 1:
        level = max(0, level + rng.choice((-1, 1)))
    elif kind == 2:
        cells.reverse()
    else:
        tile = rng.choice(unplayed)
    return _canon(at(m.player or "", str(tile), cells, level))


def test_generator_and_checker_agree_on_near_misses() -> None:
    """Legal plays and small changes of them are accepted exactly when legal_moves lists them."""
    rng = random.Random(7)
    checked = accepted = 0
    for _game in range(2):
        g = Stackernoes(["Ann", "Bob"])
        g.apply(at("Ann", "4-4", [[0, 0], [1, 0]], 0))
        while not g.round_over and len(g.placed) < 30:
            me = g.current_player or ""
            legal = [_canon(m) for m in g.legal_moves()]
            plays = [m for m in legal if m.kind == "play"]
            unplayed = [t for t in full_set(9) if t not in set(g.placed)]
            for base_move in rng.sample(plays, min(6, len(plays))):
                for m in (base_move, _near_miss(base_move, rng, unplayed),
                          _near_miss(base_move, rng, unplayed)):
                    listed = m in legal
                    if listed:
                        copy.deepcopy(g).apply(m)  # raises if the checker disagrees
                    else:
                        with pytest.raises(IllegalMoveError):
                            g.apply(m)
                    checked += 1
                    accepted += listed
            g.apply(rng.choice(plays) if plays else Move.draw(me, 1))
    assert checked > 500 and 100 < accepted < checked - 100, (checked, accepted)


def test_unnamed_draw_with_known_hands_is_learnt_when_played() -> None:
    g = play([{"deal": {"Ann": ANN, "Bob": BOB}}, at("Bob", "1-1", [[0, 0], [1, 0]], 0).to_json(),
              {"player": "Ann", "draw": 1}])
    assert g.drawn == "?" and g.current_player == "Ann" and g.unknown_in_hand["Ann"] == 1
    g.apply(at("Ann", "0-1", [[-2, 0], [-1, 0]], 0))  # the drawn tile, named by playing it
    assert g.unknown_in_hand["Ann"] == 0 and g.boneyard is not None and len(g.boneyard) == g.pile == 36
    assert g.current_player == "Bob" and g.held == {"Ann": 9, "Bob": 8}
