"""Moves: the entries of a game log, as immutable values with a JSON round trip.

One game-log line (after the header) is one :class:`Move`. The vocabulary is shared by all
games; each game accepts the kinds it knows and rejects the others with a clear error.
``docs/game-log.md`` documents every kind with examples.

=============  ===========================================================================
kind           JSON
=============  ===========================================================================
``play``       ``{"player": "Bob", "play": "5-0", "on": "5-5"}`` (``on`` optional; games may
               add their own placement keys, kept in ``extra``: Stackernoes ``at``, ...)
``draw``       ``{"player": "Bob", "draw": 1}``, ``{"player": "Bob", "draw": "3-4"}`` or a list
``pass``       ``{"player": "Bob", "pass": true}``
``bid``        ``{"player": "Ann", "bid": 31}`` or ``{"player": "Ann", "bid": "pass"}``
``trump``      ``{"player": "Ann", "trump": 4}`` (or ``"doubles"``, ``"follow-me"``, ``"none"``)
``discard``    ``{"player": "Ann", "discard": "3-4"}`` (Moon: the widow exchange)
``remove``     ``{"remove": ["3-4"]}`` (Castle Rock)
``deal``       ``{"deal": {"Ann": ["5-5", ...], "Bob": [...]}}`` plus game keys (``widow``...)
``end_round``  ``{"end_round": {"hands": {"Ann": [], "Bob": ["3-0", "6-5"]}}}``
=============  ===========================================================================

Keys every entry may carry and that the rules ignore (kept in ``meta``): ``t`` (time),
``source`` (``camera``, ``hand``, ``correction``), ``confidence``, ``note``, ``seq``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from companion.errors import MoveFormatError, TileParseError
from companion.tiles import Tile

#: Keys that carry no rules meaning.
META_KEYS = frozenset({"t", "source", "confidence", "note", "seq", "reading"})

#: The latest entry time taken (seconds since 1970; about the year 5100): a larger ``t`` is
#: a mistake, and the log's file could not store it.
LATEST_T = 1e11


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def _check_meta(meta: Mapping[str, Any]) -> None:
    """Refuse meta values of the wrong kind (they are stored with the entry and shown)."""
    if "t" in meta and not (_number(meta["t"]) and 0 <= meta["t"] <= LATEST_T):
        raise MoveFormatError(f'"t" is when the entry was made, in seconds since 1970 (leave it '
                              f'out and it is set when the entry is logged), got {meta["t"]!r}')
    if "confidence" in meta and not (_number(meta["confidence"])
                                     and 0 <= meta["confidence"] <= 1):
        raise MoveFormatError(f'"confidence" is a number from 0 to 1, got {meta["confidence"]!r}')
    for key in ("source", "note"):
        if key in meta and not isinstance(meta[key], str):
            raise MoveFormatError(f'"{key}" is text, got {meta[key]!r}')
    if "reading" in meta and not isinstance(meta["reading"], Mapping):
        raise MoveFormatError(f'"reading" is an object (what the camera read), got '
                              f'{meta["reading"]!r}')


#: The key that names each kind of move, in the order they are tried.
KINDS = ("play", "draw", "pass", "bid", "trump", "discard", "remove", "deal", "end_round")

TRUMP_WORDS = ("doubles", "follow-me", "none")


def _tile(value: Any, key: str) -> Tile:
    try:
        return Tile.parse(value)
    except TileParseError as exc:
        raise MoveFormatError(f'"{key}": {exc}') from None


@dataclass(frozen=True)
class Move:
    """One log entry. Build it with the constructors below or :meth:`from_json`."""

    kind: str
    player: str | None = None
    tile: Tile | None = None  # play, discard, and a draw of one named tile
    tiles: tuple[Tile, ...] = ()  # a draw of several named tiles, a removal
    on: Tile | None = None  # play: the tile (or stack top) it goes against or onto
    count: int | None = None  # draw: how many tiles (known or not)
    value: int | str | None = None  # bid (int or "pass"), trump (int or word)
    data: Mapping[str, Any] | None = None  # deal / end_round payload, as JSON
    extra: Mapping[str, Any] = field(default_factory=dict)  # game-specific placement keys
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    # constructors -------------------------------------------------------------------------
    @classmethod
    def play(cls, player: str, tile: Tile | str, on: Tile | str | None = None, **extra: Any) -> "Move":
        return cls("play", player, tile=Tile.parse(tile), on=None if on is None else Tile.parse(on),
                   extra=dict(extra))

    @classmethod
    def draw(cls, player: str, tiles: int | Tile | str | list = 1) -> "Move":
        return cls.from_json({"player": player, "draw": tiles if not isinstance(tiles, Tile) else str(tiles)})

    @classmethod
    def pass_(cls, player: str) -> "Move":
        return cls("pass", player)

    @classmethod
    def bid(cls, player: str, value: int | str) -> "Move":
        return cls("bid", player, value=value)

    @classmethod
    def trump(cls, player: str, value: int | str) -> "Move":
        return cls("trump", player, value=value)

    @classmethod
    def deal(cls, hands: Mapping[str, list], **extra: Any) -> "Move":
        payload = {p: [str(t) for t in ts] for p, ts in hands.items()}
        return cls("deal", data={"hands": payload, **_jsonable(extra)})

    @classmethod
    def end_round(cls, hands: Mapping[str, list] | None = None) -> "Move":
        data = {} if hands is None else {"hands": {p: [str(t) for t in ts] for p, ts in hands.items()}}
        return cls("end_round", data=data)

    # JSON round trip ----------------------------------------------------------------------
    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Move":
        """Parse one log entry (a JSON object already decoded)."""
        if not isinstance(obj, Mapping):
            raise MoveFormatError(f"a log entry is a JSON object, got {type(obj).__name__}")
        kinds = [k for k in KINDS if k in obj]
        if len(kinds) != 1:
            found = f"keys {sorted(obj)}" if obj else "an empty object"
            raise MoveFormatError(
                f"a log entry needs exactly one of the keys {', '.join(KINDS)}; found {found}")
        kind = kinds[0]
        player = obj.get("player")
        if player is not None and not isinstance(player, str):
            raise MoveFormatError(f'"player" must be a name (text), got {player!r}')
        meta = {k: obj[k] for k in obj if k in META_KEYS}
        _check_meta(meta)
        rest = {k: obj[k] for k in obj if k not in META_KEYS and k not in (kind, "player")}
        raw = obj[kind]
        if kind in ("play", "draw", "pass", "bid", "trump", "discard") and player is None:
            raise MoveFormatError(f'a "{kind}" entry needs "player": who made it')
        if kind == "play":
            on = rest.pop("on", None)
            return cls("play", player, tile=_tile(raw, "play"),
                       on=None if on is None else _tile(on, "on"), extra=rest, meta=meta)
        if rest and kind != "deal":
            raise MoveFormatError(f'unexpected keys {sorted(rest)} in a "{kind}" entry')
        if kind == "draw":
            if isinstance(raw, bool) or not isinstance(raw, (int, str, list)):
                raise MoveFormatError(f'"draw" is a count, a tile or a list of tiles, got {raw!r}')
            if isinstance(raw, int):
                if raw < 1:
                    raise MoveFormatError(f'"draw" count must be at least 1, got {raw}')
                return cls("draw", player, count=raw, meta=meta)
            if isinstance(raw, str):
                return cls("draw", player, tile=_tile(raw, "draw"), count=1, meta=meta)
            tiles = tuple(_tile(x, "draw") for x in raw)
            if not tiles:
                raise MoveFormatError('"draw" list must name at least one tile')
            return cls("draw", player, tiles=tiles, count=len(tiles), meta=meta)
        if kind == "pass":
            if raw is not True:
                raise MoveFormatError(f'"pass" must be true, got {raw!r}')
            return cls("pass", player, meta=meta)
        if kind == "bid":
            if raw != "pass" and (isinstance(raw, bool) or not isinstance(raw, int)):
                raise MoveFormatError(f'"bid" is a whole number or "pass", got {raw!r}')
            return cls("bid", player, value=raw, meta=meta)
        if kind == "trump":
            if raw not in TRUMP_WORDS and (isinstance(raw, bool) or not isinstance(raw, int)):
                raise MoveFormatError(
                    f'"trump" is a pip value or one of {", ".join(TRUMP_WORDS)}, got {raw!r}')
            return cls("trump", player, value=raw, meta=meta)
        if kind == "discard":
            return cls("discard", player, tile=_tile(raw, "discard"), meta=meta)
        if kind == "remove":
            items = raw if isinstance(raw, list) else [raw]
            return cls("remove", player, tiles=tuple(_tile(x, "remove") for x in items), meta=meta)
        if kind == "deal":
            if not isinstance(raw, Mapping):
                raise MoveFormatError(f'"deal" maps each player to a list of tiles, got {raw!r}')
            hands = {}
            for p, ts in raw.items():
                if not isinstance(ts, list):
                    raise MoveFormatError(f'"deal" for {p!r} must be a list of tiles, got {ts!r}')
                hands[p] = [str(_tile(t, f"deal.{p}")) for t in ts]
            return cls("deal", player, data={"hands": hands, **_jsonable(rest)}, meta=meta)
        # end_round
        if not isinstance(raw, Mapping):
            raise MoveFormatError(f'"end_round" is an object like {{"hands": {{...}}}}, got {raw!r}')
        data = dict(raw)
        if "hands" in data:
            if not isinstance(data["hands"], Mapping):
                raise MoveFormatError('"end_round.hands" maps each player to the tiles left')
            for p, ts in data["hands"].items():
                if not isinstance(ts, list):
                    raise MoveFormatError(f'"end_round.hands" for {p!r} must be a list of the '
                                          f'tiles left (empty when none), got {ts!r}')
            data["hands"] = {p: [str(_tile(t, f"end_round.hands.{p}")) for t in ts]
                             for p, ts in data["hands"].items()}
        return cls("end_round", player, data=data, meta=meta)

    def to_json(self) -> dict[str, Any]:
        """The log entry as a JSON-ready dict; ``Move.from_json(m.to_json()) == m``."""
        out: dict[str, Any] = {}
        if self.player is not None:
            out["player"] = self.player
        k = self.kind
        if k == "play":
            out["play"] = str(self.tile)
            if self.on is not None:
                out["on"] = str(self.on)
            out.update(self.extra)
        elif k == "draw":
            if self.tiles:
                out["draw"] = [str(t) for t in self.tiles]
            elif self.tile is not None:
                out["draw"] = str(self.tile)
            else:
                out["draw"] = self.count
        elif k == "pass":
            out["pass"] = True
        elif k in ("bid", "trump"):
            out[k] = self.value
        elif k == "discard":
            out["discard"] = str(self.tile)
        elif k == "remove":
            out["remove"] = [str(t) for t in self.tiles]
        elif k == "deal":
            data = dict(self.data or {})
            out["deal"] = data.pop("hands", {})
            out.update(data)
        elif k == "end_round":
            out["end_round"] = dict(self.data or {})
        out.update(self.meta)
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), separators=(", ", ": "))

    @property
    def drawn(self) -> tuple[Tile, ...]:
        """The named tiles of a draw (empty when only a count is known)."""
        if self.tiles:
            return self.tiles
        return (self.tile,) if self.tile is not None else ()

    def __str__(self) -> str:
        who = self.player or "table"
        k = self.kind
        if k == "play":
            s = f"{who} plays {self.tile}"
            if self.on is not None:
                s += f" on {self.on}"
            return s + _placement_text(self.extra)
        if k == "draw":
            named = self.drawn
            return f"{who} draws " + (" ".join(map(str, named)) if named else str(self.count))
        if k == "pass":
            return f"{who} passes"
        if k == "bid":
            return f"{who} bids {self.value}"
        if k == "trump":
            return f"{who} names trump {self.value}"
        if k == "discard":
            return f"{who} discards {self.tile}"
        if k == "remove":
            return f"{who} removes " + " ".join(map(str, self.tiles))
        if k == "deal":
            return "deal"
        return "end of round"


def _cells_text(cells: Any) -> str | None:
    """``[[x, y], [x, y]]`` as ``(x, y) and (x, y)``; None when it is not a list of cells."""
    if not isinstance(cells, (list, tuple)) or not cells or not all(
            isinstance(c, (list, tuple)) and len(c) == 2 for c in cells):
        return None
    return " and ".join(f"({c[0]}, {c[1]})" for c in cells)


def _placement_text(extra: Mapping[str, Any]) -> str:
    """A play's game-specific placement keys as words for people: Stackernoes' ``level`` and
    ``at`` (" on level 1 at cells (3, 0) and (4, 0)"; level 0 " on the table"), Super
    Dominoes' ``spinner_side`` (" (end side)"); any other key as "key value" with its JSON
    value."""
    parts: list[str] = []
    if "level" in extra:
        parts.append(" on the table" if extra["level"] == 0 else f" on level {extra['level']}")
    if "at" in extra:
        cells = _cells_text(extra["at"])
        parts.append(f" at cells {cells}" if cells is not None
                     else f" at {json.dumps(extra['at'], separators=(',', ':'))}")
    if "spinner_side" in extra:
        parts.append(f" ({extra['spinner_side']} side)")
    for key, val in extra.items():
        if key not in ("level", "at", "spinner_side"):
            parts.append(f" {key.replace('_', ' ')} {json.dumps(val, separators=(',', ':'))}")
    return "".join(parts)


def _jsonable(d: Mapping[str, Any]) -> dict[str, Any]:
    """Tiles inside game-specific payloads become text."""
    def conv(v: Any) -> Any:
        if isinstance(v, Tile):
            return str(v)
        if isinstance(v, Mapping):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v
    return {k: conv(v) for k, v in d.items()}
