"""``python -m companion.lightbench``: the live companion when the room's light changes.

At a game night someone switches on a lamp, the evening light fades, or the webcam's automatic
exposure and white balance move when a dark sleeve enters the picture. This bench plays a
bundled demo recording headless (the real pipeline: still gate, reader, tracker, interpreter,
rules, log; :class:`companion.demo.DemoPlayer`, whose scripted person answers every question
with what really happened) while the light changes from a given frame on, and reports per game
and change of light:

* ``matches_truth``: the game ends at the recording's true scores (the person's answers make
  it so whenever the camera asked);
* ``camera_plays``: the plays the camera put in the log or asked about itself;
* ``missed``: plays the camera never saw, which the person had to enter on the tablet (a
  companion blinded by the light misses every play after it);
* ``questions``: the taps the person needed (confirmations, corrections, illegal alerts,
  amends, dismissals).

The changes of light (:data:`LIGHTS`), each from frame ``--at`` on (default: a third of the way
into the recording; a frame later with ``warm``, which may fall on a hand): ``same`` (the
control: the demo as it is), ``dim`` (a lamp turned down: blue, green, red x 0.8, 0.85, 0.95),
``bright`` (x 1.25, 1.2, 1.1), ``warm`` (a warm lamp switched on while a hand is in the picture:
x 1.0, 1.1, 1.3), ``drift`` (the exposure falling to x 0.7 over 40 frames) and ``flicker`` (x
0.9 on every other frame, a mains-lit room beating with the camera's rate); and two uneven ones,
on one part of the table only: ``side`` (a lamp at the left switched on: x 1.3 at the left edge,
falling to none at the right) and ``shadow`` (someone leaning in: x 0.65 in a soft half-ellipse
rising from the bottom edge over about a third of the picture). The figures go into
``docs/benchmarks.md`` (Live companion).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np


@dataclass(frozen=True)
class Light:
    """A change of light: per colour channel (blue, green, red) the gain reached, over
    ``ramp`` frames (1: at once), or on every ``every``-th frame only (flicker)."""

    gain: tuple[float, float, float]
    ramp: int = 1
    every: int = 0
    offset: int = 0  # frames after ``--at`` it starts (``warm``: on a hand frame)
    shape: str = "even"  # "even", "side" (a lamp at the left) or "shadow" (someone leaning in)

    def field(self, height: int, width: int) -> np.ndarray:
        """Where the change reaches, 0..1 per pixel (height x width x 1): everywhere
        (``even``); falling from the left edge to none at the right (``side``); a soft
        half-ellipse from the bottom edge over about a third of the picture (``shadow``)."""
        if self.shape == "even":
            return np.ones((height, width, 1), np.float32)
        x = np.linspace(0.0, 1.0, width, dtype=np.float32)[None, :]
        y = np.linspace(0.0, 1.0, height, dtype=np.float32)[:, None]
        if self.shape == "side":
            reach = np.broadcast_to(1.0 - x, (height, width))
        elif self.shape == "shadow":
            r = np.sqrt(((x - 0.45) / 0.32) ** 2 + ((y - 1.0) / 0.6) ** 2)
            reach = np.clip((1.25 - r) / 0.5, 0.0, 1.0)
        else:
            raise ValueError(f"light shape {self.shape!r} unknown; use even, side or shadow")
        return np.ascontiguousarray(reach, np.float32)[..., None]

    def look(self, at: int) -> Callable[[int, np.ndarray], np.ndarray]:
        """The frame filter :class:`companion.demo.DemoPlayer` applies (frame index, picture)."""
        start = at + self.offset
        gain = np.asarray(self.gain, np.float32)
        fields: dict[tuple[int, int], np.ndarray] = {}

        def apply(k: int, img: np.ndarray) -> np.ndarray:
            if k < start:
                return img
            if self.every:
                if (k - start) % self.every:
                    return img
                g = gain - 1.0
            else:
                g = min(1.0, (k - start + 1) / self.ramp) * (gain - 1.0)
            if self.shape != "even":
                key = img.shape[:2]
                if key not in fields:
                    fields[key] = self.field(*key)
                g = fields[key] * g
            return np.clip(img.astype(np.float32) * (1.0 + g), 0, 255).astype(np.uint8)

        return apply


LIGHTS = {
    "same": Light((1.0, 1.0, 1.0)),
    "dim": Light((0.8, 0.85, 0.95)),
    "bright": Light((1.25, 1.2, 1.1)),
    "warm": Light((1.0, 1.1, 1.3), offset=1),
    "drift": Light((0.7, 0.7, 0.7), ramp=40),
    "flicker": Light((0.9, 0.9, 0.9), every=2),
    "side": Light((1.3, 1.3, 1.3), shape="side"),
    "shadow": Light((0.65, 0.65, 0.65), shape="shadow"),
}
DEFAULT_GAMES = ("allfives", "chickenfoot", "stackernoes")


def frame_count(rec: Any) -> int:
    """How many frames :class:`companion.demo.DemoPlayer` shows of recording ``rec``."""
    from vision.render.recording import HAND_FRAMES, STILL_FRAMES

    return sum(STILL_FRAMES + (HAND_FRAMES if st.by is not None else 0)
               for st in rec.steps if st.kind == "camera")


def run_case(game: str, light: str, at: int | None = None) -> dict[str, Any]:
    """One headless demo of ``game`` under the change of light named ``light`` from frame
    ``at`` (None: a third of the way in); the report line (see the module docstring)."""
    from companion.demo import play, recording_path
    from vision.render.recording import load_recording

    rec = load_recording(recording_path(game))
    if at is None:
        at = frame_count(rec) // 3
    with tempfile.TemporaryDirectory(prefix="domino-lightbench-") as tmp:
        report, _, match = play(rec, Path(tmp) / "bench.sqlite", look=LIGHTS[light].look(at))
    return {"game": game, "light": light, "at": at, "matches_truth": match,
            "camera_plays": report.camera_plays, "missed": len(report.missed),
            "questions": report.questions, "frames": report.frames}


def main(argv: list[str] | None = None) -> int:
    from companion.demo import DEMO_GAMES, names_from, tally

    ap = argparse.ArgumentParser(prog="python -m companion.lightbench",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(DEFAULT_GAMES),
                    help=f"comma-separated demo games (default {','.join(DEFAULT_GAMES)})")
    ap.add_argument("--lights", default=",".join(LIGHTS),
                    help=f"comma-separated changes of light (default all: {','.join(LIGHTS)})")
    ap.add_argument("--at", type=int, default=None,
                    help="the frame the light changes at (default: a third of the way into "
                         "each recording)")
    args = ap.parse_args(argv)
    try:
        games = names_from(args.games, DEMO_GAMES, "game")
        lights = names_from(args.lights, tuple(LIGHTS), "light")
    except ValueError as exc:
        ap.error(str(exc))
    if args.at is not None and args.at < 0:
        ap.error(f"--at is a frame number, 0 or more, got {args.at}")
    total = {"cases": 0, "matches_truth": 0, "camera_plays": 0, "missed": 0, "questions": 0}
    for game in games:
        for light in lights:
            row = run_case(game, light, args.at)
            print(json.dumps(row), flush=True)
            tally(total, row, ("camera_plays", "missed", "questions"))
    print(json.dumps({"total": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
