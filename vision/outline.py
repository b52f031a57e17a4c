"""Fit each found tile's outline to the picture: turn it onto the tile's own long sides, and
centre it on the tile's divider.

The detector's outlines (:func:`vision.detect.detect_tiles`) are rectangles grown from the
learned tile finder's kernel blobs; nothing fits them to the picture, and a tile's outline
often comes out turned by a few degrees (on rendered tuning scenes: 4.5 degrees or more for one
tile in ten, 12.7 for one in a hundred; a turned outline cuts pips off its halves' corners).
This stage turns each outline about its centre so that its long sides lie on the tile's and
slides it along onto the divider, on small patches per tile with the work batched over the
frame's tiles:

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
4. **Divider**: on a second patch along the turned outline, a clear divider near its middle (a
   line across the tile with no face on it, pips leaving face between them) slides the
   outline along its length so that its middle lies on it (:data:`CENTRE_ON_DIVIDER`): a
   chain's tile found a little slid along the chain is put back over its own halves.
5. **Ends**: an end that takes in a band with no face at all across the tile (the end wall a
   tilted camera sees, the table) is trimmed back to where the face begins
   (:data:`TRIM_TO_FACE`).

On 200 rendered tuning scenes (seeds 1,600,000-199, the detector of 0715897) the reader with
this stage misread 54 found tiles instead of 83 (turn alone: 56-62) and read 147 frames
entirely right instead of 141; the outlines' angle error at the 90th percentile went from 4.5 to
2.0 degrees, the 99th from 12.3 to 4.6.

The width is not fitted, and the length only by the end trim of step 5. Fitting them was
measured on the same scenes and left
out: to the steepest rise and fall of the faceness profile, the ends went onto pip rows, side
walls or a chain neighbour's divider more often than they mended a slid outline (misread tiles
60 with the turn alone, 70 with the ends, 84 with the sides, 97 with both, 83 with no fit); to
where the face stops along the tile's rim (beside the pips, with the divider half way and a
length like the frame's other tiles'), only 35 of about 780 outlines on 60 scenes moved, 10
nearer the truth and 10 further; shrinking an outline larger than 1.15 (1.25) times its six
nearest neighbours' median to that median read 52 (51, 54 without a clear divider asked for)
instead of 54, with as many frames right or 2-3 fewer: noise. Outlines found too long or slid
further than the divider search reaches are left to the reader's re-reading at moved outlines
(:mod:`vision.read`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
_HALF_COLS = math.ceil(NORM_ALONG * (U_OUTER * math.cos(math.radians(MAX_TURN + 2))
                                     + V_OUTER * math.sin(math.radians(MAX_TURN + 2)))) + 1
_HALF_ROWS = math.ceil(NORM_WIDTH * (V_OUTER + U_OUTER * math.sin(math.radians(MAX_TURN + 2)))) + 1
_COLS, _ROWS = 2 * _HALF_COLS + 1, 2 * _HALF_ROWS + 1
_BINS = 2 * math.ceil(V_OUTER * NORM_WIDTH) + 3
#: least pixels in a profile bin for its value to count
_MIN_BIN = 3


class OutlineError(ValueError):
    """Outlines or a frame the fit cannot use."""


@dataclass(frozen=True)
class Fit:
    """One tile's fitted outline, (4, 2) float64 image pixels in the found outline's corner
    order; ``turn`` the turn made (degrees, 0 when none), ``sharp`` how clear the long sides
    are at it (0..1), ``slide`` the slide onto the divider (image px along the long axis),
    ``trims`` how far (image px) end 0, end 1 and the long sides were moved in onto the face
    (() when none; ``corners`` is the found outline when nothing was made)."""

    corners: np.ndarray
    turn: float
    sharp: float
    slide: float = 0.0
    trims: tuple[float, ...] = ()

    @property
    def moved(self) -> bool:
        return self.turn != 0.0 or self.slide != 0.0 or bool(self.trims)

    @property
    def unslid(self) -> np.ndarray:
        """The outline turned but not slid along its length (``corners`` when no slide was
        made): the slide's own alternative (:mod:`vision.read` reads both)."""
        if not self.slide:
            return self.corners
        along = (self.corners[2] + self.corners[3] - self.corners[0] - self.corners[1]) / 2
        return self.corners - self.slide * along / max(float(np.hypot(*along)), 1e-9)


def _grid(half: tuple[int, int] = (_HALF_COLS, _HALF_ROWS)) -> tuple[np.ndarray, np.ndarray]:
    """Where the pixels of a patch (``half``: its half-sizes, columns and rows) lie from its
    centre, along and across the tile, flattened, in units of 1 / NORM_WIDTH tile width."""
    half_cols, half_rows = half
    ys, xs = np.mgrid[-half_rows:half_rows + 1, -half_cols:half_cols + 1].astype(np.float32)
    return xs.ravel() * (NORM_WIDTH / NORM_ALONG), ys.ravel()


_PROJECTORS: dict[tuple[tuple[float, ...], tuple[int, int]],
                  tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}


def _projector(angles_deg: tuple[float, ...], half: tuple[int, int] = (_HALF_COLS, _HALF_ROWS)
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the profiles across the tile turned by each angle (only the tile's middle:
    :data:`U_INNER`..:data:`U_OUTER` along it, within :data:`V_OUTER` across): the patch pixels
    that count, grouped by the profile bin (angle * BINS + bin) they go to (where each group
    starts, and its bin), with what weight (each pixel is shared between the two bins about
    it), and the (A, BINS) weight of each bin (cached per angles)."""
    got = _PROJECTORS.get((angles_deg, half))
    if got is not None:
        return got
    xs, ys = _grid(half)
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
    order = np.argsort(slot, kind="stable")  # grouped by bin, for np.add.reduceat
    pix, slot, weight = pix[order], slot[order], weight[order]
    counts = np.bincount(slot, weight, minlength=len(angles_deg) * _BINS).reshape(-1, _BINS)
    if len(_PROJECTORS) > 256:
        _PROJECTORS.clear()
    starts = np.nonzero(np.r_[True, slot[1:] != slot[:-1]])[0]
    got = (pix, starts, slot[starts], weight, counts.astype(np.float32))
    _PROJECTORS[(angles_deg, half)] = got
    return got


def _sharpness(face: np.ndarray, angles_deg: tuple[float, ...],
               half: tuple[int, int] = (_HALF_COLS, _HALF_ROWS)) -> np.ndarray:
    """(N, A): for each of N faceness patches (N, P; ``half`` their half-sizes) and each turn,
    the steepest rise plus the steepest fall of the profile across the turned tile, halved
    (0..1)."""
    pix, starts, bins, weight, counts = _projector(angles_deg, half)
    n, size = len(face), len(angles_deg) * _BINS
    sums = np.zeros((n, size), np.float32)
    sums[:, bins] = np.add.reduceat(face[:, pix] * weight, starts, axis=1)
    profile = sums.reshape(n, len(angles_deg), _BINS) / np.maximum(counts, 1)
    step = np.diff(profile, axis=2)
    valid = (counts[:, 1:] >= _MIN_BIN) & (counts[:, :-1] >= _MIN_BIN)
    step = np.where(valid[None], step, 0.0)
    return (step.max(axis=2) - step.min(axis=2)) / 2


def _face_like(patches: np.ndarray, colour: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """(N, ROWS, COLS) faceness of N colour patches (N, ROWS, COLS, 3) against each tile's face
    colour (N, 3) and tolerance (N,), as :func:`_faceness` found them."""
    dist = np.sqrt(((patches - colour[:, None, None, :]) ** 2).sum(axis=3))
    return np.clip(1.5 - dist / tol[:, None, None], 0.0, 1.0)


def _faceness(patches: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, P) faceness of N colour patches (N, ROWS, COLS, 3) float32 (see the module
    docstring, step 2), with each tile's face colour (N, 3) and tolerance (N,)."""
    n = len(patches)
    xs, ys = _grid(((patches.shape[2] - 1) // 2, (patches.shape[1] - 1) // 2))
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
    return np.clip(1.5 - dist / tol[:, None], 0.0, 1.0).astype(np.float32), face, tol


def _axes(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For (N, 4, 2) outlines: centres (N, 2), unit long axes (N, 2; end 0-1 to end 2-3),
    widths (N,) and whether each is large and sound enough to fit (N,)."""
    first = (quads[:, 0] + quads[:, 1]) / 2
    along = (quads[:, 2] + quads[:, 3]) / 2 - first
    length = np.hypot(along[:, 0], along[:, 1])
    ua = along / np.maximum(length, 1e-9)[:, None]
    ub = np.stack([-ua[:, 1], ua[:, 0]], axis=1)
    width = (np.abs(((quads[:, 1] - quads[:, 0]) * ub).sum(axis=1))
             + np.abs(((quads[:, 2] - quads[:, 3]) * ub).sum(axis=1))) / 2
    return quads.mean(axis=1), ua, width, (length >= 4.0) & (width >= 2.0)


def _warp_all(frame_bgr: np.ndarray, centres: np.ndarray, ua: np.ndarray, su: np.ndarray,
              sv: np.ndarray, half_cols: int, half_rows: int) -> np.ndarray:
    """(N, 2 half_rows + 1, 2 half_cols + 1, 3) float32 patches about ``centres``: columns
    along ``ua`` every ``su`` image px, rows along its +90-degree turn every ``sv`` px."""
    ub = np.stack([-ua[:, 1], ua[:, 0]], axis=1)
    origin = centres - (half_cols * su)[:, None] * ua - (half_rows * sv)[:, None] * ub
    mats = np.empty((len(centres), 2, 3))
    mats[:, :, 0] = ua * su[:, None]
    mats[:, :, 1] = ub * sv[:, None]
    mats[:, :, 2] = origin
    size = (2 * half_cols + 1, 2 * half_rows + 1)
    out = np.empty((len(centres), size[1], size[0], 3), np.float32)
    for j, mat in enumerate(mats):
        out[j] = cv2.warpAffine(frame_bgr, mat, size,
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def _checked(frame_bgr: np.ndarray, outlines: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The outlines as (4, 2) float64 arrays, after checking that ``frame_bgr`` is a BGR uint8
    image and each outline 4 finite points; :class:`OutlineError` names what is wrong."""
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
    return quads


def fit_outlines(frame_bgr: np.ndarray, outlines: Sequence[np.ndarray]) -> list[Fit]:
    """Each outline ((4, 2) image pixels, corners 0-1 at one short end) of one BGR uint8
    frame, turned onto its tile's long sides where they are clear (see the module
    docstring); an outline too small or degenerate to fit comes back as it was."""
    quads = _checked(frame_bgr, outlines)
    fits = [Fit(q, 0.0, 0.0) for q in quads]
    if not quads:
        return fits
    centres, ua, widths, ok = _axes(np.stack(quads))
    todo = np.nonzero(ok)[0]
    if not len(todo):
        return fits
    centres, ua, widths = centres[todo], ua[todo], widths[todo]
    patches = _warp_all(frame_bgr, centres, ua, widths / NORM_ALONG, widths / NORM_WIDTH,
                        _HALF_COLS, _HALF_ROWS)
    face, colour, tol = _faceness(patches)
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
    turns = np.where((sharp >= MIN_SHARP) & (np.abs(turns) >= MIN_TURN), turns, 0.0)
    # the patch's rows run along the +90-degree turn of its columns, so a turn in the patch is
    # the same turn in the image: each outline turns about its centre
    t = np.radians(turns)
    cos, sin = np.cos(t)[:, None], np.sin(t)[:, None]
    ua = np.concatenate([cos * ua[:, :1] - sin * ua[:, 1:], sin * ua[:, :1] + cos * ua[:, 1:]],
                        axis=1)
    slides = (_divider_slides(frame_bgr, centres, ua, widths, colour, tol) if CENTRE_ON_DIVIDER
              else np.zeros(len(todo)))
    moved = []
    for j, i in enumerate(todo.tolist()):
        rel = quads[i] - centres[j]
        quad = centres[j] + np.stack([cos[j] * rel[:, 0] - sin[j] * rel[:, 1],
                                      sin[j] * rel[:, 0] + cos[j] * rel[:, 1]], axis=1)
        moved.append(quad + slides[j] * ua[j])
    trims = (_face_trims(frame_bgr, np.stack(moved), ua, colour, tol) if TRIM_TO_FACE
             else np.zeros((len(todo), 4)))
    for j, i in enumerate(todo.tolist()):
        trimmed = bool(trims[j].any())
        if not (turns[j] or slides[j] or trimmed):
            fits[i] = Fit(quads[i], 0.0, float(sharp[j]))
            continue
        quad = _trimmed(moved[j], ua[j], trims[j]) if trimmed else moved[j]
        fits[i] = Fit(quad, float(turns[j]), float(sharp[j]), float(slides[j]),
                      tuple(float(t) for t in trims[j]) if trimmed else ())
    return fits


#: Whether each fitted outline's ends and long sides are trimmed onto the tile's top face where
#: a band along them shows no face at all (a side wall a tilted camera sees, the table): from
#: each end (side) inwards, the lines across (along) the tile whose brightest tenth of faceness
#: is at most TRIM_OFF are cut off, up to the first line where it is TRIM_ON or more (pips leave
#: face between them, a wall does not); only cuts of TRIM_MIN widths or more are made, and at
#: most TRIM_END (TRIM_SIDE) widths. Outlines taking in an end wall or the table beyond a
#: tile's end (tilted cameras) were most of the tiles read wrong at 0.9 or more on the 500
#: tuning scenes (seeds 1,600,000-499); with the trim (reader of 3135704): read wrong at 0.9
#: or more 11 -> 8, wrong below 0.9 29 -> 27, right below 0.9 202 -> 197, tiles right
#: 7,023 -> 7,027, frames 438 -> 439, false 14 -> 14, missed 80 -> 81; of 7,060 matched
#: outlines 76 nearer the true one (IoU up by more than 0.02), 5 further, those below IoU
#: 0.8 279 -> 263. The sides are not cut (TRIM_SIDE 0): cutting them up to 0.3 widths on
#: seeds 1,600,000-099 moved 9 outlines nearer and 8 further (rounded rims and shaded
#: bevels read as no face), the ends alone 8 and 1.
TRIM_TO_FACE = True
TRIM_ON = 0.6
TRIM_OFF = 0.35
TRIM_MIN = 0.08
TRIM_END = 0.6
TRIM_SIDE = 0.0
#: Bands of no face along the long sides up to TRIM_SIDE_LOOK widths are left out of the
#: cleanliness check (:data:`TRIM_CLEAN`) though not cut.
TRIM_SIDE_LOOK = 0.3
#: ... and only on tiles where at most TRIM_CLEAN of the middle lines show no face.
TRIM_CLEAN = 0.1
#: The trim looks at a patch of the outline sampled TRIM_NORM times across its width and
#: 2 TRIM_NORM times along its length, the lines' middle TRIM_INNER of their length.
TRIM_NORM = 20
TRIM_INNER = 0.7


def _face_trims(frame_bgr: np.ndarray, quads: np.ndarray, ua: np.ndarray, colour: np.ndarray,
                tol: np.ndarray) -> np.ndarray:
    """(N, 4): how far (image px) to move each outline's (N, 4, 2; unit long axis ``ua``)
    end 0, end 1, side -ub and side +ub inwards onto its tile's face (see
    :data:`TRIM_TO_FACE`); ``colour`` and ``tol``: each tile's face colour and faceness
    tolerance (:func:`_faceness`)."""
    n = len(quads)
    centres = quads.mean(axis=1)
    ub = np.stack([-ua[:, 1], ua[:, 0]], axis=1)
    rel = quads - centres[:, None, :]
    along = np.abs((rel * ua[:, None, :]).sum(axis=2)).mean(axis=1)      # half lengths
    across = np.abs((rel * ub[:, None, :]).sum(axis=2)).mean(axis=1)     # half widths
    su = along / TRIM_NORM
    sv = across / (TRIM_NORM / 2)
    patches = _warp_all(frame_bgr, centres, ua, su, sv, TRIM_NORM, TRIM_NORM // 2)
    face = _face_like(patches, colour, tol)                              # (n, rows, cols)
    rows, cols = face.shape[1:]
    r0 = round((1 - TRIM_INNER) / 2 * (rows - 1))
    c0 = round((1 - TRIM_INNER) / 2 * (cols - 1))
    ends = np.sort(face[:, r0:rows - r0, :], axis=1)[:, int(0.9 * (rows - 2 * r0 - 1)), :]
    sides = np.sort(face[:, :, c0:cols - c0], axis=2)[:, :, int(0.9 * (cols - 2 * c0 - 1))]
    width = 2 * across
    out = np.zeros((n, 4))
    # only an outline with no face on an end line (or a side line, where sides are cut) can be
    # cut
    edge_off = (ends[:, 0] < TRIM_ON) | (ends[:, -1] < TRIM_ON)
    if TRIM_SIDE > 0:
        edge_off |= (sides[:, 0] < TRIM_ON) | (sides[:, -1] < TRIM_ON)
    for j in np.nonzero(edge_off)[0]:
        runs = [_off_run(ends[j], TRIM_END * width[j] / su[j]),
                _off_run(ends[j, ::-1], TRIM_END * width[j] / su[j]),
                _off_run(sides[j], TRIM_SIDE_LOOK * width[j] / sv[j]),
                _off_run(sides[j, ::-1], TRIM_SIDE_LOOK * width[j] / sv[j])]
        # the face colour is trusted where the lines left (at least half of them) all show
        # face (pips leave face between them, the divider is one line): not where it is the
        # ink's (a tile full of pips)
        left_ends, left_sides = ends[j, runs[0]:cols - runs[1]], sides[j, runs[2]:rows - runs[3]]
        if (2 * len(left_ends) < cols or 2 * len(left_sides) < rows
                or (left_ends < TRIM_ON).mean() > TRIM_CLEAN
                or (left_sides < TRIM_ON).mean() > TRIM_CLEAN):
            continue
        for k, (run, step, most) in enumerate(zip(runs, (su[j], su[j], sv[j], sv[j]),
                                                  (TRIM_END, TRIM_END, TRIM_SIDE, TRIM_SIDE))):
            cut = (run - 0.5) * step
            if run and TRIM_MIN * width[j] <= cut <= most * width[j]:
                out[j, k] = cut
    return out


def _off_run(profile: np.ndarray, most: float) -> int:
    """How many lines of a faceness profile (its brightest tenth per line, from the outline's
    edge inwards) show no face before the face begins (0 where the first line shows face,
    where the face begins further than ``most`` lines in, or where a line before it shows
    more than :data:`TRIM_OFF`)."""
    on = np.nonzero(profile >= TRIM_ON)[0]
    if not len(on) or on[0] == 0 or on[0] > most or profile[:on[0]].max() > TRIM_OFF:
        return 0
    return int(on[0])


def _trimmed(quad: np.ndarray, ua: np.ndarray, trims: np.ndarray) -> np.ndarray:
    """``quad`` (4, 2; unit long axis ``ua``, corners 0-1 at end 0) with end 0, end 1, side
    -ub and side +ub moved inwards by ``trims`` (4,) px."""
    ub = np.array([-ua[1], ua[0]])
    out = quad.copy()
    out[:2] += trims[0] * ua
    out[2:] -= trims[1] * ua
    side = ((quad - quad.mean(axis=0)) @ ub) > 0
    out[~side] += trims[2] * ub
    out[side] -= trims[3] * ub
    return out


#: Whether the turned outline is slid along its length to centre it on the divider, when a
#: clear one lies within DIV_REACH widths of its middle: a line across the middle DIV_BAND of
#: the width where even the brightest tenth of the faceness is at most DIV_DEPTH (pips leave
#: face between them; the divider does not), with no other line of faceness at most
#: DIV_DEPTH + DIV_OTHER more than DIV_APART widths from it (a pip row, a groove). Only slides of
#: DIV_MIN widths or more are made. On 100 tuning scenes (1,600,000-099) 98 of 1348 outlines
#: slid, 79 nearer the true tile, 10 further.
CENTRE_ON_DIVIDER = True
DIV_REACH = 0.35
DIV_BAND = 0.38
DIV_DEPTH = 0.3
DIV_OTHER = 0.2
DIV_APART = 0.12
DIV_MIN = 0.06
#: The divider is looked for on a patch sampled DIV_NORM times per tile width both ways.
DIV_NORM = 20
_D_HALF_COLS = math.ceil(DIV_NORM * (DIV_REACH + 0.1))
_D_HALF_ROWS = math.ceil(DIV_NORM * DIV_BAND)


def _divider_slides(frame_bgr: np.ndarray, centres: np.ndarray, ua: np.ndarray,
                    widths: np.ndarray, colour: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """(N,): how far (image px, along ``ua``) to slide each outline (centre, unit long axis,
    width) to centre it on its divider (0 where there is no clear divider, or the slide is
    small); ``colour`` (N, 3) and ``tol`` (N,): each tile's face colour and faceness tolerance
    (:func:`_faceness`)."""
    n = len(centres)
    scales = widths / DIV_NORM
    patches = _warp_all(frame_bgr, centres, ua, scales, scales, _D_HALF_COLS, _D_HALF_ROWS)
    rows, cols = patches.shape[1:3]
    face = _face_like(patches, colour, tol)
    across = np.sort(face, axis=1)[:, int(0.9 * (rows - 1)), :]          # (n, cols)
    idx = np.arange(cols) - _D_HALF_COLS
    across[:, np.abs(idx) > DIV_REACH * DIV_NORM] = 1.0
    pos = np.broadcast_to(np.arange(cols), across.shape)
    k = np.argmin(across, axis=1)
    dark = across <= DIV_DEPTH
    other = ((np.abs(idx[None, :] - idx[k][:, None]) > DIV_APART * DIV_NORM)
             & (across <= DIV_DEPTH + DIV_OTHER)).any(axis=1)
    clear = dark[np.arange(n), k] & ~other
    # the dark run about k, and its middle
    lo = np.where(~dark & (pos < k[:, None]), pos, -1).max(axis=1) + 1
    hi = np.where(~dark & (pos > k[:, None]), pos, cols).min(axis=1) - 1
    off = (lo + hi) / 2 - _D_HALF_COLS
    out = np.where(clear & (np.abs(off) >= DIV_MIN * DIV_NORM), off * scales, 0.0)
    return out


#: :func:`divider_strength` rectifies each tile to DIVIDER_WIDTH x 2 DIVIDER_WIDTH px and leaves
#: DIVIDER_RIM px of each side out (the outline's edges, the side walls).
DIVIDER_WIDTH = 16
DIVIDER_RIM = 3
#: Least ink contrast (8-bit colour distance) the strength is divided by: a blank face's own
#: ink is its noise.
DIVIDER_INK_MIN = 10.0
#: Turns (degrees) of the line looked for against the outline: an outline found turned on its
#: tile (the fit leaves turns it cannot see the sides of) shows the divider aslant.
DIVIDER_TURNS = (-12.0, -6.0, 0.0, 6.0, 12.0)
_DIVIDER_ROWS = np.arange(2 * DIVIDER_WIDTH)
_DIVIDER_COLS = np.arange(DIVIDER_RIM, DIVIDER_WIDTH - DIVIDER_RIM)
_DIVIDER_SHIFTS = [np.round(math.tan(math.radians(t)) * (_DIVIDER_COLS - (DIVIDER_WIDTH - 1) / 2)
                            ).astype(int) for t in DIVIDER_TURNS]
# (turns, rows, cols) indices of the patch: the rows of a line turned by each turn
_DIVIDER_GATHER_ROWS = np.clip(_DIVIDER_ROWS[None, :, None] + np.stack(_DIVIDER_SHIFTS)[:, None, :],
                               0, 2 * DIVIDER_WIDTH - 1)
_DIVIDER_GATHER_COLS = np.broadcast_to(_DIVIDER_COLS[None, None, :], _DIVIDER_GATHER_ROWS.shape)


def divider_strength(frame_bgr: np.ndarray, outlines: Sequence[np.ndarray]) -> np.ndarray:
    """(N,): how clearly each outline ((4, 2) image pixels, corners 0-1 at one short end) shows
    a divider across its middle: along the rectified tile, the median over its width of each
    row's colour distance from the face (the median colour away from the middle), at the
    middle rows less its median over the tile, over the tile's ink contrast (the 95th
    percentile of the distance). A line across the tile counts, a pin at its centre, pips or a
    marbled pattern do not: about 1 where a divider is drawn, under 0.3 where none is (a tile
    face down, a set without dividers). An outline too small to rectify gives 0."""
    quads = _checked(frame_bgr, outlines)
    w, length, rim = DIVIDER_WIDTH, 2 * DIVIDER_WIDTH, DIVIDER_RIM
    dst = np.float32([[0, 0], [w, 0], [w, length], [0, length]]) - 0.5
    half = length // 2
    out = np.zeros(len(outlines))
    patches = np.zeros((len(outlines), length, w, 3), np.float32)
    sound = np.zeros(len(outlines), bool)
    for i, quad64 in enumerate(quads):
        quad = quad64.astype(np.float32)
        if abs(cv2.contourArea(quad)) < 4.0:
            continue
        mat = cv2.getPerspectiveTransform(quad, dst)
        patches[i] = cv2.warpPerspective(frame_bgr, mat, (w, length), flags=cv2.INTER_LINEAR,
                                         borderMode=cv2.BORDER_REPLICATE)
        sound[i] = True
    if not sound.any():
        return out
    patches = patches[sound]
    n = len(patches)
    body = np.concatenate([patches[:, rim:half - rim, rim:w - rim],
                           patches[:, half + rim:length - rim, rim:w - rim]], axis=1)
    face = np.median(body.reshape(n, -1, 3), axis=1)
    dist = np.sqrt(((patches - face[:, None, None, :]) ** 2).sum(axis=3))   # (n, length, w)
    ink = np.maximum(np.percentile(dist[:, rim:length - rim, rim:w - rim].reshape(n, -1), 95,
                                   axis=1), DIVIDER_INK_MIN)
    # every turn's rows at once: (n, turns, length) medians over the width
    rows = np.median(dist[:, _DIVIDER_GATHER_ROWS, _DIVIDER_GATHER_COLS], axis=3)
    peak = rows[:, :, half - 2:half + 2].max(axis=2)
    base = np.median(rows[:, :, 4:length - 4], axis=2)
    out[sound] = (peak - base).max(axis=1) / ink
    return out


#: :func:`surround_contrast` rectifies each outline grown SURROUND_GROW times about its centre
#: to SURROUND_WIDTH x 2 SURROUND_WIDTH px (the tile is the middle 1 / SURROUND_GROW of it);
#: the face is its inner part (up to SURROUND_FACE_ACROSS tile widths either side of the long
#: axis, SURROUND_FACE_ALONG widths from the middle along it: the divider's band and the ends
#: left out), the surround what lies SURROUND_GAP widths or more outside the outline.
SURROUND_GROW = 1.5
SURROUND_WIDTH = 24
SURROUND_FACE_ACROSS = 0.3
SURROUND_FACE_ALONG = (0.1, 0.85)
SURROUND_GAP = 0.12
#: Least ink contrast (8-bit colour distance) the surround's distance is divided by.
SURROUND_INK_MIN = 10.0


def _surround_masks() -> tuple[np.ndarray, np.ndarray]:
    """(face, surround) boolean masks of the rectified patch of :func:`surround_contrast`."""
    rows, cols = 2 * SURROUND_WIDTH, SURROUND_WIDTH
    ys, xs = np.mgrid[0:rows, 0:cols].astype(np.float64)
    unit = SURROUND_WIDTH / SURROUND_GROW                 # patch px per tile width
    u = (xs - (cols - 1) / 2) / unit                      # across, tile widths from the centre
    v = (ys - (rows - 1) / 2) / unit                      # along
    face = ((np.abs(u) <= SURROUND_FACE_ACROSS)
            & (np.abs(v) >= SURROUND_FACE_ALONG[0]) & (np.abs(v) <= SURROUND_FACE_ALONG[1]))
    surround = (np.abs(u) >= 0.5 + SURROUND_GAP) | (np.abs(v) >= 1.0 + SURROUND_GAP)
    return face, surround


_SURROUND_FACE, _SURROUND_RING = _surround_masks()


def surround_contrast(frame_bgr: np.ndarray, outlines: Sequence[np.ndarray]
                      ) -> tuple[np.ndarray, np.ndarray]:
    """How unlike its surroundings each outline's face is ((4, 2) image pixels, corners 0-1 at
    one short end), and the face's ink contrast: two (N,) arrays. The contrast is the median
    colour distance of what lies around the outline (out to half a width beyond it) from the
    face's median colour, over the ink contrast (the 95th percentile of the face's own
    pixels' distance from that colour, 8-bit levels, at least :data:`SURROUND_INK_MIN`). The
    grain of a stone table taken for a tile (the same speckled stone inside and out) has a low
    contrast; so can a tile among touching tiles of its own colour, hence :mod:`vision.read`
    asks this only of outlines unsure in other ways, and also asks for grain's faint ink
    (dark pips on a pale face are far stronger). An outline too small to rectify gives
    infinity for both (nothing said against it)."""
    quads = _checked(frame_bgr, outlines)
    w, length = SURROUND_WIDTH, 2 * SURROUND_WIDTH
    dst = np.float32([[0, 0], [w, 0], [w, length], [0, length]]) - 0.5
    contrast = np.full(len(outlines), np.inf)
    inks = np.full(len(outlines), np.inf)
    for i, quad in enumerate(quads):
        if abs(cv2.contourArea(quad.astype(np.float32))) < 4.0:
            continue
        centre = quad.mean(axis=0)
        grown = (centre + (quad - centre) * SURROUND_GROW).astype(np.float32)
        mat = cv2.getPerspectiveTransform(grown, dst)
        patch = cv2.warpPerspective(frame_bgr, mat, (w, length), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        face_px = patch[_SURROUND_FACE]
        face = np.median(face_px, axis=0)
        ink = max(float(np.percentile(np.sqrt(((face_px - face) ** 2).sum(axis=1)), 95)),
                  SURROUND_INK_MIN)
        ring = np.sqrt(((patch[_SURROUND_RING] - face) ** 2).sum(axis=1))
        contrast[i] = float(np.median(ring)) / ink
        inks[i] = ink
    return contrast, inks


#: Turns beyond the fit's own (:data:`TURN_COARSE`), in degrees, tried by :func:`turned_far`:
#: an outline found turned by 25-50 degrees on its tile (blurred tiles in a row, a crosswise
#: tile at a junction) is beyond the fit's reach.
TURN_FAR = tuple(t for t in np.arange(-45.0, 45.01, 3.0).round(2) if abs(t) > MAX_TURN)
#: :func:`turned_far` turns an outline only when the long sides are at least FAR_RATIO times as
#: sharp at the far turn as at the best of the fit's own turns (and :data:`MIN_SHARP` or more).
#: On tuning scenes the tiles mended had 1.67-1.9, a true tile read right (found turned 16
#: degrees, read unsurely) 1.53; one in 300 true tiles read right is sharper at any far turn.
FAR_RATIO = 1.6
_FAR_TURN = max(abs(t) for t in TURN_FAR) + 2
_FAR_HALF = (math.ceil(NORM_ALONG * (U_OUTER * math.cos(math.radians(_FAR_TURN))
                                     + V_OUTER * math.sin(math.radians(_FAR_TURN)))) + 1,
             math.ceil(NORM_WIDTH * (V_OUTER + U_OUTER * math.sin(math.radians(_FAR_TURN)))) + 1)


def turned_far(frame_bgr: np.ndarray, outlines: Sequence[np.ndarray]) -> list[np.ndarray | None]:
    """For each outline ((4, 2) image pixels, corners 0-1 at one short end; one already
    fitted), the outline turned about its centre by the far turn (:data:`TURN_FAR`, then
    :data:`TURN_FINE` about the best) at which its tile's long sides are clearest, where they
    are :data:`FAR_RATIO` times as clear as at any of the fit's own turns; None where not (or
    where the outline is too small to measure)."""
    quads = _checked(frame_bgr, outlines)
    out: list[np.ndarray | None] = [None] * len(quads)
    if not quads:
        return out
    centres, ua, widths, ok = _axes(np.stack(quads))
    todo = np.nonzero(ok)[0]
    if not len(todo):
        return out
    patches = _warp_all(frame_bgr, centres[todo], ua[todo], widths[todo] / NORM_ALONG,
                        widths[todo] / NORM_WIDTH, *_FAR_HALF)
    face, _, _ = _faceness(patches)
    near = _sharpness(face, TURN_COARSE, _FAR_HALF).max(axis=1)
    far = _sharpness(face, TURN_FAR, _FAR_HALF)
    best = np.argmax(far, axis=1)
    sharp = far[np.arange(len(todo)), best]
    for j in np.nonzero((sharp >= FAR_RATIO * near) & (sharp >= MIN_SHARP))[0]:
        coarse = float(TURN_FAR[best[j]])
        angles = tuple(coarse + f for f in TURN_FINE)
        fine = _sharpness(face[j:j + 1], angles, _FAR_HALF)[0]
        t = math.radians(angles[int(np.argmax(fine))])
        i = int(todo[j])
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        out[i] = centres[i] + (quads[i] - centres[i]) @ rot.T
    return out
