"""``domino-companion serve``: the tablet dashboard on a stored game, served by waitress.

It opens (or creates) the game database, starts the game given by ``--game``/``--players`` or
resumes the latest game in it, prints the address and the pairing code for controllers, and
serves the dashboard until Ctrl-C. Without ``--host`` it listens on 127.0.0.1 only; give
``--host 0.0.0.0`` to let other devices on the LAN join (they watch read only until they pair).
There is no camera in this mode: moves are entered on the tablet.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import socket
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any

from companion.cli import path_arg
from companion.errors import DominoError
from companion.store import LogStore

#: Worker threads on top of the stream caps, for ordinary requests.
SPARE_THREADS = 8


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=path_arg, default=None,
                        help="the game database (SQLite; created if missing; default "
                             "DATA_DIR/games.sqlite)")
    parser.add_argument("--data-dir", type=path_arg, default=None,
                        help="folder for the database and the dashboard secrets file "
                             "(default $DOMINO_COMPANION_HOME or the user data folder, "
                             "~/.local/share/domino-companion on Linux)")
    parser.add_argument("--game", default=None,
                        help="start a new game of this kind (e.g. allfives); the same game, "
                             "players and options as an unfinished latest game go on with it")
    parser.add_argument("--new", action="store_true",
                        help="start the --game even when the latest game is not finished (it "
                             "stays in the database)")
    parser.add_argument("--players", default=None,
                        help="the players of the new game in seating order, e.g. Ann,Bob,Cy")
    parser.add_argument("--options", default=None,
                        help='the new game\'s options as JSON, e.g. \'{"target": 150}\'')
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this computer only; "
                             "0.0.0.0: the whole LAN)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    parser.add_argument("--trusted-host", action="append", default=[],
                        help="an extra host name the dashboard may be reached by (repeatable)")
    parser.add_argument("--max-streams", type=int, default=32,
                        help="open live-update streams allowed at once (default 32)")
    parser.add_argument("--max-video", type=int, default=5,
                        help="open video streams allowed at once (default 5)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")


def lan_address() -> str | None:
    """This machine's address on the LAN (no packet is sent), or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return str(s.getsockname()[0])
    except OSError:
        return None


def trusted_hosts(host: str, extra: list[str]) -> list[str]:
    """The Host names the dashboard answers to (everything else gets 400: DNS rebinding)."""
    names = ["localhost", "127.0.0.1"]
    if host not in ("127.0.0.1", "localhost", "::1"):
        if host not in ("0.0.0.0", "::"):
            names.append(host)
        else:
            lan = lan_address()
            if lan:
                names.append(lan)
            hostname = socket.gethostname()
            names += [hostname, hostname + ".local"]
    names += extra
    return list(dict.fromkeys(names))


def _parse_players(text: str | None) -> list[str]:
    if not text:
        raise DominoError("--game needs --players: the names in seating order, e.g. "
                          "--players Ann,Bob,Cy")
    return [p.strip() for p in text.split(",") if p.strip()]


def _parse_options(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError as exc:
        raise DominoError(f"--options must be a JSON object such as '{{\"target\": 150}}', got "
                          f"{text!r} ({exc})") from None
    if not isinstance(options, dict):
        raise DominoError(f"--options must be a JSON object, got {text!r}")
    return options


def open_games(args: argparse.Namespace) -> tuple[LogStore, Any, Path, Path]:
    """The store and the game holder for ``--db``/``--data-dir``, with ``--game``'s new game
    started or the latest game resumed: ``(store, holder, data_dir, db)``."""
    from web_ui import default_data_dir
    from web_ui.services import SessionHolder

    data_dir = args.data_dir or default_data_dir()
    db = args.db or data_dir / "games.sqlite"
    check_listen(args)  # before a game is started: a refused start leaves no empty game
    store = LogStore(db)
    holder = SessionHolder.resume(store)
    if args.game:
        players, options = _parse_players(args.players), _parse_options(args.options)
        latest = holder.session
        same = latest is not None and (
            latest.header.game, list(latest.header.players), dict(latest.header.options)
        ) == (args.game, players, options)
        if latest is not None and not latest.game.finished and not getattr(args, "new", False) \
                and (same or latest.history):
            # the same command again after a crash or a restart goes on with the game, even one
            # with no entry yet (running it twice does not leave an empty game behind); another
            # game is started over an unfinished one only when asked, or when it has no entry
            h = latest.header
            if not same:
                raise DominoError(
                    f"game {latest.game_id} ({h.game}: {', '.join(h.players)}, "
                    f"{len(latest.history)} entries) is not finished: leave out --game and "
                    "--players to go on with it, or add --new to start another (it stays in "
                    "the database)")
            print(f"domino-companion: going on with game {latest.game_id} ({h.game}: "
                  f"{', '.join(h.players)}, {len(latest.history)} entries), not finished; "
                  "--new starts another", file=sys.stderr)
        else:
            holder.start(args.game, players, options)
    elif args.players or getattr(args, "new", False):
        raise DominoError("--players and --new are for a new game: give --game too, e.g. "
                          "--game allfives")
    return store, holder, data_dir, db


def check_listen(args: argparse.Namespace) -> None:
    """Refuse, with what to do, a ``--port``, ``--host``, ``--max-streams`` or ``--max-video``
    the dashboard could not serve with: a port out of range or in use (another dashboard still
    running), a host this machine cannot listen on, a negative cap."""
    if args.port < 0 or args.port > 65535:
        raise DominoError(f"--port must be 0..65535, got {args.port}")
    for name in ("max_streams", "max_video"):
        value = getattr(args, name, 0)
        if value < 0:
            raise DominoError(f"--{name.replace('_', '-')} must be 0 or more, got {value}")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            args.host, args.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (OSError, UnicodeError) as exc:
        raise DominoError(f"cannot listen on --host {args.host!r}: {exc}; give this machine's "
                          "address, 127.0.0.1 (this computer only) or 0.0.0.0 (the LAN)") from None
    with socket.socket(family, kind, proto) as probe:
        if os.name != "nt":  # as the server binds: a port left in TIME_WAIT is free to it
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            in_use = "in use (another dashboard still running?)" \
                if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)) \
                else f"refused ({exc.strerror or exc})"
            raise DominoError(f"port {args.port} on {args.host} is {in_use}: pass --port 0 "
                              "for any free port, or another port") from None


def serve_dashboard(args: argparse.Namespace, store: LogStore, holder: Any, data_dir: Path,
                    db: Path, frames: Any = None, banner: str = "",
                    calibration_dir: Path | None = None) -> int:
    """Serve the dashboard for ``holder`` with waitress until Ctrl-C (``frames``: the camera's
    annotated frames, or None; ``calibration_dir``: where the Table setup page saves, the
    folder the live companion loads its calibration from, default ``data_dir``)."""
    from waitress import create_server

    from web_ui import create_app, stop_streams

    config: dict[str, Any] = {
        "DATA_DIR": str(data_dir), "DB": str(db),
        "TRUSTED_HOSTS": trusted_hosts(args.host, args.trusted_host),
        "SSE_MAX_STREAMS": args.max_streams, "MJPEG_MAX_STREAMS": args.max_video,
    }
    if calibration_dir is not None:
        config["CALIBRATION_DIR"] = str(calibration_dir)
    app = create_app(config, holder=holder, frames=frames)
    threads = args.max_streams + args.max_video + SPARE_THREADS
    server = create_server(app, host=args.host, port=args.port, threads=threads,
                           channel_timeout=60, ident="domino-companion")
    port = server.effective_port  # type: ignore[union-attr]
    shown = "127.0.0.1" if args.host in ("127.0.0.1", "0.0.0.0", "::") else args.host
    url = f"http://{shown}:{port}/"
    if args.host in ("0.0.0.0", "::"):
        lan = lan_address()
        if lan:
            url = f"http://{lan}:{port}/"
            app.config["PUBLIC_URL"] = url
    session = holder.session
    what = (f"{session.game.title}: {', '.join(session.header.players)} (game {session.game_id})"
            if session else "no game yet: start one on the dashboard")
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C (SIGINT) stops the dashboard even when it was started from a place that
        # ignores SIGINT (a background job of a script or launcher inherits "ignore", and
        # Python then never turns SIGINT into KeyboardInterrupt: the server would not stop);
        # before "Ctrl-C stops" is printed, so a Ctrl-C right after it is not lost
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        print(f"domino-companion dashboard: {url}", flush=True)
        print(f"  game: {what}", flush=True)
        if banner:
            print(f"  {banner}", flush=True)
        print(f"  database: {db}", flush=True)
        print(f"  pairing code for controllers: {app.extensions['secrets'].pairing_code}", flush=True)
        print("  listening on " + (f"{args.host} (other devices can join)" if args.host not in
                                   ("127.0.0.1", "localhost") else "127.0.0.1 only (this computer)")
              + "; Ctrl-C stops", flush=True)
        if not args.no_browser and _has_display():
            threading.Timer(0.5, webbrowser.open, args=(f"http://127.0.0.1:{port}/",)).start()
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stop_streams(app, server)
    return 0


def run(args: argparse.Namespace) -> int:
    store, holder, data_dir, db = open_games(args)
    try:
        return serve_dashboard(args, store, holder, data_dir, db)
    finally:
        store.close()


def _has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
