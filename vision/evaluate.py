"""How well the reader reads: one CSV row per image, and a printed summary.

Sources:

- **rendered**: scenes from the renderer (:mod:`vision.render`), held-out seeds and styles by
  default, generated on the fly (or a folder of ``NAME.png`` + ``NAME.json`` it wrote). A ground
  truth tile "should be read" when it is face up, at least 90% visible and not cut; reading is
  matched to truth by polygon IoU (>= :data:`MATCH_IOU`). Detection recall is over the tiles
  that should be read; precision counts as false a found tile that matches no face-up truth tile
  (a phantom, or a face-down tile); a found tile over a partly hidden or cut tile is neither.
  A half is right when its value matches the truth half at the same end. ``sure_wrong``
  counts matched tiles read wrong with a confidence of at least :data:`SURE` (nobody would be
  asked about them: the worst error for a game log), ``right_unsure`` right tiles read below it
  (each one a confirmation a person must give); on the single-tile photos, tiles read that are
  not the photo's tile at :data:`SURE` or more, and the photo's tile read alone below it.
  ``lifted`` counts tiles lying on the table (truth layer 0; every tile of a real photo, whose
  tiles all lie flat) that the reader reported on a layer above it. ``cut_flagged`` counts the
  face-up tiles the frame edge cuts (more than 0.3 visible) that the reader reported as cut;
  ``cut_read`` those it read as whole tiles instead (a tile only a sliver of which is out of
  the picture shows all its pips) and ``cut_read_wrong`` those of them read with a value they
  do not have: a guess.
- **real** (``../shared/real``): ``bjorkwall-dev`` single-tile photos (right when exactly one
  tile is read and it is the folder's tile) and ``ddd-dev`` board photos (right when exactly the
  28 tiles of a double-six set are read, each once). Both are read as pictures of one set
  (``Reader.read(..., one_set=True)``, as ``read --one-set`` does): their README says so, as a
  player would know it of their own set.

``--one-set``: rendered scenes laid out with one set (:func:`one_set_scene`) are read as one
set (``Reader.read(..., one_set=True)``); the real photos always are.

``--bench``: the median time per stage of reading 1280x720 rendered frames with 30 tiles (every
stage the reader timed, :mod:`vision.read`: detect, outline, crop, pips, refine, layers, ...).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.errors import DominoError
from companion.session import CONFIRM_BELOW
from companion.tiles import Tile, full_set
from vision.read import Reader, load_image
from vision.types import Reading

MATCH_IOU = 0.5
#: A reading at least this confident is taken without asking (the session's bar, below which a
#: person confirms); ``sure_wrong`` / ``right_unsure`` count against it.
SURE = CONFIRM_BELOW
#: The reader's stages written per image (``ms_<stage>`` columns; one a frame skipped is 0).
STAGES = ("detect", "outline", "crop", "pips", "turn", "refine", "blank", "glint", "drop",
          "layers", "total")


class EvaluateError(DominoError):
    """An evaluation that cannot run: a missing folder, no renderer, bad options."""


@dataclass
class Row:
    """One image's figures (one CSV row)."""

    source: str
    image: str
    truth: int = 0          # tiles that should be read
    found: int = 0          # tiles read (not cut)
    matched: int = 0        # read tiles matched to a should-be-read truth tile
    false: int = 0          # read tiles matching no face-up truth tile
    halves_right: int = 0
    halves_total: int = 0
    tiles_right: int = 0
    sure_wrong: int = 0     # matched tiles read wrong at confidence >= SURE
    right_unsure: int = 0   # right tiles read below SURE
    cut_truth: int = 0      # cut truth tiles that are face up and in view
    cut_flagged: int = 0    # of those, reported as cut
    cut_read: int = 0       # cut truth tiles read as whole tiles (their outline matched)
    cut_read_wrong: int = 0  # of those, read with a value they do not have (a guess)
    lifted: int = 0         # read tiles lying on the table reported on a layer above it
    frame_right: bool = False
    ms_detect: float = 0.0
    ms_outline: float = 0.0
    ms_crop: float = 0.0
    ms_pips: float = 0.0
    ms_turn: float = 0.0
    ms_refine: float = 0.0
    ms_blank: float = 0.0
    ms_glint: float = 0.0
    ms_drop: float = 0.0
    ms_layers: float = 0.0
    ms_total: float = 0.0
    note: str = ""

    @property
    def recall(self) -> float:
        return self.matched / self.truth if self.truth else 1.0

    @property
    def precision(self) -> float:
        return (self.found - self.false) / self.found if self.found else 1.0


def _poly_iou(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = np.asarray(a, np.float32), np.asarray(b, np.float32)
    if cv2.contourArea(pa) <= 0 or cv2.contourArea(pb) <= 0:
        return 0.0
    # convex hulls so a corner order that goes the other way round still measures
    pa, pb = cv2.convexHull(pa), cv2.convexHull(pb)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    union = cv2.contourArea(pa) + cv2.contourArea(pb) - inter
    return float(inter / union) if union > 0 else 0.0


def _timings(row: Row, reading: Reading) -> None:
    for stage in STAGES:
        setattr(row, f"ms_{stage}", round(reading.timings_ms.get(stage, 0.0), 2))


def match_truth(corners: np.ndarray, gts: list[dict[str, Any]], used: set[int]) -> int | None:
    """The index of the true tile (not in ``used``) a found outline ``corners`` is scored
    against, or None: among those it overlaps at IoU >= :data:`MATCH_IOU`, the most visible (a
    tile exactly on another covers the same outline: the hidden one must not take the match),
    then the best overlap."""
    best, best_key = None, (0.0, 0.0)
    for k, g in enumerate(gts):
        if k in used:
            continue
        iou = _poly_iou(corners, np.array(g["corners"], np.float64))
        if iou >= MATCH_IOU and (key := (float(g.get("visible", 0)), iou)) > best_key:
            best, best_key = k, key
    return best


def halves_in_order(corners: np.ndarray, g: dict[str, Any]) -> tuple[int, int]:
    """The true tile ``g``'s halves in the order of a found outline's ``corners`` (its first
    half is the one at ``corners[:2]``): turned where the outline's first end lies nearer the
    true tile's second end."""
    gc = np.asarray(g["corners"], np.float64)
    first = np.asarray(corners, np.float64)[:2].mean(axis=0)
    halves = (int(g["halves"][0]), int(g["halves"][1]))
    to_first, to_second = (np.linalg.norm(first - gc[:2].mean(axis=0)),
                           np.linalg.norm(first - gc[2:].mean(axis=0)))
    return halves if to_first <= to_second else halves[::-1]


def _cut_shown(g: dict[str, Any]) -> bool:
    """Whether a true tile is cut by the frame edge with more than 0.3 of it in the picture
    (the cut tiles the figures count)."""
    return bool(g.get("cut")) and g.get("visible", 0) > 0.3


def score_rendered(reading: Reading, truth: dict[str, Any], name: str) -> Row:
    """Compare a reading with the renderer's ground truth (the shared JSON layout)."""
    row = Row("rendered", name)
    _timings(row, reading)
    gts = truth.get("tiles", [])
    should = [g for g in gts if g.get("face_up") and g.get("visible", 0) >= 0.9 and not g.get("cut")]
    row.truth = len(should)
    row.cut_truth = sum(1 for g in gts if g.get("face_up") and _cut_shown(g))
    used: set[int] = set()
    for t in reading.tiles:
        corners = np.array(t.corners)
        best = match_truth(corners, gts, used)
        g = gts[best] if best is not None else None
        counted_cut = g is not None and _cut_shown(g)
        if t.cut:
            if g is not None and g.get("cut"):
                row.cut_flagged += int(counted_cut)  # as cut_truth counts them
                used.add(best)
            continue
        row.found += 1
        if g is None or not g.get("face_up"):
            row.false += 1
            continue
        used.add(best)
        if counted_cut:
            # a tile the frame edge cuts, read as a whole tile: right when little of it is out
            # of the picture and its pips all show; a value it does not have is a guess
            row.cut_read += 1
            row.cut_read_wrong += int(t.tile is None
                                      or t.tile.plain() != Tile.parse(g["tile"]).plain())
        if not (g.get("visible", 0) >= 0.9 and not g.get("cut")):
            continue  # a partly hidden or cut tile: neither right nor false
        row.matched += 1
        row.lifted += int(int(g.get("layer", 0)) == 0 and t.layer > 0)
        gh = list(halves_in_order(corners, g))
        row.halves_total += 2
        row.halves_right += sum(int(a == b) for a, b in zip(t.halves, gh))
        if Tile.of(*t.halves) == Tile.parse(g["tile"]).plain():
            row.tiles_right += 1
            row.right_unsure += int(t.confidence < SURE)
        else:
            row.sure_wrong += int(t.confidence >= SURE)
    row.halves_total = max(row.halves_total, 2 * row.truth)
    row.frame_right = (row.matched == row.truth and row.tiles_right == row.truth
                       and row.false == 0)
    return row


def score_single_tile(reading: Reading, expected: Tile, name: str) -> Row:
    """A bjorkwall photo: exactly one tile, the expected one."""
    row = Row("bjorkwall", name, truth=1)
    _timings(row, reading)
    read = reading.read_tiles
    row.found = len(read)
    right = [t for t in read if t.tile == expected]
    row.matched = min(1, len(read))
    row.false = max(0, len(read) - 1)
    row.halves_total = 2
    if read:
        t = max(read, key=lambda r: r.confidence)
        row.halves_right = sum(1 for h in t.halves if h in expected.halves) if t.halves else 0
        row.halves_right = min(2, row.halves_right) if t.tile != expected else 2
    row.tiles_right = 1 if right and len(read) == 1 else 0
    row.sure_wrong = sum(1 for t in read if t.tile != expected and t.confidence >= SURE)
    row.right_unsure = int(bool(row.tiles_right) and read[0].confidence < SURE)
    row.lifted = sum(1 for t in read if t.layer > 0)
    row.frame_right = bool(row.tiles_right)
    if not row.frame_right:
        row.note = "read " + (" ".join(str(t.tile) for t in read) or "nothing")
    return row


def score_board(reading: Reading, name: str) -> Row:
    """A ddd board photo: exactly the 28 tiles of a double-six set, each once."""
    row = Row("ddd", name, truth=28)
    _timings(row, reading)
    read = [t.tile for t in reading.read_tiles]
    row.found = len(read)
    want = set(full_set(6))
    seen = set(read)
    row.tiles_right = len(seen & want)
    row.matched = row.tiles_right
    row.false = len(read) - len([t for t in read if t in want])
    dup = len(read) - len(seen)
    missing = sorted(str(t) for t in want - seen)
    row.frame_right = len(read) == 28 and seen == want
    row.lifted = sum(1 for t in reading.read_tiles if t.layer > 0)
    n_cut = len(reading.tiles) - len(reading.read_tiles)
    row.note = "; ".join(part for part in (
        f"missing {' '.join(missing)}" if missing else "",
        f"{dup} duplicate(s)" if dup else "",
        f"{row.lifted} lifted (the board lies flat)" if row.lifted else "",
        f"cut {n_cut}" if n_cut else "") if part)
    return row


# ------------------------------------------------------------------------------------------
# sources


def _renderer():
    try:
        from vision.render import random_scene_spec, render_scene  # type: ignore[attr-defined]
    except ImportError:
        try:
            from vision.render.sampling import random_scene_spec
            from vision.render.scene import render_scene
        except ImportError as exc:
            raise EvaluateError(f"the scene renderer (vision.render) cannot be used ({exc}); "
                                "pass --rendered-dir with scenes written by "
                                "'domino-companion render'") from None
    return random_scene_spec, render_scene


def held_out_seed_min() -> int:
    try:
        from vision.render.sampling import HELD_OUT_SEED_MIN
        return int(HELD_OUT_SEED_MIN)
    except ImportError:
        return 0


def rendered_scenes(count: int, seed: int, held_out: bool = True, **constraints: Any
                    ) -> Iterator[tuple[str, np.ndarray, dict[str, Any]]]:
    """(name, image, truth) for ``count`` scenes from seed ``seed`` on."""
    random_scene_spec, render_scene = _renderer()
    for s in range(seed, seed + count):
        spec = random_scene_spec(s, held_out=held_out, **constraints)
        scene = render_scene(spec)
        yield f"scene-{s}", scene.image_bgr, scene.truth


#: What a truth file beside a rendered scene must hold (said when one does not).
TRUTH_LAYOUT = ('a JSON object whose "tiles" is a list of tiles, each an object with "tile", '
                '"halves" and "corners", as \'domino-companion render\' writes it')


def read_truth(path: Path) -> dict[str, Any]:
    """The ground truth in ``path`` (a rendered scene's NAME.json); :class:`EvaluateError`
    naming the file when it is not :data:`TRUTH_LAYOUT`."""
    try:
        truth = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvaluateError(f"{path}: not a truth file ({exc}); it must hold "
                            f"{TRUTH_LAYOUT}") from None
    tiles = truth.get("tiles") if isinstance(truth, dict) else None
    if not isinstance(tiles, list):
        problem = 'no "tiles" list in it'
    elif not all(isinstance(g, dict) and {"tile", "halves", "corners"} <= g.keys()
                 for g in tiles):
        problem = 'a tile in it is not an object with "tile", "halves" and "corners"'
    else:
        return truth
    raise EvaluateError(f"{path}: not a truth file ({problem}); it must hold {TRUTH_LAYOUT}")


def folder_scenes(folder: Path) -> Iterator[tuple[str, np.ndarray, dict[str, Any]]]:
    """(name, image, truth) for every NAME.png with a NAME.json beside it. The folder and
    every truth file are checked at the call, before any image is read (a bad one met late
    would lose the readings made): :class:`EvaluateError` for a folder with no such pair or a
    truth file that is not :data:`TRUTH_LAYOUT`."""
    if not folder.is_dir():
        raise EvaluateError(f"{folder}: no such folder of rendered scenes (NAME.png + NAME.json)")
    pngs = sorted(folder.glob("*.png"))
    if not pngs:
        raise EvaluateError(f"{folder}: holds no .png scenes; write some with "
                            "'domino-companion render --out DIR'")
    pairs = [(png, read_truth(png.with_suffix(".json")))
             for png in pngs if png.with_suffix(".json").is_file()]
    if not pairs:
        raise EvaluateError(f"{folder}: no scene in it has its truth beside it (NAME.png with "
                            "NAME.json); write scenes with 'domino-companion render --out DIR'")
    return ((png.stem, load_image(png), truth) for png, truth in pairs)


def bjorkwall_photos(root: Path, limit: int | None = None) -> list[tuple[Path, Tile]]:
    """(path, tile) for the bjorkwall photos, every k-th one when ``limit`` is given."""
    items = []
    for d in sorted((root / "bjorkwall-dev").iterdir()):
        if not d.is_dir():
            continue
        a, b = d.name.split("x")
        tile = Tile.of(int(a), int(b))
        items += [(p, tile) for p in sorted(d.glob("*.jpg"))]
    if limit and limit < len(items):
        step = len(items) / limit
        items = [items[int(i * step)] for i in range(limit)]
    return items


# ------------------------------------------------------------------------------------------
# running and summarising


def summarise(rows: list[Row]) -> dict[str, dict[str, Any]]:
    """Figures per source: recall, precision, half and tile accuracy, frames right, ms."""
    out: dict[str, dict[str, Any]] = {}
    for source in sorted({r.source for r in rows}):
        rs = [r for r in rows if r.source == source]
        truth = sum(r.truth for r in rs)
        found = sum(r.found for r in rs)
        summary = {
            "images": len(rs),
            "truth_tiles": truth,
            "recall": sum(r.matched for r in rs) / truth if truth else 1.0,
            "precision": (found - sum(r.false for r in rs)) / found if found else 1.0,
            "halves_right": (sum(r.halves_right for r in rs) / sum(r.halves_total for r in rs)
                             if sum(r.halves_total for r in rs) else None),
            "tiles_right": sum(r.tiles_right for r in rs) / truth if truth else 1.0,
            "frames_right": sum(r.frame_right for r in rs) / len(rs),
            "sure_wrong": sum(r.sure_wrong for r in rs),
            "right_unsure": sum(r.right_unsure for r in rs),
            "lifted": sum(r.lifted for r in rs),
            "cut_flagged": (f"{sum(r.cut_flagged for r in rs)}/{sum(r.cut_truth for r in rs)}"),
            "cut_read": sum(r.cut_read for r in rs),
            "cut_read_wrong": sum(r.cut_read_wrong for r in rs),
        }
        for stage in STAGES:
            summary[f"median_ms_{stage}"] = statistics.median(getattr(r, f"ms_{stage}") for r in rs)
        out[source] = summary
    return out


def _check_outputs(csv_path: Path | None, keep: Path | None) -> None:
    """Refuse, before any work, a ``--csv`` file or ``--keep`` folder that cannot be written
    (the CSV is written when the evaluation ends: a long run would be lost)."""
    path, what = keep, "--keep folder"
    try:
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
        path, what = csv_path, "--csv file"
        if csv_path is not None:
            csv_path.parent.mkdir(parents=True, exist_ok=True)
            with open(csv_path, "a"):  # (a folder raises IsADirectoryError)
                pass
    except OSError as exc:
        raise EvaluateError(f"cannot write the {what} {path}: {exc.strerror or exc}; give "
                            "one in a folder you may write to") from None


def write_csv(rows: list[Row], path: Path) -> None:
    fields = list(asdict(rows[0]).keys()) + ["recall", "precision"] if rows else ["source"]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            d = asdict(r)
            d["recall"] = round(r.recall, 4)
            d["precision"] = round(r.precision, 4)
            w.writerow(d)


def bench(frames: int = 10, repeats: int = 3, seed: int = 0, n_tiles: int = 30) -> dict[str, float]:
    """Median ms per stage of reading 1280x720 rendered frames with ``n_tiles`` tiles: every
    stage the reader timed (``Reading.timings_ms``: check, detect, hints, crop, pips, refine,
    layers, ... as they ran; a stage a frame skipped counts 0 there) and ``total``.

    ``cpu_total`` is the process CPU time of one whole read (wall-clock stage times grow when
    other programs share the cores; CPU time shows what the reader itself costs);
    ``tiles_found_median`` / ``tiles_shown_median`` the tiles read and the face-up tiles the
    frame shows whole (not cut, at least 0.9 visible)."""
    reader = Reader()
    times: list[dict[str, float]] = []
    cpu: list[float] = []
    found, shown = [], []
    for _name, image, truth in rendered_scenes(frames, seed, held_out=False, n_tiles=n_tiles,
                                               set_max=9,
                                               size=(1280, 720), hands=0, loose=0):
        for _ in range(repeats):
            cpu0 = time.process_time()
            r = reader.read(image)
            cpu.append((time.process_time() - cpu0) * 1000)
            times.append(dict(r.timings_ms))
        found.append(len(r.tiles))
        shown.append(sum(1 for t in truth["tiles"]
                         if t["face_up"] and not t["cut"] and t["visible"] >= 0.9))
    stages = [k for k in dict.fromkeys(k for t in times for k in t) if k != "total"] + ["total"]
    result = {k: statistics.median(t.get(k, 0.0) for t in times) for k in stages}
    result["cpu_total"] = statistics.median(cpu)
    result["tiles_found_median"] = statistics.median(found)
    result["tiles_shown_median"] = statistics.median(shown)
    return result


def one_set_scene(truth: dict[str, Any]) -> bool:
    """Whether a rendered scene was laid out with one set: none of its tiles carries a set
    colour (Build Up and the scenes of several coloured sets do). This is how the scene was set
    up, as a player knows what is played, not what the reader read."""
    return not any(t.get("colour") for t in truth.get("tiles", []))


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rendered", type=int, default=0, metavar="N",
                        help="evaluate on N rendered held-out scenes made on the fly")
    parser.add_argument("--seed", type=int, default=None,
                        help="first scene seed (default: the first held-out seed)")
    parser.add_argument("--rendered-dir", type=Path, default=None, metavar="DIR",
                        help="evaluate on scenes already written by 'domino-companion render'")
    parser.add_argument("--real", type=Path, default=None, metavar="PATH",
                        help="the real photos folder (holding bjorkwall-dev/ and ddd-dev/)")
    parser.add_argument("--real-limit", type=int, default=None, metavar="N",
                        help="use only N evenly spread bjorkwall photos (default: all)")
    parser.add_argument("--csv", type=Path, default=None, metavar="OUT",
                        help="write one row per image to this CSV file")
    parser.add_argument("--bench", action="store_true",
                        help="time reading 1280x720 frames with 30 tiles, per stage")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="also write the rendered scenes used to this folder")
    parser.add_argument("--one-set", action="store_true",
                        help="read each rendered scene played with one set (no set colours on "
                             "its tiles) as one set, as `read --one-set` does")


def run(args: argparse.Namespace) -> int:
    if args.bench:
        started = time.perf_counter()
        figures = bench(seed=args.seed or 0)
        print("read 1280x720 frames with 30 tiles (10 rendered frames x 3 runs), median ms per stage:")
        for k, v in figures.items():
            print(f"  {k:>20}: {v:.1f}")
        print(f"  (bench took {time.perf_counter() - started:.0f} s)")
        return 0
    if not (args.rendered or args.rendered_dir or args.real):
        raise EvaluateError("nothing to evaluate: give --rendered N, --rendered-dir DIR, "
                            "--real PATH or --bench")
    if args.rendered < 0:
        raise EvaluateError(f"--rendered must be >= 0, got {args.rendered}")
    _check_outputs(args.csv, args.keep)
    reader = Reader()
    rows: list[Row] = []
    scenes: list[Iterable[tuple[str, np.ndarray, dict[str, Any]]]] = []
    if args.rendered:
        seed = held_out_seed_min() if args.seed is None else args.seed
        scenes.append(rendered_scenes(args.rendered, seed, held_out=True))
    if args.rendered_dir:
        scenes.append(folder_scenes(args.rendered_dir))
    for source in scenes:
        for name, image, truth in source:
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(args.keep / f"{name}.png"), image)
                (args.keep / f"{name}.json").write_text(json.dumps(truth))
            one = args.one_set and one_set_scene(truth)
            rows.append(score_rendered(reader.read(image, int(truth.get("set_max", 15)),
                                                   one_set=one), truth, name))
    if args.real:
        root = args.real
        if not (root / "bjorkwall-dev").is_dir() and not (root / "ddd-dev").is_dir():
            raise EvaluateError(f"{root}: holds neither bjorkwall-dev/ nor ddd-dev/; give the "
                                "real photos folder (../shared/real)")
        if (root / "bjorkwall-dev").is_dir():
            for path, tile in bjorkwall_photos(root, args.real_limit):
                reading = reader.read_file(path, set_max=6, one_set=True)
                rows.append(score_single_tile(reading, tile, f"{path.parent.name}/{path.name}"))
        if (root / "ddd-dev").is_dir():
            for path in sorted((root / "ddd-dev").glob("*.jpg")):
                rows.append(score_board(reader.read_file(path, set_max=6, one_set=True),
                                        path.name))
    for source, s in summarise(rows).items():
        print(f"{source}: {s['images']} images, {s['truth_tiles']} tiles: "
              f"recall {s['recall']:.4f}, precision {s['precision']:.4f}, "
              f"halves right {'n/a' if s['halves_right'] is None else format(s['halves_right'], '.4f')}, "
              f"tiles right {s['tiles_right']:.4f}, "
              f"frames right {s['frames_right']:.4f}, cut flagged {s['cut_flagged']}, "
              f"cut read whole {s['cut_read']} ({s['cut_read_wrong']} wrong), "
              f"sure-wrong {s['sure_wrong']}, right-unsure {s['right_unsure']}, "
              f"lifted {s['lifted']}; "
              f"median ms detect {s['median_ms_detect']:.1f} outline {s['median_ms_outline']:.1f} "
              f"crop {s['median_ms_crop']:.1f} "
              f"pips {s['median_ms_pips']:.1f} turn {s['median_ms_turn']:.1f} refine {s['median_ms_refine']:.1f} "
              f"blank {s['median_ms_blank']:.1f} glint {s['median_ms_glint']:.1f} drop {s['median_ms_drop']:.1f} "
              f"layers {s['median_ms_layers']:.1f} total {s['median_ms_total']:.1f}")
    for r in rows:
        if r.source == "ddd":
            print(f"  ddd {r.image}: {r.found} read, {r.tiles_right}/28 distinct right"
                  + (f"; {r.note}" if r.note else ""))
    if args.csv:
        write_csv(rows, args.csv)
        print(f"wrote {len(rows)} rows to {args.csv}", file=sys.stderr)
    return 0
