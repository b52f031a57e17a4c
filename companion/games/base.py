"""The one rules interface every game implements.

A :class:`Game` object is one match of one game: the fold of its log. It is built from the log
header (players and options), then takes :class:`~companion.moves.Move` values one by one through
:meth:`Game.apply`. ``apply`` is transactional: an illegal or malformed move raises a
:class:`~companion.errors.DominoError` subclass and leaves the state exactly as it was.

What a game module declares (class attributes) and implements (methods):

* ``name``, ``aliases``, ``title``, ``seed``: identity and the seed document it follows;
* ``set_max``: the set (double-N); ``min_players``/``max_players``; ``options_spec``;
* :meth:`Game.legal_moves`: every legal move now. With the hands known (a deal in the log) these
  are concrete moves; without, moves of tiles not yet seen that fit the table (``legal_moves``
  then describes what the table allows, never what a hidden hand holds);
* :meth:`Game._apply`: check and apply one move, returning its :class:`Event` list;
* :meth:`Game.table_tiles`: tiles on the table or otherwise out of hands and boneyard;
* :meth:`Game.deal_round`: a random deal for the round about to start (simulation);
* :meth:`Game.score_bounds`: the range any score can reach (for the conformance test).

Hands are private. The companion never sees them, so rules that depend on hands (must play if
able, dominoing) are enforced only while the log carries the deal and every draw names its
tiles; otherwise they are skipped, never guessed.
"""

from __future__ import annotations

import copy
import json
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Mapping, Sequence

from companion.errors import (DominoError, IllegalMoveError, MoveFormatError, OptionError,
                              PlayersError, SetError)
from companion.moves import Move
from companion.tiles import Tile, full_set


@dataclass(frozen=True)
class Option:
    """A game option: its default, the values it may take and what it means."""

    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None  # None: any value of the default's type
    minimum: int | None = None  # for integer options

    def check(self, name: str, value: Any) -> Any:
        if self.choices is not None:
            if value not in self.choices:
                raise OptionError(f"option {name}={value!r} is not allowed; choose one of "
                                  + ", ".join(repr(c) for c in self.choices))
            return value
        want = type(self.default)
        if want is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionError(f"option {name} must be a whole number, got {value!r}")
        if want is bool and not isinstance(value, bool):
            raise OptionError(f"option {name} must be true or false, got {value!r}")
        if want is str and not isinstance(value, str):
            raise OptionError(f"option {name} must be text, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"option {name} must be at least {self.minimum}, got {value!r}")
        return value


@dataclass(frozen=True)
class Event:
    """Something a move caused, for the score sheet and the dashboard.

    kinds: ``score``, ``extra_turn``, ``skip``, ``reverse``, ``spell``, ``draw_penalty``,
    ``round_end``, ``match_end``, ``renege``, ``trick``, ``bid_won``, ``note``.
    """

    kind: str
    player: str | None = None
    points: int = 0
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        if self.player is not None:
            out["player"] = self.player
        if self.points:
            out["points"] = self.points
        if self.detail:
            out["detail"] = self.detail
        return out


class Game(ABC):
    """One match of one game. Subclasses declare the class attributes and implement the rules."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str]
    seed: ClassVar[str]  # file name in ../shared/seeds/
    set_max: ClassVar[int] = 6
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    options_spec: ClassVar[Mapping[str, Option]] = {}
    #: True for games scored by teams (``teams`` then lists them).
    team_game: ClassVar[bool] = False
    #: True for games whose plays name grid cells and a level (``at``, ``level``), whose
    #: ``placements(player, tiles)`` lists the legal ones as moves (Stackernoes).
    grid_plays: ClassVar[bool] = False
    #: Options seeded random self-play uses unless told otherwise (for a game whose random
    #: matches would not end by the seed's rules alone); documented in the game's module.
    simulation_options: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> None:
        players = list(players)
        if any(not isinstance(p, str) or not p.strip() for p in players):
            raise PlayersError(f"player names must be non-empty text, got {players!r}")
        if len(set(players)) != len(players):
            raise PlayersError(f"player names must differ, got {players!r}")
        if not self.min_players <= len(players) <= self.max_players:
            span = (str(self.min_players) if self.min_players == self.max_players
                    else f"{self.min_players} to {self.max_players}")
            got = (f"{len(players)}: {', '.join(players)}" if players
                   else "none (no player names were given)")
            raise PlayersError(f"{self.title} is played by {span} players, got {got}")
        self.players: list[str] = players
        self.options: dict[str, Any] = self.check_options(options or {})
        self.scores: dict[str, int] = {p: 0 for p in players}
        self.round: int = 1
        self.finished: bool = False
        self.winners: list[str] = []
        self.turn: int = 0  # index into players of whose turn it is
        self.hands: dict[str, list[Tile]] | None = None  # known only with a deal in the log
        self.unknown_in_hand: dict[str, int] = {p: 0 for p in players}  # unnamed draws
        self.boneyard: list[Tile] | None = None  # known only with a deal in the log
        self.round_scores: list[dict[str, int]] = []  # per finished round, for the grid
        self.moves: int = 0
        self.setup()

    # ---- declaration helpers -------------------------------------------------------------
    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults merged with ``options``; unknown names or bad values raise OptionError."""
        if not isinstance(options, Mapping):
            raise OptionError(f"options must be an object of name: value, got {options!r}")
        unknown = sorted(set(options) - set(cls.options_spec))
        if unknown:
            known = ", ".join(sorted(cls.options_spec)) or "none"
            raise OptionError(f"{cls.name} has no option {', '.join(unknown)}; its options: {known}")
        out = {k: o.default for k, o in cls.options_spec.items()}
        for k, v in options.items():
            out[k] = cls.options_spec[k].check(k, v)
        return out

    def setup(self) -> None:
        """Prepare the first round (subclasses extend; called from ``__init__``)."""

    def round_set(self) -> list[Tile]:
        """The tiles in play this round (the full set by default)."""
        return full_set(self.set_max)

    def hand_size(self) -> int:
        """Tiles dealt to each player at the start of a round."""
        raise NotImplementedError(f"{self.name} does not deal hands")

    # ---- the rules (per game) -----------------------------------------------------------
    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every legal move now ([] once the round or the match is over)."""

    @abstractmethod
    def _apply(self, move: Move) -> list[Event]:
        """Check ``move`` and apply it; raise IllegalMoveError/MoveFormatError if it is not
        legal. May leave partial changes when raising: :meth:`apply` restores the state."""

    @abstractmethod
    def table_tiles(self) -> list[Tile]:
        """Every tile that is neither in a hand nor in the boneyard (table, tricks, discards)."""

    @property
    @abstractmethod
    def round_over(self) -> bool:
        """Whether the rules say the current round is over (only ``end_round`` may follow)."""

    def score_bounds(self) -> tuple[int, int]:
        """The smallest and largest value any player's score can take."""
        return (0, 10_000)

    def teams(self) -> list[list[str]] | None:
        """The teams of a team game, else None."""
        return None

    # ---- applying moves -------------------------------------------------------------------
    def apply(self, move: Move) -> list[Event]:
        """Apply ``move`` or raise, leaving the state as it was. Returns the move's events."""
        if not isinstance(move, Move):
            raise MoveFormatError(f"apply takes a Move, got {type(move).__name__}")
        if self.finished:
            raise IllegalMoveError(str(move), f"the match is over ({self.describe_result()})", [])
        if move.player is not None and move.player not in self.players:
            # a name the game does not have is a malformed entry, not a move the rules refuse
            # (which would also claim that no move is legal now)
            raise MoveFormatError(f"{move}: {move.player!r} is not playing; the players are "
                                  + ", ".join(self.players))
        saved = self._save()
        try:
            events = self._apply(move)
        except BaseException:
            self._restore(saved)
            raise
        self.moves += 1
        return events

    def accepts(self, move: Move) -> bool:
        """Whether the rules take ``move`` now (tried on a copy: this game is not changed)."""
        trial = copy.deepcopy(self)
        try:
            trial.apply(move)
        except DominoError:
            return False
        return True

    def _save(self) -> dict[str, Any]:
        return copy.deepcopy(self.__dict__)

    def _restore(self, saved: dict[str, Any]) -> None:
        self.__dict__.clear()
        self.__dict__.update(saved)

    # ---- turn helpers -------------------------------------------------------------------
    @property
    def current_player(self) -> str | None:
        """Whose turn it is, or None when no one's (between rounds, match over)."""
        if self.finished or self.round_over:
            return None
        return self.players[self.turn]

    @property
    def drew_this_turn(self) -> bool:
        """Whether the player whose turn it is has drawn this turn and may still lay the drawn
        tile or pass (games where a draw does not end the search for a play: Chickenfoot,
        Super Dominoes, Stackernoes). False in the others."""
        return False

    @property
    def tiles_drawn_this_turn(self) -> list[Tile]:
        """The tiles the player whose turn it is drew this turn, where the draws named them
        (empty where they did not, or the game has no draw within a turn)."""
        return []

    def next_player(self, steps: int = 1) -> None:
        self.turn = (self.turn + steps) % len(self.players)

    def require_turn(self, move: Move) -> None:
        """Raise unless ``move`` is made by the player whose turn it is."""
        cur = self.current_player
        if move.player != cur:
            raise IllegalMoveError(str(move), f"it is {cur}'s turn, not {move.player}'s",
                                   [str(m) for m in self.legal_moves()])

    # ---- hand and boneyard helpers --------------------------------------------------------
    @property
    def hands_known(self) -> bool:
        return self.hands is not None

    def hand_known(self, player: str) -> bool:
        """Whether every tile in ``player``'s hand is known (deal given, draws named)."""
        return self.hands is not None and self.unknown_in_hand[player] == 0

    def take_from_hand(self, move: Move, tile: Tile) -> None:
        """Remove ``tile`` from the mover's hand when hands are known; else trust the table."""
        if self.hands is None:
            return
        hand = self.hands[move.player]
        if tile in hand:
            hand.remove(tile)
        elif self.unknown_in_hand[move.player] > 0 and self.boneyard is not None and tile in self.boneyard:
            # an unnamed draw turned out to be this tile
            self.unknown_in_hand[move.player] -= 1
            self.boneyard.remove(tile)
        else:
            raise IllegalMoveError(str(move), f"{move.player} does not hold {tile}",
                                   [str(m) for m in self.legal_moves()])

    def hand_count(self, player: str) -> int | None:
        if self.hands is None:
            return None
        return len(self.hands[player]) + self.unknown_in_hand[player]

    def apply_deal(self, move: Move, sizes: Mapping[str, int] | None = None,
                   pool: Iterable[Tile] | None = None) -> None:
        """Take a deal entry: hands become known, the boneyard is the rest of ``pool``.

        ``sizes`` gives each player's hand size (default :meth:`hand_size` for all);
        ``pool`` the tiles being dealt from (default: the round set less the table).
        """
        data = move.data or {}
        raw = data.get("hands", {})
        if set(raw) != set(self.players):
            raise MoveFormatError(f"the deal must give a hand to each of {', '.join(self.players)}; "
                                  f"it names {', '.join(raw) or 'nobody'}")
        pool = list(pool) if pool is not None else [
            t for t in self.round_set() if t not in set(self.table_tiles())]
        pool_set = set(pool)
        hands = {p: [Tile.parse(t) for t in raw[p]] for p in self.players}
        seen: set[Tile] = set()
        for p, hand in hands.items():
            want = (sizes or {}).get(p, None) if sizes is not None else self.hand_size()
            if want is not None and len(hand) != want:
                raise MoveFormatError(f"{p} must be dealt {want} tiles, the deal gives {len(hand)}")
            for t in hand:
                if t not in pool_set:
                    raise MoveFormatError(f"{t} dealt to {p} is not available in this round's set")
                if t in seen:
                    raise MoveFormatError(f"{t} is dealt twice")
                seen.add(t)
        self.hands = hands
        self.unknown_in_hand = {p: 0 for p in self.players}
        self.boneyard = sorted(t for t in pool if t not in seen)

    def apply_draw(self, move: Move) -> list[Tile]:
        """Move drawn tiles from the boneyard to the mover's hand; returns the named tiles."""
        named = list(move.drawn)
        n = move.count or len(named)
        if self.boneyard is not None:
            if n > len(self.boneyard):
                raise IllegalMoveError(str(move), f"the boneyard holds only {len(self.boneyard)} tiles",
                                       [str(m) for m in self.legal_moves()])
            for t in named:
                if t not in self.boneyard:
                    raise IllegalMoveError(str(move), f"{t} is not in the boneyard",
                                           [str(m) for m in self.legal_moves()])
                self.boneyard.remove(t)
        if self.hands is not None:
            self.hands[move.player].extend(named)
            self.unknown_in_hand[move.player] += n - len(named)
            if self.boneyard is not None and n > len(named):
                # unnamed tiles leave the boneyard too: which ones, we learn when they are played
                pass
        return named

    def boneyard_size(self) -> int | None:
        """Tiles left to draw, when known."""
        if self.boneyard is None:
            return None
        return len(self.boneyard) - sum(self.unknown_in_hand.values())

    # ---- simulation hooks -----------------------------------------------------------------
    def deal_round(self, rng: random.Random) -> Move:
        """A random deal for the round about to start (the chance outcome, as a log entry)."""
        pool = [t for t in self.round_set() if t not in set(self.table_tiles())]
        rng.shuffle(pool)
        size = self.hand_size()
        hands = {p: sorted(pool[i * size:(i + 1) * size]) for i, p in enumerate(self.players)}
        return Move.deal(hands)

    @property
    def needs_deal(self) -> bool:
        """Whether the next entry of a simulated game is a deal (start of a round)."""
        return self.hands is None and not self.finished

    def resolve_draw(self, move: Move, rng: random.Random) -> Move:
        """Name the tiles of an unnamed draw from the known boneyard (simulation only)."""
        if move.kind != "draw" or move.drawn or self.boneyard is None:
            return move
        n = min(move.count or 1, len(self.boneyard))
        tiles = rng.sample(sorted(self.boneyard), n)
        return Move.draw(move.player, [str(t) for t in tiles])

    def end_round_move(self) -> Move:
        """The ``end_round`` entry for the round that just ended, with the known hands."""
        if self.hands is None:
            return Move.end_round()
        return Move.end_round({p: sorted(h) for p, h in self.hands.items()})

    def end_round_hands(self, move: Move) -> dict[str, list[Tile]]:
        """The hands left at the end of a round: from the entry, checked against known hands."""
        data = move.data or {}
        given = data.get("hands")
        if given is None:
            if self.hands is None or any(self.unknown_in_hand.values()):
                raise MoveFormatError('"end_round" needs "hands": the tiles left in each hand, '
                                      'since the hands are not known from a deal')
            return {p: list(h) for p, h in self.hands.items()}
        if set(given) - set(self.players):
            raise MoveFormatError(f"end_round names unknown players {sorted(set(given) - set(self.players))}")
        hands = {p: [Tile.parse(t) for t in given.get(p, [])] for p in self.players}
        if self.hands is not None and not any(self.unknown_in_hand.values()):
            for p in self.players:
                if sorted(hands[p]) != sorted(self.hands[p]) and p in given:
                    raise IllegalMoveError(
                        str(move), f"{p} holds {', '.join(map(str, sorted(self.hands[p]))) or 'nothing'} "
                        f"by the deal, not {', '.join(map(str, sorted(hands[p]))) or 'nothing'}", [])
                if p not in given:
                    hands[p] = list(self.hands[p])
        return hands

    # ---- results ------------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        """What ``replay`` prints: game, players, scores, round, finished, winner."""
        out: dict[str, Any] = {"game": self.name, "players": list(self.players),
                               "scores": dict(self.scores)}
        teams = self.teams()
        if teams is not None:
            out["teams"] = [{"players": t, "score": self.team_score(t)} for t in teams]
        out["round"] = self.round
        out["finished"] = self.finished
        if not self.finished or not self.winners:
            out["winner"] = None
        else:
            out["winner"] = self.winners[0] if len(self.winners) == 1 else list(self.winners)
        return out

    def team_score(self, team: list[str]) -> int:
        return self.scores[team[0]]

    def describe_result(self) -> str:
        if self.winners:
            return "won by " + " and ".join(self.winners)
        return "no winner"

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-ready data; two states are equal when their snapshots are."""
        def conv(v: Any) -> Any:
            if isinstance(v, Tile):
                return str(v)
            if isinstance(v, Mapping):
                return {str(k): conv(x) for k, x in v.items()}
            if isinstance(v, (list, tuple)):
                return [conv(x) for x in v]
            if isinstance(v, (set, frozenset)):
                return sorted(conv(x) for x in v)
            if hasattr(v, "__dict__") and not isinstance(v, type):
                return {k: conv(x) for k, x in vars(v).items()}
            if hasattr(v, "__dataclass_fields__"):
                return {k: conv(getattr(v, k)) for k in v.__dataclass_fields__}
            return v
        return {k: conv(v) for k, v in sorted(self.__dict__.items())}

    # ---- dashboard ----------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What is on the table, in the game's own terms, as JSON-ready data for the dashboard.

        The default (for a game without its own view) is ``{"kind": "generic", "table": [...]}``:
        every tile out of the hands and boneyard, as text. Games override it with a dict whose
        ``"kind"`` names the drawing the dashboard uses (``"line"``, ``"tricks"``, ``"row"``,
        ``"layouts"``, ``"grid"``); each game documents its keys in its ``view`` docstring.
        """
        return {"kind": "generic", "table": [str(t) for t in self.table_tiles()]}

    def entry_kinds(self) -> list[dict[str, Any]]:
        """The hand-entry kinds the tablet should offer now, derived from :meth:`legal_moves`.

        One dict per kind, in the order the legal moves first name it:
        ``{"kind": "bid", "player": "Ann", "values": ["pass", 30, 31], "entries": [{...}, ...]}``
        where ``entries`` are the complete log entries (legal now, in the rules core's order)
        and ``values`` their short labels. ``player`` is the player of the first entry (None
        for entries no player makes). ``end_round`` is offered when the round is over.
        Without a deal the legal moves are what the table allows, not what a hidden hand holds.
        """
        out: dict[str, dict[str, Any]] = {}
        for m in self.legal_moves():
            entry = m.to_json()
            slot = out.setdefault(m.kind, {"kind": m.kind, "player": m.player, "values": [],
                                           "entries": []})
            slot["values"].append(entry_value(m))
            slot["entries"].append(entry)
        if not self.finished and self.round_over and "end_round" not in out:
            out["end_round"] = {"kind": "end_round", "player": None, "values": [],
                                "entries": []}
        return list(out.values())

    def finish(self, winners: Iterable[str]) -> Event:
        self.finished = True
        self.winners = list(winners)
        return Event("match_end", None, 0, self.describe_result())


def require_kind(move: Move, kinds: Iterable[str], game: "Game") -> None:
    """Raise MoveFormatError unless ``move.kind`` is one this game takes."""
    kinds = tuple(kinds)
    if move.kind not in kinds:
        raise MoveFormatError(f"{game.title} has no {move.kind!r} entries; it takes "
                              + ", ".join(kinds))


def check_unique(tiles: Iterable[Tile], what: str) -> None:
    seen: set[Tile] = set()
    for t in tiles:
        if t in seen:
            raise SetError(f"{t} appears twice in {what}")
        seen.add(t)


def entry_value(move: Move) -> Any:
    """A short label for ``move`` in an entry picker: the bid or trump value, the tile (with
    ``on``), the tiles drawn or removed, ``"pass"``."""
    if move.kind in ("bid", "trump"):
        return move.value
    if move.kind == "play" and not move.extra:
        return str(move.tile) + (f" on {move.on}" if move.on is not None else "")
    if move.kind == "play":
        keys = " ".join(f"{k} {json.dumps(v, separators=(',', ':'))}" for k, v in move.extra.items())
        return f"{move.tile} {keys}"
    if move.kind == "discard" and move.tile is not None:
        return str(move.tile)
    if move.kind == "pass":
        return "pass"
    if move.kind in ("draw", "remove"):
        named = list(move.tiles) if move.tiles else ([move.tile] if move.tile is not None else [])
        if named:
            return " ".join(map(str, named))
        return move.count or 1
    return str(move)
