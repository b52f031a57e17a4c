"""The still-table gate: read the table only when nothing moves and no hand is over it.

Each frame is shrunk to a small blurred grey picture. Two measures decide the state:

* motion: the fraction of pixels that changed since the previous frame;
* intrusion: the largest changed region, against the last still table, that touches the frame
  border and is larger than a tile (an arm reaching in always enters from the border; a tile
  put down is small and the hand that brought it has left), and whose pixels now look like skin
  (a classic YCrCb skin range). A border-touching change that does not look like skin (the hand
  that was there when the camera started has left, a moved cloth) is taken as the new still
  table once it has been still for ``still_frames`` frames.

States: ``waiting`` (no frame yet), ``motion``, ``hand``, ``settling`` (still, but not yet for
``still_frames`` frames) and ``stable`` (read now). A change that stays still for
``rebase_frames`` frames (1.5 s at 30 fps) although it touches the border (a bumped camera, a
hand that was on the table when the camera started and has left, a newspaper) becomes the new
still table, so the gate never blocks for good; one that looks like skin waits twice as long.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SMALL_W = 160


@dataclass(frozen=True)
class GateVerdict:
    state: str
    read_now: bool
    motion: float  # fraction of pixels that moved since the last frame
    intrusion: float  # area fraction of the largest border-touching change
    message: str

    def to_json(self) -> dict[str, object]:
        return {"state": self.state, "read_now": self.read_now, "motion": round(self.motion, 4),
                "intrusion": round(self.intrusion, 4), "message": self.message}


MESSAGES = {
    "waiting": "waiting for the camera",
    "motion": "something is moving over the table",
    "hand": "a hand is over the table",
    "settling": "table still, about to read",
    "stable": "reading the table",
}


class StillGate:
    """Feed frames with :meth:`update`; read the table when ``read_now`` is true."""

    def __init__(self, still_frames: int = 4, motion_threshold: float = 0.004,
                 intrusion_threshold: float = 0.02, pixel_delta: int = 18,
                 rebase_frames: int = 45) -> None:
        self.still_frames = still_frames
        self.motion_threshold = motion_threshold
        self.intrusion_threshold = intrusion_threshold
        self.pixel_delta = pixel_delta
        self.rebase_frames = rebase_frames
        self._prev: np.ndarray | None = None
        self._base: np.ndarray | None = None
        self._still = 0
        self._blocked_still = 0

    @staticmethod
    def _small(frame_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, w = frame_bgr.shape[:2]
        sw, sh = SMALL_W, max(2, round(SMALL_W * h / w))
        small_bgr = cv2.resize(frame_bgr, (sw, sh), interpolation=cv2.INTER_AREA)
        gray = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
        return cv2.GaussianBlur(gray, (5, 5), 0), small_bgr

    @staticmethod
    def _skin(small_bgr: np.ndarray) -> np.ndarray:
        ycrcb = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2YCrCb)
        return cv2.inRange(ycrcb, (40, 133, 77), (255, 173, 127)) > 0

    def _intrusion(self, small: np.ndarray, small_bgr: np.ndarray) -> tuple[float, float]:
        """(area fraction of the largest border-touching change, its skin fraction)."""
        if self._base is None or self._base.shape != small.shape:
            return 0.0, 0.0
        changed = (cv2.absdiff(small, self._base) > self.pixel_delta).astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        h, w = small.shape
        best, best_i = 0, -1
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if (x == 0 or y == 0 or x + bw >= w or y + bh >= h) and area > best:
                best, best_i = int(area), i
        if best_i < 0:
            return 0.0, 0.0
        skin = float(np.mean(self._skin(small_bgr)[labels == best_i]))
        return best / float(h * w), skin

    def update(self, frame_bgr: np.ndarray) -> GateVerdict:
        small, small_bgr = self._small(frame_bgr)
        if self._prev is None or self._prev.shape != small.shape:
            motion = 1.0
        else:
            motion = float(np.mean(cv2.absdiff(small, self._prev) > self.pixel_delta))
        self._prev = small
        intrusion, skin = self._intrusion(small, small_bgr)
        if motion > self.motion_threshold:
            self._still = 0
            self._blocked_still = 0
            state = "motion"
        elif intrusion > self.intrusion_threshold:
            self._still = 0
            self._blocked_still += 1
            state = "hand"
            patience = 2 * self.rebase_frames if skin > 0.3 else self.still_frames
            if self._blocked_still >= patience:
                self._base = small
                self._blocked_still = 0
                state = "settling"
        else:
            self._blocked_still = 0
            self._still += 1
            state = "stable" if self._still >= self.still_frames else "settling"
        if state == "stable":
            self._base = small
        return GateVerdict(state, state == "stable", motion, intrusion, MESSAGES[state])
