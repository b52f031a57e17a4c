"""The still-gate bench (``python -m vision.render.gatebench``): what it counts, and that the
gate sees and places the hands of a rendered game."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from vision.render.gatebench import (SLEEVE_BGR, at_reach, entry_side, hand_case, main,
                                     sleeved)
from vision.render.scene import HandSpec, render_scene


def test_entry_side_reads_the_border_the_arm_comes_over() -> None:
    assert entry_side((0.4, 1.0)) == "bottom"
    assert entry_side((0.4, 0.0)) == "top"
    assert entry_side((0.0, 0.3)) == "left"
    assert entry_side((1.0, 0.3)) == "right"


def test_a_hand_the_gate_reads_through_is_counted_unseen() -> None:
    """A 'hand' of the table's own colour changes nothing the gate can see: it reads the table
    with the hand in view, so the case is not seen and names no side; a hand of another colour
    from the left is seen and placed on the left."""
    table = np.full((360, 640, 3), (60, 160, 60), np.uint8)
    after = table.copy()
    cv2.rectangle(after, (300, 160), (340, 180), (235, 235, 235), -1)
    ghost = after.copy()
    cv2.rectangle(ghost, (0, 150), (300, 200), (60, 160, 60), -1)
    assert hand_case(table, [ghost] * 15, after, "left") == {"seen": False, "named": None,
                                                             "side": "none"}
    hand = after.copy()
    cv2.rectangle(hand, (0, 150), (300, 200), (60, 100, 180), -1)
    times: list[float] = []
    assert hand_case(table, [hand] * 15, after, "left", times=times) == {
        "seen": True, "named": "left", "side": "right"}
    assert len(times) == 5 + 15 + 5


def test_the_bench_on_a_rendered_all_fives_game(capsys) -> None:
    """All Fives seed 0 (12 hands): every hand seen and placed on its side (measured 12 of 12;
    with the gate of session 29, grey and by border pixels, 10 of 12)."""
    assert main(["--game", "allfives", "--seeds", "0", "--misses"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"game": "allfives", "seed": 0, "hands": 12, "seen": 12, "right": 12,
                        "wrong": 0, "none": 0}
    total = lines[-1]["total"]
    assert total["hands"] == 12 and total["ms_per_frame"] > 0


def test_bad_seeds_are_refused_with_the_forms_expected(capsys) -> None:
    for bad in ("zero", "5-2"):  # not numbers; an empty range (nothing would be measured)
        with pytest.raises(SystemExit):
            main(["--seeds", bad])
        assert "expected a range A-B with A <= B (0-5) or a comma list (0,3,7)" in \
            capsys.readouterr().err


def test_the_arm_coming_in_is_drawn_short_of_its_tip() -> None:
    arm = HandSpec(entry=(0.0, 0.5), tip=(0.6, 0.3), width_px=40.0, skin_bgr=(60, 100, 180))
    half = at_reach(arm, 0.5)
    assert half.entry == arm.entry and half.tip == pytest.approx((0.3, 0.4))
    assert half.width_px == arm.width_px and half.skin_bgr == arm.skin_bgr


def test_bad_reaches_are_refused_with_the_form_expected(capsys) -> None:
    for bad in ("half", "0.5,1.5", "0"):
        with pytest.raises(SystemExit):
            main(["--coming-in", bad])
        assert "expected fractions of the arm's reach between 0 and 1" in capsys.readouterr().err


def test_a_sleeved_arm_is_cloth_from_the_border_and_skin_at_the_hand() -> None:
    """``--sleeves``: the arm is drawn in the sleeve's colour near the border it comes over and
    in skin at the hand; without a sleeve the arm is skin all along (the default, unchanged)."""
    from vision.render import random_scene_spec

    base = random_scene_spec(3, size=(320, 180), hands=0, layout="loose", n_tiles=2)
    arm = HandSpec(entry=(0.0, 0.5), tip=(0.7, 0.5), width_px=40.0, skin_bgr=(60, 100, 180))
    clothed = sleeved(arm, np.random.default_rng(0))
    assert clothed.sleeve_bgr in SLEEVE_BGR and 0.6 <= clothed.sleeve_to <= 1.0
    clothed = HandSpec(arm.entry, arm.tip, arm.width_px, arm.skin_bgr, (200, 30, 30), 0.9)
    bare_img, sleeve_img = (render_scene(dataclasses.replace(base, hands=(h,))).image_bgr
                            for h in (arm, clothed))
    near, at_hand = sleeve_img[90, 20].astype(int), sleeve_img[90, 200].astype(int)
    assert near[0] > near[2] + 60  # blue cloth by the border
    assert at_hand[2] > at_hand[0] + 60  # skin (red over blue) at the hand
    assert bare_img[90, 20].astype(int)[2] > bare_img[90, 20].astype(int)[0] + 60


def test_a_table_and_a_skin_can_be_chosen_for_every_hand() -> None:
    """``--table wood:3 --skin 0``: every frame of the sequence on the light wood and every arm
    pale, the pairing a seed seldom draws; the table of each frame is replaced, nothing else."""
    from vision.render.gatebench import on_table
    from vision.render.sequence import game_sequence

    spec = game_sequence(0, "allfives")[1].spec
    moved = on_table(spec, ("wood", 3))
    assert (moved.table_family, moved.table_variant) == ("wood", 3)
    assert dataclasses.replace(moved, table_family=spec.table_family,
                               table_variant=spec.table_variant) == spec
    assert on_table(spec, None) is spec


def test_bad_tables_and_skins_are_refused_with_the_forms_expected(capsys) -> None:
    for flag, bad, expected in (("--table", "oak", "expected FAMILY or FAMILY:VARIANT"),
                                ("--table", "wood:x", "wood:3, the light wood"),
                                ("--skin", "9", "expected an index 0-5 into the rendered skins"),
                                ("--skin", "pale", "0 and 5 are the palest")):
        with pytest.raises(SystemExit):
            main([flag, bad])
        assert expected in capsys.readouterr().err


@pytest.mark.parametrize("game, seed, frame, table, skin", [
    ("super", 0, 11, ("wood", 3), 0),  # the palest skin over the light wood
    ("allfives", 0, 13, ("wood", 1), 4),  # the darkest skin over the dark wood
])
def test_a_rendered_arm_of_nearly_the_tables_colour_is_seen(game: str, seed: int, frame: int,
                                                            table: tuple[str, int],
                                                            skin: int) -> None:
    """An arm of nearly the table's colour (gatebench ``--table wood:3 --skin 0`` and
    ``--table wood:1 --skin 4``): the pale arm of Super seed 0's hand frame 11 differs from the
    wood by more than the gate's ``pixel_delta`` on about half its pixels (measured 51 %), the
    dark arm of All Fives seed 0's frame 13 on fewer, in patches that do not reach the border.
    The gate read the table with them in view; it now sees each arm whole and places it at the
    bottom, where it came in."""
    from vision.render.gatebench import on_table
    from vision.render.sampling import SKIN_BGR
    from vision.render.sequence import game_sequence

    frames = game_sequence(seed, game)
    arm = dataclasses.replace(frames[frame].spec.hands[0], skin_bgr=SKIN_BGR[skin])
    hand = render_scene(on_table(dataclasses.replace(frames[frame].spec, hands=(arm,)), table))
    before, after = (render_scene(on_table(frames[j].spec, table)).image_bgr
                     for j in (frame - 1, frame + 1))
    assert entry_side(arm.entry) == "bottom"
    assert hand_case(before, [hand.image_bgr] * 15, after, "bottom") == {
        "seen": True, "named": "bottom", "side": "right"}
