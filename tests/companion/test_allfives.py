"""All Fives rules: known-answer vectors, every rule and option, illegal moves and their messages."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.errors import IllegalMoveError, MoveFormatError, OptionError
from companion.games.allfives import AllFives, round_bonus
from companion.moves import Move
from companion.tiles import Tile

DATA = Path(__file__).resolve().parents[1] / "data" / "known_answers" / "allfives.json"
CASES = json.loads(DATA.read_text())["cases"]


def T(text: str) -> Tile:
    return Tile.parse(text)


def deal(hands: dict[str, list[str]]) -> Move:
    return Move.deal(hands)


@pytest.mark.parametrize("case", CASES, ids=[c["name"][:60] for c in CASES])
def test_known_answers(case: dict) -> None:
    game = AllFives(case["players"], case["options"])
    for entry, points, count in zip(case["log"], case["points"], case["counts"]):
        events = game.apply(Move.from_json(entry))
        assert sum(e.points for e in events if e.kind == "score") == points, entry
        if count is not None:
            assert game.count() == count, entry
    assert game.scores == case["scores"]


@pytest.mark.parametrize("n,expected", [(0, 0), (2, 0), (3, 1), (26, 5), (27, 5), (28, 6),
                                        (25, 5), (22, 4), (23, 5)])
def test_bonus_rounds_to_nearest_five_then_divides(n: int, expected: int) -> None:
    assert round_bonus(n) == expected
    assert round_bonus(n, divide_by_5=False) == 5 * expected


def test_bonus_rejects_negative_total() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        round_bonus(-1)


# a 2-player deal (7 each) used by several tests: Bob holds the highest double, 6-6
HANDS = {"Ann": ["5-5", "0-1", "0-2", "1-3", "2-3", "1-4", "0-0"],
         "Bob": ["6-6", "6-5", "5-4", "4-4", "2-2", "1-1", "3-3"]}


def test_highest_double_leads_with_the_deal() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(deal(HANDS))
    assert g.current_player == "Bob"
    assert g.legal_moves() == [Move.play("Bob", "6-6")]
    before = g.snapshot()
    with pytest.raises(IllegalMoveError) as err:
        g.apply(Move.play("Ann", "5-5"))
    assert "Bob holds the highest double, 6-6" in str(err.value)
    assert "legal: Bob plays 6-6" in str(err.value)
    with pytest.raises(IllegalMoveError, match="the highest double, 6-6, must lead"):
        g.apply(Move.play("Bob", "4-4"))
    assert g.snapshot() == before


def test_no_double_in_any_hand_means_draws_in_turn() -> None:
    hands = {"Ann": ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-2"],
             "Bob": ["1-3", "1-4", "1-5", "1-6", "2-3", "2-4", "2-5"]}
    g = AllFives(["Ann", "Bob"])
    g.apply(deal(hands))
    assert g.legal_moves() == [Move.draw("Ann", 1)]
    with pytest.raises(IllegalMoveError, match="it is Ann's turn"):
        g.apply(Move.draw("Bob", "3-3"))
    g.apply(Move.draw("Ann", "3-3"))
    # a full turn of draws first: Bob draws too, then the highest double held leads
    assert g.legal_moves() == [Move.draw("Bob", 1)]
    g.apply(Move.draw("Bob", "4-4"))
    assert g.legal_moves() == [Move.play("Bob", "4-4")]
    g.apply(Move.play("Bob", "4-4"))
    assert g.current_player == "Ann"


def test_illegal_placement_names_open_end_and_legal_moves() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(deal(HANDS))
    g.apply(Move.play("Bob", "6-6"))
    g.apply(Move.draw("Ann", "6-2"))  # Ann holds no 6: she must draw until able
    g.apply(Move.play("Ann", "6-2", "6-6"))
    before = g.snapshot()
    with pytest.raises(IllegalMoveError) as err:
        g.apply(Move.play("Bob", "5-4", "6-2"))
    text = str(err.value)
    assert text.startswith("Bob plays 4-5 on 2-6: 2-6's open end is 2; legal: ")
    assert "Bob plays 5-6 on 6-6" in text and "Bob plays 2-2 on 2-6" in text
    assert g.snapshot() == before
    with pytest.raises(IllegalMoveError, match="3-3 is not on the table"):
        g.apply(Move.play("Bob", "3-3", "3-3"))
    with pytest.raises(IllegalMoveError, match="Bob does not hold 0-6"):
        g.apply(Move.play("Bob", "0-6", "6-6"))
    assert g.snapshot() == before


def test_must_play_if_able_and_draw_until_able() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(deal(HANDS))
    g.apply(Move.play("Bob", "6-6"))
    assert g.legal_moves() == [Move.draw("Ann", 1)]
    with pytest.raises(IllegalMoveError, match="must draw: the boneyard holds 14 tiles"):
        g.apply(Move.pass_("Ann"))
    g.apply(Move.draw("Ann", "2-4"))
    assert g.current_player == "Ann"  # still her turn: nothing fits yet
    g.apply(Move.draw("Ann", "6-0"))
    with pytest.raises(IllegalMoveError, match="Ann can play, so may not draw"):
        g.apply(Move.draw("Ann", "3-4"))
    g.apply(Move.play("Ann", "0-6", "6-6"))
    assert g.current_player == "Bob"


def test_on_may_be_left_out_when_only_one_place_fits() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(Move.play("Ann", "5-5"))
    g.apply(Move.play("Bob", "5-0"))  # only the spinner takes a 5
    assert g.table == [T("5-5"), T("0-5")]
    g.apply(Move.play("Ann", "0-2"))
    assert g.ends[0] == [T("0-2"), 2]
    with pytest.raises(IllegalMoveError, match='2-5 fits on 0-2, 5-5: say which with "on"'):
        g.apply(Move.play("Bob", "2-5"))


def test_opening_double_required_without_deal() -> None:
    g = AllFives(["Ann", "Bob"])
    with pytest.raises(IllegalMoveError, match="first tile of a hand must be a double"):
        g.apply(Move.play("Bob", "3-4"))
    g.apply(Move.play("Bob", "3-3"))  # whoever leads the double leads
    assert g.current_player == "Ann"


def test_a_tile_outside_the_set_is_refused_without_a_deal() -> None:
    """Double-six for two players: a misread 6-9 scores nothing, on the table or leading."""
    g = AllFives(["Ann", "Bob"])
    with pytest.raises(IllegalMoveError, match="9-9 is not in the double-6 set"):
        g.apply(Move.play("Ann", "9-9"))
    g.apply(Move.play("Ann", "6-6"))
    with pytest.raises(IllegalMoveError, match="6-9 is not in the double-6 set"):
        g.apply(Move.play("Bob", "6-9", "6-6"))
    assert [str(t) for t in g.table] == ["6-6"] and g.scores == {"Ann": 0, "Bob": 0}

def test_spinner_sides_first_rejects_an_end_before_both_long_sides() -> None:
    log = [Move.play("Ann", "5-5"), Move.play("Bob", "5-0", "5-5")]
    for sides_first, allowed in ((True, False), (False, True)):
        g = AllFives(["Ann", "Bob"], {"spinner_sides_first": sides_first})
        for m in log:
            g.apply(m)
        end_play = Move.play("Ann", "5-1", "5-5", spinner_side="end")
        if allowed:
            g.apply(end_play)
            assert (g.spinner_long, g.spinner_ends) == (1, 1)
        else:
            with pytest.raises(IllegalMoveError, match="both long sides must be played on first"):
                g.apply(end_play)
            g.apply(Move.play("Ann", "5-1", "5-5", spinner_side="long"))
            assert g.spinner_sides_open() == ["end"]


def test_spinner_takes_four_arms_then_no_more() -> None:
    g = AllFives(["Ann", "Bob"])
    for i, t in enumerate(["5-5", "5-0", "5-1", "5-2", "5-3"]):
        g.apply(Move.play("Ann" if i % 2 == 0 else "Bob", t, None if i == 0 else "5-5"))
    assert g.count() == 0 + 1 + 2 + 3
    with pytest.raises(IllegalMoveError, match="no free side: four arms touch it"):
        g.apply(Move.play("Bob", "5-4", "5-5"))


def test_unknown_extra_key_is_a_format_error() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(Move.play("Ann", "5-5"))
    with pytest.raises(MoveFormatError, match="unexpected keys"):
        g.apply(Move.play("Bob", "5-0", "5-5", at=3))
    with pytest.raises(MoveFormatError, match='"long" or "end"'):
        g.apply(Move.play("Bob", "5-0", "5-5", spinner_side="top"))


def _play_out(g: AllFives, rng: random.Random) -> None:
    while not g.round_over:
        g.apply(g.resolve_draw(rng.choice(g.legal_moves()), rng))


def test_domino_ends_the_round_and_scores_the_bonus() -> None:
    rng = random.Random(4)
    g = AllFives(["Ann", "Bob"], {"target": 1000})
    g.apply(g.deal_round(rng))
    _play_out(g, rng)
    assert g.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="round is over"):
        g.apply(Move.pass_(g.players[0]))
    hands = {p: list(h) for p, h in g.hands.items()}
    before = dict(g.scores)
    events = g.apply(g.end_round_move())
    pips = {p: sum(t.pips for t in h) for p, h in hands.items()}
    winner = g.round_scores and [e for e in events if e.kind == "round_end"][0].player
    if any(not h for h in hands.values()):
        n = sum(pips.values())
    else:
        n = sum(pips.values()) - 2 * pips[winner]
    assert g.scores[winner] - before[winner] == round_bonus(n)
    assert g.needs_deal and g.round == 2 and g.turn == 1  # the next seat starts round 2


def test_end_round_rejected_before_the_round_is_over_with_known_hands() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(deal(HANDS))
    g.apply(Move.play("Bob", "6-6"))
    with pytest.raises(IllegalMoveError, match="round is not over"):
        g.apply(Move.end_round())


def test_end_round_hands_checked_against_the_table() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(Move.play("Ann", "5-5"))
    before = g.snapshot()
    with pytest.raises(IllegalMoveError, match="Bob is said to hold 5-5, which is on the table"):
        g.apply(Move.end_round({"Ann": ["1-2"], "Bob": ["5-5"]}))
    with pytest.raises(IllegalMoveError, match="both Ann and Bob"):
        g.apply(Move.end_round({"Ann": ["1-2"], "Bob": ["2-1"]}))
    with pytest.raises(MoveFormatError, match="only one player can go out"):
        g.apply(Move.end_round({"Ann": [], "Bob": []}))
    assert g.snapshot() == before


def test_blocked_tie_for_lightest_gets_no_bonus() -> None:
    g = AllFives(["Ann", "Bob", "Cy"])
    g.apply(Move.play("Ann", "6-6"))
    events = g.apply(Move.end_round({"Ann": ["1-2"], "Bob": ["0-3"], "Cy": ["5-6"]}))
    assert [e.kind for e in events] == ["round_end"]
    assert g.scores == {"Ann": 0, "Bob": 0, "Cy": 0}
    assert g.round_scores == [{"Ann": 0, "Bob": 0, "Cy": 0}]


def test_target_reached_mid_hand_ends_the_match() -> None:
    g = AllFives(["Ann", "Bob"], {"target": 20})
    g.apply(Move.play("Ann", "5-5"))
    g.apply(Move.play("Bob", "5-0", "5-5"))
    events = g.apply(Move.play("Ann", "0-0", "0-5"))  # spinner 10 + crosswise 0-0: 10
    assert g.scores == {"Ann": 20, "Bob": 10}
    assert events[-1].kind == "match_end" and g.finished
    assert g.result()["winner"] == "Ann"
    assert g.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the match is over"):
        g.apply(Move.play("Bob", "0-1", "0-0"))


def test_everyone_passing_blocks_the_hand() -> None:
    g = AllFives(["Ann", "Bob"])
    g.apply(Move.play("Ann", "6-6"))
    g.apply(Move.pass_("Bob"))
    assert not g.round_over
    g.apply(Move.pass_("Ann"))
    assert g.round_over and g.legal_moves() == [] and g.current_player is None


def test_sets_and_hand_sizes() -> None:
    assert AllFives(["A", "B"]).hand_size() == 7
    assert AllFives(["A", "B", "C"]).hand_size() == 6
    five = AllFives(["A", "B", "C", "D", "E"])
    assert five.set_max == 12 and len(five.round_set()) == 91 and five.hand_size() == 5
    assert AllFives(["A", "B"], {"set": "double-twelve"}).set_max == 12
    with pytest.raises(OptionError, match="set='double-six' is for 2 to 4 players, got 5"):
        AllFives(["A", "B", "C", "D", "E"], {"set": "double-six"})
    with pytest.raises(OptionError, match="opening='first'"):
        AllFives(["A", "B"], {"opening": "first"})


def test_score_bounds_follow_target_and_set() -> None:
    assert AllFives(["A", "B"]).score_bounds() == (0, 99 + 48)
    lo, hi = AllFives(["A", "B"], {"bonus_divide_by_5": False}).score_bounds()
    assert hi == 99 + 170  # all 168 pips round to 170


def _camera_view(moves: list[Move]) -> list[Move]:
    """The same match as the camera logs it: no deal, draws by count only."""
    out = []
    for m in moves:
        if m.kind == "deal":
            continue
        out.append(Move.draw(m.player, m.count) if m.kind == "draw" else m)
    return out


@pytest.mark.parametrize("options", [
    {}, {"opening": "any", "spinner_sides_first": True, "bonus_divide_by_5": False, "target": 150},
    {"set": "double-twelve", "target": 60}])
@pytest.mark.parametrize("seed", [1, 2])
def test_seeded_match_scores_the_same_without_the_deal(options: dict, seed: int) -> None:
    from companion.simulate import play_random_game
    sim = play_random_game("allfives", 3, seed=seed, options=options)
    assert sim.game.finished
    live = AllFives(sim.game.players, options)
    for m in _camera_view(sim.moves):
        live.apply(Move.from_json(m.to_json()))
    assert live.scores == sim.game.scores and live.finished
    assert live.round_scores == sim.game.round_scores


def test_no_player_names_are_said_to_be_none(tmp_path, capsys) -> None:
    """``serve --game allfives --players ,`` gives no names: the message says so (it ended in a
    dangling ": ")."""
    from companion.cli import main
    from companion.errors import PlayersError
    from companion.games import find_game

    with pytest.raises(PlayersError, match=r"played by 2 to 8 players, got none \(no player "
                                           r"names were given\)$"):
        find_game("allfives")([])
    assert main(["serve", "--game", "allfives", "--players", ",", "--data-dir",
                 str(tmp_path), "--no-browser", "--port", "0"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("got none (no player names were given)")
