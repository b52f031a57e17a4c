"""The reader's ``glint`` stage (vision.read.Reader.reread_glint, vision.read.DEGLARE_WASHED,
vision.read.READ_HIDDEN): a tile with a half under a blown-out glint is read again on squares
with the glint taken out (vision.halves.tile_crops_glinted), by the pip layouts that fit what
the glint leaves visible: one value that fits is read, several leave the tile doubtful."""

from __future__ import annotations

import numpy as np

import vision.read as read_mod
from tests.vision.test_halves import FIVE, LEFT_TO_RIGHT, TWO, draw_tile
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


# first half: a 6 in two lines of three along the tile, as the sets the classifier knows draw it
SIX_ALONG = [(222, 225), (250, 225), (278, 225), (222, 275), (250, 275), (278, 275)]


def test_a_pip_only_one_layout_fits_is_read_under_the_glint():
    """The glint hides the middle pip of one line of the 6: of the layouts, only the 6 fits the
    five pips left (a 4 or 5 would not show them so), so the half is read 6 as it was not
    before (the plain squares read 4), with what the glint showed as an alternative."""
    reader = read_mod.Reader()
    for face in ((196, 232, 240), (250, 250, 250)):
        frame = add_glare(draw_tile(face, (25, 25, 28), SIX_ALONG, FIVE),
                          (250 / 640, 222 / 480), 0.03)
        crops, washed = tile_crops_washed(frame, [LEFT_TO_RIGHT])
        seen = reader.pips.read_tiles(crops, 9, washed=washed)
        assert seen[0].halves == (4, 5)
        again = reader.reread_glint(frame, [LEFT_TO_RIGHT], seen, 9, washed)
        assert again[0].halves == (6, 5) and again[0].confidence > 0.8
        assert "4-5" in dict(again[0].alternatives)


def test_a_hidden_centre_leaves_the_tile_doubtful_between_the_values_that_fit():
    """The glint hides the middle of the 5: a 4 and a 5 fit what is left; the tile stays
    doubtful with both."""
    reader = read_mod.Reader()
    frame = add_glare(draw_tile((196, 232, 240), (25, 25, 28), TWO, FIVE),
                      (350 / 640, 250 / 480), 0.03)
    crops, washed = tile_crops_washed(frame, [LEFT_TO_RIGHT])
    again = reader.reread_glint(frame, [LEFT_TO_RIGHT],
                                reader.pips.read_tiles(crops, 9, washed=washed), 9, washed)
    read = {str(again[0].tile)} | set(dict(again[0].alternatives))
    assert {"2-4", "2-5"} <= read
    assert again[0].confidence < 0.9
