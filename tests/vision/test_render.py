"""Tests of the synthetic scene renderer (vision.render)."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from companion.tiles import Tile, full_set
from vision.render import (CameraSpec, DegradeSpec, LightSpec, Placement, RenderSpecError,
                           SceneSpec, random_scene_spec, render_scene, write_scene)
from vision.render.cli import configure, run
from vision.render.styles import tile_style
from vision.render.tiles import face_texture, geometry_for_set, pip_layout

SMALL = (640, 360)


def _spec(placements: list[Placement], *, set_max: int = 6, family: str = "ivory",
          camera: CameraSpec | None = None, markers: bool = False, size=(640, 360),
          **kw) -> SceneSpec:
    style = tile_style(family, np.random.default_rng(0))
    style = type(style)(**{**{f: getattr(style, f) for f in style.__slots__},
                           "spinner_pin": False})
    return SceneSpec(seed=1, set_max=set_max, placements=tuple(placements),
                     tile_styles=(style,) * len(placements),
                     camera=camera or CameraSpec(height_mm=350.0, hfov_deg=60.0),
                     width=size[0], height=size[1], table_family="felt", table_variant=0,
                     light=LightSpec(glare=0.0, shadow=0.3), degrade=DegradeSpec(),
                     markers=markers, marker_rect_mm=(-140.0, -70.0, 140.0, 70.0), **kw)


def _plane_h(truth: dict, height_mm: float) -> np.ndarray:
    K = np.array(truth["camera"]["K"])
    R = cv2.Rodrigues(np.array(truth["camera"]["rvec"]))[0]
    t = np.array(truth["camera"]["tvec"])
    H = K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * -height_mm + t])
    return H / H[2, 2]


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def test_same_seed_same_scene_and_other_seed_differs() -> None:
    a = render_scene(random_scene_spec(7, size=SMALL))
    b = render_scene(random_scene_spec(7, size=SMALL))
    c = render_scene(random_scene_spec(8, size=SMALL))
    assert np.array_equal(a.image_bgr, b.image_bgr)
    assert json.dumps(a.truth) == json.dumps(b.truth)
    assert not np.array_equal(a.image_bgr, c.image_bgr)


@pytest.mark.parametrize("seed", [3, 21, 40])
def test_truth_corners_follow_camera_and_table_homography(seed: int) -> None:
    spec = random_scene_spec(seed, size=SMALL, degrade=False, tilt_range=(0, 40))
    truth = render_scene(spec).truth
    geom = geometry_for_set(truth["set_max"])
    H0 = np.array(truth["table_to_image"])
    assert np.allclose(H0, _plane_h(truth, 0.0), atol=1e-6)
    checked = 0
    for t in truth["tiles"]:
        c = np.array(t["corners"])
        if not t["cut"]:
            assert (c >= -0.5).all() and (c[:, 0] <= truth["width"]).all() \
                and (c[:, 1] <= truth["height"]).all()
        # corners = top-face rectangle of the tile's pose on the table, at (layer + 1) * T
        a = math.radians(t["table_mm"]["angle"])
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        local = geom.corners_local() @ rot.T + np.array(t["table_mm"]["center"])
        z_top = t["table_mm"]["z_mm"] + geom.thickness_mm
        assert np.abs(_apply(_plane_h(truth, z_top), local) - c).max() < 0.05
        if t["layer"] == 0:
            # table_to_image maps the corners back onto the table where the camera ray through
            # the top face (height T) meets z = 0: C + (P - C) * h / (h - T)
            cam_c = np.array(truth["camera"]["center_mm"])
            h = -cam_c[2]
            on_table = _apply(np.linalg.inv(H0), c)
            expect = cam_c[:2] + (local - cam_c[:2]) * h / (h - geom.thickness_mm)
            assert np.abs(on_table - expect).max() < 0.2
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("halves", [(0, 6), (6, 0), (1, 5)])
def test_halves_order_matches_corners(halves: tuple[int, int]) -> None:
    tile = Tile.of(*halves)
    spec = _spec([Placement(tile, halves, (0.0, 0.0), 35.0)])
    scene = render_scene(spec)
    t = scene.truth["tiles"][0]
    assert t["halves"] == list(halves) and t["tile"] == str(tile)
    src = np.array(t["corners"], np.float32)
    dst = np.array([[0, 0], [0, 100], [200, 100], [200, 0]], np.float32)
    crop_gray = cv2.cvtColor(cv2.warpPerspective(scene.image_bgr,
                                                 cv2.getPerspectiveTransform(src, dst),
                                                 (200, 100)), cv2.COLOR_BGR2GRAY)
    inner = crop_gray[10:90]
    dark = [(inner[:, 10:95] < 90).sum(), (inner[:, 105:190] < 90).sum()]
    lo, hi = sorted(halves)
    if halves[0] > halves[1]:
        assert dark[0] > 1.5 * dark[1] + 20
    else:
        assert dark[1] > 1.5 * dark[0] + 20


@pytest.mark.parametrize("n", range(16))
def test_pip_layout_has_n_separate_pips(n: int) -> None:
    pts = pip_layout(n)
    assert len(pts) == n
    style = tile_style("ivory", np.random.default_rng(1))
    face_bgr, _ = face_texture((n, n), style, geometry_for_set(15), 10.0)
    half_gray = cv2.cvtColor(np.ascontiguousarray(face_bgr[:, : face_bgr.shape[1] // 2 - 6]),
                             cv2.COLOR_BGR2GRAY)
    count, _ = cv2.connectedComponents((half_gray < 80).astype(np.uint8))
    assert count - 1 == n


@pytest.mark.parametrize("set_max", [6, 9, 12, 15])
def test_every_set_renders_its_full_set(set_max: int) -> None:
    size = (set_max + 1) * (set_max + 2) // 2
    spec = random_scene_spec(5, set_max=set_max, layout="grid", n_tiles=size, loose=0,
                             boneyard=False, hands=0, size=SMALL)
    truth = render_scene(spec).truth
    assert sorted(Tile.parse(t["tile"]) for t in truth["tiles"]) == full_set(set_max)
    assert truth["set_max"] == set_max


def test_markers_found_by_aruco_detector_at_truth_corners() -> None:
    spec = _spec([Placement(Tile.of(2, 3), (2, 3), (0.0, 0.0), 0.0)], markers=True,
                 size=(1280, 720), camera=CameraSpec(height_mm=420.0, hfov_deg=60.0))
    scene = render_scene(spec)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(scene.image_bgr, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    truth = {m["id"]: np.array(m["corners"]) for m in scene.truth["markers"]}
    for c, i in zip(corners, ids.ravel()):
        assert np.abs(c.reshape(4, 2) - truth[int(i)]).max() < 1.5
    assert all(m["visible"] > 0.97 for m in scene.truth["markers"])


def test_marker_under_a_hand_is_not_visible() -> None:
    from vision.render import HandSpec
    spec = _spec([Placement(Tile.of(2, 3), (2, 3), (0.0, 0.0), 0.0)], markers=True,
                 size=(1280, 720), camera=CameraSpec(height_mm=420.0, hfov_deg=60.0),
                 hands=(HandSpec((0.0, 0.1), (0.25, 0.25), 180.0, (120, 160, 215)),))
    truth = render_scene(spec).truth
    vis = {m["id"]: m["visible"] for m in truth["markers"]}
    assert vis[0] < 0.5 and vis[2] > 0.97


def test_markers_truth_follows_lens_distortion() -> None:
    cam = CameraSpec(height_mm=420.0, hfov_deg=70.0, tilt_deg=20.0, rotation_deg=10.0,
                     dist=(-0.15, 0.03, 0.0, 0.0, 0.0))
    spec = _spec([Placement(Tile.of(2, 3), (2, 3), (0.0, 0.0), 0.0)], markers=True,
                 size=(1280, 720), camera=cam)
    scene = render_scene(spec)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(cv2.cvtColor(scene.image_bgr, cv2.COLOR_BGR2GRAY))
    assert ids is not None and len(ids) == 4
    truth = {m["id"]: np.array(m["corners"]) for m in scene.truth["markers"]}
    undist = _apply(np.array(scene.truth["table_to_image"]),
                    np.array([[-140.0 - 20, -70.0 - 20]]))[0]
    assert np.abs(undist - truth[0][0]).max() > 2.0  # distortion moved the corner
    for c, i in zip(corners, ids.ravel()):
        assert np.abs(c.reshape(4, 2) - truth[int(i)]).max() < 1.5


def test_stacked_tile_hides_the_one_below() -> None:
    below = Placement(Tile.of(1, 2), (1, 2), (0.0, 0.0), 0.0)
    above = Placement(Tile.of(3, 4), (3, 4), (0.0, 0.0), 0.0, layer=1)
    side = Placement(Tile.of(5, 6), (5, 6), (0.0, 60.0), 0.0)
    truth = render_scene(_spec([below, above, side])).truth
    vis = [t["visible"] for t in truth["tiles"]]
    assert vis[0] < 0.05 and vis[1] > 0.97 and vis[2] > 0.97
    assert [t["layer"] for t in truth["tiles"]] == [0, 1, 0]
    assert truth["tiles"][1]["table_mm"]["z_mm"] == geometry_for_set(6).thickness_mm


def test_hand_occludes_and_has_polygon() -> None:
    spec = random_scene_spec(12, size=SMALL, hands=1, layout="loose", n_tiles=20)
    truth = render_scene(spec).truth
    assert len(truth["hands"]) == 1 and len(truth["hands"][0]) >= 6
    face_down = [t for t in truth["tiles"] if not t["face_up"]]
    assert all(t["halves"] for t in face_down)


@pytest.mark.parametrize("kwargs, needle", [
    ({"set_max": 7}, "set_max 7"),
    ({"colour": "red"}, "unknown constraints ['colour']"),
    ({"tilt_range": (10, 80)}, "tilt_range"),
    ({"n_tiles": 29, "set_max": 6}, "n_tiles 29"),
    ({"layout": "spiral"}, "layout 'spiral'"),
    ({"table_families": ["stone"]}, "held-out"),
    ({"held_out": True}, ">= 1000000"),
    ({"game": "chess"}, "game 'chess' cannot be laid out"),
    ({"game": "allfives", "layout": "line"}, "needs layout 'game'"),
    ({"size": "big"}, "size 'big'"),
    ({"game": "stackernoes", "set_max": 6}, "stackernoes is played with a double-9 set, not a "
                                            "double-6 one"),
])
def test_bad_constraints_raise_clear_errors(kwargs: dict, needle: str) -> None:
    with pytest.raises(RenderSpecError, match=None) as err:
        random_scene_spec(3, **kwargs)
    assert needle in str(err.value)
    assert isinstance(err.value, ValueError)


def test_bad_specs_raise_clear_errors() -> None:
    with pytest.raises(RenderSpecError, match="do not match tile 2-3"):
        Placement(Tile.of(2, 3), (2, 4), (0.0, 0.0), 0.0)
    with pytest.raises(RenderSpecError, match="not in a double-6 set"):
        render_scene(_spec([Placement(Tile.of(2, 9), (2, 9), (0.0, 0.0), 0.0)]))
    with pytest.raises(RenderSpecError, match="tilt_deg 70"):
        render_scene(_spec([Placement(Tile.of(2, 3), (2, 3), (0.0, 0.0), 0.0)],
                           camera=CameraSpec(tilt_deg=70.0)))
    with pytest.raises(RenderSpecError, match="held-out range"):
        random_scene_spec(1_000_001)


def test_render_command_writes_pairs(tmp_path, capsys) -> None:
    import argparse
    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(["--out", str(tmp_path), "--count", "2", "--seed", "4",
                              "--size", "320x240", "--held-out", "--markers"])
    assert run(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["scenes"] == 2 and summary["seeds"] == [1_000_004, 1_000_005]
    for seed in (1_000_004, 1_000_005):
        truth = json.loads((tmp_path / f"scene_{seed:07d}.json").read_text())
        image_bgr = cv2.imread(str(tmp_path / f"scene_{seed:07d}.png"))
        assert image_bgr.shape == (240, 320, 3) and truth["image"] == f"scene_{seed:07d}.png"
        assert {"width", "height", "seed", "set_max", "style", "camera", "table_to_image",
                "tiles", "markers", "hands", "game"} <= set(truth)
        assert len(truth["markers"]) == 4 and truth["style"]["held_out"] is True
    # --decor draws board art on the same scenes' tables: same tiles, another picture
    plain = cv2.imread(str(tmp_path / "scene_1000004.png"))
    args = parser.parse_args(["--out", str(tmp_path / "decor"), "--count", "1", "--seed", "4",
                              "--size", "320x240", "--held-out", "--markers", "--decor"])
    assert run(args) == 0
    capsys.readouterr()
    truth = json.loads((tmp_path / "decor" / "scene_1000004.json").read_text())
    decorated = cv2.imread(str(tmp_path / "decor" / "scene_1000004.png"))
    assert [t["tile"] for t in truth["tiles"]] == [
        t["tile"] for t in json.loads((tmp_path / "scene_1000004.json").read_text())["tiles"]]
    assert np.abs(decorated.astype(int) - plain.astype(int)).mean() > 1.0


@pytest.mark.parametrize("argv, needle", [
    (["--tiles", "500", "--set", "6"], "--tiles 500 is more than the 28 tiles of a double-6 set"),
    (["--tiles", "0"], "--tiles 0 must be at least 1"),
    (["--sequence", "allfives", "--tiles", "0"], "--tiles 0 must be at least 1"),
    (["--sequence", "allfives", "--tiles", "29"], "more than the 28 tiles of a double-6 set"),
    (["--tiles", "100"], "--tiles 100 is more than the 28 tiles of a double-6 set, and "
                         "without --set each scene draws its set"),
    (["--tiles", "60", "--layout", "chickenfoot"], "more than the 55 tiles of a double-9 set"),
    (["--tilt", "10,80"], "--tilt 10,80: expected LOW,HIGH degrees with 0 <= LOW <= HIGH <= 50"),
    (["--tilt", "30,10"], "--tilt 30,10: expected LOW,HIGH"),
])
def test_render_command_names_the_option_it_refuses(tmp_path, argv, needle) -> None:
    """``--tiles`` and ``--tilt`` are refused naming the option typed, not the constraint it
    becomes (``n_tiles``, ``tilt_range``), before any scene is written; ``--sequence`` with
    ``--tiles 0`` is refused, not taken as the default 16."""
    import argparse
    parser = argparse.ArgumentParser()
    configure(parser)
    with pytest.raises(RenderSpecError) as err:
        run(parser.parse_args(["--out", str(tmp_path / "out"), "--count", "1"] + argv))
    assert needle in str(err.value)
    assert not (tmp_path / "out").exists()


def test_write_scene_rejects_bad_name(tmp_path) -> None:
    scene = render_scene(_spec([Placement(Tile.of(2, 3), (2, 3), (0.0, 0.0), 0.0)]))
    with pytest.raises(RenderSpecError, match="plain file stem"):
        write_scene(scene, tmp_path, "../x")


@pytest.mark.parametrize("seed, name", [(51, "chickenfoot"), (53, "super"), (54, "allfives")])
def test_game_layout_shows_a_real_table_of_the_simulated_game(seed: int, name: str) -> None:
    from companion.simulate import play_random_game
    spec = random_scene_spec(seed, layout="game", game=name, boneyard=False, loose=0, hands=0,
                             n_tiles=15, size=SMALL)
    truth = render_scene(spec).truth
    game = truth["game"]
    assert game["name"] == name and len(truth["tiles"]) >= 5
    sim = play_random_game(game["name"], game["players"], game["seed"],
                           max_moves=game["moves_applied"])
    on_table = {str(t) for t in sim.game.table_tiles()}
    assert {t["tile"] for t in truth["tiles"]} == on_table
    # touching tiles of a play share the value at the touching halves
    geom = geometry_for_set(truth["set_max"])
    by_tile = {t["tile"]: t for t in truth["tiles"]}

    def half_centres(t: dict) -> np.ndarray:
        a = math.radians(t["table_mm"]["angle"])
        d = np.array([math.cos(a), math.sin(a)]) * geom.length_mm / 4
        c = np.array(t["table_mm"]["center"])
        return np.array([c - d, c + d])

    for play in game["plays"][1:]:
        new, _, on = play.split(" ")
        a, b = by_tile[str(Tile.parse(new))], by_tile[str(Tile.parse(on))]
        ha, hb = half_centres(a), half_centres(b)
        dist = np.linalg.norm(ha[:, None] - hb[None], axis=2)
        i, j = np.unravel_index(np.argmin(dist), dist.shape)
        if Tile.parse(new).is_double or Tile.parse(on).is_double:
            continue  # a crosswise double touches the line with both halves
        assert a["halves"][i] == b["halves"][j], play


@pytest.mark.parametrize("game", ["buildup", "stackernoes"])
def test_stacking_games_put_tiles_on_tiles(game: str) -> None:
    spec = random_scene_spec(61, layout="game", game=game, n_tiles=25, size=SMALL, loose=0,
                             boneyard=False, hands=0)
    truth = render_scene(spec).truth
    assert truth["game"]["name"] == game
    layers = [t["layer"] for t in truth["tiles"]]
    assert max(layers) >= 1
    T = geometry_for_set(truth["set_max"]).thickness_mm
    for t in truth["tiles"]:
        assert t["table_mm"]["z_mm"] == pytest.approx(t["layer"] * T)
    if game == "buildup":  # one coloured set per player
        assert {t["colour"] for t in truth["tiles"]} <= {"red", "blue", "green", "yellow"}
    # a tile with another directly on top of it is (mostly) hidden
    top = {}
    for t in truth["tiles"]:
        key = tuple(np.round(t["table_mm"]["center"], -1))
        top[key] = max(top.get(key, -1), t["layer"])
    covered = [t for t in truth["tiles"]
               if t["layer"] < top[tuple(np.round(t["table_mm"]["center"], -1))]]
    assert covered and np.median([t["visible"] for t in covered]) < 0.5


def test_game_sequence_grows_play_by_play_under_one_camera() -> None:
    from companion.simulate import play_random_game
    from vision.render.sequence import game_sequence
    frames = game_sequence(8, "allfives", n_tiles=5, size=(320, 180))
    n = frames[-1].placed
    assert n >= 3 and len(frames) == 2 * n - 1
    assert [f.spec.frame for f in frames] == list(range(len(frames)))
    assert len({f.spec.camera for f in frames}) == 1
    stills = [f for f in frames if f.event == "still"]
    assert [f.placed for f in stills] == list(range(1, n + 1))
    assert all(len(f.spec.hands) == 1 for f in frames if f.event == "hand")
    last = render_scene(stills[-1].spec).truth
    g = last["game"]
    sim = play_random_game(g["name"], g["players"], g["seed"], max_moves=g["moves_applied"])
    assert {t["tile"] for t in last["tiles"]} == {str(t) for t in sim.game.table_tiles()}
    with pytest.raises(RenderSpecError, match="no play-by-play sequence"):
        game_sequence(8, "buildup")


def test_each_hand_reaches_in_from_the_side_of_the_player_who_laid_the_tile() -> None:
    """Stackernoes, seed 0: Bob draws and passes before the second tile, so the seats do not
    simply go round; every hand of a player enters over that player's one edge of the picture,
    and no two players share an edge."""
    from companion.simulate import play_random_game
    from vision.render.sequence import game_sequence

    frames = game_sequence(0, "stackernoes", n_tiles=8, size=(320, 180))
    g = frames[-1].spec.game
    sim = play_random_game(g["name"], len(g["players"]), g["seed"], max_moves=g["moves_applied"])
    laid_by = [sim.moves[c - 1].player for c in g["play_moves"]]
    assert laid_by[:3] == ["Ann", "Cy", "Ann"]

    def edge(entry: tuple[float, float]) -> str:
        x, y = entry
        return "bottom" if y == 1.0 else "top" if y == 0.0 else "left" if x == 0.0 else "right"

    edges: dict[str, set[str]] = {}
    for f in frames:
        if f.event == "hand":
            edges.setdefault(laid_by[f.placed - 1], set()).add(edge(f.spec.hands[0].entry))
    assert all(len(e) == 1 for e in edges.values()) and len(edges) >= 2
    assert len(set().union(*edges.values())) == len(edges)


@pytest.mark.parametrize("game", ["fortytwo", "moon", "castlerock"])
def test_trick_games_and_solitaire_lay_out_every_tile_played(game: str) -> None:
    from companion.simulate import play_random_game
    spec = random_scene_spec(71, game=game, size=SMALL, loose=0, boneyard=False, hands=0)
    truth = render_scene(spec).truth
    g = truth["game"]
    sim = play_random_game(g["name"], g["players"], g["seed"], max_moves=g["moves_applied"])
    if game == "castlerock":
        expect = {str(t) for t in sim.game.row} | {str(t) for t in sim.game.removed}
        face_down = {str(t) for t in sim.game.removed}
    else:
        played = [m.tile for m in sim.moves if m.kind == "play"]
        expect = {str(t) for t in played}
        in_trick = {str(t) for _, t in sim.game.trick}
        face_down = expect - in_trick
        assert g["tricks_won"] == dict(sim.game.tricks_won)  # winners found from the leads
    assert {t["tile"] for t in truth["tiles"]} == expect
    assert {t["tile"] for t in truth["tiles"] if not t["face_up"]} == face_down


# --- stacked scenes (vision.render.stacking) ----------------------------------------------------

@pytest.mark.parametrize("seed", [1, 3])
def test_stacked_scene_truth_has_consistent_layers_and_supports(seed: int) -> None:
    from vision.render.stacking import MAX_LAYER, stacked_scene_spec

    spec = stacked_scene_spec(seed, size=SMALL, tilt_range=(20, 40))
    truth = render_scene(spec).truth
    tiles = truth["tiles"]
    assert max(t["layer"] for t in tiles) <= MAX_LAYER
    for k, t in enumerate(tiles):
        if t["layer"] == 0:
            assert t["supports"] == []
        else:
            assert t["supports"], f"tile {k} at layer {t['layer']} rests on nothing"
            assert all(tiles[s]["layer"] == t["layer"] - 1 for s in t["supports"])
            assert all(s < k for s in t["supports"])  # build order: supports come first
    # spans and bridges: some tile rests on two tiles
    assert any(len(t["supports"]) == 2 for t in tiles)


def test_lower_layers_never_hide_the_tile_above() -> None:
    """A bridge over a gap seen at a steep tilt: its supports' tops are nearer the camera than
    the bridge's centre, yet the bridge (higher) must be drawn over them."""
    tile = Tile.of(1, 2)
    L = geometry_for_set(6).length_mm
    g = 14.0
    placements = [Placement(Tile.of(0, 1), (0, 1), (-(L + g) / 2, 0.0), 0.0),
                  Placement(Tile.of(3, 4), (3, 4), ((L + g) / 2, 0.0), 0.0),
                  Placement(tile, (1, 2), (0.0, 0.0), 0.0, layer=1)]
    cam = CameraSpec(height_mm=300.0, tilt_deg=40.0, rotation_deg=90.0, hfov_deg=60.0)
    truth = render_scene(_spec(placements, camera=cam)).truth
    assert truth["tiles"][2]["visible"] > 0.97
    assert truth["tiles"][2]["supports"] == [0, 1]


def test_stack_sequence_builds_one_tile_per_frame() -> None:
    from vision.render.stacking import stack_sequence, stacked_scene_spec

    frames = stack_sequence(4, size=SMALL)
    full = stacked_scene_spec(4, size=SMALL)
    assert [f.placed for f in frames] == list(range(1, len(full.placements) + 1))
    assert frames[-1].spec.placements == full.placements
    assert all(f.spec.camera == full.camera and f.event == "still" for f in frames)
    with pytest.raises(RenderSpecError, match="set by stacked scenes"):
        stacked_scene_spec(4, layout="line")


@pytest.mark.parametrize("kind", ["mug", "can", "phone", "pad"])
def test_a_thing_on_the_table_hides_the_tiles_under_it_and_only_those(kind: str) -> None:
    """Something that is not a tile (vision.render.props) drawn over two tiles of a row of
    three: those two are hidden (their ``visible`` falls), the third is untouched, its outline
    is in the truth; without it the picture is what it was."""
    from vision.render.props import PropSpec

    row = [Placement(Tile.of(1, k), (1, k), (x, 0.0), 90.0)
           for k, x in ((2, -45.0), (3, -15.0), (4, 90.0))]
    plain = render_scene(_spec(row))
    thing = PropSpec(kind, (-30.0, 0.0), 0.0, (40, 40, 170))
    covered = render_scene(_spec(row, props=(thing,)))
    seen = {t["tile"]: t["visible"] for t in covered.truth["tiles"]}
    assert seen["1-2"] < 0.5 and seen["1-3"] < 0.5 < 0.99 < seen["1-4"]
    assert [p["kind"] for p in covered.truth["props"]] == [kind]
    outline = np.asarray(covered.truth["props"][0]["outline"], np.float32)
    c = _apply(_plane_h(covered.truth, 0.0), np.array([[-30.0, 0.0]]))[0]
    assert cv2.pointPolygonTest(outline, (float(c[0]), float(c[1])), False) > 0
    assert "props" not in plain.truth
    far = _spec(row, props=(PropSpec(kind, (900.0, 900.0)),))  # out of the picture: no change
    assert np.array_equal(render_scene(far).image_bgr, plain.image_bgr)


def test_a_thing_of_an_unknown_kind_is_refused_with_the_kinds() -> None:
    from vision.render.props import PropSpec

    with pytest.raises(RenderSpecError, match=r"prop kind 'vase' is unknown; use one of \['can'"):
        render_scene(_spec([], props=(PropSpec("vase", (0.0, 0.0)),)))
