"""One set in the picture (``Reader.read(..., one_set=True)``, ``read --one-set``, ``count
--one-set``): a value read twice is reported once, the surer tile kept, the other named in a
warning (vision.read.one_of_each)."""

from __future__ import annotations

import json

import pytest

from companion.tiles import Tile
from vision.read import Reader, one_of_each
from vision.types import TileReading


def _tile(text: str | None, x: float, confidence: float,
          alternatives: tuple[tuple[str, float], ...] = ()) -> TileReading:
    corners = ((x, 0.0), (x + 20.0, 0.0), (x + 20.0, 40.0), (x, 40.0))
    tile = None if text is None else Tile.parse(text)
    return TileReading(tile=tile, halves=None if tile is None else (tile.low, tile.high),
                       corners=corners, center=(x + 10.0, 20.0), angle=90.0,
                       confidence=confidence, alternatives=alternatives, cut=tile is None)


def test_the_surer_of_two_tiles_read_alike_is_kept_and_the_other_named() -> None:
    tiles = [_tile("0-3", 100, 0.84, (("0-5", 0.1), ("2-3", 0.03), ("1-4", 0.02))),
             _tile("1-4", 200, 0.99), _tile(None, 300, 0.0), _tile("3-0", 400, 0.999),
             _tile("1-4", 500, 0.6, (("1-5", 0.3),))]
    kept, warnings = one_of_each(tiles)
    assert kept == [tiles[1], tiles[2], tiles[3]]  # in their order; the cut tile stays
    assert len(warnings) == 2
    first = next(w for w in warnings if "0-3" in w)
    assert "a second 0-3 at (110, 20) (confidence 0.84) is left out" in first
    assert "the surer one at (410, 20) (confidence 1.00) is kept" in first
    # its likeliest values that no tile reads (1-4 is read: not offered)
    assert first.endswith("it may be 0-5 or 2-3")
    assert any(w.startswith("a second 1-4 at (510, 20)") and w.endswith("it may be 1-5")
               for w in warnings)


def test_tiles_read_once_each_are_all_kept() -> None:
    tiles = [_tile("0-0", 0, 0.5), _tile("0-1", 50, 0.9), _tile(None, 100, 0.0)]
    assert one_of_each(tiles) == (tiles, [])
    assert one_of_each([]) == ([], [])


@pytest.mark.slow
def test_a_rendered_one_set_scene_read_as_one_set_reports_its_misread_double_once() -> None:
    """Tuning scene 1,600,081 (held-out looks, one set): the plain reading reads 0-2 twice,
    the true 0-2 at 0.998 and a motion-blurred 0-5 at 0.69; read as one set, the 0-5's
    reading is left out with a warning and nothing else changes."""
    from vision.evaluate import rendered_scenes

    _, image, truth = next(rendered_scenes(1, 1_600_081))
    values = [Tile.parse(t["tile"]).plain() for t in truth["tiles"] if t.get("face_up")]
    assert len(values) == len(set(values))  # one set
    reader = Reader()
    plain = reader.read(image)
    alone = reader.read(image, one_set=True)
    twice = [t for t in plain.read_tiles if t.tile == Tile.parse("0-2")]
    assert len(twice) == 2
    assert [t.tile for t in alone.read_tiles if t.tile == Tile.parse("0-2")] == [Tile.parse("0-2")]
    assert len(alone.read_tiles) == len(plain.read_tiles) - 1
    assert any(w.startswith("a second 0-2") for w in alone.warnings)


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
