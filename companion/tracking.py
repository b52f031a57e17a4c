"""From two accepted readings of the table to what changed: a :class:`TableChange`.

Tiles are matched by value (and, when the reader measured it, face colour: in Build Up every
player's set has its own colour, so one value lies on the table once per set) and position,
nearest first: a tile seen in both readings at about the same place stayed; further away it
moved; only in the new reading it was added; only in the old one it was removed. For each added
tile the change says what it touches (which of its halves lies against which half of which
other tile, end to end or side by side) and what it lies on.

Layers as the table was watched being built: a tile added over the outline of known tiles
(their outlines overlap over at least :data:`COVER_MIN_OVERLAP` of the smaller one; with the
memory below, only known tiles whose picture changed: a tile laid on another changes its
picture) lies on them, one layer above the highest of them (``under``); a known tile that vanished under an
added one is ``covered``, not removed, and remembered as ``hidden``; when it is seen again (the
tile over it was taken back) it is ``uncovered``, with its layer, not added. A tile that stayed
keeps the layer it was given when it appeared; a tile of the first reading (nothing watched
yet) keeps the reader's cold-start layer. A tile laid on another hides it, so a sighting of
another value over the outline of a tile seen in the same reading (outlines overlapping by
:data:`REREAD_MIN_IOU`) is that tile read twice and is left out. ``table`` is the new reading
with these layers plus the hidden tiles still covered (and the tiles the memory below keeps):
the next change is computed against it.

A short memory against a reader that misses a tile now and then, or reads it with another
outline or value for a frame, when the caller says where the picture changed since the
``before`` reading (``changed``: the fraction of a tile's outline that changed, e.g.
:func:`changed_fractions`). A known tile whose place did not change (at most
:data:`STILL_MAX_CHANGED` of its outline) and that the reading did not find is kept, ``unseen``
(for at most :data:`UNSEEN_MAX` readings in a row), not removed; its value found away from it
is another tile, not this one moved. In a game whose tiles stay where they are laid
(``fixed``), a known tile the reading did not find is removed only where the picture at it
changed, outside the tiles laid now over part of it, by more than :data:`LAID_MIN_CHANGED` of
its outline (as a tile taken away changes it, or a tile laid on it that the reader did not
find); else it is kept, ``unseen``, for as long as that holds (a tile laid beside it that
changes a corner of its picture, or a reader that misses it for many readings, takes nothing
away); but a tile found once, late, over nothing known (:attr:`Seen.late_once`) and not found
again is forgotten, without a report, once it has been unseen for :data:`UNSEEN_MAX` readings
where nothing was taken (a misreading: kept, it would stay on the table for good); so is any
tile found in one reading only while the table was watched (:attr:`Seen.sightings`: a piece of
a stack read as a tile), once unseen for :data:`FEW_SIGHTINGS_UNSEEN` readings where nothing
was taken; and such a tile whose place is read again as one other value, sure, in
:data:`REPLACE_AFTER` readings in a row is that value (``replaced``: its first sighting was a
misreading). A tile found where less than :data:`LAID_MIN_CHANGED` of
its own outline changed was not laid now: over a known tile the reading did not find (outlines
overlapping by :data:`REREAD_AGAIN_IOU`) it is that tile read again, as another value or
with another outline, and the known tile stays as it was; elsewhere it was missed before and is found late: it covers
nothing and keeps the reader's cold-start layer. In a game whose tiles stay where they are
laid (``fixed``: the stacking games), a sighting of a known tile's value whose own outline
changed as a tile laid does (more than :data:`LAID_MIN_CHANGED`), with no other tile laid now
over the known tile to explain the change, is a tile laid now read with that value, not the
known tile: at the known tile's place it is laid on it (one layer up, the known tile
``covered``); elsewhere it is not the known tile moved. Games that move tiles (Castle Rock's
row closing up) and a glare spot changing over a tile are why this is the game's choice. Where the picture changed (a
tile taken away, or laid there) a tile gone with nothing seen over it is removed, as without the
memory; unless the tile under it is seen again (it was taken away) it is remembered (``gone``,
hidden) for :data:`GONE_MAX` readings as where a tile went. When its outline changed as a tile
laid does, a tile the reader missed is inferred to lie on it (``unseen_on``), one more each later
reading where its outline changes so again with nothing found there; where tiles stay where they
are laid (``fixed``) such a tile is reported in ``unread`` (covered by a tile not read: the
interpreter asks which), not ``removed``, unless tiles it lay on are reported removed in the same
change (overlapping it by :data:`VANISHED_UNDER_MIN`: it went with its stack). A tile laid now over it
lies above those inferred tiles; a tile found late over it is the highest of them (laid on it
while the reader missed both); either way it is ``covered`` after all. Such a tile's layer
counts tiles never seen: it carries ``inferred_under`` and a :attr:`Seen.layer_confidence`
below 1; the inferred tiles themselves are never in the table (their values are unknown).
Found again itself, where it lay, it is added (it was removed), with its layer.
A hidden tile stays while a tile seen lies over it, or a hidden tile that stays lies above it
(a span the reader read as two tiles, one on each support, then covered by the next tile: the
supports lie under those two, the next tile over less than :data:`COVER_MIN_OVERLAP` of each),
and with the memory while the picture at it did not change (nothing was taken off it); where
tiles stay where they are laid, also while a known tile read away from its place this time
(``moved``: seen through a tile laid on part of it) lay over it where it was; under a
tile gone it is removed and remembered with it (where tiles stay where they are laid, not
reported: the tile seen on top of the stack is the one report of it going out of sight).
Without ``changed`` nothing is remembered.
Something that is not a tile put down over tiles (a mug, a phone, a score pad): when the caller
marked it (:meth:`ChangedFractions.mark_things`: a patch of change whose solid part outside
every known and found tile's outline covers at least :data:`THING_MIN_TILES` tiles), a known
tile not found with :data:`THING_COVER` of its outline in that patch is not removed: it is
``obscured`` (reported once in the change's ``obscured``) and kept where it lay for as long as
the picture at it does not change again; when the thing is taken away it is found where it lay,
which is no change at all.
Where tiles stay where they are laid (``fixed``), with the memory, a tile laid over part of a
known tile changes part of its picture and the reader may read the known tile then with the
new tile's pips: another value over a known tile not found (outlines overlapping by
:data:`REREAD_AGAIN_IOU`) is that tile read again, not a tile laid on it, also where its
outline changed as a tile laid does, when another tile laid now over part of the known tile
changed at least as much, or when it lies along the known tile (outlines overlapping by
:data:`REREAD_MIN_IOU`) and one half of the known tile did not change while the picture around
it did (a tile laid over its other half only lies partly outside it; the same holds for the
known tile's own value read there). Where the picture around the known tile did not change
(:func:`around`, :data:`AROUND_STILL_MAX`), another value read along it is a tile laid exactly
on it (Stackernoes lays the matching half directly above the same pips, which hardly change),
laid now from :data:`EXACT_MIN_CHANGED` of its outline. A known tile
read again so does not explain the change of the picture there (a tile not found is inferred
there when nothing found explains it). A known value read away from its tile's place over
another known tile not found now (outlines overlapping by :data:`REREAD_MIN_IOU`) is that tile
read again, not a move; and a tile found late read at less than :data:`LATE_MIN_CONFIDENCE`
is left out (a misreading of a partly covered tile).
This module knows geometry only; the game's interpreter turns the change into a log entry.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

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
    #: readings in a row that did not find this tile although the picture where it lies did
    #: not change (kept by the tracking's memory; 0: found in the last reading)
    unseen: int = 0
    #: removed by the last reading where the picture changed and nothing was seen over it:
    #: remembered (``hidden``) for one more reading, in case a tile the reader missed lies on it
    gone: bool = False
    #: for a tile out of sight (``gone``): readings since it went, and how many tiles the
    #: reader never found are inferred to lie on it (the picture at it changed, by more than
    #: :data:`LAID_MIN_CHANGED`, with no tile found there to explain it)
    gone_since: int = 0
    unseen_on: int = 0
    #: tiles under this one that the reader never found, inferred from the picture changing
    #: where a known tile went out of sight: its layer counts them (see :attr:`layer_confidence`)
    inferred_under: int = 0
    #: a tile never found, inferred where the picture changed about as much as a tile laid,
    #: with no tile found or known there (see :func:`diff`): its outline is that change's,
    #: its value unknown (``tile`` is :data:`UNSEEN_TILE`); always hidden and ``gone``, never
    #: in a change's added, removed, covered or under, only counted in layers above it
    inferred: bool = False
    #: found late (where the picture did not change as a tile laid), over nothing known, and
    #: not found again since: where tiles stay where they are laid, a sighting that
    #: :func:`diff` forgets without a report when it stays unseen (a misreading)
    late_once: bool = False
    #: readings that found this tile (where it lay, or moved); a reading of another value at
    #: its place (read again) is not one: where tiles stay where they are laid, a tile found in
    #: only :data:`FEW_SIGHTINGS` readings and not found since is forgotten (see :func:`diff`).
    #: A tile of the first reading counts as found ``FEW_SIGHTINGS + 1`` times (not seen
    #: appearing). Bookkeeping: two sightings of one tile compare equal whatever their counts
    sightings: int = field(default=1, compare=False)
    #: the value the last readings read at this tile's place instead (read again, see
    #: :func:`diff`), and in how many readings in a row: where tiles stay where they are laid, a
    #: tile found in one reading only is replaced by a value read there instead, sure, in
    #: :data:`REPLACE_AFTER` readings in a row. Bookkeeping, not compared
    reread_as: Tile | None = field(default=None, compare=False)
    reread_times: int = field(default=0, compare=False)
    #: a tile running out of the picture with one half in it (:meth:`partly_from_reading`):
    #: the index of that half in :attr:`halves` (the other half's value is a guess); None for
    #: a tile seen whole
    seen_half: int | None = None
    #: not found, where the picture changed as something that is not a tile put down over it
    #: does (a mug, a phone: :meth:`ChangedFractions.under_thing`): kept where it lay, out of
    #: sight, for as long as the picture at it does not change again (see :func:`diff`)
    obscured: bool = False

    @property
    def layer_confidence(self) -> float:
        """How sure the watched layer is: 1 when every tile under it was seen, less by
        :data:`INFERRED_LAYER_CONFIDENCE` for each tile under it that was only inferred."""
        return INFERRED_LAYER_CONFIDENCE ** self.inferred_under

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
    def from_reading(cls, t: Any) -> Seen:
        """From a :class:`vision.types.TileReading` (or anything with the same fields)."""
        return cls(t.tile, tuple(t.halves), tuple(tuple(p) for p in t.corners),
                   float(t.confidence), tuple(t.alternatives), int(getattr(t, "layer", 0)))

    @classmethod
    def partly_from_reading(cls, t: Any, set_max: int) -> Seen:
        """From a cut :class:`vision.types.TileReading` whose ``seen_half`` was read: the tile
        with that half's value and a guess for the half out of the picture, which nothing
        tells apart, so every value 0..``set_max`` is as likely: the guess is the lowest, the
        others its alternatives, all at the seen half's probability shared among them (so a
        person is always asked; the interpreters take the first value not on the table,
        :func:`companion.interpret_base._new_tiles`, and where that makes no legal play the
        first that does, :func:`companion.interpret_base._first_legal_value`)."""
        index, value, p = t.seen_half
        share = float(p) / (set_max + 1)
        tiles = [Tile.of(value, other) for other in range(set_max + 1)]
        first = tiles[0]
        halves = (value, first.other(value)) if index == 0 else (first.other(value), value)
        return cls(first, halves, tuple(tuple(q) for q in t.corners), share,
                   tuple((str(k), share) for k in tiles[1:]), int(getattr(t, "layer", 0)),
                   seen_half=int(index))


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
    #: where tiles stay where they are laid (``fixed``), with the memory: known tiles not found
    #: whose picture changed as a tile laid on them does (more than :data:`LAID_MIN_CHANGED` of
    #: the outline, outside tiles found laid now over part of it) with nothing found there and
    #: the tile under them not seen again: a tile the reader did not find was laid on each (or
    #: it was taken off: the picture alone does not tell). Not in ``removed`` (unless tiles it
    #: lay on are removed in the same change: it went with its stack); remembered ``gone``
    #: with one tile inferred on it (:attr:`Seen.unseen_on`)
    unread: list[Seen] = field(default_factory=list)
    moved: list[tuple[Seen, Seen]] = field(default_factory=list)
    contacts: dict[Tile, list[Contact]] = field(default_factory=dict)
    covered: list[tuple[Seen, Seen]] = field(default_factory=list)
    under: dict[Seen, list[Seen]] = field(default_factory=dict)
    uncovered: list[Seen] = field(default_factory=list)
    #: where tiles stay where they are laid: (known tile found in one reading only, the value
    #: read at its place instead in :data:`REPLACE_AFTER` readings in a row), the table shows
    #: the second in the first's place and layer (the first was a misreading); not a play
    #: (the stacking games' interpreters say so where the first was entered in the log)
    replaced: list[tuple[Seen, Seen]] = field(default_factory=list)
    #: known tiles that went out of sight now under something that is not a tile (a mug, a
    #: phone put down over them: :meth:`ChangedFractions.under_thing`): kept in ``table``
    #: where they lay (:attr:`Seen.obscured`), not removed; no play
    obscured: list[Seen] = field(default_factory=list)
    table: list[Seen] = field(default_factory=list)
    #: the player whose seat the hand that made this change reached in from, when the live loop
    #: knows it (:class:`companion.live.SeatMemory`; None: not known): for a play the rules
    #: let several players make (who leads a round without the deal)
    reached_by: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.unread or self.moved or self.replaced)

    def describe(self) -> str:
        parts = []
        if self.added:
            parts.append("added " + ", ".join(str(s.tile) for s in self.added))
        if self.removed:
            parts.append("removed " + ", ".join(str(s.tile) for s in self.removed))
        if self.unread:
            parts.append("covered by a tile not read " + ", ".join(str(s.tile)
                                                                  for s in self.unread))
        if self.moved:
            parts.append("moved " + ", ".join(str(a.tile) for a, _ in self.moved))
        if self.covered:
            parts.append("covered " + ", ".join(f"{a.tile} by {b.tile}" for a, b in self.covered))
        if self.replaced:
            parts.append("read again " + ", ".join(f"{a.tile} as {b.tile}"
                                                   for a, b in self.replaced))
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
        cos = abs(float(np.dot(ax_a, ax_b))
                  / max(1e-9, float(np.linalg.norm(ax_a) * np.linalg.norm(ax_b))))
        centre_line = new.center - o.center
        along = abs(float(np.dot(centre_line, ax_b))
                    / max(1e-9, float(np.linalg.norm(centre_line) * np.linalg.norm(ax_b))))
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
#: A known tile not found where the picture did not change is kept for at most this many
#: readings in a row, then removed (a tile taken away changes the picture and goes at once);
#: where tiles stay where they are laid (``fixed``) it is kept for as long as its place does
#: not change (see :func:`diff`; helper C, session 9, on training build sequences 7000-7029:
#: false removals 20 -> 8, 4 of them kept after this many readings, 7 changed a little, 1
#: changed under a tile laid over part of it; tile-frames on the right layer 1876 of 1902 ->
#: 1876 of 1904, last frames 131/137 -> 131/138; with a stack out of sight reported once,
#: 7; held-out `layerlive --scenes 40 --sequences 10`: 27 -> 7, watched 783/790 -> 785/792).
#: Through the reader on rendered build sequences (`layerlive` watched, reader of 2026-11-22
#: 04:00, seeds 1,005,100-109): 1 puts 718/741 frame-tiles on the right layer, 2 713/739,
#: 3 723/749, 5 728/749, 10 726/748; on three other cached runs 5 is as good or better.
UNSEEN_MAX = 5
#: Where tiles stay where they are laid (``fixed``), a known tile found in at most this many
#: readings (:attr:`Seen.sightings`) and then not found in :data:`FEW_SIGHTINGS_UNSEEN` readings
#: in a row where nothing was taken is forgotten without a report: a misreading (a piece of a
#: stack read as a tile, a tile read twice with a shifted outline), which kept would be shown
#: where no tile is for good. Helper C2, session 10, on the cached training build sequences
#: (`runs/C10/c2/phk.py`; frame-tiles shown matching no truth tile by IoU 0.3 / shown with a
#: value no truth tile there has): 7000-7029 48 -> 36 / 302 -> 275, 7030-7059 156 -> 102 /
#: 651 -> 606 (last frames 23 -> 2), tile-frames on the right layer, false removals and
#: questions identical (1876/1904, 0, 7; 2359/2365, 2, 6); kept one reading less (1) loses
#: 11 right tile-frames on 7030-7059, one more (3) cuts 125 / 619 there; forgetting tiles found
#: in 2 readings too loses 2 found tile-frames on 7000-7029.
FEW_SIGHTINGS = 1
FEW_SIGHTINGS_UNSEEN = 2
#: Where tiles stay where they are laid, a known tile found in at most :data:`FEW_SIGHTINGS`
#: readings whose place is read again as one other value in this many readings in a row, the
#: last at :data:`REPLACE_MIN_CONFIDENCE` or more, is that value (the first sighting was a
#: misreading; see :attr:`TableChange.replaced`). Helper C2, session 10, on the cached
#: training build sequences (`runs/C10/c2/phk.py`): 7000-7029 tile-frames on the right layer
#: 1876/1904 -> 1884/1906, last frames 131/138 -> 133/139, shown with a value no truth tile
#: there has 275 -> 280; 7030-7059 2359/2365 -> 2379/2385, 141/143 -> 144/146, 606 -> 586;
#: shown where no tile is, removals and questions identical. 3 readings changes nearly nothing
#: (604 on 7030-7059); tiles found in 2 readings too: 312 / 588; a bar of 0.5: 284 / 582.
REPLACE_AFTER = 2
REPLACE_MIN_CONFIDENCE = 0.9
#: Outlines overlapping by at least this IoU are one tile read twice (in one reading) or again
#: (a tile not laid now over a known tile not found); a tile laid across half of another (a
#: span) overlaps it by about 0.33.
REREAD_MIN_IOU = 0.5
#: With the memory, a tile not laid now over a known tile not found in this reading is that
#: tile read again (with a jittered outline or another value) when their outlines overlap by
#: this IoU: the reader's outlines of upper tiles move by a third of a tile between frames
#: (`layerlive` watched with the reader of 2026-11-22 04:00, seeds 1,005,100-109: 0.5 puts
#: 694/770 frame-tiles on the right layer, 0.4 701/767, 0.35 719/753, 0.3 713/739; on three
#: other cached runs 0.3 is as good or better). A span found late over a tile not found now
#: (IoU about 0.33) is then taken for that tile.
REREAD_AGAIN_IOU = 0.3
#: The picture at a known tile did not change when at most this fraction of its outline changed
#: (a tile laid on another changes a tenth of its outline and more on rendered build sequences).
STILL_MAX_CHANGED = 0.05
#: A patch of change (:class:`ChangedFractions`) is something that is not a tile put down (a
#: mug, a phone, a score pad) when the part of it that no tile's outline explains (the tiles
#: known before and those found now, each grown by :data:`THING_TILE_MARGIN` of its width for
#: its side walls and shadow) covers at least this many tiles' areas: a tile taken away or laid
#: changes its own outline; a tile laid that the reader missed, about one tile's area.
THING_MIN_TILES = 1.5
THING_TILE_MARGIN = 0.25
#: ... counting only its solid body: what is left after an opening with a disc of this many
#: tile widths (a fringe along tiles' outlines is thinner; a mug is over three widths across).
THING_SOLID = 0.5
#: A known tile not found lies under such a thing when at least this share of its outline lies
#: in the thing's patch.
THING_COVER = 0.2
#: A tile found where less than this fraction of its own outline changed was not laid now (a
#: tile laid changes 0.3 of its outline and more on rendered build sequences, 0.34 and more in
#: the stacking demos; a known tile read again with another value next to a tall stack, 0.11).
LAID_MIN_CHANGED = 0.2
#: Where tiles stay where they are laid, with the memory, a tile laid exactly on a known one
#: (Stackernoes: the matching number directly above the matching number) changes little of the
#: picture: the pips that differ, and the edges shifted by a tile's height; one matching half
#: may not change at all. Such a laying is told from a tile laid over part of the known tile
#: (which also lies outside it) by the picture around the known tile: the six tile-halves
#: beyond its ends and beside its long sides (:func:`around`, set off by :data:`AROUND_GAP` of
#: a half), none changed by more than :data:`AROUND_STILL_MAX`. Then a reading of another
#: value along it (outlines overlapping by :data:`REREAD_MIN_IOU`) whose own outline changed
#: by more than :data:`EXACT_MIN_CHANGED` is a tile laid on it. Session 26, on rendered
#: Stackernoes sequences 10-19 through the live loop (`runs/s26/collect.py`): of 88 readings
#: of the tile laid along a known tile of another value (IoU >= 0.5), 84 had the picture
#: around the known tile changed by at most 0.08 (four by 0.27 to 0.66: something beside it
#: changed too); of the 3 readings of another value along a known tile where no tile was laid
#: (read with the pips of a tile laid over part of it), the least was 0.50. Sequences 0-9:
#: 90 of 91 at most 0.15 (one 0.28), the 8 not laid 0.36 and more. The laid tiles' own
#: outlines changed by 0.22 and more on 10-19 but for one (0.12, the picture around it
#: changed too), by 0.19 and more on 0-9 (sequence 4: a 0-1 laid on a 1-1, one pip differs).
AROUND_GAP = 0.25
AROUND_STILL_MAX = 0.2
EXACT_MIN_CHANGED = 0.1
#: Where tiles stay where they are laid (``fixed``), with the memory, a tile found where the
#: picture did not change as a tile laid does (found late) is left out when read at less than
#: this confidence (and not a tile out of sight found again where it lay): an unsure value
#: where nothing was laid is a misreading of a partly covered tile. Helper D2, session 11, on
#: the cached training build sequences 7000-7059 (`runs/D211/replay.py`, the other rules of
#: session 11 in place): of the tiles added late, 55 at less than 0.7 showed a value no truth
#: tile there has, 2 a right one; tile-frames shown where no tile is 130 -> 73, with a value
#: no truth tile there has 543 -> 458; on the right layer 4270/4299 -> 4261/4290, last frames
#: 276/285 -> 274/283 (the tile-frames no longer found are misread values shown over a truth
#: tile's place). 0.5 / 0.6: 83 / 82 where no tile is, 486 / 483 wrong values; 0.8: 67, 449,
#: but 4259/4288 and 273/282.
LATE_MIN_CONFIDENCE = 0.7
#: In a game whose tiles stay where they are laid (``fixed``), a tile laid now with nothing known
#: under it by :data:`COVER_MIN_OVERLAP` lies on the known tiles not found now, whose place
#: changed, that it overlaps by at least this (a span the reader read as two tiles, one on each
#: support: the tile laid on it overlaps each by less). Helper C, session 7, on training build
#: sequences 7000-7029 (with the rule below for tiles found late over covered ones): tile-frames
#: on the right layer 1843 -> 1876 of 1902, last frames 124 -> 131 of 137.
VANISHED_UNDER_MIN = 0.1
#: A tile out of sight since its picture changed (``gone``) is remembered as where a tile went
#: for this many readings (a tile found over it later lies on it and on the tiles inferred on
#: it); kept shorter, a tile laid on a stack the reader lost sight of lands low (`layerlive`,
#: seeds 1,005,100-109: 1 reading 596/668 right, 5 616/668, 10 618/668, 100 620/668). Bounded
#: so that a tile taken away with nothing seen under it is forgotten.
GONE_MAX = 10
#: The value of an inferred tile (:attr:`Seen.inferred`): unknown.
UNSEEN_TILE = Tile("unseen", 0, 0)
#: A patch of change whose enclosing rectangle is between these multiples of a tile's area
#: (the median of the tiles found) may be a tile laid that the reader did not find (a tile
#: laid changes its own outline and its shadow's).
INFERRED_MIN_AREA, INFERRED_MAX_AREA = 0.5, 2.5
#: A patch of change overlapping a tile found, or a known tile whose place changed, over this
#: fraction of the smaller outline is explained by it.
INFERRED_EXPLAINED = 0.3
#: A tile laid now over this fraction of a known tile explains why the picture changed there.
EXPLAINS_MIN = 0.1
#: The layer confidence of a tile is this to the power of the tiles under it only inferred.
INFERRED_LAYER_CONFIDENCE = 0.6


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


def outline_iou(a: Seen, b: Seen) -> float:
    """Intersection over union of two tiles' outlines."""
    import cv2

    qa = cv2.convexHull(np.asarray(a.corners, np.float32)).reshape(-1, 2)
    qb = cv2.convexHull(np.asarray(b.corners, np.float32)).reshape(-1, 2)
    inter, _ = cv2.intersectConvexConvex(qa, qb)
    union = float(cv2.contourArea(qa)) + float(cv2.contourArea(qb)) - float(inter)
    return float(inter) / union if union > 0 else 0.0


def change_picture(image_bgr: np.ndarray) -> np.ndarray:
    """The picture two readings are compared on for :func:`changed_fractions` (with
    :class:`vision.still.ChangedRegion`): grey, half size, lightly blurred. The still gate's
    160-px-wide picture is too coarse here: a tile laid beside another would seem to change a
    fifth of the other's outline, a tile laid exactly on another sometimes none of it."""
    import cv2

    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError(f"expected a BGR picture (height x width x 3), got shape "
                         f"{image_bgr.shape}")
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    half = cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(half, (3, 3), 0)


class ChangedFractions:
    """For :func:`diff`'s ``changed``: called with a tile, the fraction of its outline where the
    picture changed, from a :class:`vision.still.ChangedRegion` (or anything with its ``mask``
    of changed pixels and ``scale``, mask pixels per frame pixel). ``to_image`` gives a tile's
    corners in frame pixels when the tiles are tracked in other units (table millimetres); by
    default the corners are frame pixels; ``from_image`` maps frame pixels back to those units
    (needed by :meth:`blobs` when ``to_image`` is given). An outline that covers no mask pixel
    (outside the picture, or degenerate) counts as changed: nothing is known about it."""

    def __init__(self, region: Any, to_image: Callable[[Seen], Any] | None = None,
                 from_image: Callable[[np.ndarray], Any] | None = None) -> None:
        self.mask = np.asarray(region.mask, bool)
        self.scale = float(region.scale)
        if self.mask.ndim != 2 or self.scale <= 0:
            raise ValueError(f"a changed region needs a 2-d mask and a positive scale, got a "
                             f"mask of shape {self.mask.shape} and scale {self.scale}")
        self.to_image, self.from_image = to_image, from_image
        self._nothing = not self.mask.any()
        #: the patches of change that are something not a tile (:meth:`mark_things`)
        self._things: np.ndarray | None = None

    def _raster(self, s: Seen) -> tuple[int, int, np.ndarray] | None:
        """``s``'s outline rasterised on the mask, in its bounding box clipped to the picture:
        (x0, y0, inside); None when it covers no mask pixel."""
        import cv2

        corners = np.asarray(self.to_image(s) if self.to_image is not None else s.corners,
                             np.float64)
        poly = np.round(corners.reshape(-1, 2) * self.scale).astype(np.int32)
        x0, y0 = np.maximum(poly.min(axis=0), 0)
        x1 = min(int(poly[:, 0].max()) + 1, self.mask.shape[1])
        y1 = min(int(poly[:, 1].max()) + 1, self.mask.shape[0])
        if x1 <= x0 or y1 <= y0:
            return None
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, poly - np.array([x0, y0], np.int32), 1)
        if not inside.any():
            return None
        return int(x0), int(y0), inside > 0

    @staticmethod
    def _share(raster: tuple[int, int, np.ndarray], mask: np.ndarray) -> float:
        """The share of a rasterised outline (:meth:`_raster`) on ``mask``'s pixels."""
        x0, y0, inside = raster
        h, w = inside.shape
        return float(mask[y0:y0 + h, x0:x0 + w][inside].sum()) / float(inside.sum())

    def __call__(self, s: Seen) -> float:
        r = self._raster(s)
        if r is None:
            return 1.0  # nothing is known about it
        return 0.0 if self._nothing else self._share(r, self.mask)

    def mark_things(self, tiles: Sequence[Seen]) -> int:
        """Find the patches of change that are something not a tile put down (a mug, a
        phone, a score pad): those whose part outside every outline of ``tiles`` (the tiles
        known before and found now; each grown by :data:`THING_TILE_MARGIN` of its width) covers
        at least :data:`THING_MIN_TILES` times a tile's area (their median), in a body at
        least :data:`THING_SOLID` of a tile's width thick. Nothing is marked
        where more than half the picture changed (a bumped camera, the light). Returns how many
        were found; :meth:`under_thing` and :meth:`blobs` use them."""
        import cv2

        self._things = None
        if self._nothing or self.mask.mean() > 0.5:
            return 0
        explained = np.zeros(self.mask.shape, bool)
        areas = []
        for t in tiles:
            own = self._raster(t)
            grown = self._raster(_grown(t, THING_TILE_MARGIN))
            if own is None or grown is None:
                continue
            areas.append(float(own[2].sum()))
            x0, y0, inside = grown
            h, w = inside.shape
            explained[y0:y0 + h, x0:x0 + w] |= inside
        if not areas:
            return 0
        tile_area = float(np.median(areas))
        # only a solid body counts: the thin fringe a row of tiles taken away leaves along its
        # outlines (side walls, shadows) is opened away
        k = max(3, int(round(THING_SOLID * math.sqrt(tile_area / 2))))
        solid = cv2.morphologyEx((self.mask & ~explained).astype(np.uint8), cv2.MORPH_OPEN,
                                 cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
        n, labels = cv2.connectedComponents(self.mask.astype(np.uint8), connectivity=8)
        lonely = np.bincount(labels[solid], minlength=n)
        things = [k for k in range(1, n) if lonely[k] >= THING_MIN_TILES * tile_area]
        if things:
            self._things = np.isin(labels, things)
        return len(things)

    def under_thing(self, s: Seen) -> bool:
        """Whether at least :data:`THING_COVER` of ``s``'s outline lies in a patch that
        :meth:`mark_things` found to be something not a tile."""
        if self._things is None:
            return False
        r = self._raster(s)
        return r is not None and self._share(r, self._things) >= THING_COVER

    def blobs(self) -> list[tuple[tuple[float, float], ...]] | None:
        """Each separate patch of change as the four corners of its smallest enclosing
        rectangle, in the tiles' units; None when they cannot be given in those units (a
        ``to_image`` without its ``from_image``) or the whole picture changed."""
        import cv2

        if self.to_image is not None and self.from_image is None:
            return None
        if self._nothing or self.mask.all():
            return [] if self._nothing else None
        n, labels = cv2.connectedComponents(self.mask.astype(np.uint8), connectivity=8)
        out = []
        for k in range(1, n):
            ys, xs = np.nonzero(labels == k)
            if len(xs) < 8 or (self._things is not None and self._things[ys[0], xs[0]]):
                continue  # a speck, or something not a tile (no tile laid there)
            box = cv2.boxPoints(cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32)))
            corners = np.asarray(box, np.float64) / self.scale
            if self.from_image is not None:
                corners = np.asarray(self.from_image(corners), np.float64)
            out.append(tuple((float(x), float(y)) for x, y in corners.reshape(-1, 2)))
        return out


def changed_fractions(region: Any, to_image: Callable[[Seen], Any] | None = None,
                      from_image: Callable[[np.ndarray], Any] | None = None
                      ) -> ChangedFractions:
    """For :func:`diff`'s ``changed``: see :class:`ChangedFractions`."""
    return ChangedFractions(region, to_image, from_image)


def _grown(s: Seen, margin: float) -> Seen:
    """``s`` with its outline grown on every side by ``margin`` of its width."""
    c = np.asarray(s.corners, dtype=np.float64)
    g = margin * s.width
    across = (c[1] - c[0]) / max(1e-9, float(np.linalg.norm(c[1] - c[0])))
    along = (c[3] - c[0]) / max(1e-9, float(np.linalg.norm(c[3] - c[0])))
    out = c + g * np.array([-across - along, across - along, across + along, -across + along])
    return dataclasses.replace(s, corners=tuple((float(x), float(y)) for x, y in out))


def half_outlines(s: Seen) -> tuple[Seen, Seen]:
    """The outlines of ``s``'s two halves (``halves[0]`` near corners 0-1), as tiles of
    ``s``'s value."""
    c = np.asarray(s.corners, dtype=np.float64)
    m12, m03 = tuple((c[1] + c[2]) / 2), tuple((c[0] + c[3]) / 2)
    p = [tuple(x) for x in c]
    return (dataclasses.replace(s, corners=(p[0], p[1], m12, m03)),
            dataclasses.replace(s, corners=(m03, m12, p[2], p[3])))


def around(s: Seen, gap: float = AROUND_GAP) -> list[Seen]:
    """The picture around ``s``: six outlines of the size of its halves, one beyond each end
    and two beside each half, set off from its outline by ``gap`` of a half's length (beyond
    the ends) or of its width (beside); as tiles of ``s``'s value."""
    c = np.asarray(s.corners, dtype=np.float64)
    along = ((c[2] + c[3]) - (c[0] + c[1])) / 2 * (1 + gap) / 2  # a half's length, and the gap
    across = (c[1] - c[0]) * (1 + gap)
    h0, h1 = (np.asarray(h.corners, dtype=np.float64) for h in half_outlines(s))
    quads = [h0 - along, h1 + along, h0 + across, h0 - across, h1 + across, h1 - across]
    return [dataclasses.replace(s, corners=tuple((float(x), float(y)) for x, y in q))
            for q in quads]


def _area(s: Seen) -> float:
    import cv2

    return float(cv2.contourArea(np.asarray(s.corners, np.float32).reshape(-1, 2)))


def _inferred(changed: Callable[[Seen], float], after: Sequence[Seen],
              changed_known: Sequence[Seen], table: Sequence[Seen],
              top_of: Callable[[Seen], tuple[int, int]]) -> list[Seen]:
    """The tiles inferred (:attr:`Seen.inferred`) where the picture changed about as much as
    a tile laid and nothing found (``after``), nothing known whose place changed
    (``changed_known``) and nothing remembered out of sight in ``table`` explains it; each
    lies on what ``table`` holds there (seen, out of sight or inferred), else on the table."""
    blobs = getattr(changed, "blobs", None)
    quads = blobs() if callable(blobs) else None
    areas = [_area(t) for t in after] or [_area(t) for t in table if not t.hidden]
    if not quads or not areas:
        return []
    typical = float(np.median(areas))
    explain = list(after) + list(changed_known) + [t for t in table if t.gone]
    out: list[Seen] = []
    for q in quads:
        b = Seen(UNSEEN_TILE, (0, 0), q, 0.0, hidden=True, gone=True, inferred=True)
        if not INFERRED_MIN_AREA * typical <= _area(b) <= INFERRED_MAX_AREA * typical:
            continue
        if any(overlap_fraction(b, t) >= INFERRED_EXPLAINED for t in explain + out):
            continue
        below = [t for t in table if (not t.hidden or t.gone)
                 and overlap_fraction(b, t) >= COVER_MIN_OVERLAP]
        layer, inferred = (0, 0)
        if below:
            layer, inferred = max(top_of(t) for t in below)
            layer += 1
        out.append(dataclasses.replace(b, layer=layer, inferred_under=inferred))
    return out


def diff(before: Sequence[Seen], after: Sequence[Seen], move_tol: float = 0.5,
         changed: Callable[[Seen], float] | None = None, fixed: bool = False) -> TableChange:
    """What changed from ``before`` to ``after`` (``move_tol`` in tile widths); see the module
    docstring for the layers it carries, the hidden tiles it remembers and the memory that
    ``changed`` (the fraction of a tile's outline where the picture changed since ``before``
    was read, e.g. :func:`changed_fractions`) gives. ``fixed``: the game never moves a tile
    once laid (the stacking games), so with ``changed`` a known value read where the picture
    changed as a tile laid does is a tile laid now (see the module docstring)."""
    before, after = list(before), list(after)
    if not before:
        # the first reading: its tiles were not seen appearing, so being found in one reading
        # does not mark them as misreadings (they count as found more often)
        after = [dataclasses.replace(s, sightings=max(s.sightings, FEW_SIGHTINGS + 1))
                 for s in after]
    memo: dict[int, float] = {}
    # tiles stay where laid and the picture's change is known: the stacking games' rules below
    fixed_watched = fixed and changed is not None

    def changed_at(s: Seen) -> float:
        if changed is None:
            return 1.0
        if id(s) not in memo:
            memo[id(s)] = float(changed(s))
        return memo[id(s)]

    def still(s: Seen) -> bool:
        return changed_at(s) <= STILL_MAX_CHANGED

    def laid_now(s: Seen) -> bool:
        return changed_at(s) > LAID_MIN_CHANGED

    # out of sight under something that is not a tile (once the caller marked them:
    # ChangedFractions.mark_things)
    under_thing: Callable[[Seen], bool] = getattr(changed, "under_thing", lambda s: False)

    # one tile in both readings: same value (and face), nearest pairs first
    pairs = sorted((float(np.linalg.norm(o.center - s.center)) / max(1e-6, o.width), i, j)
                   for i, o in enumerate(before) for j, s in enumerate(after)
                   if _same_tile(o, s))
    match_old: dict[int, int] = {}
    match_new: dict[int, int] = {}

    half_still: dict[int, bool] = {}
    around_still: dict[int, bool] = {}

    def still_around(i: int) -> bool:
        """The picture around ``before[i]`` (:func:`around`) changed by at most
        :data:`AROUND_STILL_MAX` anywhere: nothing laid now lies partly outside it."""
        if i not in around_still:  # (not memoised by id: the outlines are made here)
            around_still[i] = max(float(changed(q)) for q in around(before[i])) \
                <= AROUND_STILL_MAX
        return around_still[i]

    def along_part(j: int, i: int) -> bool:
        """Where tiles stay where they are laid: ``after[j]`` lies along ``before[i]`` (their
        outlines overlapping by :data:`REREAD_MIN_IOU`) but one half of ``before[i]`` did not
        change (at most :data:`STILL_MAX_CHANGED` of it) while the picture around it did
        (:func:`still_around`): the picture changed by a tile laid over its other half only
        (it lies partly outside ``before[i]``), so ``after[j]`` is ``before[i]`` read again.
        Where nothing changed around it, a tile laid exactly on it changed it, its matching
        half hardly (the same pips directly above)."""
        if not fixed_watched or outline_iou(after[j], before[i]) < REREAD_MIN_IOU:
            return False
        if i not in half_still:  # (not memoised by id: the halves are made here)
            half_still[i] = min(float(changed(h)) for h in half_outlines(before[i])) \
                <= STILL_MAX_CHANGED
        return half_still[i] and not still_around(i)

    def explained_by_other(j: int, i: int) -> bool:
        """Where tiles stay where they are laid: ``after[j]``, read where the picture changed
        as a tile laid does over ``before[i]`` (another value), has that change explained by
        another tile laid now over part of ``before[i]`` that changed at least as much (a tile
        laid across known tiles changes part of their pictures; the reader then reads them
        with the new tile's pips): ``before[i]`` read again, not a tile laid on it."""
        if not fixed_watched:
            return False
        return any(k != j and laid_now(t) and changed_at(t) >= changed_at(after[j])
                   and overlap_fraction(t, before[i]) >= EXPLAINS_MIN
                   for k, t in enumerate(after))

    def laid_over(i: int, j: int) -> bool:
        """Where tiles stay where they are laid (``fixed``): ``after[j]``, the value of
        ``before[i]`` read where the picture changed as a tile laid does (more than
        :data:`LAID_MIN_CHANGED` of its outline), with no other tile laid now over
        ``before[i]`` to explain that, is a tile laid now read with that value, not
        ``before[i]``: on it when at its place, else elsewhere (``before[i]`` did not move)."""
        if not fixed or changed is None or not laid_now(after[j]):
            return False
        if along_part(j, i):
            return False
        return not any(k != j and laid_now(t) and overlap_fraction(t, before[i]) >= EXPLAINS_MIN
                       for k, t in enumerate(after))

    for dist, i, j in pairs:
        if before[i].gone:
            continue  # out of sight last time: it only marks where a tile went
        if not before[i].hidden and laid_over(i, j):
            continue
        if before[i].hidden and changed is not None and still(after[j]):
            continue  # a hidden tile comes back only where the picture changed (the tile
            # over it taken away); unchanged, its value read there is the top tile misread
        if dist > move_tol and (before[i].hidden or still(before[i])):
            # a hidden tile comes back only where it lay; a tile whose place did not change
            # did not move (its value seen elsewhere is another tile)
            continue
        if dist > move_tol and fixed_watched and any(
                k != i and not o.hidden and not any(_same_tile(o, t) for t in after)
                and outline_iou(after[j], o) >= REREAD_MIN_IOU for k, o in enumerate(before)):
            # where tiles stay where they are laid, a value read away from its tile's place
            # over another known tile not found now is that tile read again, not a move
            continue
        if i not in match_old and j not in match_new:
            match_old[i], match_new[j] = j, i

    # where tiles stay where they are laid: a tile laid exactly on a known tile (read as
    # another value along it, the picture around it still) changes less of the picture than
    # other tiles laid; it counts as laid now from EXACT_MIN_CHANGED of its outline
    exact: set[int] = set()
    if fixed_watched:
        exact = {j for j, s in enumerate(after) if j not in match_new
                 and changed_at(s) > EXACT_MIN_CHANGED
                 and any(i not in match_old and not o.hidden and not _same_tile(o, s)
                         and outline_iou(s, o) >= REREAD_MIN_IOU and still_around(i)
                         for i, o in enumerate(before))}

    # the memory: a tile not laid now over a known tile not found is that tile read again
    # (most overlapping pairs first)
    reread: dict[int, int] = {}
    partly: dict[int, int] = {}
    if changed is not None:
        cand = sorted(((outline_iou(before[i], s), i, j) for j, s in enumerate(after)
                       if j not in match_new
                       for i in range(len(before))
                       if i not in match_old and not before[i].hidden), reverse=True)
        for iou, i, j in cand:
            if iou < REREAD_AGAIN_IOU:
                break
            if j not in reread and i not in reread.values() and (
                    not (laid_now(after[j]) or j in exact) or explained_by_other(j, i)
                    or along_part(j, i)):
                reread[j] = i
                partly[j] = i  # read again: it does not explain a change of the picture
    visible = [o for o in before if not o.hidden]
    ghosts = [o for o in before if o.gone]

    def itself(g: Seen, s: Seen) -> bool:
        return _same_tile(g, s) and bool(np.linalg.norm(g.center - s.center)
                                         <= move_tol * max(1e-6, g.width))

    def ghosts_under(s: Seen) -> list[Seen]:
        """The tiles out of sight since they went that ``s`` may lie on (not itself found
        again where it lay)."""
        return [g for g in ghosts if not itself(g, s)]

    def top_of(o: Seen) -> tuple[int, int]:
        """The layer of the highest tile known or inferred at ``o`` (``o`` and, out of sight,
        the tiles inferred on it), and how many tiles up to it are only inferred."""
        if o.inferred:
            return o.layer + o.unseen_on, o.inferred_under + 1 + o.unseen_on
        if o.gone:
            return o.layer + o.unseen_on, o.inferred_under + o.unseen_on
        return o.layer, o.inferred_under

    def highest_at(g: Seen) -> tuple[int, int]:
        """For a tile found late over ``g`` (out of sight or inferred): the highest tile there
        (``g`` itself when inferred with nothing on it, else above ``g``) and how many tiles
        up to it are only inferred."""
        if g.inferred:
            return g.layer + g.unseen_on, g.inferred_under + g.unseen_on
        return g.layer + max(1, g.unseen_on), g.inferred_under + max(0, g.unseen_on - 1)

    def over(s: Seen, below: Sequence[Seen]) -> Seen:
        """``s`` lying on ``below``: one layer above the highest of them."""
        layer, inferred = max(top_of(o) for o in below)
        return dataclasses.replace(s, layer=layer + 1, inferred_under=inferred)

    # tiles seen in this reading that were seen before too (stayed or read again): another
    # value read over one of their outlines is that tile read twice, not a tile laid on it (a
    # tile laid on another hides it)
    known_now = [after[j] for j, i in match_new.items() if not before[i].hidden] + \
        [after[j] for j in reread]
    change = TableChange()
    table: list[Seen] = []
    found_again: set[int] = set()  # ghosts found again where they lay
    rests: dict[int, list[Seen]] = {}  # each added tile (by id): what it lies on, inferred too
    for j, s in enumerate(after):
        if j in reread:  # the known tile, read as another value this time: kept as it was
            o = before[reread[j]]
            times = o.reread_times + 1 if o.reread_as == s.tile else 1
            if fixed_watched and o.sightings <= FEW_SIGHTINGS and times >= REPLACE_AFTER \
                    and s.confidence >= REPLACE_MIN_CONFIDENCE:
                # unless it was found in one reading only and this value is read there, sure,
                # again and again: then that first sighting was a misreading
                s = dataclasses.replace(s, layer=o.layer, inferred_under=o.inferred_under,
                                        sightings=times)
                change.replaced.append((o, s))
                table.append(s)
                continue
            table.append(dataclasses.replace(o, unseen=0, late_once=False, reread_as=s.tile,
                                             reread_times=times))
            continue
        if j not in match_new and before and any(
                outline_iou(s, k) >= REREAD_MIN_IOU for k in known_now):
            continue  # a known tile seen twice in this reading, once as another value
        if j in match_new:
            o = before[match_new[j]]
            if o.hidden:  # the tile over it was taken away: seen again where it lay
                s = dataclasses.replace(s, layer=o.layer, inferred_under=o.inferred_under,
                                        sightings=o.sightings + 1)
                change.uncovered.append(s)
                table.append(s)
            elif np.linalg.norm(o.center - s.center) > move_tol * max(1e-6, o.width):
                s = dataclasses.replace(s, sightings=o.sightings + 1)
                change.moved.append((o, s))
                table.append(s)
            else:  # the same tile where it was: it keeps the layer it was given then
                table.append(dataclasses.replace(s, layer=o.layer,
                                                 inferred_under=o.inferred_under,
                                                 sightings=o.sightings + 1))
            continue
        if before and changed is not None and not (laid_now(s) or j in exact):
            # not laid now (the picture at it hardly changed): found late, so it covers nothing
            # seen and keeps the reader's cold-start layer, unless it is a tile out of sight
            # found again where it lay (its layer), or lies where a tile went out of sight (it
            # was laid on that one then: the highest of the tiles inferred on it)
            back = [k for k, g in enumerate(ghosts) if itself(g, s)]
            if fixed_watched and not back and s.confidence < LATE_MIN_CONFIDENCE:
                continue  # an unsure value where nothing was laid: a misreading, left out
            on = [g for g in ghosts_under(s) if overlap_fraction(s, g) >= COVER_MIN_OVERLAP]
            if back:
                found_again.update(back)
                g = ghosts[back[0]]
                s = dataclasses.replace(s, layer=g.layer, inferred_under=g.inferred_under)
                on = []
            elif on:
                layer, inferred = max(highest_at(g) for g in on)
                s = dataclasses.replace(s, layer=layer, inferred_under=inferred)
            elif fixed:
                # found late over tiles known to be covered: it is what covers them (the
                # reader missed it, or read it as another value, when it was laid)
                hid = [o for o in before if o.hidden and not o.gone
                       and overlap_fraction(s, o) >= COVER_MIN_OVERLAP]
                if hid:
                    s = over(s, hid)
                else:
                    s = dataclasses.replace(s, late_once=True)
            change.added.append(s)
            rests[id(s)] = on
            change.under[s] = [g for g in on if not g.inferred]
            table.append(s)
            continue
        found_again.update(k for k, g in enumerate(ghosts) if itself(g, s))
        known = visible + ghosts_under(s)
        under = sorted(((overlap_fraction(s, o), k) for k, o in enumerate(known)), reverse=True)
        below = [known[k] for f, k in under if f >= COVER_MIN_OVERLAP
                 and (known[k].gone or not still(known[k]))]
        if not below and fixed_watched:
            # known tiles not found now, whose place changed, under a tile laid now even by a
            # little (a span read as two tiles, one on each support): it lies on them
            below = [o for k, o in enumerate(before) if not o.hidden and not o.gone
                     and k not in match_old and not still(o)
                     and overlap_fraction(s, o) >= VANISHED_UNDER_MIN]
        if below:
            s = over(s, below)
        elif before:  # watched: nothing known under it, so it lies on the table
            s = dataclasses.replace(s, layer=0, inferred_under=0)
        change.added.append(s)
        rests[id(s)] = below
        change.under[s] = [o for o in below if not o.inferred]
        table.append(s)
    reread_old = set(reread.values())
    hidden_old: list[Seen] = []

    def uncovered_at(o: Seen) -> bool:
        """A tile seen again under where ``o`` lay: ``o`` was taken away, not covered."""
        return any(overlap_fraction(u, o) >= COVER_MIN_OVERLAP for u in change.uncovered)

    def taken_away(o: Seen) -> bool:
        """With the memory, where tiles stay where they are laid: the picture at ``o`` (not
        found now) changed, outside the tiles laid now over part of it, by more than
        :data:`LAID_MIN_CHANGED` of its outline, as a tile taken away (or one laid on it
        that the reader did not find) changes it."""
        laid_over = max((overlap_fraction(s, o) for s in change.added if laid_now(s)),
                        default=0.0)
        return changed_at(o) - laid_over > LAID_MIN_CHANGED

    for i, o in enumerate(before):
        if i in match_old or i in reread_old:
            continue
        if o.gone:  # out of sight: a tile laid on it then was found now, or still out of sight
            on_it = next((s for s in change.added if any(o is r for r in rests[id(s)])), None)
            if on_it is not None and o.inferred:
                continue  # counted in the layer of the tile found on it (or as it)
            if on_it is not None:
                change.covered.append((dataclasses.replace(o, hidden=False, gone=False), on_it))
                table.append(dataclasses.replace(o, gone=False, gone_since=0, unseen_on=0))
            elif not any(g is o for k, g in enumerate(ghosts) if k in found_again) \
                    and o.gone_since + 1 < GONE_MAX and not uncovered_at(o):
                # the picture at it changed again with nothing found there: one more tile
                # the reader missed was laid on it
                more = int(changed is not None and laid_now(o))
                table.append(dataclasses.replace(o, gone_since=o.gone_since + 1,
                                                 unseen_on=o.unseen_on + more))
            continue
        if o.hidden:
            hidden_old.append(o)
            continue
        on_it = next((s for s in change.added if o in change.under[s]), None)
        if on_it is not None:
            change.covered.append((o, on_it))
            table.append(dataclasses.replace(o, hidden=True, unseen=0))
        elif fixed_watched and o.late_once and o.unseen >= UNSEEN_MAX \
                and not taken_away(o):
            pass  # found once, late, and not since where nothing was taken: a misreading
        elif fixed_watched and o.sightings <= FEW_SIGHTINGS and o.unseen >= FEW_SIGHTINGS_UNSEEN \
                and not taken_away(o):
            pass  # found in one reading only and not since where nothing was taken: a misreading
        elif under_thing(o) or (o.obscured and still(o)):
            # out of sight under something that is not a tile (a mug put down over it): kept
            # where it lay, for as long as the picture at it does not change again
            if not o.obscured:
                change.obscured.append(o)
            table.append(dataclasses.replace(o, obscured=True))
        elif (o.unseen < UNSEEN_MAX and still(o)) or (
                fixed_watched and not taken_away(o)):
            # missed this time (where tiles stay where they are laid: for as long as its
            # place changed too little for a tile taken away or laid on it)
            table.append(dataclasses.replace(o, unseen=o.unseen + 1))
        else:
            out_of_sight = changed is not None and not still(o) and not uncovered_at(o)
            if fixed and out_of_sight and laid_now(o):
                # where tiles stay where they are laid: a tile the reader did not find was
                # laid on it (the interpreter asks which), not a removal
                change.unread.append(dataclasses.replace(o, unseen=0))
            else:
                change.removed.append(dataclasses.replace(o, unseen=0))
            if out_of_sight:
                # out of sight where the picture changed (and the tile under it not seen
                # again: then it was taken away): remembered as where a tile went;
                # changed as much as a tile laid, with nothing found there: a tile the reader
                # missed lies on it
                table.append(dataclasses.replace(o, unseen=0, hidden=True, gone=True,
                                                 gone_since=0, unseen_on=int(laid_now(o))))
    # still hidden: where the picture did not change at it (nothing was taken off it), or
    # under a tile seen now or a hidden tile kept above it (highest first: a span read as two
    # tiles, one on each support, then covered: the supports lie under those two, which lie
    # under the tile seen); else gone with what lay on it
    # where tiles stay where they are laid, a known tile read away from its place was seen
    # through a tile laid on part of it: it still lies where it was, over what it covered
    moved_from = [o for o, _ in change.moved] if fixed_watched else []
    for o in sorted(hidden_old, key=lambda h: -h.layer):
        if (changed is not None and still(o)) or any(
                (not t.hidden or (t.layer > o.layer and not t.gone))
                and overlap_fraction(t, o) >= COVER_MIN_OVERLAP for t in table) or any(
                m.layer > o.layer and overlap_fraction(m, o) >= COVER_MIN_OVERLAP
                for m in moved_from):
            table.append(o)
            continue
        under_gone = any(t.gone and overlap_fraction(t, o) >= COVER_MIN_OVERLAP for t in table)
        if not (fixed_watched and under_gone):
            # where tiles stay where they are laid, a stack out of sight is one report: the
            # tile that was seen on top of it
            change.removed.append(dataclasses.replace(o, hidden=False))
        if under_gone:
            # under a tile out of sight: remembered with it as where tiles went
            table.append(dataclasses.replace(o, gone=True, gone_since=0, unseen_on=0))
    # a tile out of sight whose own supports were removed now too (nothing seen or kept over
    # them) went with its stack: taken off, not covered by a tile the reader did not find
    went = [u for u in change.unread if any(
        overlap_fraction(u, r) >= VANISHED_UNDER_MIN for r in change.removed if r.layer < u.layer)]
    change.unread = [u for u in change.unread if not any(u is w for w in went)]
    change.removed = went + change.removed
    if fixed and before and changed is not None:
        # a known tile read again (as another value), or found again where the picture
        # changed over one of its halves only, does not explain that change (it still lies
        # there): where nothing found explains it, a tile not found lies over it
        partly.update((j, i) for j, i in match_new.items()
                      if not before[i].hidden and laid_now(after[j]) and along_part(j, i))
        table += _inferred(changed, [s for j, s in enumerate(after) if j not in partly],
                           [o for i, o in enumerate(before) if not o.hidden and not still(o)
                            and i not in partly.values()], table, top_of)
    for s in change.added:
        change.contacts[s.tile] = contacts_of(s, [t for t in table if not t.hidden])
    change.table = table
    return change
