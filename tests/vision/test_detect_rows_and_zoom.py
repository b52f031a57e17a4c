"""The detector's pip rows (pips run together into bars pass the ink gate) and its larger pass
over small tiles that leave the network's face unexplained (vision.detect.PIP_ROWS,
vision.detect.ZOOM_UNEXPLAINED)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
import reader_synth as synth

import vision.detect as detect
import vision.tile_finder as tf
from vision.evaluate import _poly_iou, rendered_scenes
from vision.tile_finder import FoundTile

FACE, INK = (225, 240, 245), (20, 20, 20)
WIDTH = 40.0


def _tile(img: np.ndarray, centre: tuple[float, float], angle: float, ink: str) -> np.ndarray:
    """A pale tile face with no divider drawn on ``img``; its second half holds ``ink``:
    "bars" (two rows of pips run together, along the tile), "pips" (six round pips), "veins"
    (faint grey blots, as a marbled back) or "none"; its corners."""
    q = synth.tile_corners(centre, angle, WIDTH)
    cv2.fillConvexPoly(img, np.round(q * 8).astype(np.int32), FACE, cv2.LINE_AA, 3)
    a = math.radians(angle)
    along, across = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    c = np.asarray(centre, float)
    if ink == "bars":
        for side in (-0.25, 0.25):
            p0 = c + along * 0.15 * WIDTH + across * side * WIDTH
            p1 = c + along * 0.85 * WIDTH + across * side * WIDTH
            cv2.line(img, tuple(int(v) for v in np.round(p0 * 8)),
                     tuple(int(v) for v in np.round(p1 * 8)), INK, int(0.15 * WIDTH),
                     cv2.LINE_AA, 3)
    elif ink == "pips":
        for gx in (-0.25, 0.25):
            for gy in (0.25, 0.5, 0.75):
                p = c + along * gy * WIDTH + across * gx * WIDTH
                cv2.circle(img, tuple(int(v) for v in np.round(p * 8)), int(0.09 * WIDTH * 8), INK,
                           -1, cv2.LINE_AA, 3)
    elif ink == "veins":
        rng = np.random.default_rng(5)
        for _ in range(5):
            p = (c + along * rng.uniform(0.1, 0.9) * WIDTH
                 + across * rng.uniform(-0.3, 0.3) * WIDTH)
            q_end = p + rng.uniform(-8, 8, 2)
            cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in q_end),
                     tuple(v - 30 for v in FACE), 1, cv2.LINE_AA)
    return q


@pytest.mark.parametrize("angle", [0.0, 30.0])
@pytest.mark.parametrize("ink, rows", [("bars", 2), ("pips", 0), ("veins", 0), ("none", 0)])
def test_pip_rows_are_bars_of_run_together_pips(angle, ink, rows):
    img = synth.table(300, 200, colour=(60, 60, 60), seed=2)
    q = _tile(img, (150, 100), angle, ink)
    assert detect._pip_rows(detect.ink_maps_of(img), q) == rows


def _net_maps(img: np.ndarray, tiles: list[np.ndarray]) -> np.ndarray:
    """Kernel and face maps at half size (scale 1) that back ``tiles`` fully."""
    h, w = img.shape[:2]
    maps = np.zeros((2, (h + 1) // 2, (w + 1) // 2), np.float32)
    for q in tiles:
        pts = np.round(((q + 0.5) / 2 - 0.5) * 16).astype(np.int32)
        cv2.fillConvexPoly(maps[0], pts, 1.0, cv2.LINE_8, 4)
        cv2.fillConvexPoly(maps[1], pts, 1.0, cv2.LINE_8, 4)
    return maps


@pytest.mark.parametrize("rows, ink, kept", [(2, "bars", True), (0, "bars", False),
                                             (2, "veins", False)])
def test_a_sure_tile_whose_pips_ran_together_passes_the_ink_gate(monkeypatch, rows, ink, kept):
    """Bars show no divider and no round pips: only PIP_ROWS lets such a tile through; a back's
    faint veins never do."""
    monkeypatch.setattr(detect, "PIP_ROWS", rows)
    img = synth.table(300, 200, colour=(60, 60, 60), seed=2)
    q = _tile(img, (150, 100), 10.0, ink)
    ink_maps = detect.ink_maps_of(img)
    (divider, _fill, pips), _ = detect._quad_score(ink_maps, q, img, first=True)
    assert divider < detect.MIN_DIVIDER_SCORE and pips < detect.PIPS_ALONE
    tiles, _, _ = detect._checked_net_tiles([FoundTile(q, False, 0.9)], _net_maps(img, [q]), 1.0,
                                            img, ink_maps)
    assert (len(tiles) == 1) is kept
    if kept:
        assert _poly_iou(tiles[0].corners, q) > 0.9


def test_face_left_unexplained_is_found_and_explained_face_is_not():
    img = np.zeros((200, 300, 3), np.uint8)
    a, b = synth.tile_corners((100, 100), 0, 30), synth.tile_corners((220, 100), 90, 30)
    face = _net_maps(img, [a, b])[1]
    kept = [detect.TileCandidate(a, False, 1.0, "light")]
    *_, blobs = detect._unexplained_face(face, 1.0, kept, 30.0, 300, 200)
    assert len(blobs) == 1
    x, y, bw, bh = blobs[0][1]  # working px (scale 1): the box of the tile at (220, 100)
    assert x <= 220 - 15 <= x + bw and y <= 100 <= y + bh
    kept.append(detect.TileCandidate(b, False, 1.0, "light"))
    assert detect._unexplained_face(face, 1.0, kept, 30.0, 300, 200)[3] == []


def test_a_larger_pass_is_asked_for_without_a_split_tile_only_when_told(monkeypatch):
    """Small tiles whose kernels all came apart: the finder's own rule works the picture once;
    ``split_only=False`` works it larger."""
    kernel = np.zeros((180, 320), np.float32)
    for i in range(6):  # separate kernels of tiles 12 working px wide (6 x 12 at half size)
        kernel[40:43 + 1, 20 + 30 * i:27 + 30 * i + 1] = 0.95
    finder = tf.shared_finder()
    sides: list[int | None] = []

    def fake_maps(frame_bgr: np.ndarray, side: int | None = None) -> tuple[np.ndarray, float]:
        sides.append(side)
        s = (side or tf.WORK_SIDE) / 1280
        big = cv2.resize(kernel, (round(640 * s), round(360 * s)), interpolation=cv2.INTER_LINEAR)
        return np.stack([big, big]), s

    monkeypatch.setattr(finder, "maps", fake_maps)
    frame = np.zeros((720, 1280, 3), np.uint8)
    found, _, s = finder.find_with_maps(frame)
    assert sides == [None] and s == 0.5 and not any(t.split for t in found)
    assert finder.larger(frame, found, s) is None
    got = finder.larger(frame, found, s, split_only=False)
    assert got is not None and got[2] > 1.15 * s and len(got[0]) == 6


@pytest.mark.parametrize("zoom", [True, False])
def test_small_tiles_at_a_hub_are_found_on_the_larger_pass(monkeypatch, zoom):
    """Tuning scene 1,600,349 (held-out looks, never trained on): small tiles at a hub, none of
    the first pass's tiles split, a tile the first pass misses (the 0-9 at the hub, its face
    unexplained): all 28 whole tiles found with the larger pass and nothing else; without it
    the 0-9 is missed.

    Session 13: with the old finder the first pass missed two tiles (26 of 28 without the
    larger pass); the retrained finder (models/tile_finder.md) misses only the 0-9 (27). The
    expectation is now the ground truth (every whole tile with the pass, the 0-9 not without
    it), not a count the network happened to reach."""
    ((_, image, truth),) = list(rendered_scenes(1, 1_600_349))
    whole = {g["tile"]: np.asarray(g["corners"], float) for g in truth["tiles"]
             if g["face_up"] and g["visible"] >= 0.9 and not g["cut"]}
    monkeypatch.setattr(detect, "ZOOM_UNEXPLAINED", zoom)
    found = [t for t in detect.detect_tiles(image).tiles if not t.cut]
    hit = {n for n, q in whole.items() if any(_poly_iou(t.corners, q) >= 0.7 for t in found)}
    assert len(whole) == 28
    if zoom:
        assert hit == set(whole) and len(found) == len(whole)
    else:
        assert "0-9" not in hit and len(found) == len(hit)


class _TableFinder:
    """A stand-in for the tile finder over a 1280 x 720 table picture: its one pass at the
    table scale finds ``found``, with kernel and face maps backing the tiles of score 0.8 or
    more (weak kernels have no face under them)."""

    def __init__(self, found: list[FoundTile]) -> None:
        self.found = found

    def find_with_maps(self, frame_bgr: np.ndarray) -> tuple[list[FoundTile], np.ndarray, float]:
        s = tf.WORK_SIDE / max(frame_bgr.shape[:2])
        maps = np.zeros((2, 180, 320), np.float32)
        for t in self.found:
            if t.score >= 0.8:
                pts = np.round(((t.corners + 0.5) * s / 2 - 0.5) * 16).astype(np.int32)
                cv2.fillConvexPoly(maps[0], pts, t.score, cv2.LINE_8, 4)
                cv2.fillConvexPoly(maps[1], pts, 1.0, cv2.LINE_8, 4)
        return self.found, maps, s


@pytest.mark.parametrize("weak, kept", [(25, [0.9]), (19, [0.82, 0.9]), (0, [0.82, 0.9])])
def test_a_textured_table_needs_surer_kernels(monkeypatch, weak, kept):
    """Where the finder gives SPECKLE_WEAK or more weak kernels (a speckled table), a tile needs
    a kernel score of SPECKLE_SCORE; elsewhere NET_LOW_SCORE."""
    img = synth.table(1280, 720, colour=(70, 70, 70), seed=4)
    a = synth.draw_tile(img, (400, 360), 0, 40, (3, 5))
    b = synth.draw_tile(img, (800, 360), 90, 40, (2, 6))
    rng = np.random.default_rng(1)
    specks = [FoundTile(synth.tile_corners((float(x), float(y)), 30, 20), False, 0.7)
              for x, y in zip(rng.uniform(100, 1180, weak), rng.uniform(100, 620, weak))]
    finder = _TableFinder([FoundTile(a, False, 0.82), FoundTile(b, False, 0.9)] + specks)
    monkeypatch.setattr(tf, "shared_finder", lambda: finder)
    tiles = detect.detect_tiles(img).tiles
    scores = sorted(0.82 if _poly_iou(t.corners, a) > 0.8 else 0.9 for t in tiles
                    if max(_poly_iou(t.corners, a), _poly_iou(t.corners, b)) > 0.8)
    assert len(tiles) == len(kept) and scores == kept
    monkeypatch.setattr(detect, "SPECKLE_WEAK", 0)
    assert len(detect.detect_tiles(img).tiles) == 2
