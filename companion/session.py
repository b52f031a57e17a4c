"""The live session: one game's state, kept as a fold of its stored log.

Everything that changes a game goes through :meth:`Session.submit` (a log entry from the camera
or from a person), :meth:`Session.undo`, or the alert actions. The rules core checks each entry:

* legal: it is appended to the store (on disk before the call returns) and folded in;
* illegal: nothing is appended; an :class:`Alert` is raised that says what is wrong and what
  would be legal, for a person to correct (submit the right entry) or dismiss;
* uncertain (a camera reading below the confidence threshold): an :class:`Alert` of kind
  ``confirm`` waits for a tap; confirming appends the entry, correcting appends the corrected one
  with the original reading kept under ``reading``.

Editing the past: :meth:`Session.amend` replaces an earlier entry (a new row in the store; the
original stays on disk) only if the whole log still replays legally with the replacement;
otherwise it refuses with :class:`AmendError` naming the first line that breaks, and nothing
changes. Each history entry carries its ``source`` (camera, hand, correction) and, once amended,
``amended``, ``original`` (the entry as first logged) and ``amendments`` (who changed what).

A tile the camera reads again as another value at the place of a logged play (the tracking's
:attr:`~companion.tracking.TableChange.replaced`: the first reading was a misreading) reaches
:meth:`Session.submit` as a request ``{"reread": {"was": TILE, "as": {...}}}`` (see
:data:`REREAD`), never as a log entry: the camera does not change the log. When the play of
``was`` in force, with the fields of ``as`` put in, still replays legally, it becomes an alert of
kind ``amend`` whose one tap (:meth:`Session.confirm`) makes that amendment and whose dismissal
keeps the play as logged; otherwise a notice says why it cannot be amended.

One question can hold up the plays after it: while a camera entry waits for an answer (an
uncertain reading, or an illegal one a person will correct), the camera's later plays are not
logged ahead of it. One the rules take without it is held (an alert of kind ``confirm`` with
:attr:`Alert.held`: logged now, it would go before the play in question, by a player the turn
names without that play: a score credited to the wrong player); one they refuse without it (a
play on a tile not yet in the log) is an illegal alert whose message says an earlier question is
open. A person's entry the rules take after the plays in question (a pass entered on the
tablet after the play the camera asks about), or refuse there only for the turn (the players of
those plays are the camera's guesses until answered), is held the same way, not logged ahead of
them nor refused; still refused once first in line, it is shown with the rules' reason and holds
nothing up. When a
question is answered with an entry logged, dismissed, or its tile taken back, or a person's
entry is logged while plays are held up (the bidding closed on the tablet after the lead was
laid), the held-up plays are tried again in the order seen (:meth:`Session._recheck`): each the
rules take now is logged (with the player whose turn it is now, where only the turn refused it; a
question that asked only who led, raised while the log was empty, by the one player the rules now
take it from) and its alert closed as ``rechecked``, up to the first that is still a question or
still illegal, whose own answer goes on from there (no play is logged ahead of an earlier one;
one still illegal for another reason than it was raised with is raised again with the reason of
now, in its place: :attr:`Alert.seen`). The live loop reads the next table change against the
game as those questions would leave it (:meth:`Session.as_answered`), so a play on a tile still
in question is proposed on that tile, by the player whose turn follows it.

A person's answer the rules refuse only for the turn (Cy laid it, the log has it Bob's turn)
is refused with what the camera could not see offered beside it (:data:`BEFORE`): Bob passed
(a draw of one first where the game wants it), or Bob laid another tile still in question first
(the camera's order was a guess); the one tap logs those entries and the answer in one
transaction.

Open alerts are stored too (:meth:`LogStore.raise_alert`, append-only), before the call that
raises one returns, and are settled there when a person answers them; a session opened on the
store (after a restart) has them open again, with the same ids. An answer that logs an entry
writes the entry and the alert's closing in one transaction.

Observers (the dashboard's Server-Sent Events) call :meth:`Session.wait_for_change` with the
last version they saw and get the new :meth:`Session.state` when anything changes.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from companion.errors import DominoError, IllegalMoveError, MoveFormatError
from companion.games import Game
from companion.gamelog import Header, log_lines
from companion.moves import KINDS, META_KEYS, Move
from companion.store import LogStore
from companion.tiles import Tile

#: Camera readings below this confidence ask a person before they count.
CONFIRM_BELOW = 0.9

#: Where an entry can come from (the ``source`` kept with it).
SOURCES = ("camera", "hand", "correction")

#: The key of a camera request to amend a logged play (not a log entry): ``{"reread": {"was":
#: "2-7", "as": {"play": "2-8", ...}}, "confidence": ..., "reading": {...}}``: the tile ``was``
#: (a logged play's tile) is now read as ``as["play"]`` at its place; ``as`` holds the fields of
#: the play that change (the tile, and where the game names it by position, ``at``/``level``).
REREAD = "reread"

#: The mark a camera play's ``reading`` carries (``{"unsure_of": "player"}``) when the only
#: thing it asks is who played it (who led the round's first tile: the reading itself is sure).
#: Such a question held up behind an earlier one is settled without a tap once the rules take
#: the play from one player only (:meth:`Session._recheck`).
UNSURE_OF_PLAYER = "player"

#: The key of a person's answer that also names what the camera could not see before it:
#: ``{"player": "Cy", "play": "3-9", ..., "before": [{"player": "Bob", "pass": true}]}`` logs
#: Bob's pass, then Cy's 3-9, in one transaction (a ``before`` play of a tile still in question
#: answers that question too). Offered as the alternatives of a person's play the rules refuse
#: only for the turn (:meth:`Session._turn_explanations`) and of a camera play whose hand came
#: from another seat than the turn's (``companion.interpret``); never a log entry itself.
BEFORE = "before"

#: A camera play by position on a stack (``level``) held behind a question is also tried at up
#: to this many levels above and below the one raised, on the same cells (:func:`_candidates`):
#: the answer may have put a tile under it, or taken a misread one away.
LEVELS_AROUND = 2

#: At most this many ways of reaching a refused play's player are offered, built from at most
#: :data:`EXPLAIN_TILES` tiles still in question.
TURN_EXPLANATIONS = 4
EXPLAIN_TILES = 4

#: A person's play by position (Stackernoes ``at`` and ``level``: often the camera's cells kept
#: with a corrected value) refused where it is: at most this many places the rules take for the
#: same tile nearby are offered (:meth:`Session._near_placements`), within this many cells.
NEAR_PLACES = 3
NEAR_CELLS = 2.0

#: Added to the reason of a person's play refused only for the turn when the alert offers
#: what would explain it (:data:`BEFORE`).
EXPLAIN_NOTE = (" (the camera cannot see a pass: if the players before {player} passed, or "
                "laid a tile asked about first, choose that below and both are logged)")

#: At most this many entries per entry kind go to the dashboard (a live game without a deal
#: may allow a great many plays); ``more`` says how many were left out.
ENTRY_KIND_LIMIT = 120


class AmendError(DominoError):
    """An amendment the session refuses: the entry is not in force, or the log would no longer
    replay legally with it (the message names the first line that breaks)."""


@dataclass
class Alert:
    """Something a person must look at: an illegal placement, an uncertain reading, a logged
    play the camera now reads as another tile (``amend``), or a notice."""

    id: int
    kind: str  # "illegal", "confirm", "notice" or "amend"
    message: str
    entry: dict[str, Any]
    legal: list[str] = field(default_factory=list)
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    created: float = field(default_factory=time.time)
    #: kind ``amend``: the log entry ``entry`` would replace: ``{"seq", "was": its tile,
    #: "text": the entry in words}``
    amend: dict[str, Any] | None = None
    #: kind ``confirm``: an entry held (not logged) because an earlier camera question is
    #: still open: a camera play the rules take (logged now, it would go ahead of the play in
    #: question), or a person's entry the rules take after the plays in question (Bob passes
    #: after the play asked about); logged, in the order seen, once that is answered
    held: bool = False
    #: where the camera play in question stands in the order the plays were seen: the id of
    #: the first alert raised about it (an answer the rules refused raises a new alert in its
    #: place, with a higher id: it keeps its place)
    seen: int = 0

    def __post_init__(self) -> None:
        self.seen = self.seen or self.id

    @property
    def waiting(self) -> bool:
        """Whether the alert's entry waits for an earlier question: held, or judged illegal
        without the plays then in question (its reason and legal moves may not hold once they
        are answered: it is judged again then)."""
        return self.held or (self.kind == "illegal" and WAITING_NOTE in self.message)

    def to_json(self) -> dict[str, Any]:
        """The alert as the dashboard gets it (``amend`` only on an amend alert, ``held``
        only on a held play, ``waiting`` only on an entry waiting for an earlier question)."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "message": self.message,
                               "entry": self.entry, "legal": self.legal,
                               "alternatives": self.alternatives}
        if self.amend is not None:
            out["amend"] = self.amend
        if self.held:
            out["held"] = True
        if self.waiting:
            out["waiting"] = True
        return out


@dataclass
class SubmitResult:
    """What became of an entry or an answer: ``status`` is ``accepted`` (logged, ``seq``),
    ``illegal`` or ``confirm`` (an alert raised), ``amend`` or ``notice`` (a camera request to
    amend a logged play became that alert), ``amended`` (an amend alert's tap amended entry
    ``seq``)."""

    status: str
    events: list[dict[str, Any]] = field(default_factory=list)
    alert: Alert | None = None
    seq: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The result as the API answers it (``alert`` and ``seq`` when there are some)."""
        out: dict[str, Any] = {"status": self.status, "events": self.events}
        if self.alert is not None:
            out["alert"] = self.alert.to_json()
        if self.seq is not None:
            out["seq"] = self.seq
        return out


class Session:
    """One game, its log store and its open alerts. Thread-safe."""

    def __init__(self, store: LogStore, game_id: int) -> None:
        self.store = store
        self.game_id = game_id
        self.header: Header = store.header(game_id)
        self._lock = threading.Condition()
        #: the alerts open, oldest first: those left open when the process stopped come back
        self.alerts: list[Alert] = sorted((_restored(e) for e in store.open_alerts(game_id)),
                                          key=_in_order)
        self.version = 0
        self._rebuild()

    # construction ---------------------------------------------------------------------------
    @classmethod
    def start(cls, store: LogStore, game: str, players: list[str],
              options: dict[str, Any] | None = None) -> "Session":
        """A new game in ``store``."""
        header = Header(game, tuple(players), dict(options or {}))
        return cls(store, store.new_game(header))

    @classmethod
    def resume(cls, store: LogStore) -> "Session | None":
        """The latest game in ``store`` (after a restart), or None if it holds none."""
        gid = store.latest_game()
        return None if gid is None else cls(store, gid)

    def _rebuild(self) -> None:
        """Fold the stored log from the start (at open, after an undo or an amendment)."""
        game = self.header.new_game()
        self.history: list[dict[str, Any]] = []
        self.seqs: list[int] = []
        self._amends = self.store.amendments(self.game_id)
        for seq, move in self.store.effective(self.game_id):
            events = game.apply(move)
            self._record(seq, move, events)
        self.game: Game = game

    def _record(self, seq: int, move: Move, events: list) -> None:
        entry = move.to_json()
        item: dict[str, Any] = {"seq": seq, "entry": entry, "text": str(move),
                                "events": [e.to_json() for e in events],
                                "source": entry.get("source", "hand"), "amended": False}
        changes = self._amends.get(seq)
        if changes:
            original = self.store.original(self.game_id, seq)
            item.update({
                "amended": True,
                "original": original,
                "original_text": str(Move.from_json(original)) if original else None,
                "amendments": [{"seq": c["seq"], "t": c["t"],
                                "source": c["entry"].get("source", "correction"),
                                "text": str(Move.from_json(c["entry"])),
                                "replaced": (str(Move.from_json(c["replaced"]))
                                             if c["replaced"] else None)} for c in changes],
            })
        self.history.append(item)
        self.seqs.append(seq)

    def _changed(self) -> None:
        self.version += 1
        self._lock.notify_all()

    # changes ----------------------------------------------------------------------------------
    def submit(self, entry: dict[str, Any] | Move, source: str = "hand") -> SubmitResult:
        """Take one log entry (JSON dict or Move), or a camera request to amend a logged play
        (:data:`REREAD`). See the module docstring."""
        with self._lock:
            if isinstance(entry, dict) and REREAD in entry:
                return self._reread(entry)
            alternatives: list[Any] = []
            if isinstance(entry, dict) and "alternatives" in entry:
                # the camera's likeliest other readings: not part of the log entry itself
                entry = dict(entry)
                offered = entry.pop("alternatives") or []
                if not isinstance(offered, list):
                    raise MoveFormatError(f'"alternatives" is a list of the other readings or '
                                          f'entries offered, got {offered!r}')
                alternatives = list(offered)
            move = entry if isinstance(entry, Move) else Move.from_json(entry)
            meta = dict(move.meta)
            meta.setdefault("source", source)
            move = Move(move.kind, move.player, move.tile, move.tiles, move.on, move.count,
                        move.value, move.data, move.extra, meta)
            conf = meta.get("confidence")
            if meta["source"] == "camera":
                asked = self._open_question(move)
                if asked is not None:
                    # the camera proposes again what a person is already asked about (the live
                    # loop restarted and sees the tile anew): the question stays the one open
                    return SubmitResult(asked.kind, alert=asked)
            if meta["source"] == "camera" and isinstance(conf, (int, float)) and conf < CONFIRM_BELOW:
                why = f": {meta['note']}" if isinstance(meta.get("note"), str) else ""
                alert = self._alert("confirm", f"Is this right? {move} (confidence {conf:.2f})"
                                    f"{why}",
                                    move.to_json(), alternatives=alternatives or list(meta.get("alternatives", [])))
                return SubmitResult("confirm", alert=alert)
            waiting = meta["source"] == "camera" and move.kind == "play" and any(
                _holds_up(a) for a in self.alerts)
            # an illegal alert offers the other placements of the same tile the camera saw
            # (its other readings are doubts about the value: only questions offer those)
            places = [a for a in alternatives if move.kind == "play" and isinstance(a, dict)
                      and a.get("play") == str(move.tile)]
            if waiting and self.game.accepts(move):
                # logged now, it would go ahead of the play in question, by a player the turn
                # names without that play: held until the question is answered
                alert = self._alert("confirm", HELD_MESSAGE.format(move=move), move.to_json(),
                                    alternatives=places, held=True)
                return SubmitResult("confirm", alert=alert)
            if meta["source"] != "camera" and self._follows_questions(move):
                # a person's entry that fits after the plays still in question (Bob passes
                # after the play the camera asks about): held, logged in its turn once they
                # are (logged now, it would go ahead of them)
                alert = self._alert("confirm", HELD_ENTRY_MESSAGE.format(move=move),
                                    move.to_json(), held=True)
                return SubmitResult("confirm", alert=alert)
            result = self._apply(move, WAITING_NOTE if waiting else "", places)
            if result.status == "accepted" and meta["source"] != "camera" and \
                    any(_holds_up(a) for a in self.alerts):
                # a person's entry can make a held-up camera play legal (the bidding closed
                # on the tablet after the lead was laid: the lead is Bob's now)
                self._recheck()
            return result

    def _open_question(self, move: Move) -> Alert | None:
        """The open confirm or illegal alert about the same camera entry as ``move`` (the same
        rules part: kind, player, tile, placement), if any."""
        want = rules_part(move.to_json())
        for a in self.alerts:
            if a.kind in ("confirm", "illegal") and a.entry.get("source") == "camera" and \
                    rules_part(a.entry) == want:
                return a
        return None

    def _apply(self, move: Move, note: str = "",
               alternatives: list[dict[str, Any]] | None = None,
               seen: int = 0) -> SubmitResult:
        """Fold ``move`` in and log it, or raise an illegal alert (``note`` added to the
        reason in its message, before the legal moves; ``alternatives``: whole entries it
        offers; ``seen``: the place in the order seen of the play it answers, see
        :attr:`Alert.seen`)."""
        try:
            events = self.game.apply(move)
        except IllegalMoveError as exc:
            explained = [] if move.meta.get("source") == "camera" else \
                self._turn_explanations(move)
            if explained:
                note += EXPLAIN_NOTE.format(player=move.player)
            elif move.meta.get("source") != "camera":
                explained = self._near_placements(move)
            message = str(IllegalMoveError(exc.tried, exc.reason + note, exc.legal)) if note \
                else str(exc)
            alert = self._alert("illegal", message, move.to_json(), legal=exc.legal,
                                alternatives=list(alternatives or []) + explained, seen=seen)
            return SubmitResult("illegal", alert=alert)
        try:
            seq = self.store.append(self.game_id, move)
        except BaseException:
            self._rebuild()  # the game as the log has it: the move was not stored
            raise
        self._record(seq, move, events)
        self._changed()
        return SubmitResult("accepted", [e.to_json() for e in events], seq=seq)

    def _near_placements(self, move: Move) -> list[dict[str, Any]]:
        """A person's play by position the rules refuse there, by the player whose turn it
        is: the same play on the places nearby the rules take (:data:`NEAR_PLACES`, within
        :data:`NEAR_CELLS` of its middle), those sharing more of its cells first, then the
        nearer level, then the nearer middle. Empty for games without grid plays
        (:attr:`companion.games.base.Game.grid_plays`)."""
        at = move.extra.get("at")
        if not self.game.grid_plays or move.kind != "play" or not isinstance(at, list) or \
                move.player != self.game.current_player:
            return []
        try:
            cells = {tuple(int(v) for v in c) for c in at}
            middle = [sum(c[k] for c in cells) / len(cells) for k in (0, 1)]
            level = int(move.extra.get("level", 0))
            legal = self.game.placements(move.player, [move.tile])  # type: ignore[attr-defined]
        except (DominoError, TypeError, ValueError):
            return []

        def key(m: Move) -> tuple[int, int, float]:
            theirs = [tuple(c) for c in m.extra["at"]]
            mid = [sum(c[k] for c in theirs) / len(theirs) for k in (0, 1)]
            return (-len(cells & set(theirs)), abs(int(m.extra.get("level", 0)) - level),
                    abs(mid[0] - middle[0]) + abs(mid[1] - middle[1]))

        near = sorted((m for m in legal if key(m)[2] <= NEAR_CELLS), key=key)
        return [rules_part(m.to_json()) for m in near[:NEAR_PLACES]]

    def _turn_explanations(self, move: Move) -> list[dict[str, Any]]:
        """For a person's play, draw or pass the rules refuse only for the turn:
        :func:`turn_explanations` with the camera's plays still in question (the first
        :data:`EXPLAIN_TILES` of them), as answers with :data:`BEFORE`."""
        pending = [m for m in (_entry_move(a.entry) for a in self.alerts if _holds_up(a))
                   if m is not None and m.kind == "play" and m.tile != move.tile]
        return [with_before(move, before)
                for before in turn_explanations(self.game, move, pending[:EXPLAIN_TILES])]

    def _alert(self, kind: str, message: str, entry: dict[str, Any], legal: list[str] | None = None,
               alternatives: list[dict[str, Any]] | None = None,
               amend: dict[str, Any] | None = None, held: bool = False,
               seen: int = 0) -> Alert:
        """Raise an alert (stored before it is shown; ``amend``, ``held``, ``seen``: see
        :class:`Alert`)."""
        body: dict[str, Any] = {"kind": kind, "message": message, "entry": entry,
                                "legal": list(legal or []),
                                "alternatives": alternative_entries(entry, alternatives or [])}
        if amend is not None:
            body["amend"] = amend
        if held:
            body["held"] = True
        if seen:
            body["seen"] = seen
        alert_id, t = self.store.raise_alert(self.game_id, body)
        alert = Alert(alert_id, kind, message, entry, body["legal"], body["alternatives"], created=t,
                      amend=amend, held=held, seen=seen)
        self.alerts.append(alert)
        self.alerts.sort(key=_in_order)
        self._changed()
        return alert

    def _close(self, alert: Alert, how: str, result: SubmitResult | None = None) -> None:
        """Store that ``alert`` was settled (``result``: what the answer gave: an entry logged,
        or another alert raised in its place)."""
        seq = result.seq if result is not None else None
        replaced = result.alert.id if result is not None and result.alert is not None else None
        self.store.close_alert(self.game_id, alert.id, how, seq=seq, replaced_by=replaced)

    def _take_alert(self, alert_id: int) -> Alert:
        for a in self.alerts:
            if a.id == alert_id:
                self.alerts.remove(a)
                return a
        open_ids = ", ".join(str(a.id) for a in self.alerts) or "none"
        raise MoveFormatError(f"no open alert {alert_id}; open alerts: {open_ids}")

    def confirm(self, alert_id: int) -> SubmitResult:
        """Accept an uncertain reading as it was read, or make the amendment an ``amend`` alert
        asks about (refused with :class:`AmendError`, the alert left open and nothing changed,
        when the log would no longer replay with it)."""
        with self._lock:
            alert = self._take_alert(alert_id)
            if alert.kind == "amend":
                return self._amend_answer(alert)
            if alert.kind != "confirm":
                self._put_back(alert)
                raise MoveFormatError(f"alert {alert_id} is an illegal placement or a notice; "
                                      "correct or dismiss it")
            result = self._log_answer(alert, Move.from_json(alert.entry), "confirmed")
            if result.status == "accepted":
                self._recheck()
            return result

    def _recheck(self) -> None:
        """After an answer (a question about a camera entry answered with an entry logged,
        dismissed, or its tile taken back) or a person's entry logged, the entries held up
        behind questions (the camera's plays, a person's held entries), tried again in the
        order they were seen: each one the rules take now is logged (as raised, else, for a
        camera play, with the player whose turn it is now; a question that asked only who
        led, by the one player the rules now take it from) and its alert closed as
        ``rechecked``. The first that is still a question (an uncertain reading, an earlier
        question not yet answered) or still illegal stops it: the plays after it wait for its
        answer, so none is logged ahead of an earlier play. A failure to store leaves that
        alert open and stops the recheck (the answer itself stands)."""
        for alert in [a for a in self.alerts if _holds_up(a)]:
            move = self._legal_now(alert) if alert.kind == "illegal" or alert.held \
                else self._led_by_now(alert)
            if move is None:
                if alert.waiting:
                    new = self._judge_again(alert)  # judged without the plays then in question
                    if new is not None and not _holds_up(new):
                        continue  # a person's entry refused: it holds up nothing behind it
                return
            self._take_alert(alert.id)
            try:
                self._log_answer(alert, move, "rechecked")  # open again if it fails
            except Exception:
                return

    def _judge_again(self, alert: Alert) -> Alert | None:
        """A held-up entry (judged without the plays then in question before it) the rules
        still refuse, now first in line: an illegal alert with the rules' reason and legal
        moves of now is raised in its place (and place in the order seen), the old one closed
        as ``rechecked``, both in one transaction; returns it (None when nothing changed: a
        failure leaves the old one open). Raised so, it is judged with nothing before it in
        question and stays as it is; a person's entry so refused no longer holds anything up."""
        move = _entry_move(alert.entry)
        if move is None:
            return None
        try:
            copy.deepcopy(self.game).apply(move)
            return None  # taken after all (a race with another answer): the next recheck logs it
        except IllegalMoveError as exc:
            why = exc
        except DominoError:
            return None
        self._take_alert(alert.id)
        try:
            with self.store.transaction():
                new = self._alert("illegal", str(why), alert.entry, legal=why.legal,
                                  alternatives=alert.alternatives, seen=alert.seen)
                self._close(alert, "rechecked", SubmitResult("illegal", alert=new))
        except BaseException:
            self._restore_alert(alert)
            return None
        return new

    def _follows_questions(self, move: Move) -> bool:
        """Whether ``move`` (a person's entry) comes after plays still in question: at least one
        of them would be logged as the camera proposed it (:meth:`as_answered`), and the rules
        take ``move`` after them, or refuse it there only for the turn (the players of those
        plays are the camera's guesses until they are answered: who led a round, say)."""
        game, ahead = self._answered()
        if ahead == 0:
            return False
        if game.accepts(move):
            return True
        now = game.current_player
        return move.player is not None and now is not None and move.player != now and \
            game.accepts(dataclasses.replace(move, player=now))

    def as_answered(self) -> Game:
        """The game as it will be once the camera's plays held up behind questions are logged
        as the camera proposed them (each, in the order seen, as :meth:`_legal_now` would take
        it, skipping those the rules refuse): the live loop reads the next table change
        against it, so a play laid on a tile still in question is proposed on that tile, by
        the player whose turn follows it. The session's own game when nothing is in question
        (a copy otherwise: the log is not changed)."""
        return self._answered()[0]

    def _answered(self) -> tuple[Game, int]:
        """:meth:`as_answered`, and how many entries in question it played."""
        with self._lock:
            holding = [a for a in self.alerts if _holds_up(a)]
            if not holding:
                return self.game, 0
            trial = copy.deepcopy(self.game)
            ahead = 0
            for alert in holding:
                for candidate in _candidates(alert, trial.current_player, guess=True):
                    try:
                        trial.apply(candidate)  # left as it was when refused
                    except DominoError:
                        continue
                    ahead += 1
                    break
            return trial, ahead

    def _legal_now(self, alert: Alert, game: Game | None = None) -> Move | None:
        """A held-up entry as the rules take it now (in ``game``, default the session's): the
        first of :func:`_candidates` they accept; None when none is legal."""
        game = self.game if game is None else game
        return next((c for c in _candidates(alert, game.current_player) if game.accepts(c)),
                    None)

    def _led_by_now(self, alert: Alert) -> Move | None:
        """A held camera question that asked only who played its tile (its reading marked
        ``{"unsure_of": "player"}``: who led, asked while the log was empty) as the rules take
        it now, when they take it from one player only (a tile logged before it: the turn says
        who); None while the question still stands."""
        move = _entry_move(alert.entry)
        if (alert.entry.get("reading") or {}).get("unsure_of") != UNSURE_OF_PLAYER or \
                move is None:
            return None
        may = [m for m in (dataclasses.replace(move, player=p) for p in self.game.players)
               if self.game.accepts(m)]
        return may[0] if len(may) == 1 else None

    def _amend_answer(self, alert: Alert) -> SubmitResult:
        """Make the amendment of an ``amend`` alert and close the alert as ``amended``, both in
        one transaction; if the rules refuse it (or anything fails) the alert is open again
        and nothing is stored."""
        seq = int((alert.amend or {}).get("seq", -1))
        try:
            move = self._amendment(seq, alert.entry, "correction")
        except BaseException:
            self._put_back(alert)  # refused: nothing was stored
            raise
        try:
            with self.store.transaction():
                self.store.append_amend(self.game_id, seq, move)
                self._close(alert, "amended", SubmitResult("amended", seq=seq))
        except BaseException:
            self._restore_alert(alert)
            raise
        self._rebuild()
        self._changed()
        return SubmitResult("amended", self.history[self.seqs.index(seq)]["events"], seq=seq)

    def _put_back(self, alert: Alert) -> None:
        """An alert taken for an answer that does not apply to it, open again in its place."""
        self.alerts.append(alert)
        self.alerts.sort(key=_in_order)

    def correct(self, alert_id: int, entry: dict[str, Any]) -> SubmitResult:
        """Replace an alert's entry by a person's correction; the original reading is kept."""
        with self._lock:
            alert = self._take_alert(alert_id)
            if alert.kind == "amend":
                self._put_back(alert)
                raise MoveFormatError(f"alert {alert_id} asks to amend a logged play: amend it "
                                      "(confirm) or keep the play as logged (dismiss)")
            fixed = dict(entry)
            told = fixed.pop(BEFORE, None)
            fixed["source"] = "correction"
            fixed["reading"] = {k: v for k, v in alert.entry.items() if k != "reading"}
            try:
                move = Move.from_json(fixed)
                before = [] if told is None else self._before(told, move)
            except BaseException:
                self._restore_alert(alert)
                raise
            result = self._log_answer(alert, move, "corrected", before)
            if result.status == "accepted":
                self._recheck()
            return result

    def _before(self, told: Any, move: Move) -> list[Move]:
        """The entries of an answer's :data:`BEFORE` as moves (source ``correction``), checked:
        the rules take them in order and then ``move`` (nothing is logged otherwise: a
        :class:`MoveFormatError` or :class:`IllegalMoveError` names the first one refused).
        Its first entries that the log already ends with, as told, are left out (an answer
        offered before another answer logged them)."""
        if not isinstance(told, list) or not told or not all(
                isinstance(e, dict) and any(k in e for k in ("pass", "draw", "play"))
                for e in told):
            raise MoveFormatError(f'"{BEFORE}" lists the passes, draws and plays made before '
                                  f'the answer, e.g. [{{"player": "Bob", "pass": true}}]; got '
                                  f"{told!r}")
        moves = [Move.from_json(dict(rules_part(e), source="correction",
                                     note=f"told with {move}")) for e in told]
        # what the log already ends with was offered before an earlier answer logged it
        # (another question about the same tiles): those entries are not logged twice
        said = [rules_part(m.to_json()) for m in moves]
        logged = [rules_part(h["entry"]) for h in self.history[-len(said):]]
        done = max((k for k in range(1, len(logged) + 1) if logged[-k:] == said[:k]), default=0)
        moves = moves[done:]
        trial = copy.deepcopy(self.game)
        for m in moves + [move]:
            trial.apply(m)  # raises with the rules' reason: nothing is logged
        return moves

    def _log_answer(self, alert: Alert, move: Move, how: str,
                    before: list[Move] | None = None) -> SubmitResult:
        """Log a person's answer to ``alert`` and close the alert as ``how``, all in one
        transaction; if anything fails the alert is open again and nothing is logged. An answer
        the rules refuse raises an illegal alert in its place (and place in the order seen).
        ``before``: entries logged first (checked by :meth:`_before`); a play among them of a
        tile still in question answers that question (closed as ``how``)."""
        answered: list[Alert] = []
        try:
            with self.store.transaction():
                for m in before or []:
                    events = self.game.apply(m)
                    seq = self.store.append(self.game_id, m)
                    self._record(seq, m, events)
                    asked = next((a for a in self.alerts if _holds_up(a) and m.tile is not None
                                  and _plays(a.entry, m.tile)), None)
                    if asked is not None:
                        self._close(asked, how, SubmitResult("accepted", seq=seq))
                        answered.append(asked)
                result = self._apply(move, seen=alert.seen)
                self._close(alert, how, result)
        except BaseException:
            if before:  # folded in before the store refused them: the game as the log has it
                self._rebuild()
            self._restore_alert(alert)
            raise
        for asked in answered:
            self.alerts.remove(asked)
        self._changed()
        return result

    def _restore_alert(self, alert: Alert) -> None:
        """Put back an alert whose answer failed (nothing of the answer was stored), drop any
        alert the failed answer raised in memory (its row was rolled back) and fold the log
        again from the store (the entry it may have folded in was rolled back too)."""
        self._rebuild()
        stored = {e.seq for e in self.store.open_alerts(self.game_id)}
        self.alerts = [a for a in self.alerts if a.id in stored]
        if alert.id in stored and all(a.id != alert.id for a in self.alerts):
            self.alerts.append(alert)
            self.alerts.sort(key=_in_order)

    def notice(self, message: str) -> Alert:
        """Tell a person about a table change that is no game entry (a tile knocked, the table
        cleared); it stays until dismissed."""
        with self._lock:
            return self._alert("notice", message, {})

    def resolve_taken_back(self, present: set, watched: set | None = None) -> list[Alert]:
        """Close the alerts of camera entries whose tile is no longer on the table (the player
        took an illegal or doubtful tile back); returns the closed alerts. ``watched``: the
        tiles the camera saw on the table before (None: any); a tile it never saw is not taken
        back by not being seen now (a camera restarted with a hand over that tile)."""
        with self._lock:
            gone = []
            for a in list(self.alerts):
                tile = a.entry.get("play") if a.entry else None
                if a.kind not in ("illegal", "confirm") or tile is None or \
                        a.entry.get("source") != "camera":
                    continue
                tile = Tile.parse(tile)
                if tile not in present and (watched is None or tile in watched):
                    gone.append(a)
            if gone:
                with self.store.transaction():
                    for a in gone:
                        self._close(a, "taken_back")
                for a in gone:
                    self.alerts.remove(a)
                self._changed()
                self._recheck()  # nothing held behind them
            return gone

    def dismiss(self, alert_id: int) -> None:
        """Drop an alert without changing the log (the tile was taken back, a phantom...)."""
        with self._lock:
            alert = self._take_alert(alert_id)
            try:
                self._close(alert, "dismissed")
            except BaseException:
                self._restore_alert(alert)
                raise
            self._changed()
            if _holds_up(alert):  # the plays held up behind it wait no longer
                self._recheck()

    def undo(self) -> dict[str, Any] | None:
        """Withdraw the last entry in force; returns it, or None when the log is empty."""
        with self._lock:
            if not self.seqs:
                return None
            seq = self.seqs[-1]
            last = self.history[-1]
            self.store.append_undo(self.game_id, seq)
            self._rebuild()
            self._changed()
            return last

    def amend(self, seq: int, entry: dict[str, Any] | Move, source: str = "correction") -> dict[str, Any]:
        """Replace the entry ``seq`` (in force) by ``entry`` and refold the whole log.

        The replacement is appended to the store as an amendment (the original stays on disk)
        only when every entry still applies legally in order; otherwise :class:`AmendError`
        names the first line that breaks and the state, the store and the history are left
        exactly as they were. Returns the amended entry's new history item."""
        with self._lock:
            move = self._amendment(seq, entry, source)
            self.store.append_amend(self.game_id, seq, move)
            self._rebuild()
            self._changed()
            return self.history[self.seqs.index(seq)]

    def _amendment(self, seq: int, entry: dict[str, Any] | Move, source: str) -> Move:
        """``entry`` as the amendment of entry ``seq`` (its ``source`` set, ``seq`` and ``t``
        dropped), checked: :class:`AmendError` when ``seq`` is not in force or the log would no
        longer replay with it (naming the first line that breaks). Changes nothing."""
        if source not in SOURCES:
            raise AmendError(f"amend source {source!r} is not one of {', '.join(SOURCES)}")
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise AmendError(f"amend needs the entry's sequence number (a whole number), got {seq!r}")
        if seq not in self.seqs:
            shown = ", ".join(map(str, self.seqs[-12:])) or "none"
            raise AmendError(f"entry {seq} is not in force in game {self.game_id}, so it cannot "
                             f"be edited; entries in force (latest): {shown}")
        if isinstance(entry, dict):
            entry = {k: v for k, v in entry.items() if k not in ("source", "seq", "t")}
        move = entry if isinstance(entry, Move) else Move.from_json(entry)
        meta = {k: v for k, v in move.meta.items() if k not in ("source", "t")}
        meta["source"] = source
        move = Move(move.kind, move.player, move.tile, move.tiles, move.on, move.count,
                    move.value, move.data, move.extra, meta)
        game = self.header.new_game()
        log = self.store.effective(self.game_id)
        for line, (s, m) in enumerate(log, start=1):
            use = move if s == seq else m
            try:
                game.apply(use)
            except DominoError as exc:
                what = "the amended entry itself" if s == seq else f"entry {s} ({m})"
                raise AmendError(
                    f"cannot change entry {seq} to {move}: the log would no longer replay; "
                    f"line {line}, {what}, breaks: {exc}") from None
        return move

    def _reread(self, request: dict[str, Any]) -> SubmitResult:
        """A camera request to amend a logged play (:data:`REREAD`): an alert of kind
        ``amend`` whose tap amends the latest play in force of the tile first read to the
        play read now (the fields of ``as`` put into it, the camera's confidence and reading
        kept beside it), when the whole log still replays with it; otherwise a notice that
        says why not (no such play in force; the rules' reason, e.g. a later play that depends
        on the first tile). The log itself is not changed. The same request while its alert is
        open answers with that alert."""
        ask = request[REREAD]
        try:
            was, now = Tile.parse(str(ask["was"])), Tile.parse(str(ask["as"]["play"]))
        except (TypeError, KeyError, ValueError):
            raise MoveFormatError(f'a {REREAD!r} request is {{"{REREAD}": {{"was": TILE, "as": '
                                  f'{{"play": TILE, ...}}}}}}, got {request!r}') from None
        said = f"the camera now reads {now} where it first read {was}"
        item = next((h for h in reversed(self.history) if _plays(h["entry"], was)), None)
        asked = next((a for a in self.alerts if _holds_up(a) and _plays(a.entry, was)), None)
        if item is None and asked is not None:
            # the play of ``was`` is still a question (the live loop reads the table as the
            # open questions would leave it): it is answered there, not amended
            return SubmitResult("notice", alert=self._alert(
                "notice", f"{said}: the question about {was} is still open; if {now} lies "
                          f"there, answer it with {now}", {}))
        if item is None:
            return SubmitResult("notice", alert=self._alert(
                "notice", f"{said}, but no play of {was} is in the log to amend: if {now} lies "
                          f"there, change the entry that put {was} on the table in the history",
                {}))
        entry = rules_part(item["entry"])
        entry.update(ask["as"])
        entry["play"] = str(now)
        entry.update({k: request[k] for k in ("confidence", "reading") if k in request})
        if not isinstance(entry.get("reading") or {}, dict):
            raise MoveFormatError(f'"reading" is an object (what the camera read), got '
                                  f'{entry["reading"]!r}')
        entry["reading"] = dict(entry.get("reading") or {},
                                first_read=item["entry"].get("reading", {"play": str(was)}))
        for a in self.alerts:
            if a.kind == "amend" and a.amend is not None and a.amend["seq"] == item["seq"] \
                    and a.entry.get("play") == entry["play"]:
                return SubmitResult("amend", alert=a)
        try:
            move = self._amendment(item["seq"], entry, "correction")
        except (AmendError, MoveFormatError) as exc:
            why = str(exc).split("; legal: ")[0]  # the rules' reason, not every legal play
            return SubmitResult("notice", alert=self._alert(
                "notice", f"{said}, but the play of {was} cannot be amended to {now} ({why}): "
                          f"if {now} was played there, change the history by hand", {}))
        entry["source"] = "correction"
        amends = {"seq": item["seq"], "was": str(was), "text": item["text"]}
        alert = self._alert("amend", f"{said}: amend the play of {was} to {now}? "
                                     f"({item['text']} becomes {move})", entry, amend=amends)
        return SubmitResult("amend", alert=alert)

    def _entry_kinds(self) -> list[dict[str, Any]]:
        """The game's entry kinds for the tablet, each cut to :data:`ENTRY_KIND_LIMIT` entries."""
        kinds = self.game.entry_kinds() if hasattr(self.game, "entry_kinds") else []
        out = []
        for k in kinds:
            k = dict(k)
            n = len(k["entries"])
            k["more"] = max(0, n - ENTRY_KIND_LIMIT)
            k["entries"] = k["entries"][:ENTRY_KIND_LIMIT]
            k["values"] = k["values"][:ENTRY_KIND_LIMIT]
            out.append(k)
        return out

    def full_history(self) -> list[dict[str, Any]]:
        """Every entry in force, with its source and amendments (``state`` sends the last 30)."""
        with self._lock:
            return list(self.history)

    # views ------------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything the dashboard shows, as JSON-ready data."""
        with self._lock:
            g = self.game
            out = g.result()
            out.update({
                "version": self.version,
                "game_id": self.game_id,
                "title": g.title,
                "options": g.options,
                "turn": g.current_player,
                "round_over": (not g.finished) and g.round_over,
                "round_scores": g.round_scores,
                "history": self.history[-30:],
                "moves": len(self.history),
                "alerts": [a.to_json() for a in self.alerts],
                "hand_counts": {p: g.hand_count(p) for p in g.players},
                "view": g.view() if hasattr(g, "view") else None,
                "entry_kinds": self._entry_kinds(),
                "amended": sum(1 for h in self.history if h["amended"]),
            })
            return out

    def wait_for_change(self, seen_version: int, timeout: float) -> dict[str, Any] | None:
        """Block until the version moves past ``seen_version`` (or ``timeout``); the new state."""
        with self._lock:
            self._lock.wait_for(lambda: self.version != seen_version, timeout=timeout)
            if self.version == seen_version:
                return None
        return self.state()

    def export_jsonl(self) -> str:
        moves = [Move.from_json(h["entry"]) for h in self.history]
        return "\n".join(log_lines(self.header, moves)) + "\n"

    def export_csv(self) -> str:
        """One row per round with each player's round score and running total."""
        buf = io.StringIO()
        w = csv.writer(buf)
        players = list(self.header.players)
        w.writerow(["round"] + [f"{p} round" for p in players] + [f"{p} total" for p in players])
        totals = {p: 0 for p in players}
        for i, rs in enumerate(self.game.round_scores, start=1):
            for p in players:
                totals[p] += rs.get(p, 0)
            w.writerow([i] + [rs.get(p, 0) for p in players] + [totals[p] for p in players])
        w.writerow(["now"] + ["" for _ in players] + [self.game.scores[p] for p in players])
        return buf.getvalue()


#: The message of a person's entry held behind an open question (its player is theirs).
HELD_ENTRY_MESSAGE = ("{move}: held behind an earlier question that is still open; logged in "
                      "its turn once that is answered (or log it now)")

#: The message of a camera play held behind an open question (:attr:`Alert.held`).
HELD_MESSAGE = ("{move}: held behind an earlier question that is still open; once that is "
                "answered it is logged in its turn, by the player whose turn it is then "
                "(or log it now, as it reads)")

#: Added to the message of a camera play found illegal while an earlier question is open.
WAITING_NOTE = (" (an earlier question is still open: this play is checked again when it is "
                "answered)")


def turn_explanations(game: Game, move: Move, others: Sequence[Move] = ()) -> list[list[Move]]:
    """What happened before ``move`` (a play, draw or pass the rules refuse in ``game`` only for
    the turn: the same move by the player whose turn it is would be taken) for it to be legal,
    as the game's own turn order goes: each player whose turn comes first passed (a draw of
    one, then a pass, where the rules want a draw first; the camera cannot see either) or laid
    one of ``others`` (plays still in question, whatever player they name: each at most once).
    All passes first, then those that lay other tiles, in the order of ``others``; at most
    :data:`TURN_EXPLANATIONS`; none when the player is not the reason (or none of these
    reaches ``move``'s player). ``game`` is not changed."""
    now = game.current_player
    if move.kind not in ("play", "draw", "pass") or move.player is None or now is None \
            or move.player == now \
            or not game.accepts(dataclasses.replace(move, player=now)):
        return []
    found: list[tuple[tuple[int, ...], list[Move]]] = []

    def walk(trial: Game, before: list[Move], used: tuple[int, ...]) -> None:
        who = trial.current_player
        if who == move.player:
            if trial.accepts(move):
                found.append((used, before))
            return
        if who is None or len(before) >= len(game.players):
            return
        options: list[tuple[list[Move], tuple[int, ...]]] = [
            ([Move.pass_(who)], used), ([Move.draw(who, 1), Move.pass_(who)], used)]
        options += [([dataclasses.replace(m, player=who)], used + (i,))
                    for i, m in enumerate(others) if i not in used]
        passed = False
        for option, now_used in options:
            if passed and len(option) == 2:
                continue  # a plain pass was taken: no draw before it
            step = copy.deepcopy(trial)
            try:
                for m in option:
                    step.apply(m)
            except DominoError:
                continue
            passed = passed or option[0].kind == "pass"
            walk(step, before + option, now_used)

    walk(copy.deepcopy(game), [], ())
    found.sort(key=lambda f: (bool(f[0]), f[0]))
    return [before for _, before in found[:TURN_EXPLANATIONS]]


def with_before(move: Move, before: list[Move]) -> dict[str, Any]:
    """``move`` as an answer that also names what happened before it (:data:`BEFORE`), the
    rules part of each entry only."""
    return dict(rules_part(move.to_json()),
                **{BEFORE: [rules_part(m.to_json()) for m in before]})


def rules_part(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry without what the rules ignore (:data:`~companion.moves.META_KEYS`) and the
    alternatives a camera entry offers."""
    return {k: v for k, v in entry.items() if k not in META_KEYS and k != "alternatives"}


def _holds_up(alert: Alert) -> bool:
    """Whether an open alert holds back an entry the later plays may build on: an uncertain
    reading or an illegal play from the camera (answered, either may be logged), or an entry
    held behind one (:attr:`Alert.held`)."""
    return alert.kind in ("confirm", "illegal") and bool(alert.entry) and \
        (alert.entry.get("source") == "camera" or alert.held)


def _entry_move(entry: dict[str, Any]) -> Move | None:
    """An alert's entry as a move (its offered ``alternatives`` left out); None when it is
    not one."""
    try:
        return Move.from_json({k: v for k, v in entry.items() if k != "alternatives"})
    except DominoError:
        return None


def _candidates(alert: Alert, now: str | None, guess: bool = False) -> Iterator[Move]:
    """The moves a held-up entry may be, likeliest first. A person's entry: as they made it
    (``guess``: then by ``now``, for the game as the questions would leave it, where it was
    held because the turn there rests on the camera's guesses). A camera play: as raised,
    else the other placements of the same tile the alert offers (a tile it touches that was
    not in the log then), then the same cells at the levels nearest the one raised
    (:data:`LEVELS_AROUND`: the level was read off the stacks as the log and the questions
    then stood, and an answer since may have put another tile under it); each as raised, then
    by ``now`` (the player whose turn it is: the turn was judged without the entries an open
    question held back)."""
    camera = alert.entry.get("source") == "camera"
    entries = [alert.entry] + ([a for a in alert.alternatives
                                if a.get("play") == alert.entry.get("play") and BEFORE not in a]
                               if camera else [])
    if camera and isinstance(alert.entry.get("level"), int):
        level = alert.entry["level"]
        entries += [dict(alert.entry, level=level + d)
                    for k in range(1, LEVELS_AROUND + 1) for d in (k, -k) if level + d >= 0]
    for entry in entries:
        move = _entry_move(entry)
        if move is None:
            continue
        yield move
        if (camera or guess) and move.player is not None and now is not None \
                and move.player != now:
            yield dataclasses.replace(move, player=now)


def _plays(entry: dict[str, Any], tile: Tile) -> bool:
    """Whether the log entry ``entry`` is a play of ``tile``."""
    try:
        return "play" in entry and Tile.parse(str(entry["play"])) == tile
    except ValueError:
        return False


def _restored(row: Any) -> Alert:
    """An open alert as stored (:meth:`LogStore.open_alerts`)."""
    b = row.body
    entry = b.get("entry") or {}
    return Alert(row.seq, b["kind"], b["message"], entry, list(b.get("legal") or []),
                 alternative_entries(entry, b.get("alternatives") or []), created=row.t,
                 amend=b.get("amend"), held=bool(b.get("held")), seen=int(b.get("seen") or 0))


def _in_order(alert: Alert) -> tuple[int, int]:
    """Open alerts in the order their plays were seen (:attr:`Alert.seen`), then raised."""
    return alert.seen, alert.id


def alternative_entries(entry: dict[str, Any], alternatives: list[Any]) -> list[dict[str, Any]]:
    """An alert's other readings as whole log entries: the dashboard's "It was ..." buttons post
    one of them as the correction. The interpreters name an other reading by its tile alone
    (``{"tile": "3-5", "p": 0.2}``, with ``at`` and ``level`` for a Stackernoes placement): that
    is ``entry`` (the proposed play or draw) with the tile (and placement) put in its place.
    An alternative that is already an entry (it has one of the kinds) is kept as it is; one that
    is neither, or a tile alternative for an entry that names no tile, is left out (it could
    only be posted as an error)."""
    kinds = [k for k in KINDS if k in entry]
    base = rules_part(entry)
    out: list[dict[str, Any]] = []
    for alt in alternatives:
        if not isinstance(alt, dict):
            continue
        if any(k in alt for k in KINDS):
            out.append(dict(alt))
        elif "tile" in alt and len(kinds) == 1 and kinds[0] in ("play", "draw"):
            whole = dict(base)
            whole[kinds[0]] = alt["tile"]
            whole.update({k: v for k, v in alt.items() if k not in ("tile", "p")})
            out.append(whole)
    return out


def session_json(session: Session) -> str:
    return json.dumps(session.state())
