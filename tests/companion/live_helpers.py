"""Helpers shared by the live-path tests: synthetic tiles and stand-in readings.

``_T``/``_R`` have the fields the live loop reads from ``vision.types.TileReading`` and
``Reading``; tests use them to script what "the camera read" without running the reader.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.tiles import Tile
from companion.tracking import Seen

W = 20.0  # tile width in pixels for the synthetic geometry
L = 40.0


def tile_at(a: int, b: int, cx: float, cy: float, vertical: bool = False,
            conf: float = 0.99) -> Seen:
    """A tile with halves (a, b) centred at (cx, cy), horizontal (a on the left) or vertical
    (a on top)."""
    if vertical:
        corners = ((cx + W / 2, cy - L / 2), (cx - W / 2, cy - L / 2), (cx - W / 2, cy + L / 2),
                   (cx + W / 2, cy + L / 2))
    else:
        corners = ((cx - L / 2, cy - W / 2), (cx - L / 2, cy + W / 2), (cx + L / 2, cy + W / 2),
                   (cx + L / 2, cy - W / 2))
    return Seen(Tile.of(a, b), (a, b), corners, conf)


@dataclass
class _T:
    tile: Tile
    halves: tuple
    corners: tuple
    confidence: float
    alternatives: tuple = ()
    layer: int = 0
    cut: bool = False


@dataclass
class _R:
    tiles: tuple
