"""One table through a game: the frames a fixed webcam records while people play.

:func:`game_sequence` draws one scene of a simulated game (``layout="game"``) and cuts it into
frames: after each play a still frame of the table, and (with ``hand_frames``) before it a frame
where the player's hand is still on the tile just laid, reaching in from that player's side of
the table (each player keeps one side and one skin). Camera, table, lamp and looks stay the
same; only the tiles, the hand and the sensor noise (``SceneSpec.frame``) change. Each frame's
``game`` truth says how many moves of the simulated log lie on the table (``moves_applied``), so
the frames and the log replay side by side (the demo's bundled recording, the live session's
tests).

Build Up is not offered: its stacks are drawn from a game state, not play by play.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.render.camera import Camera
from vision.render.errors import RenderSpecError
from vision.render.sampling import SKIN_BGR, random_scene_spec
from vision.render.scene import HandSpec, SceneSpec
from vision.render.tiles import geometry_for_set

#: Games whose layouts grow play by play.
SEQUENCE_GAMES = ("allfives", "chickenfoot", "super", "stackernoes")


@dataclass(frozen=True)
class SequenceFrame:
    """One frame: its spec, ``event`` (``"hand"``: a hand on the tile just laid; ``"still"``:
    the table at rest) and how many tiles of the layout lie on the table."""

    spec: SceneSpec
    event: str
    placed: int


def _edge_point(edge: int, along: float) -> tuple[float, float]:
    along = float(np.clip(along, 0.05, 0.95))
    return [(along, 1.0), (along, 0.0), (0.0, along), (1.0, along)][edge % 4]


def _movers(game: dict[str, Any]) -> list[int | None]:
    """For each tile of a game layout, in the order laid, the seat (index into its players)
    of the player who laid it in the simulated game, so that the hand reaching in comes from
    that player's side of the table (None: a tile the deal set out, no one's)."""
    from companion.simulate import play_random_game

    counts = [int(c) for c in game["play_moves"]]
    sim = play_random_game(game["name"], len(game["players"]), int(game["seed"]),
                           max_moves=max(counts, default=0))
    players = list(sim.header.players)
    return [players.index(m.player) if m.kind == "play" and m.player in players else None
            for m in (sim.moves[c - 1] for c in counts)]


def game_sequence(rng_seed: int, game: str = "allfives", n_tiles: int = 16,
                  hand_frames: bool = True, **constraints: Any) -> list[SequenceFrame]:
    """Frames of one table during a seeded game of ``game`` (one of :data:`SEQUENCE_GAMES`)
    until about ``n_tiles`` tiles lie on it. ``constraints`` go to
    :func:`vision.render.random_scene_spec` (not ``layout``, ``game``, ``loose``, ``boneyard``
    or ``hands``, which a sequence sets itself)."""
    if game not in SEQUENCE_GAMES:
        raise RenderSpecError(f"game {game!r} has no play-by-play sequence; use one of "
                              f"{list(SEQUENCE_GAMES)}")
    fixed = {"layout", "game", "loose", "boneyard", "hands"} & set(constraints)
    if fixed:
        raise RenderSpecError(f"constraints {sorted(fixed)} are set by the sequence itself; "
                              "leave them out")
    full = random_scene_spec(rng_seed, layout="game", game=game, n_tiles=n_tiles, loose=0,
                             boneyard=False, hands=0, **constraints)
    if full.game is None:
        raise RenderSpecError(f"seed {rng_seed} gave no game layout for {game!r}")
    counts: list[int] = list(full.game["play_moves"])
    if len(counts) != len(full.placements):
        raise RenderSpecError(f"game layout of seed {rng_seed} has {len(full.placements)} tiles "
                              f"but {len(counts)} play counts")
    cam = Camera(full.camera, full.width, full.height)
    thickness = geometry_for_set(full.set_max).thickness_mm
    rng = np.random.default_rng([int(rng_seed), 11])
    n_seats = len(full.game["players"])
    movers = _movers(full.game)
    skins = [SKIN_BGR[int(rng.integers(len(SKIN_BGR)))] for _ in range(n_seats)]
    edges = list(rng.permutation(4))
    frames: list[SequenceFrame] = []
    f = 0
    for k in range(1, len(full.placements) + 1):
        game_truth = dict(full.game, moves_applied=counts[k - 1],
                          plays=full.game["plays"][:k], play_moves=counts[:k])
        base = dataclasses.replace(full, placements=full.placements[:k],
                                   tile_styles=full.tile_styles[:k], game=game_truth)
        if hand_frames and k > 1:
            pl = full.placements[k - 1]
            top = np.array([[pl.center_mm[0], pl.center_mm[1], -(pl.layer + 1) * thickness]])
            uv = cam.project(top)[0]
            tip = (float(np.clip(uv[0] / full.width, 0.03, 0.97)),
                   float(np.clip(uv[1] / full.height, 0.03, 0.97)))
            seat = movers[k - 1] if movers[k - 1] is not None else (k - 2) % n_seats
            edge = int(edges[seat % 4])
            along = (tip[0] if edge in (0, 1) else tip[1]) + float(rng.normal(0, 0.12))
            width = cam.K[0, 0] / full.camera.height_mm * float(rng.uniform(70, 90))
            hand = HandSpec(_edge_point(edge, along), tip, width, skins[seat])
            frames.append(SequenceFrame(dataclasses.replace(base, hands=(hand,), frame=f),
                                        "hand", k))
            f += 1
        frames.append(SequenceFrame(dataclasses.replace(base, hands=(), frame=f), "still", k))
        f += 1
    return frames
