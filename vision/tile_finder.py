"""The learned tile finder: a small segmentation network that marks every face-up tile's top face.

The network (``models/tile_finder.onnx``, card ``models/tile_finder.md``, rebuilt by
``models/train_tile_finder.py`` from renderer scenes only) sees the picture scaled so its long
side is :data:`WORK_SIDE` px (a small picture, such as a close-up of one tile, is scaled to
:data:`CLOSE_UP_SIDE` px instead) and gives two probability maps at half that resolution:

- **kernel**: each visible face-up tile's top face shrunk about its centre to
  :data:`KERNEL_SHRINK` of its length and width, so touching tiles give separate blobs;
- **face**: the whole visible top face of every face-up tile.

Face-down tiles, hands, markers and table decorations are background. Post-processing is OpenCV
only: the kernel map is brought to the working size and thresholded, each connected blob's
minimum-area rectangle is grown back by ``1 / KERNEL_SHRINK`` (or replaced by the rectangle of
the face pixels nearest the blob, when the two agree) and mapped to image pixels; blobs of
several touching tiles are split into tiles the size of the single tiles near them (kernel
rectangles fitted one at a time: L, T and V shapes, hubs, a toe against its tile), else at
higher thresholds, straight ones into whole tiles (:func:`tiles_from_maps`). A tile whose grown
outline leaves the picture, or whose blob touches the picture's border, is ``cut``. A single
blob's tile shaped like two tiles side by side (twice as wide as its neighbours, squat) is
flagged ``split`` as a cut-apart tile is (:func:`_flag_pairs`).
Every tile's size comes from the tile itself (there is no per-frame tile-width estimate).

A picture of a table whose sure tiles are small (:data:`ZOOM_WIDTH` working px wide) and in
which kernels of several tiles ran together (a ``split`` tile) is worked again with the tiles
about :data:`ZOOM_TARGET` px wide (up to the picture's own resolution): there the kernels of end
to end tiles come apart and no fitted tile straddles two (rendered tuning scenes, 2026-11-22:
tiles right 0.9672 -> 0.9790, false tiles 18 -> 8). That pass is dropped when it finds many more
sure tiles than the first (:data:`ZOOM_GROWTH`: table grain at twice the scale).

A small picture (a close-up) is worked at :data:`CLOSE_UP_SIDE`; where that pass finds several
tiles narrower than :data:`CLOSE_UP_MIN_WIDTH` of its side it is taken for a picture of a table and
worked at :data:`WORK_SIDE`, unless that finds no sure tile while the close-up pass did
(:data:`TABLE_KEEPS_SURE`: two to four small tiles in a phone close-up); where the close-up pass
finds no sure tile at all (:data:`RETRY_SCORE`), it is worked again at the :data:`RETRY_SIDES`
(small tiles under glare, on pale card or on lit wood). Rendered small-tile close-ups
(``render_small_closeup`` drawn 100 and 160 px, enlarged to 400 as the reader does; choice seeds
1,750,000-149, shipped finder): tiles found 0.4513 -> 0.5877 (table pass kept) -> 0.6104 (retry at
128 px); held-out check seeds 1,700,000-149: 0.5000 -> 0.6378, tiles right 0.4872 -> 0.6106
(2026-11-22). Frames of a table (long side :data:`SMALL_SIDE` or more) are never worked this way.

One ``onnxruntime`` session is made per :class:`TileFinder`, on the CPU with a fixed thread
count; :func:`shared_finder` keeps one for the process. Nothing is downloaded.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from domino_models import MODEL_DIR

from companion.errors import DominoError
from vision.onnx_session import INFERENCE_THREADS, open_session
from vision.quad_math import quad_centre, vec_length

MODEL_NAME = "tile_finder.onnx"
"""File name of the shipped tile finder in ``models/``."""

REBUILD = "python models/train_tile_finder.py --seed 7 (see models/tile_finder.md)"
"""How to rebuild a missing or broken model file."""

CLOSE_UP_MODEL_NAME = "tile_finder_closeup.onnx"
"""File name of the shipped close-up finder in ``models/``: the same network fine-tuned with
close-ups of small tiles added, used for small pictures worked at close-up sizes only (see
:class:`TileFinder`)."""

CLOSE_UP_REBUILD = ("python models/train_tile_finder.py --init ... --name tile_finder_closeup "
                    "(see models/tile_finder_closeup.md)")
"""How to rebuild a missing or broken close-up model file."""

#: Long side (px) the network sees a picture at.
WORK_SIDE = 640
#: Long side (px) of small pictures (close-ups of one tile) for the network.
CLOSE_UP_SIDE = 192
#: Pictures whose long side is below this are close-ups (the reader enlarges small photos to
#: 400 px before detection).
SMALL_SIDE = 520
#: A small picture in which the close-up pass finds more than one tile, narrower (median) than
#: this share of its long side, is a picture of a table, not a close-up of one tile: it is
#: worked again at :data:`WORK_SIDE` (at the close-up size a whole table's tiles are a few
#: working pixels wide and side-by-side kernels run together). Rendered close-ups' tiles are
#: 0.22-0.42 of the side wide (``render_closeup``; ``render_small_closeup`` draws 0.08-0.22,
#: not in the shipped model's training); real phone close-ups were measured down to 0.09, which
#: is why a lone tile is never worked again.
CLOSE_UP_MIN_WIDTH = 0.1
#: Whether a small picture taken for a table (:data:`CLOSE_UP_MIN_WIDTH`) keeps the close-up
#: pass's tiles when that pass found sure tiles (kernel score :data:`ZOOM_SCORE`) and the pass at
#: :data:`WORK_SIDE` finds none: two or three small tiles in a close-up are narrower than
#: CLOSE_UP_MIN_WIDTH, and at the table size they are too small to be found at all.
TABLE_KEEPS_SURE = True
#: A close-up (a small picture worked at :data:`CLOSE_UP_SIDE`) in which that pass finds fewer
#: than :data:`RETRY_FEW` sure tiles (kernel score :data:`ZOOM_SCORE`) is worked again at each of
#: these long sides (working px) in turn, and the first pass that finds more sure tiles is
#: taken (empty: never). Larger sides find fewer: a 100 px photo enlarged is blurred, and the
#: network knows tiles 15-40 working px wide. Chosen on rendered small-tile close-ups (seeds
#: 1,750,000-149 drawn 100 and 160 px, table pass kept): tiles found 0.5877 with none, 0.6104
#: (128,), 0.6039 (144,), 0.6039 (160,), 0.6104 (112,) (tiles right 0.5990 / 0.5942 / 0.5925 /
#: 0.5795), 0.6136 (128, 256) (right 0.6023, one pass more); 288 to 448 px (tried before the
#: table pass was kept) found none more. Re-checked with the close-up network
#: (:data:`CLOSE_UP_MODEL_NAME`): found 0.8458 with none, 0.8474 (128,), 0.8474 (160,), 0.8458
#: (112,), 0.8506 (128, 256); without :data:`TABLE_KEEPS_SURE` 0.6136.
#: Session 18 (2026-11-23): (128, 256) with :data:`RETRY_SCORE` 0.9, with
#: ``vision.detect.CLOSE_UP_SIDES`` (128, 192, 256): rendered phone close-ups of one tile
#: (``render_phone_closeup``, choice seeds 3,000,000-599) right 583 -> 585 of 600, false 3 -> 2;
#: small-tile close-ups (1,750,000-149 at 100 and 160 px) right 522 -> 523 of 616; live-size
#: crops (400 x 400, two in each of tuning scenes 1,600,000-149) and single close-ups
#: (``render_closeup``, 1,760,000-199) read exactly as before (``runs/lead18/*.py``, scratch).
#: The lever was found on the real single-tile photos' misses (small tiles on lit wood, whose
#: 192 px pass gives a kernel of 0.81 that the detector's checks then drop); see
#: docs/benchmarks.md (session 18) for what that means for their figure.
RETRY_SIDES: tuple[int, ...] = (128, 256)
RETRY_FEW = 1
#: The kernel score a close-up pass's tile needs to count as sure for the retry (above): a
#: close-up with fewer than :data:`RETRY_FEW` such tiles is worked again, and a retry pass is
#: taken where it finds more of them. Above :data:`ZOOM_SCORE` (0.8, before session 18): a
#: small tile's weak 0.8-0.9 kernel at 192 px is often an outline the checks refuse, while at
#: 256 px the same tile's kernel is 0.9 and surer.
RETRY_SCORE = 0.9
#: A picture of a table whose sure tiles are narrower than this many working px (their upper
#: quartile width: a few specks of a speckled table found as tiles do not count) is worked again
#: larger (:data:`ZOOM_TARGET`), at most :data:`ZOOM_MAX` times :data:`WORK_SIDE` and never
#: beyond its own long side (0: never): small tiles in chains are where the kernels of
#: end-to-end tiles run together and fitted tiles straddle two.
ZOOM_WIDTH = 18.0
#: Only found tiles whose kernel score is at least this count for :data:`ZOOM_WIDTH` (the
#: detector's own least score, ``vision.detect.NET_LOW_SCORE``: specks of a speckled table are
#: small and weak).
ZOOM_SCORE = 0.8
#: The larger pass is not taken when it finds more than ZOOM_GROWTH times as many tiles of
#: :data:`ZOOM_SCORE` as the first, and 2 more: at twice the scale the grains of a speckled
#: table turn into tiles, while kernels run together at the first scale add a few.
ZOOM_GROWTH = 1.5
#: Whether only a picture in which kernels of several tiles ran together (a found tile is
#: ``split``) is worked again larger: where every small tile came apart the larger pass finds
#: the same tiles at about twice the network's time.
ZOOM_SPLIT_ONLY = True
#: The tile width (working px, upper quartile of the sure tiles) a picture worked again larger
#: is scaled to.
ZOOM_TARGET = 20.0
#: The largest working side of the larger pass, as a multiple of :data:`WORK_SIDE`.
ZOOM_MAX = 2.0
#: A larger pass less than this many times the first pass's side is not worth its time.
ZOOM_LEAST = 1.15
#: The kernel is the top face shrunk to this fraction of its length and width.
KERNEL_SHRINK = 0.6
#: The network's input height and width are padded to a multiple of this.
STRIDE = 16
#: Kernel probability threshold.
KERNEL_THRESHOLD = 0.5
#: Smallest kernel blob kept, in working-size pixels (a tile 8 px wide has a kernel of ~46).
MIN_KERNEL_AREA = 12
#: Outlines from the face map nearest each kernel blob (else the grown kernel rectangle).
FACE_REFINE = True
#: The face outline replaces the grown kernel rectangle when its area is within these factors of
#: the grown rectangle's (chosen on rendered tuning scenes: (0.67, 1.33) lost tiles whose kernel
#: came out narrow).
FACE_AREA = (0.6, 1.5)
#: Kernel blobs whose mean probability is below this claim no face pixels for their outline.
CLAIM_SCORE = 0.66
#: Higher kernel thresholds tried, in order, to split a blob that is not one tile.
SPLIT_LEVELS = (0.7, 0.85, 0.95)
#: A kernel blob fills at least this fraction of its minimum-area rectangle to be one tile.
SOLID = 0.65
#: Smallest and largest length / width of a grown tile.
MIN_ASPECT, MAX_ASPECT = 1.3, 3.2
#: A blob that is not one tile is split by fitting kernel rectangles of the size of the
#: tile-shaped blobs near it (up to FIT_NEIGHBOURS of them; :func:`_fit_kernels`) when at least
#: one such blob is in the picture: one rectangle at a time, at FIT_ANGLES directions, where it
#: holds the most kernel probability less the blob in the rest of its tile, while at least
#: FIT_COVER of it is blob; when none fits, the threshold split below is used.
FIT_NEIGHBOURS = 6
FIT_ANGLES = 36
FIT_COVER = 0.6
#: A piece the fitted tiles leave of a blob is a tile when it is tile-shaped and at least
#: FIT_REST of a fitted kernel's area.
FIT_REST = 0.4
#: Whether a solid kernel blob too short to be a tile's kernel (length under MIN_ASPECT of its
#: width once grown: a tile the network marked only in part), that no split makes a tile of,
#: becomes the tile the face pixels nearest it outline (:func:`_face_outline`), when those are
#: 2:1-ish and RESCUE_WIDTH of the width the kernel gives. On the 500 rendered tuning scenes
#: (1,600,000-499, 2026-11-22; detector and reader of 04568be / a57ee40): tiles right 7015 ->
#: 7018 of 7143, frames 424 -> 425, false tiles 18 -> 19 (a rescued outline on part of a 2-2),
#: no right tile lost. A tile far larger than the network's training (a tile 44 working px wide
#: near the camera, marked only in part, face included) is not rescued: its face is short too.
FACE_RESCUE = True
RESCUE_WIDTH = (0.8, 1.3)
#: A single tile-shaped blob's tile PAIR_WIDE times as wide as the single tiles near it,
#: PAIR_LONG times as long and at most PAIR_ASPECT long to wide is two tiles side by side whose
#: kernels ran together (:func:`_flag_pairs`): flagged ``split``, so that a picture of small
#: tiles is worked again larger and the detector splits its place again (0: never). On the 500
#: rendered tuning scenes (1,600,000-499, 2026-11-22; runs/lead11/tune.py, reader of f53daf6)
#: it flags one tile (1,600,157: a 2-7 and a 4-7 side by side, then both found): tiles right
#: 7029 -> 7031 of 7143, frames 440 -> 441, false tiles 13 -> 12, missed 79 -> 77, nothing else
#: changed. Of the sure single tiles there, those at least 1.5 times as wide as their
#: neighbours and under 1.7 long to wide were true tiles only 1.0-1.2 times as long (squat
#: outlines of doubles) or 1.9 or more long to wide (nearer the camera).
PAIR_WIDE = 1.6
PAIR_LONG = (1.1, 1.6)
PAIR_ASPECT = 1.5
#: Whether blobs are split by fitting kernel rectangles at all (False: threshold split only).
FIT_SPLIT = True
#: The fitted kernels' width must be at least FIT_THICKNESS of the blob's thickness (twice its
#: largest inscribed radius): tile-shaped specks of texture (a set profile's colour view of a
#: wood table is full of them) must not set the size a blob of whole tiles is cut into. A blob
#: of kernels touching at angles is about one kernel thick (a hub's crossing about 1.4, a
#: merged side-by-side pair 2: ratios 0.7 and 0.5 pass).
FIT_THICKNESS = 0.4
#: Kernels at least this long (working px) are fitted at half resolution (faster).
FIT_COARSE = 12.0
#: A blob at the picture's border is fitted (a chain or hub running out of the picture) when
#: it is this many times as long as the kernels near it; shorter, it is one cut tile.
FIT_LONGER = 1.6


class TileFinderError(DominoError, ValueError):
    """A tile-finder model file that cannot be used."""


class TileFinderMissingError(TileFinderError, FileNotFoundError):
    """The ONNX model file is not there."""


@dataclass(frozen=True)
class FoundTile:
    """One tile found by the network: top-face corners (4, 2) in image pixels (corners 0-1 at
    one short end, 2-3 at the other), whether it runs out of the picture, and the network's mean
    kernel probability over its blob (``score``); ``split``: it came from a blob of several
    tiles' kernels run together, cut apart by the post-processing."""

    corners: np.ndarray
    cut: bool
    score: float
    split: bool = False


def default_model_path() -> Path:
    """Where the shipped model lives (it may be missing: :class:`TileFinder` says so)."""
    return MODEL_DIR / MODEL_NAME


def default_close_up_model_path() -> Path:
    """Where the shipped close-up model lives (it may be missing: :class:`TileFinder` says so
    when it first works a close-up)."""
    return MODEL_DIR / CLOSE_UP_MODEL_NAME


class TileFinder:
    """Tiles in BGR pictures from the ONNX tile finder (the shipped one, or ``model_path``), on
    the CPU with ``threads`` intra-op threads (default
    :data:`vision.onnx_session.INFERENCE_THREADS`).

    A small picture (long side under :data:`SMALL_SIDE`) worked at a close-up size (not at
    :data:`WORK_SIDE`) is seen by the close-up network ``close_up_path``: by default the shipped
    close-up model (:data:`CLOSE_UP_MODEL_NAME`) when ``model_path`` is the shipped model, else
    ``model_path`` itself (one network for every picture, as when trying a model). It is opened
    when the first close-up is worked; frames of a table never use it. On rendered pictures
    (2026-11-22) the fine-tuned close-up network finds more small tiles in close-ups (small-tile
    close-ups, choice seeds 1,750,000-149: tiles right 0.5990 -> 0.6964) but reads held-out
    table frames worse than the shipped table network (``evaluate --rendered 40``: tiles right
    0.9874 -> 0.9820), hence two networks."""

    def __init__(self, model_path: str | Path | None = None, threads: int = INFERENCE_THREADS,
                 close_up_path: str | Path | None = None) -> None:
        path = default_model_path() if model_path is None else Path(model_path)
        if close_up_path is not None:
            self.close_up_path = Path(close_up_path)
        elif path == default_model_path():
            self.close_up_path = default_close_up_model_path()
        else:
            self.close_up_path = path
        self._close_up_session = None
        if not path.is_file():
            raise TileFinderMissingError(f"no tile finder model at {path}; rebuild it with "
                                         f"{REBUILD}")
        self._session = open_session(path, threads, TileFinderError, REBUILD)
        inputs, outputs = self._session.get_inputs(), self._session.get_outputs()
        if len(inputs) != 1 or len(outputs) != 1 or len(inputs[0].shape) != 4 \
                or inputs[0].shape[1] != 3:
            raise TileFinderError(f"{path} must take one (1, 3, H, W) image and give one map "
                                  f"stack; it takes {[i.shape for i in inputs]}; rebuild it "
                                  f"with {REBUILD}")
        self._input = inputs[0].name
        self.path = path
        self.threads = threads

    @staticmethod
    def work_scale(height: int, width: int, side: int | None = None) -> float:
        """Factor from image pixels to the network's working pixels (``side``: the working long
        side; default by the picture's size, see :data:`SMALL_SIDE`)."""
        if side is None:
            side = CLOSE_UP_SIDE if max(height, width) < SMALL_SIDE else WORK_SIDE
        return side / max(height, width)

    def maps(self, frame_bgr: np.ndarray, side: int | None = None) -> tuple[np.ndarray, float]:
        """The kernel and face probability maps ``(2, h/2, w/2)`` float32 of a BGR picture at
        working size (h, w), and the factor from image pixels to working pixels (``side``: as
        in :meth:`work_scale`)."""
        if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 \
                or frame_bgr.shape[2] != 3 or frame_bgr.dtype != np.uint8:
            raise TileFinderError("the tile finder takes a BGR uint8 (H, W, 3) picture, got "
                                  f"{getattr(frame_bgr, 'shape', type(frame_bgr).__name__)}")
        h, w = frame_bgr.shape[:2]
        s = self.work_scale(h, w, side)
        session = (self._close_up() if max(h, w) < SMALL_SIDE and side != WORK_SIDE
                   else self._session)
        wh, ww = max(1, round(h * s)), max(1, round(w * s))
        work = cv2.resize(frame_bgr, (ww, wh),
                          interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
        ph, pw = -wh % STRIDE, -ww % STRIDE
        if ph or pw:
            work = cv2.copyMakeBorder(work, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        blob = np.ascontiguousarray(work.transpose(2, 0, 1)[None], dtype=np.float32)
        (out,) = session.run(None, {self._input: blob})
        return out[0, :, :(wh + 1) // 2, :(ww + 1) // 2], s

    def _close_up(self) -> object:
        """The session of the close-up network (the table network's when they are one file),
        opened on first use."""
        if self.close_up_path == self.path:
            return self._session
        if self._close_up_session is None:
            if not self.close_up_path.is_file():
                raise TileFinderMissingError(f"no close-up tile finder model at "
                                             f"{self.close_up_path}; rebuild it with "
                                             f"{CLOSE_UP_REBUILD}")
            session = open_session(self.close_up_path, self.threads, TileFinderError,
                                   CLOSE_UP_REBUILD)
            if session.get_inputs()[0].name != self._input:
                raise TileFinderError(f"{self.close_up_path} takes "
                                      f"{session.get_inputs()[0].name!r}, not {self._input!r}; "
                                      f"rebuild it with {CLOSE_UP_REBUILD}")
            self._close_up_session = session
        return self._close_up_session

    def find(self, frame_bgr: np.ndarray) -> list[FoundTile]:
        """Every face-up tile in a BGR uint8 picture (see the module docstring)."""
        return self.find_with_maps(frame_bgr)[0]

    def find_with_maps(self, frame_bgr: np.ndarray) -> tuple[list[FoundTile], np.ndarray, float]:
        """:meth:`find`'s tiles, and the maps and scale of :meth:`maps` they came from."""
        maps, s = self.maps(frame_bgr)
        h, w = frame_bgr.shape[:2]
        found = tiles_from_maps(maps[0], maps[1], s, w, h)
        sure = sum(t.score >= ZOOM_SCORE for t in found)
        if max(h, w) < SMALL_SIDE and len(found) > 1 and float(np.median(
                [_sides_of(t.corners)[0] for t in found])) < CLOSE_UP_MIN_WIDTH * max(h, w):
            table, table_s = self.maps(frame_bgr, WORK_SIDE)  # a small picture of a table
            tiles = tiles_from_maps(table[0], table[1], table_s, w, h)
            if not TABLE_KEEPS_SURE or not sure or any(t.score >= ZOOM_SCORE for t in tiles):
                found, maps, s = tiles, table, table_s
        elif max(h, w) < SMALL_SIDE:
            surest = sum(t.score >= RETRY_SCORE for t in found)
            for side in RETRY_SIDES if surest < RETRY_FEW else ():
                again, again_s = self.maps(frame_bgr, side)  # small tiles in a close-up
                more = tiles_from_maps(again[0], again[1], again_s, w, h)
                if sum(t.score >= RETRY_SCORE for t in more) > surest:
                    found, maps, s = more, again, again_s
                    break
        larger = self.larger(frame_bgr, found, s)
        return larger if larger is not None else (found, maps, s)

    def larger(self, frame_bgr: np.ndarray, found: list[FoundTile], scale: float,
               split_only: bool | None = None
               ) -> tuple[list[FoundTile], np.ndarray, float] | None:
        """The tiles, maps and scale of a BGR picture worked again larger, whose pass at
        ``scale`` found ``found`` (:func:`_zoom_side`; ``split_only``: only where a found tile
        was cut from run-together kernels, by default :data:`ZOOM_SPLIT_ONLY`), or None where
        it is not worked again or the larger pass finds too many more sure tiles
        (:data:`ZOOM_GROWTH`)."""
        h, w = frame_bgr.shape[:2]
        side = _zoom_side(found, scale, h, w, split_only)
        if side is None:
            return None
        big_maps, big_s = self.maps(frame_bgr, side)  # small tiles: worked again larger
        big = tiles_from_maps(big_maps[0], big_maps[1], big_s, w, h)
        sure = sum(t.score >= ZOOM_SCORE for t in found)
        if sum(t.score >= ZOOM_SCORE for t in big) > ZOOM_GROWTH * sure + 2:
            return None
        return big, big_maps, big_s


def _zoom_side(found: list[FoundTile], scale: float, h: int, w: int,
               split_only: bool | None = None) -> int | None:
    """The working long side to work an ``h`` x ``w`` picture again at, whose first pass at
    ``scale`` (working px per image px) found ``found``; None when it is not worked again (a
    small picture, fewer than two sure tiles, no split tile with ``split_only`` (by default
    :data:`ZOOM_SPLIT_ONLY`), tiles :data:`ZOOM_WIDTH` wide or wider, or a gain in scale under
    :data:`ZOOM_LEAST`)."""
    sure = [t for t in found if t.score >= ZOOM_SCORE]
    if (ZOOM_WIDTH <= 0 or max(h, w) < SMALL_SIDE or len(sure) < 2
            or ((ZOOM_SPLIT_ONLY if split_only is None else split_only)
                and not any(t.split for t in found))):
        return None
    wide = float(np.percentile([_sides_of(t.corners)[0] for t in sure], 75)) * scale
    side = min(max(h, w), round(WORK_SIDE * ZOOM_MAX),
               round(max(h, w) * scale * ZOOM_TARGET / max(wide, 1e-6)))
    if wide >= ZOOM_WIDTH or side <= max(h, w) * scale * ZOOM_LEAST:
        return None
    return side


def _rect_quad(pts: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The minimum-area rectangle of pixel centres ``pts`` (N, 2) as its pixel extent: corners
    (corners 0-1 at one short end), length and width."""
    (cx, cy), (a, b), angle = cv2.minAreaRect(pts.astype(np.float32))
    a, b = a + 1.0, b + 1.0  # pixel centres -> pixel extent
    t = math.radians(angle if a >= b else angle + 90.0)
    ua = np.array([math.cos(t), math.sin(t)])
    ub = np.array([-ua[1], ua[0]])
    c = np.array([cx, cy])
    hl, hw = max(a, b) / 2, min(a, b) / 2
    quad = np.array([c - hl * ua - hw * ub, c - hl * ua + hw * ub,
                     c + hl * ua + hw * ub, c + hl * ua - hw * ub])
    return quad, 2 * hl, 2 * hw


#: A pixel's own second moments (a unit square: 1/12 along each axis).
_PIXEL_EXTENT = np.eye(2) / 12.0


def _moment_quad(pts: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The rectangle with the same centre and second moments as the pixel centres ``pts``
    (N, 2): a uniform rectangle L long has variance L^2 / 12 along its axis, so a few stray
    pixels move it far less than they move the minimum-area rectangle. Corners (0-1 at one
    short end), length and width, as :func:`_rect_quad`."""
    p = pts.astype(np.float64)
    c = p.mean(axis=0)
    # np.cov((p - c).T) step by step (the same numbers, a third of its cost on small blobs)
    x = np.array((p - c).T)
    x -= x.mean(axis=1)[:, None]
    cov = np.dot(x, x.T)
    cov *= np.true_divide(1, len(p) - 1)
    cov = cov + _PIXEL_EXTENT  # + a pixel's own extent
    vals, vecs = np.linalg.eigh(cov)
    ua = vecs[:, 1]
    ub = np.array([-ua[1], ua[0]])
    hl, hw = math.sqrt(3.0 * max(vals[1], 0.0)), math.sqrt(3.0 * max(vals[0], 0.0))
    quad = np.array([c - hl * ua - hw * ub, c - hl * ua + hw * ub,
                     c + hl * ua + hw * ub, c + hl * ua - hw * ub])
    return quad, 2 * hl, 2 * hw


def _grown(quad: np.ndarray, factor: float) -> np.ndarray:
    c = quad_centre(quad)
    return c + (quad - c) * factor


def _tile_shaped(length: float, width: float, area: float) -> bool:
    """A kernel blob's rectangle (grown to tile size) is 2:1-ish and the blob fills it."""
    return (MIN_ASPECT <= length / max(width, 1e-6) <= MAX_ASPECT
            and area >= SOLID * (length * width) * KERNEL_SHRINK ** 2)


def _split_blob(full: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The pixels of a kernel blob that is not one tile (touching tiles whose kernels ran
    together) split at the first higher threshold of :data:`SPLIT_LEVELS` that leaves two or
    more seeds; each blob pixel goes to its nearest seed. The blob as it is when none does."""
    x0, y0 = int(xs.min()), int(ys.min())
    w, h = int(xs.max()) - x0 + 1, int(ys.max()) - y0 + 1
    blob = np.zeros((h, w), np.uint8)
    blob[ys - y0, xs - x0] = 1
    roi = full[y0:y0 + h, x0:x0 + w]
    for level in SPLIT_LEVELS:
        seeds = ((roi >= level) & (blob > 0)).astype(np.uint8)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(seeds, connectivity=4)
        big = [k for k in range(1, n) if stats[k, 4] >= MIN_KERNEL_AREA // 2]
        if len(big) < 2:
            continue
        keep = np.isin(lab, big)
        _, nearest = cv2.distanceTransformWithLabels((~keep).astype(np.uint8), cv2.DIST_L2, 3,
                                                     labelType=cv2.DIST_LABEL_PIXEL)
        # nearest: label of the nearest seed pixel; seed pixel label -> its component
        seed_lab = np.zeros(int(nearest.max()) + 1, np.int32)
        sy, sx = np.nonzero(keep)
        seed_lab[nearest[sy, sx]] = lab[sy, sx]
        owner = seed_lab[nearest[ys - y0, xs - x0]]
        return [(xs[owner == k], ys[owner == k]) for k in big if np.any(owner == k)]
    return [(xs, ys)]


def _chain_split(kquad: np.ndarray, a: float, b: float) -> list[np.ndarray]:
    """Tile quads (working px) of a straight kernel blob ``a`` long and ``b`` wide that holds
    several tiles end to end: kernels are KERNEL_SHRINK of a tile, tiles are 2:1, so n tiles
    make a blob (n - 1 + KERNEL_SHRINK) tile lengths long. [] when no whole n fits."""
    width = b / KERNEL_SHRINK
    tile_len = 2.0 * width
    n_real = (a - KERNEL_SHRINK * tile_len) / tile_len + 1.0
    n = round(n_real)
    if n < 2 or abs(n_real - n) > 0.3:
        return []
    c = kquad.mean(axis=0)
    ua = (kquad[2] + kquad[3]) / 2 - (kquad[0] + kquad[1]) / 2
    ua = ua / np.linalg.norm(ua)
    ub = np.array([-ua[1], ua[0]])
    extent = a + (1.0 - KERNEL_SHRINK) * tile_len
    step = extent / n
    quads = []
    for i in range(n):
        ci = c + ua * (-extent / 2 + (i + 0.5) * step)
        hl, hw = step / 2, width / 2
        quads.append(np.array([ci - hl * ua - hw * ub, ci - hl * ua + hw * ub,
                               ci + hl * ua + hw * ub, ci + hl * ua - hw * ub]))
    return quads


def _rotation(angle_deg: float, centre: tuple[float, float], side: int) -> np.ndarray:
    """The affine map (2, 3) turning a picture ``angle_deg`` about ``centre`` into the middle
    of a ``side`` x ``side`` canvas."""
    m = cv2.getRotationMatrix2D(centre, angle_deg, 1.0)
    m[:, 2] += np.array([side / 2.0 - centre[0], side / 2.0 - centre[1]])
    return m


def _fit_kernels(full: np.ndarray, xs: np.ndarray, ys: np.ndarray, klen: float, kwid: float
                 ) -> tuple[list[np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
    """Kernel rectangles ``klen`` x ``kwid`` (working px, corners 0-1 at one short end) fitted
    one at a time to a kernel blob (pixels ``xs``, ``ys`` of the kernel map ``full``) that holds
    several tiles touching at angles (an L, a T, a hub, a toe against its tile), and the pixels
    the tiles of the fitted kernels leave of the blob, as
    4-connected pieces of at least :data:`MIN_KERNEL_AREA` px (a kernel too small or thin to be
    fitted, or a neck).

    At each of :data:`FIT_ANGLES` directions the blob (and its kernel probability) is turned so
    the direction is horizontal and summed over every ``klen`` x ``kwid`` box; the box holding
    the most probability, less the blob in the rest of the tile it stands for (a true kernel has
    none there but the necks where its tile touches others), with at least :data:`FIT_COVER` of
    it blob, is a kernel; its tile (the box grown by ``1 / KERNEL_SHRINK``) is taken out of the
    blob, and the next box is looked for in what is left, until no box is blob enough. Kernels
    at least :data:`FIT_COARSE` px long are fitted on the map at half resolution."""
    f = 2 if klen >= FIT_COARSE else 1
    kl, kw = klen / f, kwid / f
    lk, wk = max(3, round(kl)), max(2, round(kw))
    # the whole tile's box, of the same parity so both boxes have one centre
    lt = lk + 2 * round((kl / KERNEL_SHRINK - kl) / 2)
    wt = wk + 2 * round((kw / KERNEL_SHRINK - kw) / 2)
    pad = math.ceil(klen)
    x0, y0 = int(xs.min()) - pad, int(ys.min()) - pad
    w, h = int(xs.max()) - x0 + pad + 1, int(ys.max()) - y0 + pad + 1
    blob = np.zeros((h, w), np.float32)
    blob[ys - y0, xs - x0] = 1.0
    prob = np.zeros((h, w), np.float32)
    prob[ys - y0, xs - x0] = full[ys, xs]
    if f > 1:
        small = ((w + f - 1) // f, (h + f - 1) // f)
        blob = (cv2.resize(blob, small, interpolation=cv2.INTER_AREA) >= 0.5).astype(np.float32)
        prob = cv2.resize(prob, small, interpolation=cv2.INTER_AREA) * blob
        h, w = blob.shape
    side = math.ceil(math.hypot(w, h)) + 2
    centre = ((w - 1) / 2.0, (h - 1) / 2.0)
    need = FIT_COVER * lk * wk

    def score(bp: np.ndarray) -> np.ndarray:
        """Per box position of a turned (blob, probability) picture: the box's probability
        less the blob in the rest of its tile, or -1 where less than FIT_COVER of it is blob."""
        sums = cv2.boxFilter(bp, -1, (lk, wk), normalize=False, borderType=cv2.BORDER_CONSTANT)
        whole = cv2.boxFilter(bp[:, :, 0], -1, (lt, wt), normalize=False,
                              borderType=cv2.BORDER_CONSTANT)
        cover = sums[:, :, 0]
        mass = sums[:, :, 1] - (whole - cover)
        mass[cover < need] = -1.0
        return mass

    both = np.dstack([blob, prob])
    turns = []
    for k in range(FIT_ANGLES):
        m = _rotation(180.0 * k / FIT_ANGLES, centre, side)
        bp = cv2.warpAffine(both, m, (side, side), flags=cv2.INTER_NEAREST)
        turns.append((m, cv2.invertAffineTransform(m), bp, score(bp)))
    quads: list[np.ndarray] = []
    taken = np.zeros((h, w), np.uint8)
    total = max(int(np.count_nonzero(blob)), 1)
    reach_x, reach_y = lt // 2 + 1, wt // 2 + 1  # how far a box's score sees
    for _ in range(int(total / (0.5 * lk * wk)) + 1):
        best: tuple[float, int, int, int] | None = None
        for k, turn in enumerate(turns):
            _, top, _, (bx, by) = cv2.minMaxLoc(turn[3])
            if top > 0 and (best is None or top > best[0]):
                best = (top, k, bx, by)
        if best is None:
            break
        _, k, bx, by = best
        back = turns[k][1]
        # box centre in the turned canvas (an even box's anchor is right of / below its middle)
        c = back @ np.array([bx - (1 - lk % 2) / 2.0, by - (1 - wk % 2) / 2.0, 1.0])
        ua = back[:, 0].copy()  # the turned canvas's x axis in the picture
        ub = np.array([-ua[1], ua[0]])
        hl, hw = lk / 2.0, wk / 2.0
        quad = np.array([c - hl * ua - hw * ub, c - hl * ua + hw * ub,
                         c + hl * ua + hw * ub, c + hl * ua - hw * ub])
        # back to working px: small pixel i covers working pixels f*i .. f*i + f - 1
        hl_full, hw_full = klen / 2.0, kwid / 2.0
        cf = c * f + (f - 1) / 2.0 + (x0, y0)
        quads.append(np.array([cf - hl_full * ua - hw_full * ub, cf - hl_full * ua + hw_full * ub,
                               cf + hl_full * ua + hw_full * ub, cf + hl_full * ua - hw_full * ub]))
        tile = _grown(quad, 1.0 / KERNEL_SHRINK)
        cv2.fillConvexPoly(taken, np.round(tile * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        if np.count_nonzero(blob * (1 - taken)) < 0.5 * lk * wk:
            break
        for m, _, bp, sc in turns:
            turned = cv2.transform(tile[None], m)[0]
            cv2.fillConvexPoly(bp, np.round(turned * 16).astype(np.int32), (0.0, 0.0),
                               cv2.LINE_8, 4)
            # scores change only within a box's reach of the tile taken out
            ax0, ay0 = np.floor(turned.min(axis=0)).astype(int) - (reach_x, reach_y)
            ax1, ay1 = np.ceil(turned.max(axis=0)).astype(int) + (reach_x + 1, reach_y + 1)
            ax0, ay0, ax1, ay1 = max(ax0, 0), max(ay0, 0), min(ax1, side), min(ay1, side)
            if ax1 <= ax0 or ay1 <= ay0:
                continue
            sx0, sy0 = max(ax0 - reach_x, 0), max(ay0 - reach_y, 0)
            sx1, sy1 = min(ax1 + reach_x, side), min(ay1 + reach_y, side)
            part = score(bp[sy0:sy1, sx0:sx1])
            sc[ay0:ay1, ax0:ax1] = part[ay0 - sy0:ay1 - sy0, ax0 - sx0:ax1 - sx0]
    # what the fitted tiles leave of the blob, at the map's own resolution
    fw, fh = int(xs.max()) - x0 + pad + 1, int(ys.max()) - y0 + pad + 1
    left = np.zeros((fh, fw), np.uint8)
    left[ys - y0, xs - x0] = 1
    for q in quads:
        tile_q = _grown(q - (x0, y0), 1.0 / KERNEL_SHRINK)
        cv2.fillConvexPoly(left, np.round(tile_q * 16).astype(np.int32), 0, cv2.LINE_8, 4)
    n, lab, st, _ = cv2.connectedComponentsWithStats(left, connectivity=4)
    rest = []
    for i in range(1, n):
        if st[i, 4] >= MIN_KERNEL_AREA:
            ry, rx = np.nonzero(lab == i)
            rest.append((rx + x0, ry + y0))
    return quads, rest


def _reference_kernel(centre: np.ndarray, centres: np.ndarray, sizes: np.ndarray
                      ) -> tuple[float, float] | None:
    """The median kernel (length, width) of the (up to :data:`FIT_NEIGHBOURS`) tile-shaped
    blobs (``centres`` (N, 2), ``sizes`` (N, 2)) nearest ``centre``; None when there is none."""
    if len(centres) == 0:
        return None
    d = np.linalg.norm(centres - centre, axis=1)
    near = np.argsort(d)[:FIT_NEIGHBOURS]
    a, b = np.median(sizes[near], axis=0)
    return float(a), float(b)


def _thick_enough(xs: np.ndarray, ys: np.ndarray, ref: tuple[float, float]) -> bool:
    """Whether kernels of the reference width ``ref[1]`` can make up the blob of pixels ``xs``,
    ``ys``: the width is at least :data:`FIT_THICKNESS` of the blob's thickness (twice the
    largest distance from a blob pixel to the blob's edge)."""
    x0, y0 = int(xs.min()) - 1, int(ys.min()) - 1
    mask = np.zeros((int(ys.max()) - y0 + 2, int(xs.max()) - x0 + 2), np.uint8)
    mask[ys - y0, xs - x0] = 1
    thickness = 2.0 * float(cv2.distanceTransform(mask, cv2.DIST_L2, 3).max())
    return ref[1] >= FIT_THICKNESS * thickness


def tiles_from_maps(kernel: np.ndarray, face: np.ndarray | None, scale: float, img_w: int,
                    img_h: int) -> list[FoundTile]:
    """Tiles from the kernel (and face) probability maps at half the working size.

    The kernel map is brought to working size and thresholded; each blob's minimum-area
    rectangle grown by ``1 / KERNEL_SHRINK`` is a tile. A blob that is not tile-shaped (the
    kernels of touching tiles ran together) is split by fitting kernel rectangles the size of
    the tile-shaped blobs near it (:func:`_fit_kernels`, with :data:`FIT_SPLIT`); each fitted
    kernel is a tile with the fit's centre and direction and the median length and width of the
    single tiles' outlines near it; a tile-shaped piece the fitted tiles leave is a tile of its
    own. Where no tile-shaped blob is in the picture or no kernel fits, the blob is split at
    higher thresholds (:func:`_split_blob`) and a straight piece that is still too long is
    cut into whole tiles (:func:`_chain_split`); a solid blob too short for a kernel that no
    split makes a tile of takes the outline of the face nearest it (:data:`FACE_RESCUE`,
    :func:`_face_outline`). With the face map (and :data:`FACE_REFINE`),
    the face pixels nearest to a single blob, inside its grown rectangle enlarged by a quarter,
    give the outline instead (the rectangle of their second moments, :func:`_moment_quad`) when
    it agrees with the grown one (2:1-ish, area ratio within :data:`FACE_AREA`).
    Corners are in image pixels (``scale`` = working px per image px)."""
    ww, wh = max(1, round(img_w * scale)), max(1, round(img_h * scale))

    def up(m: np.ndarray) -> np.ndarray:
        return cv2.resize(m, (m.shape[1] * 2, m.shape[0] * 2),
                          interpolation=cv2.INTER_LINEAR)[:wh, :ww]

    full = up(kernel)
    mask = (full >= KERNEL_THRESHOLD).astype(np.uint8)
    n, labels, stats_arr, centroids = cv2.connectedComponentsWithStats(mask, connectivity=4)
    stats = stats_arr.tolist()  # per blob [x, y, w, h, area] as Python ints
    # per blob: its pixels, mean probability, minimum-area rectangle and its long and short side
    blobs: dict[int, tuple[np.ndarray, np.ndarray, float, np.ndarray, float, float]] = {}
    for k in range(1, n):
        x, y, bw, bh, area = stats[k]
        if area < MIN_KERNEL_AREA:
            continue
        ys, xs = np.nonzero(labels[y:y + bh, x:x + bw] == k)
        xs, ys = xs + x, ys + y
        kquad, a, b = _rect_quad(np.column_stack([xs, ys]))
        blobs[k] = (xs, ys, float(full[ys, xs].mean()), kquad, a, b)
    nearest = fmask = None
    if face is not None and FACE_REFINE and blobs:
        fmask = up(face) >= 0.5
        # a weak blob inside a strong blob's grown rectangle (a fragment of that tile's kernel,
        # around a pip) claims no face pixels: they are the strong blob's tile
        strong = [_grown(v[3], 1.0 / KERNEL_SHRINK).astype(np.float32) for v in blobs.values()
                  if v[2] >= CLAIM_SCORE]
        seeds = mask
        for k, v in blobs.items():
            c = (float(centroids[k][0]), float(centroids[k][1]))
            if v[2] < CLAIM_SCORE and any(cv2.pointPolygonTest(q, c, False) > 0 for q in strong):
                if seeds is mask:
                    seeds = mask.copy()
                seeds[v[1], v[0]] = 0
        _, nearest = cv2.distanceTransformWithLabels(1 - seeds, cv2.DIST_L2, 3,
                                                     labelType=cv2.DIST_LABEL_CCOMP)
    tiles: list[FoundTile] = []

    def emit(quad: np.ndarray, width: float, touches: bool, score: float,
             split: bool = False) -> None:
        quad = (quad + 0.5) / scale - 0.5
        slack = 0.15 * width / scale
        beyond = ((quad[:, 0] < -0.5 - slack) | (quad[:, 0] > img_w - 0.5 + slack)
                  | (quad[:, 1] < -0.5 - slack) | (quad[:, 1] > img_h - 0.5 + slack)).any()
        cut = bool(touches or beyond)
        if not cut:
            quad[:, 0] = np.clip(quad[:, 0], -0.5, img_w - 0.5)
            quad[:, 1] = np.clip(quad[:, 1], -0.5, img_h - 0.5)
        tiles.append(FoundTile(quad, cut, score, split))

    def touching(k: int) -> bool:
        x, y, bw, bh, _ = stats[k]
        return bool(x == 0 or y == 0 or x + bw >= ww or y + bh >= wh)

    def fitted_split(xs: np.ndarray, ys: np.ndarray, ref: tuple[float, float], score: float,
                     border: bool) -> bool:
        """Split a blob by fitted kernels (:func:`_fit_kernels`) of the reference size ``ref``;
        False when none fits. The fitted tiles are emitted at the end (sized by the single tiles
        near them); a piece they leave that is tile-shaped and at least FIT_REST of a kernel is
        a tile of its own (a kernel too thin or short to be fitted). At the picture's ``border``
        a fitted or left tile whose kernel reaches the border is cut."""
        fitted, rest = _fit_kernels(full, xs, ys, *ref)
        if not fitted:
            return False

        def at_border(q: np.ndarray) -> bool:
            return border and bool((q < 0.5).any() or (q[:, 0] > ww - 1.5).any()
                                   or (q[:, 1] > wh - 1.5).any())

        deferred.extend((q, score, at_border(q)) for q in fitted)
        for px, py in rest:
            pquad, pa, pb = _rect_quad(np.column_stack([px, py]))
            if (MIN_ASPECT <= pa / max(pb, 1e-6) <= MAX_ASPECT
                    and len(px) >= FIT_REST * ref[0] * ref[1]):
                emit(_grown(pquad, 1.0 / KERNEL_SHRINK), pb / KERNEL_SHRINK, at_border(pquad),
                     score, True)
        return True

    shaped_ids = [k for k, v in blobs.items() if not touching(k)
                  and _tile_shaped(v[4] / KERNEL_SHRINK, v[5] / KERNEL_SHRINK, float(stats[k][4]))]
    ref_centres = np.array([centroids[k] for k in shaped_ids]).reshape(-1, 2)
    ref_sizes = np.array([blobs[k][4:6] for k in shaped_ids]).reshape(-1, 2)
    deferred: list[tuple[np.ndarray, float, bool]] = []  # fitted kernels, score, cut
    single_ids: set[int] = set()  # tiles of single tile-shaped blobs: the fitted tiles' sizes
    for k, (xs, ys, score, kquad, a, b) in blobs.items():
        x, y, bw, bh, area = stats[k]
        length, width = a / KERNEL_SHRINK, b / KERNEL_SHRINK
        touches = touching(k)
        if touches:  # a cut tile's blob is any part of one ...
            ref = _reference_kernel(centroids[k], ref_centres, ref_sizes) if FIT_SPLIT else None
            if (ref is None or a <= FIT_LONGER * ref[0] or not _thick_enough(xs, ys, ref)
                    or not fitted_split(xs, ys, ref, score, True)):
                emit(_grown(kquad, 1.0 / KERNEL_SHRINK), width, True, score)
            continue
        shaped = _tile_shaped(length, width, float(area))
        if not shaped and a <= 2.2 * b:
            # no longer than one tile's kernel, but not tile-shaped: the visible part of a tile
            # running out of the picture when its grown outline leaves it
            grown = _grown(kquad, 1.0 / KERNEL_SHRINK)
            if ((grown < -0.5).any() or (grown[:, 0] > ww - 0.5).any()
                    or (grown[:, 1] > wh - 0.5).any()):
                emit(grown, width, True, score)
                continue
        if not shaped and FIT_SPLIT:
            ref = _reference_kernel(centroids[k], ref_centres, ref_sizes)
            if (ref is not None and _thick_enough(xs, ys, ref)
                    and fitted_split(xs, ys, ref, score, False)):
                continue
        if not shaped:
            before = len(tiles)
            for px, py in _split_blob(full, xs, ys):
                if len(px) < MIN_KERNEL_AREA:
                    continue
                pquad, pa, pb = _rect_quad(np.column_stack([px, py]))
                pl, pw = pa / KERNEL_SHRINK, pb / KERNEL_SHRINK
                if MIN_ASPECT <= pl / max(pw, 1e-6) <= MAX_ASPECT:
                    emit(_grown(pquad, 1.0 / KERNEL_SHRINK), pw, False, score, True)
                elif len(px) >= SOLID * pa * pb:
                    for q in _chain_split(pquad, pa, pb):
                        emit(q, pw, False, score, True)
            if (len(tiles) == before and FACE_RESCUE and nearest is not None
                    and fmask is not None and a <= 2.2 * b and area >= SOLID * a * b):
                rescued = _face_outline(fmask, nearest, nearest[ys[0], xs[0]], kquad, b)
                if rescued is not None:
                    emit(rescued, b / KERNEL_SHRINK, False, score)
            continue
        quad = _grown(kquad, 1.0 / KERNEL_SHRINK)
        single_ids.add(len(tiles))
        if nearest is not None and fmask is not None:
            own = nearest[ys[0], xs[0]]
            box = _grown(quad, 1.25)
            x0, y0 = np.floor(box.min(axis=0)).astype(int).clip(0)
            x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 1
            region = fmask[y0:y1, x0:x1] & (nearest[y0:y1, x0:x1] == own)
            fy, fx = np.nonzero(region)
            if len(fx) >= 8:
                fquad, fl, fw = _moment_quad(np.column_stack([fx + x0, fy + y0]))
                if (1.5 <= fl / fw <= 2.7
                        and FACE_AREA[0] <= fl * fw / (length * width) <= FACE_AREA[1]
                        and vec_length(quad_centre(fquad) - quad_centre(quad)) < 0.25 * width):
                    quad = fquad
        emit(quad, width, False, score)
    # fitted kernels: centre and direction from the fit, length and width those of the
    # outlines of the single tiles near them (the kernel rectangles are a little fat)
    singles = [(quad_centre(t.corners), _sides_of(t.corners))
               for i, t in enumerate(tiles) if i in single_ids]
    if PAIR_WIDE > 0 and len(singles) > 1:
        _flag_pairs(tiles, single_ids, singles)
    for q, score, cut in deferred:
        q_img = (quad_centre(q) + 0.5) / scale - 0.5  # the fitted kernel's centre, image px
        near = sorted(singles, key=lambda cs: vec_length(cs[0] - q_img))[:FIT_NEIGHBOURS]
        grown = _grown(q, 1.0 / KERNEL_SHRINK)
        if near:
            wid, length = np.median([cs[1] for cs in near], axis=0) * scale
            ua = (q[2] + q[3] - q[0] - q[1]) / 2
            ua = ua / max(vec_length(ua), 1e-9)
            ub = np.array([-ua[1], ua[0]])
            m = quad_centre(q)
            hl, hw = length / 2, wid / 2
            grown = np.array([m - hl * ua - hw * ub, m - hl * ua + hw * ub,
                              m + hl * ua + hw * ub, m + hl * ua - hw * ub])
        emit(grown, vec_length(grown[1] - grown[0]), cut, score, True)
    return tiles


def _flag_pairs(tiles: list[FoundTile], single_ids: set[int],
                singles: list[tuple[np.ndarray, tuple[float, float]]]) -> None:
    """Flag as ``split`` (in place) each tile of a single blob shaped like two tiles side by
    side whose kernels ran together: :data:`PAIR_WIDE` times as wide as the median of the
    (up to :data:`FIT_NEIGHBOURS`) other single tiles nearest it, :data:`PAIR_LONG` times as
    long and at most :data:`PAIR_ASPECT` long to wide (two kernels side by side make a blob
    about 1.2 by 1.6 tile widths, grown 2 by 2.7: twice a tile's width, 1.33 its length)."""
    centres = np.array([c for c, _ in singles])
    sizes = np.array([wl for _, wl in singles])
    d = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    d[d < 1e-6] = np.inf  # a tile is not its own neighbour
    k = min(FIT_NEIGHBOURS, len(singles) - 1)
    near = np.argpartition(d, k - 1, axis=1)[:, :k]
    usable = np.isfinite(np.take_along_axis(d, near, axis=1))
    if usable.all():
        ref = np.median(sizes[near], axis=1)
    else:  # a tile at the place of another: its usable neighbours only
        ref = np.array([np.median(sizes[near[j][usable[j]]], axis=0) if usable[j].any()
                        else (np.inf, np.inf) for j in range(len(singles))])
    w, length = sizes[:, 0], sizes[:, 1]
    pair = ((w >= PAIR_WIDE * ref[:, 0]) & (length >= PAIR_LONG[0] * ref[:, 1])
            & (length <= PAIR_LONG[1] * ref[:, 1]) & (length <= PAIR_ASPECT * w))
    ids = sorted(single_ids)
    for j in np.flatnonzero(pair):
        t = tiles[ids[j]]
        tiles[ids[j]] = FoundTile(t.corners, t.cut, t.score, True)


def _face_outline(fmask: np.ndarray, nearest: np.ndarray, own: int, kquad: np.ndarray,
                  kwid: float) -> np.ndarray | None:
    """The outline (working px) of the face pixels of ``fmask`` nearest a kernel blob (label
    ``own`` of ``nearest``) that came out too short to be a tile's kernel (``kquad``, its
    minimum-area rectangle, ``kwid`` wide): the rectangle of their second moments when it is
    2:1-ish (1.5 to 2.7), as wide as the kernel says a tile is (within :data:`RESCUE_WIDTH`) and
    centred within half a tile width of the kernel; else None."""
    width = kwid / KERNEL_SHRINK
    box = _grown(kquad, 2.0 / KERNEL_SHRINK)
    x0, y0 = np.floor(box.min(axis=0)).astype(int).clip(0)
    x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 1
    fy, fx = np.nonzero(fmask[y0:y1, x0:x1] & (nearest[y0:y1, x0:x1] == own))
    if len(fx) < 8:
        return None
    fquad, fl, fw = _moment_quad(np.column_stack([fx + x0, fy + y0]))
    if not (1.5 <= fl / max(fw, 1e-6) <= 2.7
            and RESCUE_WIDTH[0] <= fw / width <= RESCUE_WIDTH[1]
            and vec_length(quad_centre(fquad) - quad_centre(kquad)) < 0.5 * width):
        return None
    return fquad


def _sides_of(corners: np.ndarray) -> tuple[float, float]:
    """(width, length) of a quad with corners 0-1 at one short end."""
    return (vec_length(corners[1] - corners[0]), vec_length(corners[2] - corners[1]))


def tiles_from_kernel(kernel: np.ndarray, scale: float, img_w: int, img_h: int) -> list[FoundTile]:
    """Tiles from the kernel map alone (see :func:`tiles_from_maps`)."""
    return tiles_from_maps(kernel, None, scale, img_w, img_h)


_SHARED: dict[Path, TileFinder] = {}
_LOCK = threading.Lock()


def shared_finder(model_path: str | Path | None = None) -> TileFinder:
    """One :class:`TileFinder` per model path for the whole process (made on first use)."""
    path = default_model_path() if model_path is None else Path(model_path)
    with _LOCK:
        finder = _SHARED.get(path)
        if finder is None:
            finder = TileFinder(path)
            _SHARED[path] = finder
        return finder
