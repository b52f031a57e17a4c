"""Server-Sent Events at ``/events``: the live state for every open dashboard.

On connect the stream sends ``retry:`` (so the browser's EventSource reconnects by itself after
a drop or a server restart), then a ``state`` event with the full snapshot, then a new ``state``
event whenever the game changes (or a new game replaces it) and a ``camera`` event whenever the
camera's state changes. A comment line (``: hb``) goes out every ``SSE_HEARTBEAT_S`` seconds so
dead connections are found and proxies keep the line open. Each open stream holds one waitress
worker thread, so at most ``SSE_MAX_STREAMS`` are open; one more gets 503 with a message. A
stream ends after ``STREAM_MAX_S`` seconds, or when ``app.extensions["shutdown"]`` is set
(the server stopping), and the browser reconnects.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Iterator

from flask import Blueprint, Response, current_app
from flask.typing import ResponseReturnValue

from web_ui.api import current_state, with_extras
from web_ui.services import NO_CAMERA, SessionHolder, StreamBusy, StreamGate

bp = Blueprint("stream", __name__)

#: How long one wait lasts before checking for a replaced game, the camera and the heartbeat.
SLICE_S = 0.5


def sse(event: str, data: Any) -> str:
    """One SSE message."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def camera_status() -> dict[str, Any]:
    frames = current_app.extensions.get("frames")
    return dict(NO_CAMERA) if frames is None else frames.status()


def _events(holder: SessionHolder, frames: Any, heartbeat: float, retry_ms: int,
            max_s: float, state_fn: Any, stop: threading.Event) -> Iterator[str]:
    start = last_beat = time.monotonic()
    yield f"retry: {retry_ms}\n\n"
    snap = state_fn()
    yield sse("state", snap)
    gen, version = snap["generation"], snap["version"]
    cam = dict(NO_CAMERA) if frames is None else frames.status()
    cam_key = cam.get("state")
    yield sse("camera", cam)
    while time.monotonic() - start < max_s and not stop.is_set():
        session = holder.session
        if holder.generation != gen or session is None:
            if holder.generation != gen:
                snap = state_fn()
                gen, version = snap["generation"], snap["version"]
                yield sse("state", snap)
                last_beat = time.monotonic()
            else:
                time.sleep(SLICE_S)
        else:
            changed = session.wait_for_change(version, SLICE_S)
            if changed is not None and holder.generation == gen:
                snap = with_extras(changed, gen)
                version = snap["version"]
                yield sse("state", snap)
                last_beat = time.monotonic()
        if frames is not None:
            cam = frames.status()
            key = cam.get("state")
            if key != cam_key:
                cam_key = key
                yield sse("camera", cam)
        if time.monotonic() - last_beat >= heartbeat:
            last_beat = time.monotonic()
            yield ": hb\n\n"


@bp.get("/events")
def events() -> ResponseReturnValue:
    gate: StreamGate = current_app.extensions["sse_gate"]
    try:
        gate.enter()
    except StreamBusy as exc:
        return exc.response()
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    cfg = app.config

    def state_fn() -> dict[str, Any]:
        with app.app_context():
            return current_state()

    body = _events(app.extensions["session"], app.extensions.get("frames"),
                   float(cfg["SSE_HEARTBEAT_S"]), int(cfg["SSE_RETRY_MS"]),
                   float(cfg["STREAM_MAX_S"]), state_fn, app.extensions["shutdown"])
    resp = Response(body, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    resp.call_on_close(gate.leave)
    return resp
