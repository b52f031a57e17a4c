"""Stacked scenes for the layer estimator: towers, spans and bridges up to four levels.

:func:`stack_layout` builds structures of tiles resting on tiles:

* ``tower``: one to four tiles straight up, each either along or crosswise on the one below;
* ``span``: two tiles side by side (a gap of 0..8 mm) with one tile lying crosswise across both,
  then possibly more tiles on top;
* ``bridge``: two tiles end to end with a 8..18 mm gap under the tile that bridges it, then
  possibly more tiles on top.

Every tile rests only on tiles of the layer just below (a span lies flat at its layer, as the
renderer draws it), so ``layer`` and ``supports`` (:func:`supports_of`) are consistent.
Placements come in a build order: a tile never comes before the tiles it rests on, and the
structures are built interleaved (as players take turns), so :func:`stack_sequence` can cut the
scene into the frames a webcam records while the stacks are built.

:func:`stacked_scene_spec` draws a whole scene (looks, lamp, camera, faults) from a seed like
:func:`vision.render.random_scene_spec` and replaces its layout with these structures.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from companion.tiles import Tile
from vision.render.camera import Camera, CameraSpec
from vision.render.errors import RenderSpecError
from vision.render.layouts import Dealer, Occupancy, Placement
from vision.render.sampling import MIN_TILE_PX_1280, fit_camera, random_scene_spec
from vision.render.scene import SceneSpec
from vision.render.sequence import SequenceFrame
from vision.render.support import SUPPORT_MIN_FRACTION, supports_of
from vision.render.tiles import TileGeometry, geometry_for_set

#: Highest layer drawn (0 = on the table): four levels.
MAX_LAYER = 3
STRUCTURE_KINDS = ("tower", "span", "bridge")
#: Only sizes a footprint while a structure looks for room.
_PROBE = Tile.of(0, 1)


def _structure(kind: str, rng: np.random.Generator, geom: TileGeometry,
               levels: int) -> list[tuple[float, float, float, int]]:
    """Local (x, y, angle, layer) of the tiles of one structure, lower tiles first."""
    L, W = geom.length_mm, geom.width_mm
    tiles: list[tuple[float, float, float, int]] = []
    if kind == "tower":
        tiles.append((0.0, 0.0, 0.0, 0))
    elif kind == "span":
        g = float(rng.uniform(0.0, 8.0))
        tiles += [(0.0, -(W + g) / 2, 0.0, 0), (0.0, (W + g) / 2, 0.0, 0)]
        tiles.append((float(rng.normal(0, 1.5)), float(rng.normal(0, 1.0)),
                      90.0 + float(rng.normal(0, 3)), 1))
    else:  # bridge
        g = float(rng.uniform(8.0, 18.0))
        tiles += [(-(L + g) / 2, 0.0, 0.0, 0), ((L + g) / 2, 0.0, 0.0, 0)]
        tiles.append((float(rng.normal(0, 1.5)), float(rng.normal(0, 1.0)),
                      float(rng.normal(0, 3)), 1))
    while tiles[-1][3] + 1 < levels:
        x, y, a, layer = tiles[-1]
        cross = rng.random() < 0.4
        tiles.append((x + float(rng.uniform(-3, 3)), y + float(rng.uniform(-3, 3)),
                      a + (90.0 if cross else 0.0) + float(rng.normal(0, 4)), layer + 1))
    return tiles


def stack_layout(rng: np.random.Generator, set_max: int, n_structures: int,
                 dealer: Dealer | None = None) -> list[Placement]:
    """Placements of ``n_structures`` towers, spans and bridges (up to :data:`MAX_LAYER` + 1
    levels) in an interleaved build order (a tile after the tiles it rests on)."""
    if not 1 <= n_structures <= 40:
        raise RenderSpecError(f"n_structures {n_structures!r} is out of range; use 1..40")
    geom = geometry_for_set(set_max)
    dealer = dealer or Dealer(set_max, rng)
    occ = Occupancy(geom)
    groups: list[list[Placement]] = []
    reach = 0.0
    for _ in range(n_structures):
        kind = str(rng.choice(STRUCTURE_KINDS, p=[0.5, 0.25, 0.25]))
        lo = 1 if kind == "tower" else 2
        levels = int(rng.integers(lo, MAX_LAYER + 2))
        local = _structure(kind, rng, geom, levels)
        theta = float(rng.uniform(0, 360))
        rot = np.array([[math.cos(math.radians(theta)), -math.sin(math.radians(theta))],
                        [math.sin(math.radians(theta)), math.cos(math.radians(theta))]])
        placed = None
        for attempt in range(80):
            r = reach + 40.0 + 4.0 * attempt
            c = rng.uniform(-r, r, 2)
            cands = []
            for x, y, a, layer in local:
                p = rot @ np.array([x, y]) + c
                cands.append((float(p[0]), float(p[1]), a + theta, layer))
            probe = [Placement(_PROBE, (0, 1), (x, y), a, layer) for x, y, a, layer in cands]
            margin = -float(rng.uniform(1.0, 6.0))  # gaps of 2..12 mm between structures
            if all(occ.free(p, margin_mm=margin) for p in probe):
                placed = cands
                break
        if placed is None:
            continue
        group = []
        for x, y, a, layer in placed:
            t = dealer.any()
            if t is None:
                break
            halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
            pl = Placement(t, halves, (x, y), a % 360.0, layer)
            occ.add(pl)
            group.append(pl)
        if group:
            groups.append(group)
            reach = max(reach, float(np.abs(c).max()) + geom.length_mm)
    out: list[Placement] = []
    left = [g for g in groups]
    while left:  # interleave: a random structure grows by its next tile
        g = left[int(rng.integers(len(left)))]
        out.append(g.pop(0))
        if not g:
            left.remove(g)
    return out



_FIXED = ("layout", "game", "loose", "boneyard", "hands", "n_tiles", "markers")


def stacked_scene_spec(rng_seed: int, n_structures: int | None = None,
                       **constraints: Any) -> SceneSpec:
    """A scene of stacked structures (see the module docstring) drawn from ``rng_seed``.

    Looks, lamp, faults and camera angles come from :func:`vision.render.random_scene_spec`
    with the same seed and ``constraints`` (``set_max``, ``tilt_range``, ``rotation_range``,
    ``hfov_range``, ``tile_families``, ``table_families``, ``size``, ``held_out``,
    ``degrade``); the camera is then refitted so every structure is in the frame."""
    fixed = sorted(set(_FIXED) & set(constraints))
    if fixed:
        raise RenderSpecError(f"constraints {fixed} are set by stacked scenes themselves; "
                              "leave them out")
    looks = random_scene_spec(rng_seed, layout="stacks", n_tiles=4, loose=0, boneyard=False,
                              hands=0, markers=False, **constraints)
    rng = np.random.default_rng([int(rng_seed), 606])
    if n_structures is None:
        n_structures = int(rng.integers(3, 8))
    geom = geometry_for_set(looks.set_max)
    placements = stack_layout(rng, looks.set_max, int(n_structures))
    style = looks.tile_styles[0]
    if style.colour:
        placements = [dataclasses.replace(p, tile=p.tile.with_colour(style.colour))
                      for p in placements]
    cam0 = looks.camera
    pts = np.concatenate([p.footprint(geom) for p in placements])
    target = (float(pts[:, 0].mean()), float(pts[:, 1].mean()))
    fill = float(rng.uniform(0.6, 0.85))
    spec_cam = fit_camera(pts, cam0.tilt_deg, cam0.rotation_deg, cam0.hfov_deg, target,
                          cam0.dist, looks.width, looks.height, fill)
    f_px = (looks.width / 2) / math.tan(math.radians(cam0.hfov_deg) / 2)
    max_h = (f_px * geom.length_mm / (MIN_TILE_PX_1280 * looks.width / 1280.0)
             * math.cos(math.radians(cam0.tilt_deg)))
    if spec_cam.height_mm > max_h:  # keep tiles readable; the frame may cut the layout then
        spec_cam = CameraSpec(max(200.0, max_h), cam0.tilt_deg, cam0.rotation_deg,
                              cam0.hfov_deg, target, cam0.dist)
    Camera(spec_cam, looks.width, looks.height)  # checks the pose
    lamp = looks.light.lamp_mm
    light = dataclasses.replace(looks.light, lamp_mm=(
        target[0] + lamp[0] - cam0.target_mm[0], target[1] + lamp[1] - cam0.target_mm[1],
        lamp[2]))
    return dataclasses.replace(looks, placements=tuple(placements),
                               tile_styles=(style,) * len(placements), camera=spec_cam,
                               light=light, layout="towers", game=None)


def stack_sequence(rng_seed: int, n_structures: int | None = None,
                   **constraints: Any) -> list[SequenceFrame]:
    """The still frames a fixed webcam records while the stacks of
    :func:`stacked_scene_spec` are built, one tile more per frame, in build order (no hands:
    the live loop waits for a still table)."""
    full = stacked_scene_spec(rng_seed, n_structures, **constraints)
    frames = []
    for k in range(1, len(full.placements) + 1):
        frames.append(SequenceFrame(
            dataclasses.replace(full, placements=full.placements[:k],
                                tile_styles=full.tile_styles[:k], frame=k - 1), "still", k))
    return frames


__all__ = ["MAX_LAYER", "STRUCTURE_KINDS", "SUPPORT_MIN_FRACTION", "stack_layout",
           "stack_sequence", "stacked_scene_spec", "supports_of"]
