"""The side-wall diagnosis of :mod:`vision.render.layerfit` (``--walls``): the picture below a
tile's edge facing the camera, and the softmax model fitted on it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.layers import Geometry
from vision.render import CameraSpec, layerfit, render_scene
from vision.render.camera import Camera
from vision.render.errors import RenderSpecError
from vision.render.stacking import stacked_scene_spec


def _tiles(seed: int) -> tuple[np.ndarray, list[np.ndarray], Geometry]:
    scene = render_scene(stacked_scene_spec(seed))
    quads = [np.asarray(t["corners"], np.float64) for t in scene.truth["tiles"]
             if t["visible"] > 0.9 and t["face_up"] and not t["cut"]]
    return scene.image_bgr, quads, Geometry.from_truth(scene.truth)


def test_wall_features_need_a_tilted_camera() -> None:
    # 203: camera tilted 36 degrees, walls show
    img, quads, geom = _tiles(203)
    feats = [layerfit.wall_features(img, q, quads[:i] + quads[i + 1:], geom)
             for i, q in enumerate(quads)]
    shown = [f for f in feats if f is not None]
    assert shown
    n = 3 * len(layerfit.WALL_OFFSETS) + 4
    assert all(f.shape == (n,) and np.isfinite(f).all() and f[-1] == 1.0 for f in shown)
    # straight down on a tile under the camera: a thickness spans no pixels along "down"
    cam = Camera(CameraSpec(height_mm=450.0, tilt_deg=0.0, rotation_deg=20.0, hfov_deg=60.0),
                 1280, 720)
    flat = Geometry(cam.K, cam.rvec, cam.t, (48.0, 24.0, 8.0))
    top = np.array([[-24.0, -12.0], [-24.0, 12.0], [24.0, 12.0], [24.0, -12.0]])
    quad = cam.project(np.column_stack([top, np.full(4, -8.0)]))
    assert layerfit.wall_features(np.full((720, 1280, 3), 90, np.uint8), quad, [], flat) is None


def test_fit_softmax_separates_classes_and_names_bad_input() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 400)
    X = np.column_stack([y + rng.normal(0, 0.2, 400), rng.normal(0, 1, 400), np.ones(400)])
    W, mu, sd = layerfit.fit_softmax(X, y)
    Z = X.copy()
    Z[:, :-1] = (Z[:, :-1] - mu) / sd
    assert ((Z @ W).argmax(1) == y).mean() > 0.9
    with pytest.raises(RenderSpecError, match="fit_softmax"):
        layerfit.fit_softmax(X[:, 0], y)


def test_fit_walls_refuses_held_out_seeds() -> None:
    with pytest.raises(RenderSpecError, match="training seeds only"):
        layerfit.fit_walls(999_990, 20)
    with pytest.raises(RenderSpecError, match="training seeds only"):
        layerfit.fit_walls(200, 10, flat_seed=1_000_000, flat_scenes=5)
