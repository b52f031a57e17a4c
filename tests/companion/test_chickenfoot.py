"""Chickenfoot rules: the centre double, toes first, drawing, blocking, scoring over ten rounds."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.errors import IllegalMoveError, MoveFormatError, OptionError
from companion.games.chickenfoot import Chickenfoot
from companion.moves import Move
from companion.tiles import Tile

DATA = Path(__file__).resolve().parents[1] / "data" / "known_answers" / "chickenfoot.json"
CASES = json.loads(DATA.read_text())["cases"]


def P(player: str, tile: str, on: str | None = None) -> Move:
    return Move.play(player, tile, on)


@pytest.mark.parametrize("case", CASES, ids=[c["name"][:60] for c in CASES])
def test_known_answers(case: dict) -> None:
    g = Chickenfoot(case["players"], case["options"])
    for entry in case["log"]:
        m = Move.from_json(entry)
        if m.kind == "end_round":
            if case["open_ends_before_end"]:
                assert sorted(v for _, v in g.ends) == case["open_ends_before_end"]
        g.apply(m)
    assert g.round_scores[-1] == case["round_points"]
    assert g.scores == case["scores"]


def _toes(g: Chickenfoot, values: list[int]) -> None:
    hub = g.hub
    for i, v in enumerate(values):
        g.apply(P(g.players[g.turn], str(Tile.of(hub.low, v)), str(hub)))


def test_centre_double_is_set_before_the_deal_and_not_dealt() -> None:
    g = Chickenfoot(["Ann", "Bob", "Cy"])
    assert g.table == [Tile.of(9, 9)] and g.hub == Tile.of(9, 9)
    rng = random.Random(1)
    d = g.deal_round(rng)
    assert all("9-9" not in hand for hand in d.data["hands"].values())
    assert all(len(hand) == 14 for hand in d.data["hands"].values())
    bad = {p: list(h) for p, h in d.data["hands"].items()}
    bad["Ann"][0] = "9-9"
    with pytest.raises(MoveFormatError, match="9-9 dealt to Ann is not available"):
        g.apply(Move.from_json({"deal": bad}))
    g.apply(d)
    assert len(g.boneyard) == 55 - 1 - 42


def test_centre_takes_all_its_toes_before_any_other_play() -> None:
    g = Chickenfoot(["Ann", "Bob"])
    _toes(g, [1, 2, 3])
    before = g.snapshot()
    with pytest.raises(IllegalMoveError) as err:
        g.apply(P("Bob", "1-5", "9-1"))
    text = str(err.value)
    assert text.startswith("Bob plays 1-5 on 1-9: the centre double 9-9 still needs 3 toes "
                           "before any other play; legal: Bob plays 0-9 on 9-9")
    assert g.snapshot() == before
    _toes(g, [4, 5, 6])
    g.apply(P("Ann", "1-5", "9-1"))
    assert sorted(v for _, v in g.ends) == [2, 3, 4, 5, 5, 6]


def test_hub_toes_four() -> None:
    g = Chickenfoot(["Ann", "Bob"], {"hub_toes": 4})
    _toes(g, [1, 2, 3, 4])
    assert g.pending is None
    g.apply(P("Ann", "1-5", "9-1"))
    with pytest.raises(OptionError, match="hub_toes=5"):
        Chickenfoot(["Ann", "Bob"], {"hub_toes": 5})


def test_a_double_on_a_toe_is_a_chickenfoot_needing_three_toes() -> None:
    g = Chickenfoot(["Ann", "Bob"])
    _toes(g, [1, 2, 3, 4, 5, 6])
    g.apply(P("Ann", "2-2", "9-2"))
    with pytest.raises(IllegalMoveError, match="chickenfoot 2-2 still needs 3 toes"):
        g.apply(P("Bob", "3-7", "9-3"))
    with pytest.raises(IllegalMoveError, match="a toe of the chickenfoot 2-2 must carry a 2"):
        g.apply(P("Bob", "3-7", "2-2"))
    for p, t in (("Bob", "2-0"), ("Ann", "2-1"), ("Bob", "2-3")):
        g.apply(P(p, t, "2-2"))
    assert g.pending is None
    g.apply(P("Ann", "3-7", "9-3"))


def test_covered_and_missing_tiles_are_named() -> None:
    g = Chickenfoot(["Ann", "Bob"])
    _toes(g, [1, 2, 3, 4, 5, 6])
    with pytest.raises(IllegalMoveError, match="9-9 has no open end"):
        g.apply(P("Ann", "9-0", "9-9"))
    with pytest.raises(IllegalMoveError, match="1-8 is not on the table"):
        g.apply(P("Ann", "8-0", "1-8"))
    with pytest.raises(IllegalMoveError, match="1-9's open end is 1"):
        g.apply(P("Ann", "2-8", "1-9"))
    with pytest.raises(IllegalMoveError, match="it is Ann's turn, not Bob's"):
        g.apply(P("Bob", "1-8", "1-9"))



def test_without_a_deal_a_tile_outside_the_set_and_a_draw_of_several_are_refused() -> None:
    """The live camera logs no deal, so no hand check catches a misread 9-12 or a draw of
    three: the set (double-nine) and "draw one" are checked on their own."""
    g = Chickenfoot(["Ann", "Bob"])
    with pytest.raises(IllegalMoveError, match=r"9-12 is not in the double-9 set .*0 to 9"):
        g.apply(P("Ann", "9-12", "9-9"))
    assert g.table == [g.hub] and g.current_player == "Ann"  # nothing taken from the refusal
    for entry in ({"player": "Ann", "draw": 3}, {"player": "Ann", "draw": ["1-1", "2-2"]}):
        with pytest.raises(IllegalMoveError, match="the draw here is 1 tile, not"):
            g.apply(Move.from_json(entry))
    g.apply(Move.from_json({"player": "Ann", "draw": 1}))
    assert g.drew

HANDS2 = {  # 20 each; Ann holds no 9, Bob holds 9-0 and 9-1
    "Ann": ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "0-7", "0-8", "1-1", "1-2", "1-3",
            "1-4", "1-5", "1-6", "1-7", "1-8", "2-2", "2-3", "2-4"],
    "Bob": ["0-9", "1-9", "2-5", "2-6", "2-7", "2-8", "3-3", "3-4", "3-5", "3-6", "3-7", "3-8",
            "4-4", "4-5", "4-6", "4-7", "4-8", "5-5", "5-6", "5-7"],
}


def test_must_play_draw_one_and_play_it_only_if_it_fits() -> None:
    g = Chickenfoot(["Ann", "Bob"])
    g.apply(Move.deal(HANDS2))
    assert g.legal_moves() == [Move.draw("Ann", 1)]
    with pytest.raises(IllegalMoveError, match="must draw one tile first"):
        g.apply(Move.pass_("Ann"))
    g.apply(Move.draw("Ann", "2-9"))
    assert g.legal_moves() == [P("Ann", "2-9", "9-9")]
    with pytest.raises(IllegalMoveError, match="has drawn this turn already"):
        g.apply(Move.draw("Ann", "3-9"))
    g.apply(P("Ann", "2-9", "9-9"))
    with pytest.raises(IllegalMoveError, match="Bob can play, so may not draw"):
        g.apply(Move.draw("Bob", "3-9"))
    with pytest.raises(IllegalMoveError, match="Bob can play, so may not pass"):
        g.apply(Move.pass_("Bob"))
    g.apply(P("Bob", "0-9", "9-9"))
    g.apply(Move.draw("Ann", "6-8"))  # does not fit: she passes
    assert g.legal_moves() == [Move.pass_("Ann")]
    with pytest.raises(IllegalMoveError, match="only the drawn tile 6-8 may be played"):
        g.apply(P("Ann", "0-1", "0-9"))
    g.apply(Move.pass_("Ann"))
    assert g.current_player == "Bob" and g.passes == 0


def test_empty_bone_pile_and_everyone_passing_blocks_the_round() -> None:
    g = Chickenfoot(["Ann", "Bob"])
    _toes(g, [1, 2, 3, 4, 5, 6])
    g.apply(Move.pass_("Ann"))
    g.apply(Move.pass_("Bob"))
    assert g.round_over and g.legal_moves() == [] and g.current_player is None
    with pytest.raises(IllegalMoveError, match="round is over"):
        g.apply(P("Ann", "1-1", "9-1"))


def test_rounds_rotate_the_starter_and_lower_the_centre_double() -> None:
    g = Chickenfoot(["Ann", "Bob", "Cy"])
    g.apply(Move.end_round({"Ann": ["1-2"], "Bob": [], "Cy": ["3-4"]}))
    assert g.round == 2 and g.hub == Tile.of(8, 8) and g.table == [Tile.of(8, 8)]
    assert g.current_player == "Bob"
    with pytest.raises(MoveFormatError, match='"end_round" needs "hands"'):
        g.apply(Move.end_round())


def test_ten_rounds_lowest_total_wins_and_ties_share() -> None:
    g = Chickenfoot(["Ann", "Bob", "Cy"])
    for r in range(10):
        assert not g.finished
        g.apply(Move.end_round({"Ann": ["1-2"], "Bob": ["0-3"], "Cy": ["3-4"] if r else ["0-0"]}))
    assert g.finished and g.round == 10
    assert g.scores == {"Ann": 30, "Bob": 30, "Cy": 50 + 9 * 7}
    assert g.result()["winner"] == ["Ann", "Bob"]
    assert g.legal_moves() == []
    assert len(g.round_scores) == 10


def test_seeded_round_to_domino_or_block_with_the_deal() -> None:
    rng = random.Random(7)
    g = Chickenfoot(["Ann", "Bob", "Cy", "Di"])
    g.apply(g.deal_round(rng))
    while not g.round_over:
        moves = g.legal_moves()
        assert moves
        g.apply(g.resolve_draw(rng.choice(moves), rng))
    hands = {p: list(h) for p, h in g.hands.items()}
    assert g.out is not None or g.boneyard_size() == 0
    g.apply(g.end_round_move())
    for p, h in hands.items():
        assert g.round_scores[0][p] == sum(t.pips for t in h) + (50 if Tile.of(0, 0) in h else 0)
    assert g.needs_deal and g.hub == Tile.of(8, 8)


def test_player_counts_and_hand_sizes() -> None:
    sizes = [Chickenfoot([f"P{i}" for i in range(n)]).hand_size() for n in range(2, 9)]
    assert sizes == [20, 14, 11, 9, 7, 5, 5]
    with pytest.raises(ValueError, match="2 to 8 players, got 9"):
        Chickenfoot([f"P{i}" for i in range(9)])


def _camera_view(moves: list[Move]) -> list[Move]:
    """The same match as the camera logs it: no deal, draws by count only."""
    return [Move.draw(m.player, m.count) if m.kind == "draw" else m
            for m in moves if m.kind != "deal"]


@pytest.mark.parametrize("options", [{}, {"hub_toes": 4, "double_blank": 0}])
def test_seeded_match_scores_the_same_without_the_deal(options: dict) -> None:
    from companion.simulate import play_random_game
    sim = play_random_game("chickenfoot", 3, seed=9, options=options)
    assert sim.game.finished
    live = Chickenfoot(sim.game.players, options)
    for m in _camera_view(sim.moves):
        live.apply(Move.from_json(m.to_json()))
    assert live.scores == sim.game.scores and live.finished
    assert live.result() == sim.game.result()
