"""The game log on disk: an append-only SQLite store that survives a kill at any instant.

Each game has a row in ``games`` (its header) and its entries in ``entries``, one row per
appended line, never updated or deleted. An undo is itself an entry (``{"undo": SEQ}``) that
withdraws an earlier one, and an amendment is an entry (``{"amend": SEQ, "entry": {...}}``)
that replaces an earlier one in place (the original row stays on disk), so the full history
(what the camera read, what a person corrected, what was undone or edited later) stays on disk
while :meth:`LogStore.effective_moves` gives the log the rules fold. Every append is its own committed transaction (WAL journal, ``synchronous=FULL``), so a
process killed mid-game loses nothing that was acknowledged.

The questions waiting for a person (an illegal placement to confirm, correct or dismiss, an
uncertain reading waiting for a tap, a logged play the camera now reads as another tile to
amend with a tap or keep, a notice) live in ``alerts``, append-only too: a row
``raised`` when the session raises one (its row number is the alert's id), a row ``closed``
when a person (or the camera: the tile was taken back) settles it. The alerts open are those
raised and not closed; a settled alert that logged an entry writes the entry and the closing
row in one transaction (:meth:`LogStore.transaction`), so after a kill the question is either
still open or answered, never both nor neither.

The file says which features it holds (``meta`` key ``schema``): 1 moves and undos, 2 an
amendment, 3 an alert. It is marked only when such a row is first written, so a file that never
needed the newer feature stays readable by an older companion, and an older companion refuses a
file it would misread (it would drop the amendments, or the questions still waiting).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from companion.errors import DominoError
from companion.gamelog import Header
from companion.moves import Move

#: 1: moves and undos; 2: amendments too; 3: alerts too (a file is marked with the highest
#: feature it holds, so an older companion refuses it instead of misreading it).
SCHEMA_VERSION = 3
#: The schema level a file needs once it holds an amendment / an alert.
SCHEMA_AMEND = 2
SCHEMA_ALERTS = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    header TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    t REAL NOT NULL,
    kind TEXT NOT NULL,          -- 'move', 'undo' or 'amend'
    body TEXT NOT NULL           -- the JSON line
);
CREATE INDEX IF NOT EXISTS entries_game ON entries(game_id, seq);
CREATE TABLE IF NOT EXISTS alerts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    t REAL NOT NULL,
    kind TEXT NOT NULL,          -- 'raised' (the seq is the alert's id) or 'closed'
    body TEXT NOT NULL           -- raised: the alert; closed: {"alert": ID, "how": ..., ...}
);
CREATE INDEX IF NOT EXISTS alerts_game ON alerts(game_id, seq);
"""

#: How an alert can be closed (the ``how`` of its closing row; ``amended``: an amend alert's
#: tap amended the logged play, ``seq`` names it; ``rechecked``: a camera play held up by an
#: earlier question, logged once that was answered, ``seq`` names it).
CLOSED_HOW = ("confirmed", "corrected", "dismissed", "taken_back", "amended", "rechecked")


class StoreError(DominoError):
    """The log database cannot be opened or holds something unexpected."""


@dataclass(frozen=True)
class StoredEntry:
    seq: int
    t: float
    kind: str
    body: dict[str, Any]


class LogStore:
    """One SQLite file holding any number of games' logs."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None,
                                       check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                # marked 1 until it holds an amendment: older companions still read it
                self._db.execute("INSERT INTO meta VALUES ('schema', '1')")
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer companion (schema {row[0]}, "
                                 f"this one reads up to {SCHEMA_VERSION}); upgrade, or use another "
                                 "--db file")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the game database {self.path}: {exc}; move the file "
                             "away or pass another --db path") from None
        self._tx_lock = threading.RLock()
        self._tx_depth = 0

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything appended inside the block is committed together or not at all (a kill
        or an error inside it leaves none of it on disk). Blocks may nest (the outermost one
        commits); other threads' appends wait for it."""
        with self._tx_lock:
            if self._tx_depth:
                self._tx_depth += 1
                try:
                    yield
                finally:
                    self._tx_depth -= 1
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._tx_depth = 1
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
            finally:
                self._tx_depth = 0

    def _write(self, sql: str, args: tuple) -> int:
        with self._tx_lock:
            return int(self._db.execute(sql, args).lastrowid)

    # games ----------------------------------------------------------------------------------
    def new_game(self, header: Header) -> int:
        header.new_game()  # validates game name, players and options
        cur = self._db.execute("INSERT INTO games (created, header) VALUES (?, ?)",
                               (time.time(), json.dumps(header.to_json())))
        return int(cur.lastrowid)

    def header(self, game_id: int) -> Header:
        row = self._db.execute("SELECT header FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in {self.path}; games: {self.game_ids()}")
        return Header.from_json(json.loads(row[0]))

    def game_ids(self) -> list[int]:
        return [r[0] for r in self._db.execute("SELECT id FROM games ORDER BY id")]

    def latest_game(self) -> int | None:
        row = self._db.execute("SELECT MAX(id) FROM games").fetchone()
        return row[0]

    # entries --------------------------------------------------------------------------------
    def append(self, game_id: int, move: Move) -> int:
        """Append one move; returns its sequence number once it is safely on disk."""
        body = move.to_json()
        body.setdefault("t", round(time.time(), 3))
        return self._write("INSERT INTO entries (game_id, t, kind, body) VALUES (?, ?, 'move', ?)",
                           (game_id, body["t"], json.dumps(body)))

    def append_undo(self, game_id: int, seq: int) -> int:
        return self._write("INSERT INTO entries (game_id, t, kind, body) VALUES (?, ?, 'undo', ?)",
                           (game_id, time.time(), json.dumps({"undo": seq})))

    def append_amend(self, game_id: int, seq: int, move: Move) -> int:
        """Append an amendment: ``move`` replaces the entry ``seq`` (which must be in force)
        from now on, in its place in the log. Returns the amendment's own sequence number."""
        live = dict(self.effective(game_id))
        if seq not in live:
            raise StoreError(f"cannot amend entry {seq} of game {game_id}: it is not in force "
                             f"(entries in force: {', '.join(map(str, sorted(live))) or 'none'})")
        entry = move.to_json()
        entry.setdefault("t", round(time.time(), 3))
        body = {"amend": seq, "entry": entry}
        with self.transaction():
            self._mark_schema(SCHEMA_AMEND)
            return self._write(
                "INSERT INTO entries (game_id, t, kind, body) VALUES (?, ?, 'amend', ?)",
                (game_id, entry["t"], json.dumps(body)))

    def _mark_schema(self, level: int) -> None:
        """Mark the file as holding a feature of schema ``level`` (never lowers the mark)."""
        self._db.execute("UPDATE meta SET value=? WHERE key='schema' AND CAST(value AS INTEGER) < ?",
                         (str(level), level))

    def schema(self) -> int:
        """The schema level this file is marked with (see the module docstring)."""
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        return int(row[0])

    def amendments(self, game_id: int) -> dict[int, list[dict[str, Any]]]:
        """Per amended entry (by its sequence number), every amendment in order:
        ``{"seq": the amendment's row, "t", "entry": the new entry, "replaced": the entry it
        replaced}``. Amendments of entries later undone are listed too."""
        current: dict[int, dict[str, Any]] = {}
        out: dict[int, list[dict[str, Any]]] = {}
        for e in self.entries(game_id):
            if e.kind == "move":
                current[e.seq] = e.body
            elif e.kind == "amend":
                target = int(e.body["amend"])
                out.setdefault(target, []).append({"seq": e.seq, "t": e.t, "entry": e.body["entry"],
                                                   "replaced": current.get(target)})
                current[target] = e.body["entry"]
        return out

    def original(self, game_id: int, seq: int) -> dict[str, Any] | None:
        """The entry ``seq`` as first appended (before any amendment), or None."""
        row = self._db.execute("SELECT body FROM entries WHERE game_id=? AND seq=? AND kind='move'",
                               (game_id, seq)).fetchone()
        return None if row is None else json.loads(row[0])

    def entries(self, game_id: int) -> Iterator[StoredEntry]:
        for seq, t, kind, body in self._db.execute(
                "SELECT seq, t, kind, body FROM entries WHERE game_id=? ORDER BY seq", (game_id,)):
            yield StoredEntry(seq, t, kind, json.loads(body))

    def effective(self, game_id: int) -> list[tuple[int, Move]]:
        """The moves in force (undone ones left out), with their sequence numbers."""
        live: dict[int, Move] = {}
        for e in self.entries(game_id):
            if e.kind == "undo":
                live.pop(int(e.body["undo"]), None)
            elif e.kind == "amend":
                target = int(e.body["amend"])
                if target in live:
                    live[target] = Move.from_json(e.body["entry"])
            elif e.kind == "move":
                live[e.seq] = Move.from_json(e.body)
            else:
                raise StoreError(f"entry {e.seq} of game {game_id} in {self.path} is of an "
                                 f"unknown kind {e.kind!r} (move, undo or amend): written by a "
                                 "newer companion?")
        return sorted(live.items())

    def effective_moves(self, game_id: int) -> list[Move]:
        return [m for _, m in self.effective(game_id)]

    # alerts ---------------------------------------------------------------------------------
    def raise_alert(self, game_id: int, alert: dict[str, Any]) -> tuple[int, float]:
        """Store a raised alert (JSON-ready: kind, message, entry, ...); returns its id and
        time once it is on disk."""
        t = round(time.time(), 3)
        with self.transaction():
            self._mark_schema(SCHEMA_ALERTS)
            return self._write(
                "INSERT INTO alerts (game_id, t, kind, body) VALUES (?, ?, 'raised', ?)",
                (game_id, t, json.dumps(alert))), t

    def close_alert(self, game_id: int, alert_id: int, how: str, seq: int | None = None,
                    replaced_by: int | None = None) -> int:
        """Store that the open alert ``alert_id`` was settled: ``how`` is one of
        :data:`CLOSED_HOW`; ``seq`` the log entry it became, ``replaced_by`` the alert raised in
        its place (a confirmation or correction the rules refused). Returns the row's number."""
        if how not in CLOSED_HOW:
            raise StoreError(f"an alert is closed as one of {', '.join(CLOSED_HOW)}, not {how!r}")
        with self._tx_lock:
            open_ids = [a.seq for a in self.open_alerts(game_id)]
            if alert_id not in open_ids:
                raise StoreError(f"alert {alert_id} of game {game_id} is not open; open alerts: "
                                 f"{', '.join(map(str, open_ids)) or 'none'}")
            body: dict[str, Any] = {"alert": alert_id, "how": how}
            if seq is not None:
                body["seq"] = seq
            if replaced_by is not None:
                body["replaced_by"] = replaced_by
            return self._write(
                "INSERT INTO alerts (game_id, t, kind, body) VALUES (?, ?, 'closed', ?)",
                (game_id, round(time.time(), 3), json.dumps(body)))

    def alert_rows(self, game_id: int) -> Iterator[StoredEntry]:
        """Every alert row of a game in order (``raised`` and ``closed``)."""
        for seq, t, kind, body in self._db.execute(
                "SELECT seq, t, kind, body FROM alerts WHERE game_id=? ORDER BY seq", (game_id,)):
            yield StoredEntry(seq, t, kind, json.loads(body))

    def open_alerts(self, game_id: int) -> list[StoredEntry]:
        """The alerts raised and not closed, oldest first (``seq`` is the alert's id)."""
        raised: dict[int, StoredEntry] = {}
        for e in self.alert_rows(game_id):
            if e.kind == "raised":
                raised[e.seq] = e
            elif e.kind == "closed":
                raised.pop(int(e.body["alert"]), None)
        return list(raised.values())
