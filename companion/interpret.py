"""Interpreters: from a :class:`~companion.tracking.TableChange` to game-log entries.

The camera sees tiles appear, vanish and move; the game log speaks of plays, draws and passes.
An interpreter translates one into the other for one family of games and returns
:class:`Proposal` values: log entries for the session to check (legal ones are taken, illegal
ones raise an alert), or notices for a person when the change means nothing in the game (a tile
removed mid-round, the table cleared).

Line games (``allfives``, ``chickenfoot``, ``super``): a tile added to the table is a play by the
player whose turn it is. It goes ``on`` the tile it touches; when it touches several, the one
whose touching half matches and that the rules accept is chosen (the rules pick the side of a
spinner or double). The first tile of a round touches nothing. A tile the rules already put on
the table (the Chickenfoot centre double) is no play.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.errors import DominoError
from companion.games import Game
from companion.moves import Move
from companion.tracking import Seen, TableChange


@dataclass
class Proposal:
    """A log entry to submit (``entry``), or a notice for a person (``entry`` None)."""

    entry: dict[str, Any] | None
    message: str
    seen: Seen | None = None
    alternatives: list[dict[str, Any]] = field(default_factory=list)


class Interpreter(Protocol):
    def proposals(self, change: TableChange, game: Game) -> list[Proposal]: ...


def _camera_meta(seen: Seen) -> dict[str, Any]:
    return {"source": "camera", "confidence": round(float(seen.confidence), 4),
            "reading": {"tile": str(seen.tile), "halves": list(seen.halves)}}


def _accepts(game: Game, move: Move) -> bool:
    trial = copy.deepcopy(game)
    try:
        trial.apply(move)
    except DominoError:
        return False
    return True


class LineInterpreter:
    """Plays against open ends (All Fives, Chickenfoot, Super Dominoes)."""

    def proposals(self, change: TableChange, game: Game) -> list[Proposal]:
        out: list[Proposal] = []
        on_table = set(game.table_tiles())
        pending = [s for s in change.added if s.tile not in on_table]
        trial = copy.deepcopy(game)
        placed = set(on_table)
        # play tiles that touch the table first, in a chain if several arrived at once
        while pending:
            nxt = next((s for s in pending
                        if any(c.other in placed for c in change.contacts.get(s.tile, []))), None)
            if nxt is None:
                nxt = pending[0]
            pending.remove(nxt)
            player = trial.current_player
            if player is None:
                out.append(Proposal(None, f"{nxt.tile} appeared on the table, but no one is to play "
                                          "now (the round is over): is it a new round?", nxt))
                continue
            contacts = [c for c in change.contacts.get(nxt.tile, []) if c.other in placed]
            candidates = [Move.play(player, nxt.tile, c.other) for c in contacts]
            if not placed:
                candidates.insert(0, Move.play(player, nxt.tile))
            chosen = next((m for m in candidates if _accepts(trial, m)), None)
            if chosen is None:
                chosen = candidates[0] if candidates else Move.play(player, nxt.tile)
            else:
                trial.apply(chosen)
            entry = chosen.to_json()
            entry.update(_camera_meta(nxt))
            alts = [{"tile": t, "p": p} for t, p in nxt.alternatives]
            entry["alternatives"] = alts
            out.append(Proposal(entry, str(chosen), nxt, alts))
            placed.add(nxt.tile)
        for s in change.removed:
            if s.tile in on_table:
                out.append(Proposal(None, f"{s.tile} was taken off the table: if the round is over, "
                                          "enter the hands; if it was knocked, put it back", s))
        for old, new in change.moved:
            if old.tile in on_table:
                out.append(Proposal(None, f"{old.tile} moved on the table", new))
        return out


INTERPRETERS: dict[str, Interpreter] = {
    "allfives": LineInterpreter(),
    "chickenfoot": LineInterpreter(),
    "super": LineInterpreter(),
}


def interpreter_for(game_name: str) -> Interpreter:
    """The interpreter of a game; a clear error for games the camera cannot follow yet."""
    try:
        return INTERPRETERS[game_name]
    except KeyError:
        raise DominoError(f"the camera cannot follow {game_name} yet; games it follows: "
                          f"{', '.join(INTERPRETERS)} (enter the others on the tablet)") from None
