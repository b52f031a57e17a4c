"""vision.detect helpers: ink_maps_of (the light and dark maps of face_maps) and _reference_sizes_at."""

import numpy as np

from vision.detect import face_maps, ink_maps_of


def test_ink_maps_equal_face_maps_light_and_dark() -> None:
    rng = np.random.default_rng(7)
    frame = rng.integers(0, 256, size=(48, 64, 3), dtype=np.uint8)
    got, full = ink_maps_of(frame), face_maps(frame)
    assert set(got) == {"light", "dark"}
    for name in got:
        assert got[name].dtype == np.uint8 and np.array_equal(got[name], full[name])
    assert np.array_equal(got["light"], frame.min(axis=2))
    assert np.array_equal(got["dark"], 255 - frame.max(axis=2))


def _same(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def _brute_reference_sizes(tiles, least):
    """The rule of vision.detect._reference_sizes written out tile by tile."""
    from vision.detect import NEIGHBOURS, _sides

    whole = [t for t in tiles if not t.cut]
    out = []
    for t in tiles:
        if len(whole) <= least:
            out.append(None)
            continue
        c = t.corners.mean(axis=0)
        dist = np.array([np.linalg.norm(c - w.corners.mean(axis=0)) for w in whole])
        dist[dist <= 1e-6] = np.inf
        nearest = np.argsort(dist)[:min(NEIGHBOURS, len(whole))]
        ok = [i for i in nearest if np.isfinite(dist[i])]
        out.append(None if len(ok) < least
                   else np.median(np.array([_sides(whole[i].corners) for i in ok]), axis=0))
    return out


def test_reference_sizes_at_equals_one_least_at_a_time() -> None:
    from vision.detect import TileCandidate, _reference_sizes, _reference_sizes_at

    rng = np.random.default_rng(8)
    for n in range(12):
        tiles = []
        for _ in range(n):
            c = rng.uniform(0, 500, 2)
            w, length = rng.uniform(20, 40), rng.uniform(40, 80)
            quad = c + np.array([[-length, -w], [-length, w], [length, w], [length, -w]]) / 2
            tiles.append(TileCandidate(quad, bool(rng.random() < 0.3), 0.5, "light"))
        if n > 2:
            tiles.append(TileCandidate(tiles[0].corners.copy(), False, 0.5, "light"))  # a twin
        leasts = (1, 3)
        got = _reference_sizes_at(tiles, leasts)
        for least, row in zip(leasts, got):
            want = _brute_reference_sizes(tiles, least)
            assert all(_same(a, b) for a, b in zip(_reference_sizes(tiles, least), want))
            assert len(row) == len(want) == len(tiles)
            for a, b in zip(row, want):
                assert _same(a, b)
