"""Stackernoes (``stackernoes``). Seed: 000_7d066973c16d9b1a.txt (Stackernoos Rules v24.11.1).

The rules in prose
------------------
A double-nine set; 2 to 6 players, nine tiles each, the rest form the pile. The lowest double is
laid first. Tiles are played end to end on the table (the touching halves match) or stacked on
tiles already down (a half over a matching number). The row on the table is the run; it is one
straight line. A tile stacked on the last tile at an end of the run caps that end: nothing more
is added there; the run needs seven tiles on the table before either end may be capped. A tile
stacked over two different tiles (a span) must match both numbers under it. Where two stacks on
the run are separated by exactly one exposed half of the run, that half is a root: whoever makes
a root gets one extra turn per root made. From a root, branches grow perpendicular to the run on
either side: the first tile of a branch touches the root with a matching half. A stacked branch
is laid on top, starting with a tile over the root. A bridge is a tile laid over a root gap,
each half resting on the stack on its side and matching the number it rests on. A player may
draw instead of playing and must draw when nothing fits; a drawn tile may be played at once,
else the turn ends. The first player out of tiles ends the game.

The geometry: a grid of half-tile cells with levels
---------------------------------------------------
Every tile covers two cells. Level 0 is the table; a tile at level ``k + 1`` lies on tiles at
level ``k``. A play names the two cells of the tile's halves, the low half first, and the level:
``{"player": "Ann", "play": "3-5", "at": [[4, 0], [5, 0]], "level": 0}`` puts the 3 on cell (4, 0)
and the 5 on cell (5, 0). Cells are integer pairs on any origin (the camera's first tile sets it).
The run's axis is the direction of the first tile.

* Table plays (level 0) go on free cells: extending an open end of the run or of a branch in line
  with it (the half touching the end matches it), or starting a branch at a root perpendicular to
  the run (the half next to the root matches the root's number; one branch per side of a root).
* Stacked plays (level ``k >= 1``) lie on two adjacent cells whose stacks both reach level
  ``k - 1`` exactly (no leaners). Over one tile: at least one half matches the number under it.
  Over two tiles (a span): both halves match.
* A bridge (level ``k >= 2``) names the two cells on either side of a root, two apart along the
  run; both stacks reach level ``k - 1``; each half matches the number under it.

Decisions (each with the seed sentence it settles; see ``shared/docs/rules-decisions.md``)
-------------------------------------------------------------------------------------------
* "We use a Double-Nine set." / "Players start with nine tiles each." -> double-nine, 9 each,
  2 to 6 players (six hands of nine leave one tile in the pile).
* "Lowest double goes first." -> with the deal known, the holder of the lowest double dealt leads
  it. The seed is silent when no double was dealt: then the holder of the lowest tile (fewest pips,
  then lower half) leads it. Without the deal any first tile from any player is taken.
* "No 90-degree angles are permitted." -> every table tile lies along its line's axis; the run
  is straight and so is each branch.
* "No leaners. All tiles must be fully supported" -> both halves of a stacked tile lie on stacks
  of the same height, exactly one level below.
* "only one number on the domino needs to match ... directly above the matching number in a
  stack" and "Both ends of the new domino must match the two dominoes being spanned" -> over one
  tile at least one half matches the number under it; over two tiles both halves match.
* "Runs must be a minimum of seven dominoes long before they can be capped at either end." ->
  a stacked tile over an end tile of the run is refused while the run has fewer than 7 tiles on
  the table. A branch may be capped at any length ("If you run out of room, you must cap that
  branch run").
* "If two stacks are separated by a single number (one half of a domino) on the table, this is
  called a ROOT." -> a root is a run cell with nothing on it whose two neighbours along the run
  carry stacks (height two or more); a bridge over it ends it. Roots exist only on the table run.
* "The player who places the second tile defining a root gets one extra turn." / "If a player
  creates two roots with one domino, they get one extra turn for each root." -> each root that
  exists after a play and not before gives the player one extra turn and +12.
* "The first domino of the stacked branch must have a matching end above the root" -> a stacked
  branch starts with a tile perpendicular to the run lying over a root cell (at level 1 over the
  root and a branch's first tile; it is a span, so both halves match). Every new perpendicular
  layer over a root cell is a new stacked branch (+8). Later tiles of a stacked branch follow the
  ordinary stacking rules.
* Capping: a stacked tile over the end tile of a run end or a branch end caps it (+6 per end).
* "creating a bridge: played tile value + two supporting tile values".
* "You may also choose to draw anytime it is your turn. If you draw a useful domino, you may play
  it. Otherwise you add it to your hand and your turn ends." -> a draw (one tile) is allowed on
  any turn while the pile has tiles; with the hands known it is the only move when nothing fits.
  After a draw only the drawn tile may be played, or the player passes; when the drawn tile is
  named and fits nowhere the turn ends at once. With the pile empty and nothing playable the
  player passes; when every player has passed that way since the last play or draw the game is
  blocked and ends (a player passing on his own extra turns is one player who passed).
* "First player to run out of dominoes ends the game." -> +20 to that player; the match ends.
  "The winners are everyone who has fun": for the score, the highest total wins (ties share).

Scoring (``v`` = pip total of the played tile)
---------------------------------------------
points = [any event] * v + 6 * caps + 12 * roots + 8 * branches + bridge * (s1 + s2) + 20 * out,
where ``s1``, ``s2`` are the pip totals of the two tiles a bridge rests on and ``[any event]`` is
1 when the play caps, makes a root, starts a branch or bridges (the tile's own value counts once
however many events it makes), else 0. Other plays score nothing.

With the deal in the log the hands are enforced (holding the tile, the lead, must draw when nothing
fits, passing only when unable); without it only the table rules and the hand counts (going out
after nine tiles plus draws) are.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Iterable, Mapping

from companion.errors import IllegalMoveError, MoveFormatError
from companion.games import register
from companion.games.base import Event, Game, Option
from companion.games.grid import Cell, fast_copy, perpendiculars, step
from companion.moves import Move
from companion.tiles import Tile, full_set

HAND = 9
RUN_MIN_TO_CAP = 7
CAP, ROOT, BRANCH, OUT = 6, 12, 8, 20


def _cells_of(move: Move) -> tuple[Cell, Cell, int]:
    """The two cells and the level of a play entry; raises MoveFormatError when malformed."""
    extra = dict(move.extra)
    at, level = extra.pop("at", None), extra.pop("level", None)
    example = '"at": [[0, 0], [1, 0]], "level": 0'
    if extra:
        raise MoveFormatError(f"{move}: a Stackernoes play takes \"at\" and \"level\", not "
                              f"{sorted(extra)}")
    if move.on is not None:
        raise MoveFormatError(f"{move}: a Stackernoes play is placed by \"at\" and \"level\", "
                              f"not \"on\" (for example {example})")
    ok = (isinstance(at, list) and len(at) == 2 and all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                    for x in c) for c in at))
    if not ok:
        raise MoveFormatError(f"{move}: \"at\" must give the cells of the low and the high half as "
                              f"two [x, y] pairs of whole numbers, like {example}; got {at!r}")
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise MoveFormatError(f"{move}: \"level\" must be a whole number >= 0 (0 is the table), "
                              f"got {level!r}")
    return (at[0][0], at[0][1]), (at[1][0], at[1][1]), level


@register
class Stackernoes(Game):
    """Stackernoes on a grid of half-tile cells with levels."""

    name = "stackernoes"
    grid_plays = True
    aliases = ("stackernoos",)
    title = "Stackernoes"
    seed = "000_7d066973c16d9b1a.txt"
    set_max = 9
    min_players = 2
    max_players = 6
    options_spec: ClassVar[Mapping[str, Option]] = {}

    def setup(self) -> None:
        # cells[(x, y)] = the stack on that cell, bottom first: [tile index, number shown]
        self.cells: dict[Cell, list[tuple[int, int]]] = {}
        self.placed: list[Tile] = []  # tile index -> tile
        self.axis: Cell = (1, 0)  # the run's direction, set by the first tile
        self.run_cells: set[Cell] = set()
        self.run_tiles = 0
        # open line ends: [outermost cell, outward direction, end tile index, capped, is run]
        self.ends: list[list[Any]] = []
        self.roots: list[Cell] = []  # current roots
        self.root_cells: set[Cell] = set()  # every cell that has been a root
        self.bridged: set[Cell] = set()
        self.pile = len(full_set(self.set_max)) - HAND * len(self.players)
        self.held = {p: HAND for p in self.players}
        self.extra_turns = 0
        self.drawn: str | None = None  # after a draw: the tile drawn ("?" if unnamed)
        #: the players who passed with an empty pile since the last play or draw: the game is
        #: blocked when every player is among them (passes on one's own extra turns count once)
        self.passed: list[str] = []
        self.lead: Tile | None = None  # with the deal: the tile that must be led
        self.out: str | None = None

    @property
    def drew_this_turn(self) -> bool:
        return self.drawn is not None

    @property
    def tiles_drawn_this_turn(self) -> list[Tile]:
        return [] if self.drawn in (None, "?") else [Tile.parse(self.drawn)]

    def _save(self) -> dict[str, Any]:
        return {k: fast_copy(v) for k, v in self.__dict__.items()}

    # ---- declarations ---------------------------------------------------------------------
    def hand_size(self) -> int:
        return HAND

    def score_bounds(self) -> tuple[int, int]:
        most = 2 * self.set_max + 2 * CAP + 2 * ROOT + BRANCH + 4 * self.set_max + OUT
        return (0, len(full_set(self.set_max)) * most)

    @property
    def needs_deal(self) -> bool:
        return self.hands is None and not self.placed and not self.finished

    @property
    def round_over(self) -> bool:
        if self.finished:
            return False
        return self.out is not None or (self.pile == 0 and len(self.passed) >= len(self.players))

    def table_tiles(self) -> list[Tile]:
        return list(self.placed)

    # ---- geometry queries -----------------------------------------------------------------
    def height(self, c: Cell) -> int:
        s = self.cells.get(c)
        return len(s) if s else 0

    def top(self, c: Cell) -> tuple[int, int]:
        """(tile index, number) at the top of the stack on ``c``."""
        return self.cells[c][-1]

    def view(self) -> dict[str, Any]:
        """What the dashboard draws: ``kind`` ("grid"), ``cells``: one per occupied half-tile
        cell ``{"x", "y", "value" (the number on top), "tile" (the top tile, text),
        "level" (0: on the table), "run" (part of the table run), "root" (a root now),
        "bridged"}``, sorted by y then x; ``bounds`` (``[min_x, min_y, max_x, max_y]``,
        None on an empty table), ``axis`` (the run's direction), ``ends`` (open and capped
        line ends: ``{"x", "y", "tile", "value", "capped", "run"}``; a branch end has
        ``"run": false``), ``roots`` (current roots as ``[x, y]``), ``run_tiles`` (tiles
        in the table run, 7 before a run end may be capped), ``branches`` (line ends that are
        branches), ``pile`` and ``tiles`` (tiles placed, in order)."""
        cells = []
        for (x, y), stack in sorted(self.cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            idx, value = stack[-1]
            cells.append({"x": x, "y": y, "value": value, "tile": str(self.placed[idx]),
                          "level": len(stack) - 1, "run": (x, y) in self.run_cells,
                          "root": (x, y) in self.roots, "bridged": (x, y) in self.bridged})
        bounds = None
        if self.cells:
            xs = [c[0] for c in self.cells]
            ys = [c[1] for c in self.cells]
            bounds = [min(xs), min(ys), max(xs), max(ys)]
        ends = [{"x": cell[0], "y": cell[1], "tile": str(self.placed[idx]),
                 "value": self.cells[cell][0][1], "capped": bool(capped), "run": bool(is_run)}
                for cell, _d, idx, capped, is_run in self.ends]
        return {"kind": "grid", "cells": cells, "bounds": bounds, "axis": list(self.axis),
                "ends": ends, "roots": [list(r) for r in self.roots],
                "run_tiles": self.run_tiles, "branches": sum(1 for e in ends if not e["run"]),
                "pile": self.pile, "tiles": [str(t) for t in self.placed]}

    def _roots(self) -> list[Cell]:
        d = self.axis
        out = []
        for r in self.run_cells:
            if len(self.cells[r]) == 1 and r not in self.bridged:
                a, b = step(r, d, -1), step(r, d)
                if a in self.run_cells and b in self.run_cells and len(self.cells[a]) >= 2 \
                        and len(self.cells[b]) >= 2:
                    out.append(r)
        return sorted(out)

    def _perp(self) -> tuple[Cell, Cell]:
        return perpendiculars(self.axis)

    def _table_slots(self) -> list[tuple[Cell, Cell, int, str]]:
        """Free table places: (cell touching, outer cell, number to match, what)."""
        out = []
        for cell, d, _tile, capped, is_run in self.ends:
            if capped:
                continue
            a, b = step(cell, d), step(cell, d, 2)
            if a not in self.cells and b not in self.cells:
                out.append((a, b, self.cells[cell][0][1], "run" if is_run else "branch"))
        for r in self.roots:
            for p in self._perp():
                a, b = step(r, p), step(r, p, 2)
                if a not in self.cells and b not in self.cells:
                    out.append((a, b, self.cells[r][0][1], "new branch"))
        return out

    def _stack_slots(self) -> list[tuple[Cell, Cell, int]]:
        """Pairs of adjacent cells whose stacks have the same height: (c1, c2, level)."""
        out = []
        cells = self.cells
        for c, s in cells.items():
            h = len(s)
            for nb in ((c[0] + 1, c[1]), (c[0], c[1] + 1)):
                t = cells.get(nb)
                if t is not None and len(t) == h:
                    out.append((c, nb, h))
        return out

    def _bridge_slots(self) -> list[tuple[Cell, Cell, int]]:
        out = []
        for r in self.roots:
            a, b = step(r, self.axis, -1), step(r, self.axis)
            if len(self.cells[a]) == len(self.cells[b]):
                out.append((a, b, len(self.cells[a])))
        return out

    # ---- legal moves ----------------------------------------------------------------------
    def _candidates(self, player: str) -> list[Tile]:
        if self.hands is not None and self.unknown_in_hand[player] == 0:
            tiles = sorted(self.hands[player])
        else:
            on_table = set(self.placed)
            tiles = [t for t in full_set(self.set_max) if t not in on_table]
        if self.drawn is not None and self.drawn != "?":
            d = Tile.parse(self.drawn)
            tiles = [t for t in tiles if t == d]
        return tiles

    def placements(self, player: str, tiles: Iterable[Tile] | None = None) -> list[Move]:
        """Every play of ``tiles`` (default: the player's candidates) the table allows now."""
        tiles = list(self._candidates(player) if tiles is None else tiles)
        out: list[Move] = []
        if not tiles:
            return out
        if not self.placed:
            lead = [self.lead] if self.lead is not None else tiles
            return [Move.play(player, t, at=[[0, 0], [1, 0]], level=0) for t in lead if t in tiles]
        by_num: dict[int, list[Tile]] = {}
        for t in tiles:
            by_num.setdefault(t.low, []).append(t)
            if t.high != t.low:
                by_num.setdefault(t.high, []).append(t)
        tile_set = set(tiles)

        def put(t: Tile, c_low: Cell, c_high: Cell, level: int) -> None:
            out.append(Move.play(player, t, at=[list(c_low), list(c_high)], level=level))

        for a, b, n, _what in self._table_slots():
            for t in by_num.get(n, ()):
                if t.low == n:
                    put(t, a, b, 0)
                if t.high == n and not t.is_double:
                    put(t, b, a, 0)
        cells = self.cells
        for c1, c2, h in self._stack_slots():
            i1, u1 = cells[c1][-1]
            i2, u2 = cells[c2][-1]
            if h == 1 and not self._cap_allowed(i1, i2):
                continue
            if i1 == i2:
                seen: set[tuple[Tile, bool]] = set()
                for t in by_num.get(u1, []) + by_num.get(u2, []):
                    if (t.low == u1 or t.high == u2) and (t, True) not in seen:
                        seen.add((t, True))
                        put(t, c1, c2, h)
                    if not t.is_double and (t.high == u1 or t.low == u2) and (t, False) not in seen:
                        seen.add((t, False))
                        put(t, c2, c1, h)
            else:
                t = Tile.of(u1, u2)
                if t in tile_set:
                    if t.low == u1:
                        put(t, c1, c2, h)
                    if t.high == u1 and not t.is_double:
                        put(t, c2, c1, h)
        for a, b, h in self._bridge_slots():
            u1, u2 = cells[a][-1][1], cells[b][-1][1]
            t = Tile.of(u1, u2)
            if t in tile_set:
                if t.low == u1:
                    put(t, a, b, h)
                if t.high == u1 and not t.is_double:
                    put(t, b, a, h)
        return out

    def _cap_allowed(self, *covered: int) -> bool:
        """Whether covering the table tiles ``covered`` is allowed (run caps need 7 tiles)."""
        if self.run_tiles >= RUN_MIN_TO_CAP:
            return True
        return not any(e[4] and not e[3] and e[2] in covered for e in self.ends)

    def legal_moves(self) -> list[Move]:
        if self.finished or self.round_over:
            return []
        me = self.players[self.turn]
        plays = self.placements(me)
        if self.drawn is not None:
            return plays + [Move.pass_(me)]
        if not self.placed and self.hands is not None:
            return plays
        extra: list[Move] = []
        if self.pile > 0:
            extra.append(Move.draw(me, 1))
        elif not (plays and self.hand_known(me)):
            extra.append(Move.pass_(me))
        if self.hand_known(me) and not plays:
            return extra
        return plays + extra

    def _legal_text(self) -> list[str]:
        return [str(m) for m in self.legal_moves()]

    # ---- applying -------------------------------------------------------------------------
    def _apply(self, move: Move) -> list[Event]:
        if move.kind == "deal":
            if self.hands is not None or self.placed:
                raise IllegalMoveError(str(move), "the deal comes before the first tile, once", [])
            self.apply_deal(move)
            self.pile = len(self.boneyard or [])
            self.lead = self._lowest_lead()
            holder = next(p for p in self.players if self.hands and self.lead in self.hands[p])
            self.turn = self.players.index(holder)
            return []
        if move.kind == "end_round":
            return self._end(move)
        if move.kind not in ("play", "draw", "pass"):
            raise MoveFormatError(f"Stackernoes has no {move.kind!r} entries; it takes deal, play, "
                                  "draw, pass, end_round")
        if self.round_over:
            raise IllegalMoveError(str(move), "the game is over: only end_round may follow",
                                   ["end of round"])
        if self.placed or self.hands is not None:
            self.require_turn(move)
        if move.kind == "draw":
            return self._draw(move)
        if move.kind == "pass":
            return self._pass(move)
        return self._play(move)

    def _lowest_lead(self) -> Tile:
        held = [t for h in (self.hands or {}).values() for t in h]
        doubles = [t for t in held if t.is_double]
        return min(doubles) if doubles else min(held, key=lambda t: (t.pips, t.low))

    def _end_turn(self) -> None:
        self.drawn = None
        if self.extra_turns > 0:
            self.extra_turns -= 1
        else:
            self.next_player()

    def _draw(self, move: Move) -> list[Event]:
        me = move.player or ""
        if self.drawn is not None:
            raise IllegalMoveError(str(move), f"{me} has drawn already this turn: play the drawn "
                                   "tile or pass", self._legal_text())
        if (move.count or 1) != 1:
            raise IllegalMoveError(str(move), "a Stackernoes draw takes one tile", self._legal_text())
        if self.pile == 0:
            raise IllegalMoveError(str(move), "the pile is empty", self._legal_text())
        if not self.placed:
            raise IllegalMoveError(str(move), "the first tile must be led before anyone draws",
                                   self._legal_text())
        named = self.apply_draw(move)
        if named and (named[0] in set(self.placed)):
            raise IllegalMoveError(str(move), f"{named[0]} is on the table", self._legal_text())
        self.pile -= 1
        self.held[me] += 1
        self.passed = []
        self.drawn = str(named[0]) if named else "?"
        if named and not self.placements(me, named):
            self._end_turn()
        return []

    def _pass(self, move: Move) -> list[Event]:
        me = move.player or ""
        if self.drawn is not None:
            self._end_turn()
            return []
        if not self.placed:
            raise IllegalMoveError(str(move), "nobody passes before the first tile: it must be "
                                   "led", self._legal_text())
        if self.pile > 0:
            raise IllegalMoveError(str(move), f"the pile has {self.pile} tiles: {me} must draw "
                                   "(or play) instead of passing", self._legal_text())
        if self.hand_known(me):
            plays = self.placements(me)
            if plays:
                raise IllegalMoveError(str(move), f"{me} can play, so may not pass",
                                       [str(m) for m in plays])
        if me not in self.passed:
            self.passed.append(me)
        self._end_turn()
        return []

    def _play(self, move: Move) -> list[Event]:
        me = move.player or ""
        tile = move.tile
        if tile is None or tile.colour or tile.high > self.set_max:
            raise MoveFormatError(f"{move}: play a tile of the double-nine set, like \"3-5\"")
        c1, c2, level = _cells_of(move)
        legal = self._legal_text
        if tile in set(self.placed):
            raise IllegalMoveError(str(move), f"{tile} is already on the table", legal())
        if self.drawn is not None and self.drawn != "?" and Tile.parse(self.drawn) != tile:
            raise IllegalMoveError(str(move), f"after drawing, only the drawn tile {self.drawn} may "
                                   "be played", legal())
        if not self.placed and self.lead is not None and tile != self.lead:
            raise IllegalMoveError(str(move), f"the lowest double dealt, {self.lead}, is led first"
                                   if self.lead.is_double else f"no double was dealt: the lowest "
                                   f"tile {self.lead} is led first", legal())
        v1, v2 = tile.low, tile.high
        dist = abs(c1[0] - c2[0]) + abs(c1[1] - c2[1])
        events: list[Event] = []
        bridge_support = 0
        caps = roots = branches = 0
        bridge = False
        if not self.placed:
            if dist != 1 or level != 0:
                raise IllegalMoveError(str(move), "the first tile lies on the table (level 0) on "
                                       "two adjacent cells", legal())
            self.axis = (abs(c2[0] - c1[0]), abs(c2[1] - c1[1]))
            idx = self._put(tile, c1, v1, c2, v2)
            self.run_cells.update((c1, c2))
            self.run_tiles = 1
            lo, hi = sorted((c1, c2))
            self.ends = [[lo, (-self.axis[0], -self.axis[1]), idx, False, True],
                         [hi, self.axis, idx, False, True]]
            if self.hands is None:
                self.turn = self.players.index(me)
        elif level == 0:
            if dist != 1:
                raise IllegalMoveError(str(move), "a table tile covers two adjacent cells", legal())
            branches = self._table_play(move, tile, c1, v1, c2, v2)
        else:
            roots_before = set(self.roots)
            if dist == 2 and c1[0] != c2[0] and c1[1] != c2[1]:
                raise IllegalMoveError(str(move), "the two halves must lie in a straight line",
                                       legal())
            if dist == 1:
                covered = self._stack_play(move, tile, c1, v1, c2, v2, level)
                caps = self._caps(covered)
                mid = set()
            elif dist == 2:
                bridge_support, mid = self._bridge_play(move, tile, c1, v1, c2, v2, level)
                bridge = True
                covered = []
            else:
                raise IllegalMoveError(str(move), "the halves must lie on two adjacent cells (or, "
                                       "for a bridge, on both sides of a root)", legal())
            perp = (abs(c2[0] - c1[0]), abs(c2[1] - c1[1])) != self.axis
            if dist == 1 and perp and ({c1, c2} & self.root_cells):
                branches = 1
            self.bridged |= mid
            self.roots = self._roots()
            new = set(self.roots) - roots_before
            roots = len(new)
            self.root_cells |= new
        if self.placed and level == 0:
            self.roots = self._roots()
        self.take_from_hand(move, tile)
        self.held[me] -= 1
        self.passed = []
        v = tile.pips
        parts = []
        if caps:
            parts.append(f"cap{'s' * (caps > 1)} +{CAP * caps}")
        if roots:
            parts.append(f"{roots} root{'s' * (roots > 1)} +{ROOT * roots}")
        if branches:
            parts.append(f"branch +{BRANCH}")
        if bridge:
            parts.append(f"bridge +{bridge_support}")
        points = 0
        if parts:
            points = v + CAP * caps + ROOT * roots + BRANCH * branches + bridge_support
            events.append(Event("score", me, points, f"{tile} ({v}) " + ", ".join(parts)))
        if self.held[me] == 0:
            points += OUT
            events.append(Event("score", me, OUT, "going out +20"))
            self.out = me
        self.scores[me] += points
        if self.out is None:
            for _ in range(roots):
                events.append(Event("extra_turn", me, 0, "root made"))
            self.extra_turns += roots
            self._end_turn()
        else:
            self.drawn = None
        return events

    def _put(self, tile: Tile, c1: Cell, v1: int, c2: Cell, v2: int) -> int:
        idx = len(self.placed)
        self.placed.append(tile)
        self.cells.setdefault(c1, []).append((idx, v1))
        self.cells.setdefault(c2, []).append((idx, v2))
        return idx

    def _table_play(self, move: Move, tile: Tile, c1: Cell, v1: int, c2: Cell, v2: int) -> int:
        """Put a level-0 tile; returns 1 when it starts a branch, else 0."""
        for c in (c1, c2):
            if c in self.cells:
                raise IllegalMoveError(str(move), f"cell {list(c)} is taken on the table; stack "
                                       "onto it with a level of 1 or more", self._legal_text())
        for i, (cell, d, _t, capped, is_run) in enumerate(self.ends):
            a, b = step(cell, d), step(cell, d, 2)
            if {a, b} != {c1, c2}:
                continue
            what = "the run" if is_run else "the branch"
            if capped:
                raise IllegalMoveError(str(move), f"that end of {what} is capped",
                                       self._legal_text())
            n = self.cells[cell][0][1]
            touching = v1 if a == c1 else v2
            if touching != n:
                turned = "" if (v2 if a == c1 else v1) != n else \
                    f' (the cells of "at" are the low half\'s, then the high half\'s: ' \
                    f'{[list(c2), list(c1)]} puts the {n} there)'
                raise IllegalMoveError(str(move), f"the half touching the end of {what} at "
                                       f"{list(cell)} must show {n}, not {touching}{turned}",
                                       self._legal_text())
            idx = self._put(tile, c1, v1, c2, v2)
            self.ends[i] = [b, d, idx, False, is_run]
            if is_run:
                self.run_cells.update((c1, c2))
                self.run_tiles += 1
            return 0
        for r in self.roots:
            for p in self._perp():
                a, b = step(r, p), step(r, p, 2)
                if {a, b} != {c1, c2}:
                    continue
                n = self.cells[r][0][1]
                touching = v1 if a == c1 else v2
                if touching != n:
                    raise IllegalMoveError(str(move), f"a branch from the root at {list(r)} must "
                                           f"touch it with a {n}, not {touching}",
                                           self._legal_text())
                idx = self._put(tile, c1, v1, c2, v2)
                self.ends.append([b, p, idx, False, False])
                return 1
        raise IllegalMoveError(str(move), "a table tile must extend an open end in line or start "
                               "a branch at a root; open places: " + (", ".join(
                                   f"{list(a)}-{list(b)} ({w}, match {n})"
                                   for a, b, n, w in self._table_slots()) or "none"),
                               self._legal_text())

    def _stack_play(self, move: Move, tile: Tile, c1: Cell, v1: int, c2: Cell, v2: int,
                    level: int) -> list[int]:
        h1, h2 = self.height(c1), self.height(c2)
        if h1 != level or h2 != level:
            raise IllegalMoveError(
                str(move), f"a tile at level {level} needs both halves on stacks reaching level "
                f"{level - 1}: the stacks at {list(c1)} and {list(c2)} have "
                f"{h1} and {h2} tiles (no leaners)", self._legal_text())
        (i1, u1), (i2, u2) = self.cells[c1][-1], self.cells[c2][-1]
        if i1 == i2:
            if v1 != u1 and v2 != u2:
                raise IllegalMoveError(str(move), f"neither half matches the number under it "
                                       f"({v1} over {u1}, {v2} over {u2})", self._legal_text())
        elif v1 != u1 or v2 != u2:
            raise IllegalMoveError(str(move), f"a span over {self.placed[i1]} and "
                                   f"{self.placed[i2]} must match both numbers under it "
                                   f"({v1} over {u1}, {v2} over {u2})", self._legal_text())
        if level == 1 and not self._cap_allowed(i1, i2):
            raise IllegalMoveError(str(move), f"this caps an end of the run, which has "
                                   f"{self.run_tiles} tiles: a run needs {RUN_MIN_TO_CAP} tiles "
                                   "on the table before it is capped", self._legal_text())
        self._put(tile, c1, v1, c2, v2)
        return [i1, i2] if level == 1 else []

    def _caps(self, covered: list[int]) -> int:
        n = 0
        for e in self.ends:
            if not e[3] and e[2] in covered:
                e[3] = True
                n += 1
        return n

    def _bridge_play(self, move: Move, tile: Tile, c1: Cell, v1: int, c2: Cell, v2: int,
                     level: int) -> tuple[int, set[Cell]]:
        mid = ((c1[0] + c2[0]) // 2, (c1[1] + c2[1]) // 2)
        if mid not in self.roots or {c1, c2} != {step(mid, self.axis), step(mid, self.axis, -1)}:
            raise IllegalMoveError(str(move), f"halves two cells apart make a bridge, which needs "
                                   f"a root at {list(mid)} between them; roots: "
                                   + (", ".join(str(list(r)) for r in self.roots) or "none"),
                                   self._legal_text())
        h1, h2 = self.height(c1), self.height(c2)
        if h1 != level or h2 != level:
            raise IllegalMoveError(str(move), f"a bridge at level {level} rests on stacks reaching "
                                   f"level {level - 1} on both sides; they have {h1} and {h2} "
                                   "tiles", self._legal_text())
        (i1, u1), (i2, u2) = self.cells[c1][-1], self.cells[c2][-1]
        if v1 != u1 or v2 != u2:
            raise IllegalMoveError(str(move), f"each half of a bridge must match the number it "
                                   f"rests on ({v1} over {u1}, {v2} over {u2})", self._legal_text())
        self._put(tile, c1, v1, c2, v2)
        return self.placed[i1].pips + self.placed[i2].pips, {mid}

    def _end(self, move: Move) -> list[Event]:
        if not self.round_over:
            raise IllegalMoveError(str(move), "the game is not over: nobody is out of tiles and "
                                   "it is not blocked", self._legal_text())
        given = (move.data or {}).get("hands")
        if given is not None and self.hands is not None:
            self.end_round_hands(move)
        elif given is not None:
            for p, ts in given.items():
                if p in self.held and len(ts) != self.held[p]:
                    raise IllegalMoveError(str(move), f"{p} holds {self.held[p]} tiles by the "
                                           f"log, not {len(ts)}", [])
        self.round_scores.append(dict(self.scores))
        best = max(self.scores.values())
        return [Event("round_end", self.out, 0, f"{self.out} went out" if self.out else "blocked"),
                self.finish([p for p in self.players if self.scores[p] == best])]

    def deal_round(self, rng: random.Random) -> Move:
        pool = full_set(self.set_max)
        rng.shuffle(pool)
        return Move.deal({p: sorted(pool[i * HAND:(i + 1) * HAND])
                          for i, p in enumerate(self.players)})
