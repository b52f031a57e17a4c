"""``domino-companion render``: write synthetic scenes and their ground truth.

Scene ``i`` uses seed ``S + i`` and is written as ``DIR/scene_SEED.png`` + ``DIR/scene_SEED.json``.
With ``--held-out`` the seeds are shifted into the held-out range (``S + i + 1_000_000`` when
``S`` is below it) and the held-out looks are drawn too; without it, every seed must stay below
the held-out range.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from companion.cli import path_arg
from vision.render.errors import RenderSpecError
from vision.render.io import write_scene
from vision.render.layouts import LAYOUT_KINDS
from vision.render.sampling import HELD_OUT_SEED_MIN, TILT_LIMITS, random_scene_spec
from vision.render.scene import render_scene


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r} must be WIDTHxHEIGHT, e.g. 1280x720"
                                         ) from None
    if not (64 <= w <= 8192 and 64 <= h <= 8192):  # (before the camera is placed for it)
        raise argparse.ArgumentTypeError(f"size {text!r}: width and height must be 64..8192 "
                                         "pixels, e.g. 1280x720")
    return w, h


def _pair(text: str) -> tuple[float, float]:
    try:
        a, b = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} must be LOW,HIGH, e.g. 0,40") from None
    return a, b


#: The most hands reaching into one scene ``--hands`` takes (a table seats at most eight).
MAX_HANDS = 8


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=path_arg,
                        help="folder for NAME.png + NAME.json pairs")
    parser.add_argument("--count", type=int, default=10, help="number of scenes (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first scene (default 0)")
    parser.add_argument("--set", type=int, choices=(6, 9, 12, 15), default=None,
                        help="set size (default: drawn per scene)")
    parser.add_argument("--size", type=_size, default=(1280, 720), help="WxH (default 1280x720)")
    parser.add_argument("--layout", default=None,
                        help="layout kind: " + ", ".join(LAYOUT_KINDS) + ", game "
                             "(default: drawn per scene)")
    parser.add_argument("--tiles", type=int, default=None, help="tiles in the main layout")
    parser.add_argument("--tilt", type=_pair, default=None, help="tilt range LOW,HIGH degrees")
    parser.add_argument("--markers", action="store_true", help="ArUco markers at the corners")
    parser.add_argument("--held-out", action="store_true",
                        help=f"held-out seeds (>= {HELD_OUT_SEED_MIN}) and looks")
    parser.add_argument("--clean", action="store_true",
                        help="no blur, noise, JPEG, glare, colour cast or lens distortion")
    parser.add_argument("--hands", type=int, default=None, help="hands reaching in per scene")
    parser.add_argument("--decor", action="store_true",
                        help="printed game-board art on the table (vision.render.decor): grids, "
                             "motifs with numerals, lettering, logos, pip-like dots")
    parser.add_argument("--overlay", action="store_true",
                        help="also write NAME.overlay.jpg with the ground truth drawn on it")
    parser.add_argument("--sequence", metavar="GAME", default=None,
                        help="instead of separate scenes, write each of --count tables through "
                             "a simulated game frame by frame (allfives, chickenfoot, super, "
                             "stackernoes): seq_SEED_FFF.png/.json")


def check_tiles_and_tilt(args: argparse.Namespace) -> None:
    """Refuse, naming the option, a ``--tilt`` outside :data:`TILT_LIMITS` and a ``--tiles``
    below 1 or above what the set holds, where the set is known (``--set``, or the game of
    ``--sequence``; a set drawn per scene is checked with the scene)."""
    low, high = TILT_LIMITS
    if args.tilt is not None and not low <= args.tilt[0] <= args.tilt[1] <= high:
        raise RenderSpecError(f"--tilt {args.tilt[0]:g},{args.tilt[1]:g}: expected LOW,HIGH "
                              f"degrees with {low:g} <= LOW <= HIGH <= {high:g}")
    if args.tiles is None:
        return
    if args.tiles < 1:
        raise RenderSpecError(f"--tiles {args.tiles} must be at least 1 (tiles in the main "
                              "layout)")
    set_max = args.set
    if set_max is None and args.layout == "chickenfoot":
        set_max = 9  # the chickenfoot layout is drawn with a double-9 set
    if args.sequence:
        from vision.render.gamelayout import SET_OF_GAME
        set_max = SET_OF_GAME.get(args.sequence, set_max)
    if set_max is not None and args.tiles > (size := (set_max + 1) * (set_max + 2) // 2):
        raise RenderSpecError(f"--tiles {args.tiles} is more than the {size} tiles of a "
                              f"double-{set_max} set")
    if set_max is None and args.tiles > (smallest := 28):
        raise RenderSpecError(f"--tiles {args.tiles} is more than the {smallest} tiles of a "
                              "double-6 set, and without --set each scene draws its set "
                              "(double-6 to -15); give --set (12 holds 91 tiles, 15 holds 136) "
                              f"or --tiles at most {smallest}")


def run(args: argparse.Namespace) -> int:
    from vision.render.overlay import draw_truth

    if args.count < 1:
        raise RenderSpecError(f"--count {args.count} must be at least 1")
    if args.seed < 0:
        raise RenderSpecError(f"--seed {args.seed} must be non-negative")
    if args.hands is not None and not 0 <= args.hands <= MAX_HANDS:
        raise RenderSpecError(f"--hands {args.hands} must be 0 to {MAX_HANDS} (hands reaching "
                              "in per scene)")
    check_tiles_and_tilt(args)
    first = args.seed
    if args.held_out and first < HELD_OUT_SEED_MIN:
        first += HELD_OUT_SEED_MIN
    if not args.held_out and first + args.count > HELD_OUT_SEED_MIN:
        raise RenderSpecError(f"seeds {first}..{first + args.count - 1} reach the held-out range "
                              f"(>= {HELD_OUT_SEED_MIN}); use --held-out or a smaller --seed")
    constraints: dict = {"size": args.size, "held_out": args.held_out,
                         "markers": args.markers}
    for key, value in (("set_max", args.set), ("layout", args.layout), ("n_tiles", args.tiles),
                       ("tilt_range", args.tilt), ("hands", args.hands)):
        if value is not None:
            constraints[key] = value
    if args.clean:
        constraints["degrade"] = False
    if args.decor:
        constraints["decor"] = True
    out = Path(args.out)
    if args.sequence:
        return _run_sequences(args, first, constraints, out)
    n_tiles = n_readable = 0
    t_spec = t_render = t_write = 0.0
    for i in range(args.count):
        seed = first + i
        t0 = time.perf_counter()
        spec = random_scene_spec(seed, **constraints)
        t1 = time.perf_counter()
        scene = render_scene(spec)
        t2 = time.perf_counter()
        name = f"scene_{seed:07d}"
        write_scene(scene, out, name)
        if args.overlay:
            import cv2
            cv2.imwrite(str(out / f"{name}.overlay.jpg"), draw_truth(scene.image_bgr, scene.truth))
        t3 = time.perf_counter()
        t_spec += t1 - t0
        t_render += t2 - t1
        t_write += t3 - t2
        n_tiles += len(scene.truth["tiles"])
        n_readable += sum(1 for t in scene.truth["tiles"]
                          if t["face_up"] and t["visible"] >= 0.9 and not t["cut"])
    summary = {"out": str(out), "scenes": args.count, "seeds": [first, first + args.count - 1],
               "held_out": args.held_out, "tiles": n_tiles, "readable_tiles": n_readable,
               "ms_per_scene": {"spec": round(1000 * t_spec / args.count, 1),
                                "render": round(1000 * t_render / args.count, 1),
                                "write": round(1000 * t_write / args.count, 1)}}
    print(json.dumps(summary))
    sys.stdout.flush()
    return 0


def _run_sequences(args: argparse.Namespace, first: int, constraints: dict, out: Path) -> int:
    from vision.render.overlay import draw_truth
    from vision.render.sequence import game_sequence

    constraints = {k: v for k, v in constraints.items() if k not in ("layout", "hands", "n_tiles")}
    n_frames = 0
    t0 = time.perf_counter()
    for i in range(args.count):
        seed = first + i
        frames = game_sequence(seed, args.sequence, n_tiles=args.tiles or 16, **constraints)
        for fr in frames:
            scene = render_scene(fr.spec)
            truth = dict(scene.truth, event=fr.event)
            name = f"seq_{seed:07d}_{fr.spec.frame:03d}"
            write_scene(type(scene)(scene.image_bgr, truth), out, name)
            if args.overlay:
                import cv2
                cv2.imwrite(str(out / f"{name}.overlay.jpg"), draw_truth(scene.image_bgr, truth))
            n_frames += 1
    elapsed = time.perf_counter() - t0
    print(json.dumps({"out": str(out), "sequences": args.count, "game": args.sequence,
                      "seeds": [first, first + args.count - 1], "frames": n_frames,
                      "ms_per_frame": round(1000 * elapsed / max(1, n_frames), 1)}))
    return 0
