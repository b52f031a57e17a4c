"""``domino-companion demo``: the whole companion on its embedded defaults, with no camera.

A bundled recording (``companion/data/demo/GAME.json``, made by the renderer: see
:mod:`vision.render.recording`) is played through the real pipeline: a virtual camera with sensor
noise, the still-table gate, the reader, the tracker, the game's interpreter, the rules and the
stored log, with the entries people make on the tablet (passes, end-of-round hands) at their
moments. The default recording is a match of All Fives between three players in which a hand
reaches in for every play, one player lays a tile that fits nowhere (the dashboard raises the
illegal-placement alert until the tile is taken back) and one tile lies under a glare spot (the
dashboard asks about it).

``--game`` picks another bundled recording: one round of Chickenfoot or Super Dominoes, a whole
Castle Rock game (draws at the right of the row, removals; the player once takes out a tile
that may not go), or one hand of Forty-Two or Moon (bids, trump and the discard typed on the
tablet, tricks gathered face down; the bidder once lays the lead before naming trump), or a
whole Build Up game between two players (a red and a blue set; deals and passes typed on the
tablet, every play a tile laid on a stack, its set told by its colour; a player once lays a tile
on a top it may not cover and takes it back), or a whole Stackernoes game between two players
(the run, stacks, caps and roots read as grid cells and levels; draws and passes typed on the
tablet; a player once lays a tile at the end of the run that it does not match and takes it
back).

Without ``--headless`` the dashboard is served on localhost (a browser opens where there is one)
and follows the recording live; a person may answer the alerts there, and an alert nobody
answers within ``--wait`` seconds is answered as the recording's players would. With
``--headless`` it runs to the end at full speed and prints the final scores with the recording's
ground truth beside them, and what a person had to do on the way; the exit status is 0 when the
scores equal the ground truth, 1 when they do not.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import numpy as np

from companion.errors import DominoError

DEMO_GAMES = ("allfives", "chickenfoot", "super", "castlerock", "fortytwo", "moon", "buildup",
              "stackernoes")

#: Seconds the dashboard demo waits, once stopped (Ctrl-C), for its player to end: it checks
#: between frames, and one frame's read takes well under a second on the 2-core machine.
PLAYER_STOP_WAIT_S = 10.0


def recording_path(game: str) -> Path:
    """The bundled recording of ``game``."""
    if game not in DEMO_GAMES:
        raise DominoError(f"no bundled demo for {game!r}; demos: {', '.join(DEMO_GAMES)}")
    return Path(str(resources.files("companion") / "data" / "demo" / f"{game}.json"))


def _same_play(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    keys = ("player", "play", "on", "at", "level", "pass", "end_round", "draw", "remove", "bid",
            "trump", "discard")
    if a is None or b is None:
        return a is b
    from companion.moves import Move

    ma, mb = Move.from_json({k: a[k] for k in keys if k in a}), Move.from_json(
        {k: b[k] for k in keys if k in b})
    return ma == mb


def _text(entry: dict[str, Any] | None) -> str:
    """An entry in words (``Bob plays 5-0 on 5-5``, ``Ann removes 3-4``)."""
    if not entry:
        return "nothing"
    from companion.moves import META_KEYS, Move

    try:
        return str(Move.from_json({k: v for k, v in entry.items()
                                   if k not in META_KEYS and k != "alternatives"}))
    except ValueError:
        return str(entry)


@dataclass
class DemoReport:
    """What happened: the person's interventions and the pipeline's readings."""

    confirmed: list[str] = field(default_factory=list)  # uncertain readings confirmed as read
    corrected: list[str] = field(default_factory=list)  # readings a person had to correct
    #: of those, the ones whose true entry the alert offered (a dashboard "It was ..." button:
    #: one tap instead of typing the play)
    offered: list[str] = field(default_factory=list)
    illegal_alerts: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)  # plays the camera did not produce
    wrong: list[str] = field(default_factory=list)  # wrong entries taken silently, then fixed
    notices: list[str] = field(default_factory=list)
    dismissed: list[str] = field(default_factory=list)  # stale or phantom readings waved away
    #: logged plays the camera read again as another tile: amended with the alert's one tap
    #: (the recording's play), or kept as logged (the new reading was the wrong one)
    amended: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    camera_plays: int = 0
    frames: int = 0
    seconds: float = 0.0

    @property
    def questions(self) -> int:
        """The taps the person needed: confirmations, corrections, illegal alerts, amends
        (made or declined) and dismissals."""
        return (len(self.confirmed) + len(self.corrected) + len(self.illegal_alerts)
                + len(self.amended) + len(self.kept) + len(self.dismissed))

    def to_json(self) -> dict[str, Any]:
        """The report as the headless demo prints it (counts where lists would be long)."""
        return {"camera_plays": self.camera_plays, "confirmed": self.confirmed,
                "corrected": self.corrected, "corrected_offered": len(self.offered),
                "illegal_alerts": self.illegal_alerts,
                "missed_by_camera": self.missed, "wrong_and_fixed": self.wrong,
                "dismissed": self.dismissed, "amended_by_tap": self.amended,
                "kept_as_logged": self.kept,
                "notices": len(self.notices), "frames": self.frames,
                "seconds": round(self.seconds, 1)}


class DemoPlayer:
    """Plays a recording through a live session; the same code drives the headless run and the
    dashboard demo (which passes ``pace`` and ``wait_for_person``)."""

    def __init__(self, rec: Any, session: Any, loop: Any, seed: int = 0,
                 pace: Callable[[], None] | None = None,
                 wait_for_person: Callable[[Any], None] | None = None,
                 look: Callable[[int, np.ndarray], np.ndarray] | None = None,
                 renderer: Any = None, frames: tuple[int, int] | None = None) -> None:
        from vision.render.recording import HAND_FRAMES, STILL_FRAMES, StepRenderer

        self.rec = rec
        self.session = session
        self.loop = loop
        #: what draws each camera step's frames (``frames(index)`` as
        #: :class:`vision.render.recording.StepRenderer`; ``companion.propbench`` puts a mug
        #: on the table with its own)
        self.renderer = renderer if renderer is not None else StepRenderer(rec)
        self.rng = np.random.default_rng(seed)
        #: frames of the hand and of the still table shown per camera step (``frames``; by
        #: default the recording's few, a play every 9 frames; ``companion.propbench`` plays at
        #: a camera's pace with more)
        self.hand_frames, self.still_frames = frames or (HAND_FRAMES, STILL_FRAMES)
        self.pace = pace
        self.wait_for_person = wait_for_person
        #: what the camera's picture goes through before the sensor noise, by frame number
        #: (``companion.lightbench`` changes the light with it); None: the recording as it is
        self.look = look
        self.report = DemoReport()
        self.stop = threading.Event()

    def _noisy(self, img: np.ndarray) -> np.ndarray:
        noise = self.rng.normal(0.0, 1.5, img.shape).astype(np.float32)
        return np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)

    def run(self) -> DemoReport:
        t0 = time.perf_counter()
        for i, step in enumerate(self.rec.steps):
            if self.stop.is_set():
                break
            if step.kind == "tablet":
                result = self.session.submit(dict(step.entry), source="hand")
                if result.status != "accepted":
                    raise DominoError(f"the recording's tablet entry {step.entry} was refused: "
                                      f"{result.to_json()}")
                continue
            still, hand, _ = self.renderer.frames(i)
            frames = ([hand] * self.hand_frames if hand is not None else []) + \
                [still] * self.still_frames
            before = len(self.session.history)
            for img in frames:
                if self.stop.is_set():  # asked to stop mid-step: end after this frame
                    break
                if self.look is not None:
                    img = self.look(self.report.frames, img)
                self.loop.process(self._noisy(img))
                self.report.frames += 1
                if self.pace is not None:
                    self.pace()
            if self.stop.is_set():
                break
            if self.wait_for_person is not None and self.session.alerts:
                self.wait_for_person(self.session)
            self._person(step, before)
        self.report.seconds = time.perf_counter() - t0
        return self.report

    def _correct(self, alert: Any, step: Any, what: str = "read") -> None:
        """Answer an alert with the true entry; a correction the rules refuse (the play is
        already in, the turn moved on) is dropped and the fix below the alerts takes over."""
        result = self.session.correct(alert.id, dict(step.truth))
        self.report.corrected.append(f"{what} {_text(alert.entry)}, was {_text(step.truth)}")
        if any(_same_play(alt, step.truth) for alt in alert.alternatives):
            self.report.offered.append(self.report.corrected[-1])
        if result.status != "accepted" and result.alert is not None:
            self.session.dismiss(result.alert.id)

    def _amend_or_keep(self, alert: Any) -> None:
        """Answer an ``amend`` alert (a logged play the camera now reads as another tile) as
        the players would, knowing what was played: the tap when the amended play is one of
        the recording's and the logged one is not (and the rules take it), else keep the play
        as logged."""
        s = self.session
        true = [st.truth for st in self.rec.steps if st.truth is not None]
        seq = (alert.amend or {}).get("seq")
        logged = next((h["entry"] for h in s.history if h["seq"] == seq), None)
        what = f"{(alert.amend or {}).get('text', '?')} -> {_text(alert.entry)}"
        if logged is not None and any(_same_play(alert.entry, t) for t in true) and \
                not any(_same_play(logged, t) for t in true):
            try:
                s.confirm(alert.id)
                self.report.amended.append(what)
                return
            except DominoError:
                pass  # the rules refuse it now: kept (the fixes below take over)
        s.dismiss(alert.id)
        self.report.kept.append(what)

    def _person(self, step: Any, before: int) -> None:
        """What the players at the table do after a camera step, knowing what really happened."""
        s = self.session

        def logged() -> bool:
            return step.truth is not None and any(_same_play(h["entry"], step.truth)
                                                  for h in s.history[before:])

        for alert in list(s.alerts):
            if all(a.id != alert.id for a in s.alerts):
                continue  # settled by an earlier answer (a held play rechecked and logged)
            if alert.kind == "notice":
                self.report.notices.append(alert.message)
                s.dismiss(alert.id)
            elif alert.kind == "amend":
                self._amend_or_keep(alert)
            elif alert.kind == "confirm":
                if step.truth is None or logged():
                    # a phantom, or a first look the camera already got right on a second one
                    s.dismiss(alert.id)
                    self.report.dismissed.append(_text(alert.entry))
                elif _same_play(alert.entry, step.truth):
                    s.confirm(alert.id)
                    self.report.confirmed.append(_text(alert.entry))
                else:
                    self._correct(alert, step)
            elif alert.kind == "illegal":
                if step.truth is None:
                    self.report.illegal_alerts.append(alert.message)
                    if "play" not in alert.entry:
                        # a tile taken out of a row (Castle Rock) is put back: the alert is
                        # answered; a tile laid is taken back and its alert closes by itself
                        s.dismiss(alert.id)
                elif logged():
                    s.dismiss(alert.id)
                    self.report.dismissed.append(_text(alert.entry))
                else:
                    self._correct(alert, step, "illegal reading")
        new = s.history[before:]
        if step.truth is None:
            # nothing should be logged here (a trick gathered, a table cleared, a tile laid and
            # taken back): what the camera logged anyway is withdrawn
            for h in reversed(new):
                if h["entry"].get("source") != "camera":
                    break
                s.undo()
                self.report.wrong.append(f"{h['text']} (nothing happened)")
            return
        camera = [h for h in new if h["entry"].get("source") == "camera"]
        self.report.camera_plays += len(camera)
        if len(new) == 1 and _same_play(new[0]["entry"], step.truth):
            return
        # the camera got this play wrong without asking, or missed it: fix it by hand
        fixed = dict(step.truth)
        for h in reversed(new):
            s.undo()
            self.report.wrong.append(f"{h['text']} (was {_text(step.truth)})")
            if h["entry"].get("source") == "camera" and "play" in h["entry"]:
                fixed["reading"] = {"play": h["entry"]["play"]}
        if not new:
            self.report.missed.append(_text(step.truth))
        result = s.submit(fixed, source="correction")
        if result.status != "accepted":
            raise DominoError(f"the recording's play {step.truth} was refused after a fix: "
                              f"{result.to_json()}")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="allfives", choices=DEMO_GAMES,
                        help="which bundled recording to play (default allfives)")
    parser.add_argument("--headless", action="store_true",
                        help="run to the end without a dashboard and print the final scores")
    parser.add_argument("--port", type=int, default=0, help="dashboard port (default: any free)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--wait", type=float, default=20.0,
                        help="seconds to wait for a person to answer an alert on the dashboard "
                             "before the recording's players answer it (default 20)")
    parser.add_argument("--fps", type=float, default=15.0,
                        help="frames per second the recording plays at on the dashboard")


def _live_parts(rec: Any, db: Path) -> tuple[Any, Any, Any]:
    from companion.live import LiveLoop
    from companion.session import Session
    from companion.store import LogStore
    from vision.read import Reader
    from vision.still import StillGate

    store = LogStore(db)
    session = Session.start(store, rec.game, list(rec.players), dict(rec.options))
    loop = LiveLoop(session, Reader(), gate=StillGate(still_frames=2), agree=2)
    loop.warm_up()
    return store, session, loop


def run(args: argparse.Namespace) -> int:
    from vision.render.recording import load_recording

    rec = load_recording(recording_path(args.game))
    if not args.headless:
        _check_dashboard_args(args)
    # the demo's game log and the dashboard's secrets live only as long as the demo
    tmp = Path(tempfile.mkdtemp(prefix="domino-demo-"))
    try:
        if args.headless:
            return _run_headless(rec, tmp)
        return _run_dashboard(args, rec, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _check_dashboard_args(args: argparse.Namespace) -> None:
    """Refuse a ``--fps``, ``--wait`` or ``--port`` the dashboard demo cannot run with."""
    from companion import serve

    if not (math.isfinite(args.fps) and args.fps > 0):
        raise DominoError(f"--fps is the video's frames per second, more than 0, got {args.fps}")
    if not (math.isfinite(args.wait) and args.wait >= 0):
        raise DominoError(f"--wait is seconds to wait for an answer, 0 or more, got {args.wait}")
    serve.check_listen(argparse.Namespace(host="127.0.0.1", port=args.port))


def play(rec: Any, db: Path, look: Callable[[int, np.ndarray], np.ndarray] | None = None,
         renderer: Any = None, frames: tuple[int, int] | None = None
         ) -> tuple[DemoReport, dict[str, Any], bool]:
    """Play ``rec`` headless through a new live session whose game log is ``db`` (see
    :class:`DemoPlayer` for ``look``, ``renderer`` and ``frames``): (what happened, the game's
    result, whether it ends at the recording's true scores and winner)."""
    store, session, loop = _live_parts(rec, db)
    try:
        report = DemoPlayer(rec, session, loop, look=look, renderer=renderer,
                            frames=frames).run()
        result = session.game.result()
    finally:
        store.close()
    match = result["scores"] == rec.truth["scores"] and result["winner"] == rec.truth["winner"]
    return report, result, match


def names_from(text: str, known: tuple[str, ...], what: str) -> list[str]:
    """The comma-separated names in ``text`` (a bench's ``--games``, ``--lights``), each one
    of ``known``; a :class:`ValueError` naming the ``what`` not known and the choices."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in known]
    if not names or bad:
        raise ValueError(f"{what} {', '.join(bad) or repr(text)} unknown; choose from "
                         f"{', '.join(known)}")
    return names


def tally(total: dict[str, int], row: dict[str, Any], counts: tuple[str, ...]) -> None:
    """Add a bench's report line ``row`` (one demo played: its ``matches_truth`` and the
    ``counts``) to the bench's ``total`` line."""
    total["cases"] += 1
    total["matches_truth"] += int(row["matches_truth"])
    for k in counts:
        total[k] += row[k]


def _run_headless(rec: Any, tmp: Path) -> int:
    report, result, match = play(rec, tmp / "demo.sqlite")
    print(json.dumps({"game": result["game"], "players": result["players"],
                      "scores": result["scores"], "round": result["round"],
                      "finished": result["finished"], "winner": result["winner"],
                      "truth": {"scores": rec.truth["scores"], "winner": rec.truth["winner"]},
                      "matches_truth": match, "pipeline": report.to_json()}))
    return 0 if match else 1


def _run_dashboard(args: argparse.Namespace, rec: Any, tmp: Path) -> int:
    from companion import serve
    from companion.live import LiveFrames
    from web_ui.services import SessionHolder

    store, session, loop = _live_parts(rec, tmp / "demo.sqlite")
    holder = SessionHolder(store, session)
    frames = LiveFrames(loop)
    period = 1.0 / args.fps

    def pace() -> None:
        loop._render_annotated()
        time.sleep(period)

    def wait_for_person(s: Any) -> None:
        deadline = time.monotonic() + args.wait
        while s.alerts and time.monotonic() < deadline and not player.stop.is_set():
            time.sleep(0.2)

    player = DemoPlayer(rec, session, loop, pace=pace, wait_for_person=wait_for_person)

    def play() -> None:
        if player.stop.wait(2.0):  # let the browser connect first; stopped meanwhile: done
            return
        report = player.run()
        result = session.game.result()
        if player.stop.is_set():  # Ctrl-C before the recording's end: say so, not "finished"
            print(f"demo stopped after {report.frames} frames: scores so far {result['scores']} "
                  f"(the recording ends at {rec.truth['scores']})", flush=True)
            return
        print(f"demo finished: scores {result['scores']}, winner {result['winner']} (recording's "
              f"truth: {rec.truth['scores']}, winner {rec.truth['winner']}); "
              f"{json.dumps(report.to_json())}", flush=True)

    thread = threading.Thread(target=play, name="demo-player", daemon=True)
    thread.start()
    ns = argparse.Namespace(host="127.0.0.1", port=args.port, trusted_host=[], max_streams=32,
                            max_video=5, no_browser=args.no_browser)
    try:
        return serve.serve_dashboard(ns, store, holder, tmp, tmp / "demo.sqlite", frames=frames,
                                     banner=f"demo: {rec.game} recording, {len(rec.steps)} steps")
    finally:
        # the player ends within one frame; the store is closed only after it has, and the
        # process never exits while the player is inside the reader (a native thread pool
        # torn down under a running inference aborts the process)
        player.stop.set()
        thread.join(PLAYER_STOP_WAIT_S)
        if thread.is_alive():
            print(f"domino-companion demo: the player did not stop within "
                  f"{PLAYER_STOP_WAIT_S:g} s; closing anyway", file=sys.stderr, flush=True)
        store.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(argparse.Namespace(game="allfives", headless=True)))
