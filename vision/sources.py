"""Camera and recording sources: one :func:`open_source` for every kind of input.

A source spec is one of:

- a device index (``0`` or ``"0"``) or a device path (``/dev/video2``),
- a network URL (``rtsp://``, ``rtsps://``, ``http://``, ``https://``), opened with open and read
  timeouts so a stalled stream cannot block for tens of seconds,
- a video file (anything ``cv2.VideoCapture`` reads: .mp4, .avi, .mkv, ...),
- a folder of images (``.png``, ``.jpg``, ``.jpeg``, ``.bmp``, ``.tif``, ``.tiff``, ``.webp``),
  read in sorted name order, optionally looped.

Every source has ``read() -> Frame | None`` (``None`` at the end of a file or folder) and
``close()``; every failure to open is a :class:`CameraError` that says what was tried and what to
do. The capture thread, watchdog and fault-injecting virtual camera belong to a later stage; this
module keeps ``read()`` simple: one frame per call.
"""

from __future__ import annotations

import glob
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Protocol

import cv2
import numpy as np

from companion.errors import DominoError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
URL_SCHEMES = ("rtsp://", "rtsps://", "rtmp://", "http://", "https://", "udp://", "tcp://")
#: A camera given by its index, or by its device file (Linux).
DEVICE_INDEX = re.compile(r"\d+")
DEVICE_PATH = re.compile(r"/dev/video(\d+)")
#: Default open and read timeout for network streams, in milliseconds.
DEFAULT_TIMEOUT_MS = 5000


class CameraError(DominoError):
    """A source that cannot be opened or read: says what was tried and what to do."""

    def __init__(self, message: str, tried: str = "", advice: str = "") -> None:
        self.tried = tried
        self.advice = advice
        super().__init__(message + (f": {advice}" if advice else ""))


@dataclass(frozen=True)
class Frame:
    """One image from a source: ``frame_bgr`` (H x W x 3 uint8, BGR), the time it was taken in
    seconds (the stream's own clock for files and folders, ``time.time()`` for live cameras) and
    its index in the stream (0, 1, 2, ...)."""

    frame_bgr: np.ndarray
    timestamp: float
    index: int


@dataclass(frozen=True)
class CameraInfo:
    """A camera found by :func:`list_cameras`: its spec for ``--camera`` and what it delivers."""

    spec: str
    width: int
    height: int
    backend: str


class Source(Protocol):
    description: str

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def _quiet_opencv() -> None:
    """Silence OpenCV's own warnings while probing (it prints for every absent camera)."""
    try:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except AttributeError:  # pragma: no cover - very old builds
        pass


class _Stream:
    """What every source shares: ``with`` closes it, iterating reads frames until the end."""

    def read(self) -> Frame | None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> "_Stream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame


class CaptureSource(_Stream):
    """A ``cv2.VideoCapture`` over a device, a URL or a video file."""

    def __init__(self, cap: cv2.VideoCapture, description: str, kind: str) -> None:
        self._cap = cap
        self.description = description
        self.kind = kind  # "device", "url" or "file"
        self._index = 0
        self.ended = False
        fps = cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and np.isfinite(fps) and fps > 0 else 0.0

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) the capture reports."""
        return (int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
                int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))

    def read(self) -> Frame | None:
        """The next frame; ``None`` at the end of a video file. A live camera or stream that stops
        delivering raises :class:`CameraError`."""
        if self.ended:
            return None
        ok, image = self._cap.read()
        if not ok or image is None:
            if self.kind == "file":
                self.ended = True
                return None
            raise CameraError(f"{self.description} gave no frame", tried=self.description,
                              advice="check the cable or the network, then start again")
        if self.kind == "file":
            pos_ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
            stamp = pos_ms / 1000.0 if pos_ms and pos_ms > 0 else (
                self._index / self.fps if self.fps else float(self._index))
        else:
            stamp = time.time()
        frame = Frame(_as_bgr(image), stamp, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._cap.release()
        self.ended = True



class FrameSkipped(CameraError):
    """One frame of a source could not be read, but the source goes on: read it again for the
    next frame (an unreadable image in a folder), rather than reopening it (which would start
    the folder again)."""


class ImageFolderSource(_Stream):
    """Images of a folder in sorted name order, as a stream at ``fps`` frames per second."""

    def __init__(self, folder: Path, loop: bool = False, fps: float = 1.0,
                 size: tuple[int, int] | None = None) -> None:
        self.folder = Path(folder)
        self.paths = sorted(p for p in self.folder.iterdir()
                            if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise CameraError(f"no images in folder {self.folder}", tried=str(self.folder),
                              advice=f"put {', '.join(IMAGE_SUFFIXES)} files there")
        self.loop = loop
        self.fps = fps if fps > 0 else 1.0
        self.resize_to = size
        self.description = f"image folder {self.folder} ({len(self.paths)} images)"
        self._index = 0
        self.ended = False

    def read(self) -> Frame | None:
        """The next image; ``None`` after the last one unless looping. An unreadable image file
        raises :class:`FrameSkipped` naming it (the next read goes on after it)."""
        if self.ended:
            return None
        n = len(self.paths)
        if self._index >= n and not self.loop:
            self.ended = True
            return None
        path = self.paths[self._index % n]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            self._index += 1  # the next read goes on with the next image
            raise FrameSkipped(f"image {path} cannot be read (corrupt or not an image)",
                               tried=str(path), advice="remove or replace that file")
        if self.resize_to is not None and (image.shape[1], image.shape[0]) != self.resize_to:
            image = cv2.resize(image, self.resize_to, interpolation=cv2.INTER_AREA)
        frame = Frame(image, self._index / self.fps, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self.ended = True



def _found_text() -> str:
    found = list_cameras()
    return ", ".join(c.spec for c in found) if found else "none"


def _apply_settings(cap: cv2.VideoCapture, width: int | None, height: int | None,
                    fps: float | None) -> None:
    if width:
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, float(width))
    if height:
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, float(height))
    if fps:
        cap.set(cv2.CAP_PROP_FPS, float(fps))


def _open_device(index: int, label: str, width: int | None, height: int | None,
                 fps: float | None) -> CaptureSource:
    advice = ("plug one in or pass --camera with another index; found: " + _found_text())
    if sys.platform.startswith("linux") and not os.path.exists(f"/dev/video{index}"):
        raise CameraError(f"no camera at {label}", tried=label, advice=advice)
    _quiet_opencv()
    cap = cv2.VideoCapture(index, cv2.CAP_ANY)
    if not cap.isOpened():
        cap.release()
        raise CameraError(f"no camera at {label} (it exists but would not open; another "
                          f"program may be using it)", tried=label, advice=advice)
    _apply_settings(cap, width, height, fps)
    return CaptureSource(cap, f"camera {label}", "device")


def open_source(spec: str | int | os.PathLike[str], *, width: int | None = None,
                height: int | None = None, fps: float | None = None, loop: bool = False,
                timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CaptureSource | ImageFolderSource:
    """Open a camera, stream, video file or image folder (see the module docstring).

    ``width``, ``height`` and ``fps`` are requested from cameras (the driver may pick the nearest
    mode it has); a folder's images are resized to ``width`` x ``height`` when both are given and
    played at ``fps`` (default 1). ``loop`` restarts a folder at its first image.
    """
    if isinstance(spec, bool):
        raise CameraError(f"camera spec {spec!r} is not a source",
                          advice="give a device index, /dev/videoN, a URL, a video file or a folder")
    if isinstance(spec, int):
        return _open_device(spec, f"index {spec}", width, height, fps)
    text = os.fspath(spec).strip()
    if not text:
        raise CameraError("empty camera spec",
                          advice="give a device index (0), /dev/videoN, a URL, a video file or a folder")
    if DEVICE_INDEX.fullmatch(text):
        return _open_device(int(text), f"index {int(text)}", width, height, fps)
    m = DEVICE_PATH.fullmatch(text)
    if m:
        return _open_device(int(m.group(1)), text, width, height, fps)
    if text.lower().startswith(URL_SCHEMES):
        _quiet_opencv()
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(timeout_ms),
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(timeout_ms)]
        cap = cv2.VideoCapture(text, cv2.CAP_FFMPEG, params)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"stream {text} did not open within {timeout_ms} ms", tried=text,
                              advice="check the address, that the camera is on and on this "
                                     "network, and any user name or password in the URL")
        return CaptureSource(cap, f"stream {text}", "url")
    path = Path(text).expanduser()
    if path.is_dir():
        size = (int(width), int(height)) if width and height else None
        return ImageFolderSource(path, loop=loop, fps=fps or 1.0, size=size)
    if not path.exists():
        raise CameraError(f"no such file or folder: {path}", tried=str(path),
                          advice="give an existing video file or image folder, a device index "
                                 "(0) or a URL; cameras found: " + _found_text())
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise CameraError(f"{path} is a single image, not a stream", tried=str(path),
                          advice="pass the folder it is in (its images are played in turn)")
    _quiet_opencv()
    cap = cv2.VideoCapture(str(path), cv2.CAP_ANY)
    if not cap.isOpened():
        cap.release()
        raise CameraError(f"video file {path} cannot be opened (corrupt or an unknown format)",
                          tried=str(path), advice="convert it to .mp4 (H.264) or .avi (MJPG)")
    return CaptureSource(cap, f"video file {path}", "file")


def may_come_back(spec: str | int | os.PathLike[str]) -> bool:
    """Whether a source that failed to open may open later, so it is worth trying again: a
    camera index or device file (unplugged) or a URL (a stream not up yet); a file or folder
    that failed will not."""
    text = str(spec).strip()
    return bool(DEVICE_INDEX.fullmatch(text) or DEVICE_PATH.fullmatch(text)) or \
        text.lower().startswith(URL_SCHEMES)


def read_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read one photo as BGR; a missing or unreadable file is a :class:`CameraError`."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise CameraError(f"no such photo: {p}", tried=str(p), advice="give an existing image file")
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None:
        raise CameraError(f"photo {p} cannot be read (corrupt or not an image)", tried=str(p),
                          advice=f"give a {', '.join(IMAGE_SUFFIXES)} file")
    return image


def list_cameras(max_index: int = 4) -> list[CameraInfo]:
    """Cameras that open and deliver a frame, quickly.

    On Linux only existing ``/dev/videoN`` nodes are tried (no node, no probe, so this is instant
    on a machine without cameras); elsewhere indices ``0..max_index-1`` are tried.
    """
    if sys.platform.startswith("linux"):
        nodes = sorted(glob.glob("/dev/video*"),
                       key=lambda p: int(re.sub(r"\D", "", p) or 0))
        candidates = [(int(m.group(1)), p) for p in nodes
                      if (m := DEVICE_PATH.fullmatch(p))]
    else:
        candidates = [(i, str(i)) for i in range(max_index)]
    found: list[CameraInfo] = []
    _quiet_opencv()
    for index, label in candidates:
        cap = cv2.VideoCapture(index, cv2.CAP_ANY)
        try:
            if not cap.isOpened():
                continue
            ok, image = cap.read()
            if not ok or image is None:
                continue  # metadata nodes of a UVC camera open but give no frames
            found.append(CameraInfo(label, image.shape[1], image.shape[0], cap.getBackendName()))
        finally:
            cap.release()
    return found
