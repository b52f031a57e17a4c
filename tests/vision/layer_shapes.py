"""Drawn tile shapes the layer tests share: a rotated rectangle and a flat tile face on it."""

from __future__ import annotations

import cv2
import numpy as np


def rect(cx: float, cy: float, length: float, width: float, deg: float) -> np.ndarray:
    """The corners (4, 2) of a ``length`` x ``width`` rectangle centred at (cx, cy), turned
    ``deg`` degrees (corners 0-1 at one short end)."""
    a = np.radians(deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-length / 2, -width / 2], [-length / 2, width / 2],
                      [length / 2, width / 2], [length / 2, -width / 2]])
    return local @ rot.T + [cx, cy]


def draw_tile(img: np.ndarray, quad: np.ndarray, face: int = 225) -> None:
    """A flat tile face with a dark rim, as the camera sees a tile's outline."""
    p = np.round(quad * 16).astype(np.int32)
    cv2.fillConvexPoly(img, p, (face, face, face), cv2.LINE_AA, 4)
    cv2.polylines(img, [p], True, (90, 90, 90), 2, cv2.LINE_AA, 4)
