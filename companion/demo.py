"""``domino-companion demo``: the main job on its embedded defaults, with no camera.

It plays a bundled game log (a seeded self-played match, shipped in ``companion/data/demo/``)
through the rules core move by move, printing each move, what it caused and the running scores,
and ends with the same JSON summary ``replay`` prints. ``--headless`` prints only the summary.

The bundled logs are rebuilt with ``domino-companion simulate`` (see
``companion/data/demo/README.md`` for the exact commands).
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

from companion.errors import DominoError
from companion.gamelog import Header
from companion.moves import Move

DEMO_GAMES = ("allfives", "chickenfoot", "super")


def demo_log_lines(game: str) -> list[str]:
    """The lines of the bundled demo log for ``game``."""
    if game not in DEMO_GAMES:
        raise DominoError(f"no bundled demo for {game!r}; demos: {', '.join(DEMO_GAMES)}")
    ref = resources.files("companion") / "data" / "demo" / f"{game}.jsonl"
    return ref.read_text(encoding="utf-8").splitlines()


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="allfives", choices=DEMO_GAMES,
                        help="which bundled game to play (default allfives)")
    parser.add_argument("--headless", action="store_true",
                        help="print only the final scores as JSON")


def run(args: argparse.Namespace) -> int:
    lines = [ln for ln in demo_log_lines(args.game) if ln.strip()]
    header = Header.from_json(json.loads(lines[0]))
    game = header.new_game()
    show = not args.headless
    if show:
        print(f"{game.title}: {', '.join(game.players)} (bundled recording, {len(lines) - 1} entries)")
    for no, text in enumerate(lines[1:], start=2):
        move = Move.from_json(json.loads(text))
        events = game.apply(move)
        if show and move.kind != "deal":
            said = "; ".join(
                f"{e.kind}{' ' + e.player if e.player else ''}"
                f"{' +' + str(e.points) if e.points > 0 else (' ' + str(e.points) if e.points else '')}"
                f"{' (' + e.detail + ')' if e.detail else ''}" for e in events)
            score = " ".join(f"{p}={s}" for p, s in game.scores.items())
            print(f"{no:4d}  {str(move):40s} {said:40s} | {score}")
    print(json.dumps(game.result()))
    sys.stdout.flush()
    return 0
