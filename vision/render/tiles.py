"""Tile bodies and faces: sizes per set, pip layouts for 0..15, face textures.

Tile-local frame (millimetres): the tile's long axis is local ``+x``, from the FIRST half
(``halves[0]``, at ``x < 0``) to the SECOND half (``halves[1]``, at ``x > 0``); local ``+y`` is
across. The four outline corners, in the shared ground-truth order, are::

    corners[0] = (-L/2, -W/2)   corners[1] = (-L/2, +W/2)    (outer short edge of halves[0])
    corners[2] = (+L/2, +W/2)   corners[3] = (+L/2, -W/2)    (outer short edge of halves[1])

Pip layouts (``pip_layout``), in half-local coordinates ``(along, across)``:

* 0..9 sit on a 3 x 3 grid like an extended die: 1 centre; 2 and 3 on a diagonal; 4 corners;
  5 corners and centre; 6 two lines of three running along the tile; 7 the 6 plus the centre;
  8 every cell but the centre; 9 every cell.
* 10..15 sit on a 3-across x 5-along grid, as on double-fifteen sets: 10 the two outer lines of
  five; 11 adds the centre; 12 adds the middle line's second and fourth; 13 its first, third
  and fifth; 14 all but its centre; 15 every cell.

Face textures are drawn upright in texture pixels (``face_bgr`` plus ``alpha`` with rounded
corners) and cached: the scene warps them into the frame with one homography per tile.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.render.errors import RenderSpecError

BGR = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class TileGeometry:
    """Physical size of a tile body in millimetres."""

    length_mm: float
    width_mm: float
    thickness_mm: float
    corner_radius_mm: float

    def corners_local(self) -> np.ndarray:
        """The four outline corners in the tile-local frame, in ground-truth order (4x2)."""
        hl, hw = self.length_mm / 2, self.width_mm / 2
        return np.array([[-hl, -hw], [-hl, hw], [hl, hw], [hl, -hw]], dtype=np.float64)

    def outline_local(self, per_corner: int = 4) -> np.ndarray:
        """The rounded outline (convex, counter-clockwise in x-right/y-down) as Nx2 mm."""
        hl, hw, r = self.length_mm / 2, self.width_mm / 2, self.corner_radius_mm
        pts = []
        for cx, cy, a0 in ((hl - r, hw - r, 0), (-hl + r, hw - r, 90),
                           (-hl + r, -hw + r, 180), (hl - r, -hw + r, 270)):
            for k in range(per_corner + 1):
                a = np.deg2rad(a0 + 90.0 * k / per_corner)
                pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
        return np.array(pts, dtype=np.float64)


#: Tile sizes by set: double-six 48x24x8 mm, larger sets larger tiles.
GEOMETRY_BY_SET: dict[int, TileGeometry] = {
    6: TileGeometry(48.0, 24.0, 8.0, 3.5),
    9: TileGeometry(50.0, 25.0, 9.0, 3.5),
    12: TileGeometry(52.0, 26.0, 10.0, 4.0),
    15: TileGeometry(54.0, 27.0, 10.0, 4.0),
}


def geometry_for_set(set_max: int) -> TileGeometry:
    """The tile body of a double-``set_max`` set."""
    if set_max not in GEOMETRY_BY_SET:
        raise RenderSpecError(
            f"set_max {set_max!r} is not a known set; use one of {sorted(GEOMETRY_BY_SET)}")
    return GEOMETRY_BY_SET[set_max]


_GRID3 = {
    0: [], 1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)],
    6: [(a, c) for a in (-1, 0, 1) for c in (-1, 1)],
    7: [(a, c) for a in (-1, 0, 1) for c in (-1, 1)] + [(0, 0)],
    8: [(a, c) for a in (-1, 0, 1) for c in (-1, 0, 1) if (a, c) != (0, 0)],
    9: [(a, c) for a in (-1, 0, 1) for c in (-1, 0, 1)],
}
_MIDDLE5 = {10: [], 11: [0], 12: [-1, 1], 13: [-2, 0, 2], 14: [-2, -1, 1, 2],
            15: [-2, -1, 0, 1, 2]}


def pip_layout(n: int) -> np.ndarray:
    """Pip centres of value ``n`` (0..15) as ``(along, across)`` in units of the half's
    half-width (so -1..1 spans the half), and the pip radius in the same units, as a
    ``(k, 3)`` array ``[along, across, radius]``."""
    if not isinstance(n, (int, np.integer)) or not 0 <= n <= 15:
        raise RenderSpecError(f"pip value {n!r} is out of range; use an integer 0..15")
    if n <= 9:
        g, r = 0.52, 0.18
        pts = [(a * g, c * g, r) for a, c in _GRID3[int(n)]]
    else:
        ga, gc, r = 0.34, 0.5, 0.125
        pts = [(a * ga, c * gc, r) for a in (-2, -1, 0, 1, 2) for c in (-1, 1)]
        pts += [(a * ga, 0.0, r) for a in _MIDDLE5[int(n)]]
    return np.array(pts, dtype=np.float64).reshape(-1, 3)


@dataclass(frozen=True, slots=True)
class TileStyle:
    """How a tile looks. Colours are BGR tuples.

    ``pip_palette`` (16 colours, one per value) overrides ``pip_bgr`` for sets with a colour per
    pip value. ``colour`` is the set colour name used by games that tell sets apart (Build Up),
    or ``""``.
    """

    family: str
    face_bgr: BGR
    pip_bgr: BGR
    side_bgr: BGR
    back_bgr: BGR
    divider_bgr: BGR
    pip_palette: tuple[BGR, ...] | None = None
    divider: bool = True
    spinner_pin: bool = False
    #: Glossy drilled pips: a small bright glint in each pip.
    pip_glint: bool = False
    gloss: float = 0.6
    marbled: bool = False
    colour: str = ""

    def pip_colour(self, n: int) -> BGR:
        if self.pip_palette is not None:
            return self.pip_palette[n]
        return self.pip_bgr


@lru_cache(maxsize=256)
def _rounded_alpha(w: int, h: int, radius_px: float) -> np.ndarray:
    """Anti-aliased rounded-rectangle alpha (float32 0..1), drawn at 4x and shrunk."""
    s = 4
    big = np.zeros((h * s, w * s), np.uint8)
    r = max(1, int(round(radius_px * s)))
    cv2.rectangle(big, (r, 0), (w * s - 1 - r, h * s - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w * s - 1, h * s - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * s - 1 - r, r), (r, h * s - 1 - r), (w * s - 1 - r, h * s - 1 - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _marble(w: int, h: int, seed: int) -> np.ndarray:
    """A smooth marble vein field 0..1 (float32), seeded."""
    rng = np.random.default_rng(seed)
    n = cv2.resize(rng.random((6, 10)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    x = np.linspace(0, 6 * np.pi, w, dtype=np.float32)[None, :]
    v = np.abs(np.sin(x + 9.0 * n))
    return (1.0 - v) ** 6


@lru_cache(maxsize=2048)
def _face_layers(halves: tuple[int, int], geom: TileGeometry, px_per_mm: float, face_up: bool,
                 divider: bool, spinner_pin: bool, marbled: bool, pip_glint: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Colour-free layers of a face: alpha, shading (bevel, marbling), a label per pixel
    (0 face, 1 divider, 2 pips of the first half, 3 of the second, 4 pin, 5 pin highlight and
    pip glints) and that label's anti-aliased coverage 0..1."""
    w = max(8, int(round(geom.length_mm * px_per_mm)))
    h = max(4, int(round(geom.width_mm * px_per_mm)))
    ppm = w / geom.length_mm
    alpha = _rounded_alpha(w, h, round(geom.corner_radius_mm * ppm, 2))
    rim = cv2.GaussianBlur(alpha, (0, 0), max(0.8, 0.9 * ppm))
    shading = 0.78 + 0.22 * np.clip(rim * 1.6 - 0.3, 0, 1)
    if marbled:
        shading = shading * (1 - 0.18 * _marble(w, h, seed=halves[0] * 31 + halves[1]))
    shift = 4
    sc = float(1 << shift)
    zeros = np.zeros((h, w), np.uint8)
    pips = [zeros.copy(), zeros.copy()]
    div, pin, glint = zeros.copy(), zeros.copy(), zeros.copy()
    if face_up:
        half_w = geom.width_mm / 2 * ppm
        if divider:
            y0, y1 = int(round(0.12 * h * sc)), int(round(0.88 * h * sc))
            x = int(round(w / 2 * sc))
            cv2.line(div, (x, y0), (x, y1), 255, max(1, int(round(1.1 * ppm))), cv2.LINE_AA,
                     shift)
        for k, n in enumerate(halves):
            cx_half = w / 4 if k == 0 else 3 * w / 4
            for along, across, r in pip_layout(n):
                cx, cy = cx_half + along * (w / 4), h / 2 + across * half_w
                rad = max(1.0, r * half_w)
                cv2.circle(pips[k], (int(round(cx * sc)), int(round(cy * sc))),
                           int(round(rad * sc)), 255, -1, cv2.LINE_AA, shift)
                if pip_glint and rad >= 2.5:
                    cv2.circle(glint, (int(round((cx - 0.35 * rad) * sc)),
                                       int(round((cy - 0.35 * rad) * sc))),
                               int(round(0.22 * rad * sc)), 255, -1, cv2.LINE_AA, shift)
        if spinner_pin:
            rad = 1.6 * ppm
            c = (int(round(w / 2 * sc)), int(round(h / 2 * sc)))
            cv2.circle(pin, c, int(round(rad * sc)), 255, -1, cv2.LINE_AA, shift)
            cv2.circle(glint, (c[0] - int(rad * sc / 3), c[1] - int(rad * sc / 3)),
                       int(round(rad * sc / 3)), 255, -1, cv2.LINE_AA, shift)
    # one label per pixel (later layers win) and its anti-aliased coverage
    label = np.zeros((h, w), np.uint8)
    cover = np.zeros((h, w), np.float32)
    for k, m in enumerate((div, pips[0], pips[1], pin, glint), start=1):
        on = m > 0
        label[on] = k
        cover[on] = m[on].astype(np.float32) / 255.0
    return alpha, shading.astype(np.float32), label, cover


@lru_cache(maxsize=4096)
def face_texture(halves: tuple[int, int], style: TileStyle, geom: TileGeometry,
                 px_per_mm: float, face_up: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The top face of a tile, upright: first half on the left (texture ``x`` = local ``x``).

    Returns ``(face_bgr uint8 HxWx3, alpha float32 HxW)``; ``W = length * px_per_mm``. A face-down
    tile shows its plain back. Cached: treat the arrays as read-only.
    """
    for v in halves:
        pip_layout(v)  # validates
    if not 1.0 <= px_per_mm <= 40.0:
        raise RenderSpecError(f"texture resolution {px_per_mm!r} px/mm is out of range 1..40")
    alpha, shading, label, cover = _face_layers(
        tuple(int(v) for v in halves), geom, float(px_per_mm), bool(face_up), style.divider,
        style.spinner_pin, style.marbled, style.pip_glint)
    base = np.array(style.face_bgr if face_up else style.back_bgr, np.float32)
    face = shading[..., None] * base
    if face_up:
        lut = np.array([(0, 0, 0), style.divider_bgr, style.pip_colour(halves[0]),
                        style.pip_colour(halves[1]), (60, 150, 190), (190, 235, 250)],
                       np.float32)
        c3 = cover[..., None]
        face = face * (1 - c3) + lut[label] * c3
    face_bgr = np.clip(face, 0, 255).astype(np.uint8)
    face_bgr.setflags(write=False)
    alpha.setflags(write=False)
    return face_bgr, alpha
