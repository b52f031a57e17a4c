"""Drawing scene specifications from a seed: :func:`random_scene_spec`.

Every knob (set, layout, tile style, table, camera pose and lens, lamp, shadows, glare, white
balance, blur, noise, JPEG, hands, loose tiles, boneyard, markers) is drawn from
``np.random.default_rng(rng_seed)``, so one seed always gives one scene.

Training and held-out data never share a seed or a look:

* training scenes use seeds ``0 <= seed < 1_000_000`` and never the held-out families;
* held-out scenes (``held_out=True``) use seeds ``>= 1_000_000``; half of them use the held-out
  table family ``stone`` and 40 % the held-out tile family ``marbled`` (the rest use the training
  families, so held-out figures measure both new seeds and new looks).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from vision.render.camera import Camera, CameraSpec
from vision.render.errors import RenderSpecError
from vision.render.layouts import (LAYOUT_KINDS, Dealer, Occupancy, Placement, extent, layout,
                                   scatter)
from vision.render.scene import DegradeSpec, HandSpec, LightSpec, SceneSpec
from vision.render.styles import (HELD_OUT_TABLE_FAMILIES, HELD_OUT_TILE_FAMILIES,
                                  SET_COLOURS, TABLE_FAMILIES, TILE_FAMILIES,
                                  TRAIN_TABLE_FAMILIES, TRAIN_TILE_FAMILIES, tile_style,
                                  tile_style_for_colour)
from vision.render.tiles import geometry_for_set

#: First seed of the held-out range.
HELD_OUT_SEED_MIN = 1_000_000

#: Without markers the camera is never so high that a tile at the target is shorter than this
#: many pixels along its long side (at 1280 px wide; scaled with the picture width).
MIN_TILE_PX_1280 = 48.0
#: The camera tilts (degrees from straight down) a ``tilt_range`` may span.
TILT_LIMITS = (0.0, 50.0)

_KNOWN = ("set_max", "layout", "n_tiles", "tilt_range", "rotation_range", "markers",
          "tile_families", "table_families", "size", "held_out", "hands", "boneyard", "loose",
          "degrade", "hfov_range", "game", "decor")

SKIN_BGR = ((150, 185, 230), (120, 160, 215), (90, 130, 190), (60, 95, 150), (45, 70, 110),
            (170, 200, 235))


def _check_families(name: str, given: Sequence[str] | None, known: Sequence[str],
                    allowed: Sequence[str]) -> list[str]:
    if given is None:
        return list(allowed)
    bad = [g for g in given if g not in known]
    if bad:
        raise RenderSpecError(f"{name} {bad} unknown; use some of {list(known)}")
    out = [g for g in given if g in allowed]
    if not out:
        raise RenderSpecError(f"{name} {list(given)} are all held-out families; training "
                              f"scenes may use {list(allowed)} (or pass held_out=True)")
    return out


def _range(name: str, value: Any, lo: float, hi: float) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in value)
    except (TypeError, ValueError):
        raise RenderSpecError(f"{name} {value!r} must be a pair (low, high)") from None
    if not (lo <= a <= b <= hi):
        raise RenderSpecError(f"{name} {value!r} must satisfy {lo} <= low <= high <= {hi}")
    return a, b


def fit_camera(points_mm: np.ndarray, tilt: float, rotation: float, hfov: float,
               target: tuple[float, float], dist: tuple[float, ...], width: int, height: int,
               fill: float) -> CameraSpec:
    """The lowest camera (in steps of 6 %, from 200 mm) whose picture holds every table point
    ``points_mm`` (N x 2, z = 0) within ``fill`` of the frame around its centre."""
    cam_h = 200.0
    spec_cam = CameraSpec(cam_h, tilt, rotation, hfov, target, dist)
    for _ in range(60):
        spec_cam = CameraSpec(cam_h, tilt, rotation, hfov, target, dist)
        cam = Camera(spec_cam, width, height)
        try:
            uv = cam.project(np.column_stack([points_mm, np.zeros(len(points_mm))]))
        except RenderSpecError:  # part of the layout behind the camera: go higher
            cam_h *= 1.06
            continue
        span = max((uv[:, 0].max() - uv[:, 0].min()) / width,
                   (uv[:, 1].max() - uv[:, 1].min()) / height,
                   2 * np.abs(uv[:, 0] - width / 2).max() / width,
                   2 * np.abs(uv[:, 1] - height / 2).max() / height)
        if span <= fill:
            break
        cam_h *= 1.06
    return spec_cam


def random_scene_spec(rng_seed: int, **constraints: Any) -> SceneSpec:
    """A scene drawn from ``rng_seed``; keyword constraints pin knobs:

    ``set_max`` (6, 9, 12, 15), ``layout`` (one of :data:`LAYOUT_KINDS` or ``"game"``),
    ``n_tiles`` (tiles in the main layout), ``tilt_range`` (degrees, default (0, 40)),
    ``rotation_range`` (default (0, 360)), ``markers`` (bool), ``tile_families``,
    ``table_families``, ``size`` ((w, h), default (1280, 720)), ``held_out`` (bool), ``hands``
    (number of hands), ``boneyard`` (bool), ``loose`` (extra loose tiles), ``degrade`` (False for
    a clean picture), ``hfov_range`` (degrees, default (55, 78)), ``game`` (implies
    ``layout="game"``: ``allfives``, ``chickenfoot``, ``super``, ``buildup`` or
    ``stackernoes``), ``decor`` (True: printed game-board art on the table,
    :mod:`vision.render.decor`; default off, and asking for it draws nothing from the scene's
    generator, so every other knob is unchanged).
    """
    unknown = sorted(set(constraints) - set(_KNOWN))
    if unknown:
        raise RenderSpecError(f"unknown constraints {unknown}; known: {list(_KNOWN)}")
    if not isinstance(rng_seed, (int, np.integer)) or rng_seed < 0:
        raise RenderSpecError(f"rng_seed {rng_seed!r} must be a non-negative integer")
    held_out = bool(constraints.get("held_out", False))
    if held_out and rng_seed < HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"held-out scenes use seeds >= {HELD_OUT_SEED_MIN}, got {rng_seed}")
    if not held_out and rng_seed >= HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"seed {rng_seed} is in the held-out range (>= "
                              f"{HELD_OUT_SEED_MIN}); pass held_out=True or use a smaller seed")
    rng = np.random.default_rng(int(rng_seed))

    size = constraints.get("size", (1280, 720))
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise RenderSpecError(f"size {size!r} must be (width, height), e.g. (1280, 720)") from None

    kind = constraints.get("layout")
    if constraints.get("game") is not None:
        if kind not in (None, "game"):
            raise RenderSpecError(f"game {constraints['game']!r} needs layout 'game', not "
                                  f"{kind!r}")
        kind = "game"
    from vision.render import gamelayout  # local: optional rules-core dependency
    kinds = list(LAYOUT_KINDS) + (["game"] if gamelayout.available() else [])
    wanted_set = constraints.get("set_max")
    if (kind is None and wanted_set is not None and "game" in kinds
            and wanted_set not in gamelayout.SET_OF_GAME.values()):
        kinds.remove("game")  # no simulated game is played with that set
    if kind is None:  # simulated games (when available) give 30 % of the scenes
        weights = np.array([0.3 if k == "game" else 1.0 for k in kinds])
        if "game" in kinds:
            weights[kinds.index("game")] = 0.3 / 0.7 * (len(kinds) - 1)
        kind = str(rng.choice(kinds, p=weights / weights.sum()))
    elif kind not in kinds:
        raise RenderSpecError(f"layout {kind!r} is unknown; use one of {kinds}")

    set_max = constraints.get("set_max")
    game_name = None
    if kind == "game":
        sets = {name: gamelayout.SET_OF_GAME[name] for name in sorted(gamelayout.GAMES)}
        want = constraints.get("game")
        if want is not None and want not in sets:
            raise RenderSpecError(f"game {want!r} cannot be laid out; use one of {sorted(sets)}")
        names = [g for g, n in sets.items()
                 if (set_max is None or n == set_max) and (want is None or g == want)]
        if want is not None and not names:
            raise RenderSpecError(f"{want} is played with a double-{sets[want]} set, not a "
                                  f"double-{set_max} one")
        if not names:
            raise RenderSpecError(f"no simulated game uses a double-{set_max} set; games "
                                  f"and sets: {sets}")
        game_name = str(rng.choice(names))
        set_max = sets[game_name]
    if set_max is None:
        set_max = 9 if kind == "chickenfoot" else int(rng.choice([6, 6, 6, 9, 12, 15]))
    geom = geometry_for_set(int(set_max))
    set_size = (set_max + 1) * (set_max + 2) // 2
    n_tiles = constraints.get("n_tiles")
    if n_tiles is None:
        n_tiles = int(rng.integers(6, min(34, set_size - 2)))
    if not isinstance(n_tiles, (int, np.integer)) or not 1 <= n_tiles <= set_size:
        raise RenderSpecError(f"n_tiles {n_tiles!r} must be 1..{set_size} for a double-{set_max} "
                              "set")

    # layout -------------------------------------------------------------------------------
    area = n_tiles * geom.length_mm * geom.width_mm * float(rng.uniform(3.5, 6.0))
    ew = max(260.0, math.sqrt(area * 1.7))
    eh = max(200.0, area / ew)
    dealer = Dealer(set_max, rng)
    game = None
    if kind == "game":
        placements, game = gamelayout.game_layout(rng, geom, n_tiles, (ew * 1.4, eh * 1.4),
                                                  game_name=game_name)
        used = {p.tile.plain() for p in placements}
        dealer.left = [t for t in dealer.left if t not in used]
    else:
        placements = layout(kind, set_max, geom, rng, n_tiles, (ew, eh), dealer)
    occ = Occupancy(geom)
    for p in placements:
        occ.add(p)
    x0, y0, x1, y1 = extent(placements, geom)
    n_loose = constraints.get("loose")
    if n_loose is None:
        n_loose = int(rng.integers(1, 5)) if rng.random() < 0.3 else 0
    if n_loose:
        band = 70.0
        side = int(rng.integers(4))
        bx = [(x0 - band - 60, y0, x0 - 5, y1), (x1 + 5, y0, x1 + band + 60, y1),
              (x0, y0 - band - 60, x1, y0 - 5), (x0, y1 + 5, x1, y1 + band + 60)][side]
        placements += scatter(dealer, occ, geom, rng, int(n_loose), bx, face_up=True)
    boneyard = constraints.get("boneyard")
    if boneyard is None:
        boneyard = bool(rng.random() < 0.3)
    if boneyard:
        x0, y0, x1, y1 = extent(placements, geom)
        cx = x1 + 110.0 if rng.random() < 0.5 else x0 - 110.0
        cy = float(rng.uniform(y0, y1))
        pile = scatter(dealer, occ, geom, rng, int(rng.integers(5, 13)),
                       (cx - 95, cy - 80, cx + 95, cy + 80), face_up=False, stack_fraction=0.25)
        placements += pile

    # looks --------------------------------------------------------------------------------
    tile_fams = _check_families("tile_families", constraints.get("tile_families"), TILE_FAMILIES,
                                TILE_FAMILIES if held_out else TRAIN_TILE_FAMILIES)
    table_fams = _check_families("table_families", constraints.get("table_families"),
                                 TABLE_FAMILIES,
                                 TABLE_FAMILIES if held_out else TRAIN_TABLE_FAMILIES)
    if held_out and constraints.get("tile_families") is None and rng.random() < 0.4:
        tile_fams = list(HELD_OUT_TILE_FAMILIES)
    if held_out and constraints.get("table_families") is None:
        if rng.random() < 0.5:
            table_fams = list(HELD_OUT_TABLE_FAMILIES)
        else:
            table_fams = [f for f in table_fams if f not in HELD_OUT_TABLE_FAMILIES] or table_fams
    family = str(rng.choice(tile_fams))
    set_colours = sorted({p.tile.colour for p in placements if p.tile.colour})
    if set_colours:  # a game with one coloured set per player; extras join one of the sets
        placements = [p if p.tile.colour else
                      Placement(p.tile.with_colour(str(rng.choice(set_colours))), p.halves,
                                p.center_mm, p.angle_deg, p.layer, p.face_up)
                      for p in placements]
        by_colour = {c: tile_style_for_colour(c, rng) for c in set_colours}
        styles = [by_colour[p.tile.colour] for p in placements]
    elif family == "coloured" and rng.random() < 0.35 and kind != "game":
        # several coloured sets on one table (as in Build Up): the colour is part of the tile
        names = list(rng.choice(sorted(SET_COLOURS), size=int(rng.integers(2, 5)), replace=False))
        styles_by = {c: tile_style("coloured", rng, colour=str(c)) for c in names}
        new_p, styles = [], []
        for p in placements:
            c = str(names[int(rng.integers(len(names)))])
            new_p.append(Placement(p.tile.with_colour(c), p.halves, p.center_mm, p.angle_deg,
                                   p.layer, p.face_up))
            styles.append(styles_by[c])
        placements = new_p
    else:
        st = tile_style(family, rng)
        if st.colour:
            placements = [Placement(p.tile.with_colour(st.colour), p.halves, p.center_mm,
                                    p.angle_deg, p.layer, p.face_up) for p in placements]
        styles = [st] * len(placements)
    table_family = str(rng.choice(table_fams))
    table_variant = int(rng.integers(0, 12))

    # camera -------------------------------------------------------------------------------
    tilt_lo, tilt_hi = _range("tilt_range", constraints.get("tilt_range", (0.0, 40.0)),
                              *TILT_LIMITS)
    rot_lo, rot_hi = _range("rotation_range", constraints.get("rotation_range", (0.0, 360.0)),
                            -360, 720)
    fov_lo, fov_hi = _range("hfov_range", constraints.get("hfov_range", (55.0, 78.0)), 20, 120)
    tilt = float(rng.uniform(tilt_lo, tilt_hi))
    if tilt_lo == 0.0 and rng.random() < 0.25:
        tilt = float(rng.uniform(0, min(2.0, tilt_hi)))
    rotation = float(rng.uniform(rot_lo, rot_hi))
    if rot_lo <= 0 <= rot_hi and rng.random() < 0.35:
        rotation = float(np.clip(rng.normal(0, 6), rot_lo, rot_hi))
    hfov = float(rng.uniform(fov_lo, fov_hi))
    dist = (0.0, 0.0, 0.0, 0.0, 0.0)
    degrade = bool(constraints.get("degrade", True))
    if degrade and rng.random() < 0.45:
        dist = (float(rng.uniform(-0.12, 0.04)), float(rng.uniform(-0.02, 0.04)), 0.0, 0.0, 0.0)
    markers = bool(constraints.get("markers", False))
    x0, y0, x1, y1 = extent(placements, geom)
    mmargin = float(rng.uniform(45, 80))
    marker_size = float(rng.choice([30.0, 40.0, 50.0]))
    marker_rect = (x0 - mmargin, y0 - mmargin, x1 + mmargin, y1 + mmargin)
    if markers:
        b = marker_size * 4 / 6 + 2
        fit = np.array([[marker_rect[0] - b, marker_rect[1] - b],
                        [marker_rect[2] + b, marker_rect[3] + b]])
        fill = 0.92
    else:
        fit = np.array([[x0, y0], [x1, y1]])
        fill = float(rng.uniform(0.75, 1.12))  # > 1: the layout is cut by the frame edge
    fit_pts = np.array([[fit[0, 0], fit[0, 1]], [fit[1, 0], fit[0, 1]], [fit[1, 0], fit[1, 1]],
                        [fit[0, 0], fit[1, 1]]])
    if not markers:  # fit the tiles themselves, not their bounding box
        fit_pts = np.concatenate([p.footprint(geom) for p in placements])
    tx = float(fit[:, 0].mean() + rng.normal(0, 10))
    target = (tx, float(fit[:, 1].mean() + rng.normal(0, 10)))
    spec_cam = fit_camera(fit_pts, tilt, rotation, hfov, target, dist, width, height, fill)
    cam_h = spec_cam.height_mm
    cam = Camera(spec_cam, width, height)
    if not markers:
        # a camera set up for the game frames the play so that a tile at the target (the middle
        # of the picture) is at least MIN_TILE_PX_1280 long; a larger layout is cut instead
        f_px = (width / 2) / math.tan(math.radians(hfov) / 2)
        max_dist = f_px * geom.length_mm / (MIN_TILE_PX_1280 * width / 1280.0)
        max_h = max_dist * math.cos(math.radians(tilt))
        if cam_h > max_h:
            cam_h = max(200.0, max_h)
            spec_cam = CameraSpec(cam_h, tilt, rotation, hfov, target, dist)
            cam = Camera(spec_cam, width, height)
    if cam_h > 2500:
        raise RenderSpecError(f"the layout ({x1 - x0:.0f} x {y1 - y0:.0f} mm) needs the camera "
                              f"above 2500 mm to fit; use fewer tiles (n_tiles={n_tiles})")

    # light and faults ---------------------------------------------------------------------
    warm = float(np.clip(rng.normal(0, 0.04), -0.1, 0.1)) if degrade else 0.0
    light = LightSpec(
        lamp_mm=(target[0] + float(rng.uniform(-600, 600)),
                 target[1] + float(rng.uniform(-500, 500)),
                 float(rng.uniform(700, 1800))),
        ambient=float(rng.uniform(0.35, 0.75)), shadow=float(rng.uniform(0.2, 0.6)),
        shadow_blur_mm=float(rng.uniform(1.5, 10.0)),
        glare=float(rng.uniform(0.2, 0.9)) if degrade and rng.random() < 0.35 else 0.0,
        glare_size_mm=float(rng.uniform(20, 70)),
        wb_gains_bgr=(1.0 - warm + float(rng.normal(0, 0.02)), 1.0, 1.0 + warm),
        exposure=float(rng.uniform(0.85, 1.2)) if degrade else 1.0,
        vignette=float(rng.uniform(0, 0.35)) if degrade else 0.0)
    if degrade:
        dg = DegradeSpec(
            defocus_sigma_px=float(rng.uniform(0.3, 1.6)) if rng.random() < 0.5 else 0.0,
            motion_px=float(rng.uniform(1.5, 6.0)) if rng.random() < 0.15 else 0.0,
            motion_deg=float(rng.uniform(0, 180)),
            noise_sigma=float(rng.uniform(1.0, 6.0)),
            jpeg_quality=int(rng.integers(55, 96)) if rng.random() < 0.7 else 0,
            sharpen=float(rng.uniform(0.3, 1.0)) if rng.random() < 0.3 else 0.0)
    else:
        dg = DegradeSpec()

    n_hands = constraints.get("hands")
    if n_hands is None:
        n_hands = 0 if rng.random() < 0.75 else int(rng.integers(1, 3))
    hands = []
    for _ in range(int(n_hands)):
        edge = int(rng.integers(4))
        t = float(rng.uniform(0.15, 0.85))
        entry = [(t, 0.0), (1.0, t), (t, 1.0), (0.0, t)][edge]
        tip_x = entry[0] + rng.uniform(-0.25, 0.25) + (0.5 - entry[0]) * 0.5
        tip_y = entry[1] + rng.uniform(-0.25, 0.25) + (0.5 - entry[1]) * 0.6
        tip = (float(np.clip(tip_x, 0.05, 0.95)), float(np.clip(tip_y, 0.05, 0.95)))
        ppm = cam.K[0, 0] / cam_h
        hands.append(HandSpec(entry, tip, float(ppm * rng.uniform(75, 95)),
                              SKIN_BGR[int(rng.integers(len(SKIN_BGR)))]))

    return SceneSpec(seed=int(rng_seed), set_max=int(set_max), placements=tuple(placements),
                     tile_styles=tuple(styles), camera=spec_cam, width=width, height=height,
                     table_family=table_family, table_variant=table_variant, light=light,
                     degrade=dg, markers=markers, marker_size_mm=marker_size,
                     marker_rect_mm=marker_rect, hands=tuple(hands), layout=kind, game=game,
                     held_out=held_out, decor=bool(constraints.get("decor", False)))


__all__ = ["random_scene_spec", "HELD_OUT_SEED_MIN", "SKIN_BGR"]
