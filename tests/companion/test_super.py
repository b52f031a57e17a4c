"""Super Dominoes rules: the opening, the 15/14/13/3 and double effects in their fixed order,
drawing two, spells, blocking and scoring."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.errors import IllegalMoveError, MoveFormatError
from companion.games.super import SuperDominoes
from companion.moves import Move
from companion.tiles import Tile

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "known_answers"
                   / "super.json").read_text())
PLAYERS = DATA["players"]


def P(player: str, tile: str, on: str | None = None) -> Move:
    return Move.play(player, tile, on)


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"][:60] for c in DATA["cases"]])
def test_known_answer_effects(case: dict) -> None:
    g = SuperDominoes(PLAYERS)
    for entry, kinds, nxt in zip(case["log"], case["events"], case["next"], strict=True):
        events = g.apply(Move.from_json(entry))
        assert [e.kind for e in events] == kinds, entry
        assert g.current_player == nxt, entry


@pytest.mark.parametrize("case", DATA["end_cases"], ids=[c["name"][:60] for c in DATA["end_cases"]])
def test_known_answer_hand_scores(case: dict) -> None:
    g = SuperDominoes(PLAYERS)
    g.apply(P("Ann", "6-6"))
    g.apply(Move.end_round(case["hands"]))
    assert g.round_scores == [case["points"]]
    assert g.scores == case["points"]


def test_doubles_go_on_their_own_number_or_on_a_13_only() -> None:
    g = SuperDominoes(PLAYERS)
    g.apply(P("Ann", "6-6"))
    g.apply(P("Bob", "6-9", "6-6"))
    before = g.snapshot()
    with pytest.raises(IllegalMoveError) as err:
        g.apply(P("Cy", "4-4", "6-9"))
    assert str(err.value).startswith("Cy plays 4-4 on 6-9: 6-9's open end is 9: a double goes "
                                     "on its own number or on a 13; legal: ")
    assert g.snapshot() == before
    g.apply(P("Cy", "9-9", "6-9"))  # own number: the next player (Ann) misses a turn
    assert g.current_player == "Bob"
    g.apply(P("Bob", "6-13", "6-6"))  # 13: a spell on Cy
    with pytest.raises(IllegalMoveError, match="Cy is under Bob's spell"):
        g.apply(P("Cy", "9-2", "9-9"))
    g.apply(P("Cy", "4-4", "6-13"))  # any double on a 13 breaks it
    assert g.spell is None and g.ends[-1] == [Tile.of(4, 4), 4]


def test_spell_caster_is_immune_and_the_spell_holds() -> None:
    g = SuperDominoes(["Ann", "Bob"])
    g.apply(P("Ann", "6-6"))
    g.apply(P("Bob", "6-13", "6-6"))
    g.apply(Move.pass_("Ann"))  # without a deal the pass is taken as it comes
    g.apply(P("Bob", "6-1", "6-6"))  # the caster plays elsewhere
    assert g.spell == [Tile.of(6, 13), "Bob"]
    with pytest.raises(IllegalMoveError, match="under Bob's spell"):
        g.apply(P("Ann", "1-2", "1-6"))
    g.apply(P("Ann", "13-2", "6-13"))
    assert g.spell is None


def test_six_trains_on_the_spinner() -> None:
    g = SuperDominoes(["Ann", "Bob"])
    g.apply(P("Ann", "6-6"))
    for i, other in enumerate([0, 1, 2, 4, 5, 7]):
        g.apply(P(["Bob", "Ann"][i % 2], f"6-{other}", "6-6"))
    with pytest.raises(IllegalMoveError, match="the spinner 6-6 has all six trains"):
        g.apply(P("Bob", "6-8", "6-6"))


HANDS = {"Ann": ["1-2", "1-3", "1-4", "1-5", "1-6", "1-7", "1-8", "1-9", "1-10"],
         "Bob": ["2-3", "2-4", "5-5", "2-5", "2-6", "2-7", "8-8", "2-8", "2-9"],
         "Cy": ["3-4", "3-5", "7-7", "3-6", "3-7", "3-8", "3-9", "3-10", "3-11"]}


def test_first_player_with_a_double_sets_one() -> None:
    g = SuperDominoes(PLAYERS)
    g.apply(Move.deal(HANDS))
    assert g.current_player == "Bob"  # Ann has no double; the option passes to Bob
    assert g.legal_moves() == [P("Bob", "5-5"), P("Bob", "8-8")]
    with pytest.raises(IllegalMoveError, match="it is Bob's turn to set a double"):
        g.apply(P("Cy", "7-7"))
    with pytest.raises(IllegalMoveError, match="the first tile of a hand is a double"):
        g.apply(P("Bob", "2-3"))
    g.apply(P("Bob", "8-8"))
    assert g.current_player == "Cy"


def test_nobody_holds_a_double_players_draw_until_one_is_drawn() -> None:
    hands = {"Ann": ["1-2", "1-3", "1-4", "1-5", "1-6", "1-7", "1-8", "1-9", "1-10"],
             "Bob": ["2-3", "2-4", "2-5", "2-6", "2-7", "2-8", "2-9", "2-10", "2-11"]}
    g = SuperDominoes(["Ann", "Bob"])
    g.apply(Move.deal(hands))
    assert g.legal_moves() == [Move.draw("Ann", 1)]
    g.apply(Move.draw("Ann", "4-9"))
    assert g.current_player == "Bob"
    g.apply(Move.draw("Bob", "12-12"))
    assert g.legal_moves() == [P("Bob", "12-12")]
    with pytest.raises(IllegalMoveError, match="Bob holds a double and must set it"):
        g.apply(Move.draw("Bob", "0-0"))
    g.apply(P("Bob", "12-12"))


def test_cannot_play_draw_two_then_may_play_one_or_pass() -> None:
    g = SuperDominoes(PLAYERS)
    g.apply(Move.deal(HANDS))
    g.apply(P("Bob", "8-8"))
    # Cy holds 3-8
    with pytest.raises(IllegalMoveError, match="Cy can play, so may not draw"):
        g.apply(Move.draw("Cy", ["0-0", "0-1"]))
    g.apply(P("Cy", "3-8", "8-8"))  # 3 at the open end: the direction reverses
    assert g.direction == -1 and g.current_player == "Bob"
    g.apply(P("Bob", "2-3", "3-8"))
    assert g.current_player == "Ann"
    g.apply(P("Ann", "1-2", "2-3"))
    assert g.current_player == "Cy"
    # Cy: 3-4 3-5 7-7 3-6 3-7 3-9 3-10 3-11: nothing fits 1 or 8
    assert g.legal_moves() == [Move.draw("Cy", 2)]
    with pytest.raises(IllegalMoveError, match="the draw here is 2 tiles, not 1"):
        g.apply(Move.draw("Cy", "0-1"))
    with pytest.raises(IllegalMoveError, match="cannot play and must draw first"):
        g.apply(Move.pass_("Cy"))
    g.apply(Move.draw("Cy", ["0-1", "0-2"]))
    assert g.legal_moves() == [P("Cy", "0-1", "1-2"), Move.pass_("Cy")]
    g.apply(Move.pass_("Cy"))  # "may": passing with a fitting drawn tile is allowed
    assert g.current_player == "Bob" and g.passes == 0


def test_fifteen_makes_every_other_player_draw_with_the_deal() -> None:
    hands = {"Ann": ["15-15", "1-3", "1-4", "1-5", "1-6", "1-7", "1-8", "1-9", "1-10"],
             "Bob": ["2-3", "2-4", "2-5", "2-6", "2-7", "2-8", "2-9", "2-10", "2-11"],
             "Cy": ["3-4", "3-5", "3-6", "3-7", "3-8", "3-9", "3-10", "3-11", "3-12"]}
    g = SuperDominoes(PLAYERS)
    g.apply(Move.deal(hands))
    events = g.apply(P("Ann", "15-15"))
    assert [e.kind for e in events] == ["draw_penalty"]
    assert g.legal_moves() == [Move.draw("Bob", 1)]
    with pytest.raises(IllegalMoveError, match="Bob must first take a tile for the 15"):
        g.apply(Move.draw("Cy", "0-0"))
    g.apply(Move.draw("Bob", "0-0"))
    g.apply(Move.draw("Cy", "0-1"))
    assert g.current_player == "Bob" and len(g.hands["Bob"]) == 10


def test_unknown_extra_keys_and_kinds_are_format_errors() -> None:
    g = SuperDominoes(PLAYERS)
    with pytest.raises(MoveFormatError, match="has no 'bid' entries"):
        g.apply(Move.bid("Ann", 30))
    g.apply(P("Ann", "6-6"))
    with pytest.raises(MoveFormatError, match="unexpected keys"):
        g.apply(Move.play("Bob", "6-1", "6-6", train=2))


def test_blocked_with_all_passes_and_next_starter_left_of_winner() -> None:
    g = SuperDominoes(PLAYERS)
    g.apply(P("Ann", "6-6"))
    for p in ("Bob", "Cy", "Ann"):
        g.apply(Move.pass_(p))
    assert g.round_over and g.legal_moves() == []
    g.apply(Move.end_round({"Ann": ["0-1"], "Bob": ["0-2", "0-3"], "Cy": ["0-4", "0-5"]}))
    assert g.scores["Ann"] == 14 and g.round == 2 and g.current_player == "Bob"


def test_target_ends_the_match_after_a_hand() -> None:
    g = SuperDominoes(PLAYERS, {"target": 30})
    g.apply(P("Ann", "6-6"))
    events = g.apply(Move.end_round({"Ann": [], "Bob": ["15-15"], "Cy": ["0-1"]}))
    assert events[-1].kind == "match_end" and g.finished and g.result()["winner"] == "Ann"


def test_seeded_hands_with_the_deal_keep_every_tile_accounted_for() -> None:
    rng = random.Random(3)
    g = SuperDominoes(["Ann", "Bob", "Cy", "Di"], {"target": 10_000})
    for _ in range(2):
        g.apply(g.deal_round(rng))
        while not g.round_over:
            moves = g.legal_moves()
            assert moves
            g.apply(g.resolve_draw(rng.choice(moves), rng))
            held = [t for h in g.hands.values() for t in h]
            assert sorted(held + g.table + g.boneyard) == sorted(g.round_set())
        g.apply(g.end_round_move())
    assert g.round == 3 and len(g.round_scores) == 2


def _camera_view(moves: list[Move]) -> list[Move]:
    """The same match as the camera logs it: no deal, draws by count only."""
    return [Move.draw(m.player, m.count) if m.kind == "draw" else m
            for m in moves if m.kind != "deal"]


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (5, 3)])
def test_seeded_match_scores_the_same_without_the_deal(players: int, seed: int) -> None:
    from companion.simulate import play_random_game
    sim = play_random_game("super", players, seed=seed)
    assert sim.game.finished
    live = SuperDominoes(sim.game.players)
    for m in _camera_view(sim.moves):
        live.apply(Move.from_json(m.to_json()))
    assert live.scores == sim.game.scores and live.finished
    assert live.round_scores == sim.game.round_scores
