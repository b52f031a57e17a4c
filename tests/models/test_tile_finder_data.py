"""Training data of the tile finder (models/tile_finder_data.py): extra scenes and board art."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.render import random_scene_spec, render_scene

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "models"))
import tile_finder_data as data  # noqa: E402


def test_extra_scenes_cover_board_art_hubs_chains_and_cloths() -> None:
    pins = [data.extra_constraints(i) for i in range(16)]
    assert sum(bool(p.get("decor")) for p in pins) == 8
    assert sum(p.get("game") == "chickenfoot" for p in pins) == 4
    assert {p.get("layout") for p in pins} >= {"chickenfoot", "spinner", "line", "trains"}
    assert sum(p.get("table_families") == ["cloth"] for p in pins) == 2
    for i, p in enumerate(pins):  # every pin is one the renderer takes
        spec = random_scene_spec(data.EXTRA_SEED0 + i, size=(320, 180), **p)
        assert spec.decor == bool(p.get("decor"))


def test_board_art_is_background_in_the_targets() -> None:
    spec = random_scene_spec(data.EXTRA_SEED0, size=(640, 360), **data.extra_constraints(0))
    assert spec.decor
    art = render_scene(spec)
    plain = render_scene(dataclasses.replace(spec, decor=False))
    a = data.scene_samples(art.image_bgr, art.truth, np.random.default_rng(1), 2)
    b = data.scene_samples(plain.image_bgr, plain.truth, np.random.default_rng(1), 2)
    for (ia, ta), (ib, tb) in zip(a, b):
        assert np.array_equal(ta, tb)  # same targets: the art is never a tile
    assert any(not np.array_equal(ia, ib) for (ia, _), (ib, _) in zip(a, b))


def test_unknown_scene_kind_is_named() -> None:
    with pytest.raises(ValueError, match="'bogus'"):
        data.make_samples(1, 0, 1, False, 7, 1, "x", [], kind="bogus")


def test_small_close_up_samples_mark_each_small_tile() -> None:
    """A small-tile close-up sample is the picture enlarged to the crop, with a kernel target at
    every tile's centre and the face target over every tile (scored everywhere)."""
    import cv2

    from vision.render.closeup import render_small_closeup
    seed = data.SMALL_CLOSEUP_SEED0 + 3
    rng = np.random.default_rng(5)
    img, planes = data.small_closeup_sample(seed, rng)
    drawn = int(np.random.default_rng(5).integers(data.SMALL_DRAWN[0], data.SMALL_DRAWN[1] + 1))
    shot = render_small_closeup(seed, size=drawn)
    assert img.shape == (data.CROP, data.CROP, 3)
    assert planes.shape == (3, data.CROP // 2, data.CROP // 2)
    assert (planes[2] == 255).all()
    k = data.CROP / drawn
    for q in shot.corners:
        cx, cy = ((q.mean(axis=0) + 0.5) * k - 0.5 + 0.5) / 2 - 0.5
        assert planes[0, int(round(cy)), int(round(cx))] > 200
        assert planes[1, int(round(cy)), int(round(cx))] > 200
    face = planes[1] > 127
    expected = sum(cv2.contourArea(q.astype(np.float32)) for q in shot.corners) * (k / 2) ** 2
    assert 0.8 * expected < face.sum() < 1.2 * expected


def test_focus_scenes_pin_the_missed_families_in_training_looks_only() -> None:
    """The focus scenes (fine-tuning on what the finder misses): coloured tiles on felt, long
    chains of small tiles, small pale tiles on pale tables; never a held-out look."""
    pins = [data.focus_constraints(i) for i in range(8)]
    specs = [random_scene_spec(data.FOCUS_SEED0 + i, size=(320, 180), **p)
             for i, p in enumerate(pins)]
    families = [{s.family for s in spec.tile_styles} for spec in specs]
    tables = [spec.table_family for spec in specs]
    for i, (p, f, t) in enumerate(zip(pins, families, tables)):
        chain = p.get("layout") in ("line", "trains") and p.get("n_tiles", 0) >= 18
        if i % 4 == 0:
            assert f == {"coloured"} and t == "felt"
        elif i % 4 == 1:
            assert chain and p["hfov_range"][0] >= 70  # a wide lens: small tiles
        elif i % 4 == 2:
            assert f <= {"ivory", "white"} and t in ("paper", "cloth")
        else:
            assert chain and f <= {"coloured", "pipcolour"} and t == "felt"
    assert not any(f & {"marbled"} for f in families) and "stone" not in tables
    assert not any(spec.held_out for spec in specs)


def test_blank_heavy_scenes_make_blanks_common_and_keep_the_face_down_tiles() -> None:
    """The blank-heavy scenes (fine-tuning on blank faces): training looks only, each with a
    face-down boneyard (backs are the blank faces' look-alikes); face-up tiles are turned into
    double blanks and blank halves with the seeded generator, face-down ones are left alone."""
    pins = [data.blank_constraints(i) for i in range(4)]
    specs = [random_scene_spec(data.BLANK_SEED0 + i, size=(320, 180), **p)
             for i, p in enumerate(pins)]
    assert all(p["boneyard"] for p in pins)
    families = [{s.family for s in spec.tile_styles} for spec in specs]
    assert families[0] == {"black"} and families[1] == {"coloured"}
    assert families[2] <= {"ivory", "white"} and pins[3]["hands"] == 1
    assert not any(f & {"marbled"} for f in families) and not any(s.held_out for s in specs)
    blanks = face_up = 0
    for i, spec in enumerate(specs):
        made = data.blank_heavy(spec, np.random.default_rng(i))
        assert made == data.blank_heavy(spec, np.random.default_rng(i))  # seeded
        assert len(made.placements) == len(spec.placements)
        for before, after in zip(spec.placements, made.placements):
            assert after.center_mm == before.center_mm and after.face_up == before.face_up
            if not before.face_up:
                assert after == before
            else:
                face_up += 1
                blanks += 0 in after.halves
                assert after.halves == before.halves or 0 in after.halves
    assert face_up > 0 and blanks >= 0.5 * face_up


def test_phone_close_up_samples_mark_the_tile_and_leave_out_stone() -> None:
    """A phone close-up sample is the picture enlarged to the crop, with the kernel target at
    the tile's centre and the face target over it; training samples never draw the held-out
    stone table."""
    import cv2

    from vision.render.closeup import render_phone_closeup
    assert "stone" not in data.PHONE_TRAIN_TABLES
    seed = data.PHONE_CLOSEUP_SEED0 + 5
    img, planes = data.phone_closeup_sample(seed, np.random.default_rng(2))
    drawn = int(np.random.default_rng(2).integers(data.PHONE_DRAWN[0], data.PHONE_DRAWN[1] + 1))
    shot = render_phone_closeup(seed, size=drawn, tables=data.PHONE_TRAIN_TABLES)
    assert img.shape == (data.CROP, data.CROP, 3)
    assert planes.shape == (3, data.CROP // 2, data.CROP // 2) and (planes[2] == 255).all()
    k = data.CROP / drawn
    cx, cy = ((shot.corners.mean(axis=0) + 0.5) * k - 0.5 + 0.5) / 2 - 0.5
    assert planes[0, int(round(cy)), int(round(cx))] > 200
    face = planes[1] > 127
    expected = cv2.contourArea(shot.corners.astype(np.float32)) * (k / 2) ** 2
    assert 0.8 * expected < face.sum() < 1.2 * expected
    assert all(render_phone_closeup(s, tables=data.PHONE_TRAIN_TABLES).table != "stone"
               for s in range(data.PHONE_CLOSEUP_SEED0, data.PHONE_CLOSEUP_SEED0 + 30))
