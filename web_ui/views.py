"""Pages and downloads: the dashboard page, the game exports, the QR code of the address.

``GET /`` the dashboard (it fills itself from ``/events``); ``GET /export.jsonl`` the game log
(replays with ``domino-companion replay``); ``GET /export.csv`` the round grid with running
totals; ``GET /qr.svg`` the dashboard address as a QR code for other devices.
"""

from __future__ import annotations

import segno
from flask import Blueprint, Response, current_app, render_template, request
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from web_ui.api import current_state, require_session
from web_ui.security import csrf_token, is_controller, is_local
from web_ui.stream import camera_status

bp = Blueprint("views", __name__)


def dashboard_url() -> str:
    """The address other devices should open: ``PUBLIC_URL`` or the one this page came by."""
    return str(current_app.config.get("PUBLIC_URL") or request.host_url)


def qr_svg(url: str) -> str:
    """The address as an inline SVG QR code."""
    return str(segno.make(url, error="m").svg_inline(scale=4, dark="#000", light="#fff",
                                                     title=f"QR code: {url}"))


@bp.get("/")
def index() -> ResponseReturnValue:
    url = dashboard_url()
    host = request.host.split(":")[0]
    loopback_only = host in ("127.0.0.1", "localhost") and not current_app.config.get("PUBLIC_URL")
    return render_template(
        "index.html", csrf=csrf_token(), controller=is_controller(), local=is_local(),
        pairing_code=current_app.extensions["secrets"].pairing_code if is_local() else None,
        url=url, qr=Markup(qr_svg(url)), loopback_only=loopback_only,
        state=current_state(), camera=camera_status(),
        has_video=current_app.extensions.get("frames") is not None)


def _download(body: str, mimetype: str, ext: str) -> Response:
    session = require_session()
    name = f"{session.header.game}-game{session.game_id}.{ext}"
    return Response(body, mimetype=mimetype,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/export.jsonl")
def export_jsonl() -> ResponseReturnValue:
    return _download(require_session().export_jsonl(), "application/x-ndjson", "jsonl")


@bp.get("/export.csv")
def export_csv() -> ResponseReturnValue:
    return _download(require_session().export_csv(), "text/csv", "csv")


@bp.get("/qr.svg")
def qr() -> ResponseReturnValue:
    return Response(segno.make(dashboard_url(), error="m").svg_inline(scale=6),
                    mimetype="image/svg+xml")

