"""Calibration figures on rendered scenes (``python -m calibration.bench`` or
``domino-companion calibrate --bench``).

Uses the project renderer (:mod:`vision.render`) with ``markers=True``. The renderer's table
frame has its origin at the centre of the layout; ours has it at marker 0's corner of the play
area, so renderer millimetres = ours + ``marker_rect_mm[:2]`` (:attr:`Case.offset_mm`).

Printed figures (all measured here, nothing assumed):

- markers: scenes where all four were found; marker-corner fit RMS (px); detection time;
- table mm round trip: a 7x6 grid over the play area projected with the renderer's true camera
  (lens distortion included) and brought back through our plane; max and median error (mm),
  without a lens calibration and with the true intrinsics given as if from a lens calibration;
- camera height (relative error) and tilt (degrees) against the renderer's camera;
- tile centres: the renderer's top-face pixel corners through our plane at the tile's top height
  vs. the renderer's ``table_mm`` centres (mm);
- tracker: frames from a camera move to the new plane;
- enrollment: tile size (mm) and set colour clustering against the renderer's truth;
- the reader with a set profile (:func:`reading_bench`): tiles read right and false tiles
  without and with the profile's hints, per tile family (``--reading-only``, ``--seeds``).
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from calibration.plane import (CalibrationError, CameraModel, MarkerLayout, TablePlane,
                               TablePlaneTracker, detect_markers, plane_from_markers, rectify)

GRID_STEPS = (7, 6)


@dataclass(frozen=True)
class Case:
    """One rendered scene with markers, and how to read its truth in our table frame."""

    spec: Any
    image_bgr: np.ndarray
    truth: dict[str, Any]
    layout: MarkerLayout
    offset_mm: tuple[float, float]

    def true_camera(self) -> CameraModel:
        cam = self.truth["camera"]
        return CameraModel(np.array(cam["K"], np.float64), np.array(cam["dist"], np.float64),
                           "lens-calibration", (self.truth["width"], self.truth["height"]))

    def grid_mm(self) -> np.ndarray:
        w, h = self.layout.size_mm
        gx, gy = np.meshgrid(np.linspace(0, w, GRID_STEPS[0]), np.linspace(0, h, GRID_STEPS[1]))
        return np.column_stack([gx.ravel(), gy.ravel()])

    def true_pixels(self, points_mm: np.ndarray, z_mm: float = 0.0) -> np.ndarray:
        """Our-frame table points (at ``z_mm`` above the table) as the renderer's camera sees
        them (with its lens distortion)."""
        from vision.render import Camera

        cam = Camera(self.spec.camera, self.truth["width"], self.truth["height"])
        world = np.column_stack([points_mm + np.array(self.offset_mm),
                                 np.full(len(points_mm), -float(z_mm))])
        return cam.distort_pixels(cam.project(world))


def renderer_case(seed: int, spec: Any | None = None, **constraints: Any) -> Case:
    """Render scene ``seed`` with markers (``constraints`` go to ``random_scene_spec``), or the
    given ``spec``."""
    from vision.render import random_scene_spec, render_scene

    if spec is None:
        spec = random_scene_spec(seed, markers=True, **constraints)
    scene = render_scene(spec)
    rx0, ry0, rx1, ry1 = spec.marker_rect_mm
    layout = MarkerLayout(rx1 - rx0, ry1 - ry0, spec.marker_size_mm, "center")
    return Case(spec, scene.image_bgr, scene.truth, layout, (rx0, ry0))


def moved(case: Case, d_height: float = 40.0, d_tilt: float = 4.0, d_rot: float = 5.0) -> Case:
    """The same table with the camera bumped."""
    cam = case.spec.camera
    bumped = dataclasses.replace(cam, height_mm=cam.height_mm + d_height,
                                 tilt_deg=min(cam.tilt_deg + d_tilt, 45.0),
                                 rotation_deg=cam.rotation_deg + d_rot)
    return renderer_case(case.spec.seed, dataclasses.replace(case.spec, camera=bumped))


def grid_error_mm(case: Case, plane: TablePlane) -> np.ndarray:
    """Per grid point: distance (mm) between the true table point and where our plane puts its
    true pixel."""
    g = case.grid_mm()
    return np.linalg.norm(plane.to_table(case.true_pixels(g)) - g, axis=1)


def tile_centre_errors_mm(case: Case, plane: TablePlane, min_visible: float = 0.95) -> np.ndarray:
    """Per fully visible face-up tile: our mm centre (its top-face pixel corners through the plane
    at its top height) vs the renderer's ``table_mm`` centre."""
    thickness = float(case.truth["style"]["tile_mm"][2])
    out = []
    for t in case.truth["tiles"]:
        if t["visible"] < min_visible or t["cut"]:
            continue
        z_top = float(t["table_mm"]["z_mm"]) + thickness
        mm = plane.to_table(np.array(t["corners"], np.float64), z_mm=z_top).mean(axis=0)
        truth = np.array(t["table_mm"]["center"], np.float64) - np.array(case.offset_mm)
        out.append(float(np.linalg.norm(mm - truth)))
    return np.array(out)


def _pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, np.float64), q)) if len(values) else float("nan")


def run_bench(n_scenes: int = 24, first_seed: int = 0) -> dict[str, Any]:
    """Measure everything in the module docstring; return the figures."""
    from vision.render import RenderSpecError

    found4 = 0
    tried = 0
    missed: list[int] = []
    rms, det_ms, plane_ms, rect_ms = [], [], [], []
    grid_max_nolens, grid_med_nolens, grid_max_lens = [], [], []
    h_err_nolens, tilt_err_nolens, h_err_lens, tilt_err_lens = [], [], [], []
    h_err_by_source: dict[str, list[float]] = {}
    tiles_err: list[float] = []
    tiles_err_nolens: list[float] = []
    seed = first_seed
    while tried < n_scenes:
        try:
            case = renderer_case(seed)
        except RenderSpecError:
            seed += 1
            continue
        seed += 1
        tried += 1
        t0 = time.perf_counter()
        det = detect_markers(case.image_bgr)
        t1 = time.perf_counter()
        det_ms.append((t1 - t0) * 1000)
        if det.missing:
            missed.append(case.spec.seed)
            continue
        found4 += 1
        t1 = time.perf_counter()
        plane = plane_from_markers(det, case.layout)
        plane_ms.append((time.perf_counter() - t1) * 1000)
        t2 = time.perf_counter()
        rectify(case.image_bgr, plane, px_per_mm=2.0)
        rect_ms.append((time.perf_counter() - t2) * 1000)
        lens = plane_from_markers(det, case.layout, case.true_camera())
        rms.append(plane.reprojection_px)
        e = grid_error_mm(case, plane)
        grid_max_nolens.append(float(e.max()))
        grid_med_nolens.append(float(np.median(e)))
        grid_max_lens.append(float(grid_error_mm(case, lens).max()))
        true_h = float(case.truth["camera"]["height_mm"])
        true_t = float(case.truth["camera"]["tilt_deg"])
        assert plane.pose is not None and lens.pose is not None and plane.camera is not None
        rel = abs(plane.pose.height_mm - true_h) / true_h
        h_err_nolens.append(rel)
        h_err_by_source.setdefault(plane.camera.source, []).append(rel)
        tilt_err_nolens.append(abs(plane.pose.tilt_deg - true_t))
        h_err_lens.append(abs(lens.pose.height_mm - true_h) / true_h)
        tilt_err_lens.append(abs(lens.pose.tilt_deg - true_t))
        tiles_err.extend(tile_centre_errors_mm(case, lens).tolist())
        tiles_err_nolens.extend(tile_centre_errors_mm(case, plane).tolist())

    # tracker: a clean scene, then the camera bumped
    base = renderer_case(first_seed + 1000, degrade=False, hands=0)
    bumped = moved(base)
    tracker = TablePlaneTracker(base.layout, every_n=5)
    for _ in range(7):
        tracker.update(base.image_bgr)
    frames_to_new = None
    for k in range(1, 12):
        u = tracker.update(bumped.image_bgr)
        if u.status == "moved":
            frames_to_new = k
            break
    return {
        "scenes": tried, "seeds": (first_seed, seed - 1), "all_four_found": found4,
        "missed_seeds": missed,
        "rms_px_median": _pct(rms, 50), "rms_px_max": max(rms) if rms else float("nan"),
        "detect_ms_median": _pct(det_ms, 50), "plane_ms_median": _pct(plane_ms, 50),
        "rectify_ms_median": _pct(rect_ms, 50),
        "grid_mm_median_nolens": _pct(grid_med_nolens, 50),
        "grid_mm_max_nolens_p90": _pct(grid_max_nolens, 90),
        "grid_mm_max_nolens_worst": max(grid_max_nolens) if grid_max_nolens else float("nan"),
        "grid_mm_max_lens_worst": max(grid_max_lens) if grid_max_lens else float("nan"),
        "height_rel_err_nolens_median": _pct(h_err_nolens, 50),
        "height_rel_err_nolens_worst": max(h_err_nolens) if h_err_nolens else float("nan"),
        "height_rel_err_by_source": {k: (len(v), _pct(v, 50), max(v))
                                     for k, v in h_err_by_source.items()},
        "tilt_err_deg_nolens_worst": max(tilt_err_nolens) if tilt_err_nolens else float("nan"),
        "height_rel_err_lens_worst": max(h_err_lens) if h_err_lens else float("nan"),
        "tilt_err_deg_lens_worst": max(tilt_err_lens) if tilt_err_lens else float("nan"),
        "tile_centre_mm_median": _pct(tiles_err, 50), "tile_centre_mm_p95": _pct(tiles_err, 95),
        "tile_centre_mm_max": max(tiles_err) if tiles_err else float("nan"),
        "tiles": len(tiles_err),
        "tile_centre_nolens_mm_median": _pct(tiles_err_nolens, 50),
        "tile_centre_nolens_mm_p95": _pct(tiles_err_nolens, 95),
        "tile_centre_nolens_mm_max": max(tiles_err_nolens) if tiles_err_nolens else float("nan"),
        "tracker_every_n": tracker.every_n, "tracker_frames_to_new_plane": frames_to_new,
    }


def enroll_bench(seeds: Sequence[int] = (1, 2, 3, 4, 5, 6)) -> list[dict[str, Any]]:
    """Enrollment on rendered face-up sets (truth tile corners): tile size and set clustering."""
    from calibration.enroll import EnrollmentError, enroll_photo, enroll_set

    palettes = [None, None, None, ["red", "blue"], ["green", "yellow", "purple"],
                ["teal", "orange", "red", "blue"]]
    families = [["ivory"], ["black"], ["pipcolour"], ["coloured"], ["coloured"], ["coloured"]]
    rows = []
    for seed, fam, cols in zip(seeds, families, palettes):
        case = enroll_case(seed, fam, cols)
        corners, groups = case_tiles(case, cols)
        plane = plane_from_markers(case.image_bgr, case.layout)
        t = time.perf_counter()
        prof = enroll_set(case.image_bgr, corners, plane, n_sets=len(cols) if cols else 1)
        ms = (time.perf_counter() - t) * 1000
        true_mm = case.truth["style"]["tile_mm"][:2]
        purity = cluster_purity(prof, groups)
        # the same photo through the reader's tile finder instead of the truth corners
        detector: tuple[int, tuple[float, float] | None, list[int] | str]
        try:
            via = enroll_photo(case.image_bgr, plane, n_sets=len(cols) if cols else 1)
            detector = (via.n_tiles, via.tile_mm, [s.tiles for s in via.sets])
        except EnrollmentError as exc:
            detector = (0, None, str(exc).split(":")[0])
        rows.append({"seed": seed, "family": fam[0], "sets": len(cols) if cols else 1,
                     "tiles": prof.n_tiles, "tile_mm": prof.tile_mm, "true_mm": true_mm,
                     "polarity": prof.polarity, "set_names": [s.name for s in prof.sets],
                     "purity": purity, "ms": ms, "detector": detector,
                     "true_split": [groups.count(g) for g in sorted(set(groups))]})
    return rows


def enroll_case(seed: int, families: list[str], colours: list[str] | None) -> Case:
    """A face-up grid of tiles with markers, optionally painted in several set colours."""
    from vision.render import random_scene_spec
    from vision.render.styles import tile_style

    spec = random_scene_spec(seed, markers=True, layout="grid", degrade=False, boneyard=False,
                             loose=0, hands=0, tile_families=families)
    if colours:
        rng = np.random.default_rng(seed)
        styles = {c: tile_style("coloured", rng, colour=c) for c in colours}
        spec = dataclasses.replace(spec, tile_styles=tuple(
            styles[colours[i % len(colours)]] for i in range(len(spec.placements))))
    return renderer_case(seed, spec)


def case_tiles(case: Case, colours: list[str] | None, min_visible: float = 0.95
               ) -> tuple[list[np.ndarray], list[int]]:
    """Truth corners of the fully visible face-up tiles and each one's set index."""
    corners, groups = [], []
    n = len(colours) if colours else 1
    for t in case.truth["tiles"]:
        if t["face_up"] and t["visible"] >= min_visible and not t["cut"]:
            corners.append(np.array(t["corners"], np.float64))
            groups.append(int(t["id"]) % n)
    return corners, groups


def cluster_purity(profile: Any, groups: list[int]) -> float:
    """Fraction of tiles whose enrolled set agrees with the majority truth set of that set."""
    assigned = [profile.nearest_set(lab) for lab in profile.tile_labs]
    agree = 0
    for k in set(assigned):
        members = [g for a, g in zip(assigned, groups) if a == k]
        agree += max(members.count(g) for g in set(members))
    return agree / len(groups) if groups else float("nan")


#: Tile families of the reading comparison: unusual colours first, then ordinary sets.
READING_FAMILIES = ("coloured", "pipcolour", "black", "ivory", "white")


#: Fewest tiles of each set in a reading-bench enrollment photo (:func:`enrollment_photo`): a
#: grid the renderer draws with fewer gets this many per set (enrollment refuses fewer than two
#: per set; without this, 4-set scenes 330 and 378 had grids of 6 and 7 tiles and no profile).
ENROLL_TILES_PER_SET = 3


def enrollment_photo(spec: Any) -> tuple[Any, int, TablePlane | None]:
    """The enrollment photo of the set in scene ``spec``, the number of set colours in it and
    its table plane (from the markers; None when they are not all found): the scene's tile
    style(s) laid out face up in a grid on the same table with markers, seen by another camera
    (tilt up to 15 degrees), rendered clean (another seed: other light and placement), with at
    least :data:`ENROLL_TILES_PER_SET` tiles per set."""
    from vision.render import random_scene_spec

    styles = list(dict.fromkeys(spec.tile_styles))
    knobs: dict[str, Any] = dict(layout="grid", hands=0, boneyard=False, loose=0, degrade=False,
                                 tilt_range=(0.0, 15.0), markers=True)
    grid = random_scene_spec(spec.seed + 7000, **knobs)
    if len(grid.placements) < ENROLL_TILES_PER_SET * len(styles):
        # as `calibrate --enroll` asks a person to: enough tiles of every set to tell them apart
        grid = random_scene_spec(spec.seed + 7000, n_tiles=ENROLL_TILES_PER_SET * len(styles),
                                 **knobs)
    grid = dataclasses.replace(
        grid, tile_styles=tuple(styles[i % len(styles)] for i in range(len(grid.placements))),
        table_family=spec.table_family, table_variant=spec.table_variant)
    case = renderer_case(grid.seed, grid)
    try:
        plane: TablePlane | None = plane_from_markers(case.image_bgr, case.layout)
    except CalibrationError:
        plane = None
    return case, len(styles), plane


def right_truth_tiles(reading: Any, truth: dict[str, Any]) -> set[int]:
    """Indices into ``truth["tiles"]`` of the tiles a reading reads right, matched as
    :func:`vision.evaluate.score_rendered` matches them (each reading tile in turn to an unused
    truth tile, :func:`vision.evaluate.match_truth`; only whole, face-up, visible truth tiles can
    be right), so ``len()`` equals its ``tiles_right``."""
    from companion.tiles import Tile
    from vision.evaluate import match_truth

    gts = truth.get("tiles", [])
    used: set[int] = set()
    right: set[int] = set()
    for t in reading.tiles:
        corners = np.array(t.corners, np.float64)
        best = match_truth(corners, gts, used)
        if best is None:
            continue
        g = gts[best]
        if t.cut:
            if g.get("cut"):
                used.add(best)
            continue
        if not g.get("face_up"):
            continue
        used.add(best)
        if (g.get("visible", 0) >= 0.9 and not g.get("cut") and t.halves is not None
                and Tile.of(*t.halves) == Tile.parse(g["tile"]).plain()):
            right.add(best)
    return right


def reading_bench(seeds: Sequence[int] = range(300, 320),
                  families: Sequence[str] = READING_FAMILIES, enroll_by: str = "detector"
                  ) -> dict[str, dict[str, float]]:
    """Does the set profile help the reader? Per tile family, on rendered scenes (default
    degradations, no hands): the same :class:`vision.read.Reader` reads each scene without and
    with the hints of a profile enrolled from a separate photo of the same set
    (:func:`enrollment_photo`, with its table plane as ``calibrate --enroll`` uses the saved
    calibration; ``enroll_by="detector"``: the tiles the reader's tile finder finds in it, as
    ``calibrate --enroll`` does; ``"truth"``: the renderer's corners of its fully visible
    tiles). Counts: scenes, tiles that should be read, read right and false tiles
    (found where no face-up tile is) without and with, tiles read right without the hints but
    not with them (``lost``, :func:`right_truth_tiles`), scenes whose enrollment failed (read
    without hints in both columns), and the median read time without and with (the scenes
    with a profile) and of the hints stage."""
    import warnings

    from vision.evaluate import score_rendered
    from vision.read import Reader
    from vision.render import RenderSpecError, random_scene_spec, render_scene

    from calibration.enroll import EnrollmentError, enroll_photo, enroll_set

    if enroll_by not in ("detector", "truth"):
        raise ValueError(f"enroll_by {enroll_by!r} must be 'detector' or 'truth'")
    reader = Reader()
    out: dict[str, dict[str, float]] = {}
    for fam in families:
        row = dict.fromkeys(("scenes", "truth", "raw_right", "raw_false", "hint_right",
                             "hint_false", "lost", "enroll_failed"), 0)
        hint_ms: list[float] = []
        raw_ms: list[float] = []
        with_ms: list[float] = []
        for seed in seeds:
            try:
                spec = random_scene_spec(seed, tile_families=[fam], hands=0, boneyard=False,
                                         loose=0)
                scene = render_scene(spec)
                photo, n_sets, plane = enrollment_photo(spec)
            except RenderSpecError:
                continue
            try:
                if enroll_by == "detector":
                    profile = enroll_photo(photo.image_bgr, plane, n_sets)
                else:
                    corners, _ = case_tiles(photo, None)
                    profile = enroll_set(photo.image_bgr, corners, plane, n_sets)
                hints = profile.reading_hints()
            except EnrollmentError:
                hints = None
                row["enroll_failed"] += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                plain = reader.read(scene.image_bgr, set_max=spec.set_max)
                raw = hinted = score_rendered(plain, scene.truth, "raw")
                if hints is not None:
                    reading = reader.read(scene.image_bgr, set_max=spec.set_max, hints=hints)
                    hinted = score_rendered(reading, scene.truth, "hints")
                    row["lost"] += len(right_truth_tiles(plain, scene.truth)
                                       - right_truth_tiles(reading, scene.truth))
                    hint_ms.append(reading.timings_ms["hints"])
                    raw_ms.append(plain.timings_ms["total"])
                    with_ms.append(reading.timings_ms["total"])
            row["scenes"] += 1
            row["truth"] += raw.truth
            row["raw_right"] += raw.tiles_right
            row["raw_false"] += raw.false
            row["hint_right"] += hinted.tiles_right
            row["hint_false"] += hinted.false
        out[fam] = {**row, "hints_ms_median": _pct(hint_ms, 50),
                    "read_ms_median": _pct(raw_ms, 50), "read_hints_ms_median": _pct(with_ms, 50)}
    return out


def print_reading_bench(seeds: Sequence[int], enroll_by: str) -> None:
    """Print :func:`reading_bench` per family and in all."""
    t = time.perf_counter()
    rows = reading_bench(seeds, enroll_by=enroll_by)
    how = "the reader's tile finder" if enroll_by == "detector" else "the renderer's corners"
    print(f"reader with a set profile: rendered scenes seeds {seeds[0]}-{seeds[-1]} per tile "
          f"family, profile enrolled from a separate photo of the same set (its tiles found by "
          f"{how})")
    total = dict.fromkeys(("truth", "raw_right", "raw_false", "hint_right", "hint_false"), 0)
    for fam, r in rows.items():
        for k in total:
            total[k] += int(r[k])
        failed = f", enrollment failed in {r['enroll_failed']}" if r["enroll_failed"] else ""
        print(f"  {fam} ({r['scenes']} scenes{failed}): tiles read right {r['raw_right']}/"
              f"{r['truth']} -> {r['hint_right']}/{r['truth']} with the profile; false tiles "
              f"{r['raw_false']} -> {r['hint_false']}; right without but not with the profile "
              f"{r['lost']}; read median {r['read_ms_median']:.0f} -> "
              f"{r['read_hints_ms_median']:.0f} ms (hints stage {r['hints_ms_median']:.0f} ms)")
    print(f"  all: tiles read right {total['raw_right']}/{total['truth']} -> "
          f"{total['hint_right']}/{total['truth']}; false tiles {total['raw_false']} -> "
          f"{total['hint_false']} ({time.perf_counter() - t:.0f} s)")


def _seed_range(text: str) -> range:
    try:
        a, b = (int(v) for v in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds {text!r} must be FIRST-LAST, e.g. 300-319") from None
    if not 0 <= a <= b:
        raise argparse.ArgumentTypeError(f"seeds {text!r}: FIRST must be 0..LAST")
    return range(a, b + 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m calibration.bench", description=__doc__)
    parser.add_argument("--scenes", type=int, default=24)
    parser.add_argument("--no-reading", action="store_true",
                        help="skip the slow reader-with-profile comparison")
    parser.add_argument("--reading-only", action="store_true",
                        help="only the reader-with-profile comparison")
    parser.add_argument("--seeds", type=_seed_range, default=range(300, 320), metavar="A-B",
                        help="scene seeds of the reader-with-profile comparison (default 300-319)")
    parser.add_argument("--enroll-by", choices=("detector", "truth"), default="detector",
                        help="how the comparison's profiles find the tiles of the enrollment "
                             "photo: the reader's tile finder (as calibrate --enroll) or the "
                             "renderer's truth corners")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        import vision.render  # noqa: F401
    except ImportError as exc:
        raise CalibrationError(f"the renderer (vision.render) is needed for the bench: {exc}")
    if args.reading_only:
        print_reading_bench(args.seeds, args.enroll_by)
        return 0
    t = time.perf_counter()
    r = run_bench(args.scenes)
    print(f"calibration bench, {platform.machine()} {platform.python_version()}, "
          f"{r['scenes']} rendered scenes with markers (seeds {r['seeds'][0]}-{r['seeds'][1]}, "
          "default degradations; seeds the renderer refuses are skipped)")
    print(f"  all four markers found: {r['all_four_found']}/{r['scenes']} "
          f"(missed seeds {r['missed_seeds']})")
    print(f"  marker corner fit RMS: median {r['rms_px_median']:.2f} px, worst "
          f"{r['rms_px_max']:.2f} px")
    print(f"  time: detect {r['detect_ms_median']:.0f} ms, plane+pose {r['plane_ms_median']:.1f} ms, "
          f"rectify at 2 px/mm {r['rectify_ms_median']:.0f} ms (medians, 1280x720)")
    print(f"  table grid round trip, no lens calibration: median {r['grid_mm_median_nolens']:.2f} mm,"
          f" per-scene max p90 {r['grid_mm_max_nolens_p90']:.2f} mm, worst "
          f"{r['grid_mm_max_nolens_worst']:.2f} mm")
    print(f"  table grid round trip, true intrinsics as lens calibration: worst "
          f"{r['grid_mm_max_lens_worst']:.2f} mm")
    src = ", ".join(f"{k}: {n} scenes median {100 * m:.1f}% worst {100 * w:.1f}%"
                    for k, (n, m, w) in r["height_rel_err_by_source"].items())
    print(f"  camera height error without lens calibration: median "
          f"{100 * r['height_rel_err_nolens_median']:.1f}%, worst "
          f"{100 * r['height_rel_err_nolens_worst']:.1f}% ({src})")
    print(f"  camera tilt error without lens calibration: worst "
          f"{r['tilt_err_deg_nolens_worst']:.2f} deg")
    print(f"  with lens calibration: height worst {100 * r['height_rel_err_lens_worst']:.2f}%, "
          f"tilt worst {r['tilt_err_deg_lens_worst']:.2f} deg")
    print(f"  tile centres in table mm (top face at its height, lens known), {r['tiles']} tiles: "
          f"median {r['tile_centre_mm_median']:.2f} mm, p95 {r['tile_centre_mm_p95']:.2f} mm, "
          f"max {r['tile_centre_mm_max']:.2f} mm")
    print(f"  the same without lens calibration (pose from the homography or assumed lens): "
          f"median {r['tile_centre_nolens_mm_median']:.2f} mm, p95 "
          f"{r['tile_centre_nolens_mm_p95']:.2f} mm, max {r['tile_centre_nolens_mm_max']:.2f} mm")
    print(f"  tracker (every {r['tracker_every_n']} frames): new plane "
          f"{r['tracker_frames_to_new_plane']} frame(s) after the camera moved")
    rows = enroll_bench()
    for row in rows:
        mm = row["tile_mm"]
        print(f"  enroll seed {row['seed']} {row['family']} x{row['sets']}: {row['tiles']} tiles, "
              f"tile {mm[0]:.1f} x {mm[1]:.1f} mm (true {row['true_mm'][0]:g} x "
              f"{row['true_mm'][1]:g}), polarity {row['polarity']}, sets {row['set_names']}, "
              f"cluster purity {100 * row['purity']:.0f}%, {row['ms']:.0f} ms")
        n, mm, split = row["detector"]
        mm_text = "-" if mm is None else f"{mm[0]:.1f} x {mm[1]:.1f} mm"
        print(f"    via the reader's tile finder: {n} tiles (truth {row['tiles']}), {mm_text}, "
              f"split {split} (truth {row['true_split']})")
    if not args.no_reading:
        print_reading_bench(args.seeds, args.enroll_by)
    print(f"  bench wall time {time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
