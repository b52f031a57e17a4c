"""Helpers for the dashboard tests: a fresh app on a temporary store and data folder, POSTs the
way the page sends them (CSRF header), pairing. The fixtures are in ``conftest.py``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion.store import LogStore
from web_ui import create_app
from web_ui.security import CSRF_COOKIE, CSRF_HEADER
from web_ui.services import SessionHolder, StillFrames

PLAYERS = ["Ann", "Bob", "Cy"]


def make_app(tmp_path: Path, frames: StillFrames | None = None, start: bool = True,
             **config: Any) -> Flask:
    store = LogStore(tmp_path / "games.sqlite")
    holder = SessionHolder(store)
    if start:
        holder.start("allfives", PLAYERS, {})
    cfg = {"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "SSE_HEARTBEAT_S": 0.2,
           "STREAM_MAX_S": 5.0, "MJPEG_KEEPALIVE_S": 0.1}
    cfg.update(config)
    return create_app(cfg, holder=holder, frames=frames)


def csrf_of(client: FlaskClient) -> str:
    cookie = client.get_cookie(CSRF_COOKIE)
    assert cookie is not None, "the page did not set the CSRF cookie"
    return cookie.value


def post(client: FlaskClient, path: str, body: Any = None, csrf: bool = True,
         **kw: Any) -> Any:
    headers = {CSRF_HEADER: csrf_of(client)} if csrf else {}
    return client.post(path, json={} if body is None else body, headers=headers, **kw)


def pair(client: FlaskClient, app: Flask) -> None:
    client.get("/")
    code = app.extensions["secrets"].pairing_code
    resp = post(client, "/api/pair", {"code": code})
    assert resp.status_code == 200, resp.get_json()


def wait_js(page: Any, expression: str, timeout_s: float = 8.0) -> None:
    """Wait until a JavaScript expression is true in a browser page, polling from here: the
    dashboard's Content Security Policy forbids the string evaluation that Playwright's
    ``page.wait_for_function`` polls with once its first check fails."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_s:g} s: {expression}")
        time.sleep(0.05)
