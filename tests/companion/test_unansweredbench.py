"""The unanswered-questions bench (``python -m companion.unansweredbench``): its truth (who laid
each tile, what the players enter on the tablet) and one sequence end to end with the real
reader."""

from __future__ import annotations

import json

import pytest

from companion.unansweredbench import _happened, _truth, main, run_case
from vision.render import game_sequence


def test_the_truth_names_who_laid_each_tile_and_what_the_tablet_gets() -> None:
    """Super Dominoes, seed 0: the simulated game's players by tile, and its two draws entered
    by count with no pass (a draw ends the turn in Super); Chickenfoot's centre double is set
    out by the deal, no play; Stackernoes's draws that ended a turn get a pass, and the passes
    stand among the plays in the order they were made."""
    plays, unseen, header, _ = _truth(game_sequence(0, "super")[-1].spec.game)
    assert plays[:3] == [("Ann", "14-14"), ("Ann", "12-14"), ("Bob", "1-14")]
    assert [e for es in unseen for e in es] == [{"player": "Cy", "draw": 1},
                                                {"player": "Ann", "draw": 1}]
    assert list(header.players) == ["Ann", "Bob", "Cy"]
    plays, _, _, _ = _truth(game_sequence(0, "chickenfoot")[-1].spec.game)
    assert "9-9" not in [t for _, t in plays] and len(plays) == 12
    _, unseen, _, events = _truth(game_sequence(0, "stackernoes")[-1].spec.game)
    assert unseen[1] == [{"player": "Bob", "draw": 1}, {"player": "Bob", "pass": True}]
    assert events[:3] == [("Ann", "3-3"), ("Bob", "pass"), ("Cy", "3-9")]


def test_the_person_takes_only_an_explanation_that_happened() -> None:
    """An answer naming what came before it is taken when those passes and plays (draws left
    out), then the answer, follow one another in the true game."""
    events = [("Ann", "3-3"), ("Bob", "pass"), ("Cy", "3-9"), ("Ann", "1-9")]
    told = {"player": "Cy", "play": "9-3"}
    assert _happened(dict(told, before=[{"player": "Bob", "draw": 1},
                                        {"player": "Bob", "pass": True}]), events)
    assert not _happened(dict(told, before=[{"player": "Bob", "play": "1-9"}]), events)
    assert not _happened(told, events)
    # right after what is logged: Cy's 3-9 after Bob's pass is the account that goes on from
    # a log holding Ann's 3-3, not from an empty one (Ann's 3-3 is left out)
    passed = dict(told, before=[{"player": "Bob", "pass": True}])
    assert _happened(passed, events, 1) and not _happened(passed, events, 0)
    assert _happened(dict(told, before=[{"player": "Ann", "play": "3-3"},
                                        {"player": "Bob", "pass": True}]), events, 0)


def test_one_answer_logs_a_game_nobody_answered_by_the_true_players() -> None:
    """All Fives, seed 0, watched from its first tile with nobody answering: one answer (who
    led) logs all 13 plays in the true order by the true players."""
    row = run_case("allfives", 0)
    assert row["open_unanswered"] == 13 and row["logged_unanswered"] == 0
    assert (row["answers"], row["open_after"]) == (1, 0)
    assert row["logged"] == row["truth"] == row["player_right"] == 13


def test_a_game_watched_from_mid_game_is_put_right_by_telling_the_missed_pass() -> None:
    """Stackernoes, seed 0, watched from its fifth tile: Bob's draw and pass before the second
    tile were never entered, so the turn the camera guessed was a seat off. Answering who laid
    the second tile, the person takes the refusal's "Bob drew and passed" and every play is
    then logged by the true player (before: 1 of 16)."""
    row = run_case("stackernoes", 4)
    assert row["open_after"] == 0 and row["answers"] <= 6
    assert row["logged"] == row["truth"] == row["player_right"] == 16


def test_answered_at_once_with_the_passes_never_entered(capsys: pytest.CaptureFixture) -> None:
    """``--prompt --forget-passes``: the person answers each question as it shows and nobody
    enters a pass; All Fives from its first tile (no pass in it) is logged whole by the true
    players with the one answer about who led."""
    assert main(["--game", "allfives:0", "--prompt", "--forget-passes"]) == 0
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (row["answers"], row["logged"], row["player_right"]) == (1, 13, 13)


def test_a_bad_game_name_is_refused_with_the_choices(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["--game", "castlerock"])
    assert "allfives, chickenfoot, super, stackernoes" in capsys.readouterr().err


def test_a_blank_double_without_a_divider_and_a_tall_stack_are_followed() -> None:
    """Stackernoes, seed 1: its first tile is a 0-0 of a set without divider lines (only its
    spinner pin shows), taken for a face-down back and dropped; the 2-4 laid on a stack of six
    is seen off its cells by parallax. Before session 25: 41 answers, 4 of 16 plays logged.
    Now the 0-0 is read where it touches the 0-8, the first question offers "Ann laid the 0-0
    first" (the other order), the 2-4 is placed by the tiles it lies on: one answer logs all
    16 plays by the true players."""
    row = run_case("stackernoes", 0, seed=1)
    assert row["open_after"] == 0 and row["answers"] <= 2
    assert row["logged"] == row["truth"] == row["player_right"] == 16


def test_a_play_held_behind_a_misread_tile_is_logged_on_the_tile_answered() -> None:
    """Stackernoes seed 9: a 3-3 at level 5 is misread 0-2 (a play the rules refuse there), and
    the 3-9 laid on it is proposed on level 5, the level the stack reached without it. Once a
    person corrects the 0-2 to the 3-3, the held 3-9 is logged on level 6 without a tap: the
    whole game in the true order by the true players, in four answers: those two, and since
    session 29 two plays right after a draw (Ann's 0-3, Cy's 3-8), asked whether the drawer
    passed because the hand's seat is not known for sure then (``drew_doubt``)."""
    r = run_case("stackernoes", 0, 9)
    assert (r["logged"], r["truth"], r["player_right"], r["answers"]) == (16, 16, 16, 4)
