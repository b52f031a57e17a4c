"""Benchmark the dashboard under load: ``python -m web_ui.bench``.

A dashboard runs under waitress in a child process (as ``serve`` sizes it: thread count = stream
caps + 8) with a fake camera pushing JPEG frames. This process opens ``--sse`` Server-Sent
Events spectators and ``--mjpeg`` video viewers, pairs as a controller, and POSTs a whole seeded
All Fives game move by move (plus undos), timing each POST from send to full answer. It prints
the POST latency (median, p95, max), how many state updates each spectator received (and whether
each shows the final state), how many frames each viewer got, and the machine's load, first with no streams open, then with them.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import statistics
import tempfile
import threading
import time
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

PLAYERS = ["Ann", "Bob", "Cy"]


def _serve(data_dir: str, out: Any, fps: float) -> None:
    """Child process: a dashboard with a fake camera, until terminated."""
    from waitress import create_server

    from companion.store import LogStore
    from web_ui import create_app
    from web_ui.services import SessionHolder, StillFrames, jpeg_of_colour

    holder = SessionHolder(LogStore(Path(data_dir) / "bench.sqlite"))
    holder.start("allfives", PLAYERS, {})
    frames = StillFrames()
    jpegs = [jpeg_of_colour((40 * i % 255, 80, 120), (640, 480), f"frame {i}") for i in range(30)]

    def feed() -> None:
        i = 0
        while True:
            frames.push(jpegs[i % len(jpegs)])
            i += 1
            time.sleep(1.0 / fps)

    threading.Thread(target=feed, daemon=True).start()
    app = create_app({"DATA_DIR": data_dir}, holder=holder, frames=frames)
    threads = app.config["SSE_MAX_STREAMS"] + app.config["MJPEG_MAX_STREAMS"] + 8
    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    out.put((server.effective_port, app.extensions["secrets"].pairing_code, threads))
    server.run()


class Reader(threading.Thread):
    """A spectator (SSE) or video viewer (MJPEG) reading until told to stop."""

    def __init__(self, port: int, path: str, marker: bytes) -> None:
        super().__init__(daemon=True)
        self.port, self.path, self.marker = port, path, marker
        self.count = 0
        self.status = 0
        self.error = ""
        self.last_state: dict[str, Any] = {}
        self.stop = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            self.conn.request("GET", self.path)
            resp = self.conn.getresponse()
            self.status = resp.status
            self.ready.set()
            tail = b""
            pending = b""
            while not self.stop.is_set():
                chunk = resp.read1(65536)
                if not chunk:
                    break
                data = tail + chunk
                self.count += data.count(self.marker)
                tail = data[-len(self.marker):]
                if self.path == "/events":  # keep the last state seen
                    pending += chunk
                    *done, pending = pending.split(b"\n\n")
                    for msg in done:
                        if msg.startswith(b"event: state\n"):
                            self.last_state = json.loads(msg.split(b"data: ", 1)[1])
        except (OSError, http.client.HTTPException) as exc:
            if not self.stop.is_set():
                self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.ready.set()
            self.conn.close()

class Controller:
    """A paired controller on one keep-alive connection."""

    def __init__(self, port: int, code: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cookies: dict[str, str] = {}
        self._request("GET", "/")
        status, body = self.post("/api/pair", {"code": code})
        if status != 200:
            raise RuntimeError(f"pairing failed: {status} {body}")

    def _request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        data = None
        if method == "POST":
            headers["Content-Type"] = "application/json"
            headers["X-CSRF-Token"] = self.cookies.get("dc_csrf", "")
            data = json.dumps(body)
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        raw = resp.read()
        for header in resp.headers.get_all("Set-Cookie") or []:
            c = SimpleCookie()
            c.load(header)
            self.cookies.update({k: m.value for k, m in c.items()})
        return resp.status, (json.loads(raw) if resp.headers.get_content_type() == "application/json" else raw)

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        return self._request("POST", path, body)

    def timed_game(self, seed: int) -> list[float]:
        """POST one seeded game's moves and an undo after every 20th; the latencies in ms."""
        from companion.simulate import play_random_game

        sim = play_random_game("allfives", PLAYERS, seed=seed)
        self.post("/api/rematch", {})
        times = []
        for i, move in enumerate(sim.moves):
            for path, body in [("/api/submit", {"entry": move.to_json()})] + (
                    [("/api/undo", {}), ("/api/submit", {"entry": move.to_json()})]
                    if i % 20 == 19 else []):
                t0 = time.perf_counter()
                status, out = self.post(path, body)
                times.append((time.perf_counter() - t0) * 1000)
                if status != 200 or (path == "/api/submit" and out.get("status") != "accepted"):
                    raise RuntimeError(f"{path} {body} -> {status} {out}")
        return times


def summary(times: list[float]) -> dict[str, float]:
    q = statistics.quantiles(times, n=20)
    return {"n": len(times), "median_ms": round(statistics.median(times), 2),
            "p95_ms": round(q[18], 2), "max_ms": round(max(times), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m web_ui.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sse", type=int, default=20, help="SSE spectators (default 20)")
    parser.add_argument("--mjpeg", type=int, default=5, help="MJPEG viewers (default 5)")
    parser.add_argument("--fps", type=float, default=15.0, help="fake camera frames per second")
    parser.add_argument("--seed", type=int, default=1, help="seed of the game posted")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        q = ctx.Queue()
        readers: list[Reader] = []
        child = ctx.Process(target=_serve, args=(tmp, q, args.fps), daemon=True)
        child.start()
        try:
            port, code, threads = q.get(timeout=60)
            ctl = Controller(port, code)
            quiet = summary(ctl.timed_game(args.seed))
            readers = ([Reader(port, "/events", b"event: state") for _ in range(args.sse)]
                       + [Reader(port, "/video.mjpg", b"--frame\r\n") for _ in range(args.mjpeg)])
            for r in readers:
                r.start()
            for r in readers:
                r.ready.wait(10)
            time.sleep(1.0)
            refused = [r.status for r in readers if r.status != 200]
            loaded = summary(ctl.timed_game(args.seed))
            time.sleep(1.0)
            final = ctl._request("GET", "/api/state")[1]
            behind = sum(1 for r in readers[:args.sse]
                         if r.last_state.get("version") != final["version"])
            sse_counts = [r.count for r in readers[:args.sse]]
            mjpeg_counts = [r.count for r in readers[args.sse:]]
            errors = [r.error for r in readers if r.error]
            for r in readers:
                r.stop.set()
        finally:
            child.terminate()  # the readers see their streams end
            child.join(10)
        for r in readers:
            r.join(5)
    result = {"threads": threads, "sse": args.sse, "mjpeg": args.mjpeg, "fps": args.fps,
              "refused_streams": refused, "stream_errors": errors,
              "spectators_not_at_final_state": behind, "posts_no_streams": quiet, "posts_with_streams": loaded,
              "sse_state_events_min_max": [min(sse_counts, default=0), max(sse_counts, default=0)],
              "mjpeg_frames_min_max": [min(mjpeg_counts, default=0), max(mjpeg_counts, default=0)],
              "cpus": os.cpu_count(), "loadavg_1min": round(os.getloadavg()[0], 2)}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"waitress threads {threads}; {args.sse} SSE spectators, {args.mjpeg} MJPEG viewers "
              f"at {args.fps:g} fps; {os.cpu_count()} CPUs, load {result['loadavg_1min']}")
        for name, s in (("no streams", quiet), ("with streams", loaded)):
            print(f"controller POST ({name}): n={s['n']} median {s['median_ms']} ms, "
                  f"p95 {s['p95_ms']} ms, max {s['max_ms']} ms")
        print(f"state events per spectator: {result['sse_state_events_min_max']} (min, max); "
              f"frames per viewer: {result['mjpeg_frames_min_max']}; refused streams: {refused}; "
              f"stream errors: {errors}; spectators not showing the final state 1 s after the "
              f"last POST: {behind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
