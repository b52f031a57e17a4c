"""LAN security: CSRF on every POST, read-only spectators, pairing with its rate limit,
trusted hosts, the secrets file."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webui_helpers import csrf_of, make_app, post
from web_ui.security import CONTROLLER_COOKIE, CSRF_COOKIE, CSRF_HEADER

POST_ROUTES = ["/api/submit", "/api/undo", "/api/new_game", "/api/rematch",
               "/api/alerts/1/confirm", "/api/alerts/1/correct", "/api/alerts/1/dismiss"]


@pytest.mark.parametrize("path", POST_ROUTES)
def test_post_without_csrf_token_is_refused(client: FlaskClient, path: str) -> None:
    resp = client.post(path, json={"entry": {"player": "Ann", "pass": True}})
    assert resp.status_code == 403
    assert "CSRF token" in resp.get_json()["error"]


def test_post_with_wrong_or_forged_token_is_refused(client: FlaskClient) -> None:
    resp = client.post("/api/undo", json={}, headers={CSRF_HEADER: "forged"})
    assert resp.status_code == 403 and "does not match" in resp.get_json()["error"]
    # a cookie the server did not sign, repeated in the header, is refused too
    client.set_cookie(CSRF_COOKIE, "made-up-value")
    resp = client.post("/api/undo", json={}, headers={CSRF_HEADER: "made-up-value"})
    assert resp.status_code == 403
    assert client.get("/api/state").get_json()["moves"] == 0


@pytest.mark.parametrize("path", POST_ROUTES)
def test_spectator_cannot_change_anything(app: Flask, spectator: FlaskClient, path: str) -> None:
    before = spectator.get("/api/state").get_json()
    resp = post(spectator, path, {"entry": {"player": "Ann", "pass": True},
                                  "game": "allfives", "players": ["X", "Y"]})
    assert resp.status_code == 403
    assert "read only" in resp.get_json()["error"]
    after = spectator.get("/api/state").get_json()
    assert after == before


def test_spectator_reads_everything(spectator: FlaskClient) -> None:
    assert spectator.get("/").status_code == 200
    assert spectator.get("/api/state").status_code == 200
    assert spectator.get("/export.jsonl").status_code == 200
    assert spectator.get("/api/whoami").get_json()["controller"] is False


def test_pairing_makes_a_controller(app: Flask, spectator: FlaskClient) -> None:
    code = app.extensions["secrets"].pairing_code
    assert len(code) == 6 and code.isdigit()
    resp = post(spectator, "/api/pair", {"code": code})
    assert resp.status_code == 200 and resp.get_json() == {"controller": True}
    assert spectator.get_cookie(CONTROLLER_COOKIE) is not None
    resp = post(spectator, "/api/submit", {"entry": {"player": "Ann", "pass": True}})
    assert resp.status_code == 200
    assert spectator.get("/api/whoami").get_json()["controller"] is True


def test_wrong_code_and_bad_body(app: Flask, spectator: FlaskClient) -> None:
    code = app.extensions["secrets"].pairing_code
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    resp = post(spectator, "/api/pair", {"code": wrong})
    assert resp.status_code == 403 and "wrong pairing code" in resp.get_json()["error"]
    resp = post(spectator, "/api/pair", {"code": "12ab"})
    assert resp.status_code == 400 and "6-digit code" in resp.get_json()["error"]
    resp = post(spectator, "/api/pair", {"code": code}, csrf=False)
    assert resp.status_code == 403 and "CSRF" in resp.get_json()["error"]
    assert spectator.get("/api/whoami").get_json()["controller"] is False


def test_pairing_attempts_are_rate_limited(app: Flask, spectator: FlaskClient) -> None:
    code = app.extensions["secrets"].pairing_code
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        assert post(spectator, "/api/pair", {"code": wrong}).status_code == 403
    resp = post(spectator, "/api/pair", {"code": code})  # even the right code, once over
    assert resp.status_code == 429
    assert "too many pairing attempts" in resp.get_json()["error"]
    assert int(resp.headers["Retry-After"]) >= 1
    # another client address has its own allowance
    other = app.test_client()
    other.get("/", environ_base={"REMOTE_ADDR": "192.168.1.20"})
    resp = other.post("/api/pair", json={"code": code}, headers={CSRF_HEADER: csrf_of(other)},
                      environ_base={"REMOTE_ADDR": "192.168.1.20"})
    assert resp.status_code == 200


def test_untrusted_host_is_refused(client: FlaskClient) -> None:
    resp = client.get("/api/state", headers={"Host": "attacker.example"})
    assert resp.status_code == 400
    assert client.get("/api/state", headers={"Host": "127.0.0.1:8000"}).status_code == 200


def test_pairing_code_shown_only_on_the_host(app: Flask) -> None:
    code = app.extensions["secrets"].pairing_code
    local = app.test_client()
    assert code in local.get("/").get_data(as_text=True)
    assert local.get("/api/whoami").get_json()["pairing_code"] == code
    remote = app.test_client()
    env = {"REMOTE_ADDR": "192.168.1.30"}
    assert code not in remote.get("/", environ_base=env).get_data(as_text=True)
    assert "pairing_code" not in remote.get("/api/whoami", environ_base=env).get_json()


def test_secrets_file_is_private_and_keeps_controllers(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    path = tmp_path / "data" / "dashboard-secrets.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with app.test_client() as c:
        c.get("/")
        post(c, "/api/pair", {"code": app.extensions["secrets"].pairing_code})
        token = c.get_cookie(CONTROLLER_COOKIE).value
    data = json.loads(path.read_text())
    assert token not in path.read_text(), "only a hash of the controller token is stored"
    assert len(data["controllers"]) == 1
    # a restart keeps the secret key and the paired controller, with a new pairing code
    again = make_app(tmp_path, start=False)
    assert again.secret_key == app.secret_key
    c2 = again.test_client()
    c2.set_cookie(CONTROLLER_COOKIE, token)
    assert c2.get("/api/whoami").get_json()["controller"] is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_corrupt_secrets_file_says_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dashboard-secrets.json").write_text("{not json")
    with pytest.raises(RuntimeError, match="delete it to start over"):
        make_app(tmp_path)
