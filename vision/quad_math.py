"""Small exact helpers for the detector's per-tile arithmetic.

Each gives bit for bit the number the numpy call it stands for gives (``quad.mean(axis=0)``,
``float(np.linalg.norm(v))``, ``np.median(x, axis=1)``) without that call's overhead, which
dominates on a 4-corner quad or a 2-vector (the detector makes thousands of such calls a
frame). Tested for equality against numpy in ``tests/vision/test_quad_math.py``.
"""

from __future__ import annotations

import math

import numpy as np


def quad_centre(quad: np.ndarray) -> np.ndarray:
    """Mean of a quad's 4 corners, ``quad.mean(axis=0)`` for a (4, 2) array: numpy adds the
    rows in order and divides by the count, as here."""
    if quad.shape != (4, 2):
        raise ValueError(f"quad_centre: expected corners of shape (4, 2), got {quad.shape}")
    return (quad[0] + quad[1] + quad[2] + quad[3]) / 4.0


def vec_length(v: np.ndarray) -> float:
    """``float(np.linalg.norm(v))`` of a 1-D vector: the square root of ``v.dot(v)`` (the same
    dot product as numpy's, not ``x*x + y*y``, which rounds differently where the dot product
    fuses its multiply-adds). Arrays other than float64 go to numpy itself (their norm is
    computed in their own precision)."""
    if v.ndim != 1:
        raise ValueError(f"vec_length: expected a 1-D vector, got shape {v.shape}")
    if v.dtype != np.float64:
        return float(np.linalg.norm(v))
    return math.sqrt(float(v.dot(v)))


def row_medians(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=1)`` of a 2-D float array free of NaN: the middle order statistic
    of each row, or the mean (in the array's own precision) of the two middle ones."""
    if x.ndim != 2 or x.shape[1] == 0 or x.dtype.kind != "f":
        raise ValueError(f"row_medians: expected a 2-D float array with columns, got "
                         f"shape {x.shape} dtype {x.dtype}")
    n = x.shape[1]
    half = n // 2
    if n % 2:
        return np.partition(x, half, axis=1)[:, half]
    part = np.partition(x, (half - 1, half), axis=1)
    return (part[:, half - 1] + part[:, half]) / 2
