"""``python -m companion.propbench``: the live companion when something is put down on the table.

At a game night a mug, a can, a phone or the score pad ends up on the table, often over part of
the tiles, and is picked up again a few plays later. This bench plays a bundled demo recording
headless (the real pipeline: still gate, reader, tracker, interpreter, rules, log;
:class:`companion.demo.DemoPlayer`, whose scripted person answers every question with what
really happened) with one such thing (:mod:`vision.render.props`) put down with the hand of
one camera step and taken away with the hand of a later one, and reports per game, kind and
place:

* ``matches_truth``: the game ends at the recording's true scores;
* ``camera_plays``: the plays the camera put in the log or asked about itself;
* ``missed``: plays the camera never saw, which the person had to enter on the tablet;
* ``questions``: the taps the person needed (confirmations, corrections, illegal alerts,
  amends, dismissals), against the same recording without the thing (the ``none`` row);
* ``notices``: notices shown (each needs a look, not an answer); ``told``: their words;
* ``hand_frames``: frames a still gate set as the live loop's took for a hand
  (:class:`GateWatch`); the ``total`` line's ``extra_hand_frames`` adds up each case's count
  over the recording's without the thing (``none``): frames the camera waited for the thing as
  for a resting hand.

Places (``--places``): ``over`` (its centre on a tile that lies on the table and stays there
while it does, a third of a tile length off the tile's centre, so the tile and often its
neighbours are hidden), ``beside`` (on the bare table, every tile more than a tile length from
what it hides) and ``edge`` (its centre on the picture's border, half of it out of the picture,
as far from the tiles). The thing goes down with the hand of the camera step a third of the way
into the recording (``--at``, counted in camera steps) and is taken away with the hand of the
``--steps``-th camera step after it (4). Only places where no tile within a tile length of what
the thing hides is laid or taken while it lies there are used (the players would move it first),
the tile laid with the hand that puts it down included; what it hides is its base and its top as
the camera sees it, which in perspective reaches past the base (a tall mug under a close camera
hides its neighbours). A game with no such place says so. For ``over`` and ``beside`` the whole
thing, its top too, lies inside the picture; one that runs out of it (``edge``) touches the
border as an arm does, which the still gate must tell from a hand (see ``docs/benchmarks.md``).
The figures go into ``docs/benchmarks.md`` (Live companion).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from vision.render.props import PROP_KINDS, PropSpec, prop_outlines, seen_outlines

#: Where the thing is put (see the module docstring).
PLACES = ("over", "beside", "edge")
#: Body colours (BGR) a thing is given, one drawn per case: red, navy, white, black, green,
#: yellow, teal, grey.
COLOURS = ((40, 40, 170), (90, 50, 25), (225, 228, 230), (30, 30, 32), (50, 130, 40),
           (40, 180, 210), (140, 130, 30), (128, 128, 128))
DEFAULT_GAMES = ("allfives", "chickenfoot", "castlerock", "stackernoes")


def _radius(kind: str) -> float:
    """Half the largest extent of a thing of ``kind`` (mm): how far it reaches from its centre."""
    shape, dims = PROP_KINDS[kind]
    return dims[0] / 2 if shape == "round" else math.hypot(dims[0], dims[1]) / 2


def _camera_steps(rec: Any) -> list[int]:
    return [i for i, st in enumerate(rec.steps) if st.kind == "camera"]


def place_prop(rec: Any, kind: str, where: str, first: int, last: int,
               rng: np.random.Generator) -> PropSpec | None:
    """A thing of ``kind`` put down at camera step ``first`` and lying there through step
    ``last - 1`` (step indices of ``rec``), ``over`` a tile, ``beside`` the tiles or at the
    picture's ``edge``; None when the recording has no such place (see the module docstring)."""
    import cv2

    from vision.render.camera import Camera
    from vision.render.tiles import geometry_for_set

    geom = geometry_for_set(rec.base.set_max)
    steps = [rec.steps[i] for i in range(first, last) if rec.steps[i].kind == "camera"]
    earlier = [st for st in rec.steps[:first] if st.kind == "camera"]
    before = earlier[-1].tiles if earlier else ()  # the table as the thing goes down

    def key(p: Any) -> tuple[str, tuple[float, float], int]:
        return str(p.tile), tuple(p.center_mm), p.layer

    lying = {key(p) for p in before}
    # laid or taken while it lies there, the tile laid with the hand that puts it down too
    moved = [np.asarray(k[1]) for k in set().union(*({key(p) for p in st.tiles} ^ lying
                                                     for st in steps))]
    every = [np.asarray(p.center_mm) for st in [*steps, *earlier[-1:]] for p in st.tiles]
    colour = COLOURS[int(rng.integers(len(COLOURS)))]
    angle = float(rng.uniform(0.0, 180.0))
    cam = Camera(rec.base.camera, rec.base.width, rec.base.height)
    to_table = np.linalg.inv(cam.plane_homography(0.0))
    frame = np.array([cam.width, cam.height], np.float64)

    def at(c: np.ndarray) -> PropSpec:
        return PropSpec(kind, (float(c[0]), float(c[1])), angle)

    def clear(c: np.ndarray, points: list[np.ndarray]) -> bool:
        """Whether every point (table mm) lies more than a tile length from what the thing
        hides of the table: its base, and its top as the camera sees it (further out than the
        base, in perspective)."""
        top_px = seen_outlines(at(c), cam)[1]
        top = np.column_stack([top_px, np.ones(len(top_px))]) @ to_table.T
        hidden = np.concatenate([prop_outlines(at(c)), top[:, :2] / top[:, 2:3]])
        hull = cv2.convexHull(hidden.astype(np.float32))
        return all(cv2.pointPolygonTest(hull, (float(q[0]), float(q[1])), True)
                   < -geom.length_mm for q in points)

    def in_view(c: np.ndarray) -> bool:  # all of it, its top too, well inside the picture
        uv = np.concatenate(seen_outlines(at(c), cam))
        return bool(np.all((uv > 0.04 * frame) & (uv < 0.96 * frame)))

    if where == "over":
        for k in rng.permutation(len(before)):
            t = before[int(k)]
            a = rng.uniform(0.0, 2 * math.pi)
            c = np.asarray(t.center_mm) + geom.length_mm / 3 * np.array([math.cos(a), math.sin(a)])
            if in_view(c) and clear(c, moved):
                return PropSpec(kind, (float(c[0]), float(c[1])), angle, colour)
        return None
    if where == "edge":
        w, h = cam.width - 1.0, cam.height - 1.0
        for side in rng.permutation(4):
            for f in rng.uniform(0.15, 0.85, 16):
                uv = [(f * w, 0.0), (w, f * h), (f * w, h), (0.0, f * h)][int(side)]
                xyw = to_table @ np.array([uv[0], uv[1], 1.0])
                c = xyw[:2] / xyw[2]
                if clear(c, every):
                    return PropSpec(kind, (float(c[0]), float(c[1])), angle, colour)
        return None
    if where != "beside":
        raise ValueError(f"place {where!r} unknown; choose from {', '.join(PLACES)}")
    centre = np.mean(every, axis=0) if every else np.asarray(rec.base.camera.target_mm)
    span = max([float(np.hypot(*(e - centre))) for e in every] + [0.0])
    for ring in (1.0, 1.3, 1.6, 2.0):
        for a in rng.uniform(0.0, 2 * math.pi, 24):
            c = centre + (span + ring * _radius(kind)) * np.array([math.cos(a), math.sin(a)])
            if in_view(c) and clear(c, every):
                return PropSpec(kind, (float(c[0]), float(c[1])), angle, colour)
    return None


class PropRenderer:
    """The recording's frames with ``prop`` on the table from camera step ``first`` (its hand
    frames: it comes down with that hand) to before step ``last`` (its hand takes it away)."""

    def __init__(self, rec: Any, prop: PropSpec | None, first: int, last: int) -> None:
        from vision.render.recording import StepRenderer

        self.base = StepRenderer(rec)
        self.rec, self.prop, self.first, self.last = rec, prop, first, last

    def frames(self, index: int) -> tuple[np.ndarray, np.ndarray | None, dict[str, Any]]:
        from vision.render.scene import render_scene

        if self.prop is None or not self.first <= index <= self.last:
            return self.base.frames(index)
        step = self.rec.steps[index]
        on_still = index < self.last
        on_hand = index > self.first  # put down with step first's hand, taken with step last's
        still_spec = self.base.spec(step, hand=False)
        still = render_scene(dataclasses.replace(
            still_spec, props=(self.prop,) if on_still else ()))
        hand = None
        if step.by is not None:
            hand_spec = self.base.spec(step, hand=True)
            hand = render_scene(dataclasses.replace(
                hand_spec, props=(self.prop,) if on_hand else ())).image_bgr
        return still.image_bgr, hand, still.truth


class GateWatch:
    """For :func:`companion.demo.play`'s ``look``: a still gate set as the live loop's watching
    the same frames, counting those it takes for a hand (``hand_frames``). The recording's own
    hands give the count of the recording without the thing; a thing the gate waits for as for
    a resting hand adds to it (3 s at 30 fps before it gives up waiting)."""

    def __init__(self) -> None:
        from vision.still import StillGate

        self.gate = StillGate(still_frames=2)
        self.hand_frames = 0

    def __call__(self, index: int, img: np.ndarray) -> np.ndarray:
        self.hand_frames += self.gate.update(img).state == "hand"
        return img


def run_case(game: str, kind: str, where: str, at: int | None = None, steps: int = 4,
             seed: int = 0, frames: tuple[int, int] | None = None) -> dict[str, Any]:
    """One headless demo of ``game`` with a thing of ``kind`` (``none``: the recording as it is)
    put ``where`` (see the module docstring), ``frames`` (hand, still) per camera step (None:
    the recording's); the report line."""
    from companion.demo import play, recording_path
    from vision.render.recording import load_recording

    rec = load_recording(recording_path(game))
    cams = _camera_steps(rec)
    k = len(cams) // 3 if at is None else at
    if not 0 <= k < len(cams) - 1:
        raise ValueError(f"--at {k} is not a camera step of {game} before its last "
                         f"(0..{len(cams) - 2})")
    first, last = cams[k], cams[min(k + steps, len(cams) - 1)]
    prop = None
    if kind != "none":
        rng = np.random.default_rng([seed, PLACES.index(where), sorted(PROP_KINDS).index(kind)])
        prop = place_prop(rec, kind, where, first, last, rng)
    row: dict[str, Any] = {"game": game, "kind": kind, "where": where if prop else "-",
                           "steps": [first, last]}
    if kind != "none" and prop is None:
        row["skipped"] = f"no place {where} where nothing it hides is laid or taken"
        return row
    with tempfile.TemporaryDirectory(prefix="domino-propbench-") as tmp:
        watch = GateWatch()
        report, _, match = play(rec, Path(tmp) / "bench.sqlite", look=watch,
                                renderer=PropRenderer(rec, prop, first, last), frames=frames)
    row.update({"matches_truth": match, "camera_plays": report.camera_plays,
                "missed": len(report.missed), "questions": report.questions,
                "notices": len(report.notices), "hand_frames": watch.hand_frames,
                "told": list(report.notices)})
    if prop is not None:
        row["at_mm"] = [round(v) for v in prop.center_mm]
    return row


def main(argv: list[str] | None = None) -> int:
    from companion.demo import DEMO_GAMES, names_from, tally

    ap = argparse.ArgumentParser(prog="python -m companion.propbench",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(DEFAULT_GAMES),
                    help=f"comma-separated demo games (default {','.join(DEFAULT_GAMES)})")
    ap.add_argument("--kinds", default=",".join(sorted(PROP_KINDS)),
                    help=f"comma-separated things (default all: {','.join(sorted(PROP_KINDS))})")
    ap.add_argument("--places", default=",".join(PLACES),
                    help=f"comma-separated places (default {','.join(PLACES)})")
    ap.add_argument("--at", type=int, default=None,
                    help="the camera step the thing is put down at (default: a third of the "
                         "way into each recording)")
    ap.add_argument("--steps", type=int, default=4,
                    help="camera steps it lies there (default 4)")
    ap.add_argument("--seed", type=int, default=0, help="seed for places and colours (0)")
    ap.add_argument("--frames", default=None, metavar="HAND,STILL",
                    help="frames of the hand and of the still table per camera step (default "
                         "the recording's 3,6: a play every 9 frames; 30,45 is a play every "
                         "2.5 s at 30 fps)")
    args = ap.parse_args(argv)
    frames = None
    if args.frames is not None:
        try:
            hand, still = (int(v) for v in args.frames.split(","))
        except ValueError:
            ap.error(f"--frames is two whole numbers, HAND,STILL (as 30,45), got {args.frames!r}")
        if hand < 1 or still < 3:
            ap.error(f"--frames needs 1 or more hand frames and 3 or more still frames (the "
                     f"gate settles in 2 and the loop's readings agree), got {args.frames!r}")
        frames = (hand, still)
    try:
        games = names_from(args.games, DEMO_GAMES, "game")
        kinds = names_from(args.kinds, tuple(sorted(PROP_KINDS)), "kind")
        places = names_from(args.places, PLACES, "place")
    except ValueError as exc:
        ap.error(str(exc))
    if args.steps < 1:
        ap.error(f"--steps is a number of camera steps, 1 or more, got {args.steps}")
    total = {"cases": 0, "matches_truth": 0, "camera_plays": 0, "missed": 0, "questions": 0,
             "notices": 0, "extra_hand_frames": 0, "skipped": 0}
    for game in games:
        try:
            base = run_case(game, "none", "-", args.at, args.steps, args.seed, frames)
        except ValueError as exc:
            ap.error(str(exc))
        print(json.dumps(base), flush=True)
        for kind in kinds:
            for where in places:
                row = run_case(game, kind, where, args.at, args.steps, args.seed, frames)
                print(json.dumps(row), flush=True)
                if "skipped" in row:
                    total["skipped"] += 1
                    continue
                tally(total, row, ("camera_plays", "missed", "questions", "notices"))
                total["extra_hand_frames"] += row["hand_frames"] - base["hand_frames"]
    print(json.dumps({"total": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
