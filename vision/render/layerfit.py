"""Fit the weights of the picture cue of :mod:`vision.layers` (:data:`vision.layers.PICTURE_WEIGHTS`)
on rendered stacked scenes of TRAINING seeds.

Every pair of tiles whose quads overlap and whose true layers differ gives one example per
outline noise level: the picture features of "the first lies above the second"
(:func:`vision.layers.picture_features`, with the true corners moved at random by that many
pixels) and whether it does. A logistic regression without intercept (the features change sign
when the tiles are swapped) is fitted by Newton's method with an L2 penalty; the weights are
printed as the Python literal to paste into :data:`vision.layers.PICTURE_WEIGHTS`, with the
fit's accuracy per noise level.

``python -m vision.render.layerfit [--seed 200] [--scenes 80] [--jitter 0,0.5,1,2,3]``
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import cv2
import numpy as np

from vision.layers import _blurred, _convex, _overlap, picture_features
from vision.render.errors import RenderSpecError
from vision.render.sampling import HELD_OUT_SEED_MIN
from vision.render.scene import render_scene
from vision.render.stacking import stacked_scene_spec


def overlapping_pairs(quads: list[np.ndarray]) -> list[tuple[int, int]]:
    """The pairs of quads that overlap as :func:`vision.layers.estimate_layers` counts them."""
    areas = [cv2.contourArea(_convex(q)) for q in quads]
    n = len(quads)
    return [(i, j) for i in range(n) for j in range(i + 1, n)
            if _overlap(quads[i], quads[j])[0] > max(6.0, 0.01 * min(areas[i], areas[j]))]


def examples(image_bgr: np.ndarray, truth: dict[str, Any], jitter: float,
             rng: np.random.Generator) -> tuple[list[np.ndarray], list[float]]:
    """Picture features and labels (1: the first tile lies higher) of one rendered scene's
    overlapping pairs on different layers, corners moved by ``jitter`` px (normal, per axis)."""
    tiles = [t for t in truth["tiles"] if t["visible"] > 0]
    quads = [np.asarray(t["corners"], np.float64) + rng.normal(0.0, jitter, (4, 2))
             for t in tiles]
    img = _blurred(image_bgr)
    X, y = [], []
    for i, j in overlapping_pairs(quads):
        if tiles[i]["layer"] == tiles[j]["layer"]:
            continue
        top = max(tiles[i]["layer"], tiles[j]["layer"])
        # as the estimator's second pass: stretches under a tile above both are left out
        third = [quads[k] for k in range(len(quads)) if tiles[k]["layer"] > top
                 and _overlap(quads[k], quads[i])[0] + _overlap(quads[k], quads[j])[0] > 0]
        f, _ = picture_features(img, quads[i], quads[j], third)
        X.append(f)
        y.append(float(tiles[i]["layer"] > tiles[j]["layer"]))
    return X, y


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 10.0, steps: int = 30
                 ) -> np.ndarray:
    """Weights ``w`` of ``P(y = 1) = 1 / (1 + exp(-X w))`` (no intercept), L2 penalty ``l2``."""
    if X.ndim != 2 or len(X) != len(y) or not len(y):
        raise RenderSpecError(f"fit_logistic: expected X (n, d) and y (n,) with n > 0, got "
                              f"{X.shape} and {y.shape}")
    # each pair in both orders: the fit is told the features are antisymmetric
    X = np.concatenate([X, -X])
    y = np.concatenate([y, 1.0 - y])
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(X @ w, -30, 30)))
        grad = X.T @ (p - y) + l2 * w
        hess = (X * (p * (1 - p))[:, None]).T @ X + l2 * np.eye(len(w))
        w = w - np.linalg.solve(hess, grad)
    return w


def fit(seed: int, n_scenes: int, jitters: list[float], l2: float = 10.0) -> dict[str, Any]:
    """Render ``n_scenes`` training scenes from ``seed``, fit, and return the weights and the
    training accuracy per jitter."""
    if seed < 0 or seed + n_scenes > HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"--seed {seed} --scenes {n_scenes}: the picture cue is fitted on "
                              f"training seeds only (0..{HELD_OUT_SEED_MIN - 1})")
    if n_scenes < 1 or not jitters or any(not (j >= 0) for j in jitters):
        raise RenderSpecError(f"--scenes {n_scenes} --jitter {jitters}: expected at least one "
                              "scene and noise levels >= 0 px")
    t0 = time.perf_counter()
    X: list[np.ndarray] = []
    y: list[float] = []
    level: list[float] = []
    for k in range(n_scenes):
        scene = render_scene(stacked_scene_spec(seed + k))
        for jit in jitters:
            xs, ys = examples(scene.image_bgr, scene.truth, jit,
                              np.random.default_rng((seed + k, 7, int(jit * 100))))
            X += xs
            y += ys
            level += [jit] * len(ys)
    Xa, ya, la = np.array(X), np.array(y), np.array(level)
    w = fit_logistic(Xa, ya, l2)
    acc = {str(j): round(float(((Xa[la == j] @ w > 0) == (ya[la == j] > 0.5)).mean()), 4)
           for j in jitters}
    return {"seed": seed, "scenes": n_scenes, "pairs": len(ya), "l2": l2,
            "train_accuracy": acc, "weights": [round(float(v), 3) for v in w],
            "wall_s": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.render.layerfit", description=__doc__)
    p.add_argument("--seed", type=int, default=200, help="first training seed (default 200)")
    p.add_argument("--scenes", type=int, default=80, help="stacked scenes (default 80)")
    p.add_argument("--jitter", default="0,0.5,1,2,3",
                   help="outline noise levels in px, comma-separated (default 0,0.5,1,2,3)")
    p.add_argument("--l2", type=float, default=10.0, help="L2 penalty (default 10)")
    a = p.parse_args(argv)
    try:
        jitters = [float(v) for v in a.jitter.split(",")]
    except ValueError:
        raise RenderSpecError(f"--jitter {a.jitter!r}: expected numbers like 0,0.5,1,2") from None
    print(json.dumps(fit(a.seed, a.scenes, jitters, a.l2)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
