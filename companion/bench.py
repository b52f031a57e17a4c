"""``domino-companion bench``: how fast the rules core is, per game.

For each game it plays seeded random full games and prints, as one JSON line per game:
random full games per second, and the time per move of legal-move generation plus application
(median, 99th percentile and maximum, in microseconds), both as CPU time of the thread (what the
code costs) and as wall-clock time (which also counts waiting for a busy CPU). The target is
every move under 1 ms, so a whole evening's log replays instantly; ``under_1ms`` says whether the
largest CPU time met it, ``wall_under_1ms`` whether the largest wall-clock time did.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time

from companion.errors import DominoError
from companion.games import find_game, game_names
from companion.simulate import default_players, next_move


def bench_game(name: str, players: int, games: int, seed: int) -> dict:
    cls = find_game(name)
    per_move_us: list[float] = []
    per_move_cpu_us: list[float] = []
    start = time.perf_counter()
    n_moves = 0
    for k in range(games):
        game = cls(default_players(players), dict(cls.simulation_options))
        rng = random.Random(seed + k)
        while not game.finished:
            t0 = time.perf_counter()
            c0 = time.thread_time()
            if game.needs_deal or game.round_over:
                move = next_move(game, rng)
                game.apply(move)
                continue
            moves = game.legal_moves()
            move = game.resolve_draw(rng.choice(moves), rng)
            game.apply(move)
            per_move_cpu_us.append((time.thread_time() - c0) * 1e6)
            per_move_us.append((time.perf_counter() - t0) * 1e6)
            n_moves += 1
    elapsed = time.perf_counter() - start
    per_move_us.sort()
    per_move_cpu_us.sort()

    def p99(xs: list[float]) -> float:
        return xs[min(len(xs) - 1, int(0.99 * len(xs)))]

    return {
        "game": name, "players": players, "games": games, "moves": n_moves,
        "games_per_s": round(games / elapsed, 2),
        "cpu_us_median": round(statistics.median(per_move_cpu_us), 1),
        "cpu_us_p99": round(p99(per_move_cpu_us), 1),
        "cpu_us_max": round(per_move_cpu_us[-1], 1),
        "wall_us_median": round(statistics.median(per_move_us), 1),
        "wall_us_p99": round(p99(per_move_us), 1),
        "wall_us_max": round(per_move_us[-1], 1),
        "under_1ms": per_move_cpu_us[-1] < 1000.0,
        "wall_under_1ms": per_move_us[-1] < 1000.0,
    }


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", action="append", default=None,
                        help="game to measure (repeatable; default: all eight)")
    parser.add_argument("--games", type=int, default=20, help="games per game type (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="first seed (default 1)")


def run(args: argparse.Namespace) -> int:
    names = args.game or game_names()
    if args.games < 1:
        raise DominoError(f"--games must be at least 1, got {args.games}")
    print(json.dumps({"machine": platform.processor() or platform.machine(),
                      "python": platform.python_version()}))
    for name in names:
        cls = find_game(name)
        n = min(max(cls.min_players, 3), cls.max_players)
        print(json.dumps(bench_game(cls.name, n, args.games, args.seed)), flush=True)
    return 0
