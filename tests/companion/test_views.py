"""Every game's ``view()`` (what the dashboard draws) and ``entry_kinds()`` (what the tablet
offers): after known moves, and after seeded random play (JSON-ready, consistent with the state,
every offered entry legal)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from companion.errors import DominoError
from companion.games import find_game, game_names, new_game
from companion.games.allfives import houses_tally
from companion.games.base import Game
from companion.moves import Move
from companion.simulate import default_players, next_move
from companion.tiles import Tile, full_set


def play(game: Game, *entries: dict) -> Game:
    for e in entries:
        game.apply(Move.from_json(e))
    return game


def kinds(game: Game) -> dict[str, dict]:
    return {k["kind"]: k for k in game.entry_kinds()}


# ---- All Fives ----------------------------------------------------------------------------

def test_allfives_seed_example_view() -> None:
    g = play(new_game("allfives", ["Ann", "Bob"]),
             {"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"})
    v = g.view()
    assert v["kind"] == "line" and v["spinner"] == "5-5"
    assert v["count"] == 10 and v["scores_now"] is True
    assert v["spinner_arms"] == 1 and v["spinner_open"] == [5, 5, 5]
    play(g, {"player": "Ann", "play": "3-5", "on": "5-5"})
    v = g.view()
    assert v["count"] == 3 and v["scores_now"] is False  # seed: "3 (no score)"
    play(g, {"player": "Bob", "play": "0-2", "on": "0-5"})
    v = g.view()
    assert v["count"] == 5 and v["scores_now"] is True
    assert v["open_ends"] == [2, 3]
    assert v["arms"] == [
        {"tiles": ["5-5", "0-5", "0-2"], "end": "0-2", "open": 2, "double_end": False},
        {"tiles": ["5-5", "3-5"], "end": "3-5", "open": 3, "double_end": False}]
    assert v["spinner_open"] == [5, 5]
    assert v["houses"]["Ann"] == houses_tally(10) and v["houses"]["Bob"] == houses_tally(15)
    assert v["table"] == ["5-5", "0-5", "3-5", "0-2"]
    ek = kinds(g)
    assert set(ek) == {"play", "draw", "pass"}  # no deal: the table's plays, draw, pass
    assert ek["pass"]["player"] == "Ann" and ek["pass"]["entries"] == [{"player": "Ann", "pass": True}]
    assert "2-4 on 0-2" in ek["play"]["values"] and "3-6 on 3-5" in ek["play"]["values"]


@pytest.mark.parametrize("score, houses, strokes, marks, rest", [
    (0, 0, 0, [], 0),
    (5, 0, 1, ["line"], 0),
    (10, 0, 2, ["line", "cross"], 0),
    (15, 0, 3, ["line", "cross", "half"], 0),
    (20, 0, 4, ["line", "cross", "X"], 0),
    (30, 0, 6, ["line", "cross", "X", "O"], 0),
    (45, 0, 9, ["line", "cross", "X", "O", "X", "half"], 0),
    (50, 1, 0, [], 0),
    (67, 1, 3, ["line", "cross", "half"], 2),
    (100, 2, 0, [], 0),
])
def test_houses_tally(score: int, houses: int, strokes: int, marks: list, rest: int) -> None:
    t = houses_tally(score)
    assert t == {"houses": houses, "strokes": strokes, "marks": marks, "rest": rest}
    assert 50 * t["houses"] + 5 * t["strokes"] + t["rest"] == score


def test_houses_tally_refuses_a_negative_score() -> None:
    with pytest.raises(DominoError, match="0 or more, got -5"):
        houses_tally(-5)


# ---- Chickenfoot --------------------------------------------------------------------------

def test_chickenfoot_toes_and_foot_to_complete() -> None:
    g = new_game("chickenfoot", ["Ann", "Bob", "Cy"])
    v = g.view()
    assert v["hub"] == "9-9" and v["lower_is_better"] is True and v["rounds"] == 10
    assert v["must_complete"] == {"double": "9-9", "toes_left": 6, "centre": True}
    toes = ["9-0", "9-1", "9-2", "9-3", "9-4", "9-5"]
    players = ["Ann", "Bob", "Cy"]
    for i, t in enumerate(toes):
        play(g, {"player": players[i % 3], "play": t, "on": "9-9"})
    v = g.view()
    assert v["must_complete"] is None
    assert v["toes"] == [{"double": "9-9", "toes": ["0-9", "1-9", "2-9", "3-9", "4-9", "5-9"],
                          "centre": True}]
    assert sorted(v["open_ends"]) == [0, 1, 2, 3, 4, 5]
    play(g, {"player": "Ann", "play": "3-3", "on": "3-9"})  # a chickenfoot
    v = g.view()
    assert v["must_complete"] == {"double": "3-3", "toes_left": 3, "centre": False}
    assert 3 not in v["open_ends"]  # the double's end waits for its toes
    # ... but its arm is still drawn, up to the double, with the toes it waits for
    assert {"tiles": ["9-9", "3-9", "3-3"], "end": "3-3", "open": 3, "double_end": True,
            "toes_left": 3} in v["arms"]
    ek = kinds(g)
    assert all(e["on"] == "3-3" for e in ek["play"]["entries"])
    play(g, {"player": "Bob", "play": "3-7", "on": "3-3"})
    v = g.view()
    assert v["toes"][1] == {"double": "3-3", "toes": ["3-7"], "centre": False}
    assert {"tiles": ["9-9", "3-9", "3-3", "3-7"], "end": "3-7", "open": 7,
            "double_end": False} in v["arms"]
    assert v["must_complete"]["toes_left"] == 2
    assert not any("toes_left" in arm for arm in v["arms"])  # a toe's arm draws it now


# ---- Super Dominoes -----------------------------------------------------------------------

def test_super_spinner_trains_and_reverse() -> None:
    g = new_game("super", ["Ann", "Bob", "Cy"])
    play(g, {"player": "Ann", "play": "5-5"})
    v = g.view()
    assert v["spinner"] == "5-5" and v["trains"] == 0 and v["trains_max"] == 6
    assert v["spinner_open"] == 5 and v["direction"] == "clockwise"
    nxt = g.current_player
    play(g, {"player": nxt, "play": "3-5", "on": "5-5"})  # a 3 end reverses the direction
    v = g.view()
    assert v["trains"] == 1 and v["direction"] == "counter-clockwise"
    assert v["arms"] == [{"tiles": ["5-5", "3-5"], "end": "3-5", "open": 3, "double_end": False}]
    assert v["spell"] is None and v["skip_pending"] is False
    nxt = g.current_player
    play(g, {"player": nxt, "play": "5-13", "on": "5-5"})  # a 13 end casts a spell
    v = g.view()
    assert v["spell"] == {"tile": "5-13", "caster": nxt, "open": 13}
    victim = g.current_player
    offered = kinds(g)["play"]["entries"]
    assert offered and all(e["on"] == "5-13" and e["player"] == victim for e in offered)


# ---- Castle Rock --------------------------------------------------------------------------

def test_castlerock_row_and_removals() -> None:
    g = play(new_game("castlerock", ["Sol"]), {"player": "Sol", "draw": ["1-2", "3-4", "2-5"]})
    v = g.view()
    assert v == {"kind": "row", "row": ["1-2", "3-4", "2-5"], "pile": 52, "removed": [],
                 "removals": [["3-4"]], "must_remove": True, "draw_next": 0, "win_limit": 2,
                 "won_now": False}
    assert kinds(g) == {"remove": {"kind": "remove", "player": "Sol", "values": ["3-4"],
                                   "entries": [{"player": "Sol", "remove": ["3-4"]}]}}
    play(g, {"player": "Sol", "remove": ["3-4"]})
    v = g.view()
    assert v["row"] == ["1-2", "2-5"] and v["removed"] == ["3-4"] and v["draw_next"] == 1
    assert v["won_now"] is True and v["must_remove"] is False
    assert len(kinds(g)["draw"]["entries"]) == 52


# ---- Forty-Two and Moon -------------------------------------------------------------------

def test_fortytwo_bids_trump_and_trick() -> None:
    g = new_game("fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    assert kinds(g)["bid"]["values"] == ["pass"] + list(range(30, 43))
    play(g, {"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"})
    assert kinds(g)["bid"]["values"] == ["pass"] + list(range(31, 43))
    play(g, {"player": "Dee", "bid": 31}, {"player": "Ann", "bid": "pass"})
    v = g.view()
    assert v["phase"] == "trump" and v["bidder"] == "Dee" and v["bid"] == 31
    assert v["bids"] == [{"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"},
                         {"player": "Dee", "bid": 31}, {"player": "Ann", "bid": "pass"}]
    ek = kinds(g)
    assert list(ek) == ["trump"] and ek["trump"]["player"] == "Dee"
    assert ek["trump"]["values"][:7] == [0, 1, 2, 3, 4, 5, 6]
    play(g, {"player": "Dee", "trump": 5}, {"player": "Dee", "play": "5-5"},
         {"player": "Ann", "play": "4-6"})
    v = g.view()
    assert v["trump"] == "5" and v["led_suit"] == "trump (5s)" and v["trick_no"] == 1
    assert v["trick"] == [{"player": "Dee", "tile": "5-5"}, {"player": "Ann", "tile": "4-6"}]
    play(g, {"player": "Bob", "play": "3-2"}, {"player": "Cy", "play": "1-1"})
    v = g.view()
    assert v["trick"] == [] and v["tricks_played"] == 1
    assert v["tricks_won"] == {"Ann": 0, "Bob": 0, "Cy": 0, "Dee": 1}
    # Dee's team takes 5-5 (10) + 4-6 (10) + 3-2 (5) + 1 for the trick = 26
    assert v["sides"] == [{"players": ["Ann", "Cy"], "tricks": 0, "points": 0, "bidding": False},
                          {"players": ["Bob", "Dee"], "tricks": 1, "points": 26, "bidding": True}]
    assert v["scoring"] == "points" and v["goal"] == 250 and v["bid_marks"] is None


def test_trick_view_keeps_the_last_trick_until_the_next_lead_and_shows_reneges() -> None:
    g = new_game("fortytwo", ["Ann", "Bob", "Cy", "Dee"])
    assert g.view()["last_trick"] is None and g.view()["reneges"] == []
    assert (g.view()["hand_total"], g.view()["taken_unit"]) == (42, "points")
    play(g, {"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"},
         {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"},
         {"player": "Bob", "trump": 0}, {"player": "Bob", "play": "2-4"},
         {"player": "Cy", "play": "1-6"},  # no 4: Cy is void in 4s
         {"player": "Dee", "play": "4-4"}, {"player": "Ann", "play": "0-0"})
    v = g.view()
    assert v["trick"] == [] and v["last_trick"] == {
        "number": 1, "winner": "Ann", "tile": "0-0", "points": 1,
        "trick": [{"player": "Bob", "tile": "2-4"}, {"player": "Cy", "tile": "1-6"},
                  {"player": "Dee", "tile": "4-4"}, {"player": "Ann", "tile": "0-0"}]}
    play(g, {"player": "Ann", "play": "0-1"})
    assert g.view()["last_trick"] is None  # the next lead: only the trick in play
    play(g, {"player": "Bob", "play": "1-1"}, {"player": "Cy", "play": "1-4"})  # a 4: renege
    (r,) = g.view()["reneges"]
    assert (r["player"], r["trick"]) == ("Cy", 1)
    assert r["detail"].startswith("Cy reneged in trick 1: 2-4 led suit 4")
    play(g, {"end_round": {"taken": {"Ann": 0, "Bob": 42}}})
    v = g.view()
    assert v["reneges"] == [] and v["last_trick"] is None  # a new hand
    moon = new_game("moon", ["Ann", "Bob", "Cy"])
    assert (moon.view()["hand_total"], moon.view()["taken_unit"]) == (7, "tricks")


def test_moon_discard_phase() -> None:
    g = new_game("moon", ["Ann", "Bob", "Cy"])
    play(g, {"player": "Bob", "bid": 4}, {"player": "Cy", "bid": 21})
    v = g.view()
    assert v["phase"] == "trump" and v["bidder"] == "Cy" and v["moon_bid"] is True
    assert v["needs"] == 7
    play(g, {"player": "Cy", "trump": 6})
    v = g.view()
    assert v["phase"] == "discard" and v["discarded"] is None
    ek = kinds(g)
    assert ek["discard"]["player"] == "Cy" and "play" in ek  # or lead at once, face down
    play(g, {"player": "Cy", "discard": "1-2"})
    v = g.view()
    assert v["discarded"] == "1-2" and v["phase"] == "play" and v["to_act"] == "Cy"
    assert [s["players"] for s in v["sides"]] == [["Ann"], ["Bob"], ["Cy"]]


# ---- Build Up -----------------------------------------------------------------------------

BUILDUP_DEAL = {"deal": {}, "layouts": {
    "Ann": ["red:1-2", "red:3-4", "red:5-5", "red:0-6", "red:2-2", "red:1-1"],
    "Bob": ["blue:0-3", "blue:2-5", "blue:4-4", "blue:1-6", "blue:0-0", "blue:3-3"]},
    "first": {"Ann": "red:6-6", "Bob": "blue:0-1"}}


def test_buildup_stacks_levels_and_totals() -> None:
    g = play(new_game("buildup", ["Ann", "Bob"]), BUILDUP_DEAL,
             {"player": "Ann", "play": "red:6-6", "on": "blue:2-5"})
    v = g.view()
    assert v["colours"] == {"Ann": "red", "Bob": "blue"}
    bob = v["layouts"]["Bob"]
    assert bob[1] == {"tiles": ["blue:2-5", "red:6-6"], "top": "red:6-6", "top_colour": "red",
                      "top_owner": "Ann", "level": 1, "top_pips": 12}
    # Ann: her six layout tops (3+7+10+6+4+2 = 32) and 6-6 on Bob's layout (12)
    assert v["totals"] == {"Ann": 44, "Bob": 3 + 8 + 7 + 0 + 6}
    assert [len(v["layouts"][p]) for p in ("Ann", "Bob")] == [6, 6]


# ---- Stackernoes --------------------------------------------------------------------------

def test_stackernoes_grid_cells_and_levels() -> None:
    g = play(new_game("stackernoes", ["Ann", "Bob"]),
             {"player": "Ann", "play": "0-0", "at": [[0, 0], [1, 0]], "level": 0},
             {"player": "Bob", "play": "0-3", "at": [[-1, 0], [-2, 0]], "level": 0})
    v = g.view()
    assert v["kind"] == "grid" and v["bounds"] == [-2, 0, 1, 0] and v["axis"] == [1, 0]
    assert [(c["x"], c["value"], c["level"], c["tile"]) for c in v["cells"]] == [
        (-2, 3, 0, "0-3"), (-1, 0, 0, "0-3"), (0, 0, 0, "0-0"), (1, 0, 0, "0-0")]
    assert all(c["run"] for c in v["cells"])
    assert v["run_tiles"] == 2 and v["tiles"] == ["0-0", "0-3"]
    assert sorted((e["x"], e["value"], e["capped"]) for e in v["ends"]) == [(-2, 3, False),
                                                                            (1, 0, False)]
    # both tiles are ends of a short run: nothing may be stacked yet (that would cap it)
    assert {e["level"] for e in kinds(g)["play"]["entries"]} == {0}
    play(g, {"player": "Ann", "play": "0-1", "at": [[2, 0], [3, 0]], "level": 0})
    stacked = [e for e in kinds(g)["play"]["entries"] if e["level"] == 1]
    assert stacked and all(sorted(e["at"]) == [[0, 0], [1, 0]] for e in stacked)
    play(g, stacked[0])
    v = g.view()
    top = {(c["x"], c["y"]): c for c in v["cells"]}
    assert top[(0, 0)]["level"] == 1 and top[(1, 0)]["level"] == 1
    assert top[(0, 0)]["tile"] == stacked[0]["play"] and top[(2, 0)]["level"] == 0


# ---- every game, seeded random play -------------------------------------------------------

def _players(name: str) -> list[str]:
    cls = find_game(name)
    return default_players(max(cls.min_players, min(3, cls.max_players)) if name != "fortytwo"
                           else 4)


def _consistent(game: Game, view: dict) -> None:
    """The view agrees with the game's state, whatever the game."""
    if view["kind"] == "line":
        assert view["open_ends"] == [v for _, v in game.ends]
        assert view["table"] == [str(t) for t in game.table]
        for arm, (tile, value) in zip(view["arms"], game.ends):
            assert arm["end"] == str(tile) and arm["open"] == value
            assert arm["tiles"][-1] == str(tile)
            assert set(arm["tiles"]) <= set(view["table"])
        if game.name == "allfives":
            assert view["count"] == game.count()
            for p, t in view["houses"].items():
                assert 50 * t["houses"] + 5 * t["strokes"] + t["rest"] == game.scores[p]
    elif view["kind"] == "tricks":
        assert sum(view["tricks_won"].values()) == view["tricks_played"]
        assert sum(s["tricks"] for s in view["sides"]) == view["tricks_played"]
        assert len(view["trick"]) < len(game.players)
    elif view["kind"] == "row":
        assert len(view["row"]) + len(view["removed"]) + view["pile"] == len(full_set(9))
        assert view["must_remove"] == bool(view["removals"])
    elif view["kind"] == "layouts":
        tiles = [t for p in game.players for s in view["layouts"][p] for t in s["tiles"]]
        assert tiles == [str(t) for t in game.table_tiles()]
        for p in game.players:
            mine = [s["top_pips"] for q in game.players for s in view["layouts"][q]
                    if s["top_owner"] == p]
            assert view["totals"][p] == sum(mine)
    elif view["kind"] == "grid":
        halves = sum(c["level"] + 1 for c in view["cells"])
        assert halves == 2 * len(view["tiles"])
        for c in view["cells"]:
            assert c["tile"] in view["tiles"]
            assert c["value"] in Tile.parse(c["tile"]).halves
    else:
        raise AssertionError(f"{game.name}: unknown view kind {view['kind']!r}")


def _offered_entries_are_legal(game: Game, rng: random.Random) -> None:
    for k in game.entry_kinds():
        assert k["values"] and len(k["values"]) == len(k["entries"]) or k["kind"] == "end_round"
        for entry in rng.sample(k["entries"], min(3, len(k["entries"]))):
            trial = copy.deepcopy(game)
            trial.apply(Move.from_json(entry))  # raises if the tablet offered an illegal entry


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seed", [1, 2])
def test_views_during_seeded_random_play(name: str, seed: int) -> None:
    cls = find_game(name)
    game = cls(_players(name), dict(cls.simulation_options))
    rng = random.Random(seed)
    check = random.Random(seed + 100)
    kinds_seen = set()
    for n in range(150):
        if game.finished:
            break
        game.apply(next_move(game, rng))
        view = game.view()
        assert json.loads(json.dumps(view)) == view, f"{name}: view is not plain JSON"
        assert json.loads(json.dumps(game.entry_kinds())) == game.entry_kinds()
        _consistent(game, view)
        kinds_seen.add(view["kind"])
        if n % 10 == 0:
            _offered_entries_are_legal(game, check)
    assert len(kinds_seen) == 1


def test_base_default_view_and_round_over_entry() -> None:
    """A game without its own view gets the generic one; a finished round offers end_round."""
    g = new_game("allfives", ["Ann", "Bob"])
    assert Game.view(g) == {"kind": "generic", "table": []}
    sim_rng = random.Random(7)
    while not g.round_over:
        g.apply(next_move(g, sim_rng))
    assert [k["kind"] for k in g.entry_kinds()] == ["end_round"]


@pytest.mark.parametrize("name", ["allfives", "chickenfoot", "super"])
def test_every_tile_on_the_table_is_drawn_in_an_arm(name: str) -> None:
    """The line view draws each tile on the table in some arm (or as the centre double or
    spinner) after every move of seeded random games: a Chickenfoot double waiting for its
    first toe used to vanish with the tiles leading to it."""
    from companion.simulate import play_random_game

    players = default_players(3)
    for seed in range(8):
        sim = play_random_game(name, players, seed=seed, max_moves=300)
        game = new_game(name, players, dict(sim.header.options))
        for i, move in enumerate(sim.moves):
            game.apply(move)
            view = game.view()
            drawn = {t for arm in view["arms"] for t in arm["tiles"]}
            drawn.add(view.get("spinner") or view.get("hub"))
            missing = [t for t in view["table"] if t not in drawn]
            assert not missing, f"seed {seed}, after move {i} ({move}): {missing} not drawn"
