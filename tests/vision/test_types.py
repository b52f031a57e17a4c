"""The Observation types validate their fields and turn into plain JSON."""

from __future__ import annotations

import json

import pytest

from companion.tiles import Tile
from vision.types import Reading, TileReading, VisionTypeError

CORNERS = [[0, 0], [0, 10], [20, 10], [20, 0]]


def _tile(**kw):
    args = dict(tile=Tile.of(3, 5), halves=(5, 3), corners=CORNERS, center=(10, 5), angle=-90,
                confidence=0.9, half_confidences=(0.95, 0.95), alternatives=[("5-6", 0.05)])
    args.update(kw)
    return TileReading(**args)


def test_valid_reading_round_trips_to_json():
    t = _tile()
    assert t.angle == 270.0 and t.corners[2] == (20.0, 10.0)
    r = Reading((t,), 640, 480, ("note",), {"detect": 1.5})
    data = json.loads(json.dumps(r.to_json()))
    assert data["tiles"][0]["tile"] == "3-5" and data["tiles"][0]["halves"] == [5, 3]
    assert data["tiles"][0]["alternatives"] == [{"tile": "5-6", "p": 0.05}]
    assert data["width"] == 640 and data["warnings"] == ["note"]


@pytest.mark.parametrize("kw,message", [
    ({"corners": [[0, 0], [1, 1]]}, "corners: expected 4 points"),
    ({"corners": [[0, 0], [0, "a"], [1, 1], [2, 2]]}, r"corners\[1\]: expected a point"),
    ({"center": (float("nan"), 1)}, "center: expected finite"),
    ({"angle": "north"}, "angle: expected degrees"),
    ({"layer": -1}, "layer: expected an integer >= 0"),
    ({"confidence": 1.5}, "confidence: expected a number in 0..1"),
    ({"half_confidences": (0.5,)}, "half_confidences: expected 2 numbers"),
    ({"halves": (5, 4)}, "do not make tile 3-5"),
    ({"halves": (5, 16)}, "halves: expected two pip values"),
    ({"tile": "3-5"}, "tile: expected a companion.tiles.Tile"),
    ({"alternatives": [("3-5",)]}, r"alternatives\[0\]: expected \(tile text, probability\)"),
    ({"cut": True}, "a cut tile is not read"),
    ({"seen_half": (0, 5, 0.9)}, "seen_half: expected .* on a cut tile"),
])
def test_bad_fields_say_what_was_expected(kw, message):
    with pytest.raises(VisionTypeError, match=message):
        _tile(**kw)


def test_cut_tile_has_no_value():
    t = TileReading(tile=None, halves=None, corners=CORNERS, center=(10, 5), angle=0, cut=True)
    assert t.to_json()["tile"] is None and t.to_json()["cut"] is True
    assert t.to_json()["seen_half"] is None
    half = TileReading(tile=None, halves=None, corners=CORNERS, center=(10, 5), angle=0,
                       cut=True, seen_half=(1, 4, 0.97))
    assert half.to_json()["seen_half"] == [1, 4, 0.97]
    for bad in ((2, 4, 0.9), (0, 16, 0.9), (0, 4, 1.5)):
        with pytest.raises(VisionTypeError, match="seen_half"):
            TileReading(tile=None, halves=None, corners=CORNERS, center=(10, 5), angle=0,
                        cut=True, seen_half=bad)


@pytest.mark.parametrize("kw,message", [
    ({"tiles": ("x",)}, r"tiles\[0\]: expected a TileReading"),
    ({"width": 0}, "width: expected a positive integer"),
    ({"timings_ms": {"detect": "fast"}}, "timings_ms"),
])
def test_bad_reading_fields(kw, message):
    args = dict(tiles=(), width=10, height=10)
    args.update(kw)
    with pytest.raises(VisionTypeError, match=message):
        Reading(**args)


def test_alternative_texts_are_canonical_every_time_and_bad_ones_always_fail() -> None:
    from companion.tiles import TileParseError
    from vision import types as vt

    for _ in range(2):  # the second time from the remembered texts
        r = TileReading(tile=Tile.of(3, 5), halves=(3, 5), corners=CORNERS, center=(5.0, 2.5),
                        angle=0.0, alternatives=(("5-3", 0.1), ("red:4-2", 0.05)))
        assert r.alternatives == (("3-5", 0.1), (str(Tile.parse("red:2-4")), 0.05))
    assert vt._TILE_TEXT["5-3"] == "3-5"
    for _ in range(2):
        with pytest.raises(TileParseError, match="3/5"):
            TileReading(tile=Tile.of(3, 5), halves=(3, 5), corners=CORNERS, center=(5.0, 2.5),
                        angle=0.0, alternatives=(("3/5", 0.1),))
    assert "3/5" not in vt._TILE_TEXT
