"""Capture in its own thread: a bounded queue, a watchdog, paced reconnects, frozen frames.

:class:`CaptureThread` owns one camera source (anything with ``read() -> Frame | None`` and
``close()``, see :mod:`vision.sources` and :mod:`vision.virtual_camera`). It reads as fast as the
source delivers and keeps only the newest frames: when the consumer is slower, the oldest queued
frame is dropped and counted. :meth:`CaptureThread.status` tells the dashboard what is going on
and what to do about it:

* ``starting``: no frame yet;
* ``live``: frames arrive;
* ``stalled``: no frame for ``stall_s`` seconds although the source is open;
* ``hung``: the source's ``read()`` has not returned for ``hung_s`` seconds (a driver or a
  network stream that blocks for ever). A watchdog gives that source up without waiting for it
  and opens the camera anew in a fresh reader thread; the old thread closes its source and ends
  if its ``read()`` ever returns, and whatever it read then is thrown away. The state lasts
  until a picture comes from the new source;
* ``frozen``: the same picture for ``frozen_s`` seconds while the driver says all is well;
* ``offline``: the source failed or could not be opened; reconnects are tried every
  ``reconnect_s`` seconds;
* ``ended``: a file or folder came to its end.
"""

from __future__ import annotations

import queue
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Any, Callable

import cv2
import numpy as np

from companion.errors import DominoError
from vision.sources import Frame, FrameSkipped, Source


#: What to tell a person for each camera state.
HINTS: dict[str, str] = {
    "starting": "starting the camera...",
    "live": "",
    "stalled": "no pictures from the camera for {age:.0f} s: check its cable or network; "
               "reconnecting by itself",
    "frozen": "the picture has not changed for {age:.0f} s: the camera may be hung; unplug and "
              "replug it, or choose another camera",
    "hung": "the camera stopped answering ({error}); opening it again",
    "offline": "camera offline: {error}; trying again every {retry:.1f} s",
    "ended": "the recording has ended",
}


@dataclass(frozen=True)
class CameraStatus:
    state: str
    message: str
    frames: int
    dropped: int
    fps: float
    last_frame_age_s: float | None
    reconnects: int
    source: str
    hangs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "message": self.message, "frames": self.frames,
                "dropped": self.dropped, "fps": round(self.fps, 1),
                "last_frame_age_s": None if self.last_frame_age_s is None
                else round(self.last_frame_age_s, 2),
                "reconnects": self.reconnects, "hangs": self.hangs, "source": self.source}


def frame_signature(frame_bgr: np.ndarray) -> int:
    """A cheap fingerprint of a picture: equal for byte-identical frames (frozen camera)."""
    small = cv2.resize(frame_bgr, (64, 36), interpolation=cv2.INTER_AREA)
    return zlib.crc32(small.tobytes())


class CaptureThread:
    """Reads a source in a background thread; see the module docstring."""

    def __init__(self, open_source: Callable[[], Source], queue_size: int = 2,
                 stall_s: float = 3.0, frozen_s: float = 5.0, reconnect_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic, hung_s: float = 10.0) -> None:
        if queue_size < 1:
            raise ValueError(f"queue_size must be at least 1, got {queue_size}")
        if not hung_s > 0:
            raise ValueError(f"hung_s must be a positive number of seconds, got {hung_s}")
        self._open = open_source
        self._queue: queue.Queue = queue.Queue(maxsize=queue_size)
        self.stall_s = stall_s
        self.frozen_s = frozen_s
        self.reconnect_s = reconnect_s
        self.hung_s = hung_s
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None  # the current reader
        self._watchdog: threading.Thread | None = None
        self._generation = 0  # the current reader's number; older readers were given up
        self._reading_since: float | None = None  # when the current reader's read() began
        self._hung = False  # the last reader was given up and no picture came since
        self.hangs = 0
        self._source: Source | None = None
        self.description = "camera"
        self.frames = 0
        self.dropped = 0
        self.reconnects = 0
        self._error = ""
        self._ended = False
        self._opened_at: float | None = None
        self._last_frame_at: float | None = None
        self._last_change_at: float | None = None
        self._last_sig: int | None = None
        self._fps_window: list[float] = []

    # lifecycle --------------------------------------------------------------------------------
    def start(self) -> "CaptureThread":
        self._spawn_reader()
        self._watchdog = threading.Thread(target=self._watch, name="capture-watchdog",
                                          daemon=True)
        self._watchdog.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._watchdog is not None:
            self._watchdog.join(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
        with self._lock:  # a reader still blocked in read(): its source is closed from here
            src, self._source = self._source, None
        _close(src)

    def _spawn_reader(self) -> None:
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._reading_since = None
        self._thread = threading.Thread(target=self._run, args=(generation,),
                                        name=f"capture-{generation}", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        """Give up a reader whose ``read()`` has not returned for ``hung_s`` seconds."""
        while not self._stop.wait(min(0.5, self.hung_s / 4)):
            with self._lock:
                since = self._reading_since
                if since is None or self._clock() - since <= self.hung_s:
                    continue
                self.hangs += 1
                self._hung = True
                self._error = (f"{self.description} gave no answer for "
                               f"{self._clock() - since:.0f} s")
                self._source = None  # left to its blocked reader, which closes it
            self._spawn_reader()

    def _current(self, generation: int) -> bool:
        with self._lock:
            return generation == self._generation and not self._stop.is_set()

    def _run(self, generation: int) -> None:
        """One reader: opens the source and reads it until it ends, the capture stops, or the
        watchdog gives this reader up. It always closes the source it opened."""
        src: Source | None = None
        try:
            while self._current(generation):
                if src is None:
                    src = self._try_open(generation)
                    if src is None:
                        self._stop.wait(self.reconnect_s)
                        continue
                with self._lock:
                    if generation == self._generation:
                        self._reading_since = self._clock()
                try:
                    frame = src.read()
                    if not self._current(generation):
                        return  # given up while it read: the picture is stale
                    if frame is not None:
                        _check_frame(frame)
                        self._deliver(frame)
                        continue
                except FrameSkipped as exc:  # one frame lost; the source goes on
                    self._said_if_current(generation, exc)
                    continue
                except Exception as exc:  # noqa: BLE001 - a driver may raise anything: reconnect
                    self._said_if_current(generation, exc, lost=src)
                    _close(src)
                    src = None
                    self._stop.wait(self.reconnect_s)
                    continue
                finally:
                    with self._lock:
                        if generation == self._generation:
                            self._reading_since = None
                with self._lock:
                    self._ended = True
                return  # (the source is let go and closed below)
        finally:
            with self._lock:
                if self._source is src:
                    self._source = None
            _close(src)

    def _said_if_current(self, generation: int, exc: BaseException,
                         lost: Source | None = None) -> None:
        """Record a reader's error for the dashboard, unless that reader was given up; ``lost``:
        the source that failed, no longer the capture's."""
        with self._lock:
            if generation != self._generation:
                return
            self._error = _said(exc)
            if lost is not None and self._source is lost:
                self._source = None

    def _try_open(self, generation: int) -> Source | None:
        try:
            src = self._open()
        except Exception as exc:  # noqa: BLE001 - an opener may raise anything: try again later
            self._said_if_current(generation, exc)
            return None
        with self._lock:
            if generation != self._generation:
                stale = True
            else:
                stale = False
                if self._opened_at is not None:
                    self.reconnects += 1
                self._source = src
                self.description = getattr(src, "description", "camera")
                self._opened_at = self._clock()
                if not self._hung:
                    self._error = ""
        if stale:
            _close(src)
            return None
        return src

    def _deliver(self, frame: Frame) -> None:  # (a checked frame: _check_frame)
        now = self._clock()
        sig = frame_signature(frame.frame_bgr)
        with self._lock:
            self.frames += 1
            self._last_frame_at = now
            if self._hung:
                self._hung = False
                self._error = ""
            if sig != self._last_sig or self._last_change_at is None:
                self._last_change_at = now
                self._last_sig = sig
            self._fps_window.append(now)
            if len(self._fps_window) > 30:
                del self._fps_window[0]
        while True:
            try:
                self._queue.put_nowait(frame)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    with self._lock:
                        self.dropped += 1
                except queue.Empty:
                    pass

    # consumer side ----------------------------------------------------------------------------
    def get(self, timeout: float | None = None) -> Frame | None:
        """The next queued frame (the newest ones are kept), or None after ``timeout``."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def get_latest(self, timeout: float | None = None) -> Frame | None:
        """The newest queued frame (waiting up to ``timeout`` for one), skipping older queued
        ones: they went stale while the consumer was busy (a reading). Skipped frames are
        counted as dropped."""
        frame = self.get(timeout)
        if frame is None:
            return None
        while True:
            try:
                newer = self._queue.get_nowait()
            except queue.Empty:
                return frame
            with self._lock:
                self.dropped += 1
            frame = newer

    @property
    def ended(self) -> bool:
        with self._lock:
            return self._ended and self._queue.empty()

    def status(self) -> CameraStatus:
        now = self._clock()
        with self._lock:
            age = None if self._last_frame_at is None else now - self._last_frame_at
            still_for = None if self._last_change_at is None else now - self._last_change_at
            fps = 0.0
            if len(self._fps_window) >= 2 and self._fps_window[-1] > self._fps_window[0]:
                fps = (len(self._fps_window) - 1) / (self._fps_window[-1] - self._fps_window[0])
            if self._ended:
                state = "ended"
            elif self._hung:
                state = "hung"
            elif self._source is None and (self._error or self._opened_at is not None):
                state = "offline"
            elif self._source is None or age is None:
                opened_age = None if self._opened_at is None else now - self._opened_at
                state = "stalled" if opened_age is not None and opened_age > self.stall_s else "starting"
                age = opened_age if state == "stalled" else age
            elif age > self.stall_s:
                state = "stalled"
            elif still_for is not None and still_for > self.frozen_s:
                state = "frozen"
            else:
                state = "live"
            message = HINTS[state].format(age=(still_for if state == "frozen" else (age or 0.0)),
                                          error=self._error or "no camera",
                                          retry=self.reconnect_s)
            return CameraStatus(state, message, self.frames, self.dropped, fps, age,
                                self.reconnects, self.description, self.hangs)


def _close(src: Source | None) -> None:
    """Close a source; closing a broken device must not kill the capture."""
    if src is None:
        return
    try:
        src.close()
    except Exception:  # noqa: BLE001 - a driver may raise anything on close
        pass


def _check_frame(frame: Any) -> None:
    """Refuse what a source returned that is no frame (a driver's ``(False, None)``, an empty
    picture): :class:`CameraError`, so the camera is reopened as for any failure."""
    from vision.sources import CameraError

    pixels = getattr(frame, "frame_bgr", None)
    if not isinstance(pixels, np.ndarray) or pixels.ndim < 2 or 0 in pixels.shape[:2]:
        shape = getattr(pixels, "shape", None)
        raise CameraError(f"the camera gave no picture ({type(frame).__name__}"
                          f"{'' if shape is None else f' of shape {shape}'})",
                          advice="check the camera's cable and driver; it is opened again")


def _said(exc: BaseException) -> str:
    """An error as the dashboard shows it: the project's own messages as they are, others with
    their kind (an unexpected driver error)."""
    return str(exc) if isinstance(exc, (DominoError, OSError, cv2.error)) else \
        f"{type(exc).__name__}: {exc}"
