"""Looks: tile style families, procedural table textures (seeded), the pip-colour palette.

Tile families: ``ivory`` (ivory face, black pips), ``white`` (white face, black pips), ``black``
(black face, white pips), ``coloured`` (a solid colour face, white pips; its set colour name goes
into the ground truth), ``pipcolour`` (white/ivory face with one colour per pip value) and
``marbled`` (cream marbled face, dark pips; HELD-OUT only).

Table families: ``wood``, ``felt``, ``cloth``, ``paper`` and ``stone`` (granite or marble;
HELD-OUT only). Textures are drawn in table millimetres from a seed, so a scene is reproducible.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.render.errors import RenderSpecError
from vision.render.tiles import BGR, TileStyle

TILE_FAMILIES = ("ivory", "white", "black", "coloured", "pipcolour", "marbled")
TABLE_FAMILIES = ("wood", "felt", "cloth", "paper", "stone")
#: Families used only for held-out scenes (never in training renders).
HELD_OUT_TILE_FAMILIES = ("marbled",)
HELD_OUT_TABLE_FAMILIES = ("stone",)
TRAIN_TILE_FAMILIES = tuple(f for f in TILE_FAMILIES if f not in HELD_OUT_TILE_FAMILIES)
TRAIN_TABLE_FAMILIES = tuple(f for f in TABLE_FAMILIES if f not in HELD_OUT_TABLE_FAMILIES)

#: Set colours for coloured tiles (name -> face BGR).
SET_COLOURS: dict[str, BGR] = {
    "red": (40, 40, 180), "blue": (150, 80, 30), "green": (60, 120, 30),
    "yellow": (40, 190, 225), "purple": (120, 50, 100), "orange": (30, 110, 220),
    "teal": (130, 130, 20),
}

#: One colour per pip value (a common colour-dot scheme), BGR; 0 has no pips.
PIP_PALETTE: tuple[BGR, ...] = (
    (0, 0, 0), (200, 160, 40), (40, 140, 40), (40, 40, 200), (150, 60, 30), (20, 130, 220),
    (140, 40, 120), (60, 60, 60), (30, 30, 120), (120, 120, 20), (20, 160, 160),
    (90, 20, 160), (170, 60, 60), (40, 90, 140), (140, 100, 170), (20, 20, 20),
)


def _jitter(rng: np.random.Generator, bgr: tuple[float, float, float], amount: float) -> BGR:
    out = np.clip(np.array(bgr) + rng.normal(0, amount, 3), 0, 255)
    return tuple(int(v) for v in out)  # type: ignore[return-value]


def tile_style(family: str, rng: np.random.Generator, colour: str | None = None) -> TileStyle:
    """A tile style of ``family`` with seeded small variations."""
    divider = bool(rng.random() < 0.9)
    pin = bool(rng.random() < 0.35)
    glint = bool(rng.random() < 0.5)
    if family == "ivory":
        face = _jitter(rng, (196, 232, 240), 6)
        return TileStyle("ivory", face, _jitter(rng, (25, 25, 28), 6),
                         _jitter(rng, (150, 190, 205), 8), face, _jitter(rng, (40, 40, 45), 8),
                         divider=divider, spinner_pin=pin, pip_glint=glint,
                         gloss=float(rng.uniform(0.4, 0.9)))
    if family == "white":
        face = _jitter(rng, (238, 240, 240), 4)
        return TileStyle("white", face, _jitter(rng, (20, 20, 20), 5),
                         _jitter(rng, (200, 205, 205), 8), face, _jitter(rng, (60, 60, 60), 10),
                         divider=divider, spinner_pin=pin, pip_glint=glint,
                         gloss=float(rng.uniform(0.4, 0.9)))
    if family == "black":
        face = _jitter(rng, (28, 28, 30), 5)
        return TileStyle("black", face, _jitter(rng, (235, 238, 240), 6),
                         _jitter(rng, (20, 20, 22), 4), face, _jitter(rng, (200, 200, 200), 15),
                         divider=divider, spinner_pin=pin, pip_glint=glint,
                         gloss=float(rng.uniform(0.5, 1.0)))
    if family == "coloured":
        if colour is None:
            colour = str(rng.choice(sorted(SET_COLOURS)))
        if colour not in SET_COLOURS:
            raise RenderSpecError(f"set colour {colour!r} is unknown; use one of "
                                  f"{sorted(SET_COLOURS)}")
        face = _jitter(rng, SET_COLOURS[colour], 8)
        side: BGR = (int(face[0] * 0.75), int(face[1] * 0.75), int(face[2] * 0.75))
        return TileStyle("coloured", face, _jitter(rng, (240, 240, 240), 5), side, face,
                         _jitter(rng, (230, 230, 230), 10), divider=divider, spinner_pin=pin,
                         pip_glint=glint, gloss=float(rng.uniform(0.5, 1.0)), colour=colour)
    if family == "pipcolour":
        face = _jitter(rng, (230, 240, 244), 5)
        return TileStyle("pipcolour", face, (0, 0, 0), _jitter(rng, (180, 200, 210), 8), face,
                         _jitter(rng, (50, 50, 50), 8), pip_palette=PIP_PALETTE,
                         divider=divider, spinner_pin=pin, pip_glint=glint,
                         gloss=float(rng.uniform(0.4, 0.9)))
    if family == "marbled":
        face = _jitter(rng, (200, 222, 228), 6)
        return TileStyle("marbled", face, _jitter(rng, (45, 30, 25), 6),
                         _jitter(rng, (160, 180, 190), 8), face, _jitter(rng, (60, 50, 50), 8),
                         divider=divider, spinner_pin=pin, pip_glint=glint,
                         gloss=float(rng.uniform(0.5, 0.9)),
                         marbled=True)
    raise RenderSpecError(f"tile family {family!r} is unknown; use one of {list(TILE_FAMILIES)}")


def tile_style_for_colour(colour: str, rng: np.random.Generator) -> TileStyle:
    """The style of a set told apart by ``colour`` (Build Up seats): a coloured face with white
    pips, or for ``black`` / ``white`` sets the black or white family named by that colour."""
    if colour in ("black", "white"):
        st = tile_style(colour, rng)
        return dataclasses.replace(st, colour=colour)
    return tile_style("coloured", rng, colour=colour)


# --- tables ------------------------------------------------------------------------------------

def _noise(rng: np.random.Generator, h: int, w: int, cells: tuple[int, int]) -> np.ndarray:
    """Smooth value noise in 0..1 (float32), ``cells`` = (rows, cols) of random lattice."""
    lat = rng.random((max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    return cv2.resize(lat, (w, h), interpolation=cv2.INTER_CUBIC)


def _fbm(rng: np.random.Generator, h: int, w: int, base: int, octaves: int = 4) -> np.ndarray:
    """Fractal value noise 0..1 (float32): octaves summed at low resolution, then one resize."""
    scale = max(1, min(h, w) // 96)
    lh, lw = max(4, h // scale), max(4, w // scale)
    out = np.zeros((lh, lw), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        c = base * (2 ** o)
        out += amp * _noise(rng, lh, lw, (max(2, c * lh // max(lh, lw)),
                                           max(2, c * lw // max(lh, lw))))
        total += amp
        amp *= 0.5
    return cv2.resize(out / total, (w, h), interpolation=cv2.INTER_LINEAR)


def _gauss(rng: np.random.Generator, shape: tuple[int, int, int], sigma: float) -> np.ndarray:
    """Per-pixel gaussian grain: a seeded 256 x 256 block tiled over ``shape`` (cheap; the
    repeat is hidden once the texture is warped into the picture)."""
    block = rng.standard_normal((256, 256), dtype=np.float32) * np.float32(sigma)
    h, w = shape[0], shape[1]
    return np.tile(block, (-(-h // 256), -(-w // 256)))[:h, :w, None]


def table_texture(family: str, variant: int, seed: int, size_px: tuple[int, int],
                  px_per_mm: float) -> np.ndarray:
    """A table texture (BGR uint8, ``size_px`` = (w, h)) of ``family`` drawn from ``seed``."""
    if family not in TABLE_FAMILIES:
        raise RenderSpecError(f"table family {family!r} is unknown; use one of "
                              f"{list(TABLE_FAMILIES)}")
    w, h = size_px
    rng = np.random.default_rng(seed)
    mm = 1.0 / px_per_mm
    if family == "wood":
        palettes = [((95, 150, 200), (60, 105, 160)), ((40, 70, 110), (25, 45, 75)),
                    ((70, 110, 170), (45, 75, 125)), ((150, 185, 215), (110, 150, 185))]
        light, dark = (np.array(c, np.float32) for c in palettes[variant % len(palettes)])
        plank_mm = float(rng.uniform(90, 160))
        # grain along x: noise stretched along x gives streaks; rings are warped, uneven bands
        streak = cv2.resize(rng.random((max(2, int(h * mm / 1.5)), 8), dtype=np.float32),
                            (w, h), interpolation=cv2.INTER_LINEAR)
        warp = _fbm(rng, h, w, 3) * np.float32(rng.uniform(30, 80))
        yy = np.arange(h, dtype=np.float32)[:, None] * np.float32(mm)
        freq = np.float32(rng.uniform(0.08, 0.25))
        rings = (0.5 + 0.5 * np.sin((yy + warp) * freq)) ** 4
        fine = cv2.resize(rng.random((max(2, int(h * mm / 0.6)), max(2, int(w * mm / 40))),
                                    dtype=np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        t = np.clip(0.25 * rings + 0.3 * streak + 0.25 * fine + 0.35 * _fbm(rng, h, w, 5)
                    - 0.1, 0, 1)[..., None]
        table_bgr = light * (1 - t) + dark * t
        seams = (np.mod(yy + np.float32(rng.uniform(0, plank_mm)), np.float32(plank_mm))
                 < 0.9)[:, 0]
        table_bgr[seams] *= 0.55
    elif family == "felt":
        cols = [(50, 110, 30), (110, 60, 20), (35, 35, 120), (60, 60, 60), (25, 25, 25),
                (90, 40, 60)]
        base = np.array(cols[variant % len(cols)], np.float32)
        table_bgr = base * (0.85 + 0.3 * _fbm(rng, h, w, 6))[..., None]
        table_bgr += _gauss(rng, (h, w, 1), 7.0)
    elif family == "cloth":
        c1 = np.array([(200, 200, 205), (60, 60, 170), (150, 100, 50), (80, 140, 80)]
                      [variant % 4], np.float32)
        c2 = np.array((235, 235, 238), np.float32)
        check_mm = rng.uniform(12, 30)
        xx = np.arange(w, dtype=np.float32)[None, :] * mm
        yy = np.arange(h, dtype=np.float32)[:, None] * mm
        bx = (np.mod(xx, check_mm) < check_mm / 2).astype(np.float32)
        by = (np.mod(yy, check_mm) < check_mm / 2).astype(np.float32)
        t = np.clip((bx + by) / 2, 0, 1)[..., None]
        table_bgr = c2 * (1 - t) + c1 * t
        weave = 0.5 + 0.5 * np.sin(xx * 2.6) * np.sin(yy * 2.6)
        table_bgr *= (0.9 + 0.1 * weave)[..., None]
        table_bgr *= (0.9 + 0.15 * _fbm(rng, h, w, 3))[..., None]  # folds
    elif family == "paper":
        base = np.array([(235, 240, 242), (200, 225, 235), (120, 160, 190)][variant % 3],
                        np.float32)
        table_bgr = base * (0.93 + 0.1 * _fbm(rng, h, w, 5))[..., None]
        table_bgr += _gauss(rng, (h, w, 1), 3.0)
    else:  # stone
        if variant % 2 == 0:  # granite
            base = np.array([(110, 110, 115), (60, 60, 65), (150, 160, 170)][variant // 2 % 3],
                            np.float32)
            spk = rng.random((h, w), dtype=np.float32)
            table_bgr = base * (0.85 + 0.25 * _fbm(rng, h, w, 8))[..., None]
            table_bgr[spk > 0.93] *= 0.4
            table_bgr[spk < 0.05] = table_bgr[spk < 0.05] * 0.3 + 170
        else:  # marble
            base = np.array((225, 228, 232), np.float32)
            n = _fbm(rng, h, w, 3)
            xx = np.arange(w, dtype=np.float32)[None, :] * mm
            n2 = _fbm(rng, h, w, 12, octaves=3)
            v = np.abs(np.sin(xx / 70.0 + 7.0 * n + 2.0 * n2))
            vein = np.exp(-v / 0.04)  # thin grey veins where the warped sine crosses zero
            table_bgr = base * (0.93 + 0.07 * n2 - 0.3 * vein)[..., None]
    return cv2.convertScaleAbs(table_bgr)
