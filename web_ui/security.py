"""LAN security for the dashboard: CSRF, read-only spectators, pairing, secrets on disk.

* Every POST needs a CSRF token: a signed random value in the ``dc_csrf`` cookie that the page
  repeats in the ``X-CSRF-Token`` header (signed double submit). A POST without it, or with a
  header that does not match the cookie, gets 403.
* Devices start as spectators: they read everything and change nothing. A POST from a device
  that has not paired gets 403 saying how to pair.
* A controller pairs by POSTing the 6-digit code printed on the host's terminal (and shown on
  the page when it is opened on the host itself) to ``/api/pair``; it then holds a
  ``dc_controller`` cookie whose hash is kept in the secrets file, so it stays paired across
  reloads and restarts. Code attempts are limited per client address (429 past the limit).
* The Flask secret key, the pairing code and the paired controllers live in one JSON file with
  mode 0600 in the data folder, written atomically.
* Host headers are checked against ``TRUSTED_HOSTS`` by Flask (DNS rebinding).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, current_app, g, jsonify, request
from flask.typing import ResponseReturnValue
from itsdangerous import BadSignature, URLSafeSerializer
from werkzeug.wrappers import Response

from companion.atomic import atomic_write
from web_ui.body import json_body

bp = Blueprint("security", __name__)

CSRF_COOKIE = "dc_csrf"
CSRF_HEADER = "X-CSRF-Token"
CONTROLLER_COOKIE = "dc_controller"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1"})


class SecretStore:
    """The secrets file: secret key, current pairing code, hashes of paired controller tokens."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        data = self._read()
        self.secret_key: str = data.get("secret_key") or secrets.token_hex(32)
        self.controllers: set[str] = set(data.get("controllers", []))
        # A fresh code each time the dashboard starts: the terminal shows the current one.
        self.pairing_code: str = f"{secrets.randbelow(1_000_000):06d}"
        self._write()

    def _read(self) -> dict[str, Any]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RuntimeError(f"cannot read the dashboard secrets file {self.path}: {exc}; "
                               "delete it to start over (paired tablets must pair again)") from None
        if not isinstance(data, dict):
            raise RuntimeError(f"the dashboard secrets file {self.path} holds "
                               f"{type(data).__name__}, expected a JSON object; delete it to "
                               "start over")
        return data

    def _write(self) -> None:
        """Atomic write with mode 0600 (see :mod:`companion.atomic`)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"secret_key": self.secret_key, "pairing_code": self.pairing_code,
                           "controllers": sorted(self.controllers)}).encode()
        atomic_write(self.path, body, mode=0o600)

    @staticmethod
    def _hash(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def check_code(self, code: str) -> bool:
        return hmac.compare_digest(str(code).encode(), self.pairing_code.encode())

    def add_controller(self) -> str:
        """A new controller token (its hash is saved)."""
        token = secrets.token_urlsafe(32)
        with self._lock:
            self.controllers.add(self._hash(token))
            self._write()
        return token

    def is_controller(self, token: str | None) -> bool:
        return token is not None and token != "" and self._hash(token) in self.controllers


class RateLimiter:
    """At most ``limit`` attempts per ``window`` seconds per client key."""

    def __init__(self, limit: int, window: float = 60.0) -> None:
        self.limit = limit
        self.window = window
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str) -> float:
        """Record an attempt; returns 0 if allowed, else the seconds until the next is."""
        now = time.monotonic()
        with self._lock:
            q = self._hits.setdefault(key, deque())
            while q and now - q[0] >= self.window:
                q.popleft()
            if len(q) >= self.limit:
                return self.window - (now - q[0])
            q.append(now)
            return 0.0


def _serializer() -> URLSafeSerializer:
    key = current_app.secret_key
    if not key:
        raise RuntimeError("the dashboard has no secret key; build it with web_ui.create_app")
    return URLSafeSerializer(key, salt="dc-csrf")


def csrf_token() -> str:
    """The CSRF token for this browser (made and set as a cookie on first use)."""
    raw = request.cookies.get(CSRF_COOKIE)
    if raw and _valid_csrf(raw):
        return raw
    if "new_csrf" not in g:
        g.new_csrf = _serializer().dumps(secrets.token_hex(16))
    return str(g.new_csrf)


def _valid_csrf(value: str) -> bool:
    try:
        _serializer().loads(value)
    except BadSignature:
        return False
    return True


def is_controller() -> bool:
    """Whether this request comes from a paired controller."""
    store: SecretStore = current_app.extensions["secrets"]
    return store.is_controller(request.cookies.get(CONTROLLER_COOKIE))


def is_local() -> bool:
    """Whether the page is opened on the host itself."""
    return request.remote_addr in LOCAL_ADDRESSES


def _refuse(status: int, message: str) -> Response:
    resp = jsonify(error=message)
    resp.status_code = status
    return resp


@bp.before_app_request
def guard_posts() -> Response | None:
    """CSRF on every unsafe request, then controllers only (except for pairing itself)."""
    if request.method in SAFE_METHODS:
        return None
    cookie = request.cookies.get(CSRF_COOKIE)
    header = request.headers.get(CSRF_HEADER)
    if not cookie or not header:
        return _refuse(403, f"refused: a {request.method} needs the CSRF token in the "
                            f"{CSRF_HEADER} header matching the {CSRF_COOKIE} cookie; reload "
                            "the dashboard page to get one")
    if not hmac.compare_digest(cookie.encode(), header.encode()) or not _valid_csrf(cookie):
        return _refuse(403, f"refused: the {CSRF_HEADER} header does not match a valid "
                            f"{CSRF_COOKIE} cookie; reload the dashboard page")
    if request.endpoint == "security.pair":
        return None
    if not is_controller():
        return _refuse(403, "read only: this device is a spectator; pair it as a controller "
                            "with the 6-digit code shown on the host (Pair button) to make "
                            "changes")
    return None


@bp.after_app_request
def set_cookies(resp: Response) -> Response:
    if "new_csrf" in g:
        resp.set_cookie(CSRF_COOKIE, g.new_csrf, httponly=True, samesite="Strict",
                        max_age=365 * 24 * 3600)
    if "new_controller" in g:
        resp.set_cookie(CONTROLLER_COOKIE, g.new_controller, httponly=True, samesite="Strict",
                        max_age=365 * 24 * 3600)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    resp.headers.setdefault("Content-Security-Policy",
                            "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                            "img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")
    return resp


@bp.post("/api/pair")
def pair() -> ResponseReturnValue:
    """Pair this device as a controller: ``{"code": "123456"}``."""
    limiter: RateLimiter = current_app.extensions["pair_limiter"]
    wait = limiter.hit(request.remote_addr or "?")
    if wait:
        resp = _refuse(429, f"too many pairing attempts from {request.remote_addr}: at most "
                            f"{limiter.limit} per {limiter.window:.0f} s; try again in "
                            f"{wait:.0f} s")
        resp.headers["Retry-After"] = str(max(1, int(wait + 0.999)))
        return resp
    body = json_body()
    code = body.get("code") if isinstance(body, dict) else None
    if not isinstance(code, str) or not (len(code) == 6 and code.isdigit()):
        return _refuse(400, f'the body must be {{"code": "NNNNNN"}} with the 6-digit code shown '
                            f"on the host, got {body!r}")
    store: SecretStore = current_app.extensions["secrets"]
    if not store.check_code(code):
        return _refuse(403, "wrong pairing code; use the 6-digit code shown on the host's "
                            "terminal")
    g.new_controller = store.add_controller()
    return jsonify(controller=True)


@bp.get("/api/whoami")
def whoami() -> ResponseReturnValue:
    """This device's role; the pairing code only for the host itself."""
    out: dict[str, Any] = {"controller": is_controller(), "local": is_local()}
    if is_local():
        out["pairing_code"] = current_app.extensions["secrets"].pairing_code
    return jsonify(out)


def init_app(app: Flask, secrets_path: Path) -> None:
    """Load (or create) the secrets file and register the pairing rate limiter."""
    store = SecretStore(secrets_path)
    app.extensions["secrets"] = store
    app.extensions["pair_limiter"] = RateLimiter(app.config["PAIR_ATTEMPTS_PER_MINUTE"], 60.0)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = store.secret_key
