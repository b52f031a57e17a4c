"""Cut each half of a domino tile out of a frame as a small, normalised square.

A tile is given by its four top-face corners in image pixels, going around the outline:
``corners[0]-corners[1]`` is the outer short edge of the first half (``halves[0]``) and
``corners[2]-corners[3]`` the outer short edge of the second half (``halves[1]``). The tile is
split at the midpoints of its long sides; each half is warped to a ``HALF_SIZE`` square with its
outer short edge at the top, so both halves of a tile look the same way up whatever the tile's
pose. A small inset margin keeps most of the tile edge and the divider line out of the square.

The squares are single-channel ``float32`` with the tile body near 0 and the pips near 1,
whatever the colours of the set: the channel mix is the colour direction of most variance in the
tile (so red pips on a white tile or white pips on a blue tile both show), and the polarity is
chosen per tile so that the minority (the pips) is bright. A tile whose two halves carry ink of
different colours (a set with a colour per pip value) is normalised half by half instead (see
:data:`SPLIT_RATIO`): on the tile's one colour axis the pips of one colour can vanish. These
squares are the input of the ONNX pip classifier (:mod:`vision.classifier`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, overload

import cv2
import numpy as np

HALF_SIZE = 48
"""Side, in pixels, of one half-tile square."""

INSET = 0.07
"""Fraction of the half's width and height cut away on every side of the square."""

MIN_EDGE_PX = 4.0
"""Shortest tile edge, in image pixels, that can still be read."""

OUTSIDE_TOLERANCE = 0.1
"""How far (as a fraction of the tile's shortest edge) a corner may lie outside the frame."""

CONTRAST_FLOOR = 24.0
"""Smallest pip/background contrast (in 8-bit levels) used to scale a tile; below it a tile is
treated as blank so that noise on a pip-less half is not stretched into fake pips."""

SPLIT_RATIO = 0.75
"""A tile is normalised half by half when one half's ink is lost on the tile's colour axis: the
spread of that half along the tile's axis of most variance is less than this fraction of its
spread along its own axis, and both halves have ink on them (:data:`SPLIT_MIN_STD`): pips of two
colours, as a set with a colour per pip value has. On the tile's one axis (the stronger
colour's) the other half's pips can be nearly level with the body and read as a blank. On 200
rendered tuning scenes (seeds 1,600,000-199) 1-5 read 0-5 and 6-10 read 0-10 so; with the split
the reader misread 34 found tiles instead of 36, no other reading changed, and the squares of 12
of 2,780 found tiles changed (10 of 304 colour-per-value tiles, 2 of 408 coloured ones). Every
tile half by half was worse (5 tiles read right before misread: the classifier was trained on
tile-normalised squares), and so was splitting wherever the halves' axes differ (cosine under
0.95: 2 coloured doubles misread on held-out scenes)."""

SPLIT_MIN_STD = 16.0
"""Least spread (8-bit levels, the standard deviation along a half's own colour axis) of both
halves of a tile for it to be normalised half by half (:data:`SPLIT_RATIO`): a blank half's axis
follows its noise, not an ink colour."""

FLAT_KERNEL = 23
"""Width (pixels of the square) of the median filter whose output :func:`tile_crops_flattened`
takes from each half as its lighting: wider than a pip (a blank half's median is its face, a
half with pips keeps its face level where the pips are few), narrower than the half, so a
glint's or a lamp's gradient across the tile is taken out and the pips it washed out stand
out again. On 500 rendered tuning scenes (seeds 1,600,000-499) the tiles read with a blank
half (1,291), read again so, read 7 of their misread tiles right and broke none (the filter
taken on the half shrunk 2 times, :data:`FLAT_SHRINK`; full size: kernels 21, 23 and 25 mended
6 and broke none, 17 broke 3; shrunk 3 times: 7 and 1; 4 times: 6 and 1). Reading every tile
so mended 10 and broke 31-49; normalising the flattened halves one by one mended 7, broke 12."""

FLAT_SHRINK = 2
"""The lighting of :data:`FLAT_KERNEL` is taken on the half shrunk this many times (a median
filter FLAT_KERNEL / FLAT_SHRINK px wide, rounded to odd): about 0.15 ms a tile instead of
0.5 on this machine."""

GLINT_OPAQUE = 0.8
""":func:`tile_crops_deglared`: where a glint's opacity (its share of white) is at least this,
nothing of the face under it is left to recover, and the square shows the tile's body there."""

GLINT_MIRROR = True
""":func:`tile_crops_deglared`: where the glint hides the face (opacity :data:`GLINT_OPAQUE`,
widened by :data:`GLINT_RIM` px) and the point opposite across the half's centre is not
hidden, the square shows that point instead: every pip layout is point-symmetric."""

GLINT_RIM = 3
"""Pixels the hidden part of a half is widened by before it is mirrored (the rim just outside
:data:`GLINT_OPAQUE` is recovered with much noise)."""

_RIM_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * GLINT_RIM + 1, 2 * GLINT_RIM + 1))

COVER_RIM = 2
"""Square pixels the part of a half another tile's outline covers is widened by
(:func:`tile_crops_covered`): the upper tile's side wall and shadow beyond its outline, and an
outline a pixel or two off."""

_COVER_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * COVER_RIM + 1, 2 * COVER_RIM + 1))

CLIP_LOW, CLIP_HIGH = -0.5, 1.5
"""Range the normalised values are clipped to."""

WASHED_LEVEL = 245
"""Brightest-channel level (8-bit) at or above which a pixel is blown out (a lamp's glare)."""

WASHED_MARGIN = 8
"""A blown-out pixel must also be this many levels brighter than the tile body (the median of
the tile's brightest channel): a white set exposed to the top keeps its pips and is not glare."""

CLIPPED_LEVEL = 253
"""A spot whose darkest channel, averaged over :data:`CLIPPED_BLUR` px, is at or above this level
is blown out whatever the tile body's level: a lamp's glint clips a white face that is already
exposed near the top (body 248-252 in its brightest channel), where :data:`WASHED_MARGIN` cannot
be met, and hides its pips (the demos' Forty-Two 1-2 read 0-1, Stackernoes 8-9 read 2-9, sure).
On a glint family (``runs/A9/make_glint.py``: 200 rendered training-split scenes, seeds
300,000-199, a demo-style glint on one half of 558 tiles, the demo camera's noise added) glinted
tiles read wrong with confidence 0.9 or more went from 25 to 3 (of the rest 2,230 read right
either way); on 500 tuning scenes (seeds 1,600,000-499) no reading changed value (7,018 right,
34 misread; sure wrong 13 either way) and 31 of the 7,018 right tiles went below 0.9 (154 ->
185: a white face clipped on one half by the renderer's own glare). 254 missed most noisy
glints (the camera's noise takes clipped levels to 252-255); 252 doubted more tuning tiles for
no gain. Grey squares are not asked."""

CLIPPED_BLUR = 5
"""Width (pixels of the square) of the box filter the darkest channel is averaged over before
:data:`CLIPPED_LEVEL` is asked (sensor noise on a clipped spot)."""

CLIPPED_ONE_HALF = 0.03
"""Clipped spots count only when one half of the tile has less than this share of its square
clipped (after the opening with the :data:`WASHED_SPOT` kernel): a white face exposed to the top
clips on both halves and keeps its pips (on the tuning scenes this took the tiles read right
that went below 0.9 from 212 to 185, no sure-wrong reading lost; every glinted half of the
family lies on a tile whose other half has no clipped spot)."""

WASHED_SPOT = HALF_SIZE // 4
"""Blown-out pixels count only in spots wider than this (pixels of the square): white pips on a
dark set are bright too, but smaller."""

_SPOT_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (WASHED_SPOT, WASHED_SPOT))

_PERCENTILE_STRIDE = 3

_DST_QUAD: np.ndarray = np.array(
    [
        [-INSET * HALF_SIZE, -INSET * HALF_SIZE],
        [(1 + INSET) * HALF_SIZE, -INSET * HALF_SIZE],
        [(1 + INSET) * HALF_SIZE, (1 + INSET) * HALF_SIZE],
        [-INSET * HALF_SIZE, (1 + INSET) * HALF_SIZE],
    ],
    dtype=np.float32,
) - 0.5  # pixel centres: square pixel i covers [i - 0.5, i + 0.5]


class CornersError(ValueError):
    """Tile corners that cannot describe a tile in this frame."""


class FrameError(ValueError):
    """A frame that is not an 8-bit BGR (or grayscale) image."""


def _check_frame(frame_bgr: np.ndarray) -> None:
    if not isinstance(frame_bgr, np.ndarray):
        raise FrameError(f"frame_bgr must be a numpy array, got {type(frame_bgr).__name__}")
    if frame_bgr.ndim not in (2, 3) or (frame_bgr.ndim == 3 and frame_bgr.shape[2] != 3):
        raise FrameError(f"frame_bgr must have shape (H, W, 3) or (H, W), got {frame_bgr.shape}")
    if frame_bgr.dtype != np.uint8:
        raise FrameError(f"frame_bgr must be uint8, got {frame_bgr.dtype}")
    if frame_bgr.shape[0] < 2 or frame_bgr.shape[1] < 2:
        raise FrameError(f"frame_bgr is too small to hold a tile: shape {frame_bgr.shape}")


def _check_corners(corners: np.ndarray | Sequence[Sequence[float]], width: int,
                   height: int) -> np.ndarray:
    """Validated corners as a (4, 2) float64 array, or a :class:`CornersError` saying why not."""
    try:
        quad = np.asarray(corners, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CornersError(f"corners must be 4 [x, y] numbers, got {corners!r}") from exc
    if quad.shape != (4, 2):
        raise CornersError(f"corners must have shape (4, 2) ([[x, y]] x 4), got {quad.shape}")
    if not np.all(np.isfinite(quad)):
        raise CornersError(f"corners must be finite, got {quad.tolist()}")
    edges = quad[[1, 2, 3, 0]] - quad
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    if lengths.min() < MIN_EDGE_PX:
        raise CornersError(f"corners {quad.tolist()} are degenerate: an edge is "
                           f"{lengths.min():.1f} px long, at least {MIN_EDGE_PX} px is needed")
    # A corner a little past the frame edge (a tile touching it) still reads: the warp repeats
    # the edge pixels. Further out, too much of the half is missing.
    margin = OUTSIDE_TOLERANCE * float(lengths.min())
    outside = ((quad[:, 0] < -0.5 - margin) | (quad[:, 0] > width - 0.5 + margin)
               | (quad[:, 1] < -0.5 - margin) | (quad[:, 1] > height - 0.5 + margin))
    if outside.any():
        raise CornersError(
            f"corners {quad[outside].tolist()} lie outside the {width}x{height} image; "
            f"every corner must be within x in [-0.5, {width - 0.5}], y in [-0.5, {height - 0.5}] "
            f"(give or take {margin:.1f} px, {OUTSIDE_TOLERANCE:.0%} of the tile's short edge)")
    following = edges[[1, 2, 3, 0]]
    cross = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    if not (np.all(cross > 0) or np.all(cross < 0)):
        raise CornersError(f"corners {quad.tolist()} are not a convex quadrilateral in outline "
                           "order; give them going around the tile (no crossing edges)")
    return quad


def _valid_quads(quads: np.ndarray, width: int, height: int) -> np.ndarray:
    """(N,) bool: which of (N, 4, 2) float64 outlines :func:`_check_corners` accepts (the
    same tests, the same arithmetic, for all outlines at once)."""
    finite = np.isfinite(quads).all(axis=(1, 2))
    quads = np.where(finite[:, None, None], quads, 0.0)
    edges = quads[:, [1, 2, 3, 0]] - quads
    lengths = np.hypot(edges[:, :, 0], edges[:, :, 1])
    shortest = lengths.min(axis=1)
    margin = (OUTSIDE_TOLERANCE * shortest)[:, None]
    outside = ((quads[:, :, 0] < -0.5 - margin) | (quads[:, :, 0] > width - 0.5 + margin)
               | (quads[:, :, 1] < -0.5 - margin) | (quads[:, :, 1] > height - 0.5 + margin))
    following = edges[:, [1, 2, 3, 0]]
    cross = edges[:, :, 0] * following[:, :, 1] - edges[:, :, 1] * following[:, :, 0]
    convex = np.all(cross > 0, axis=1) | np.all(cross < 0, axis=1)
    return finite & (shortest >= MIN_EDGE_PX) & ~outside.any(axis=1) & convex


def readable(frame_bgr: np.ndarray,
             corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]) -> list[bool]:
    """For each outline, whether :func:`check_corners` accepts it in this frame (checked
    for all at once: cheaper than one call each); each outline must be a (4, 2) array."""
    if len(corners_list) == 0:
        return []
    quads = np.asarray(corners_list, dtype=np.float64)
    if quads.ndim != 3 or quads.shape[1:] != (4, 2):
        raise CornersError(f"corners_list: expected (4, 2) outlines, got shape {quads.shape}")
    return _valid_quads(quads, frame_bgr.shape[1], frame_bgr.shape[0]).tolist()


def check_corners(frame_bgr: np.ndarray, corners: np.ndarray | Sequence[Sequence[float]]
                  ) -> np.ndarray:
    """The corners as a (4, 2) float64 array if :func:`half_crops` can read the tile they
    outline in this frame, else :class:`CornersError` saying why not."""
    return _check_corners(corners, frame_bgr.shape[1], frame_bgr.shape[0])


def _half_quads(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Source quads (top-left, top-right, bottom-right, bottom-left) of the two halves."""
    c0, c1, c2, c3 = quad
    mid_12 = (c1 + c2) / 2.0
    mid_30 = (c3 + c0) / 2.0
    first = np.array([c0, c1, mid_12, mid_30], dtype=np.float32)
    second = np.array([c2, c3, mid_30, mid_12], dtype=np.float32)
    return first, second


def _warp_half(frame: np.ndarray, src_quad: np.ndarray) -> np.ndarray:
    matrix = cv2.getPerspectiveTransform(src_quad, _DST_QUAD)
    return cv2.warpPerspective(frame, matrix, (HALF_SIZE, HALF_SIZE), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _two_colour_tiles(pairs: np.ndarray) -> np.ndarray:
    """Indices of the tiles among N colour tiles (N, 2, S, S, 3) uint8 with ink on both halves
    and one half's ink lost on the tile's colour axis (:data:`SPLIT_RATIO`,
    :data:`SPLIT_MIN_STD`)."""
    count = pairs.shape[0]
    # every third pixel of each half: plenty for a decision (and a third of the cost)
    sample = pairs.reshape(2 * count, -1, 3)[:, ::_PERCENTILE_STRIDE]
    augmented = np.ones((sample.shape[0], sample.shape[1], 4), dtype=np.float32)
    augmented[:, :, :3] = sample
    moments = (augmented.transpose(0, 2, 1) @ augmented).astype(np.float64)
    moments /= augmented.shape[1]
    mean = moments[:, :3, 3]
    covariance = moments[:, :3, :3] - mean[:, :, None] * mean[:, None, :]
    values = np.linalg.eigvalsh(covariance)
    own = np.sqrt(np.maximum(values[:, -1], 0.0)).reshape(count, 2)
    # the tile's covariance from its halves' (equal pixel counts), and its axis
    pair_cov = covariance.reshape(count, 2, 3, 3)
    step = (mean[0::2] - mean[1::2]) / 2.0
    tile_cov = pair_cov.mean(axis=1) + step[:, :, None] * step[:, None, :]
    axis = np.linalg.eigh(tile_cov)[1][:, :, -1]
    on_tile = np.sqrt(np.maximum(np.einsum("ni,nhij,nj->nh", axis, pair_cov, axis), 0.0))
    lost = (on_tile < SPLIT_RATIO * own).any(axis=1)
    return np.nonzero(lost & (own.min(axis=1) >= SPLIT_MIN_STD))[0]


def _normalise_tiles(pairs: np.ndarray) -> np.ndarray:
    """Halves of N tiles, (N, 2, S, S) or (N, 2, S, S, 3) uint8, to pips-bright float32
    (N, 2, S, S). Each tile is normalised on its own (a tile with ink of two colours, half by
    half: :data:`SPLIT_RATIO`); the work is batched over tiles."""
    out = _normalise_each(pairs)
    if pairs.ndim == 5 and pairs.shape[0]:
        split = _two_colour_tiles(pairs)
        if len(split):
            halves = pairs[split].reshape((2 * len(split), 1) + pairs.shape[2:])
            out[split] = _normalise_each(halves).reshape((len(split),) + out.shape[1:])
    return out


def _normalise_each(pairs: np.ndarray) -> np.ndarray:
    """:func:`_normalise_tiles` with every tile (first axis) normalised as one, whatever its
    colours."""
    count = pairs.shape[0]
    if pairs.ndim == 5:
        # One batched product gives each tile's colour sums and cross sums (the last column of
        # ones counts the pixels); the colour axis of most variance is the top eigenvector.
        augmented = np.ones((count, pairs[0].size // 3, 4), dtype=np.float32)
        augmented[:, :, :3] = pairs.reshape(count, -1, 3)
        moments = (augmented.transpose(0, 2, 1) @ augmented).astype(np.float64)
        moments /= augmented.shape[1]
        mean = moments[:, :3, 3]
        covariance = moments[:, :3, :3] - mean[:, :, None] * mean[:, None, :]
        _, vectors = np.linalg.eigh(covariance)
        # Unit vectors, so projected values stay in 8-bit level units.
        axes = np.zeros((count, 4, 1), dtype=np.float32)
        axes[:, :3, 0] = vectors[:, :, -1]
        projected = (augmented @ axes)[:, :, 0]
    else:
        projected = pairs.reshape(count, -1).astype(np.float32)
    sample = projected[:, ::_PERCENTILE_STRIDE]  # every third pixel is plenty for 3 percentiles
    size = sample.shape[1]
    ranks = [int(0.01 * (size - 1)), (size - 1) // 2, int(0.99 * (size - 1))]
    low, median, high = np.partition(sample, ranks, axis=1)[:, ranks].astype(np.float64).T
    # The tile body is the majority; pips are the far tail on one side of it.
    scale = 1.0 / np.maximum(np.maximum(high - median, median - low), CONTRAST_FLOOR)
    scale = np.where(median - low > high - median, -scale, scale)
    normalised = ((projected - median[:, None].astype(np.float32))
                  * scale[:, None].astype(np.float32))
    np.clip(normalised, CLIP_LOW, CLIP_HIGH, out=normalised)
    return normalised.reshape(pairs.shape[:4])


def _washed(pairs: np.ndarray) -> np.ndarray:
    """Fraction of each half of N tiles, (N, 2, S, S[, 3]) uint8, that is blown out: at least
    :data:`WASHED_LEVEL` in its brightest channel and :data:`WASHED_MARGIN` above the tile body,
    or (colour squares) clipped white in every channel (:data:`CLIPPED_LEVEL`) on one half.
    Pips under such a spot cannot be seen, so the half may hold more pips than it shows.
    Returns (N, 2) float32."""
    count = pairs.shape[0]
    out = np.zeros((count, 2), np.float32)
    if count == 0:
        return out
    # the brightest channel (np.maximum of the three planes: the same numbers as
    # max(axis=4), which is slow over an axis of 3)
    bright = (np.maximum(np.maximum(pairs[..., 0], pairs[..., 1]), pairs[..., 2])
              if pairs.ndim == 5 else pairs)
    # a spot that survives the opening holds at least the kernel's area of blown pixels
    enough = int(_SPOT_KERNEL.sum())
    candidates = np.nonzero((bright >= WASHED_LEVEL).sum(axis=(2, 3)).max(axis=1) >= enough)[0]
    for i in candidates:  # most tiles have no blown spot that large
        sample = bright[i].reshape(-1)[::_PERCENTILE_STRIDE]
        body = float(np.partition(sample, len(sample) // 2)[len(sample) // 2])
        blown = bright[i] >= max(WASHED_LEVEL, body + WASHED_MARGIN)
        if pairs.ndim == 5 and CLIPPED_LEVEL <= 255:
            clipped = [cv2.morphologyEx(
                (cv2.blur(pairs[i, j].min(axis=2), (CLIPPED_BLUR, CLIPPED_BLUR))
                 >= CLIPPED_LEVEL).astype(np.uint8), cv2.MORPH_OPEN, _SPOT_KERNEL)
                for j in range(2)]
            shares = [float(c.mean()) for c in clipped]
            if min(shares) < CLIPPED_ONE_HALF:  # a spot on one half: a glint, not the body
                for j in range(2):
                    blown[j] |= clipped[j] > 0
        blown = blown.astype(np.uint8)
        for j in range(2):
            if int(blown[j].sum()) >= enough:
                spots = cv2.morphologyEx(blown[j], cv2.MORPH_OPEN, _SPOT_KERNEL)
                out[i, j] = float(spots.mean())
    return out


def _warp_tile(frame: np.ndarray, quad: np.ndarray, out: np.ndarray) -> None:
    first, second = _half_quads(quad)
    out[0] = _warp_half(frame, first)
    out[1] = _warp_half(frame, second)


def outline_variants(corners: np.ndarray | Sequence[Sequence[float]],
                     moves: Sequence[float], turns: Sequence[float] = (),
                     widths: Sequence[float] = ()) -> list[np.ndarray]:
    """The tile's outline moved a little, as (4, 2) float64 outlines: first, for every pair
    ``(m0, m1)`` of ``moves`` (the unmoved one, ``(0, 0)``, left out), its ends moved along its
    long axis: end 0 (``corners[0]-corners[1]``) inwards by ``m0`` and end 1 by ``m1`` times the
    tile's width (a negative move pushes the end outwards); then the outline turned about its
    centre by each of ``turns`` (degrees, positive clockwise in image coordinates); then its
    width scaled by each of ``widths`` about its long axis (its length kept). The corner order
    is kept, so the halves keep their ends. Outlines of touching tiles found a little long or
    short, slid along a chain, a little turned or a little wide are read again this way
    (:mod:`vision.read`)."""
    quad = np.asarray(corners, dtype=np.float64)
    if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
        raise CornersError(f"corners must be 4 finite [x, y] points, got {quad.tolist()}")
    first, second = (quad[0] + quad[1]) / 2.0, (quad[2] + quad[3]) / 2.0
    length = float(np.hypot(*(second - first)))
    if length <= 0:
        raise CornersError(f"corners {quad.tolist()} have both ends at one place")
    along = (second - first) / length
    width = (float(np.hypot(*(quad[1] - quad[0]))) + float(np.hypot(*(quad[3] - quad[2])))) / 2
    out = []
    for m0 in moves:
        for m1 in moves:
            if m0 == 0 and m1 == 0:
                continue
            moved = quad.copy()
            moved[:2] += along * (m0 * width)
            moved[2:] -= along * (m1 * width)
            out.append(moved)
    centre = quad.mean(axis=0)
    for deg in turns:
        a = math.radians(float(deg))
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        out.append((quad - centre) @ turn.T + centre)
    for factor in widths:
        wider = quad.copy()
        wider[:2] = first + (quad[:2] - first) * float(factor)
        wider[2:] = second + (quad[2:] - second) * float(factor)
        out.append(wider)
    return out


def half_crops(frame_bgr: np.ndarray, corners: np.ndarray | Sequence[Sequence[float]]
               ) -> np.ndarray:
    """The two halves of one tile as a (2, HALF_SIZE, HALF_SIZE) float32 array.

    ``result[0]`` is the half whose outer short edge is ``corners[0]-corners[1]`` and
    ``result[1]`` the half whose outer short edge is ``corners[2]-corners[3]``; each square has
    that outer edge at its top. Values: tile body about 0, pips about 1 (clipped to
    [CLIP_LOW, CLIP_HIGH]). ``frame_bgr`` is an 8-bit BGR (or grayscale) image.

    Raises :class:`FrameError` for a frame that is not an 8-bit image and
    :class:`CornersError` for corners that are not 4 points of a convex quad inside the image.
    """
    _check_frame(frame_bgr)
    height, width = frame_bgr.shape[:2]
    quad = _check_corners(corners, width, height)
    pairs = np.empty((1, 2, HALF_SIZE, HALF_SIZE) + frame_bgr.shape[2:], dtype=np.uint8)
    _warp_tile(frame_bgr, quad, pairs[0])
    return _normalise_tiles(pairs)[0]


def tile_crops(frame_bgr: np.ndarray,
               corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]) -> np.ndarray:
    """Halves of many tiles as a (2N, HALF_SIZE, HALF_SIZE) float32 array.

    Rows ``2 * i`` and ``2 * i + 1`` are ``halves[0]`` and ``halves[1]`` of tile ``i``, as
    :func:`half_crops` gives them. A bad tile raises :class:`CornersError` naming its index.
    """
    return _tile_crops(frame_bgr, corners_list, washed=False)[0]


def tile_crops_washed(frame_bgr: np.ndarray,
                      corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]
                      ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tile_crops`, and the blown-out fraction of every half as a (2N,) float32 array
    (rows as the crops'; see :data:`WASHED_LEVEL`): a glare spot that hides pips."""
    crops, washed = _tile_crops(frame_bgr, corners_list, washed=True)
    return crops, np.zeros(0, np.float32) if washed is None else washed


def tile_crops_flattened(frame_bgr: np.ndarray,
                         corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]
                         ) -> np.ndarray:
    """:func:`tile_crops` with each half's lighting taken out before it is normalised: the half
    less its median filter (:data:`FLAT_KERNEL`), plus the tile's median colour. Pips that a
    glint or a lamp's gradient left faint on a pale or coloured face (white pips on yellow)
    stand out again; the squares are otherwise as :func:`tile_crops` makes them."""
    return _tile_crops(frame_bgr, corners_list, washed=False, flatten=True)[0]


def tile_crops_deglared(frame_bgr: np.ndarray,
                        corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]
                        ) -> np.ndarray:
    """:func:`tile_crops` with a lamp's glint taken out of each half before it is normalised.
    A glint blends the face towards white (``seen = face (1 - a) + 255 a``, ``a`` its opacity,
    smooth across the half); ``a`` is taken from each half's lighting (the median filter of
    :data:`FLAT_KERNEL`, as :func:`tile_crops_flattened`) against the tile's body colour, and
    the face recovered as ``(seen - 255 a) / (1 - a)``: pips the glint's rim left faint stand
    out again. Where ``a`` is :data:`GLINT_OPAQUE` or more nothing is left and the square shows
    the body colour (pips hidden there stay unseen: the reader doubts such a half, see
    :func:`vision.pips.hidden_pips`). Grey frames are cut as :func:`tile_crops` cuts them."""
    return _tile_crops(frame_bgr, corners_list, washed=False, deglare=True)[0]


def tile_crops_half_by_half(frame_bgr: np.ndarray,
                            corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]
                            ) -> np.ndarray:
    """:func:`tile_crops` with every half normalised on its own (its own colour axis and
    spread, as :data:`SPLIT_RATIO` does for tiles with ink of two colours): a pale pip alone on
    a half (a cyan 1 beside an orange 5 on a white tile of a set with a colour per pip value)
    stands out on its half's own axis where the tile's shows the other half's ink only. A
    blank half's noise is stretched too: the reader asks these squares only about halves read
    blank (:data:`vision.read.HALF_BY_HALF_SURE`)."""
    _check_frame(frame_bgr)
    pairs = _warped(frame_bgr, corners_list)
    if not len(pairs):
        return np.empty((0, HALF_SIZE, HALF_SIZE), dtype=np.float32)
    halves = pairs.reshape((2 * len(pairs), 1) + pairs.shape[2:])
    return _normalise_each(halves).reshape(-1, HALF_SIZE, HALF_SIZE)


def _no_hidden_crops() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`tile_crops_glinted` and :func:`tile_crops_covered` give for no tiles: two
    empty (0, S, S) float32 square stacks and an empty (0, S, S) bool mask."""
    empty = np.empty((0, HALF_SIZE, HALF_SIZE), dtype=np.float32)
    return empty, empty.copy(), np.zeros((0, HALF_SIZE, HALF_SIZE), bool)


def tile_crops_glinted(frame_bgr: np.ndarray,
                       corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The glint taken out of each half two ways, for reading what a glint hides by the pip
    layouts (:meth:`vision.pips.PipReader.read_hidden`): the squares of
    :func:`tile_crops_deglared` (what the glint hides mirrored in), the same squares without
    the mirror (where the glint hides the face, the body colour), and where each half is hidden
    (opacity :data:`GLINT_OPAQUE` or clipped, widened by :data:`GLINT_RIM` px) as a
    (2N, S, S) bool array (rows as the crops'). Colour frames only: a grey frame raises
    :class:`FrameError`."""
    _check_frame(frame_bgr)
    if frame_bgr.ndim != 3:
        raise FrameError(f"tile_crops_glinted: expected a colour (H, W, 3) frame, got shape "
                         f"{frame_bgr.shape}")
    pairs = _warped(frame_bgr, corners_list)
    if not len(pairs):
        return _no_hidden_crops()
    mirrored, plain, hidden = _deglare(pairs, both=True)
    return (_normalise_tiles(mirrored).reshape(-1, HALF_SIZE, HALF_SIZE),
            _normalise_tiles(plain).reshape(-1, HALF_SIZE, HALF_SIZE),
            hidden.reshape(-1, HALF_SIZE, HALF_SIZE))


def tile_crops_covered(frame_bgr: np.ndarray,
                       corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]],
                       covers: Sequence[Sequence[np.ndarray | Sequence[Sequence[float]]]]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tiles partly covered by others, for reading what the covers leave visible by the pip
    layouts (:meth:`vision.pips.PipReader.read_hidden`), as :func:`tile_crops_glinted` gives
    a glint's: ``covers[i]`` are the outlines (convex (4, 2) pixel quads) of the tiles lying
    over tile ``i`` (none: the tile is cut as :func:`tile_crops` cuts it). Where a cover lies
    over a half (widened by :data:`COVER_RIM` square pixels: the upper tile's wall and
    shadow, an outline a pixel or two off) the half is hidden; before the tile is normalised
    its hidden pixels are set to the body colour of what is visible (the median of its
    unhidden pixels), so the upper tile's face, pips, walls and shadow neither show as pips
    nor set the contrast. Returns the squares with what is hidden mirrored in from across the
    half's centre where that is visible (every pip layout is point-symmetric), the squares
    without the mirror, and where each half is hidden ((2N, S, S) bool; rows as the crops')."""
    _check_frame(frame_bgr)
    if len(covers) != len(corners_list):
        raise CornersError(f"covers: expected one list of covering outlines per tile "
                           f"({len(corners_list)}), got {len(covers)}")
    pairs = _warped(frame_bgr, corners_list)
    if not len(pairs):
        return _no_hidden_crops()
    hidden = np.zeros(pairs.shape[:4], bool)
    for i, (corners, over) in enumerate(zip(corners_list, covers)):
        hidden[i] = covered_squares(corners, over)
    plain = pairs.copy()
    mirrored = pairs.copy()
    for i in range(len(pairs)):
        if not hidden[i].any():
            continue
        seen = pairs[i][~hidden[i]]
        body = np.median((seen if len(seen) else pairs[i]).reshape(
            -1, pairs.shape[-1] if pairs.ndim == 5 else 1), axis=0).astype(np.uint8)
        if pairs.ndim == 4:
            body = body[0]
        for j in range(2):
            h = hidden[i, j]
            if not h.any():
                continue
            plain[i, j][h] = body
            mirrored[i, j] = _mirrored_in(pairs[i, j], h, body)
    return (_normalise_tiles(mirrored).reshape(-1, HALF_SIZE, HALF_SIZE),
            _normalise_tiles(plain).reshape(-1, HALF_SIZE, HALF_SIZE),
            hidden.reshape(-1, HALF_SIZE, HALF_SIZE))


def covered_squares(corners: np.ndarray | Sequence[Sequence[float]],
                    covers: Sequence[np.ndarray | Sequence[Sequence[float]]]) -> np.ndarray:
    """Where the outlines ``covers`` (convex pixel quads of tiles lying over this one) hide
    each half square of the tile at ``corners`` ((2, S, S) bool, halves as :func:`half_crops`
    cuts them), widened by :data:`COVER_RIM` square pixels."""
    quad = np.asarray(corners, dtype=np.float64)
    if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
        raise CornersError(f"corners must be 4 finite [x, y] points, got {quad.tolist()}")
    out = np.zeros((2, HALF_SIZE, HALF_SIZE), np.uint8)
    for j, src in enumerate(_half_quads(quad)):
        matrix = cv2.getPerspectiveTransform(src, _DST_QUAD)
        for cover in covers:
            c = np.asarray(cover, dtype=np.float32)
            if c.shape != (4, 2) or not np.all(np.isfinite(c)):
                raise CornersError(f"covers: each must be 4 finite [x, y] points, got "
                                   f"{np.asarray(cover).tolist()}")
            # the part of the cover over this half (clipped first: a far point could fall
            # behind the half's perspective)
            area, part = cv2.intersectConvexConvex(src, _convex_hull(c))
            if area <= 0 or part is None:
                continue
            pts = cv2.perspectiveTransform(part.reshape(-1, 1, 2).astype(np.float32), matrix)
            cv2.fillConvexPoly(out[j], np.round(pts.reshape(-1, 2) * 16).astype(np.int32), 1,
                               cv2.LINE_8, 4)
    if COVER_RIM > 0 and out.any():
        out = np.stack([cv2.dilate(o, _COVER_KERNEL) for o in out])
    return out > 0


def _mirrored_in(square: np.ndarray, hidden: np.ndarray, body: np.ndarray) -> np.ndarray:
    """A half ``square`` ((S, S) or (S, S, 3)) with each ``hidden`` pixel ((S, S) bool) taken
    from its mirror image across the square's centre where that is not hidden, else set to
    ``body``: every pip layout is point-symmetric about the half's centre, so what a glint or a
    cover hides, the other side shows."""
    mirror = hidden[::-1, ::-1]
    shape = hidden.shape + (1,) * (square.ndim - 2)
    out = np.where((hidden & ~mirror).reshape(shape), square[::-1, ::-1], square)
    return np.where((hidden & mirror).reshape(shape), body, out).astype(square.dtype)


def _convex_hull(quad: np.ndarray) -> np.ndarray:
    """A quad's points as a convex polygon in one turning order (float32)."""
    return cv2.convexHull(quad.astype(np.float32)).reshape(-1, 2)


@overload
def _deglare(pairs: np.ndarray, both: Literal[False] = ...) -> np.ndarray: ...


@overload
def _deglare(pairs: np.ndarray, both: Literal[True]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


def _deglare(pairs: np.ndarray, both: bool = False
             ) -> np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, 2, S, S, 3) uint8 halves with the glint's white taken out (see
    :func:`tile_crops_deglared`), as uint8; with ``both``, also those halves without the
    mirror (:data:`GLINT_MIRROR`) and where each half is hidden ((N, 2, S, S) bool)."""
    count = pairs.shape[0]
    small = HALF_SIZE // FLAT_SHRINK
    kernel = max(3, (FLAT_KERNEL // FLAT_SHRINK) | 1)
    out = pairs.astype(np.float32)
    plain = out.copy() if both else out
    hidden = np.zeros(pairs.shape[:4], bool)
    for i in range(count):
        body = np.median(pairs[i].reshape(-1, 3), axis=0).astype(np.float32)
        for j in range(2):
            clipped = cv2.blur(pairs[i, j].min(axis=2),
                               (CLIPPED_BLUR, CLIPPED_BLUR)) >= CLIPPED_LEVEL
            if not clipped.any():
                continue  # no blown-out glint on this half: left as it is
            low = cv2.resize(pairs[i, j], (small, small), interpolation=cv2.INTER_AREA)
            level = cv2.resize(cv2.medianBlur(low, kernel), (HALF_SIZE, HALF_SIZE),
                               interpolation=cv2.INTER_LINEAR).astype(np.float32)
            # the glint's opacity: how far the lighting went from the body towards white
            alpha = np.clip(((level - body) / np.maximum(255.0 - body, 1.0)).mean(axis=2),
                            0.0, 1.0)[..., None]
            opaque = clipped | (alpha[..., 0] >= GLINT_OPAQUE)
            seen = (out[i, j] - 255.0 * alpha) / np.maximum(1.0 - alpha, 1.0 - GLINT_OPAQUE)
            # the glint with its rim: what the mirror fills and what is reported hidden
            rimmed = cv2.dilate(opaque.astype(np.uint8), _RIM_KERNEL) > 0
            if both:
                hidden[i, j] = rimmed
                plain[i, j] = np.where(rimmed[..., None], body, seen)
            if GLINT_MIRROR:
                out[i, j] = _mirrored_in(seen, rimmed, body)
            else:
                out[i, j] = np.where(opaque[..., None], body, seen)
    mirrored = np.clip(out, 0, 255).astype(np.uint8)
    if not both:
        return mirrored
    return mirrored, np.clip(plain, 0, 255).astype(np.uint8), hidden


def _flatten(pairs: np.ndarray) -> np.ndarray:
    """(N, 2, S, S[, 3]) uint8 halves less their lighting, plus each tile's median colour, as
    uint8. The lighting is a median filter :data:`FLAT_KERNEL` px wide, taken on the half
    shrunk :data:`FLAT_SHRINK` times (a filter FLAT_KERNEL / FLAT_SHRINK px wide) and
    enlarged back: the same smooth level for a fraction of the work."""
    count = pairs.shape[0]
    small = HALF_SIZE // FLAT_SHRINK
    kernel = max(3, (FLAT_KERNEL // FLAT_SHRINK) | 1)
    out = pairs.astype(np.float32)
    for i in range(count):
        for j in range(2):
            low = cv2.resize(pairs[i, j], (small, small), interpolation=cv2.INTER_AREA)
            level = cv2.resize(cv2.medianBlur(low, kernel), (HALF_SIZE, HALF_SIZE),
                               interpolation=cv2.INTER_LINEAR)
            out[i, j] -= level.reshape(out.shape[2:])
        colour = np.median(pairs[i].reshape(-1, pairs.shape[-1] if pairs.ndim == 5 else 1),
                           axis=0)
        out[i] += colour if pairs.ndim == 5 else colour[0]
    return np.clip(out, 0, 255).astype(np.uint8)


def _tile_crops(frame_bgr: np.ndarray,
                corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]], washed: bool,
                flatten: bool = False, deglare: bool = False
                ) -> tuple[np.ndarray, np.ndarray | None]:
    _check_frame(frame_bgr)
    pairs = _warped(frame_bgr, corners_list)
    if len(corners_list) == 0:
        return np.empty((0, HALF_SIZE, HALF_SIZE), dtype=np.float32), np.zeros(0, np.float32)
    if flatten:
        return _normalise_tiles(_flatten(pairs)).reshape(-1, HALF_SIZE, HALF_SIZE), None
    if deglare and pairs.ndim == 5:
        return _normalise_tiles(_deglare(pairs)).reshape(-1, HALF_SIZE, HALF_SIZE), None
    return (_normalise_tiles(pairs).reshape(-1, HALF_SIZE, HALF_SIZE),
            _washed(pairs).reshape(-1) if washed else None)


def _warped(frame_bgr: np.ndarray,
            corners_list: Sequence[np.ndarray | Sequence[Sequence[float]]]) -> np.ndarray:
    """The halves of every tile warped to squares, (N, 2, S, S[, 3]) uint8 (a bad tile raises
    :class:`CornersError` naming its index)."""
    height, width = frame_bgr.shape[:2]
    pairs = np.empty((len(corners_list), 2, HALF_SIZE, HALF_SIZE) + frame_bgr.shape[2:],
                     dtype=np.uint8)
    quads: list[np.ndarray] = []
    try:
        stacked = np.asarray(corners_list, dtype=np.float64)
    except (TypeError, ValueError):
        stacked = None  # ragged: checked one by one below, which names the bad one
    if stacked is not None and stacked.ndim == 3 and stacked.shape[1:] == (4, 2) \
            and _valid_quads(stacked, width, height).all():
        quads = list(stacked)  # all sound (the common case): checked at once
    else:
        for index, corners in enumerate(corners_list):
            try:
                quads.append(_check_corners(corners, width, height))
            except CornersError as exc:
                raise CornersError(f"tile {index}: {exc}") from exc
    for index, quad in enumerate(quads):
        _warp_tile(frame_bgr, quad, pairs[index])
    return pairs
