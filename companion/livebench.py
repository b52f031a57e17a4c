"""``python -m companion.livebench``: how fast the live companion follows a table.

It plays the first camera steps of the bundled All Fives recording through a real-time virtual
camera (30 frames per second, sensor noise, a hand reaching in before every play) into the
capture thread and the live loop in its own thread, exactly as ``domino-companion run`` does, and
measures:

* latency: from the moment the camera delivers the first frame after the hand has left the
  table to the moment the move is in the session (which is when the dashboard's live stream
  sends it), per play;
* frames per second the loop sustained, and frames the capture thread dropped;
* CPU time and peak memory of the process.

Targets (issue 5): at most 1 s from the hand leaving to the dashboard showing the move, at 30 fps
input, on the 2-core development machine. The figures go into ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np


def _rss_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_bench(steps: int, fps: float) -> dict:
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
        timeline += [still] * hold
    store, session, loop = _live_parts(rec, Path(tempfile.mkdtemp()) / "bench.sqlite")
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
    events: list[tuple[float, str]] = []  # (when, tile) of every play or question shown
    done = threading.Event()

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
                    events.append((now, str(h["entry"]["play"])))
            n_hist = len(session.history)
            for a in st["alerts"]:  # an uncertain reading asks: that is the dashboard showing it
                if a["id"] not in alert_ids and a["entry"].get("play") is not None:
                    alert_ids.add(a["id"])
                    events.append((now, str(a["entry"]["play"])))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    cpu0 = time.process_time()
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
    missed = []
    for frame_idx, tile in plays:
        left_at = delivered_at.get(frame_idx, start_wall + frame_idx / fps)
        shown = [t for t, what in events if what == tile and t >= left_at]
        if shown:
            latencies.append(min(shown) - left_at)
        else:
            missed.append(tile)
    st = capture.status()
    out = {
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "input_fps": fps, "plays": len(plays), "shown": len(latencies), "not_shown": missed,
        "latency_s_median": round(statistics.median(latencies), 3) if latencies else None,
        "latency_s_max": round(max(latencies), 3) if latencies else None,
        "within_1s": sum(1 for x in latencies if x <= 1.0),
        "frames_delivered": st.frames, "frames_dropped": st.dropped,
        "loop_fps": round(loop.stats.frames / wall, 1),
        "readings": loop.stats.readings,
        "read_ms_median": round(statistics.median(loop.stats.read_ms), 1) if loop.stats.read_ms else None,
        "cpu_percent_of_one_core": round(100 * cpu / wall, 1),
        "peak_rss_mb": round(_rss_peak_mb(), 1),
    }
    store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=8, help="plays to follow (default 8)")
    p.add_argument("--fps", type=float, default=30.0, help="camera frames per second (default 30)")
    a = p.parse_args(argv)
    print(json.dumps(run_bench(a.steps, a.fps)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
