"""Tiles and domino sets.

A :class:`Tile` is an unordered pair of pip values, written smaller-first (``"3-5"``).
Orientation belongs to a placement on the table, never to the tile: ``Tile.parse("5-3") ==
Tile.parse("3-5")`` and ``str(Tile.parse("5-3")) == "3-5"``.

Build Up plays with one double-six set per player, told apart by colour; there a tile's
identity includes its colour and is written ``"red:2-5"``. An uncoloured tile has the colour
``""``.

Sets: double-N holds every pair ``a <= b <= N``, so ``(N+1)(N+2)/2`` tiles (28, 55, 91, 136 for
N = 6, 9, 12, 15). :func:`check_set` checks any collection for size and uniqueness.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from companion.errors import SetError, TileParseError

#: The sets the companion knows, by their highest pip value.
SET_SIZES: dict[int, int] = {n: (n + 1) * (n + 2) // 2 for n in (6, 9, 12, 15)}

#: Largest pip value any supported set has.
MAX_PIPS = 15

_TILE_RE = re.compile(r"^\s*(?:([a-z][a-z0-9_]*)\s*:)?\s*(\d{1,2})\s*[-|x]\s*(\d{1,2})\s*$")


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One domino: pips ``low <= high``, optionally a set colour (Build Up).

    Ordering sorts by colour, then low, then high, and agrees with equality.
    Build tiles with :meth:`of` or :meth:`parse`; the constructor checks canonical order.
    """

    colour: str
    low: int
    high: int

    def __post_init__(self) -> None:
        if not (isinstance(self.low, int) and isinstance(self.high, int)):
            raise TileParseError(f"tile halves must be integers, got {self.low!r} and {self.high!r}")
        if not 0 <= self.low <= self.high <= MAX_PIPS:
            raise TileParseError(
                f"tile halves must satisfy 0 <= low <= high <= {MAX_PIPS}, got {self.low} and "
                f"{self.high}; use Tile.of(a, b) to order them"
            )

    # construction -------------------------------------------------------------------------
    @classmethod
    def of(cls, a: int, b: int, colour: str = "") -> "Tile":
        """The tile with halves ``a`` and ``b`` in any order."""
        a, b = int(a), int(b)
        return cls(colour, min(a, b), max(a, b))

    @classmethod
    def parse(cls, text: str) -> "Tile":
        """Parse ``"3-5"``, ``"5-3"`` or ``"red:2-5"``; raises :class:`TileParseError`."""
        if isinstance(text, Tile):
            return text
        if not isinstance(text, str):
            raise TileParseError(f"a tile is written as text like '3-5', got {text!r}")
        m = _TILE_RE.match(text)
        if not m:
            raise TileParseError(
                f"cannot read tile {text!r}: write it as 'a-b' with pip values 0..{MAX_PIPS} "
                f"(for example '3-5'), or 'colour:a-b' for a coloured set (for example 'red:2-5')"
            )
        colour, a, b = m.group(1) or "", int(m.group(2)), int(m.group(3))
        if a > MAX_PIPS or b > MAX_PIPS:
            raise TileParseError(f"cannot read tile {text!r}: pip values go from 0 to {MAX_PIPS}")
        return cls.of(a, b, colour)

    # queries ------------------------------------------------------------------------------
    @property
    def halves(self) -> tuple[int, int]:
        return (self.low, self.high)

    @property
    def pips(self) -> int:
        """Total pips on the tile (its value in most games)."""
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    def has(self, n: int) -> bool:
        """Whether either half shows ``n``."""
        return self.low == n or self.high == n

    def other(self, n: int) -> int:
        """The half opposite a half showing ``n``; raises if the tile has no ``n``."""
        if self.low == n:
            return self.high
        if self.high == n:
            return self.low
        raise ValueError(f"tile {self} has no half {n}")

    def plain(self) -> "Tile":
        """The same tile without its colour."""
        return Tile("", self.low, self.high) if self.colour else self

    def with_colour(self, colour: str) -> "Tile":
        return Tile(colour, self.low, self.high)

    def __str__(self) -> str:
        base = f"{self.low}-{self.high}"
        return f"{self.colour}:{base}" if self.colour else base

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"

    # immutable: copying returns the same object (keeps state snapshots cheap)
    def __copy__(self) -> "Tile":
        return self

    def __deepcopy__(self, memo: dict) -> "Tile":
        return self


def parse_tiles(items: Iterable[str | Tile]) -> list[Tile]:
    """Parse many tiles; the error names the offending item."""
    out = []
    for i, item in enumerate(items):
        try:
            out.append(Tile.parse(item))
        except TileParseError as exc:
            raise TileParseError(f"item {i}: {exc}") from None
    return out


def full_set(n: int, colour: str = "") -> list[Tile]:
    """Every tile of a double-``n`` set, sorted; ``n`` must be 6, 9, 12 or 15."""
    if n not in SET_SIZES:
        raise SetError(f"no double-{n} set: the companion knows double-" + ", double-".join(
            str(k) for k in SET_SIZES) + " sets")
    tiles = [Tile(colour, a, b) for a in range(n + 1) for b in range(a, n + 1)]
    check_set(tiles, n, colour=colour)
    return tiles


def check_set(tiles: Iterable[Tile], n: int, colour: str | None = None) -> None:
    """Check that ``tiles`` is exactly one complete double-``n`` set.

    Raises :class:`SetError` naming the duplicates, the missing tiles and the foreign tiles.
    """
    tiles = list(tiles)
    if n not in SET_SIZES:
        raise SetError(f"no double-{n} set; known: {sorted(SET_SIZES)}")
    counts = Counter(t.plain() for t in tiles)
    dup = sorted(t for t, c in counts.items() if c > 1)
    foreign = sorted(t for t in counts if t.high > n)
    missing = sorted(Tile("", a, b) for a in range(n + 1) for b in range(a, n + 1)
                     if Tile("", a, b) not in counts)
    colours = {t.colour for t in tiles}
    problems = []
    if len(tiles) != SET_SIZES[n]:
        problems.append(f"{len(tiles)} tiles instead of {SET_SIZES[n]}")
    if dup:
        problems.append("duplicates " + ", ".join(map(str, dup)))
    if missing:
        problems.append("missing " + ", ".join(map(str, missing)))
    if foreign:
        problems.append("not in the set " + ", ".join(map(str, foreign)))
    if colour is not None and colours - {colour}:
        problems.append(f"colours {sorted(colours)} instead of only {colour!r}")
    if problems:
        raise SetError(f"not a double-{n} set: " + "; ".join(problems))


def pip_total(tiles: Iterable[Tile]) -> int:
    """Sum of the pips of ``tiles``."""
    return sum(t.pips for t in tiles)


def untaken_alternatives(alternatives: Sequence[tuple[str, float]], taken: Iterable[Tile]
                         ) -> list[tuple[Tile, str, float]]:
    """Of a reading's other values ``(text, probability)`` (likeliest first), those whose tile
    is not in ``taken``: each as (tile, its text, probability), in the same order; texts that
    are not tiles are passed over. A picture or a table of one set holds each tile once, so a
    tile read as a value already taken is read as the first of these (the reader's
    :func:`vision.read.one_of_each`, the live interpreter's ``_as_misread``)."""
    gone = set(taken)
    out: list[tuple[Tile, str, float]] = []
    for text, p in alternatives:
        try:
            tile = Tile.parse(text)
        except ValueError:
            continue
        if tile not in gone:
            out.append((tile, text, p))
    return out


def oriented_halves(tile: Tile, read_halves: tuple[int, int],
                    half_confidences: tuple[float, float] | None = None) -> tuple[int, int]:
    """``tile``'s two values in the corner order of a reading ``read_halves`` of the same tile
    (a misreading, now known or taken to be ``tile``): the order that keeps the surer of the
    read halves in place (``half_confidences``, else both alike), then the more of them, then
    the first one; where none was read right, the order low-high. A tile read 2-2 that is 2-3
    keeps its surer 2 where it was; one read 3-3 keeps the first 3. The one rule for the
    reader's re-read tiles (``vision.read``), the live loop's set corrections
    (``companion.live``) and the interpreter's misreads (``companion.interpret_base``)."""
    confs = (1.0, 1.0) if half_confidences is None else half_confidences

    def kept(order: tuple[int, int]) -> tuple[float, int, bool]:
        same = [c for v, old, c in zip(order, read_halves, confs) if v == old]
        return (sum(same), len(same), order[0] == read_halves[0])

    return max(((tile.low, tile.high), (tile.high, tile.low)), key=kept)
