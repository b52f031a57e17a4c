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

``--walls``: measure whether the side walls under a tile say its layer (a diagnosis; the
estimator does not use it): on each training scene the real reader
(:class:`vision.read.Reader`) finds the tiles, each found tile matched to a tile it must
report (IoU >= 0.5) gives :func:`wall_features` with the scene's camera and its true layer
(0..3); a softmax regression (gradient descent on standardized features, L2 penalty) is
fitted on the first ``--fit-share`` of the tiles and checked on the rest (lone tiles: no
other found tile overlaps them), with how many a threshold on "on the table" lifts.
``--flat-scenes N`` adds the tiles of N flat training scenes (all on the table).

Measured (2026-11-22, the scene's camera given; figures at "on the table" < 0.05):
``--walls --seed 200 --scenes 400``: of 321 lone tiles checked it lifts 72, 22 onto their true
layer, 4 of 76 table tiles (0.02: 24, 9, 1; 0.1: 123, 40, 4). ``... --flat-scenes 120``: of
563 lone tiles it lifts 22, 7 right, 2 of 335 table tiles. Wired into the estimator (a lone
tile put on the table lifted to the model's layer), the stacked-only model (fitted on the
first 60 % of the tiles in scene order) put held-out stacked tiles right 31 -> 37 of 136
(``vision.render.layerlive``, geometry figure) but lifted 44 of 1033 tiles of flat training
scenes 200-259; the model with flat scenes 31 -> 33, and lifted 5 of 630 tiles of held-out
flat scenes (3 of 689 on training ones even with no other tile within half a tile width).
So the cue stays out of :mod:`vision.layers`.

``--around``: measure whether the picture around a found tile says it rests on something the
reader did not find (a diagnosis; the estimator does not use it): :func:`around_features` of
the reader's tiles on ``--scenes`` stacked and ``--flat-scenes`` flat training scenes, also
less their scene's median (most found tiles lie on the table); a two-class softmax fitted on
the scenes of one seed parity and checked on the other, counting what lifting the tiles the
estimator leaves on the table to layer 1 would do. Measured (2026-11-22, image only, the
reader's tiles; ``--around --seed 200 --scenes 80 --flat-seed 200 --flat-scenes 60``): of
1483 matched tiles (257 raised, 1004 on flat scenes) "rests on something" > 0.95 lifts 16,
all raised but only 5 of them onto their true layer (the support is a layer 0, 1 or 2 tile
the reader missed: 6 of 121 supports of raised held-out tiles are found), no table tile;
tiles right 1217 -> 1222; at 0.9 it lifts 41 (35 raised, 9 onto the true layer, 6 table
tiles). A scratch variant (Newton fit, L2 1) fitted on these tiles and applied to held-out
scenes (stacked 1000100-139, flat 1000200-239) lifted 18 at 0.95: 14 raised, 4 onto the true
layer, 2 of 613 flat tiles: tiles right 703 -> 703 of 814. The face probability of the tile
finder around the tile in place of the colours separated worse (tuning, 0.95: 15 raised, 6
table tiles lifted). So it stays out of :mod:`vision.layers`: without the support's height
the layer of a lifted tile is right about a third of the time.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from vision.layers import (
    Geometry,
    _blurred,
    _convex,
    _inside,
    _overlap,
    _sample,
    picture_features,
)
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


# --- the side walls under a lone tile (a diagnosis: not used by the estimator) ---------------

#: Offsets (in tile thicknesses as the camera sees them at the tile) at which the picture is
#: sampled below a tile's edge facing the camera (:func:`wall_features`).
WALL_OFFSETS = np.arange(0.25, 7.0 + 1e-9, 0.25)
#: A tile's edge faces the camera enough to show its wall when its outward normal and the
#: picture's "down" (where a point one thickness lower lies) agree by this cosine or more.
WALL_FACING_COS = 0.3
#: Fewest pixels one tile thickness must span at the tile for its wall band to be read.
WALL_MIN_PX = 2.0
#: Fewest edge points (of 7) whose rays below the edge stay clear of other found tiles.
WALL_MIN_POINTS = 3
#: Thresholds on "on the table" at which the check counts what the wall model would lift.
WALL_CHECK_THRESHOLDS = (0.02, 0.05, 0.1)


def wall_features(frame_bgr: np.ndarray, q: np.ndarray, others: Sequence[np.ndarray],
                  geometry: Geometry) -> np.ndarray | None:
    """What the picture shows below tile ``q``'s edge that faces the camera most, along the
    picture's "down" there (where the calibrated camera puts a point one tile thickness lower):
    the stack under a raised tile shows its side walls for (layer + 1) thicknesses, then the
    table. Sampled at :data:`WALL_OFFSETS` thicknesses from 7 points along that edge (rays that
    run into one of ``others``, the other found tiles, are left out): the median colour distance
    to the far end (the table) relative to its first samples, to the tile's face relative to how
    far face and table differ, brightness against the table; then the log of the first
    distance, of the face-table difference and of one thickness in pixels, and 1. ``None`` when
    no edge faces the camera, a thickness spans under :data:`WALL_MIN_PX` pixels (a camera
    straight above) or fewer than :data:`WALL_MIN_POINTS` rays stay clear."""
    T = geometry.tile_mm[2]
    H0 = geometry.plane_homography(0.0)
    Ht_inv = np.linalg.inv(geometry.plane_homography(T))
    ctr = q.mean(0)
    best: tuple[float, np.ndarray, np.ndarray, np.ndarray] | None = None
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        e = b - a
        n = np.array([-e[1], e[0]]) / max(float(np.linalg.norm(e)), 1e-9)
        if np.dot(n, (a + b) / 2 - ctr) < 0:
            n = -n
        m = (a + b) / 2
        x = Ht_inv @ np.array([m[0], m[1], 1.0])
        y = H0 @ (x / x[2])
        down = y[:2] / y[2] - m
        cos = float(np.dot(n, down) / max(float(np.linalg.norm(down)), 1e-9))
        if best is None or cos > best[0]:
            best = (cos, a, e, down)
    assert best is not None
    cos, a, e, down = best
    t_px = float(np.linalg.norm(down))
    if cos < WALL_FACING_COS or t_px < WALL_MIN_PX:
        return None
    p = a + np.outer(np.linspace(0.2, 0.8, 7), e)
    rays = p[None] + (WALL_OFFSETS * t_px)[:, None, None] * (down / t_px)[None, None]
    ok = np.ones(len(p), bool)
    near = round(len(WALL_OFFSETS) * 5 / 7)  # the first 5 thicknesses
    for o in others:
        ins = _inside(o, rays.reshape(-1, 2), -1.0).reshape(len(WALL_OFFSETS), len(p))
        ok &= ~ins[:near].any(0)
    if ok.sum() < WALL_MIN_POINTS:
        return None
    v = _sample(frame_bgr, rays[:, ok].reshape(-1, 2)).astype(np.float64)
    v = v.reshape(len(WALL_OFFSETS), int(ok.sum()), 3)
    far = np.median(v[-3:], axis=(0, 1))
    d_far = np.median(np.abs(v - far).mean(2), 1)
    face = np.median(_sample(frame_bgr, np.vstack([ctr[None], ctr + 0.5 * (q - ctr)])), 0)
    d_face = np.median(np.abs(v - face).mean(2), 1)
    bright = np.median(v.mean(2), 1) - far.mean()
    top = max(float(d_far[:3].max()), 1.0)
    sep = max(float(np.abs(face - far).mean()), 1.0)
    return np.concatenate([d_far / top, d_face / sep, bright / 64.0,
                           [math.log(top) / 4, math.log(sep) / 4, math.log(t_px) / 2, 1.0]])


#: Flat layouts whose tiles teach the wall cue what a tile on the table looks like.
FLAT_LAYOUTS = ("line", "spinner", "chickenfoot", "trains", "grid", "loose")


def wall_examples(seed: int, n_scenes: int, flat: bool = False
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wall features, true layers and "lone" flags of the reader's found tiles on ``n_scenes``
    training scenes from ``seed`` (see the module docstring): stacked scenes, or with ``flat``
    scenes of :data:`FLAT_LAYOUTS` in turn (every tile on the table)."""
    from vision.layers import quad_iou
    from vision.read import Reader
    from vision.render.sampling import random_scene_spec

    rd = Reader()
    X, y, lone = [], [], []
    for k in range(n_scenes):
        spec = (random_scene_spec(seed + k, layout=FLAT_LAYOUTS[(seed + k) % len(FLAT_LAYOUTS)])
                if flat else stacked_scene_spec(seed + k))
        scene = render_scene(spec)
        geom = Geometry.from_truth(scene.truth)
        reading = rd.read(scene.image_bgr, scene.truth["set_max"])
        quads = [np.asarray(t.corners, np.float64) for t in reading.tiles if not t.cut]
        truth = [t for t in scene.truth["tiles"]
                 if not t["cut"] and t["face_up"] and t["visible"] >= 0.9]
        used: set[int] = set()
        for t in truth:
            tq = np.asarray(t["corners"], np.float64)
            best = max(((quad_iou(tq, q), j) for j, q in enumerate(quads) if j not in used),
                       default=(0.0, -1))
            if best[0] < 0.5:
                continue
            j = best[1]
            used.add(j)
            others = [q for m, q in enumerate(quads) if m != j]
            f = wall_features(scene.image_bgr, quads[j], others, geom)
            if f is None:
                continue
            X.append(f)
            y.append(int(t["layer"]))
            lone.append(not any(_overlap(quads[j], o)[0] > 6.0 for o in others))
    return np.array(X), np.array(y), np.array(lone, bool)


def fit_softmax(X: np.ndarray, y: np.ndarray, classes: int = 4, l2: float = 0.03,
                steps: int = 4000, rate: float = 0.2) -> tuple[np.ndarray, np.ndarray,
                                                              np.ndarray]:
    """Weights (d, classes), mean and scale of the standardized features (all but the last,
    the constant 1) of a softmax regression of ``y`` on ``X``."""
    if X.ndim != 2 or len(X) != len(y) or not len(y):
        raise RenderSpecError(f"fit_softmax: expected X (n, d) and y (n,) with n > 0, got "
                              f"{X.shape} and {y.shape}")
    mu = X[:, :-1].mean(0)
    sd = X[:, :-1].std(0) + 1e-6
    Z = X.copy()
    Z[:, :-1] = (Z[:, :-1] - mu) / sd
    Y = np.eye(classes)[y]
    W = np.zeros((X.shape[1], classes))
    for _ in range(steps):
        A = Z @ W
        A -= A.max(1, keepdims=True)
        P = np.exp(A)
        P /= P.sum(1, keepdims=True)
        W -= rate * (Z.T @ (P - Y) / len(Z) + l2 * W)
    return W, mu, sd


def fit_walls(seed: int, n_scenes: int, share: float = 0.6, flat_seed: int = 600,
              flat_scenes: int = 0) -> dict[str, Any]:
    """Fit and check the wall model on training scenes (see the module docstring):
    ``n_scenes`` stacked scenes from ``seed`` and ``flat_scenes`` flat ones from ``flat_seed``,
    their tiles in a seeded random order before the split into fit and check."""
    if seed < 0 or seed + n_scenes > HELD_OUT_SEED_MIN or flat_seed < 0 \
            or flat_seed + flat_scenes > HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"--seed {seed} --scenes {n_scenes} --flat-seed {flat_seed} "
                              f"--flat-scenes {flat_scenes}: the wall cue is fitted on training "
                              f"seeds only (0..{HELD_OUT_SEED_MIN - 1})")
    if not 0.0 < share <= 1.0:
        raise RenderSpecError(f"--fit-share {share}: expected a share in (0, 1]")
    t0 = time.perf_counter()
    X, y, lone = wall_examples(seed, n_scenes)
    if flat_scenes:
        Xf, yf, lf = wall_examples(flat_seed, flat_scenes, flat=True)
        X, y, lone = np.concatenate([X, Xf]), np.concatenate([y, yf]), np.concatenate([lone, lf])
    order = np.random.default_rng(seed).permutation(len(y))
    X, y, lone = X[order], y[order], lone[order]
    cut = max(1, int(share * len(y)))
    W, mu, sd = fit_softmax(X[:cut], y[:cut])
    Z = X[cut:].copy()
    Z[:, :-1] = (Z[:, :-1] - mu) / sd
    A = Z @ W
    P = np.exp(A - A.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    yv, lv = y[cut:], lone[cut:]
    check = {}
    for t in WALL_CHECK_THRESHOLDS:
        lift = (P[:, 0] < t) & lv
        up = 1 + P[:, 1:].argmax(1)
        check[str(t)] = {"lifted": int(lift.sum()), "right": int((lift & (up == yv)).sum()),
                         "table_tiles_lifted": f"{int((lift & (yv == 0)).sum())}/"
                                               f"{int((lv & (yv == 0)).sum())}"}
    def r3(a: np.ndarray) -> list[Any]:
        return np.round(a, 3).tolist()
    return {"seed": seed, "scenes": n_scenes, "flat_seed": flat_seed,
            "flat_scenes": flat_scenes, "tiles": len(y), "fitted_on": cut,
            "check_lone": int(lv.sum()), "check": check, "weights": r3(W), "mean": r3(mu),
            "scale": r3(sd), "wall_s": round(time.perf_counter() - t0, 1)}


# --- the picture around a found tile (a diagnosis: not used by the estimator) ------------------

#: Bands outward from a tile's outline (in tile widths) in which :func:`around_features`
#: compares the picture with the tile's face and the table.
AROUND_BANDS = ((0.05, 0.2), (0.2, 0.4), (0.4, 0.65), (0.65, 0.9))
#: Offsets (tile widths) of the samples of the bands, and of the far ring that gives the table.
AROUND_OFFSETS = np.arange(0.05, 0.9 + 1e-9, 0.05)
AROUND_FAR = np.arange(1.3, 1.8 + 1e-9, 0.25)
#: "Rests on something" thresholds the check counts lifts at.
AROUND_CHECK_THRESHOLDS = (0.9, 0.95, 0.98)


def around_features(img: np.ndarray, q: np.ndarray, others: Sequence[np.ndarray]) -> np.ndarray:
    """What lies around found tile ``q`` (``img``: the frame blurred as
    :func:`vision.layers._blurred` does; ``others``: the other found tiles, whose pixels are
    left out): per edge and band of :data:`AROUND_BANDS`, how much the picture looks like the
    tile's own face rather than the table (-1..1; the table from a ring 1.3-1.8 widths out) and
    how far it is from the table at all (0..2), then over the edges the weighted mean, the
    largest, second and smallest of each, the share of samples used per band, the log of the
    face-table contrast and of the tile's width, and 1. A raised tile whose support the reader
    missed shows the support's ends and walls there; a tile on the table shows its own wall and
    shadow, then the table."""
    c = q.mean(0)
    edges = []
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        e = b - a
        length = float(np.linalg.norm(e))
        n = np.array([-e[1], e[0]]) / max(length, 1e-9)
        if np.dot(n, (a + b) / 2 - c) < 0:
            n = -n
        edges.append((a, e, n, length))
    sides = sorted(x[3] for x in edges)
    width = (sides[0] + sides[1]) / 2
    u = np.linspace(0.15, 0.85, 7)
    grid = np.array([(1 - x) * (1 - y) * q[0] + x * (1 - y) * q[1] + x * y * q[2]
                     + (1 - x) * y * q[3] for x in u for y in u])
    face = np.median(_sample(img, grid), 0)

    def clear(pts: np.ndarray) -> np.ndarray:
        ex = np.zeros(len(pts), bool)
        for o in others:
            ex |= _inside(o, pts, -2.0)
        return ~ex

    rings, far = [], []
    for a, e, n, _ in edges:
        p = a + np.outer(np.linspace(0.15, 0.85, 7), e)
        pts = (p[None] + (AROUND_OFFSETS * width)[:, None, None] * n[None, None]).reshape(-1, 2)
        rings.append((_sample(img, pts).reshape(len(AROUND_OFFSETS), len(p), -1),
                      clear(pts).reshape(len(AROUND_OFFSETS), len(p))))
        fp = (p[None] + (AROUND_FAR * width)[:, None, None] * n[None, None]).reshape(-1, 2)
        ok = clear(fp)
        if ok.any():
            far.append(_sample(img, fp[ok]))
    table = np.median(np.concatenate(far), 0) if far else np.median(_sample(
        img, c + 2.0 * (q - c)), 0)
    sep = max(float(np.abs(face - table).mean()), 4.0)
    rows = []
    for v, ok in rings:
        d_face = np.abs(v - face).mean(2)
        d_table = np.abs(v - table).mean(2)
        like = np.clip((d_table - d_face) / sep, -1, 1)
        stuff = np.clip(d_table / sep, 0, 2)
        row = []
        for lo, hi in AROUND_BANDS:
            m = (AROUND_OFFSETS >= lo - 1e-9) & (AROUND_OFFSETS < hi - 1e-9)
            sel = ok[m]
            row += ([float(like[m][sel].mean()), float(stuff[m][sel].mean()), 1.0]
                    if sel.sum() >= 3 else [0.0, 0.0, 0.0])
        rows.append(row)
    E = np.array(rows)
    valid, like_e, stuff_e = E[:, 2::3], E[:, 0::3], E[:, 1::3]
    w = valid / np.maximum(valid.sum(0, keepdims=True), 1)

    def ranked(x: np.ndarray) -> np.ndarray:
        xs = -np.sort(-np.where(valid > 0, x, -9.0), 0)
        return np.where(xs > -9.0, xs, 0.0)

    rl, rs = ranked(like_e), ranked(stuff_e)
    return np.concatenate([(like_e * w).sum(0), (stuff_e * w).sum(0), rl[0], rl[1], rl[3],
                           rs[0], rs[1], rs[3], valid.mean(0),
                           [math.log(sep) / 4, math.log(max(width, 1.0)) / 4, 1.0]])


def around_examples(seed: int, n_scenes: int, flat: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`around_features` of the reader's found tiles on ``n_scenes`` training scenes from
    ``seed`` (stacked, or with ``flat`` scenes of :data:`FLAT_LAYOUTS` in turn), each with the
    same features less their median over the scene's found tiles (most lie on the table); the
    true layer of each matched tile (IoU >= 0.5; -1 unmatched), the layer the estimator gives
    it and its scene."""
    from vision.layers import READER_OUTLINE_PX, estimate_layers, quad_iou
    from vision.read import Reader
    from vision.render.sampling import random_scene_spec

    rd = Reader()
    X, y, est, scene_of = [], [], [], []
    for k in range(n_scenes):
        spec = (random_scene_spec(seed + k, layout=FLAT_LAYOUTS[(seed + k) % len(FLAT_LAYOUTS)])
                if flat else stacked_scene_spec(seed + k))
        scene = render_scene(spec)
        reading = rd.read(scene.image_bgr, scene.truth["set_max"])
        quads = [np.asarray(t.corners, np.float64) for t in reading.tiles]
        if not quads:
            continue
        layers = estimate_layers(scene.image_bgr, quads, outline_px=READER_OUTLINE_PX)
        img = _blurred(scene.image_bgr)
        truth = [t for t in scene.truth["tiles"] if t["visible"] > 0]
        feats, labels, mine = [], [], []
        for j, q in enumerate(quads):
            if reading.tiles[j].cut:
                continue
            feats.append(around_features(img, q, [o for m, o in enumerate(quads) if m != j]))
            best = max(((quad_iou(np.asarray(t["corners"], np.float64), q), int(t["layer"]))
                        for t in truth), default=(0.0, -1))
            labels.append(best[1] if best[0] >= 0.5 else -1)
            mine.append(layers[j].layer)
        if not feats:
            continue
        F = np.array(feats)
        X += list(np.concatenate([F[:, :-1], F[:, :-1] - np.median(F[:, :-1], 0), F[:, -1:]], 1))
        y += labels
        est += mine
        scene_of += [seed + k] * len(labels)
    return np.array(X), np.array(y), np.array(est), np.array(scene_of)


def fit_around(seed: int, n_scenes: int, flat_seed: int, flat_scenes: int) -> dict[str, Any]:
    """Fit "rests on something" (true layer >= 1) on the around features of the reader's tiles
    of ``n_scenes`` stacked and ``flat_scenes`` flat training scenes, twice, each time on the
    scenes of one seed parity, checked on the other; count at :data:`AROUND_CHECK_THRESHOLDS`
    what lifting the tiles the estimator leaves on the table would do (layer 1)."""
    if seed < 0 or seed + n_scenes > HELD_OUT_SEED_MIN or flat_seed < 0 \
            or flat_seed + flat_scenes > HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"--seed {seed} --scenes {n_scenes} --flat-seed {flat_seed} "
                              f"--flat-scenes {flat_scenes}: the around cue is fitted on "
                              f"training seeds only (0..{HELD_OUT_SEED_MIN - 1})")
    t0 = time.perf_counter()
    X, y, est, sc = around_examples(seed, n_scenes)
    is_flat = np.zeros(len(y), bool)
    if flat_scenes:
        Xf, yf, ef, sf = around_examples(flat_seed, flat_scenes, flat=True)
        X, y, est, sc = (np.concatenate([X, Xf]), np.concatenate([y, yf]),
                         np.concatenate([est, ef]), np.concatenate([sc, sf]))
        is_flat = np.concatenate([is_flat, np.ones(len(yf), bool)])
    keep = y >= 0
    X, y, est, sc, is_flat = X[keep], y[keep], est[keep], sc[keep], is_flat[keep]
    raised = (y > 0).astype(int)
    P = np.zeros(len(y))
    for parity in (0, 1):
        fit_on = sc % 2 != parity
        W, mu, sd = fit_softmax(X[fit_on], raised[fit_on], classes=2)
        Z = X[~fit_on].copy()
        Z[:, :-1] = (Z[:, :-1] - mu) / sd
        A = Z @ W
        P[~fit_on] = 1.0 / (1.0 + np.exp(-(A[:, 1] - A[:, 0])))
    check = {}
    for t in AROUND_CHECK_THRESHOLDS:
        lift = (P > t) & (est == 0)
        check[str(t)] = {"lifted": int(lift.sum()), "raised": int((lift & (y > 0)).sum()),
                         "onto_true_layer": int((lift & (y == 1)).sum()),
                         "table_tiles_lifted_stacked": int((lift & (y == 0) & ~is_flat).sum()),
                         "table_tiles_lifted_flat": int((lift & is_flat).sum()),
                         "tiles_right": f"{int((est == y).sum())} -> "
                                        f"{int((np.where(lift, 1, est) == y).sum())}"}
    return {"seed": seed, "scenes": n_scenes, "flat_seed": flat_seed,
            "flat_scenes": flat_scenes, "tiles": len(y), "raised": int(raised.sum()),
            "flat_tiles": int(is_flat.sum()), "check": check,
            "wall_s": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.render.layerfit", description=__doc__)
    p.add_argument("--seed", type=int, default=200, help="first training seed (default 200)")
    p.add_argument("--scenes", type=int, default=80, help="stacked scenes (default 80)")
    p.add_argument("--jitter", default="0,0.5,1,2,3",
                   help="outline noise levels in px, comma-separated (default 0,0.5,1,2,3)")
    p.add_argument("--l2", type=float, default=10.0, help="L2 penalty (default 10)")
    p.add_argument("--walls", action="store_true",
                   help="measure the wall cue (real reader's outlines) instead of fitting the "
                        "picture cue")
    p.add_argument("--around", action="store_true",
                   help="measure the around cue (the picture around the reader's tiles) instead "
                        "of fitting the picture cue")
    p.add_argument("--fit-share", type=float, default=0.6,
                   help="--walls: share of the tiles fitted on, the rest checked (default 0.6)")
    p.add_argument("--flat-seed", type=int, default=600,
                   help="--walls / --around: first flat training scene (default 600)")
    p.add_argument("--flat-scenes", type=int, default=0,
                   help="--walls / --around: flat scenes whose tiles are added as table tiles "
                        "(default 0)")
    a = p.parse_args(argv)
    if a.around:
        print(json.dumps(fit_around(a.seed, a.scenes, a.flat_seed, a.flat_scenes)))
        return 0
    if a.walls:
        print(json.dumps(fit_walls(a.seed, a.scenes, a.fit_share, a.flat_seed, a.flat_scenes)))
        return 0
    try:
        jitters = [float(v) for v in a.jitter.split(",")]
    except ValueError:
        raise RenderSpecError(f"--jitter {a.jitter!r}: expected numbers like 0,0.5,1,2") from None
    print(json.dumps(fit(a.seed, a.scenes, jitters, a.l2)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
