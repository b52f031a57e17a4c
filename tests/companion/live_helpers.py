"""Helpers shared by the live-path tests: synthetic tiles and stand-in readings.

``_T``/``_R`` have the fields the live loop reads from ``vision.types.TileReading`` and
``Reading``; tests use them to script what "the camera read" without running the reader.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

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
    seen_half: tuple | None = None  # a cut tile's half read (the scripted reader reads none)


@dataclass
class _R:
    tiles: tuple


def picture(table_bgr: np.ndarray, tiles) -> np.ndarray:
    """``table_bgr`` with each tile drawn where it lies (a filled outline whose shade depends on
    its value), so the live loop's pictures change where the scripted readings do."""
    img = table_bgr.copy()
    for s in tiles:
        a, b = s.halves
        shade = 150 + 9 * (a + b)
        cv2.fillPoly(img, [np.round(np.asarray(s.corners)).astype(np.int32)], (shade, shade, shade))
    return img


def crop_offset(frame) -> tuple[int, int]:
    """Where ``frame`` lies in the picture it was sliced from (see
    :func:`companion.livelayers.crop_origin`)."""
    from companion.livelayers import crop_origin

    return crop_origin(frame)


def in_view(tiles, frame) -> tuple:
    """The scripted tiles a reader given ``frame`` (a whole picture or a crop of one) sees:
    those whole in it, in its own pixels; those partly in it come back cut."""
    x0, y0 = crop_offset(frame)
    h, w = frame.shape[:2]
    out = []
    for s in tiles:
        corners = tuple((x - x0, y - y0) for x, y in s.corners)
        inside = [0 <= x < w and 0 <= y < h for x, y in corners]
        if not any(inside):
            continue
        out.append(_T(s.tile, s.halves, corners, s.confidence, tuple(s.alternatives),
                      cut=not all(inside)))
    return tuple(out)


def laid_on(s: Seen, a: int, b: int, dx: float = 1.0, dy: float = -1.0) -> Seen:
    """A tile (a, b) laid on ``s``, slightly askew."""
    return Seen(Tile.of(a, b), (a, b), tuple((x + dx, y + dy) for x, y in s.corners), 0.99)


def changed_at(*places: tuple[float, float], radius: float = 25.0) -> Callable[[Seen], float]:
    """``changed`` for :func:`companion.tracking.diff`: the picture changed (all of a tile's
    outline) around ``places`` only."""
    def fraction(s: Seen) -> float:
        near = any(np.linalg.norm(s.center - np.asarray(p)) <= radius for p in places)
        return 1.0 if near else 0.0
    return fraction


def confirm_lead(session) -> None:
    """Confirm the question the camera asks about the first tile of a round (without the deal
    any player may lead it, so who did is asked: see ``companion.interpret_base._choose_player``)
    as it was read."""
    asked = [a for a in session.alerts if a.kind == "confirm"]
    assert len(asked) == 1 and "confidence 0.50" in asked[0].message, asked
    assert session.confirm(asked[0].id).status == "accepted"


def on_cells(a: int, b: int, ca: tuple[int, int], cb: tuple[int, int], cell: float = 24.0,
             origin: tuple[float, float] = (200.0, 120.0), lift: float = 0.0) -> Seen:
    """A Stackernoes tile with the half showing ``a`` over grid cell ``ca`` and ``b`` over
    ``cb`` (a cell is ``cell`` px, cell (0, 0) centred at ``origin``; ``lift`` px shifts it up
    the picture, as a stacked tile looks)."""
    pa = np.array([origin[0] + cell * ca[0], origin[1] + cell * ca[1] - lift])
    pb = np.array([origin[0] + cell * cb[0], origin[1] + cell * cb[1] - lift])
    along = (pb - pa) / np.linalg.norm(pb - pa)
    across = np.array([-along[1], along[0]]) * cell / 2
    o0, o1 = pa - along * cell / 2, pb + along * cell / 2
    corners = (tuple(o0 - across), tuple(o0 + across), tuple(o1 + across), tuple(o1 - across))
    return Seen(Tile.of(a, b), (a, b), corners, 0.99)
