"""A virtual camera that plays pictures (rendered scenes, a recording) with fault knobs.

It behaves like a real webcam for everything downstream: frames arrive at ``fps`` with fresh
sensor noise each (so a healthy camera never repeats a byte-identical frame), and faults can be
switched on by frame number, as OctoPrint's virtual printer does for printers:

* ``freeze``: the same frame is delivered again and again (a hung driver);
* ``drop``: a fraction of frames never arrives;
* ``disconnect``: reading raises :class:`~vision.sources.CameraError` (cable pulled);
* ``stall``: reading blocks for a while (a stalled network stream);
* ``glare``: a blown-out light spot over part of the table;
* ``hand``: a skin-coloured arm reaching in over the table.

Knobs are given as :class:`Faults` (frame ranges) and can also be changed while it runs
(``camera.faults = ...``), which is how the tests and the dashboard's fault buttons use it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import cv2
import numpy as np

from vision.sources import CameraError, Frame

FrameRange = tuple[int, int]  # [start, stop) in frame numbers
#: Pre-drawn sensor-noise fields the virtual camera cycles through.
NOISE_FIELDS = 4


def _in(ranges: Sequence[FrameRange], k: int) -> bool:
    return any(a <= k < b for a, b in ranges)


@dataclass(frozen=True)
class Faults:
    """Frame ranges ``[start, stop)`` in which each fault is on."""

    freeze: tuple[FrameRange, ...] = ()
    drop_rate: float = 0.0
    disconnect: tuple[FrameRange, ...] = ()
    stall: tuple[FrameRange, ...] = ()
    stall_s: float = 0.0
    glare: tuple[FrameRange, ...] = ()
    glare_at: tuple[float, float] = (0.5, 0.5)  # centre, as fractions of width/height
    glare_radius: float = 0.08  # fraction of the width
    hand: tuple[FrameRange, ...] = ()
    hand_from: tuple[float, float] = (0.5, 1.0)  # entry point on the border (fractions)
    hand_to: tuple[float, float] = (0.5, 0.5)  # fingertips (fractions)

    def __post_init__(self) -> None:
        if not 0.0 <= self.drop_rate < 1.0:
            raise ValueError(f"drop_rate must be in [0, 1), got {self.drop_rate}")
        for name in ("freeze", "disconnect", "stall", "glare", "hand"):
            for r in getattr(self, name):
                if len(r) != 2 or r[0] > r[1]:
                    raise ValueError(f"{name}: expected frame ranges (start, stop) with start <= "
                                     f"stop, got {r!r}")


def add_glare(frame_bgr: np.ndarray, centre: tuple[float, float], radius: float) -> np.ndarray:
    """A blown-out lamp reflection: a saturated spot with a soft rim."""
    h, w = frame_bgr.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = max(2.0, radius * w)
    d2 = ((xx - centre[0] * w) ** 2 + (yy - centre[1] * h) ** 2) / (r * r)
    alpha = np.clip(1.6 * np.exp(-d2 * 1.5), 0.0, 1.0)[..., None]
    out = frame_bgr.astype(np.float32) * (1 - alpha) + 255.0 * alpha
    return np.clip(out, 0, 255).astype(np.uint8)


def add_hand(frame_bgr: np.ndarray, entry: tuple[float, float], tip: tuple[float, float],
             skin_bgr: tuple[int, int, int] = (120, 150, 205)) -> np.ndarray:
    """A skin-coloured arm from ``entry`` (on the border) to the fingertips at ``tip``."""
    h, w = frame_bgr.shape[:2]
    p0 = np.array([entry[0] * w, entry[1] * h])
    p1 = np.array([tip[0] * w, tip[1] * h])
    d = p1 - p0
    n = np.array([-d[1], d[0]]) / max(1e-6, float(np.hypot(*d)))
    width = 0.09 * w
    arm = np.array([p0 + n * width * 0.6, p1 + n * width * 0.45, p1 - n * width * 0.45,
                    p0 - n * width * 0.6], dtype=np.int32)
    out = frame_bgr.copy()
    cv2.fillConvexPoly(out, arm, skin_bgr, lineType=cv2.LINE_AA)
    cv2.circle(out, tuple(int(v) for v in p1), int(width * 0.55), skin_bgr, -1, cv2.LINE_AA)
    return out


class VirtualCamera:
    """A camera that plays ``frames`` (a list of pictures, or a function of the frame number
    giving the picture, or None at the end).

    ``realtime=True`` paces reads at ``fps`` like a real device; tests pass ``False``.
    ``noise_sigma`` adds fresh Gaussian sensor noise to every frame (seeded).
    ``loop=True`` plays a list again from the start instead of ending.
    """

    def __init__(self, frames: Sequence[np.ndarray] | Callable[[int], np.ndarray | None],
                 fps: float = 30.0, seed: int = 0, noise_sigma: float = 1.5,
                 faults: Faults | None = None, realtime: bool = True, loop: bool = False,
                 description: str = "virtual camera") -> None:
        if fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self._frames = frames
        self.fps = fps
        self.noise_sigma = noise_sigma
        self.faults = faults or Faults()
        self.realtime = realtime
        self.loop = loop
        self.description = description
        self._rng = np.random.default_rng(seed)
        self._k = 0  # frame number on the virtual clock
        self._delivered = 0
        self._last: np.ndarray | None = None
        self._t0 = time.monotonic()
        self._closed = False
        self._noise_key: tuple[int, ...] | None = None
        self._noise_bank: list[np.ndarray] = []

    def _picture(self, k: int) -> np.ndarray | None:
        if callable(self._frames):
            return self._frames(k)
        n = len(self._frames)
        if n == 0:
            return None
        if k >= n and not self.loop:
            return None
        return self._frames[k % n]

    def read(self) -> Frame | None:
        if self._closed:
            raise CameraError("the virtual camera was closed", tried=self.description,
                              advice="open it again")
        while True:
            k = self._k
            self._k += 1
            f = self.faults
            if self.realtime:
                due = self._t0 + k / self.fps
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            if _in(f.disconnect, k):
                raise CameraError(f"{self.description} is disconnected (frame {k})",
                                  tried=self.description, advice="plug the camera back in")
            if _in(f.stall, k) and f.stall_s > 0:
                time.sleep(f.stall_s)
                self._t0 += f.stall_s
            if f.drop_rate and self._rng.random() < f.drop_rate:
                continue
            if _in(f.freeze, k) and self._last is not None:
                return Frame(self._last, self._t0 + k / self.fps, self._delivered_index())
            picture = self._picture(k)
            if picture is None:
                return None
            img = picture
            if _in(f.glare, k):
                img = add_glare(img, f.glare_at, f.glare_radius)
            if _in(f.hand, k):
                img = add_hand(img, f.hand_from, f.hand_to)
            if self.noise_sigma > 0:
                img = self._add_noise(img)
            self._last = img
            return Frame(img, self._t0 + k / self.fps, self._delivered_index())

    def _add_noise(self, img: np.ndarray) -> np.ndarray:
        """Sensor noise: one of a few pre-drawn noise fields (drawing 2.7 million normals per
        720p frame would cost the pipeline a good part of a core), shifted by a random offset
        so no two consecutive frames get the same noise."""
        key = img.shape
        if self._noise_key != key:
            self._noise_key = key
            self._noise_bank = [np.round(self._rng.normal(0.0, self.noise_sigma, key)).astype(np.int16)
                                for _ in range(NOISE_FIELDS)]
        field = self._noise_bank[int(self._rng.integers(NOISE_FIELDS))]
        shift = int(self._rng.integers(1, img.shape[1]))
        noisy = img.astype(np.int16) + np.roll(field, shift, axis=1)
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def _delivered_index(self) -> int:
        i = self._delivered
        self._delivered += 1
        return i

    def close(self) -> None:
        self._closed = True

    def with_faults(self, **changes: object) -> None:
        """Switch fault knobs while running, e.g. ``cam.with_faults(freeze=((100, 200),))``."""
        self.faults = replace(self.faults, **changes)  # type: ignore[arg-type]


__all__ = ["VirtualCamera", "Faults", "add_glare", "add_hand"]
