"""The light bench's changes of light and its bad input (the runs themselves are the demo's,
tested there; the gate under a change of light is tested in tests/vision/test_still.py)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.lightbench import LIGHTS, Light, main


def test_a_light_starts_at_its_frame_ramps_and_flickers() -> None:
    img = np.full((4, 4, 3), 100, np.uint8)
    dim = Light((0.5, 0.8, 1.0)).look(10)
    assert dim(9, img) is img
    assert tuple(dim(10, img)[0, 0]) == (50, 80, 100) == tuple(dim(500, img)[0, 0])
    drift = Light((0.5, 0.5, 0.5), ramp=4).look(0)
    assert [int(drift(k, img)[0, 0, 0]) for k in range(5)] == [87, 75, 62, 50, 50]
    flicker = Light((0.9, 0.9, 0.9), every=2).look(0)
    assert [int(flicker(k, img)[0, 0, 0]) for k in range(4)] == [90, 100, 90, 100]
    assert LIGHTS["warm"].look(5)(5, img) is img  # one frame later: on the hand frame
    assert tuple(LIGHTS["same"].look(0)(3, img)[0, 0]) == (100, 100, 100)


@pytest.mark.parametrize("argv, says", [
    (["--games", "poker"], "game poker unknown; choose from allfives"),
    (["--lights", "disco"], "light disco unknown; choose from same, dim"),
    (["--lights", ""], "light '' unknown"),
    (["--at", "-1"], "--at is a frame number, 0 or more, got -1"),
])
def test_bad_arguments_say_what_would_be_right(argv: list[str], says: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and says in capsys.readouterr().err


def test_uneven_lights_fall_off_across_the_picture() -> None:
    img = np.full((60, 80, 3), 100, np.uint8)
    side = LIGHTS["side"].look(0)(0, img)[..., 0].astype(int)
    assert side[30, 0] == 130 and side[30, -1] == 100  # the lamp at the left, none at the right
    assert (np.diff(side[30]) <= 0).all() and (side == side[:1]).all()  # same down each column
    shadow = LIGHTS["shadow"].look(0)(0, img)[..., 0].astype(int)
    assert shadow[-1, 36] == 65 and (shadow[0] == 100).all()  # dark at the bottom, none at the top
    assert (shadow[:, 36][1:] <= shadow[:, 36][:-1]).all()  # darker towards the one leaning in
    with pytest.raises(ValueError, match="light shape 'spot' unknown; use even, side or shadow"):
        Light((1.0, 1.0, 1.0), shape="spot").field(4, 4)
