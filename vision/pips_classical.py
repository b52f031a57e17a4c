"""Classical pip reading: count the bright blobs on a half-tile crop and check their layout.

Input: crops from :func:`vision.halves.half_crops` ((48, 48) float32, body about 0, pips about
1). Each crop is thresholded at half the pip level; connected blobs of pip size and round shape
are pips; two pips that touch are counted by area. The count is then checked against the
standard layouts: every standard layout of 0..15 pips is point-symmetric about the centre of the
half, so the centroid of the pips must sit near the centre, and pips must lie inside the half.
The result is a probability vector over 0..15: most mass on the count, the rest on the
neighbouring counts in proportion to how doubtful the blobs (faint, tiny, or merged) and the
layout were.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.tiles import MAX_PIPS

N_CLASSES = MAX_PIPS + 1
#: Crop value above which a pixel belongs to a pip.
PIP_LEVEL = 0.5
#: Smallest and largest pip area as a fraction of the crop area.
MIN_PIP_FRAC, MAX_PIP_FRAC = 0.0025, 0.06


_ADD_REDUCE = np.add.reduce


class CropError(ValueError):
    """A crop that is not a (N, S, S) / (S, S) float32 half-tile square."""


def _pip_blobs(crop: np.ndarray) -> tuple[list[tuple[float, float, float, float, float]], int]:
    """Pip blobs (x, y, area, mean value, touches border) of one crop and the count of doubtful blobs."""
    size = crop.shape[0]
    binary = (crop > PIP_LEVEL).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    area_min, area_max = MIN_PIP_FRAC * size * size, MAX_PIP_FRAC * size * size * 2.2
    blobs = []
    doubtful = 0
    # plain Python numbers: the loop runs once per component, numpy scalars would dominate it
    rows = stats.tolist()
    centres = centroids.tolist()
    for i in range(1, n):
        x, y, w, h, area = rows[i]
        if area < area_min * 0.5:
            continue
        elong = max(w, h) / max(1, min(w, h))
        fill = area / float(w * h)
        at_border = x <= 0 or y <= 0 or x + w >= size or y + h >= size
        if elong > 2.2 or (at_border and elong > 1.6):
            continue  # a line: the divider or the tile edge, not a pip
        if area < area_min or area > area_max or fill < 0.35:
            if area >= area_min * 0.7:
                doubtful += 1
            continue
        # the blob's values in raster order (what crop[labels == i] takes), from its box
        box = (slice(y, y + h), slice(x, x + w))
        values = crop[box][labels[box] == i]
        # ndarray.mean's own arithmetic (a float32 sum, divided as numpy's _mean does),
        # without its wrapper: the same number, a few microseconds less a blob
        total = _ADD_REDUCE(values, None)
        mean = float(total.dtype.type(total / np.intp(area)))
        blobs.append((float(centres[i][0]), float(centres[i][1]), float(area), mean,
                      float(at_border)))
    if len(blobs) >= 2:
        unit = _median([b[2] for b in blobs])
        kept = []
        for b in blobs:
            if b[2] < 0.45 * unit or (b[4] and b[2] < 0.7 * unit):
                doubtful += 1  # a sliver at the edge or a speck: not counted, but a doubt
            else:
                kept.append(b)
        blobs = kept
    return blobs, doubtful


def _median(values: list[float]) -> float:
    """The median of a short list, as ``np.median`` gives it (the middle value, or the mean
    of the two middle ones), without numpy's overhead on a few numbers."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return float((ordered[middle - 1] + ordered[middle]) / 2.0)


def _count_and_doubt(crop: np.ndarray) -> tuple[int, float]:
    """The pips counted on one (S, S) crop and how doubtful the count is (see the module
    docstring): the two numbers :func:`read_halves` makes the probability vector from."""
    size = crop.shape[0]
    blobs, doubtful = _pip_blobs(crop)
    count = 0
    merged_doubt = 0
    if blobs:
        areas = np.array([b[2] for b in blobs])
        unit = _median([b[2] for b in blobs])
        for a in areas.tolist():
            k = max(1, int(round(a / unit)))
            if k > 1 and (a / unit) < 1.6:
                k = 1
            if k > 1 or abs(a / unit - round(a / unit)) > 0.3:
                merged_doubt += 1
            count += k
        faint = sum(1 for b in blobs if b[3] < PIP_LEVEL + 0.2)
        xs = np.array([b[0] for b in blobs])
        ys = np.array([b[1] for b in blobs])
        w = areas / areas.sum()
        offset = math.hypot(float((xs * w).sum()) - (size - 1) / 2, float((ys * w).sum()) - (size - 1) / 2)
        asym = offset / size
    else:
        faint = 0
        asym = 0.0
    count = min(count, MAX_PIPS)
    doubt = 0.02 + 0.25 * faint + 0.3 * merged_doubt + 0.25 * doubtful + 4.0 * max(0.0, asym - 0.06)
    return count, doubt


def _probabilities(counts: np.ndarray, doubts: np.ndarray) -> np.ndarray:
    """(N, 16) probability rows: most mass on each count, less on its neighbours the more
    doubtful it is (computed for all halves at once)."""
    ks = np.arange(N_CLASSES)
    slopes = 4.0 - np.minimum(3.0, 3.0 * doubts)
    logits = -np.abs(ks[None, :] - counts[:, None]) * slopes[:, None]
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    return probs / probs.sum(axis=1, keepdims=True)


def read_half(crop: np.ndarray) -> np.ndarray:
    """Probability vector (16,) over 0..15 pips for one (S, S) crop."""
    count, doubt = _count_and_doubt(crop)
    return _probabilities(np.array([count]), np.array([doubt]))[0]


def read_halves(crops: np.ndarray) -> np.ndarray:
    """Probability vectors (N, 16) for (N, S, S) float32 crops (one row per half)."""
    if not isinstance(crops, np.ndarray) or crops.ndim != 3 or crops.shape[1] != crops.shape[2]:
        shape = getattr(crops, "shape", type(crops).__name__)
        raise CropError(f"crops: expected a (N, S, S) array of half-tile squares, got {shape}")
    if not len(crops):
        return np.zeros((0, N_CLASSES))
    features = [_count_and_doubt(c) for c in crops]
    return _probabilities(np.array([f[0] for f in features]), np.array([f[1] for f in features]))
