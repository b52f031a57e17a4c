"""vision.halves.tile_crops_covered / covered_squares: a tile partly under another, its covered
part hidden (the upper tile's face and pips neither show as pips nor set the contrast)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_halves import FIVE, LEFT_TO_RIGHT, TWO, blobs, draw_tile
from vision.halves import (HALF_SIZE, CornersError, covered_squares, tile_crops,
                           tile_crops_covered)

# a tile lying over the outer three quarters of LEFT_TO_RIGHT's second half (x 325..400)
UPPER = np.array([[325, 330], [325, 170], [440, 170], [440, 330]], dtype=np.float64)


def covered_frame() -> np.ndarray:
    """The 2-5 of LEFT_TO_RIGHT with UPPER drawn over it, three pips of its own on it."""
    frame = draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE)
    cv2.rectangle(frame, (325, 170), (440, 330), (190, 228, 236), -1)
    for x, y in ((350, 190), (380, 250), (410, 310)):
        cv2.circle(frame, (x, y), 9, (25, 25, 28), -1, cv2.LINE_AA)
    return frame


def test_the_covered_part_of_a_half_is_marked_and_the_other_half_not():
    hidden = covered_squares(LEFT_TO_RIGHT, [UPPER])
    assert hidden.shape == (2, HALF_SIZE, HALF_SIZE) and hidden.dtype == bool
    assert not hidden[0].any()
    assert 0.7 < hidden[1].mean() < 0.95  # three quarters of the half, widened by the rim
    assert not covered_squares(LEFT_TO_RIGHT, []).any()
    far = UPPER + [600, 0]
    assert not covered_squares(LEFT_TO_RIGHT, [far]).any()


def test_the_upper_tiles_pips_are_hidden_and_the_uncovered_half_kept():
    frame = covered_frame()
    whole = tile_crops(frame, [LEFT_TO_RIGHT])
    mirrored, plain, hidden = tile_crops_covered(frame, [LEFT_TO_RIGHT], [[UPPER]])
    assert mirrored.shape == plain.shape == hidden.shape == (2, HALF_SIZE, HALF_SIZE)
    assert blobs(whole[0]) == 2 and blobs(plain[0]) == 2  # the 2 is read as before
    assert not hidden[0].any() and hidden[1].mean() > 0.7
    # where the cover lies the plain square shows the body: no pip of either tile there
    assert float(np.abs(plain[1][hidden[1]]).max()) < 0.2
    assert float(whole[1][hidden[1]].max()) > 0.5  # it showed pips there before


def test_tiles_without_covers_are_cut_as_tile_crops_cuts_them():
    frame = covered_frame()
    _, plain, hidden = tile_crops_covered(frame, [LEFT_TO_RIGHT], [[]])
    assert not hidden.any()
    np.testing.assert_allclose(plain, tile_crops(frame, [LEFT_TO_RIGHT]), atol=1e-6)
    empty = tile_crops_covered(frame, [], [])
    assert [a.shape[0] for a in empty] == [0, 0, 0]


def test_bad_covers_raise_a_clear_error():
    frame = covered_frame()
    with pytest.raises(CornersError, match="one list of covering outlines per tile"):
        tile_crops_covered(frame, [LEFT_TO_RIGHT], [])
    with pytest.raises(CornersError, match="covers: each must be 4 finite"):
        covered_squares(LEFT_TO_RIGHT, [[[0, 0], [1, 1]]])
