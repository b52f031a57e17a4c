"""The read pipeline and the read/count commands: good photos, bad inputs, JSON schema."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest
import reader_synth as synth

from companion.cli import main
from vision import read as read_mod
from vision.halves import tile_crops_washed
from vision.pips import PipReader
from vision.read import ImageError, Reader, check_image, load_image


@pytest.fixture(scope="module")
def reader():
    return Reader(PipReader(classifier=None))


@pytest.fixture(scope="module")
def table_png(tmp_path_factory):
    img = synth.table(640, 400, seed=11)
    synth.draw_tile(img, (150, 150), 0, 34, (2, 6))
    synth.draw_tile(img, (400, 220), 60, 34, (5, 1))
    synth.draw_tile(img, (636, 80), 0, 34, (3, 3))   # runs out of the picture
    path = tmp_path_factory.mktemp("read") / "table.png"
    cv2.imwrite(str(path), img)
    return path


def test_reads_tiles_and_flags_the_cut_one(reader, table_png):
    r = reader.read_file(table_png)
    assert sorted(str(t.tile) for t in r.read_tiles) == ["1-5", "2-6"]
    cut = [t for t in r.tiles if t.cut]
    assert len(cut) == 1 and cut[0].tile is None
    assert any("run out of the picture" in w for w in r.warnings)
    assert set(r.timings_ms) >= {"load", "check", "detect", "crop", "pips", "total"}
    assert "refine" not in r.timings_ms  # outlines are re-read only with the classifier
    assert (r.width, r.height) == (640, 400)


def test_learned_layers_false_leaves_the_learned_cue_out(reader, table_png, monkeypatch):
    """``Reader.read(..., learned_layers=False)`` (a caller that watched the table being built)
    estimates the layers without the learned cue; by default the cue is in."""
    import vision.layers as layers_mod

    asked: list[bool] = []
    real = layers_mod.estimate_layers

    def spy(*args, **kwargs):
        asked.append(kwargs.get("learned", True))
        return real(*args, **kwargs)

    monkeypatch.setattr(layers_mod, "estimate_layers", spy)
    img = cv2.imread(str(table_png))
    reader.read(img)
    reader.read(img, learned_layers=False)
    assert asked == [True, False]


def test_large_photo_is_read_at_reduced_scale_with_corners_in_original_pixels(reader):
    img = synth.table(2560, 1600, seed=12)
    quad = synth.draw_tile(img, (800, 600), 30, 80, (4, 6))
    r = reader.read(img)
    (t,) = r.tiles
    assert str(t.tile) == "4-6"
    assert np.allclose(np.array(t.center), quad.mean(axis=0), atol=6)


def _write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


BAD_FILES = [
    ("missing.png", None, "no such file"),
    ("empty.png", b"", "the file is empty"),
    ("text.png", b"hello, not a picture", "not an image"),
    ("half.png", cv2.imencode(".png", np.zeros((50, 50, 3), np.uint8))[1].tobytes()[:40],
     "not an image"),
]


@pytest.mark.parametrize("name,data,message", BAD_FILES)
def test_bad_files_give_clear_errors(tmp_path, name, data, message):
    path = tmp_path / name if data is None else _write(tmp_path, name, data)
    with pytest.raises(ImageError, match=message):
        load_image(path)


def test_folder_is_not_a_photo(tmp_path):
    with pytest.raises(ImageError, match="is not a file"):
        load_image(tmp_path)


@pytest.mark.parametrize("frame,message", [
    ("a string", "expected a numpy image array"),
    (np.zeros((40, 40, 3), np.float32), "expected 8-bit pixels"),
    (np.zeros((40, 40, 2), np.uint8), r"expected shape \(H, W, 3\)"),
    (np.zeros((8, 8, 3), np.uint8), "too small to hold a tile"),
])
def test_bad_frames_give_clear_errors(frame, message):
    with pytest.raises(ImageError, match=message):
        check_image(frame)


def test_enormous_image_is_refused_above_the_stated_limit(monkeypatch):
    monkeypatch.setattr(read_mod, "MAX_PIXELS", 100 * 100)
    with pytest.raises(ImageError, match="megapixel limit"):
        check_image(np.zeros((101, 100, 3), np.uint8))


@pytest.mark.parametrize("level,word", [(0, "all black"), (255, "all white"), (128, "one flat")])
def test_blank_image_gives_empty_reading_with_warning(reader, level, word):
    r = reader.read(np.full((120, 160, 3), level, np.uint8))
    assert r.tiles == () and any(word in w for w in r.warnings)


def test_blank_means_the_whole_image_spreads_less_than_the_blank_range():
    flat = np.full((720, 1280, 3), 40, np.uint8)
    assert read_mod.is_blank(flat)
    flat[0, 0] = 40 + read_mod.BLANK_RANGE - 1
    assert read_mod.is_blank(flat)
    flat[1, 1, 2] = 40 + read_mod.BLANK_RANGE  # one pixel, off the sparse sample's grid
    assert not read_mod.is_blank(flat)
    noisy = np.random.default_rng(3).integers(0, 255, (100, 100, 3), dtype=np.uint8)
    assert not read_mod.is_blank(noisy)


def test_empty_table_gives_empty_reading_with_warning(reader):
    r = reader.read(synth.table(320, 240, seed=13))
    assert r.tiles == () and r.warnings


def test_grayscale_frame_is_accepted(reader):
    img = synth.table(300, 200, seed=14)
    synth.draw_tile(img, (150, 100), 0, 30, (1, 4))
    r = reader.read(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert [str(t.tile) for t in r.tiles] == ["1-4"]


def test_set_max_is_checked(reader):
    with pytest.raises(ImageError, match="set_max"):
        reader.read(synth.table(100, 100), set_max=16)


def test_read_json_schema(table_png, capsys):
    assert main(["read", str(table_png), "--json", "--set", "6"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"tiles", "warnings", "width", "height", "timings_ms"}
    for t in data["tiles"]:
        assert set(t) >= {"tile", "halves", "corners", "center", "angle", "layer", "confidence",
                          "cut"}
        assert len(t["corners"]) == 4 and all(len(p) == 2 for p in t["corners"])
        assert t["layer"] == 0 and 0 <= t["confidence"] <= 1
        if not t["cut"]:
            a, b = t["halves"]
            assert t["tile"] == f"{min(a, b)}-{max(a, b)}"


def test_count_prints_tiles_and_pip_total(table_png, capsys):
    assert main(["count", str(table_png), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(data["tiles"]) == ["1-5", "2-6"]
    assert data["pips"] == 14 and data["complete"] is False


def test_count_of_a_photo_with_no_tile_is_not_a_sure_empty_hand(tmp_path, capsys):
    """A lens cap or the bare table: 0 pips, but not complete and not sure, saying why."""
    import cv2

    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((240, 320, 3), np.uint8))
    assert main(["count", str(black), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["tiles"], data["pips"], data["complete"], data["confidence"]) == ([], 0, False,
                                                                                   0.0)
    assert any("no tile was found" in w for w in data["warnings"])


@pytest.mark.parametrize("command", ["read", "count"])
def test_commands_on_bad_input_exit_2_with_a_message(tmp_path, capsys, command):
    bad = _write(tmp_path, "x.jpg", b"not a jpeg")
    assert main([command, str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not an image" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["read", "count"])
def test_commands_refuse_a_set_that_does_not_exist_and_name_the_real_ones(table_png, capsys,
                                                                          command):
    with pytest.raises(SystemExit) as stop:
        main([command, str(table_png), "--set", "4"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 4" in err and "6, 9, 12, 15" in err and "Traceback" not in err


@pytest.mark.parametrize("ext", [".png", ".jpg"])
def test_header_size_is_read_before_decoding(tmp_path, ext):
    img = np.zeros((30, 70, 3), np.uint8)
    data = cv2.imencode(ext, img)[1].tobytes()
    from vision.read import header_size
    assert header_size(data) == (70, 30)


def test_enormous_png_is_refused_from_its_header(tmp_path):
    # a valid PNG signature and IHDR claiming 100000 x 100000 pixels, nothing after it
    import struct
    import zlib
    ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    path = _write(tmp_path, "huge.png", b"\x89PNG\r\n\x1a\n" + chunk)
    with pytest.raises(ImageError, match="100000x100000 px .* megapixel limit"):
        load_image(path)


@pytest.fixture(scope="module")
def shipped_reader():
    return Reader()  # the shipped classifier pooled with the classical reader


@pytest.mark.parametrize("slide", [0.0, 0.2, 0.3, 0.35, 0.4])
def test_an_outline_slid_along_its_chain_still_reads_right(shipped_reader, slide):
    """Three tiles end to end; the middle one's outline slid towards its neighbour by up to
    0.4 of its width (16 px here), as the detector finds touching tiles: read at the slid
    outline alone it can come out 4-6 or 7-6; read again at moved outlines it is 3-6, and a
    tile whose first reading was wrong stays doubtful (below the companion's 0.9)."""
    img = synth.table(420, 160, seed=5)
    width = 40
    outlines = [synth.draw_tile(img, (90 + 80.5 * i, 80), 0, width, v, face=(190, 215, 225))
                for i, v in enumerate([(2, 5), (3, 6), (1, 4)])]
    slid = outlines[1] + np.array([slide * width, 0.0])
    crops, washed = tile_crops_washed(img, [slid])
    (first,) = shipped_reader.pips.read_tiles(crops, 9, washed=washed)
    (again,) = shipped_reader.refine(img, [slid], [first], 9)
    assert again.halves == (3, 6)
    if first.halves != (3, 6):
        assert again.confidence < 0.9
    if first.confidence >= read_mod.REFINE_BELOW:
        assert again == first  # a confident tile is not read again


def test_refine_keeps_a_tile_whose_moved_outlines_leave_the_frame(shipped_reader):
    img = synth.table(82, 60, seed=2)  # the tile spans x 1..81: pushed out 6 px, an end leaves
    outline = synth.draw_tile(img, (41, 30), 0, 40, (1, 2))
    crops, washed = tile_crops_washed(img, [outline])
    (first,) = shipped_reader.pips.read_tiles(crops, 6, washed=washed)
    doubtful = dataclasses.replace(first, confidence=0.5)
    (again,) = shipped_reader.refine(img, [outline], [doubtful], 6)
    assert str(again.tile) == "1-2"


def test_refine_reads_again_only_the_least_confident_tiles(shipped_reader, monkeypatch):
    img = synth.table(420, 160, seed=5)
    outlines = [synth.draw_tile(img, (90 + 80.5 * i, 80), 0, 40, v, face=(190, 215, 225))
                for i, v in enumerate([(2, 5), (3, 6), (1, 4)])]
    slid = [q + np.array([14.0, 0.0]) for q in outlines[:2]]
    crops, washed = tile_crops_washed(img, slid)
    first = shipped_reader.pips.read_tiles(crops, 9, washed=washed)
    doubtful = [dataclasses.replace(first[0], confidence=0.6),
                dataclasses.replace(first[1], confidence=0.5)]
    monkeypatch.setattr(read_mod, "REFINE_MAX_TILES", 1)
    again = shipped_reader.refine(img, slid, doubtful, 9, washed)
    assert again[0] is doubtful[0]  # the surer one is left as it was
    assert again[1] is not doubtful[1] and again[1].halves == (3, 6)


def _found(outlines: list[np.ndarray]):
    from vision.detect import Detection, TileCandidate

    return Detection([TileCandidate(np.asarray(q, float), False, 1.0, "light") for q in outlines],
                     40.0)


@pytest.mark.parametrize("check", [True, False])
def test_a_tile_slid_onto_the_wrong_divider_is_read_at_its_unslid_outline(
        shipped_reader, monkeypatch, check):
    """Three tiles end to end, found where they are; the outline fit slides the middle one 0.4
    of its width onto its neighbour (as the divider search can on a pip row or a groove).
    With :data:`vision.read.CHECK_SLIDES` the reader also reads it unslid, keeps that surer
    reading and reports that outline; without, it reports the slid outline."""
    from vision.outline import Fit

    img = synth.table(420, 160, seed=5)
    width = 40
    outlines = [synth.draw_tile(img, (90 + 80.5 * i, 80), 0, width, v, face=(190, 215, 225))
                for i, v in enumerate([(2, 5), (3, 6), (1, 4)])]
    along = (outlines[1][2] + outlines[1][3] - outlines[1][0] - outlines[1][1]) / 2
    push = 0.4 * width * along / np.hypot(*along)

    def slide_the_middle(frame, found):
        fits = [Fit(np.asarray(q, float), 0.0, 0.5) for q in found]
        fits[1] = Fit(fits[1].corners + push, 0.0, 0.5, 0.4 * width)
        return fits

    monkeypatch.setattr(read_mod, "detect_tiles", lambda work: _found(outlines))
    monkeypatch.setattr(read_mod, "fit_outlines", slide_the_middle)
    monkeypatch.setattr(read_mod, "CHECK_SLIDES", check)
    reading = shipped_reader.read(img, 9)
    middle = reading.tiles[1]
    reported = np.asarray(middle.corners)
    if check:
        assert str(middle.tile) == "3-6" and middle.confidence >= 0.9
        assert np.allclose(reported, outlines[1], atol=1e-6)
    else:
        assert np.allclose(reported, outlines[1] + push, atol=1e-6)
    assert [str(t.tile) for t in (reading.tiles[0], reading.tiles[2])] == ["2-5", "1-4"]


class _ShortlistStub:
    """A pip reader whose moved outlines read ``moved`` (every tile's, whatever the squares)."""

    note = None
    uses_classifier = True

    def __init__(self, moved):
        self.moved = moved

    def read_shortlist(self, crops, owners, set_max=15, washed=None, keep=2):
        return {int(i): list(self.moved) for i in set(owners)}


def _value(halves, confidence):
    from vision.pips import TileValue

    return TileValue(halves, confidence, (confidence, 1.0), ())


@pytest.mark.parametrize("moved_confidence, expected", [(0.95, 0.6), (0.999, 0.999)])
def test_refine_makes_a_tile_surer_only_where_a_moved_outline_reads_it_very_surely(
        moved_confidence, expected):
    """:data:`vision.read.REFINE_SURE`: two moved outlines reading the tile's own value less
    surely than it leave its confidence as its own outline gave it; very sure ones raise it."""
    img = synth.table(200, 120, seed=3)
    outline = synth.draw_tile(img, (100, 60), 0, 40, (2, 5))
    stub = _ShortlistStub([_value((2, 5), moved_confidence)] * 2)
    (again,) = Reader(pip_reader=stub).refine(img, [outline], [_value((2, 5), 0.6)], 9)
    assert again.halves == (2, 5)
    assert again.confidence == pytest.approx(expected)


def test_refine_may_change_a_value_without_raising_its_confidence():
    """Moved outlines that agree on another value, fairly surely (under
    :data:`vision.read.REFINE_SURE`), give the tile that value at no more than its own
    outline's confidence."""
    img = synth.table(200, 120, seed=3)
    outline = synth.draw_tile(img, (100, 60), 0, 40, (2, 5))
    stub = _ShortlistStub([_value((3, 5), 0.95)] * 2)
    (again,) = Reader(pip_reader=stub).refine(img, [outline], [_value((2, 5), 0.3)], 9)
    assert again.halves == (3, 5)
    assert again.confidence == pytest.approx(0.3)
    assert "2-5" in dict(again.alternatives)
