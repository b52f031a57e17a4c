"""The JSON API: the game state, and every command as a POST that calls the Session.

=====================================  ========================================================
``GET  /api/state``                    the current game's state (``Session.state()``), plus
                                       ``generation`` (bumped by a new game); ``{"game": null}``
                                       before the first game
``GET  /api/games``                    the games, their player counts and options, the entry kinds
``POST /api/submit``                   ``{"entry": {...log entry...}}`` -> ``SubmitResult``
``POST /api/alerts/<id>/confirm``      accept an uncertain reading as read; on an ``amend``
                                       alert (a logged play the camera now reads as another
                                       tile), make its amendment: ``"status": "amended"``, or
                                       400 with the rules' reason (the alert stays open)
``POST /api/alerts/<id>/correct``      ``{"entry": {...}}`` replaces the alert's entry
``POST /api/alerts/<id>/dismiss``      drop the alert, the log unchanged (on an ``amend``
                                       alert: keep the play as logged)
``POST /api/undo``                     withdraw the last entry: ``{"undone": entry|null}``
``POST /api/new_game``                 ``{"game": "allfives", "players": [...], "options": {}}``
``POST /api/rematch``                  a new game with the same game, players (seats) and options
=====================================  ========================================================

A request the rules or the log format refuse gets 400 with ``{"error": message}`` and changes
nothing; so does a body that is not strict JSON (:mod:`web_ui.body`). An illegal placement is
not a bad request: it answers 200 with ``"status": "illegal"`` and the alert a person then
corrects or dismisses.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from companion.errors import DominoError
from companion.games import find_game, game_names
from companion.moves import KINDS
from companion.session import REREAD, Session
from web_ui.body import BodyError, json_body
from web_ui.services import SessionHolder

bp = Blueprint("api", __name__, url_prefix="/api")


#: The longest player name a new game takes (the scoreboard shows each in full).
NAME_MAX = 40


class ApiError(Exception):
    """A request the API refuses: ``status`` and a message naming what is wrong."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def holder() -> SessionHolder:
    return current_app.extensions["session"]


def current_state() -> dict[str, Any]:
    """What the dashboard shows: the Session's state and the holder's generation."""
    h = holder()
    session = h.session
    if session is None:
        return {"game": None, "generation": h.generation, "version": 0}
    return with_extras(session.state(), h.generation)


def with_extras(state: dict[str, Any], generation: int) -> dict[str, Any]:
    """A Session state with the holder's generation and the game's target (if it has one):
    the view's ``goal`` where the game's view names one (Forty-Two: ``marks_to_win`` in marks
    mode, the points ``target`` otherwise), else the ``target`` option."""
    state["generation"] = generation
    view = state.get("view")
    goal = view.get("goal") if isinstance(view, dict) else None
    state["target"] = goal if goal is not None else state.get("options", {}).get("target")
    return state


def require_session() -> Session:
    """The current Session, or a 409 ApiError saying how to start a game."""
    session = holder().session
    if session is None:
        raise ApiError(409, 'no game is running yet; start one with POST /api/new_game '
                            '{"game": "allfives", "players": ["Ann", "Bob"], "options": {}}')
    return session


def _body() -> dict[str, Any]:
    body = json_body()
    if not isinstance(body, dict):
        raw = request.get_data(as_text=True)[:80]
        if not request.is_json:
            raise ApiError(400, "the request body must be a JSON object sent with Content-Type: "
                                f"application/json, got Content-Type {request.content_type!r}")
        raise ApiError(400, f"the request body must be a JSON object (Content-Type: "
                            f"application/json), got {raw!r}")
    return body


def _entry(body: dict[str, Any]) -> dict[str, Any]:
    entry = body.get("entry")
    if not isinstance(entry, dict):
        raise ApiError(400, 'the body must be {"entry": {...}} with one game-log entry such as '
                            f'{{"player": "Ann", "play": "5-5"}}; got {body!r}')
    return entry


@bp.app_errorhandler(ApiError)
def _api_error(exc: ApiError) -> ResponseReturnValue:
    return jsonify(error=str(exc)), exc.status


@bp.app_errorhandler(BodyError)
def _body_error(exc: BodyError) -> ResponseReturnValue:
    return jsonify(error=str(exc)), 400


@bp.app_errorhandler(DominoError)
def _domino_error(exc: DominoError) -> ResponseReturnValue:
    return jsonify(error=str(exc)), 400


@bp.app_errorhandler(HTTPException)
def _http_error(exc: HTTPException) -> ResponseReturnValue:
    """JSON errors for API paths (and the streams); the plain page for the rest."""
    if request.path.startswith(("/api/", "/events", "/video", "/export")):
        limit = request.max_content_length
        if exc.code == 413 and limit:
            return jsonify(error=f"413 {exc.name}: the request body is larger than the "
                                 f"{limit // 1024} KB this address takes; send a smaller one"
                                 + (" (scale the photo down)" if "photo" in request.path
                                    else "")), 413
        return jsonify(error=f"{exc.code} {exc.name}: {exc.description}"), exc.code or 500
    return exc


@bp.get("/state")
def state() -> ResponseReturnValue:
    return jsonify(current_state())


@bp.get("/games")
def games() -> ResponseReturnValue:
    out = []
    for name in game_names():
        cls = find_game(name)
        out.append({
            "name": cls.name, "title": cls.title, "min_players": cls.min_players,
            "max_players": cls.max_players,
            "options": {k: {"default": o.default, "doc": o.doc,
                            "choices": list(o.choices) if o.choices is not None else None}
                        for k, o in cls.options_spec.items()},
        })
    return jsonify(games=out, kinds=list(KINDS))


@bp.post("/submit")
def submit() -> ResponseReturnValue:
    entry = _entry(_body())
    if entry.get("source", "hand") != "hand" or REREAD in entry:
        # the camera's proposals and its requests to amend come from the live loop itself;
        # sent from the tablet, they would open questions no camera asked
        raise ApiError(400, 'an entry from the tablet is the players\' own: leave "source" out '
                            f'(or "hand"); got "source": {entry.get("source")!r}'
                            + (f' and "{REREAD}"' if REREAD in entry else ""))
    result = require_session().submit(entry, source="hand")
    return jsonify(result.to_json())


@bp.post("/alerts/<int:alert_id>/confirm")
def confirm(alert_id: int) -> ResponseReturnValue:
    return jsonify(require_session().confirm(alert_id).to_json())


@bp.post("/alerts/<int:alert_id>/correct")
def correct(alert_id: int) -> ResponseReturnValue:
    return jsonify(require_session().correct(alert_id, _entry(_body())).to_json())


@bp.post("/alerts/<int:alert_id>/dismiss")
def dismiss(alert_id: int) -> ResponseReturnValue:
    require_session().dismiss(alert_id)
    return jsonify(dismissed=alert_id)


@bp.post("/undo")
def undo() -> ResponseReturnValue:
    return jsonify(undone=require_session().undo())


@bp.post("/amend")
def amend() -> ResponseReturnValue:
    """Edit a past entry: ``{"seq": N, "entry": {...}}``. The Session refuses (400, nothing
    changed) when the log would no longer replay legally with the replacement."""
    body = _body()
    seq = body.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise ApiError(400, '"seq" must be the sequence number of the entry to edit (a whole '
                            f'number from the history), got {seq!r}')
    item = require_session().amend(seq, _entry(body), source="correction")
    return jsonify(amended=item)


@bp.get("/history")
def history() -> ResponseReturnValue:
    """Every entry in force with its source and amendments (the state carries the last 30)."""
    return jsonify(history=require_session().full_history())


@bp.post("/new_game")
def new_game() -> ResponseReturnValue:
    body = _body()
    game, players = body.get("game"), body.get("players")
    options = {} if body.get("options") is None else body["options"]
    if not isinstance(game, str):
        raise ApiError(400, f'"game" must be a game name such as "allfives", got {game!r}')
    if isinstance(players, str):
        players = [p.strip() for p in players.split(",") if p.strip()]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ApiError(400, f'"players" must be a list of names in seating order, got {players!r}')
    odd = [p for p in players if p != p.strip() or len(p) > NAME_MAX]
    if odd:
        raise ApiError(400, f"player names are at most {NAME_MAX} characters with no spaces at "
                            f"either end (\"Ann\", not \"Ann \"), got {odd[0][:60]!r}")
    if not isinstance(options, dict):
        raise ApiError(400, f'"options" must be an object of name: value, got {options!r}')
    _leave_unfinished_only_when_asked(body)
    holder().start(game, players, options)
    return jsonify(current_state())


@bp.post("/rematch")
def rematch() -> ResponseReturnValue:
    header = require_session().header
    _leave_unfinished_only_when_asked(_body())
    holder().start(header.game, list(header.players), dict(header.options))
    return jsonify(current_state())


def _leave_unfinished_only_when_asked(body: dict[str, Any]) -> None:
    """A 409 ApiError when the current game has moves and is not over and ``body`` does not
    say ``"leave_unfinished": true``: one stray tap on "New game" or "Rematch" must not leave
    a game in progress (it stays in the database, but the dashboard goes on with the new one)."""
    session = holder().session
    if session is None or session.game.finished or not session.history:
        return
    leave = body.get("leave_unfinished", False)
    if not isinstance(leave, bool):
        raise ApiError(400, f'"leave_unfinished" is true or false, got {leave!r}')
    if not leave:
        h = session.header
        raise ApiError(409, f"game {session.game_id} ({h.game}: {', '.join(h.players)}, "
                            f"{len(session.history)} entries) is not finished: send "
                            '"leave_unfinished": true to leave it and start another (it stays '
                            "in the database)")
