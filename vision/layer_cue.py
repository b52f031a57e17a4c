"""The learned layer cue: how many tiles a tile lies on, from the picture around it.

A tile that stands on another shows it around its own outline: the wall bands of the tiles under
it stacked below its face, its shadow on the tile under it rather than on the table, the lower
tile's edge peeking out. When the reader never finds the tile underneath (most supports of raised
tiles are less than a third visible), no pair of tiles tells the estimator anything, and every
raised tile fell to the table. A very small convolutional network
(``models/layer_cue.onnx``, trained by ``models/train_layer_cue.py`` on rendered stacked and
flat scenes of training seeds; card ``models/layer_cue.md``; served as its 8-bit conversion
``models/layer_cue_int8.onnx``, :data:`MODEL_NAME`) reads a square crop around each tile
and gives the probabilities of 0, 1, 2 and 3 or more tiles under it.

:func:`tile_crops` cuts the crops (the picture axis-aligned, so "down in the picture" keeps
meaning "towards the camera", scaled so the tile's long side is a fixed share of the crop),
with two mask channels: the tile itself and the other tiles the caller found (so a neighbour
found on the table is told apart from a support the reader missed). :class:`LayerCue` runs the
model; :func:`shared_cue` keeps one for the process (made on first use).

:meth:`LayerCue.under` asks the model a second time about each tile that looks raised in its
crop as cut (:data:`SMOOTH_FROM`), about the crop with its picture smoothed
(:func:`smoothed_view`, a median of :data:`SMOOTH_MEDIAN` pixels), and averages the two
answers: the model learned from wood, felt, cloth and paper tables, and reads the fine speckle
of a granite table it never saw as the wall bands of a stack (see :data:`SMOOTH_MEDIAN`).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from domino_models import model_path as _shipped_model_path

from vision.onnx_session import INFERENCE_THREADS, open_session

#: The network the reader serves: the trained :data:`FLOAT_MODEL_NAME` with its convolutions in
#: 8-bit integers (``models/quantize_layer_cue.py``; card ``models/layer_cue.md``). On 30 crops
#: it takes about half the time (14.7 -> 7.4 ms median, session 21's 2-core AMD EPYC at two
#: threads), and on the tuning scenes it reads as the float one: 500 game scenes 1,600,000-499
#: tiles right 7080 / frames 458 / table tiles lifted 15 -> 13; found stacked tiles on their
#: layer 110 -> 115 of 186 (1,600,280-319) and 206 -> 206 of 354 (1,600,320-399).
MODEL_NAME = "layer_cue_int8.onnx"
#: The trained network (``models/train_layer_cue.py``), the source of :data:`MODEL_NAME`.
FLOAT_MODEL_NAME = "layer_cue.onnx"
#: Side of a crop in pixels: the shipped model's (128 since session 13; the first models took 80).
CROP = 128
#: Side of a crop in tile lengths (the tile's long side is ``1 / SPAN`` of the crop).
SPAN = 1.8
#: Deepest level of the frame's Gaussian pyramid a crop is taken from (1/8 of the frame).
PYRAMID_LEVELS = 3
#: Channels of a crop: blue, green, red (0..1 less 0.5), the tile's mask, the other tiles' mask.
CHANNELS = 5
#: Classes of the output: 0, 1, 2 and 3-or-more tiles under the tile.
NUM_CLASSES = 4
#: Side in crop pixels of the median that smooths the second view of each crop
#: (:func:`smoothed_view`; :meth:`LayerCue.under` averages the model's answers on both views).
#: The shipped model lifted flat tiles on table looks it never trained on: on the 500 tuning
#: game scenes (seeds 1,600,000-499, held-out looks; 247 on the held-out ``stone`` table
#: family) 162 of 6,861 table tiles, 160 of them on stone (granite speckle: P(raised) up to
#: 0.9999, so no bar helped: at 0.9999 still 47). Measured on cached readings of the reader
#: of 4ef715f through :func:`vision.layers.estimate_layers` (``runs/lead15/bars.py``,
#: scratch), table tiles lifted there / found tiles on the right layer of the stacked tuning
#: scenes 16900-17099 (874) / of stacked 1,600,000-079 (348): as cut, at the session-13 bars
#: (LEARNED_LIFT 0.99) 162 / 454 / 187, at 0.97 186 / 461 / 192; at 0.97 (the other bars
#: kept): the smoothed view alone 18 / 446 / 177, both views averaged with a median of 3
#: 69 / 462 / 189, of 5 16 / 459 / 186 (this; the flat tuning scenes 30850-30999 2 of 2,340
#: lifted, as cut at 0.99 none). With the camera (:data:`vision.layers.GEO_LIFT`) likewise 111 / 445 /
#: 190 -> 14 / 452 / 184.
SMOOTH_MEDIAN = 5
#: The smoothed view is asked about only the tiles whose crop as cut gives P(raised) at least
#: this: for the others the mean of the two would stay under (1 + 0.5) / 2 = 0.75, below
#: every bar of :mod:`vision.layers` that reads P(raised) (a flat table's tiles, most of the
#: work of a 30-tile frame, cost one pass). With the camera the lift score reads the
#: probabilities of every candidate; there the rest keep their answer as cut (the tuning
#: figures with the camera came out the same as with both views for every tile).
SMOOTH_FROM = 0.5


class LayerCueError(ValueError):
    """A layer-cue model or input that cannot be used."""


def tile_crops(frame_bgr: np.ndarray, quads: Sequence[np.ndarray],
               which: Sequence[int] | None = None, size: int = CROP) -> np.ndarray:
    """``(N, 5, size, size)`` float32 crops (``size`` pixels a side, :data:`CROP` unless the
    model takes another), one around each of ``quads`` (4x2 pixel corners each; only those
    listed in ``which`` when given): the picture (BGR / 255 - 0.5) of a square :data:`SPAN` tile
    lengths wide centred on the quad's centre (taken from the level of the frame's Gaussian
    pyramid where the square is at most twice the crop, so shrinking does not alias; the
    frame's edge repeated beyond it), then the quad's own mask and the mask of every other quad
    (1 inside, 0 outside)."""
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise LayerCueError(f"frame_bgr: expected an HxWx3 BGR picture, got "
                            f"{getattr(frame_bgr, 'shape', type(frame_bgr).__name__)}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 16 <= size <= 512:
        raise LayerCueError(f"size: expected a crop side of 16..512 pixels, got {size!r}")
    size = int(size)
    n = len(quads)
    idx = list(range(n)) if which is None else [int(i) for i in which]
    if any(not 0 <= i < n for i in idx):
        raise LayerCueError(f"which: expected indices of the {n} quads, got {idx}")
    out = np.zeros((len(idx), CHANNELS, size, size), np.float32)
    if not idx:
        return out
    Q = np.stack([np.asarray(q, np.float64).reshape(4, 2) for q in quads])
    e = np.linalg.norm(Q[:, [1, 2, 3, 0]] - Q, axis=2)
    sides = np.maximum(4.0, SPAN * np.maximum(e[:, 0] + e[:, 2], e[:, 1] + e[:, 3]) / 2)
    centres = Q.mean(1)
    lo, hi = Q.min(1), Q.max(1)
    pyramid = [frame_bgr]
    mask = np.zeros((size, size), np.uint8)
    for row, i in enumerate(idx):
        side, c = float(sides[i]), centres[i]
        k = size / side
        level = min(PYRAMID_LEVELS, max(0, int(np.floor(np.log2(side / size)))))
        while len(pyramid) <= level:
            pyramid.append(cv2.pyrDown(pyramid[-1]))
        f = float(2 ** level)
        # crop pixel u = (p - c) * k + size / 2 - 0.5 for picture pixel p, and
        # p = (q + 0.5) * f - 0.5 for pixel q of the pyramid level
        M = np.array([[k * f, 0.0, (0.5 * f - 0.5 - c[0]) * k + size / 2 - 0.5],
                      [0.0, k * f, (0.5 * f - 0.5 - c[1]) * k + size / 2 - 0.5]])
        pic = cv2.warpAffine(pyramid[level], M, (size, size), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE)
        out[row, :3] = pic.transpose(2, 0, 1)
        out[row, :3] *= 1.0 / 255.0
        out[row, :3] -= 0.5
        polys = np.round(((Q - c) * k + size / 2 - 0.5) * 4).astype(np.int32)
        mask[:] = 0
        cv2.fillPoly(mask, [polys[i]], 1, shift=2)
        out[row, 3] = mask
        half = side / 2
        near = np.nonzero((lo[:, 0] < c[0] + half) & (hi[:, 0] > c[0] - half)
                          & (lo[:, 1] < c[1] + half) & (hi[:, 1] > c[1] - half))[0]
        near = near[near != i]
        if len(near):
            mask[:] = 0
            cv2.fillPoly(mask, list(polys[near]), 1, shift=2)
            out[row, 4] = mask
    return out


def smoothed_view(crops: np.ndarray) -> np.ndarray:
    """A copy of :func:`tile_crops`' crops ``(N, 5, S, S)`` whose picture channels are each
    smoothed by a median of :data:`SMOOTH_MEDIAN` pixels (the masks as they are): a table's
    fine texture goes, a tile's edges, wall bands and shadows stay."""
    if not isinstance(crops, np.ndarray) or crops.dtype != np.float32 or crops.ndim != 4 \
            or crops.shape[1] != CHANNELS:
        raise LayerCueError(f"crops: expected float32 (N, {CHANNELS}, S, S) as tile_crops "
                            f"gives, got {getattr(crops, 'dtype', None)} "
                            f"{getattr(crops, 'shape', type(crops).__name__)}")
    out = crops.copy()
    for crop in out:
        for ch in range(3):
            crop[ch] = cv2.medianBlur(crop[ch], SMOOTH_MEDIAN)
    return out


def default_model_path() -> Path:
    """Path of the shipped layer cue, or :class:`LayerCueError` naming how to rebuild it."""
    try:
        return _shipped_model_path(MODEL_NAME)
    except FileNotFoundError as exc:
        raise LayerCueError(f"{exc}; rebuild it with the command in models/layer_cue.md"
                            ) from exc


class LayerCue:
    """Probabilities of 0, 1, 2, 3+ tiles under each tile, from the shipped ONNX model (or
    ``model_path``), on the CPU with ``threads`` intra-op threads (default
    :data:`vision.onnx_session.INFERENCE_THREADS`)."""

    def __init__(self, model_path: str | Path | None = None,
                 threads: int = INFERENCE_THREADS) -> None:
        path = default_model_path() if model_path is None else Path(model_path)
        if not path.is_file():
            raise LayerCueError(f"no layer-cue model at {path}; pass the path of an .onnx "
                                f"file or None for the shipped {MODEL_NAME}")
        self._session = open_session(path, threads, LayerCueError,
                                     "the command in models/layer_cue.md")
        inputs = self._session.get_inputs()
        shape = list(inputs[0].shape[1:]) if len(inputs) == 1 else []
        if (len(shape) != 3 or shape[0] != CHANNELS or not isinstance(shape[1], int)
                or shape[1] != shape[2] or not 16 <= shape[1] <= 512):
            raise LayerCueError(f"{path} takes inputs {[i.shape for i in inputs]}; expected "
                                f"one of shape (N, {CHANNELS}, S, S), S the crop side in "
                                "pixels (16..512)")
        self._input_name = inputs[0].name
        #: Side of the crops the model takes (:data:`CROP` for the shipped model).
        self.crop = int(shape[1])
        self.path = path

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """``(N, 4)`` probabilities (rows sum to 1) of :func:`tile_crops`' crops."""
        want = (CHANNELS, self.crop, self.crop)
        if (not isinstance(crops, np.ndarray) or crops.dtype != np.float32
                or crops.ndim != 4 or crops.shape[1:] != want):
            raise LayerCueError(f"crops: expected float32 (N, {CHANNELS}, {self.crop}, "
                                f"{self.crop}) as tile_crops(..., size={self.crop}) gives, got "
                                f"{getattr(crops, 'dtype', None)} "
                                f"{getattr(crops, 'shape', type(crops).__name__)}")
        if len(crops) == 0:
            return np.zeros((0, NUM_CLASSES), np.float32)
        (p,) = self._session.run(None, {self._input_name: np.ascontiguousarray(crops)})
        return np.asarray(p, np.float32)

    def under(self, frame_bgr: np.ndarray, quads: Sequence[np.ndarray],
              which: Sequence[int] | None = None) -> np.ndarray:
        """Probabilities ``(len(which), 4)`` for the tiles ``which`` (default all) of
        ``quads`` in ``frame_bgr`` (the other quads fill the crops' second mask): the model's
        answer on each crop as cut, averaged with its answer on the crop's
        :func:`smoothed_view` where the first gives P(raised) of at least
        :data:`SMOOTH_FROM`."""
        idx = list(range(len(quads))) if which is None else list(which)
        if not idx:
            return np.zeros((0, NUM_CLASSES), np.float32)
        crops = tile_crops(frame_bgr, list(quads), idx, self.crop)
        p = self.predict(crops)
        again = np.nonzero(p[:, 0] <= 1.0 - SMOOTH_FROM)[0]
        if len(again):
            p[again] = (p[again] + self.predict(smoothed_view(crops[again]))) / 2
        return p


_shared: LayerCue | None = None
#: Why the shipped model could not be used (set once; then no later call tries again).
_shared_failure: str | None = None
_shared_lock = threading.Lock()


def shared_cue() -> LayerCue | None:
    """One :class:`LayerCue` on the shipped model for the process, or None when the model is
    missing or cannot be used: the estimator then goes without the cue. That is said once per
    process (a ``RuntimeWarning`` naming the reason) and not tried again on every frame."""
    global _shared, _shared_failure
    with _shared_lock:
        if _shared is None and _shared_failure is None:
            try:
                _shared = LayerCue()
            except LayerCueError as exc:
                _shared_failure = str(exc)
                warnings.warn(f"layers without the learned cue: {exc}", RuntimeWarning,
                              stacklevel=2)
        return _shared
