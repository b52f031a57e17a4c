"""Long-lived services the dashboard keeps in ``app.extensions``.

* :class:`SessionHolder` (``app.extensions["session"]``): the store and the game being shown.
  A new game or a rematch replaces the :class:`~companion.session.Session`; everything about the
  game itself stays in the Session.
* :class:`StreamGate` (``app.extensions["sse_gate"]`` and ``["mjpeg_gate"]``): a cap on open
  streams, since every open stream holds one waitress worker thread.
* :class:`FrameSource` (``app.extensions["frames"]``, or None with no camera): annotated JPEG
  frames and the camera's state for the banner. :class:`StillFrames` is a source that serves
  generated frames (tests and the benchmark use it).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.session import Session
from companion.store import LogStore

#: The camera state shown when no frame source is registered.
NO_CAMERA: dict[str, Any] = {
    "state": "none",
    "message": "No camera in this mode: enter moves on this tablet.",
    "hints": ["Start the live companion with a camera to see the table here."],
}


class SessionHolder:
    """The store and the current Session (None until a game is started). Thread-safe."""

    def __init__(self, store: LogStore, session: Session | None = None) -> None:
        self.store = store
        self._session = session
        self._lock = threading.Lock()
        self.generation = 0  # bumped whenever the Session is replaced

    @classmethod
    def resume(cls, store: LogStore) -> "SessionHolder":
        """A holder on the latest game in ``store`` (none if the store is empty)."""
        return cls(store, Session.resume(store))

    @property
    def session(self) -> Session | None:
        return self._session

    def start(self, game: str, players: list[str], options: dict[str, Any] | None) -> Session:
        """Start a new game in the store and show it (raises DominoError on bad input)."""
        session = Session.start(self.store, game, players, options)
        with self._lock:
            self._session = session
            self.generation += 1
        return session


class StreamBusy(Exception):
    """More streams are open than the cap allows."""

    def response(self) -> Any:
        """The 503 answer (JSON, with Retry-After) a refused stream gets."""
        from flask import jsonify

        resp = jsonify(error=str(self))
        resp.status_code = 503
        resp.headers["Retry-After"] = "10"
        return resp


class StreamGate:
    """Counts open streams of one kind and refuses one past ``limit``."""

    def __init__(self, kind: str, limit: int) -> None:
        if limit < 0:
            raise ValueError(f"a {kind} stream cap must be 0 or more, got {limit}")
        self.kind = kind
        self.limit = limit
        self.open = 0
        self._lock = threading.Lock()

    def enter(self) -> None:
        """Take a slot or raise StreamBusy with a message saying why."""
        with self._lock:
            if self.open >= self.limit:
                raise StreamBusy(f"{self.open} {self.kind} streams are open, the cap is "
                                 f"{self.limit}; close another dashboard tab or raise the cap")
            self.open += 1

    def leave(self) -> None:
        with self._lock:
            self.open = max(0, self.open - 1)


class FrameSource(Protocol):
    """What the video blueprint needs from a camera pipeline."""

    def wait_frame(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        """The newest JPEG frame with a number above ``after``, waiting up to ``timeout`` s;
        None if none came."""

    def latest(self) -> tuple[int, bytes] | None:
        """The newest frame (number, JPEG), or None before the first."""

    def status(self) -> dict[str, Any]:
        """``{"state": "ok"|"offline"|..., "message": str, "hints": [str],
        "diagnostics": {name: value}}``."""


@dataclass
class StillFrames:
    """A frame source fed by :meth:`push` (tests, the benchmark, a future camera loop).

    It reports ``offline`` once ``stall_after`` seconds pass without a frame.
    """

    stall_after: float = 3.0
    _frames: list[tuple[int, bytes]] = field(default_factory=list)
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _last_t: float | None = None
    dropped: int = 0

    def push(self, jpeg: bytes) -> int:
        """Add one JPEG frame; returns its number."""
        if not jpeg.startswith(b"\xff\xd8"):
            raise ValueError(f"a frame must be JPEG data (starting FF D8), got {jpeg[:4]!r}...")
        with self._cond:
            n = self._frames[-1][0] + 1 if self._frames else 1
            self._frames = [(n, jpeg)]  # only the newest frame is kept: stale ones are dropped
            self._last_t = time.monotonic()
            self._cond.notify_all()
            return n

    def latest(self) -> tuple[int, bytes] | None:
        with self._cond:
            return self._frames[-1] if self._frames else None

    def wait_frame(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        with self._cond:
            self._cond.wait_for(lambda: bool(self._frames) and self._frames[-1][0] > after,
                                timeout=timeout)
            if self._frames and self._frames[-1][0] > after:
                return self._frames[-1]
            return None

    def status(self) -> dict[str, Any]:
        with self._cond:
            last = self._last_t
            n = self._frames[-1][0] if self._frames else 0
        if last is None:
            return {"state": "offline", "message": "The camera has sent no frame yet.",
                    "hints": ["Check the camera cable and that no other program uses it."],
                    "diagnostics": {"frames": 0}}
        age = time.monotonic() - last
        if age > self.stall_after:
            return {"state": "offline", "message": f"No frames for {age:.0f} s.",
                    "hints": ["Check the camera cable; the companion reconnects by itself."],
                    "diagnostics": {"frames": n, "seconds_since_frame": round(age, 1)}}
        return {"state": "ok", "message": "Camera running.", "hints": [],
                "diagnostics": {"frames": n, "seconds_since_frame": round(age, 1)}}


def jpeg_of_colour(bgr: tuple[int, int, int], size: tuple[int, int] = (320, 240),
                   text: str = "") -> bytes:
    """A plain JPEG frame of one colour with optional text (fake sources, tests, benchmark)."""
    import cv2
    import numpy as np

    w, h = size
    frame_bgr = np.zeros((h, w, 3), np.uint8)
    frame_bgr[:] = bgr
    if text:
        cv2.putText(frame_bgr, text, (10, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    ok, buf = cv2.imencode(".jpg", frame_bgr)
    if not ok:
        raise RuntimeError("OpenCV could not encode a JPEG frame")
    return buf.tobytes()
