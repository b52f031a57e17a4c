"""Kernel blobs of tiles touching at angles (an L, a T, a hub) split into one tile each by fitting
kernel rectangles of the neighbours' size (:func:`vision.tile_finder._fit_kernels`)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import vision.tile_finder as tile_finder
from vision.evaluate import _poly_iou
from vision.tile_finder import KERNEL_SHRINK, tiles_from_kernel

#: Tiles of the synthetic kernel maps, in working px (the picture is worked at scale 1).
LENGTH, WIDTH = 44.0, 22.0


def _quad(centre: tuple[float, float], angle_deg: float, length: float = LENGTH,
          width: float = WIDTH) -> np.ndarray:
    a = math.radians(angle_deg)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-u[1], u[0]])
    c = np.asarray(centre, float)
    hl, hw = length / 2, width / 2
    return np.array([c - hl * u - hw * v, c - hl * u + hw * v, c + hl * u + hw * v,
                     c + hl * u - hw * v])


def _kernel_map(tiles: list[np.ndarray], necks: list[tuple[int, int]], size: tuple[int, int]
                ) -> np.ndarray:
    """A kernel probability map at half the working size: each tile's kernel (its quad shrunk
    to KERNEL_SHRINK) at 0.97, and a neck of 0.75 between the kernels of the tile pairs
    ``necks`` (what the network gives where touching tiles' kernels run together)."""
    w, h = size
    full = np.zeros((h, w), np.float32)
    for a, b in necks:
        ca, cb = tiles[a].mean(axis=0), tiles[b].mean(axis=0)
        cv2.line(full, tuple(np.round(ca).astype(int)), tuple(np.round(cb).astype(int)), 0.75,
                 thickness=6)
    for q in tiles:
        c = q.mean(axis=0)
        kernel = c + (q - c) * KERNEL_SHRINK
        cv2.fillConvexPoly(full, np.round(kernel * 16).astype(np.int32), 0.97, cv2.LINE_8, 4)
    return cv2.resize(full, (w // 2, h // 2), interpolation=cv2.INTER_AREA)


def _singles() -> list[np.ndarray]:
    """Three lone tiles (whose kernels give the size the merged blobs are fitted with)."""
    return [_quad((60.0 + 70 * i, 40.0), 0.0) for i in range(3)]


def _matched(found: list, truth: list[np.ndarray], least: float = 0.7) -> int:
    return sum(1 for q in truth if any(_poly_iou(f.corners, q) >= least for f in found))


def _toe(parent: np.ndarray, angle_deg: float) -> np.ndarray:
    """A tile laid at ``angle_deg`` whose near end touches the far end of ``parent`` (a toe
    against its tile, its kernel running into the parent's at the corner they share)."""
    end = (parent[2] + parent[3]) / 2
    a = math.radians(angle_deg)
    return _quad(tuple(end + np.array([math.cos(a), math.sin(a)]) * (LENGTH / 2 + 1)
                       + np.array([0.0, WIDTH / 2])), angle_deg)


def test_a_toe_at_45_degrees_against_its_tile_gives_two_tiles() -> None:
    parent = _quad((120.0, 150.0), 0.0)
    toe = _toe(parent, 45.0)
    tiles = _singles() + [parent, toe]
    kernel = _kernel_map(tiles, [(3, 4)], (320, 240))
    found = tiles_from_kernel(kernel, 1.0, 320, 240)
    assert len(found) == 5
    assert _matched(found, tiles) == 5


def test_a_crosswise_double_at_a_tile_end_gives_both_tiles() -> None:
    """The chickenfoot demo's T: a double laid across the end of a tile."""
    tile = _quad((150.0, 160.0), 0.0)
    double = _quad((150.0 - LENGTH / 2 - WIDTH / 2 - 1, 160.0), 90.0)
    tiles = _singles() + [tile, double]
    kernel = _kernel_map(tiles, [(3, 4)], (320, 240))
    found = tiles_from_kernel(kernel, 1.0, 320, 240)
    assert _matched(found, tiles) == 5 and len(found) == 5


def test_a_hub_gives_its_seven_tiles_and_the_threshold_split_alone_does_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A crosswise double with three toes off each long side (straight out and at 45 degrees),
    every toe's kernel running into the double's."""
    centre = np.array([200.0, 190.0])
    double = _quad(tuple(centre), 90.0)
    tiles = _singles() + [double]
    for side in (-1, 1):
        for rel in (0.0, -45.0, 45.0):
            a = math.radians(side * rel) + (0.0 if side > 0 else math.pi)
            u = np.array([math.cos(a), math.sin(a)])
            start = centre + [side * (WIDTH / 2 + 1), 0.0]
            if rel:
                start = start + [side * WIDTH * 0.6, math.copysign(WIDTH * 1.25, rel)]
            tiles.append(_quad(tuple(start + u * LENGTH / 2), math.degrees(a)))
    hub = tiles[3:]
    necks = [(3, k) for k in range(4, 10)]
    kernel = _kernel_map(tiles, necks, (400, 360))
    found = tiles_from_kernel(kernel, 1.0, 400, 360)
    assert _matched(found, hub) == 7
    assert len(found) == 10
    monkeypatch.setattr(tile_finder, "FIT_SPLIT", False)
    assert _matched(tiles_from_kernel(kernel, 1.0, 400, 360), hub) < 7


def test_without_a_lone_tile_to_size_it_a_blob_keeps_the_threshold_split() -> None:
    """No tile-shaped blob in the picture: nothing to fit with, the blob is split as before."""
    parent = _quad((120.0, 150.0), 0.0)
    tiles = [parent, _toe(parent, 45.0)]
    kernel = _kernel_map(tiles, [(0, 1)], (320, 240))
    with_fit = tiles_from_kernel(kernel, 1.0, 320, 240)
    original = tile_finder.FIT_SPLIT
    try:
        tile_finder.FIT_SPLIT = False
        without = tiles_from_kernel(kernel, 1.0, 320, 240)
    finally:
        tile_finder.FIT_SPLIT = original
    assert [f.corners.round(3).tolist() for f in with_fit] == \
        [f.corners.round(3).tolist() for f in without]


def test_the_chickenfoot_demo_crop_with_a_t_joint_and_a_hub_reads_every_tile(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The part of the chickenfoot demo's step 16 the live loop reads (482 x 402 px at
    (443, 155)): 4-4 laid across the end of 4-9 (the T whose kernels ran together with 9-9's:
    4-9 was lost and the play entered by hand) and the centre 9-9 with its six toes. Measured:
    all 11 tiles found, none false. With the 8-epoch tile finder 4-9 was missed without the
    fitted split; the 24-epoch finder separates this T itself, so it is found either way (the
    split's own gain is tested on the hub above)."""
    from companion import demo
    from vision.detect import detect_tiles
    from vision.render.recording import StepRenderer, load_recording

    rec = load_recording(demo.recording_path("chickenfoot"))
    still, _, truth = StepRenderer(rec).frames(16)
    x0, y0, w, h = 443, 155, 482, 402
    crop = np.ascontiguousarray(still[y0:y0 + h, x0:x0 + w])
    quads = {g["tile"]: np.asarray(g["corners"], float) - (x0, y0)
             for g in truth["tiles"] if g.get("face_up")}
    inside = {k: q for k, q in quads.items()
              if (q >= 0).all() and (q[:, 0] < w).all() and (q[:, 1] < h).all()}
    assert {"4-4", "4-9", "9-9", "0-9", "1-9", "3-9", "5-9", "8-9"} <= set(inside)

    def missed() -> tuple[list[str], int]:
        tiles = detect_tiles(crop).tiles
        lost = [k for k, q in inside.items() if not any(_poly_iou(t.corners, q) >= 0.5
                                                         for t in tiles)]
        false = sum(1 for t in tiles if not t.cut
                    and max(_poly_iou(t.corners, q) for q in quads.values()) < 0.5)
        return lost, false

    assert missed() == ([], 0)
    monkeypatch.setattr(tile_finder, "FIT_SPLIT", False)
    assert missed() == ([], 0)


def _rendered(placements: list[tuple[tuple[int, int], tuple[float, float], float]],
              seed: int = 1_740_000) -> tuple[np.ndarray, list[np.ndarray]]:
    """A rendered picture (held-out seed of no training, tuning or evaluation range; its camera,
    table and tile look) of tiles ``(halves, centre mm from the middle, angle)``, and their true
    top-face corners."""
    import dataclasses

    from companion.tiles import Tile
    from vision.render import random_scene_spec, render_scene
    from vision.render.layouts import Placement

    base = random_scene_spec(seed, held_out=True, layout="line", n_tiles=10, set_max=9,
                             tilt_range=(0, 15), loose=0, boneyard=False, hands=0,
                             markers=False, tile_families=["ivory"], table_families=["wood"],
                             degrade=False)
    mid = np.mean([p.center_mm for p in base.placements], axis=0)
    placed = tuple(Placement(Tile.of(*h), h, (float(mid[0] + c[0]), float(mid[1] + c[1])), a)
                   for h, c, a in placements)
    camera = dataclasses.replace(base.camera, height_mm=base.camera.height_mm * 1.6,
                                 target_mm=(float(mid[0]), float(mid[1])))
    scene = render_scene(dataclasses.replace(base, placements=placed, camera=camera,
                                             tile_styles=(base.tile_styles[0],) * len(placed)))
    return scene.image_bgr, [np.asarray(t["corners"], float) for t in scene.truth["tiles"]]


def test_a_rendered_toe_at_45_degrees_against_its_tile_gives_two_tiles() -> None:
    from vision.detect import detect_tiles
    from vision.render.tiles import geometry_for_set

    g = geometry_for_set(9)
    along = np.array([math.cos(math.radians(45)), math.sin(math.radians(45))])
    # the toe's near end starts 0.4 mm beyond the middle of the 5-9's 5 end and runs up and
    # away from it; the toe lies at 45 degrees below the 5-9's line
    toe = np.array([g.length_mm / 2 + 0.4, 0.0]) + along * g.length_mm / 2 \
        + np.array([along[1], -along[0]]) * g.width_mm / 2
    image, truth = _rendered([((9, 5), (0.0, 0.0), 0.0), ((5, 3), tuple(toe), 45.0)])
    tiles = detect_tiles(image).tiles
    assert len(tiles) == 2
    assert all(any(_poly_iou(t.corners, q) >= 0.7 for t in tiles) for q in truth)


def test_specks_of_texture_do_not_size_the_split_of_whole_tiles() -> None:
    """Tile-shaped specks far smaller than the tiles (a set profile's colour view of a wood
    table is full of them) must not cut a blob of two large touching tiles into speck-sized
    tiles: the split falls back to the threshold split (as with no lone tile at all)."""
    scale_up = 3.0
    big = [_quad((150.0, 210.0), 0.0, LENGTH * scale_up, WIDTH * scale_up)]
    big.append(_quad((150.0 + LENGTH * scale_up / 2 + WIDTH * scale_up / 2 + 1,
                      210.0 + LENGTH * scale_up / 4), 90.0, LENGTH * scale_up,
                     WIDTH * scale_up))
    specks = [_quad((30.0 + 40 * i, 20.0), 0.0, LENGTH / 2, WIDTH / 2) for i in range(8)]
    kernel = _kernel_map(big + specks, [(0, 1)], (480, 400))
    found = tiles_from_kernel(kernel, 1.0, 480, 400)
    near_big = [f for f in found if f.corners.mean(axis=0)[1] > 80]
    speck_w = WIDTH / 2
    assert all(min(np.linalg.norm(f.corners[1] - f.corners[0]),
                   np.linalg.norm(f.corners[3] - f.corners[0])) > 1.5 * speck_w
               for f in near_big)
    original = tile_finder.FIT_THICKNESS
    try:
        tile_finder.FIT_THICKNESS = 0.0  # the guard off: speck-sized tiles are fitted there
        unguarded = [f for f in tiles_from_kernel(kernel, 1.0, 480, 400)
                     if f.corners.mean(axis=0)[1] > 80]
    finally:
        tile_finder.FIT_THICKNESS = original
    assert any(min(np.linalg.norm(f.corners[1] - f.corners[0]),
                   np.linalg.norm(f.corners[3] - f.corners[0])) <= 1.5 * speck_w
               for f in unguarded)
