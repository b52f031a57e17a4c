"""Find every face-up domino tile in an uncalibrated photo, also in touching chains.

:func:`detect_tiles` asks the learned tile finder (:mod:`vision.tile_finder`, a small
segmentation network trained only on rendered scenes) for the tiles it sees, each sized by
itself, checks each (divider or pips, a confident kernel, a size like its neighbours'), and runs
the grid cover of stage 3 below on the network's own face map only where tile face is left
unexplained (:data:`MODE`, section 5). The classical method, stage by stage, is also a detector of
its own (:func:`classical_detect`; every function is pure: arrays in, values out):

1. **Face masks.** Tile faces are flat and either much brighter and more neutral than what is
   around them (ivory or white sets: the per-pixel minimum of B, G, R) or much darker (black
   sets: 255 minus the maximum). Each of these "face maps" is thresholded with Otsu's method and
   the holes left by pips and the divider are filled, giving blobs that are single tiles, chains
   of touching tiles, or clutter.
2. **Scale from the tiles themselves.** Blobs that are solid rectangles with a 2:1 aspect are
   single tiles; the median of their short sides is the tile width ``w`` in pixels. When no such
   blob exists, the short side of solid 1:2k rectangles (end-to-end chains) is used.
3. **Splitting a blob into tiles.** Each blob is turned to its dominant edge direction and laid
   on a grid of ``w/2`` cells. A tile covers 2x4 or 4x2 cells (lying along or across the grid),
   so a blob is an exact cover of its occupied cells by such blocks; this handles end-to-end
   chains, side-by-side tiles, half-offset rows and crosswise doubles. Cells outside the image
   may be covered (a tile running out of the frame), and such tiles are reported as ``cut``.
   When a blob has several covers (two tiles side by side can pair their four halves two ways)
   the cover whose tiles show the strongest divider line at their middle wins.
   A blob whose outline runs at several directions (a chain bending by other than a right
   angle, arms leaving a hub on diagonals) is cut into one part per direction, each pixel going
   with its nearest straight run of outline, and each part is covered on its own grid.
4. **Verification.** A found tile must show a divider: a thin line of pip colour across its
   middle. Face-down tiles, markers, hands and printed board decorations show none and are
   dropped.

A single tile photographed close up may be a blob larger than any table tile; when nothing
verifies, each single-tile blob is tried at its own width, and then the light map less its
lamp-lit table (a spot lamp can make the table brighter than the tile) is searched.

Tiles are returned with their four top-face corners in image pixels (corner order as in
:mod:`vision.types`; which end is "first" is arbitrary at this stage).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.quad_math import quad_centre, row_medians, vec_length

#: Smallest tile width (short side, pixels) the detector looks for.
MIN_TILE_WIDTH_PX = 8.0
#: Largest grid (in w/2 cells) a blob may span before it is judged clutter, not tiles.
MAX_GRID_CELLS = 1600
#: How many exact covers of one blob are scored at most, and how many search steps are taken.
MAX_COVERS = 64
MAX_COVER_STEPS = 3000
#: Smallest divider contrast (divider darkness relative to face/pip contrast) of a real tile.
MIN_DIVIDER_SCORE = 0.18
#: Smallest contrast, in grey levels, between a tile face and its pips or divider.
MIN_INK_CONTRAST = 40.0
#: Largest blob, as a fraction of the image, that may hold tiles (bigger ones are the table).
MAX_BLOB_FRACTION = 0.3
#: Width of the disc, as a fraction of the image's short side, that takes a close-up tile out
#: of the light map and leaves the lamp-lit table (:func:`lamp_flattened`).
LAMP_DISC = 0.6
#: Single-tile blobs tried one by one when nothing is verified at the estimated tile width.
MAX_SINGLE_TRIES = 12
#: Largest blob, as a fraction of the image, that may be one tile photographed close up.
CLOSE_UP_FRACTION = 0.6
#: A tile's top face ends where the face map falls this fraction of the face/ink contrast
#: below the face level (side walls are shaded a little darker than the top).
EDGE_DROP = 0.35
#: A face must stand this fraction of the image's contrast above its local mean (local masks).
LOCAL_CONTRAST = 0.12
#: Tile widths (as factors of the estimate) tried on a chain that the estimate cannot tile.
SCALE_RETRIES = (0.95, 1.05, 0.9, 1.1)
#: Solidity (area / min-area-rectangle area) of a blob that counts as one solid rectangle.
SOLID = 0.86
#: Dents in a blob outline shallower than this fraction of the tile width are filled (pips at
#: the edge); notches between tiles of a chain are at least half a width deep.
DENT = 0.4
#: A blob this much inside tiles already found is not split again.
COVERED = 0.75
#: An outline direction counts when this fraction of the outline runs along it; directions
#: closer than ANGLE_GAP degrees (modulo 90) are one.
ANGLE_SHARE, ANGLE_GAP = 0.15, 12.0
#: Grid cells at least this full must be covered by a tile; cells at least FAINT full may be.
FULL, FAINT = 0.8, 0.3


@dataclass(frozen=True)
class TileCandidate:
    """One tile found in an image: corners (4, 2) in image pixels and what the finder knows.

    ``cut`` is True when part of the tile lies outside the image. ``divider`` is the divider
    contrast (0 none, about 1 a crisp painted line); ``fill`` how much of the quad's rim is tile face
    (low when the quad also takes in side walls or shadow). ``pips`` how many pip-like blobs it holds.
    ``back``: it shows no clear divider and no ink darker than a marbled back's veins
    (:data:`BACK_CONTRAST`): likely a tile lying face down (or the table's grain); flagged, not
    left out, so that a frame's tile sizes still count it. ``polarity`` is ``"light"`` for a tile face
    brighter than its pips, ``"dark"`` for a face darker than its pips.
    """

    corners: np.ndarray
    cut: bool
    divider: float
    polarity: str
    fill: float = 1.0
    pips: int = 0
    back: bool = False

    @property
    def is_tile(self) -> bool:
        """Shows a divider or at least one pip (face-down tiles and clutter show neither)."""
        return self.divider >= MIN_DIVIDER_SCORE or self.pips >= 1

    @property
    def center(self) -> tuple[float, float]:
        c = quad_centre(self.corners)
        return (float(c[0]), float(c[1]))

    @property
    def angle(self) -> float:
        """Direction (degrees, image coordinates) from the first half to the second half."""
        first = (self.corners[0] + self.corners[1]) / 2.0
        second = (self.corners[2] + self.corners[3]) / 2.0
        d = second - first
        return math.degrees(math.atan2(float(d[1]), float(d[0]))) % 360.0


@dataclass(frozen=True)
class Detection:
    """Every tile found in one image plus the scale used and anything worth a warning."""

    tiles: list[TileCandidate]
    tile_width_px: float | None
    warnings: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------
# 1. face maps and masks


def face_maps(frame_bgr: np.ndarray) -> dict[str, np.ndarray]:
    """The face maps of a BGR frame: "light" (min of B, G, R), "dark" (255 - max) and
    "contrast" (colour distance from the median colour of the image border, which is mostly
    table: finds ivory tiles on white paper and on wood, and coloured sets)."""
    b, g, r = cv2.split(frame_bgr)
    light, dark = _light_dark(b, g, r)
    edge = max(1, min(frame_bgr.shape[:2]) // 20)
    step = max(1, edge // 4)
    border = np.concatenate([frame_bgr[:edge:step, ::step].reshape(-1, 3),
                             frame_bgr[-edge::step, ::step].reshape(-1, 3),
                             frame_bgr[::step, :edge:step].reshape(-1, 3),
                             frame_bgr[::step, -edge::step].reshape(-1, 3)])
    ref = np.median(border, axis=0)
    diffs = [cv2.absdiff(ch, np.full_like(ch, int(v))) for ch, v in zip((b, g, r), ref)]
    contrast = cv2.add(cv2.add(diffs[0], diffs[1]), diffs[2])  # saturating sum
    return {"light": light, "dark": dark, "contrast": contrast}


def _light_dark(b: np.ndarray, g: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The "light" (min of B, G, R) and "dark" (255 - max) face maps of a frame's channels."""
    return cv2.min(cv2.min(b, g), r), cv2.bitwise_not(cv2.max(cv2.max(b, g), r))


def ink_maps_of(frame_bgr: np.ndarray) -> dict[str, np.ndarray]:
    """The "light" and "dark" maps of :func:`face_maps` alone (the ones the network path scores
    dividers and pips on), without the cost of the "contrast" map."""
    light, dark = _light_dark(*cv2.split(frame_bgr))
    return {"light": light, "dark": dark}


def threshold_ladder(face_map: np.ndarray) -> list[float]:
    """Candidate face thresholds: Otsu's level of the map, then Otsu's level of the part above
    it, and so on (tiles are often a small, bright minority: a board or a cloth under them can
    take the first split)."""
    values = face_map[::2, ::2].reshape(-1)
    levels: list[float] = []
    for _ in range(3):
        if values.size < 64 or int(values.max()) - int(values.min()) < 16:
            break
        level, _ = cv2.threshold(values.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        levels.append(float(level))
        values = values[values > level]
    return levels


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with its small holes (pips, divider) filled; holes as large as a tile stay
    open (the gap inside a ring of tiles)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    filled = mask.copy()
    if hierarchy is not None:
        img_area = mask.shape[0] * mask.shape[1]
        holes = [c for i, c in enumerate(contours)
                 if hierarchy[0][i][3] >= 0 and cv2.contourArea(c) < img_area * 0.002]
        if holes:
            cv2.drawContours(filled, holes, -1, 255, -1)
    return filled


def local_face_mask(face_map: np.ndarray, fill: bool = True,
                    smoothed: np.ndarray | None = None) -> np.ndarray:
    """Faces brighter than their surroundings (a window a third of the image wide), holes
    filled unless ``fill`` is False: finds tiles under uneven light (a spot lamp, vignetting)
    that no single threshold separates from the table. ``smoothed`` is the map after
    :func:`smooth`, when the caller has it already."""
    h, w = face_map.shape
    block = max(15, (min(h, w) // 3) | 1)
    lo, hi = np.percentile(face_map[::4, ::4], (1, 99))
    offset = max(8.0, LOCAL_CONTRAST * float(hi - lo))
    blurred = smooth(face_map) if smoothed is None else smoothed
    mask = cv2.adaptiveThreshold(blurred, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY,
                                 block, -offset)
    return fill_holes(mask) if fill else mask


def smooth(face_map: np.ndarray) -> np.ndarray:
    """The face map smoothed (3x3 Gaussian) before it is thresholded."""
    return cv2.GaussianBlur(face_map, (3, 3), 0)


def face_mask(face_map: np.ndarray, level: float, fill: bool = True,
              smoothed: np.ndarray | None = None) -> np.ndarray:
    """Threshold of a face map at ``level`` with pip and divider holes filled (uint8 0/255),
    unless ``fill`` is False (outer outlines do not change when holes are filled)."""
    blurred = smooth(face_map) if smoothed is None else smoothed
    _, mask = cv2.threshold(blurred, level, 255, cv2.THRESH_BINARY)
    return fill_holes(mask) if fill else mask


# ------------------------------------------------------------------------------------------
# 2. scale


@dataclass(frozen=True)
class _Blob:
    contour: np.ndarray
    raw: np.ndarray
    area: float
    rect: tuple  # cv2.minAreaRect
    solidity: float

    @property
    def short(self) -> float:
        return float(min(self.rect[1]))

    @property
    def long(self) -> float:
        return float(max(self.rect[1]))


def fill_shallow_dents(contour: np.ndarray, max_depth: float) -> np.ndarray:
    """The outline with every dent shallower than ``max_depth`` px bridged by a straight chord.

    Pips next to a tile's edge, or a shaded bevel, can open a pip hole to the outside of the
    face mask; the dents they leave are shallow, while the notches between tiles of a chain
    (crosswise doubles, offset rows) are at least half a tile width deep.
    """
    if len(contour) < 4:
        return contour
    try:
        hull = cv2.convexHull(contour, returnPoints=False)
        defects = cv2.convexityDefects(contour, hull)
    except cv2.error:
        return contour
    if defects is None:
        return contour
    n = len(contour)
    drop = np.zeros(n, dtype=bool)
    for start, end, _far, depth in defects.reshape(-1, 4):
        if depth / 256.0 < max_depth:
            if start < end:
                drop[start + 1:end] = True
            else:
                drop[start + 1:] = True
                drop[:end] = True
    if not drop.any():
        return contour
    return contour[~drop]


def _blobs(mask: np.ndarray, min_area: float, dent: float | None = None) -> list[_Blob]:
    """Blobs of a mask; dents up to ``dent`` px (default: DENT of the blob's short side) filled."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for raw in contours:
        if cv2.contourArea(raw) < min_area:
            continue
        rect = cv2.minAreaRect(raw)
        depth = DENT * min(rect[1]) if dent is None else min(dent, DENT * min(rect[1]))
        c = fill_shallow_dents(raw, depth)
        area = cv2.contourArea(c)
        rect = cv2.minAreaRect(c)
        rect_area = max(rect[1][0] * rect[1][1], 1e-6)
        out.append(_Blob(c, raw, area, rect, area / rect_area))
    return out


def _reblob(blobs: list[_Blob], dent: float) -> list[_Blob]:
    """The same blobs with dents filled up to ``dent`` px (the tile-width limit)."""
    out = []
    for b in blobs:
        c = fill_shallow_dents(b.raw, dent)
        area = cv2.contourArea(c)
        rect = cv2.minAreaRect(c)
        out.append(_Blob(c, b.raw, area, rect, area / max(rect[1][0] * rect[1][1], 1e-6)))
    return out


def estimate_tile_width(blobs: list[_Blob]) -> float | None:
    """Tile width (short side, px) from solid 2:1 blobs, else from solid 1:2k chains."""
    singles = [b for b in blobs if _is_single(b)]
    if singles:
        # specks of noise can be 2:1 too: only blobs near the size of the largest count
        largest = max(b.area for b in singles)
        return float(np.median([b.short for b in singles if b.area >= 0.3 * largest]))
    chains = []
    for b in blobs:
        if b.solidity < SOLID or b.short < MIN_TILE_WIDTH_PX:
            continue
        ratio = b.long / b.short
        k = round(ratio / 2.0)
        if k >= 2 and abs(ratio - 2 * k) < 0.25 * k:
            chains.append(b.short)
    if chains:
        return float(np.median(chains))
    return None


# ------------------------------------------------------------------------------------------
# 3. splitting blobs by exact cover of a w/2 grid


def _dominant_angle(contour: np.ndarray, rect: tuple) -> float:
    """Dominant edge direction of a blob outline in degrees, modulo 90."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) < 3:
        return float(rect[2]) % 90.0
    d = np.roll(pts, -1, axis=0) - pts
    length = np.hypot(d[:, 0], d[:, 1])
    ang = np.arctan2(d[:, 1], d[:, 0]) * 4.0  # period 90 degrees -> full circle
    s, c = float(np.sum(length * np.sin(ang))), float(np.sum(length * np.cos(ang)))
    if s == 0.0 and c == 0.0:
        return float(rect[2]) % 90.0
    return (math.degrees(math.atan2(s, c)) / 4.0) % 90.0


def _bits(cells: np.ndarray) -> int:
    """A boolean grid as an integer whose bit ``r * cols + c`` is cell (r, c)."""
    packed = np.packbits(cells.reshape(-1).astype(np.uint8), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _covers(occupied: np.ndarray, optional: np.ndarray, limit: int) -> list[list[tuple[int, int, int]]]:
    """Exact covers of the occupied cells by 2x4 (rows x cols) or 4x2 blocks.

    ``occupied`` cells must be covered, ``optional`` cells may be, others must not. A block is
    (row, col, orientation) with orientation 0 = 2 rows x 4 cols, 1 = 4 rows x 2 cols.
    The search fills the first open occupied cell in raster order with every block that can
    hold it, depth first; grids are integers used as bit sets (bit ``r * cols + c``).
    """
    rows, cols = occupied.shape
    occ_bits = _bits(occupied)
    allowed_bits = _bits(occupied | optional)
    shapes = ((2, 4), (4, 2))
    masks: dict[tuple[int, int, int], int] = {}
    results: list[list[tuple[int, int, int]]] = []
    placed: list[tuple[int, int, int]] = []
    steps = [0]

    def block_mask(orient: int, r0: int, c0: int) -> int:
        """The block's cells as bits, or 0 when it takes in a cell that may not be covered."""
        key = (orient, r0, c0)
        if key not in masks:
            h, w = shapes[orient]
            row = (1 << w) - 1
            m = 0
            for rr in range(r0, r0 + h):
                m |= row << (rr * cols + c0)
            masks[key] = m if m & allowed_bits == m else 0
        return masks[key]

    def search(covered: int) -> None:
        if len(results) >= limit or steps[0] > MAX_COVER_STEPS:
            return
        steps[0] += 1
        open_bits = occ_bits & ~covered
        if not open_bits:
            results.append(list(placed))
            return
        r, c = divmod((open_bits & -open_bits).bit_length() - 1, cols)
        # The first open occupied cell in raster order is the block's topmost-leftmost
        # occupied cell, but the block may start up-left of it on optional cells. (Occupied
        # cells before it are covered already, so a block reaching them overlaps.)
        for orient, (h, w) in enumerate(shapes):
            for dr in range(h):
                for dc in range(w):
                    r0, c0 = r - dr, c - dc
                    if r0 < 0 or c0 < 0 or r0 + h > rows or c0 + w > cols:
                        continue
                    m = block_mask(orient, r0, c0)
                    if not m or m & covered:
                        continue
                    placed.append((r0, c0, orient))
                    search(covered | m)
                    placed.pop()

    search(0)
    return results


def _levels(patch: np.ndarray) -> tuple[float, float]:
    """Face level (75th percentile) and ink level (1st percentile) of a patch."""
    flat = patch.reshape(-1)
    n = flat.size
    k_face, k_ink = int(0.75 * (n - 1)), int(0.01 * (n - 1))
    part = np.partition(flat, (k_ink, k_face))
    return float(part[k_face]), float(part[k_ink])


def _divider_score(face_rot: np.ndarray, x0: float, y0: float, x1: float, y1: float,
                   w: float) -> tuple[float, float, int]:
    """Divider contrast, rim fill and pip count of the tile at [x0, x1] x [y0, y1] in a rotated face map.

    The face is bright in the face map; the divider is a thin dark line across the middle of
    the tile's long axis. The divider score is (face level - darkest line level near the
    middle) over (face level - pip level), measured on the central 60% across the tile. The rim
    fill is the fraction of the band along the quad's outline that is face-bright: a quad that
    also takes in the tile's side walls or its shadow has a low rim fill. Pips are round blobs
    of ink of pip size inside the quad (some sets show no divider, only a spinner).
    """
    h_img, w_img = face_rot.shape
    horizontal = (x1 - x0) >= (y1 - y0)
    xi0, xi1 = int(round(max(x0, 0))), int(round(min(x1, w_img)))
    yi0, yi1 = int(round(max(y0, 0))), int(round(min(y1, h_img)))
    if xi1 - xi0 < 4 or yi1 - yi0 < 4:
        return 0.0, 0.0, 0
    patch = face_rot[yi0:yi1, xi0:xi1].astype(np.float32)
    if horizontal:
        patch = patch.T  # long axis now along rows
        mid = (x0 + x1) / 2.0 - xi0
    else:
        mid = (y0 + y1) / 2.0 - yi0
    n_long, n_short = patch.shape
    a, b = int(0.2 * n_short), int(math.ceil(0.8 * n_short))
    profile = row_medians(patch[:, a:b])
    band = max(1, int(round(0.1 * w)))
    lo, hi = int(round(mid)) - band, int(round(mid)) + band + 1
    if lo < 0 or hi > n_long:
        return 0.0, 0.0, 0
    face, ink = _levels(patch)
    if face - ink < MIN_INK_CONTRAST:
        return 0.0, 0.0, 0
    line = float(profile[lo:hi].min())
    divider = max(0.0, (face - line) / (face - ink))
    # a line, not a dark region: the face comes back on both sides of it
    off = max(band + 1, int(round(0.3 * w)))
    i_mid = int(round(mid))
    sides = [profile[i] for i in (i_mid - off, i_mid + off) if 0 <= i < n_long]
    if not sides or min(sides) - line < 0.4 * (face - line):
        divider = 0.0
    rim = max(1, int(round(0.1 * w)))
    level = face - 0.3 * (face - ink)
    ring_parts = (patch[:rim], patch[-rim:], patch[rim:-rim, :rim], patch[rim:-rim, -rim:])
    fill = sum(int(np.count_nonzero(part >= level)) for part in ring_parts) \
        / sum(part.size for part in ring_parts)
    # pips: round ink blobs of pip size inside the face
    inner = patch[rim:-rim, rim:-rim]
    ink_mask = (inner < face - 0.5 * (face - ink)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink_mask, connectivity=8)
    pips = 0
    a_min, a_max = 0.006 * w * w, 0.12 * w * w
    for x, y, bw, bh, area in stats[1:n].tolist():
        if a_min <= area <= a_max and max(bw, bh) <= 1.8 * min(bw, bh) and \
                area >= 0.5 * bw * bh:
            pips += 1
    return divider, fill, pips


def _evidence(divider: float, fill: float, pips: int) -> float:
    """How much a quad looks like one tile: divider, tight outline, pips."""
    return min(divider, 0.6) + fill + 0.15 * min(pips, 4)


def _outline_angles(contour: np.ndarray, w: float) -> list[float]:
    """The directions (degrees, modulo 90) that the straight runs of a blob outline take, most
    outline first: one for a blob whose tiles all lie on one grid, several where a chain bends
    by other than a right angle or arms leave a hub on diagonals. A direction counts when
    outline runs at least half a tile width long add up to ANGLE_SHARE of the outline along it."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    if len(pts) < 3:
        return []
    # straight runs: the outline simplified to within a tenth of a tile width
    simple = cv2.approxPolyDP(contour, max(1.0, 0.1 * w), True).reshape(-1, 2).astype(np.float64)
    d = np.roll(simple, -1, axis=0) - simple
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length >= 0.5 * w
    if not keep.any():
        return []
    ang = np.degrees(np.arctan2(d[keep, 1], d[keep, 0])) % 90.0
    hist = np.zeros(90)
    np.add.at(hist, np.round(ang).astype(int) % 90, length[keep])
    kernel = np.exp(-0.5 * (np.arange(-6, 7) / 2.0) ** 2)
    smooth_hist = np.array([sum(kernel[k + 6] * hist[(i + k) % 90] for k in range(-6, 7))
                            for i in range(90)])
    total = float(length.sum())
    peaks: list[int] = []
    for i in np.argsort(-smooth_hist):
        if smooth_hist[i] < ANGLE_SHARE * total:
            break
        if all(min(abs(i - p) % 90, 90 - abs(i - p) % 90) >= ANGLE_GAP for p in peaks):
            peaks.append(int(i))
    out = []
    for p in peaks:  # refine each peak to the length-weighted mean of the runs near it
        diff = (ang - p + 45.0) % 90.0 - 45.0
        near = np.abs(diff) <= ANGLE_GAP / 2
        out.append(float((p + np.average(diff[near], weights=length[keep][near])) % 90.0))
    return out


def _angle_parts(blob: _Blob, angles: list[float], w: float) -> list[tuple[_Blob, float]]:
    """A blob cut into one part per outline direction: each pixel goes with the direction of
    the nearest straight run of outline near it (tiles at a hub keep their own long sides).
    Parts smaller than half a tile are dropped."""
    x, y, bw, bh = cv2.boundingRect(blob.contour)
    shifted = blob.contour - np.array([x, y], np.int32)
    mask = np.zeros((bh + 2, bw + 2), np.uint8)
    cv2.drawContours(mask, [shifted + 1], -1, 255, -1)
    simple = cv2.approxPolyDP(shifted + 1, max(1.0, 0.1 * w), True).reshape(-1, 2)
    dists = []
    for theta in angles:
        seeds = np.full(mask.shape, 255, np.uint8)
        for a, b in zip(simple, np.roll(simple, -1, axis=0)):
            dx, dy = float(b[0] - a[0]), float(b[1] - a[1])
            if math.hypot(dx, dy) < 0.5 * w:
                continue
            ang = math.degrees(math.atan2(dy, dx)) % 90.0
            if abs((ang - theta + 45.0) % 90.0 - 45.0) <= ANGLE_GAP / 2:
                cv2.line(seeds, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 0, 1)
        dists.append(cv2.distanceTransform(seeds, cv2.DIST_L2, 3))
    owner = np.argmin(np.stack(dists), axis=0)
    parts: list[tuple[_Blob, float]] = []
    for k, theta in enumerate(angles):
        raw_part = np.where((owner == k) & (mask > 0), 255, 0).astype(np.uint8)
        part = cv2.morphologyEx(raw_part, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        for piece in _blobs(part, w * w, dent=DENT * w):
            c = piece.contour + np.array([x - 1, y - 1], np.int32)
            parts.append((_Blob(c, piece.raw + np.array([x - 1, y - 1], np.int32), piece.area,
                                cv2.minAreaRect(c), piece.solidity), theta))
    return parts


def _split_blob(blob: _Blob, ink_maps: dict[str, np.ndarray], w: float, img_w: int,
                img_h: int, theta: float | None = None) -> list[TileCandidate]:
    """Tiles in one blob (see the module docstring, stage 3), on a grid turned to ``theta``
    degrees (default: the outline's dominant direction)."""
    if theta is None:
        theta = _dominant_angle(blob.contour, blob.rect)
    t = math.radians(theta)
    cos_t, sin_t = math.cos(t), math.sin(t)
    cell = w / 2.0
    pad = 4 * cell  # room for tiles running out of the image
    # Work on a region of interest around the blob (image coordinates offset by ox, oy).
    bx, by, bw, bh = cv2.boundingRect(blob.contour)
    margin = int(math.ceil(pad * 1.5))
    ox, oy = max(bx - margin, 0), max(by - margin, 0)
    ex, ey = min(bx + bw + margin, img_w), min(by + bh + margin, img_h)
    roi_w, roi_h = ex - ox, ey - oy
    pts = blob.contour.reshape(-1, 2).astype(np.float64) - (ox, oy)
    # rotate ROI -> grid frame: u = x cos + y sin, v = -x sin + y cos
    u = pts[:, 0] * cos_t + pts[:, 1] * sin_t
    v = -pts[:, 0] * sin_t + pts[:, 1] * cos_t
    u0, v0 = u.min() - pad, v.min() - pad
    ncols = int(math.ceil((u.max() + pad - u0) / cell))
    nrows = int(math.ceil((v.max() + pad - v0) / cell))
    if ncols * nrows > MAX_GRID_CELLS * 4:
        return []
    sub = 6  # pixels per cell in the rotated raster
    scale = sub / cell
    m = np.array([[cos_t * scale, sin_t * scale, -u0 * scale],
                  [-sin_t * scale, cos_t * scale, -v0 * scale]], dtype=np.float64)
    size = (ncols * sub, nrows * sub)
    blob_mask = np.zeros((roi_h, roi_w), np.uint8)
    cv2.drawContours(blob_mask, [blob.contour - np.array([ox, oy], np.int32)], -1, 255, -1)
    mask_rot = cv2.warpAffine(blob_mask, m, size, flags=cv2.INTER_LINEAR, borderValue=0)
    # Inside the image: the ROI, except where the ROI was cut short by something other than
    # the image border (then it counts as inside, it is only beyond the padding).
    inside = np.full((roi_h + 2, roi_w + 2), 255, np.uint8)
    if ox == 0:
        inside[:, 0] = 0
    if oy == 0:
        inside[0, :] = 0
    if ex == img_w:
        inside[:, -1] = 0
    if ey == img_h:
        inside[-1, :] = 0
    m_in = m.copy()
    m_in[:, 2] -= m[:, 0] * 1.0 + m[:, 1] * 1.0  # inside[] is offset by one pixel
    inside_rot = cv2.warpAffine(inside, m_in, size, flags=cv2.INTER_NEAREST,
                                borderMode=cv2.BORDER_REPLICATE)
    occ = cv2.resize(mask_rot, (ncols, nrows), interpolation=cv2.INTER_AREA) / 255.0
    ins = cv2.resize(inside_rot, (ncols, nrows), interpolation=cv2.INTER_AREA) / 255.0
    outside = ins < 0.75
    occupied = (occ >= FULL) & ~outside
    optional = outside | ((occ >= FAINT) & ~occupied)
    if not occupied.any():
        return []
    covers = _covers(occupied, optional, MAX_COVERS)
    if not covers:
        return []
    # face map in the rotated frame, at full resolution for the divider score
    fscale = 1.0
    mf = np.array([[cos_t, sin_t, -u0], [-sin_t, cos_t, -v0]], dtype=np.float64) * fscale
    rot_size = (int(ncols * cell) + 1, int(nrows * cell) + 1)
    face_rots = {name: cv2.warpAffine(fmap[oy:ey, ox:ex], mf, rot_size, flags=cv2.INTER_LINEAR,
                                      borderValue=0)
                 for name, fmap in ink_maps.items()}
    best, best_score = None, -1.0
    scored: dict[tuple[int, int, int], tuple[tuple[float, float, int], str]] = {}
    for cover in covers:
        total = 0.0
        for blk in cover:
            if blk not in scored:
                r0, c0, orient = blk
                hh, ww = (2, 4) if orient == 0 else (4, 2)
                scored[blk] = max((_divider_score(face_rot, c0 * cell, r0 * cell, (c0 + ww) * cell,
                                                  (r0 + hh) * cell, w), name)
                                  for name, face_rot in face_rots.items())
            total += _evidence(*scored[blk][0])
        if total > best_score:
            best, best_score = cover, total
    tiles = []
    inv = np.array([[cos_t, -sin_t], [sin_t, cos_t]])
    for r0, c0, orient in best or []:
        hh, ww = (2, 4) if orient == 0 else (4, 2)
        x0, y0, x1, y1 = c0 * cell + u0, r0 * cell + v0, (c0 + ww) * cell + u0, (r0 + hh) * cell + v0
        if orient == 0:  # long along u: first half at x0
            quad = [(x0, y0), (x0, y1), (x1, y1), (x1, y0)]
        else:
            quad = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        img_pts = np.array([inv @ np.array(p) for p in quad], dtype=np.float64) + (ox, oy)
        cut_cells = outside[r0:r0 + hh, c0:c0 + ww].any()
        beyond = ((img_pts[:, 0] < -0.5 - 0.15 * w) | (img_pts[:, 0] > img_w - 0.5 + 0.15 * w)
                   | (img_pts[:, 1] < -0.5 - 0.15 * w) | (img_pts[:, 1] > img_h - 0.5 + 0.15 * w))
        cut = bool(cut_cells or beyond.any())
        if not cut:
            img_pts[:, 0] = np.clip(img_pts[:, 0], -0.5, img_w - 0.5)
            img_pts[:, 1] = np.clip(img_pts[:, 1], -0.5, img_h - 0.5)
        (score, fill, pips), polarity = scored[(r0, c0, orient)]
        tiles.append(TileCandidate(img_pts, cut, float(score), polarity, fill, pips))
    return tiles


# ------------------------------------------------------------------------------------------
# 4. the detector


def _quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    union = cv2.contourArea(pa) + cv2.contourArea(pb) - inter
    return float(inter / union) if union > 0 else 0.0


def _covered_fraction(blob: _Blob, covered: np.ndarray) -> float:
    """Fraction of a blob's area inside the ``covered`` mask."""
    x, y, w, h = cv2.boundingRect(blob.contour)
    roi = np.zeros((h, w), np.uint8)
    cv2.drawContours(roi, [blob.contour - np.array([x, y], np.int32)], -1, 255, -1)
    total = cv2.countNonZero(roi)
    if total == 0:
        return 1.0
    inside = cv2.countNonZero(cv2.bitwise_and(roi, covered[y:y + h, x:x + w]))
    return inside / total


def _close_up(b: _Blob, img_w: int, img_h: int) -> bool:
    """A blob too big for a table's tiles that is one tile seen close up: a solid 2:1
    rectangle, clear of the image border, at most CLOSE_UP_FRACTION of the image."""
    x, y, bw, bh = cv2.boundingRect(b.contour)
    clear = x > 0 and y > 0 and x + bw < img_w and y + bh < img_h
    return clear and _is_single(b) and b.area <= CLOSE_UP_FRACTION * img_w * img_h


def _verified_single(levels: dict[str, list[list[_Blob]]], ink_maps: dict[str, np.ndarray],
                     img_w: int, img_h: int) -> tuple[list[TileCandidate], float | None]:
    """The tile in the most solid single-tile blob (of any map and level) that shows a divider or
    pips when split at its own width, and that width; ([], None) when none does. At most
    MAX_SINGLE_TRIES blobs are tried."""
    singles = sorted((b for lv in levels.values() for blobs in lv for b in blobs if _is_single(b)),
                     key=lambda b: -b.solidity)
    for b in singles[:MAX_SINGLE_TRIES]:
        tiles = [t for t in _split_blob(b, ink_maps, b.short, img_w, img_h) if t.is_tile]
        if tiles:
            return tiles, b.short
    return [], None


def _refined(tiles: list[TileCandidate], ink_maps: dict[str, np.ndarray], w: float, img_w: int,
             img_h: int) -> list[TileCandidate]:
    """The tiles with the outlines of those wholly in the image moved onto their top faces."""
    refined = []
    for t in tiles:
        if not t.cut:
            quad = refine_quad(ink_maps[t.polarity], t.corners, w)
            quad[:, 0] = np.clip(quad[:, 0], -0.5, img_w - 0.5)
            quad[:, 1] = np.clip(quad[:, 1], -0.5, img_h - 0.5)
            t = TileCandidate(quad, t.cut, t.divider, t.polarity, t.fill, t.pips)
        refined.append(t)
    return refined


def lamp_flattened(face_map: np.ndarray) -> np.ndarray:
    """The face map less its lit table: a grey opening with a disc LAMP_DISC of the image's short
    side wide removes every bright thing narrower than that (a tile seen close up), leaving the
    light of a spot lamp on the table; what stands above it is the tile (a white top-hat).
    Worked at 1/4 size, where the opening is cheap, and brought back."""
    h, w = face_map.shape
    small = cv2.resize(face_map, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    k = max(3, int(LAMP_DISC * min(small.shape)) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    table = cv2.morphologyEx(small, cv2.MORPH_OPEN, disc)
    table = cv2.GaussianBlur(table, (0, 0), k / 6)
    table = cv2.resize(table, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.subtract(face_map, table)


def _under_lamp(light: np.ndarray, ink_maps: dict[str, np.ndarray], img_w: int, img_h: int,
                min_area: float) -> tuple[list[TileCandidate], float | None]:
    """A light tile in a picture where no threshold of the plain face maps finds one (a close-up
    under a spot lamp): the verified single of the lamp-flattened light map, and its width."""
    flat = lamp_flattened(light)
    smoothed = smooth(flat)
    masks = [face_mask(flat, level, fill=False, smoothed=smoothed)
             for level in threshold_ladder(flat)]
    blobs = [[b for b in _blobs(m, min_area) if _close_up(b, img_w, img_h)
              or b.area <= MAX_BLOB_FRACTION * img_w * img_h] for m in masks]
    return _verified_single({"flat": blobs}, ink_maps, img_w, img_h)


def _is_single(b: _Blob) -> bool:
    return b.solidity >= SOLID and b.short >= MIN_TILE_WIDTH_PX and 1.75 <= b.long / b.short <= 2.3


def _rank(levels: list[list[_Blob]]) -> tuple[list[list[_Blob]], float]:
    """Levels ordered by the area of their single-tile blobs, and the best level's area."""
    scored = [(sum(b.area for b in blobs if _is_single(b)), i) for i, blobs in enumerate(levels)]
    scored.sort(reverse=True)
    return [levels[i] for _, i in scored], (scored[0][0] if scored else 0.0)


def refine_quad(face_map: np.ndarray, corners: np.ndarray, w: float) -> np.ndarray:
    """The tile's corners moved onto the edges of its top face.

    The grid cover gives outlines to within a few pixels, and the blob may include the tile's
    side walls; the crops for pip reading want the top face. In a rectified patch around the
    tile, each edge moves to where the face-bright fraction of the rows (or columns) first
    reaches a half coming in from outside, searched within 0.3 w of where it was; an edge with
    face beyond it (a touching neighbour) stays. When the divider shows, the outline is
    centred on it: first a line dark across most of the tile within 0.35 w of the middle
    (:func:`_far_divider`; the grid cover can place a chain's tile a cell off), else the
    darkest line within 0.15 w (the pip column next to the divider lies 0.25 w away and is
    often darker than a thin line in the median), else a central stud. Outlines that would lose the 2:1
    shape are left as they were.
    """
    c = corners.mean(axis=0)
    along = (corners[2] + corners[3]) / 2 - (corners[0] + corners[1]) / 2
    length = float(np.linalg.norm(along))
    across = corners[1] - corners[0]
    width = float(np.linalg.norm(across))
    if length < 4 or width < 4:
        return corners
    ua, ub = along / length, across / width
    m = int(math.ceil(0.35 * w))
    hl, hw = int(round(length / 2)), int(round(width / 2))
    size = (2 * (hl + m) + 1, 2 * (hw + m) + 1)
    # patch pixel (i, j) <- image point c + (i - hl - m) ua + (j - hw - m) ub
    origin = c - (hl + m) * ua - (hw + m) * ub
    mat = np.array([[ua[0], ub[0], origin[0]], [ua[1], ub[1], origin[1]]], dtype=np.float64)
    patch = cv2.warpAffine(face_map, mat, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    core = patch[m + hw // 3: m + 2 * hw - hw // 3, m + hl // 4: m + 2 * hl - hl // 4]
    if core.size == 0:
        return corners
    face, ink = _levels(core)
    if face - ink < MIN_INK_CONTRAST:
        return corners
    bright = cv2.blur(patch, (3, 3)) >= face - EDGE_DROP * (face - ink)
    cols = bright[m + hw // 3: m + 2 * hw - hw // 3, :].mean(axis=0)   # along the long axis
    rows = bright[:, m + hl // 3: m + 2 * hl - hl // 3].mean(axis=1)   # across
    reach = int(math.ceil(0.3 * w))

    def edge(profile: np.ndarray, nominal: int, step: int) -> float:
        """Search from outside (``step`` points outward) in to the first face-bright line."""
        start, stop = nominal + step * reach, nominal - step * reach
        if not (0 <= start < len(profile) and 0 <= stop < len(profile)):
            return float(nominal)
        if profile[start] >= 0.5:
            return float(nominal)  # face goes on: a touching neighbour
        pos = start
        while pos != stop:
            if profile[pos] >= 0.5:
                return pos + step * 0.5
            pos -= step
        return float(nominal)

    lo_a = edge(cols, m, -1)
    hi_a = edge(cols, m + 2 * hl, 1)
    lo_b = edge(rows, m, -1)
    hi_b = edge(rows, m + 2 * hw, 1)
    new_len, new_wid = hi_a - lo_a, hi_b - lo_b
    if new_wid <= 0 or not 1.6 <= new_len / new_wid <= 2.4:
        lo_a, hi_a, lo_b, hi_b = m, m + 2 * hl, m, m + 2 * hw
        new_len, new_wid = hi_a - lo_a, hi_b - lo_b
    # The divider is the middle of the tile: when it shows, centre the outline on it and make
    # the tile twice as long as it is wide.
    mid = (lo_a + hi_a) / 2
    band_rows = patch[int(lo_b + new_wid * 0.2): int(math.ceil(hi_b - new_wid * 0.2)), :]
    if band_rows.shape[0] >= 2:
        prof = np.median(band_rows, axis=0)
        r = int(math.ceil(0.15 * new_wid))
        i0, i1 = max(0, int(mid) - r), min(len(prof), int(mid) + r + 1)
        far = _far_divider(patch, lo_a, hi_a, lo_b, new_wid, face, ink)
        if i1 - i0 >= 3 and far != (lo_a, hi_a):
            lo_a, hi_a = far
        elif i1 - i0 >= 3:
            k = i0 + int(np.argmin(prof[i0:i1]))
            if face - prof[k] >= 0.5 * (face - ink):
                lo_a, hi_a = k - new_wid, k + new_wid
            else:
                # no divider line: some sets show only a spinner (a stud) at the centre
                centre_rows = patch[int(lo_b + new_wid * 0.4): int(math.ceil(hi_b - new_wid * 0.4)), :]
                if centre_rows.shape[0] >= 1:
                    stud = centre_rows.min(axis=0)
                    k = i0 + int(np.argmin(stud[i0:i1]))
                    if face - stud[k] >= 0.5 * (face - ink):
                        lo_a, hi_a = k - new_wid, k + new_wid
    a0, a1 = lo_a - hl - m, hi_a - hl - m
    b0, b1 = lo_b - hw - m, hi_b - hw - m
    return np.array([c + a0 * ua + b0 * ub, c + a0 * ua + b1 * ub,
                     c + a1 * ua + b1 * ub, c + a1 * ua + b0 * ub])


def _far_divider(patch: np.ndarray, lo_a: float, hi_a: float, lo_b: float, wid: float,
                 face: float, ink: float) -> tuple[float, float]:
    """The long-axis ends of an outline centred on its divider, looked for up to 0.35 w from the
    outline's middle (the grid cover may have placed it a cell off) as a line across the tile,
    dark in most of its rows (the 80th percentile of each column), which a column of pips,
    with gaps between the pips, is not. The ends as they were when no such line shows."""
    rows = patch[int(lo_b + wid * 0.15): int(math.ceil(lo_b + wid * 0.85)), :]
    if rows.shape[0] < 3:
        return lo_a, hi_a
    prof = np.percentile(rows, 80, axis=0)
    mid = (lo_a + hi_a) / 2
    r = int(math.ceil(0.35 * wid))
    i0, i1 = max(0, int(mid) - r), min(len(prof), int(mid) + r + 1)
    if i1 - i0 < 3:
        return lo_a, hi_a
    k = i0 + int(np.argmin(prof[i0:i1]))
    if face - prof[k] >= 0.5 * (face - ink):
        return k - wid, k + wid
    return lo_a, hi_a


def _split_any(blob: _Blob, ink_maps: dict[str, np.ndarray], w: float, img_w: int,
               img_h: int) -> list[TileCandidate]:
    """Tiles in one blob at tile width ``w`` (stage 3): on the outline's dominant grid (a lone
    tile at its own width when that is within 0.7..1.4 w: under a tilted camera near tiles look
    larger than far ones), else at the widths of :data:`SCALE_RETRIES` (a few percent of error
    in the width adds up along a chain), else cut into one part per outline direction (a bend,
    a hub with diagonal arms), each on its own grid."""
    tile_area = 2 * w * w
    w_blob = blob.short if _is_single(blob) and 0.7 * w <= blob.short <= 1.4 * w else w
    split = _split_blob(blob, ink_maps, w_blob, img_w, img_h)
    if not split and blob.area > 1.5 * tile_area:
        for f in SCALE_RETRIES:
            split = _split_blob(blob, ink_maps, w * f, img_w, img_h)
            if split:
                break
    if not split and blob.area > 1.5 * tile_area:
        angles = _outline_angles(blob.contour, w)
        if len(angles) >= 2:
            for part, theta in _angle_parts(blob, angles, w):
                split.extend(_split_blob(part, ink_maps, w, img_w, img_h, theta))
    return split


def classical_detect(frame_bgr: np.ndarray) -> Detection:
    """Every face-up tile in a BGR frame (uint8, (H, W, 3)) by the classical stages 1-4 of the
    module docstring (face maps, a per-frame tile width, grid covers, divider verification)."""
    img_h, img_w = frame_bgr.shape[:2]
    min_area = (MIN_TILE_WIDTH_PX ** 2) * 2
    max_area = MAX_BLOB_FRACTION * img_w * img_h
    maps = face_maps(frame_bgr)
    ink_maps = {"light": maps["light"], "dark": maps["dark"]}
    # per face map: the masks and blobs of every threshold level
    masks: dict[str, list[np.ndarray]] = {}
    levels: dict[str, list[list[_Blob]]] = {}
    for name, fmap in maps.items():
        # Only outer outlines are used, and filling holes does not change them: no filling.
        smoothed = smooth(fmap)
        masks[name] = [face_mask(fmap, level, fill=False, smoothed=smoothed)
                       for level in threshold_ladder(fmap)]
        if name != "dark":
            masks[name].append(local_face_mask(fmap, fill=False, smoothed=smoothed))
        levels[name] = [[b for b in _blobs(m, min_area) if b.area <= max_area
                         or _close_up(b, img_w, img_h)] for m in masks[name]]

    def scale() -> tuple[dict[str, float | None], float | None]:
        ranked = {name: _rank(lv) for name, lv in levels.items()}
        widths = {name: estimate_tile_width(r[0][0]) if r[0] else None
                  for name, r in ranked.items()}
        have = [n for n in widths if widths[n] is not None]
        if not have:
            return widths, None
        # The tile width of the map with the most single-tile area rules; a map whose own
        # estimate disagrees by more than a quarter found something else (board squares).
        best = max(have, key=lambda n: ranked[n][1])
        w_ref = widths[best]
        assert w_ref is not None  # best is one of the maps that have a width
        for name in list(levels):
            levels[name] = ranked[name][0]
        return {n: (x if x is not None and abs(x - w_ref) <= 0.25 * w_ref else None)
                for n, x in widths.items()}, w_ref

    widths, w_ref = scale()
    if w_ref is None:
        lit, w_lit = _under_lamp(maps["light"], ink_maps, img_w, img_h, min_area)
        if w_lit is None:
            return Detection([], None, ["no tile-shaped blob found: cannot estimate the tile size; "
                                        "is there a face-up tile in the picture?"])
        return Detection(_refined(lit, ink_maps, w_lit, img_w, img_h), w_lit, [])
    per_map = [(name, maps[name], levels[name]) for name in maps]
    widths_list = [widths[name] for name in maps]
    found = [w_ref]
    warnings: list[str] = []
    candidates: list[TileCandidate] = []
    # Blobs already explained by tiles found in a better map or level are not split again.
    covered = np.zeros((img_h, img_w), np.uint8)
    for (_name, _fmap, map_levels), w in zip(per_map, widths_list):
        if w is None:
            continue
        tile_area = 2 * w * w
        sized = [[b for b in blobs if 0.3 * tile_area <= b.area] for blobs in map_levels]
        for blob in (b for blobs in sized for b in _reblob(blobs, DENT * w)):
            if (blob.area < 0.3 * tile_area or blob.area > MAX_GRID_CELLS * tile_area / 8
                    or (blob.area > MAX_BLOB_FRACTION * img_w * img_h
                        and not _close_up(blob, img_w, img_h))):
                continue
            if _covered_fraction(blob, covered) >= COVERED:
                continue
            split = _split_any(blob, ink_maps, w, img_w, img_h)
            for t in split:
                if t.is_tile:
                    candidates.append(t)
                    if t.fill >= 0.8:
                        cv2.fillConvexPoly(covered, np.round(t.corners).astype(np.int32), 255)
    if not candidates:
        # Nothing verified at the estimated scale: the singles that set it may be lit table
        # (a spot lamp) while the tile is another single. Try each single at its own width.
        candidates, w_single = _verified_single(levels, ink_maps, img_w, img_h)
        if w_single is None:
            candidates, w_single = _under_lamp(maps["light"], ink_maps, img_w, img_h, min_area)
        if w_single is not None:
            found = [w_single]
    # The same tile may be found in several maps and levels: keep the one with the clearest
    # divider and the tightest outline.
    candidates.sort(key=lambda t: -(_evidence(t.divider, t.fill, t.pips)))
    kept: list[TileCandidate] = []
    for t in candidates:
        if all(_quad_iou(t.corners, k.corners) < 0.3 for k in kept):
            kept.append(t)
    w_used = float(np.median(found))
    refined = _refined(kept, ink_maps, w_used, img_w, img_h)
    return Detection(refined, w_used, warnings)


# ------------------------------------------------------------------------------------------
# 5. the learned tile finder first, the grid cover where it leaves tile face unexplained

#: Which detector :func:`detect_tiles` runs: "net" (the learned tile finder's tiles, checked,
#: with the grid cover of stage 3 run on the network's face map where they leave face
#: unexplained) or "classical" (stages 1-4 alone, for comparison). Measured in
#: models/tile_finder.md and docs/benchmarks.md.
MODE = "net"
#: Two tiles are at one place when either covers this fraction of the other's area.
NET_OVERLAP = 0.2
#: A network tile is kept when its mean kernel probability is at least this (weaker tiles are
#: never kept), it shows a divider or PIPS_ALONE pips and the network sees face over it
#: (FACE_MIN) ... Chosen on rendered tuning scenes with the shipped finder (baf1d17): 120 plain
#: (seeds 1,600,000-119) and 80 with printed board art (decor=True, 1,650,000-039 and
#: 1,660,000-039): 0.75 / 0.8 / 0.85 gave plain tiles right 0.9323 / 0.9310 / 0.9186, frames
#: 0.750 / 0.750 / 0.733, decorated frames 0.75 / 0.80 / 0.80 and 0.40 / 0.40 (0.7 as 0.75).
#: Re-checked with the 24-epoch candidate (session 5; 120 plain 1,600,000-119 and 40 decorated
#: 1,660,000-039, RESIDUAL_FACE_MIN 0.66): 0.75 / 0.8 / 0.85 gave plain tiles right 0.9646 /
#: 0.9677 / 0.9528, precision 0.9615 / 0.9951 / 0.9962, frames 91 / 96 / 95 of 120; decorated
#: 0.9420 / 0.9402 / 0.9221, precision 0.9575 / 0.9695 / 0.9887, frames 29 / 29 / 27 of 40.
NET_LOW_SCORE = 0.8
#: ... and its width and length are at least SIZE_LOW times the median of its NEIGHBOURS
#: nearest whole kept tiles (when at least SIZE_REFERENCE are there; under a camera tilted
#: 40 degrees near tiles look larger than far ones, so the reference is local). A tile more than
#: SIZE_HIGH times as wide or long as the tiles near it (even one) is the kernels of touching
#: tiles that ran together: its place is split again (:func:`_residual_tiles`) and it stays only
#: where that finds no tile. (Swept on the plain tuning scenes with both finders: SIZE_LOW 0.5 /
#: 0.7 and SIZE_HIGH 1.4 / 2.0 read no more tiles right and no more frames right.)
SIZE_LOW, SIZE_HIGH = 0.6, 1.6
#: Whether only a tile the finder cut from a blob of several kernels (``FoundTile.split``) is
#: set aside as too large: a single tile-shaped kernel blob larger than its neighbours is a
#: tile nearer the camera, or its neighbours are specks of a speckled table found as tiles. On
#: the 500 rendered tuning scenes (1,600,000-499, 2026-11-22) 15 tiles were set aside as large,
#: none of them split, 14 of them true tiles (5 were cut into halves by the face-map split):
#: tiles right 7007 -> 7009 of 7143, false tiles 26 -> 20, frames 420 -> 421, no right tile lost
#: (re-measured with the reader of a57ee40; SIZE_HIGH off altogether gave 3 more false tiles than
#: this, measured with the reader before it).
LARGE_SPLIT_ONLY = True
SIZE_REFERENCE = 3
NEIGHBOURS = 6
#: Face pixels (network face probability at least FACE_LEVEL) are explained by the kept tiles
#: grown by RESIDUAL_GROW of the tile width; a face blob with at least RESIDUAL_AREA tile areas
#: left unexplained is split whole by the grid cover of stage 3.
FACE_LEVEL = 0.5
RESIDUAL_AREA = 0.6
RESIDUAL_GROW = 0.15
#: Whether a picture of small tiles (``vision.tile_finder.ZOOM_WIDTH``) that the finder did not
#: work larger (none of its tiles was cut from run-together kernels:
#: ``vision.tile_finder.ZOOM_SPLIT_ONLY``) is worked larger all the same where the kept tiles
#: leave a blob of the network's face unexplained (:func:`_unexplained_face`): kernels of small
#: touching tiles that ran together into one tile-shaped blob straddle two tiles and are not
#: split, and kernels at a hub go missing. On the 500 rendered tuning scenes (1,600,000-499,
#: 2026-11-22, with :data:`PIP_ROWS`; reader of 6786648) 59 frames left face unexplained
#: without having been worked larger, 11 of them with tiles small enough to be: tiles right
#: 7018 -> 7023 of 7143, frames 431 -> 434, false tiles 19 -> 20, missed 84 -> 80; held-out
#: ``evaluate --rendered 40`` (and ``--seed 1000200``) unchanged, and none of the 10 frames of
#: ``evaluate --bench`` is worked larger. Working every picture of small tiles larger
#: (``ZOOM_SPLIT_ONLY`` False) read one tile and one frame more on the tuning scenes but doubled
#: the detector's time on the bench (median 56 -> 113 ms, machine shared).
ZOOM_UNEXPLAINED = True
#: A picture (not a close-up) in which the finder gives at least SPECKLE_WEAK weak kernels
#: (scores from SPECKLE_LOW up to :data:`NET_LOW_SCORE`; 0: never) is of a textured table
#: (speckled stone, printed grain) where grains of the texture reach sure kernel scores too:
#: there a network tile needs a kernel score of SPECKLE_SCORE, the face map is not split
#: (:func:`_residual_tiles`) and the picture is not worked larger (:data:`ZOOM_UNEXPLAINED`).
#: On the 500 rendered tuning scenes (1,600,000-499, 2026-11-22; reader of b710a76) 46 frames
#: gave 20 or more weak kernels (the median frame none, 9 of 10 frames at most 12): the 6
#: false tiles read in them (speckles and a face-map split on speckled stone) had kernel
#: scores of 0.80-0.82 or came from the face-map split; none of their 580 true tiles did
#: either (the least kernel score 0.854; with 10 or more weak kernels, frames with true tiles
#: of 0.83-0.85 come in). Tuning scenes: false tiles 20 -> 14, frames 434 -> 438 of 500, tiles
#: right unchanged (7023); held-out ``evaluate --rendered 40``: unchanged, ``--seed 1000200``:
#: frames 34 -> 35 of 40, precision 0.9967 -> 0.9984; decorated tables (``python -m vision.tune
#: --decor --scenes 40 --seed 1650000``): precision 0.9861 -> 1.0, frames 38 -> 39 of 40.
SPECKLE_WEAK = 20
SPECKLE_LOW = 0.6
SPECKLE_SCORE = 0.85
#: A whole tile split from the face map is kept only where the network's mean face probability
#: over it is at least this (0: no such check); the face around a speckled or printed table
#: can reach FACE_LEVEL in patches without being a tile's top face. With the 24-epoch
#: finder (session 5, shipped: see models/tile_finder.md) 0.66 was chosen on the
#: tuning scenes (120 plain from 1,600,000, 40 decorated from 1,660,000; NET_LOW_SCORE 0.8)
#: 0 / 0.66: plain tiles right 0.9683 / 0.9677, precision 0.9915 / 0.9951, frames 93 / 96 of
#: 120; decorated 0.9384 / 0.9402, precision 0.9591 / 0.9695, frames 28 / 29 of 40 (its
#: epoch-16 snapshot's face-map split gave 17 real tiles and 34 phantoms on speckled and
#: printed tables, the phantoms' mean face 0.47-0.74, the real ones' 0.59-0.95). With the
#: previous 8-epoch finder 0.66 measured 2633 -> 2632 of 2806 tuning tiles right (1.6M-199),
#: precision 0.9849 -> 0.9856.
RESIDUAL_FACE_MIN = 0.66
#: Candidates are also checked on their own principal colour axis (:func:`_colour_axis`).
COLOUR_AXIS = True
#: ... and, where that shows no divider or pips either, on 255 minus their weakest colour
#: channel (white pips on a yellow or orange face) and on their strongest channel (coloured
#: pips on a pale face). Measured on the tuning scenes 1,600,000-199 (2,806 tiles): tiles
#: right 2629 -> 2633, recall 0.9508 -> 0.9526, false tiles 41 -> 42, frames 149 -> 150 (every
#: tile the ink gate dropped there was found); decorated 1,660,000-039 unchanged.
COLOUR_CHANNELS = True
#: A tile showing no divider must show at least PIPS_ALONE pip-like blobs (a printed dot is
#: one), also one split from the face map (:func:`_residual_tiles`), and the network must see
#: top face over a network tile: mean face probability at least FACE_MIN. With the previous
#: finder (9 epochs, no board art in training) PIPS_ALONE 2 and FACE_MIN 0.6 took decorated
#: precision from 0.856 to 0.909 (frames 0.30 -> 0.425) for 1.5 plain tiles fewer; with the
#: shipped one, which sees printed art as table, PIPS_ALONE 1 reads more (plain tiles right 0.9310
#: -> 0.9323, decorated 0.9775 -> 0.9816 at NET_LOW_SCORE 0.75) and FACE_MIN 0.5 / 0.6 / 0.7 gave
#: plain tiles right 0.9335 / 0.9323 / 0.9279 and decorated precision 0.978 / 0.980 / 0.984.
PIPS_ALONE = 1
FACE_MIN = 0.6
#: A network tile with a kernel score of at least INNER_SCORE that shows neither a divider nor
#: PIPS_ALONE pips is looked at again on its inner part (its quad shrunk about its centre to
#: INNER_SHRINK): the ink level of the whole quad is its darkest percentile, and where the quad
#: takes in the table beyond a tile's rounded corners (a dark table) that level is the table's,
#: so the pale pips and divider of a washed-out face (a lamp's glare, a marbled face) fall
#: above the ink threshold. Chosen on the 500 rendered tuning scenes (1,600,000-499,
#: 2026-11-22; shipped finder, LARGE_SPLIT_ONLY, reader of a57ee40): without -> 0.85 / 0.86:
#: tiles right 7009 -> 7015 of 7143, false tiles 20 -> 18, frames 421 -> 424, no right tile
#: lost; 0.85 / any score (0): 7015, false 21, but one tile right lost to a worse outline (and
#: seven face-down marbled tiles let through to the reader's face-down check); 0.85 / 0.9:
#: 7012; 0.8 / 0.86: 7014.
INNER_SHRINK = 0.85
INNER_SCORE = 0.86
#: A network tile whose divider is under BACK_DIVIDER is a face-down tile's back (a marbled
#: back's veins pass for a divider or pips) or the table's texture when its inner part (its
#: quad shrunk to INNER_SHRINK) shows less ink contrast than BACK_CONTRAST grey levels on every
#: view the ink gate looks at (light, dark, colour axis, 255 minus the weakest channel, the
#: strongest channel; :func:`_ink_contrast`): pips and dividers are dark ink, veins and grain
#: are faint. On the 500 rendered tuning scenes (1,600,000-499, 2026-11-22) the 11 face-down
#: tiles the ink gate passed (10 marbled backs) measured 33-53 levels but one (86), the 2,306
#: face-up tiles it passed with a divider under 0.4 67 or more. Such a tile is reported with
#: ``back`` set, not left out: left out, the reader's size rules (a frame's median tile) lost
#: the backs' size in a scene of backs on a speckled table, and two grain specks were read as
#: tiles (tuning false tiles 19 -> 21, frames 425 -> 424); flagged, every tuning reading is as
#: before (a reader leaving flagged tiles out after its drop stage, emulated: tuning unchanged).
BACK_DIVIDER = 0.4
BACK_CONTRAST = 60.0
#: A network tile with a kernel score of at least TURN_SCORE that shows neither a divider nor
#: pips (also on its inner part where it is looked at, :data:`INNER_SCORE`) is looked at for a
#: divider turned against its quad: the network's quad of a tile
#: with no pips (a blank double) can lie 20 degrees or more off the tile, and the divider then
#: crosses the quad's middle aslant. A straight line through the middle of the inner part
#: (:data:`INNER_SHRINK`), turned up to TURN_MAX degrees in TURN_STEP steps and shifted along
#: the tile up to TURN_SHIFT of its width, whose brightest sample across the central 60 % of
#: the width is dark (the whole line, not a vein or pip crossing it) and with face on both
#: sides, as :func:`_divider_score` asks of a square-on one (:func:`_turned_divider`). Where one
#: reaches :data:`MIN_DIVIDER_SCORE` the tile is kept, its quad turned and moved onto the line.
#: On the 500 rendered tuning scenes (1,600,000-499, 2026-11-22) 38 sure network tiles failed
#: the ink gate: 12 face-down tiles (all 0.00), 26 face-up tiles (most cut by other tiles or
#: lying partly on others), of which three scored: two blank doubles (0.84 and 0.70, quads 22
#: and 25 degrees off) and a 15-15 (0.36). TURN_SCORE :data:`INNER_SCORE` / :data:`NET_LOW_SCORE`
#: (every tile the detector keeps at all): tiles right 7019 / 7022 of 7143, frames 427 / 428,
#: false tiles 19 / 19 (reader of 33688f2).
TURN_MAX = 30.0
TURN_SCORE = NET_LOW_SCORE
TURN_STEP = 2.5
TURN_SHIFT = 0.08
#: A network tile showing a clear divider (at least CLEAR_DIVIDER, square on or turned) needs
#: only CLEAR_FACE_MIN of network face over it instead of :data:`FACE_MIN`: the face map is thin
#: over some pale tiles (a blank double, a yellow one on a pale table) whose kernels are sure.
#: On the 500 rendered tuning scenes (2026-11-22) 22 sure network tiles passed the ink gate but
#: not FACE_MIN: the two with a divider of 0.6 or more were face-up tiles matching the truth
#: (IoU 0.74 and 0.86, a 2-9 and a yellow 0-0), the surest dividers of the other 20 (face-down
#: tiles, parts of tiles under others) 0.52 and less.
CLEAR_DIVIDER = 0.6
CLEAR_FACE_MIN = 0.4
#: A small picture (a close-up, long side under ``vision.tile_finder.SMALL_SIDE``) in which no
#: tile the finder gave passes the checks above is worked by the finder again at each of these
#: close-up sides (working px) in turn, skipping the one it was worked at, and the first pass
#: with a tile that passes is taken (empty: never). Chosen on rendered phone close-ups of one
#: tile (``vision.render.closeup.render_phone_closeup``, choice seeds 3,000,000-599, 100 px,
#: the reader enlarging them to 400; 2026-11-22): found 0.965 -> 0.970, real-style right 0.937
#: -> 0.942, false tiles 2 -> 3; (128, 192, 96, 256) found 0.977 but false 6.
#: Session 18 (2026-11-23): 256 added (with ``vision.tile_finder.RETRY_SCORE``; figures there):
#: a small tile on lit wood whose kernel at 192 and 128 px gives an outline with no divider or
#: pips shows them at 256 px.
CLOSE_UP_SIDES: tuple[int, ...] = (128, 192, 256)
#: Whether a close-up whose passing tiles all run out of the picture (``cut``) is worked at the
#: other CLOSE_UP_SIDES too, the first pass giving a whole passing tile taken (where none does,
#: the cut tiles stay). A phone photo of one tile holds it whole; the close-up network can
#: stretch the quad of a large pale tile on pale card past the picture's edge at one side (seen
#: on real single-tile photos: four large tiles on white card read as nothing, each whole at
#: side 128) while it fits at another. On rendered phone close-ups (choice seeds
#: 3,000,000-599) and live-size crops (400 x 400 around two tiles of each of the first 100
#: tuning scenes, 196 crops) no reading holds only cut tiles, so both read exactly as before
#: (2026-11-23, ``runs/lead14/phone.py`` and ``crops.py``, scratch).
CLOSE_UP_UNCUT = True
#: The least network face over a tile (as :data:`FACE_MIN`) in a small picture worked at a
#: close-up side: the face map of a small tile at 192 px is thin while its kernel is sure.
#: Phone close-ups (as above, with CLOSE_UP_SIDES): 0.6 / 0.5 / 0.4 / 0.3 found 0.970 / 0.972
#: / 0.977 / 0.977, right 0.940 / 0.942 / 0.947 / 0.947, false 3 each; live-size crops (400 x
#: 400 around two tiles of each of the first 80 tuning scenes, 159 crops): tiles right 692 of
#: 768 and false 11 either way (found 789 -> 790).
CLOSE_UP_FACE_MIN = 0.4

#: A close-up in which no tile passes the checks above at any close-up side is looked at once
#: more, pass by pass: a sure kernel (:data:`NET_LOW_SCORE`), whole, with network face
#: :data:`CLOSE_UP_FACE_MIN` over it, that shows no divider and no pips is kept where its inner
#: part (:data:`INNER_SHRINK`) shows ink at least CLOSE_UP_INK grey levels darker than its face
#: in a view of the ink gate (:func:`_ink_contrast`; 0: never): a small tile enlarged from a
#: 100 px photo has its pips run together into bars and its divider blurred into them, while a
#: face-down back's veins stay under :data:`BACK_CONTRAST`. Rendered phone close-ups (choice
#: seeds 3,000,000-599, 2026-11-22): the close-ups found nothing had 4 true tiles of 95-181
#: levels and 4 sure false ones of 24-35.
CLOSE_UP_INK = 60.0
#: Whether a close-up in which the network's passes give no tile at all that passes (also by
#: :data:`CLOSE_UP_INK`) takes the whole tile of the classical detector (:func:`classical_detect`,
#: face masks and the divider check) with the clearest divider: the network gives no kernel
#: over small tiles on a checked cloth, where a pale tile's face mask stands out. A tile
#: narrower than CLOSE_UP_CLASSICAL_WIDTH of the picture's long side is not taken (a cloth's
#: check; real phone close-ups hold tiles from about 0.09 of the side). On 400 rendered phone
#: close-ups on cloth (``render_phone_closeup(seed, table="cloth")``, seeds 3,000,000-399,
#: 2026-11-22) the classical look gave 12 tiles: 8 true (0.09-0.14 of the side wide), 2 checks
#: 0.02-0.03 wide, 2 misplaced (IoU 0.32 and 0.37) on tiles not found otherwise. Nor one with
#: more than CLOSE_UP_CLASSICAL_PIPS pip-like blobs (a patch of a checked cloth: on 800 more
#: such close-ups, seeds 3,000,400-3,001,199, 26 tiles taken, 20 true with at most 5 blobs, 6
#: false of which two with 17 and 21).
CLOSE_UP_CLASSICAL = True
CLOSE_UP_CLASSICAL_WIDTH = 0.06
CLOSE_UP_CLASSICAL_PIPS = 12
#: A network tile with a sure kernel (:data:`NET_LOW_SCORE`) that shows neither a divider nor
#: pips (nor a turned divider) passes the ink gate where it shows at least PIP_ROWS rows of run-
#: together pips (:func:`_pip_rows`): under blur, a many-pip half's pips merge into bars, too
#: long to be pips (:func:`_divider_score` takes round blobs only), while the divider blurs
#: into them. A row is an ink blob (as :func:`_divider_score` marks ink) whose short side is
#: within ROW_SHORT and long side within ROW_LONG of the tile's width, filling at least
#: ROW_FILL of its box (straight, along or across the tile: a marbled back's veins and a
#: table's grain are thin, faint or wiggly). On the 500 rendered tuning scenes (1,600,000-499, 2026-11-22) the 53 sure network tiles the ink gate
#: dropped (every face-down one among them under BACK_CONTRAST) held 2 or more rows on the
#: light or dark map, whole quad or inner part, for 4 tiles, all face-up and matching the truth
#: (a 0-10, a 9-11, a 0-6 and a 2-3; IoU 0.62-0.87), and for none of the 12 face-down, 7 partly
#: hidden and 21 unmatched ones (these held at most one); through the reader (reader of
#: 6786648): tiles right 7016 -> 7018 of 7143, frames 429 -> 431, false tiles 19 -> 19, missed
#: 86 -> 84, no other reading changed. Not done: counting a block of pips run together (an
#: ink blob 0.7-1.0 of the width on both sides, as full) as two rows (ca6e47d) read 7023 ->
#: 7025 tuning tiles and 438 -> 439 frames, the rendered held-out figures unchanged, but the
#: real single-tile photos' figure fell (``evaluate --real``: 0.9878 -> 0.9871, a second tile
#: in one photo).
PIP_ROWS = 2

#: Whether a sure network tile that shows neither a divider nor pips is kept where it lies in
#: the layout (:func:`_plain_in_layout`): touching (its outline grown by PLAIN_TOUCH) a kept
#: tile that shows them, as wide as that tile within PLAIN_WIDTH. A blank double of a set
#: without divider lines is a plain tile like a face-down back; backs lie in the boneyard, a
#: blank double in the line. Frames of a table only (not close-ups). Chosen on the rendered
#: tuning scenes (session 18, 2026-11-23; PLAIN_TOUCH and PLAIN_WIDTH set beforehand, not
#: tuned): of 28 such plain tiles in the 500 cached scenes 1,600,000-499, the 6 touching a kept
#: tile were all face up (two 0-0 doubles without divider, a 0-15 and a 0-9 whose pips the
#: gate missed, two others), and none of the 15 face-down backs touched one. Through the reader
#: (``runs/lead11/tune.py``, scratch): tiles right 7068 -> 7072 of 7143, frames 450 -> 453, false
#: 8 -> 8, sure-wrong 6 -> 6 (the two doubles read 0-0 at 0.84 and 0.87, so asked about); fresh
#: tuning scenes 1,600,500-619 (``python -m vision.tune --seed 1600500 --scenes 120``) 0.9835 ->
#: 0.9841, precision unchanged; decorated 1,660,000-039 and stacked 1,600,000-039
#: (``layerlive --seed 1600000``) unchanged; the 8 demos read the same plays. A face-down tile
#: pushed against the line would be taken for a blank double: the reader reads such tiles 0-0
#: at 0.84-0.87 (tuning), below the companion's 0.9, so it asks before logging one.
PLAIN_IN_LAYOUT = True
#: Whether a tile flagged as a back (:data:`BACK_DIVIDER`, :data:`BACK_CONTRAST`) that lies in
#: the layout as :data:`PLAIN_IN_LAYOUT` asks (touching a whole tile that shows a divider or
#: pips and is no back, as wide within PLAIN_WIDTH) loses the flag: the reader drops a back it
#: reads 0-0 (``vision.read.DROP_BACKS``), and a blank double of a set without divider lines
#: whose spinner pin passed the ink gate is such a tile (session 25: Stackernoes sequence seed 1,
#: its first tile a 0-0 laid against the 0-8 after it, dropped in every frame, so the game was
#: never followed). Backs lie in the boneyard, touching backs.
BACKS_IN_LAYOUT = True
PLAIN_TOUCH = 1.12
PLAIN_WIDTH = 0.25
ROW_SHORT = (0.08, 0.25)
ROW_LONG = (0.5, 0.95)
ROW_FILL = 0.6

#: Whether kept outlines that straddle two touching tiles are replaced by the two tiles
#: (:func:`_unstraddled`): a kept tile within STRADDLE_REACH tile widths of a blob of free face
#: (:func:`_unexplained_face`) of STRADDLE_PIECE tile areas is looked at; beside each of its
#: halves a half-tile square at least STRADDLE_FREE free face makes a tile with that half.
#: On the 500 rendered tuning scenes (1,600,000-499, 2026-11-22; runs/lead11/tune.py, reader
#: of 65f3d22): tiles right 7027 -> 7029 of 7143, frames 439 -> 440, false tiles 14 -> 13,
#: missed 81 -> 79, read wrong at 0.9 or more 8 -> 8, right below 0.9 197 -> 198 (one frame
#: changed: a 3-15 and a 3-13 at a bend, read as one 3-3); STRADDLE_FREE 0.45 read the same
#: tiles right and two false tiles more (0-0s made of halves of face-down tiles, 1,600,086),
#: also when only for partners beyond the ends; half-tile squares of the median tile width
#: instead of the kept tile's own halves: right 7031 -> 7030 (with :data:`vision.tile_finder.
#: PAIR_WIDE`). STRADDLE_PIECE and STRADDLE_REACH are set by hand (only which tiles are looked
#: at: the free face beside a straddler is often a few tenths of a tile once the kept tiles
#: are grown), not swept. Both halves must pair on different sides (the two tiles run apart at
#: a bend): a tile whose face goes on beyond both its ends is a tile laid across two others in
#: a stack (a span, a bridge), not a straddler; splitting those lost 7 of 311 found stacked
#: tiles on 80 stacked tuning scenes (``python -m vision.render.layerlive --seed 1600000
#: --scenes 80 --sequences 0``: found 311 -> 304, right layers 118 either way), none after.
STRADDLE_SPLIT = True
STRADDLE_PIECE = 0.1
STRADDLE_REACH = 0.3
STRADDLE_FREE = 0.6


def _colour_axis(patch_bgr: np.ndarray) -> np.ndarray:
    """A BGR patch projected on its principal colour axis (the direction in colour space along
    which its pixels spread most: face against pips, whatever their colours), shifted to 0..255
    and turned so that the minority (the pips and divider) is dark."""
    pixels = patch_bgr.reshape(-1, 3).astype(np.float32)
    centred = pixels - pixels.mean(axis=0)
    _, vectors = np.linalg.eigh(centred.T @ centred)
    proj = centred @ vectors[:, -1]
    if float(np.mean(proj)) > float(np.median(proj)):  # the long tail (the minority) is dark
        proj = -proj
    proj = proj - float(proj.min())
    return np.clip(proj, 0, 255).reshape(patch_bgr.shape[:2]).astype(np.uint8)


def _quad_score(ink_maps: dict[str, np.ndarray], corners: np.ndarray,
                frame_bgr: np.ndarray | None = None, first: bool = False
                ) -> tuple[tuple[float, float, int], str]:
    """Divider contrast, rim fill and pips of a quad (:func:`_divider_score` on the quad warped
    upright), for the best of the two ink maps and the name of the better of those; with
    ``frame_bgr``, also on the quad's own principal colour axis (:func:`_colour_axis`: pips
    that differ from the face in hue more than in lightness, as on coloured sets) and, with
    :data:`COLOUR_CHANNELS`, on 255 minus its weakest and on its strongest channel. With
    ``first``, the maps are tried in that order and the first that shows a divider or
    :data:`PIPS_ALONE` pips is taken (a third of the work for most tiles)."""
    along = vec_length((corners[2] + corners[3]) / 2 - (corners[0] + corners[1]) / 2)
    across = vec_length(corners[1] - corners[0])
    length, width = max(4, int(round(along))), max(2, int(round(across)))
    dst = np.array([[0, 0], [0, width], [length, width], [length, 0]], np.float32)
    hom = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)

    def score(fmap: np.ndarray) -> tuple[float, float, int]:
        patch = cv2.warpPerspective(fmap, hom, (length, width), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        return _divider_score(patch, 0.0, 0.0, float(length), float(width), float(width))

    def shows(got: tuple[float, float, int]) -> bool:
        return got[0] >= MIN_DIVIDER_SCORE or got[2] >= PIPS_ALONE

    names = list(ink_maps)
    if first and names == ["light", "dark"]:
        # the likelier polarity first: a dark face (black sets) is dark in the light map too
        x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int), 0)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
        box = ink_maps["light"][y0:y1, x0:x1]
        if box.size and float(box.mean()) < 128:
            names.reverse()
    best: tuple[tuple[float, float, int], str] | None = None
    for name in names:
        got = (score(ink_maps[name]), name)
        if best is None or _evidence(*got[0]) > _evidence(*best[0]):
            best = got
        if first and shows(got[0]):
            return got
    assert best is not None
    if frame_bgr is not None:
        patch = cv2.warpPerspective(frame_bgr, hom, (length, width), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        views = [_colour_axis(patch)]
        if COLOUR_CHANNELS:
            # white pips on a saturated face (yellow, orange): the face's weakest channel is
            # low and the pips' high, so they show dark in 255 - min; coloured pips on a pale
            # face show dark in the strongest channel (max)
            b, g, r = cv2.split(patch)
            views += [cv2.bitwise_not(cv2.min(cv2.min(b, g), r)), cv2.max(cv2.max(b, g), r)]
        for view in views:
            got_colour = _divider_score(view, 0.0, 0.0, float(length), float(width),
                                        float(width))
            if _evidence(*got_colour) > _evidence(*best[0]):
                best = (got_colour, best[1])
            if shows(best[0]):
                break
    return best


def _pip_rows(ink_maps: dict[str, np.ndarray], corners: np.ndarray) -> int:
    """The most rows of run-together pips (:data:`PIP_ROWS`) that a quad (warped upright) shows
    on one of the light and dark ink maps: ink blobs (darker than the face by half the face/ink
    contrast, as :func:`_divider_score` marks them, inside the rim) :data:`ROW_SHORT` of the
    width thick, :data:`ROW_LONG` of it long and filling :data:`ROW_FILL` of their box."""
    width, length = _sides(corners)
    L, W = max(4, int(round(length))), max(2, int(round(width)))
    dst = np.array([[0, 0], [0, W], [L, W], [L, 0]], np.float32)
    hom = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    rim = max(1, int(round(0.1 * width)))
    most = 0
    for fmap in ink_maps.values():
        patch = cv2.warpPerspective(fmap, hom, (L, W), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        face, ink = _levels(patch)
        if face - ink < MIN_INK_CONTRAST or W <= 2 * rim or L <= 2 * rim:
            continue
        inner = patch[rim:-rim, rim:-rim]
        mask = (inner < face - 0.5 * (face - ink)).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        rows = 0
        for _x, _y, bw, bh, area in stats[1:n].tolist():
            short, long_ = min(bw, bh) / width, max(bw, bh) / width
            if (ROW_SHORT[0] <= short <= ROW_SHORT[1] and ROW_LONG[0] <= long_ <= ROW_LONG[1]
                    and area >= ROW_FILL * bw * bh):
                rows += 1
        most = max(most, rows)
    return most


def _turned_divider(ink_maps: dict[str, np.ndarray], corners: np.ndarray
                    ) -> tuple[float, np.ndarray]:
    """The clearest divider across the middle of a quad turned against it (up to
    :data:`TURN_MAX` degrees, shifted along it up to :data:`TURN_SHIFT` of its width) on the
    light and dark ink maps: (score, the quad turned and moved so that the line is square
    across its middle, same size and corner order). The score is as :func:`_divider_score`'s,
    (face level - line level) / (face level - ink level), with the line's level its brightest
    sample across the central 60 % of the width (every part of the line dark) and the face
    coming back on both sides of it (0.3 widths away); 0 and ``corners`` when there is none."""
    width, length = _sides(corners)
    L, W = max(4, int(round(length))), max(2, int(round(width)))
    dst = np.array([[0, 0], [0, W], [L, W], [L, 0]], np.float32)
    hom = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    turns = np.tan(np.radians(np.arange(-TURN_MAX, TURN_MAX + 1e-9, TURN_STEP)))
    shifts = np.linspace(-TURN_SHIFT, TURN_SHIFT, 5) * W
    ys = np.linspace(0.2, 0.8, 9) * W
    # (turn, shift, offset, sample) x positions of every line and its two side lines
    xs = (L / 2 + shifts[None, :, None, None] + np.array([0.0, -0.3 * W, 0.3 * W])[None, None, :, None]
          + (ys - W / 2)[None, None, None, :] * turns[:, None, None, None])
    n_lines = xs.shape[0] * xs.shape[1] * xs.shape[2]
    map_x = xs.reshape(n_lines, -1).astype(np.float32)
    map_y = np.broadcast_to(ys, map_x.shape).astype(np.float32)
    best, at = 0.0, None
    for fmap in ink_maps.values():
        patch = cv2.warpPerspective(fmap, hom, (L, W), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        face, ink = _levels(patch)
        if face - ink < MIN_INK_CONTRAST:
            continue
        got = cv2.remap(patch, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        got = got.reshape(xs.shape)
        line = got[:, :, 0].max(axis=2)
        sides = np.minimum(np.median(got[:, :, 1], axis=2), np.median(got[:, :, 2], axis=2))
        score = np.where(sides - line >= 0.4 * (face - line), (face - line) / (face - ink), 0.0)
        k = np.unravel_index(int(np.argmax(score)), score.shape)
        if float(score[k]) > best:
            best, at = float(score[k]), k
    if at is None:
        return 0.0, corners
    # the line's middle and ends back in the image: the tile's centre and its across direction
    t, sh = turns[at[0]], shifts[at[1]]
    ends = np.array([[L / 2 + sh + (y - W / 2) * t, y] for y in (0.0, W / 2, float(W))],
                    np.float32)
    a, mid, b = cv2.perspectiveTransform(ends[None], np.linalg.inv(hom))[0].astype(np.float64)
    across = (b - a) / max(vec_length(b - a), 1e-9)
    along = np.array([across[1], -across[0]])
    if float(np.dot(along, (corners[2] + corners[3] - corners[0] - corners[1]))) < 0:
        along = -along
    half_a, half_w = along * length / 2, across * width / 2
    turned = np.array([mid - half_a - half_w, mid - half_a + half_w,
                       mid + half_a + half_w, mid + half_a - half_w])
    return best, turned


def _ink_contrast(frame_bgr: np.ndarray, corners: np.ndarray, least: float) -> float:
    """The largest ink contrast (face level less ink level, :func:`_levels`) of a quad (warped
    upright) over the views the ink gate looks at: light (min of B, G, R), dark (255 - max),
    its own colour axis, 255 minus its weakest and its strongest channel. Stops at the first
    view reaching ``least``."""
    along = vec_length((corners[2] + corners[3]) / 2 - (corners[0] + corners[1]) / 2)
    across = vec_length(corners[1] - corners[0])
    length, width = max(4, int(round(along))), max(2, int(round(across)))
    dst = np.array([[0, 0], [0, width], [length, width], [length, 0]], np.float32)
    hom = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    patch = cv2.warpPerspective(frame_bgr, hom, (length, width), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    b, g, r = cv2.split(patch)
    low, high = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
    best = 0.0
    for view in (lambda: low, lambda: cv2.bitwise_not(high), lambda: _colour_axis(patch),
                 lambda: cv2.bitwise_not(low), lambda: high):
        face, ink = _levels(view())
        best = max(best, face - ink)
        if best >= least:
            break
    return best


def _overlap_fraction(a: np.ndarray, b: np.ndarray) -> float:
    """Area of quad ``a`` inside quad ``b``, as a fraction of ``a``'s area."""
    pa, pb = cv2.convexHull(a.astype(np.float32)), cv2.convexHull(b.astype(np.float32))
    area = cv2.contourArea(pa)
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return float(inter / area)


def _sides(corners: np.ndarray) -> tuple[float, float]:
    """Width (corners 0-1) and length (end to end) of a tile quad."""
    width = vec_length(corners[1] - corners[0])
    length = vec_length((corners[2] + corners[3]) / 2 - (corners[0] + corners[1]) / 2)
    return width, length


def _at_one_place(a: np.ndarray, b: np.ndarray) -> bool:
    return (_overlap_fraction(a, b) >= NET_OVERLAP or _overlap_fraction(b, a) >= NET_OVERLAP)


def _face_support(face: np.ndarray, scale: float, corners: np.ndarray) -> float:
    """Mean network face probability inside a quad given in image pixels (``face`` at half the
    working size, ``scale`` working px per image px)."""
    pts = (np.asarray(corners, np.float64) + 0.5) * scale / 2.0 - 0.5
    xs, ys = pts[:, 0].tolist(), pts[:, 1].tolist()
    x0, y0 = max(math.floor(min(xs)), 0), max(math.floor(min(ys)), 0)
    x1 = min(math.ceil(max(xs)) + 1, face.shape[1])
    y1 = min(math.ceil(max(ys)) + 1, face.shape[0])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((pts - (x0, y0)) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    return float(face[y0:y1, x0:x1][mask > 0].mean()) if mask.any() else 0.0


def _reference_sizes(tiles: list[TileCandidate], least: int) -> list[np.ndarray | None]:
    """Per tile, the median (width, length) of its NEIGHBOURS nearest other whole tiles, or None
    when fewer than ``least`` others are whole."""
    return _reference_sizes_at(tiles, (least,))[0]


def _reference_sizes_at(tiles: list[TileCandidate], leasts: tuple[int, ...]
                        ) -> list[list[np.ndarray | None]]:
    """:func:`_reference_sizes` for each of ``leasts``, the neighbours found once."""
    whole = [t for t in tiles if not t.cut]
    if not tiles or len(whole) <= min(leasts):
        return [[None] * len(tiles) for _ in leasts]
    centres = np.array([quad_centre(t.corners) for t in whole])
    sizes = np.array([_sides(t.corners) for t in whole])
    mine = np.array([quad_centre(t.corners) for t in tiles])
    dist = np.linalg.norm(mine[:, None, :] - centres[None, :, :], axis=2)
    dist[dist <= 1e-6] = np.inf  # a tile is not its own neighbour
    k = min(NEIGHBOURS, len(whole))
    nearest = np.argsort(dist, axis=1)[:, :k]
    usable = np.isfinite(np.take_along_axis(dist, nearest, axis=1))
    refs = np.median(np.where(usable[:, :, None], sizes[nearest], np.nan), axis=1) \
        if usable.all() else None
    n_ok = usable.sum(axis=1).tolist()
    own: dict[int, np.ndarray] = {}  # a tile's median over its usable neighbours, made once

    def median_of(i: int) -> np.ndarray:
        if refs is not None:
            return refs[i]
        if i not in own:
            own[i] = np.median(sizes[nearest[i][usable[i]]], axis=0)
        return own[i]

    return [[None] * len(tiles) if len(whole) <= least
            else [None if n_ok[i] < least else median_of(i) for i in range(len(tiles))]
            for least in leasts]


def _plausible_net_tiles(tiles: list[TileCandidate], scores: list[float],
                         split: list[bool] | None = None
                         ) -> tuple[list[TileCandidate], list[TileCandidate]]:
    """The network tiles worth keeping, and those too large to be one tile.

    Kept: a confident kernel (:data:`NET_LOW_SCORE`) and, where at least SIZE_REFERENCE other
    whole tiles are near, a width and length no less than :data:`SIZE_LOW` of theirs. Too large:
    confident, but wider or longer than :data:`SIZE_HIGH` times the tiles near it (even one)
    and cut by the finder from a blob of several kernels (``split``, per tile; None: every
    tile): the kernels of touching tiles that ran together, for :func:`_residual_tiles` to
    split. A large tile of a single tile-shaped kernel blob is kept (:data:`LARGE_SPLIT_ONLY`).
    Cut tiles are judged by score only (their outlines are parts of tiles)."""
    flags = [True] * len(tiles) if split is None else split
    if len(flags) != len(tiles):
        raise ValueError(f"split has {len(flags)} flags for {len(tiles)} tiles; give one per tile")
    sure = [(t, f) for t, score, f in zip(tiles, scores, flags) if score >= NET_LOW_SCORE]
    refs = _reference_sizes_at([t for t, _ in sure], (1, SIZE_REFERENCE))
    kept, large = [], []
    for (t, was_split), few, many in zip(sure, *refs):
        if not t.cut and few is not None:
            w, length = _sides(t.corners)
            if (max(w / few[0], length / few[1]) > SIZE_HIGH
                    and (was_split or not LARGE_SPLIT_ONLY)):
                large.append(t)
                continue
            if many is not None and min(w / many[0], length / many[1]) < SIZE_LOW:
                continue
        kept.append(t)
    return kept, large


def _face_backed(tiles: list[TileCandidate], face: np.ndarray, scale: float
                 ) -> list[TileCandidate]:
    """The tiles (split from the face map) over which the network's mean face probability is
    at least :data:`RESIDUAL_FACE_MIN` (``face`` at half the working size, ``scale`` working px
    per image px); cut tiles are kept (part of their quad lies outside the picture)."""
    if RESIDUAL_FACE_MIN <= 0:
        return tiles
    return [t for t in tiles
            if t.cut or _face_support(face, scale, t.corners) >= RESIDUAL_FACE_MIN]


def _unexplained_face(face: np.ndarray, scale: float, kept: list[TileCandidate], width: float,
                      img_w: int, img_h: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, tuple]]]:
    """The network's face that the kept tiles leave unexplained (see :func:`_residual_tiles`):
    the face probability at working size, the free face mask (face less the kept tiles grown by
    :data:`RESIDUAL_GROW` of ``width``, slivers opened away), the face blobs' labels, and the
    label and box (x, y, w, h) of each face blob holding at least :data:`RESIDUAL_AREA` tile
    areas of free face."""
    wh = min(2 * face.shape[0], round(img_h * scale))
    ww = min(2 * face.shape[1], round(img_w * scale))
    prob = cv2.resize(face, (face.shape[1] * 2, face.shape[0] * 2),
                      interpolation=cv2.INTER_LINEAR)[:wh, :ww]
    mask = (prob >= FACE_LEVEL).astype(np.uint8)
    free: np.ndarray = mask.copy()
    w_work = width * scale
    for t in kept:
        c = quad_centre(t.corners)
        out = t.corners - c
        grown = t.corners + out / np.linalg.norm(out, axis=1, keepdims=True) * RESIDUAL_GROW * width
        cv2.fillConvexPoly(free, np.round(((grown + 0.5) * scale - 0.5) * 16).astype(np.int32),
                           0, cv2.LINE_8, 4)
    k = max(3, int(round(0.3 * w_work)) | 1)  # slivers along kept tiles' edges are not tiles
    free = cv2.morphologyEx(free, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    least = RESIDUAL_AREA * 2 * w_work * w_work
    most = MAX_GRID_CELLS * 2 * w_work * w_work / 8
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    blobs = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < least or area > most:
            continue
        own = labels[y:y + bh, x:x + bw] == i
        if np.count_nonzero(free[y:y + bh, x:x + bw][own]) >= least:
            blobs.append((i, (int(x), int(y), int(bw), int(bh))))
    return prob, free, labels, blobs


def _residual_tiles(face: np.ndarray, scale: float, kept: list[TileCandidate],
                    ink_maps: dict[str, np.ndarray], width: float,
                    unexplained: tuple | None = None) -> list[TileCandidate]:
    """Tiles in the network's face map where the kept tiles leave face uncovered.

    The face mask (probability at least :data:`FACE_LEVEL`) is cut into connected blobs; a blob
    in which at least :data:`RESIDUAL_AREA` tile areas of face lie outside the kept tiles (grown
    by :data:`RESIDUAL_GROW` of the width; slivers opened away) is split whole by the grid cover
    of stage 3 (:func:`_split_any`) at ``width`` px, and its tiles that show a divider or
    :data:`PIPS_ALONE` pips and lie where no kept tile is are returned; where the whole blob
    gives none, the face the kept tiles leave in it is split, piece by piece. ``face`` is at half
    the working size, ``scale`` working px per image px; the masks are worked at the working
    size, and only a blob that is split is brought to image pixels. ``unexplained``: what
    :func:`_unexplained_face` gives for these arguments, when the caller has it already."""
    img_h, img_w = next(iter(ink_maps.values())).shape
    prob, free, labels, blobs = (unexplained if unexplained is not None else
                                 _unexplained_face(face, scale, kept, width, img_w, img_h))
    wh, ww = prob.shape
    found: list[TileCandidate] = []
    for i, (x, y, bw, bh) in blobs:
        # the blob in image pixels: its region of the face probability brought to image size
        x0, y0 = max(0, int((x - 1) / scale)), max(0, int((y - 1) / scale))
        x1 = min(img_w, int(math.ceil((x + bw + 1) / scale)))
        y1 = min(img_h, int(math.ceil((y + bh + 1) / scale)))
        rx0, ry0 = max(0, x - 2), max(0, y - 2)
        rx1, ry1 = min(ww, x + bw + 2), min(wh, y + bh + 2)
        sx = ((np.arange(x0, x1) + 0.5) * scale - 0.5 - rx0).astype(np.float32)
        sy = ((np.arange(y0, y1) + 0.5) * scale - 0.5 - ry0).astype(np.float32)
        map_x, map_y = np.meshgrid(sx, sy)
        mine = labels[ry0:ry1, rx0:rx1] == i
        p_roi = prob[ry0:ry1, rx0:rx1]
        shift = np.array([x0, y0], np.int32)

        def split(region: np.ndarray) -> list[TileCandidate]:
            """New tiles in the image-size blobs of the face probability inside ``region``."""
            p_img = cv2.remap(np.where(region, p_roi, 0).astype(np.float32), map_x, map_y,
                              cv2.INTER_LINEAR)
            part = (p_img >= FACE_LEVEL).astype(np.uint8) * np.uint8(255)
            new: list[TileCandidate] = []
            for blob in _blobs(part, RESIDUAL_AREA * 2 * width * width, dent=DENT * width):
                blob = _Blob(blob.contour + shift, blob.raw + shift, blob.area,
                             ((blob.rect[0][0] + x0, blob.rect[0][1] + y0), blob.rect[1],
                              blob.rect[2]), blob.solidity)
                new += [t for t in _split_any(blob, ink_maps, width, img_w, img_h)
                        if (t.divider >= MIN_DIVIDER_SCORE or t.pips >= PIPS_ALONE)
                        and not any(_at_one_place(t.corners, k.corners) for k in kept)]
            return new

        # the whole blob first (tiles on one grid with the kept ones); where that gives nothing,
        # the face the kept tiles leave, blob by blob
        got = split(mine)
        if not got:
            got = split(mine & (free[ry0:ry1, rx0:rx1] > 0))
        found += got
    return found

def _free_share(square: np.ndarray, face: np.ndarray, others: np.ndarray, origin: np.ndarray
                ) -> float:
    """The share of a quad (working px) that is face (``face``, a mask of an ROI at working px
    ``origin``) and in no other kept tile (``others``, the same ROI)."""
    m = np.zeros(face.shape, np.uint8)
    cv2.fillConvexPoly(m, np.round((square - origin) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    inside = int(np.count_nonzero(m))
    if inside == 0:
        return 0.0
    return float(np.count_nonzero(m.astype(bool) & face & ~others)) / inside


def _unstraddled(tiles: list[TileCandidate], unexplained: tuple, scale: float,
                 ink_maps: dict[str, np.ndarray], frame_bgr: np.ndarray, width: float,
                 backs: set[int]) -> list[TileCandidate]:
    """The kept tiles with each outline that straddles two tiles replaced by those two.

    A straddler (the kernels of two touching tiles run together: at a bend of a chain, a double
    across a line) covers one half of each tile and leaves each tile's other half as face no
    kept tile explains. A kept whole tile next to such face (:func:`_unexplained_face`'s free
    face, a blob of :data:`STRADDLE_PIECE` tile areas within :data:`STRADDLE_REACH` widths) is
    looked at half by half: the square beside the half beyond its end or across either long
    side that is most free face (network face in no other kept tile, at least
    :data:`STRADDLE_FREE`) makes a tile with that half. Where both halves make one on different
    sides (both across the same long side is a tile beside a tile the network missed; both
    beyond the ends, a tile laid across two others in a stack), each shows a divider
    or :data:`PIPS_ALONE` pips, has network face :data:`FACE_MIN` over it and lies at no other
    kept tile's place, the two replace the kept tile. ``scale``: working px per image px."""
    if not STRADDLE_SPLIT:
        return tiles
    prob, free, _, _ = unexplained
    w_work = width * scale
    least = STRADDLE_PIECE * 2 * w_work * w_work
    if np.count_nonzero(free) < least:
        return tiles
    # the boxes of the free blobs (outer contours: a tenth of labelling's time; a blob's pixel
    # count is its contour's area and half its perimeter, and 1)
    contours, _ = cv2.findContours(free, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = [cv2.boundingRect(c) for c in contours
             if cv2.contourArea(c) + 0.5 * cv2.arcLength(c, True) + 1 >= least]
    if not boxes:
        return tiles
    reach = STRADDLE_REACH * w_work
    work = {id(t): (np.asarray(t.corners, np.float64) + 0.5) * scale - 0.5 for t in tiles}
    out = list(tiles)
    for t in tiles:
        if t.cut or id(t) in backs or not any(k is t for k in out):
            continue
        q = work[id(t)]
        lo, hi = q.min(axis=0) - reach, q.max(axis=0) + reach
        if not any(x <= hi[0] and y <= hi[1] and x + bw >= lo[0] and y + bh >= lo[1]
                   for x, y, bw, bh in boxes):
            continue
        # the tile's frame: along (ua) and across (ub) in working px
        e0, e1 = (q[0] + q[1]) / 2, (q[2] + q[3]) / 2
        length, wid = vec_length(e1 - e0), vec_length(q[1] - q[0])
        if length < 1 or wid < 1:
            continue
        ua, ub = (e1 - e0) / length, (q[1] - q[0]) / wid
        c = (e0 + e1) / 2
        half = length / 2
        span = max(half, wid) * 1.6
        origin = np.floor(c - 2.2 * span).astype(int).clip(0)
        end = np.minimum(np.ceil(c + 2.2 * span).astype(int) + 1, prob.shape[::-1])
        if np.any(end <= origin):
            continue
        face = prob[origin[1]:end[1], origin[0]:end[0]] >= FACE_LEVEL
        others = np.zeros(face.shape, np.uint8)
        for k in out:
            kq = work[id(k)]
            if k is not t and np.all(kq.max(axis=0) >= origin) and np.all(kq.min(axis=0) <= end):
                cv2.fillConvexPoly(others, np.round((kq - origin) * 16).astype(np.int32), 1,
                                   cv2.LINE_8, 4)
        others = others.astype(bool)

        def rect(centre: np.ndarray, along: np.ndarray, across: np.ndarray, long: float,
                 short: float) -> np.ndarray:
            """A quad ``long`` along ``along`` by ``short`` across, about ``centre`` (corners
            0-1 at one short end, as a tile's)."""
            a, b = along * long / 2, across * short / 2
            return np.array([centre - a - b, centre - a + b, centre + a + b, centre + a - b])

        made = []
        for sign in (-1.0, 1.0):  # the half at e0 (sign -1) and at e1
            hc = c + sign * ua * half / 2  # the half's centre
            options = [(hc + sign * ua * half, "end"), (hc + ub * (wid + half) / 2, "+"),
                       (hc - ub * (wid + half) / 2, "-")]
            best = max(((_free_share(rect(oc, ua, ub, half, wid), face, others, origin), oc,
                         side)
                        for oc, side in options), key=lambda v: v[0])
            if best[0] < STRADDLE_FREE:
                break
            oc, side = best[1], best[2]
            centre = (hc + oc) / 2
            if side == "end":
                along, across, tl, tw = ua, ub, 2 * half, wid
            else:  # the tile runs across: from the half to the square beside it
                along, across, tl, tw = ub, ua, wid + half, half
            made.append(((rect(centre, along, across, tl, tw) + 0.5) / scale - 0.5, side))
        if len(made) != 2 or made[0][1] == made[1][1]:
            continue
        new = []
        for quad, _ in made:
            if any(k is not t and _at_one_place(quad, k.corners) for k in out):
                break
            (divider, fill, pips), polarity = _quad_score(ink_maps, quad, frame_bgr, first=True)
            if not (divider >= MIN_DIVIDER_SCORE or pips >= PIPS_ALONE):
                break
            if _face_support(prob, 2 * scale, quad) < FACE_MIN:  # prob: at working size
                break
            new.append(TileCandidate(quad, False, divider, polarity, fill, pips))
        if len(new) == 2:
            out = [k for k in out if k is not t] + new
            for k in new:
                work[id(k)] = (k.corners + 0.5) * scale - 0.5
    return out


def _checked_net_tiles(found: list, net_maps: np.ndarray, net_scale: float,
                       frame_bgr: np.ndarray, ink_maps: dict[str, np.ndarray],
                       backs: set[int] | None = None, face_min: float = FACE_MIN,
                       ink_least: float | None = None,
                       plain: list[TileCandidate] | None = None
                       ) -> tuple[list[TileCandidate], list[float], list[bool]]:
    """The network tiles ``found`` (:class:`vision.tile_finder.FoundTile`, from the maps
    ``net_maps`` at ``net_scale`` working px per image px) that pass the checks of a single
    tile: a kernel score of at least :data:`NET_LOW_SCORE`, a divider or :data:`PIPS_ALONE`
    pips (on the inner part too for a sure kernel, :data:`INNER_SCORE`), network face over
    it (``face_min``, by default :data:`FACE_MIN`); with their kernel scores and whether the finder cut them from merged
    kernels (``split``). With ``backs``, the ``id`` of each passing tile that shows no clear
    divider and no ink darker than a back's veins (:data:`BACK_CONTRAST`) is added to it: a
    face-down tile (a tile all the same, a size reference for its neighbours) or grain. With
    ``ink_least``, a whole tile showing neither a divider nor pips passes where its inner part
    shows that much ink contrast (:data:`CLOSE_UP_INK`). With ``plain``, each whole tile with a
    sure kernel refused only for showing neither a divider nor pips (nor rows) is added to it
    (:func:`_plain_in_layout` looks at those)."""
    tiles: list[TileCandidate] = []
    scores: list[float] = []
    split: list[bool] = []
    for f in found:
        if f.score < NET_LOW_SCORE:
            continue  # never kept (_plausible_net_tiles): not worth scoring its divider and pips
        centre = quad_centre(f.corners)
        inner = centre + (f.corners - centre) * INNER_SHRINK  # the quad's inner part
        (divider, fill, pips), polarity = _quad_score(
            ink_maps, f.corners, frame_bgr if COLOUR_AXIS else None, first=True)
        if not (divider >= MIN_DIVIDER_SCORE or pips >= PIPS_ALONE) and f.score >= INNER_SCORE:
            (divider, fill, pips), polarity = _quad_score(
                ink_maps, inner, frame_bgr if COLOUR_AXIS else None, first=True)
        corners = f.corners
        if not (divider >= MIN_DIVIDER_SCORE or pips >= PIPS_ALONE) and f.score >= TURN_SCORE \
                and TURN_MAX > 0:
            turned, onto = _turned_divider(ink_maps, inner)
            if turned >= MIN_DIVIDER_SCORE:
                mid = quad_centre(onto)
                divider, corners = turned, mid + (onto - mid) / INNER_SHRINK
        rows = False
        if not (divider >= MIN_DIVIDER_SCORE or pips >= PIPS_ALONE) and PIP_ROWS > 0 \
                and not f.cut:
            rows = any(_pip_rows(ink_maps, q) >= PIP_ROWS for q in (f.corners, inner))
        cand = TileCandidate(corners, f.cut, divider, polarity, fill, pips)
        if not (divider >= MIN_DIVIDER_SCORE or pips >= PIPS_ALONE or rows):
            if ink_least is None or f.cut:
                if plain is not None and not f.cut:
                    plain.append(cand)
                continue
            if _ink_contrast(frame_bgr, inner, ink_least) < ink_least:
                continue
        least = min(face_min, CLEAR_FACE_MIN) if divider >= CLEAR_DIVIDER else face_min
        if not f.cut and _face_support(net_maps[1], net_scale, f.corners) < least:
            continue
        if divider < BACK_DIVIDER and BACK_CONTRAST > 0 and backs is not None:
            if _ink_contrast(frame_bgr, inner, BACK_CONTRAST) < BACK_CONTRAST:
                backs.add(id(cand))  # a face-down tile's back, or the table's grain
        tiles.append(cand)
        scores.append(f.score)
        split.append(f.split)
    return tiles, scores, split


def _plain_in_layout(plain: list[TileCandidate], net_maps: np.ndarray, net_scale: float,
                     kept: list[TileCandidate]) -> list[TileCandidate]:
    """Of the ``plain`` network tiles (a sure kernel, whole, refused by
    :func:`_checked_net_tiles` only for showing neither a divider nor pips), those that lie in
    the layout (:data:`PLAIN_IN_LAYOUT`): network face over them (:data:`FACE_MIN`), at no kept
    tile's place, about as wide as a kept tile that shows a divider or pips and touches them
    (their outline grown by :data:`PLAIN_TOUCH`)."""
    out: list[TileCandidate] = []
    marked = [t for t in kept if t.is_tile and not t.cut]
    for c in plain if marked else ():
        if _face_support(net_maps[1], net_scale, c.corners) < FACE_MIN:
            continue
        if any(_at_one_place(c.corners, t.corners) for t in kept + out):
            continue
        if _touches_one(c, marked):
            out.append(c)
    return out


def _touches_one(c: TileCandidate, marked: list[TileCandidate]) -> bool:
    """Whether ``c`` lies in the layout of the ``marked`` tiles: its outline grown by
    :data:`PLAIN_TOUCH` meets one of them that is as wide within :data:`PLAIN_WIDTH`."""
    width = _sides(c.corners)[0]
    centre = quad_centre(c.corners)
    grown = (centre + (c.corners - centre) * PLAIN_TOUCH).astype(np.float32)
    return any(t is not c and abs(_sides(t.corners)[0] / width - 1.0) <= PLAIN_WIDTH
               and cv2.intersectConvexConvex(grown, t.corners.astype(np.float32))[0] > 0
               for t in marked)


def _backs_in_layout(tiles: list[TileCandidate], backs: set[int]) -> set[int]:
    """Of the tiles flagged as backs (their ``id`` in ``backs``), those that lie in the layout
    (:data:`BACKS_IN_LAYOUT`): touching a whole tile that is no back and shows a divider or
    pips (:func:`_touches_one`)."""
    marked = [t for t in tiles if t.is_tile and not t.cut and id(t) not in backs]
    return {id(t) for t in tiles if id(t) in backs and not t.cut and _touches_one(t, marked)}


def _surer(tiles: list[TileCandidate], scores: list[float], split: list[bool], speckled: bool
           ) -> tuple[list[TileCandidate], list[float], list[bool]]:
    """The checked network tiles (with their kernel scores and split flags) that a picture of a
    textured table (``speckled``) keeps: a kernel score of at least :data:`SPECKLE_SCORE`;
    all of them otherwise."""
    if not speckled:
        return tiles, scores, split
    keep = [i for i, score in enumerate(scores) if score >= SPECKLE_SCORE]
    return [tiles[i] for i in keep], [scores[i] for i in keep], [split[i] for i in keep]


def detect_tiles(frame_bgr: np.ndarray) -> Detection:
    """Every face-up tile in a BGR frame (uint8, (H, W, 3)).

    With :data:`MODE` ``"net"`` (the default): the learned tile finder (:mod:`vision.tile_finder`)
    gives the tiles it sees, each with its own size; a tile is kept when it shows a divider or
    :data:`PIPS_ALONE` pips on the light, dark or its own colour axis (:func:`_quad_score`) or
    pips run together into rows (:data:`PIP_ROWS`), the network sees top face over it
    (:data:`FACE_MIN`), its kernel is confident (:data:`NET_LOW_SCORE`) and its size is like its
    neighbours' (:func:`_plausible_net_tiles`).
    A kept outline over halves of two touching tiles, whose other halves are face the kept
    tiles leave unexplained, is replaced by the two tiles (:func:`_unstraddled`).
    Where the network's face map holds tile face that the kept tiles leave unexplained (merged
    kernels it could not split, tiles far larger than their neighbours), the grid cover of stage 3
    splits that face at the kept tiles' width (:func:`_residual_tiles`); where tiles too small
    for the network leave such face and the finder did not work the picture larger, it is
    worked larger first (:data:`ZOOM_UNEXPLAINED`). With ``"classical"``,
    :func:`classical_detect` alone. ``tile_width_px`` is the median short side of the whole tiles
    found. A missing or broken model file raises :class:`vision.tile_finder.TileFinderError`
    naming the file and how to rebuild it.
    """
    from vision.tile_finder import (SMALL_SIDE, WORK_SIDE, TileFinder, shared_finder,
                                    tiles_from_maps)

    if MODE == "classical":
        return classical_detect(frame_bgr)
    if MODE != "net":
        raise ValueError(f"vision.detect.MODE is {MODE!r}; use 'net' or 'classical'")
    finder = shared_finder()
    found, net_maps, net_scale = finder.find_with_maps(frame_bgr)
    ink_maps = ink_maps_of(frame_bgr)
    backs: set[int] = set()
    h, w = frame_bgr.shape[:2]
    close_up = max(h, w) < SMALL_SIDE and round(net_scale * max(h, w)) < WORK_SIDE
    # a textured table (speckled stone, grain) where the network sees many weak kernels
    speckled = (SPECKLE_WEAK > 0 and max(h, w) >= SMALL_SIDE
                and sum(SPECKLE_LOW <= f.score < NET_LOW_SCORE for f in found) >= SPECKLE_WEAK)
    plain: list[TileCandidate] = []  # sure tiles refused for showing no divider and no pips
    tiles, scores, split = _surer(*_checked_net_tiles(
        found, net_maps, net_scale, frame_bgr, ink_maps, backs,
        CLOSE_UP_FACE_MIN if close_up else FACE_MIN, plain=plain), speckled)
    only_cut = bool(tiles) and all(t.cut for t in tiles)
    if max(h, w) < SMALL_SIDE and (not tiles or (CLOSE_UP_UNCUT and only_cut)):
        # a close-up in which no tile passed the checks, or only tiles running out of the
        # picture: the close-up passes at other sides, for a tile (a whole one)
        done = {round(net_scale * max(h, w))}
        passes = [(found, net_maps, net_scale)] if close_up else []
        for side in CLOSE_UP_SIDES:
            if side in done:
                continue
            done.add(side)
            maps, scale = finder.maps(frame_bgr, side)
            again = tiles_from_maps(maps[0], maps[1], scale, w, h)
            passes.append((again, maps, scale))
            got = _checked_net_tiles(again, maps, scale, frame_bgr, ink_maps, backs,
                                     CLOSE_UP_FACE_MIN)
            if got[0] and not (only_cut and all(t.cut for t in got[0])):
                (tiles, scores, split), net_maps, net_scale = got, maps, scale
                break
        for again, maps, scale in passes if not tiles and CLOSE_UP_INK > 0 else ():
            # still nothing: a sure kernel whose blurred pips show as ink, not as pips
            got = _checked_net_tiles(again, maps, scale, frame_bgr, ink_maps, backs,
                                     CLOSE_UP_FACE_MIN, ink_least=CLOSE_UP_INK)
            if got[0]:
                (tiles, scores, split), net_maps, net_scale = got, maps, scale
                break
        if not tiles and CLOSE_UP_CLASSICAL:
            whole = [t for t in classical_detect(frame_bgr).tiles if not t.cut and t.is_tile
                     and _sides(t.corners)[0] >= CLOSE_UP_CLASSICAL_WIDTH * max(h, w)
                     and t.pips <= CLOSE_UP_CLASSICAL_PIPS]
            if whole:
                tiles, scores, split = [max(whole, key=lambda t: t.divider)], [1.0], [False]
    tiles, large = _plausible_net_tiles(tiles, scores, split)
    whole = [_sides(t.corners)[0] for t in tiles if not t.cut]
    unexplained = None
    if whole and not speckled:
        unexplained = _unexplained_face(net_maps[1], net_scale, tiles, float(np.median(whole)),
                                        w, h)
    if unexplained is not None and unexplained[3] and ZOOM_UNEXPLAINED and not close_up \
            and max(h, w) >= SMALL_SIDE and net_scale <= TileFinder.work_scale(h, w) * 1.01:
        # small tiles that leave face unexplained, not yet worked larger: worked larger
        larger = finder.larger(frame_bgr, found, net_scale, split_only=False)
        if larger is not None:
            found, net_maps, net_scale = larger
            plain = []
            tiles, scores, split = _checked_net_tiles(found, net_maps, net_scale, frame_bgr,
                                                      ink_maps, backs, FACE_MIN, plain=plain)
            tiles, large = _plausible_net_tiles(tiles, scores, split)
            whole = [_sides(t.corners)[0] for t in tiles if not t.cut]
            unexplained = None
    if whole and not speckled:
        w_med = float(np.median(whole))
        if unexplained is None:
            unexplained = _unexplained_face(net_maps[1], net_scale, tiles, w_med, w, h)
        tiles = _unstraddled(tiles, unexplained, net_scale, ink_maps, frame_bgr, w_med, backs)
        extra = _refined(_residual_tiles(net_maps[1], net_scale, tiles, ink_maps, w_med,
                                         unexplained), ink_maps, w_med, *frame_bgr.shape[1::-1])
        extra = _face_backed(extra, net_maps[1], net_scale)
        # a large tile stays where its place holds none of the tiles split there
        tiles += [t for t in large if not any(_at_one_place(t.corners, e.corners) for e in extra)]
        tiles += extra
    else:
        tiles += large
    if PLAIN_IN_LAYOUT and max(h, w) >= SMALL_SIDE and not close_up and not speckled:
        tiles += _plain_in_layout(plain, net_maps, net_scale, tiles)
    if backs and BACKS_IN_LAYOUT and max(h, w) >= SMALL_SIDE and not close_up:
        backs -= _backs_in_layout(tiles, backs)
    if backs:
        tiles = [dataclasses.replace(t, back=True) if id(t) in backs else t for t in tiles]
    widths = [_sides(t.corners)[0] for t in tiles if not t.cut]
    width = float(np.median(widths)) if widths else None
    warnings = [] if tiles else ["no face-up tile found in the picture; is there a face-up tile "
                                 "in it?"]
    return Detection(tiles, width, warnings)
