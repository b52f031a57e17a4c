"""The reader's ``cover`` stage (vision.read.Reader.reread_covered, vision.read.READ_COVERED): a
tile another tile rests on (the layer estimate's ``supports``) is read again with the upper
tile's outline hidden on its halves, by the pip layouts that fit what is left visible; it never
reads surer than it read whole."""

from __future__ import annotations

import numpy as np

import vision.read as read_mod
from companion.tiles import Tile
from tests.vision.test_halves import LEFT_TO_RIGHT
from tests.vision.test_halves_covered import UPPER, covered_frame
from vision.layers import LayeredTileReading
from vision.pips import PipReader
from vision.types import Reading


def _tile(corners: np.ndarray, halves: tuple[int, int], confidence: float,
          supports: tuple[int, ...] = (), layer: int = 0) -> LayeredTileReading:
    q = np.asarray(corners, float)
    return LayeredTileReading(tile=Tile.of(*halves), halves=halves, corners=tuple(map(tuple, q)),
                              center=tuple(q.mean(axis=0)), angle=0.0, layer=layer,
                              confidence=confidence, half_confidences=(confidence, 1.0),
                              supports=supports)


def _reading(lower_read: tuple[int, int], confidence: float, on_it: bool = True) -> Reading:
    lower = _tile(LEFT_TO_RIGHT, lower_read, confidence)
    upper = _tile(UPPER, (3, 3), 0.99, supports=(0,) if on_it else (), layer=int(on_it))
    return Reading((lower, upper), 640, 480)


def test_a_half_mostly_under_another_tile_is_read_unsurely():
    reader = read_mod.Reader(pip_reader=PipReader(classifier=None))
    # read whole, the 5's half took in the upper tile's pips: read surely as something else
    reading = _reading((2, 3), 0.97)
    again = reader.reread_covered(covered_frame(), reading, 9)
    lower, upper = again.tiles
    assert upper is reading.tiles[1]  # the upper tile is left as it is
    assert lower.corners == reading.tiles[0].corners and lower.layer == 0
    assert lower.halves[0] == 2  # the uncovered half keeps its value
    assert lower.confidence < 0.9  # a half a quarter visible is never sure
    assert lower.half_confidences[1] < 0.9
    assert lower.alternatives  # the other values it may hold are offered


def test_a_covered_tile_never_reads_surer_than_it_read_whole():
    reader = read_mod.Reader(pip_reader=PipReader(classifier=None))
    reading = _reading((2, 5), 0.3)
    again = reader.reread_covered(covered_frame(), reading, 9)
    assert again.tiles[0].confidence <= 0.3


def test_tiles_no_tile_rests_on_are_left_as_they_are():
    reader = read_mod.Reader(pip_reader=PipReader(classifier=None))
    reading = _reading((2, 3), 0.97, on_it=False)
    assert reader.reread_covered(covered_frame(), reading, 9) is reading


def test_the_reader_runs_the_stage_and_times_it():
    frame = covered_frame()
    reading = read_mod.Reader(pip_reader=PipReader(classifier=None)).read(frame, 9)
    assert read_mod.READ_COVERED
    assert reading.tiles and "cover" in reading.timings_ms
