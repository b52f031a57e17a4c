"""Plain-data helpers for the Stackernoes grid and for cheap state copies.

Stackernoes places tiles on a grid of half-tile cells: a cell is an ``(x, y)`` pair of integers,
a direction is a unit step such as ``(1, 0)``. :func:`fast_copy` copies game state made of plain
containers much faster than ``copy.deepcopy`` (the rules core saves the state before every move
so that a rejected move leaves it unchanged).
"""

from __future__ import annotations

import copy
from typing import Any

from companion.tiles import Tile

Cell = tuple[int, int]

_ATOMS = (int, str, float, bool, tuple, Tile, type(None))


def step(c: Cell, d: Cell, k: int = 1) -> Cell:
    """The cell ``k`` steps from ``c`` in direction ``d``."""
    return (c[0] + k * d[0], c[1] + k * d[1])


def perpendiculars(d: Cell) -> tuple[Cell, Cell]:
    """The two directions at right angles to ``d``."""
    return ((-d[1], d[0]), (d[1], -d[0]))


def distance(a: Cell, b: Cell) -> int:
    """Steps between two cells along the grid (Manhattan distance)."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def fast_copy(v: Any) -> Any:
    """A deep copy of plain data: dicts, lists and sets are copied, everything immutable
    (numbers, text, tuples of immutables, Tiles) is shared. Other objects fall back to
    ``copy.deepcopy``."""
    if isinstance(v, _ATOMS):
        return v
    if isinstance(v, dict):
        return {k: fast_copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [fast_copy(x) for x in v]
    if isinstance(v, set):
        return set(v)
    return copy.deepcopy(v)
