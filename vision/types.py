"""The Observation types of the vision side: what one photo of the table says.

A :class:`TileReading` is one face-up tile found in an image: its value, its pose in image pixels
and how sure the reader is. A :class:`Reading` is every tile of one image plus the warnings and
per-stage timings. Both validate on construction and raise :class:`VisionTypeError` (a
``ValueError``) with an "expected X, got Y" message, and both turn into plain JSON with
``to_json()``.

Conventions (shared with the renderer and the classifier):

- ``corners`` are 4 points ``[[x, y], ...]`` in image pixels going around the tile's top face;
  ``corners[0]-corners[1]`` is the outer short edge of the first half (``halves[0]``),
  ``corners[2]-corners[3]`` the outer short edge of the second half (``halves[1]``).
- ``angle`` is the direction in degrees (image coordinates, y down, 0..360) from the centre of
  the first half to the centre of the second half.
- ``layer`` is 0 for a tile on the table (stacked layers come later).
- A ``cut`` tile runs out of the frame: it is reported, its value is not guessed (``tile`` None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from companion.errors import DominoError
from companion.tiles import MAX_PIPS, Tile


class VisionTypeError(DominoError):
    """A reading built from values of the wrong type, shape or range."""


def _point(value: Any, what: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in value)
    except (TypeError, ValueError):
        raise VisionTypeError(f"{what}: expected a point [x, y] of two numbers, got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise VisionTypeError(f"{what}: expected finite coordinates, got {value!r}")
    return (x, y)


def _prob(value: Any, what: str) -> float:
    try:
        p = float(value)
    except (TypeError, ValueError):
        raise VisionTypeError(f"{what}: expected a number in 0..1, got {value!r}") from None
    if not 0.0 <= p <= 1.0 or math.isnan(p):
        raise VisionTypeError(f"{what}: expected a number in 0..1, got {p}")
    return p


#: Tile text -> its canonical text, for the alternatives of every reading (a reader makes a few
#: hundred a frame from a few dozen distinct texts); at most _TILE_TEXT_MAX entries are kept.
_TILE_TEXT: dict[str, str] = {}
_TILE_TEXT_MAX = 4096


def _tile_text(text: Any) -> str:
    """``str(Tile.parse(text))``, remembered for text seen before (a text that does not parse
    raises :class:`companion.tiles.TileParseError` each time and is never remembered)."""
    if not isinstance(text, str):
        return str(Tile.parse(text))
    got = _TILE_TEXT.get(text)
    if got is None:
        got = str(Tile.parse(text))
        if len(_TILE_TEXT) < _TILE_TEXT_MAX:
            _TILE_TEXT[text] = got
    return got


@dataclass(frozen=True)
class TileReading:
    """One face-up tile found in an image.

    ``halves`` are the pip values in corner order (``halves[0]`` at ``corners[0..1]``);
    ``tile`` is the canonical :class:`Tile` (None when ``cut``). ``confidence`` is the reader's
    probability that the tile value is right; ``half_confidences`` the same for each half;
    ``alternatives`` other likely values as ``(tile text, probability)``, likeliest first.
    ``seen_half``: for a ``cut`` tile with one half wholly in the picture, that half's
    ``(index, value, probability)`` (index 0: the half at ``corners[0..1]``); None otherwise.
    """

    tile: Tile | None
    halves: tuple[int, int] | None
    corners: tuple[tuple[float, float], ...]
    center: tuple[float, float]
    angle: float
    layer: int = 0
    confidence: float = 0.0
    half_confidences: tuple[float, float] = (0.0, 0.0)
    alternatives: tuple[tuple[str, float], ...] = ()
    cut: bool = False
    seen_half: tuple[int, int, float] | None = None

    def __post_init__(self) -> None:
        corners = self.corners
        if not hasattr(corners, "__len__") or len(corners) != 4:
            raise VisionTypeError(f"corners: expected 4 points [[x, y], ...], got {corners!r}")
        object.__setattr__(self, "corners",
                           tuple(_point(c, f"corners[{i}]") for i, c in enumerate(corners)))
        object.__setattr__(self, "center", _point(self.center, "center"))
        try:
            angle = float(self.angle)
        except (TypeError, ValueError):
            raise VisionTypeError(f"angle: expected degrees as a number, got {self.angle!r}") from None
        if not math.isfinite(angle):
            raise VisionTypeError(f"angle: expected a finite number of degrees, got {angle}")
        object.__setattr__(self, "angle", angle % 360.0)
        if not isinstance(self.layer, int) or isinstance(self.layer, bool) or self.layer < 0:
            raise VisionTypeError(f"layer: expected an integer >= 0, got {self.layer!r}")
        object.__setattr__(self, "confidence", _prob(self.confidence, "confidence"))
        hc = self.half_confidences
        if not hasattr(hc, "__len__") or len(hc) != 2:
            raise VisionTypeError(f"half_confidences: expected 2 numbers, got {hc!r}")
        object.__setattr__(self, "half_confidences",
                           (_prob(hc[0], "half_confidences[0]"), _prob(hc[1], "half_confidences[1]")))
        if not isinstance(self.cut, bool):
            raise VisionTypeError(f"cut: expected True or False, got {self.cut!r}")
        if self.cut:
            if self.tile is not None or self.halves is not None:
                raise VisionTypeError("a cut tile is not read: expected tile=None and halves=None, "
                                      f"got tile={self.tile!r}, halves={self.halves!r}")
        else:
            if not isinstance(self.tile, Tile):
                raise VisionTypeError(f"tile: expected a companion.tiles.Tile, got {self.tile!r}")
            h = self.halves
            if (not hasattr(h, "__len__") or len(h) != 2
                    or not all(isinstance(v, int) and 0 <= v <= MAX_PIPS for v in h)):
                raise VisionTypeError(f"halves: expected two pip values 0..{MAX_PIPS}, got {h!r}")
            object.__setattr__(self, "halves", (int(h[0]), int(h[1])))
            if Tile.of(*self.halves) != self.tile.plain():
                raise VisionTypeError(f"halves {self.halves} do not make tile {self.tile}: expected "
                                      f"halves that are the tile's two values in some order")
        if self.seen_half is not None:
            sh = self.seen_half
            if not self.cut or not hasattr(sh, "__len__") or len(sh) != 3 or sh[0] not in (0, 1) \
                    or not (isinstance(sh[1], int) and 0 <= sh[1] <= MAX_PIPS):
                raise VisionTypeError(f"seen_half: expected (0 or 1, a pip value 0..{MAX_PIPS}, "
                                      f"probability) on a cut tile, got {sh!r} (cut={self.cut})")
            object.__setattr__(self, "seen_half",
                               (int(sh[0]), int(sh[1]), _prob(sh[2], "seen_half probability")))
        alts = []
        for i, item in enumerate(self.alternatives):
            try:
                text, p = item
            except (TypeError, ValueError):
                raise VisionTypeError(f"alternatives[{i}]: expected (tile text, probability), "
                                      f"got {item!r}") from None
            alts.append((_tile_text(text), _prob(p, f"alternatives[{i}] probability")))
        object.__setattr__(self, "alternatives", tuple(alts))

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: tile text, halves, corners, centre, angle, layer, confidence and the rest."""
        return {
            "tile": None if self.tile is None else str(self.tile),
            "halves": None if self.halves is None else list(self.halves),
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "angle": round(self.angle, 1),
            "layer": self.layer,
            "confidence": round(self.confidence, 4),
            "half_confidences": [round(c, 4) for c in self.half_confidences],
            "alternatives": [{"tile": t, "p": round(p, 4)} for t, p in self.alternatives],
            "cut": self.cut,
            "seen_half": None if self.seen_half is None else
            [self.seen_half[0], self.seen_half[1], round(self.seen_half[2], 4)],
        }


@dataclass(frozen=True)
class Reading:
    """Everything read from one image: tiles, warnings, per-stage timings (ms), image size."""

    tiles: tuple[TileReading, ...]
    width: int
    height: int
    warnings: tuple[str, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tiles = tuple(self.tiles)
        for i, t in enumerate(tiles):
            if not isinstance(t, TileReading):
                raise VisionTypeError(f"tiles[{i}]: expected a TileReading, got {type(t).__name__}")
        object.__setattr__(self, "tiles", tiles)
        for name in ("width", "height"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise VisionTypeError(f"{name}: expected a positive integer of pixels, got {v!r}")
        warnings = tuple(self.warnings)
        if not all(isinstance(w, str) for w in warnings):
            raise VisionTypeError(f"warnings: expected text, got {warnings!r}")
        object.__setattr__(self, "warnings", warnings)
        timings = {}
        for k, v in dict(self.timings_ms).items():
            try:
                timings[str(k)] = float(v)
            except (TypeError, ValueError):
                raise VisionTypeError(f"timings_ms[{k!r}]: expected milliseconds, got {v!r}") from None
        object.__setattr__(self, "timings_ms", timings)

    @property
    def read_tiles(self) -> list[TileReading]:
        """The tiles whose value was read (cut tiles left out)."""
        return [t for t in self.tiles if not t.cut]

    def to_json(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "tiles": [t.to_json() for t in self.tiles],
            "warnings": list(self.warnings),
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
        }
