"""Training crops for the tile finder (``tile_finder.onnx``), drawn only by the project's renderer.

Each sample is a ``CROP`` x ``CROP`` BGR crop of a rendered picture, at the scale the finder
works at (see :mod:`vision.tile_finder`), and three target planes at half that resolution:

- ``kernel``: the visible top face of every face-up tile shrunk about its centre to
  ``vision.tile_finder.KERNEL_SHRINK`` of its length and width (touching tiles give separate
  blobs);
- ``face``: the whole visible top face of every face-up tile;
- ``weight``: where the loss counts (0 over face-up tiles that are mostly hidden, whose truth is
  ambiguous, and over padding).

Face-down tiles, hands, markers and table decorations are background. Which tile shows at a
pixel is worked out from the ground truth: top faces painted lower layers first and far to near
within a layer, face-down tiles included, then the hands over everything.

Scenes come from :func:`vision.render.random_scene_spec` (training seeds < 1,000,000 and training
looks only, or held-out seeds and looks for validation), a part of them pinned to stacking
games (tiles on tiles), close-ups of single tiles from :func:`vision.render.closeup.render_closeup`
(as the real single-tile phone photos are) and, when asked for, close-ups of small pale tiles
from :func:`vision.render.closeup.render_small_closeup` (drawn small and enlarged as the reader
enlarges small photos). Every sample is drawn from its own generator
``np.random.default_rng((run_seed, split, index))``.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import sys
import time
from dataclasses import dataclass

import cv2
import numpy as np

from companion.tiles import Tile
from vision.render import HELD_OUT_SEED_MIN, random_scene_spec, render_scene
from vision.render.closeup import (PHONE_TABLES, render_closeup, render_phone_closeup,
                                   render_small_closeup)
from vision.render.scene import SceneSpec
from vision.tile_finder import CLOSE_UP_SIDE, KERNEL_SHRINK, WORK_SIDE

#: Side of a training crop, input pixels (the targets are half of it).
CROP = 192
#: Seeds of close-ups start here (training close-ups: this + index; held-out: + 1,000,000).
CLOSEUP_SEED0 = 500_000
#: Seeds of small-tile close-ups start here (training: this + index; held-out: + 1,000,000).
SMALL_CLOSEUP_SEED0 = 700_000
#: Small-tile close-ups are drawn this small (px, least and greatest side) and enlarged to the
#: finder's close-up side, as the reader enlarges a small phone photo.
SMALL_DRAWN = (80, 192)
#: Seeds of phone close-ups of one tile start here (training: this + index; held-out:
#: + 1,000,000).
PHONE_CLOSEUP_SEED0 = 800_000
#: Phone close-ups are drawn this small (px, least and greatest side; real phone thumbnails are
#: 100 px) and enlarged to the finder's close-up side, as the reader enlarges a small photo.
PHONE_DRAWN = (88, 128)
#: Tables of training phone close-ups: all but the held-out stone look.
PHONE_TRAIN_TABLES = tuple(t for t in PHONE_TABLES if t != "stone")
#: Targets are drawn this many times finer than the crop and averaged down.
SUPER = 4
#: A face-up tile at least this visible is a tile to find; less visible ones are not scored.
MIN_VISIBLE = 0.6


@dataclass(frozen=True)
class Samples:
    """Crops ``(N, CROP, CROP, 3)`` uint8 and targets ``(N, 3, CROP/2, CROP/2)`` uint8
    (kernel, face, weight; 0..255)."""

    images: np.ndarray
    targets: np.ndarray

    def __len__(self) -> int:
        return len(self.images)


def _depth_order(tiles: list[dict], camera: dict) -> list[int]:
    """Tile indices in drawing order: lower layers first, far to near within a layer."""
    cx, cy = camera["center_mm"][0], camera["center_mm"][1]
    def key(i: int) -> tuple[int, float]:
        x, y = tiles[i]["table_mm"]["center"]
        return tiles[i]["layer"], -math.hypot(x - cx, y - cy)
    return sorted(range(len(tiles)), key=key)


def _shrunk(corners: np.ndarray, factor: float) -> np.ndarray:
    c = corners.mean(axis=0)
    return c + (corners - c) * factor


def rasterise(tiles: list[dict], order: list[int], hands: list[np.ndarray], to_crop, size: tuple[int, int]
              ) -> np.ndarray:
    """Kernel, face and weight planes (uint8 0..255, the fraction of each pixel covered;
    ``size`` = (w, h)) of ``tiles`` under the map ``to_crop`` (points (N, 2) in picture pixels
    -> crop pixels)."""
    w, h = size[0] * SUPER, size[1] * SUPER
    shift = 4
    ids = np.full((h, w), -1, np.int32)

    def poly(pts: np.ndarray) -> np.ndarray:
        # OpenCV fills every pixel whose centre is on or inside the outline, a pixel too many
        # across; drawn SUPER times finer and averaged down, that is 1/SUPER px.
        fine = (to_crop(pts) + 0.5) * SUPER - 0.5
        return np.round(fine * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)

    for i in order:
        cv2.fillPoly(ids, [poly(np.asarray(tiles[i]["corners"], np.float64))], int(i),
                     lineType=cv2.LINE_8, shift=shift)
    for hand in hands:
        if len(hand) >= 3:
            cv2.fillPoly(ids, [poly(np.asarray(hand, np.float64))], -2, shift=shift)
    kernel = np.zeros((h, w), np.uint8)
    face = np.zeros((h, w), np.uint8)
    weight = np.full((h, w), 255, np.uint8)
    for i, t in enumerate(tiles):
        if not t.get("face_up"):
            continue
        own = ids == i
        if float(t.get("visible", 0.0)) < MIN_VISIBLE and not t.get("cut"):
            weight[own] = 0
            continue
        face[own] = 255
        k = np.zeros((h, w), np.uint8)
        cv2.fillPoly(k, [poly(_shrunk(np.asarray(t["corners"], np.float64), KERNEL_SHRINK))], 255,
                     shift=shift)
        kernel[(k > 0) & own] = 255
    return np.stack([cv2.resize(p, size, interpolation=cv2.INTER_AREA)
                     for p in (kernel, face, weight)])


def _half(planes: np.ndarray) -> np.ndarray:
    """Planes at half resolution (area average: soft targets at the edges)."""
    return np.stack([cv2.resize(p, (p.shape[1] // 2, p.shape[0] // 2), interpolation=cv2.INTER_AREA)
                     for p in planes])


def scene_samples(image_bgr: np.ndarray, truth: dict, rng: np.random.Generator, crops: int
                  ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``crops`` samples of one rendered scene: the picture scaled as the finder scales it
    (with a random factor of 0.7..1.45 on top), cut at a tile (most crops) or anywhere."""
    tiles = truth["tiles"]
    order = _depth_order(tiles, truth["camera"])
    hands = [np.asarray(p, np.float64) for p in truth.get("hands", [])]
    h0, w0 = image_bgr.shape[:2]
    wanted = [t for t in tiles if t.get("face_up") and t.get("visible", 0) >= MIN_VISIBLE]
    out = []
    for _ in range(crops):
        s = WORK_SIDE / max(h0, w0) * math.exp(rng.uniform(math.log(0.7), math.log(1.45)))
        sw, sh = max(1, round(w0 * s)), max(1, round(h0 * s))
        img = cv2.resize(image_bgr, (sw, sh), interpolation=cv2.INTER_AREA)
        if wanted and rng.random() < 0.8:
            c = np.asarray(wanted[int(rng.integers(len(wanted)))]["center"]) * s
            c = c + rng.uniform(-0.4, 0.4, 2) * CROP
        else:
            c = np.array([rng.uniform(0, sw), rng.uniform(0, sh)])
        x0 = int(round(min(max(c[0] - CROP / 2, 0), max(sw - CROP, 0))))
        y0 = int(round(min(max(c[1] - CROP / 2, 0), max(sh - CROP, 0))))
        crop = np.zeros((CROP, CROP, 3), np.uint8)
        part = img[y0:y0 + CROP, x0:x0 + CROP]
        crop[:part.shape[0], :part.shape[1]] = part
        sx, sy = sw / w0, sh / h0

        def to_crop(pts: np.ndarray, sx=sx, sy=sy, x0=x0, y0=y0) -> np.ndarray:
            return (pts + 0.5) * (sx, sy) - 0.5 - (x0, y0)

        planes = rasterise(tiles, order, hands, to_crop, (CROP, CROP))
        if part.shape[0] < CROP or part.shape[1] < CROP:  # padding: reflect, not scored
            crop = cv2.copyMakeBorder(part, 0, CROP - part.shape[0], 0, CROP - part.shape[1],
                                      cv2.BORDER_REFLECT_101)
            planes[2, part.shape[0]:, :] = 0
            planes[2, :, part.shape[1]:] = 0
        out.append((crop, _half(planes)))
    return out


def closeup_sample(seed: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One close-up of a single tile at the side the finder gives small photos
    (:data:`vision.tile_finder.CLOSE_UP_SIDE`), drawn smaller now and then and padded."""
    side = CLOSE_UP_SIDE if rng.random() < 0.6 else int(rng.integers(CLOSE_UP_SIDE // 2, CLOSE_UP_SIDE))
    shot = render_closeup(seed, size=side)
    corners = shot.corners
    tile = {"corners": corners.tolist(), "face_up": True, "visible": 1.0, "cut": False}
    planes = rasterise([tile], [0], [], lambda p: p, (side, side))
    img = shot.image_bgr
    if side < CROP:
        pad = CROP - side
        ox, oy = int(rng.integers(0, pad + 1)), int(rng.integers(0, pad + 1))
        img = cv2.copyMakeBorder(img, oy, pad - oy, ox, pad - ox, cv2.BORDER_REFLECT_101)
        full = np.zeros((3, CROP, CROP), np.uint8)
        full[:, oy:oy + side, ox:ox + side] = planes
        planes = full
    elif side > CROP:
        raise ValueError(f"close-up side {side} is larger than the crop {CROP}")
    return img, _half(planes)


def small_closeup_sample(seed: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One close-up of small pale tiles (:func:`vision.render.closeup.render_small_closeup`),
    drawn :data:`SMALL_DRAWN` px and enlarged (cubic) to the close-up side
    :data:`vision.tile_finder.CLOSE_UP_SIDE`, the crop's size."""
    if CLOSE_UP_SIDE != CROP:
        raise ValueError(f"the close-up side {CLOSE_UP_SIDE} is not the crop {CROP}")
    drawn = int(rng.integers(SMALL_DRAWN[0], SMALL_DRAWN[1] + 1))
    shot = render_small_closeup(seed, size=drawn)
    img = shot.image_bgr
    if drawn != CROP:
        img = cv2.resize(img, (CROP, CROP), interpolation=cv2.INTER_CUBIC)
    k = CROP / drawn
    tiles = [{"corners": ((q + 0.5) * k - 0.5).tolist(), "face_up": True, "visible": 1.0,
              "cut": False} for q in shot.corners]
    planes = rasterise(tiles, list(range(len(tiles))), [], lambda p: p, (CROP, CROP))
    return img, _half(planes)


def phone_closeup_sample(seed: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One phone close-up of one tile (:func:`vision.render.closeup.render_phone_closeup`: blank
    doubles and halves a third of the time each, tiles 0.09-0.42 of the side wide), on the
    training tables (:data:`PHONE_TRAIN_TABLES`), drawn :data:`PHONE_DRAWN` px and enlarged
    (cubic) to the close-up side :data:`vision.tile_finder.CLOSE_UP_SIDE`, the crop's size."""
    if CLOSE_UP_SIDE != CROP:
        raise ValueError(f"the close-up side {CLOSE_UP_SIDE} is not the crop {CROP}")
    drawn = int(rng.integers(PHONE_DRAWN[0], PHONE_DRAWN[1] + 1))
    shot = render_phone_closeup(seed, size=drawn, tables=PHONE_TRAIN_TABLES)
    img = cv2.resize(shot.image_bgr, (CROP, CROP), interpolation=cv2.INTER_CUBIC)
    k = CROP / drawn
    tiles = [{"corners": ((shot.corners + 0.5) * k - 0.5).tolist(), "face_up": True,
              "visible": 1.0, "cut": False}]
    planes = rasterise(tiles, [0], [], lambda p: p, (CROP, CROP))
    return img, _half(planes)


def scene_constraints(index: int) -> dict:
    """Pins for training scene ``index``: every fifth a stacking game (tiles on tiles), every
    seventh a double-fifteen set, the rest left to the renderer."""
    if index % 5 == 4:
        return {"game": ("stackernoes", "buildup")[(index // 5) % 2]}
    if index % 7 == 3:
        return {"set_max": 15}
    return {}


#: Seeds of the extra training scenes start here (after the plain training scenes).
EXTRA_SEED0 = 200_000
#: Seeds of the decorated validation scenes: HELD_OUT_SEED_MIN + this + index.
HELD_OUT_DECOR_SEED0 = 1_100_000


def extra_constraints(index: int) -> dict:
    """Pins for extra training scene ``index`` (seed ``EXTRA_SEED0 + index``), aimed at the
    finder's known weak spots, in a cycle of eight: printed board art (:mod:`vision.render.decor`)
    on any layout, on a chickenfoot game, and with a face-down boneyard and a hand; hubs
    (chickenfoot games, the chickenfoot and spinner layouts); long chains (lines and trains of
    18-30 tiles); checked cloths with face-down tiles and hands (negatives)."""
    k = index % 8
    if k in (0, 2):
        return {"decor": True}
    if k == 1:
        return {"decor": True, "game": "chickenfoot"}
    if k == 3:
        return {"game": "chickenfoot"}
    if k == 4:
        return {"layout": ("chickenfoot", "spinner")[(index // 8) % 2]}
    if k == 5:
        return {"layout": ("line", "trains")[(index // 8) % 2], "n_tiles": 18 + (index // 16) % 13,
                "set_max": 9}
    if k == 6:
        return {"table_families": ["cloth"], "boneyard": True, "hands": 1 + (index // 8) % 2}
    return {"decor": True, "boneyard": True, "hands": 1}


#: Seeds of the focus training scenes start here (fine-tuning on the families the finder misses).
FOCUS_SEED0 = 260_000


def focus_constraints(index: int) -> dict:
    """Pins for focus training scene ``index`` (seed ``FOCUS_SEED0 + index``), aimed at the
    tiles the shipped finder misses on tuning scenes, training looks only, in a cycle of four:
    coloured tiles on felt; small tiles in long chains (lines and trains of 18-30 tiles, a wide
    lens); small pale tiles (ivory, white) on pale tables (paper, cloth) with a wide lens; coloured
    and pip-colour tiles in chains on felt."""
    k = index % 4
    if k == 0:
        return {"tile_families": ["coloured"], "table_families": ["felt"]}
    if k == 1:
        return {"layout": ("line", "trains")[(index // 4) % 2], "n_tiles": 18 + (index // 8) % 13,
                "set_max": 9, "hfov_range": (70.0, 78.0)}
    if k == 2:
        return {"tile_families": ["ivory", "white"], "table_families": ["paper", "cloth"],
                "hfov_range": (70.0, 78.0)}
    return {"tile_families": ["coloured", "pipcolour"], "table_families": ["felt"],
            "layout": ("line", "trains")[(index // 4) % 2], "n_tiles": 18 + (index // 8) % 13,
            "set_max": 9}


#: Seeds of the blank-heavy training scenes start here (fine-tuning on blank tiles).
BLANK_SEED0 = 280_000
#: In a blank-heavy scene a face-up tile becomes the double blank, or keeps one of its values
#: beside a blank, with these chances (the rest are left as drawn).
BLANK_DOUBLE, BLANK_HALF = 0.3, 0.35


def blank_constraints(index: int) -> dict:
    """Pins for blank-heavy training scene ``index`` (seed ``BLANK_SEED0 + index``), training
    looks only, always with a face-down boneyard (backs look like blank faces but have no
    divider), in a cycle of four: black tiles; coloured tiles; ivory or white tiles; black,
    coloured or pip-colour tiles with a hand. Their face-up tiles are made blank-heavy by
    :func:`blank_heavy`."""
    k = index % 4
    if k == 0:
        return {"tile_families": ["black"], "boneyard": True}
    if k == 1:
        return {"tile_families": ["coloured"], "boneyard": True}
    if k == 2:
        return {"tile_families": ["ivory", "white"], "boneyard": True}
    return {"tile_families": ["black", "coloured", "pipcolour"], "boneyard": True, "hands": 1}


def blank_heavy(spec: SceneSpec, rng: np.random.Generator) -> SceneSpec:
    """``spec`` with its face-up tiles' values changed so blanks are common: each becomes 0-0
    with chance :data:`BLANK_DOUBLE`, keeps one of its values beside a blank with chance
    :data:`BLANK_HALF` (a set holds only one double blank and seven tiles with a blank half;
    the finder missed blank faces far more often than others: 13 of 132 double blanks on tuning
    scenes against 65 of 5,825 tiles with pips on both halves). Face-down tiles are kept."""
    placements = []
    for pl in spec.placements:
        if pl.face_up:
            u = rng.random()
            if u < BLANK_DOUBLE:
                halves = (0, 0)
            elif u < BLANK_DOUBLE + BLANK_HALF:
                keep = pl.halves[int(rng.integers(2))]
                halves = (0, keep) if rng.random() < 0.5 else (keep, 0)
            else:
                halves = pl.halves
            if halves != pl.halves:
                pl = dataclasses.replace(pl, tile=Tile.of(*halves), halves=halves)
        placements.append(pl)
    return dataclasses.replace(spec, placements=tuple(placements))


def _job(job: tuple[str, int, int, bool, int]) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    kind, index, run_seed, held_out, crops = job
    stream = {"scene": 0, "closeup": 1, "extra": 2, "decor": 3, "small": 4, "focus": 5,
              "blank": 6, "phone": 7}[kind]
    rng = np.random.default_rng((run_seed, int(held_out), index, stream))
    try:
        if kind == "closeup":
            seed = CLOSEUP_SEED0 + index + (HELD_OUT_SEED_MIN if held_out else 0)
            return [closeup_sample(seed, rng)], ""
        if kind == "small":
            seed = SMALL_CLOSEUP_SEED0 + index + (HELD_OUT_SEED_MIN if held_out else 0)
            return [small_closeup_sample(seed, rng)], ""
        if kind == "phone":
            seed = PHONE_CLOSEUP_SEED0 + index + (HELD_OUT_SEED_MIN if held_out else 0)
            return [phone_closeup_sample(seed, rng)], ""
        if kind == "extra":
            spec = random_scene_spec(EXTRA_SEED0 + index, **extra_constraints(index))
        elif kind == "focus":
            spec = random_scene_spec(FOCUS_SEED0 + index, **focus_constraints(index))
        elif kind == "blank":
            spec = blank_heavy(random_scene_spec(BLANK_SEED0 + index, **blank_constraints(index)),
                               rng)
        elif kind == "decor":
            spec = random_scene_spec(HELD_OUT_SEED_MIN + HELD_OUT_DECOR_SEED0 + index,
                                     held_out=True, decor=True)
        elif held_out:
            spec = random_scene_spec(HELD_OUT_SEED_MIN + 500_000 + index, held_out=True)
        else:
            spec = random_scene_spec(index, **scene_constraints(index))
        scene = render_scene(spec)
    except ValueError as exc:  # a renderer failure is counted, never ends a run
        return [], f"{kind} {index}: {type(exc).__name__}: {exc}"
    return scene_samples(scene.image_bgr, scene.truth, rng, crops), ""


def make_samples(scenes: int, closeups: int, crops: int, held_out: bool, run_seed: int,
                 workers: int, label: str, skipped: list[str], kind: str = "scene") -> Samples:
    """Samples of ``scenes`` scenes (``crops`` each) and ``closeups`` close-ups of one split;
    ``kind`` picks the scenes: ``scene`` (plain training or held-out scenes), ``extra`` (the
    training scenes of :func:`extra_constraints`), ``decor`` (held-out scenes with board art) or
    ``small`` (``scenes`` close-ups of small pale tiles, :func:`small_closeup_sample`), ``focus`` (the
    training scenes of :func:`focus_constraints`) or ``blank`` (the blank-heavy training scenes of
    :func:`blank_constraints` and :func:`blank_heavy`) or ``phone`` (``scenes`` phone close-ups
    of one tile, :func:`phone_closeup_sample`)."""
    if kind not in ("scene", "extra", "decor", "small", "focus", "blank", "phone"):
        raise ValueError(f"scene kind {kind!r} is unknown; use 'scene', 'extra', 'decor', "
                         "'small', 'focus', 'blank' or 'phone'")
    jobs = ([(kind, i, run_seed, held_out, crops) for i in range(scenes)]
            + [("closeup", i, run_seed, held_out, 1) for i in range(closeups)])
    images, targets = [], []
    start = time.perf_counter()
    # one OpenCV thread a worker: the workers are the parallelism (same pictures either way)
    with multiprocessing.get_context("fork").Pool(workers, cv2.setNumThreads, (1,)) as pool:
        for k, (got, error) in enumerate(pool.imap(_job, jobs, chunksize=4)):
            if error:
                skipped.append(error)
                print(f"{label}: skipped {error}", file=sys.stderr)
            for img, tgt in got:
                images.append(img)
                targets.append(tgt)
            if (k + 1) % 100 == 0 or k + 1 == len(jobs):
                print(f"{label}: {k + 1}/{len(jobs)} jobs, {len(images)} samples, "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return Samples(np.stack(images), np.stack(targets))
