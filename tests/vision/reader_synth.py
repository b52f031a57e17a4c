"""Simple synthetic tile pictures drawn for the reader's tests (no renderer needed).

A tile is drawn as a filled rotated rectangle with a thin darker rim, a divider line with small
margins across its middle and round pips in the standard 3x3 layouts (0..9). Corners follow the
shared convention: corners[0]-corners[1] is the outer short edge of halves[0].
"""

from __future__ import annotations

import math

import cv2
import numpy as np

# standard layouts on a 3x3 grid of the half (cells -1, 0, 1), the half's outer edge at -y
LAYOUTS: dict[int, list[tuple[int, int]]] = {
    0: [],
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    7: [(-1, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (1, 1)],
    8: [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)],
    9: [(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)],
}


def tile_corners(center: tuple[float, float], angle_deg: float, width: float) -> np.ndarray:
    """Corners (4, 2): the tile's long axis points along ``angle_deg`` from halves[0] to [1]."""
    a = math.radians(angle_deg)
    along = np.array([math.cos(a), math.sin(a)]) * width  # half the length = one width
    across = np.array([-math.sin(a), math.cos(a)]) * width / 2
    c = np.array(center, float)
    return np.array([c - along - across, c - along + across, c + along + across,
                     c + along - across])


def draw_tile(canvas: np.ndarray, center: tuple[float, float], angle_deg: float, width: float,
              halves: tuple[int, int], face=(225, 240, 245), ink=(20, 20, 20)) -> np.ndarray:
    """Draw one tile on a BGR canvas (in place) and return its corners."""
    corners = tile_corners(center, angle_deg, width)
    s = 8  # sub-pixel bits
    pts = np.round(corners * (1 << 3)).astype(np.int32)
    rim = tuple(int(v * 0.55) for v in face)
    cv2.fillConvexPoly(canvas, pts, rim, cv2.LINE_AA, 3)
    inner = corners + (corners.mean(axis=0) - corners) * (2.0 / width)
    cv2.fillConvexPoly(canvas, np.round(inner * (1 << 3)).astype(np.int32), face, cv2.LINE_AA, 3)
    a = math.radians(angle_deg)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-math.sin(a), math.cos(a)])
    c = np.array(center, float)
    thick = max(1, int(round(width * 0.05)))
    p0 = c - across * width * 0.4
    p1 = c + across * width * 0.4
    cv2.line(canvas, tuple(np.round(p0 * s).astype(int)), tuple(np.round(p1 * s).astype(int)),
             ink, thick, cv2.LINE_AA, 3)
    r = width * 0.09
    for k, value in enumerate(halves):
        sign = -1 if k == 0 else 1
        hc = c + sign * along * width / 2
        for gx, gy in LAYOUTS[value]:
            # within the half: y towards the outer edge
            p = hc + across * gx * width * 0.28 + along * sign * gy * width * 0.28
            cv2.circle(canvas, tuple(np.round(p * s).astype(int)), int(round(r * s)), ink, -1,
                       cv2.LINE_AA, 3)
    _ = s
    return corners


def table(width: int = 640, height: int = 480, colour=(60, 110, 40), seed: int = 0) -> np.ndarray:
    """A plain table cloth with a little seeded noise."""
    rng = np.random.default_rng(seed)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = colour
    noise = rng.normal(0, 4, (height, width, 3))
    return np.clip(img + noise, 0, 255).astype(np.uint8)
