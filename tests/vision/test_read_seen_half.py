"""A tile running out of the picture: the half still in it is read (``seen_half``)."""

from __future__ import annotations

import numpy as np

from vision.read import Reader, seen_halves
from vision.render import game_sequence, render_scene


def test_the_half_in_the_picture_of_a_cut_tile_is_read() -> None:
    """Stackernoes seed 4, frame 14: a 1-9 laid at the top edge shows its 9 half whole and a
    little of its 1 half. The reader still reports it cut, with no value, and reads the 9."""
    scene = render_scene(game_sequence(4, "stackernoes")[14].spec)
    reading = Reader().read(scene.image_bgr, 9)
    (cut,) = [t for t in reading.tiles if t.cut]
    assert cut.tile is None and cut.halves is None
    index, value, p = cut.seen_half
    assert value == 9 and p >= 0.9
    # the half read is the one inside the frame: its end of the outline is in the picture
    corners = np.asarray(cut.corners)
    end = corners[:2] if index == 0 else corners[2:]
    assert (end[:, 1] >= 0).all()


def test_a_tile_with_no_half_wholly_in_the_picture_has_none_read() -> None:
    """An outline mostly outside the frame (both halves cut) and one wholly inside (not cut)
    get no half read."""
    frame = np.full((100, 200, 3), 128, np.uint8)
    both_out = np.array([[-30.0, 40], [-30, 60], [10, 60], [10, 40]])  # 40 long, 20 wide
    inside = np.array([[50.0, 40], [50, 60], [90, 60], [90, 40]])
    assert seen_halves(frame, [both_out, inside], Reader().pips, 9) == [None, None]
