"""``python -m vision.render.gatebench``: the still gate on the hands of rendered games.

The live loop reads the table only when :class:`vision.still.StillGate` says it is still and no
hand is over it, and learns each player's seat from the side of the frame their hand came over
(:attr:`~vision.still.StillGate.reached_from`). This bench takes every hand frame of the
rendered game sequences (:func:`vision.render.game_sequence`: the player's hand on the tile just
laid, reaching in from that player's side) and shows a fresh gate the still table before it
(5 frames), the hand frame ``--repeat`` times (as long as a hand rests on a tile; 15 frames is
half a second at 30 fps) and the still table after it (5 frames), as the live benches do; with
``--coming-in 0.35,0.65`` the arm is also drawn at those fractions of its reach before the full
hand and again, in reverse, after it (a real arm comes in and goes out over a few frames; the
sequences draw it at once); with ``--sleeves`` every arm is clothed from the border towards the
wrist (:func:`sleeved`: seeded colours from :data:`SLEEVE_BGR`, navy to camel); ``--table
wood:3`` lays every sequence on that table (family and variant; wood 3 is the light wood) and
``--skin 0`` gives every arm that skin (an index into
:data:`vision.render.sampling.SKIN_BGR`, 0 and 5 the palest), so the hardest pairings (a pale
hand over light wood) are measured on purpose, not only when a seed happens to draw them. Per
hand frame it asks:

* ``seen``: the gate never said "read now" while the hand was in view (a hand the gate misses
  lets the loop read a table with a hand over it);
* ``side``: ``right`` when ``reached_from`` names the side the rendered arm came over, ``wrong``
  when it names another, ``none`` when it names none.

Prints one JSON line per game and seed, then a ``"total"`` line (with ``ms_per_frame``, the
median time of one :meth:`~vision.still.StillGate.update` over all frames shown) and, with
``--misses``, the hand frames whose side was not right. Rendering takes about 0.2 s a hand
frame (and 0.06 s more for each ``--coming-in`` reach); 4 games x 6 seeds (the default) is
about 335 hand frames.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from typing import Any

import numpy as np

from vision.render.sampling import SKIN_BGR
from vision.render.scene import HandSpec, SceneSpec, render_scene
from vision.render.sequence import SEQUENCE_GAMES, game_sequence
from vision.render.styles import TABLE_FAMILIES
from vision.still import StillGate


def entry_side(entry: tuple[float, float]) -> str:
    """The side of the frame a rendered arm comes over, from its ``HandSpec.entry`` point
    (fractions of the width and height, on the border)."""
    x, y = entry
    if y >= 1.0:
        return "bottom"
    if y <= 0.0:
        return "top"
    return "left" if x <= 0.0 else "right"


def hand_case(before: np.ndarray, hands: list[np.ndarray], after: np.ndarray, side: str,
              n_before: int = 5, n_after: int = 5,
              times: list[float] | None = None) -> dict[str, Any]:
    """One hand through a fresh gate (see the module docstring): the still table ``before``,
    the frames ``hands`` in order, the still table ``after``. Returns ``{"seen": bool,
    "named": side or None, "side": "right" | "wrong" | "none"}``. Each update's time in
    seconds is appended to ``times`` when given."""
    gate = StillGate()
    seen = True
    for k, frame in enumerate([before] * n_before + hands + [after] * n_after):
        t0 = time.perf_counter()
        verdict = gate.update(frame)
        if times is not None:
            times.append(time.perf_counter() - t0)
        if n_before <= k < n_before + len(hands) and verdict.read_now:
            seen = False
    named = gate.reached_from
    return {"seen": seen, "named": named,
            "side": "none" if named is None else ("right" if named == side else "wrong")}


def at_reach(hand: HandSpec, reach: float) -> HandSpec:
    """``hand`` with its fingertips at ``reach`` (0..1) of the way from its entry point to its
    tip: the arm coming in."""
    entry, tip = np.asarray(hand.entry, float), np.asarray(hand.tip, float)
    x, y = entry + reach * (tip - entry)
    return dataclasses.replace(hand, tip=(float(x), float(y)))


#: Sleeve colours (BGR) for ``--sleeves``: navy, black, grey, red, green, white, denim,
#: camel (a sleeve near some skins' colour).
SLEEVE_BGR = ((90, 40, 30), (35, 35, 35), (125, 125, 125), (45, 40, 165), (60, 110, 55),
              (225, 225, 225), (140, 100, 70), (90, 140, 185))


def sleeved(hand: HandSpec, rng: np.random.Generator) -> HandSpec:
    """``hand`` in a sleeve of a colour from :data:`SLEEVE_BGR`, reaching 0.6-1.0 of the way
    from the border to the wrist."""
    colour = SLEEVE_BGR[int(rng.integers(len(SLEEVE_BGR)))]
    return dataclasses.replace(hand, sleeve_bgr=colour, sleeve_to=float(rng.uniform(0.6, 1.0)))


def on_table(spec: SceneSpec, table: tuple[str, int] | None) -> SceneSpec:
    """``spec`` laid on ``table`` (family, variant); unchanged when ``table`` is None."""
    if table is None:
        return spec
    return dataclasses.replace(spec, table_family=table[0], table_variant=table[1])


def run(game: str, seed: int, repeat: int = 15, n_before: int = 5, n_after: int = 5,
        coming_in: tuple[float, ...] = (), times: list[float] | None = None,
        sleeves: bool = False, table: tuple[str, int] | None = None,
        skin: tuple[int, int, int] | None = None
        ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The bench on one game sequence: (its summary line, the hand frames missed: side not
    named right, or not seen). ``sleeves``: every arm clothed (:func:`sleeved`, seeded by the
    sequence seed); ``table`` (family, variant): every frame on that table; ``skin`` (BGR):
    every arm of that skin."""
    frames = game_sequence(seed, game)
    rng = np.random.default_rng([seed, 7])
    row: dict[str, Any] = {"game": game, "seed": seed, "hands": 0, "seen": 0, "right": 0,
                           "wrong": 0, "none": 0}
    misses: list[dict[str, Any]] = []
    for i, fr in enumerate(frames):
        if fr.event != "hand" or i == 0 or i + 1 >= len(frames) or not fr.spec.hands:
            continue
        arm = fr.spec.hands[0]
        if skin is not None:
            arm = dataclasses.replace(arm, skin_bgr=skin)
        arm = sleeved(arm, rng) if sleeves else arm
        spec = on_table(dataclasses.replace(fr.spec, hands=(arm,) + fr.spec.hands[1:]), table)
        before, after = (render_scene(on_table(frames[j].spec, table)).image_bgr
                         for j in (i - 1, i + 1))
        hand = render_scene(spec).image_bgr
        partial = [render_scene(dataclasses.replace(spec, hands=(at_reach(arm, r),))
                                ).image_bgr for r in coming_in]
        side = entry_side(arm.entry)
        case = hand_case(before, partial + [hand] * repeat + partial[::-1], after, side,
                         n_before, n_after, times)
        row["hands"] += 1
        row["seen"] += int(case["seen"])
        row[case["side"]] += 1
        if case["side"] != "right" or not case["seen"]:
            misses.append({"game": game, "seed": seed, "frame": i, "side": side,
                           "named": case["named"], "seen": case["seen"]})
    return row, misses


def _reaches(text: str) -> tuple[float, ...]:
    try:
        out = tuple(float(r) for r in text.split(","))
    except ValueError:
        out = ()
    if not out or not all(0.0 < r < 1.0 for r in out):
        raise argparse.ArgumentTypeError(
            f"--coming-in {text!r}: expected fractions of the arm's reach between 0 and 1, "
            "comma-separated (0.35,0.65)")
    return out


def _seeds(text: str) -> list[int]:
    try:
        if "-" in text:
            a, b = text.split("-", 1)
            seeds = list(range(int(a), int(b) + 1))
        else:
            seeds = [int(s) for s in text.split(",")]
    except ValueError:
        seeds = []
    if not seeds:
        raise argparse.ArgumentTypeError(
            f"seeds {text!r}: expected a range A-B with A <= B (0-5) or a comma list (0,3,7)")
    return seeds


def _table(text: str) -> tuple[str, int]:
    family, _, variant = text.partition(":")
    try:
        number = int(variant) if variant else 0
    except ValueError:
        number = -1
    if family not in TABLE_FAMILIES or number < 0:
        raise argparse.ArgumentTypeError(
            f"--table {text!r}: expected FAMILY or FAMILY:VARIANT with FAMILY one of "
            f"{', '.join(TABLE_FAMILIES)} and VARIANT a whole number >= 0 (wood:3, the light "
            "wood)")
    return family, number


def _skin(text: str) -> tuple[int, int, int]:
    try:
        index = int(text)
    except ValueError:
        index = -1
    if not 0 <= index < len(SKIN_BGR):
        raise argparse.ArgumentTypeError(
            f"--skin {text!r}: expected an index 0-{len(SKIN_BGR) - 1} into the rendered skins "
            f"(BGR {', '.join(str(c) for c in SKIN_BGR)}; 0 and 5 are the palest)")
    return SKIN_BGR[index]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.render.gatebench",
                                description=__doc__.splitlines()[0])
    p.add_argument("--game", action="append", choices=SEQUENCE_GAMES,
                   help="a game sequence (repeat for several; default: all four)")
    p.add_argument("--seeds", type=_seeds, default=_seeds("0-5"),
                   help="sequence seeds, A-B or a comma list (default 0-5)")
    p.add_argument("--repeat", type=int, default=15, help="frames each hand is shown (15)")
    p.add_argument("--coming-in", type=_reaches, default=(),
                   help="also show the arm at these fractions of its reach before and after "
                        "the full hand (e.g. 0.35,0.65)")
    p.add_argument("--sleeves", action="store_true",
                   help="clothe every arm in a sleeve (seeded colours and lengths)")
    p.add_argument("--table", type=_table, default=None,
                   help="lay every sequence on this table, FAMILY[:VARIANT] (wood:3 is the "
                        "light wood; default: each sequence's own)")
    p.add_argument("--skin", type=_skin, default=None,
                   help="give every arm this skin, an index into the rendered skins (0 and 5 "
                        "the palest; default: each player's own)")
    p.add_argument("--misses", action="store_true", help="also print the hand frames missed")
    a = p.parse_args(argv)
    if a.repeat < 1:
        p.error(f"--repeat {a.repeat}: expected at least 1 frame")
    times: list[float] = []
    total: dict[str, Any] = {"hands": 0, "seen": 0, "right": 0, "wrong": 0, "none": 0}
    misses: list[dict[str, Any]] = []
    for game in a.game or list(SEQUENCE_GAMES):
        for seed in a.seeds:
            row, missed = run(game, seed, a.repeat, coming_in=a.coming_in, times=times,
                              sleeves=a.sleeves, table=a.table, skin=a.skin)
            print(json.dumps(row), flush=True)
            misses += missed
            for k in total:
                total[k] += row[k]
    if a.misses:
        for m in misses:
            print(json.dumps({"miss": m}))
    total["ms_per_frame"] = round(1000 * statistics.median(times), 3) if times else None
    print(json.dumps({"total": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
