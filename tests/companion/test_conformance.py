"""Every registered game passes the same seeded conformance test (OpenSpiel-style).

For seeded random legal play-outs of every game and player count it checks, after every move:
all tiles are accounted for (hands + table + boneyard == the round's set, no duplicates) while
the hands are known; no legal move once a round is over; scores within the game's bounds; a
rejected move leaves the state equal to before. At the end: the match finished, the written log
replays to an equal state, and ``result()`` agrees with the state.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from companion.errors import DominoError
from companion.games import find_game, game_names
from companion.gamelog import Header, log_lines, replay_lines
from companion.moves import Move
from companion.simulate import default_players, next_move

SEEDS = (11, 12)


def _cases():
    for name in game_names():
        cls = find_game(name)
        counts = sorted({cls.min_players, min(cls.max_players, max(cls.min_players, 4))})
        for n in counts:
            for seed in SEEDS:
                yield pytest.param(name, n, seed, id=f"{name}-{n}p-seed{seed}")


def _check_tiles(game) -> None:
    if game.hands is None or any(game.unknown_in_hand.values()):
        return
    held = [t for h in game.hands.values() for t in h]
    table = list(game.table_tiles())
    bone = list(game.boneyard or [])
    everything = held + table + bone
    dup = [t for t, c in Counter(everything).items() if c > 1]
    assert not dup, f"{game.name}: tiles counted twice: {dup}"
    assert sorted(everything) == sorted(game.round_set()), (
        f"{game.name}: tiles not accounted for: missing "
        f"{sorted(set(game.round_set()) - set(everything))}, extra "
        f"{sorted(set(everything) - set(game.round_set()))}")


def _illegal_variants(game, legal: list[Move]) -> list[Move]:
    """Moves that must be rejected now: legal moves made by the wrong player, or plays of a tile
    that is already on the table."""
    out: list[Move] = []
    cur = game.current_player
    if cur is not None and len(game.players) > 1 and all(m.player == cur for m in legal):
        other = next(p for p in game.players if p != cur)
        out += [Move(m.kind, other, m.tile, m.tiles, m.on, m.count, m.value, m.data, m.extra)
                for m in legal[:3] if m.player is not None]
    table = list(game.table_tiles())
    plays = [m for m in legal if m.kind == "play"]
    if table and plays and game.hands is not None:
        t = table[0]
        m = plays[0]
        if t != m.tile:
            out.append(Move("play", m.player, t, on=m.on, extra=m.extra))
    return out


@pytest.mark.parametrize("name,n,seed", list(_cases()))
def test_random_playout_invariants(name: str, n: int, seed: int) -> None:
    cls = find_game(name)
    players = default_players(n)
    game = cls(players, dict(cls.simulation_options))
    rng = random.Random(seed)
    probe_rng = random.Random(seed + 1000)
    moves: list[Move] = []
    lo, hi = game.score_bounds()
    while not game.finished:
        assert len(moves) < 100_000, f"{name} did not finish"
        if not game.needs_deal and game.round_over:
            assert game.legal_moves() == [], f"{name}: legal moves after the round ended"
        if not game.needs_deal and not game.round_over and probe_rng.random() < 0.15:
            legal = game.legal_moves()
            before = game.snapshot()
            for bad in _illegal_variants(game, legal):
                assert bad not in legal
                with pytest.raises(DominoError):
                    game.apply(bad)
                assert game.snapshot() == before, f"{name}: rejected {bad} changed the state"
        move = next_move(game, rng)
        game.apply(move)
        moves.append(move)
        _check_tiles(game)
        for p, s in game.scores.items():
            assert lo <= s <= hi, f"{name}: score {s} of {p} outside {lo}..{hi}"
    res = game.result()
    assert res["finished"] is True
    assert res["game"] == cls.name
    assert set(res["scores"]) == set(players)
    if res["winner"] is not None:
        winners = res["winner"] if isinstance(res["winner"], list) else [res["winner"]]
        assert set(winners) <= set(players)
    # the written log replays to the same state
    header = Header(cls.name, tuple(players), dict(game.options))
    replayed = replay_lines(log_lines(header, moves))
    assert replayed.flagged == []
    assert replayed.game.snapshot() == game.snapshot()
    assert replayed.game.result() == res


@pytest.mark.parametrize("name", game_names())
def test_move_json_round_trip_over_a_game(name: str) -> None:
    from companion.simulate import play_random_game
    sim = play_random_game(name, find_game(name).min_players, seed=5)
    for m in sim.moves:
        assert Move.from_json(m.to_json()) == m


@pytest.mark.parametrize("name", game_names())
def test_module_documents_rules(name: str) -> None:
    import importlib
    cls = find_game(name)
    mod = importlib.import_module(cls.__module__)
    doc = mod.__doc__ or ""
    assert len(doc) > 600, f"{name}: the module must open with the rules in prose"
    assert "seed" in doc.lower(), f"{name}: the module must quote the seed sentences it settles"
    for opt in cls.options_spec:
        assert opt in doc, f"{name}: option {opt} is not documented in the module docstring"


def test_same_seed_same_game() -> None:
    from companion.simulate import play_random_game
    for name in game_names():
        a = play_random_game(name, find_game(name).min_players, seed=3)
        b = play_random_game(name, find_game(name).min_players, seed=3)
        assert [m.to_json() for m in a.moves] == [m.to_json() for m in b.moves]


def test_deepcopy_is_independent() -> None:
    for name in game_names():
        cls = find_game(name)
        g = cls(default_players(cls.min_players), dict(cls.simulation_options))
        rng = random.Random(0)
        for _ in range(5):
            if g.finished:
                break
            g.apply(next_move(g, rng))
        h = copy.deepcopy(g)
        assert h.snapshot() == g.snapshot()
