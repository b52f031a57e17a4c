"""One set in the picture (``Reader.read(..., one_set=True)``, ``read --one-set``, ``count
--one-set``): a value read twice is reported once, the surer tile kept, the other read as a
value no tile reads or left out, with a warning (vision.read.one_of_each)."""

from __future__ import annotations

import json

import pytest

from companion.tiles import Tile
from vision.read import Reader, one_of_each
from vision.types import TileReading


def _tile(text: str | None, x: float, confidence: float,
          alternatives: tuple[tuple[str, float], ...] = (),
          halves: tuple[int, int] | None = None,
          half_confidences: tuple[float, float] = (0.0, 0.0)) -> TileReading:
    corners = ((x, 0.0), (x + 20.0, 0.0), (x + 20.0, 40.0), (x, 40.0))
    tile = None if text is None else Tile.parse(text)
    if tile is not None and halves is None:
        halves = (tile.low, tile.high)
    return TileReading(tile=tile, halves=halves, corners=corners, center=(x + 10.0, 20.0),
                       angle=90.0, confidence=confidence, half_confidences=half_confidences,
                       alternatives=alternatives, cut=tile is None)


def test_of_tiles_read_alike_the_surest_is_kept_and_each_other_read_as_a_free_value() -> None:
    a = _tile("0-3", 100, 0.84, (("1-4", 0.1), ("0-5", 0.05), ("2-3", 0.03)))
    b = _tile("1-4", 200, 0.99)
    c = _tile(None, 300, 0.0)
    d = _tile("3-0", 400, 0.999)
    e = _tile("1-4", 500, 0.6, (("0-5", 0.3), ("1-5", 0.2)), halves=(4, 1))
    f = _tile("1-4", 600, 0.4, (("0-3", 0.1),))
    kept, warnings = one_of_each([a, b, c, d, e, f])
    assert [None if t.tile is None else str(t.tile) for t in kept] == [
        "0-5", "1-4", None, "0-3", "1-5"]  # in their order; f has no free value: left out
    assert kept[1] is b and kept[2] is c and kept[3] is d
    # a: its likeliest value no tile reads (1-4 is read), at that value's probability; its old
    # value leads its alternatives
    assert kept[0].halves == (0, 5) and kept[0].confidence == pytest.approx(0.05)
    assert kept[0].alternatives == (("0-3", 0.84), ("2-3", 0.03))
    # e: 0-5 went to the surer a, so 1-5; its 1 stays at its end
    assert kept[4].halves == (5, 1) and kept[4].confidence == pytest.approx(0.2)
    assert warnings == [
        "a second 0-3 at (110, 20) (confidence 0.84) is read as 0-5 instead, its likeliest "
        "value that no tile reads (probability 0.05): one set holds one 0-3, and the surer one "
        "at (410, 20) (confidence 1.00) is kept",
        "a second 1-4 at (510, 20) (confidence 0.60) is read as 1-5 instead, its likeliest "
        "value that no tile reads (probability 0.20): one set holds one 1-4, and the surer one "
        "at (210, 20) (confidence 0.99) is kept",
        "a second 1-4 at (610, 20) (confidence 0.40) is left out: one set holds one 1-4, and "
        "the surer one at (210, 20) (confidence 0.99) is kept; no other value fits it"]


def test_a_double_read_again_keeps_its_surer_half_where_it_was() -> None:
    """A 2-2 that is 2-3: the 3 goes where the reading was less sure."""
    sure = _tile("2-2", 0, 0.99)
    for half_conf, want in (((0.6, 0.95), (3, 2)), ((0.95, 0.6), (2, 3))):
        again = _tile("2-2", 100, 0.5, (("2-3", 0.4),), half_confidences=half_conf)
        kept, _ = one_of_each([sure, again])
        assert kept[1].halves == want
        # the half kept as it was keeps its confidence; the changed one gets the new value's
        assert sorted(kept[1].half_confidences) == pytest.approx([0.4, max(half_conf)])


def test_tiles_read_once_each_are_all_kept() -> None:
    tiles = [_tile("0-0", 0, 0.5), _tile("0-1", 50, 0.9), _tile(None, 100, 0.0)]
    assert one_of_each(tiles) == (tiles, [])
    assert one_of_each([]) == ([], [])


@pytest.mark.slow
def test_a_rendered_one_set_scene_read_as_one_set_reads_its_misread_double_right() -> None:
    """Tuning scene 1,600,081 (held-out looks, one set): the plain reading reads 0-2 twice,
    the true 0-2 at 0.998 and a motion-blurred 0-5 at 0.69; read as one set, that tile is read
    as 0-5 (its likeliest value no tile reads), unsure, with a warning; nothing else changes."""
    from vision.evaluate import rendered_scenes

    _, image, truth = next(rendered_scenes(1, 1_600_081))
    values = [Tile.parse(t["tile"]).plain() for t in truth["tiles"] if t.get("face_up")]
    assert len(values) == len(set(values)) and Tile.parse("0-5") in values  # one set
    reader = Reader()
    plain = reader.read(image)
    alone = reader.read(image, one_set=True)
    assert [t.tile for t in plain.read_tiles].count(Tile.parse("0-2")) == 2
    assert Tile.parse("0-5") not in [t.tile for t in plain.read_tiles]
    got = [t.tile for t in alone.read_tiles]
    assert got.count(Tile.parse("0-2")) == 1 and got.count(Tile.parse("0-5")) == 1
    assert len(got) == len(plain.read_tiles)
    five = next(t for t in alone.read_tiles if t.tile == Tile.parse("0-5"))
    assert five.confidence < 0.5 and five.alternatives[0][0] == "0-2"
    assert any(w.startswith("a second 0-2") and "read as 0-5" in w for w in alone.warnings)


def test_read_and_count_take_one_set(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The flag reaches the reader from both commands (a photo without doubles reads the
    same either way)."""
    import cv2

    from companion.cli import main
    from tests.vision.reader_synth import draw_tile, table

    canvas = table(640, 360)
    draw_tile(canvas, (200, 180), 0.0, 60.0, (2, 5))
    draw_tile(canvas, (440, 180), 0.0, 60.0, (1, 3))
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), canvas)
    assert main(["read", str(photo), "--json", "--one-set", "--set", "6"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert sorted(t["tile"] for t in read["tiles"]) == ["1-3", "2-5"]
    assert main(["count", str(photo), "--json", "--one-set", "--set", "6"]) == 0
    counted = json.loads(capsys.readouterr().out)
    assert sorted(counted["tiles"]) == ["1-3", "2-5"] and counted["pips"] == 11


def test_a_rendered_scene_is_one_set_unless_its_tiles_carry_set_colours() -> None:
    from vision.evaluate import one_set_scene

    assert one_set_scene({"tiles": [{"tile": "0-1", "colour": ""}, {"tile": "1-1"}]})
    assert not one_set_scene({"tiles": [{"tile": "red:0-1", "colour": "red"},
                                        {"tile": "blue:0-1", "colour": "blue"}]})
    assert one_set_scene({})
