"""Recordings: a whole match as a fixed webcam and a tablet would record it.

:func:`make_recording` plays a seeded match with the rules core's simulator and turns it into
:class:`Step` values, in order. Line games (``allfives``, ``chickenfoot``, ``super``):

* ``camera`` steps: the table after a play (every tile placed so far this round, laid out by
  :func:`vision.render.gamelayout.line_layout`), shown first with the player's hand on the tile
  just laid and then at rest; the table cleared between rounds;
* ``tablet`` steps: what people enter by hand because the camera cannot see it (draws, as a
  count, passes, the tiles left in each hand at the end of a round);

plus two things a real game night brings, so the demo shows how the companion copes:

* an illegal placement: a player lays a tile that fits nowhere against an open end, sees the
  alert and takes it back before playing the right tile;
* a tile the camera is unsure of: a glare spot from the lamp over the tile just laid.

Trick games (``fortytwo``, ``moon``; ``max_rounds`` hands): bids, trump and Moon's discard are
tablet steps (the deal is not: hands are private); each play is a camera step with the tile
face up in the middle of the table, towards the seat that played it; once a trick is complete a
camera step shows it gathered face down in front of its winner (no log entry). The illegal
placement: in hand ``illegal_round`` the winning bidder lays the lead before naming trump (the
rules refuse a play while trump is not named) and takes it back. The glare lies on play
``glare_play`` of hand ``glare_round``.

Build Up (``buildup``): each player's layout is a row of six stacks in front of them (the rows
one behind the other), each player's set in its own colour. The deals are tablet steps (round
1 names the layouts and the tiles drawn to decide who starts; the hands stay private), then a
camera step shows the layouts laid out (no log entry: the deal named them); each play is a
camera step with the tile on the stack it covers, one layer up and slightly askew; passes and
the ends of rounds are tablet steps. The illegal placement: before play ``illegal_play`` the
player lays a tile from their hand on a stack top it may not cover (the alert says why) and
takes it back. The glare lies on play ``glare_play``.

Stackernoes (``stackernoes``): the plays name their half-tile cells and level, so each tile
lies exactly there (a cell is half a tile; the first tile's low half on cell (0, 0)), one layer
up per level. The deal stays private; draws (one tile, unnamed), passes and the end of the game
are tablet steps. The illegal placement: before play ``illegal_play`` the player lays a tile from
their hand at an open end of the run that it does not match, and takes it back. The glare lies
on play ``glare_play``.

Castle Rock (``castlerock``): the row lies left to right as the camera sees it; each draw is a
camera step with the tile at the right end (three tiles at once when a new array starts on an
empty row), each removal a camera step with the removed tiles gone and the row closed up. The
illegal placement: before removal ``illegal_play`` the player takes out a tile that may not go
(the alert says why) and puts it back. The glare lies on draw ``glare_play``.

A recording is stored as a small JSON file (:func:`save_recording`): the recipe (game, players,
seeds), every step, and the ground truth (the log the companion should end with and its final
scores). The frames are rendered from it deterministically by :func:`step_frames`, so the file
stays small and exact; :func:`load_recording` checks the stored steps against the recipe.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from companion.tiles import Tile
from vision.render.camera import Camera
from vision.render.errors import RenderSpecError
from vision.render.gamelayout import SET_OF_GAME, line_layout
from vision.render.layouts import Placement
from vision.render.sampling import SKIN_BGR, fit_camera, random_scene_spec
from vision.render.scene import HandSpec, SceneSpec, render_scene
from vision.render.styles import tile_style_for_colour
from vision.render.tiles import geometry_for_set

FORMAT = 1
#: Games a recording can be made of.
RECORDING_GAMES = ("allfives", "chickenfoot", "super", "castlerock", "fortytwo", "moon",
                   "buildup", "stackernoes")
LINE_GAMES = ("allfives", "chickenfoot", "super")
TRICK_GAMES = ("fortytwo", "moon")
#: Frames per camera step: the hand on the tile, then the table at rest.
HAND_FRAMES = 3
STILL_FRAMES = 6
EXTENT_MM = (640.0, 420.0)
#: Camera rotation for Castle Rock: the row runs left to right in the picture.
ROW_ROTATION_DEG = 4.0


@dataclass(frozen=True)
class Step:
    """One thing that happens at the table. ``kind`` is ``camera`` (``tiles``: the whole table,
    ``by``: the seat whose hand reaches in, ``glare``: a tile under a glare spot) or ``tablet``
    (``entry``: a log entry typed on the tablet). ``truth`` is the log entry this step should
    produce (None for a table cleared or an illegal tile laid), ``note`` says what it shows."""

    kind: str
    tiles: tuple[Placement, ...] = ()
    by: int | None = None
    glare: Tile | None = None
    entry: dict[str, Any] | None = None
    truth: dict[str, Any] | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "note": self.note}
        if self.kind == "camera":
            out["tiles"] = [[str(p.tile), list(p.halves), [round(v, 3) for v in p.center_mm],
                             round(p.angle_deg, 3)] for p in self.tiles]
            out["by"] = self.by
            if self.glare is not None:
                out["glare"] = str(self.glare)
        else:
            out["entry"] = self.entry
        out["truth"] = self.truth
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "Step":
        if obj.get("kind") == "camera":
            tiles = tuple(Placement(Tile.parse(t), (int(h[0]), int(h[1])), (float(c[0]), float(c[1])),
                                    float(a)) for t, h, c, a in obj["tiles"])
            glare = Tile.parse(obj["glare"]) if obj.get("glare") else None
            return cls("camera", tiles, obj.get("by"), glare, None, obj.get("truth"), obj.get("note", ""))
        if obj.get("kind") == "tablet":
            return cls("tablet", entry=obj["entry"], truth=obj.get("truth"), note=obj.get("note", ""))
        raise RenderSpecError(f"a recording step is 'camera' or 'tablet', got {obj.get('kind')!r}")


@dataclass
class Recording:
    game: str
    players: list[str]
    options: dict[str, Any]
    seed: int
    look_seed: int
    steps: list[Step]
    truth: dict[str, Any]
    base: SceneSpec = field(repr=False)
    recipe: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "game": self.game, "players": self.players,
                "options": self.options, "seed": self.seed, "look_seed": self.look_seed,
                "recipe": self.recipe,
                "frames_per_step": {"hand": HAND_FRAMES, "still": STILL_FRAMES},
                "steps": [s.to_json() for s in self.steps], "truth": self.truth}


def _rounds(moves: list) -> list[list[tuple[int, Any]]]:
    rounds: list[list[tuple[int, Any]]] = []
    for k, m in enumerate(moves):
        if m.kind == "deal" or not rounds:
            rounds.append([])
        rounds[-1].append((k, m))
    return rounds


def _wrong_tile(game: Any, player: str) -> Tile | None:
    """A tile of ``player``'s hand that the rules let go nowhere now (the illegal placement)."""
    for t in sorted(game.hands[player], key=lambda t: -t.pips):
        if not game.placements(t, player):
            return t
    return None


def _line_steps(game: str, names: list[str], sim: Any, geom: Any, seed: int, illegal_round: int,
                illegal_play: int, glare_round: int, glare_play: int, max_rounds: int | None
                ) -> tuple[list[Step], list[np.ndarray], list[dict[str, Any]], Any]:
    """The steps of a line game (see the module docstring)."""
    from companion.games import find_game
    from companion.moves import Move

    replay = find_game(game)(names, sim.header.options)
    # the companion is started before the game: the camera first sees the empty table
    steps: list[Step] = [Step("camera", (), None, note="the empty table before the game")]
    all_pts: list[np.ndarray] = []
    recorded: list[Any] = []
    for r, rnd in enumerate(_rounds(sim.moves), start=1):
        if max_rounds is not None and r > max_rounds:
            break
        plays = [(m.tile, m.on, k + 1) for k, m in rnd if m.kind == "play"]
        placed, _, _ = line_layout(game, plays, geom, EXTENT_MM)
        if len(placed) != len(plays) + (1 if plays and plays[0][1] is not None else 0):
            raise RenderSpecError(f"round {r} of seed {seed}: only {len(placed)} of {len(plays)} "
                                  "plays fit the table; use another seed")
        for p in placed:
            all_pts.append(p.footprint(geom))
        n_fixed = len(placed) - len(plays)  # a centre double set by the rules (Chickenfoot)
        n_play = 0
        for k, m in rnd:
            if m.kind == "play":
                n_play += 1
                seat = names.index(m.player)
                shown = tuple(placed[:n_fixed + n_play])
                if r == illegal_round and n_play == illegal_play:
                    wrong = _wrong_tile(replay, m.player)
                    if wrong is not None:
                        good = shown[-1]
                        bad = Placement(wrong, wrong.halves, good.center_mm, good.angle_deg)
                        steps.append(Step("camera", shown[:-1] + (bad,), seat, note=(
                            f"{m.player} lays {wrong}, which fits no open end")))
                        steps.append(Step("camera", shown[:-1], seat, note=(
                            f"{m.player} takes {wrong} back")))
                glare = m.tile if (r == glare_round and n_play == glare_play) else None
                truth = Move.play(m.player, m.tile, m.on, **dict(m.extra)).to_json()
                steps.append(Step("camera", shown, seat, glare, truth=truth,
                                  note=f"{m}" + (" (under a glare spot)" if glare else "")))
            elif m.kind == "pass":
                steps.append(Step("tablet", entry=m.to_json(), truth=m.to_json(),
                                  note=f"{m.player} cannot play and passes (tapped on the tablet)"))
            elif m.kind == "draw":
                # the camera does not see which tiles: how many is tapped on the tablet
                n = len(m.drawn) or int(m.count or 1)
                entry = {"player": m.player, "draw": n}
                steps.append(Step("tablet", entry=entry, truth=entry,
                                  note=f"{m.player} draws {n} (tapped on the tablet)"))
                recorded.append(Move.from_json(entry))
                replay.apply(m)
                continue
            elif m.kind == "end_round":
                steps.append(Step("tablet", entry=m.to_json(), truth=m.to_json(),
                                  note="end of the round: the tiles left in each hand, counted"))
            replay.apply(m)
            recorded.append(m)
        if not replay.finished and (max_rounds is None or r < max_rounds):
            steps.append(Step("camera", (), None, note="the table is cleared for the next round"))
    truth_log = [m.to_json() for m in recorded if m.kind in ("play", "pass", "draw", "end_round")]
    return steps, all_pts, truth_log, replay


def _trick_steps(game: str, names: list[str], sim: Any, geom: Any, seed: int, illegal_round: int,
                 glare_round: int, glare_play: int, max_rounds: int | None
                 ) -> tuple[list[Step], list[np.ndarray], list[dict[str, Any]], Any]:
    """The steps of a trick game (see the module docstring): the hands are never logged."""
    from companion.games import find_game

    rng = np.random.default_rng(seed)
    L, W = geom.length_mm, geom.width_mm
    n = len(names)
    replay = find_game(game)(names, sim.header.options)
    steps: list[Step] = [Step("camera", (), None, note="the empty table before the game")]
    all_pts: list[np.ndarray] = []
    truth_log: list[dict[str, Any]] = []
    trick: list[Placement] = []  # face up in the middle
    taken: list[Placement] = []  # face down in front of the winners
    piles = {p: 0 for p in names}
    hand, n_play = 1, 0

    def seat_dirs(seat: int) -> tuple[np.ndarray, np.ndarray, float]:
        a = np.radians(90.0 + 360.0 * seat / n)
        return np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)]), float(
            np.degrees(a))

    def show(by: int | None, note: str, truth: dict[str, Any] | None = None,
             glare: Tile | None = None, extra: tuple[Placement, ...] = ()) -> None:
        tiles = tuple(taken) + tuple(trick) + extra
        for pl in tiles:
            all_pts.append(pl.footprint(geom))
        steps.append(Step("camera", tiles, by, glare, truth=truth, note=note))

    for m in sim.moves:
        if max_rounds is not None and hand > max_rounds:
            break
        if m.kind == "deal":
            replay.apply(m)  # the rules core knows the deal; the companion's log will not
            continue
        entry = m.to_json()
        if m.kind == "trump" and hand == illegal_round:
            lead = next(x for x in sim.moves[sim.moves.index(m):] if x.kind == "play")
            seat = names.index(m.player)
            d, _, deg = seat_dirs(seat)
            c = d * 1.6 * L
            bad = Placement(lead.tile, lead.tile.halves, (float(c[0]), float(c[1])), deg + 90.0)
            show(seat, f"{m.player} lays {lead.tile} before naming trump", extra=(bad,))
            show(seat, f"{m.player} takes {lead.tile} back to name trump first")
        if m.kind in ("bid", "trump", "discard"):
            steps.append(Step("tablet", entry=entry, truth=entry,
                              note=f"{m} (entered on the tablet)"))
        elif m.kind == "play":
            n_play += 1
            seat = names.index(m.player)
            d, _, deg = seat_dirs(seat)
            c = d * 1.6 * L + rng.normal(0, 2.0, 2)
            halves = m.tile.halves if rng.random() < 0.5 else (m.tile.high, m.tile.low)
            trick.append(Placement(m.tile, halves, (float(c[0]), float(c[1])),
                                   deg + 90.0 + float(rng.normal(0, 8.0))))
            glare = m.tile if (hand == glare_round and n_play == glare_play) else None
            show(seat, f"{m}" + (" (under a glare spot)" if glare else ""), truth=entry,
                 glare=glare)
        elif m.kind == "end_round":
            steps.append(Step("tablet", entry=entry, truth=entry,
                              note="end of the hand: what each side took, entered"))
        before = replay.tricks_played if m.kind == "play" else None
        replay.apply(m)
        truth_log.append(entry)
        if m.kind == "play" and replay.tricks_played != before:
            winner = replay.players[replay.turn]  # the winner leads the next trick
            seat = names.index(winner)
            d, t, deg = seat_dirs(seat)
            j = piles[winner]
            piles[winner] += 1
            at = d * 3.3 * L + t * (j - 3) * (W + 12.0)
            for layer, pl in enumerate(trick):
                jit = rng.normal(0, 1.5, 2) if layer else np.zeros(2)
                taken.append(Placement(pl.tile, pl.halves, (float(at[0] + jit[0]),
                                                             float(at[1] + jit[1])),
                                       deg + float(rng.normal(0, 4.0)), layer=layer,
                                       face_up=False))
            trick = []
            show(seat, f"{winner} gathers the trick face down")
        if m.kind == "end_round":
            hand += 1
            n_play = 0
            taken = []
            piles = {p: 0 for p in names}
            if not replay.finished and (max_rounds is None or hand <= max_rounds):
                steps.append(Step("camera", (), None, note="the table is cleared for the next "
                                                           "hand"))
    return steps, all_pts, truth_log, replay


def _row_steps(names: list[str], sim: Any, geom: Any, seed: int, illegal_play: int,
               glare_play: int) -> tuple[list[Step], list[np.ndarray], list[dict[str, Any]], Any]:
    """The steps of a Castle Rock game (see the module docstring)."""
    from companion.games import find_game
    from companion.games.castlerock import removals
    from companion.moves import Move

    rng = np.random.default_rng(seed)
    pitch = geom.width_mm + 20.0  # a finger's gap between tiles of the row
    replay = find_game("castlerock")(names, sim.header.options)
    player = names[0]
    halves = {t: (t.halves if rng.random() < 0.5 else (t.high, t.low))
              for m in sim.moves for t in m.drawn}
    jitter = {t: (rng.normal(0, 1.0, 2), float(rng.normal(0, 2.0))) for t in halves}

    def row_at(row: list[Tile], gap: Tile | None = None) -> tuple[Placement, ...]:
        out = []
        for j, t in enumerate(row):
            if t == gap:
                continue
            (jx, jy), ja = jitter[t]
            out.append(Placement(t, halves[t], (float(j * pitch + jx), float(jy)), 90.0 + ja))
        return tuple(out)

    steps: list[Step] = [Step("camera", (), None, note="the empty table before the game")]
    all_pts: list[np.ndarray] = []
    truth_log: list[dict[str, Any]] = []
    moves = list(sim.moves)
    k, n_draw, n_remove = 0, 0, 0
    while k < len(moves):
        m = moves[k]
        if m.kind == "draw":
            group = [m]
            if not replay.row:  # a new array: three tiles at once
                while len(group) < 3 and k + len(group) < len(moves) and \
                        moves[k + len(group)].kind == "draw":
                    group.append(moves[k + len(group)])
            tiles = [t for g in group for t in g.drawn]
            move = Move.draw(player, [str(t) for t in tiles] if len(tiles) > 1 else str(tiles[0]))
            n_draw += 1
            replay.apply(move)
            glare = tiles[-1] if n_draw == glare_play else None
            shown = row_at(replay.row)
            all_pts += [pl.footprint(geom) for pl in shown]
            steps.append(Step("camera", shown, 0, glare, truth=move.to_json(),
                              note=f"{move}" + (" (under a glare spot)" if glare else "")))
            truth_log.append(move.to_json())
            k += len(group)
            continue
        if m.kind == "remove":
            n_remove += 1
            if n_remove == illegal_play:
                allowed = {t for r in removals(replay.row) if len(r) == 1 for t in r}
                wrong = next((t for t in replay.row[1:-1] if t not in allowed), replay.row[0])
                steps.append(Step("camera", row_at(replay.row, gap=wrong), 0, note=(
                    f"{player} takes {wrong} out of the row, which may not go")))
                steps.append(Step("camera", row_at(replay.row), 0, note=(
                    f"{player} puts {wrong} back")))
            replay.apply(m)
            shown = row_at(replay.row)
            steps.append(Step("camera", shown, 0, truth=m.to_json(), note=f"{m}"))
            truth_log.append(m.to_json())
        elif m.kind == "end_round":
            replay.apply(m)
            steps.append(Step("tablet", entry=m.to_json(), truth=m.to_json(),
                              note="the pile is empty and nothing can go: the game is over"))
            truth_log.append(m.to_json())
        k += 1
    return steps, all_pts, truth_log, replay


def _buildup_steps(names: list[str], sim: Any, geom: Any, seed: int, illegal_play: int,
                   glare_play: int
                   ) -> tuple[list[Step], list[np.ndarray], list[dict[str, Any]], Any]:
    """The steps of a Build Up game (see the module docstring)."""
    from companion.games import find_game
    from companion.games.buildup import covers
    from companion.moves import Move

    rng = np.random.default_rng(seed)
    L, W = geom.length_mm, geom.width_mm
    replay = find_game("buildup")(names, sim.header.options)
    known = find_game("buildup")(names, sim.header.options)  # with the hands: the players know
    steps: list[Step] = [Step("camera", (), None, note="the empty table before the game")]
    all_pts: list[np.ndarray] = []
    truth_log: list[dict[str, Any]] = []
    stacks: list[list[Placement]] = []  # every stack, bottom first, layouts in seating order

    def laid(t: Tile, at: tuple[float, float], layer: int) -> Placement:
        halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
        j = rng.normal(0, 1.2, 2) if layer else np.zeros(2)
        ang = 90.0 + float(rng.normal(0, 3.0 if layer else 1.5))
        return Placement(t, halves, (float(at[0] + j[0]), float(at[1] + j[1])), ang, layer=layer)

    def table(last: Placement | None = None) -> tuple[Placement, ...]:
        tiles = tuple(pl for st in stacks for pl in st if pl is not last)
        out = tiles + ((last,) if last is not None else ())
        for pl in out:
            all_pts.append(pl.footprint(geom))
        return out

    n_play = 0
    for m in sim.moves:
        hands = {p: list(h) for p, h in (known.hands or {}).items()}
        known.apply(m)
        if m.kind == "deal":
            data = dict(m.data or {})
            entry: dict[str, Any] = {"deal": {}}
            if "layouts" in data:
                entry["layouts"] = data["layouts"]
                entry["first"] = data["first"]
            steps.append(Step("tablet", entry=entry, truth=entry, note=(
                f"round {replay.round} dealt" + (": the layouts and the tiles drawn to decide "
                                                "who starts, entered" if "layouts" in data
                                                else " (the hands stay private)"))))
            replay.apply(Move.from_json(entry))
            truth_log.append(entry)
            if "layouts" in data:
                for r, p in enumerate(names):
                    for col, t in enumerate(data["layouts"][p]):
                        at = (col * (W + 22.0), r * (L + 28.0))
                        stacks.append([laid(Tile.parse(t), at, 0)])
                steps.append(Step("camera", table(), None, note=(
                    "the layouts are laid out face up (named by the deal: no entry)")))
            continue
        if m.kind == "play":
            n_play += 1
            seat = names.index(m.player)
            stack = next(st for st in stacks if st[-1].tile == m.on)
            if n_play == illegal_play:
                wrong = next(((t, st) for t in sorted(hands[m.player], key=lambda t: -t.pips)
                              if t != m.tile for st in stacks
                              if not covers(t, st[-1].tile)), None)
                if wrong is None:
                    raise RenderSpecError(f"seed {seed}: no tile to lay illegally before play "
                                          f"{illegal_play}; use another seed")
                t, st = wrong
                bad = laid(t, st[0].center_mm, len(st))
                st.append(bad)
                steps.append(Step("camera", table(bad), seat, note=(
                    f"{m.player} lays {t} on {st[-2].tile}, which it may not cover")))
                st.pop()
                steps.append(Step("camera", table(), seat, note=f"{m.player} takes {t} back"))
            pl = laid(m.tile, stack[0].center_mm, len(stack))
            stack.append(pl)
            glare = m.tile if n_play == glare_play else None
            steps.append(Step("camera", table(pl), seat, glare, truth=m.to_json(),
                              note=f"{m}" + (" (under a glare spot)" if glare else "")))
        elif m.kind == "pass":
            steps.append(Step("tablet", entry=m.to_json(), truth=m.to_json(),
                              note=f"{m.player} cannot play and passes (tapped on the tablet)"))
        elif m.kind == "end_round":
            entry = {"end_round": {}}
            steps.append(Step("tablet", entry=entry, truth=entry,
                              note="end of the round: the stack tops of each colour score"))
            replay.apply(Move.from_json(entry))
            truth_log.append(entry)
            continue
        replay.apply(m)
        truth_log.append(m.to_json())
    return steps, all_pts, truth_log, replay


def _stackernoes_steps(names: list[str], sim: Any, geom: Any, seed: int, illegal_play: int,
                       glare_play: int
                       ) -> tuple[list[Step], list[np.ndarray], list[dict[str, Any]], Any]:
    """The steps of a Stackernoes game (see the module docstring)."""
    from companion.games import find_game
    from companion.games.grid import step as cell_step
    from companion.moves import Move

    rng = np.random.default_rng(seed)
    cell = geom.length_mm / 2 + 0.3
    replay = find_game("stackernoes")(names, sim.header.options)
    known = find_game("stackernoes")(names, sim.header.options)  # with the hands
    steps: list[Step] = [Step("camera", (), None, note="the empty table before the game")]
    all_pts: list[np.ndarray] = []
    truth_log: list[dict[str, Any]] = []
    placed: list[Placement] = []

    def put(t: Tile, at: list[list[int]], level: int) -> Placement:
        (ax, ay), (bx, by) = at
        c = ((ax + bx) / 2 * cell + float(rng.normal(0, 0.4)),
             (ay + by) / 2 * cell + float(rng.normal(0, 0.4)))
        ang = float(np.degrees(np.arctan2(by - ay, bx - ax))) + float(rng.normal(0, 1.0))
        return Placement(t, (t.low, t.high), c, ang % 360.0, layer=level)

    def show(tiles: tuple[Placement, ...], by: int | None, note: str,
             truth: dict[str, Any] | None = None, glare: Tile | None = None) -> None:
        for pl in tiles:
            all_pts.append(pl.footprint(geom))
        steps.append(Step("camera", tiles, by, glare, truth=truth, note=note))

    def log(entry: dict[str, Any], note: str) -> None:
        steps.append(Step("tablet", entry=entry, truth=entry, note=note))
        replay.apply(Move.from_json(entry))
        truth_log.append(entry)

    n_play = 0
    for m in sim.moves:
        if m.kind == "deal":
            known.apply(m)
            continue
        if replay.drawn is not None and replay.current_player != m.player:
            # the drawn tile fitted nowhere: the players' turn ended (tapped as a pass)
            log({"player": replay.current_player, "pass": True},
                f"{replay.current_player} keeps the drawn tile: the turn ends (tapped)")
        hand = list((known.hands or {}).get(m.player or "", []))
        known.apply(m)
        if m.kind == "play":
            n_play += 1
            seat = names.index(m.player)
            if n_play == illegal_play:
                end = next((e for e in replay.ends if not e[3] and e[4]), None)
                number = None if end is None else replay.cells[end[0]][0][1]
                wrong = next((t for t in sorted(hand, key=lambda t: -t.pips)
                              if t != m.tile and number not in t.halves), None)
                if end is None or wrong is None:
                    raise RenderSpecError(f"seed {seed}: no tile to lay illegally before play "
                                          f"{illegal_play}; use another seed")
                c1, c2 = cell_step(end[0], end[1]), cell_step(end[0], end[1], 2)
                bad = put(wrong, [list(c1), list(c2)], 0)
                show(tuple(placed) + (bad,), seat,
                     f"{m.player} lays {wrong} at the end of the run, which it does not match")
                show(tuple(placed), seat, f"{m.player} takes {wrong} back")
            pl = put(m.tile, m.extra["at"], int(m.extra.get("level", 0)))
            placed.append(pl)
            glare = m.tile if n_play == glare_play else None
            entry = m.to_json()
            show(tuple(placed), seat, f"{m}" + (" (under a glare spot)" if glare else ""),
                 entry, glare)
            replay.apply(Move.from_json(entry))
            truth_log.append(entry)
        elif m.kind == "draw":
            log({"player": m.player, "draw": 1},
                f"{m.player} draws a tile (tapped on the tablet; the tile stays private)")
        elif m.kind == "pass":
            if replay.current_player == m.player:
                log(m.to_json(), f"{m.player} passes (tapped on the tablet)")
        elif m.kind == "end_round":
            log({"end_round": {}}, "the game is over (tapped on the tablet)")
    return steps, all_pts, truth_log, replay


def make_recording(game: str = "allfives", players: int = 3, seed: int = 12, look_seed: int = 21,
                   illegal_round: int = 1, illegal_play: int = 4, glare_round: int = 1,
                   glare_play: int = 7, max_rounds: int | None = None) -> Recording:
    """A recording of the seeded match (see the module docstring). ``illegal_play``/``glare_play``
    count plays within their round (1 = the round's first play). ``max_rounds`` records only the
    first rounds of a long match (its truth is then the score after them); for trick games a
    round is a hand. For Castle Rock ``illegal_play`` counts removals, ``glare_play`` draws."""
    from companion.simulate import default_players, play_random_game

    if game not in RECORDING_GAMES:
        raise RenderSpecError(f"no recording for {game!r}; games: {', '.join(RECORDING_GAMES)}")
    names = default_players(players)
    sim = play_random_game(game, names, seed)
    set_max = SET_OF_GAME[game]
    geom = geometry_for_set(set_max)
    if game in TRICK_GAMES:
        steps, all_pts, truth_log, replay = _trick_steps(
            game, names, sim, geom, seed, illegal_round, glare_round, glare_play, max_rounds)
    elif game == "castlerock":
        steps, all_pts, truth_log, replay = _row_steps(names, sim, geom, seed, illegal_play,
                                                       glare_play)
    elif game == "buildup":
        steps, all_pts, truth_log, replay = _buildup_steps(names, sim, geom, seed, illegal_play,
                                                           glare_play)
    elif game == "stackernoes":
        steps, all_pts, truth_log, replay = _stackernoes_steps(names, sim, geom, seed,
                                                               illegal_play, glare_play)
    else:
        steps, all_pts, truth_log, replay = _line_steps(
            game, names, sim, geom, seed, illegal_round, illegal_play, glare_round, glare_play,
            max_rounds)
    # the looks (table, tiles, lamp) from one seed; the camera framing the whole match
    base = random_scene_spec(look_seed, layout="line", n_tiles=2, set_max=set_max, loose=0,
                             boneyard=False, hands=0, degrade=False, tilt_range=(8.0, 22.0),
                             table_families=["wood", "felt", "cloth"],
                             tile_families=["ivory", "white"])
    pts = np.concatenate(all_pts)
    target = (float(pts[:, 0].mean()), float(pts[:, 1].mean()))
    # Castle Rock's row runs left to right in the picture (the interpreter reads it so)
    # Stackernoes' run too (a double led has its first cell on the left: the interpreter's grid)
    rotation = (ROW_ROTATION_DEG if game in ("castlerock", "stackernoes")
                else base.camera.rotation_deg)
    # stacks stand up from the table: leave them room at the picture's edges
    fill = 0.8 if game == "stackernoes" else 0.92
    cam = fit_camera(pts, base.camera.tilt_deg, rotation, base.camera.hfov_deg,
                     target, (0.0, 0.0, 0.0, 0.0, 0.0), base.width, base.height, fill)
    base = dataclasses.replace(base, placements=(), tile_styles=(), camera=cam, hands=())
    result = replay.result()
    truth = {"scores": result["scores"], "winner": result["winner"], "round": result["round"],
             "finished": result["finished"], "log": truth_log}
    recipe = {"illegal_round": illegal_round, "illegal_play": illegal_play,
              "glare_round": glare_round, "glare_play": glare_play, "max_rounds": max_rounds}
    return Recording(game, names, dict(sim.header.options), seed, look_seed, steps, truth, base,
                     recipe)


def save_recording(rec: Recording, path: str | Path) -> None:
    Path(path).write_text(json.dumps(rec.to_json(), indent=1) + "\n", encoding="utf-8")


def load_recording(path: str | Path) -> Recording:
    """Read a recording file and rebuild it from its recipe; the stored steps and truth must
    agree with what the recipe gives (else the renderer or the rules changed: remake it)."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RenderSpecError(f"cannot read the recording {path}: {exc}") from None
    if obj.get("format") != FORMAT:
        raise RenderSpecError(f"recording {path} has format {obj.get('format')!r}; this version "
                              f"reads format {FORMAT}: remake it with `python -m "
                              "vision.render.recording`")
    rec = make_recording(obj["game"], len(obj["players"]), obj["seed"], obj["look_seed"],
                         **obj.get("recipe", {}))
    if rec.to_json()["steps"] != obj["steps"] or rec.truth != obj["truth"]:
        raise RenderSpecError(f"recording {path} no longer matches its recipe (the renderer or "
                              "the rules changed); remake it with `python -m "
                              "vision.render.recording`")
    return rec


class StepRenderer:
    """Renders the frames of camera steps (cached per step)."""

    def __init__(self, rec: Recording) -> None:
        self.rec = rec
        self.cam = Camera(rec.base.camera, rec.base.width, rec.base.height)
        self.style = random_scene_spec(rec.look_seed, layout="line", n_tiles=2,
                                       set_max=rec.base.set_max, loose=0, boneyard=False, hands=0,
                                       degrade=False, tile_families=["ivory", "white"],
                                       table_families=["wood", "felt", "cloth"]).tile_styles[0]
        rng = np.random.default_rng(rec.look_seed)
        self.skins = [SKIN_BGR[int(rng.integers(len(SKIN_BGR)))] for _ in rec.players]
        self.edges = [(0.5, 1.0), (1.0, 0.5), (0.5, 0.0), (0.0, 0.5)]
        self._cache: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}
        # a game with one set per player (Build Up): each set colour has its own look
        colours = sorted({pl.tile.colour for st in rec.steps for pl in st.tiles
                          if pl.tile.colour})
        crng = np.random.default_rng([rec.look_seed, 7])
        self.colour_styles = {c: tile_style_for_colour(c, crng) for c in colours}

    def spec(self, step: Step, hand: bool) -> SceneSpec:
        spec = dataclasses.replace(self.rec.base, placements=step.tiles,
                                   tile_styles=tuple(self.colour_styles.get(pl.tile.colour or "",
                                                                            self.style)
                                                     for pl in step.tiles))
        if hand and step.by is not None:
            # the hand reaches for the last tile listed (the one laid, gathered or taken), or
            # the middle of the table when it takes the last tile away
            at = step.tiles[-1].center_mm if step.tiles else self.rec.base.camera.target_mm
            uv = self.cam.project(np.array([[at[0], at[1], 0.0]]))[0]
            tip = (float(np.clip(uv[0] / spec.width, 0.03, 0.97)),
                   float(np.clip(uv[1] / spec.height, 0.03, 0.97)))
            entry = self.edges[step.by % len(self.edges)]
            width = self.cam.K[0, 0] / spec.camera.height_mm * 80.0
            spec = dataclasses.replace(spec, hands=(HandSpec(entry, tip, width,
                                                             self.skins[step.by]),))
        return spec

    def frames(self, index: int) -> tuple[np.ndarray, np.ndarray | None, dict[str, Any]]:
        """(still picture, hand picture or None, ground truth) of camera step ``index``."""
        step = self.rec.steps[index]
        if step.kind != "camera":
            raise RenderSpecError(f"step {index} is a {step.kind} step, not a camera step")
        still = render_scene(self.spec(step, hand=False))
        hand = render_scene(self.spec(step, hand=True)).image_bgr if step.by is not None else None
        image = still.image_bgr
        if step.glare is not None:
            from vision.virtual_camera import add_glare

            t = next(t for t in still.truth["tiles"]
                     if Tile.parse(t["tile"]) == step.glare.plain()
                     and t.get("colour") == step.glare.colour)
            c = np.asarray(t["corners"], dtype=float)
            first_half = (c[0] + c[1]) / 2 * 0.6 + c.mean(axis=0) * 0.4
            width = float(np.linalg.norm(c[1] - c[0]))
            image = add_glare(image, (first_half[0] / image.shape[1], first_half[1] / image.shape[0]),
                              0.55 * width / image.shape[1])
        return image, hand, still.truth


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.render.recording --game allfives --out FILE``: (re)make a recording."""
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="allfives", choices=RECORDING_GAMES)
    p.add_argument("--players", type=int, default=None,
                   help="number of players (default: 1 for castlerock, 4 for fortytwo, 3 else)")
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--look-seed", type=int, default=21)
    p.add_argument("--rounds", type=int, default=None, help="record only the first N rounds")
    p.add_argument("--glare-round", type=int, default=1)
    p.add_argument("--glare-play", type=int, default=7)
    p.add_argument("--illegal-round", type=int, default=1)
    p.add_argument("--illegal-play", type=int, default=4)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    players = a.players if a.players is not None else {"castlerock": 1, "fortytwo": 4,
                                                       "buildup": 2, "stackernoes": 2
                                                       }.get(a.game, 3)
    rec = make_recording(a.game, players, a.seed, a.look_seed, a.illegal_round, a.illegal_play,
                         a.glare_round, a.glare_play, a.rounds)
    save_recording(rec, a.out)
    cams = sum(s.kind == "camera" for s in rec.steps)
    print(json.dumps({"out": a.out, "steps": len(rec.steps), "camera_steps": cams,
                      "scores": rec.truth["scores"], "winner": rec.truth["winner"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
