"""vision.quad_math gives numpy's own numbers, bit for bit."""

import numpy as np
import pytest

from vision.quad_math import quad_centre, row_medians, vec_length


def test_quad_centre_equals_numpy_mean() -> None:
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32):
        for _ in range(2000):
            q = (rng.normal(size=(4, 2)) * rng.uniform(0.1, 2000)).astype(dtype)
            got = quad_centre(q)
            assert got.dtype == q.mean(axis=0).dtype
            assert np.array_equal(got, q.mean(axis=0))


def test_vec_length_equals_numpy_norm() -> None:
    rng = np.random.default_rng(4)
    for dtype in (np.float64, np.float32):
        for _ in range(5000):
            v = (rng.normal(size=2) * rng.uniform(0.1, 2000)).astype(dtype)
            assert vec_length(v) == float(np.linalg.norm(v))


def test_row_medians_equals_numpy_median() -> None:
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        for n in range(1, 30):
            x = (rng.normal(size=(9, n)) * 50).astype(dtype)
            x[:, ::2] = np.round(x[:, ::2])  # ties
            want = np.median(x, axis=1)
            got = row_medians(x)
            assert got.dtype == want.dtype and np.array_equal(got, want)


def test_bad_shapes_are_named() -> None:
    with pytest.raises(ValueError, match=r"\(4, 2\)"):
        quad_centre(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="1-D"):
        vec_length(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="2-D float"):
        row_medians(np.zeros(5))
