"""Close-up photos of one tile: small (100x100) pictures of a single ivory tile seen from above,
filling much of the frame, on beige paper or wood under a spot lamp.

These are the conditions where the reader's tile finder fails most on real phone photos: the
tile's face is hardly brighter than paper lit by the lamp, and the lamp makes the table brighter
near the light than the tile is away from it. Every picture is drawn from its seed alone.

The picture is drawn large (``SUPERSAMPLE`` times) and shrunk, so edges are anti-aliased as a
camera's are; the tile's side walls show on the side away from the camera's axis, a soft shadow
falls beside it, and blur, sensor noise and JPEG coding follow.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.errors import RenderSpecError
from vision.render.styles import table_texture, tile_style
from vision.render.tiles import GEOMETRY_BY_SET, face_texture

#: Backgrounds of close-ups: the table families they are drawn on.
CLOSEUP_TABLES = ("paper", "wood", "beige")
#: Drawing resolution, as a multiple of the output size.
SUPERSAMPLE = 4


@dataclass(frozen=True)
class Closeup:
    """One close-up picture and its truth: the top face's corners (4, 2) in output pixels, in the
    shared ground-truth order, and the tile's halves (first half at corners 0-1)."""

    image_bgr: np.ndarray
    corners: np.ndarray
    halves: tuple[int, int]
    table: str


def _background(kind: str, rng: np.random.Generator, size: int) -> np.ndarray:
    """The table under the tile: paper or wood from the renderer's textures, or flat beige."""
    seed = int(rng.integers(0, 2**31 - 1))
    if kind == "beige":
        base = np.array([rng.uniform(150, 200), rng.uniform(185, 220), rng.uniform(200, 235)])
        noise = rng.normal(0, 3.0, (size, size, 1))
        return np.clip(base[None, None, :] + noise, 0, 255).astype(np.uint8)
    return table_texture(kind, int(rng.integers(0, 3)), seed, (size, size), px_per_mm=2.0)


def _lamp(rng: np.random.Generator, size: int) -> np.ndarray:
    """A spot lamp's light over the picture (multiplier, HxWx1): bright where it points, falling
    off to between 0.35 and 0.8 of that at the far corner."""
    cx, cy = rng.uniform(-0.3, 1.3, 2) * size
    reach = rng.uniform(0.6, 1.4) * size
    floor = rng.uniform(0.35, 0.8)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (reach ** 2)
    light = floor + (1.0 - floor) * np.exp(-r2)
    return (light * rng.uniform(0.9, 1.15))[..., None]


def render_closeup(seed: int, size: int = 100, halves: tuple[int, int] | None = None,
                   table: str | None = None) -> Closeup:
    """A close-up of one ivory double-six tile, drawn from ``seed`` (see the module docstring)."""
    if not 32 <= size <= 512:
        raise RenderSpecError(f"close-up size {size!r} px is out of range 32..512")
    if table is not None and table not in CLOSEUP_TABLES:
        raise RenderSpecError(f"close-up table {table!r} is unknown; use one of "
                              f"{list(CLOSEUP_TABLES)}")
    rng = np.random.default_rng(seed)
    if halves is None:
        halves = (int(rng.integers(0, 7)), int(rng.integers(0, 7)))
    kind = table if table is not None else CLOSEUP_TABLES[int(rng.integers(len(CLOSEUP_TABLES)))]
    big = size * SUPERSAMPLE
    geom = GEOMETRY_BY_SET[6]
    style = tile_style("ivory", rng)
    # the tile's length is 45-85% of the picture's side, at any angle, anywhere it fits
    length_px = rng.uniform(0.45, 0.85) * big
    px_per_mm = length_px / geom.length_mm
    face_bgr, alpha = face_texture(halves, style, geom, float(min(40.0, px_per_mm / 2)))
    angle = rng.uniform(0, 2 * np.pi)
    ua = np.array([np.cos(angle), np.sin(angle)])
    ub = np.array([-ua[1], ua[0]])
    half_l, half_w = length_px / 2, geom.width_mm * px_per_mm / 2
    room = big / 2 - np.abs(ua) * half_l - np.abs(ub) * half_w
    centre = big / 2 + rng.uniform(-1, 1, 2) * np.maximum(room - 0.03 * big, 0)
    corners = np.array([centre - half_l * ua - half_w * ub, centre - half_l * ua + half_w * ub,
                        centre + half_l * ua + half_w * ub, centre + half_l * ua - half_w * ub])
    th, tw = face_bgr.shape[:2]
    src = np.array([[0, 0], [0, th], [tw, th], [tw, 0]], np.float32)
    hom = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    img = _background(kind, rng, big).astype(np.float32)
    # shadow, then side walls seen on one side (the camera is not quite overhead)
    shift = rng.uniform(-1, 1, 2) * 0.12 * half_w * 2
    shadow = np.zeros((big, big), np.float32)
    cv2.fillConvexPoly(shadow, np.round(corners + shift * 2.5).astype(np.int32), 1.0)
    soft = cv2.GaussianBlur(shadow, (0, 0), 0.08 * big)
    img *= (1.0 - rng.uniform(0.2, 0.5) * soft)[..., None]
    side = np.zeros((big, big), np.uint8)
    cv2.fillConvexPoly(side, np.round(np.concatenate([corners, corners + shift])).astype(np.int32)[
        cv2.convexHull(np.concatenate([corners, corners + shift]).astype(np.float32),
                       returnPoints=False).reshape(-1)], 255)
    img[side > 0] = np.array(style.side_bgr, np.float32)
    face = cv2.warpPerspective(face_bgr, hom, (big, big), flags=cv2.INTER_LINEAR).astype(np.float32)
    a = cv2.warpPerspective(alpha, hom, (big, big), flags=cv2.INTER_LINEAR)[..., None]
    img = img * (1 - a) + face * a
    img *= _lamp(rng, big)
    out = cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (size, size),
                     interpolation=cv2.INTER_AREA)
    sigma = rng.uniform(0.0, 0.9)
    if sigma > 0.2:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out = np.clip(out.astype(np.float32) + rng.normal(0, rng.uniform(1, 5), out.shape), 0, 255)
    ok, enc = cv2.imencode(".jpg", out.astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
    if not ok:
        raise RenderSpecError("JPEG coding of a close-up failed")
    image = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    if image is None:
        raise RenderSpecError("JPEG decoding of a close-up failed")
    corners_out = (corners + 0.5) / SUPERSAMPLE - 0.5
    return Closeup(image, corners_out, halves, kind)
