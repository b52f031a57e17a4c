"""Layouts from simulated games: the rules core's seeded self-play as the value source.

:func:`game_layout` plays a seeded random game (``companion.simulate.play_random_game``) of a line
game (``allfives``, ``chickenfoot``, ``super``), stops the current round when its table holds about
``n_tiles`` tiles, and lays those plays out geometrically: each play goes on the tile the log
names in ``on``, at a free socket of that tile whose value matches. Sockets by game:

* the first tile of a line: both ends; a later tile: its far end;
* ``allfives``: the first double is the spinner: four sockets (both long sides, both ends);
* ``chickenfoot``: the centre double takes six toes (three per long side, two of each three at
  45 degrees); a later double lies crosswise and takes three toes on its far side;
* ``super``: the opening double is a fat spinner with six trains.

Stacking games are laid out from their own geometry:

* ``buildup``: each player's stacks (one coloured double-six set per player) in a row in front of
  them, rows one behind the other; a tile played on a stack lies on it one layer up, slightly
  askew;
* ``stackernoes``: the plays name their half-tile cells and level, so each tile goes exactly
  there (cell = half a tile), at layer = level.

Trick games and the solitaire are laid out from their state part-way through the first hand:

* ``fortytwo``, ``moon``: the trick being played lies face up in the middle, each tile towards
  the seat that played it; every trick already taken lies face down as a small stack in front
  of the player who took it (the winner of a trick leads the next one);
* ``castlerock``: the row of tiles face up side by side, the removed tiles face down in stacks
  beside it.

Arms turn 90 degrees at the layout bounds (as players curl a line at the table edge). If a play
finds no room the layout stops there, so it always shows a real prefix of the game. The geometry
(:class:`vision.render.layouts.Arm`, :class:`Occupancy`) knows nothing of the rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.tiles import Tile
from vision.render.errors import RenderSpecError
from vision.render.layouts import Arm, Occupancy, Placement, _start_free, toe_starts
from vision.render.tiles import TileGeometry

#: Games this module can lay out, with the numbers of players drawn for them.
GAMES: dict[str, tuple[int, ...]] = {"allfives": (2, 3, 4), "chickenfoot": (2, 3, 4, 5),
                                     "super": (2, 3, 4), "buildup": (2, 3, 4),
                                     "stackernoes": (2, 3, 4), "fortytwo": (4,), "moon": (3,),
                                     "castlerock": (1,)}


#: The set each of those games is played with.
SET_OF_GAME: dict[str, int] = {"allfives": 6, "chickenfoot": 9, "super": 15, "buildup": 6,
                               "stackernoes": 9, "fortytwo": 6, "moon": 6, "castlerock": 9}


def available() -> bool:
    """Whether the rules core's simulator can be used as a value source."""
    try:
        from companion.simulate import play_random_game  # noqa: F401
    except ImportError:
        return False
    return True


def _hub_sockets(game: str, geom: TileGeometry, v: int) -> list[tuple[np.ndarray, float]]:
    L, W = geom.length_mm, geom.width_mm
    if game == "chickenfoot" or game == "super":
        return [(p, d) for p, d in zip(toe_starts(geom), [0.0, 180.0, -45.0, 45.0, 135.0, 225.0])]
    return [(np.array([W / 2, 0.0]), 0.0), (np.array([-W / 2, 0.0]), 180.0),
            (np.array([0.0, -L / 2]), 270.0), (np.array([0.0, L / 2]), 90.0)]


def _plays_of_round(game_name: str, players: int, seed: int, n_tiles: int
                    ) -> tuple[list[tuple[Tile, Tile | None, int]], Any]:
    """The plays ``(tile, on, moves applied after it)`` of the first round of a simulated game
    that reaches ``n_tiles`` plays (or of its longest round), and the simulation."""
    from companion.simulate import play_random_game

    sim = play_random_game(game_name, players, seed, max_moves=3000)
    plays: list[tuple[Tile, Tile | None, int]] = []
    best: list[tuple[Tile, Tile | None, int]] = []
    for k, move in enumerate(sim.moves):
        if move.kind == "deal":
            plays = []
        elif move.kind == "play" and move.tile is not None:
            plays.append((move.tile, move.on, k + 1))
            if len(plays) > len(best):
                best = list(plays)
            if len(plays) >= n_tiles:
                return plays, sim
    return best, sim


def game_layout(rng: np.random.Generator, geom: TileGeometry, n_tiles: int,
                extent_mm: tuple[float, float], game_name: str | None = None
                ) -> tuple[list[Placement], dict[str, Any]]:
    """Placements of a simulated game's table with about ``n_tiles`` tiles, and the game's
    ground truth (``name``, ``seed``, ``players``, ``moves_applied``: replaying that many moves of
    ``play_random_game(name, players, seed)`` gives this table; ``plays`` as laid out;
    ``play_moves``: for each placement in order, the moves applied once it lies there, so the
    first ``k`` placements are the table after ``play_moves[k - 1]`` moves, except for Build Up
    whose stacks come from the final state)."""
    if not available():
        raise RenderSpecError("layout 'game' needs companion.simulate (the rules core's "
                              "self-play); use another layout")
    if game_name is None:
        game_name = str(rng.choice(sorted(GAMES)))
    if game_name not in GAMES:
        raise RenderSpecError(f"game {game_name!r} cannot be laid out; use one of {sorted(GAMES)}")
    players = int(rng.choice(GAMES[game_name]))
    seed = int(rng.integers(0, 2**31 - 1))
    if game_name == "buildup":
        return _buildup_layout(rng, geom, n_tiles, players, seed)
    if game_name == "stackernoes":
        return _stackernoes_layout(geom, n_tiles, players, seed)
    if game_name in ("fortytwo", "moon"):
        return _trick_layout(rng, geom, game_name, players, seed)
    if game_name == "castlerock":
        return _castlerock_layout(rng, geom, seed)
    plays, sim = _plays_of_round(game_name, players, seed, n_tiles)
    out, applied, counts = line_layout(game_name, plays, geom, extent_mm, max_tiles=n_tiles)
    info = {"name": game_name, "seed": seed, "players": list(sim.header.players),
            "moves_applied": counts[-1] if counts else 0, "set_max": SET_OF_GAME[game_name],
            "plays": applied, "play_moves": counts}
    return out, info


def line_layout(game_name: str, plays: list[tuple[Tile, Tile | None, int]], geom: TileGeometry,
                extent_mm: tuple[float, float], max_tiles: int | None = None
                ) -> tuple[list[Placement], list[str], list[int]]:
    """Lay out the plays ``(tile, on, moves applied after it)`` of one round of a line game
    (``allfives``, ``chickenfoot``, ``super``) inside ``extent_mm`` centred on the first tile.

    Returns the placements in play order, the plays as laid out (text) and, per placement, the
    moves of the log applied once it lies there. Stops at the first play that finds no room (or
    after ``max_tiles``), so the result is always a real prefix of the round.
    """
    ew, eh = extent_mm
    bounds = (-ew / 2, -eh / 2, ew / 2, eh / 2)
    occ = Occupancy(geom)
    out: list[Placement] = []
    sockets: dict[Tile, list[Arm]] = {}
    gap = 0.3
    first_double_seen = False

    def place_first(t: Tile) -> None:
        nonlocal first_double_seen
        if t.is_double:
            pl = Placement(t, t.halves, (0.0, 0.0), 90.0)
            first_double_seen = True
            arms = []
            for p, d in _hub_sockets(game_name, geom, t.low):
                arm = Arm(p, d, t.low)
                arms.append(arm)
            sockets[t] = arms
        else:
            pl = Placement(t, t.halves, (0.0, 0.0), 0.0)
            a1 = Arm(np.array([geom.length_mm / 2, 0.0]), 0.0, t.high)
            a0 = Arm(np.array([-geom.length_mm / 2, 0.0]), 180.0, t.low)
            a0.last_double = a1.last_double = False
            sockets[t] = [a1, a0]
        occ.add(pl)
        out.append(pl)

    def fits(pl: Placement) -> bool:
        fp = pl.footprint(geom)
        inside = (fp[:, 0].min() >= bounds[0] and fp[:, 0].max() <= bounds[2]
                  and fp[:, 1].min() >= bounds[1] and fp[:, 1].max() <= bounds[3])
        return inside and occ.free(pl)

    applied: list[str] = []
    counts: list[int] = []  # per placement: moves of the log applied once it lies there
    for tile, on, count in plays:
        if not out:
            if on is not None:  # a centre double set before the first play (Chickenfoot)
                place_first(on)
                applied.append(f"{on}")
                counts.append(count - 1)
            else:
                place_first(tile)
                applied.append(f"{tile}")
                counts.append(count)
                continue
        if on is None or on not in sockets:
            break
        arm = next((a for a in sockets[on] if a.alive and tile.has(a.value)), None)
        if arm is None and tile.is_double:
            # a double across a line end that it does not match (Super Dominoes: on a 13)
            arm = next((a for a in sockets[on] if a.alive), None)
        if arm is None:
            break
        placed = None
        turns = [0.0] if (arm.last_double or tile.is_double) else [0.0, 90.0, -90.0]
        for turn in turns:
            probe = Arm(arm.p, arm.deg, arm.value)
            if turn == 0.0 and not occ.free(probe.candidate(tile, geom, gap)[0]):
                pushed = _start_free(arm.p, arm.deg, arm.value, tile, geom, occ, max_mm=60.0)
                if pushed is not None:
                    probe = pushed
            pl, end = probe.candidate(tile, geom, gap, turn)
            if fits(pl):
                placed = (pl, end, arm.deg + turn)
                break
        if placed is None:
            break
        pl, end, deg = placed
        occ.add(pl)
        out.append(pl)
        arm.alive = False
        nv = tile.low if tile.is_double else tile.other(arm.value)
        nxt = Arm(end, deg, nv)
        nxt.last_double = tile.is_double
        new = [nxt]
        if tile.is_double and game_name == "chickenfoot":
            # a double on a toe takes three toes: straight on, and two at 45 degrees
            base = end - np.array([np.cos(np.radians(deg)), np.sin(np.radians(deg))]) * 0.0
            for d in (deg - 45.0, deg + 45.0):
                toe = Arm(base, d, nv)
                new.append(toe)
        sockets[tile] = new
        applied.append(f"{tile} on {on}")
        counts.append(count)
        if max_tiles is not None and len(out) >= max_tiles:
            break
    return out, applied, counts


def _buildup_layout(rng: np.random.Generator, geom: TileGeometry, n_tiles: int, players: int,
                    seed: int) -> tuple[list[Placement], dict[str, Any]]:
    from companion.simulate import play_random_game

    full = play_random_game("buildup", players, seed, max_moves=400)
    first_round = next((k for k, m in enumerate(full.moves) if m.kind == "end_round"),
                       len(full.moves))
    n_moves = int(rng.integers(1, max(2, first_round)))
    sim = play_random_game("buildup", players, seed, max_moves=n_moves)
    L, W = geom.length_mm, geom.width_mm
    out: list[Placement] = []
    for row, name in enumerate(sim.header.players):
        for col, stack in enumerate(sim.game.layouts[name]):
            x, y = col * (W + 22.0), row * (L + 28.0)
            for layer, t in enumerate(stack):
                jx, jy = (rng.normal(0, 1.2, 2) if layer else (0.0, 0.0))
                ang = 90.0 + float(rng.normal(0, 3 if layer else 1.5))
                halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
                out.append(Placement(t, halves, (float(x + jx), float(y + jy)), ang,
                                     layer=layer))
    if out:
        cx = float(np.mean([p.center_mm[0] for p in out]))
        cy = float(np.mean([p.center_mm[1] for p in out]))
        out = [Placement(p.tile, p.halves, (p.center_mm[0] - cx, p.center_mm[1] - cy),
                         p.angle_deg, p.layer, p.face_up) for p in out]
    info = {"name": "buildup", "seed": seed, "players": list(sim.header.players),
            "moves_applied": n_moves, "set_max": 6,
            "plays": [f"{m.tile} on {m.on}" for m in sim.moves if m.kind == "play"]}
    return out, info


def _stackernoes_layout(geom: TileGeometry, n_tiles: int, players: int, seed: int
                        ) -> tuple[list[Placement], dict[str, Any]]:
    from companion.simulate import play_random_game

    sim = play_random_game("stackernoes", players, seed, max_moves=3000)
    cell = geom.length_mm / 2 + 0.3
    out: list[Placement] = []
    n_moves = 0
    plays: list[str] = []
    counts: list[int] = []
    for k, m in enumerate(sim.moves):
        if m.kind == "end_round" and out:
            break
        if m.kind != "play" or m.tile is None:
            continue
        (ax, ay), (bx, by) = m.extra["at"]
        level = int(m.extra.get("level", 0))
        c = ((ax + bx) / 2 * cell, (ay + by) / 2 * cell)
        ang = float(np.degrees(np.arctan2(by - ay, bx - ax)))
        out.append(Placement(m.tile, (m.tile.low, m.tile.high), (float(c[0]), float(c[1])),
                             ang, layer=level))
        plays.append(f"{m.tile} at {m.extra['at']} level {level}")
        n_moves = k + 1
        counts.append(n_moves)
        if len(out) >= n_tiles:
            break
    if out:
        cx = float(np.mean([p.center_mm[0] for p in out]))
        cy = float(np.mean([p.center_mm[1] for p in out]))
        out = [Placement(p.tile, p.halves, (p.center_mm[0] - cx, p.center_mm[1] - cy),
                         p.angle_deg, p.layer, p.face_up) for p in out]
    info = {"name": "stackernoes", "seed": seed, "players": list(sim.header.players),
            "moves_applied": n_moves, "set_max": 9, "plays": plays, "play_moves": counts}
    return out, info


def _first_round_stop(rng: np.random.Generator, game_name: str, players: int, seed: int) -> int:
    """A random number of moves that stops the simulated game after its first play and before
    its first hand ends."""
    from companion.simulate import play_random_game

    full = play_random_game(game_name, players, seed, max_moves=2000)
    kinds = [m.kind for m in full.moves]
    first_play = next((k for k, kind in enumerate(kinds) if kind in ("play", "remove")), 0)
    end = next((k for k, kind in enumerate(kinds) if kind == "end_round"), len(kinds))
    return int(rng.integers(first_play + 1, max(first_play + 2, end)))


def _jittered_stack(tiles: list[Tile], at: np.ndarray, base_angle: float,
                    rng: np.random.Generator, face_up: bool) -> list[Placement]:
    out = []
    for layer, t in enumerate(tiles):
        j = rng.normal(0, 2.0, 2) if layer else np.zeros(2)
        ang = base_angle + float(rng.normal(0, 6.0))
        halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
        out.append(Placement(t, halves, (float(at[0] + j[0]), float(at[1] + j[1])), ang,
                             layer=layer, face_up=face_up))
    return out


def _trick_layout(rng: np.random.Generator, geom: TileGeometry, game_name: str, players: int,
                  seed: int) -> tuple[list[Placement], dict[str, Any]]:
    from companion.simulate import play_random_game

    n_moves = _first_round_stop(rng, game_name, players, seed)
    sim = play_random_game(game_name, players, seed, max_moves=n_moves)
    names = list(sim.header.players)
    plays = [(m.player, m.tile) for m in sim.moves if m.kind == "play" and m.tile is not None]
    current = [(str(p), t) for p, t in sim.game.trick]
    done = plays[:len(plays) - len(current)]
    size = len(names)
    tricks = [done[i:i + size] for i in range(0, len(done), size)]
    # the winner of a trick leads the next one
    leaders = [tr[0][0] for tr in tricks[1:]] + ([current[0][0]] if current else
                                                 [names[int(sim.game.turn) % size]])
    R = 4.5 * geom.length_mm
    out: list[Placement] = []
    won: dict[str, int] = {n: 0 for n in names}
    for trick, winner in zip(tricks, leaders):
        k = names.index(str(winner))
        a = np.radians(90.0 + 360.0 * k / size)
        d, t = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        j = won[str(winner)]
        won[str(winner)] += 1
        at = d * R + t * (j - 1.5) * (geom.length_mm + 14.0)
        out += _jittered_stack([tile for _, tile in trick], at, float(np.degrees(a)) + 90.0,
                               rng, face_up=False)
    for player, tile in current:
        k = names.index(player)
        a = np.radians(90.0 + 360.0 * k / size)
        at = np.array([np.cos(a), np.sin(a)]) * 1.6 * geom.length_mm
        halves = tile.halves if rng.random() < 0.5 else (tile.high, tile.low)
        out.append(Placement(tile, halves, (float(at[0]), float(at[1])),
                             float(np.degrees(a)) + 90.0 + float(rng.normal(0, 8.0))))
    info = {"name": game_name, "seed": seed, "players": names, "moves_applied": n_moves,
            "set_max": SET_OF_GAME[game_name],
            "plays": [f"{p} {t}" for p, t in plays], "tricks_won": won}
    return out, info


def _castlerock_layout(rng: np.random.Generator, geom: TileGeometry, seed: int
                       ) -> tuple[list[Placement], dict[str, Any]]:
    from companion.simulate import play_random_game

    n_moves = _first_round_stop(rng, "castlerock", 1, seed)
    sim = play_random_game("castlerock", 1, seed, max_moves=n_moves)
    row: list[Tile] = list(sim.game.row)
    removed: list[Tile] = list(sim.game.removed)
    out: list[Placement] = []
    step = geom.width_mm + 6.0
    x0 = -(len(row) - 1) * step / 2
    for j, t in enumerate(row):
        halves = t.halves if rng.random() < 0.5 else (t.high, t.low)
        out.append(Placement(t, halves, (float(x0 + j * step + rng.normal(0, 1.0)),
                                         float(rng.normal(0, 1.5))),
                             90.0 + float(rng.normal(0, 2.0))))
    for i in range(0, len(removed), 4):
        at = np.array([x0 + (i // 4) * (geom.length_mm + 16.0),
                       1.9 * geom.length_mm + float(rng.normal(0, 3.0))])
        out += _jittered_stack(removed[i:i + 4], at, 0.0, rng, face_up=False)
    info = {"name": "castlerock", "seed": seed, "players": list(sim.header.players),
            "moves_applied": n_moves, "set_max": 9, "plays": [str(t) for t in row],
            "removed": [str(t) for t in removed]}
    return out, info
