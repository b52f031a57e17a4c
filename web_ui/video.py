"""The annotated camera video as MJPEG, and the camera's state.

``GET /video.mjpg`` streams ``multipart/x-mixed-replace`` JPEG parts from the frame source in
``app.extensions["frames"]``. With no source (no camera in this mode) it answers 404 with a
message, and the page shows a "no camera in this mode" panel instead of an image. While the
camera is silent the last frame is sent again every ``MJPEG_KEEPALIVE_S`` seconds, so a viewer
that went away is noticed and its thread freed. At most ``MJPEG_MAX_STREAMS`` viewers at once
(each holds a waitress thread); one more gets 503. ``GET /api/camera`` gives the camera state.
"""

from __future__ import annotations

import threading
import time
from typing import Iterator

from flask import Blueprint, Response, current_app, jsonify
from flask.typing import ResponseReturnValue

from web_ui.services import FrameSource, StreamBusy, StreamGate
from web_ui.stream import camera_status

bp = Blueprint("video", __name__)

BOUNDARY = "frame"


def _part(jpeg: bytes) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
            .encode() + jpeg + b"\r\n")


def _frames(source: FrameSource, keepalive: float, max_s: float,
            stop: threading.Event) -> Iterator[bytes]:
    start = time.monotonic()
    seen = 0
    last: bytes | None = None
    first = source.latest()
    if first is not None:
        seen, last = first
        yield _part(last)
    while time.monotonic() - start < max_s and not stop.is_set():
        got = source.wait_frame(seen, min(keepalive, max(0.01, max_s - (time.monotonic() - start))))
        if got is not None:
            seen, last = got
            yield _part(last)
        elif last is not None:
            yield _part(last)  # keepalive: finds viewers that left


@bp.get("/video.mjpg")
def video() -> ResponseReturnValue:
    source: FrameSource | None = current_app.extensions.get("frames")
    if source is None:
        return jsonify(error="no camera in this mode: the dashboard was started without a "
                             "camera; moves are entered on the tablet"), 404
    gate: StreamGate = current_app.extensions["mjpeg_gate"]
    try:
        gate.enter()
    except StreamBusy as exc:
        return exc.response()
    cfg = current_app.config
    resp = Response(_frames(source, float(cfg["MJPEG_KEEPALIVE_S"]), float(cfg["STREAM_MAX_S"]),
                            current_app.extensions["shutdown"]),
                    mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}")
    resp.headers["Cache-Control"] = "no-cache, no-store"
    resp.call_on_close(gate.leave)
    return resp


@bp.get("/api/camera")
def camera() -> ResponseReturnValue:
    return jsonify(camera_status())
