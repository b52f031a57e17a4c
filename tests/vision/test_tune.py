"""The gate sweep reads rendered tuning scenes and leaves the detector as it was."""

from __future__ import annotations

import pytest

import vision.detect as detect
from vision.tune import GATES, TUNING_SEED, main, sweep


def test_sweep_gives_one_row_per_setting_and_restores_the_gates() -> None:
    before = {n: getattr(detect, n) for n in GATES}
    rows = sweep({"NET_LOW_SCORE": [0.5, 0.99], "SIZE_LOW": [0.6]}, scenes=1, seed=TUNING_SEED)
    assert [(r["NET_LOW_SCORE"], r["SIZE_LOW"]) for r in rows] == [(0.5, 0.6), (0.99, 0.6)]
    assert {n: getattr(detect, n) for n in GATES} == before
    for r in rows:
        assert 0.0 <= r["tiles_right"] <= r["recall"] <= 1.0
        assert 0.0 <= r["precision"] <= 1.0
    # a gate no network tile passes leaves only what the face map's grid cover finds
    assert rows[1]["recall"] < rows[0]["recall"]


def test_sweep_refuses_a_constant_that_is_not_a_gate() -> None:
    with pytest.raises(ValueError, match="NET_LOW_SCORE"):
        sweep({"MODE": [1.0]}, scenes=1, seed=TUNING_SEED)


def test_tuning_seeds_are_not_the_evaluation_seeds() -> None:
    from vision.evaluate import held_out_seed_min
    assert TUNING_SEED >= held_out_seed_min() + 500_000


def test_bad_arguments_name_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--scores", "high"])
    assert "numbers separated by commas" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--size-low", ","])
    assert "at least one number" in capsys.readouterr().err


def test_sweep_sets_and_restores_the_tile_finders_split_constants() -> None:
    import vision.tile_finder as tile_finder
    before = (tile_finder.FIT_SPLIT, tile_finder.FIT_COVER)
    rows = sweep({"FIT_SPLIT": [0.0, 1.0], "FIT_COVER": [0.7]}, scenes=1, seed=TUNING_SEED)
    assert [(r["FIT_SPLIT"], r["FIT_COVER"]) for r in rows] == [(0.0, 0.7), (1.0, 0.7)]
    assert (tile_finder.FIT_SPLIT, tile_finder.FIT_COVER) == before
    assert isinstance(tile_finder.FIT_SPLIT, bool)


def test_sweep_sets_and_restores_the_larger_pass_constants() -> None:
    import vision.tile_finder as tile_finder
    before = (tile_finder.ZOOM_WIDTH, tile_finder.ZOOM_TARGET)
    rows = sweep({"ZOOM_WIDTH": [0.0, 18.0], "ZOOM_TARGET": [22.0]}, scenes=1, seed=TUNING_SEED)
    assert [(r["ZOOM_WIDTH"], r["ZOOM_TARGET"]) for r in rows] == [(0.0, 22.0), (18.0, 22.0)]
    assert (tile_finder.ZOOM_WIDTH, tile_finder.ZOOM_TARGET) == before


def test_sweep_sets_and_restores_the_session_8_switches() -> None:
    import vision.tile_finder as tile_finder
    before = (detect.LARGE_SPLIT_ONLY, detect.INNER_SCORE, tile_finder.FACE_RESCUE)
    rows = sweep({"LARGE_SPLIT_ONLY": [0.0], "INNER_SCORE": [1.01], "FACE_RESCUE": [0.0, 1.0]},
                 scenes=1, seed=TUNING_SEED)
    assert [(r["LARGE_SPLIT_ONLY"], r["INNER_SCORE"], r["FACE_RESCUE"]) for r in rows] == [
        (0.0, 1.01, 0.0), (0.0, 1.01, 1.0)]
    assert (detect.LARGE_SPLIT_ONLY, detect.INNER_SCORE, tile_finder.FACE_RESCUE) == before
    assert isinstance(detect.LARGE_SPLIT_ONLY, bool) and isinstance(tile_finder.FACE_RESCUE, bool)
