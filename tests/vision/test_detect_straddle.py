"""Outlines that straddle two touching tiles are replaced by the two (vision.detect._unstraddled)."""
import numpy as np
import pytest

import vision.detect as D
from vision.evaluate import _poly_iou, rendered_scenes


def test_free_share_counts_face_outside_other_tiles():
    face = np.zeros((20, 20), bool)
    face[:, :10] = True  # face on the left half
    others = np.zeros((20, 20), bool)
    others[:10, :] = True  # another tile over the top half
    square = np.array([[0, 0], [0, 20], [20, 20], [20, 0]], float) - 0.5
    assert D._free_share(square, face, others, np.array([0, 0])) == pytest.approx(0.25, abs=0.03)
    assert D._free_share(square, face, np.zeros_like(others), np.array([0, 0])) \
        == pytest.approx(0.5, abs=0.03)
    off = square + 100.0  # wholly outside the region: no share at all
    assert D._free_share(off, face, others, np.array([0, 0])) == 0.0


def _matches(det, truth, names):
    tiles = {g["tile"]: np.asarray(g["corners"], float) for g in truth["tiles"]
             if g.get("face_up")}
    return {n: max((_poly_iou(np.asarray(t.corners, float), tiles[n]) for t in det.tiles),
                   default=0.0) for n in names}


def test_a_straddler_at_a_bend_becomes_its_two_tiles(monkeypatch):
    """Tuning scene 1,600,121: the kernels of a 3-15 and a 3-13 meeting at a bend ran together
    into one tile-shaped blob, an outline over the 3 halves of both (read 3-3 at 1.0). Replaced
    by the two tiles, each matches its true tile; without the check neither does."""
    _, img, truth = next(rendered_scenes(1, 1_600_121))
    got = {}
    for on in (False, True):
        monkeypatch.setattr(D, "STRADDLE_SPLIT", on)
        got[on] = _matches(D.detect_tiles(img), truth, ("3-15", "3-13"))
    assert all(v < 0.5 for v in got[False].values()), got
    assert all(v >= 0.5 for v in got[True].values()), got
