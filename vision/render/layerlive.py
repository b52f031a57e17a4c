"""Layers end to end: the real reader's own layers, cold and as the live loop watches a build.

``python -m vision.render.layerlive [--scenes N] [--sequences M] [--seed S] [--flat F]``
prints JSON:

* ``cold``: on rendered stacked scenes (:func:`vision.render.stacking.stacked_scene_spec`,
  held-out seeds), the tiles the real reader (:class:`vision.read.Reader`) finds, matched by
  IoU >= 0.5 to the tiles a reader must report (face up, ``visible >= 0.9``, not cut): how many
  per layer it finds, and how many of those carry the right layer as the reader gives it (image
  cues) and with the scene's camera given to the reader (``Reader.read(..., geometry=...)``),
  the latter also per layer and per deciding cue (``geometry_decided``: right / all);
* ``watched``: build sequences (:func:`vision.render.stacking.stack_sequence`, one tile more
  per still frame) read frame by frame by the same reader and followed as the live loop follows
  them (:func:`companion.tracking.diff`: a tile added over known tiles lies one layer above
  the highest of them; tiles stay where they are laid, ``fixed``), with the tracking's memory
  (``changed``: where each frame differs from the one before,
  :func:`companion.tracking.change_picture`; ``--no-memory`` leaves it out); counted on the
  last frame of each sequence and on every frame, on the tiles the table shows (the tiles it
  remembers as hidden under others are not matched to what the camera sees); ``inferred``:
  how many of those rest on a tile the reader never found (inferred where the picture changed,
  :attr:`companion.tracking.Seen.inferred_under`) and how many of these are right; ``removed``
  (on ``all``): how many tiles the tracking reported taken away
  (:attr:`companion.tracking.TableChange.removed`); a build sequence never takes a tile away,
  so each is a false report (a game whose tiles stay where laid asks the players to put it
  back); ``unread``: how many known tiles it reported covered by a tile the reader did not
  find (:attr:`companion.tracking.TableChange.unread`: the picture there changed as a tile
  laid does, with nothing found; the interpreters ask which tile was laid on it), and
  ``unread_covered``: how many of those lie, in the scene's truth, under a tile of a higher
  layer (the question is about a real tile); ``replaced``: how many known tiles found in one
  reading it took for another value read there since
  (:attr:`companion.tracking.TableChange.replaced`: in a game, a notice to the players where
  the first value was entered), ``replaced_right``: how many of the new values are a truth
  tile's there, and ``replaced_was_wrong``: how many of the first values were not (by
  :func:`shown_not_there`).
  ``shown``: the tile-frames the table shows (not hidden), with ``where_no_tile``: those whose
  outline overlaps no tile of the scene's truth (covered ones included) by an IoU of 0.3 (a
  misreading kept, a tile followed to a wrong place), and ``value_not_there``: those over a
  truth tile (IoU >= 0.3) where no truth tile of their value lies (a misread value shown, or a
  tile shown over a neighbour's place) (:func:`shown_not_there`).

* ``flat`` (with ``--flat N``): N held-out scenes of flat layouts (line, spinner, chickenfoot,
  trains, grid, loose in turn, from seed :data:`FLAT_SEED`) read by the same reader without and
  with the scene's camera: how many of the tiles it reads it puts above the table (``lifted``),
  how many of those matched (IoU >= 0.5) to a tile the truth puts on the table
  (``table_tiles_lifted``; a few loose tiles of these scenes lie on others) and the median time
  of its layers stage each way.

Each figure also says what the same readings give without the learned layer cue
(:mod:`vision.layer_cue`; ``image_right_without_learned``, ``layer_right_without_learned``,
``lifted_without_learned``: the layers estimated again from the same tiles with
``learned=False``, the watched sequences followed a second time with those), so the cue's
before and after come from one run of one reader; ``learned_decided`` counts the found tiles
whose layer the cue decided and how many of those are right.

``domino-companion layers-eval`` measures the layer estimator itself on ground-truth quads; this
module measures what reaches the game: the reader's detections included.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections import Counter
from typing import Any

import numpy as np

from vision.layers import CUES, Geometry, quad_iou
from vision.render.errors import RenderSpecError
from vision.render.sampling import HELD_OUT_SEED_MIN
from vision.render.scene import render_scene
from vision.render.stacking import stack_sequence, stacked_scene_spec

DEFAULT_SEED = HELD_OUT_SEED_MIN + 100
#: First held-out flat scene of the ``flat`` figure (seeds 1,000,200-239 are the ones session 4
#: found the calibrated path lifting 53 of 630 tiles on).
FLAT_SEED = HELD_OUT_SEED_MIN + 200
#: The flat layouts of the ``flat`` figure, one scene each in turn.
FLAT_LAYOUTS = ("line", "spinner", "chickenfoot", "trains", "grid", "loose")
#: Grey levels a pixel of :func:`change_picture` must change by to count as changed (as the
#: live loop's ``REGION_DELTA``).
CHANGE_DELTA = 12


def _without_learned(frame_bgr: np.ndarray, reading: Any, geometry: Any = None) -> list[int]:
    """The layers the reader's tiles get without the learned cue (:mod:`vision.layer_cue`),
    from the same reading: the before/after of that cue in one run."""
    from vision.layers import READER_OUTLINE_PX, estimate_layers

    if not reading.tiles:
        return []
    return [e.layer for e in estimate_layers(frame_bgr, list(reading.tiles), geometry,
                                             outline_px=READER_OUTLINE_PX, learned=False)]


def _must_report(truth: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in truth["tiles"]
            if not t["cut"] and t["face_up"] and t["visible"] >= 0.9]


def match_found(truth_tiles: list[dict[str, Any]], quads: list[np.ndarray]
                ) -> list[tuple[dict, int]]:
    """Each truth tile with the index of the found quad it matches (IoU >= 0.5, greedy in the
    truth tiles' order, each quad once); unmatched truth tiles are left out. The layer cue's
    training labels (``models/train_layer_cue.py``) use it too."""
    used: set[int] = set()
    out = []
    for t in truth_tiles:
        q = np.array(t["corners"])
        best = max(((quad_iou(q, fq), j) for j, fq in enumerate(quads) if j not in used),
                   default=(0.0, -1))
        if best[0] >= 0.5:
            used.add(best[1])
            out.append((t, best[1]))
    return out


def _covered_in_truth(quad: np.ndarray, truth_tiles: list[dict[str, Any]]) -> bool:
    """Whether the truth tile ``quad`` matches (IoU >= 0.5) lies under a truth tile of a higher
    layer (their outlines overlapping by an IoU above 0.05); False when it matches none."""
    best = max(((quad_iou(quad, np.array(t["corners"])), k) for k, t in enumerate(truth_tiles)),
               default=(0.0, -1))
    if best[0] < 0.5:
        return False
    low = truth_tiles[best[1]]
    return any(t["layer"] > low["layer"]
               and quad_iou(np.array(t["corners"]), np.array(low["corners"])) > 0.05
               for t in truth_tiles)


def shown_not_there(shown: list[Any], truth_tiles: list[dict[str, Any]]) -> tuple[int, int]:
    """Of the tiles a table shows (:class:`companion.tracking.Seen`), how many overlap no truth
    tile (covered ones included) by an IoU of 0.3, and how many overlap some but none of their
    own value by that much (the ``watched`` figure's ``where_no_tile`` and
    ``value_not_there``)."""
    nowhere = wrong = 0
    for s in shown:
        q = np.array(s.corners)
        there = [t for t in truth_tiles if quad_iou(q, np.array(t["corners"])) >= 0.3]
        if not there:
            nowhere += 1
        elif not any(sorted(t["halves"]) == sorted(s.halves) for t in there):
            wrong += 1
    return nowhere, wrong


def _per_layer(c: Counter, key: str, what: str) -> dict[str, str]:
    return {str(L): f"{c[f'{key}_{what}_layer{L}']}/{c[f'{key}_truth_layer{L}']}"
            for L in range(8) if c[f"{key}_truth_layer{L}"]}


def flat_lifted(n_scenes: int, seed: int = FLAT_SEED) -> dict[str, Any]:
    """The ``flat`` figure (see the module docstring): on ``n_scenes`` held-out flat scenes from
    ``seed``, the reader's tiles put above the table without and with the scene's camera."""
    from vision.read import Reader
    from vision.render.sampling import random_scene_spec

    if seed < HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"flat seed {seed} is a training seed; layer figures use held-out "
                              f"seeds >= {HELD_OUT_SEED_MIN}")
    rd = Reader()
    c: Counter = Counter()
    ms: dict[str, list[float]] = {"image": [], "geometry": []}
    for s in range(seed, seed + n_scenes):
        spec = random_scene_spec(s, layout=FLAT_LAYOUTS[s % len(FLAT_LAYOUTS)], held_out=True)
        scene = render_scene(spec)
        table = [np.array(t["corners"]) for t in scene.truth["tiles"]
                 if t["layer"] == 0 and t["visible"] > 0]
        for key, geom in (("image", None), ("geometry", Geometry.from_truth(scene.truth))):
            reading = rd.read(scene.image_bgr, scene.truth["set_max"], geometry=geom)
            ms[key].append(reading.timings_ms.get("layers", 0.0))
            c[f"{key}_tiles"] += len(reading.tiles)
            c[f"{key}_lifted"] += sum(1 for t in reading.tiles if t.layer > 0)
            plain = _without_learned(scene.image_bgr, reading, geom)
            c[f"{key}_lifted_plain"] += sum(1 for layer in plain if layer > 0)
            on_table = [t for t in reading.tiles
                        if max((quad_iou(np.array(t.corners), q) for q in table),
                               default=0.0) >= 0.5]
            c[f"{key}_table"] += len(on_table)
            c[f"{key}_table_lifted"] += sum(1 for t in on_table if t.layer > 0)
    return {key: {"tiles": c[f"{key}_tiles"], "lifted": c[f"{key}_lifted"],
                  "lifted_without_learned": c[f"{key}_lifted_plain"],
                  "table_tiles": c[f"{key}_table"], "table_tiles_lifted": c[f"{key}_table_lifted"],
                  "layers_ms_median": round(float(np.median(ms[key])), 1) if ms[key] else 0.0}
            for key in ("image", "geometry")} | {"scenes": n_scenes, "seed": seed}


def evaluate(n_scenes: int, seed: int, sequences: int, memory: bool = True,
             flat: int = 0) -> dict[str, Any]:
    """Run the measurement and return its figures (see the module docstring; ``memory``: the
    tracking is told where each frame changed; ``flat``: scenes of the ``flat`` figure)."""
    from companion.tracking import Seen, change_picture, changed_fractions, diff
    from vision.read import Reader
    from vision.still import ChangedRegion

    if seed < HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"--seed {seed} is a training seed; layer figures use held-out "
                              f"seeds >= {HELD_OUT_SEED_MIN}")
    rd = Reader()
    c: Counter = Counter()
    t0 = time.perf_counter()
    layer_ms: list[float] = []
    for k in range(n_scenes):
        scene = render_scene(stacked_scene_spec(seed + k, held_out=True))
        geom = Geometry.from_truth(scene.truth)
        reading = rd.read(scene.image_bgr, scene.truth["set_max"])
        layer_ms.append(reading.timings_ms.get("layers", 0.0))
        calibrated = rd.read(scene.image_bgr, scene.truth["set_max"], geometry=geom)
        found = [t for t in reading.tiles if not t.cut]
        found_g = [t for t in calibrated.tiles if not t.cut]
        plain = _without_learned(scene.image_bgr, reading)
        found_p = [t for t, keep in zip(plain, reading.tiles) if not keep.cut]
        truth = _must_report(scene.truth)
        for t in truth:
            c[f"cold_truth_layer{t['layer']}"] += 1
        c["cold_truth"] += len(truth)
        c["cold_detections"] += len(found)
        for t, j in match_found(truth, [np.array(f.corners) for f in found]):
            L = t["layer"]
            c["cold_found"] += 1
            c[f"cold_found_layer{L}"] += 1
            ok = int(found[j].layer == L)
            c["cold_image_ok"] += ok
            c[f"cold_image_ok_layer{L}"] += ok
            c["cold_plain_ok"] += int(found_p[j] == L)
            c["cold_learned"] += int(found[j].layer_cue == "learned")
            c["cold_learned_ok"] += int(found[j].layer_cue == "learned") * ok
            # the calibrated read finds the same quads (detection does not use the geometry)
            if j < len(found_g) and np.allclose(found_g[j].corners, found[j].corners):
                okg = int(found_g[j].layer == L)
                c["cold_geometry_ok"] += okg
                c[f"cold_geometry_ok_layer{L}"] += okg
                c[f"cold_geometry_cue_{found_g[j].layer_cue}"] += 1
                c[f"cold_geometry_cue_{found_g[j].layer_cue}_ok"] += okg
    for k in range(sequences):
        frames = stack_sequence(seed + 5000 + k, held_out=True)
        table: list[Seen] = []
        table_plain: list[Seen] = []
        previous: np.ndarray | None = None
        for fr in frames:
            scene = render_scene(fr.spec)
            # as the live loop reads: the learned cue only while nothing is known on the table
            cold = not table
            reading = rd.read(scene.image_bgr, scene.truth["set_max"], learned_layers=cold)
            seen = [Seen.from_reading(t) for t in reading.tiles
                    if not t.cut and t.tile is not None]
            # without the cue: estimated again only where the reading used it
            plain_layers = (_without_learned(scene.image_bgr, reading) if cold
                            else [t.layer for t in reading.tiles])
            seen_plain = [dataclasses.replace(Seen.from_reading(t), layer=layer) for t, layer
                          in zip(reading.tiles, plain_layers)
                          if not t.cut and t.tile is not None]
            picture = change_picture(scene.image_bgr)
            changed = None
            if memory and previous is not None:
                size = (scene.image_bgr.shape[1], scene.image_bgr.shape[0])
                changed = changed_fractions(ChangedRegion(previous, picture, size, CHANGE_DELTA))
            previous = picture
            change = diff(table, seen, changed=changed, fixed=True)
            table = change.table
            c["all_removed"] += len(change.removed)
            c["all_unread"] += len(change.unread)
            c["all_unread_covered"] += sum(_covered_in_truth(np.array(u.corners),
                                                             scene.truth["tiles"])
                                           for u in change.unread)
            c["all_replaced"] += len(change.replaced)
            for old, new in change.replaced:
                c["all_replaced_right"] += shown_not_there([new], scene.truth["tiles"]) == (0, 0)
                c["all_replaced_was_wrong"] += shown_not_there([old], scene.truth["tiles"]) != (0, 0)
            table_plain = diff(table_plain, seen_plain, changed=changed, fixed=True).table
            keys = ["all"] + (["last"] if fr is frames[-1] else [])
            truth = _must_report(scene.truth)
            for key in keys:
                c[f"{key}_truth"] += len(truth)
                for t in truth:
                    c[f"{key}_truth_layer{t['layer']}"] += 1
            shown = [s for s in table if not s.hidden]
            nowhere, wrong = shown_not_there(shown, scene.truth["tiles"])
            for key in keys:
                c[f"{key}_shown"] += len(shown)
                c[f"{key}_nowhere"] += nowhere
                c[f"{key}_wrong_value"] += wrong
            for t, j in match_found(truth, [np.array(s.corners) for s in shown]):
                L = t["layer"]
                ok = int(shown[j].layer == L)
                inferred = int(shown[j].inferred_under > 0)
                for key in keys:
                    c[f"{key}_found"] += 1
                    c[f"{key}_found_layer{L}"] += 1
                    c[f"{key}_ok"] += ok
                    c[f"{key}_ok_layer{L}"] += ok
                    c[f"{key}_inferred"] += inferred
                    c[f"{key}_inferred_ok"] += inferred * ok
            shown_p = [s for s in table_plain if not s.hidden]
            for t, j in match_found(truth, [np.array(s.corners) for s in shown_p]):
                for key in keys:
                    c[f"{key}_plain_ok"] += int(shown_p[j].layer == t["layer"])
            if fr is frames[-1]:  # the same last frames, the reader's cold-start layers only
                for t, j in match_found(truth, [np.array(s.corners) for s in seen]):
                    c["last_cold_ok"] += int(seen[j].layer == t["layer"])
    out: dict[str, Any] = {"scenes": n_scenes, "sequences": sequences, "seed": seed,
                           "memory": memory}
    if n_scenes:
        out["cold"] = {
            "must_report": c["cold_truth"], "found": c["cold_found"],
            "detections": c["cold_detections"],
            "found_per_layer": _per_layer(c, "cold", "found"),
            "image_right": c["cold_image_ok"],
            "image_accuracy_on_found": round(c["cold_image_ok"] / max(1, c["cold_found"]), 4),
            "image_right_per_layer": _per_layer(c, "cold", "image_ok"),
            "image_right_without_learned": c["cold_plain_ok"],
            "learned_decided": f"{c['cold_learned_ok']}/{c['cold_learned']} right",
            "geometry_right": c["cold_geometry_ok"],
            "geometry_accuracy_on_found": round(c["cold_geometry_ok"]
                                                / max(1, c["cold_found"]), 4),
            "geometry_right_per_layer": _per_layer(c, "cold", "geometry_ok"),
            "geometry_decided": {cue: f"{c[f'cold_geometry_cue_{cue}_ok']}/"
                                      f"{c[f'cold_geometry_cue_{cue}']} right"
                                 for cue in CUES if c[f"cold_geometry_cue_{cue}"]},
            "layers_ms_median": round(float(np.median(layer_ms)), 1)}
    if sequences:
        out["watched"] = {
            key: {"must_report": c[f"{key}_truth"], "found": c[f"{key}_found"],
                  "found_per_layer": _per_layer(c, key, "found"),
                  "layer_right": c[f"{key}_ok"],
                  "accuracy_on_found": round(c[f"{key}_ok"] / max(1, c[f"{key}_found"]), 4),
                  "right_per_layer": _per_layer(c, key, "ok"),
                  "layer_right_without_learned": c[f"{key}_plain_ok"],
                  "inferred": f"{c[f'{key}_inferred_ok']}/{c[f'{key}_inferred']}",
                  "shown": c[f"{key}_shown"], "where_no_tile": c[f"{key}_nowhere"],
                  "value_not_there": c[f"{key}_wrong_value"]}
            for key in ("last", "all")}
        out["watched"]["last"]["cold_right_same_frames"] = c["last_cold_ok"]
        out["watched"]["all"]["removed"] = c["all_removed"]
        out["watched"]["all"]["unread"] = c["all_unread"]
        out["watched"]["all"]["unread_covered"] = c["all_unread_covered"]
        out["watched"]["all"]["replaced"] = c["all_replaced"]
        out["watched"]["all"]["replaced_right"] = c["all_replaced_right"]
        out["watched"]["all"]["replaced_was_wrong"] = c["all_replaced_was_wrong"]
    if flat:
        out["flat"] = flat_lifted(flat)
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.render.layerlive",
                                description=__doc__.splitlines()[0])
    p.add_argument("--scenes", type=int, default=40, help="stacked scenes (default 40)")
    p.add_argument("--sequences", type=int, default=10,
                   help="build sequences read frame by frame (default 10)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"first held-out seed (default {DEFAULT_SEED})")
    p.add_argument("--flat", type=int, default=0,
                   help=f"held-out flat scenes (from {FLAT_SEED}) whose tiles put above the "
                        "table are counted, without and with the camera (default 0)")
    p.add_argument("--no-memory", action="store_true",
                   help="follow the sequences without the tracking's memory (not told where "
                        "each frame changed)")
    a = p.parse_args(argv)
    if a.scenes < 0 or a.sequences < 0 or a.flat < 0 or a.scenes + a.sequences + a.flat == 0:
        p.error(f"--scenes {a.scenes} / --sequences {a.sequences} / --flat {a.flat}: expected "
                "counts >= 0, not all 0")
    print(json.dumps(evaluate(a.scenes, a.seed, a.sequences, memory=not a.no_memory,
                              flat=a.flat), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
