"""The pooling-gate sweep reads rendered tuning scenes and leaves the detector as it was."""

from __future__ import annotations

import pytest

import vision.detect as detect
from vision.tune import TUNING_SEED, main, sweep


def test_sweep_gives_one_row_per_setting_and_restores_the_gate() -> None:
    before = detect.NET_MIN_SCORE, detect.SIZE_MATCH
    rows = sweep([0.5, 0.99], [0.15], scenes=1, seed=TUNING_SEED)
    assert [r["net_min_score"] for r in rows] == [0.5, 0.99]
    assert (detect.NET_MIN_SCORE, detect.SIZE_MATCH) == before
    for r in rows:
        assert 0.0 <= r["tiles_right"] <= r["recall"] <= 1.0
        assert 0.0 <= r["precision"] <= 1.0
    # a stricter gate keeps no more network-only tiles: recall cannot rise
    assert rows[1]["recall"] <= rows[0]["recall"]


def test_tuning_seeds_are_not_the_evaluation_seeds() -> None:
    from vision.evaluate import held_out_seed_min
    assert TUNING_SEED >= held_out_seed_min() + 500_000


def test_bad_arguments_name_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--scores", "high"])
    assert "numbers separated by commas" in capsys.readouterr().err
