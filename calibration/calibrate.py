"""``domino-companion calibrate``: set the table up in the terminal, in a minute or two.

Takes one photo (``--image``) or frames from a camera (``--camera``), finds the four markers,
asks for the table size when it is not given (only when a person is at the terminal: with no
interactive stdin it never waits, it says which flag is missing), checks the set-up (markers,
light, glare, camera height and tilt, framing), writes a preview image of what it found (markers
outlined with their ids, the play area outline, the top-down view) and saves the calibration.

When the markers cannot be found, ``--corners x,y,x,y,x,y,x,y`` (the play area's corners,
top-left then clockwise, in pixels of the photo) is the manual fallback; interactively it is
offered as a prompt.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np

from calibration.checks import Problem, check_exposure, check_framing, check_pose, check_setup
from calibration.files import LENS_FILE, calibration_dir, load_lens, save_plane
from calibration.plane import (CalibrationError, CameraModel, MarkerDetection, MarkerLayout,
                               TablePlane, parse_table_mm, plane_from_corners, rectify)
from calibration.store import write_atomic
from companion.cli import path_arg

PREVIEW_FILE = "preview.png"


def configure(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--camera", metavar="SPEC",
                     help="camera index (0), /dev/videoN, rtsp/http URL, video file or folder")
    src.add_argument("--image", metavar="PHOTO", help="calibrate from one photo of the table")
    parser.add_argument("--table-mm", metavar="WxH",
                        help="play area size: centre-to-centre distance of markers 0-1 x 1-2, mm")
    parser.add_argument("--marker-mm", type=float, default=40.0,
                        help="printed marker size in mm (default 40)")
    parser.add_argument("--placement", choices=("center", "inside", "outside"), default="center",
                        help="how markers sit on the play-area corners (default: centre on it)")
    parser.add_argument("--corners", metavar="X,Y,...",
                        help="manual fallback, used when the markers are not found: the play "
                             "area's 4 corners in pixels, top-left then clockwise (8 numbers)")
    parser.add_argument("--out", metavar="DIR", type=path_arg,
                        help="folder for table.json and preview.png (default: the data folder, "
                             "or $DOMINO_COMPANION_HOME)")
    parser.add_argument("--lens", metavar="DIR",
                        help="folder holding a lens.json from a ChArUco calibration "
                             "(default: --out's folder if it has one)")
    parser.add_argument("--frames", type=int, default=30,
                        help="with --camera: frames to try before giving up (default 30)")
    parser.add_argument("--enroll", metavar="PHOTO",
                        help="also learn your set from a photo of it laid out face up (tile "
                             "size, face and pip colours); uses the saved table calibration "
                             "when no --image/--camera is given")
    parser.add_argument("--sets", type=int, default=1,
                        help="with --enroll: how many differently coloured sets are in the photo")
    parser.add_argument("--lens-photos", metavar="FOLDER",
                        help="calibrate the lens from photos of the ChArUco board "
                             "(`domino-companion markers --charuco`) and save lens.json")
    parser.add_argument("--bench", action="store_true",
                        help="print the calibration benchmark figures and exit")


def _interactive() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _ask(prompt: str, parse: Callable[[str], object], ask: Callable[[str], str]) -> object:
    for _ in range(3):
        try:
            text = ask(prompt)
        except EOFError:
            break
        try:
            return parse(text)
        except CalibrationError as exc:
            print(f"  {exc}", file=sys.stderr)
    raise CalibrationError("no usable answer given; pass the value as a flag instead")


def parse_corners(text: str) -> np.ndarray:
    """"x,y,x,y,x,y,x,y" -> 4x2 array."""
    try:
        vals = [float(v) for v in str(text).replace(";", ",").replace(" ", ",").split(",") if v]
    except ValueError:
        vals = []
    if len(vals) != 8 or not all(math.isfinite(v) for v in vals):
        raise CalibrationError(f"corners {text!r} must be 8 numbers: x,y of top-left, top-right, "
                               "bottom-right, bottom-left in pixels")
    return np.array(vals, np.float64).reshape(4, 2)


#: Names of the play area's corners, in the order they are given (clockwise as seen).
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
#: Problems of the marker search that the manual corners make moot.
_MARKER_PROBLEMS = ("markers-missing", "marker-hidden", "table-out-of-frame", "plane")


def _segments_cross(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    """Whether segment a-b properly crosses segment c-d."""
    def side(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> float:
        return float((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def check_corner_order(corners_px: np.ndarray) -> None:
    """Refuse four corners that cannot be the play area given top-left, top-right,
    bottom-right, bottom-left: edges that cross (two corners swapped) or an anticlockwise
    order (that would mirror the table). A dented (non-convex) or tiny area is refused by
    :func:`calibration.plane.plane_from_corners`."""
    c = np.asarray(corners_px, np.float64).reshape(4, 2)
    order = ", ".join(CORNER_NAMES)
    nth = [f"{k} ({n})" for k, n in zip(("1st", "2nd", "3rd", "4th"), CORNER_NAMES)]
    for i, j in ((0, 2), (1, 3)):
        if _segments_cross(c[i], c[(i + 1) % 4], c[j], c[(j + 1) % 4]):
            raise CalibrationError(
                f"the corners' edges cross: the line from the {nth[i]} to the {nth[(i + 1) % 4]} "
                f"corner crosses the line from the {nth[j]} to the {nth[(j + 1) % 4]}; two "
                f"corners are swapped: give them in the order {order}")
    x, y = c[:, 0], c[:, 1]
    area = 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    if area < 0:
        raise CalibrationError(f"the corners go anticlockwise, which would mirror the table; "
                               f"give them clockwise as seen: {order}")


def manual_plane(frame_bgr: np.ndarray, corners_px: object, table_mm: tuple[float, float],
                 camera: CameraModel | None = None, problems: Sequence[Problem] = ()
                 ) -> tuple[TablePlane, list[Problem]]:
    """The manual four-corner fallback, one way for the terminal (``--corners``) and the Table
    setup page (tapped corners): the plane from the play area's corners in pixels of
    ``frame_bgr`` (top-left, top-right, bottom-right, bottom-left as seen) and its size in mm
    (:func:`calibration.plane.plane_from_corners`), and the set-up problems: those of the marker
    search that no longer matter dropped from ``problems``, light, camera pose and framing
    checked on the new plane. Without a lens calibration the camera comes from the corners
    (:mod:`calibration.cornercam`); when they cannot tell its focal length (a view too close to
    straight down) a ``"focal-assumed"`` warning says so and what to do. Raises
    :class:`CalibrationError` naming what is wrong with the corners."""
    pts = np.asarray(corners_px, np.float64)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise CalibrationError(f"the manual fallback needs 4 corners as (x, y) pixels, got "
                               f"{pts.shape[0] if pts.ndim else 0} value(s) of shape {pts.shape}")
    check_corner_order(pts)
    plane = plane_from_corners(pts, table_mm, (frame_bgr.shape[1], frame_bgr.shape[0]), camera)
    kept = [p for p in problems if p.code not in _MARKER_PROBLEMS]
    kept += check_exposure(frame_bgr, plane) + check_pose(plane) + check_framing(plane)
    if camera is None and plane.camera is not None and plane.camera.source != "corners":
        kept.append(Problem("focal-assumed", "warning", str(plane.extra.get(
            "camera", "the camera's focal length could not be told from the corners: a typical "
                      "webcam's is assumed"))))
    return plane, list(dict.fromkeys(kept))


def grab_frame(spec: str, frames: int) -> np.ndarray:
    """Read up to ``frames`` frames from a source and return the first one where all four
    markers are seen (else the last one read)."""
    from calibration.plane import detect_markers
    from vision.sources import CameraError, open_source

    source = open_source(spec)
    last = None
    try:
        for _ in range(max(1, frames)):
            frame = source.read()
            if frame is None:
                break
            last = frame.frame_bgr
            if not detect_markers(last).missing:
                break
    finally:
        source.close()
    if last is None:
        raise CameraError(f"{spec} gave no frames", tried=str(spec),
                          advice="check that the camera works in another program")
    return last


def draw_preview(frame_bgr: np.ndarray, detection: MarkerDetection | None,
                 plane: TablePlane | None, problems: list[Problem], px_per_mm: float = 1.0
                 ) -> np.ndarray:
    """The camera view with markers (outlined, with ids) and the play area outline, beside the
    top-down view of the play area; problems listed underneath."""
    view = frame_bgr.copy()
    scale = max(view.shape[1] / 1280, 0.5)
    if detection is not None:
        for i, c in detection.corners_px.items():
            pts = np.round(c).astype(np.int32)
            cv2.polylines(view, [pts], True, (0, 255, 0), max(1, int(2 * scale)), cv2.LINE_AA)
            cv2.circle(view, tuple(pts[0]), max(2, int(4 * scale)), (0, 0, 255), -1)
            org = tuple(np.round(c.max(0) + [4 * scale, 0]).astype(int))
            cv2.putText(view, str(i), org, cv2.FONT_HERSHEY_SIMPLEX, 1.2 * scale, (0, 0, 255),
                        max(1, int(3 * scale)), cv2.LINE_AA)
    panels = [view]
    if plane is not None:
        w, h = plane.table_size_mm
        n = 40
        edge = np.vstack([np.column_stack([np.linspace(0, w, n), np.zeros(n)]),
                          np.column_stack([np.full(n, w), np.linspace(0, h, n)]),
                          np.column_stack([np.linspace(w, 0, n), np.full(n, h)]),
                          np.column_stack([np.zeros(n), np.linspace(h, 0, n)])])
        outline = np.round(plane.to_image(edge)).astype(np.int32)
        cv2.polylines(view, [outline], True, (255, 128, 0), max(1, int(2 * scale)), cv2.LINE_AA)
        margin = plane.layout.marker_mm if plane.layout is not None else 0.0
        ppm = min(px_per_mm, view.shape[0] / max(h + 2 * margin, 1.0))
        top = rectify(frame_bgr, plane, ppm, margin_mm=margin)
        pad = np.zeros((view.shape[0], top.shape[1], 3), np.uint8)
        pad[:top.shape[0]] = top[:view.shape[0]]
        cv2.putText(pad, f"top-down {w:g}x{h:g} mm", (8, pad.shape[0] - 12),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, (255, 255, 255), 1, cv2.LINE_AA)
        panels.append(pad)
    out = np.hstack(panels)
    if problems:
        line_h = int(28 * scale)
        notes = np.full((line_h * (len(problems) + 1), out.shape[1], 3), 255, np.uint8)
        for k, p in enumerate(problems):
            text = str(p)
            if len(text) > 150:
                text = text[:147] + "..."
            cv2.putText(notes, text, (8, line_h * (k + 1)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                        (0, 0, 200) if p.severity == "error" else (0, 90, 160), 1, cv2.LINE_AA)
        out = np.vstack([out, notes])
    return out


def run(args: argparse.Namespace) -> int:
    if args.bench:
        from calibration.bench import main as bench_main

        return bench_main([])
    from vision.sources import read_image

    if args.frames < 1:
        raise CalibrationError(f"--frames must be at least 1, got {args.frames}")
    if args.enroll and not 1 <= args.sets <= 8:  # before any photo is read
        raise CalibrationError(f"--sets is how many differently coloured sets the enrolment "
                               f"photo holds, 1 to 8; got {args.sets}")
    # a malformed --corners is refused before any picture is read or marker looked for, not
    # only when the markers are missing and the corners are used
    given_corners = None if args.corners is None else parse_corners(args.corners)
    interactive = _interactive()
    out_dir = calibration_dir(args.out)
    if args.lens_photos:
        return _run_lens(args.lens_photos, out_dir)
    if args.enroll and not args.image and args.camera is None:
        return _run_enroll(args.enroll, out_dir, args.sets, None)
    if args.image:
        frame = read_image(args.image)
        source_text = args.image
    elif args.camera is not None:
        frame = grab_frame(args.camera, args.frames)
        source_text = f"camera {args.camera}"
    else:
        if not interactive:
            raise CalibrationError("no picture to calibrate from: pass --image PHOTO or "
                                   "--camera SPEC (e.g. --camera 0)")
        spec = str(_ask("Camera (index like 0, a URL, or a photo file): ", str, input)).strip()
        if Path(spec).is_file() and Path(spec).suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"):
            frame, source_text = read_image(spec), spec
        else:
            frame, source_text = grab_frame(spec, args.frames), f"camera {spec}"
    print(f"picture: {source_text} ({frame.shape[1]}x{frame.shape[0]})")

    if args.table_mm:
        table_mm = parse_table_mm(args.table_mm)
    elif interactive:
        print("Measure the play area between the marker centres, in millimetres.")
        table_mm = _ask("Width (marker 0 to 1) x height (marker 1 to 2), e.g. 600x450: ",
                        parse_table_mm, input)  # type: ignore[assignment]
    else:
        raise CalibrationError("the table size is missing: pass --table-mm WIDTHxHEIGHT "
                               "(centre-to-centre of markers 0-1 and 1-2, in mm)")
    layout = MarkerLayout(table_mm[0], table_mm[1], args.marker_mm, args.placement)  # type: ignore[index]

    camera: CameraModel | None = None
    lens_dir = Path(args.lens) if args.lens else out_dir
    if args.lens and not (lens_dir / LENS_FILE).is_file():
        raise CalibrationError(f"--lens {args.lens}: no {LENS_FILE} there; give the folder a "
                               "lens calibration was saved in, or make one with "
                               "`domino-companion calibrate --lens-photos`")
    if (lens_dir / LENS_FILE).exists():
        camera, problems_lens = load_lens(lens_dir)
        for text in problems_lens:
            print(f"lens calibration: {text}", file=sys.stderr)
        if camera is not None:
            print(f"lens calibration: {lens_dir / LENS_FILE}")

    started = time.perf_counter()
    report = check_setup(frame, layout, camera)
    plane = report.plane
    problems = list(report.problems)
    detection: MarkerDetection | None = report.detection
    corners_text = args.corners
    if plane is not None and given_corners is not None:
        print("--corners not used: the markers were found and the calibration comes from them "
              "(the corners are the fallback when the markers are not found)", file=sys.stderr)
    if plane is None and corners_text is None and interactive:
        for p in problems:
            print(f"  {p}")
        print("The markers were not all found. You can give the play area's corners by hand:")
        print("open the preview/photo, read the pixel positions of the corners, and type them.")
        corners_text = str(_ask("Corners x,y top-left, top-right, bottom-right, bottom-left "
                                "(8 numbers), or press Enter to stop: ",
                                lambda t: t if not t.strip() else parse_corners(t) and t, input))
        corners_text = corners_text.strip() or None
    if plane is None and corners_text is not None:
        plane, problems = manual_plane(frame, parse_corners(corners_text), table_mm,  # type: ignore[arg-type]
                                       camera, problems)
    elapsed = time.perf_counter() - started

    out_dir.mkdir(parents=True, exist_ok=True)
    preview = draw_preview(frame, detection, plane, problems)
    ok, png = cv2.imencode(".png", preview)
    if ok:
        write_atomic(out_dir / PREVIEW_FILE, png.tobytes(), keep_previous=False)
        print(f"preview: {out_dir / PREVIEW_FILE}")
    for p in problems:
        print(f"  {p}", file=sys.stderr)
    if plane is None or any(p.severity == "error" for p in problems):
        # an error means the calibration cannot go on (calibration.checks.Problem): saving it
        # would replace a good one
        print("calibration NOT saved: fix the problems above and run again, or pass --corners "
              "with the play area's corners in pixels", file=sys.stderr)
        return 2
    path = save_plane(plane, out_dir, extra={"source": source_text})
    print(f"table: {plane.table_size_mm[0]:g} x {plane.table_size_mm[1]:g} mm, found by "
          f"{plane.method} in {elapsed * 1000:.0f} ms; marker corner fit RMS "
          f"{plane.reprojection_px:.2f} px")
    if plane.pose is not None and plane.camera is not None:
        print(f"camera: about {plane.pose.height_mm:.0f} mm above the table, tilted "
              f"{plane.pose.tilt_deg:.1f} degrees, turned {plane.pose.rotation_deg:.1f} degrees "
              f"(lens: {plane.camera.source}, focal {plane.camera.K[0, 0]:.0f} px)")
        if plane.camera.source == "corners" and plane.extra.get("camera"):
            print(f"camera: {plane.extra['camera']}")
    print(f"saved: {path}")
    if args.enroll:
        return _run_enroll(args.enroll, out_dir, args.sets, plane)
    return 0


def _run_lens(folder: str, out_dir: Path) -> int:
    """Lens calibration from a folder of ChArUco board photos; saves lens.json."""
    from calibration.files import save_lens
    from calibration.lens import calibrate_lens
    from vision.sources import open_source

    source = open_source(folder)
    frames = [f.frame_bgr for f in source]  # type: ignore[union-attr]
    cal = calibrate_lens(frames)
    path = save_lens(cal.camera, cal.rms_px, cal.views, out_dir)
    K = cal.camera.K
    print(f"lens: {cal.views} of {len(frames)} photos used, {cal.corners} corners, RMS "
          f"{cal.rms_px:.2f} px; focal {K[0, 0]:.0f} px, centre ({K[0, 2]:.0f}, {K[1, 2]:.0f})")
    print(f"saved: {path}")
    return 0


def _run_enroll(photo: str, out_dir: Path, n_sets: int, plane: TablePlane | None) -> int:
    """Learn the set from a photo (tiles found by the reader's detector); saves set_profile.json."""
    from calibration.enroll import enroll_photo, save_profile
    from calibration.files import load_plane
    from vision.sources import read_image

    frame = read_image(photo)
    if plane is None:
        plane, problems = load_plane(out_dir)
        for p in problems:
            print(f"table calibration: {p}", file=sys.stderr)
        if plane is not None and tuple(plane.image_size) != (frame.shape[1], frame.shape[0]):
            print("table calibration is for another image size; tile size in mm skipped",
                  file=sys.stderr)
            plane = None
    profile = enroll_photo(frame, plane, n_sets)
    path = save_profile(profile, out_dir)
    size_mm = ("" if profile.tile_mm is None else
               f", {profile.tile_mm[0]:.1f} x {profile.tile_mm[1]:.1f} mm")
    print(f"set: {profile.n_tiles} tiles, {profile.tile_px[0]:.0f} x {profile.tile_px[1]:.0f} px"
          f"{size_mm}; pips {'darker' if profile.polarity == 'light' else 'lighter'} than the "
          f"face (contrast {profile.contrast:.0f}); sets: "
          + ", ".join(f"{s.name} ({s.tiles} tiles)" for s in profile.sets))
    print(f"saved: {path}")
    return 0
