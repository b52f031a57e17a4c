"""The bench of things put down on the table (companion.propbench): where it puts them, its bad
input, and one run end to end (a mug over Chickenfoot tiles)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.demo import recording_path
from companion.propbench import _camera_steps, main, place_prop, run_case
from vision.render.recording import load_recording


@pytest.mark.parametrize("where", ["over", "beside"])
def test_a_thing_is_put_over_a_tile_that_stays_or_clear_of_every_tile(where: str) -> None:
    rec = load_recording(recording_path("allfives"))
    cams = _camera_steps(rec)
    first, last = cams[10], cams[14]
    prop = place_prop(rec, "mug", where, first, last, np.random.default_rng(3))
    assert prop is not None
    tiles = [np.asarray(p.center_mm) for p in rec.steps[first].tiles]
    nearest = min(float(np.hypot(*(t - np.asarray(prop.center_mm)))) for t in tiles)
    if where == "over":
        assert nearest < 30.0  # a third of a tile length from a tile's centre
    else:
        assert nearest > 42.0 + 50.0  # clear of every tile by more than a tile length


@pytest.mark.parametrize("argv, says", [
    (["--games", "poker"], "game poker unknown; choose from allfives"),
    (["--kinds", "vase"], "kind vase unknown; choose from can, mug, pad, phone"),
    (["--places", "under"], "place under unknown; choose from over, beside"),
    (["--steps", "0"], "--steps is a number of camera steps, 1 or more, got 0"),
    (["--games", "allfives", "--at", "999"], "--at 999 is not a camera step of allfives"),
])
def test_bad_arguments_say_what_would_be_right(argv: list[str], says: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and says in capsys.readouterr().err


@pytest.mark.slow
def test_a_mug_over_chickenfoot_tiles_is_no_tile_taken_away() -> None:
    """Put down over tiles and taken away four plays later: the game ends at its true scores,
    every play seen by the camera, the players told once that the tiles under it are out of
    sight (before: each tile under it was said to be taken off the table)."""
    row = run_case("chickenfoot", "mug", "over")
    assert row["matches_truth"] and row["missed"] == 0, row
    assert not any("taken off the table" in t for t in row["told"]), row["told"]
    assert sum("Something that is not a tile was put down over" in t for t in row["told"]) == 1
