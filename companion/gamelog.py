"""Game logs: JSON Lines files, their header, and folding them into a game state.

The first line is the header ``{"game": ..., "players": [...], "options": {...}}``; every other
non-blank line is one :class:`~companion.moves.Move`. See ``docs/game-log.md``.

:func:`replay` folds a whole log. Strict mode stops at the first bad line with a
:class:`~companion.errors.LogError` naming the line number, the line, what is wrong and (for an
illegal move) what would be legal. Lenient mode leaves bad lines out and lists them.
"""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from companion.errors import DominoError, LogError, MoveFormatError
from companion.games import Game, find_game
from companion.moves import Move

#: Version of the log format written in new headers; readers accept headers without it.
LOG_FORMAT = 1


@dataclass(frozen=True)
class Header:
    """The first line of a log: which game, who plays, with which options."""

    game: str
    players: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: Any) -> "Header":
        if not isinstance(obj, dict):
            raise MoveFormatError(
                'the first line must be the header, a JSON object like {"game": "allfives", '
                f'"players": ["Ann", "Bob"], "options": {{}}}}; got {type(obj).__name__}')
        missing = [k for k in ("game", "players") if k not in obj]
        if missing:
            raise MoveFormatError(
                f"the header needs {' and '.join(repr(k) for k in missing)}, for example "
                '{"game": "allfives", "players": ["Ann", "Bob"], "options": {}}')
        unknown = sorted(set(obj) - {"game", "players", "options", "format", "t", "note"})
        if unknown:
            raise MoveFormatError(f"unexpected header keys {unknown}; a header has game, players, "
                                  "options (and optionally format, t, note)")
        players = obj["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise MoveFormatError(f'"players" must be a list of names, got {players!r}')
        options = obj.get("options") or {}
        if not isinstance(options, dict):
            raise MoveFormatError(f'"options" must be an object, got {options!r}')
        if not isinstance(obj["game"], str):
            raise MoveFormatError(f'"game" must be a game name, got {obj["game"]!r}')
        fmt = obj.get("format", LOG_FORMAT)
        if isinstance(fmt, bool) or not isinstance(fmt, int) or not 1 <= fmt <= LOG_FORMAT:
            raise MoveFormatError(f'"format" {fmt!r} is not a log format this version reads '
                                  f"(1 to {LOG_FORMAT}): a log from a newer version needs that "
                                  "version")
        return cls(obj["game"], tuple(players), dict(options))

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "players": list(self.players), "options": dict(self.options),
                "format": LOG_FORMAT}

    def new_game(self) -> Game:
        return find_game(self.game)(list(self.players), self.options)


@dataclass
class Flagged:
    """A line replay could not take (lenient mode)."""

    line_no: int
    line: str
    problem: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line_no, "text": self.line, "problem": self.problem}


@dataclass
class ReplayResult:
    """A folded log: the final state, the moves taken and (lenient) the lines left out."""

    header: Header
    game: Game
    moves: list[Move]
    flagged: list[Flagged]

    def summary(self) -> dict[str, Any]:
        out = self.game.result()
        if self.flagged:
            out["flagged"] = [f.to_json() for f in self.flagged]
        return out


def _numbered_lines(lines: Iterable[str | bytes]) -> Iterator[tuple[int, str | bytes]]:
    """The non-blank lines, numbered from 1, without their line ends. A line of bytes (as
    :func:`replay_file` reads them) comes decoded from UTF-8 (a byte-order mark opening line 1
    left out), or as its bytes when it is not UTF-8 (:func:`_decode` reports it)."""
    for no, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            if no == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)  # a byte-order mark (Notepad)
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raw = raw.rstrip(b"\r\n")
                if raw.strip():
                    yield no, raw
                continue
        text = raw.rstrip("\r\n")
        if text.strip():
            yield no, text


def _shown(line: str | bytes) -> str:
    """A line as a message shows it (bytes that are not UTF-8 as ``\\xff`` escapes)."""
    return line if isinstance(line, str) else line.decode("utf-8", "backslashreplace")


def _decode(no: int, line: str | bytes) -> Any:
    """The JSON value on line ``no``; :class:`LogError` when it is not UTF-8 or not JSON."""
    try:
        text = line if isinstance(line, str) else line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogError(no, _shown(line), f"not UTF-8 text ({exc.reason} at byte {exc.start + 1} "
                                         "of the line); a game log is a UTF-8 JSON Lines "
                                         "file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogError(no, text, f"not valid JSON ({exc.msg} at column {exc.colno}); each line "
                                 "is one JSON object") from None
    except RecursionError:
        raise LogError(no, text[:200], "nested too deeply to read; each line is one JSON object "
                                       "a few levels deep") from None


def replay_lines(lines: Iterable[str | bytes], lenient: bool = False) -> ReplayResult:
    """Fold the lines of a log (header first). See the module docstring for the modes."""
    numbered = _numbered_lines(lines)
    first = next(numbered, None)
    if first is None:
        raise LogError(1, "", "the log is empty; its first line must be the header, e.g. "
                              '{"game": "allfives", "players": ["Ann", "Bob"]}')
    no, line = first
    text = _shown(line)
    try:
        header = Header.from_json(_decode(no, line))
        game = header.new_game()
    except LogError:
        raise
    except DominoError as exc:
        raise LogError(no, text, str(exc)) from None
    moves: list[Move] = []
    flagged: list[Flagged] = []
    for no, line in numbered:
        text = _shown(line)
        try:
            move = Move.from_json(_decode(no, line))
            game.apply(move)
        except LogError as exc:
            if not lenient:
                raise
            flagged.append(Flagged(no, text, exc.problem))
            continue
        except DominoError as exc:
            if not lenient:
                raise LogError(no, text, str(exc)) from None
            flagged.append(Flagged(no, text, str(exc)))
            continue
        moves.append(move)
    return ReplayResult(header, game, moves, flagged)


def replay_file(path: str | Path, lenient: bool = False) -> ReplayResult:
    """Fold the log at ``path``; an unreadable file raises :class:`LogError` for line 0."""
    path = Path(path)
    try:
        # decoded line by line (a line that is not UTF-8 is a bad line like any other); lines
        # end at \n, \r\n or \r, as text files read
        return replay_lines(path.read_bytes().splitlines(), lenient=lenient)
    except FileNotFoundError:
        raise LogError(0, str(path), "no such file: give the path of a .jsonl game log") from None
    except IsADirectoryError:
        raise LogError(0, str(path), "this is a folder; give the path of a .jsonl game log") from None


def log_lines(header: Header, moves: Sequence[Move]) -> list[str]:
    """The text lines of a log (without newlines)."""
    return [json.dumps(header.to_json(), separators=(", ", ": "))] + [m.to_line() for m in moves]


def write_log(path: str | Path, header: Header, moves: Sequence[Move]) -> None:
    """Write a whole log atomically (see :mod:`companion.atomic`)."""
    from companion.atomic import atomic_write

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "\n".join(log_lines(header, moves)) + "\n")
