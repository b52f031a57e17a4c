"""``domino-companion count PHOTO``: the tiles in a photo of a hand and their pip total.

Cut tiles (running out of the picture) cannot be counted: they are named in a warning and the
total is marked incomplete.
"""

from __future__ import annotations

import argparse
import json
import sys

from vision.read import Reader, add_set_argument, pip_total


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("photo", help="a PNG or JPEG photo of the tiles left in a hand")
    add_set_argument(parser)
    parser.add_argument("--one-set", action="store_true",
                        help="the hand's tiles come from one set: no value is counted twice (the "
                             "other tile is read as a value no tile reads, or left out, with a "
                             "warning)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    reading = Reader().read_file(args.photo, set_max=args.set, one_set=args.one_set)
    tiles = reading.read_tiles
    cut = len(reading.tiles) - len(tiles)
    total = pip_total(reading)
    names = [str(t.tile) for t in tiles]
    result = {
        "tiles": names,
        "pips": total,
        "complete": cut == 0,
        "confidence": round(min((t.confidence for t in tiles), default=1.0), 4),
        "warnings": list(reading.warnings),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{len(tiles)} tiles: {' '.join(names) or '(none)'}")
    print(f"pips: {total}" + ("" if cut == 0 else f" (incomplete: {cut} tile(s) cut off)"))
    for w in reading.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return 0
