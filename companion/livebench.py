"""``python -m companion.livebench``: how fast the live companion follows a table.

It plays the first camera steps of the bundled All Fives recording through a real-time virtual
camera (30 frames per second, sensor noise, a hand reaching in before every play) into the
capture thread and the live loop in its own thread, exactly as ``domino-companion run`` does, and
measures:

* latency: from the moment the camera delivers the first frame after the hand has left the
  table to the moment the move is in the session (which is when the dashboard's live stream
  sends it), per play;
* frames per second the loop sustained, and frames the capture thread dropped;
* CPU time and peak memory of the process;
* per play, where the time went (``steps``; also printed one line per play on stderr): how long
  until the loop took the first still frame from the queue, until the gate let it read, each
  reading (frame number, milliseconds, tiles), how the reading was agreed (two agreeing
  readings, or a majority of three), and when the session had the move and the dashboard's
  stream saw it. Times are seconds after the hand left the table.

``latency_s_max`` and ``within_1s`` count a play as shown when it is in the log or a question
asks about that very tile; ``..._counting_offered`` also when a question about a misread tile
offers it among its alternatives; ``..._counting_questions`` also when any question was raised
before the next play (the camera misread the tile, under glare say, and the dashboard asks a
person at once: that is the pipeline reacting, not the move shown).

A person answers every question about a bench play at once with what really happened, as the
demo's players do (the first tile of the game asks who led it: nobody's seat is known yet);
``questions_answered`` counts them and ``logged`` counts the bench plays that reached the log,
so a play that stays an unanswered question or an illegal alert is not mistaken for one logged.

Targets (issue 5): at most 1 s from the hand leaving to the dashboard showing the move, at 30 fps
input, on the 2-core development machine. The figures go into ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np


def _rss_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_bench(steps: int, fps: float, still_frames: int | None = None,
              whole: bool = False) -> dict:
    """See the module docstring. ``still_frames``: the gate's (None: the demo's, 2);
    ``whole``: read whole frames only (no crops around what changed), for comparison."""
    from companion.capture import CaptureThread
    from companion.demo import _live_parts, recording_path
    from vision.render.recording import HAND_FRAMES, StepRenderer, load_recording
    from vision.virtual_camera import VirtualCamera

    rec = load_recording(recording_path("allfives"))
    renderer = StepRenderer(rec)
    # pre-render the frames (the renderer is not part of the companion) and note when each
    # play's hand has left the table
    timeline: list[np.ndarray] = []
    plays: list[tuple[int, str]] = []  # (frame index of the first still frame, tile)
    truths: dict[str, dict[str, Any]] = {}  # tile -> the recording's true entry
    hold = int(round(fps * 1.5))  # the table stays still 1.5 s after each play
    for i, step in enumerate(rec.steps):
        if step.kind != "camera":
            continue
        if len(plays) >= steps:
            break
        still, hand, _ = renderer.frames(i)
        if hand is not None:
            timeline += [hand] * max(HAND_FRAMES, int(fps * 0.5))
        if step.truth is not None and "play" in step.truth:
            plays.append((len(timeline), str(step.truth["play"])))
            truths[str(step.truth["play"])] = dict(step.truth)
        timeline += [still] * hold
    store, session, loop = _live_parts(rec, Path(tempfile.mkdtemp()) / "bench.sqlite")
    if still_frames is not None:
        from vision.still import StillGate

        loop.gate = StillGate(still_frames=still_frames)
    loop.read_whole = loop.read_whole or whole
    cam = VirtualCamera(timeline, fps=fps, realtime=True, seed=1)
    delivered_at: dict[int, float] = {}

    class Timed:  # when each frame really left the camera (it can fall behind its own clock)
        description = cam.description

        def read(self):
            frame = cam.read()
            if frame is not None:
                delivered_at[frame.index] = time.monotonic()
            return frame

        def close(self) -> None:
            cam.close()

    start_wall = time.monotonic()
    capture = CaptureThread(lambda: Timed(), queue_size=2).start()
    # (when, tile, how) of every play or question shown: how is "move" (in the log), "asked"
    # (a question about this very tile) or "offered" (a question about a misread tile that
    # offers this one among its likeliest alternatives)
    events: list[tuple[float, str, str]] = []
    answered: list[str] = []  # questions the person answered (tile: confirmed / corrected)
    done = threading.Event()

    def answer(alert: dict[str, Any]) -> None:  # the person at the table, knowing the truth
        truth = truths.get(str(alert["entry"].get("play")))
        if alert["kind"] != "confirm" or truth is None:
            return
        if alert["entry"].get("player") == truth.get("player"):
            session.confirm(alert["id"])
            answered.append(f"{truth['play']}: confirmed")
        else:
            session.correct(alert["id"], dict(truth))
            answered.append(f"{truth['play']}: corrected")

    def watch() -> None:  # what a dashboard stream sees: every change of the session
        version = session.version
        n_hist, alert_ids = 0, set()
        while not done.is_set():
            st = session.wait_for_change(version, timeout=0.5)
            if st is None:
                continue
            version = st["version"]
            now = time.monotonic()
            for h in session.history[n_hist:]:
                if h["entry"].get("play") is not None:
                    events.append((now, str(h["entry"]["play"]), "move"))
            n_hist = len(session.history)
            for a in st["alerts"]:  # an uncertain reading asks: that is the dashboard showing it
                if a["id"] not in alert_ids and a["entry"].get("play") is not None:
                    alert_ids.add(a["id"])
                    events.append((now, str(a["entry"]["play"]), "asked"))
                    for alt in a.get("alternatives") or []:  # whole entries (session)
                        events.append((now, str(alt.get("play", alt.get("draw"))), "offered"))
                    answer(a)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    cpu0 = time.process_time()
    loop.trace = []
    loop.start(capture)
    deadline = start_wall + len(timeline) / fps + 30
    while not capture.ended and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(3.0)
    loop.stop()
    capture.stop()
    done.set()
    cpu = time.process_time() - cpu0
    wall = time.monotonic() - start_wall
    latencies = []
    offered_latencies = []  # a question offering the true tile counts as showing it
    reacted_latencies = []  # any question raised about the play counts (a misread asks)
    missed = []
    steps = []
    trace = list(loop.trace)
    for k, (frame_idx, tile) in enumerate(plays):
        left_at = delivered_at.get(frame_idx, start_wall + frame_idx / fps)
        shown = [t for t, what, how in events if what == tile and how != "offered" and t >= left_at]
        offered = [t for t, what, how in events if what == tile and t >= left_at]
        if shown:
            latencies.append(min(shown) - left_at)
        else:
            missed.append(tile)
        if offered:
            offered_latencies.append(min(offered) - left_at)
        end_idx = plays[k + 1][0] if k + 1 < len(plays) else None
        step = step_breakdown(trace, tile, frame_idx, end_idx, left_at,
                              min(shown) if shown else None, delivered_at)
        if offered and (not shown or min(offered) < min(shown)):
            step["offered_in_question_s"] = round(min(offered) - left_at, 3)
        # any question raised before the next play (a misread tile the dashboard asks about)
        next_at = delivered_at.get(end_idx, float("inf")) if end_idx is not None else float("inf")
        asked = [t for t, _, how in events if how == "asked" and left_at <= t < next_at]
        if asked and (not shown or min(asked) < min(shown)):
            step["question_s"] = round(min(asked) - left_at, 3)
        reacted = min([*shown, *asked]) if shown or asked else None
        if reacted is not None:
            reacted_latencies.append(reacted - left_at)
        steps.append(step)
    st = capture.status()
    out = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "input_fps": fps, "still_frames": loop.gate.still_frames, "whole_frames": loop.read_whole,
        "plays": len(plays), "shown": len(latencies), "not_shown": missed,
        "logged": sum(1 for _, tile in plays if any(
            str(h["entry"].get("play")) == tile for h in session.history)),
        "questions_answered": answered,
        "latency_s_median": round(statistics.median(latencies), 3) if latencies else None,
        "latency_s_max": round(max(latencies), 3) if latencies else None,
        "within_1s": sum(1 for x in latencies if x <= 1.0),
        "latency_s_max_counting_offered": round(max(offered_latencies), 3)
        if offered_latencies else None,
        "within_1s_counting_offered": sum(1 for x in offered_latencies if x <= 1.0),
        "latency_s_max_counting_questions": round(max(reacted_latencies), 3)
        if reacted_latencies else None,
        "within_1s_counting_questions": sum(1 for x in reacted_latencies if x <= 1.0),
        "frames_delivered": st.frames, "frames_dropped": st.dropped,
        "loop_fps": round(loop.stats.frames / wall, 1),
        "readings": loop.stats.readings,
        "read_ms_median": round(statistics.median(loop.stats.read_ms), 1) if loop.stats.read_ms else None,
        "cpu_percent_of_one_core": round(100 * cpu / wall, 1),
        "peak_rss_mb": round(_rss_peak_mb(), 1),
        "steps": steps,
    }
    store.close()
    return out


def step_breakdown(trace: list[Any], tile: str, first_still: int, next_play: int | None,
                   left_at: float, shown_at: float | None,
                   delivered_at: dict[int, float]) -> dict[str, Any]:
    """Where one play's time went, from the loop's trace (see :class:`companion.live.TraceEvent`):
    the events of the frames from the play's first still frame up to the next play's; every time
    is in seconds after ``left_at`` (the first still frame left the camera)."""
    def rel(t: float) -> float:
        return round(t - left_at, 3)

    mine = [e for e in trace if e.frame is not None and e.frame >= first_still
            and (next_play is None or e.frame < next_play)]
    out: dict[str, Any] = {"tile": tile, "latency_s": None if shown_at is None else rel(shown_at)}
    first = next((e for e in mine if e.stage == "frame"), None)
    if first is not None:
        out["first_taken_s"] = rel(first.t)
        out["first_taken_frame"] = first.frame - first_still  # frames skipped as stale
    gates = [e for e in mine if e.stage == "gate"]
    seq: list[list[Any]] = []
    for e in gates:
        if seq and seq[-1][0] == e.detail["state"]:
            seq[-1][1] += 1
        else:
            seq.append([e.detail["state"], 1])
    out["gate"] = " ".join(f"{st}x{n}" for st, n in seq[:8])
    stable = next((e for e in gates if e.detail["state"] == "stable"), None)
    out["stable_s"] = None if stable is None else rel(stable.t)
    reads = [e for e in mine if e.stage == "read"]
    out["reads"] = [{"frame": e.frame - first_still, "done_s": rel(e.t), "ms": e.detail["ms"],
                     "crop": e.detail.get("crop"),
                     "queued_s": round(e.t - e.detail["ms"] / 1000 - delivered_at[e.frame], 3)
                     if e.frame in delivered_at else None} for e in reads[:6]]
    agreed = [e for e in mine if e.stage == "agreed"]
    out["agreed"] = [f"{e.detail['how']}@{rel(e.t)}" for e in agreed[:4]]
    pub = next((e for e in mine if e.stage == "published" and e.detail["happened"]), None)
    out["published_s"] = None if pub is None else rel(pub.t)
    out["published"] = [what for e in mine if e.stage == "published" for what in e.detail["what"]]
    rel_ev = next((e for e in mine if e.stage == "relabelled"), None)
    if rel_ev is not None and pub is not None:
        out["relabel_to_published_ms"] = round((pub.t - rel_ev.t) * 1000, 1)
    return out


def _crop_text(crop: list[int] | None) -> str:
    return "" if crop is None else f"[{crop[0]}x{crop[1]}]"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=8, help="plays to follow (default 8)")
    p.add_argument("--fps", type=float, default=30.0, help="camera frames per second (default 30)")
    p.add_argument("--still-frames", type=int, default=None,
                   help="still frames the gate waits for before reading (default: the demo's, 2)")
    p.add_argument("--whole", action="store_true",
                   help="read whole frames only, not crops around what changed (to compare)")
    a = p.parse_args(argv)
    out = run_bench(a.steps, a.fps, a.still_frames, a.whole)
    for st in out["steps"]:
        reads = ", ".join(f"f{r['frame']}:{r['ms']:.0f}ms{_crop_text(r['crop'])}"
                          f"(q{r['queued_s']})@{r['done_s']}" for r in st["reads"])
        print(f"{st['tile']:>4} latency {st['latency_s']} | first frame taken @{st.get('first_taken_s')} "
              f"(+{st.get('first_taken_frame')} frames) | gate {st['gate']} stable@{st['stable_s']} | "
              f"reads {reads} | agreed {' '.join(st['agreed'])} | "
              f"published@{st['published_s']} {st['published']}"
              + (f" | offered in a question @{st['offered_in_question_s']}"
                 if "offered_in_question_s" in st else "")
              + (f" | a question raised @{st['question_s']}" if "question_s" in st else ""),
              file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
