"""Server-Sent Events and MJPEG, through the test client with short timeouts."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask

from companion.simulate import play_random_game
from webui_helpers import PLAYERS, make_app, pair, post
from web_ui import stop_streams
from web_ui.services import StillFrames, jpeg_of_colour


def sse_messages(chunks: Iterator[Any]) -> Iterator[tuple[str, Any]]:
    """(event, data) per SSE message; ("retry", ms) and ("comment", text) too."""
    buf = ""
    for chunk in chunks:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            msg, buf = buf.split("\n\n", 1)
            if msg.startswith("retry:"):
                yield "retry", int(msg.split(":", 1)[1])
            elif msg.startswith(":"):
                yield "comment", msg[1:].strip()
            else:
                fields = dict(line.split(": ", 1) for line in msg.splitlines())
                yield fields["event"], json.loads(fields["data"])


def test_sse_snapshot_then_changes(app: Flask) -> None:
    client = app.test_client()
    pair(client, app)
    resp = client.get("/events", buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    msgs = sse_messages(iter(resp.response))
    assert next(msgs) == ("retry", 2000)
    event, snap = next(msgs)
    assert event == "state" and snap["players"] == PLAYERS and snap["moves"] == 0
    event, cam = next(msgs)
    assert event == "camera" and cam["state"] == "none"
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=2)
    for m in sim.moves:
        post(client, "/api/submit", {"entry": m.to_json()})
    t0 = time.monotonic()
    event, snap = next(m for m in msgs if m[0] != "comment")
    assert event == "state" and snap["moves"] >= 1
    assert time.monotonic() - t0 < 2.0
    post(client, "/api/rematch", {"leave_unfinished": True})
    event, snap = next(m for m in msgs if m[0] != "comment")
    while snap["moves"] != 0:  # the second move's state may come first
        event, snap = next(m for m in msgs if m[0] != "comment")
    assert snap["generation"] == 2
    resp.close()
    assert app.extensions["sse_gate"].open == 0


def test_sse_heartbeat_and_time_limit(tmp_path: Path) -> None:
    app = make_app(tmp_path, SSE_HEARTBEAT_S=0.2, STREAM_MAX_S=1.0)
    resp = app.test_client().get("/events", buffered=False)
    t0 = time.monotonic()
    kinds = [k for k, _ in sse_messages(iter(resp.response))]  # ends by itself
    assert time.monotonic() - t0 < 3.0
    assert kinds[:3] == ["retry", "state", "camera"]
    assert kinds.count("comment") >= 2
    resp.close()


def test_sse_stream_cap(tmp_path: Path) -> None:
    app = make_app(tmp_path, SSE_MAX_STREAMS=2)
    client = app.test_client()
    open_ = [client.get("/events", buffered=False) for _ in range(2)]
    extra = client.get("/events")
    assert extra.status_code == 503
    assert "cap is 2" in extra.get_json()["error"]
    assert extra.headers["Retry-After"]
    open_[0].close()
    again = client.get("/events", buffered=False)
    assert again.status_code == 200
    again.close()
    open_[1].close()
    assert app.extensions["sse_gate"].open == 0


def test_sse_reports_camera_going_offline(tmp_path: Path) -> None:
    frames = StillFrames(stall_after=0.3)
    frames.push(jpeg_of_colour((0, 128, 0)))
    app = make_app(tmp_path, frames=frames)
    resp = app.test_client().get("/events", buffered=False)
    msgs = sse_messages(iter(resp.response))
    cams: list[dict] = []
    for kind, data in msgs:
        if kind == "camera":
            cams.append(data)
            if data["state"] == "offline":
                break
    assert cams[0]["state"] == "ok"
    assert cams[-1]["state"] == "offline" and "No frames" in cams[-1]["message"]
    assert cams[-1]["hints"]
    resp.close()


def parts(chunks: Iterator[bytes], n: int) -> list[bytes]:
    """The first ``n`` JPEG payloads of a multipart stream."""
    out = []
    for chunk in chunks:
        head, _, rest = chunk.partition(b"\r\n\r\n")
        assert head.startswith(b"--frame\r\nContent-Type: image/jpeg"), head
        length = int(head.split(b"Content-Length: ")[1])
        out.append(rest[:length])
        if len(out) == n:
            break
    return out


def test_mjpeg_streams_new_frames(tmp_path: Path) -> None:
    frames = StillFrames()
    first = jpeg_of_colour((0, 0, 255), text="one")
    frames.push(first)
    app = make_app(tmp_path, frames=frames)
    client = app.test_client()
    resp = client.get("/video.mjpg", buffered=False)
    assert resp.status_code == 200
    assert resp.mimetype == "multipart/x-mixed-replace"
    assert resp.headers["Content-Type"].endswith("boundary=frame")
    chunks = iter(resp.response)
    assert parts(chunks, 1) == [first]
    second = jpeg_of_colour((255, 0, 0), text="two")
    frames.push(second)
    assert parts(chunks, 1) == [second]
    # the camera is silent: the last frame comes again (keepalive)
    assert parts(chunks, 1) == [second]
    resp.close()
    assert app.extensions["mjpeg_gate"].open == 0
    page = client.get("/").get_data(as_text=True)
    assert 'src="/video.mjpg"' in page
    assert client.get("/api/camera").get_json()["state"] == "ok"


def test_mjpeg_cap(tmp_path: Path) -> None:
    frames = StillFrames()
    frames.push(jpeg_of_colour((0, 0, 0)))
    app = make_app(tmp_path, frames=frames, MJPEG_MAX_STREAMS=1)
    client = app.test_client()
    first = client.get("/video.mjpg", buffered=False)
    extra = client.get("/video.mjpg")
    assert extra.status_code == 503 and "video streams" in extra.get_json()["error"]
    first.close()
    again = client.get("/video.mjpg", buffered=False)
    assert again.status_code == 200
    again.close()
    assert app.extensions["mjpeg_gate"].open == 0


def test_frame_source_refuses_non_jpeg() -> None:
    with pytest.raises(ValueError, match="must be JPEG"):
        StillFrames().push(b"PNG...")


def _served(tmp_path: Path, loop_timeout_s: float = 1.0
            ) -> tuple[Flask, Any, threading.Thread]:
    from waitress import create_server

    app = make_app(tmp_path)
    server = create_server(app, host="127.0.0.1", port=0, threads=4,
                           asyncore_loop_timeout=loop_timeout_s)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return app, server, thread


def _a_closed_descriptor() -> int:
    fd = 900
    while True:
        try:
            os.fstat(fd)
        except OSError:
            return fd
        fd += 1


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def test_stop_streams_ends_a_loop_running_in_another_thread(tmp_path: Path) -> None:
    """The loop waits up to a minute a turn here, so ending well before that shows that it was
    woken, however busy the machine."""
    app, server, thread = _served(tmp_path, loop_timeout_s=60.0)
    port = int(server.effective_port)
    url = f"http://127.0.0.1:{port}/api/state"
    with urllib.request.urlopen(url, timeout=5) as resp:  # a connection the loop holds
        assert resp.status in (200, 401)
    keep = socket.create_connection(("127.0.0.1", port), timeout=5)  # an idle client
    time.sleep(0.5)  # the loop has seen both and waits in its poll: only the wake can end it
    failures: list[BaseException] = []
    old_hook = threading.excepthook
    threading.excepthook = lambda args: failures.append(args.exc_value)
    try:
        started = time.monotonic()
        stop_streams(app, server, loop_thread=thread)
        took = time.monotonic() - started
    finally:
        threading.excepthook = old_hook
        keep.close()
    assert not thread.is_alive() and not failures
    assert not server._map and server.trigger._closed and server.socket is None
    assert _refused(port)
    assert took < 30.0, f"stopping waited {took:.1f} s: the loop was not woken"


def test_stop_streams_survives_a_wake_up_pipe_already_closed(tmp_path: Path) -> None:
    """The CI failure of session 15: the server's wake-up pipe had lost its write end before
    the test closed the server (``OSError: [Errno 9] Bad file descriptor`` from waitress's
    ``pull_trigger``). Shutting down no longer writes to that pipe."""
    app, server, thread = _served(tmp_path)
    port = int(server.effective_port)
    # the write end as the waker sees it, gone behind waitress's back (closing the server still
    # closes the real one, which waitress keeps apart)
    server.trigger.trigger = _a_closed_descriptor()
    stop_streams(app, server, loop_thread=thread)
    assert not thread.is_alive() and not server._map
    assert _refused(port)
