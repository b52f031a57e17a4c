"""vision.halves: shape, orientation, polarity and the errors for bad corners."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from vision.halves import (HALF_SIZE, CornersError, FrameError, half_crops, outline_variants,
                           tile_crops, tile_crops_deglared, tile_crops_glinted,
                           tile_crops_half_by_half, tile_crops_washed)
from vision.virtual_camera import add_glare

# A tile 200 px long and 100 px wide lying left to right; corners[0]-corners[1] is its left
# short edge (the first half), corners[2]-corners[3] its right short edge.
LEFT_TO_RIGHT = np.array([[200, 300], [200, 200], [400, 200], [400, 300]], dtype=np.float64)


def draw_tile(face_bgr: tuple[int, int, int], pip_bgr: tuple[int, int, int],
              first: list[tuple[int, int]], second: list[tuple[int, int]],
              table_bgr: tuple[int, int, int] = (40, 90, 140)) -> np.ndarray:
    """A 640x480 frame with the tile of LEFT_TO_RIGHT; pips given in image pixels."""
    frame_bgr = np.full((480, 640, 3), table_bgr, np.uint8)
    cv2.rectangle(frame_bgr, (200, 200), (400, 300), face_bgr, -1)
    cv2.line(frame_bgr, (300, 206), (300, 294), pip_bgr, 3)
    for x, y in first + second:
        cv2.circle(frame_bgr, (x, y), 9, pip_bgr, -1, cv2.LINE_AA)
    return frame_bgr


TWO = [(225, 225), (275, 275)]  # first half: a diagonal 2
FIVE = [(325, 225), (375, 225), (350, 250), (325, 275), (375, 275)]  # second half: a 5


def blobs(crop: np.ndarray) -> int:
    """Bright blobs in a crop (pips are bright)."""
    mask = (crop > 0.5).astype(np.uint8)
    count, _ = cv2.connectedComponents(mask)
    return count - 1


@pytest.mark.parametrize("face, pip", [
    ((196, 232, 240), (25, 25, 28)),     # ivory, black pips
    ((20, 20, 20), (240, 240, 240)),     # black, white pips
    ((40, 40, 180), (235, 235, 235)),    # red, white pips
    ((238, 240, 240), (150, 60, 30)),    # white, blue pips
    ((60, 120, 30), (40, 190, 225)),     # green, yellow pips
])
def test_pips_come_out_bright_on_a_dark_body_for_every_colour_scheme(face, pip):
    crops = half_crops(draw_tile(face, pip, TWO, FIVE), LEFT_TO_RIGHT)
    assert crops.shape == (2, HALF_SIZE, HALF_SIZE) and crops.dtype == np.float32
    assert blobs(crops[0]) == 2 and blobs(crops[1]) == 5
    centre = HALF_SIZE // 2
    assert crops[1][centre, centre] > 0.8  # the 5's middle pip
    assert crops[0][centre, centre] < 0.2  # the 2 has no middle pip
    assert abs(float(np.median(crops))) < 0.1  # the body sits near 0


def test_first_half_comes_from_corners_0_1_with_that_edge_on_top():
    crops = half_crops(draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE), LEFT_TO_RIGHT)
    # Top edge of the first square runs from corners[0] (200, 300) to corners[1] (200, 200):
    # the pip at image (225, 225) is 3/4 along that edge and 1/4 down, so top-right.
    quarter, three_quarters = HALF_SIZE // 4, 3 * HALF_SIZE // 4
    assert crops[0][quarter, three_quarters] > 0.8
    assert crops[0][three_quarters, quarter] > 0.8
    assert crops[0][quarter, quarter] < 0.2

    turned = np.roll(LEFT_TO_RIGHT, 2, axis=0)  # the same tile named from its other end
    swapped = half_crops(draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE), turned)
    assert blobs(swapped[0]) == 5 and blobs(swapped[1]) == 2


def test_a_blank_half_stays_dark():
    crops = half_crops(draw_tile((196, 232, 240), (25, 25, 28), [], FIVE), LEFT_TO_RIGHT)
    assert blobs(crops[0]) == 0 and float(crops[0].max()) < 0.3
    blank = half_crops(draw_tile((196, 232, 240), (25, 25, 28), [], []), LEFT_TO_RIGHT)
    assert float(np.abs(blank).max()) < 0.3  # no contrast is stretched into fake pips


def test_tile_crops_stacks_halves_in_tile_order():
    frame_bgr = draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE)
    batch = tile_crops(frame_bgr, [LEFT_TO_RIGHT, np.roll(LEFT_TO_RIGHT, 2, axis=0)])
    assert batch.shape == (4, HALF_SIZE, HALF_SIZE)
    np.testing.assert_allclose(batch[0], batch[3], atol=1e-5)
    assert [blobs(c) for c in batch] == [2, 5, 5, 2]
    assert tile_crops(frame_bgr, []).shape == (0, HALF_SIZE, HALF_SIZE)


def test_a_grayscale_frame_works():
    frame_gray = cv2.cvtColor(draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE),
                              cv2.COLOR_BGR2GRAY)
    crops = half_crops(frame_gray, LEFT_TO_RIGHT)
    assert blobs(crops[0]) == 2 and blobs(crops[1]) == 5


FRAME = np.zeros((480, 640, 3), np.uint8)


@pytest.mark.parametrize("corners, message", [
    ([[0, 0], [10, 0], [10, 20]], "shape (4, 2)"),
    ([[0, 0, 0]] * 4, "shape (4, 2)"),
    ([[200, 300], [200, 200], [400, 200], [float("nan"), 300]], "finite"),
    ([[200, 300], [200, 200], [700, 200], [700, 300]], "outside the 640x480 image"),
    ([[200, 300], [200, -20], [400, 200], [400, 300]], "outside"),
    ([[200, 300], [200, 298], [400, 200], [400, 300]], "degenerate"),
    ([[200, 300], [400, 200], [200, 200], [400, 300]], "not a convex"),
    ([["a", 1], [2, 3], [4, 5], [6, 7]], "4 [x, y] numbers"),
])
def test_bad_corners_raise_a_clear_error(corners, message):
    with pytest.raises(CornersError, match=re.escape(message)):
        half_crops(FRAME, corners)


def test_bad_corners_in_a_batch_name_the_tile():
    with pytest.raises(CornersError, match="tile 1:"):
        tile_crops(FRAME, [LEFT_TO_RIGHT, [[0, 0]] * 4])


@pytest.mark.parametrize("frame, message", [
    (np.zeros((480, 640, 3), np.float32), "uint8"),
    (np.zeros((480, 640, 4), np.uint8), "shape"),
    ([[0, 1], [2, 3]], "numpy array"),
])
def test_bad_frames_raise_a_clear_error(frame, message):
    with pytest.raises(FrameError, match=message):
        half_crops(frame, LEFT_TO_RIGHT)


def test_errors_are_value_errors():
    assert issubclass(CornersError, ValueError) and issubclass(FrameError, ValueError)


def test_a_tile_touching_the_frame_edge_still_reads():
    frame_bgr = draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE)[195:]  # top edge cut off
    corners = LEFT_TO_RIGHT - [0, 195]  # y from 105 down to 5; push the top 8 px past the edge
    corners[[1, 2], 1] = -8.0
    crops = half_crops(frame_bgr, corners)
    assert crops.shape == (2, HALF_SIZE, HALF_SIZE) and np.isfinite(crops).all()
    corners[[1, 2], 1] = -20.0  # 20 px past the edge is more than 10 % of the 100 px edge
    with pytest.raises(CornersError, match="outside"):
        half_crops(frame_bgr, corners)


def test_a_glare_spot_is_measured_on_its_half_only():
    frame_bgr = draw_tile((170, 200, 210), (25, 25, 28), TWO, FIVE)
    crops, washed = tile_crops_washed(frame_bgr, [LEFT_TO_RIGHT])
    assert crops.shape == (2, HALF_SIZE, HALF_SIZE) and washed.tolist() == [0.0, 0.0]
    glared = add_glare(frame_bgr, (350 / 640, 250 / 480), 0.05)  # over the 5, 32 px across
    crops, washed = tile_crops_washed(glared, [LEFT_TO_RIGHT])
    assert washed[0] == 0.0 and washed[1] > 0.1
    np.testing.assert_array_equal(tile_crops(glared, [LEFT_TO_RIGHT]), crops)
    empty_crops, empty_washed = tile_crops_washed(glared, [])
    assert empty_crops.shape == (0, HALF_SIZE, HALF_SIZE) and empty_washed.shape == (0,)


@pytest.mark.parametrize("face, pip", [
    ((20, 20, 20), (255, 255, 255)),     # white pips on black: bright, but pip-sized
    ((252, 252, 252), (25, 25, 28)),     # a white set exposed to the top: no glare on it
])
def test_white_pips_and_a_bright_set_are_not_glare(face, pip):
    frame_bgr = draw_tile(face, pip, TWO, FIVE)
    _, washed = tile_crops_washed(frame_bgr, [LEFT_TO_RIGHT])
    assert washed.tolist() == [0.0, 0.0]


def test_outline_variants_move_each_end_along_the_tile():
    moved = outline_variants(LEFT_TO_RIGHT, (-0.1, 0.0, 0.2))
    assert len(moved) == 8  # 3 x 3 moves less the unmoved outline
    shifts = {(round(q[0, 0] - 200, 6), round(400 - q[2, 0], 6)) for q in moved}
    # the tile is 100 px wide: end 0 (x = 200) moves in by 0.2 -> 20 px, out by 0.1 -> 10 px
    assert shifts == {(a, b) for a in (-10.0, 0.0, 20.0) for b in (-10.0, 0.0, 20.0)} - {(0, 0)}
    for q in moved:
        np.testing.assert_allclose(q[:, 1], LEFT_TO_RIGHT[:, 1])  # across the tile: unchanged
        assert q[0, 0] == q[1, 0] and q[2, 0] == q[3, 0]  # corner order kept
    with pytest.raises(CornersError, match="4 finite"):
        outline_variants([[0, 0]] * 3, (0.1,))
    with pytest.raises(CornersError, match="one place"):
        outline_variants([[0, 0], [0, 10], [0, 10], [0, 0]], (0.1,))


def test_outline_variants_turn_and_widen_the_outline_about_its_centre():
    """After the moves, one outline per turn (about the centre, length and width kept) and one
    per width factor (about the long axis, ends in place), corners in the same order."""
    quad = LEFT_TO_RIGHT.astype(float)
    centre = quad.mean(axis=0)
    turned, wider, narrower = outline_variants(quad, (0.0,), turns=(90.0,), widths=(1.5, 0.5))
    # a quarter turn clockwise in image coordinates: the first end now lies above the centre
    np.testing.assert_allclose(turned.mean(axis=0), centre, atol=1e-9)
    first = (turned[0] + turned[1]) / 2
    np.testing.assert_allclose(first, centre + [0.0, -100.0], atol=1e-9)
    for q in (turned, wider, narrower):
        np.testing.assert_allclose(np.linalg.norm((q[2] + q[3]) / 2 - (q[0] + q[1]) / 2), 200.0)
    for q, factor in ((wider, 1.5), (narrower, 0.5)):
        np.testing.assert_allclose(np.linalg.norm(q[1] - q[0]), 100.0 * factor)
        np.testing.assert_allclose(q.mean(axis=0), centre, atol=1e-9)
        np.testing.assert_allclose(q[:, 0], quad[:, 0])  # the ends stay where they were
    assert outline_variants(quad, (0.0,)) == []


def test_readable_agrees_with_check_corners_outline_by_outline():
    from vision.halves import check_corners, readable
    frame = np.zeros((120, 160, 3), np.uint8)
    rng = np.random.default_rng(7)
    outlines = [rng.uniform(-20, 180, (4, 2)) for _ in range(300)]  # crossing, outside, ...
    outlines += [LEFT_TO_RIGHT / 4 + rng.uniform(-2, 2, (4, 2)) for _ in range(100)]
    outlines += [np.full((4, 2), np.nan), np.array([[10, 10], [12, 10], [12, 40], [10, 40.0]])]
    expected = []
    for q in outlines:
        try:
            check_corners(frame, q)
            expected.append(True)
        except CornersError:
            expected.append(False)
    assert readable(frame, outlines) == expected
    assert 50 < sum(expected) < len(expected) - 50  # both kinds were tried
    assert readable(frame, []) == []


def test_pips_of_two_colours_both_show():
    """A set with a colour per pip value: strong orange pips on one half, pale blue ones on the
    other. On the tile's one colour axis (the orange's) the pale pips are nearly level with the
    body; the tile is normalised half by half and both halves' pips come out bright."""
    from vision.halves import _normalise_each, _warp_tile

    face = (225, 240, 245)
    frame_bgr = draw_tile(face, (0, 140, 255), TWO, [])
    for x, y in FIVE:
        cv2.circle(frame_bgr, (x, y), 9, (245, 220, 150), -1, cv2.LINE_AA)
    crops = half_crops(frame_bgr, LEFT_TO_RIGHT)
    assert blobs(crops[0]) == 2 and blobs(crops[1]) == 5
    pairs = np.empty((1, 2, HALF_SIZE, HALF_SIZE, 3), np.uint8)
    _warp_tile(frame_bgr, LEFT_TO_RIGHT, pairs[0])
    assert blobs(_normalise_each(pairs)[0, 1]) == 0  # as one tile, the pale 5 is lost


@pytest.mark.parametrize("face, pip", [((196, 232, 240), (25, 25, 28)),
                                       ((60, 120, 30), (40, 190, 225))])
def test_a_tile_with_one_ink_colour_is_normalised_as_one(face, pip):
    from vision.halves import _normalise_each, _warp_tile

    frame_bgr = draw_tile(face, pip, TWO, FIVE)
    pairs = np.empty((1, 2, HALF_SIZE, HALF_SIZE, 3), np.uint8)
    _warp_tile(frame_bgr, LEFT_TO_RIGHT, pairs[0])
    assert np.array_equal(half_crops(frame_bgr, LEFT_TO_RIGHT), _normalise_each(pairs)[0])


def test_a_glint_on_a_white_face_exposed_near_the_top_is_glare():
    """A white face at 250 cannot be 8 levels darker than the glint (WASHED_MARGIN): the glint
    counts as blown out because it is clipped white in every channel, on one half only."""
    frame_bgr = draw_tile((250, 250, 250), (25, 25, 28), TWO, FIVE)
    assert tile_crops_washed(frame_bgr, [LEFT_TO_RIGHT])[1].tolist() == [0.0, 0.0]
    glared = add_glare(frame_bgr, (228 / 640, 228 / 480), 0.04)  # over one pip of the 2
    _, washed = tile_crops_washed(glared, [LEFT_TO_RIGHT])
    assert washed[0] > 0.1 and washed[1] == 0.0


def test_a_face_clipped_white_on_both_halves_is_not_glare():
    """A white set exposed past the top clips all over; its pips still show: no glare."""
    frame_bgr = draw_tile((255, 255, 255), (25, 25, 28), TWO, FIVE)
    assert tile_crops_washed(frame_bgr, [LEFT_TO_RIGHT])[1].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("face", [(196, 232, 240), (250, 250, 250)])
def test_deglared_squares_show_the_pip_a_glint_hid(face):
    """The glint hides one pip of the 2; its mirror across the half's centre shows it again.
    A half with no blown-out spot is cut as tile_crops cuts it."""
    frame_bgr = draw_tile(face, (25, 25, 28), TWO, FIVE)
    np.testing.assert_array_equal(tile_crops_deglared(frame_bgr, [LEFT_TO_RIGHT]),
                                  tile_crops(frame_bgr, [LEFT_TO_RIGHT]))
    glared = add_glare(frame_bgr, (228 / 640, 228 / 480), 0.04)
    seen = tile_crops(glared, [LEFT_TO_RIGHT])
    assert blobs(seen[0]) == 1 and blobs(seen[1]) == 5
    deglared = tile_crops_deglared(glared, [LEFT_TO_RIGHT])
    assert deglared.shape == (2, HALF_SIZE, HALF_SIZE) and deglared.dtype == np.float32
    assert blobs(deglared[0]) == 2 and blobs(deglared[1]) == 5
    assert tile_crops_deglared(glared, []).shape == (0, HALF_SIZE, HALF_SIZE)


def test_glinted_squares_come_mirrored_plain_and_with_where_the_glint_hides():
    """tile_crops_glinted: the deglared squares, the same without the mirror (the hidden pip
    of the 2 stays hidden) and the hidden part of each half (only the glinted one)."""
    frame_bgr = draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE)
    glared = add_glare(frame_bgr, (228 / 640, 228 / 480), 0.04)
    mirrored, plain, hidden = tile_crops_glinted(glared, [LEFT_TO_RIGHT])
    np.testing.assert_array_equal(mirrored, tile_crops_deglared(glared, [LEFT_TO_RIGHT]))
    assert plain.shape == hidden.shape == (2, HALF_SIZE, HALF_SIZE) and hidden.dtype == bool
    assert blobs(mirrored[0]) == 2 and blobs(plain[0]) == 1 and blobs(plain[1]) == 5
    assert 0.02 < hidden[0].mean() < 0.5 and not hidden[1].any()
    # the hidden part is where the glint was: the 2's outer pip (225, 225), near the outer
    # edge (the square's top) and corners[1] (its right)
    assert hidden[0][:HALF_SIZE // 2, HALF_SIZE // 2:].mean() > 2 * hidden[0].mean()
    # no glint: nothing hidden, and the squares are the plain cut
    _, p, h = tile_crops_glinted(frame_bgr, [LEFT_TO_RIGHT])
    assert not h.any()
    np.testing.assert_array_equal(p, tile_crops(frame_bgr, [LEFT_TO_RIGHT]))
    assert [a.shape[0] for a in tile_crops_glinted(glared, [])] == [0, 0, 0]
    with pytest.raises(FrameError, match="colour"):
        tile_crops_glinted(glared[..., 0], [LEFT_TO_RIGHT])


def pale_pip_tile() -> np.ndarray:
    """A white tile of a set with a colour per pip value: an orange 5 and, alone on the first
    half, a pale cyan 1 that the tile's one colour axis (the orange's) hardly shows."""
    frame_bgr = draw_tile((235, 240, 242), (40, 120, 235), [], FIVE)
    cv2.circle(frame_bgr, (250, 250), 11, (238, 238, 190), -1, cv2.LINE_AA)
    return frame_bgr


def test_half_by_half_squares_show_a_pale_pip_alone_on_its_half():
    frame_bgr = pale_pip_tile()
    tile = tile_crops(frame_bgr, [LEFT_TO_RIGHT])
    each = tile_crops_half_by_half(frame_bgr, [LEFT_TO_RIGHT])
    assert each.shape == tile.shape and each.dtype == np.float32
    assert (blobs(tile[0]), blobs(tile[1])) == (0, 5)
    assert (blobs(each[0]), blobs(each[1])) == (1, 5)
    assert tile_crops_half_by_half(frame_bgr, []).shape == (0, HALF_SIZE, HALF_SIZE)
