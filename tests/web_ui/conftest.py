"""Fixtures for the dashboard tests: a fresh app per test on a temporary store and data folder.

``client`` is a paired controller (CSRF cookie + controller cookie); ``spectator`` has the CSRF
cookie only. ``post(client, path, body)`` sends a POST the way the page does.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

import companion.games as games_registry
from companion.store import LogStore
from web_ui import create_app
from web_ui.security import CSRF_COOKIE, CSRF_HEADER
from web_ui.services import SessionHolder, StillFrames

PLAYERS = ["Ann", "Bob", "Cy"]


def _tolerant_registry() -> None:
    """Other engineers are still adding game modules; until every module in GAME_MODULES
    exists, load the ones present so the games that do exist (allfives) can be used."""
    try:
        games_registry.game_names()
    except ModuleNotFoundError:
        def load_present() -> None:
            for mod in games_registry.GAME_MODULES:
                try:
                    importlib.import_module(f"companion.games.{mod}")
                except ModuleNotFoundError as exc:
                    if exc.name != f"companion.games.{mod}":
                        raise
        games_registry._load_all = load_present  # type: ignore[attr-defined]


_tolerant_registry()


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


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return make_app(tmp_path)


@pytest.fixture
def client(app: Flask) -> Iterator[FlaskClient]:
    with app.test_client() as c:
        pair(c, app)
        yield c


@pytest.fixture
def spectator(app: Flask) -> FlaskClient:
    c = app.test_client()
    c.get("/")
    return c
