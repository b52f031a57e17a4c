"""Seeded random legal self-play: ``domino-companion simulate``.

:func:`play_random_game` plays one whole match with uniformly random legal moves, deals and draws
from one ``random.Random(seed)``, and returns the finished game with every move it took (the deal
included), so the moves are a complete game log. The same seed gives the same game.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from companion.cli import path_arg
from companion.errors import DominoError
from companion.games import Game, find_game, game_names
from companion.gamelog import Header, write_log
from companion.moves import Move

#: A match that takes more moves than this is a bug in a game module (it never ends).
MAX_MOVES = 200_000


class SimulationError(DominoError):
    """A game module got stuck or looped during self-play."""


@dataclass
class SimulatedGame:
    header: Header
    game: Game
    moves: list[Move]


def default_players(n: int) -> list[str]:
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
    if not 1 <= n <= len(names):
        raise DominoError(f"between 1 and {len(names)} players, got {n}")
    return names[:n]


def next_move(game: Game, rng: random.Random) -> Move:
    """The next entry of a random legal game: a deal, an end of round, or a random legal move."""
    if game.needs_deal:
        return game.deal_round(rng)
    if game.round_over:
        return game.end_round_move()
    moves = game.legal_moves()
    if not moves:
        raise SimulationError(f"{game.name}: no legal move in round {game.round} although the "
                              f"round is not over (turn of {game.current_player})")
    return game.resolve_draw(rng.choice(moves), rng)


def play_random_game(name: str, players: list[str] | int, seed: int,
                     options: dict | None = None, max_moves: int | None = None,
                     on_move: Callable[[Game, Move], None] | None = None) -> SimulatedGame:
    """Play one seeded random match of game ``name``.

    ``max_moves`` stops early (an unfinished game) — useful for mid-game table states.
    ``on_move(game, move)`` is called after each move (the renderer uses it to snapshot states).
    """
    if isinstance(players, int):
        players = default_players(players)
    cls = find_game(name)
    game = cls(players, {**cls.simulation_options, **(options or {})})
    header = Header(cls.name, tuple(players), dict(game.options))
    rng = random.Random(seed)
    moves: list[Move] = []
    limit = MAX_MOVES if max_moves is None else max_moves
    while not game.finished and len(moves) < limit:
        move = next_move(game, rng)
        game.apply(move)
        moves.append(move)
        if on_move is not None:
            on_move(game, move)
    if not game.finished and max_moves is None:
        raise SimulationError(f"{name} did not finish within {MAX_MOVES} moves (seed {seed})")
    return SimulatedGame(header, game, moves)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="game name: " + ", ".join(
        ("stackernoes", "buildup", "allfives", "chickenfoot", "castlerock", "fortytwo", "moon",
         "super")))
    parser.add_argument("--players", type=int, default=None,
                        help="number of players (default: the game's smallest count)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument("--games", type=int, default=1, help="how many games (seeds S, S+1, ...)")
    parser.add_argument("--options", default=None,
                        help='game options as JSON, e.g. \'{"target": 150}\'')
    parser.add_argument("--out", type=path_arg, default=None,
                        help="folder to write each game's log into")


def run(args: argparse.Namespace) -> int:
    cls = find_game(args.game)
    n = args.players if args.players is not None else cls.min_players
    if not cls.min_players <= n <= cls.max_players:
        span = str(cls.min_players) if cls.min_players == cls.max_players else \
            f"{cls.min_players} to {cls.max_players}"
        print(f"domino-companion simulate: {cls.title} is played by {span} "
              f"player{'' if span == '1' else 's'}, got --players {n}", file=sys.stderr)
        return 2
    try:
        options = json.loads(args.options) if args.options else None
    except json.JSONDecodeError as exc:
        print(f"domino-companion simulate: --options is not JSON ({exc.msg}); "
              'write it like \'{"target": 150}\'', file=sys.stderr)
        return 2
    if options is not None and not isinstance(options, dict):
        print(f"domino-companion simulate: --options must be a JSON object, got {args.options!r};"
              ' write it like \'{"target": 150}\'', file=sys.stderr)
        return 2
    if args.games < 1:
        print("domino-companion simulate: --games must be at least 1", file=sys.stderr)
        return 2
    players = default_players(n)
    wins: dict[str, float] = {p: 0.0 for p in players}
    totals: dict[str, int] = {p: 0 for p in players}
    moves_total = 0
    rounds_total = 0
    start = time.perf_counter()
    for k in range(args.games):
        seed = args.seed + k
        sim = play_random_game(cls.name, players, seed, options)
        moves_total += len(sim.moves)
        rounds_total += sim.game.round
        for p in players:
            totals[p] += sim.game.scores[p]
        for w in sim.game.winners:
            wins[w] += 1 / len(sim.game.winners)
        if args.out:
            write_log(Path(args.out) / f"{cls.name}-{n}p-seed{seed}.jsonl", sim.header, sim.moves)
    elapsed = time.perf_counter() - start
    print(json.dumps({
        "game": cls.name, "players": players, "games": args.games, "first_seed": args.seed,
        "moves": moves_total, "rounds": rounds_total,
        "wins": {p: round(w, 3) for p, w in wins.items()},
        "mean_scores": {p: round(totals[p] / args.games, 2) for p in players},
        "seconds": round(elapsed, 3), "logs": None if args.out is None else str(args.out),
    }))
    return 0


__all__ = ["play_random_game", "next_move", "SimulatedGame", "default_players", "game_names"]
