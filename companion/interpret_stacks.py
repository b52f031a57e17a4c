"""Interpreters of the stacking games: from a table change to Build Up and Stackernoes plays.

Build Up (:class:`BuildUpInterpreter`): every player has a double-six set of their own colour,
so one value lies on the table once per set and the value alone does not say whose tile it is.
Before the change is computed, :meth:`BuildUpInterpreter.observe` measures the face colour of
every tile in the picture (:func:`calibration.enroll.tile_colours`) and gives each tile its set
colour: the nearest of the game's set colours, whose references start at typical colours
(:data:`NOMINAL_BGR`) and are fitted to the picture's own face colours (k-means), so the lamp
and the camera's white balance do not confuse the sets. When the colour is unclear (the two
nearest sets about as near), a value the table holds in one set only takes that set; but a tile
so read that the change adds while the table's tile of that value is still there (under it, or
at its own place) is another set's copy, as a set holds each tile once: it takes the nearest
set that does not hold that value yet.

A tile added over a stack (:attr:`companion.tracking.TableChange.under`) is a play by the player
whose turn it is, ``on`` the stack top it covers; the covering rules, the turn and the set colour
are the rules core's to check (an illegal play raises its alert). When the tile lies over more
than one known tile, the one the rules accept is chosen; when none of the tiles under it is a
stack top the rules know (the camera misread it), the tops sharing a half with what was read
there are tried, likeliest first, and a person is asked (confidence at most 0.5); when nothing
known lies under it (the camera lost sight of that stack) and the covering rules let the tile
go on one top only, that top is the guess a person is asked about. A tile whose colour was read as
another player's set is proposed as read, so the rules say whose set it is. Several tiles at
once are played in the order read, each asking a person (confidence at most 0.5). A tile added
over nothing known is a notice (it went on the table, or the camera missed the stack under it);
tiles the deal put on the table (the layouts) are no play; a stack top no longer seen is a
notice (a tile the camera could not read may lie on it, or it was taken away); when the picture
at that top changed as a tile laid does with nothing read there (a glare spot over the new
tile: the tracking's :attr:`~companion.tracking.TableChange.unread`), and no other play was
seen, it is a question instead: the play of the player whose turn
it is on that top, with the tiles the covering rules let go there to pick from. So is a tile
laid on a top and read with the top's own value in a set that holds it already (a set holds
each tile once: the camera could not read it). Deals, passes and the ends of rounds are entered
on the tablet.

Stackernoes (:class:`StackernoesInterpreter`): the rules core models the table as a grid of
half-tile cells with levels, and a play names its two cells and its level. The first tile
sets the grid (its low half on cell (0, 0), its high half on (1, 0): the run's axis; a double led
has its cell (0, 0) on the left in the picture, or at the top when it lies upright). For a
later tile, a similarity from cells to the picture is fitted on the known tiles in view (each
half's centre against its cell, nearer tiles weighing more, so the perspective of a tilted camera
matters only locally); the new tile's halves are mapped back onto the grid, and of the
placements the rules allow for that tile (runs, caps, spans, roots, branches, stacked branches,
bridges: whatever the rules core generates) within :data:`SNAP_CELLS` cells of it, the nearest
is the play, ties broken by the level the table was watched being built to (a tile over known
tiles is one above them; :data:`LEVEL_WEIGHT`). No legal placement near it: the cells the picture says are proposed, so the
rules say why not. Extra turns for roots are the rules' (the next tile is the same player's).
Several tiles seen at once (a companion started on a table in play, a play missed while a hand
hid the table) are played lowest level first, in the order read, except that a tile the rules
refuse where it is goes after the first of the others they take there (one read before the tile
it lies against waits for it); each asks a person (confidence at most 0.5).
Who leads the first tile is not seen (without the deal any player may): the player whose seat
the hand reached in from when the live loop has learned it
(:attr:`~companion.tracking.TableChange.reached_by`), else the player whose turn it is, and a
person is asked. A placed tile no longer seen is a notice (a tile the camera could not read may
lie on it, or it was taken off); when the tracking says the picture at it changed as a tile laid
does with nothing read there (:attr:`~companion.tracking.TableChange.unread`) and no other play
was seen, it is a question instead: a stacked play of the player whose turn it is over that
tile, with the placements the rules allow there to pick from. So is a tile laid on a placed
tile and read with that tile's value (a set holds each tile once: laid exactly on it, a 0-8 on
a 0-9 read 0-9), the plays whose numbers are nearest those read offered first. Draws, passes
and the end of the game are entered on the tablet.

In both games a logged tile the tracking now reads as another value at its place
(:attr:`~companion.tracking.TableChange.replaced`) is a request to amend its play
(:func:`companion.interpret_base._read_again`; the session asks with one tap, or says why it
cannot): in Build Up the tile read now, in the first reading's set when its colour was not
read; in Stackernoes the tile on the same cells and level, each half on the cell of the first
reading's half nearest to it in the picture.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from companion.errors import DominoError
from companion.games import Game
from companion.interpret_base import (
    DREW_NOTE,
    Proposal,
    _choose_player,
    _first_legal_value,
    _new_tiles,
    _play_proposal,
    _read_again,
    _with_value,
    drew_doubt,
)
from companion.moves import Move
from companion.tiles import Tile
from companion.tracking import Seen, TableChange

#: Typical face colours (BGR) of coloured domino sets, used for a set colour the table has not
#: shown yet.
NOMINAL_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 190), "blue": (160, 80, 30), "green": (50, 130, 40),
    "yellow": (40, 200, 230), "black": (30, 30, 30), "white": (235, 235, 235),
    "purple": (120, 50, 110), "orange": (30, 120, 230), "ivory": (200, 235, 245),
    "teal": (130, 130, 20), "pink": (170, 120, 230), "brown": (40, 70, 120),
    "grey": (128, 128, 128),
}
#: Weight of lightness against the two colour axes in colour distances (lighting changes
#: lightness most).
LIGHTNESS_WEIGHT = 0.5
#: The nearest set is clear when its distance is at most this fraction of the second nearest.
CLEAR_RATIO = 0.6


def _lab(bgr: tuple[int, int, int]) -> np.ndarray:
    px = np.asarray(bgr, np.uint8).reshape(1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB).reshape(3).astype(np.float64)


def _dist(a: np.ndarray, b: np.ndarray) -> float:
    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    return float(np.sqrt((LIGHTNESS_WEIGHT * d[0]) ** 2 + d[1] ** 2 + d[2] ** 2))


def face_colour(frame_bgr: np.ndarray, seen: Seen) -> tuple[float, float, float] | None:
    """The face colour (Lab) of a tile in the picture; None when its outline is degenerate or
    lies outside the picture."""
    from calibration.enroll import tile_colours

    c = np.asarray(seen.corners, np.float64)
    h, w = frame_bgr.shape[:2]
    if not (np.all(c[:, 0] > -2) and np.all(c[:, 0] < w + 1)
            and np.all(c[:, 1] > -2) and np.all(c[:, 1] < h + 1)):
        return None
    if min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[1])) < 4:
        return None
    face, _ = tile_colours(frame_bgr, c)
    return (float(face[0]), float(face[1]), float(face[2]))


def set_references(seen: list[Seen], game: Game, rounds: int = 3) -> dict[str, np.ndarray]:
    """Each of the game's set colours as a Lab reference, fitted to this picture: starting from
    :data:`NOMINAL_BGR` (a colour word not listed there: mid grey), each reference moves to the
    median face colour of the tiles nearest to it (a few rounds of k-means), so a lamp's tint
    or the camera's white balance does not confuse the sets; a reference with fewer than two
    tiles near it stays where it is. Values are not used: a misread value cannot teach a wrong
    colour."""
    colours: dict[str, str] = getattr(game, "colour", {})
    sets = list(dict.fromkeys(colours.values()))
    refs = {c: _lab(NOMINAL_BGR.get(c, (128, 128, 128))) for c in sets}
    labs = [np.asarray(s.face_lab, np.float64) for s in seen if s.face_lab is not None]
    if len(sets) < 2 or not labs:
        return refs
    for _ in range(rounds):
        near: dict[str, list[np.ndarray]] = {c: [] for c in sets}
        for lab in labs:
            near[min(sets, key=lambda c: _dist(lab, refs[c]))].append(lab)
        moved = {c: np.median(np.stack(v), axis=0) for c, v in near.items() if len(v) >= 2}
        if all(np.allclose(moved[c], refs[c]) for c in moved):
            break
        refs.update(moved)
    return refs


def classify(lab: Any, refs: dict[str, np.ndarray]) -> tuple[str, float, bool]:
    """The nearest set colour to ``lab``, a confidence (0.6..0.99) and whether it is clear
    (see :data:`CLEAR_RATIO`)."""
    if not refs:
        raise DominoError("no set colours to tell tiles apart by: the game names none")
    ranked = sorted((_dist(np.asarray(lab), ref), c) for c, ref in refs.items())
    if len(ranked) == 1:
        return ranked[0][1], 0.99, True
    (d1, c1), (d2, _) = ranked[0], ranked[1]
    ratio = d1 / max(d2, 1e-6)
    conf = float(np.clip(0.99 - 0.39 * (ratio - CLEAR_RATIO) / (1 - CLEAR_RATIO), 0.6, 0.99))
    return c1, conf, ratio <= CLEAR_RATIO


class BuildUpInterpreter:
    """Build Up: plays on stack tops, tiles told apart by set colour (see the module
    docstring)."""

    #: tiles stay where they are laid (for :func:`companion.tracking.diff`'s ``fixed``)
    tiles_stay = True

    def observe(self, seen: list[Seen], frame_bgr: np.ndarray, game: Game) -> list[Seen]:
        """The tiles with their face colours measured and their set colours given (a tile the
        reader already gave a set colour keeps it)."""
        measured = [dataclasses.replace(s, face_lab=face_colour(frame_bgr, s)) for s in seen]
        colours = set(getattr(game, "colour", {}).values())
        if not colours:
            return measured
        refs = set_references(measured, game)
        holders: dict[Tile, set[str]] = {}
        for t in game.table_tiles():
            holders.setdefault(t.plain(), set()).add(t.colour or "")
        out = []
        for s in measured:
            if s.tile.colour or s.face_lab is None:
                out.append(s)
                continue
            colour, conf, clear = classify(s.face_lab, refs)
            held = holders.get(s.tile.plain(), set())
            if not clear and len(held) == 1 and next(iter(held)) in colours:
                colour = next(iter(held))  # unclear colour: the one set the table holds it in
            alts = tuple((str(Tile.parse(t).with_colour(colour)), p) for t, p in s.alternatives)
            out.append(dataclasses.replace(s, tile=s.tile.with_colour(colour),
                                           confidence=min(s.confidence, conf),
                                           alternatives=alts))
        return out

    def proposals(self, change: TableChange, game: Game) -> list[Proposal]:
        """The plays on stack tops of the tiles added, questions or notices about tops no
        longer seen, requests to amend logged plays read again (see the module docstring)."""
        out: list[Proposal] = []
        on_table = set(game.table_tiles())
        change = _other_set_copies(change, game, on_table)
        new = _new_tiles(change, on_table)
        if new and getattr(game, "needs_deal", False):
            return [Proposal(None, f"{', '.join(str(s.tile) for s in new)} laid before the deal "
                                   "was entered: enter the deal (in round 1 the layouts and the "
                                   "tiles drawn to decide who starts) on the tablet", new[0])]
        trial = copy.deepcopy(game)
        for s in sorted(new, key=lambda s: s.layer):
            player = trial.current_player
            if player is None:
                out.append(Proposal(None, f"{s.tile} appeared on the table, but no one is to play "
                                          "now (the round is over): enter the end of the round",
                                    s))
                continue
            tile = s.tile if s.tile.colour else s.tile.with_colour(trial.colour[player])
            tops, guessed = _tops_under(change.under.get(s, []), trial)
            if not tops:
                # nothing known under it (the camera lost sight of that stack's top): when the
                # covering rules let the tile go on one top only, that is the guess to ask about
                fits = [t for t in trial.tops() if trial.accepts(Move.play(player, tile, t))]
                if len(fits) == 1:
                    tops, guessed = fits, True
            if not tops:
                out.append(Proposal(None, f"{tile} was laid, but not on a stack top the camera "
                                          "knows: if it was played, enter the play on the tablet",
                                    s))
                continue
            moves = [Move.play(player, tile, top) for top in tops]
            accepted = next((m for m in moves if trial.accepts(m)), None)
            chosen = accepted or moves[0]  # none accepted: the rules' alert says why
            if accepted is not None:
                trial.apply(accepted)
            out.append(_play_proposal(chosen, dataclasses.replace(s, tile=tile),
                                      0.5 if len(new) > 1 or guessed else None))
        played = any(p.entry is not None for p in out)
        for s in change.added:
            # read with the value of the top it lies on, in a set that holds it already: a
            # tile laid on it that the camera could not read (a set holds each tile once),
            # asked about; not when a play was seen in the same change (as for Stackernoes)
            same = [u for u in change.under.get(s, []) if u.tile.plain() == s.tile.plain()]
            if same and not played and s.seen_half is None and s.tile in on_table:
                ask = _unread_play(same[0], trial)
                if ask is not None:
                    out.append(ask)
                    played = True
        out += _out_of_sight(change, set(game.tops()), lambda s: _unread_play(s, trial),
                             "Build Up stacks stay until the game ends", played=played)
        return out + _read_again(change, on_table, _same_set)


def _other_set_copies(change: TableChange, game: Game, on_table: set[Tile]) -> TableChange:
    """``change`` with each added tile whose value and set the table already holds in another
    tile still there (the one it covers, or one seen elsewhere) given the set that does not
    hold that value yet nearest its face colour (none measured: no set, so the play goes to
    the set of the player whose turn it is). A set holds each tile once, so such a tile is
    another set's copy: its colour read unclear and :meth:`BuildUpInterpreter.observe` gave it
    the one set the table held its value in (blue 0-5 laid on red 0-5, an always legal cover,
    read red 0-5 and dropped as a tile already on the table). When every set holds that value
    already, or the tile's colour is clearly that of a set holding it, the value was misread:
    the tile is left as it is (:meth:`BuildUpInterpreter.proposals` asks about it).
    ``on_table``: the game's table tiles."""
    colours = list(dict.fromkeys(getattr(game, "colour", {}).values()))
    swap: dict[int, Seen] = {}
    refs: dict[str, np.ndarray] | None = None
    for s in change.added:
        if s.tile not in on_table or not any(t.tile == s.tile and t is not s
                                             for t in change.table):
            continue
        free = [c for c in colours if s.tile.plain().with_colour(c) not in on_table]
        if not free:
            continue
        tile, conf = s.tile.plain(), s.confidence
        if s.face_lab is not None:
            if refs is None:
                refs = set_references(change.table, game)
            colour, _, clear = classify(s.face_lab, refs)
            if clear and colour not in free:
                continue  # its colour is clear: the value was misread
            colour, sure, _ = classify(s.face_lab, {c: refs[c] for c in free})
            tile, conf = tile.with_colour(colour), min(conf, sure)
        alts = tuple((str(Tile.parse(t).plain().with_colour(tile.colour) if tile.colour
                          else Tile.parse(t).plain()), p) for t, p in s.alternatives)
        swap[id(s)] = dataclasses.replace(s, tile=tile, confidence=conf, alternatives=alts)
    if not swap:
        return change

    def new(s: Seen) -> Seen:
        return swap.get(id(s), s)

    return dataclasses.replace(
        change, added=[new(s) for s in change.added], table=[new(s) for s in change.table],
        covered=[(old, new(s)) for old, s in change.covered],
        under={new(s): below for s, below in change.under.items()})


def _out_of_sight(change: TableChange, known: set[Tile],
                  ask: Callable[[Seen], Proposal | None], rule: str,
                  played: bool) -> list[Proposal]:
    """What to say about the ``known`` tiles no longer seen: a notice for each removed one
    (``rule`` says why it should not be); for each covered by a tile the camera could not read
    (:attr:`~companion.tracking.TableChange.unread`) the question ``ask`` makes about the play
    that covered it, when no play was seen in this change (``played``) or asked already, else
    the notice."""
    out = [_gone_notice(s, rule) for s in change.removed if s.tile in known]
    for s in change.unread:
        if s.tile not in known:
            continue
        guess = None if played else ask(s)
        if guess is not None:
            out.append(guess)
            played = True
        else:
            out.append(_gone_notice(s, rule))
    return out


def _same_set(old: Seen, new: Seen) -> dict[str, Any]:
    """Build Up: the play's tile read now (:func:`companion.interpret_base._read_again`), in
    the first reading's set when the new reading has no set colour."""
    tile = new.tile if new.tile.colour or not old.tile.colour else \
        new.tile.with_colour(old.tile.colour)
    return {"play": str(tile)}


def _gone_notice(s: Seen, rule: str) -> Proposal:
    """The notice about a known tile no longer seen that the camera cannot say more about."""
    return Proposal(None, f"{s.tile} is not seen any more: if a tile was laid on it that the "
                          "camera could not read, enter that play on the tablet; if it was taken "
                          f"off the table, put it back ({rule})", s)


#: The most tiles a question about a tile laid but not read offers (the dashboard's picker).
UNREAD_CHOICES = 12


def _unread_play(top: Seen, game: Game) -> Proposal | None:
    """A question about a tile laid on the stack top ``top`` that the camera could not read
    (in :attr:`~companion.tracking.TableChange.unread`: the picture at ``top`` changed as a
    tile laid does, and nothing was found there; a glare spot, say): the play of the player
    whose turn it is on ``top``, its tile one of those the covering rules let go there (their
    set's tiles not on the table, or their hand when known; in the set's order), the others
    offered as alternatives. The confidence is one over the number of such tiles (at most
    0.5): a person is always asked. None when no one is to play or no tile fits."""
    player = game.current_player
    plays = getattr(game, "plays", None)
    if player is None or plays is None:
        return None
    fits = [m for m in plays(player) if m.on == top.tile]
    if not fits:
        return None
    p = round(min(0.5, 1.0 / len(fits)), 4)
    entry = fits[0].to_json()
    alts = [{"tile": str(m.tile), "p": p} for m in fits[1:UNREAD_CHOICES]]
    entry.update({"source": "camera", "confidence": p, "reading": {"unread_on": str(top.tile)},
                  "alternatives": alts})
    return Proposal(entry, f"a tile was laid on {top.tile} that the camera could not read: "
                           f"{fits[0]}? {_taken_off_hint(top)}", top, alts)


def _tops_under(below: list[Seen], game: Game) -> tuple[list[Tile], bool]:
    """The stack tops the rules know among the tiles an added tile lies on, most overlapped
    first; a tile read without its set (or in the wrong one) stands for every top of its value.
    When none of them is a top (the camera misread the tile under), every top that shares a
    half with what was read there, likeliest first; the flag says so (a person should check)."""
    tops = game.tops() if hasattr(game, "tops") else []
    out: list[Tile] = []
    for b in below:
        exact = [t for t in tops if t == b.tile]
        same_value = [t for t in tops if t.plain() == b.tile.plain() and t not in exact]
        for t in exact + same_value:
            if t not in out:
                out.append(t)
    if out or not below:
        return out, False

    def likeness(t: Tile) -> tuple[int, int]:
        best = (0, 0)
        for b in below:
            rest = list(b.tile.halves)
            common = 0
            for v in t.halves:
                if v in rest:
                    rest.remove(v)
                    common += 1
            best = max(best, (common, int(t.colour == b.tile.colour)))
        return best

    ranked = sorted((t for t in tops if likeness(t)[0] > 0), key=likeness, reverse=True)
    return ranked, True


#: A legal placement is taken for the tile seen when its two cells lie within this many cells
#: (summed over both halves) of where the picture puts the tile's halves.
SNAP_CELLS = 1.2
#: Cost of one level between a legal placement and the level the table was watched being built to
#: (in cells of distance).
LEVEL_WEIGHT = 0.25


def _similarity(src: np.ndarray, dst: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least-squares similarity ``dst ~ M @ src + t`` (rotation, one scale, shift):
    exact for two points, and defined for points on one line (a straight run)."""
    rows, rhs, ws = [], [], []
    for (x, y), (u, v), wt in zip(src, dst, w):
        rows += [[x, -y, 1, 0], [y, x, 0, 1]]
        rhs += [u, v]
        ws += [wt, wt]
    A, bvec, W = np.asarray(rows), np.asarray(rhs), np.sqrt(np.asarray(ws))
    (a, b, tx, ty), *_ = np.linalg.lstsq(A * W[:, None], bvec * W, rcond=None)
    return np.array([[a, -b], [b, a]]), np.array([tx, ty])


def _cells_of_tile(game: Game, index: int) -> list[tuple[tuple[int, int], int]]:
    """The cells a placed tile covers, with the number on each."""
    return [(c, n) for c, stack in game.cells.items() for i, n in stack if i == index]


def grid_estimate(seen: Seen, game: Game, table: list[Seen]) -> tuple[np.ndarray, np.ndarray] | None:
    """Where the picture puts ``seen``'s low and high half on the game's grid (fractional
    cells): a similarity from cells to picture fitted on the known tiles seen in ``table``
    (each half centre against its cell; nearer tiles weigh more); None with no known tile."""
    src: list[Any] = []
    dst: list[Any] = []
    doubles: list[tuple[list[Any], np.ndarray]] = []
    placed = list(getattr(game, "placed", []))
    for t in table:
        if t.tile == seen.tile or t.tile not in placed:
            continue
        cells = _cells_of_tile(game, placed.index(t.tile))
        if len(cells) != 2:
            continue
        hc = t.half_centres()
        (ca, na), (cb, nb) = cells
        if na == nb:  # a double: its halves do not say which cell is which
            doubles.append(([ca, cb], hc))
            continue
        first = ca if t.halves[0] == na else cb
        second = cb if first == ca else ca
        src += [first, second]
        dst += [hc[0], hc[1]]
    for cells, hc in doubles:
        if src:  # the tiles around fix the grid: a double adds its middle
            src.append(tuple(np.mean(np.asarray(cells, np.float64), axis=0)))
            dst.append(hc.mean(axis=0))
        else:  # doubles alone (a double led): the grid runs left to right in the picture
            by_cell = sorted(cells)
            by_px = sorted(hc.tolist())
            src += by_cell
            dst += [np.asarray(p) for p in by_px]
    if len(src) < 2:
        return None
    src_a, dst_a = np.asarray(src, np.float64), np.asarray(dst, np.float64)
    d = np.linalg.norm(dst_a - seen.center, axis=1)
    scale = 3.0 * 2 * max(1e-6, seen.width)  # about three tile lengths
    M, t = _similarity(src_a, dst_a, np.exp(-(d / scale) ** 2) + 1e-3)
    if abs(np.linalg.det(M)) < 1e-9:
        return None
    inv = np.linalg.inv(M)
    hc = seen.half_centres()
    low, high = (hc[0], hc[1]) if seen.halves[0] == seen.tile.low else (hc[1], hc[0])
    return inv @ (low - t), inv @ (high - t)


def _cells_read_again(old: Seen, new: Seen, game: Game, table: list[Seen]) -> dict[str, Any]:
    """Stackernoes: the play of ``new``, read where the placed tile ``old`` lies
    (:func:`companion.interpret_base._read_again`), on ``old``'s two cells (its level stays):
    each half of ``new`` on the cell of the half of ``old`` nearest to it in the picture (the
    cell showing that half's number); when ``old`` is a double (its cells show one number) the
    halves go where :func:`grid_estimate` puts them, fitted on the other tiles in ``table``;
    with neither, only the tile (the cells stay as logged)."""
    only_tile = {"play": str(new.tile)}
    placed = list(getattr(game, "placed", []))
    if old.tile not in placed:
        return only_tile
    cells = _cells_of_tile(game, placed.index(old.tile))
    if len(cells) != 2 or {n for _, n in cells} != set(old.halves):
        return only_tile
    (ca, na), (cb, nb) = cells
    if na == nb:  # a double: where the picture puts the halves on the grid
        est = grid_estimate(new, game, [t for t in table if t.tile != old.tile])
        if est is None:
            return only_tile
        low, high = est
        ga, gb = np.asarray(ca, np.float64), np.asarray(cb, np.float64)
        keep = np.linalg.norm(low - ga) + np.linalg.norm(high - gb) <= \
            np.linalg.norm(low - gb) + np.linalg.norm(high - ga)
        at = [ca, cb] if keep else [cb, ca]  # the low half's cell first
    else:  # each picture half of new on the cell of the nearest half of old
        cell_of = {na: ca, nb: cb}
        near = [int(np.argmin(np.linalg.norm(old.half_centres() - p, axis=1)))
                for p in new.half_centres()]
        if near[0] == near[1]:
            return only_tile
        at = [cell_of[old.halves[i]] for i in near]
        if new.halves[0] != new.tile.low:
            at = at[::-1]
    return {"play": str(new.tile), "at": [[int(v) for v in c] for c in at]}


def _unread_stacked(under: Seen, game: Game, read_as_under: bool = False) -> Proposal | None:
    """A question about a tile laid on the placed tile ``under`` that the camera could not read
    (in :attr:`~companion.tracking.TableChange.unread`): a stacked play (or bridge) of the
    player whose turn it is with a half over a cell where ``under`` is still on top, among the
    placements the rules allow now (the player's hand when known, else every tile not on the
    table); those covering both of ``under``'s cells first, then in the rules' order. The
    others are offered as alternatives (tile, cells and level); the confidence is one over the
    number of such plays (at most 0.5): a person is always asked. None when no one is to play,
    ``under`` is not a placed tile, or nothing may go on it. ``read_as_under``: the tile was
    read with ``under``'s value (laid exactly on it, its halves over the same numbers): among
    those covering both cells, the numbers nearest those read on each cell come first (a 0-8 on
    a 0-9 read 0-9: 0-8 before 2-9)."""
    player = game.current_player
    placed = list(getattr(game, "placed", []))
    if player is None or under.tile not in placed or not hasattr(game, "placements"):
        return None
    index = placed.index(under.tile)
    cells: dict[tuple[int, int], list[tuple[int, int]]] = getattr(game, "cells", {})
    tops = {c for c, stack in cells.items() if stack and stack[-1][0] == index}
    if not tops:
        return None

    def on_it(m: Move) -> int:
        return sum(tuple(c) in tops for c in m.extra["at"])

    def off_read(m: Move) -> int:
        # pips between the play's numbers and those read on its cells (``under``'s)
        if not read_as_under:
            return 0
        return sum(abs(v - cells[tuple(c)][-1][1])
                   for c, v in zip(m.extra["at"], (m.tile.low, m.tile.high)) if tuple(c) in tops)

    fits = sorted((m for m in game.placements(player)
                   if int(m.extra.get("level", 0)) >= 1 and on_it(m)),
                  key=lambda m: (-on_it(m), off_read(m)))
    if not fits:
        return None
    p = round(min(0.5, 1.0 / len(fits)), 4)
    entry = fits[0].to_json()
    alts = [{"tile": str(m.tile), "p": p, "at": m.extra["at"], "level": m.extra["level"]}
            for m in fits[1:UNREAD_CHOICES]]
    entry.update({"source": "camera", "confidence": p,
                  "reading": {"unread_on": str(under.tile)}, "alternatives": alts})
    return Proposal(entry, f"a tile was laid on {under.tile} that the camera could not read: "
                           f"{fits[0]}? {_taken_off_hint(under)}", under, alts)


def _taken_off_hint(s: Seen) -> str:
    """The rest of a question about an unread play: the camera cannot tell a tile covered by a
    tile it could not read from one knocked off the table (both change the picture there)."""
    return f"(If nothing was laid and {s.tile} was knocked off, dismiss this and put it back.)"


class StackernoesInterpreter:
    """Stackernoes: tiles to grid cells and levels (see the module docstring)."""

    #: tiles stay where they are laid (for :func:`companion.tracking.diff`'s ``fixed``)
    tiles_stay = True

    def proposals(self, change: TableChange, game: Game) -> list[Proposal]:
        """The placements of the tiles added, questions or notices about placed tiles no
        longer seen, requests to amend logged plays read again (see the module docstring)."""
        out: list[Proposal] = []
        on_table = set(game.table_tiles())
        new = _new_tiles(change, on_table)
        trial = copy.deepcopy(game)
        # the marks of the grid: tiles the game has placed, seen whole (a tile running out of
        # the picture has a guessed value)
        table = [t for t in change.table if not t.hidden and t.tile in on_table
                 and t.seen_half is None]

        def place(s: Seen) -> tuple[Move | None, bool]:
            # the tiles it lies on (hidden now, remembered where they were seen) are the
            # nearest marks of its cells: a tall stack's top is seen off its cells by parallax
            marks = {t.tile for t in table}
            below = [u for u in change.under.get(s, []) if u.tile in on_table - marks]
            return self._placement(s, trial, table + below)

        pending = sorted(new, key=lambda s: s.layer)
        while pending:
            s = pending.pop(0)
            player = trial.current_player
            if player is None:
                out.append(Proposal(None, f"{s.tile} appeared on the table, but no one is to play "
                                          "now (the game is over): enter the end of the game", s))
                continue
            chosen, sure = place(s)
            if (chosen is None or not trial.accepts(chosen)) and pending:
                # several tiles seen at once: the first of the others the rules take here goes
                # first, this one next (read before the tile it lies against, it waits for it)
                for k, other in enumerate(pending):
                    move, other_sure = place(other)
                    if move is not None and trial.accepts(move):
                        pending[k:k + 1] = []
                        pending.insert(0, s)
                        s, chosen, sure = other, move, other_sure
                        break
            read = None
            taken = set(trial.table_tiles())  # the game's table tiles and those placed above
            if (chosen is None or not trial.accepts(chosen)) and s.seen_half is not None:
                # a tile running out of the picture whose guessed value makes no legal play:
                # the first of its other values that does, still asked (an unsure reading of a
                # whole tile is asked as read: its other values are only the reader's doubts,
                # and on Stackernoes seed 9 a 3-3 read 0-2 became a 0-3 laid later)
                found = _first_legal_value(s, taken, trial, lambda alt: place(alt)[0])
                if found is not None:
                    read, sure = s, False
                    s, chosen = found
            if chosen is None:
                out.append(Proposal(None, f"{s.tile} was laid, but the camera cannot tell on "
                                          "which cells: enter the play on the tablet", s))
                continue
            others: list[Move | dict[str, Any]] = []
            who_sure = True
            note = None
            if not getattr(trial, "placed", []) and trial.accepts(chosen):
                # the first tile: who leads is open without the deal
                chosen, who_sure, moves = _choose_player(trial, chosen, change)
                others = list(moves)
            elif len(new) == 1 and trial.accepts(chosen):
                # right after the turn's draw: the drawn tile, or a pass nobody entered?
                others = list(drew_doubt(trial, chosen, change))
                note = DREW_NOTE.format(turn=chosen.player) if others else None
            prop = _play_proposal(chosen, s, None if sure and who_sure and len(new) == 1
                                  and note is None else 0.5, read=read, others=others,
                                  player_only=sure and not who_sure and len(new) == 1,
                                  note=note)
            # the other values not on the table, each on the cells the picture gives it (its
            # halves' numbers on their own cells), not the guess's cells with another tile's
            prop.alternatives[:] = [a for a in prop.alternatives if "tile" not in a
                                    or Tile.parse(a["tile"]) not in taken]
            for alt in prop.alternatives:
                if "tile" in alt and "at" not in alt:
                    move, _ = place(_with_value(s, Tile.parse(alt["tile"])))
                    if move is not None:
                        alt.update(at=move.extra["at"], level=move.extra["level"])
            if trial.accepts(chosen):
                trial.apply(chosen)
            out.append(prop)
            table.append(s)
        played = any(p.entry is not None for p in out)
        for s in change.added:
            # read with the value of the placed tile it lies on: another tile (a set holds each
            # once) laid exactly on it, whose halves look like the tile below (a 0-8 on a 0-9,
            # seed 4): asked as a tile laid on it that the camera could not read; not when a
            # play was seen in the same change (one laid beside it changes part of its picture
            # too: the Stackernoes demo's 8-9, read again, was asked about for nothing)
            same = [u for u in change.under.get(s, []) if u.tile == s.tile]
            if same and not played and s.seen_half is None and s.tile in on_table:
                ask = _unread_stacked(same[0], trial, read_as_under=True)
                if ask is not None:
                    out.append(ask)
        out += _out_of_sight(change, on_table, lambda s: _unread_stacked(s, trial),
                             "Stackernoes tiles stay where they are laid",
                             played=any(p.entry is not None for p in out))
        return out + _read_again(change, on_table,
                                 lambda old, new: _cells_read_again(old, new, game, table))

    @staticmethod
    def same_grid(plan: list[dict[str, Any]], guessed: list[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
        """The placements of ``plan`` (the plays of one change planned in another order,
        :func:`companion.interpret_base.propose`) on the grid of ``guessed`` (the same tiles in
        the order guessed): the grid is fixed by the first tile laid, so a plan that lays
        another first names other cells for the same places. The quarter turn or mirror and
        shift of the grid that puts every tile of both on the same cells (each half on the
        cell of its number), applied to ``plan``'s cells; ``plan`` as it is where none does."""
        where = {e["play"]: e for e in guessed if "at" in e}
        pairs = [(e, where[e["play"]]) for e in plan if "at" in e and e["play"] in where]
        if not pairs:
            return plan
        first, goal = pairs[0]
        for turn in _GRID_TURNS:
            for cell in goal["at"]:  # a double may lie either way round
                shift = np.asarray(cell) - np.asarray(first["at"][0]) @ turn.T
                if all(_same_cells(_moved(e["at"], turn, shift), g["at"], e["play"])
                       for e, g in pairs):
                    return [dict(e, at=_moved(e["at"], turn, shift)) if "at" in e else e
                            for e in plan]
        return plan

    @staticmethod
    def _placement(s: Seen, game: Game, table: list[Seen]) -> tuple[Move | None, bool]:
        """The play of ``s``: the legal placement nearest to where the picture puts it (with
        the level the table was watched being built to), else the cells the picture says
        (the rules then say why not); and whether it is sure."""
        player = game.current_player
        legal = [m for m in game.placements(player, [s.tile])] if player else []
        if not getattr(game, "placed", []):
            first = Move.play(player, s.tile, at=[[0, 0], [1, 0]], level=0)
            return first, True
        est = grid_estimate(s, game, table)
        if est is None:
            return (legal[0], False) if len(legal) == 1 else (None, False)
        low, high = est

        mid, way = (low + high) / 2, (high - low) / max(1e-6, float(np.linalg.norm(high - low)))

        def where(m: Move) -> float:
            # the middle and the direction (a stacked tile looks larger, so its halves' cells
            # spread: the middle stays put)
            a, b = (np.asarray(c, np.float64) for c in m.extra["at"])
            d = float(np.linalg.norm((a + b) / 2 - mid))
            turn = float(np.linalg.norm((b - a) - way))
            if s.tile.is_double:
                turn = min(turn, float(np.linalg.norm((a - b) - way)))
            return d + 0.5 * turn

        def cost(m: Move) -> float:
            # the watched level breaks ties (a tile hidden for a while by a tall neighbour may
            # have been missed, so the level seen is a hint, the cells decide)
            return where(m) + LEVEL_WEIGHT * abs(int(m.extra.get("level", 0)) - s.layer)

        ranked = sorted((m for m in legal if where(m) <= SNAP_CELLS), key=cost)
        if ranked:
            clear = len(ranked) == 1 or cost(ranked[1]) > cost(ranked[0]) + 0.5
            return ranked[0], clear
        # no legal placement there: what the picture says, for the rules to say why not (two
        # neighbouring cells around the middle, along the nearer grid axis)
        axis = np.array([1.0, 0.0]) if abs(way[0]) >= abs(way[1]) else np.array([0.0, 1.0])
        axis = axis * np.sign(float(np.dot(axis, way)) or 1.0)
        a_cell = np.round(mid - axis / 2)
        at = [[int(v) for v in a_cell], [int(v) for v in a_cell + axis]]
        return Move.play(player, s.tile, at=at, level=int(s.layer)), True


#: The eight ways a square grid can be turned or mirrored onto itself, as matrices.
_GRID_TURNS = [np.array(m) for m in (((1, 0), (0, 1)), ((0, -1), (1, 0)), ((-1, 0), (0, -1)),
                                     ((0, 1), (-1, 0)), ((-1, 0), (0, 1)), ((1, 0), (0, -1)),
                                     ((0, 1), (1, 0)), ((0, -1), (-1, 0)))]


def _moved(at: list[list[int]], turn: np.ndarray, shift: np.ndarray) -> list[list[int]]:
    """The cells ``at`` turned (one of :data:`_GRID_TURNS`) and shifted."""
    return [[int(v) for v in np.asarray(c) @ turn.T + shift] for c in at]


def _same_cells(at: list[list[int]], goal: list[list[int]], tile: str) -> bool:
    """Whether a play on cells ``at`` lies where ``goal`` does, each half on the cell of its
    number (a double either way round)."""
    if at == goal:
        return True
    return Tile.parse(tile).is_double and at == goal[::-1]


__all__ = ["BuildUpInterpreter", "NOMINAL_BGR", "SNAP_CELLS", "StackernoesInterpreter",
           "classify", "face_colour", "grid_estimate", "set_references"]
