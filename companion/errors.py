"""Errors of the rules core. Every one is a ``ValueError`` whose message names the input,
what is wrong with it, and (where known) what would be right."""

from __future__ import annotations

from typing import Sequence


class DominoError(ValueError):
    """Base class of every error the rules core raises on bad input."""


class TileParseError(DominoError):
    """Text that is not a tile."""


class SetError(DominoError):
    """A collection of tiles that is not the set it should be."""


class UnknownGameError(DominoError):
    """A game name that no module registers."""


class OptionError(DominoError):
    """A game option that does not exist or has a value it cannot take."""


class PlayersError(DominoError):
    """A player list the game cannot be played with."""


class MoveFormatError(DominoError):
    """A game-log entry that is not well formed (wrong fields or types)."""


class IllegalMoveError(DominoError):
    """A well-formed move the rules forbid in the current state.

    ``tried`` is the move as text, ``reason`` why it is illegal, ``legal`` a few moves (as text)
    that would be legal now. The state is left exactly as it was before the move.
    """

    def __init__(self, tried: str, reason: str, legal: Sequence[str] = ()) -> None:
        self.tried = tried
        self.reason = reason
        self.legal = list(legal)
        text = f"{tried}: {reason}"
        if self.legal:
            shown = self.legal[:12]
            more = f" (and {len(self.legal) - len(shown)} more)" if len(self.legal) > len(shown) else ""
            text += "; legal: " + ", ".join(shown) + more
        elif legal is not None:
            text += "; no move is legal now"
        super().__init__(text)


class LogError(DominoError):
    """A game-log line that cannot be taken: names the line number, the line and the problem."""

    def __init__(self, line_no: int, line: str, problem: str) -> None:
        self.line_no = line_no
        self.line = line
        self.problem = problem
        shown = line if len(line) <= 200 else line[:197] + "..."
        # line 0: the file itself (missing, a folder, not text), named in ``line``
        where = f"line {line_no}: {shown}" if line_no else shown
        super().__init__(f"{where}\n  {problem}")
