"""vision.detect.ink_maps_of: the light and dark maps of face_maps, no more."""

import numpy as np

from vision.detect import face_maps, ink_maps_of


def test_ink_maps_equal_face_maps_light_and_dark() -> None:
    rng = np.random.default_rng(7)
    frame = rng.integers(0, 256, size=(48, 64, 3), dtype=np.uint8)
    got, full = ink_maps_of(frame), face_maps(frame)
    assert set(got) == {"light", "dark"}
    for name in got:
        assert got[name].dtype == np.uint8 and np.array_equal(got[name], full[name])
    assert np.array_equal(got["light"], frame.min(axis=2))
    assert np.array_equal(got["dark"], 255 - frame.max(axis=2))
