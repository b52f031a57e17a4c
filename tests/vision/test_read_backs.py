"""The reader leaves out a tile the detector flags as a face-down back and that reads blank on
both halves (vision.detect.TileCandidate.back, vision.read.DROP_BACKS), after its size rules; a
flagged tile that shows pips is kept (a glint can wash out a divider)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import reader_synth as synth

import vision.read as read_mod
from vision.detect import detect_tiles
from vision.pips import PipReader


@pytest.mark.parametrize("drop", [True, False])
def test_a_blank_tile_flagged_as_a_back_is_left_out(monkeypatch: pytest.MonkeyPatch,
                                                    drop: bool) -> None:
    img = synth.table(640, 400, seed=11)
    synth.draw_tile(img, (150, 150), 0, 34, (2, 6))
    synth.draw_tile(img, (400, 220), 60, 34, (5, 1))
    synth.draw_tile(img, (250, 320), 0, 34, (0, 0))
    reader = read_mod.Reader(PipReader(classifier=None))
    assert sorted(str(t.tile) for t in reader.read(img).read_tiles) == ["0-0", "1-5", "2-6"]

    def flagged(image: np.ndarray):  # the same detection with every tile flagged a back
        found = detect_tiles(image)
        return dataclasses.replace(found, tiles=[dataclasses.replace(c, back=True)
                                                 for c in found.tiles])

    monkeypatch.setattr(read_mod, "detect_tiles", flagged)
    monkeypatch.setattr(read_mod, "DROP_BACKS", drop)
    kept = sorted(str(t.tile) for t in reader.read(img).read_tiles)
    assert kept == (["1-5", "2-6"] if drop else ["0-0", "1-5", "2-6"])
