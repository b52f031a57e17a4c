"""``domino-companion layers-eval``: how often :mod:`vision.layers` puts a tile on the right
layer, on rendered stacked scenes (:mod:`vision.render.stacking`).

Figures printed (JSON):

* ``cold_image``: one photo, image cues only (no calibration); the detector input is the
  ground-truth top-face quads of every tile with ``visible > 0`` (so a tile the reader would miss
  is still judged);
* ``cold_geometry``: the same with the scene's camera as the calibration (parallax);
* ``cold_image_jittered`` (with ``--jitter PX`` > 0, default 1): the same photos with every
  true corner moved at random (normal, ``PX`` pixels per axis, seeded per scene) and the
  estimator told the outlines are that far off (``outline_px``): the one-photo figure with
  outlines as imprecise as a detector's, without the detector's misses;
* ``tracked``: the stack watched being built (:func:`vision.render.stacking.stack_sequence`, one
  tile more per still frame) through a :class:`vision.layers.LayerTracker`, image cues only,
  ground-truth quads; counted on every tile of the last frame and on every tile of every frame;
* ``reader`` (with ``--reader``): end to end, the quads the real reader
  (:class:`vision.read.Reader`) finds, matched by IoU >= 0.5 to the tiles a reader must report
  (face up, ``visible >= 0.9``, not cut), cold start with and without geometry: how many tiles
  per layer it finds and how many of those get the right layer (outlines taken to be
  :data:`vision.layers.READER_OUTLINE_PX` off, as the reader does).

With ``--failures`` the JSON also lists every tile the one-photo estimate (``cold_image``) put on
the wrong layer: seed, tile index (among the tiles with ``visible > 0``), true and estimated
layer, the cue that decided, its confidence, the tile's visible fraction and the supports it
was given; the first thing to read when the figure drops. With ``--jitter`` > 0 it also lists
the tiles the jittered estimate got wrong (``cold_image_jittered_failures``) and how many of
them each cue decided.

Scenes use held-out seeds (``--seed`` >= 1,000,000, held-out looks included).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from typing import Any

import numpy as np

from vision.layers import (
    READER_OUTLINE_PX,
    Geometry,
    LayerTracker,
    estimate_layers,
    quad_iou,
)
from vision.render.errors import RenderSpecError
from vision.render.sampling import HELD_OUT_SEED_MIN
from vision.render.scene import render_scene
from vision.render.stacking import stack_sequence, stacked_scene_spec

DEFAULT_SEED = HELD_OUT_SEED_MIN + 100
#: The largest ``--jitter`` taken: corners moved further than this are no outline a detector
#: would give (and a noise of thousands of pixels breaks the estimator).
MAX_JITTER_PX = 20.0


def _visible(truth: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in truth["tiles"] if t["visible"] > 0]


def _tally(counter: Counter, est: list, tiles: list[dict[str, Any]], key: str) -> None:
    for e, t in zip(est, tiles):
        counter[key + "_n"] += 1
        counter[key + "_ok"] += int(e.layer == t["layer"])
        counter[f"{key}_n_layer{t['layer']}"] += 1
        counter[f"{key}_ok_layer{t['layer']}"] += int(e.layer == t["layer"])


def _failures(seed: int, est: list, tiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"seed": seed, "tile": i, "truth": t["layer"], "estimate": e.layer, "cue": e.cue,
             "confidence": e.confidence, "visible": round(float(t["visible"]), 3),
             "supports": list(e.supports)}
            for i, (e, t) in enumerate(zip(est, tiles)) if e.layer != t["layer"]]


def _jittered(tiles: list[dict[str, Any]], px: float, rng: np.random.Generator
              ) -> list[np.ndarray]:
    return [np.asarray(t["corners"], float) + rng.normal(0.0, px, (4, 2)) for t in tiles]


def evaluate(n_scenes: int, seed: int, sequences: int, reader: bool,
             failures: bool = False, jitter: float = 1.0) -> dict[str, Any]:
    """Run the evaluation and return its figures (see the module docstring)."""
    if not (math.isfinite(jitter) and 0 <= jitter <= MAX_JITTER_PX):
        raise RenderSpecError(f"--jitter {jitter}: expected a corner noise in pixels from 0 to "
                              f"{MAX_JITTER_PX:g} (0 leaves the jittered figure out)")
    if seed < HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"--seed {seed} is a training seed; layer figures use held-out "
                              f"seeds >= {HELD_OUT_SEED_MIN}")
    c: Counter = Counter()
    t0 = time.perf_counter()
    ms: list[float] = []
    rd = None
    failed: list[dict[str, Any]] = []
    failed_noisy: list[dict[str, Any]] = []
    if reader:
        from vision.read import Reader
        rd = Reader()
    for k in range(n_scenes):
        scene = render_scene(stacked_scene_spec(seed + k, held_out=True))
        tiles = _visible(scene.truth)
        geom = Geometry.from_truth(scene.truth)
        t1 = time.perf_counter()
        est_cold = estimate_layers(scene.image_bgr, tiles)
        ms.append((time.perf_counter() - t1) * 1000)
        _tally(c, est_cold, tiles, "cold_image")
        if failures:
            failed += _failures(seed + k, est_cold, tiles)
        _tally(c, estimate_layers(scene.image_bgr, tiles, geom), tiles, "cold_geometry")
        if jitter > 0:
            noisy = _jittered(tiles, jitter, np.random.default_rng((seed + k, 7)))
            est_noisy = estimate_layers(scene.image_bgr, noisy, outline_px=jitter)
            _tally(c, est_noisy, tiles, "cold_image_jittered")
            if failures:
                failed_noisy += _failures(seed + k, est_noisy, tiles)
        if rd is not None:
            reading = rd.read(scene.image_bgr, scene.truth["set_max"])
            found = [t for t in reading.tiles if not t.cut]
            quads = [np.array(t.corners) for t in found]
            est_i = (estimate_layers(scene.image_bgr, quads, outline_px=READER_OUTLINE_PX)
                     if quads else [])
            est_g = (estimate_layers(scene.image_bgr, quads, geom, outline_px=READER_OUTLINE_PX)
                     if quads else [])
            used: set[int] = set()
            for t in tiles:
                if t["cut"] or not t["face_up"] or t["visible"] < 0.9:
                    continue  # only the tiles a reader must report
                c[f"reader_truth_layer{t['layer']}"] += 1
                q = np.array(t["corners"])
                best = max(((quad_iou(q, fq), j) for j, fq in enumerate(quads) if j not in used),
                           default=(0.0, -1))
                if best[0] < 0.5:
                    continue
                used.add(best[1])
                c[f"reader_found_layer{t['layer']}"] += 1
                c["reader_found"] += 1
                c["reader_image_ok"] += int(est_i[best[1]].layer == t["layer"])
                c["reader_geometry_ok"] += int(est_g[best[1]].layer == t["layer"])
            c["reader_detections"] += len(quads)
            c["reader_unmatched"] += len(quads) - len(used)
    for k in range(sequences):
        frames = stack_sequence(seed + 5000 + k, held_out=True)
        tracker = LayerTracker()
        for fr in frames:
            scene = render_scene(fr.spec)
            tiles = _visible(scene.truth)
            est = tracker.update(scene.image_bgr, tiles)
            _tally(c, est, tiles, "tracked_all_frames")
            if fr is frames[-1]:
                _tally(c, est, tiles, "tracked_last_frame")
                _tally(c, estimate_layers(scene.image_bgr, tiles), tiles, "same_cold_image")
    out: dict[str, Any] = {"scenes": n_scenes, "sequences": sequences, "seed": seed,
                           "detector_input": "ground-truth quads of tiles with visible > 0"}
    if jitter > 0:
        out["jitter_px"] = jitter
    for key in ("cold_image", "cold_image_jittered", "cold_geometry", "tracked_last_frame", "tracked_all_frames",
                "same_cold_image"):
        if c[key + "_n"]:
            per_layer = {str(L): f"{c[f'{key}_ok_layer{L}']}/{c[f'{key}_n_layer{L}']}"
                         for L in range(6) if c[f"{key}_n_layer{L}"]}
            out[key] = {"accuracy": round(c[key + "_ok"] / c[key + "_n"], 4),
                        "tiles": c[key + "_n"], "right": c[key + "_ok"],
                        "per_layer": per_layer}
    if rd is not None:
        out["reader"] = {
            "found_per_layer": {str(L): f"{c[f'reader_found_layer{L}']}/"
                                        f"{c[f'reader_truth_layer{L}']}"
                                for L in range(6) if c[f"reader_truth_layer{L}"]},
            "found": c["reader_found"], "detections": c["reader_detections"],
            "unmatched_detections": c["reader_unmatched"],
            "image_accuracy_on_found": round(c["reader_image_ok"] / max(1, c["reader_found"]), 4),
            "geometry_accuracy_on_found": round(c["reader_geometry_ok"]
                                                / max(1, c["reader_found"]), 4)}
    if failures:
        out["cold_image_failures"] = failed
        if jitter > 0:
            out["cold_image_jittered_failures"] = failed_noisy
            out["cold_image_jittered_failure_cues"] = dict(Counter(f["cue"] for f in failed_noisy))
    out["estimate_ms_median"] = round(float(np.median(ms)), 1) if ms else None
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    return out


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``domino-companion layers-eval``."""
    parser.add_argument("--scenes", type=int, default=40, help="stacked scenes (default 40)")
    parser.add_argument("--sequences", type=int, default=10,
                        help="build sequences watched by the tracker (default 10)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"first held-out seed (default {DEFAULT_SEED})")
    parser.add_argument("--reader", action="store_true",
                        help="also measure end to end on the real reader's detections")
    parser.add_argument("--failures", action="store_true",
                        help="also list every tile the one-photo estimate got wrong (seed, "
                             "tile, true and estimated layer, deciding cue)")
    parser.add_argument("--jitter", type=float, default=1.0, metavar="PX",
                        help="also measure one photo with every true corner moved at random by "
                             f"this many pixels, 0 to {MAX_JITTER_PX:g} (default 1; 0 leaves "
                             "it out)")


def run(args: argparse.Namespace) -> int:
    """``domino-companion layers-eval [--scenes N] [--sequences M] [--seed S] [--reader]
    [--failures]``."""
    if args.scenes < 0 or args.sequences < 0 or args.scenes + args.sequences == 0:
        raise RenderSpecError(f"--scenes {args.scenes} / --sequences {args.sequences}: expected "
                              "counts >= 0, not both 0")
    print(json.dumps(evaluate(args.scenes, args.seed, args.sequences, args.reader,
                              getattr(args, "failures", False),
                              getattr(args, "jitter", 1.0)), indent=1))
    return 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m vision.render.layerbench",
                                description=__doc__.split("\n\n")[0])
    configure(p)
    raise SystemExit(run(p.parse_args()))
