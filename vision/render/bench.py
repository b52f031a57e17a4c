"""Renderer speed benchmark: ``python -m vision.render.bench``.

Draws ``--scenes`` specs with ``--tiles`` tiles in the main layout (seeds from ``--seed``), renders
each once to warm caches, then times ``random_scene_spec``, ``render_scene`` and the PNG + JSON
write, and prints one JSON line: per-scene milliseconds (median, mean, 90th percentile) as wall
time and as this process's CPU time, tiles per scene, and the machine's load average (on a
shared machine the wall time grows with the load; the CPU time much less).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from typing import Sequence

import cv2

from vision.render.io import write_scene
from vision.render.sampling import random_scene_spec
from vision.render.scene import render_scene


def _stats(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {"median": round(1000 * statistics.median(xs), 1),
            "mean": round(1000 * statistics.fmean(xs), 1),
            "p90": round(1000 * xs[min(len(xs) - 1, int(0.9 * len(xs)))], 1)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.render.bench", description=__doc__)
    parser.add_argument("--scenes", type=int, default=20)
    parser.add_argument("--tiles", type=int, default=30)
    parser.add_argument("--set", type=int, default=9, choices=(6, 9, 12, 15))
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--layout", default=None)
    parser.add_argument("--threads", type=int, default=1, help="cv2.setNumThreads (default 1)")
    parser.add_argument("--free", action="store_true",
                        help="let each scene draw its set and tile count (ignores --tiles/--set)")
    args = parser.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    cv2.setNumThreads(args.threads)
    kw: dict = {"size": (w, h)} if args.free else {"n_tiles": args.tiles, "set_max": args.set,
                                                     "size": (w, h)}
    if args.layout:
        kw["layout"] = args.layout
    seeds = range(args.seed, args.seed + args.scenes)
    render_scene(random_scene_spec(args.seed, **kw))  # warm-up (imports, caches)
    spec_wall, render_wall, render_cpu, write_wall, tiles = [], [], [], [], []
    lengths: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in seeds:
            t0 = time.perf_counter()
            spec = random_scene_spec(s, **kw)
            t1, c1 = time.perf_counter(), time.process_time()
            scene = render_scene(spec)
            t2, c2 = time.perf_counter(), time.process_time()
            write_scene(scene, tmp, f"scene_{s:07d}")
            t3 = time.perf_counter()
            spec_wall.append(t1 - t0)
            render_wall.append(t2 - t1)
            render_cpu.append(c2 - c1)
            write_wall.append(t3 - t2)
            tiles.append(len(scene.truth["tiles"]))
            for t in scene.truth["tiles"]:  # long side of readable tiles, in pixels
                if t["face_up"] and t["visible"] >= 0.9 and not t["cut"]:
                    c = t["corners"]
                    lengths.append(0.5 * (math.dist(c[0], c[3]) + math.dist(c[1], c[2])))
    print(json.dumps({
        "scenes": args.scenes, "size": f"{w}x{h}",
        "set_max": "drawn per scene" if args.free else args.set,
        "layout": args.layout or "drawn per scene", "threads": args.threads,
        "tiles_per_scene": {"mean": round(statistics.fmean(tiles), 1), "min": min(tiles),
                            "max": max(tiles)},
        "render_ms_wall": _stats(render_wall), "render_ms_cpu": _stats(render_cpu),
        "spec_ms_wall": _stats(spec_wall), "write_png_json_ms_wall": _stats(write_wall),
        "readable_tile_length_px": {f"p{q}": round(statistics.quantiles(lengths, n=20)[
            q // 5 - 1], 1) for q in (5, 25, 50, 75, 95)} if len(lengths) >= 20 else None,
        "load_average_1min": round(os.getloadavg()[0], 2),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
