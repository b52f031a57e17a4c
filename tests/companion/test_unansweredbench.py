"""The unanswered-questions bench (``python -m companion.unansweredbench``): its truth (who laid
each tile, what the players enter on the tablet) and one sequence end to end with the real
reader."""

from __future__ import annotations

import pytest

from companion.unansweredbench import _truth, main, run_case
from vision.render import game_sequence


def test_the_truth_names_who_laid_each_tile_and_what_the_tablet_gets() -> None:
    """Super Dominoes, seed 0: the simulated game's players by tile, and its two draws entered
    by count with no pass (a draw ends the turn in Super); Chickenfoot's centre double is set
    out by the deal, no play; Stackernoes's draws that ended a turn get a pass."""
    plays, unseen, header = _truth(game_sequence(0, "super")[-1].spec.game)
    assert plays[:3] == [("Ann", "14-14"), ("Ann", "12-14"), ("Bob", "1-14")]
    assert [e for es in unseen for e in es] == [{"player": "Cy", "draw": 1},
                                                {"player": "Ann", "draw": 1}]
    assert list(header.players) == ["Ann", "Bob", "Cy"]
    plays, _, _ = _truth(game_sequence(0, "chickenfoot")[-1].spec.game)
    assert "9-9" not in [t for _, t in plays] and len(plays) == 12
    _, unseen, _ = _truth(game_sequence(0, "stackernoes")[-1].spec.game)
    assert unseen[1] == [{"player": "Bob", "draw": 1}, {"player": "Bob", "pass": True}]


def test_one_answer_logs_a_game_nobody_answered_by_the_true_players() -> None:
    """All Fives, seed 0, watched from its first tile with nobody answering: one answer (who
    led) logs all 13 plays in the true order by the true players."""
    row = run_case("allfives", 0)
    assert row["open_unanswered"] == 13 and row["logged_unanswered"] == 0
    assert (row["answers"], row["open_after"]) == (1, 0)
    assert row["logged"] == row["truth"] == row["player_right"] == 13


def test_a_bad_game_name_is_refused_with_the_choices(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["--game", "castlerock"])
    assert "allfives, chickenfoot, super, stackernoes" in capsys.readouterr().err
