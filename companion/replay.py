"""``domino-companion replay LOG``: fold a game log and print its scores as one JSON object.

Exit status 0 when the log folds; 2 when a line is malformed or illegal (the message names the
line number, the line, what is wrong and what would be legal). ``--lenient`` goes on past bad
lines, leaves them out of the state and lists them under ``"flagged"``.
"""

from __future__ import annotations

import argparse
import json
import sys

from companion.errors import LogError
from companion.gamelog import replay_file


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", help="the game log (JSON Lines; first line the header)")
    parser.add_argument("--lenient", action="store_true",
                        help="go on past bad lines and list them instead of stopping")
    parser.add_argument("--events", action="store_true",
                        help="also print the round-by-round scores")


def run(args: argparse.Namespace) -> int:
    try:
        result = replay_file(args.log, lenient=args.lenient)
    except LogError as exc:
        print(f"domino-companion replay: {args.log}: {exc}", file=sys.stderr)
        return 2
    summary = result.summary()
    if args.events:
        summary["rounds"] = result.game.round_scores
    print(json.dumps(summary))
    return 0
