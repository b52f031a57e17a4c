"""The tablet dashboard: a Flask app served by waitress (``domino-companion serve``).

``create_app(test_config=None, holder=None, frames=None)`` builds the app, Flask-tutorial style:

* ``holder``: the :class:`~web_ui.services.SessionHolder` (store + current game). Without it the
  app opens ``DB`` from the config and resumes the latest game in it.
* ``frames``: a :class:`~web_ui.services.FrameSource` of annotated camera frames, or None: the
  page then says there is no camera in this mode.

Blueprints, one per feature: ``views`` (pages, exports), ``api`` (JSON state and POST commands,
all through :class:`companion.session.Session`), ``stream`` (Server-Sent Events ``/events``),
``video`` (MJPEG ``/video.mjpg``), ``calibration_page`` (the Table setup page
``/calibration``), ``security`` (CSRF, pairing, read-only spectators). No game
logic lives here.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Mapping

from flask import Flask

from companion.store import LogStore
from web_ui.services import FrameSource, SessionHolder, StreamGate

log = logging.getLogger(__name__)

#: Configuration defaults; ``test_config`` or ``serve`` override them.
DEFAULTS: dict[str, Any] = {
    "TRUSTED_HOSTS": ["localhost", "127.0.0.1"],
    "SSE_MAX_STREAMS": 32,
    "MJPEG_MAX_STREAMS": 5,
    "SSE_HEARTBEAT_S": 15.0,
    "SSE_RETRY_MS": 2000,
    "STREAM_MAX_S": 600.0,  # a stream ends after this; the browser reconnects by itself
    "MJPEG_KEEPALIVE_S": 2.0,  # resend the last frame this often while the camera is silent
    "PAIR_ATTEMPTS_PER_MINUTE": 5,
    "PUBLIC_URL": None,  # the address other devices use (for the QR code)
    "MAX_CONTENT_LENGTH": 256 * 1024,
}


def default_data_dir() -> Path:
    """Where the game database and the secrets file live unless told otherwise: the
    ``DOMINO_COMPANION_HOME`` environment variable, else the user data folder (platformdirs),
    the same folder calibration uses."""
    env = os.environ.get("DOMINO_COMPANION_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("domino-companion", appauthor=False))


#: Seconds :func:`stop_streams` waits, beyond one turn of the server's loop and ``wait_s``,
#: for a loop running in another thread to end: woken, it ends within milliseconds, but a
#: busy machine can hold its thread back for seconds (the full test suite run beside other
#: jobs on the 2-core machine once took more than 4 s, session 17).
LOOP_END_GRACE_S = 15.0


def stop_streams(app: Flask, server: Any = None, wait_s: float = 3.0,
                 loop_thread: threading.Thread | None = None) -> None:
    """End every open stream, wait (up to ``wait_s``) until they have, then close ``server``
    (a waitress server) and let its worker threads finish.

    ``loop_thread``: the thread that runs the server's loop, when that loop still runs (the
    caller is another thread). The server's channels are then taken out of the loop's map, so
    the loop returns by itself at its next turn (``asyncore_loop_timeout`` at most), and the
    sockets are closed here only after that thread has ended. Nothing is closed while the loop
    may still wait on it (that fails the loop with "Bad file descriptor"), nothing is closed
    from two threads at once, and nothing is written to the server's wake-up pipe, whose
    descriptor this thread cannot vouch for.
    """
    app.extensions["shutdown"].set()
    deadline = time.monotonic() + wait_s
    gates = (app.extensions["sse_gate"], app.extensions["mjpeg_gate"])
    while any(g.open for g in gates) and time.monotonic() < deadline:
        time.sleep(0.05)
    if server is None:
        return
    channels = list(server._map.values())
    if loop_thread is not None:
        server._map.clear()  # the loop ends when its map is empty
        _wake(server)
        limit = wait_s + float(server.adj.asyncore_loop_timeout) + LOOP_END_GRACE_S
        loop_thread.join(limit)
        if loop_thread.is_alive():
            raise RuntimeError(f"the dashboard server's loop ({loop_thread.name}) did not end "
                               f"within {limit:g} s of its channels being taken away")
    # the server last: its listening socket and its wake-up pipe
    for channel in [c for c in channels if c is not server] + [server]:
        try:
            channel.close()
        except OSError as err:  # a descriptor already gone: nothing left to close
            log.warning("closing %r at shutdown: %s", channel, err)
    server.task_dispatcher.shutdown(timeout=wait_s)


def _wake(server: Any) -> None:
    """Make ``server``'s loop return from its wait now (a connection to its own listening
    socket), rather than at the end of its ``asyncore_loop_timeout``."""
    host = str(server.effective_host)
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    try:
        with socket.create_connection((host, int(server.effective_port)), timeout=0.5):
            pass
    except OSError:
        pass  # the loop still returns at the end of its timeout


def create_app(test_config: Mapping[str, Any] | None = None, holder: SessionHolder | None = None,
               frames: FrameSource | None = None) -> Flask:
    """Build the dashboard app (see the module docstring)."""
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config["DATA_DIR"] = str(default_data_dir())
    if test_config is not None:
        app.config.update(test_config)
    data_dir = Path(app.config["DATA_DIR"])
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config.setdefault("DB", str(data_dir / "games.sqlite"))
    if not app.config.get("DB"):
        app.config["DB"] = str(data_dir / "games.sqlite")

    from web_ui import api, calibration_page, security, stream, video, views

    security.init_app(app, data_dir / "dashboard-secrets.json")
    if holder is None:
        holder = SessionHolder.resume(LogStore(app.config["DB"]))
    app.extensions["session"] = holder
    app.extensions["frames"] = frames
    app.extensions["shutdown"] = threading.Event()  # set it to end every open stream
    app.extensions["sse_gate"] = StreamGate("live-update", int(app.config["SSE_MAX_STREAMS"]))
    app.extensions["mjpeg_gate"] = StreamGate("video", int(app.config["MJPEG_MAX_STREAMS"]))

    app.register_blueprint(security.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(video.bp)
    app.register_blueprint(calibration_page.bp)
    return app
