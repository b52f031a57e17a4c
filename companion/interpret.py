"""Interpreters: from a :class:`~companion.tracking.TableChange` to game-log entries.

The camera sees tiles appear, vanish and move; the game log speaks of plays, draws and passes.
An interpreter translates one into the other for one family of games and returns
:class:`Proposal` values: log entries for the session to check (legal ones are taken, illegal
ones raise an alert), or notices for a person when the change means nothing in the game (a tile
removed mid-round, the table cleared).

Line games (``allfives``, ``chickenfoot``, ``super``): a tile added to the table is a play by the
player whose turn it is. It goes ``on`` the tile it touches; when it touches several, the one
whose touching half matches and that the rules accept is chosen (the rules pick the side of a
spinner or double); when none of the tiles it touches takes a legal play, a matching tile
within :data:`NEAR_PARENT_GAP` tile widths that does is chosen (a chicken-foot toe laid at an
angle off its double), and only then is the illegal play on the touched tile proposed (so the
rules raise their alert). The first tile of a round touches nothing; when several tiles appear
at once on an empty table (the camera started mid-round), the first is one the rules take as
the round's first tile, and the others chain from it. Several plays seen at once are ordered
so (touching the table first, then in a chain); where more than one of them could have come
next (two tiles on the tiles down before, say), the order, and with it who played each, is a
guess: from there on each asks a person (:data:`UNSURE_ORDER_CONFIDENCE`); so is who played
each after the first when the log is still empty (the camera started mid-game: no pass or draw
between them was entered). A tile the rules already put on the table (the Chickenfoot centre
double) is no play. Who plays the first tile of a round may be open to the rules (the deal
was not entered: whoever holds the highest double leads it): the player whose seat the hand
reached in from (:attr:`~companion.tracking.TableChange.reached_by`) when the live loop has
learned it, else
the player whose turn it is, and a person is asked. A tile that appears with the value of a
tile still seen elsewhere on the table is misread (a set holds each value once): it is proposed
as its likeliest other value that is not on the table, and a person is asked (this and the
Castle Rock interpreter; :func:`companion.interpret_base._as_misread`). An unsure reading
(confidence below :data:`UNSURE_READING`) whose value makes no legal play there is proposed as
the likeliest of the reader's other values that does (a half under a glare spot read blank),
still asking a person, with the value read offered too. A tile running out of the picture with
one half read (:attr:`~companion.tracking.Seen.seen_half`) is guessed among the values whose
tiles are not on the table (:func:`companion.interpret_base._new_tiles`), in every family; the
trick games take the first value the rules accept from the player with no renege (a guess is
no renege: not one the deal refuses, nor, without the deal, one the rules would flag), and
its draw or play asks with the note that says why.

Castle Rock (``castlerock``, :class:`RowInterpreter`): a tile added to the row is a named draw
by the solitaire player; several added at once (the new array of three on an empty row) are one
draw, in row order along the line through them, left to right as the camera sees it (the player
sits at the bottom of the picture). A draw laid anywhere but beyond the row's last tile (along
the row as the camera sees it) is asked about, with a note telling the player to move it to the
right end, where it is logged (:data:`ASTRAY_DRAW_NOTE`). Tiles gone from the row are ``remove``
entries, split into removal groups the rules accept, in an order they accept (found by search
over the game's legal removals), before the draw seen in the same picture, or after it when only
the draw made them possible; tiles left in the row that slid to close a gap are no entry. Gone
tiles that no sequence of legal removals explains are proposed as one removal anyway, so the
rules raise the illegal alert that says why; a tile put back where the rules still have it is no
entry.

Trick games (``fortytwo``, ``moon``, :class:`TrickInterpreter`): a face-up tile added to the
table is a play (no ``on``) by the player whose turn it is. Several new tiles at once are played
in the order read, which is a guess, so each asks a person (confidence at most 0.5). A trick
gathered (its tiles taken away or turned face down, which the camera no longer sees as tiles)
is no entry: the rules know who won it. A tile of a finished trick turned face up again, a tile
of the trick in play taken away or moved, is a notice. Bids, trump and Moon's widow discard are
entered on the tablet.

A logged tile that the tracking now reads as another value at its place
(:attr:`~companion.tracking.TableChange.replaced`: the first reading was a misreading) is a
request to amend its play (:func:`companion.interpret_base._read_again`): the session asks a
person to amend it with one tap, or says why it cannot (the rules refuse the amended log, e.g.
a later play depends on the first tile). The tracking reports such tiles only where tiles stay
where they are laid (the stacking games), so in the line and trick games this waits for it.

Build Up (``buildup``, :class:`companion.interpret_stacks.BuildUpInterpreter`): a tile laid on
a stack is a play on the top it covers, its set told by its face colour; Stackernoes
(``stackernoes``, :class:`companion.interpret_stacks.StackernoesInterpreter`): a tile to its two
grid cells and its level (see that module).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from companion.errors import DominoError
from companion.games import Game
from companion.interpret_base import (  # noqa: F401
    DREW_NOTE,
    SEAT_NOTE,
    UNSURE_PLAYER_CONFIDENCE,
    UNSURE_READING,
    Interpreter,
    Proposal,
    _as_misread,
    _camera_meta,
    _choose_player,
    _first_legal_value,
    _new_tiles,
    _play_proposal,
    _read_again,
    _seen_elsewhere,
    _with_partly_seen_note,
    drew_doubt,
    seat_doubt,
)
from companion.interpret_stacks import BuildUpInterpreter, StackernoesInterpreter
from companion.moves import Move
from companion.tiles import Tile
from companion.tracking import Seen, TableChange, contacts_of

#: How far (tile widths) a line game's added tile may lie from a tile it is played on when
#: the tiles it touches take no legal play (a chicken-foot toe laid at an angle off its double
#: touches the double's corner at most, and often its neighbour toe first).
NEAR_PARENT_GAP = 0.8


class LineInterpreter:
    """Plays against open ends (All Fives, Chickenfoot, Super Dominoes)."""

    def proposals(self, change: TableChange, game: Game) -> list[Proposal]:
        """The plays of the tiles added (see the module docstring), notices for tiles taken off
        or moved, and requests to amend logged plays read again."""
        out: list[Proposal] = []
        on_table = set(game.table_tiles())
        pending = _new_tiles(change, on_table)
        touching = {id(s): change.contacts.get(s.tile, []) for s in pending}
        # a tile with the value of one still seen elsewhere on the table is misread: its
        # likeliest other value, asking a person
        taken = on_table | {s.tile for s in change.added}
        visible = [t for t in change.table if not t.hidden]
        raw: dict[int, Seen] = {}  # a misread's guess (by id): the tile as read
        for s in change.added:  # (a tile running out of the picture: see _new_tiles)
            if s.tile in on_table and s.seen_half is None and _seen_elsewhere(s, change):
                guess = _as_misread(s, taken)
                raw[id(guess)] = s
                pending.append(guess)
                touching[id(guess)] = contacts_of(guess, [t for t in visible if t is not s])
        trial = copy.deepcopy(game)
        placed = set(on_table)
        guessed = False  # whether this change's order of plays is a guess by now
        # several tiles on a table the log knows nothing of (the camera started mid-game): no
        # pass or draw between them was entered, so who laid each after the first is a guess
        unwatched = game.moves == 0 and len(pending) > 1
        # play tiles that touch the table first, in a chain if several arrived at once
        while pending:
            ready = [s for s in pending if any(c.other in placed for c in touching[id(s)])]
            if not ready and not placed and trial.current_player is not None:
                # several tiles at once on an empty table (the camera started mid-round):
                # the round's first tile is one the rules take first (a double, where the
                # first tile must be one); its neighbours then chain from it
                ready = [s for s in pending
                         if trial.accepts(Move.play(trial.current_player, s.tile))]
            # where more than one could have come next, the order is a guess from here on,
            # and so is every player named after it (the turn moves with each play)
            guessed = guessed or len(ready) > 1 or (unwatched and len(out) > 0)
            nxt = ready[0] if ready else pending[0]
            pending.remove(nxt)
            player = trial.current_player
            if player is None:
                out.append(Proposal(None, f"{nxt.tile} appeared on the table, but no one is to play "
                                          "now (the round is over): is it a new round?", nxt))
                continue
            contacts = [c for c in touching[id(nxt)] if c.other in placed]
            candidates = [Move.play(player, nxt.tile, c.other) for c in contacts]
            if not placed:
                candidates.insert(0, Move.play(player, nxt.tile))
            chosen = _legal_play(trial, player, nxt, candidates, contacts, placed, change)
            read = raw.get(id(nxt))
            if chosen is None and placed and nxt.confidence < UNSURE_READING:
                # an unsure reading that makes no legal play: the likeliest of the reader's
                # other values that does (a half under a glare spot read blank), still asked
                def play_as(alt: Seen) -> Move | None:
                    touches = contacts_of(alt, [t for t in change.table if not t.hidden
                                                and t.tile in placed])
                    return _legal_play(trial, player, alt,
                                       [Move.play(player, alt.tile, c.other) for c in touches],
                                       touches, placed, change)

                found = _first_legal_value(nxt, on_table | placed, trial, play_as)
                if found is not None:
                    read = read or nxt
                    nxt, chosen = found
            sure = True
            others: list[Move | dict[str, Any]] = []
            note = None
            if chosen is None:
                chosen = candidates[0] if candidates else Move.play(player, nxt.tile)
                # the same tile on each other tile it touches with a matching half (one a
                # question still holds back from the log, say): offered to the person, and
                # tried again when that question is answered (Session._recheck)
                others = [m for m in (Move.play(player, nxt.tile, c.other)
                                      for c in touching[id(nxt)] if c.matches) if m != chosen]
            else:
                if not placed:  # the round's first tile: who leads may be open (no deal entered)
                    chosen, sure, others = _choose_player(trial, chosen, change)
                elif len(change.added) == 1:
                    # a hand from another player's seat than the turn's: a pass missed?
                    others = seat_doubt(trial, chosen, change)
                    if others:
                        note = SEAT_NOTE.format(seat=change.reached_by, turn=chosen.player)
                    elif (others := drew_doubt(trial, chosen, change)):
                        note = DREW_NOTE.format(turn=chosen.player)
                trial.apply(chosen)
            confidence = None if sure and note is None else UNSURE_PLAYER_CONFIDENCE
            if guessed:
                confidence = min(confidence or 1.0, UNSURE_ORDER_CONFIDENCE)
            out.append(_play_proposal(chosen, nxt, confidence, read=read, others=others,
                                      player_only=not sure and not guessed, note=note))
            placed.add(nxt.tile)
        for s in change.removed:
            if s.tile in on_table:
                out.append(Proposal(None, f"{s.tile} was taken off the table: if the round is over, "
                                          "enter the hands; if it was knocked, put it back", s))
        for old, new in change.moved:
            if old.tile in on_table:
                out.append(Proposal(None, f"{old.tile} moved on the table", new))
        return out + _read_again(change, on_table)


#: Several plays seen at once (the table was never still between them) in an order that is a
#: guess, and so their players: each play from the first guessed one on asks a person, its
#: confidence at most this (below the session's threshold).
UNSURE_ORDER_CONFIDENCE = 0.5


def _legal_play(trial: Game, player: str, s: Seen, candidates: list[Move],
                contacts: list[Any], placed: set[Tile], change: TableChange) -> Move | None:
    """The first of ``candidates`` (plays on the tiles ``s`` touches) the rules accept; else,
    a toe laid at an angle off a double can sit further from it than the touch test allows
    while it touches a neighbour it cannot be played on: a legal parent a little further away
    (:data:`NEAR_PARENT_GAP`) is the play, before any illegal one is alleged. None: no legal
    play."""
    chosen = next((m for m in candidates if trial.accepts(m)), None)
    if chosen is None and placed:
        near = [c.other for c in contacts_of(s, [t for t in change.table if t.tile in placed],
                                             max_gap=NEAR_PARENT_GAP)
                if c.matches and c.other not in {k.other for k in contacts}]
        chosen = next((m for m in (Move.play(player, s.tile, o) for o in near)
                       if trial.accepts(m)), None)
    return chosen


def _row_order(seen: list[Seen]) -> list[Seen]:
    """``seen`` in order along the line through their centres, left to right in the picture
    (top to bottom when the line runs more up than across)."""
    if len(seen) < 2:
        return list(seen)
    pts = np.stack([s.center for s in seen])
    centred = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    axis = vt[0]
    main = 0 if abs(axis[0]) >= abs(axis[1]) else 1
    if axis[main] < 0:
        axis = -axis
    return [seen[i] for i in np.argsort(centred @ axis, kind="stable")]


#: A Castle Rock draw laid anywhere but beyond the right end of the row (:func:`_not_right_of_row`)
#: is proposed with at most this confidence, so a person is asked, with :data:`ASTRAY_DRAW_NOTE`.
ASTRAY_DRAW_CONFIDENCE = 0.5
ASTRAY_DRAW_NOTE = ("{tiles} lies at the left end of the row or inside it, but a draw goes to "
                    "the right end: it is logged there, so move it there")


def _not_right_of_row(new: list[Seen], row: list[Tile], table: list[Seen]) -> list[Seen]:
    """The tiles of ``new`` (just drawn) that do not lie beyond the row's last tile, along the
    row from its first tile to its last (``row``: the rules' row left to right, found on the
    ``table`` as it is seen now; the camera may look at it from any side). Empty when fewer
    than two of the row's tiles are seen (a new row of three: nothing to measure against)."""
    where = {s.tile: np.asarray(s.center, dtype=float) for s in table}
    found = [where[t] for t in row if t in where]
    if len(found) < 2:
        return []
    axis = found[-1] - found[0]
    length = float(np.linalg.norm(axis))
    if length == 0.0:
        return []
    axis /= length
    end = max(float((p - found[0]) @ axis) for p in found)
    return [s for s in new if float((np.asarray(s.center, dtype=float) - found[0]) @ axis) <= end]


def _removal_plan(game: Game, gone: set[Tile], limit: int = 2000) -> list[Move] | None:
    """Removals the rules accept, one after another, that take exactly ``gone`` out of the row
    (depth-first over the game's legal removals; None when no sequence does)."""
    budget = [limit]

    def search(g: Game, left: frozenset[Tile]) -> list[Move] | None:
        if not left:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        for m in g.legal_moves():
            if m.kind != "remove" or not set(m.tiles) <= left:
                continue
            trial = copy.deepcopy(g)
            try:
                trial.apply(m)
            except DominoError:
                continue
            rest = search(trial, left - set(m.tiles))
            if rest is not None:
                return [m] + rest
        return None

    return search(game, frozenset(gone))


class RowInterpreter:
    """Castle Rock: draws at the right of the row, removals out of it (see the module docstring)."""

    def proposals(self, change: TableChange, game: Game) -> list[Proposal]:
        """The removals and the draw the row's change means (see the module docstring), and
        notices for tiles back on the table."""
        out: list[Proposal] = []
        row = list(getattr(game, "row", []))
        in_row = set(row)
        known = set(game.table_tiles())
        player = game.players[0]
        by_tile = {s.tile: s for s in change.removed}
        gone = {s.tile for s in change.removed if s.tile in in_row}
        # a tile put back where the rules still have it (after an illegal removal) is no entry;
        # one with the value of a tile still seen in the row is a misread (one set): its
        # likeliest other value, asking a person
        # (a tile running out of the picture is guessed among the tiles not drawn: _new_tiles)
        new = _new_tiles(change, known)
        new += [_as_misread(s, known | {a.tile for a in change.added}) for s in change.added
                if s.tile in in_row and s.seen_half is None and _seen_elsewhere(s, change)
                and not any(n is s for n in new)]
        trial = copy.deepcopy(game)
        draw: list[Proposal] = []
        draw_move: Move | None = None
        if new:
            ordered = _row_order(new)
            tiles = [s.tile for s in ordered]
            raw: Any = str(tiles[0]) if len(tiles) == 1 else [str(t) for t in tiles]
            m = draw_move = Move.draw(player, raw)
            entry = m.to_json()
            entry.update(_camera_meta(ordered[0]))
            entry["confidence"] = round(min(float(s.confidence) for s in ordered), 4)
            entry["reading"] = {"draw": [str(t) for t in tiles]}
            note = None
            for s in ordered:  # tiles running out of the picture: their values are guesses
                note = _with_partly_seen_note(note, s)
            astray = _not_right_of_row(ordered, [t for t in row if t not in gone], change.table)
            if astray:
                # a draw goes to the right end of the row: logged there, the rules' row would
                # differ from the table, so a person is asked (and told to move the tile)
                entry["confidence"] = min(entry["confidence"], ASTRAY_DRAW_CONFIDENCE)
                note = "; ".join(n for n in (note, ASTRAY_DRAW_NOTE.format(
                    tiles=", ".join(str(s.tile) for s in astray))) if n)
            if note:
                entry["note"] = note
            if len(ordered) == 1:
                entry["alternatives"] = [{"tile": t, "p": p} for t, p in ordered[0].alternatives]
            draw.append(Proposal(entry, str(m), ordered[0], entry.get("alternatives", [])))
        removes: list[Proposal] = []
        if gone:
            # removals come first when the row allowed them before the draw (they were
            # compulsory then); otherwise the draw made them possible and goes first
            plan = _removal_plan(game, gone)
            if plan is None and draw_move is not None and trial.accepts(draw_move):
                trial.apply(draw_move)
                plan = _removal_plan(trial, gone)
                if plan is not None:
                    out.extend(draw)
                    draw = []
            if plan is None:
                plan = [Move("remove", player, tiles=tuple(t for t in row if t in gone))]
            for m in plan:
                seen = by_tile[m.tiles[0]]
                entry = m.to_json()
                entry.update(_camera_meta(seen))
                entry["confidence"] = round(min(float(by_tile[t].confidence) for t in m.tiles), 4)
                entry["reading"] = {"remove": [str(t) for t in m.tiles]}
                removes.append(Proposal(entry, str(m), seen))
        out.extend(removes)
        out.extend(draw)
        for s in change.added:
            if s.tile in known and s.tile not in in_row:
                out.append(Proposal(None, f"{s.tile} is back on the table, but it was removed "
                                          "from the row earlier: put it aside again", s))
        return out


def _plays_without_renege(game: Game, move: Move) -> bool:
    """Whether the rules take ``move`` in ``game`` (tried on a copy) without flagging a
    ``renege`` (Forty-Two and Moon without the deal: a player shows a suit they did not follow
    before, which the rules take but the table must rule on)."""
    trial = copy.deepcopy(game)
    try:
        events = trial.apply(move)
    except DominoError:
        return False
    return not any(e.kind == "renege" for e in events)


def _renege_free_play(game: Game, player: str) -> Callable[[Seen], Move | None]:
    """For :func:`_first_legal_value`: the play of a guessed value by ``player``, or None when
    the rules would flag it as a renege (a guess must never accuse a player)."""
    def play(alt: Seen) -> Move | None:
        move = Move.play(player, alt.tile)
        return move if _plays_without_renege(game, move) else None
    return play


class TrickInterpreter:
    """Forty-Two and Moon: tiles played to the trick (see the module docstring)."""

    def proposals(self, change: TableChange, game: Game) -> list[Proposal]:
        """The plays of the face-up tiles added (see the module docstring), notices about the
        tricks' tiles, and requests to amend logged plays read again."""
        out: list[Proposal] = []
        in_trick = {t for _, t in getattr(game, "trick", [])}
        done = set(getattr(game, "played", []))
        # a tile the log put aside face down (Moon's discard) goes to the rules, which say why
        # it cannot be played
        new = _new_tiles(change, in_trick | done)
        trial = copy.deepcopy(game)
        for s in new:
            player = trial.current_player
            if player is None:
                out.append(Proposal(None, f"{s.tile} appeared on the table, but no one is to play "
                                          "now (all tricks are played): enter the end of the hand",
                                    s))
                continue
            m = Move.play(player, s.tile)
            if s.seen_half is not None and not _plays_without_renege(trial, m):
                # a tile running out of the picture whose guessed value the rules refuse (a
                # renege the deal proves) or would flag as a renege (without the deal): the
                # first of its other values they take with no renege
                found = _first_legal_value(s, in_trick | done | {t.tile for t in new}, trial,
                                           _renege_free_play(trial, player))
                if found is not None:
                    s, m = found
            # several new tiles at once: their order is a guess, so each asks a person
            out.append(_play_proposal(m, s, 0.5 if len(new) > 1 else None))
            if trial.accepts(m):
                trial.apply(m)
        for s in change.added:
            if s.tile in done:
                out.append(Proposal(None, f"{s.tile} of a finished trick is face up again: turn "
                                          "it back down with its trick", s))
        for s in change.removed:
            if s.tile in in_trick:
                out.append(Proposal(None, f"{s.tile} was taken out of the trick in play: if it "
                                          "was played by mistake, undo its play", s))
        for old, moved in change.moved:
            if old.tile in in_trick:
                out.append(Proposal(None, f"{old.tile} moved in the trick in play", moved))
        return out + _read_again(change, in_trick | done)


INTERPRETERS: dict[str, Interpreter] = {
    "allfives": LineInterpreter(),
    "chickenfoot": LineInterpreter(),
    "super": LineInterpreter(),
    "castlerock": RowInterpreter(),
    "fortytwo": TrickInterpreter(),
    "moon": TrickInterpreter(),
    "buildup": BuildUpInterpreter(),
    "stackernoes": StackernoesInterpreter(),
}


def interpreter_for(game_name: str) -> Interpreter:
    """The interpreter of a game; a clear error for games the camera cannot follow yet."""
    try:
        return INTERPRETERS[game_name]
    except KeyError:
        raise DominoError(f"the camera cannot follow {game_name} yet; games it follows: "
                          f"{', '.join(INTERPRETERS)} (enter the others on the tablet)") from None
