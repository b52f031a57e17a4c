"""``python -m companion.livelayers``: its checks of the command line and the true camera it
gives a crop (the measurement itself runs in minutes and is a benchmark, not a test)."""

from __future__ import annotations

import numpy as np
import pytest

from companion import livelayers
from vision.layers import Geometry


def test_training_seeds_are_refused_with_the_range_to_use(capsys):
    with pytest.raises(SystemExit) as exc:
        livelayers.main(["--seed", "4700", "--scenes", "2"])
    assert exc.value.code == 2
    assert "held-out" in capsys.readouterr().err


class _Reader:
    def __init__(self):
        self.given = []

    def read(self, frame_bgr, set_max, geometry=None, **kw):
        self.given.append(geometry)
        return None


def test_the_true_camera_moves_to_a_crops_origin():
    truth = {"camera": {"K": [[800.0, 0, 640], [0, 800.0, 360], [0, 0, 1]],
                        "rvec": [0.0, 0.0, 0.0], "tvec": [0.0, 0.0, 700.0]},
             "style": {"tile_mm": [48, 24, 8]}}
    reader = _Reader()
    cam = livelayers._TrueCamera(reader, truth)
    frame = np.zeros((720, 1280, 3), np.uint8)
    cam.read(frame, 6)
    cam.read(frame[100:300, 200:500], 6)
    whole, crop = reader.given
    assert isinstance(whole, Geometry)
    assert np.allclose(whole.K, truth["camera"]["K"])
    assert np.allclose(crop.K[:2, 2], [640 - 200, 360 - 100])
