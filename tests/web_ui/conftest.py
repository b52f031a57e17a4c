"""Fixtures for the dashboard tests: a fresh app per test on a temporary store and data folder.

``client`` is a paired controller (CSRF cookie + controller cookie); ``spectator`` has the CSRF
cookie only. ``browser`` is headless Chromium for the browser tests (module scope). Helpers
(``make_app``, ``post``, ``pair``) are in ``webui_helpers.py``; the browser ones in
``test_browser.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webui_helpers import make_app, pair


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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's, driven by Playwright); importing ``test_browser`` skips the
    test with the reason when playwright or chromium is missing."""
    from test_browser import ARGS, CHROMIUM, sync_api

    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()
