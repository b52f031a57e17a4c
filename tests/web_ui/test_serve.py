"""``domino-companion serve``: a real waitress process on a free port, stopped by Ctrl-C."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from companion.serve import trusted_hosts


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, str, str]:
    cmd = [sys.executable, "-m", "companion", "serve", "--data-dir", str(tmp_path),
           "--port", "0", "--no-browser", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = code = ""
    deadline = time.monotonic() + 30
    assert proc.stdout is not None
    while time.monotonic() < deadline and not (url and code):
        line = proc.stdout.readline()
        if not line:
            break
        if "dashboard: " in line:
            url = line.split("dashboard: ")[1].strip()
        if "pairing code for controllers: " in line:
            code = line.split(": ")[-1].strip()
    if not url:
        proc.kill()
        raise AssertionError(f"serve printed no address: {proc.communicate()[0]}")
    return proc, url, code


def stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=15)
    assert proc.returncode == 0, out
    return out


def opened(tmp_path: Path, *extra: str) -> tuple[Any, Any]:
    """(the store, the session) ``serve --data-dir tmp_path --port 0 EXTRA...`` opens, in this
    process (no server started)."""
    from companion import serve

    parser = argparse.ArgumentParser()
    serve.configure(parser)
    args = parser.parse_args(["--data-dir", str(tmp_path), "--port", "0", *extra])
    store, holder, _, _ = serve.open_games(args)
    return store, holder.session


def get_json(url: str, host: str | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_serve_starts_a_game_and_resumes_it(tmp_path: Path) -> None:
    proc, url, code = start(tmp_path, "--game", "allfives", "--players", "Ann,Bob,Cy",
                            "--options", '{"target": 150}')
    try:
        assert url.startswith("http://127.0.0.1:")
        assert len(code) == 6 and code.isdigit()
        status, state = get_json(url + "api/state")
        assert status == 200
        assert state["players"] == ["Ann", "Bob", "Cy"] and state["target"] == 150
        status, err = get_json(url + "api/state", host="rebind.attacker.example")
        assert status == 400 and "not trusted" in err["error"]
    finally:
        stop(proc)
    secrets = tmp_path / "dashboard-secrets.json"
    assert oct(secrets.stat().st_mode & 0o777) == "0o600"
    proc, url, code2 = start(tmp_path)  # no --game: the latest game again
    try:
        status, state = get_json(url + "api/state")
        assert state["game_id"] == 1 and state["players"] == ["Ann", "Bob", "Cy"]
    finally:
        stop(proc)


def test_serve_stops_on_ctrl_c_even_when_started_ignoring_it(tmp_path: Path) -> None:
    """A background job of a script inherits SIGINT ignored; the dashboard still stops on it."""
    cmd = ("trap '' INT; exec " + " ".join([sys.executable, "-m", "companion", "serve",
                                             "--data-dir", str(tmp_path), "--port", "0",
                                             "--no-browser"]))
    proc = subprocess.Popen(["bash", "-c", cmd], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line or "Ctrl-C stops" in line:
            break
    assert proc.poll() is None, "serve ended before it was stopped"
    stop(proc)


def test_serve_bad_arguments(tmp_path: Path) -> None:
    for args, words in [(["--game", "allfives"], "--game needs --players"),
                        (["--game", "allfives", "--players", "Ann,Bob", "--options", "{x"],
                         "--options must be a JSON object"),
                        (["--game", "nosuch", "--players", "Ann,Bob"], "no game called"),
                        (["--players", "Ann,Bob"], "give --game too")]:
        res = subprocess.run([sys.executable, "-m", "companion", "serve", "--data-dir",
                              str(tmp_path), "--no-browser", "--port", "0", *args],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert words in res.stderr, (args, res.stderr)


def test_serve_refuses_a_port_in_use_a_bad_host_or_cap_and_starts_no_game(
        tmp_path: Path) -> None:
    """A port another program holds (a dashboard still running), a host this machine cannot
    listen on or a negative cap: exit 2 saying what to do, and no game added to the log (each
    refused start used to add an empty one)."""
    import socket

    from companion.store import LogStore

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = str(held.getsockname()[1])
        for args, words in [(["--port", port], f"port {port} on 127.0.0.1 is in use"),
                            (["--port", "0", "--host", "nosuch.invalid"], "cannot listen on"),
                            (["--port", "0", "--max-streams", "-1"], "--max-streams must be 0"),
                            (["--port", "0", "--max-video", "-1"], "--max-video must be 0")]:
            res = subprocess.run([sys.executable, "-m", "companion", "serve", "--data-dir",
                                  str(tmp_path), "--no-browser", "--game", "allfives",
                                  "--players", "Ann,Bob", *args],
                                 capture_output=True, text=True, timeout=60)
            assert res.returncode == 2 and words in res.stderr, (args, res.stderr)
            assert "Traceback" not in res.stderr
    assert not (tmp_path / "games.sqlite").exists() or \
        LogStore(tmp_path / "games.sqlite").latest_game() is None


def test_trusted_hosts() -> None:
    assert trusted_hosts("127.0.0.1", []) == ["localhost", "127.0.0.1"]
    assert trusted_hosts("192.168.1.5", ["tablet.lan"]) == ["localhost", "127.0.0.1",
                                                            "192.168.1.5", "tablet.lan"]
    lan = trusted_hosts("0.0.0.0", [])
    assert lan[:2] == ["localhost", "127.0.0.1"] and len(lan) >= 3
    assert "0.0.0.0" not in lan


def test_an_unfinished_game_is_not_left_by_starting_the_same_command_again(
        tmp_path: Path, capsys) -> None:
    """After a crash the players run the same `serve`/`run --game ... --players ...` again: the
    unfinished game goes on. Another game or other players are refused (what to do is said)
    unless --new; a game with no entry yet goes on too (see the test below)."""
    import pytest

    from companion.errors import DominoError

    store, s = opened(tmp_path, "--game", "allfives", "--players", "Ann,Bob")
    assert s.submit({"player": "Ann", "play": "5-5"}).status in ("accepted", "confirm")
    if s.alerts:
        s.confirm(s.alerts[0].id)
    assert s.history
    again = opened(tmp_path, "--game", "allfives", "--players", "Ann,Bob")[1]
    assert again.game_id == s.game_id and len(again.history) == len(s.history)
    assert f"going on with game {s.game_id}" in capsys.readouterr().err
    for other in (["--game", "chickenfoot", "--players", "Ann,Bob"],
                  ["--game", "allfives", "--players", "Ann,Cy"],
                  ["--game", "allfives", "--players", "Ann,Bob", "--options", '{"target": 50}']):
        with pytest.raises(DominoError, match=f"game {s.game_id} .* is not finished: leave out "
                                              "--game and --players to go on with it, or add "
                                              "--new"):
            opened(tmp_path, *other)
    assert opened(tmp_path)[1].game_id == s.game_id  # nothing was started meanwhile
    new = opened(tmp_path, "--game", "chickenfoot", "--players", "Ann,Bob", "--new")[1]
    assert new.game_id != s.game_id and new.header.game == "chickenfoot"
    with pytest.raises(DominoError, match="--players and --new are for a new game"):
        opened(tmp_path, "--new")


def test_the_same_command_again_goes_on_with_a_game_that_has_no_entry_yet(
        tmp_path: Path, capsys) -> None:
    """Running `serve`/`run --game G --players ...` again before anything was entered goes on
    with that empty game instead of adding another empty one each time; the options must match
    too. Another game, other players or other options over an empty game start a new one (there
    is nothing to lose, so nothing is refused), and --new always starts another."""
    same = ("--game", "allfives", "--players", "Ann,Bob", "--options", '{"target": 150}')
    store, first = opened(tmp_path, *same)
    capsys.readouterr()
    again = opened(tmp_path, *same)[1]
    assert again.game_id == first.game_id and not again.history
    assert f"going on with game {first.game_id} (allfives: Ann, Bob, 0 entries)" in \
        capsys.readouterr().err
    assert opened(tmp_path, *same)[1].game_id == first.game_id
    assert store.game_ids() == [first.game_id]
    changed = [(["--game", "allfives", "--players", "Ann,Bob", "--options", '{"target": 50}'],
                ("allfives", ["Ann", "Bob"], {"target": 50})),
               (["--game", "allfives", "--players", "Ann,Cy"], ("allfives", ["Ann", "Cy"], {})),
               (["--game", "chickenfoot", "--players", "Ann,Cy"],
                ("chickenfoot", ["Ann", "Cy"], {}))]
    seen = {first.game_id}
    for extra, header in changed:
        s = opened(tmp_path, *extra)[1]
        assert s.game_id not in seen and not s.history, extra
        assert (s.header.game, list(s.header.players), dict(s.header.options)) == header
        seen.add(s.game_id)
    fresh = opened(tmp_path, "--game", "chickenfoot", "--players", "Ann,Cy", "--new")[1]
    assert fresh.game_id not in seen
