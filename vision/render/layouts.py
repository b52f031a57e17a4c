"""Table layouts: where tiles lie, independent of any game's rules.

A layout is a list of :class:`Placement` (tile, which half comes first, centre in table mm,
angle, layer, face up or down). The geometry here knows "tiles touch end to end", "a double lies
crosswise", "arms leave a spinner", "a stack rests on the tile below"; which VALUES go where
comes from a value source: a :class:`Dealer` that draws matching tiles from a set (random chains)
or a list of plays from a simulated game (see :mod:`vision.render.gamelayout`).

Angles: a placement's ``angle_deg`` is the direction of the tile's local ``+x`` axis (from its
first half to its second half) in the table frame (``x`` right, ``y`` down), so 90 points down the
table. Layout kinds: ``line`` (a snake with 90 degree turns), ``spinner`` (a crosswise double with
four arms), ``chickenfoot`` (a hub double with three toes per side, diagonals included),
``trains`` (arms leaving a hub radially), ``stacks`` (rows of stacks, tiles on tiles),
``grid`` (a set laid out in rows), ``loose`` (scattered tiles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.tiles import Tile, full_set
from vision.render.errors import RenderSpecError
from vision.render.tiles import TileGeometry

LAYOUT_KINDS = ("line", "spinner", "chickenfoot", "trains", "stacks", "grid", "loose")


@dataclass(frozen=True, slots=True)
class Placement:
    """One tile lying on the table (or on other tiles)."""

    tile: Tile
    halves: tuple[int, int]
    center_mm: tuple[float, float]
    angle_deg: float
    layer: int = 0
    face_up: bool = True

    def __post_init__(self) -> None:
        if Tile.of(*self.halves) != self.tile.plain():
            raise RenderSpecError(
                f"placement halves {self.halves} do not match tile {self.tile}; give the tile's "
                f"two values in the order they lie, e.g. {self.tile.halves}")
        if self.layer < 0:
            raise RenderSpecError(f"placement layer {self.layer} of {self.tile} is negative; "
                                  "layer 0 lies on the table, 1 on a tile, ...")

    def footprint(self, geom: TileGeometry, shrink_mm: float = 0.0) -> np.ndarray:
        """The tile's rectangle on the table (4x2 mm, ground-truth corner order)."""
        c = geom.corners_local()
        if shrink_mm:
            c = c - np.sign(c) * shrink_mm
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return c @ rot.T + np.array(self.center_mm)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex quads overlap (separating axis test)."""
    for poly in (a, b):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


class Occupancy:
    """Footprints per layer, to keep tiles of one layer from overlapping."""

    def __init__(self, geom: TileGeometry) -> None:
        self.geom = geom
        self.rects: dict[int, list[np.ndarray]] = {}

    def free(self, p: Placement, margin_mm: float = 0.4) -> bool:
        fp = p.footprint(self.geom, shrink_mm=margin_mm)
        return not any(_overlap(fp, r) for r in self.rects.get(p.layer, []))

    def add(self, p: Placement) -> None:
        self.rects.setdefault(p.layer, []).append(p.footprint(self.geom))


class Dealer:
    """Draws tiles from one set without replacement (a random value source)."""

    def __init__(self, set_max: int, rng: np.random.Generator, double_bias: float = 0.25) -> None:
        self.rng = rng
        self.left: list[Tile] = list(full_set(set_max))
        self.double_bias = double_bias

    def any(self, double: bool | None = None) -> Tile | None:
        pool = [t for t in self.left if double is None or t.is_double == double]
        if not pool:
            return None
        t = pool[int(self.rng.integers(len(pool)))]
        self.left.remove(t)
        return t

    def matching(self, v: int) -> Tile | None:
        pool = [t for t in self.left if t.has(v)]
        if not pool:
            return None
        doubles = [t for t in pool if t.is_double]
        if doubles and self.rng.random() < self.double_bias:
            t = doubles[0]
        else:
            rest = [t for t in pool if not t.is_double] or pool
            t = rest[int(self.rng.integers(len(rest)))]
        self.left.remove(t)
        return t

    def give_back(self, t: Tile) -> None:
        self.left.append(t)


def _unit(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([math.cos(a), math.sin(a)])


class Arm:
    """A chain growing from an open end: position of the open end, direction, open value."""

    def __init__(self, p: np.ndarray, deg: float, value: int) -> None:
        self.p = np.asarray(p, np.float64)
        self.deg = deg
        self.value = value
        self.last_double = True  # do not turn right after the start
        self.alive = True

    def candidate(self, tile: Tile, geom: TileGeometry, gap: float,
                  turn: float = 0.0) -> tuple[Placement, np.ndarray]:
        """The placement of ``tile`` on this arm's open end and the new open-end point."""
        L, W = geom.length_mm, geom.width_mm
        deg, p = self.deg, self.p
        if turn:
            d = _unit(deg)
            deg = deg + turn
            p = p - d * (W / 2 + gap) + _unit(deg) * (W / 2)
        d = _unit(deg)
        if tile.is_double:
            c = p + d * (W / 2 + gap)
            pl = Placement(tile, (tile.low, tile.high), (float(c[0]), float(c[1])), deg + 90.0)
            return pl, p + d * (W + gap)
        other = tile.other(self.value)
        c = p + d * (L / 2 + gap)
        pl = Placement(tile, (self.value, other), (float(c[0]), float(c[1])), deg)
        return pl, p + d * (L + gap)


def grow(arms: list[Arm], dealer: Dealer, occ: Occupancy, geom: TileGeometry, n_tiles: int,
         bounds: tuple[float, float, float, float], rng: np.random.Generator,
         out: list[Placement], turn_sign: float = 90.0) -> None:
    """Grow ``arms`` in turn with matching tiles from ``dealer`` until ``n_tiles`` are placed,
    turning 90 degrees at ``bounds`` (x0, y0, x1, y1 mm) and stopping arms that are blocked."""
    gap = 0.3
    x0, y0, x1, y1 = bounds
    k = 0
    while len(out) < n_tiles and any(a.alive for a in arms):
        arm = arms[k % len(arms)]
        k += 1
        if not arm.alive:
            continue
        tile = dealer.matching(arm.value)
        if tile is None:
            arm.alive = False
            continue
        placed = False
        turns = [0.0]
        if not arm.last_double and not tile.is_double:
            turns += [turn_sign, -turn_sign]
        for turn in turns:
            pl, end = arm.candidate(tile, geom, gap, turn)
            fp = pl.footprint(geom)
            inside = (fp[:, 0].min() >= x0 and fp[:, 0].max() <= x1
                      and fp[:, 1].min() >= y0 and fp[:, 1].max() <= y1)
            if inside and occ.free(pl):
                occ.add(pl)
                out.append(pl)
                arm.p, arm.deg = end, arm.deg + turn
                arm.value = tile.other(arm.value) if not tile.is_double else arm.value
                arm.last_double = tile.is_double
                placed = True
                break
        if not placed:
            dealer.give_back(tile)
            arm.alive = False


def _start_free(arm_p: np.ndarray, deg: float, value: int, probe: Tile, geom: TileGeometry,
                occ: Occupancy, max_mm: float = 40.0) -> Arm | None:
    """An arm leaving ``arm_p`` towards ``deg``, pushed out until its first tile is free."""
    for s in np.arange(0.0, max_mm, 1.0):
        arm = Arm(arm_p + _unit(deg) * s, deg, value)
        pl, _ = arm.candidate(probe, geom, 0.3)
        if occ.free(pl):
            return arm
    return None


def toe_starts(geom: TileGeometry) -> list[np.ndarray]:
    """Where the six toes of a crosswise hub double at the origin start, for the directions
    0, 180, -45, 45, 135, 225 degrees: straight toes at the middle of the long sides, diagonal
    toes near the corners."""
    L, W = geom.length_mm, geom.width_mm
    y = 0.35 * L
    return [np.array([W / 2, 0.0]), np.array([-W / 2, 0.0]), np.array([W / 2, -y]),
            np.array([W / 2, y]), np.array([-W / 2, y]), np.array([-W / 2, -y])]


def _hub(dealer: Dealer, occ: Occupancy, out: list[Placement], rng: np.random.Generator,
         value: int | None = None) -> Placement:
    if value is not None:
        t = Tile.of(value, value)
        if t in dealer.left:
            dealer.left.remove(t)
    else:
        t = dealer.any(double=True) or Tile.of(0, 0)
    pl = Placement(t, t.halves, (0.0, 0.0), 90.0)
    occ.add(pl)
    out.append(pl)
    return pl


def layout(kind: str, set_max: int, geom: TileGeometry, rng: np.random.Generator,
           n_tiles: int, extent_mm: tuple[float, float] = (700.0, 420.0),
           dealer: Dealer | None = None) -> list[Placement]:
    """Placements of one layout ``kind`` with up to ``n_tiles`` tiles, centred near (0, 0) and
    within ``extent_mm`` (width, height)."""
    if kind not in LAYOUT_KINDS:
        raise RenderSpecError(f"layout {kind!r} is unknown; use one of {list(LAYOUT_KINDS)}")
    if not 1 <= n_tiles <= 400:
        raise RenderSpecError(f"n_tiles {n_tiles!r} is out of range; use 1..400")
    dealer = dealer or Dealer(set_max, rng)
    occ = Occupancy(geom)
    out: list[Placement] = []
    ew, eh = extent_mm
    if kind in ("line", "spinner"):  # room for a snake to turn twice
        ew, eh = max(ew, 6 * geom.length_mm), max(eh, 3.5 * geom.length_mm)
    bounds = (-ew / 2, -eh / 2, ew / 2, eh / 2)
    L, W = geom.length_mm, geom.width_mm
    if kind == "line":
        first = dealer.any(double=False) or dealer.any()
        if first is None:
            raise RenderSpecError("the dealer has no tiles left to start a line")
        start = np.array([bounds[0] + 5.0, bounds[1] + W])
        pl = Placement(first, first.halves, (float(start[0] + L / 2), float(start[1])), 0.0)
        occ.add(pl)
        out.append(pl)
        arm = Arm(start + np.array([L + 0.3, 0.0]), 0.0, first.high)
        arm.last_double = False
        grow([arm], dealer, occ, geom, n_tiles, bounds, rng, out, turn_sign=90.0)
    elif kind == "spinner":
        hub = _hub(dealer, occ, out, rng)
        v = hub.tile.low
        arms = [Arm(np.array([W / 2, 0.0]), 0.0, v), Arm(np.array([-W / 2, 0.0]), 180.0, v),
                Arm(np.array([0.0, -L / 2]), 270.0, v), Arm(np.array([0.0, L / 2]), 90.0, v)]
        grow(arms, dealer, occ, geom, n_tiles, bounds, rng, out,
             turn_sign=float(rng.choice([90.0, -90.0])))
    elif kind in ("chickenfoot", "trains"):
        hub = _hub(dealer, occ, out, rng)
        v = hub.tile.low
        if kind == "chickenfoot":
            dirs = [0.0, 180.0, -45.0, 45.0, 135.0, 225.0]
            starts = toe_starts(geom)
        else:
            n_arms = int(rng.choice([6, 8]))
            dirs = [i * 360.0 / n_arms for i in range(n_arms)]
            starts = [_unit(d) * (W / 2) for d in dirs]
        arms = []
        for s, d in zip(starts, dirs):
            t = dealer.matching(v)
            if t is None:
                break
            arm = _start_free(s, d, v, t, geom, occ, max_mm=60.0)
            if arm is None:
                dealer.give_back(t)
                continue
            pl, end = arm.candidate(t, geom, 0.3)
            occ.add(pl)
            out.append(pl)
            arm.p = end
            arm.value = t.other(v) if not t.is_double else v
            arm.last_double = t.is_double
            arms.append(arm)
            if len(out) >= n_tiles:
                break
        grow(arms, dealer, occ, geom, n_tiles, bounds, rng, out, turn_sign=0.0)
    elif kind == "stacks":
        cols = max(1, int(ew // (L + 22)))
        spots = []
        for r in range(max(1, int(eh // (L + 10)))):
            for c in range(cols):
                spots.append((bounds[0] + (c + 0.5) * ew / cols,
                              bounds[1] + (r + 0.5) * (L + 10)))
        order = rng.permutation(len(spots))
        for i in order:
            if len(out) >= n_tiles:
                break
            x, y = spots[int(i)]
            base_angle = float(rng.choice([90.0, 270.0])) + float(rng.normal(0, 3))
            height = int(rng.choice([1, 1, 2, 2, 3]))
            for layer in range(height):
                if len(out) >= n_tiles:
                    break
                t = dealer.any()
                if t is None:
                    break
                halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
                ang = base_angle
                if layer and rng.random() < 0.35:
                    ang = base_angle + 90.0  # crosswise on the tile below
                jx, jy = (rng.normal(0, 1.5, 2) if layer else (0.0, 0.0))
                pl = Placement(t, halves, (float(x + jx), float(y + jy)),
                               float(ang + (rng.normal(0, 3) if layer else 0.0)), layer=layer)
                out.append(pl)
    elif kind == "grid":
        cols = max(1, int(ew // (W + 18)))
        rows = max(1, int(eh // (L + 14)))
        for r in range(rows):
            for c in range(cols):
                if len(out) >= n_tiles:
                    break
                t = dealer.any()
                if t is None:
                    break
                halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
                x = bounds[0] + (c + 0.5) * ew / cols + float(rng.normal(0, 1.5))
                y = bounds[1] + (r + 0.5) * eh / rows + float(rng.normal(0, 1.5))
                out.append(Placement(t, halves, (x, y), 90.0 + float(rng.normal(0, 2))))
    else:  # loose
        out.extend(scatter(dealer, occ, geom, rng, n_tiles, bounds, face_up=True))
    return out


def scatter(dealer: Dealer, occ: Occupancy, geom: TileGeometry, rng: np.random.Generator,
            n: int, bounds: tuple[float, float, float, float], face_up: bool,
            stack_fraction: float = 0.0, tries: int = 60) -> list[Placement]:
    """Up to ``n`` tiles at random free spots within ``bounds``; with ``stack_fraction`` some
    lie on top of an earlier one (layer 1), as in a boneyard pile."""
    x0, y0, x1, y1 = bounds
    need = geom.length_mm + 2.0  # a tile at any angle fits in a square this wide
    if x1 - x0 < need:
        x0, x1 = (x0 + x1 - need) / 2, (x0 + x1 + need) / 2
    if y1 - y0 < need:
        y0, y1 = (y0 + y1 - need) / 2, (y0 + y1 + need) / 2
    out: list[Placement] = []
    for _ in range(n):
        t = dealer.any()
        if t is None:
            break
        halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
        placed = False
        if out and rng.random() < stack_fraction:
            below = out[int(rng.integers(len(out)))]
            if below.layer == 0:
                c = np.array(below.center_mm) + rng.normal(0, 5, 2)
                pl = Placement(t, halves, (float(c[0]), float(c[1])),
                               float(rng.uniform(0, 360)), layer=1, face_up=face_up)
                if occ.free(pl):
                    occ.add(pl)
                    out.append(pl)
                    placed = True
        for _ in range(tries if not placed else 0):
            c = (float(rng.uniform(x0 + geom.length_mm / 2, x1 - geom.length_mm / 2)),
                 float(rng.uniform(y0 + geom.length_mm / 2, y1 - geom.length_mm / 2)))
            pl = Placement(t, halves, c, float(rng.uniform(0, 360)), face_up=face_up)
            if occ.free(pl, margin_mm=-2.0):
                occ.add(pl)
                out.append(pl)
                placed = True
                break
        if not placed:
            dealer.give_back(t)
    return out


def extent(placements: list[Placement], geom: TileGeometry) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) in mm of all footprints."""
    if not placements:
        return (-100.0, -100.0, 100.0, 100.0)
    pts = np.concatenate([p.footprint(geom) for p in placements])
    return (float(pts[:, 0].min()), float(pts[:, 1].min()),
            float(pts[:, 0].max()), float(pts[:, 1].max()))
