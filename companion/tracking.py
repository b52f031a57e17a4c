"""From two accepted readings of the table to what changed: a :class:`TableChange`.

Tiles are matched by value (and, when the reader measured it, face colour: in Build Up every
player's set has its own colour, so one value lies on the table once per set) and position,
nearest first: a tile seen in both readings at about the same place stayed; further away it
moved; only in the new reading it was added; only in the old one it was removed. For each added
tile the change says what it touches (which of its halves lies against which half of which
other tile, end to end or side by side) and what it lies on.

Layers as the table was watched being built: a tile added over the outline of known tiles
(their outlines overlap over at least :data:`COVER_MIN_OVERLAP` of the smaller one) lies on
them, one layer above the highest of them (``under``); a known tile that vanished under an
added one is ``covered``, not removed, and remembered as ``hidden``; when it is seen again (the
tile over it was taken back) it is ``uncovered``, with its layer, not added. A tile that stayed
keeps the layer it was given when it appeared; a tile of the first reading (nothing watched
yet) keeps the reader's cold-start layer. ``table`` is the new reading with these layers plus
the hidden tiles still covered: the next change is computed against it.
This module knows geometry only; the game's interpreter turns the change into a log entry.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from companion.tiles import Tile


@dataclass(frozen=True)
class Seen:
    """One tile as the camera saw it, in image pixels (or table mm: the units just agree)."""

    tile: Tile
    halves: tuple[int, int]
    corners: tuple[tuple[float, float], ...]
    confidence: float = 1.0
    alternatives: tuple[tuple[str, float], ...] = ()
    layer: int = 0
    #: the face colour (CIE Lab, OpenCV 8-bit scale) when measured (games told apart by set)
    face_lab: tuple[float, float, float] | None = None
    #: known to lie under a tile laid over it (remembered by the tracking, not seen now)
    hidden: bool = False

    @property
    def center(self) -> np.ndarray:
        return np.asarray(self.corners, dtype=np.float64).mean(axis=0)

    @property
    def width(self) -> float:
        """The short side (the scale of the tile in these units)."""
        c = np.asarray(self.corners, dtype=np.float64)
        return float(min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[3] - c[2])))

    def half_centres(self) -> np.ndarray:
        """Centres of the two halves (halves[0] near corners 0-1)."""
        c = np.asarray(self.corners, dtype=np.float64)
        mid = c.mean(axis=0)
        return np.stack([((c[0] + c[1]) / 2 + mid) / 2, ((c[2] + c[3]) / 2 + mid) / 2])

    @classmethod
    def from_reading(cls, t: Any) -> "Seen":
        """From a :class:`vision.types.TileReading` (or anything with the same fields)."""
        return cls(t.tile, tuple(t.halves), tuple(tuple(p) for p in t.corners),
                   float(t.confidence), tuple(t.alternatives), int(getattr(t, "layer", 0)))


@dataclass(frozen=True)
class Contact:
    """The added tile's half showing ``value`` lies against ``other``'s half showing
    ``other_value``; ``kind`` is ``end`` (end to end) or ``side`` (against a long side)."""

    value: int
    other: Tile
    other_value: int
    kind: str
    gap: float  # in tile widths

    @property
    def matches(self) -> bool:
        return self.value == self.other_value


@dataclass
class TableChange:
    """What changed between two readings (see the module docstring). ``covered`` holds
    (tile now hidden, the added tile over it); ``under`` maps each added tile to the known tiles
    it lies on, most overlapped first; ``table`` is the new reading with the watched layers."""

    added: list[Seen] = field(default_factory=list)
    removed: list[Seen] = field(default_factory=list)
    moved: list[tuple[Seen, Seen]] = field(default_factory=list)
    contacts: dict[Tile, list[Contact]] = field(default_factory=dict)
    covered: list[tuple[Seen, Seen]] = field(default_factory=list)
    under: dict[Seen, list[Seen]] = field(default_factory=dict)
    uncovered: list[Seen] = field(default_factory=list)
    table: list[Seen] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.moved)

    def describe(self) -> str:
        parts = []
        if self.added:
            parts.append("added " + ", ".join(str(s.tile) for s in self.added))
        if self.removed:
            parts.append("removed " + ", ".join(str(s.tile) for s in self.removed))
        if self.moved:
            parts.append("moved " + ", ".join(str(a.tile) for a, _ in self.moved))
        if self.covered:
            parts.append("covered " + ", ".join(f"{a.tile} by {b.tile}" for a, b in self.covered))
        return "; ".join(parts) or "no change"


def _seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(1e-12, float(np.dot(ab, ab))), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def polygon_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Smallest distance between the outlines of two convex quads (0 when they overlap)."""
    import cv2

    for poly, other in ((a, b), (b, a)):
        for p in other:
            if cv2.pointPolygonTest(poly.astype(np.float32), (float(p[0]), float(p[1])), False) >= 0:
                return 0.0
    best = math.inf
    for poly, other in ((a, b), (b, a)):
        for p in other:
            for i in range(4):
                best = min(best, _seg_dist(p, poly[i], poly[(i + 1) % 4]))
    return best


def contacts_of(new: Seen, others: Iterable[Seen], max_gap: float = 0.3) -> list[Contact]:
    """What ``new`` touches among ``others`` (gaps in units of the tile width)."""
    out: list[Contact] = []
    a = np.asarray(new.corners, dtype=np.float64)
    w = max(1e-6, new.width)
    hc = new.half_centres()
    for o in others:
        if o.tile == new.tile:
            continue
        b = np.asarray(o.corners, dtype=np.float64)
        gap = polygon_gap(a, b) / w
        if gap > max_gap:
            continue
        ohc = o.half_centres()
        d = np.linalg.norm(hc[:, None, :] - ohc[None, :, :], axis=2)
        i, j = np.unravel_index(int(np.argmin(d)), d.shape)
        # end to end when the two long axes are parallel and in line, else against a side
        ax_a = hc[1] - hc[0]
        ax_b = ohc[1] - ohc[0]
        cos = abs(float(np.dot(ax_a, ax_b)) / max(1e-9, np.linalg.norm(ax_a) * np.linalg.norm(ax_b)))
        centre_line = new.center - o.center
        along = abs(float(np.dot(centre_line, ax_b)) / max(1e-9, np.linalg.norm(centre_line) * np.linalg.norm(ax_b)))
        kind = "end" if cos > 0.9 and along > 0.9 else "side"
        out.append(Contact(new.halves[i], o.tile, o.halves[j], kind, round(gap, 3)))
    out.sort(key=lambda c: (not c.matches, c.gap))
    return out


#: An added tile lies on a known tile when their outlines overlap over at least this fraction
#: of the smaller outline (a tall neighbour's picture overlaps only a sliver by parallax).
COVER_MIN_OVERLAP = 0.25
#: Two sightings of one value at one place are one tile unless their measured face colours lie
#: further apart than this (Lab distance; sets of different colours lie 40 and more apart).
SAME_FACE_MAX_LAB = 25.0


def overlap_fraction(a: Seen, b: Seen) -> float:
    """The area where two tiles' outlines overlap, as a fraction of the smaller outline."""
    import cv2

    qa = cv2.convexHull(np.asarray(a.corners, np.float32)).reshape(-1, 2)
    qb = cv2.convexHull(np.asarray(b.corners, np.float32)).reshape(-1, 2)
    smaller = min(float(cv2.contourArea(qa)), float(cv2.contourArea(qb)))
    if smaller <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(qa, qb)
    return float(inter) / smaller


def _same_face(a: Seen, b: Seen) -> bool:
    if a.face_lab is None or b.face_lab is None:
        return True
    return float(np.linalg.norm(np.subtract(a.face_lab, b.face_lab))) <= SAME_FACE_MAX_LAB


def _same_tile(a: Seen, b: Seen) -> bool:
    """Two sightings that may be one tile: the same value and, where both faces were measured,
    about the same face colour (the set label may flicker; the measured colour decides)."""
    if a.face_lab is not None and b.face_lab is not None:
        return a.tile.plain() == b.tile.plain() and _same_face(a, b)
    return a.tile == b.tile


def diff(before: Sequence[Seen], after: Sequence[Seen], move_tol: float = 0.5) -> TableChange:
    """What changed from ``before`` to ``after`` (``move_tol`` in tile widths); see the module
    docstring for the layers it carries and the hidden tiles it remembers."""
    before, after = list(before), list(after)
    # one tile in both readings: same value (and face), nearest pairs first
    pairs = sorted((float(np.linalg.norm(o.center - s.center)) / max(1e-6, o.width), i, j)
                   for i, o in enumerate(before) for j, s in enumerate(after)
                   if _same_tile(o, s))
    match_old: dict[int, int] = {}
    match_new: dict[int, int] = {}
    for dist, i, j in pairs:
        if before[i].hidden and dist > move_tol:
            continue  # a hidden tile comes back only where it lay
        if i not in match_old and j not in match_new:
            match_old[i], match_new[j] = j, i
    visible = [o for o in before if not o.hidden]
    change = TableChange()
    table: list[Seen] = []
    for j, s in enumerate(after):
        if j in match_new:
            o = before[match_new[j]]
            if o.hidden:  # the tile over it was taken away: seen again where it lay
                s = dataclasses.replace(s, layer=o.layer)
                change.uncovered.append(s)
                table.append(s)
            elif np.linalg.norm(o.center - s.center) > move_tol * max(1e-6, o.width):
                change.moved.append((o, s))
                table.append(s)
            else:  # the same tile where it was: it keeps the layer it was given then
                table.append(dataclasses.replace(s, layer=o.layer))
            continue
        under = sorted(((overlap_fraction(s, o), k) for k, o in enumerate(visible)),
                       reverse=True)
        below = [visible[k] for f, k in under if f >= COVER_MIN_OVERLAP]
        if below:
            s = dataclasses.replace(s, layer=1 + max(o.layer for o in below))
        elif before:  # watched: nothing known under it, so it lies on the table
            s = dataclasses.replace(s, layer=0)
        change.added.append(s)
        change.under[s] = below
        table.append(s)
    for i, o in enumerate(before):
        if i in match_old:
            continue
        if o.hidden:  # still under something seen now: still hidden; else gone with its stack
            if any(not t.hidden and overlap_fraction(t, o) >= COVER_MIN_OVERLAP for t in table):
                table.append(o)
            else:
                change.removed.append(dataclasses.replace(o, hidden=False))
            continue
        over = next((s for s in change.added if o in change.under[s]), None)
        if over is not None:
            change.covered.append((o, over))
            table.append(dataclasses.replace(o, hidden=True))
        else:
            change.removed.append(o)
    for s in change.added:
        change.contacts[s.tile] = contacts_of(s, [t for t in table if not t.hidden])
    change.table = table
    return change
