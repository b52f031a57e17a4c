"""``domino-companion count PHOTO``: the tiles in a photo of a hand and their pip total.

Cut tiles (running out of the picture) cannot be counted: they are named in a warning and the
total is marked incomplete. So is a photo in which no tile was found (its confidence 0).
"""

from __future__ import annotations

import argparse
import json
import sys

from vision.read import Reader, add_set_argument, pip_total


#: Added to the warnings when no tile at all was found.
NOTHING_SEEN = ("no tile was found, so the total 0 is not a count of a hand: if the hand is "
                "empty, enter 0; else photograph its tiles face up")


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
    # no tile seen is not a hand seen empty: the photo may show no hand at all (a lens cap, the
    # table), so such a total is not complete and nothing about it is sure
    seen = bool(reading.tiles)
    result = {
        "tiles": names,
        "pips": total,
        "complete": seen and cut == 0,
        "confidence": round(min((t.confidence for t in tiles), default=0.0), 4),
        "warnings": list(reading.warnings) + ([] if seen else [NOTHING_SEEN]),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{len(tiles)} tiles: {' '.join(names) or '(none)'}")
    print(f"pips: {total}" + ("" if cut == 0 else f" (incomplete: {cut} tile(s) cut off)"))
    for w in result["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    return 0
