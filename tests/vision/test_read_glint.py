"""The reader's ``glint`` stage (vision.read.Reader.reread_glint, vision.read.DEGLARE_WASHED): a
tile with a half under a blown-out glint is read again on squares with the glint taken out
(vision.halves.tile_crops_deglared), and stays doubtful."""

from __future__ import annotations

import numpy as np

import vision.read as read_mod
from tests.vision.test_halves import FIVE, LEFT_TO_RIGHT, draw_tile
from vision.halves import tile_crops_washed
from vision.pips import PipReader, TileValue
from vision.virtual_camera import add_glare

# first half: a 6 in two rows of three across the tile (the outer row near x = 225)
SIX = [(225, 222), (225, 250), (225, 278), (275, 222), (275, 250), (275, 278)]


def _glinted(face: tuple[int, int, int]) -> np.ndarray:
    """The 6-5 tile with a glint blowing out the middle pip of the 6's outer row."""
    return add_glare(draw_tile(face, (25, 25, 28), SIX, FIVE), (218 / 640, 250 / 480), 0.045)


def test_a_glinted_half_is_read_again_with_its_hidden_pip_and_stays_doubtful():
    for face in ((196, 232, 240), (250, 250, 250)):  # ivory; white exposed near the top
        frame = _glinted(face)
        reader = read_mod.Reader(pip_reader=PipReader(classifier=None))
        crops, washed = tile_crops_washed(frame, [LEFT_TO_RIGHT])
        assert washed[0] > 0.1 and washed[1] == 0.0
        seen = reader.pips.read_tiles(crops, 9, washed=washed)
        assert seen[0].halves == (5, 5), "the glint should hide one pip of the 6"
        again = reader.reread_glint(frame, [LEFT_TO_RIGHT], seen, 9, washed)
        assert again[0].halves == (6, 5)
        assert again[0].confidence < 0.9  # a half under a glint is never sure
        assert "5-5" in dict(again[0].alternatives)  # what it showed stays an alternative


def test_tiles_without_a_glint_are_not_read_again():
    frame = draw_tile((196, 232, 240), (25, 25, 28), SIX, FIVE)
    reader = read_mod.Reader(pip_reader=PipReader(classifier=None))
    kept = TileValue((6, 5), 0.97, (0.98, 0.99), ())
    assert reader.reread_glint(frame, [LEFT_TO_RIGHT], [kept], 9, np.zeros(2))[0] is kept
    assert reader.reread_glint(frame, [LEFT_TO_RIGHT], [kept], 9, None)[0] is kept
