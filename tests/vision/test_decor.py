"""Printed board art (vision.render.decor): opt-in, seeded, background only, held-out motifs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.render import decor, random_scene_spec, render_scene

SMALL = (320, 180)


def test_decor_is_off_by_default_and_changes_nothing_else_in_the_spec() -> None:
    plain = random_scene_spec(21, size=SMALL)
    art = random_scene_spec(21, size=SMALL, decor=True)
    assert plain.decor is False and art.decor is True
    assert repr(dataclasses.replace(art, decor=False)) == repr(plain)


def test_decor_paints_the_table_only() -> None:
    spec = random_scene_spec(33, size=SMALL, hands=0)
    plain = render_scene(spec)
    art = render_scene(dataclasses.replace(spec, decor=True))
    assert "decor" not in plain.truth["style"] and art.truth["style"]["decor"] is True
    assert [t["corners"] for t in art.truth["tiles"]] == [t["corners"] for t in plain.truth["tiles"]]
    assert [t["visible"] for t in art.truth["tiles"]] == [t["visible"] for t in plain.truth["tiles"]]
    diff = np.abs(art.image_bgr.astype(int) - plain.image_bgr.astype(int)).max(axis=2) > 20
    assert diff.mean() > 0.01  # the art shows


def _tex() -> np.ndarray:
    return np.full((200, 300, 3), 128, np.uint8)


def test_draw_decor_is_seeded() -> None:
    a = decor.draw_decor(_tex(), 5, (-150.0, -100.0), 1.0, (0.0, 0.0), (50.0, 25.0), False)
    b = decor.draw_decor(_tex(), 5, (-150.0, -100.0), 1.0, (0.0, 0.0), (50.0, 25.0), False)
    c = decor.draw_decor(_tex(), 6, (-150.0, -100.0), 1.0, (0.0, 0.0), (50.0, 25.0), False)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


@pytest.mark.parametrize("tex, ppm, needle", [
    (np.zeros((10, 10), np.uint8), 1.0, "uint8 BGR"),
    (np.zeros((10, 10, 3), np.float32), 1.0, "uint8 BGR"),
    (np.zeros((10, 10, 3), np.uint8), 0.0, "px per mm"),
])
def test_draw_decor_names_bad_input(tex: np.ndarray, ppm: float, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        decor.draw_decor(tex, 1, (0.0, 0.0), ppm, (0.0, 0.0), (50.0, 25.0), False)


def test_held_out_motifs_only_on_held_out_scenes(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    real = decor._shape

    def spy(kind, size_mm, angle_deg, rng):
        drawn.append(kind)
        return real(kind, size_mm, angle_deg, rng)

    monkeypatch.setattr(decor, "_shape", spy)
    for seed in range(12):
        decor.draw_decor(_tex(), seed, (-150.0, -100.0), 1.0, (0.0, 0.0), (50.0, 25.0), False)
    assert drawn and not set(drawn) & set(decor.HELD_OUT_MOTIFS)
    drawn.clear()
    for seed in range(12):
        decor.draw_decor(_tex(), seed, (-150.0, -100.0), 1.0, (0.0, 0.0), (50.0, 25.0), True)
    assert "hexagon" in drawn
