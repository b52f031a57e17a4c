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
