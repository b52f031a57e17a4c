"""Castle Rock rules: removals, compulsory removal, draws, end and win/loss, known answers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.errors import IllegalMoveError, MoveFormatError, OptionError, PlayersError
from companion.games.castlerock import CastleRock, removals
from companion.moves import Move
from companion.tiles import Tile, full_set, parse_tiles

DATA = Path(__file__).resolve().parents[1] / "data" / "known_answers" / "castlerock.json"
CASES = json.loads(DATA.read_text())["cases"]


def play(entries: list[dict], options: dict | None = None) -> CastleRock:
    g = CastleRock(["Sol"], options)
    for e in entries:
        g.apply(Move.from_json(e))
    return g


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_known_answers(case: dict) -> None:
    if "error" in case:
        g = play(case["log"][:-1])
        before = g.snapshot()
        with pytest.raises(IllegalMoveError, match=case["error"].replace("(", r"\(").replace(")", r"\)")):
            g.apply(Move.from_json(case["log"][-1]))
        assert g.snapshot() == before
        return
    g = play(case["log"])
    assert [str(t) for t in g.row] == case["row"]
    if "legal" in case:
        assert [str(m) for m in g.legal_moves()] == case["legal"]
    assert sorted(g.row + g.removed + g.boneyard) == full_set(9)


def test_removals_finder() -> None:
    row = parse_tiles(["2-4", "4-4", "4-9", "1-4"])
    assert removals(row) == [(Tile.parse("4-4"),), tuple(row[:3]), (Tile.parse("4-9"),),
                             tuple(row[1:])]
    assert removals(parse_tiles(["2-4", "4-4", "4-9", "1-9"])) == [(Tile.parse("4-4"),), tuple(row[:3])]
    assert removals(row[:2]) == []


def test_one_player_only_and_options() -> None:
    with pytest.raises(PlayersError, match="1 players"):
        CastleRock(["Ann", "Bob"])
    with pytest.raises(OptionError, match="'two', 'empty'"):
        CastleRock(["Sol"], {"win": "three"})


def test_draw_must_name_its_tile() -> None:
    g = CastleRock(["Sol"])
    with pytest.raises(MoveFormatError, match="must name the tile"):
        g.apply(Move.from_json({"player": "Sol", "draw": 1}))


def test_legal_moves_are_draws_of_the_pile_then_removals() -> None:
    g = CastleRock(["Sol"])
    assert len(g.legal_moves()) == 55 and all(m.kind == "draw" for m in g.legal_moves())
    g = play([{"player": "Sol", "draw": ["1-3", "5-6", "2-3"]}])
    assert [str(m) for m in g.legal_moves()] == ["Sol removes 5-6"]


def _endgame(row: list[str], options: dict | None = None) -> CastleRock:
    """A game whose pile is spent, with ``row`` left (the rest of the set removed)."""
    g = CastleRock(["Sol"], options)
    g.row = parse_tiles(row)
    g.removed = [t for t in full_set(9) if t not in set(g.row)]
    g.boneyard = []
    return g


@pytest.mark.parametrize("row,options,score,winner", [
    (["1-2", "3-4"], None, 2, "Sol"),
    (["1-2"], None, 1, "Sol"),
    ([], None, 0, "Sol"),
    (["1-2", "3-4", "5-6"], None, 3, None),
    (["1-2", "3-4"], {"win": "empty"}, 2, None),
    ([], {"win": "empty"}, 0, "Sol"),
])
def test_end_win_and_loss(row: list[str], options: dict | None, score: int, winner: str | None) -> None:
    g = _endgame(row, options)
    assert g.round_over and g.legal_moves() == []
    events = g.apply(g.end_round_move())
    assert g.finished and g.result()["scores"] == {"Sol": score} and g.result()["winner"] == winner
    assert events[-1].kind == "match_end"


def test_not_over_while_removal_possible() -> None:
    g = _endgame(["1-3", "5-6", "2-3"])
    assert not g.round_over
    with pytest.raises(IllegalMoveError, match="a removal is still possible"):
        g.apply(Move.end_round())
    g.apply(Move.from_json({"player": "Sol", "remove": ["5-6"]}))
    assert g.round_over


def test_end_round_early_is_illegal() -> None:
    g = CastleRock(["Sol"])
    with pytest.raises(IllegalMoveError, match="tiles are left in the pile"):
        g.apply(Move.end_round())


def test_seeded_games_account_for_every_tile_and_replay() -> None:
    for seed in range(5):
        rng = random.Random(seed)
        g = CastleRock(["Sol"])
        log = []
        while not g.finished:
            m = g.end_round_move() if g.round_over else g.resolve_draw(rng.choice(g.legal_moves()), rng)
            g.apply(m)
            log.append(m.to_line())
            assert sorted(g.row + g.removed + g.boneyard) == full_set(9)
        again = play([json.loads(line) for line in log])
        assert again.snapshot() == g.snapshot()
        lo, hi = g.score_bounds()
        assert lo <= g.scores["Sol"] <= hi


def test_removal_entry_may_leave_out_the_player() -> None:
    g = play([{"player": "Sol", "draw": ["1-3", "5-6", "2-3"]}, {"remove": "5-6"}])
    assert [str(t) for t in g.row] == ["1-3", "2-3"] and g.removed == [Tile.parse("5-6")]
