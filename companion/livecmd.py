"""``domino-companion run``: the live companion with a real camera.

    domino-companion run --camera 0 --game allfives --players Ann,Bob,Cy

It opens the camera in its own capture thread, follows the table through the still-table gate,
the reader, the tracker and the game's interpreter, checks every entry with the rules and serves
the tablet dashboard (annotated video, alerts, scores). With a table calibration made with the
markers, tiles are followed in table millimetres and the reader's layer estimate is given the
calibrated camera (it says so at start, with the camera's height and tilt, or why not); one made
from the four corners given by hand does the same with the camera recovered from the corners
(the table is then not followed when the camera moves). A missing or failing camera does not stop
it: the dashboard shows the camera offline with what to do, and the capture thread keeps trying
to reconnect (a camera index, /dev/videoN or a URL; a video file or folder that is not there or
cannot be played stops it at once, as do bad --width/--height/--fps and a --calibration folder
that does not exist). Games the camera cannot follow yet are still kept on the dashboard by hand.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from companion import serve
from companion.errors import DominoError


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--camera", required=True,
                        help="camera index (0), /dev/videoN, an rtsp/http URL, a video file or a "
                             "folder of images")
    parser.add_argument("--width", type=int, default=None, help="ask the camera for this width")
    parser.add_argument("--height", type=int, default=None, help="ask the camera for this height")
    parser.add_argument("--fps", type=float, default=None, help="ask the camera for this rate")
    parser.add_argument("--calibration", default=None,
                        help="folder of the calibration made by `domino-companion calibrate` "
                             "(default: the data folder); without one, tiles are tracked in "
                             "image pixels")
    parser.add_argument("--no-profile", action="store_true",
                        help="read without the set profile of the calibration folder (made by "
                             "`calibrate --enroll`), which is used when there is one")
    serve.configure(parser)


def run(args: argparse.Namespace) -> int:
    from companion.capture import CaptureThread
    from companion.interpret import interpreter_for
    from companion.live import LiveFrames, LiveLoop
    from vision.read import Reader
    from vision.sources import CameraError, may_come_back, open_source

    for name in ("width", "height", "fps"):
        value = getattr(args, name)
        if value is not None and not (math.isfinite(value) and value > 0):
            raise DominoError(f"--{name} must be more than 0, got {value}")
    if args.calibration is not None and not Path(args.calibration).is_dir():
        raise DominoError(f"--calibration {args.calibration}: no such folder; give the folder "
                          "`domino-companion calibrate` saved to, or leave --calibration out")

    def opener():
        return open_source(args.camera, width=args.width, height=args.height, fps=args.fps)

    # before a game is started: a file that is not there or not a video will not come back
    try:
        opener().close()
    except CameraError as exc:
        if not may_come_back(args.camera):
            raise
        print(f"domino-companion run: {exc}\n  the dashboard shows the camera offline and keeps "
              "trying to reconnect", file=sys.stderr)
    store, holder, data_dir, db = serve.open_games(args)
    session = holder.session
    if session is None:
        raise DominoError("no game to follow: start one with --game NAME --players A,B,C")
    interpreter_for(session.game.name)  # a clear error now for games the camera cannot follow
    from calibration.files import tracker_from_store

    # the calibration of --calibration, else of the data folder the games are kept in (where
    # the dashboard's Table setup page saves it)
    calibration = Path(args.calibration) if args.calibration is not None else data_dir
    tracker, problems = tracker_from_store(calibration)
    for problem in problems:
        print(f"domino-companion run: calibration: {problem}", file=sys.stderr)
    if tracker is None:
        print("domino-companion run: no table calibration: tiles are tracked in image pixels "
              "(run `domino-companion calibrate` so a bumped camera is followed)", file=sys.stderr)
    hints = None
    if not args.no_profile:
        from calibration.enroll import hints_from

        hints, problems = hints_from(calibration)
        for problem in problems:
            print(f"domino-companion run: set profile: {problem}", file=sys.stderr)
        if hints is not None:
            print("domino-companion run: reading with the enrolled set profile "
                  "(--no-profile to read without it)", file=sys.stderr)
    tile_mm, tiles_from = camera_tiles(hints, session.game.set_max)
    print(f"domino-companion run: {camera_layers_line(tracker, tile_mm, tiles_from)}",
          file=sys.stderr)
    capture = CaptureThread(opener).start()
    loop = LiveLoop(session, Reader(hints=hints), session_source=lambda: holder.session,
                    plane_tracker=tracker, camera_layers=True,
                    tile_mm=tile_mm if tiles_from == "enrolled" else None)
    frames = LiveFrames(loop)
    loop.start(capture)
    try:
        return serve.serve_dashboard(args, store, holder, data_dir, db, frames=frames,
                                     banner=f"camera: {args.camera}",
                                     calibration_dir=calibration)
    finally:
        loop.stop()
        capture.stop()
        store.close()


def camera_tiles(hints: Any, set_max: int) -> tuple[tuple[float, float, float], str]:
    """The tile size the layers are estimated with (length, width, thickness mm) and where it
    comes from: ``"enrolled"`` (the set profile the reader uses measured it) or ``"standard"``
    (:data:`companion.live.STANDARD_TILE_MM` of the game's set)."""
    from companion.live import standard_tile_mm, tile_mm_from_profile

    size = tile_mm_from_profile(getattr(hints, "profile", None)) if hints is not None else None
    if size is not None:
        return size, "enrolled"
    return standard_tile_mm(set_max), "standard"


def camera_layers_line(tracker: Any, tile_mm: tuple[float, float, float], tiles_from: str
                       ) -> str:
    """What the start-up says about the layers: with the calibrated camera (its height, tilt,
    where its focal length comes from, the tile size and where that comes from), or why not."""
    from companion.live import layer_geometry

    if tracker is None or tracker.plane is None:
        return ("layers are read from the picture alone, without the camera: no table "
                "calibration (see above)")
    return layer_geometry(tracker.plane, tile_mm,
                          ", measured by the set enrollment" if tiles_from == "enrolled" else
                          ", a standard set's: `calibrate --enroll` measures yours")[1]
