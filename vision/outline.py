"""Fit each found tile's outline to the picture: turn it to the tile's own long sides.

The detector's outlines (:func:`vision.detect.detect_tiles`) are rectangles grown from the
learned tile finder's kernel blobs; nothing fits them to the picture, and a tile's outline
often comes out turned by a few degrees (on rendered tuning scenes: 4.5 degrees or more for one
tile in ten, 12.7 for one in a hundred; a turned outline cuts pips off its halves' corners).
This stage turns each outline about its centre so that its long sides lie on the tile's, on a
small patch per tile and with the work batched over the frame's tiles:

1. **Rectify**: the picture around the outline's middle is warped to a patch in which the
   outline lies axis-aligned and the tile is :data:`NORM_WIDTH` px wide (the cost per tile is
   the same at any size).
2. **Face**: the face colour is the median colour of the outline's inner part; each pixel's
   *faceness* is how close its colour is to it (1 on the face; 0 on the table, the pips, the
   divider, the shaded side walls and the groove between touching tiles). The tolerance comes
   from the tile's own colours: at most :data:`FACE_SPREAD` times the face's own spread and
   :data:`FACE_TOL` of the ink's contrast, at least :data:`FACE_TOL_MIN` levels.
3. **Turn**: for each turn tried (:data:`TURN_COARSE`, then :data:`TURN_FINE` about the best),
   the faceness of the tile's middle (its ends and the divider's band left out) is projected
   across the tile; the turn at which that profile rises and falls most steeply (the long
   sides are straight lines across it) wins. It is made when the sides are clear there
   (:data:`MIN_SHARP`) and it is at least :data:`MIN_TURN`; otherwise the outline stays.

Only the turn is fitted. Fitting the long sides and the ends as well was measured on 200
rendered tuning scenes (seeds 1,600,000-199) and left out: to the steepest rise and fall of the
faceness profile, the ends went onto pip rows, side walls or a chain neighbour's divider more
often than they mended a slid outline (misread tiles 60 with the turn alone, 70 with the ends,
84 with the sides, 97 with both, 83 with no fit); to where the face stops along the tile's rim
(beside the pips, with the divider half way and a length like the frame's other tiles'), only
35 of about 780 outlines on 60 scenes moved, 10 nearer the truth and 10 further. Outlines slid
along a chain are left to the reader's re-reading at moved outlines (:mod:`vision.read`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

#: The rectified patch samples the tile NORM_WIDTH times across its width and NORM_ALONG times
#: along a tile width's length (the turn is measured across the tile, where the long sides
#: are; along it a few samples suffice).
NORM_WIDTH = 20
NORM_ALONG = 6
#: The turn is measured on the tile's middle: from U_INNER to U_OUTER tile widths either side
#: of its centre along it (the divider's band and the ends left out), out to V_OUTER widths
#: across it (its long sides lie at 0.5).
U_INNER, U_OUTER, V_OUTER = 0.12, 0.85, 0.7
#: Faceness tolerance: the colour distance (8-bit levels) at which a pixel stops counting as
#: face is at most FACE_TOL of the ink's contrast (the 95th percentile of the distance inside
#: the outline) and FACE_SPREAD times the face's own spread (the median distance, its noise
#: and texture: side walls a shade off the face are not face), at least FACE_TOL_MIN.
FACE_TOL = 0.45
FACE_SPREAD = 4.0
FACE_TOL_MIN = 18.0
#: Turns tried, in degrees: the coarse grid, then the fine one about the best coarse turn.
TURN_COARSE = tuple(np.arange(-15.0, 15.01, 3.0).round(2))
TURN_FINE = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)
#: Largest turn made, in degrees (a coarse turn plus a fine one).
MAX_TURN = 15.0
#: A turn is made only when the long sides are this clear at it: the steepest rise plus the
#: steepest fall of the projected faceness between neighbouring bins, halved (0..1).
MIN_SHARP = 0.2
#: Smaller turns, in degrees, are not made.
MIN_TURN = 0.5

# the patch: NORM_WIDTH px per tile width, centred on the outline's centre, wide enough for the
# turned middle at any turn tried
_HALF_COLS = int(math.ceil(NORM_ALONG * (U_OUTER * math.cos(math.radians(MAX_TURN + 2))
                                         + V_OUTER * math.sin(math.radians(MAX_TURN + 2))))) + 1
_HALF_ROWS = int(math.ceil(NORM_WIDTH * (V_OUTER + U_OUTER * math.sin(math.radians(MAX_TURN + 2)))
                           )) + 1
_COLS, _ROWS = 2 * _HALF_COLS + 1, 2 * _HALF_ROWS + 1
_BINS = 2 * int(math.ceil(V_OUTER * NORM_WIDTH)) + 3
#: least pixels in a profile bin for its value to count
_MIN_BIN = 3


class OutlineError(ValueError):
    """Outlines or a frame the fit cannot use."""


@dataclass(frozen=True)
class Fit:
    """One tile's fitted outline, (4, 2) float64 image pixels in the found outline's corner
    order; ``turn`` the turn made (degrees, 0 when none: then ``corners`` is the found
    outline), ``sharp`` how clear the long sides are at it (0..1)."""

    corners: np.ndarray
    turn: float
    sharp: float

    @property
    def moved(self) -> bool:
        return self.turn != 0.0


def _grid() -> tuple[np.ndarray, np.ndarray]:
    """Where the patch's pixels lie from its centre, along and across the tile, flattened, in
    units of 1 / NORM_WIDTH tile width."""
    ys, xs = np.mgrid[-_HALF_ROWS:_HALF_ROWS + 1, -_HALF_COLS:_HALF_COLS + 1].astype(np.float32)
    return xs.ravel() * (NORM_WIDTH / NORM_ALONG), ys.ravel()


_PROJECTORS: dict[tuple[float, ...],
                  tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}


def _projector(angles_deg: tuple[float, ...]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the profiles across the tile turned by each angle (only the tile's middle:
    :data:`U_INNER`..:data:`U_OUTER` along it, within :data:`V_OUTER` across): the patch pixels
    that count, the profile bin (angle * BINS + bin) each goes to and with what weight (each
    pixel is shared between the two bins about it), and the (A, BINS) weight of each bin
    (cached per angles)."""
    got = _PROJECTORS.get(angles_deg)
    if got is not None:
        return got
    xs, ys = _grid()
    w = float(NORM_WIDTH)
    pixels, slots, weights = [], [], []
    for a, deg in enumerate(angles_deg):
        t = math.radians(deg)
        u = xs * math.cos(t) + ys * math.sin(t)
        v = ys * math.cos(t) - xs * math.sin(t)
        keep = np.nonzero((np.abs(u) >= U_INNER * w) & (np.abs(u) <= U_OUTER * w)
                          & (np.abs(v) <= V_OUTER * w))[0]
        # each pixel shared between the two bins about it (no aliasing between turns)
        pos = v[keep] + _BINS // 2
        low = np.floor(pos)
        frac = (pos - low).astype(np.float32)
        low = np.clip(low.astype(np.int64), 0, _BINS - 2)
        pixels += [keep, keep]
        slots += [a * _BINS + low, a * _BINS + low + 1]
        weights += [1.0 - frac, frac]
    pix, slot, weight = np.concatenate(pixels), np.concatenate(slots), np.concatenate(weights)
    counts = np.bincount(slot, weight, minlength=len(angles_deg) * _BINS).reshape(-1, _BINS)
    if len(_PROJECTORS) > 256:
        _PROJECTORS.clear()
    got = (pix, slot, weight, counts.astype(np.float32))
    _PROJECTORS[angles_deg] = got
    return got


def _sharpness(face: np.ndarray, angles_deg: tuple[float, ...]) -> np.ndarray:
    """(N, A): for each of N faceness patches (N, P) and each turn, the steepest rise plus the
    steepest fall of the profile across the turned tile, halved (0..1)."""
    pix, slot, weight, counts = _projector(angles_deg)
    n, size = len(face), len(angles_deg) * _BINS
    index = (np.arange(n)[:, None] * size + slot[None, :]).ravel()
    sums = np.bincount(index, (face[:, pix] * weight).ravel(), minlength=n * size)
    profile = sums.reshape(n, len(angles_deg), _BINS) / np.maximum(counts, 1)
    step = np.diff(profile, axis=2)
    valid = (counts[:, 1:] >= _MIN_BIN) & (counts[:, :-1] >= _MIN_BIN)
    step = np.where(valid[None], step, 0.0)
    return (step.max(axis=2) - step.min(axis=2)) / 2


def _faceness(patches: np.ndarray) -> np.ndarray:
    """(N, P) faceness of N colour patches (N, ROWS, COLS, 3) float32 (see the module
    docstring, step 2)."""
    n = len(patches)
    xs, ys = _grid()
    inner = ((np.abs(ys) <= 0.3 * NORM_WIDTH) & (np.abs(xs) >= U_INNER * NORM_WIDTH)
             & (np.abs(xs) <= 0.6 * NORM_WIDTH))
    flat = patches.reshape(n, -1, 3)
    core = flat[:, inner]
    face = np.median(core, axis=1)
    dist = np.sqrt(((flat - face[:, None, :]) ** 2).sum(axis=2))
    inner_dist = dist[:, inner]
    m = inner_dist.shape[1] - 1
    ranks = [m // 2, int(0.95 * m)]
    spread, ink = np.partition(inner_dist, ranks, axis=1)[:, ranks].T
    tol = np.maximum(FACE_TOL_MIN, np.minimum(FACE_SPREAD * spread, FACE_TOL * ink))
    return np.clip(1.5 - dist / tol[:, None], 0.0, 1.0).astype(np.float32)


def _axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Centre, unit long axis (end 0-1 to end 2-3) and width of an outline; None for one too
    small or degenerate to fit."""
    first, second = (corners[0] + corners[1]) / 2, (corners[2] + corners[3]) / 2
    along = second - first
    length = float(np.hypot(*along))
    if not length >= 4.0:
        return None
    ua = along / length
    ub = np.array([-ua[1], ua[0]])
    width = (abs(float((corners[1] - corners[0]) @ ub))
             + abs(float((corners[2] - corners[3]) @ ub))) / 2
    if not width >= 2.0:
        return None
    return corners.mean(axis=0), ua, width


def _patch(frame_bgr: np.ndarray, centre: np.ndarray, ua: np.ndarray, width: float
           ) -> np.ndarray:
    """The (ROWS, COLS, 3) patch about ``centre``: columns along ``ua`` (NORM_ALONG per
    ``width`` image px), rows along its +90-degree turn (NORM_WIDTH per ``width``)."""
    su, sv = width / NORM_ALONG, width / NORM_WIDTH  # image px per patch column, row
    ub = np.array([-ua[1], ua[0]])
    origin = centre - _HALF_COLS * su * ua - _HALF_ROWS * sv * ub
    mat = np.array([[ua[0] * su, ub[0] * sv, origin[0]], [ua[1] * su, ub[1] * sv, origin[1]]])
    return cv2.warpAffine(frame_bgr, mat, (_COLS, _ROWS),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def fit_outlines(frame_bgr: np.ndarray, outlines: Sequence[np.ndarray]) -> list[Fit]:
    """Each outline ((4, 2) image pixels, corners 0-1 at one short end) of one BGR uint8
    frame, turned onto its tile's long sides where they are clear (see the module
    docstring); an outline too small or degenerate to fit comes back as it was."""
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.dtype != np.uint8 \
            or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise OutlineError("frame_bgr: expected a BGR uint8 (H, W, 3) image, got "
                           f"{getattr(frame_bgr, 'shape', type(frame_bgr).__name__)}")
    quads = []
    for i, outline in enumerate(outlines):
        quad = np.asarray(outline, np.float64)
        if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
            raise OutlineError(f"outline {i}: expected 4 finite [x, y] points, got "
                               f"{np.asarray(outline).tolist()}")
        quads.append(quad)
    fits = [Fit(q, 0.0, 0.0) for q in quads]
    axes = [_axes(q) for q in quads]
    todo = [i for i, a in enumerate(axes) if a is not None]
    if not todo:
        return fits
    patches = np.empty((len(todo), _ROWS, _COLS, 3), np.float32)
    for j, i in enumerate(todo):
        centre, ua, width = axes[i]  # type: ignore[misc]
        patches[j] = _patch(frame_bgr, centre, ua, width)
    face = _faceness(patches)
    coarse = _sharpness(face, TURN_COARSE)
    best = np.argmax(coarse - 1e-3 * np.abs(np.asarray(TURN_COARSE)), axis=1)
    turns = np.asarray(TURN_COARSE)[best]
    sharp = coarse[np.arange(len(todo)), best]
    # the fine turns about each tile's coarse one, tiles with the same coarse turn together
    for c in np.unique(best):
        rows = np.nonzero(best == c)[0]
        angles = tuple(float(TURN_COARSE[c] + f) for f in TURN_FINE
                       if abs(TURN_COARSE[c] + f) <= MAX_TURN)
        fine = _sharpness(face[rows], angles)
        pick = np.argmax(fine - 1e-3 * np.abs(np.asarray(angles)), axis=1)
        turns[rows] = np.asarray(angles)[pick]
        sharp[rows] = fine[np.arange(len(rows)), pick]
    for j, i in enumerate(todo):
        turn = float(turns[j])
        if sharp[j] < MIN_SHARP or abs(turn) < MIN_TURN:
            fits[i] = Fit(quads[i], 0.0, float(sharp[j]))
            continue
        # the patch's rows run along the +90-degree turn of its columns, so a turn in the patch
        # is the same turn in the image
        t = math.radians(turn)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        centre = axes[i][0]  # type: ignore[index]
        fits[i] = Fit((quads[i] - centre) @ rot.T + centre, turn, float(sharp[j]))
    return fits
