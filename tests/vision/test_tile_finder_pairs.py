"""A single blob shaped like two tiles side by side is flagged split (vision.tile_finder._flag_pairs)."""
import numpy as np

import vision.detect as D
import vision.tile_finder as TF
from vision.evaluate import _poly_iou, rendered_scenes


def _tile(cx: float, cy: float, width: float, length: float) -> TF.FoundTile:
    """An upright tile (corners 0-1 at the top short end) centred at (cx, cy)."""
    w, h = width / 2, length / 2
    quad = np.array([[cx - w, cy - h], [cx + w, cy - h], [cx + w, cy + h], [cx - w, cy + h]])
    return TF.FoundTile(quad, False, 0.9)


def test_a_tile_twice_as_wide_and_squat_is_flagged_a_tile_nearer_the_camera_is_not():
    tiles = [_tile(x, 0, 20, 40) for x in (0, 30, 60, 90)]
    tiles += [_tile(150, 0, 40, 54),   # two side by side: twice as wide, 1.35 as long, squat
              _tile(220, 0, 32, 64),   # larger all over (nearer the camera): 2:1
              _tile(280, 0, 40, 42)]   # twice as wide but no longer: not a pair
    ids = set(range(len(tiles)))
    singles = [(t.corners.mean(axis=0), TF._sides_of(t.corners)) for t in tiles]
    TF._flag_pairs(tiles, ids, singles)
    assert [t.split for t in tiles] == [False] * 4 + [True, False, False]


def test_two_side_by_side_tiles_run_together_are_found_apart(monkeypatch):
    """Tuning scene 1,600,157: the kernels of a 2-7 and a 4-7 lying side by side ran together
    into one tile-shaped blob across both. Flagged, the picture is worked larger and both tiles
    are found; without the flag neither is."""
    _, img, truth = next(rendered_scenes(1, 1_600_157))
    tiles = {g["tile"]: np.asarray(g["corners"], float) for g in truth["tiles"]}
    got = {}
    for wide in (0.0, TF.PAIR_WIDE):
        monkeypatch.setattr(TF, "PAIR_WIDE", wide)
        det = D.detect_tiles(img)
        got[wide] = [max((_poly_iou(np.asarray(t.corners, float), tiles[n]) for t in det.tiles),
                         default=0.0) for n in ("2-7", "4-7")]
    assert all(v < 0.5 for v in got[0.0]), got
    assert all(v >= 0.5 for v in got[TF.PAIR_WIDE]), got
