"""Close-up renders (vision/render/closeup.py): small-tile and phone close-ups, opt-in looks."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
import pytest

from vision.render.closeup import (PHONE_FAMILIES, PHONE_KINDS, PHONE_SIZES, PHONE_TABLES,
                                   SMALL_FAMILIES, SMALL_MAX_TILES, SMALL_TABLES, SMALL_WIDTH,
                                   render_closeup, render_phone_closeup, render_small_closeup)
from vision.render.errors import RenderSpecError
from vision.render.styles import HELD_OUT_TILE_FAMILIES, TRAIN_TILE_FAMILIES


def _sides(quad: np.ndarray) -> tuple[float, float]:
    a = float(np.linalg.norm(quad[1] - quad[0]))
    b = float(np.linalg.norm(quad[2] - quad[1]))
    return min(a, b), max(a, b)


def test_the_single_tile_close_ups_are_drawn_as_before() -> None:
    """The small-tile option is opt-in: render_closeup's seeds give the pictures they gave
    before it was added (digest of seeds 0..3 taken at commit 77d68e7)."""
    h = hashlib.sha256()
    for seed in range(4):
        shot = render_closeup(seed)
        h.update(shot.image_bgr.tobytes())
        h.update(shot.corners.tobytes())
        h.update(repr((shot.halves, shot.table)).encode())
    assert h.hexdigest() == "df732c3ea324aadba956510e259d6e069a7f8ceba48358300ecb77b154b3ee03"


def test_small_close_ups_are_drawn_from_their_seed() -> None:
    a, b, c = (render_small_closeup(5, size=120), render_small_closeup(5, size=120),
               render_small_closeup(6, size=120))
    assert np.array_equal(a.image_bgr, b.image_bgr) and a.halves == b.halves
    assert np.array_equal(a.corners, b.corners)
    assert not np.array_equal(a.image_bgr, c.image_bgr)
    assert a.image_bgr.shape == (120, 120, 3)


@pytest.mark.parametrize("tiles", range(1, SMALL_MAX_TILES + 1))
def test_small_close_ups_hold_small_whole_tiles_apart(tiles: int) -> None:
    size = 160
    for seed in range(3):
        shot = render_small_closeup(100 * tiles + seed, size=size, tiles=tiles)
        assert shot.corners.shape == (tiles, 4, 2) and len(shot.halves) == tiles
        assert shot.table in SMALL_TABLES and shot.family in SMALL_FAMILIES
        assert ((shot.corners > -0.5) & (shot.corners < size - 0.5)).all()  # whole, not cut
        for q in shot.corners:
            width, length = _sides(q)
            assert SMALL_WIDTH[0] * size - 0.5 <= width <= SMALL_WIDTH[1] * size + 0.5
            assert 1.8 < length / width < 2.2
        for i in range(tiles):
            for j in range(i + 1, tiles):
                inter, _ = cv2.intersectConvexConvex(shot.corners[i].astype(np.float32),
                                                     shot.corners[j].astype(np.float32))
                assert inter <= 0  # tiles never overlap


def test_small_close_ups_cover_card_glare_and_blank_tiles() -> None:
    shots = [render_small_closeup(s, size=64) for s in range(40)]
    assert {s.table for s in shots} == set(SMALL_TABLES)
    assert {s.family for s in shots} == set(SMALL_FAMILIES)
    assert 8 <= sum(s.glare for s in shots) <= 32
    halves = [h for s in shots for h in s.halves]
    assert sum(h == (0, 0) for h in halves) >= 3  # 0-0 doubles, the most missed tiles
    card = render_small_closeup(1, size=96, table="card", tiles=1)
    q = card.corners[0]
    outside = np.ones((96, 96), np.uint8)
    cv2.fillConvexPoly(outside, np.round(q * 1.0).astype(np.int32), 0)
    outside = cv2.erode(outside, np.ones((9, 9), np.uint8))  # away from the tile and shadow
    assert card.image_bgr[outside > 0].mean() > 150  # pale card


def test_small_close_ups_use_only_training_tile_families() -> None:
    assert set(SMALL_FAMILIES) <= set(TRAIN_TILE_FAMILIES)
    for family in HELD_OUT_TILE_FAMILIES:
        with pytest.raises(RenderSpecError, match=repr(family)):
            render_small_closeup(0, family=family)


def test_small_close_up_tile_is_where_the_truth_says() -> None:
    """The face drawn inside the truth outline is brighter than the dark wood around it."""
    shot = render_small_closeup(3, size=192, tiles=1, table="wood", family="white")
    mask = np.zeros((192, 192), np.uint8)
    cv2.fillConvexPoly(mask, np.round(shot.corners[0]).astype(np.int32), 1)
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8)) > 0
    ring = (cv2.dilate(mask, np.ones((15, 15), np.uint8)) > 0) & ~(mask > 0)
    grey = cv2.cvtColor(shot.image_bgr, cv2.COLOR_BGR2GRAY).astype(float)
    assert grey[inner].mean() > grey[ring].mean() + 20


@pytest.mark.parametrize("kwargs, named", [
    ({"size": 20}, "20"), ({"tiles": 0}, "0"), ({"tiles": SMALL_MAX_TILES + 1},
                                                 str(SMALL_MAX_TILES + 1)),
    ({"table": "stone"}, "'stone'"), ({"family": "black"}, "'black'"),
])
def test_bad_small_close_up_requests_are_named(kwargs: dict, named: str) -> None:
    with pytest.raises(RenderSpecError, match=named):
        render_small_closeup(0, **kwargs)


def test_phone_close_ups_are_drawn_from_their_seed() -> None:
    a, b = render_phone_closeup(11), render_phone_closeup(11)
    assert np.array_equal(a.image_bgr, b.image_bgr) and np.array_equal(a.corners, b.corners)
    assert (a.halves, a.size_class, a.kind, a.table) == (b.halves, b.size_class, b.kind, b.table)
    assert not np.array_equal(a.image_bgr, render_phone_closeup(12).image_bgr)


@pytest.mark.parametrize("size_class", list(PHONE_SIZES))
def test_phone_close_up_tile_is_of_its_size_class_and_inside(size_class: str) -> None:
    lo, hi = PHONE_SIZES[size_class]
    for seed in range(6):
        shot = render_phone_closeup(seed, size_class=size_class)
        width, length = _sides(shot.corners)
        assert lo * 100 - 0.5 <= width <= hi * 100 + 0.5
        assert 1.8 < length / width < 2.2
        assert (shot.corners > 0).all() and (shot.corners < 99).all()


def test_phone_close_ups_draw_blank_doubles_blank_halves_and_every_table() -> None:
    shots = [render_phone_closeup(seed) for seed in range(90)]
    kinds = {s.kind for s in shots}
    assert kinds == set(PHONE_KINDS)
    for s in shots:
        if s.kind == "0-0":
            assert s.halves == (0, 0)
        elif s.kind == "blank half":
            assert 0 in s.halves and s.halves != (0, 0)
        else:
            assert 0 not in s.halves
    assert {s.table for s in shots} == set(PHONE_TABLES)
    assert {s.family for s in shots} <= set(PHONE_FAMILIES)
    assert all(render_phone_closeup(seed, tables=("wood", "black")).table in ("wood", "black")
               for seed in range(5))


def test_phone_close_up_blank_double_shows_its_divider() -> None:
    """Phone close-ups draw every tile with its divider (real sets have one): across the middle
    of a large 0-0 the face is darker than a quarter of the way along."""
    shot = render_phone_closeup(4, size=200, size_class="large", kind="0-0", table="black")
    q = shot.corners
    grey = cv2.cvtColor(shot.image_bgr, cv2.COLOR_BGR2GRAY).astype(float)

    def at(t: float) -> float:
        a, b = q[0] + (q[3] - q[0]) * t, q[1] + (q[2] - q[1]) * t
        pts = [a + (b - a) * s for s in np.linspace(0.3, 0.7, 9)]
        return float(np.mean([grey[int(round(p[1])), int(round(p[0]))] for p in pts]))

    assert at(0.5) < min(at(0.25), at(0.75)) - 25


@pytest.mark.parametrize("kwargs, named", [
    ({"size": 20}, "20"), ({"size_class": "tiny"}, "'tiny'"), ({"kind": "0-1"}, "'0-1'"),
    ({"table": "felt"}, "'felt'"), ({"tables": ()}, "non-empty"),
])
def test_bad_phone_close_up_requests_are_named(kwargs: dict, named: str) -> None:
    with pytest.raises(RenderSpecError, match=named):
        render_phone_closeup(0, **kwargs)
