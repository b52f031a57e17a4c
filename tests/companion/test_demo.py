"""The demo: bundled recordings played through the live pipeline.

The fast tests read with a scripted reader that returns the renderer's ground truth for the
picture on show (face-up, fully visible tiles), so they check the pipeline's logic (gate,
tracker, interpreter, rules, the players' answers to the alerts) apart from the reader's
accuracy, which :mod:`vision.evaluate` measures. The slow test runs the real reader.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import threading
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion import demo, serve
from companion.demo import DEMO_GAMES, DemoPlayer, recording_path
from companion.errors import DominoError
from companion.live import LiveLoop
from companion.moves import Move
from companion.session import Session
from companion.store import LogStore
from companion.tiles import Tile
from vision.render.errors import RenderSpecError
from vision.render.recording import Recording, StepRenderer, load_recording
from vision.still import StillGate
from live_helpers import _R, _T




class TruthReader:
    """Reads the ground truth of the picture last rendered (face-up, fully visible tiles)."""

    def __init__(self) -> None:
        self.truth: dict[str, Any] = {"tiles": []}

    def read(self, frame_bgr: np.ndarray, set_max: int, **_: object) -> _R:
        return _R(tuple(_T(Tile.parse(t["tile"]), tuple(t["halves"]),
                           tuple(tuple(p) for p in t["corners"]), 0.99)
                        for t in self.truth["tiles"]
                        if t["face_up"] and t["visible"] >= 0.9 and not t["cut"]))


class TruthRenderer(StepRenderer):
    """The real renderer; each rendered step's ground truth goes to the reader."""

    def __init__(self, rec: Recording, reader: TruthReader) -> None:
        super().__init__(rec)
        self.reader = reader

    def frames(self, index: int) -> tuple[np.ndarray, np.ndarray | None, dict[str, Any]]:
        still, hand, truth = super().frames(index)
        self.reader.truth = truth
        return still, hand, truth


def _prefix(rec: Recording, camera_steps: int) -> Recording:
    """The recording up to (and with) its ``camera_steps``-th camera step."""
    n = 0
    for i, step in enumerate(rec.steps):
        n += step.kind == "camera"
        if n == camera_steps:
            break
    # rendered at a quarter size: the same view, 1/16 of the pixels (the test is about logic)
    small = dataclasses.replace(rec.base, width=rec.base.width // 4, height=rec.base.height // 4)
    return Recording(rec.game, rec.players, rec.options, rec.seed, rec.look_seed,
                     rec.steps[:i + 1], rec.truth, small, rec.recipe)


def _rules_part(entry: dict[str, Any]) -> Move:
    return Move.from_json({k: v for k, v in entry.items()
                           if k not in ("source", "confidence", "reading", "alternatives", "t")})


#: camera steps played per game: past the illegal placement and a few plays after it
PREFIX = {"allfives": 8, "chickenfoot": 7, "super": 7, "castlerock": 14, "fortytwo": 9,
          "moon": 8, "buildup": 10, "stackernoes": 10}


@pytest.mark.parametrize("game", DEMO_GAMES)
def test_demo_pipeline_follows_the_recording(game: str, tmp_path: Path) -> None:
    rec = _prefix(load_recording(recording_path(game)), PREFIX[game])
    illegal_steps = [s for s in rec.steps if s.kind == "camera" and s.truth is None and s.tiles
                     and ("lays" in s.note or "takes" in s.note and "out of" in s.note)]
    assert illegal_steps, f"the prefix of {game} should hold its illegal placement"
    store = LogStore(tmp_path / "demo.db")
    session = Session.start(store, rec.game, list(rec.players), dict(rec.options))
    reader = TruthReader()
    loop = LiveLoop(session, reader, gate=StillGate(still_frames=2), agree=2)
    player = DemoPlayer(rec, session, loop)
    player.renderer = TruthRenderer(rec, reader)
    report = player.run()
    want = [_rules_part(s.truth) for s in rec.steps if s.truth is not None]
    got = [_rules_part(h["entry"]) for h in session.history]
    assert got == want
    # a perfect reader: nothing missed and nothing wrong; a person is asked only who led a
    # round (without the deal the camera cannot tell before it has seen over which side of the
    # table each player reaches in); the illegal placement raised its alert once and was taken
    # back
    openers = [_rules_part(s.truth) for s in rec.steps if s.truth and "play" in s.truth
               and "on" not in s.truth and "level" not in s.truth
               and rec.game in ("allfives", "chickenfoot", "super")]
    if rec.game == "stackernoes":  # who leads the first tile is not seen without the deal
        openers = [_rules_part(next(s.truth for s in rec.steps if s.truth and "play" in s.truth))]
    allowed = {str(m) for m in openers}
    assert report.wrong == [] and report.missed == []
    assert all(c.split(", was ")[1] in allowed for c in report.corrected), report.corrected
    assert len(report.illegal_alerts) == len(illegal_steps)
    assert session.alerts == []
    assert report.camera_plays == sum(1 for s in rec.steps if s.kind == "camera" and s.truth) \
        - len(report.corrected)
    store.close()


def test_load_recording_refuses_a_changed_recording(tmp_path: Path) -> None:
    obj = json.loads(recording_path("fortytwo").read_text(encoding="utf-8"))
    step = next(s for s in obj["steps"] if s["kind"] == "camera" and s["tiles"])
    step["tiles"][0][2][0] += 30.0  # a tile moved in the stored steps
    bad = tmp_path / "moved.json"
    bad.write_text(json.dumps(obj), encoding="utf-8")
    with pytest.raises(RenderSpecError, match="no longer matches its recipe"):
        load_recording(bad)
    obj = json.loads(recording_path("castlerock").read_text(encoding="utf-8"))
    obj["recipe"]["illegal_play"] = 2  # the recipe changed under the stored steps
    bad.write_text(json.dumps(obj), encoding="utf-8")
    with pytest.raises(RenderSpecError, match="no longer matches its recipe"):
        load_recording(bad)


def test_bundled_recordings_load_and_end_as_their_truth() -> None:
    for game in DEMO_GAMES:
        rec = load_recording(recording_path(game))
        from companion.games import find_game

        g = find_game(game)(rec.players, rec.options)
        for entry in rec.truth["log"]:
            g.apply(Move.from_json(entry))
        assert g.result()["scores"] == rec.truth["scores"]
        tablet = [s for s in rec.steps if s.kind == "tablet"]
        assert all(s.entry == s.truth for s in tablet)
        assert any(s.glare is not None for s in rec.steps), game


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("game", ["allfives", "buildup", "stackernoes"])
def test_headless_demo_ends_with_the_true_scores(game: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """... and leaves no temporary folder behind (its game log lives as long as the demo)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = io.StringIO()
    with redirect_stdout(out):
        rc = demo.run(argparse.Namespace(game=game, headless=True))
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["scores"] == result["truth"]["scores"]
    assert result["winner"] == result["truth"]["winner"]
    assert rc == 0 and result["matches_truth"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("change, words", [
    ({"fps": 0.0}, "--fps is the video's frames per second"),
    ({"fps": float("nan")}, "--fps"),
    ({"wait": -5.0}, "--wait is seconds"),
    ({"port": 70000}, "--port must be 0..65535"),
])
def test_bad_dashboard_demo_options_are_refused_before_anything_starts(
        change: dict, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    args = argparse.Namespace(game="allfives", headless=False, port=0, no_browser=True,
                              wait=20.0, fps=15.0)
    for k, v in change.items():
        setattr(args, k, v)
    with pytest.raises(DominoError, match=words):
        demo.run(args)
    assert list(tmp_path.iterdir()) == []


def test_same_play_compares_stackernoes_cells_and_level() -> None:
    from companion.demo import _same_play

    truth = {"player": "Ann", "play": "4-5", "at": [[-3, 0], [-2, 0]], "level": 2}
    assert _same_play(dict(truth, source="camera", confidence=0.9), truth)
    assert not _same_play(dict(truth, at=[[-2, 0], [-1, 0]]), truth)
    assert not _same_play(dict(truth, level=1), truth)


@pytest.mark.parametrize("truth_third, read_again, how", [
    ("5-6", "5-6", "amended"),  # the first reading (3-5) was wrong: one tap amends it
    ("3-5", "5-6", "kept"),  # the new reading is the wrong one: the play is kept as logged
])
def test_the_players_amend_a_play_read_again_only_when_it_was_misread(
        tmp_path: Path, truth_third: str, read_again: str, how: str) -> None:
    """The demo's players answer an ``amend`` alert knowing what was played: the tap when the
    amended play is the recording's and the logged one is not, else keep the play."""
    plays = [{"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"},
             {"player": "Ann", "play": "3-5", "on": "5-5"}]
    s = Session.start(LogStore(tmp_path / "d.db"), "allfives", ["Ann", "Bob"])
    for e in plays:
        assert s.submit(e).status == "accepted"
    truth = plays[:2] + [dict(plays[2], play=truth_third)]
    player = DemoPlayer.__new__(DemoPlayer)  # only the players' answers: no renderer
    player.session = s
    player.rec = argparse.Namespace(steps=[argparse.Namespace(truth=t) for t in truth])
    player.report = demo.DemoReport()
    asked = s.submit({"reread": {"was": "3-5", "as": {"play": read_again}}}, source="camera")
    assert asked.status == "amend"
    player._person(argparse.Namespace(truth=None), len(s.history))
    assert s.alerts == []
    assert s.history[2]["entry"]["play"] == (read_again if how == "amended" else "3-5")
    got = player.report.to_json()
    assert (len(got["amended_by_tap"]), len(got["kept_as_logged"])) == \
        ((1, 0) if how == "amended" else (0, 1))


class _StoppingLoop:
    """A live loop stand-in that asks ``player`` to stop while it reads its first frame."""

    def __init__(self) -> None:
        self.player: DemoPlayer | None = None
        self.frames = 0

    def process(self, frame_bgr: np.ndarray) -> None:
        self.frames += 1
        assert self.player is not None
        self.player.stop.set()


def test_a_stopped_player_ends_after_the_frame_it_is_reading(tmp_path: Path) -> None:
    """Ctrl-C on the dashboard demo sets the player's stop while a step's frames are read: it
    reads no further frame and gives no answer for the step (the store is closed next)."""
    rec = _prefix(load_recording(recording_path("allfives")), 2)
    store = LogStore(tmp_path / "demo.db")
    session = Session.start(store, rec.game, list(rec.players), dict(rec.options))
    loop = _StoppingLoop()
    player = DemoPlayer(rec, session, loop)
    loop.player = player
    report = player.run()
    assert loop.frames == 1 and report.frames == 1
    assert session.history == [] and report.corrected == [] and report.missed == []
    store.close()


def test_the_dashboard_demo_closes_its_store_only_after_the_player_ended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """Stopping the dashboard demo waits for its player thread before the store is closed (a
    player still inside the reader when the process exits can abort it: 'terminate called
    without an active exception' was seen once on Ctrl-C, session 19), and says it stopped
    rather than that the demo finished."""

    rec = load_recording(recording_path("allfives"))
    events: list[str] = []
    reading = threading.Event()

    class SlowLoop:
        def process(self, frame_bgr: np.ndarray) -> None:
            reading.set()
            time.sleep(0.3)
            events.append("frame")

        def _render_annotated(self) -> None:
            pass

    class Store:
        def close(self) -> None:
            events.append("store closed")

    session = Session.start(LogStore(tmp_path / "d.db"), rec.game, list(rec.players),
                            dict(rec.options))
    monkeypatch.setattr(demo, "_live_parts", lambda r, db: (Store(), session, SlowLoop()))
    monkeypatch.setattr("companion.live.LiveFrames", lambda loop: None)

    def serve_until_a_frame_is_read(*_: Any, **__: Any) -> int:
        assert reading.wait(60), "the player never read a frame"
        return 0  # as after Ctrl-C

    monkeypatch.setattr(serve, "serve_dashboard", serve_until_a_frame_is_read)
    args = argparse.Namespace(game="allfives", port=0, no_browser=True, fps=1000.0, wait=0.0)
    assert demo._run_dashboard(args, rec, tmp_path) == 0
    assert events[-1] == "store closed" and events.count("store closed") == 1
    assert "frame" in events
    said = capsys.readouterr().out
    assert "demo stopped after" in said and "demo finished" not in said
    assert not any(t.name == "demo-player" and t.is_alive() for t in threading.enumerate())


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT"])
def test_the_dashboard_demo_stopped_by_a_signal_leaves_nothing_behind(
        how: str, tmp_path: Path) -> None:
    """``kill`` (SIGTERM, as a service manager or ``timeout`` stops it) ends the dashboard demo
    as Ctrl-C does: it says it stopped, exits 0, and removes its temporary game log and secrets
    (SIGTERM used to end the process on the spot, leaving /tmp/domino-demo-* behind)."""
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", "0",
                             "--no-browser", "--fps", "30"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    said = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        said.append(line)
        if not line or "Ctrl-C stops" in line:
            break
    assert proc.poll() is None, "".join(said)
    assert list(tmp_path.glob("domino-demo-*")), "the demo keeps its log in a temporary folder"
    time.sleep(3.0)  # the player starts after 2 s: stop it while it plays
    proc.send_signal(getattr(signal, how))
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, "".join(said) + out
    assert "demo stopped after" in out, out
    assert not list(tmp_path.glob("domino-demo-*"))
