"""The live companion: camera frames in, checked game-log entries out.

One :class:`LiveLoop` joins the stages, in one direction:

    frame -> still-table gate -> reader (when still) -> agreement over consecutive readings
          -> table change against the last accepted reading -> the game's interpreter
          -> Session.submit (rules check, alert or log) / Session.notice

Agreement. A single frame can be misread (sensor noise flips a pip, a tile is missed or a
phantom found, a tile is still settling): nothing read from one frame alone reaches the session.
A still table is accepted when ``agree`` (2) consecutive readings agree (the same tiles at about
the same places), or, when they keep disagreeing, as the tiles seen in most of
:data:`MAJORITY_OF` (3) readings. Readings are compared only where the picture changed since the
last accepted reading (:class:`vision.still.ChangedRegion`, on the gate's small picture and on
the finer :func:`companion.tracking.change_picture` within :data:`FINE_NEAR` tile widths of a
coarse change, where a tile replaced by another value at its place changes only pips): a tile
whose pixels did not change
keeps the reading it was accepted with, so a reader flickering on unchanged tiles does not hold
up the new one, while every tile that changed still needs the agreeing readings.

Speed. After the first reading only a crop around the changed region is read (every tile whose
centre is in it is whole in the crop; at least :data:`CROP_MIN_SIDE` px each way), which is a
fraction of a whole frame's reading time for any reader whose time grows with the picture; the
whole frame is read when most of it changed (a bumped camera, the light). A change the agreed
readings do not explain (no tile added, taken or moved where the picture changed) is read again
as whole frames (:data:`RECHECKS` times) before the picture is taken as the new reference, so a
tile a crop missed is not lost. Frames that queued up while a reading ran are skipped as stale
(:meth:`~companion.capture.CaptureThread.get_latest`), and a picture that no longer matches the
accepted one is read again even when the gate saw no hand (its frames were skipped).

Camera. With a calibrated table (``plane_tracker``, a :class:`calibration.plane.TablePlaneTracker`
started from ``domino-companion calibrate``, or a :class:`calibration.plane.FixedPlaneTracker`
of a calibration from four corners given by hand, whose camera comes from the corners) and
``camera_layers``, every reading's layer estimate is given the camera of the tracker's current
plane (:func:`layer_geometry`: its focal length, pose and lens, and the tiles' size: the enrolled
set's, else :data:`STANDARD_TILE_MM`), moved to the crop's origin for a crop
(:meth:`vision.layers.Geometry.for_crop`) and made again when the tracker follows a bumped
camera; without one the reader estimates layers from the picture alone, as
:attr:`LiveLoop.layers_message` says.

:meth:`LiveLoop.process` handles one frame and is what tests and the headless demo call, frame by
frame, deterministically. :meth:`LiveLoop.start` runs it over a :class:`~companion.capture.CaptureThread`
in a background thread for the live mode. :meth:`LiveLoop.status` and
:meth:`LiveLoop.annotated_jpeg` feed the dashboard.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import cv2
import numpy as np

from companion.interpret import Interpreter, interpreter_for
from companion.interpret_base import propose
from companion.session import Session
from companion.tiles import Tile, oriented_halves
from companion.tracking import (LAID_MIN_CHANGED, Seen, change_picture, changed_fractions,
                                diff)
from vision.read import ImageError, check_image, is_blank
from vision.still import ChangedRegion, StillGate


#: The annotated video for the dashboard is drawn at most this often (seconds).
ANNOTATE_EVERY_S = 0.1
#: Height of a lying tile's top face above the table, for mapping its corners to table mm.
TILE_TOP_MM = 8.0
#: The tiles' size (length, width, thickness mm) the layer estimate is given with the calibrated
#: camera when no set was enrolled (``calibrate --enroll`` measures it): a standard set of the
#: game's largest value (double-six 48 x 24 x 8 mm; the renderer draws the same sizes,
#: :data:`vision.render.tiles.GEOMETRY_BY_SET`).
STANDARD_TILE_MM: dict[int, tuple[float, float, float]] = {
    6: (48.0, 24.0, 8.0), 9: (50.0, 25.0, 9.0), 12: (52.0, 26.0, 10.0), 15: (54.0, 27.0, 10.0)}
#: A tile running out of the picture whose half in it the reader read at least this surely
#: (:attr:`vision.types.TileReading.seen_half`) is proposed as a tile with that value and a
#: guessed other one, which always asks a person (:meth:`companion.tracking.Seen.
#: partly_from_reading`); one read less surely is told as a tile the camera cannot read.
SEEN_HALF_SURE = 0.9

#: How long (seconds) the dashboard shows what went wrong with a camera frame.
PROBLEM_SHOWN_S = 30.0

#: When consecutive readings of a still table do not agree, the tiles seen in a majority of the
#: last this many readings are taken (so a flickering reading costs at most this many reads).
MAJORITY_OF = 3
#: A pixel of the :func:`~vision.still.small_grey` picture changed since the last accepted
#: reading when it differs by more than this many grey levels (the gate's motion threshold is
#: 18: this is more sensitive, so a doubtful change is confirmed again rather than trusted).
REGION_DELTA = 12
#: The changed region is grown by this many tile widths, so a tile of which only a part changed
#: (a pip under a moving glare, an edge) has its centre inside it.
REGION_GROW = 0.6
#: Only the changed region's bounding box, grown by this many tile widths on every side, is
#: read (a tile is about two widths long: a tile whose centre is in the region is whole in it).
CROP_MARGIN = 2.5
#: A crop larger than this share of the frame is not worth it: the whole frame is read.
CROP_MAX_AREA = 0.5
#: A crop is at least this many pixels wide and high (or the frame's size), so the reader
#: sees it at the scale it sees whole frames at.
CROP_MIN_SIDE = 400
#: A change of the picture that agreeing readings do not explain (no tile added, taken or
#: moved where it changed) is read again, as a whole frame, up to this many times, this many
#: frames apart, before the picture is taken as the new reference (a coin, a shadow).
RECHECKS = 2
RECHECK_FRAMES = 10


#: Where the finer change picture changed within this many tile widths of a change of the
#: gate's coarse picture, the changed region includes it (a row closing up over a tile taken out:
#: the neighbour that slid into its place changed only pips). Below :data:`CROP_MARGIN` less a
#: tile's half length, so such a tile is whole in the crop read around the coarse change.
FINE_NEAR = 1.4
#: A side of the frame names a player once at least this many plays were made from it...
SEAT_MIN_PLAYS = 2
#: ...and at least this share of them by that player (two players reaching in over one side
#: name nobody).
SEAT_MIN_SHARE = 0.8


class SeatMemory:
    """Which player reaches in over which side of the frame, learned from the log.

    A person's arm crosses the border in front of them (:attr:`vision.still.StillGate.
    reached_from`), so after a few plays the side a hand came from says whose hand it was. The
    camera cannot see that otherwise, and the rules leave it open only where any player may play
    (the first tile of a round without the deal); every other play follows the turn. Each change
    the loop publishes is remembered with the side its hand came from; the plays logged for it
    (by the camera, confirmed or corrected by a person: whatever the log holds when the next
    change is published) vote for their player at that side. A side names a player when at
    least :data:`SEAT_MIN_PLAYS` plays came from it and :data:`SEAT_MIN_SHARE` of them were that
    player's."""

    def __init__(self) -> None:
        self.votes: dict[str, dict[str, int]] = {}
        self._pending: tuple[str, int] | None = None

    def player_at(self, side: str | None) -> str | None:
        """The player who reaches in over ``side``, or None when it is not known."""
        if side is None or side not in self.votes:
            return None
        votes = self.votes[side]
        best = max(votes, key=lambda p: votes[p])
        total = sum(votes.values())
        if votes[best] >= SEAT_MIN_PLAYS and votes[best] >= SEAT_MIN_SHARE * total:
            return best
        return None

    def published(self, side: str | None, history: list[dict[str, Any]]) -> None:
        """A change whose hand came over ``side`` is about to be published; ``history`` is the
        session's log now. The plays logged since the previous change was published (it and a
        person's answers about it) vote for their player at that change's side."""
        self.settle(history)
        self._pending = None if side is None else (side, len(history))

    def settle(self, history: list[dict[str, Any]]) -> None:
        """Count the plays of the change published last (see :meth:`published`)."""
        if self._pending is None:
            return
        side, start = self._pending
        self._pending = None
        players = [h["entry"].get("player") for h in history[start:] if "play" in h["entry"]]
        if len(players) == 1 and isinstance(players[0], str):
            seat = self.votes.setdefault(side, {})
            seat[players[0]] = seat.get(players[0], 0) + 1


@dataclass(frozen=True)
class TraceEvent:
    """One stage of the live loop for one frame: ``t`` (``time.monotonic()``), the camera's
    frame number (None when the caller gave none), the stage (``frame``: taken from the queue,
    ``gate``, ``read``, ``agreed``, ``relabelled``, ``published``: the session has the change)
    and what it found."""

    t: float
    frame: int | None
    stage: str
    detail: dict[str, Any]


@dataclass
class LoopStats:
    frames: int = 0
    #: frames skipped as no picture the loop can read (see :meth:`LiveLoop.process`)
    bad_frames: int = 0
    #: frames whose handling failed unexpectedly (the loop thread goes on: :meth:`LiveLoop._run`)
    failed_frames: int = 0
    readings: int = 0
    accepted: int = 0
    read_ms: deque = field(default_factory=lambda: deque(maxlen=50))
    frame_times: deque = field(default_factory=lambda: deque(maxlen=60))


class LiveLoop:
    """See the module docstring. ``reader`` is a :class:`vision.read.Reader` (or anything with
    ``read(frame_bgr, set_max) -> Reading``)."""

    def __init__(self, session: Session, reader: Any, gate: StillGate | None = None,
                 interpreter: Interpreter | None = None, agree: int = 2, set_max: int | None = None,
                 on_event: Callable[[str, dict[str, Any]], None] | None = None,
                 session_source: Callable[[], Session | None] | None = None,
                 plane_tracker: Any | None = None, camera_layers: bool = False,
                 tile_mm: tuple[float, float, float] | None = None) -> None:
        self.session = session
        #: where the current session comes from when the dashboard can replace it (new game,
        #: rematch); the loop follows it and starts from an empty table
        self.session_source = session_source
        self._fixed_interpreter = interpreter is not None
        #: a calibration.plane.TablePlaneTracker: with it, tiles are tracked in table
        #: millimetres, so a bumped camera does not look like moved tiles, and the markers are
        #: looked for again every few frames
        self.plane_tracker = plane_tracker
        self.plane_status: dict[str, Any] | None = None
        #: with a plane tracker: the reader's layer estimate is given the calibrated camera of
        #: the tracker's current plane (:func:`layer_geometry`; for a crop, moved to its origin),
        #: with ``tile_mm`` (length, width, thickness mm; None: :data:`STANDARD_TILE_MM` of the
        #: game's set), so it follows the camera when the tracker does
        self.camera_layers = camera_layers
        self.tile_mm = tile_mm
        #: the plane and set the geometry was made for, the geometry (None: without the
        #: camera) and why, in words (:meth:`status`'s ``layers``)
        self._geometry_key: tuple[Any, int] | None = None
        self._geometry: Any = None
        self.layers_message = "layers from the picture alone (no calibrated camera given)"
        self.reader = reader
        self.gate = gate or StillGate()
        self.interpreter = interpreter or interpreter_for(session.game.name)
        self.agree = max(1, agree)
        self.set_max = set_max if set_max is not None else session.game.set_max
        self.on_event = on_event
        self.baseline: list[Seen] = []
        self._reads: list[_Read] = []  # readings of the current still table
        #: the picture (:func:`vision.still.small_grey`) whose reading was last accepted: only
        #: tiles where a new frame differs from it must be confirmed again (None: all of them)
        self._reference: np.ndarray | None = None
        #: the same picture finer (:func:`companion.tracking.change_picture`), for the
        #: tracking's memory of tiles the readings missed where nothing changed
        self._fine_reference: np.ndarray | None = None
        #: the median tile width in image pixels of the accepted table (0: none accepted yet)
        self._tile_px = 0.0
        #: times in a row the readings did not explain a change of the picture (it is read
        #: again, whole, up to RECHECKS times), and the frame count before which it is not
        self._rechecks = 0
        self._recheck_at = 0
        #: read whole frames only (no crops around what changed): for readers that do not say
        #: they read any part of a picture (see :func:`reads_crops`)
        self.read_whole = not reads_crops(reader)
        self._done_for_this_still = False
        self.stats = LoopStats()
        self.last_verdict: dict[str, Any] = {"state": "waiting", "message": "waiting for the camera"}
        self.last_reading: Any = None
        self._last_frame: np.ndarray | None = None
        self._jpeg: bytes | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.capture: Any = None
        self.on_frame: Callable[[bytes], None] | None = None
        self._last_annotated = 0.0
        #: corrections pinned to where the corrected tile lies: read tile -> (centre, width, real)
        self._pins: dict[Tile, tuple[np.ndarray, float, Tile]] = {}
        #: corrections (read, real) whose tile a new tile was laid on: never pinned again
        self._retired: set[tuple[Tile, Tile]] = set()
        #: which player reaches in over which side of the frame (see :class:`SeatMemory`), and
        #: whether the gate saw the table busy since the last change was published (a change
        #: read again later, with no hand between, says nothing of a side)
        self.seats = SeatMemory()
        self._busy_since_published = False
        #: the centres (image pixels) of the tiles running out of the picture that a notice
        #: was given for (see :meth:`_cut_notices`): each is told once
        self._cut_told: list[np.ndarray] = []
        #: when a list, every stage of every frame is noted in it as a :class:`TraceEvent`
        #: (``python -m companion.livebench`` uses it to say where each step's time went)
        self.trace: list[TraceEvent] | None = None
        self._frame_index: int | None = None
        #: the last frame skipped or failed and why, or a change of the picture's size, and when
        #: (shown by :meth:`status` for :data:`PROBLEM_SHOWN_S`)
        self.frame_problem: str | None = None
        self._problem_at = 0.0

    def _problem(self, message: str) -> None:
        """Say what went wrong with the camera's frames (see :attr:`frame_problem`)."""
        self.frame_problem, self._problem_at = message, time.monotonic()

    def _note(self, stage: str, **detail: Any) -> None:
        if self.trace is not None:
            self.trace.append(TraceEvent(time.monotonic(), self._frame_index, stage, detail))

    # one frame ---------------------------------------------------------------------------------
    def process(self, frame_bgr: np.ndarray, index: int | None = None) -> list[dict[str, Any]]:
        """Handle one frame (``index``: the camera's frame number, for the trace); returns what
        happened (submissions and notices) as JSON dicts."""
        self._frame_index = index
        self._note("frame")
        self._follow_session()
        try:
            frame_bgr = check_image(frame_bgr)  # grey and BGRA made BGR; the rest refused
        except ImageError as exc:
            # no picture this loop can read (a driver's glitch): skipped, counted and said;
            # nothing of the table or the game changes
            self.stats.bad_frames += 1
            self._problem(f"a camera frame was skipped ({exc})")
            self._note("bad-frame", error=str(exc))
            return []
        if self._last_frame is not None and self._last_frame.shape != frame_bgr.shape:
            # the camera changed its picture size: positions known in the old pixels no longer
            # fit, so the table is read anew (as after a restart: the tiles the game has on the
            # table are no plays), and the players are told
            old = self._last_frame.shape
            self._forget_positions()
            self.gate.reset()
            self._problem(f"the camera's picture changed size ({old[1]}x{old[0]} -> "
                          f"{frame_bgr.shape[1]}x{frame_bgr.shape[0]}): the table is read anew")
            self._note("resized", size=[frame_bgr.shape[1], frame_bgr.shape[0]])
        self.stats.frames += 1
        self.stats.frame_times.append(time.monotonic())
        plane = None
        if self.plane_tracker is not None:
            from calibration.plane import CalibrationError

            try:
                upd = self.plane_tracker.update(frame_bgr)
            except CalibrationError as exc:
                # the stored calibration does not fit these frames (another aspect ratio: it
                # fails on the first frame, before any tile is tracked): follow the table in
                # image pixels and read without the camera, saying why
                self.plane_tracker = None
                self.plane_status = {"state": "error", "message": str(exc)}
                self._geometry_key, self._geometry = None, None
                if self.camera_layers:
                    self.layers_message = f"layers without the camera: {exc}"
                self.baseline = []
                self._reference = self._fine_reference = None
                self._reads = []
            else:
                if upd.status != "skipped" or self.plane_status is None:
                    self.plane_status = {"state": upd.status, "message": upd.message}
                plane = upd.plane
        verdict = self.gate.update(frame_bgr)
        self.last_verdict = verdict.to_json()
        self._note("gate", state=verdict.state)
        happened: list[dict[str, Any]] = []
        if not verdict.read_now:
            self._done_for_this_still = False
            self._reads = []
            self._busy_since_published = True
        else:
            small = self.gate.small_grey()  # this frame's, shrunk once by the gate
            size = (frame_bgr.shape[1], frame_bgr.shape[0])
            if self._done_for_this_still and self._reference is not None and \
                    self.stats.frames >= self._recheck_at and \
                    ChangedRegion(self._reference, small, size, REGION_DELTA).mask.any():
                # the table changed although the gate saw no hand come and go (its frames were
                # dropped while a reading ran), or the last readings did not explain a change:
                # read again
                self._note("rearmed")
                self._done_for_this_still = False
                self._reads = []
            if not self._done_for_this_still:
                happened = self._read_still(frame_bgr, small, plane)
        self._last_frame = frame_bgr
        return happened

    def _read_still(self, frame_bgr: np.ndarray, small: np.ndarray,
                    plane: Any) -> list[dict[str, Any]]:
        """Read one frame of a still table (only around what changed since the last accepted
        reading, see :meth:`_crop`), and accept the table once the readings agree."""
        size = (frame_bgr.shape[1], frame_bgr.shape[0])
        if is_blank(frame_bgr):
            # a blank picture (a lens cap, the light off, an exposure glitch) is no empty
            # table: nothing is taken from it; the table is read again once it shows
            self._problem("the camera's picture is blank (all one level): check the lens cap "
                          "and the light; nothing is read from it")
            self._note("blank")
            self._reads = []
            return []
        region = ChangedRegion(self._reference, small, size, pixel_delta=REGION_DELTA)
        tile = self._tile_size(region)
        region = region.grown(REGION_GROW * tile)
        box = self._crop(region, tile)
        # which tiles must agree again: also where the finer picture changed next to what
        # changed (a tile swapped for one of another value at its place, as a Castle Rock row
        # closing up over a tile taken out, changes only pips, which the coarse picture blurs
        # away); within FINE_NEAR tile widths, so those tiles are whole in the crop, which
        # stays the coarse region's (the reader sees the same picture as without)
        fine = change_picture(frame_bgr)
        if self._fine_reference is not None and self._tile_px > 0 and region.mask.any() and \
                not region.everything:
            shape: tuple[int, ...] = tuple(np.shape(region.mask))
            rows, cols = shape[0], shape[1]
            finer = ChangedRegion(self._fine_reference, fine, size, pixel_delta=REGION_DELTA
                                  ).resampled((rows, cols)).grown(REGION_GROW * tile)
            finer.mask &= region.grown(FINE_NEAR * self._tile_px).mask
            region = region.union(finer)
        elif self._fine_reference is not None and not region.mask.any():
            # no change in the coarse picture after a hand came and went: a small tile of
            # about the table's own grey blurs away there (an ivory tile on a light table, more
            # so in dim light), so the finer picture decides whether and where to read
            rows, cols = np.shape(region.mask)[:2]
            finer = ChangedRegion(self._fine_reference, fine, size, pixel_delta=REGION_DELTA
                                  ).resampled((rows, cols))
            if finer.mask.any():
                tile = self._tile_size(finer)
                region = finer.grown(REGION_GROW * tile)
                box = self._crop(region, tile)
                self._note("finer", changed=round(finer.fraction, 4))
        seen: list[Seen] = []
        cut: list[np.ndarray] = []  # outlines of tiles running out of the picture
        if box is None or box[2] > box[0]:
            x0, y0, x1, y1 = box if box is not None else (0, 0, size[0], size[1])
            t0 = time.perf_counter()
            # the learned layer cue only for a cold start (nothing known on the table yet):
            # afterwards the tracking watched the stacks being built, and the cue lifted a few
            # tiles it had right (held-out build sequences 784 -> 785 of 792 without it)
            camera: dict[str, Any] = {}
            geometry = self._layer_geometry(plane)
            if geometry is not None:
                camera["geometry"] = geometry if box is None else geometry.for_crop(x0, y0)
            reading = self.reader.read(frame_bgr[y0:y1, x0:x1] if box is not None else frame_bgr,
                                       self.set_max, learned_layers=not self.baseline, **camera)
            self.stats.read_ms.append((time.perf_counter() - t0) * 1000)
            self._note("read", ms=round(self.stats.read_ms[-1], 1), tiles=len(reading.tiles),
                       crop=None if box is None else [x1 - x0, y1 - y0])
            self.stats.readings += 1
            if box is not None:
                reading = _shifted(reading, x0, y0)
                # the annotated video: the new tiles of the crop over the earlier reading's others
                self.last_reading = _merged(self.last_reading, reading, box, size)
            else:
                self.last_reading = reading
            seen = [Seen.from_reading(t) for t in reading.tiles if not t.cut and t.tile is not None]
            # a tile running out of the picture (not just out of the crop): one half read
            # surely is a tile whose other value the players are asked; else they are told
            edge = [t for t in reading.tiles if t.cut and _edges(t.corners, size)]
            partly = [t for t in edge if t.seen_half is not None
                      and t.seen_half[2] >= SEEN_HALF_SURE]
            seen += [Seen.partly_from_reading(t, self.set_max) for t in partly]
            cut = [np.asarray(t.corners, dtype=np.float64) for t in edge if t not in partly]
        # games that tell tiles apart by more than their value (Build Up: the set colour)
        # let their interpreter look at the picture first (issue 6)
        observe = getattr(self.interpreter, "observe", None)
        if observe is not None:
            seen = observe(seen, frame_bgr, self.session.game)
        if plane is not None:  # track in table millimetres (top faces: a tile's thickness up)
            seen = [dataclasses.replace(s, corners=tuple(map(tuple, plane.to_table(
                s.corners, z_mm=TILE_TOP_MM)))) for s in seen]
        self._reads.append(_Read(seen, region, plane, small, cut))
        self._note("region", changed=round(region.fraction, 4))
        decided = self._agreement()
        if decided is None:
            return []
        how, table, region, inside = decided
        # where the picture changed, finely, for the tracking's memory of tiles missed there
        # (only for the reading that decided: the others are never accepted)
        changed = changed_fractions(
            ChangedRegion(self._fine_reference, fine, size, pixel_delta=REGION_DELTA),
            None if plane is None else functools.partial(_image_corners, plane=plane),
            None if plane is None else functools.partial(_table_corners, plane=plane))
        self._note("agreed", how=how, reads=len(self._reads))
        self._done_for_this_still = True
        before = [b for b in self.baseline if not b.hidden
                  and region.contains(_image_centre(b, plane))]
        if self._reference is not None and region.mask.any() and not region.everything and \
                _same_table(inside, before) and self._rechecks < RECHECKS:
            # the picture changed but the readings found no tile added, taken or moved there
            # (a tile cut by the crop, missed twice): keep the old reference, so the change is
            # read again, as a whole frame, after RECHECK_FRAMES
            self._rechecks += 1
            self._recheck_at = self.stats.frames + RECHECK_FRAMES
            self._note("unexplained", rechecks=self._rechecks)
        else:
            self._reference, self._fine_reference = small, fine
            self._rechecks = 0
        widths = [_width(_image_corners(t, plane)) for t in table]
        if widths:
            self._tile_px = float(np.median(widths))
        happened = self._accept(table, changed)
        for message in self._cut_notices(self._reads[-1].cut, region, size):
            self.session.notice(message)
            happened.append({"notice": message})
            if self.on_event is not None:
                self.on_event("camera", {"notice": message})
        return happened

    def _cut_notices(self, cut: list[np.ndarray], region: ChangedRegion,
                     size: tuple[int, int]) -> list[str]:
        """What to tell the players about tiles running out of the picture (``cut``, image
        pixels, none of whose halves the reader read surely: :data:`SEEN_HALF_SURE`) where the
        table changed (``region``): the camera does not guess such a tile, so a tile laid there
        never reaches the game. Each is told once (a tile
        whose centre lies within a tile's width of one told before is the same one)."""
        out = []
        for c in cut:
            centre = c.mean(axis=0)
            near = max(self._tile_px, _width(c))
            if not region.overlaps(c) or any(
                    float(np.linalg.norm(centre - k)) <= near for k in self._cut_told):
                continue
            self._cut_told.append(centre)
            edges = _edges(c, size)
            where = " and ".join(edges) + (" edge" if len(edges) == 1 else " edges")
            out.append(f"A tile at the {where} of the picture runs out of it, so the camera "
                       "cannot read it: move the camera or the tile so that all of it shows, "
                       "or enter that play on the tablet.")
        if out:
            self._note("cut", told=len(out))
        return out

    def _layer_geometry(self, plane: Any) -> Any:
        """The calibrated camera for the reader's layer estimate (a
        :class:`vision.layers.Geometry` of the whole frame), or None: without ``camera_layers``,
        without a plane, or when the plane's camera cannot be used (:attr:`layers_message` says
        why). Made again when the tracker's plane changes (a bumped camera) or the set does."""
        if not self.camera_layers or plane is None:
            return None
        key = self._geometry_key
        if key is None or key[0] is not plane or key[1] != self.set_max:
            tile_mm = self.tile_mm or standard_tile_mm(self.set_max)
            self._geometry, self.layers_message = layer_geometry(plane, tile_mm)
            self._geometry_key = (plane, self.set_max)
            self._note("geometry", camera=self._geometry is not None,
                       message=self.layers_message)
        return self._geometry

    def _tile_size(self, region: ChangedRegion) -> float:
        """A tile's width in image pixels: the accepted table's median, or before any tile
        was accepted (an empty table) the short side of the changed box (a tile changed)."""
        if self._tile_px > 0:
            return self._tile_px
        box = region.box()
        if box is None or region.everything:
            return 0.0
        return min(box[2] - box[0], box[3] - box[1])

    def _crop(self, region: ChangedRegion, tile: float) -> tuple[int, int, int, int] | None:
        """The part of the frame to read, ``(x0, y0, x1, y1)``: the changed region's bounding box
        with a margin of :data:`CROP_MARGIN` tile widths, so every tile whose centre lies in the
        region is whole in it; ``(0, 0, 0, 0)`` (read nothing) when nothing changed; None (read
        the whole frame) when everything may have changed or the box would cover more than
        :data:`CROP_MAX_AREA` of the frame, or the change is being read again because crops
        did not explain it. ``tile``: a tile's width (:meth:`_tile_size`)."""
        if self.read_whole or region.everything or self._rechecks:
            return None
        b = region.box()
        if b is None:
            return (0, 0, 0, 0)
        w, h = region.frame_size
        m = CROP_MARGIN * tile
        # at least CROP_MIN_SIDE pixels each way: a reader that rescales small pictures (the
        # vision reader enlarges those under 400 px) would measure outlines differently
        mx = m + max(0.0, (CROP_MIN_SIDE - (b[2] - b[0] + 2 * m)) / 2)
        my = m + max(0.0, (CROP_MIN_SIDE - (b[3] - b[1] + 2 * m)) / 2)
        x0, x1 = _span(b[0] - mx, b[2] + mx, w)
        y0, y1 = _span(b[1] - my, b[3] + my, h)
        if (x1 - x0) * (y1 - y0) > CROP_MAX_AREA * w * h:
            return None
        return (x0, y0, x1, y1)

    def _agreement(self) -> tuple[str, list[Seen], ChangedRegion, list[Seen]] | None:
        """How the table was agreed (``agree``: the last ``agree`` readings agree;
        ``majority``: after :data:`MAJORITY_OF` readings that do not, each tile seen in most of
        them), the table to accept, the changed region compared and the agreed tiles in it; or
        None to read another frame.

        Readings are compared only where the table changed since the last accepted reading
        (the union of the readings' :class:`~vision.still.ChangedRegion`): a tile whose pixels
        did not change keeps its accepted reading (it was confirmed then), so a reader that
        flickers on an unchanged tile (a phantom, a tile missed now and then) does not hold up
        the new one. Every tile in the changed region still needs ``agree`` agreeing readings
        (or the majority), so a single-frame misread of what changed is never accepted."""
        reads = self._reads
        for how, n in (("agree", self.agree), ("majority", MAJORITY_OF)):
            if len(reads) < n:
                continue
            last = reads[-n:]
            region = last[0].region
            for r in last[1:]:
                region = region.union(r.region)
            tables = [self._inside(r.seen, region, r.plane) for r in last]
            if how == "agree":
                if all(_same_table(a, b) for a, b in itertools.pairwise(tables)):
                    return how, self._compose(tables[-1], region, last[-1].plane), region, tables[-1]
            else:
                inside = _majority(tables)
                return how, self._compose(inside, region, last[-1].plane), region, inside
        return None

    def _inside(self, seen: list[Seen], region: Any, plane: Any) -> list[Seen]:
        """The tiles of ``seen`` in the changed region. A tile read at the place of an accepted
        one of the same value is judged at the accepted tile's centre, as :meth:`_compose`
        judges the accepted one: a tile whose centre lies on the region's edge is then either
        replaced by its new reading or kept, never dropped with its new reading left out
        (the read centre a pixel off, in the next cell of the region). A new tile (none of its
        value accepted there) is in when its outline overlaps the region: a tile about the
        table's brightness (ivory on light wood) changes the picture only at its pips and
        edges, which need not reach its centre."""
        out = []
        for s in seen:
            same = _accepted_at(s, self.baseline)
            if same is not None:
                inside = region.contains(_image_centre(same, plane))
            else:
                # (not where an accepted tile of another value lies: that is a misread of it)
                inside = region.contains(_image_centre(s, plane)) or (
                    region.overlaps(_image_corners(s, plane)) and
                    _accepted_at(s, self.baseline, same_value=False) is None)
            if inside:
                out.append(s)
        return out

    def _compose(self, inside: list[Seen], region: Any, plane: Any) -> list[Seen]:
        """The agreed tiles of the changed region plus the accepted tiles outside it (the tiles
        the tracking remembers as hidden under others are left to it)."""
        kept = [b for b in self.baseline if not b.hidden
                and not region.contains(_image_centre(b, plane))]
        return inside + kept

    def _follow_session(self) -> None:
        if self.session_source is None:
            return
        current = self.session_source()
        if current is not None and current is not self.session:
            self.session = current
            if not self._fixed_interpreter:
                self.interpreter = interpreter_for(current.game.name)
            self.set_max = current.game.set_max
            self._forget_positions()
            self.seats = SeatMemory()

    def _forget_positions(self) -> None:
        """Forget where tiles were seen (a new game, or a picture of another size): the next
        still table is read whole and taken as the table."""
        self.baseline = []
        self._reference = self._fine_reference = None
        self._rechecks, self._recheck_at = 0, 0
        self._reads = []
        self._tile_px = 0.0
        self._pins = {}
        self._cut_told = []

    def relabels(self) -> dict[Tile, Tile]:
        """Corrections made this round, as ``{tile the camera read: tile it really is}``: the
        reader tends to misread the same physical tile the same way, so later readings of it
        are taken as corrected. A camera play logged with another value than the reader gave
        (a person confirmed the likelier legal value the interpreter proposed for an unsure
        reading) is such a correction too."""
        out: dict[Tile, Tile] = {}
        for h in reversed(self.session.history):
            entry = h["entry"]
            if "end_round" in entry or "deal" in entry:
                break
            reading = entry.get("reading")
            if not isinstance(reading, dict) or "play" not in entry:
                continue
            key = "play" if entry.get("source") == "correction" else \
                "tile" if entry.get("source") == "camera" else None
            if key is None or key not in reading:
                continue
            try:
                read, real = Tile.parse(reading[key]), Tile.parse(entry["play"])
            except ValueError:
                continue
            if read != real:
                out.setdefault(read, real)
        return out

    def _relabel(self, seen: list[Seen],
                 changed: Callable[[Seen], float] | None = None) -> list[Seen]:
        """Apply this round's corrections to the tiles at the places where they were made: a
        tile read as X at the spot where a person said X is really Y is taken as Y; an X seen
        anywhere else stays X (it may be the real X, played later). With ``changed`` (where
        the picture changed since the last accepted reading, as for
        :func:`companion.tracking.diff`), an X there whose own outline changed by more than
        :data:`companion.tracking.LAID_MIN_CHANGED` was laid just now, on the corrected tile:
        it is read as it is, and that correction is not pinned again."""
        fix = self.relabels()
        if not fix:
            self._pins = {}
            self._retired = set()
            return seen
        self._pins = {k: v for k, v in self._pins.items() if fix.get(k) == v[2]}
        for read, real in fix.items():
            if read not in self._pins and (read, real) not in self._retired:
                where = next((b for b in self.baseline if b.tile in (read, real)), None)
                if where is not None:
                    self._pins[read] = (where.center, where.width, real)
        out = []
        for s in seen:
            pin = self._pins.get(s.tile)
            if pin is not None and float(np.linalg.norm(s.center - pin[0])) <= 0.6 * pin[1]:
                if changed is not None and changed(s) > LAID_MIN_CHANGED:
                    self._retired.add((s.tile, pin[2]))
                    del self._pins[s.tile]
                else:
                    real = pin[2]
                    s = dataclasses.replace(s, tile=real, halves=oriented_halves(real, s.halves))
            out.append(s)
        return out

    def _accept(self, seen: list[Seen],
                changed: Callable[[Seen], float] | None = None) -> list[dict[str, Any]]:
        """Take ``seen`` as the table now (``changed``: where the picture changed since the
        last accepted reading, for :func:`companion.tracking.diff`'s memory) and publish what
        the game's interpreter makes of the change."""
        seen = self._relabel(seen, changed)
        self.baseline = self._relabel(self.baseline)
        self._note("relabelled")
        watched = _tiles_down(self.baseline)
        mark_things = getattr(changed, "mark_things", None)
        if callable(mark_things):  # a mug, a phone put down: not tiles taken away
            things = mark_things([b for b in self.baseline if not b.hidden] + list(seen))
            if things:
                self._note("things", found=things)
        change = diff(self.baseline, seen, changed=changed,
                      fixed=getattr(self.interpreter, "tiles_stay", False))
        self.baseline = change.table  # the new reading with the layers watched being built
        self.stats.accepted += 1
        happened: list[dict[str, Any]] = []
        if change.obscured:
            message = obscured_notice([s.tile for s in change.obscured])
            self.session.notice(message)
            happened.append({"notice": message})
        if change.empty:
            self._note("unchanged")
            self._tell(happened)
            return happened
        # a tile covered by one laid on it (remembered hidden) is still on the table: only a
        # tile seen before and neither seen nor covered now was taken back (one this loop
        # never saw, a question left open when it started, is not: a hand may lie over it)
        present = {s.tile for s in seen} | _tiles_down(change.table)
        self.session.resolve_taken_back(present, watched)
        side = self.gate.reached_from if self._busy_since_published else None
        self._busy_since_published = False
        self.seats.published(side, self.session.history)
        change.reached_by = self.seats.player_at(side)
        # read against the game as the camera's open questions would leave it: a tile laid on
        # one still in question is a play on it, by the player whose turn follows it
        for prop in propose(self.interpreter, change, self.session.as_answered()):
            if prop.entry is None:
                self.session.notice(prop.message)
                happened.append({"notice": prop.message})
            else:
                result = self.session.submit(prop.entry, source="camera")
                happened.append({"entry": prop.entry, "result": result.to_json()})
        self._note("published", happened=len(happened),
                   what=[h.get("notice") or f"{h['entry'].get('play')}:{h['result']['status']}"
                         for h in happened])
        self._tell(happened)
        return happened

    def _tell(self, happened: list[dict[str, Any]]) -> None:
        """Pass what the camera's change made happen to :attr:`on_event`, once each."""
        if self.on_event is not None:
            for h in happened:
                self.on_event("camera", h)

    # the live thread ---------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Run the pip reader once on empty crops, so the first real reading does not pay for
        the ONNX session's first run (about a second here)."""
        pips = getattr(self.reader, "pips", None)
        if pips is not None and hasattr(pips, "half_probabilities"):
            from vision.halves import HALF_SIZE

            pips.half_probabilities(np.zeros((2, HALF_SIZE, HALF_SIZE), np.float32))

    def start(self, capture: Any) -> "LiveLoop":
        """Process frames from ``capture`` (a started CaptureThread) in a background thread."""
        self.warm_up()
        self.capture = capture
        self._thread = threading.Thread(target=self._run, name="live-loop", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.capture.get_latest(timeout=0.5)  # frames queued during a reading are stale
            if frame is None:
                if self.capture.ended:
                    return
                continue
            try:
                self.process(frame.frame_bgr, frame.index)
            except Exception as exc:  # noqa: BLE001 - one frame must not end the game's loop
                self.stats.failed_frames += 1
                self._problem(f"a camera frame could not be handled ({type(exc).__name__}: "
                              f"{exc}); the companion goes on with the next")
                print(f"domino-companion: live loop: frame {frame.index} failed: "
                      f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            now = time.monotonic()
            if now - self._last_annotated >= ANNOTATE_EVERY_S:
                self._last_annotated = now
                self._render_annotated()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    # views -----------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        times = list(self.stats.frame_times)
        fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) >= 2 and times[-1] > times[0] else 0.0
        read_ms = sorted(self.stats.read_ms)
        out: dict[str, Any] = {
            "gate": self.last_verdict,
            "fps": round(fps, 1),
            "frames": self.stats.frames,
            "readings": self.stats.readings,
            "accepted": self.stats.accepted,
            "read_ms_median": round(read_ms[len(read_ms) // 2], 1) if read_ms else None,
            "tiles_seen": len(self.baseline),
            "table": self.plane_status,
            "layers": self.layers_message,
            "bad_frames": self.stats.bad_frames + self.stats.failed_frames,
            "frame_problem": self.frame_problem
            if time.monotonic() - self._problem_at <= PROBLEM_SHOWN_S else None,
        }
        if self.capture is not None:
            out["camera"] = self.capture.status().to_json()
        return out

    def _render_annotated(self) -> None:
        frame = self._last_frame
        if frame is None:
            return
        img = annotate(frame, self.last_reading, self.last_verdict.get("message", ""))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if ok:
            with self._lock:
                self._jpeg = buf.tobytes()
            if self.on_frame is not None:
                self.on_frame(self._jpeg)

    def annotated_jpeg(self) -> bytes | None:
        """The last frame with every tile's value and confidence drawn on it, as JPEG."""
        with self._lock:
            return self._jpeg


def reads_crops(reader: Any) -> bool:
    """Whether ``reader`` reads a part of a frame as well as the whole, giving the tiles in the
    part's own pixels: :class:`vision.read.Reader` does (it finds tiles in any picture); any
    other reader (a test double that reports the scripted truth in frame pixels) only when it
    says so with ``reads_crops = True``."""
    flag = getattr(reader, "reads_crops", None)
    if flag is not None:
        return bool(flag)
    from vision.read import Reader

    return isinstance(reader, Reader)


def standard_tile_mm(set_max: int) -> tuple[float, float, float]:
    """:data:`STANDARD_TILE_MM` of a set whose largest value is ``set_max`` (the next larger
    standard set for another value)."""
    for top in sorted(STANDARD_TILE_MM):
        if set_max <= top:
            return STANDARD_TILE_MM[top]
    return STANDARD_TILE_MM[max(STANDARD_TILE_MM)]


def tile_mm_from_profile(profile: Any) -> tuple[float, float, float] | None:
    """The enrolled set's tile size as (length, width, thickness mm), the thickness
    :data:`calibration.enroll.THICKNESS_PER_WIDTH` of the width (the enrollment measures the top
    face only); None when the profile has no size in mm (enrolled without a calibration)."""
    from calibration.enroll import THICKNESS_PER_WIDTH

    size = getattr(profile, "tile_mm", None)
    if size is None:
        return None
    length, width = float(size[0]), float(size[1])
    return (length, width, round(THICKNESS_PER_WIDTH * width, 2))


_LENS_WORDS = {"lens-calibration": "focal length from the lens calibration",
               "homography": "focal length estimated from the markers",
               "corners": "focal length estimated from the four corners given by hand",
               "assumed-fov": "focal length assumed (the camera looks nearly straight down: "
                              "calibrate the lens for a firmer one)"}


def _lens_words(plane: Any, source: str) -> str:
    """Where the camera's focal length comes from, in words; a calibration made from the four
    corners given by hand says so (:mod:`calibration.cornercam`)."""
    if getattr(plane, "method", "") != "manual":
        return _LENS_WORDS.get(source, source)
    if source == "lens-calibration":
        return "focal length from the lens calibration; table from the four corners given by hand"
    if source in ("corners", "homography"):  # "homography": a manual calibration made earlier
        return _LENS_WORDS["corners"]
    return ("focal length assumed: the camera looks too nearly straight down for the four "
            "corners given by hand to tell it (tilt it 15-20 degrees and calibrate again, or "
            "calibrate the lens)")


def layer_geometry(plane: Any, tile_mm: tuple[float, float, float],
                   tile_source: str = "") -> tuple[Any, str]:
    """The calibrated camera of a table plane (:class:`calibration.plane.TablePlane`: its
    camera model and pose, else its homography with the camera's focal length) for the layer
    estimate, as a :class:`vision.layers.Geometry` of ``tile_mm`` tiles, and a line saying
    which camera it is; ``(None, why not)`` when the plane has no camera or it cannot be
    used. ``tile_source``: where the tile size comes from, said after it."""
    from vision.layers import Geometry, LayerInputError

    cam = getattr(plane, "camera", None)
    if plane is None or cam is None:
        return None, ("layers without the camera: the table calibration has no camera model "
                      "(calibrate again)")
    pose = getattr(plane, "pose", None)
    try:
        if pose is not None:
            geometry = Geometry(cam.K, pose.rvec, pose.tvec, tile_mm, cam.dist)
        else:
            geometry = Geometry.from_homography(plane.table_to_image, cam.K, tile_mm, cam.dist)
    except LayerInputError as exc:
        return None, f"layers without the camera: its calibration cannot be used ({exc})"
    R = cv2.Rodrigues(geometry.rvec)[0]
    centre = -R.T @ geometry.tvec
    tilt = float(np.degrees(np.arccos(np.clip((R.T @ [0.0, 0.0, 1.0])[2], -1.0, 1.0))))
    L, W, T = geometry.tile_mm
    return geometry, (f"layers use the calibrated camera (height {-centre[2]:.0f} mm, tilt "
                      f"{tilt:.0f} degrees, {_lens_words(plane, cam.source)}; tiles "
                      f"{L:g} x {W:g} x {T:g} mm{tile_source})")


@dataclass(frozen=True)
class _Read:
    """One reading of a still table: its tiles (image pixels, or table mm with ``plane``), where
    the frame differs from the last accepted one, and the frame's :func:`small_grey` picture."""

    seen: list[Seen]
    region: ChangedRegion
    plane: Any
    small: np.ndarray
    #: outlines (image pixels) of the tiles the reading found running out of the picture
    cut: list[np.ndarray] = field(default_factory=list)


def obscured_notice(tiles: list[Tile]) -> str:
    """What the players are told when something that is not a tile (a mug, a phone) was put
    down over ``tiles``: they are kept where they lay, unseen, until it is taken away."""
    names = [str(t) for t in tiles]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    them = "it" if len(names) == 1 else "them"
    return (f"Something that is not a tile was put down over {listed}: the camera keeps "
            f"{them} where {'it lay' if len(names) == 1 else 'they lay'} but cannot see "
            f"{them} until it is taken away.")


def _tiles_down(table: list[Seen]) -> set[Tile]:
    """The tiles the tracking's ``table`` holds as lying there: seen, or covered by a tile
    laid on them (not gone from sight, not inferred)."""
    return {t.tile for t in table if not (t.gone or t.inferred)}


def _accepted_at(s: Seen, baseline: list[Seen], tol: float = 0.5,
                 same_value: bool = True) -> Seen | None:
    """The accepted (not hidden) tile of ``s``'s value (of any value with ``same_value``
    False) within ``tol`` tile widths of its centre, or None."""
    for b in baseline:
        if (b.tile == s.tile or not same_value) and not b.hidden and \
                float(np.linalg.norm(b.center - s.center)) <= tol * max(1.0, b.width):
            return b
    return None


def _image_centre(s: Seen, plane: Any) -> np.ndarray:
    """A tile's centre in image pixels (its corners are table mm when ``plane`` is given)."""
    if plane is None:
        return s.center
    return plane.to_image(s.center.reshape(1, 2), z_mm=TILE_TOP_MM)[0]


def _shifted(reading: Any, dx: int, dy: int) -> Any:
    """A reading of a crop whose top left corner is at ``(dx, dy)``, in the whole frame's
    pixels (corners and centres moved; everything else as read)."""
    def move(t: Any) -> Any:
        changes: dict[str, Any] = {"corners": tuple((x + dx, y + dy) for x, y in t.corners)}
        if getattr(t, "center", None) is not None:
            changes["center"] = (t.center[0] + dx, t.center[1] + dy)
        return dataclasses.replace(t, **changes)

    return dataclasses.replace(reading, tiles=tuple(move(t) for t in reading.tiles))


def _merged(earlier: Any, crop_reading: Any, box: tuple[int, int, int, int],
            frame_size: tuple[int, int]) -> Any:
    """What the annotated video shows after a crop was read: ``crop_reading`` (whole-frame
    pixels of a ``frame_size`` (width, height) frame) over the tiles of ``earlier`` whose centre
    lies outside ``box``.

    A tile the crop's edge cut where the frame's does not (its outline away from the frame's
    edge) is a whole tile on the table, seen in part: it is not drawn as a cut tile (red), and
    the earlier reading's tile it overlaps stays."""
    cropped = [t for t in crop_reading.tiles if t.cut and not _edges(t.corners, frame_size)]
    tiles = [t for t in crop_reading.tiles if all(t is not c for c in cropped)]
    if earlier is not None:
        x0, y0, x1, y1 = box
        for t in earlier.tiles:
            cx, cy = np.asarray(t.corners, dtype=np.float64).mean(axis=0)
            if not (x0 <= cx < x1 and y0 <= cy < y1) or any(
                    _overlap(c.corners, t.corners) > CROPPED_OVERLAP for c in cropped):
                tiles.append(t)
    return dataclasses.replace(crop_reading, tiles=tuple(tiles))


#: How much of a tile the crop cut (the share of its outline's area) an earlier tile must
#: cover to be kept in the annotated video in its place.
CROPPED_OVERLAP = 0.3


def _edges(corners: Any, size: tuple[int, int], margin: float = 3.0) -> list[str]:
    """The edges of a ``size`` (width, height) frame an outline reaches within ``margin``
    px ("top", "bottom", "left", "right"); none for an outline that lies inside the frame."""
    c = np.asarray(corners, dtype=np.float64)
    w, h = size
    return [name for name, out in (("top", c[:, 1].min() < margin),
                                   ("bottom", c[:, 1].max() > h - 1 - margin),
                                   ("left", c[:, 0].min() < margin),
                                   ("right", c[:, 0].max() > w - 1 - margin)) if out]


def _overlap(part: Any, other: Any) -> float:
    """The share of outline ``part``'s area that outline ``other`` covers (convex quads)."""
    a = np.asarray(part, dtype=np.float32).reshape(-1, 1, 2)
    b = np.asarray(other, dtype=np.float32).reshape(-1, 1, 2)
    area = abs(cv2.contourArea(a))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter) / area


def _span(lo: float, hi: float, size: int) -> tuple[int, int]:
    """``[lo, hi)`` in whole pixels, shifted (not shrunk) to lie within ``[0, size)`` where
    it can."""
    lo, hi = int(np.floor(lo)), int(np.ceil(hi))
    if lo < 0:
        lo, hi = 0, min(size, hi - lo)
    if hi > size:
        lo, hi = max(0, lo - (hi - size)), size
    return lo, hi


def _image_corners(s: Seen, plane: Any) -> np.ndarray:
    """A tile's corners in image pixels (they are table mm when ``plane`` is given)."""
    c = np.asarray(s.corners, dtype=np.float64)
    return c if plane is None else plane.to_image(c, z_mm=TILE_TOP_MM)


def _table_corners(corners: np.ndarray, plane: Any) -> np.ndarray:
    """Image pixels to table mm on the top faces of tiles (as tiles are tracked with a plane)."""
    return np.asarray(plane.to_table(corners, z_mm=TILE_TOP_MM), np.float64)


def _width(corners: np.ndarray) -> float:
    """The short side of a tile's outline."""
    c = np.asarray(corners, dtype=np.float64)
    return float(min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[3] - c[2])))


def _majority(reads: list[list[Seen]], tol: float = 0.5) -> list[Seen]:
    """The tiles seen (same value, about the same place) in more than half of ``reads``, with
    the geometry of their latest sighting."""
    out: list[Seen] = []
    need = len(reads) // 2 + 1
    for s in reads[-1] + [t for r in reads[:-1] for t in r]:
        if any(o.tile == s.tile for o in out):
            continue
        votes = sum(any(t.tile == s.tile and float(np.linalg.norm(t.center - s.center))
                        <= tol * max(1.0, s.width) for t in r) for r in reads)
        if votes >= need:
            out.append(s)
    return out


def _same_table(a: list[Seen], b: list[Seen], tol: float = 0.5) -> bool:
    """Two readings agree: the same tiles at about the same places."""
    if {s.tile for s in a} != {s.tile for s in b}:
        return False
    where = {s.tile: s for s in a}
    for s in b:
        o = where[s.tile]
        if float(np.linalg.norm(o.center - s.center)) > tol * max(1.0, o.width):
            return False
    return True


#: Frame width (px) per unit of OpenCV font scale of the status line :func:`annotate` draws:
#: 1280-px frames get scale 1.6, letters about 35 px tall, about 12 px on a tablet that shows
#: the picture 430 px wide.
MESSAGE_WIDTH_PER_SCALE = 800


#: A tile's label (its value) is this tall against the tile's short side: a 45-px-wide tile of
#: a 1280-px frame gets letters about 19 px tall, 6-7 px where the tablet shows the picture
#: 430 px wide (the value is read there at a glance; the questions ask in words).
LABEL_HEIGHT_PER_WIDTH = 0.42

#: Label font scales kept between these (a tiny or a huge tile stays legible and in the frame).
LABEL_SCALES = (0.45, 2.5)


def annotate(frame_bgr: np.ndarray, reading: Any, message: str = "") -> np.ndarray:
    """Draw each read tile's outline and value (green sure; amber unsure, with its confidence;
    red "cut" where the frame edge cuts it), the value centred on the tile and sized to it,
    and ``message`` as a status line across the top."""
    img = frame_bgr.copy()
    if reading is not None:
        for t in reading.tiles:
            pts = np.asarray(t.corners, dtype=np.int32)
            if t.cut:
                colour = (0, 0, 255)
                label = "cut"
            elif t.confidence >= 0.9:
                colour = (0, 220, 0)
                label = str(t.tile)
            else:
                colour = (0, 170, 255)
                label = f"{t.tile} {t.confidence:.2f}"
            cv2.polylines(img, [pts], True, colour, 2, cv2.LINE_AA)
            _draw_label(img, label, np.asarray(t.corners, dtype=np.float64), colour)
    if message:
        # the status line is sized to the frame: the tablet shows the picture a third of a
        # 1280-px frame wide or less, where a fixed small font is no longer legible
        (tw, th), _ = cv2.getTextSize(message, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 1)
        scale = min(max(0.7, img.shape[1] / MESSAGE_WIDTH_PER_SCALE),
                    0.9 * img.shape[1] / max(tw, 1))  # a long message still fits the width
        org = (round(12 * scale), round(12 * scale + th * scale))
        cv2.putText(img, message, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0),
                    max(4, round(4 * scale)), cv2.LINE_AA)
        cv2.putText(img, message, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255),
                    max(1, round(1.5 * scale)), cv2.LINE_AA)
    return img


def _draw_label(img: np.ndarray, label: str, corners: np.ndarray,
                colour: tuple[int, int, int]) -> None:
    """``label`` centred on the tile with these corners, on a dark chip (legible over white
    and black tiles alike), its letters :data:`LABEL_HEIGHT_PER_WIDTH` of the tile's short
    side tall."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    short = float(min(sides[0] + sides[2], sides[1] + sides[3])) / 2
    (_, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 2)
    scale = float(np.clip(LABEL_HEIGHT_PER_WIDTH * short / max(th, 1), *LABEL_SCALES))
    thick = max(1, round(2 * scale))
    (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    cx, cy = corners.mean(axis=0)
    org = (int(round(cx - tw / 2)), int(round(cy + th / 2)))
    pad = max(2, round(th * 0.3))
    cv2.rectangle(img, (org[0] - pad, org[1] - th - pad), (org[0] + tw + pad, org[1] + pad),
                  (32, 32, 32), cv2.FILLED)
    cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


class LiveFrames:
    """The dashboard's frame source (``web_ui.services.FrameSource``) over a running
    :class:`LiveLoop`: annotated JPEG frames, numbered, and the camera state for the banner."""

    def __init__(self, loop: LiveLoop) -> None:
        self.loop = loop
        self._cond = threading.Condition()
        self._n = 0
        self._jpeg: bytes | None = None
        loop.on_frame = self._push

    def _push(self, jpeg: bytes) -> None:
        with self._cond:
            self._n += 1
            self._jpeg = jpeg
            self._cond.notify_all()

    def latest(self) -> tuple[int, bytes] | None:
        with self._cond:
            return None if self._jpeg is None else (self._n, self._jpeg)

    def raw_frame(self) -> np.ndarray | None:
        """The camera's last picture as it came (BGR), without annotations (calibration)."""
        frame = self.loop._last_frame
        return None if frame is None else frame.copy()

    def wait_frame(self, after: int, timeout: float) -> tuple[int, bytes] | None:
        with self._cond:
            self._cond.wait_for(lambda: self._jpeg is not None and self._n > after, timeout=timeout)
            if self._jpeg is not None and self._n > after:
                return (self._n, self._jpeg)
            return None

    def status(self) -> dict[str, Any]:
        st = self.loop.status()
        cam = st.get("camera") or {"state": "live", "message": ""}
        state = "ok" if cam["state"] == "live" else cam["state"]
        hints = [cam["message"]] if cam.get("message") else []
        gate = st["gate"]
        if state == "ok" and gate.get("state") in ("motion", "hand"):
            hints.append(gate["message"] + ": waiting for a still table")
        table = st.get("table")
        if table and table["state"] in ("searching", "lost", "moved", "recovered"):
            hints.append(table["message"])
        if st.get("frame_problem"):
            hints.append(st["frame_problem"])
        return {"state": state, "message": cam.get("message") or gate.get("message", ""),
                "hints": hints,
                "diagnostics": {"fps": st["fps"], "frames": st["frames"],
                                "readings": st["readings"], "read_ms_median": st["read_ms_median"],
                                "tiles_seen": st["tiles_seen"], "gate": gate.get("state"),
                                "dropped": cam.get("dropped", 0),
                                "bad_frames": st.get("bad_frames", 0),
                                "camera_hangs": cam.get("hangs", 0)}}
