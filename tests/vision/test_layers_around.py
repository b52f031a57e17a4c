"""The around diagnosis of :mod:`vision.render.layerfit` (``--around``): the picture around a
found tile, which shows the ends of a support the reader did not find."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from layer_shapes import rect as _rect

from vision.layers import _blurred
from vision.render import layerfit
from vision.render.errors import RenderSpecError


def _draw(img: np.ndarray, quad: np.ndarray, face: int) -> None:
    p = np.round(quad * 16).astype(np.int32)
    cv2.fillConvexPoly(img, p, (face, face, face), cv2.LINE_AA, 4)
    cv2.polylines(img, [p], True, (90, 90, 90), 2, cv2.LINE_AA, 4)


def test_around_features_see_the_ends_of_a_support_nobody_found() -> None:
    top = _rect(200, 150, 120, 60, 0)
    alone = np.full((300, 400, 3), 70, np.uint8)
    _draw(alone, top, 220)
    on_support = np.full((300, 400, 3), 70, np.uint8)
    _draw(on_support, _rect(200, 150, 120, 60, 90), 210)  # lies crosswise under it
    _draw(on_support, top, 220)
    f_alone = layerfit.around_features(_blurred(alone), top, [])
    f_on = layerfit.around_features(_blurred(on_support), top, [])
    n = 9 * len(layerfit.AROUND_BANDS) + 3
    assert f_alone.shape == f_on.shape == (n,) and f_on[-1] == 1.0
    assert np.isfinite(f_alone).all() and np.isfinite(f_on).all()
    bands = len(layerfit.AROUND_BANDS)
    # the largest face likeness per band (over edges): the support's ends stick out 30 px
    best_alone, best_on = f_alone[2 * bands: 3 * bands], f_on[2 * bands: 3 * bands]
    assert best_on[1] > best_alone[1] + 0.5
    # ... while the known neighbour's pixels are left out
    f_known = layerfit.around_features(_blurred(on_support), top,
                                       [_rect(200, 150, 120, 60, 90)])
    assert f_known[2 * bands + 1] < best_on[1] - 0.5


def test_fit_around_refuses_held_out_seeds() -> None:
    with pytest.raises(RenderSpecError, match="training seeds only"):
        layerfit.fit_around(999_990, 20, 200, 0)
    with pytest.raises(RenderSpecError, match="training seeds only"):
        layerfit.fit_around(200, 10, 999_999, 5)
