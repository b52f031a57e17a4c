"""Line layouts shared by All Fives, Chickenfoot and Super Dominoes.

The three games build lines of tiles matched end to end. What they share is written once here:

* the **table** (every tile placed this round, in order) and the **open ends**: one entry per arm
  (a line growing from the first tile, a toe, a train), ``[last_tile, open_value]``. A tile is
  played *on* the last tile of an arm; the log names that tile in ``"on"``;
* hands, drawing and passing as the log carries them (hands known only with a deal);
* the end of a round: the hands left, checked against the table and against known hands;
* a fast transactional copy of the state (plain lists, dicts and immutable tiles only).

What differs (spinners, feet, doubles on 13s, events, scoring) lives in each game's module:
each implements :meth:`LineGame.placements` (where a tile may go now) and
:meth:`LineGame.why_not` (why it may not go on a given tile), and the rest of the Game interface.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NoReturn

from companion.errors import IllegalMoveError, MoveFormatError
from companion.games.base import Game
from companion.moves import Move
from companion.tiles import Tile, full_set, pip_total


@lru_cache(maxsize=None)
def set_of(n: int) -> tuple[Tile, ...]:
    """The double-``n`` set, built and checked once."""
    return tuple(full_set(n))


def fast_copy(value: Any) -> Any:
    """Copy nested lists and dicts; everything else (tiles, numbers, text) is immutable.

    The state keeps every list homogeneous (all tiles, all names, all ``[tile, value]`` pairs),
    so a list whose first item is neither a list nor a dict is copied shallowly."""
    kind = type(value)
    if kind is list:
        if value and type(value[0]) in (list, dict):
            return [fast_copy(x) for x in value]
        return value[:]
    if kind is dict:
        return {k: fast_copy(x) for k, x in value.items()}
    return value


class LineGame(Game):
    """Shared machinery of the line games (abstract: games implement the rules hooks)."""

    def setup(self) -> None:
        self.round_starter: int = 0  # seat that starts the current round
        self.reset_layout()

    def reset_layout(self) -> None:
        """Clear the table for a new round (hands and boneyard become unknown again)."""
        self.table: list[Tile] = []
        self.ends: list[list] = []  # [last tile of an arm, open pip value]
        self.passes: int = 0  # consecutive passes made with nothing left to draw
        self.out: str | None = None  # the player who went out (hands known)
        self.drawn: list[Tile] = []  # tiles the player to move drew this turn (named draws)
        self.drew: bool = False  # whether the player to move has drawn this turn
        self.round_points: dict[str, int] = {p: 0 for p in self.players}
        self.fresh: bool = True  # no entry taken yet this round
        #: each tile played on another this round -> the tile it went on (for the dashboard's
        #: arms; the rules never read it)
        self.parents: dict[Tile, Tile] = {}
        self.hands = None
        self.boneyard = None
        self.unknown_in_hand = {p: 0 for p in self.players}

    @property
    def drew_this_turn(self) -> bool:
        return self.drew

    @property
    def tiles_drawn_this_turn(self) -> list[Tile]:
        return list(self.drawn) if self.drew else []

    def round_set(self) -> list[Tile]:
        return list(set_of(self.set_max))

    # ---- state copy -----------------------------------------------------------------------
    def _save(self) -> dict[str, Any]:
        return fast_copy(self.__dict__)

    def _restore(self, saved: dict[str, Any]) -> None:
        self.__dict__.clear()
        self.__dict__.update(saved)

    # ---- the table ----------------------------------------------------------------------
    @property
    def round_over(self) -> bool:
        """A player went out, or every player passed in turn with nothing left to draw."""
        return self.out is not None or self.passes >= len(self.players)

    def table_tiles(self) -> list[Tile]:
        return list(self.table)

    def end_indexes(self, on: Tile) -> list[int]:
        """Indexes in :attr:`ends` of the arms whose last tile is ``on``."""
        return [i for i, (t, _) in enumerate(self.ends) if t == on]

    def unseen(self) -> list[Tile]:
        """Tiles of the round's set not on the table (what a hidden hand may hold)."""
        on_table = set(self.table)
        return [t for t in self.round_set() if t not in on_table]

    def candidates(self, player: str) -> list[Tile]:
        """The tiles ``player`` may hold: the hand when known, else every unseen tile."""
        if self.hands is not None and self.hand_known(player):
            return sorted(set(self.hands[player]))
        return self.unseen()

    # ---- rules hooks ----------------------------------------------------------------------
    def placements(self, tile: Tile, player: str) -> list[Tile | None]:
        """Where ``tile`` may be played now by ``player``: the tiles it may go on
        (``None`` for the first tile of the round). Games override."""
        raise NotImplementedError

    def why_not(self, tile: Tile, on: Tile | None, player: str) -> str:
        """Why ``tile`` may not go on ``on`` now (text for the error). Games override."""
        raise NotImplementedError

    def plays_for(self, player: str, tiles: list[Tile] | None = None) -> list[Move]:
        """Every legal play of ``player`` among ``tiles`` (default: the candidates)."""
        out = []
        for tile in (self.candidates(player) if tiles is None else tiles):
            for on in self.placements(tile, player):
                out.append(Move.play(player, tile, on))
        return out

    def can_play(self, player: str) -> bool:
        """Whether ``player``'s known hand holds a tile that fits (False when unknown)."""
        if self.hands is None or not self.hand_known(player):
            return False
        return any(self.placements(t, player) for t in self.hands[player])

    def resolve_play(self, move: Move) -> Tile | None:
        """The tile ``move`` goes on: its ``on``, or the only placement when ``on`` is left out.

        Raises IllegalMoveError when the tile does not fit there (or fits in several places and
        ``on`` is missing)."""
        tile, player = move.tile, move.player
        self.check_in_set(move)
        if tile in self.table:
            self.reject(move, f"{tile} is already on the table")
        places = self.placements(tile, player)
        if move.on is None:
            if None in places:
                return None
            if len(places) == 1:
                self.parents[tile] = places[0]
                return places[0]
            if not places:
                self.reject(move, self.why_not(tile, None, player))
            self.reject(move, f"{tile} fits on " + ", ".join(map(str, places))
                        + ': say which with "on"')
        if move.on in places:
            self.parents[tile] = move.on
            return move.on
        self.reject(move, self.why_not(tile, move.on, player))

    def check_in_set(self, move: Move) -> None:
        """Reject a play of a tile the game's set does not hold (a 9-12 in a double-nine game):
        with no deal logged no hand check catches it, and a misread tile comes in this way."""
        if move.tile.high > self.set_max:
            self.reject(move, f"{move.tile} is not in the double-{self.set_max} set this game "
                        f"is played with (pips 0 to {self.set_max})")

    def reject(self, move: Move, reason: str) -> NoReturn:
        """Raise IllegalMoveError for ``move`` with the moves that would be legal now."""
        raise IllegalMoveError(str(move), reason, [str(m) for m in self.legal_moves()])

    def not_open_reason(self, tile: Tile, on: Tile | None) -> str:
        """Common reasons: no ``on``, ``on`` not on the table, ``on`` covered, ends mismatch."""
        if on is None:
            return f"{tile} fits no open end"
        if on not in self.table:
            return f"{on} is not on the table"
        idx = self.end_indexes(on)
        if not idx:
            return f"{on} has no open end (it is covered)"
        values = sorted({self.ends[i][1] for i in idx})
        shown = " or ".join(map(str, values))
        return f"{on}'s open end is {shown}"

    # ---- hands, draws, passes ------------------------------------------------------------
    def check_deal_allowed(self, move: Move) -> None:
        if not self.fresh:
            self.reject(move, "a deal comes only at the start of a round, before any play")

    def take_deal(self, move: Move) -> None:
        """Take a deal entry at the start of a round: hands and boneyard become known."""
        self.check_deal_allowed(move)
        self.apply_deal(move)
        self.fresh = False

    @staticmethod
    def play_or_draw(player: str, plays: list[Move], known: bool, draw_known: int,
                     draw_unknown: int) -> list[Move]:
        """The moves of a player who has not drawn this turn: with the hand known, the plays, or
        else the draw the rules ask for (``draw_known`` tiles; 0 when nothing can be drawn) or a
        pass; with the hand unknown, the plays plus a draw and a pass (the table cannot tell)."""
        if known:
            if plays:
                return plays
            return [Move.draw(player, draw_known)] if draw_known else [Move.pass_(player)]
        return plays + [Move.draw(player, draw_unknown), Move.pass_(player)]

    def draw_count_check(self, move: Move, want: int) -> None:
        """Reject a draw of a number of tiles other than ``want``."""
        n = move.count or len(move.drawn)
        if n != want:
            self.reject(move, f"the draw here is {want} tile{'s' if want != 1 else ''}, not {n}")

    def take_tile(self, move: Move) -> None:
        """Take the played tile from the mover's hand (when hands are known)."""
        self.take_from_hand(move, move.tile)
        if self.hands is not None and self.hand_count(move.player) == 0:
            self.out = move.player

    def end_hands(self, move: Move) -> dict[str, list[Tile]]:
        """The hands left at an ``end_round``, checked: no tile twice, none on the table."""
        hands = self.end_round_hands(move)
        on_table = set(self.table)
        seen: dict[Tile, str] = {}
        allowed = set(self.round_set())
        for p, hand in hands.items():
            for t in hand:
                if t in on_table:
                    raise IllegalMoveError(str(move), f"{p} is said to hold {t}, which is on the "
                                           "table", [])
                if t in seen:
                    raise IllegalMoveError(str(move), f"{t} is said to be in the hands of both "
                                           f"{seen[t]} and {p}", [])
                if t not in allowed:
                    raise IllegalMoveError(str(move), f"{t} is not in this round's set", [])
                seen[t] = p
        return hands

    @staticmethod
    def hand_pips(hands: dict[str, list[Tile]]) -> dict[str, int]:
        return {p: pip_total(h) for p, h in hands.items()}

    def require_kind_in(self, move: Move, kinds: tuple[str, ...]) -> None:
        if move.kind not in kinds:
            raise MoveFormatError(f"{self.title} has no {move.kind!r} entries; it takes "
                                  + ", ".join(kinds))

    def finish_round(self, points: dict[str, int]) -> None:
        """Record the round's points on the grid and clear the table for the next deal."""
        row = {p: self.round_points[p] + points.get(p, 0) for p in self.players}
        self.round_scores.append(row)
        self.round += 1
        self.reset_layout()

    # ---- dashboard helpers ------------------------------------------------------------------
    def chain_to(self, tile: Tile) -> list[Tile]:
        """The tiles from the round's first tile (or centre double) out to ``tile``, following
        what each was played on."""
        out = [tile]
        seen = {tile}
        while out[-1] in self.parents and self.parents[out[-1]] not in seen:
            out.append(self.parents[out[-1]])
            seen.add(out[-1])
        return out[::-1]

    def arms_view(self) -> list[dict[str, Any]]:
        """One dict per open end: ``tiles`` (from the first tile out, as text), ``end`` (the
        last tile), ``open`` (the number a tile must match there), ``double_end`` (the end tile
        is a double lying crosswise)."""
        return [{"tiles": [str(t) for t in self.chain_to(t)], "end": str(t), "open": v,
                 "double_end": t.is_double} for t, v in self.ends]

    def line_view(self) -> dict[str, Any]:
        """The keys every line game's view shares: ``kind`` ("line"), ``table`` (tiles in the
        order played), ``arms`` (see :meth:`arms_view`), ``open_ends`` (the arms' open numbers),
        ``boneyard`` (tiles left to draw, None when the deal is not logged), ``drew`` (the
        player to move has drawn this turn), ``round``."""
        return {"kind": "line", "table": [str(t) for t in self.table], "arms": self.arms_view(),
                "open_ends": [v for _, v in self.ends], "boneyard": self.boneyard_size(),
                "drew": self.drew, "round": self.round}
