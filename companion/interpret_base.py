"""What every interpreter shares: the :class:`Proposal` it returns, the :class:`Interpreter`
protocol, and the helpers that build a camera play's entry (whether the rules take a move is
:meth:`companion.games.base.Game.accepts`).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from companion.games import Game
from companion.moves import Move
from companion.errors import DominoError
from companion.session import (BEFORE, CONFIRM_BELOW, REREAD, UNSURE_OF_PLAYER, rules_part,
                               turn_explanations, with_before)
from companion.tiles import Tile, oriented_halves, untaken_alternatives
from companion.tracking import Seen, TableChange


@dataclass
class Proposal:
    """A log entry to submit (``entry``; or a camera request to amend a logged play, keyed
    :data:`companion.session.REREAD`, which :meth:`companion.session.Session.submit` takes
    too), or a notice for a person (``entry`` None)."""

    entry: dict[str, Any] | None
    message: str
    seen: Seen | None = None
    alternatives: list[dict[str, Any]] = field(default_factory=list)


class Interpreter(Protocol):
    """Turns table changes into game-log proposals. Optional members the live loop looks for
    (:mod:`companion.live`): ``observe(seen, frame_bgr, game) -> seen`` (measure more of each
    tile from the picture, e.g. Build Up's set colours) and ``tiles_stay: bool`` (True where
    tiles never move once laid, Build Up and Stackernoes: the tracking may then count a known
    value read again where the picture changed as a tile laid on it,
    :func:`companion.tracking.diff`'s ``fixed``) and ``same_grid(plan, guessed) -> plan``
    (where plays name cells of a grid fixed by the first tile, Stackernoes: a plan's plays in
    another order moved onto the grid of the order guessed, for :func:`propose`)."""

    def proposals(self, change: TableChange, game: Game) -> list[Proposal]: ...


#: Plays seen at once in an order that is a guess: at most this many other orders are planned,
#: each with another of these tiles first (:func:`propose`)...
OTHER_ORDERS = 3
#: ...except where they are at most this many: then every other order of them is (the camera
#: started on a table with three tiles down: six orders, each a tap away).
ALL_ORDERS_UP_TO = 3


def propose(interpreter: Interpreter, change: TableChange, game: Game) -> list[Proposal]:
    """The ``interpreter``'s proposals for ``change``; where several plays seen at once ask a
    person (their order, and with it who laid each, is a guess: the table was never still
    between them), also what the other orders would have logged, as answers the questions
    offer. Each other tile is put first in turn (:data:`OTHER_ORDERS` at most; every order of
    them where they are at most :data:`ALL_ORDERS_UP_TO`) and the interpreter plans again, and
    where it leaves open who laid that first tile (who leads is not known), once more for each
    other player who may have (as if the hand had come from their seat). Where the rules take
    such a plan, each play that it logs otherwise (another player, another place, other plays
    before it) is offered on that tile's question as the plan has it, with the plays before it
    (:data:`~companion.session.BEFORE`: one tap logs them all and closes their questions).
    ``game`` is not changed."""
    out = interpreter.proposals(change, game)
    plays = _camera_plays(out)
    if len(plays) < 2 or all(p.entry.get("confidence", 1.0) >= CONFIRM_BELOW for p in plays):
        return out
    guessed = [rules_part(p.entry) for p in plays]
    same_grid = getattr(interpreter, "same_grid", None)
    for order in _other_orders(change.added, [p.seen for p in plays]):
        tried = dataclasses.replace(change, added=order)
        planned = _camera_plays(interpreter.proposals(tried, game))
        plans = [planned] + [_camera_plays(interpreter.proposals(
            dataclasses.replace(tried, reached_by=who), game))
            for who in (_other_leaders(planned[0]) if planned else [])]
        for props in plans:
            plan = [rules_part(p.entry) for p in props]
            if same_grid is not None:
                plan = same_grid(plan, guessed)
            if plan != guessed and _legal_in_turn(game, plan):
                _offer(plan, guessed, plays)
    return out


def _other_orders(added: list[Seen], seen: list[Seen]) -> list[list[Seen]]:
    """The orders of ``added`` to plan again (see :func:`propose`), where ``seen`` are the tiles
    of the plays guessed, in their order: each other of them first (the others as ``added``
    has them), and where they are at most :data:`ALL_ORDERS_UP_TO`, every other order of them
    too (the tiles ``added`` holds besides them after them)."""
    plays = [next((s for s in added if s is t or s.corners == t.corners), None) for t in seen]
    plays = [s for s in plays if s is not None]

    def rest(first: list[Seen]) -> list[Seen]:
        return first + [s for s in added if not any(s is f for f in first)]

    out = [rest([s]) for s in plays[1:OTHER_ORDERS + 1]]
    if len(plays) <= ALL_ORDERS_UP_TO:
        out += [rest(list(o)) for o in itertools.permutations(plays)]
    unique: list[list[Seen]] = []
    for order in out:
        if not all(a is b for a, b in zip(order, plays)) and not any(
                all(a is b for a, b in zip(order, u)) for u in unique):
            unique.append(order)
    return unique


def _other_leaders(lead: Proposal) -> list[str]:
    """The other players a camera play offers as having made it (the same play by another
    player: who led is open, :func:`_choose_player`)."""
    return [a["player"] for a in lead.alternatives
            if a.get("play") == lead.entry["play"] and BEFORE not in a
            and a.get("player") != lead.entry["player"]]


def _offer(plan: list[dict[str, Any]], guessed: list[dict[str, Any]],
           plays: list[Proposal]) -> None:
    """Offer each play of ``plan`` (another order of the plays ``guessed``, whose proposals
    are ``plays``) that it logs otherwise than the guess, with the plays before it, on its
    tile's question (after the whole plays offered there, before the other values)."""
    for i, entry in enumerate(plan[1:], start=1):
        j = next((k for k, e in enumerate(guessed) if e["play"] == entry["play"]), None)
        if j is None or (entry == guessed[j] and plan[:i] == guessed[:j]):
            continue  # a tile the guess did not play, or logged alike
        answer = dict(entry, **{BEFORE: plan[:i]})
        prop = plays[j]
        if answer not in prop.alternatives:
            prop.alternatives.insert(sum(1 for a in prop.alternatives if "play" in a), answer)
            prop.entry["alternatives"] = prop.alternatives


def _camera_plays(out: list[Proposal]) -> list[Proposal]:
    """The camera plays among ``out`` (entries that play a tile seen), in their order."""
    return [p for p in out if p.entry is not None and "play" in p.entry and p.seen is not None]


def _legal_in_turn(game: Game, plan: list[dict[str, Any]]) -> bool:
    """Whether the rules take the entries of ``plan`` one after another in ``game`` (which is
    not changed)."""
    trial = copy.deepcopy(game)
    try:
        for entry in plan:
            trial.apply(Move.from_json(entry))
    except DominoError:
        return False
    return True


#: A camera play whose player the rules leave open (who leads a round when the deal was not
#: entered: whoever holds the double) and whose hand's seat does not name one of those players
#: asks a person who it was: its confidence is at most this (below the session's threshold).
UNSURE_PLAYER_CONFIDENCE = 0.5


def _choose_player(game: Game, move: Move, change: TableChange
                   ) -> tuple[Move, bool, list[Move]]:
    """``move`` (a camera play by the player whose turn it is) with its player settled, whether
    that player is sure, and when not, the same play by each other player the rules accept it
    from (the dashboard offers them: one tap to say who led). When the rules accept the play
    from other players too (the camera does not see whose hand a tile came from), the player
    whose seat the hand reached in from (``change.reached_by``) makes it if the rules let them;
    otherwise the player whose turn it is stays, unsure (a person is asked: a wrong player
    taken silently is worse than a question). Only the first tile of a round is worth asking
    about: later plays follow the turn, which the rules enforce."""
    if move.player is None:
        return move, True, []
    may = [p for p in game.players
           if p == move.player or game.accepts(dataclasses.replace(move, player=p))]
    if len(may) <= 1:
        return move, True, []
    if change.reached_by in may:
        return dataclasses.replace(move, player=change.reached_by), True, []
    return move, False, [dataclasses.replace(move, player=p) for p in may if p != move.player]


#: Why a play asks when the hand that laid it came from another seat than the turn's.
SEAT_NOTE = ("the hand came from {seat}'s side of the table, but the log has it {turn}'s turn: "
             "did the players between pass?")


def seat_doubt(game: Game, move: Move, change: TableChange) -> list[dict[str, Any]]:
    """For a camera play by the player whose turn it is (``move``, legal in ``game``) whose
    hand came from another player's seat (:attr:`~companion.tracking.TableChange.reached_by`,
    learned by the live loop): that player's play with the passes before it that would make
    it legal (:func:`companion.session.turn_explanations`), as answers the question offers
    (a pass is never seen by the camera and may not have been entered). Empty when the seat is
    not known, is the turn's, or no pass explains it."""
    seat = change.reached_by
    if seat is None or move.player is None or seat == move.player:
        return []
    theirs = dataclasses.replace(move, player=seat)
    return [with_before(theirs, before) for before in turn_explanations(game, theirs)]


#: Why a play asks when the player whose turn it is has just drawn and the seat the hand came
#: from is not known to be theirs.
DREW_NOTE = ("{turn} drew and the log has it still {turn}'s turn: did {turn} lay the drawn "
             "tile, or pass (a pass the camera cannot see) and the next player lay it?")


def drew_doubt(game: Game, move: Move, change: TableChange) -> list[dict[str, Any]]:
    """For a camera play by the player whose turn it is (``move``, legal in ``game``) right
    after that player drew (:attr:`companion.games.Game.drew_this_turn`: Chickenfoot, Super
    Dominoes, Stackernoes), when the seat the hand came from is not known to be theirs: the
    same play by each player after them, with the passes before it that make it legal (the
    first of :func:`companion.session.turn_explanations` for each), as answers the question
    offers. A player who cannot lay the tile they drew passes next, and a pass is never seen by
    the camera and easily forgotten on the tablet: the next player's play then looks like the
    drawer's. Empty where the game has no draw in the turn, the player did not just draw, the
    tile laid is the one the draw named, or the hand came from their own seat."""
    if not game.drew_this_turn or move.player is None \
            or move.tile in game.tiles_drawn_this_turn \
            or change.reached_by == move.player or move.player not in game.players:
        return []
    order = list(game.players)
    start = order.index(move.player)
    out: list[dict[str, Any]] = []
    for k in range(1, len(order)):
        theirs = dataclasses.replace(move, player=order[(start + k) % len(order)])
        found = turn_explanations(game, theirs)
        if found:
            out.append(with_before(theirs, found[0]))
    return out


#: A tile that appeared with the value of a tile still seen elsewhere on the table (one set
#: holds each value once) is a misread: it is proposed as its likeliest other value that is not
#: on the table, asking a person, with at most this confidence.
DUPLICATE_CONFIDENCE = 0.5


def _seen_elsewhere(s: Seen, change: TableChange) -> bool:
    """Whether another tile of ``s``'s value is seen now (not hidden) more than a tile width
    from it: in a game of one set, one of the two is misread, and the one that appeared now
    (``s``) is the reading in doubt."""
    return any(t is not s and t.tile == s.tile and not t.hidden and
               float(np.linalg.norm(t.center - s.center)) > max(1e-6, t.width)
               for t in change.table)


def _as_misread(s: Seen, taken: set[Tile]) -> Seen:
    """``s`` (a tile whose value is taken: see :func:`_seen_elsewhere`) as its likeliest
    alternative value not in ``taken``, halves turned to match where a half's value was read
    right, with the confidence :data:`DUPLICATE_CONFIDENCE` at most; with no such alternative,
    as read, at that confidence. Its alternatives are the untaken ones (the dashboard's quick
    picker)."""
    alts = [(text, p) for _, text, p in
            untaken_alternatives(s.alternatives, taken | {s.tile})]
    if not alts:
        return dataclasses.replace(s, confidence=min(float(s.confidence), DUPLICATE_CONFIDENCE),
                                   alternatives=())
    return dataclasses.replace(_with_value(s, Tile.parse(alts[0][0])),
                               confidence=min(float(alts[0][1]), DUPLICATE_CONFIDENCE),
                               alternatives=tuple(alts[1:]))


#: A reading below this confidence asks a person anyway (the session's threshold): when its
#: value makes no legal play, a likelier legal one among its alternatives is proposed instead.
UNSURE_READING = 0.9


def _legal_alternatives(s: Seen, taken: set[Tile]) -> list[Seen]:
    """``s`` as each of the reader's other values for it that is not on the table, likeliest
    first; each asks a person (confidence at most ``s``'s and 0.5) and offers the value read
    and the other alternatives."""
    out = []
    for tile, text, _ in untaken_alternatives(s.alternatives, taken | {s.tile}):
        others = tuple((t, q) for t, q in s.alternatives if t != text)
        out.append(dataclasses.replace(
            _with_value(s, tile), confidence=min(float(s.confidence), 0.5),
            alternatives=((str(s.tile), float(s.confidence)),) + others))
    return out


def _first_legal_value(s: Seen, taken: set[Tile], trial: Game,
                       play: Callable[[Seen], Move | None]) -> tuple[Seen, Move] | None:
    """``s`` as the first of its other values not in ``taken`` (:func:`_legal_alternatives`)
    whose play (``play``: the move that value makes there, or None) the rules take in
    ``trial``, with that move; None when none does."""
    for alt in _legal_alternatives(s, taken):
        move = play(alt)
        if move is not None and trial.accepts(move):
            return alt, move
    return None


def _new_tiles(change: TableChange, on_table: set[Tile]) -> list[Seen]:
    """The tiles of ``change.added`` that the game does not have on the table; and a tile seen
    whole whose value the table has only as the guess for a tile running out of the picture
    (:attr:`~companion.tracking.Seen.seen_half`): the guess yields to it (its question still
    asks which tile that one is, and the rules hold this play until it is answered)."""
    guessed = {t.tile for t in change.table if t.seen_half is not None}
    added = [_untaken_guess(s, on_table) for s in change.added]
    return [s for s in added
            if s.tile not in on_table or (s.seen_half is None and s.tile in guessed)]


def _untaken_guess(s: Seen, taken: set[Tile]) -> Seen:
    """A tile running out of the picture (:attr:`~companion.tracking.Seen.seen_half`) with its
    guess and the other values offered for it cut to the tiles not in ``taken`` (a set holds
    each tile once): the guess is the first value left, the others its alternatives. Any other
    tile, or one whose every value is taken, as it is."""
    if s.seen_half is None:
        return s
    left = untaken_alternatives(((str(s.tile), float(s.confidence)),) + tuple(s.alternatives),
                                taken)
    if not left:
        return s
    return dataclasses.replace(_with_value(s, left[0][0]),
                               alternatives=tuple((text, p) for _, text, p in left[1:]))


def _with_value(s: Seen, tile: Tile) -> Seen:
    """``s`` read as ``tile``, its halves in the reading's order
    (:func:`companion.tiles.oriented_halves`)."""
    return dataclasses.replace(s, tile=tile, halves=oriented_halves(tile, s.halves))


def _camera_meta(seen: Seen) -> dict[str, Any]:
    """The camera's part of an entry it proposes: source, confidence and the reading."""
    return {"source": "camera", "confidence": round(float(seen.confidence), 4),
            "reading": {"tile": str(seen.tile), "halves": list(seen.halves)}}


#: Why a play of a tile running out of the picture asks (:attr:`companion.tracking.Seen.
#: seen_half`): shown with the question, whose answers offer the other values.
PARTLY_SEEN_NOTE = ("only its {value} half is in the picture: the other runs out of it, so "
                    "its value is a guess: tap the tile it is")


def _with_partly_seen_note(note: str | None, seen: Seen) -> str | None:
    """``note`` (why a proposal asks, or None) with :data:`PARTLY_SEEN_NOTE` added when
    ``seen`` runs out of the picture."""
    if seen.seen_half is None:
        return note
    return "; ".join(n for n in (note, PARTLY_SEEN_NOTE.format(
        value=seen.halves[seen.seen_half])) if n)


def _play_proposal(move: Move, seen: Seen, confidence: float | None = None,
                   read: Seen | None = None, others: Sequence[Move | dict[str, Any]] = (),
                   player_only: bool = False, note: str | None = None) -> Proposal:
    """A camera play: the entry with the camera's confidence, its original reading (``read``
    when the play names another value than the reader gave: a misread taken for a likelier
    value) and the alternatives for the dashboard's quick picker: ``others`` (whole plays, e.g.
    the same tile led by another player) first, then the likeliest other values.
    ``player_only``: the play asks only who played it; its reading is marked
    :data:`~companion.session.UNSURE_OF_PLAYER` when the reading is sure too (not below
    :data:`~companion.session.CONFIRM_BELOW`). ``others`` may hold whole answers too (a play
    with :data:`~companion.session.BEFORE`); ``note``: why it asks, shown with the question."""
    entry = move.to_json()
    entry.update(_camera_meta(seen))
    note = _with_partly_seen_note(note, seen)
    if note:
        entry["note"] = note
    if read is not None:
        entry["reading"] = {"tile": str(read.tile), "halves": list(read.halves)}
    elif player_only and float(seen.confidence) >= CONFIRM_BELOW:
        entry["reading"]["unsure_of"] = UNSURE_OF_PLAYER
    if confidence is not None:
        entry["confidence"] = min(entry["confidence"], confidence)
    alts = [m if isinstance(m, dict) else m.to_json() for m in others] + \
        [{"tile": t, "p": p} for t, p in seen.alternatives]
    entry["alternatives"] = alts
    return Proposal(entry, str(move), seen, alts)


def _read_again(change: TableChange, logged: set[Tile],
                fields: Callable[[Seen, Seen], dict[str, Any]] | None = None) -> list[Proposal]:
    """For each tile the tracking now takes for another value
    (:attr:`~companion.tracking.TableChange.replaced`: found in one reading only, then read
    surely as that value at its place again and again) whose first value is on the table in
    the game (``logged``), a camera request to amend its play
    (:data:`companion.session.REREAD`): the session makes it an alert whose one tap amends the
    play in the log, or a notice saying why it cannot (the rules refuse the amended log, or no
    play put the tile there). ``fields(old, new)``: the play's fields that change with the
    value (default: the tile read now; Stackernoes adds the cells, whose order follows the
    halves). Nothing where the first value was never entered."""
    out: list[Proposal] = []
    for old, new in change.replaced:
        if old.tile not in logged:
            continue
        change_to = fields(old, new) if fields is not None else {"play": str(new.tile)}
        entry = {REREAD: {"was": str(old.tile), "as": change_to}, "source": "camera",
                 "confidence": round(float(new.confidence), 4),
                 "reading": {"tile": str(new.tile), "halves": list(new.halves)}}
        out.append(Proposal(entry, f"the camera now reads {change_to['play']} where it first "
                                   f"read {old.tile}", new))
    return out


