"""Which layer each tile lies on, from one camera: tiles on the table are layer 0, a tile resting
on them layer 1, and so on.

:func:`estimate_layers` takes the picture, the tiles' top-face quads (pixels), optionally the
camera geometry and optionally a :class:`LayerTracker` that watched the table being built, and
returns one :class:`LayerEstimate` per tile: its layer, a confidence, the cue that decided and the
indices of the tiles it rests on.

Cues, strongest first:

* ``order`` (:class:`LayerTracker`): when a tile appears, every tile whose picture it covers
  (the pixels where the two quads overlap changed) lies below it, so its layer is one more than
  the highest tile it covered; a tile that appeared under the picture of a taller stack (nothing
  changed there) is below that stack. Tiles seen in the tracker's first frame get the cold-start
  estimate.
* ``parallax``: a tile whose top is ``z`` mm above the table projects larger and further from
  the principal point than one on the table. With :class:`Geometry` (camera ``K``, pose, tile
  size: a calibrated table) the quad's corners are cast back onto the planes ``z`` = 0..6
  thicknesses; at the true height the back-projected rectangle has the tile's real length and
  width, which gives each tile an absolute height. Without calibration the tiles calibrate the
  picture themselves (:func:`flat_log_sizes`): every top face is a rectangle on a plane
  parallel to the table, so all share one vanishing line, which each quad shows (where its
  opposite edges meet); the radial lens distortion is the one that makes those lines agree
  (:func:`lens_distortion`). Undistorted, and divided by the depth factor that vanishing line
  gives at its place, the cube root of a tile's picture area is the same for every tile of one
  layer, and one layer up multiplies it by one scene-wide unit (``1 + 2/3 * thickness /
  camera height``), measured as what most overlapping pairs differ by (:func:`_layer_unit`).
  So of two overlapping tiles the larger is the higher, by as many layers as their sizes
  differ in units, and each tile's size says its height in layers (:func:`size_heights`),
  even when nothing under it is seen.
* ``occlusion`` (image only; walls and shadows included): where two quads overlap, only the
  upper tile's outline is seen; the lower one's outline runs under the upper face. Across each
  tile's outline where it runs inside the other quad (not near the other's divider bar), the
  picture is sampled from 6 px inside to 10 px outside and averaged along the outline
  (:func:`picture_features`): the upper tile shows its face ending in its rim, its side wall
  and the shadow it casts on the lower tile, the lower tile only the upper face. A logistic
  model fitted on training scenes with outlines 0-3 px off (:mod:`vision.render.layerfit`,
  :data:`PICTURE_WEIGHTS`) turns the two sides' difference into log-odds; averaging along the
  outline makes it survive outlines a few pixels off, which the size cues do not. A second
  pass leaves out the stretches under a tile the first pass put above both. Where only one
  tile's middle lies under the other's face, the covering tile is likely the upper one (a
  span, a crosswise tower top): a small vote of its own (:data:`CENTRE_VOTE`).

* ``learned`` (image only): a tile that no pair puts above another may still stand on tiles
  the reader never found (most supports of raised tiles are less than a third visible). A very
  small network (:mod:`vision.layer_cue`, ``models/layer_cue.onnx`` served in 8 bits as
  ``models/layer_cue_int8.onnx``, trained on the reader's
  tiles in rendered scenes of training seeds) reads the picture around the tile (wall bands
  stacked below its face, its shadow on a tile, a lower tile's edge) and gives the
  probabilities of 0, 1, 2, 3+ tiles under it; a tile the chain leaves on the table whose
  probability of lying on something is at least :data:`LEARNED_LIFT` and that no found tile
  lies on is put on the layer the model gives (``learned=False`` leaves the cue out; a picture
  of fewer than :data:`LEARNED_MIN_TILES` found tiles, a game's first tile, is not asked). In a
  picture where most of those tiles look raised to it (:data:`STACKED_SURE`), a stacked
  table, the bar is :data:`LEARNED_LIFT_STACKED`. With :class:`Geometry` the lift weighs the
  tile's apparent size too: its outline cast back onto a table tile's top plane, against the
  tile's real width and length (:func:`size_excess`, :func:`geo_lift_scores`,
  :data:`GEO_LIFT`); a tile only that lifts is reported with cue ``parallax``. Where the reader
  found both tiles of an overlapping pair, the difference of their probabilities of lying on
  something votes on which is higher (:data:`LEARNED_PAIR_VOTE`).

Pairwise decisions (votes: order 2, calibrated parallax 1.5 with exact outlines down to 0 with
outlines off by two layers' size change, uncalibrated size 2 down to 0.15, the picture 1, the
learned cue 1, the covered middle 0.3, each clipped) make a "lies above" graph (cycles broken at
their weakest edge); a tile's layer from the image is the longest chain of tiles below it. A tile
hidden entirely (under a square tower) is missing from such a chain; without calibration an edge
therefore counts as many layers as the two tiles' sizes differ in units (:data:`SIZE_GAP_BOUNDS`),
and where a tile's own size height is within :data:`HEIGHT_CLEAR` of a whole layer it replaces the
chain's count (a tower whose bottom is hidden, a gap counted too wide) while the tile stays above
every tile it was found to lie on. With geometry, parallax also gives each tile an absolute height:
it decides when it is confident and says more than the chain (a tile whose support was not
detected). Both absolute heights weigh how far the outlines may be off (``outline_px``): with the
reader's outlines (:data:`READER_OUTLINE_PX`) on tiles of ordinary size they are not used. The
uncalibrated size heights need outlines true to a few hundredths of a pixel (one layer changes a 50
px tile's length by well under a pixel, and the vanishing line and lens come from the same
corners); they are used only where the scene's sizes fall on whole layers (:data:`SIZE_FIT_MAX`),
which outlines 0.1 px off (random) already break.

A ray from the camera only goes down, so where the top faces of two tiles overlap in the
picture the higher one is seen: tiles of one layer never overlap in the picture, and an overlap
always means "higher", though not always "rests on" (a tall stack can hide a neighbour). With
outlines that are off (the reader's), tiles lying side by side overlap along their touching
edges by that error, so there only an overlap a fifth of a tile deep counts
(:func:`_stacked_overlap`; held-out flat scenes 1000200-239 on the reader's outlines: tiles
lifted 56 -> 5 of 630 without the camera, 53 -> 5 with it). With
geometry, ``supports`` only lists tiles whose footprints overlap on the table; without it, every
overlapping tile one layer down.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.errors import DominoError
from vision.types import TileReading

CUES = ("table", "order", "parallax", "occlusion", "learned")
#: Without calibration, two overlapping tiles whose flat sizes (:func:`flat_log_sizes`) differ
#: by more than these multiples of the scene's layer unit are 2, 3, 4 layers apart (a tile
#: between them is hidden entirely). Chosen on training seeds 40-59 with an earlier size
#: measure; with the flat sizes, training seeds 200-299 (true outlines) give one layer apart
#: 0.97-1.05 units (1st to 99th percentile), two 1.97-2.08, three 2.99-3.10.
SIZE_GAP_BOUNDS = (1.6, 2.7, 3.8)
#: IoU a tile needs to be taken for a known tile that was not seen in the previous frame.
STALE_MATCH_IOU = 0.97
#: Refinements of the scene's layer unit (:func:`_layer_unit`).
REFINE_UNIT_STEPS = 2
#: How many pixels the reader's outlines are off (measured 2-3 px on rendered scenes): the size
#: cues are weighed against it in :func:`read_layers`.
READER_OUTLINE_PX = 2.0
#: Highest top-face height (in tile thicknesses) :func:`tile_height` searches by default: a
#: height found there is the end of the search, not a measurement.
MAX_HEIGHT_LAYERS = 7
#: Radial lens distortion searched for in the tiles' shapes (:func:`lens_distortion`): ``k`` in
#: ``x_picture = x (1 + k rho^2)``, ``rho`` the distance from the picture's centre in picture
#: widths (the renderer's lenses: -0.31..0.10; a strong webcam barrel about -0.5).
LENS_K_RANGE = (-0.8, 0.8)
#: Fewest tiles whose shapes are taken to measure the lens (fewer: no distortion assumed).
LENS_MIN_TILES = 5
#: Without calibration, a tile's size above the table (:func:`size_heights`) overrules the
#: chain of overlaps when it lies within this many layers of a whole layer.
HEIGHT_CLEAR = 0.35
#: ... and only when the scene's sizes fall on whole layers: the median distance of the tiles'
#: size heights from the nearest layer at most this. True outlines, training seeds 200-299:
#: 0.011 median, 0.078 at the 99th percentile; corners off by 0.02 px (random): 0.056 median,
#: 0.147 at the 90th; by 0.05 px: 0.099 median.
SIZE_FIT_MAX = 0.1
#: The learned cue (:mod:`vision.layer_cue`) lifts a tile the other cues leave on the table when
#: its probability of lying on other tiles is at least this. Chosen for the session-13 model
#: (trained on a GPU, 128-pixel crops, ``models/layer_cue.md``) on training seeds only, by the
#: lead: cached readings of its stacked tuning scenes 16900-17099 and flat tuning scenes
#: 30850-30999, and as a check stacked scenes 1,600,000-079 (held-out looks) and flat scenes
#: 5340-5499 (``runs/lead13/cue_eval.py``, scratch). From 0.97 to 0.99 found tiles right
#: 475 -> 467 of 838 and 165 -> 164 of 311, flat table tiles lifted 7 -> 5 of 2335 and 5 -> 4 of
#: 2604; 0.995 lifts 4 and 4 and loses 4 and 1 more right. The session-7 model at its 0.97:
#: 316 and 118 right, 9 and 15 flat table tiles lifted.
#: 0.97 since session 15, when the cue's answer became the mean over each crop as cut and
#: smoothed (:data:`vision.layer_cue.SMOOTH_MEDIAN`: granite tables, a held-out look, had 160
#: flat tiles lifted on the 500 tuning game scenes). Chosen on the tuning readings of 4ef715f
#: (``runs/lead15/bars.py``, scratch; tuning game scenes 1,600,000-499 table tiles lifted /
#: stacked 16900-17099 found tiles right of 874 / stacked 1,600,000-079 of 348; flat
#: 30850-30999 lifted of 2,340): 0.99 10 / 446 / 181 / 0, 0.97 16 / 459 / 186 / 2, 0.95
#: 21 / 465 / 188 / 2 (the cue as cut at 0.99: 162 / 454 / 187 / 0).
#: 0.985 since session 16's retrained cue (more scenes, ``models/layer_cue.md``), the lowest
#: bar at which none of those tuning figures is worse than session 15's (same sets and
#: script, flat 30850-30999 unseen by this cue too): 0.97 19 / 510 / 203 / 0, 0.98
#: 18 / 508 / 202 / 0, 0.985 16 / 507 / 200 / 0, 0.99 14 / 501 / 199 / 0, 0.995
#: 10 / 497 / 196 / 0; with the scenes' cameras (the ``GEO_`` bars kept) 16 / 505 / 200 / 0
#: against session 15's 14 / 452 / 184 / 1.
LEARNED_LIFT = 0.985
#: A picture whose candidates for the learned cue look stacked (at least
#: :data:`STACKED_SURE_MIN` of them, and more than half, at P(raised) >= :data:`STACKED_SURE`)
#: lifts its candidates from :data:`LEARNED_LIFT_STACKED` instead: in a stacked picture most
#: tiles the reader finds are raised (their supports are mostly not found: on stacked training
#: scenes 4700-4899, 700 of 725 raised found tiles), and the cue's bar, set against flat
#: tables, left most of them on the table. Chosen on training seeds only (stacked 4700-4899
#: and 5520-5719, flat 5170-5199 and 5340-5499, read by the reader of 2026-11-22 17:55 UTC):
#: through :func:`estimate_layers` found tiles right 272 -> 310 of 868 and 266 -> 290 of 811,
#: table tiles of the flat scenes lifted 14 of 3172 either way (the card,
#: ``models/layer_cue.md``; the quick per-tile simulation the rule was chosen with,
#: ``runs/C10/policy4.py``, gives 262 -> 300, 257 -> 281 and 10 of 3164). With that (session-7)
#: model no flat picture of those scenes looked stacked by this rule; two gingham-cloth scenes
#: came closest, half their candidates at >= 0.9.
#: Kept at 0.8 for the session-13 model: 0.9 and 0.95 put 2-10 fewer found tiles right on the
#: tuning scenes above and lift at most 1 fewer stacked table tile. But with it some flat game
#: pictures do look stacked (session 14, ``domino-companion evaluate``'s ``lifted``: held-out
#: scenes 1,000,028 and 1,000,036, six of ten and six of nine candidates at >= 0.9, 7 and 6
#: table tiles lifted; 26 of 551 held-out and 161 tuning table tiles lifted in all). Kept in
#: session 15 with the smoothed second view (:data:`LEARNED_LIFT` 0.97, its sets; tuning
#: table tiles lifted, stacked found tiles right of 874 and of 348, stacked table tiles
#: lifted): 0.8 16, 459, 186, 6; 0.7 18, 460, 186, 9; 0.9 16, 457, 185, 3; 0.8 with
#: :data:`STACKED_SURE` 0.8 17, 461, 187, 7.
#: Session 17 (the pair vote in) tried calling a picture stacked when more than a quarter of
#: its candidates look sure, with this bar 0.85 and :data:`STACKED_SURE` 0.95: found tiles
#: right on stacked tuning scenes 16900-17099 / 1,600,000-079 / 1,600,080-179 /
#: 1,600,180-279 510 / 201 / 237 / 234 -> 526 / 204 / 248 / 233, table tiles lifted there 11
#: -> 11 and on the 500 tuning game scenes 16 -> 16 (``runs/lead15/bars.py``, scratch; of ten
#: share / bar / sure settings), but held out (``python -m vision.render.layerlive``) one
#: photo 109 -> 107 of 175 (one table tile more lifted) and 102 -> 102 of 177: not kept.
LEARNED_LIFT_STACKED = 0.8
#: The learned cue is not asked about a picture with fewer found tiles than this: a lone tile is
#: the first tile of a game far more often than a tower whose lower tiles are all hidden, and
#: the live loop keeps what a cold start says (a lifted first tile lifts every tile laid on it
#: later). The session-13 cue lifted 6 of 101 lone first tiles of tuning build sequences
#: (1,605,000-099, held-out looks; P(raised) up to 1.0) and none of 97 with training looks
#: (7000-7099); watched through the tracking (1,605,000-009) 2 lifted first tiles put 843 ->
#: 798 of 859 tile-frames on the right layer.
LEARNED_MIN_TILES = 2
#: A tile the cue lifts is reported as sure of its layer as the model's probability of that
#: count, to this power: the model is over-sure of its counts. On the raised tiles it lifted
#: in stacked tuning scenes 16900-17099 (635) its probability averaged 0.70 where 0.59 of the
#: counts were right (0.86-0.95 sure: 0.80 right; 0.5-0.6 sure: 0.42). Chosen there by the
#: log-loss of "right" against the reported confidence (power 1 0.655, 1.2 0.637, 1.4 0.629,
#: **1.5 0.629**, 1.6 0.630, 2 0.648): mean confidence 0.594 for 0.589 right; on 1,600,000-079
#: 0.593 for 0.584; on 1,600,080-279 (637 lifted) 0.576 for 0.534 right (0.680 as the
#: model's probability), by reported confidence below 0.5 / 0.5-0.7 / 0.7-0.9 / 0.9 and up
#: 0.38 / 0.60 / 0.79 / 0.95 for 0.41 / 0.56 / 0.62 / 0.86 right (``runs/lead17/feat.py``,
#: scratch; session 17). Measured after the choice on the held-out stacked scenes of
#: ``layerlive`` (1,000,100-139, 118 lifted): 0.584 reported for 0.636 right (0.684 as the
#: model's probability): under-sure there by about as much as over-sure before.
LEARNED_CONFIDENCE_POWER = 1.5
STACKED_SURE = 0.9
STACKED_SURE_MIN = 2
#: With the camera given (a calibrated table), the candidates are lifted on a score that adds
#: the tile's apparent size to the cue's probabilities (instead of the rule above on
#: P(raised) alone): the reader's outline cast back onto
#: the plane of a table tile's top face, its width and length against the tile's real ones,
#: in layers (:func:`size_excess`; a raised tile looks larger there, and the reader's outline
#: of a raised tile also takes in the walls below its face: on the candidates of stacked
#: training scenes 4700-4899 the width excess is a median 0.6 layers on the table and 4.8 /
#: 6.9 / 8.2 on layers 1 / 2 / 3, on flat scenes 1.0). The score is ``sigmoid(w . [logit
#: P(>=1), logit P(>=2), logit P(>=3), clip(wide, -10, 40) / 10, clip(long, -20, 20) / 10,
#: min(|long|, 20) / 10, 1])`` (:func:`geo_lift_scores`), a logistic fit (raised or not) on
#: the 3,491 candidates (672 raised) of the session-13 cue's stacked tuning scenes 16900-17099
#: and flat tuning scenes 30850-30999 (training seeds; cached readings of the reader at
#: 956a826, ``runs/lead13/cue_geo.py``, scratch). The bars (:data:`GEO_LIFT`,
#: :data:`GEO_LIFT_STACKED` in a picture with at least :data:`STACKED_SURE_MIN` candidates,
#: and more than half, at :data:`GEO_STACKED_SURE` or more) are the session-11 ones, still the
#: best there of a small grid. Through :func:`estimate_layers` with the scene's camera: found
#: tiles right 464 of 838 there and 164 of 311 on the check scenes 1,600,000-079, flat table
#: tiles lifted 3 + 4 (of 2335 and 2604): fewer than the image rule above lifts (5 + 4); the
#: session-11 weights with this cue gave 476 and 165 right but lifted 6 + 6 flat table tiles.
#: A tile only this score lifts (the rule above would not) is reported with cue ``parallax``.
#: Session 15, with the cue's smoothed second view (:data:`vision.layer_cue.SMOOTH_MEDIAN`),
#: the weights kept and the bars chosen again on the tuning readings of 4ef715f with the
#: scenes' cameras (``runs/lead15/bars.py --geo``, scratch; tuning game scenes 1,600,000-499
#: table tiles lifted / stacked 16900-17099 found tiles right of 874 / stacked 1,600,000-079
#: of 348): the session-11 bars 0.9 / 0.4 gave 111 / 445 / 190 with the cue as cut and
#: 7 / 431 / 178 with both views; 0.8 / 0.4 10 / 444 / 183; 0.7 / 0.4 14 / 452 / 184 (these);
#: 0.7 / 0.3 14 / 458 / 185, but it lifts one more stacked table tile there (4 against 3) and
#: one in the training check scenes of ``tests/vision/test_layers_geolift.py`` (0.7 / 0.4:
#: none, 29 found tiles right with the camera, 28 without); 0.6 / 0.4 21 / 458 / 187.
GEO_LIFT_WEIGHTS = np.array([0.716, 0.007, -0.123, 0.596, 0.461, 0.626, -2.637])
GEO_LIFT = 0.7
GEO_LIFT_STACKED = 0.4
GEO_STACKED_SURE = 0.6


class LayerInputError(DominoError):
    """Inputs of the layer estimator of the wrong type, shape or range."""


@dataclass(frozen=True, slots=True)
class LayerEstimate:
    """One tile's layer (0 on the table), how sure (0..1), the cue that decided (one of
    :data:`CUES`; ``table`` when nothing overlaps it) and the indices of the tiles it rests on."""

    layer: int
    confidence: float
    cue: str
    supports: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.layer, int) or self.layer < 0:
            raise LayerInputError(f"layer: expected an integer >= 0, got {self.layer!r}")
        if not 0.0 <= self.confidence <= 1.0:
            raise LayerInputError(f"confidence: expected 0..1, got {self.confidence!r}")
        if self.cue not in CUES:
            raise LayerInputError(f"cue: expected one of {CUES}, got {self.cue!r}")


@dataclass(frozen=True)
class Geometry:
    """The camera and the tiles: intrinsics ``K`` (3x3), pose ``rvec``/``tvec`` (table mm with
    ``z`` into the table to camera, as the renderer and :mod:`calibration.plane` use), lens
    ``dist`` (OpenCV k1 k2 p1 p2 k3, zeros for none) and the tile size ``tile_mm`` (length,
    width, thickness)."""

    K: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    tile_mm: tuple[float, float, float]
    dist: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(5))

    def __post_init__(self) -> None:
        K = np.asarray(self.K, np.float64)
        if K.shape != (3, 3) or not np.isfinite(K).all() or K[0, 0] <= 0 or K[1, 1] <= 0:
            raise LayerInputError(f"geometry K: expected a 3x3 camera matrix with positive focal "
                                  f"lengths, got {np.asarray(self.K).tolist()!r}")
        rvec = np.asarray(self.rvec, np.float64).reshape(-1)
        tvec = np.asarray(self.tvec, np.float64).reshape(-1)
        if rvec.shape != (3,) or tvec.shape != (3,) or not (np.isfinite(rvec).all()
                                                            and np.isfinite(tvec).all()):
            raise LayerInputError(f"geometry rvec/tvec: expected 3 finite numbers each, got "
                                  f"{rvec.tolist()!r} / {tvec.tolist()!r}")
        try:
            L, W, T = (float(v) for v in self.tile_mm)
        except (TypeError, ValueError):
            raise LayerInputError(f"geometry tile_mm: expected (length, width, thickness) mm, "
                                  f"got {self.tile_mm!r}") from None
        if not (L >= W > 0 and T > 0):
            raise LayerInputError(f"geometry tile_mm: expected length >= width > 0 and "
                                  f"thickness > 0 mm, e.g. (48, 24, 8), got {self.tile_mm!r}")
        dist = np.asarray(self.dist, np.float64).reshape(-1)
        if dist.shape not in ((4,), (5,), (8,)) or not np.isfinite(dist).all():
            raise LayerInputError(f"geometry dist: expected 4, 5 or 8 OpenCV distortion "
                                  f"coefficients, got {dist.tolist()!r}")
        R = cv2.Rodrigues(rvec)[0]
        if (R @ np.array([0.0, 0.0, -100.0]) + tvec)[2] <= 0:
            raise LayerInputError("geometry: the table lies behind this camera pose; expected "
                                  "a camera above the table looking down (rvec/tvec from table "
                                  "mm, z into the table)")
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "rvec", rvec)
        object.__setattr__(self, "tvec", tvec)
        object.__setattr__(self, "tile_mm", (L, W, T))
        object.__setattr__(self, "dist", dist)

    @classmethod
    def from_homography(cls, table_to_image: Any, K: Any, tile_mm: Sequence[float],
                        dist: Any = None) -> Geometry:
        """The pose from a table-plane homography (table mm on z = 0 to undistorted pixels)
        and known intrinsics ``K``."""
        H = np.asarray(table_to_image, np.float64)
        Km = np.asarray(K, np.float64)
        if H.shape != (3, 3) or not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12:
            raise LayerInputError(f"table_to_image: expected an invertible 3x3 homography, got "
                                  f"{H.tolist()!r}")
        if Km.shape != (3, 3):
            raise LayerInputError(f"K: expected a 3x3 camera matrix, got {Km.tolist()!r}")
        M = np.linalg.inv(Km) @ H
        lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
        if (M[:, 2] * lam)[2] < 0:
            lam = -lam
        r1, r2, t = M[:, 0] * lam, M[:, 1] * lam, M[:, 2] * lam
        r3 = np.cross(r1, r2)
        U, _, Vt = np.linalg.svd(np.column_stack([r1, r2, r3]))
        R = U @ Vt
        return cls(Km, cv2.Rodrigues(R)[0].ravel(), t, tuple(tile_mm),
                   np.zeros(5) if dist is None else np.asarray(dist, np.float64))

    @classmethod
    def from_truth(cls, truth: dict[str, Any]) -> Geometry:
        """The geometry of a rendered scene's ground truth (``camera`` and ``style.tile_mm``)."""
        try:
            cam = truth["camera"]
            return cls(np.array(cam["K"]), np.array(cam["rvec"]), np.array(cam["tvec"]),
                       tuple(truth["style"]["tile_mm"]), np.array(cam.get("dist", [0] * 5)))
        except (KeyError, TypeError) as exc:
            raise LayerInputError(f"truth: expected the renderer's ground truth with camera K, "
                                  f"rvec, tvec and style.tile_mm; missing {exc}") from None

    def for_crop(self, x0: float, y0: float) -> Geometry:
        """The same camera for a part of its picture whose top-left pixel is ``(x0, y0)`` of
        the whole (a reader given a crop, as the live loop's, measures corners in the crop's
        pixels): the principal point moves by the crop's origin, nothing else changes."""
        try:
            dx, dy = float(x0), float(y0)
        except (TypeError, ValueError):
            raise LayerInputError(f"crop origin: expected pixel numbers x0, y0, got {x0!r}, "
                                  f"{y0!r}") from None
        if not (math.isfinite(dx) and math.isfinite(dy)):
            raise LayerInputError(f"crop origin: expected finite pixels, got {dx}, {dy}")
        K = self.K.copy()
        K[0, 2] -= dx
        K[1, 2] -= dy
        return dataclasses.replace(self, K=K)

    def plane_homography(self, height_mm: float) -> np.ndarray:
        """Table ``(x, y)`` mm on the plane ``height_mm`` above the table to undistorted px."""
        return self.plane_homographies([height_mm])[0]

    def plane_homographies(self, heights_mm: Any) -> np.ndarray:
        """:meth:`plane_homography` of every height at once (n x 3 x 3)."""
        z = np.asarray(heights_mm, np.float64).reshape(-1)
        R = cv2.Rodrigues(self.rvec)[0]
        cols = np.empty((len(z), 3, 3))
        cols[:, :, 0] = R[:, 0]
        cols[:, :, 1] = R[:, 1]
        cols[:, :, 2] = R[:, 2][None] * -z[:, None] + self.tvec[None]
        H = np.matmul(self.K[None], cols)
        return np.asarray(H / H[:, 2:3, 2:3])

    def undistort(self, pts_px: np.ndarray) -> np.ndarray:
        """Picture pixels (Nx2) to undistorted pixels."""
        pts = np.asarray(pts_px, np.float64).reshape(-1, 1, 2)
        if not np.any(self.dist):
            return pts.reshape(-1, 2)
        return cv2.undistortPoints(pts, self.K, self.dist, P=self.K).reshape(-1, 2)


# --- inputs -------------------------------------------------------------------------------------

def _quads(tiles: Sequence[Any]) -> list[np.ndarray]:
    """Each tile's corners as a 4x2 float array (a TileReading, a dict with ``corners`` or the
    corners themselves)."""
    if isinstance(tiles, np.ndarray) and tiles.ndim == 3:
        tiles = list(tiles)
    if not isinstance(tiles, (list, tuple)):
        raise LayerInputError(f"tiles: expected a list of tiles with 4 corners each, got "
                              f"{type(tiles).__name__}")
    out = []
    for i, t in enumerate(tiles):
        c = getattr(t, "corners", None)
        if c is None and isinstance(t, dict):
            c = t.get("corners")
        if c is None:
            c = t
        try:
            q = np.asarray(c, np.float64).reshape(4, 2)
        except (TypeError, ValueError):
            raise LayerInputError(f"tiles[{i}]: expected 4 corners [[x, y], ...] in pixels, got "
                                  f"{c!r}") from None
        if not np.isfinite(q).all():
            raise LayerInputError(f"tiles[{i}]: corners must be finite pixels, got {q.tolist()}")
        d1, d2 = q[2] - q[0], q[3] - q[1]
        area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))
        if area < 4.0:
            raise LayerInputError(f"tiles[{i}]: the corners enclose {area:.1f} px^2; expected "
                                  "the 4 corners of a tile's top face (at least 4 px^2)")
        out.append(q)
    return out


def _check_frame(frame_bgr: Any) -> np.ndarray:
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.dtype != np.uint8 \
            or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        what = (f"{frame_bgr.dtype} array of shape {frame_bgr.shape}"
                if isinstance(frame_bgr, np.ndarray) else type(frame_bgr).__name__)
        raise LayerInputError(f"frame_bgr: expected a uint8 BGR image of shape (H, W, 3), got "
                              f"{what}")
    return frame_bgr


def _convex(q: np.ndarray) -> np.ndarray:
    return cv2.convexHull(q.astype(np.float32)).reshape(-1, 2)


def _overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray | None]:
    area, poly = cv2.intersectConvexConvex(_convex(a), _convex(b))
    return float(area), (None if poly is None else poly.reshape(-1, 2))


# --- occlusion ----------------------------------------------------------------------------------

def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of a float32 image (H, W, C) at Nx2 points."""
    m = pts.astype(np.float32).reshape(-1, 1, 2)
    out = cv2.remap(img, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return out.reshape(len(pts), -1)


def _inside(poly: np.ndarray, pts: np.ndarray, margin: float) -> np.ndarray:
    """Which points lie more than ``margin`` px inside the convex hull of ``poly`` (a negative
    margin: at most that far outside it), as ``cv2.pointPolygonTest`` measures distance."""
    h = _convex(np.asarray(poly, np.float64)).astype(np.float64)
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    a, e = h, np.roll(h, -1, 0) - h  # edges a -> a + e
    length = np.maximum(np.linalg.norm(e, axis=1), 1e-12)
    rel = pts[:, None, :] - a[None]  # points x edges x 2
    cross = (e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]) / length
    orient = 1.0 if float(np.sum(e[:, 0] * np.roll(e, -1, 0)[:, 1]
                                 - e[:, 1] * np.roll(e, -1, 0)[:, 0])) >= 0 else -1.0
    line = cross * orient  # > 0 on the inner side of each edge
    t = np.clip((rel * e[None]).sum(2) / length ** 2, 0.0, 1.0)
    seg = np.linalg.norm(rel - t[..., None] * e[None], axis=2)
    inside = (line >= 0).all(1)
    dist = np.where(inside, line.min(1), -seg.min(1))
    return np.asarray(dist > margin, bool)


def occlusion_score(frame_bgr: np.ndarray, a: Any, b: Any) -> tuple[float, int]:
    """Evidence (-1..1) from the picture that quad ``a`` lies above quad ``b`` where they
    overlap (positive: ``a`` on top; :func:`picture_logit` over :data:`PICTURE_LOGIT_FULL`),
    and how many outline points it rests on (0: no overlap to judge)."""
    logit, m = picture_logit(frame_bgr, a, b)
    return float(np.clip(logit / PICTURE_LOGIT_FULL, -1.0, 1.0)), m


def _blurred(frame_bgr: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(frame_bgr.astype(np.float32), (0, 0), 0.8)


# --- the picture across the outlines (learned) ----------------------------------------------------

#: Offsets (pixels, outward from the outline) at which the picture is sampled across an outline.
PROFILE_OFFSETS = np.arange(-6.0, 10.0 + 1e-9, 1.0)
#: Outline points count as running inside the other tile's quad this far inside it (px).
PROFILE_MARGIN = 1.5
#: Outline points this close (px) to the other tile's divider line are left out: the bar
#: across its face looks like an outline (a span's divider lies right over its supports' edges).
DIVIDER_PX = 3.5
#: Length of the picture features of one side (:func:`_side_features`).
PICTURE_FEATURES = 5 * len(PROFILE_OFFSETS) + 1
#: Vote of the picture cue at full strength (log-odds of :data:`PICTURE_LOGIT_FULL` or more).
PICTURE_VOTE = 1.0
PICTURE_LOGIT_FULL = 2.0
#: Judge the picture a second time leaving out outline stretches under a tile the first pass
#: put above both (training seeds 200-279, 1 px: tiles right 0.780 -> 0.798; 2 px 0.691 ->
#: 0.702).
PICTURE_TWO_PASS = True
#: Vote of the uncalibrated size difference with exact outlines, and with outlines so far off
#: that one layer's size change is lost in their error (:func:`_size_trust` between them;
#: floors 0, 0.05, 0.3 on training seeds 200-279 at 1 px: tiles right 0.753, 0.789, 0.797).
SIZE_VOTE = 2.0
SIZE_VOTE_FLOOR = 0.15
#: ... the size vote falls to the floor when the outline error is this many layers (training
#: seeds 200-279, tiles right at 0.5 / 1 / 2 px: 0.5 layer 0.863 / 0.798 / 0.702, 1 layer
#: 0.878 / 0.806 / 0.709, 2 layers 0.885 / 0.815 / 0.712, 4 layers 0.857 / 0.779 / 0.672).
SIZE_VOTE_LOST = 2.0
#: With outlines off (``outline_px`` > 0), two quads count as overlapping (one above the
#: other) only where their overlap is this deep (a fraction of the shorter tile's length) and
#: covers this share of the smaller quad (:func:`_stacked_overlap`).
#: Chosen on training scenes with the reader's outlines (stacked 200-279, flat 200-259): depth
#: / share 0 / 0 lifted 112 of 1033 flat tiles and put 954 of 1296 found tiles right, 0.1 /
#: 0.05 23 and 1033, 0.2 / 0.08 6 and 1049, 0.3 / 0.1 2 and 1048 (raised tiles right 9, 5, 5,
#: 1 of 247); with true corners moved 1 px (stacked 200-239) tiles right 0.800 -> 0.822, 2 px
#: 0.700 -> 0.715.
OVERLAP_MIN_DEPTH = 0.2
OVERLAP_MIN_SHARE = 0.08
#: Vote of "the other tile's middle lies under this one's face, not the reverse"
#: (:func:`_centre_under`), and how far inside the quad a middle must lie (tile widths).
#: Of pairs on different layers (training seeds 200-279, true corners moved 1 px) 20 % have
#: one middle under the other's face, and then in 89 % it is the lower tile's. Votes 0 / 0.15 /
#: 0.3 / 0.6 / 1 at 1 px (seeds 200-239): tiles right 0.822 / 0.837 / 0.841 / 0.829 / 0.827;
#: 0.3 at 1 px on 240-279 0.813 -> 0.820, at 2 px (200-279) 0.720 -> 0.737, true corners 1.0
#: unchanged; on the reader's outlines (stacked 200-279, flat 200-259) no tile changes.
CENTRE_VOTE = 0.3
CENTRE_MARGIN = 0.0
#: Vote of the calibrated height difference of two overlapping tiles with exact outlines; it
#: falls to 0 as their outline error reaches :data:`SIZE_VOTE_LOST` layers of apparent size,
#: and a height at the end of the search (:data:`MAX_HEIGHT_LAYERS`) gives none. Unweighted it
#: lifted 34 of 630 tiles of flat held-out scenes (1000200-239) on the reader's outlines.
PARALLAX_VOTE = 1.5
#: Vote of the learned cue on which of two overlapping tiles is higher: this weight times the
#: difference of their P(raised) (:class:`vision.layer_cue.LayerCue`, both views as in
#: :meth:`~vision.layer_cue.LayerCue.under`). The upper tile of a pair shows its walls and shadow
#: on the lower one; the lower tile's crop shows none. A pair the tracker watched onto different
#: layers is not asked (its order decides it). The reader seldom finds both tiles of a pair (72
#: pairs in the 280 stacked tuning scenes below); where it did and the votes had the pair upside
#: down (16 of the 51 pairs whose tiles match the truth on different layers), the cue put the upper
#: tile's P(raised) more than 0.5 above the lower one's in 13 (``runs/lead17/pairs.py``, scratch).
#: Session 17, cached readings through :func:`estimate_layers` (``runs/lead15/bars.py``, scratch):
#: found tiles right on stacked tuning scenes 16900-17099 / 1,600,000-079, vote 0 -> 1: 507 / 200
#: -> 510 / 201 (2 and 4: the same as 1), on 1,600,080-279 468 -> 471 of 882; table tiles lifted on
#: the 500 tuning game scenes and flat tuning scenes 30850-30999 / 5340-5499 16 / 0 / 2 either way.
#: On ground-truth quads of stacked tuning scenes 1,600,280-319 with corners moved 1 / 2 px
#: (``runs/lead17/pvjit.py``, scratch): vote 0 509 / 472, 0.5 539 / 517, 1 546 / 528, 2 553 / 526,
#: 4 552 / 524 of 638.
LEARNED_PAIR_VOTE = 1.0
#: Logistic weights of :func:`picture_features` (log-odds that the first tile lies above):
#: fitted by ``python -m vision.render.layerfit`` (training seeds 200-279, corners moved
#: 0, 0.5, 1, 2, 3 px; pairs right 0.948, 0.942, 0.931, 0.887, 0.843 of 7469).
PICTURE_WEIGHTS = np.array([
    0.797, -0.410, 0.181, 0.484, 0.791, 0.437, -1.127, -2.116, -1.492, -0.705, -0.403, -0.364,
    -0.202, -0.081, -0.305, -0.524, -0.077, 1.217, 0.134, 0.785, 1.201, 1.439, 0.828, -0.981,
    -1.784, -1.110, -0.190, 0.061, -0.219, -0.068, 0.129, 0.082, -0.013, 0.184, 0.909, -0.593,
    -0.306, -0.463, 0.104, 0.391, -0.320, -0.806, 0.038, 0.485, 0.332, 0.065, 0.072, 0.096,
    -0.021, 0.009, 0.590, -0.569, 0.421, 0.279, 0.639, 0.759, -0.514, -0.163, 0.161, 0.126,
    -0.493, -0.219, -0.050, -0.311, -0.025, -0.007, 0.110, -0.397, 0.325, 0.076, -0.358, -0.147,
    0.606, 1.801, 1.161, 0.006, -0.632, -0.782, -0.104, -0.479, -0.247, 0.205, -0.218, 0.441,
    0.000, 0.306])


def _divider_distance(q: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Distance (px) of each point from the line across the middle of tile ``q`` (through the
    midpoints of its long edges), where its face has the dark divider bar."""
    s = np.linalg.norm(np.roll(q, -1, 0) - q, axis=1)
    k = 0 if s[0] + s[2] >= s[1] + s[3] else 1  # edges k and k + 2 are the long ones
    a = (q[k] + q[k + 1]) / 2
    b = (q[(k + 2) % 4] + q[(k + 3) % 4]) / 2
    d = b - a
    n = np.array([-d[1], d[0]]) / max(float(np.linalg.norm(d)), 1e-9)
    return np.abs((pts - a) @ n)


def _side_features(img: np.ndarray, q: np.ndarray, other: np.ndarray,
                   third: Sequence[np.ndarray] = ()) -> tuple[np.ndarray, int]:
    """What the picture shows across ``q``'s outline where it runs inside ``other`` (and not
    under a ``third`` tile): per edge, the median over its points of the colour sampled at
    :data:`PROFILE_OFFSETS` along the outward normal; over the edges (weighted by their
    points), the brightness profile (relative to the brightest tenth), its lowest and highest
    edge, how coloured it is and how sharply it changes, then 1 ("has such points"). The
    outline of the upper tile shows its face ending in its rim, its side wall and its shadow
    on the lower tile; the lower tile's outline runs under the upper face and shows only that
    face (texture, pips). A few pixels of outline error shift the profile, not its shape.
    Zeros and 0 points where fewer than 4 points qualify."""
    c = q.mean(0)
    pts_all, nrm_all, edge_of = [], [], []
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        e = b - a
        length = float(np.linalg.norm(e))
        if length < 1e-6:
            continue
        n = np.array([-e[1], e[0]]) / length
        if np.dot(n, (a + b) / 2 - c) < 0:
            n = -n
        p = a + np.outer(np.arange(0.12, 0.88 + 1e-9, 1.0 / length), e)
        pts_all.append(p)
        nrm_all.append(n)
        edge_of.append(np.full(len(p), len(nrm_all) - 1))
    profs, weights = [], []
    if pts_all:
        pts_q, edge = np.concatenate(pts_all), np.concatenate(edge_of)
        keep = _inside(other, pts_q, PROFILE_MARGIN) & \
            (_divider_distance(other, pts_q) > DIVIDER_PX)
        for t in third:
            keep &= ~_inside(t, pts_q, -PROFILE_MARGIN - 2.0)
        for k, n in enumerate(nrm_all):
            sel = keep & (edge == k)
            if sel.sum() < 3:
                continue
            p = pts_q[sel]
            pts = (p[None] + PROFILE_OFFSETS[:, None, None] * n[None]).reshape(-1, 2)
            v = _sample(img, pts).reshape(len(PROFILE_OFFSETS), len(p), -1)
            profs.append(np.median(v, 1))
            weights.append(len(p))
    if sum(weights) < 4:
        return np.zeros(PICTURE_FEATURES), 0
    prof = np.array(profs)  # edges x offsets x channels
    w = np.array(weights, np.float64)[:, None] / sum(weights)
    gray = prof.mean(2)
    ref = max(1.0, float(np.percentile(gray, 90)))
    g = gray / ref - 1.0
    chroma = np.abs(prof / np.maximum(prof.sum(2, keepdims=True), 1.0) - 1.0 / 3.0).sum(2)
    sharp = np.abs(np.diff(prof, axis=1)).max(2) / ref
    sharp = np.concatenate([sharp, np.zeros((len(prof), 1))], 1)
    feats = np.concatenate([(g * w).sum(0), g.min(0), g.max(0), 5.0 * (chroma * w).sum(0),
                            (sharp * w).sum(0), [1.0]])
    return feats, int(sum(weights))


def picture_features(img: np.ndarray, qa: np.ndarray, qb: np.ndarray,
                     third: Sequence[np.ndarray] = ()) -> tuple[np.ndarray, int]:
    """Features of "``qa`` lies above ``qb``" from the picture (``img``: the float32 frame
    blurred as :func:`_blurred` does): ``qa``'s side minus ``qb``'s side
    (:func:`_side_features`; swapping the tiles negates them), and how many outline points
    they rest on."""
    fa, na = _side_features(img, qa, qb, third)
    fb, nb = _side_features(img, qb, qa, third)
    return fa - fb, na + nb


def picture_logit(frame_bgr: np.ndarray, a: Any, b: Any) -> tuple[float, int]:
    """Log-odds, from the picture alone, that quad ``a`` lies above quad ``b`` where they
    overlap (:data:`PICTURE_WEIGHTS` on :func:`picture_features`), and how many outline points
    it rests on (0: no overlap to judge, log-odds 0)."""
    qa, qb = _quads([a, b])
    img = _blurred(_check_frame(frame_bgr))
    f, m = picture_features(img, qa, qb)
    return (float(f @ PICTURE_WEIGHTS) if m else 0.0), m


# --- parallax -----------------------------------------------------------------------------------

def tile_height(quad: Any, geometry: Geometry, max_layers: int = 6) -> tuple[float, float]:
    """The height (mm) of a tile's top face above the table from its quad's apparent size, and
    the relative size mismatch at that height (0 = exact)."""
    (q,) = _quads([quad])
    z, err = tile_heights([q], geometry, max_layers)
    return float(z[0]), float(err[0])


def tile_heights(quads: Sequence[Any], geometry: Geometry, max_layers: int = 6
                 ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tile_height` of every quad at once: the planes ``z`` = 0, 0.05, ... ``(max_layers
    + 1)`` tile thicknesses above the table are searched for the one where the back-projected
    quad has the tile's length and width (the first best on a tie); per quad its height (mm)
    and the relative size mismatch there."""
    qs = _quads(quads)
    if not qs:
        return np.zeros(0), np.zeros(0)
    L, W, T = geometry.tile_mm
    zs = np.arange(0.0, (max_layers + 1) * T + 1e-9, 0.05 * T)
    Hinv = np.linalg.inv(geometry.plane_homographies(zs))
    und = geometry.undistort(np.concatenate(qs)).reshape(len(qs), 4, 2)
    hom = np.concatenate([und, np.ones((len(qs), 4, 1))], 2)
    p = np.einsum("zij,nkj->znki", Hinv, hom)  # planes x quads x corners x 3
    valid = (p[..., 2] > 0).all(2)
    with np.errstate(divide="ignore", invalid="ignore"):
        mm = p[..., :2] / p[..., 2:3]
    s = np.linalg.norm(np.roll(mm, -1, 2) - mm, axis=3)
    a, b = (s[..., 0] + s[..., 2]) / 2, (s[..., 1] + s[..., 3]) / 2
    long_, short = np.maximum(a, b), np.minimum(a, b)
    err = np.abs(long_ / L - 1) + np.abs(short / W - 1)
    err = np.where(valid & np.isfinite(err), err, np.inf)
    best = np.argmin(err, 0)
    e = err[best, np.arange(len(qs))]
    z = np.where(np.isfinite(e), zs[best], 0.0)
    return z.astype(np.float64), e.astype(np.float64)


def _footprint_mm(q: np.ndarray, geometry: Geometry, height_mm: float) -> np.ndarray:
    Hinv = np.linalg.inv(geometry.plane_homography(height_mm))
    p = np.column_stack([geometry.undistort(q), np.ones(4)]) @ Hinv.T
    return p[:, :2] / p[:, 2:3]


def _assumed_unit(quads: list[np.ndarray], shape: tuple[int, ...]) -> float:
    """One layer's change of :func:`flat_log_sizes` (``2/3 * thickness / distance``) with an
    assumed lens (65 degrees across the picture) and a thickness of 0.18 tile lengths, the
    distance from the tiles' median length in pixels: for scenes with too few overlapping
    pairs to measure it."""
    width = int(shape[1])
    length = np.median([max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[0] - q[1]))
                        for q in quads])
    f = (width / 2) / math.tan(math.radians(65.0) / 2)
    return float((2 / 3) * 0.18 * length / f)


def _layer_unit(diffs: np.ndarray) -> float:
    """The scene's one-layer size difference from the overlapping pairs' differences (most
    pairs are one layer apart): start from their lower quartile, then take the median of the
    differences within half a unit of one unit, twice (a few noisy small differences move a
    quartile, not that median)."""
    u = float(np.percentile(diffs, 25))
    for _ in range(REFINE_UNIT_STEPS):
        near = diffs[(diffs > 0.5 * u) & (diffs < 1.5 * u)]
        if len(near) < 3:
            break
        u = float(np.median(near))
    return u


def _layer_step_geometry(quads: list[np.ndarray], geometry: Geometry) -> np.ndarray:
    """With calibration: per tile, the relative change of its back-projected length when the
    plane rises by one tile thickness (what one layer does to its apparent size)."""
    T = geometry.tile_mm[2]
    if not quads:
        return np.zeros(0)
    inv0 = np.linalg.inv(geometry.plane_homography(0.0))
    inv1 = np.linalg.inv(geometry.plane_homography(T))
    und = geometry.undistort(np.concatenate(quads)).reshape(len(quads), 4, 2)
    out = []
    for u in und:
        hom = np.column_stack([u, np.ones(4)])
        pa, pb = hom @ inv0.T, hom @ inv1.T
        a, b = pa[:, :2] / pa[:, 2:3], pb[:, :2] / pb[:, 2:3]
        la = float(np.linalg.norm(np.roll(a, -1, 0) - a, axis=1).sum())
        lb = float(np.linalg.norm(np.roll(b, -1, 0) - b, axis=1).sum())
        out.append(abs(la - lb) / max(la, 1e-9))
    return np.array(out)


def _size_trust(quads: list[np.ndarray], outline_px: float, step: np.ndarray,
                lost: float = 0.5) -> np.ndarray:
    """Per tile, how far its apparent size can be trusted (0..1): outlines ``outline_px`` off
    change a tile's relative size by about ``2 * outline_px / length``; ``step`` is the relative
    size change of one layer. Trust is 1 with exact outlines and falls to 0 when that error is
    ``lost`` layers (by default half a layer; the reader's outlines on a 60 px tile: several
    layers)."""
    if outline_px <= 0:
        return np.ones(len(quads))
    length = np.array([max(np.linalg.norm(q[1] - q[2]), np.linalg.norm(q[0] - q[1]))
                       for q in quads])
    sigma = (2.0 * outline_px / np.maximum(length, 1.0)) / np.maximum(step, 1e-9)
    return np.asarray(np.clip(1.0 - sigma / lost, 0.0, 1.0))


# --- absolute height without calibration -----------------------------------------------------------

def _norm(pts: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Picture pixels to coordinates centred on the picture, in picture widths."""
    h, w = int(shape[0]), int(shape[1])
    return (np.asarray(pts, np.float64) - [w / 2, h / 2]) / max(1, w)


def _cyclic(q: np.ndarray) -> np.ndarray:
    """The quad's corners in order around it (its convex hull when that has all four)."""
    h = _convex(q)
    return h.astype(np.float64) if len(h) == 4 else q


def _radial_undistort(pts: np.ndarray, k: float | np.ndarray) -> np.ndarray:
    """Undo ``x_picture = x (1 + k rho^2)`` on centred, width-normalised points (any shape
    ending in 2), by fixed-point iteration."""
    u = np.array(pts, np.float64)
    for _ in range(4):
        u = pts / (1.0 + k * (u ** 2).sum(-1, keepdims=True))
    return u


def _vanishing_lines(quads: np.ndarray) -> np.ndarray:
    """Per quad (n, 4, 2), the vanishing line ``(gx, gy, 1)`` of its plane (where its two pairs
    of opposite edges meet, homogeneous), as ``g``; ``nan`` where the line runs through the
    origin. A rectangle seen in perspective: ``1 + g . u`` is proportional to one over the depth
    of the plane's point seen at ``u``."""
    p = np.concatenate([quads, np.ones(quads.shape[:2] + (1,))], axis=2)
    v1 = np.cross(np.cross(p[:, 0], p[:, 1]), np.cross(p[:, 3], p[:, 2]))
    v2 = np.cross(np.cross(p[:, 1], p[:, 2]), np.cross(p[:, 0], p[:, 3]))
    line = np.cross(v1, v2)
    scale = np.abs(line).max(1, keepdims=True)
    line = line / np.where(scale > 0, scale, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = line[:, :2] / line[:, 2:3]
    g[np.abs(line[:, 2]) < 1e-9] = np.nan
    return g


def _spreads(quads: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """For each distortion in ``ks``: how far the undistorted quads' vanishing lines lie apart
    (the median over tiles of their L1 distance from the median line)."""
    und = _radial_undistort(np.broadcast_to(quads, (len(ks),) + quads.shape),
                            ks[:, None, None, None])
    g = _vanishing_lines(und.reshape(-1, 4, 2)).reshape(len(ks), len(quads), 2)
    with np.errstate(all="ignore"):
        d = np.abs(g - np.nanmedian(g, axis=1, keepdims=True)).sum(2)
    d[~np.isfinite(d)] = np.inf
    return np.median(d, axis=1)


def lens_distortion(quads: np.ndarray) -> float:
    """The radial distortion ``k`` (see :data:`LENS_K_RANGE`) under which the tiles' top faces
    (centred, width-normalised quads, n x 4 x 2) look most like rectangles of one plane: tiles
    of one layer, and tiles of parallel layers, share one vanishing line, which a barrel or
    pincushion lens bends apart from tile to tile by their place in the picture. 0 with fewer
    than :data:`LENS_MIN_TILES` tiles."""
    if len(quads) < LENS_MIN_TILES:
        return 0.0
    lo, hi = LENS_K_RANGE
    grid = np.linspace(lo, hi, round((hi - lo) / 0.01) + 1)
    for _ in range(3):  # steps of 0.01, then 0.001, then 0.0001
        spread = _spreads(quads, grid)
        if not np.isfinite(spread).any():
            return 0.0
        best = float(grid[int(np.argmin(spread))])
        step = float(grid[1] - grid[0])
        grid = np.linspace(best - step, best + step, 21)
    return best


def flat_log_sizes(quads: list[np.ndarray], shape: tuple[int, ...],
                   lens: bool = True) -> np.ndarray:
    """Per tile, the log of its picture size with the perspective of the table's plane taken
    out: equal for tiles on one layer wherever they lie, and one layer higher adds about
    ``2/3 * thickness / camera height`` (one scene-wide unit, :func:`size_heights`).

    The quads are undistorted with the lens the tiles' own shapes show
    (:func:`lens_distortion`; ``lens=False``: none, for sizes only compared between
    neighbours); the cube root of a quad's area is then proportional to
    ``(1 + g . u) / D^(2/3)`` (``g`` the vanishing line all tiles share, ``u`` the tile's
    place, ``D`` the camera's distance from the tile's plane)."""
    quads = _quads(quads)
    if not quads:
        return np.zeros(0)
    qn = np.stack([_norm(_cyclic(q), shape) for q in quads])
    if lens:
        qn = _radial_undistort(qn, lens_distortion(qn))
    g = _vanishing_lines(qn)
    ok = np.isfinite(g).all(1)
    g0 = np.median(g[ok], 0) if ok.any() else np.zeros(2)
    cube = np.array([cv2.contourArea(q.astype(np.float32)) ** (1 / 3) for q in qn])
    depth = 1.0 + qn.mean(1) @ g0
    return np.log(np.maximum(cube, 1e-12) / np.maximum(depth, 1e-6))


def size_heights(log_sizes: np.ndarray, unit: float,
                 layers: Sequence[int] | None = None) -> np.ndarray:
    """Each tile's height in layers from :func:`flat_log_sizes` and the scene's one-layer unit
    (in the same log size). The table's level is the offset that puts the most tiles on whole
    layers (their phases' circular mean), then the median of their distances to the nearest
    layer; which whole layer is the table comes from ``layers`` (a first guess per tile, as the
    chain of overlaps: the shift most tiles agree with) or else from the lowest tile."""
    if not (isinstance(unit, (int, float, np.floating)) and math.isfinite(unit) and unit > 0):
        raise LayerInputError(f"unit: expected the scene's one-layer size step (> 0), got "
                              f"{unit!r}")
    z = np.asarray(log_sizes, np.float64).reshape(-1) / unit
    if layers is not None and len(layers) != len(z):
        raise LayerInputError(f"layers: expected one first guess per tile ({len(z)}), got "
                              f"{len(layers)}")
    if not len(z):
        return z
    z = z - np.angle(np.exp(2j * np.pi * z).sum()) / (2 * np.pi)
    for _ in range(2):
        z = z - float(np.median(z - np.round(z)))
    if layers is None:
        return z - float(np.round(z).min())
    shifts, counts = np.unique(np.round(z).astype(int) - np.asarray(layers, int),
                               return_counts=True)
    return z - float(shifts[int(np.argmax(counts))])


# --- the tracker --------------------------------------------------------------------------------

#: A new tile lies above a known one when more than this fraction of their overlap changed.
COVER_MIN_CHANGE = 0.04
#: A tile whose picture changed over more than this fraction is not the known tile at its place
#: (unless the outlines agree to :data:`STALE_MATCH_IOU`): it is a new tile laid square on it.
SAME_TILE_MAX_CHANGE = 0.35


def _changed_fraction(changed: np.ndarray, poly: np.ndarray) -> float:
    """Fraction of the pixels inside ``poly`` (eroded by a pixel) that changed."""
    m = np.zeros(changed.shape, np.uint8)
    cv2.fillConvexPoly(m, np.round(_convex(np.asarray(poly, np.float64))).astype(np.int32), 255)
    m = cv2.erode(m, np.ones((3, 3), np.uint8))
    vals = changed[m > 0]
    return float(vals.mean()) if vals.size else 0.0


@dataclass
class _Track:
    quad: np.ndarray
    layer: int
    cue: str
    confidence: float
    seen: int  # frame index of the last sighting


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two quads (pixels)."""
    inter, _ = _overlap(a, b)
    ua = cv2.contourArea(_convex(a)) + cv2.contourArea(_convex(b)) - inter
    return inter / ua if ua > 0 else 0.0


class LayerTracker:
    """Watches the table being built, frame by frame (still frames from one fixed camera).

    Feed it every still frame with its tiles (:meth:`update`); a tile is matched to a known one
    by overlap (IoU >= ``match_iou``; a tile unseen in the previous frame, as one hidden under
    the tile just laid, needs :data:`STALE_MATCH_IOU`; a match whose picture changed is refused:
    a new tile laid square on a known one). A new tile lies above every known tile whose
    picture it changed (the pixels of their overlap), so its layer is one more than the highest
    of those;
    tiles of the first frame get the cold-start estimate. Tiles not seen for ``forget_after``
    frames are dropped (taken away, or hidden for good)."""

    def __init__(self, match_iou: float = 0.85, forget_after: int = 1000) -> None:
        if not 0.0 < match_iou <= 1.0:
            raise LayerInputError(f"match_iou: expected 0 < IoU <= 1, got {match_iou!r}")
        self.match_iou = float(match_iou)
        self.forget_after = int(forget_after)
        self.tracks: list[_Track] = []
        self.frame_index = -1
        self._prev: np.ndarray | None = None
        self._current: list[int] = []  # track index of each tile of the last update

    def update(self, frame_bgr: np.ndarray, tiles: Sequence[Any],
               geometry: Geometry | None = None,
               outline_px: float = 0.0) -> list[LayerEstimate]:
        """Take the next still frame and its tiles; returns their layer estimates
        (``outline_px`` as in :func:`estimate_layers`)."""
        frame_bgr = _check_frame(frame_bgr)
        quads = _quads(tiles)
        self.frame_index += 1
        if self._prev is not None and self._prev.shape != frame_bgr.shape:
            raise LayerInputError(f"frame_bgr: shape {frame_bgr.shape} differs from the "
                                  f"tracker's earlier frames {self._prev.shape}; use one camera "
                                  "at one resolution (or a new LayerTracker)")
        blur_now = cv2.GaussianBlur(frame_bgr, (0, 0), 1.2)
        blur_prev = (cv2.GaussianBlur(self._prev, (0, 0), 1.2)
                     if self._prev is not None else None)
        noise = self._noise(blur_now, blur_prev, quads) if blur_prev is not None else 0.0
        changed = (cv2.absdiff(blur_now, blur_prev).max(axis=2) > max(12.0, 2.0 * noise)
                   if blur_prev is not None else None)
        assigned = self._match(quads, changed)
        new = [i for i, a in enumerate(assigned) if a is None]
        if new:
            cold = estimate_layers(frame_bgr, quads, geometry, outline_px=outline_px) if (
                changed is None or len(new) > 1) else None
            for i in new:
                if changed is None or (cold is not None and self._overlaps_new(i, new, quads)):
                    est = cold[i] if cold is not None else estimate_layers(
                        frame_bgr, quads, geometry, outline_px=outline_px)[i]
                    track = _Track(quads[i], est.layer, est.cue, est.confidence,
                                   self.frame_index)
                else:
                    track = self._appeared(quads[i], changed)
                self.tracks.append(track)
                assigned[i] = len(self.tracks) - 1
        for i, k in enumerate(assigned):
            if k is None:  # every tile was matched or made a new track just above
                raise RuntimeError(f"tile {i} has no track")
            self.tracks[k].quad = quads[i]
            self.tracks[k].seen = self.frame_index
        self._current = [int(k) for k in assigned if k is not None]
        self._prev = frame_bgr.copy()
        return estimate_layers(frame_bgr, quads, geometry, history=self, outline_px=outline_px)

    # internals -------------------------------------------------------------------------------
    def _live(self) -> list[int]:
        return [k for k, t in enumerate(self.tracks)
                if self.frame_index - t.seen <= self.forget_after]

    def _match(self, quads: list[np.ndarray], changed: np.ndarray | None
               ) -> list[int | None]:
        live = self._live()
        pairs = []
        for i, q in enumerate(quads):
            for k in live:
                v = quad_iou(q, self.tracks[k].quad)
                # a tile unseen in the last frame (hidden under the one just laid) comes back
                # only at nearly the same outline; a tile laid square on a known one looks
                # much alike, but its picture changed where the known one's did not
                need = (self.match_iou if self.tracks[k].seen == self.frame_index - 1
                        else STALE_MATCH_IOU)
                if v < need:
                    continue
                if v < STALE_MATCH_IOU and changed is not None and \
                        _changed_fraction(changed, q) > SAME_TILE_MAX_CHANGE:
                    continue
                pairs.append((v, i, k))
        out: list[int | None] = [None] * len(quads)
        used: set[int] = set()
        for v, i, k in sorted(pairs, reverse=True):
            if out[i] is None and k not in used:
                out[i] = k
                used.add(k)
        return out

    @staticmethod
    def _overlaps_new(i: int, new: list[int], quads: list[np.ndarray]) -> bool:
        return any(j != i and _overlap(quads[i], quads[j])[0] > 4.0 for j in new)

    @staticmethod
    def _noise(now: np.ndarray, prev: np.ndarray, quads: list[np.ndarray]) -> float:
        """Typical frame-to-frame difference away from the tiles (sensor noise, JPEG)."""
        mask = np.full(now.shape[:2], 255, np.uint8)
        for q in quads:
            cv2.fillConvexPoly(mask, np.round(_convex(q) * 1.15 - q.mean(0) * 0.15)
                               .astype(np.int32), 0)
        diff = cv2.absdiff(now, prev).max(axis=2)
        vals = diff[mask > 0]
        return float(np.percentile(vals, 90)) if vals.size else 0.0

    def _appeared(self, q: np.ndarray, changed: np.ndarray) -> _Track:
        covered: list[int] = []
        for k in self._live():
            area, poly = _overlap(q, self.tracks[k].quad)
            if area < 6.0 or poly is None or len(poly) < 3:
                continue
            if _changed_fraction(changed, poly) > COVER_MIN_CHANGE:
                covered.append(k)
        layer = 1 + max((self.tracks[k].layer for k in covered), default=-1)
        return _Track(q, layer, "order" if covered else "table", 0.99, self.frame_index)

    def known(self, index: int) -> _Track | None:
        """The track of the ``index``-th tile of the last :meth:`update`."""
        if 0 <= index < len(self._current):
            return self.tracks[self._current[index]]
        return None


# --- combining ----------------------------------------------------------------------------------

def _longest_chain(n: int, above: dict[int, list[int]],
                   gaps: dict[tuple[int, int], int],
                   base: Sequence[int] | None = None) -> list[int]:
    """Each tile's layer: the longest chain of "lies above" edges down from it, an edge counting
    as many layers as it spans; at least ``base`` (per tile) where given."""
    memo: dict[int, int] = {}

    def depth(i: int) -> int:
        if i not in memo:
            memo[i] = -1  # on the stack (no cycles are left, but stay safe)
            memo[i] = max([depth(j) + gaps[(i, j)] for j in above.get(i, [])
                           if memo.get(j) != -1] + [0 if base is None else int(base[i])])
        return memo[i]

    return [depth(i) for i in range(n)]


def _reaches(above: dict[int, list[int]], src: int, dst: int) -> bool:
    seen, todo = set(), [src]
    while todo:
        k = todo.pop()
        if k == dst:
            return True
        if k not in seen:
            seen.add(k)
            todo.extend(above.get(k, []))
    return False


def _pair_edges(pairs: list[tuple[int, int]],
                pictures: dict[tuple[int, int], tuple[np.ndarray, int]],
                orders: dict[tuple[int, int], int], geometry: Geometry | None,
                heights: list[tuple[float, float]], T: float,
                size_x: dict[tuple[int, int], float], trust: np.ndarray,
                vote_trust: np.ndarray,
                layer_unit: float | None,
                centres: dict[tuple[int, int], int] | None = None,
                raised: dict[int, float] | None = None
                ) -> list[tuple[float, int, int, str, int]]:
    """Per overlapping pair, the summed votes of the cues: (strength, upper, lower, deciding
    cue, layers apart). ``orders``: per pair, the order the tracker watched
    (:func:`_watched_order`); ``trust``: per tile, whether its size counts layers;
    ``vote_trust``: how much its size votes on which of two is higher
    (:data:`SIZE_VOTE_LOST`); ``raised``: per tile of the pairs, the learned cue's P(raised)
    (:data:`LEARNED_PAIR_VOTE`)."""
    edges: list[tuple[float, int, int, str, int]] = []
    for i, j in pairs:
        votes: list[tuple[float, str]] = []
        order = orders.get((i, j), 0)
        if order:
            votes.append((2.0 * order, "order"))
        if geometry is not None:
            dz = (heights[i][0] - heights[j][0]) / T
            w = min(vote_trust[i], vote_trust[j])
            if w > 0:
                votes.append((PARALLAX_VOTE * w * float(np.clip(dz, -1, 1)), "parallax"))
        else:  # uncalibrated: the higher of two neighbours looks larger than the table
            # plane's perspective predicts at its place in the picture
            size_w = SIZE_VOTE_FLOOR + (SIZE_VOTE - SIZE_VOTE_FLOOR) * min(vote_trust[i],
                                                                         vote_trust[j])
            votes.append((size_w * float(np.clip(size_x[(i, j)] / 0.8, -1, 1)), "parallax"))
        f, m = pictures[(i, j)]
        if m:
            logit = float(f @ PICTURE_WEIGHTS)
            votes.append((PICTURE_VOTE * float(np.clip(logit / PICTURE_LOGIT_FULL, -1, 1)),
                          "occlusion"))
        if centres and centres.get((i, j)) and CENTRE_VOTE > 0:
            votes.append((CENTRE_VOTE * centres[(i, j)], "occlusion"))
        if raised and i in raised and j in raised and LEARNED_PAIR_VOTE > 0:
            votes.append((LEARNED_PAIR_VOTE * (raised[i] - raised[j]), "learned"))
        total = sum(v for v, _ in votes)
        if not votes or total == 0:
            continue
        cue = max((vc for vc in votes if vc[0] * total > 0), key=lambda vc: abs(vc[0]))[1]
        up, lo = (i, j) if total > 0 else (j, i)
        # how many layers apart: more than one when a tile between them is hidden entirely
        gap = 1
        if layer_unit is not None and size_x[(i, j)] * total > 0 and \
                min(trust[i], trust[j]) > 0.5:
            gap += int(np.searchsorted(SIZE_GAP_BOUNDS, abs(size_x[(i, j)])))
        edges.append((abs(total), up, lo, cue, gap))
    return edges


def _decide(n: int, pairs: list[tuple[int, int]],
            edges: list[tuple[float, int, int, str, int]]
            ) -> tuple[dict[int, list[int]], dict[tuple[int, int], tuple[float, str]],
                       dict[tuple[int, int], int], list[int]]:
    """The "lies above" graph from the pairs' edges, strongest first (an edge closing a cycle
    is dropped), and each tile's longest chain down."""
    above: dict[int, list[int]] = {}
    kept: dict[tuple[int, int], tuple[float, str]] = {}
    gaps: dict[tuple[int, int], int] = {}
    for strength, up, lo, cue, gap in sorted(edges, reverse=True):
        if _reaches(above, lo, up):
            continue  # would close a cycle: the weaker evidence loses
        above.setdefault(up, []).append(lo)
        kept[(up, lo)] = (strength, cue)
        gaps[(up, lo)] = gap
    return above, kept, gaps, _longest_chain(n, above, gaps)


def _centre_under(a: np.ndarray, b: np.ndarray) -> int:
    """+1 when only ``b``'s centre lies under ``a``'s face (inside its quad, by
    :data:`CENTRE_MARGIN` of the narrower tile's width), -1 when only ``a``'s lies under
    ``b``'s, else 0. A tile resting on others covers their middles (a span, a crosswise tower
    top) while its own middle lies over a gap or a support's end."""
    width = min(float(np.sort(np.linalg.norm(np.roll(q, -1, 0) - q, axis=1))[0]) for q in (a, b))
    a_in_b = bool(_inside(b, a.mean(0)[None], CENTRE_MARGIN * width)[0])
    b_in_a = bool(_inside(a, b.mean(0)[None], CENTRE_MARGIN * width)[0])
    return int(b_in_a) - int(a_in_b)


def _stacked_overlap(a: np.ndarray, b: np.ndarray, area_a: float, area_b: float,
                     outline_px: float) -> bool:
    """Whether quads ``a`` and ``b`` overlap enough to be one above the other: more than
    6 px^2 and 1 % of the smaller; with outlines off (``outline_px`` > 0) also an overlap at
    least :data:`OVERLAP_MIN_DEPTH` of the shorter tile's length deep (the short side of its
    smallest enclosing rectangle) and :data:`OVERLAP_MIN_SHARE` of the smaller quad: tiles
    lying side by side on the table overlap along their touching edges by what their outlines
    are off (the reader's: 2-8 px deep, 1-5 % of a tile), a tile resting on another covers
    a deep part of it."""
    area, poly = _overlap(a, b)
    small = min(area_a, area_b)
    if not area > max(6.0, 0.01 * small):
        return False
    if outline_px <= 0 or poly is None or len(poly) < 3:
        return True
    length = min(max(float(np.linalg.norm(q[1] - q[2])), float(np.linalg.norm(q[0] - q[1])))
                 for q in (a, b))
    depth = float(min(cv2.minAreaRect(poly.astype(np.float32))[1]))
    return depth >= OVERLAP_MIN_DEPTH * length and area >= OVERLAP_MIN_SHARE * small


def estimate_layers(frame_bgr: np.ndarray, tiles: Sequence[Any],
                    geometry: Geometry | None = None,
                    history: LayerTracker | None = None,
                    outline_px: float = 0.0, learned: bool = True) -> list[LayerEstimate]:
    """One :class:`LayerEstimate` per tile (see the module docstring).

    ``tiles``: top-face quads in picture pixels (TileReadings, dicts with ``corners`` or 4x2
    arrays); ``geometry``: the calibrated camera, for the parallax cue; ``history``: a
    :class:`LayerTracker` whose last :meth:`LayerTracker.update` saw these same tiles;
    ``outline_px``: how many pixels the outlines may be off (0: exact, as rendered ground
    truth; :data:`READER_OUTLINE_PX` for the reader's). Where that error is as large as what
    one layer changes a tile's size by (:func:`_size_trust`), a tile's size no longer gives its
    absolute height (calibrated parallax) nor how many layers two overlapping tiles are apart;
    which of the two is higher then comes mostly from the picture across their outlines
    (:func:`picture_features`), their size difference voting only weakly
    (:data:`SIZE_VOTE_FLOOR`)."""
    frame_bgr = _check_frame(frame_bgr)
    quads = _quads(tiles)
    try:
        outline_px = float(outline_px)
    except (TypeError, ValueError):
        raise LayerInputError(f"outline_px: expected a number of pixels >= 0, got "
                              f"{outline_px!r}") from None
    if not (math.isfinite(outline_px) and outline_px >= 0):
        raise LayerInputError(f"outline_px: expected a number of pixels >= 0, got {outline_px}")
    if geometry is not None and not isinstance(geometry, Geometry):
        raise LayerInputError(f"geometry: expected a vision.layers.Geometry, got "
                              f"{type(geometry).__name__}")
    if history is not None and not isinstance(history, LayerTracker):
        raise LayerInputError(f"history: expected a vision.layers.LayerTracker, got "
                              f"{type(history).__name__}")
    if history is not None and len(history._current) != len(quads):
        raise LayerInputError(f"history: the tracker's last update saw {len(history._current)} "
                              f"tiles, not these {len(quads)}; call tracker.update(frame_bgr, "
                              "tiles) and use what it returns")
    n = len(quads)
    if n == 0:
        return []
    heights: list[tuple[float, float]] = []
    trust = np.ones(n)
    vote_trust = trust
    if geometry is not None:
        z_all, e_all = tile_heights(quads, geometry)
        heights = [(float(z), float(e)) for z, e in zip(z_all, e_all)]
        step = _layer_step_geometry(quads, geometry)
        trust = _size_trust(quads, outline_px, step)
        # a height the search ended on is no measurement; the reader's outlines (2 px on a
        # 60 px tile: several layers of apparent size) make the heights votes of nothing
        vote_trust = _size_trust(quads, outline_px, step, SIZE_VOTE_LOST) * np.array(
            [z < MAX_HEIGHT_LAYERS * geometry.tile_mm[2] - 1e-6 for z in z_all], float)
    T = geometry.tile_mm[2] if geometry is not None else 1.0

    boxes = [cv2.boundingRect(_convex(q).astype(np.float32)) for q in quads]

    def overlapping_any(i: int, j: int) -> list[int]:
        x0 = max(boxes[i][0], boxes[j][0]) - 4
        y0 = max(boxes[i][1], boxes[j][1]) - 4
        x1 = min(boxes[i][0] + boxes[i][2], boxes[j][0] + boxes[j][2]) + 4
        y1 = min(boxes[i][1] + boxes[i][3], boxes[j][1] + boxes[j][3]) + 4
        return [k for k in range(n) if k not in (i, j) and boxes[k][0] < x1
                and boxes[k][0] + boxes[k][2] > x0 and boxes[k][1] < y1
                and boxes[k][1] + boxes[k][3] > y0]

    # pairwise "lies above" evidence
    overlapping: dict[int, set[int]] = {i: set() for i in range(n)}
    areas = [cv2.contourArea(_convex(q)) for q in quads]
    lo = np.array([q.min(0) for q in quads])
    hi = np.array([q.max(0) for q in quads])
    meet = ((lo[:, None] <= hi[None]) & (lo[None] <= hi[:, None])).all(2)  # boxes meet
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)
             if meet[i, j] and _stacked_overlap(quads[i], quads[j], areas[i], areas[j],
                                                outline_px)]
    size_x: dict[tuple[int, int], float] = {}
    layer_unit: float | None = None
    log_size = np.zeros(n)
    if geometry is None:
        # each pair's difference of flat sizes in the scene's one-layer unit: overlapping
        # tiles are never on one layer and most are one layer apart, so the unit is what most
        # differences are (:func:`_layer_unit`); one layer changes a tile's length by 1.5
        # units. The lens only matters for sizes compared across the picture (a tile's height
        # above the table): it is measured when some tile's outline is exact enough for that.
        for lens in (False, True):
            log_size = flat_log_sizes(quads, frame_bgr.shape, lens=lens)
            diffs = {(i, j): float(log_size[i] - log_size[j]) for i, j in pairs}
            clear = np.array([abs(v) for v in diffs.values() if abs(v) > 0])
            layer_unit = _layer_unit(clear) if len(clear) >= 3 else None
            if layer_unit is not None and not (math.isfinite(layer_unit) and layer_unit > 0):
                layer_unit = None
            # too few pairs to measure the unit: which of two is higher still comes from
            # their difference, in the unit an assumed lens gives (not used to count layers)
            vote_unit = (layer_unit if layer_unit is not None
                         else _assumed_unit(quads, frame_bgr.shape))
            size_x = {ij: v / vote_unit for ij, v in diffs.items()}
            trust = _size_trust(quads, outline_px, np.full(n, 1.5 * vote_unit))
            vote_trust = _size_trust(quads, outline_px, np.full(n, 1.5 * vote_unit),
                                     SIZE_VOTE_LOST)
            if layer_unit is None or trust.max() < 0.5:
                break
    # the blurred picture only matters where tiles overlap (most tables of line games: nowhere)
    img = _blurred(frame_bgr) if pairs else frame_bgr
    for i, j in pairs:
        overlapping[i].add(j)
        overlapping[j].add(i)
    # the picture across each pair's outlines; a second time leaving out the outline stretches
    # under a tile the first pass put above both (its face hides both outlines there)
    near = {(i, j): [k for k in overlapping_any(i, j) if k in overlapping[i] or
                     k in overlapping[j]] for i, j in pairs}
    pictures = {(i, j): picture_features(img, quads[i], quads[j]) for i, j in pairs}
    centres = {(i, j): _centre_under(quads[i], quads[j]) for i, j in pairs}
    orders = {(i, j): _watched_order(history, i, j) for i, j in pairs}
    # the learned cue's say on pairs the order in which they appeared does not already decide
    cue_memo: dict[int, np.ndarray] = {}  # the learned cue's answers, asked once a tile
    raised = _pair_raised(frame_bgr, quads, [ij for ij in pairs if not orders[ij]], cue_memo
                          ) if learned else {}
    above, kept, gaps, chain = _decide(n, pairs, _pair_edges(
        pairs, pictures, orders, geometry, heights, T, size_x, trust, vote_trust,
        layer_unit, centres, raised))
    if PICTURE_TWO_PASS:
        redo = False
        for i, j in pairs:
            over = [quads[k] for k in near[(i, j)] if chain[k] > max(chain[i], chain[j])]
            if over:
                pictures[(i, j)] = picture_features(img, quads[i], quads[j], over)
                redo = True
        if redo:
            above, kept, gaps, chain = _decide(n, pairs, _pair_edges(
                pairs, pictures, orders, geometry, heights, T, size_x, trust, vote_trust,
                layer_unit, centres, raised))
    # the learned cue: a tile that nothing found lies under or on, whose surroundings show
    # tiles under it (:mod:`vision.layer_cue`), is put on the layer the model gives
    lifted = _learned_lifts(frame_bgr, quads, chain, above, geometry, cue_memo
                            ) if learned else {}
    for i, (layer_i, _, _) in lifted.items():
        chain[i] = layer_i
    # without calibration, each tile's height from its size: where clear, it replaces the
    # chain's count (a hidden tile under the chain, a gap counted too wide), but a tile stays
    # above every tile it was found to lie on
    sized: dict[int, float] = {}
    if geometry is None and layer_unit is not None:
        z_size = size_heights(log_size, layer_unit, chain)
        # outlines off by even a tenth of a pixel scatter the sizes between layers (the
        # vanishing line and the lens come from the same corners): then none is used
        in_tune = float(np.median(np.abs(z_size - np.round(z_size)))) <= SIZE_FIT_MAX
        for i in range(n if in_tune else 0):
            z_layer = max(0, round(float(z_size[i])))
            off = abs(float(z_size[i]) - z_layer)
            if trust[i] >= 0.5 and off < HEIGHT_CLEAR:
                sized[i] = float(np.clip(1.0 - 2.0 * off, 0.0, 1.0) * trust[i])
        if sized:
            base = [max(0, round(float(z_size[i]))) if i in sized else chain[i]
                    for i in range(n)]
            sized_chain = _longest_chain(n, above, {e: 1 for e in gaps}, base)

    out: list[LayerEstimate] = []
    for i in range(n):
        layer, cue = chain[i], "table"
        below = [j for j in above.get(i, []) if chain[j] + gaps[(i, j)] == layer]
        if i in lifted and lifted[i][0] == layer and not below:
            cue, conf = lifted[i][2], lifted[i][1]
        elif layer > 0:
            strength, cue = max(kept[(i, j)] for j in below)
            conf = float(min(0.99, 0.5 + 0.5 * min(1.0, strength)))
        else:
            conf = 0.9 if not overlapping[i] else 0.75
        if sized and sized_chain[i] != layer:
            layer, cue = sized_chain[i], "parallax"
            conf = sized.get(i, conf)
        elif i in sized:
            conf = max(conf, sized[i])
        if geometry is not None:
            z, err = heights[i]
            g_layer = max(0, round(z / T) - 1)
            g_conf = float(np.clip(1.0 - 2.0 * abs(z / T - 1 - g_layer), 0.0, 1.0)
                           * (1.0 if err < 0.15 else 0.3) * trust[i])
            if z >= MAX_HEIGHT_LAYERS * T - 1e-6:  # at the end of the search: not measured
                g_conf = 0.0
            if g_layer != layer and g_conf >= 0.5 and (g_layer > layer or not below):
                layer, cue, conf = g_layer, "parallax", g_conf
            elif g_layer == layer:
                conf = max(conf, g_conf)
        if history is not None:
            tr = history.known(i)
            if tr is not None and tr.cue in ("order", "table") and tr.layer != layer:
                layer, cue, conf = tr.layer, tr.cue, tr.confidence
            elif tr is not None and tr.layer == layer and tr.cue == "order":
                cue, conf = "order", max(conf, tr.confidence)
        out.append(LayerEstimate(int(layer), round(conf, 4), cue))
    # supports from the final layers
    final = [e.layer for e in out]
    result = []
    for i, e in enumerate(out):
        cand = [j for j in overlapping[i] if final[j] == e.layer - 1]
        sup = _supports(i, e.layer, cand, quads, geometry)
        result.append(dataclasses.replace(e, supports=sup))
    return result


def _learned_lifts(frame_bgr: np.ndarray, quads: list[np.ndarray], chain: list[int],
                   above: dict[int, list[int]], geometry: Geometry | None = None,
                   memo: dict[int, np.ndarray] | None = None
                   ) -> dict[int, tuple[int, float, str]]:
    """The tiles the learned cue lifts off the table: of the tiles the chain leaves on layer 0
    with no tile found on them (a covered tile's crop shows the tiles on it, not what it lies
    on; the model learned from the tiles the reader finds, top tiles nearly all), those whose
    probability of lying on something (:class:`vision.layer_cue.LayerCue`) is at least
    :data:`LEARNED_LIFT` (:data:`LEARNED_LIFT_STACKED` where the candidates look stacked);
    with ``geometry`` instead those whose score with their
    apparent size (:func:`geo_lift_scores`) is at least :data:`GEO_LIFT` (or
    :data:`GEO_LIFT_STACKED`); each with the layer the model gives (1 + the likeliest count of
    tiles under it), that count's probability (to the power :data:`LEARNED_CONFIDENCE_POWER`)
    and the cue that decided: ``learned``, or ``parallax`` where the apparent size lifted a
    tile the image rule would have left. Empty without a shipped model. ``memo``: as for
    :func:`_cue_under`."""
    from vision.layer_cue import shared_cue

    if len(quads) < LEARNED_MIN_TILES:
        return {}
    covered = {j for lows in above.values() for j in lows}
    cand = [i for i in range(len(quads)) if chain[i] == 0 and i not in covered]
    model = shared_cue() if cand else None
    if model is None:
        return {}
    p = _cue_under(model, frame_bgr, quads, cand, memo)
    alone = _lifted_where(1.0 - p[:, 0], LEARNED_LIFT, LEARNED_LIFT_STACKED, STACKED_SURE)
    lift = alone
    if geometry is not None:
        lift = _lifted_where(geo_lift_scores(p, [quads[i] for i in cand], geometry),
                             GEO_LIFT, GEO_LIFT_STACKED, GEO_STACKED_SURE)
    out: dict[int, tuple[int, float, str]] = {}
    for i, pi, up, by_cue in zip(cand, p, lift, alone):
        if up:
            k = 1 + int(np.argmax(pi[1:]))
            conf = float(np.clip(pi[k], 0.0, 1.0)) ** LEARNED_CONFIDENCE_POWER
            out[i] = (k, conf, "learned" if by_cue else "parallax")
    return out


def _watched_order(history: LayerTracker | None, i: int, j: int) -> int:
    """+1 when the tracker watched tile ``i`` onto a higher layer than tile ``j``, -1 when
    lower, 0 when it knows no such order (the order vote of their pair)."""
    ti, tj = (history.known(i), history.known(j)) if history is not None else (None, None)
    if ti is None or tj is None:
        return 0
    return int(np.sign(ti.layer - tj.layer))


def _pair_raised(frame_bgr: np.ndarray, quads: list[np.ndarray],
                 pairs: list[tuple[int, int]], memo: dict[int, np.ndarray] | None = None
                 ) -> dict[int, float]:
    """The learned cue's P(raised) of every tile of an overlapping pair (empty without pairs
    or without a shipped model); ``memo``: as for :func:`_cue_under`."""
    which = sorted({i for pair in pairs for i in pair})
    if not which:
        return {}
    from vision.layer_cue import shared_cue

    model = shared_cue()
    if model is None:
        return {}
    p = _cue_under(model, frame_bgr, quads, which, memo)
    return {i: float(1.0 - p[k, 0]) for k, i in enumerate(which)}


def _cue_under(model: Any, frame_bgr: np.ndarray, quads: list[np.ndarray],
               which: list[int], memo: dict[int, np.ndarray] | None) -> np.ndarray:
    """``model.under(frame_bgr, quads, which)`` (:meth:`vision.layer_cue.LayerCue.under`),
    asking the model only about tiles not yet in ``memo`` (tile index -> its row of
    probabilities, filled here; one estimate asks about a pair's tiles and then about the
    tiles left on the table, often the same ones, in one frame with the same quads)."""
    if memo is None or not which:
        return model.under(frame_bgr, quads, which)
    new = [i for i in which if i not in memo]
    if new:
        for i, row in zip(new, model.under(frame_bgr, quads, new)):
            memo[i] = row
    return np.stack([memo[i] for i in which])


def _lifted_where(score: np.ndarray, bar: float, bar_stacked: float, sure_at: float
                  ) -> np.ndarray:
    """Which candidates a picture lifts: ``score >= bar``, or ``>= bar_stacked`` where the
    candidates look stacked (at least :data:`STACKED_SURE_MIN` of them, and more than half, at
    ``sure_at`` or more)."""
    sure = int(np.count_nonzero(score >= sure_at))
    stacked = sure >= STACKED_SURE_MIN and 2 * sure > len(score)
    return np.asarray(score >= (bar_stacked if stacked else bar), bool)


def size_excess(quads: Sequence[Any], geometry: Geometry) -> np.ndarray:
    """Per quad (n x 2), how much wider and longer than the tile it is, in layers: the quad
    cast back onto the plane of a table tile's top face (one thickness up), its mean short and
    long sides against the tile's width and length, each relative excess over the relative
    size change one layer makes there (:func:`_layer_step_geometry`)."""
    qs = _quads(quads)
    if not qs:
        return np.zeros((0, 2))
    L, W, T = geometry.tile_mm
    inv = np.linalg.inv(geometry.plane_homography(T))
    und = geometry.undistort(np.concatenate(qs)).reshape(len(qs), 4, 2)
    p = np.concatenate([und, np.ones((len(qs), 4, 1))], 2) @ inv.T
    with np.errstate(divide="ignore", invalid="ignore"):
        mm = p[..., :2] / p[..., 2:3]
    s = np.linalg.norm(np.roll(mm, -1, 1) - mm, axis=2)
    a, b = (s[:, 0] + s[:, 2]) / 2, (s[:, 1] + s[:, 3]) / 2
    step = np.maximum(_layer_step_geometry(qs, geometry), 1e-9)
    out = np.stack([(np.minimum(a, b) / W - 1) / step, (np.maximum(a, b) / L - 1) / step], 1)
    return np.where(np.isfinite(out), out, 0.0)


def _at_least_logits(p: np.ndarray) -> np.ndarray:
    """Per row of the cue's probabilities (n x 4: 0, 1, 2, 3+ tiles under it), the log-odds of
    at least 1, 2 and 3 tiles under it (probabilities clipped to 1e-4 .. 1 - 1e-4)."""
    p = np.asarray(p, np.float64).reshape(-1, 4)
    at_least = np.clip(np.stack([1.0 - p[:, 0], p[:, 2] + p[:, 3], p[:, 3]], 1), 1e-4, 1 - 1e-4)
    return np.asarray(np.log(at_least / (1.0 - at_least)))


def geo_lift_scores(p: np.ndarray, quads: Sequence[Any], geometry: Geometry) -> np.ndarray:
    """Per candidate, the calibrated lift score (:data:`GEO_LIFT_WEIGHTS`) from the learned
    cue's probabilities ``p`` (n x 4: 0, 1, 2, 3+ tiles under it) and its quad's
    :func:`size_excess`."""
    logits = _at_least_logits(p)
    qs = _quads(quads)
    if len(qs) != len(logits):
        raise LayerInputError(f"quads: expected one per row of p ({len(logits)}), got "
                              f"{len(qs)}")
    wide, long_ = size_excess(qs, geometry).T if qs else (np.zeros(0), np.zeros(0))
    x = np.column_stack([logits, np.clip(wide, -10, 40) / 10,
                         np.clip(long_, -20, 20) / 10, np.minimum(np.abs(long_), 20) / 10,
                         np.ones(len(logits))])
    return np.asarray(1.0 / (1.0 + np.exp(-(x @ GEO_LIFT_WEIGHTS))))


def _supports(i: int, layer: int, cand: list[int], quads: list[np.ndarray],
              geometry: Geometry | None) -> tuple[int, ...]:
    """The tiles one layer down that tile ``i`` rests on: with geometry, those whose top face
    meets its bottom face on the table; without, every overlapping one."""
    if layer == 0:
        return ()
    if geometry is None:
        return tuple(sorted(cand))
    L, W, T = geometry.tile_mm
    mine = _footprint_mm(quads[i], geometry, (layer + 1) * T)
    keep = [j for j in cand
            if _overlap(mine, _footprint_mm(quads[j], geometry, layer * T))[0] > 0.02 * L * W]
    return tuple(sorted(keep))


@dataclass(frozen=True)
class LayeredTileReading(TileReading):
    """A :class:`vision.types.TileReading` with its layer estimate: ``layer`` (0 on the table),
    ``layer_confidence`` (0..1), ``layer_cue`` (the cue that decided, one of :data:`CUES`) and
    ``supports`` (indices, in the same reading, of the tiles it rests on). It is a TileReading
    everywhere one is expected; its JSON adds the three layer fields."""

    layer_confidence: float = 0.0
    layer_cue: str = "table"
    supports: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            conf = float(self.layer_confidence)
        except (TypeError, ValueError):
            raise LayerInputError(f"layer_confidence: expected a number in 0..1, got "
                                  f"{self.layer_confidence!r}") from None
        if not 0.0 <= conf <= 1.0:
            raise LayerInputError(f"layer_confidence: expected a number in 0..1, got {conf}")
        object.__setattr__(self, "layer_confidence", conf)
        if self.layer_cue not in CUES:
            raise LayerInputError(f"layer_cue: expected one of {CUES}, got {self.layer_cue!r}")
        sup = tuple(self.supports)
        if not all(isinstance(j, int) and j >= 0 for j in sup):
            raise LayerInputError(f"supports: expected tile indices >= 0, got {sup!r}")
        object.__setattr__(self, "supports", sup)

    @classmethod
    def of(cls, tile: TileReading, estimate: LayerEstimate) -> LayeredTileReading:
        """``tile`` with ``estimate``'s layer, confidence, cue and supports."""
        base = {f.name: getattr(tile, f.name) for f in dataclasses.fields(TileReading)}
        base["layer"] = int(estimate.layer)
        return cls(**base, layer_confidence=float(estimate.confidence),
                   layer_cue=estimate.cue, supports=tuple(estimate.supports))

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["layer_confidence"] = round(self.layer_confidence, 4)
        out["layer_cue"] = self.layer_cue
        out["supports"] = list(self.supports)
        return out


def apply_layers(reading: Any, estimates: Sequence[LayerEstimate]) -> Any:
    """A new :class:`vision.types.Reading` whose tiles are :class:`LayeredTileReading` values
    carrying the estimated layers, their confidence, cue and supports (in tile order)."""
    from vision.types import Reading

    if not isinstance(reading, Reading):
        raise LayerInputError(f"reading: expected a vision.types.Reading, got "
                              f"{type(reading).__name__}")
    if len(estimates) != len(reading.tiles):
        raise LayerInputError(f"estimates: expected one per tile ({len(reading.tiles)}), got "
                              f"{len(estimates)}")
    for i, e in enumerate(estimates):
        if not isinstance(e, LayerEstimate):
            raise LayerInputError(f"estimates[{i}]: expected a LayerEstimate, got "
                                  f"{type(e).__name__}")
    tiles = tuple(LayeredTileReading.of(t, e) for t, e in zip(reading.tiles, estimates))
    return dataclasses.replace(reading, tiles=tiles)


def read_layers(reading: Any, frame_bgr: np.ndarray, geometry: Geometry | None = None,
                history: LayerTracker | None = None, learned: bool = True) -> Any:
    """One call for the reader: estimate the layers of ``reading``'s tiles in ``frame_bgr``
    (through ``history.update`` when a tracker is given) and return the Reading with them. The
    reader's outlines are taken to be :data:`READER_OUTLINE_PX` off, so the size cues weigh only
    where one layer changes a tile's size by more than that. ``learned=False`` leaves the
    learned cue out of a one-photo estimate (a reading whose layers a tracker that watched the
    table decides)."""
    if history is not None:
        est = history.update(frame_bgr, list(reading.tiles), geometry,
                             outline_px=READER_OUTLINE_PX)
    else:
        est = estimate_layers(frame_bgr, list(reading.tiles), geometry,
                              outline_px=READER_OUTLINE_PX, learned=learned)
    return apply_layers(reading, est)


__all__ = ["CUES", "Geometry", "LayerEstimate", "LayerInputError", "LayerTracker",
           "LayeredTileReading",
           "apply_layers", "estimate_layers", "flat_log_sizes", "lens_distortion",
           "geo_lift_scores", "occlusion_score", "quad_iou", "read_layers", "size_excess",
           "size_heights", "tile_height"]
