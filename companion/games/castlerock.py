"""Castle Rock, a domino solitaire (``castlerock``). Seed: 003_8d1b9facc97c9e65.txt.

The rules in prose
------------------
One player and a double-nine set (55 tiles). All tiles lie face down in a pile. The player draws
tiles one at a time and lays each face up at the right end of a row. Whenever two tiles one
apart (with one tile between them) share a number, the tile in the middle may be removed; whenever
three adjacent tiles share one number, all three may be removed. Removing is compulsory while any
removal is possible, but the choice of removal is the player's. A removal closes the gap, so new
neighbours may allow further removals (chains). When the row is empty and tiles are left, three
are drawn to start a new row. The game ends when the pile is empty and nothing can be removed; it
is won when at most two tiles remain in the row.

Decisions (each with the seed sentence it settles; see ``shared/docs/rules-decisions.md``)
-------------------------------------------------------------------------------------------
* Set: double-nine. The seed's sheet is written for double-nine.
* "When a match occurs between the ends of any 2 dominoes being separated by 1 domino, the domino
  in the middle of the matching dominoes is removed." -> the middle one may be removed when the
  tiles on either side of it share a number.
* "When a match occurs between the ends of 3 dominoes in a row, all 3 dominoes can be removed" ->
  three adjacent tiles that all show one common number may be removed together.
* "you must always remove at least 1 domino when the opportunity arises" -> while any removal is
  possible a draw is illegal; which removal is the player's choice.
* "simply draw 3 tiles and start a new array" -> a draw entry may name up to three tiles at once;
  it is read as that many single draws in a row, each of which must be legal (no removal
  possible before it). So "draw three onto an empty row" and three single draws are the same log.
* "The game is won if only two dominoes remain." -> won when at most two tiles remain (a row of
  one, or none, also wins). Option ``win: "empty"``: won only when the row is empty, as on the
  public pages (gamecabinet.com: "The game is won when the player has captured all the tiles and
  the tableau is empty"); the seed wins by default.
* The public pages allow any set (gamecabinet: "a double six domino set or larger"); the seed's
  double-nine is used.

Log entries (see ``docs/game-log.md``)
--------------------------------------
* ``{"player": "Sol", "draw": "3-4"}``: the tile drawn, laid at the right of the row. The camera
  sees it, so a draw must name its tiles; ``"draw": ["3-4", "0-9", "5-5"]`` for several.
* ``{"player": "Sol", "remove": ["3-4"]}``: the middle tile of a matching pair, or
  ``"remove": ["3-4", "4-8", "4-4"]``: three adjacent tiles sharing a number (any order).
* ``{"end_round": {}}`` once the game is over; then the match is finished.

No deal entry is needed: the pile is the boneyard and every tile is seen when it is drawn, so the
rules are always fully enforced. ``legal_moves`` lists the removals while any is possible,
otherwise one named draw per tile left in the pile (each equally likely).

Scoring
-------
score = number of tiles left in the row at the end (0..55); the player is the winner when
score <= 2 (``win: "two"``) or score == 0 (``win: "empty"``), else nobody wins.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from companion.errors import IllegalMoveError, MoveFormatError
from companion.games import register
from companion.games.base import Event, Game, Option, require_kind
from companion.games.grid import fast_copy
from companion.moves import Move
from companion.tiles import Tile, full_set


def _common(*tiles: Tile) -> set[int]:
    """The numbers every one of ``tiles`` shows."""
    out = set(tiles[0].halves)
    for t in tiles[1:]:
        out &= set(t.halves)
    return out


def removals(row: list[Tile]) -> list[tuple[Tile, ...]]:
    """Every removal the row allows: middles (1 tile) and adjacent triples (3 tiles), in row order."""
    out: list[tuple[Tile, ...]] = []
    for i in range(1, len(row) - 1):
        left, mid, right = row[i - 1], row[i], row[i + 1]
        if _common(left, right):
            out.append((mid,))
        if _common(left, mid, right):
            out.append((left, mid, right))
    return out


@register
class CastleRock(Game):
    """Castle Rock solitaire: state is the row (left to right), the pile and the removed tiles."""

    name = "castlerock"
    aliases = ("castle-rock", "castle_rock")
    title = "Castle Rock"
    seed = "003_8d1b9facc97c9e65.txt"
    set_max = 9
    min_players = 1
    max_players = 1
    options_spec: ClassVar[Mapping[str, Option]] = {
        "win": Option("two", "won with at most two tiles left ('two', the seed) or only with an "
                             "empty row ('empty')", choices=("two", "empty")),
    }

    def setup(self) -> None:
        self.row: list[Tile] = []
        self.removed: list[Tile] = []
        self.hands = {self.players[0]: []}
        self.boneyard = full_set(self.set_max)


    def _save(self) -> dict[str, Any]:
        return {k: fast_copy(v) for k, v in self.__dict__.items()}
    # ---- queries ------------------------------------------------------------------------
    @property
    def round_over(self) -> bool:
        return not self.finished and not self.boneyard and not removals(self.row)

    @property
    def needs_deal(self) -> bool:
        return False

    def table_tiles(self) -> list[Tile]:
        return list(self.row) + list(self.removed)

    def score_bounds(self) -> tuple[int, int]:
        return (0, len(full_set(self.set_max)))

    def won(self) -> bool:
        """Whether the row as it stands would be a win."""
        limit = 2 if self.options["win"] == "two" else 0
        return len(self.row) <= limit

    def legal_moves(self) -> list[Move]:
        if self.finished or self.round_over:
            return []
        me = self.players[0]
        rem = removals(self.row)
        if rem:
            return [Move("remove", me, tiles=r) for r in rem]
        return [Move("draw", me, tile=t, count=1) for t in sorted(self.boneyard or [])]

    def _legal_text(self) -> list[str]:
        return [str(m) for m in self.legal_moves()]

    # ---- dashboard ----------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the dashboard draws: ``kind`` ("row"), ``row`` (the tiles left to right, as
        text), ``pile`` (tiles still to draw), ``removed`` (tiles taken out, in order),
        ``removals`` (every removal possible now: lists of tile texts, in row order),
        ``must_remove`` (a removal is compulsory now), ``draw_next`` (how many tiles the next
        draw lays: 3 on an empty row, else 1; 0 while a removal is due or the pile is empty),
        ``win_limit`` (tiles that may remain for a win) and ``won_now`` (the row as it stands
        would be a win)."""
        rem = removals(self.row)
        pile = len(self.boneyard or [])
        draw_next = 0 if rem or not pile else (min(3, pile) if not self.row else 1)
        return {
            "kind": "row",
            "row": [str(t) for t in self.row],
            "pile": pile,
            "removed": [str(t) for t in self.removed],
            "removals": [[str(t) for t in r] for r in rem],
            "must_remove": bool(rem),
            "draw_next": draw_next,
            "win_limit": 2 if self.options["win"] == "two" else 0,
            "won_now": self.won(),
        }

    # ---- moves --------------------------------------------------------------------------
    def _apply(self, move: Move) -> list[Event]:
        require_kind(move, ("draw", "remove", "end_round"), self)
        if move.kind == "end_round":
            return self._end(move)
        if self.round_over:
            raise IllegalMoveError(str(move), "the game is over (the pile is empty and nothing can "
                                   "be removed): only end_round may follow", ["end of round"])
        if move.kind == "draw":
            return self._draw(move)
        return self._remove(move)

    def _draw(self, move: Move) -> list[Event]:
        named = list(move.drawn)
        if not named or (move.count or 0) != len(named):
            raise MoveFormatError(
                f"{move}: a Castle Rock draw must name the tile it lays on the row, "
                f'like {{"player": "{self.players[0]}", "draw": "3-4"}}')
        if len(named) > 3:
            raise IllegalMoveError(str(move), f"at most three tiles are drawn at once, not "
                                   f"{len(named)}", self._legal_text())
        pile = self.boneyard if self.boneyard is not None else []
        for t in named:
            if t.colour or t.high > self.set_max:
                raise IllegalMoveError(str(move), f"{t} is not a tile of the double-nine set",
                                       self._legal_text())
            rem = removals(self.row)
            if rem:
                raise IllegalMoveError(
                    str(move), f"a removal is compulsory before drawing {t}: the row "
                    f"{' '.join(map(str, self.row))} allows it", self._legal_text())
            if t not in pile:
                where = "in the row" if t in self.row else "already removed"
                raise IllegalMoveError(str(move), f"{t} is not in the pile (it is {where})",
                                       self._legal_text())
            pile.remove(t)
            self.row.append(t)
        return []

    def _remove(self, move: Move) -> list[Event]:
        tiles = list(move.tiles)
        rem = removals(self.row)
        legal = self._legal_text()
        missing = [t for t in tiles if t not in self.row]
        if missing:
            raise IllegalMoveError(str(move), f"{', '.join(map(str, missing))} "
                                   f"{'is' if len(missing) == 1 else 'are'} not in the row "
                                   f"{' '.join(map(str, self.row)) or '(empty)'}", legal)
        if len(set(tiles)) != len(tiles) or len(tiles) not in (1, 3):
            raise IllegalMoveError(str(move), "a removal takes the middle tile of a matching pair "
                                   "(one tile) or three adjacent tiles sharing a number", legal)
        pos = sorted(self.row.index(t) for t in tiles)
        key = tuple(self.row[i] for i in pos)
        if key not in rem:
            if len(tiles) == 1:
                i = pos[0]
                if i == 0 or i == len(self.row) - 1:
                    why = f"{tiles[0]} is at the end of the row: only a tile between two can go"
                else:
                    why = (f"its neighbours {self.row[i - 1]} and {self.row[i + 1]} share no "
                           "number")
            elif pos != list(range(pos[0], pos[0] + 3)):
                why = "the three tiles are not adjacent in the row"
            else:
                why = "the three tiles share no number"
            raise IllegalMoveError(str(move), why, legal)
        for i in reversed(pos):
            self.removed.append(self.row.pop(i))
        return []

    def _end(self, move: Move) -> list[Event]:
        if not self.round_over:
            raise IllegalMoveError(str(move), "the game is not over: "
                                   + ("tiles are left in the pile" if self.boneyard
                                      else "a removal is still possible"), self._legal_text())
        data = move.data or {}
        if set(data) - {"hands"} or any(data.get("hands", {}).get(p) for p in self.players):
            raise MoveFormatError(f"{move}: a Castle Rock end_round carries no tiles: "
                                  'write {"end_round": {}}')
        me = self.players[0]
        left = len(self.row)
        self.scores[me] = left
        self.round_scores.append({me: left})
        events = [Event("round_end", me, left, f"{left} tiles left in the row")]
        events.append(self.finish([me] if self.won() else []))
        return events

    def end_round_move(self) -> Move:
        return Move.end_round()

    def describe_result(self) -> str:
        if not self.finished:
            return "in play"
        left = len(self.row)
        return f"{'won' if self.winners else 'lost'} with {left} tile{'s' * (left != 1)} left"
