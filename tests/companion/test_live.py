"""The live path without a real camera: capture thread faults, the still-table gate, tracking,
the line-game interpreter and the live loop (with a scripted reader standing in for vision)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from companion.capture import CaptureThread
from companion.interpret import LineInterpreter, interpreter_for
from companion.live import LiveLoop
from companion.session import Session
from companion.store import LogStore
from companion.tiles import Tile
from companion.tracking import Seen, contacts_of, diff
from vision.sources import CameraError
from vision.still import StillGate
from vision.virtual_camera import Faults, VirtualCamera
from live_helpers import W, L, _R, confirm_lead, in_view, on_cells, picture, tile_at




# --- tracking -------------------------------------------------------------------------------

def test_contacts_end_to_end_and_side() -> None:
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    cs = contacts_of(right, [spinner])
    assert len(cs) == 1
    assert cs[0].other == Tile.of(5, 5) and cs[0].value == 5 and cs[0].matches
    assert cs[0].kind == "side"
    line = tile_at(0, 2, 100 + W / 2 + L + L / 2 + 2, 100)
    cs = contacts_of(line, [spinner, right])
    assert [(c.other, c.value, c.other_value, c.kind) for c in cs] == [(Tile.of(0, 5), 0, 0, "end")]


def test_diff_added_removed_moved() -> None:
    a = tile_at(5, 5, 100, 100, vertical=True)
    b = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    c = tile_at(6, 6, 300, 300)
    moved_c = tile_at(6, 6, 340, 300)
    change = diff([a, c], [a, b, moved_c])
    assert [s.tile for s in change.added] == [Tile.of(0, 5)]
    assert [o.tile for o, _ in change.moved] == [Tile.of(6, 6)]
    assert change.removed == []
    assert change.contacts[Tile.of(0, 5)][0].other == Tile.of(5, 5)
    assert diff([a, b], [a]).removed[0].tile == Tile.of(0, 5)
    assert diff([a], [a]).empty


# --- interpreter ----------------------------------------------------------------------------

def _session(tmp_path: Path, game: str = "allfives") -> Session:
    return Session.start(LogStore(tmp_path / "g.db"), game, ["Ann", "Bob", "Cy"])


def test_tiles_already_on_the_table_start_from_the_tile_that_can_lead(tmp_path: Path) -> None:
    """The camera started mid-round: a 0-5 touching the 5-5 and the 5-5 seen at once, the 0-5
    first in the reading. The 5-5 leads (an All Fives round opens with a double; who led is
    asked), the 0-5 follows on it. Who laid the 0-5 is asked too (a pass before it was never
    entered: the log was empty); once the lead is answered it waits for its own answer."""
    s = _session(tmp_path)
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    props = LineInterpreter().proposals(diff([], [right, spinner]), s.game)
    assert [(p.entry["play"], p.entry.get("on")) for p in props] == [("5-5", None),
                                                                     ("0-5", "5-5")]
    assert [p.entry["confidence"] for p in props] == [0.5, 0.5]
    assert [s.submit(p.entry).status for p in props] == ["confirm", "confirm"]
    lead = s.alerts[0]
    assert s.confirm(lead.id).status == "accepted"
    assert [h["text"] for h in s.history] == ["Ann plays 5-5"]
    assert [a.entry["play"] for a in s.alerts] == ["0-5"]
    assert s.confirm(s.alerts[0].id).status == "accepted"
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]
    assert s.alerts == []


def test_several_plays_seen_at_once_ask_where_their_order_is_a_guess(tmp_path: Path) -> None:
    """After the 5-5 lead, a 0-5 and a 0-2 on it seen at once are a chain (the 0-2 follows the
    0-5): no question. A 3-5 on the spinner's other side and a 5-6 on its end seen at once
    could have come in either order (and so from either player): both ask."""
    s = _session(tmp_path)
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    s.submit(LineInterpreter().proposals(diff([], [spinner]), s.game)[0].entry)
    confirm_lead(s)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    beyond = tile_at(0, 2, 100 + W / 2 + L + L / 2 + 2, 100)
    props = LineInterpreter().proposals(diff([spinner], [spinner, beyond, right]), s.game)
    assert [(p.entry["player"], p.entry["play"], p.entry["on"]) for p in props] == [
        ("Bob", "0-5", "5-5"), ("Cy", "0-2", "0-5")]
    assert all(p.entry["confidence"] > 0.9 for p in props)
    assert [s.submit(p.entry).status for p in props] == ["accepted", "accepted"]
    table = [spinner, right, beyond]
    left = tile_at(3, 5, 100 - W / 2 - L / 2 - 1, 100)
    top = tile_at(5, 6, 100, 100 - L / 2 - L / 2 - 1, vertical=True)
    props = LineInterpreter().proposals(diff(table, table + [left, top]), s.game)
    assert [(p.entry["play"], p.entry["on"]) for p in props] == [("3-5", "5-5"), ("5-6", "5-5")]
    assert all(p.entry["confidence"] <= 0.5 for p in props)
    assert [s.submit(p.entry).status for p in props] == ["confirm", "confirm"]


def test_line_interpreter_plays_on_the_touched_tile(tmp_path: Path) -> None:
    s = _session(tmp_path)
    first = tile_at(5, 5, 100, 100, vertical=True)
    props = LineInterpreter().proposals(diff([], [first]), s.game)
    assert [p.entry["play"] for p in props] == ["5-5"] and "on" not in props[0].entry
    # any player may lead the double (no deal entered): who did is asked
    assert s.submit(props[0].entry).status == "confirm"
    confirm_lead(s)
    second = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    props = LineInterpreter().proposals(diff([first], [first, second]), s.game)
    assert props[0].entry["player"] == "Bob"
    assert props[0].entry["on"] == "5-5" and props[0].entry["source"] == "camera"
    assert s.submit(props[0].entry).status == "accepted"
    assert s.state()["scores"] == {"Ann": 10, "Bob": 10, "Cy": 0}


def test_interpreter_flags_removals(tmp_path: Path) -> None:
    s = _session(tmp_path)
    first = tile_at(5, 5, 100, 100, vertical=True)
    s.submit(LineInterpreter().proposals(diff([], [first]), s.game)[0].entry)
    confirm_lead(s)
    props = LineInterpreter().proposals(diff([first], []), s.game)
    assert props[0].entry is None and "taken off the table" in props[0].message


def test_unknown_game_for_camera() -> None:
    # every game of the companion is followed now: an unknown name gets the clear refusal
    with pytest.raises(ValueError, match="cannot follow mexicantrain yet; games it follows: "
                                         "allfives"):
        interpreter_for("mexicantrain")


# --- still gate -----------------------------------------------------------------------------

def _table(seed: int = 0, size: tuple[int, int] = (640, 360)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((size[1], size[0], 3), 90, np.uint8)
    img += rng.integers(0, 6, img.shape, dtype=np.uint8)
    return img


def test_gate_reads_only_a_still_table_without_hands() -> None:
    from vision.virtual_camera import add_hand

    table = _table()
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))
    gate = StillGate(still_frames=3)
    states = [gate.update(f).state for f in [table] * 4]
    assert states == ["motion", "settling", "settling", "stable"]
    # a hand comes in and stays still: never read while it is there
    states = [gate.update(f).state for f in [hand] * 10]
    assert states[0] == "motion" and set(states[1:]) == {"hand"}
    states = [gate.update(f).state for f in [table] * 4]
    assert states[-1] == "stable"


def test_gate_rebases_after_a_lasting_change() -> None:
    table = _table()
    moved = np.roll(table, 40, axis=1)
    moved[:, :60] = 200
    gate = StillGate(still_frames=2, rebase_frames=5)
    for f in [table] * 3:
        gate.update(f)
    states = [gate.update(moved).state for _ in range(12)]
    assert "stable" in states


def test_changed_region_finds_a_new_tile_and_ignores_sensor_noise() -> None:
    from vision.still import ChangedRegion, small_grey

    table = _table()
    rng = np.random.default_rng(3)
    noisy = np.clip(table + rng.normal(0, 3, table.shape), 0, 255).astype(np.uint8)
    with_tile = picture(noisy, [tile_at(2, 3, 300, 200)])
    size = (640, 360)
    assert not ChangedRegion(small_grey(table), small_grey(noisy), size, 12).mask.any()
    region = ChangedRegion(small_grey(table), small_grey(with_tile), size, 12, grow_px=10)
    assert region.contains((300, 200)) and region.contains((300 + L / 2 + 5, 200))
    assert not region.contains((100, 100)) and 0 < region.fraction < 0.05
    other = ChangedRegion(small_grey(table), small_grey(picture(table, [tile_at(1, 1, 100, 100)])),
                          size, 12)
    both = region.union(other)
    assert both.contains((100, 100)) and both.contains((300, 200))
    assert ChangedRegion(None, small_grey(table), size).everything
    with pytest.raises(ValueError, match="frame_size"):
        ChangedRegion(None, small_grey(table), (0, 360))


# --- virtual camera and capture thread ------------------------------------------------------

def test_virtual_camera_noise_and_faults() -> None:
    table = _table()
    cam = VirtualCamera([table] * 10, realtime=False, faults=Faults(freeze=((3, 6),),
                                                                     disconnect=((8, 9),)))
    frames = [cam.read() for _ in range(8)]
    assert not np.array_equal(frames[0].frame_bgr, frames[1].frame_bgr)  # fresh noise
    assert np.array_equal(frames[3].frame_bgr, frames[4].frame_bgr)  # frozen
    with pytest.raises(CameraError, match="disconnected"):
        cam.read()
    assert cam.read() is not None
    assert cam.read() is None  # end of the list


def test_capture_drops_stale_frames_and_ends() -> None:
    table = _table()
    cam = VirtualCamera([table] * 40, realtime=False)
    cap = CaptureThread(lambda: cam, queue_size=2).start()
    deadline = time.monotonic() + 10
    while not cap.ended and time.monotonic() < deadline:
        if cap.status().state == "ended":
            break
        time.sleep(0.01)
    st = cap.status()
    assert st.frames == 40
    assert st.dropped >= 30  # nobody consumed: only the newest two were kept
    got = [cap.get(timeout=0.1) for _ in range(3)]
    assert [g.index for g in got if g is not None] == [38, 39]
    assert st.state == "ended"
    cap.stop()


def test_capture_reports_offline_and_reconnects() -> None:
    table = _table()
    opened = []

    def opener():
        opened.append(1)
        if len(opened) == 1:
            raise CameraError("no camera at index 0", advice="plug one in")
        return VirtualCamera([table] * 5, realtime=False)

    cap = CaptureThread(opener, reconnect_s=0.05).start()
    deadline = time.monotonic() + 10
    seen_offline = False
    while time.monotonic() < deadline:
        st = cap.status()
        seen_offline |= st.state == "offline" and "no camera at index 0" in st.message
        if st.state == "ended":
            break
        time.sleep(0.005)
    assert len(opened) >= 2
    assert cap.status().state == "ended" and cap.status().frames == 5
    cap.stop()
    assert seen_offline or len(opened) >= 2


def test_capture_sees_frozen_and_stalled_cameras() -> None:
    table = _table()
    clock = [0.0]
    cam = VirtualCamera([table] * 3, realtime=False, noise_sigma=0.0, loop=True)
    cap = CaptureThread(lambda: cam, stall_s=1.0, frozen_s=2.0, clock=lambda: clock[0])
    frame = cam.read()
    cap._source = cam
    cap._opened_at = 0.0
    cap._deliver(frame)
    assert cap.status().state == "live"
    clock[0] = 0.5
    cap._deliver(cam.read())  # identical picture (no noise): frozen after 2 s
    clock[0] = 2.5
    cap._deliver(cam.read())
    assert cap.status().state == "frozen"
    assert "has not changed" in cap.status().message
    clock[0] = 4.0
    assert cap.status().state == "stalled"
    assert "no pictures" in cap.status().message


def test_capture_get_latest_skips_stale_frames() -> None:
    table = _table()
    cam = VirtualCamera([table] * 3, realtime=False)
    cap = CaptureThread(lambda: cam, queue_size=3)
    for _ in range(3):
        cap._deliver(cam.read())
    frame = cap.get_latest(timeout=0.1)
    assert frame is not None and frame.index == 2  # the newest; the two older were stale
    assert cap.status().dropped == 2
    assert cap.get_latest(timeout=0.01) is None


# --- the live loop with a scripted reader ---------------------------------------------------



class ScriptedReader:
    """Reads the tiles the test says are on the table for the current frame."""

    reads_crops = True  # in_view gives the tiles in the crop's own pixels

    def __init__(self) -> None:
        self.table: list[Seen] = []

    def read(self, frame_bgr, set_max, **_):
        return _R(in_view(self.table, frame_bgr))


def test_live_loop_follows_plays_illegal_and_unsure(tmp_path: Path) -> None:
    s = _session(tmp_path)
    reader = ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    table, hand = _table(), None
    from vision.virtual_camera import add_hand
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    wrong = tile_at(6, 6, 100 - W / 2 - L / 2 - 1, 100)
    unsure = tile_at(3, 5, 100 - W / 2 - L / 2 - 1, 100, conf=0.6)
    last = tile_at(0, 2, 100 + W / 2 + L + L / 2 + 2, 100)

    def show(tiles, frames=6):
        reader.table = list(tiles)
        out = []
        for f in [hand] * 3 + [picture(table, tiles)] * frames:
            out += loop.process(f)
        return out

    show([spinner])
    confirm_lead(s)
    show([spinner, right])
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]
    out = show([spinner, right, wrong])
    assert out[0]["result"]["status"] == "illegal"
    assert s.state()["alerts"][0]["kind"] == "illegal"
    show([spinner, right])  # the 6-6 is taken back: the alert closes by itself
    assert s.state()["alerts"] == []
    out = show([spinner, right, unsure])
    assert out[0]["result"]["status"] == "confirm"
    alert = s.state()["alerts"][0]
    assert alert["kind"] == "confirm" and "0.60" in alert["message"]
    s.confirm(alert["id"])
    assert s.history[-1]["text"] == "Cy plays 3-5 on 5-5"
    show([spinner, right, unsure, last])
    # the seed's worked example: 5-5 (10), 5-0 (10), 3-5 on the spinner (3: nothing), 0-2 (5)
    assert s.history[-1]["text"] == "Ann plays 0-2 on 0-5"
    assert s.state()["scores"] == {"Ann": 15, "Bob": 10, "Cy": 0}
    assert loop.status()["accepted"] >= 5


def _on40(a: int, b: int, ca: tuple[int, int], cb: tuple[int, int]) -> Seen:
    """A Stackernoes tile on grid cells 40 px wide."""
    return on_cells(a, b, ca, cb, 40.0, (300.0, 180.0))


def test_plays_made_while_nobody_answers_the_lead_question_follow_it(tmp_path: Path) -> None:
    """Stackernoes, and nobody says who led the 2-2: the 2-5 and 5-7 laid after it are read on
    the lead's grid (as the open question would leave the game) and held; a 2-9 laid over the
    2-5 hides it, which does not take it back (its play stays held); one answer logs all four
    in order, the 2-9 on level 1."""
    s = Session.start(LogStore(tmp_path / "g.db"), "stackernoes", ["Ann", "Bob"])
    reader = ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    table = _table()
    from vision.virtual_camera import add_hand
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))

    def show(tiles, frames=6):
        reader.table = list(tiles)
        for f in [hand] * 3 + [picture(table, tiles)] * frames:
            loop.process(f)

    lead = _on40(2, 2, (0, 0), (1, 0))
    beside = _on40(5, 2, (-2, 0), (-1, 0))
    end = _on40(7, 5, (-4, 0), (-3, 0))
    over = _on40(9, 2, (-2, 0), (-1, 0))
    show([lead])
    show([lead, beside])
    show([lead, beside, end])
    assert s.history == [] and [a.held for a in s.alerts] == [False, True, True]
    show([lead, end, over])
    assert s.history == [] and len(s.alerts) == 4, [a.message for a in s.alerts]
    assert s.confirm(s.alerts[0].id).status == "accepted"
    assert [(h["entry"]["player"], h["entry"]["play"], h["entry"]["level"])
            for h in s.history] == [("Ann", "2-2", 0), ("Bob", "2-5", 0), ("Ann", "5-7", 0),
                                    ("Bob", "2-9", 1)]
    assert s.alerts == []


def test_a_restarted_loop_does_not_take_back_a_question_it_never_saw(tmp_path: Path) -> None:
    """A question about the 5-5 is open when the live loop (re)starts with a hand over that
    tile: its first reading, without the 5-5, does not close the question as taken back (the
    loop never saw the tile); once it has seen the 5-5, taking it away does."""
    s = _session(tmp_path)
    asked = s.submit({"player": "Ann", "play": "5-5", "confidence": 0.5}, source="camera").alert
    reader = ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    table = _table()
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    aside = tile_at(1, 2, 400, 250)

    def show(tiles, frames=6):
        reader.table = list(tiles)
        for f in [picture(table, tiles)] * frames:
            loop.process(f)

    show([aside])  # (the 1-2 raises a question of its own)
    assert asked.id in [a.id for a in s.alerts]
    show([aside, spinner])
    assert asked.id in [a.id for a in s.alerts]
    show([aside])
    assert all(a.id != asked.id for a in s.alerts)

class FlagRecordingReader(ScriptedReader):
    """A scripted reader that notes whether each read asked for the learned layer cue."""

    def __init__(self) -> None:
        super().__init__()
        self.learned: list[bool] = []

    def read(self, frame_bgr, set_max, learned_layers=True, **_):
        self.learned.append(learned_layers)
        return super().read(frame_bgr, set_max)


def test_the_learned_layer_cue_is_asked_for_only_while_the_table_is_unknown(
        tmp_path: Path) -> None:
    """A cold start reads with the learned layer cue (nothing watched yet); once the table is
    known, the tracking decides the layers of what it watched and the reader is asked to leave
    the cue out (it lifted a few tiles the tracking had right)."""
    s = _session(tmp_path)
    reader = FlagRecordingReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    table = _table()
    from vision.virtual_camera import add_hand
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    for tiles in ([spinner], [spinner, right]):
        reader.table = list(tiles)
        n = len(reader.learned)
        for f in [hand] * 3 + [picture(table, tiles)] * 6:
            loop.process(f)
        assert len(reader.learned) > n
        if tiles == [spinner]:
            assert all(reader.learned[n:])  # nothing on the table was known before
            confirm_lead(s)
        else:
            assert not any(reader.learned[n:])
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]


def test_a_bumped_camera_moves_no_tile_when_tracked_in_table_mm(tmp_path: Path) -> None:
    """Two readings of the same table before and after the camera is bumped: in pixels every
    tile moved; through the marker tracker (table mm) nothing did, and no notice is raised."""
    from calibration.bench import moved, renderer_case
    from calibration.plane import TablePlaneTracker

    base = renderer_case(102, degrade=False, hands=0, tilt_range=(12.0, 20.0), layout="line",
                         n_tiles=5, set_max=6, loose=0, boneyard=False)
    bumped = moved(base, d_height=150.0, d_tilt=8.0, d_rot=15.0)

    def truth_tiles(case):
        return [Seen(Tile.parse(t["tile"]), tuple(t["halves"]), tuple(map(tuple, t["corners"])))
                for t in case.truth["tiles"] if t["face_up"] and not t["cut"]]

    pixel_change = diff(truth_tiles(base), truth_tiles(bumped))
    assert len(pixel_change.moved) >= 3  # in pixels, most tiles moved

    s = _session(tmp_path)
    reader = ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2,
                    plane_tracker=TablePlaneTracker(base.layout, every_n=1))
    for case in (base, bumped):
        reader.table = truth_tiles(case)
        for _ in range(5):
            loop.process(case.image_bgr)
    assert loop.plane_status["state"] in ("moved", "steady")
    assert [a for a in s.state()["alerts"] if "moved" in a["message"]] == []
    assert loop.status()["accepted"] == 2


def test_flickering_readings_are_settled_by_majority(tmp_path: Path) -> None:
    """A reader that drops a different tile now and then still gives the table's tiles: the
    ones seen in most of three readings, not a phantom seen once."""
    s = _session(tmp_path)
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    phantom = tile_at(1, 1, 300, 300)

    class Flicker:
        reads_crops = True

        def __init__(self) -> None:
            self.k = 0
            self.script = [[spinner], [spinner, phantom], [spinner], [spinner, right],
                           [spinner], [spinner, right]]

        def read(self, frame_bgr, set_max, **_):
            tiles = self.script[min(self.k, len(self.script) - 1)]
            self.k += 1
            return _R(in_view(tiles, frame_bgr))

    loop = LiveLoop(s, Flicker(), gate=StillGate(still_frames=2), agree=2)
    table = _table()
    from vision.virtual_camera import add_hand
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))
    for f in [picture(table, [spinner])] * 6:  # reads: [5-5], [5-5 1-1], [5-5] -> [5-5]
        loop.process(f)
    confirm_lead(s)
    assert [h["text"] for h in s.history] == ["Ann plays 5-5"]
    # reads: [5-5 0-5], [5-5], [5-5 0-5] -> both
    for f in [hand] * 3 + [picture(table, [spinner, right])] * 6:
        loop.process(f)
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]


# --- agreement where the table changed, crops, re-arming -----------------------------------

class ScriptReader:
    """Reads, call after call, the tables of a script (the last one repeats); records the size
    of every picture it was given."""

    reads_crops = True

    def __init__(self, script) -> None:
        self.script, self.k, self.shapes = script, 0, []

    def read(self, frame_bgr, set_max, **_):
        tiles = self.script[min(self.k, len(self.script) - 1)]
        self.k += 1
        self.shapes.append(frame_bgr.shape[:2])
        return _R(in_view(tiles, frame_bgr))


def _two_plays(tmp_path: Path, second_reads, agree: int = 2, read_whole: bool = False):
    """Ann's 5-5 (read right twice), then Bob's 0-5 read as ``second_reads`` says, frame after
    frame; returns the session, the loop and the reader."""
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    s = _session(tmp_path)
    reader = ScriptReader([[spinner], [spinner]] + [list(r) for r in second_reads])
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=agree)
    loop.trace = []
    loop.read_whole = read_whole
    from vision.virtual_camera import add_hand
    table = _table(size=(1280, 720))  # a camera's frame: crops are a small part of it
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))
    for f in [picture(table, [spinner])] * 5:
        loop.process(f)
    confirm_lead(s)
    for f in [hand] * 3 + [picture(table, [spinner, right])] * 8:
        loop.process(f)
    return s, loop, reader


def _agreed(loop: LiveLoop) -> list[str]:
    return [e.detail["how"] for e in loop.trace if e.stage == "agreed"]


def test_a_single_frame_misread_of_the_new_tile_is_never_accepted(tmp_path: Path) -> None:
    """What agreement protects against: one frame in which the reader gets the new tile wrong
    (a pip misread: 0-5 read as 0-6; or the tile missed) never reaches the log or an alert:
    the tile counts only once two consecutive readings agree on it (or most of three do)."""
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    misread = tile_at(6, 0, 100 + W / 2 + L / 2 + 1, 100)
    for reads in ([[spinner, misread], [spinner, right], [spinner, right]],
                  [[spinner], [spinner, right], [spinner, right]],
                  [[spinner, right], [spinner, misread], [spinner, right]]):
        s, _, _ = _two_plays(tmp_path / str(len(list(tmp_path.iterdir()))), reads)
        assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]
        assert s.state()["alerts"] == []
    # the same misread in two frames in a row is what agreement cannot tell from the truth:
    # it counts (here the rules refuse 0-6 against the 5-5 and a person is asked)
    s, _, _ = _two_plays(tmp_path / "twice", [[spinner, misread], [spinner, misread]])
    assert [(a["kind"], a["entry"]["play"]) for a in s.state()["alerts"]] == [("illegal", "0-6")]


def test_flicker_on_unchanged_tiles_does_not_hold_up_the_new_one(tmp_path: Path) -> None:
    """A reader that keeps flickering on tiles that did not change (a phantom, the spinner
    missed now and then) used to need a majority of three readings of the whole table; only
    the changed region is compared now, so two readings settle the new tile, and the unchanged
    tiles keep their accepted reading."""
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    phantom = tile_at(1, 1, 400, 250)
    # whole frames, so the reader sees the far phantom (a crop would not even contain it)
    s, loop, reader = _two_plays(tmp_path, [[spinner, right, phantom], [spinner, right]],
                                 read_whole=True)
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]
    assert _agreed(loop) == ["agree", "agree"] and reader.k == 4  # two readings each
    assert {str(t.tile) for t in loop.baseline} == {"5-5", "0-5"}
    assert s.state()["alerts"] == []


def test_only_the_changed_region_is_read_after_the_first_reading(tmp_path: Path) -> None:
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    s, loop, reader = _two_plays(tmp_path, [[spinner, right], [spinner, right]])
    assert [h["text"] for h in s.history][-1] == "Bob plays 0-5 on 5-5"
    assert reader.shapes[0] == (720, 1280)  # nothing accepted yet: the whole frame
    crops = reader.shapes[2:]
    assert crops and all(h * w <= 0.25 * 720 * 1280 for h, w in crops)
    assert all(h >= 400 and w >= 400 for h, w in crops)  # not so small the reader rescales
    # the whole frame every time when asked to
    s, _, reader = _two_plays(tmp_path / "whole", [[spinner, right]], read_whole=True)
    assert [h["text"] for h in s.history][-1] == "Bob plays 0-5 on 5-5"
    assert set(reader.shapes) == {(720, 1280)}


def test_a_change_the_gate_did_not_see_is_read(tmp_path: Path) -> None:
    """The hand's frames were dropped while a reading ran: the gate saw a still table
    throughout, but the picture no longer matches the accepted one, so it is read again."""
    s = _session(tmp_path)
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    reader = ScriptedReader()
    # a gate that misses the change, as when the frames with the hand were dropped
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2, motion_threshold=0.05), agree=2)
    table = _table()
    reader.table = [spinner]
    for f in [picture(table, [spinner])] * 5:
        loop.process(f)
    confirm_lead(s)
    reader.table = [spinner, right]
    states = []
    for f in [picture(table, [spinner, right])] * 4:
        loop.process(f)
        states.append(loop.last_verdict["state"])
    assert "motion" not in states and "hand" not in states  # the gate saw nothing happen
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]


def test_a_change_crops_do_not_explain_is_read_again_whole(tmp_path: Path) -> None:
    """A reader that misses the new tile in the crop (it lies where the crop cut it, say):
    the picture changed but the agreed readings found nothing there, so the reference picture
    is kept and the change read again, as whole frames, a few frames later."""
    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)

    class CropBlind:
        reads_crops = True

        def __init__(self) -> None:
            self.table, self.shapes = [spinner], []

        def read(self, frame_bgr, set_max, **_):
            self.shapes.append(frame_bgr.shape[:2])
            whole = frame_bgr.shape[:2] == (720, 1280)
            return _R(in_view(self.table if whole else [spinner], frame_bgr))

    s = _session(tmp_path)
    reader = CropBlind()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    loop.trace = []
    from vision.virtual_camera import add_hand
    table = _table(size=(1280, 720))
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))
    for f in [picture(table, [spinner])] * 5:
        loop.process(f)
    confirm_lead(s)
    reader.table = [spinner, right]
    for f in [hand] * 3 + [picture(table, [spinner, right])] * 20:
        loop.process(f)
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5"]
    stages = [e.stage for e in loop.trace]
    assert "unexplained" in stages and "rearmed" in stages
    assert reader.shapes[-1] == (720, 1280)  # found by the whole frame


def test_a_corrected_tile_covered_by_a_new_tile_lets_the_new_one_be_read(tmp_path: Path,
                                                                           monkeypatch) -> None:
    """A person said the 0-9 read at a spot is really 8-9 (the camera misreads that tile): a
    0-9 read there later is taken as 8-9, unless its own outline changed (it was laid there
    just now, on the corrected tile): then it is the real 0-9, and that correction is not
    pinned again (the Stackernoes demo's 0-9 laid on the corrected 8-9 went unseen)."""
    loop = LiveLoop(_session(tmp_path), ScriptedReader(), gate=StillGate(still_frames=2), agree=2)
    monkeypatch.setattr(loop, "relabels", lambda: {Tile.of(0, 9): Tile.of(8, 9)})
    loop.baseline = [tile_at(8, 9, 100, 100)]
    again = tile_at(0, 9, 101, 100)
    elsewhere = tile_at(0, 9, 300, 100)
    # the corrected tile re-read the old way, where nothing changed: still 8-9
    out = loop._relabel([again, elsewhere], changed=lambda s: 0.0)
    assert [str(s.tile) for s in out] == ["8-9", "0-9"]
    # a 0-9 laid there now (its outline changed): read as it is
    out = loop._relabel([again], changed=lambda s: 0.9)
    assert [str(s.tile) for s in out] == ["0-9"]
    # and from then on that correction is not pinned again
    loop.baseline = [tile_at(8, 9, 100, 100), again]
    assert [str(s.tile) for s in loop._relabel([again], changed=lambda s: 0.0)] == ["0-9"]
    # without change information the pin still applies (a fresh loop)
    fresh = LiveLoop(_session(tmp_path / "b"), ScriptedReader(), gate=StillGate(still_frames=2),
                     agree=2)
    monkeypatch.setattr(fresh, "relabels", lambda: {Tile.of(0, 9): Tile.of(8, 9)})
    fresh.baseline = [tile_at(8, 9, 100, 100)]
    assert [str(s.tile) for s in fresh._relabel([again])] == ["8-9"]


def test_seat_memory_learns_who_reaches_in_over_which_side() -> None:
    """The plays logged for a change (by the camera or a person's answer) vote for their player
    at the side the hand came over; a side names a player after two plays, all or nearly all
    that player's, and a side two players reach over names nobody."""
    from companion.live import SeatMemory

    seats = SeatMemory()
    log: list[dict] = []

    def play(side, who, draw_first=False):
        seats.published(side, log)
        if draw_first:  # a draw typed on the tablet is no play
            log.append({"entry": {"player": who, "draw": 1}})
        log.append({"entry": {"player": who, "play": "1-2", "source": "correction"}})

    play("right", "Cy")
    assert seats.player_at("right") is None  # not settled until the next change
    play("top", "Bob", draw_first=True)
    assert seats.player_at("right") is None  # one play is not enough
    play("right", "Cy")
    play("bottom", "Ann")
    assert seats.player_at("right") == "Cy" and seats.player_at("top") is None
    play("top", "Ann")
    play("top", "Bob")
    play(None, "Ann")  # no hand seen: no vote
    seats.settle(log)
    assert seats.votes["top"] == {"Bob": 2, "Ann": 1} and seats.player_at("top") is None
    assert seats.player_at(None) is None and seats.player_at("left") is None


def test_a_confirmed_camera_play_of_another_value_than_read_relabels_that_tile(
        tmp_path: Path) -> None:
    """The interpreter proposed 5-6 for a tile read 0-5 (a glare spot) and a person confirmed
    it: like a correction, later readings of 0-5 at that spot are taken as 5-6 (a tile played
    on it later touches the 5-6 the log knows)."""
    s = _session(tmp_path)
    loop = LiveLoop(s, ScriptedReader(), gate=StillGate(still_frames=2), agree=2)
    assert s.submit({"player": "Ann", "play": "6-6"}).status == "accepted"
    entry = {"player": "Bob", "play": "5-6", "on": "6-6", "source": "camera",
             "confidence": 0.3, "reading": {"tile": "0-5", "halves": [5, 0]}}
    alert = s.submit(entry).alert
    s.confirm(alert.id)
    assert loop.relabels() == {Tile.of(0, 5): Tile.of(5, 6)}


def test_after_a_round_the_loop_knows_who_leads_from_the_side_their_hand_came(
        tmp_path: Path) -> None:
    """Ann reaches in over the bottom of the picture, Bob over the top. The first round's
    opener is asked (no seat known yet); its plays teach the seats, so the next round's
    opener, Ann's double laid from the bottom although the round starts at Bob's seat, is
    logged as Ann's without a question."""
    from vision.virtual_camera import add_hand

    s = Session.start(LogStore(tmp_path / "g.db"), "allfives", ["Ann", "Bob"])
    reader = ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    table = _table()
    sides = {"Ann": (0.5, 1.0), "Bob": (0.5, 0.0)}

    def lay(tiles, who):
        reader.table = list(tiles)
        for f in [add_hand(table, sides[who], (0.5, 0.5))] * 3 + [picture(table, tiles)] * 6:
            loop.process(f)

    spinner = tile_at(5, 5, 100, 100, vertical=True)
    right = tile_at(5, 0, 100 + W / 2 + L / 2 + 1, 100)
    left = tile_at(3, 5, 100 - W / 2 - L / 2 - 1, 100)
    far = tile_at(0, 2, 100 + W / 2 + L + L / 2 + 2, 100)
    lay([spinner], "Ann")
    confirm_lead(s)
    lay([spinner, right], "Bob")
    lay([spinner, right, left], "Ann")
    lay([spinner, right, left, far], "Bob")
    assert [h["entry"]["player"] for h in s.history] == ["Ann", "Bob", "Ann", "Bob"]
    assert loop.gate.reached_from == "top"
    assert s.submit({"end_round": {"hands": {"Ann": ["1-1"], "Bob": []}}}).status == "accepted"
    for f in [picture(table, [])] * 6:  # the table cleared for the next round
        reader.table = []
        loop.process(f)
    for a in list(s.alerts):
        s.dismiss(a.id)
    # round 2 starts at Bob's seat, but Ann holds the double: her hand comes from the bottom
    lay([tile_at(6, 6, 300, 200, vertical=True)], "Ann")
    assert s.history[-1]["text"] == "Ann plays 6-6" and s.alerts == [], s.alerts
    assert loop.seats.player_at("bottom") == "Ann" and loop.seats.player_at("top") == "Bob"


def test_capture_reopens_a_camera_whose_driver_raises_or_gives_no_picture() -> None:
    """A driver that raises an error of its own (not the project's) or hands back no picture
    (``(False, None)``, an empty array): the capture thread says so, reopens the camera and
    delivers its frames again; it does not die."""
    from vision.sources import Frame

    table = _table()

    class Flaky:
        description = "flaky camera"

        def __init__(self, fault: object) -> None:
            self.fault, self.n = fault, 0

        def read(self):
            self.n += 1
            if self.n == 2:
                if isinstance(self.fault, Exception):
                    raise self.fault
                return self.fault
            if self.n > 4:
                return None  # the end of the recording
            return Frame(table, self.n, float(self.n))

        def close(self) -> None:
            pass

    for fault in (RuntimeError("driver hiccup"), (False, None),
                  Frame(np.zeros((0, 0, 3), np.uint8), 2, 2.0)):
        opened: list = []

        def opener(fault=fault, opened=opened):
            opened.append(1)
            return Flaky(fault if len(opened) == 1 else None)

        cap = CaptureThread(opener, reconnect_s=0.01).start()
        deadline = time.monotonic() + 10
        while cap.status().state != "ended" and time.monotonic() < deadline:
            time.sleep(0.005)
        assert cap.status().state == "ended", (fault, cap.status())
        assert len(opened) == 2 and cap.reconnects == 1, fault
        cap.stop()


def test_capture_gives_up_a_camera_whose_read_never_returns() -> None:
    """A driver whose ``read()`` blocks (a network stream that hangs): after ``hung_s`` the
    watchdog says so, opens the camera anew in a fresh reader and frames come again; when the
    blocked read finally returns, its picture is thrown away and its camera is closed."""
    import threading

    from vision.sources import Frame

    table = _table()
    release = threading.Event()

    class Camera:
        description = "network camera"

        def __init__(self, hangs: bool) -> None:
            self.hangs, self.n, self.closed = hangs, 0, 0

        def read(self):
            self.n += 1
            if self.hangs and self.n == 2:
                release.wait(10)
                return Frame(np.zeros_like(table), 99, 99.0)  # stale: must not be delivered
            if self.n > 6:
                return None
            time.sleep(0.01)
            return Frame(table, self.n, float(self.n))

        def close(self) -> None:
            self.closed += 1

    opened: list = []

    def opener():
        opened.append(Camera(hangs=not opened))
        return opened[-1]

    cap = CaptureThread(opener, reconnect_s=0.01, hung_s=0.2).start()
    deadline = time.monotonic() + 10
    states = []
    while cap.status().state != "ended" and time.monotonic() < deadline:
        states.append(cap.status())
        time.sleep(0.005)
    hung = [st for st in states if st.state == "hung"]
    assert hung and "stopped answering" in hung[0].message and "network camera" in hung[0].message
    final = cap.status()
    assert final.state == "ended" and final.hangs == 1 and len(opened) == 2
    assert final.frames == 1 + 6 and opened[0].closed == 0  # the blocked one is still reading
    release.set()
    deadline = time.monotonic() + 5
    while not opened[0].closed and time.monotonic() < deadline:
        time.sleep(0.005)
    assert opened[0].closed == 1 and cap.status().frames == 7  # its late picture thrown away
    got = []
    while (frame := cap.get(timeout=0.05)) is not None:
        got.append(frame.index)
    assert 99 not in got
    cap.stop()
    assert opened[1].closed >= 1
    with pytest.raises(ValueError, match="hung_s"):
        CaptureThread(opener, hung_s=0)


def test_the_loop_goes_on_after_a_frame_that_fails() -> None:
    """A frame whose handling fails unexpectedly (here the reader raises once) is counted and
    said; the live thread goes on with the next frames instead of stopping without a word."""
    import tempfile
    from pathlib import Path

    table = _table()  # (its shape; textured below: a blank picture is not read)

    class OnceBroken:
        reads_crops = True

        def __init__(self) -> None:
            self.calls = 0

        def read(self, frame_bgr, set_max, **_):
            self.calls += 1
            if self.calls == 1:
                raise RuntimeError("reader hiccup")
            return _R(())

    table = np.random.default_rng(0).integers(60, 120, table.shape).astype(np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        s = Session.start(LogStore(Path(tmp) / "g.db"), "allfives", ["Ann", "Bob"])
        reader = OnceBroken()
        loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
        cam = VirtualCamera([table] * 5, fps=60.0, loop=True)
        cap = CaptureThread(lambda: cam).start()
        loop.start(cap)
        deadline = time.monotonic() + 10
        while reader.calls < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        loop.stop()
        cap.stop()
        assert reader.calls >= 3 and loop.stats.failed_frames == 1
        assert "reader hiccup" in loop.status()["frame_problem"]


def test_a_mug_put_down_over_a_tile_is_told_once_and_takes_nothing_off(tmp_path: Path) -> None:
    """Something that is not a tile put down over the tile Bob played while Cy plays on the
    other side of the spinner (the reader does not find Bob's tile under it): Cy's play is
    logged, the players are told once, through the session and the loop's events alike (it was
    passed on twice), and nothing is said to be taken off the table; lifted, the tile is where
    it lay."""
    import cv2
    from vision.virtual_camera import add_hand

    s = _session(tmp_path)
    reader = ScriptedReader()
    loop = LiveLoop(s, reader, gate=StillGate(still_frames=2), agree=2)
    events: list = []
    loop.on_event = lambda kind, what: events.append(what)
    table = _table()
    hand = add_hand(table, (0.5, 1.0), (0.5, 0.4))
    spinner = tile_at(5, 5, 300, 180, vertical=True)
    right = tile_at(5, 0, 300 + W / 2 + L / 2 + 1, 180)
    left = tile_at(2, 5, 300 - W / 2 - L / 2 - 1, 180)

    def show(tiles, picture_bgr):
        reader.table = list(tiles)
        for f in [hand] * 3 + [picture_bgr] * 6:
            loop.process(f)

    show([spinner], picture(table, [spinner]))
    confirm_lead(s)
    show([spinner, right], picture(table, [spinner, right]))
    events.clear()
    mug = picture(table, [spinner, right, left])
    cv2.circle(mug, (350, 180), 40, (40, 40, 160), -1)
    show([spinner, left], mug)
    assert [h["text"] for h in s.history][-1] == "Cy plays 2-5 on 5-5"
    told = [e["notice"] for e in events if "notice" in e]
    assert told == ["Something that is not a tile was put down over 0-5: the camera keeps it "
                    "where it lay but cannot see it until it is taken away."], events
    assert [a["message"] for a in s.state()["alerts"]] == told
    show([spinner, right, left], picture(table, [spinner, right, left]))
    assert [h["text"] for h in s.history] == ["Ann plays 5-5", "Bob plays 0-5 on 5-5",
                                              "Cy plays 2-5 on 5-5"]
    assert len([e for e in events if "notice" in e]) == 1
