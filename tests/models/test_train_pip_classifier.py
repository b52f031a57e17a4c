"""The pip classifier's training script (``models/train_pip_classifier.py``): the half squares it
cuts at the ground truth's corners and at the outlines the reader finds."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from models import train_pip_classifier as tpc  # noqa: E402


def _scene() -> tuple[np.ndarray, dict]:
    return tpc.render(3, held_out=False)


def test_detected_outlines_get_the_true_halves_in_their_own_order() -> None:
    """Each outline the reader finds is matched to an eligible true tile; its halves come in the
    order of the found corners, so a tile found turned end for end is labelled end for end."""
    image, truth = _scene()
    found = tpc.detected_tiles(image, truth, 1.0)
    eligible = tpc.eligible_tiles(truth)
    assert found and len(found) <= len(eligible)
    for halves, corners in found:
        # the nearest true tile by centre holds the same halves, first half nearest the
        # found outline's first end
        centre = corners.mean(axis=0)
        true_halves, true_corners = min(
            eligible, key=lambda t: float(np.linalg.norm(t[1].mean(axis=0) - centre)))
        assert sorted(halves) == sorted(true_halves)
        first_end = corners[:2].mean(axis=0)
        near_first = (np.linalg.norm(first_end - true_corners[:2].mean(axis=0))
                      <= np.linalg.norm(first_end - true_corners[2:].mean(axis=0)))
        assert halves == (true_halves if near_first else true_halves[::-1])
    # the same picture at half size: outlines in that picture's pixels, the same tiles
    small = tpc.cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=tpc.cv2.INTER_AREA)
    found_small = tpc.detected_tiles(small, truth, 0.5)
    assert found_small and max(np.abs(c).max() for _, c in found_small) <= max(small.shape)


def test_detected_looks_add_crops_and_keep_the_truth_cuts() -> None:
    """``detected_looks`` adds the crops cut at found outlines to the ground-truth ones; with 0
    the crops are exactly the old recipe's (the same generator draws)."""
    image, truth = _scene()
    plain = tpc.scene_crops(image, truth, np.random.default_rng(1), 2, 0.04)
    again = tpc.scene_crops(image, truth, np.random.default_rng(1), 2, 0.04, detected_looks=0)
    assert plain[1] == again[1] and all(np.array_equal(a, b) for a, b in zip(plain[0], again[0]))
    more = tpc.scene_crops(image, truth, np.random.default_rng(1), 2, 0.04, detected_looks=1)
    assert len(more[1]) > len(plain[1]) and len(more[1]) % 2 == 0
    assert all(crop.shape == (tpc.HALF_SIZE, tpc.HALF_SIZE) for crop in more[0])
