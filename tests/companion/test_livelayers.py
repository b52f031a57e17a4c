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


def test_unknown_modes_are_refused_with_the_modes_there_are(capsys):
    with pytest.raises(SystemExit) as exc:
        livelayers.main(["--modes", "with,bogus", "--scenes", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "bogus" in err and "without, with, corners, truecam" in err
    with pytest.raises(ValueError, match="bogus"):
        livelayers.measure(1_000_100, 1, modes=("bogus",))


def test_tapped_corners_are_the_markers_centres_moved_as_seeded_taps():
    from vision.render.stacking import stacked_scene_spec

    spec, layout = livelayers.with_markers(stacked_scene_spec(4740))
    exact = livelayers.tapped_corners(spec, 1, rms_px=0.0)
    # the markers' centres (the play area's corners) are where the markers are drawn
    from vision.render.scene import render_scene
    from calibration.plane import detect_markers

    found = detect_markers(render_scene(spec).image_bgr)
    assert len(found.found) >= 3
    for i in found.found:
        assert np.linalg.norm(found.corners_px[i].mean(axis=0) - exact[i]) < 1.5
    taps = livelayers.tapped_corners(spec, 1)
    assert np.array_equal(taps, livelayers.tapped_corners(spec, 1))  # seeded
    assert 0.3 < np.sqrt(np.mean(np.sum((taps - exact) ** 2, axis=1))) < 5.0
