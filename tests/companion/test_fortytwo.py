"""Forty-Two rules: bidding, trump, follow suit, tricks, count, scoring, match end, reneges.

Known-answer vectors (the seed's worked examples and constructed cases) live in
tests/data/known_answers/fortytwo.json.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import (
    IllegalMoveError,
    MoveFormatError,
    OptionError,
    PlayersError,
)
from companion.games.fortytwo import FortyTwo, count_points
from companion.games.tricks import (
    TRUMP,
    follows,
    is_trump,
    rank_in,
    suit_led,
    trick_winner,
)
from companion.moves import Move
from companion.tiles import Tile, full_set, parse_tiles

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "known_answers"
                   / "fortytwo.json").read_text())
PLAYERS = ["Ann", "Bob", "Cy", "Dee"]

# Ann holds every 0 (trumps when 0 is named); Bob leads 2-4 in most tests below.
DEAL = {
    "Ann": ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
    "Bob": ["2-4", "1-1", "1-2", "1-3", "1-5", "2-2", "2-3"],
    "Cy": ["1-4", "1-6", "2-5", "2-6", "3-3", "3-5", "3-6"],
    "Dee": ["3-4", "4-4", "4-5", "4-6", "5-5", "5-6", "6-6"],
}


def apply_all(game: FortyTwo, entries: list[dict[str, Any]]) -> list:
    events = []
    for entry in entries:
        events += game.apply(Move.from_json(entry))
    return events


def bob_wins_bid(trump: int | str = 0, deal: dict | None = DEAL, bid: int = 30,
                 options: dict | None = None) -> FortyTwo:
    game = FortyTwo(PLAYERS, options)
    log: list[dict[str, Any]] = [{"deal": deal}] if deal is not None else []
    log += [{"player": "Bob", "bid": bid}, {"player": "Cy", "bid": "pass"},
            {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"},
            {"player": "Bob", "trump": trump}]
    apply_all(game, log)
    return game


# ---- known answers ------------------------------------------------------------------------
@pytest.mark.parametrize("case", DATA["tricks"], ids=[c["name"] for c in DATA["tricks"]])
def test_known_trick_winners(case: dict) -> None:
    tiles = parse_tiles(case["tiles"])
    assert trick_winner(tiles, case["trump"]) == case["winner"]
    led = suit_led(tiles[0], case["trump"])
    assert led == (TRUMP if case["led"] == "trump" else case["led"])


@pytest.mark.parametrize("case", DATA["trick_points"], ids=lambda c: " ".join(c["tiles"]))
def test_known_trick_points(case: dict) -> None:
    assert FortyTwo(PLAYERS).trick_points(parse_tiles(case["tiles"])) == case["points"]


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_known_answers(case: dict) -> None:
    game = FortyTwo(case["players"], case["options"])
    apply_all(game, case["log"])
    res = game.result()
    assert res["scores"] == case["scores"]
    assert res["finished"] is case["finished"]
    assert res["winner"] == case["winner"]
    assert [t["players"] for t in res["teams"]] == [["Ann", "Cy"], ["Bob", "Dee"]]


def test_count_totals_35_and_hand_totals_42() -> None:
    assert count_points(full_set(6)) == 35
    assert count_points(full_set(6)) + 7 == FortyTwo.hand_total == 42


# ---- declarations ---------------------------------------------------------------------------
def test_declared_set_players_teams_options() -> None:
    game = FortyTwo(PLAYERS)
    assert game.round_set() == full_set(6)
    assert game.teams() == [["Ann", "Cy"], ["Bob", "Dee"]]
    assert game.options == {"marks": False, "all_pass": "redeal", "doubles_trump": False,
                            "follow_me": False, "target": 250, "marks_to_win": 7}
    with pytest.raises(PlayersError, match="4 players"):
        FortyTwo(["Ann", "Bob", "Cy"])
    with pytest.raises(OptionError, match="all_pass"):
        FortyTwo(PLAYERS, {"all_pass": "misdeal"})


# ---- bidding --------------------------------------------------------------------------------
def test_bidding_starts_left_of_shuffler_and_ends_with_shuffler() -> None:
    game = FortyTwo(PLAYERS)
    assert game.needs_deal and game.current_player == "Bob"
    apply_all(game, [{"deal": DEAL}, {"player": "Bob", "bid": "pass"}])
    assert game.current_player == "Cy"
    with pytest.raises(IllegalMoveError, match="it is Cy's turn, not Ann's"):
        game.apply(Move.bid("Ann", 30))
    apply_all(game, [{"player": "Cy", "bid": 30}, {"player": "Dee", "bid": 31}])
    assert game.current_player == "Ann"
    events = game.apply(Move.bid("Ann", 35))
    assert [e.kind for e in events] == ["bid_won"]
    assert (game.bidder, game.bid, game.phase, game.current_player) == ("Ann", 35, "trump", "Ann")


def test_bid_minimum_30_and_must_raise() -> None:
    game = FortyTwo(PLAYERS)
    with pytest.raises(IllegalMoveError) as err:
        game.apply(Move.bid("Bob", 29))
    assert "bids are 30..42" in str(err.value) and "Bob bids 30" in str(err.value)
    game.apply(Move.bid("Bob", 33))
    before = game.snapshot()
    with pytest.raises(IllegalMoveError, match="beat the high bid 33"):
        game.apply(Move.bid("Cy", 33))
    assert game.snapshot() == before
    with pytest.raises(IllegalMoveError, match="bids are 30..42"):
        game.apply(Move.bid("Cy", 84))  # no mark bids in points mode
    assert [str(m) for m in game.legal_moves()][:3] == ["Cy bids pass", "Cy bids 34", "Cy bids 35"]


def test_bid_of_42_ends_the_bidding_in_points_mode() -> None:
    game = FortyTwo(PLAYERS)
    apply_all(game, [{"player": "Bob", "bid": "pass"}, {"player": "Cy", "bid": 42}])
    assert (game.phase, game.bidder) == ("trump", "Cy")


def test_all_pass_redeals_with_the_next_shuffler() -> None:
    game = FortyTwo(PLAYERS)
    apply_all(game, [{"deal": DEAL}] + [{"player": p, "bid": "pass"}
                                        for p in ("Bob", "Cy", "Dee")])
    events = game.apply(Move.bid("Ann", "pass"))
    assert "Bob shuffles" in events[0].detail
    assert game.needs_deal and game.hands is None and game.round == 1
    assert game.players[game.shuffler] == "Bob" and game.current_player == "Cy"
    assert game.scores == {p: 0 for p in PLAYERS}


def test_force_dealer_30_option() -> None:
    game = FortyTwo(PLAYERS, {"all_pass": "force_dealer_30"})
    apply_all(game, [{"player": p, "bid": "pass"} for p in ("Bob", "Cy", "Dee")])
    assert Move.bid("Ann", "pass") not in game.legal_moves()
    assert game.legal_moves()[0] == Move.bid("Ann", 30)
    with pytest.raises(IllegalMoveError, match="shuffler must bid"):
        game.apply(Move.bid("Ann", "pass"))
    game.apply(Move.bid("Ann", 30))
    assert game.bidder == "Ann"


def test_force_dealer_only_binds_when_everyone_else_passed() -> None:
    game = FortyTwo(PLAYERS, {"all_pass": "force_dealer_30"})
    apply_all(game, [{"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"},
                     {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"}])
    assert game.bidder == "Bob"


def test_mark_bids() -> None:
    game = FortyTwo(PLAYERS, {"marks": True})
    values = [m.value for m in game.legal_moves()]
    assert values == ["pass", *range(30, 43), 84]  # the first mark bid is at most 2 marks
    with pytest.raises(IllegalMoveError, match="one mark"):
        game.apply(Move.bid("Bob", 126))
    game.apply(Move.bid("Bob", 84))
    assert [m.value for m in game.legal_moves()] == ["pass", 126]
    with pytest.raises(IllegalMoveError):
        game.apply(Move.bid("Cy", 168))
    apply_all(game, [{"player": "Cy", "bid": 126}, {"player": "Dee", "bid": 168},
                     {"player": "Ann", "bid": 210}])
    assert (game.bidder, game.bid) == ("Ann", 210)


def test_marks_game_to_seven() -> None:
    game = FortyTwo(PLAYERS, {"marks": True})
    hand = [{"player": "Bob", "bid": 84}, {"player": "Cy", "bid": 126},
            {"player": "Dee", "bid": 168}, {"player": "Ann", "bid": 210},
            {"player": "Ann", "trump": 6}, {"end_round": {"taken": {"Ann": 42, "Bob": 0}}}]
    apply_all(game, hand)
    assert game.scores["Ann"] == 5 and not game.finished
    apply_all(game, [{"player": "Cy", "bid": 84}, {"player": "Dee", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "bid": "pass"},
                     {"player": "Cy", "trump": 1}, {"end_round": {"taken": {"Cy": 42, "Dee": 0}}}])
    assert game.finished and game.result()["winner"] == ["Ann", "Cy"]
    assert game.scores == {"Ann": 7, "Bob": 0, "Cy": 7, "Dee": 0}


# ---- trump ------------------------------------------------------------------------------------
def test_only_the_bidder_names_trump_from_the_allowed_choices() -> None:
    game = FortyTwo(PLAYERS)
    apply_all(game, [{"player": "Bob", "bid": 30}, {"player": "Cy", "bid": "pass"},
                     {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"}])
    with pytest.raises(IllegalMoveError, match="only Bob, who won the bid, names trump"):
        game.apply(Move.trump("Cy", 3))
    with pytest.raises(IllegalMoveError, match="trump is one of 0, 1, 2, 3, 4, 5, 6"):
        game.apply(Move.trump("Bob", "doubles"))
    with pytest.raises(IllegalMoveError):
        game.apply(Move.trump("Bob", 7))
    game.apply(Move.trump("Bob", 3))
    assert game.trump == 3 and game.phase == "play" and game.current_player == "Bob"


def test_trump_options_doubles_and_follow_me() -> None:
    game = FortyTwo(PLAYERS, {"doubles_trump": True, "follow_me": True})
    apply_all(game, [{"player": "Bob", "bid": 42}])
    assert [m.value for m in game.legal_moves()] == [0, 1, 2, 3, 4, 5, 6, "doubles", "follow-me"]
    with pytest.raises(IllegalMoveError):
        game.apply(Move.trump("Bob", "none"))  # Moon's word, not 42's


def test_trump_before_bidding_is_over_is_illegal() -> None:
    game = FortyTwo(PLAYERS)
    with pytest.raises(IllegalMoveError, match="the bidding is on"):
        game.apply(Move.trump("Bob", 3))


# ---- follow suit --------------------------------------------------------------------------
def test_follow_suit_message_and_state_unchanged() -> None:
    game = bob_wins_bid(trump=0)
    game.apply(Move.play("Bob", "2-4"))  # calls suit 4
    before = game.snapshot()
    with pytest.raises(IllegalMoveError) as err:
        game.apply(Move.play("Cy", "1-6"))
    assert str(err.value) == "Cy plays 1-6: must follow suit 4 (led 2-4), Cy holds 1-4; legal: Cy plays 1-4"
    assert game.snapshot() == before
    game.apply(Move.play("Cy", "1-4"))


def test_a_tile_with_a_trump_end_belongs_only_to_trump() -> None:
    game = bob_wins_bid(trump=3)
    apply_all(game, [{"player": "Bob", "play": "2-4"}, {"player": "Cy", "play": "1-4"}])
    # Dee holds 3-4, 4-4, 4-5, 4-6: 3-4 is a trump, not a 4
    assert [m.tile for m in game.legal_moves()] == parse_tiles(["4-4", "4-5", "4-6"])
    with pytest.raises(IllegalMoveError, match="must follow suit 4 .*Dee holds 4-4, 4-5, 4-6"):
        game.apply(Move.play("Dee", "3-4"))


def test_only_trump_end_of_led_number_frees_the_player() -> None:
    game = bob_wins_bid(trump=1)
    game.apply(Move.play("Bob", "2-4"))
    # Cy's only 4 is 1-4, a trump: Cy may play anything
    assert sorted(m.tile for m in game.legal_moves()) == sorted(parse_tiles(DEAL["Cy"]))


def test_trump_lead_must_be_followed_with_trump() -> None:
    game = bob_wins_bid(trump=4)
    game.apply(Move.play("Bob", "2-4"))  # a trump lead
    assert [m.tile for m in game.legal_moves()] == [Tile.of(1, 4)]
    with pytest.raises(IllegalMoveError, match=r"must follow trump \(4s\)"):
        game.apply(Move.play("Cy", "2-5"))


def test_playing_a_tile_not_held_or_already_played() -> None:
    game = bob_wins_bid(trump=0)
    with pytest.raises(IllegalMoveError, match="Bob does not hold 6-6"):
        game.apply(Move.play("Bob", "6-6"))
    apply_all(game, [{"player": "Bob", "play": "2-4"}])
    with pytest.raises(IllegalMoveError, match="2-4 was already played"):
        game.apply(Move.play("Cy", "2-4"))


# ---- a full hand with the deal ----------------------------------------------------------
def test_full_hand_with_deal_every_trick_to_the_trumps() -> None:
    deal = {
        "Ann": ["0-6", "1-6", "2-6", "3-6", "4-6", "5-6", "6-6"],
        "Bob": ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "1-1"],
        "Cy": ["1-2", "1-3", "1-4", "1-5", "2-2", "2-3", "2-4"],
        "Dee": ["2-5", "3-3", "3-4", "3-5", "4-4", "4-5", "5-5"],
    }
    game = FortyTwo(PLAYERS)
    apply_all(game, [{"deal": deal}, {"player": "Bob", "bid": "pass"},
                     {"player": "Cy", "bid": "pass"}, {"player": "Dee", "bid": "pass"},
                     {"player": "Ann", "bid": 42}, {"player": "Ann", "trump": 6}])
    trick_points = []
    for i in range(7):
        for p in PLAYERS:
            tile = min(game.hands[p]) if p != "Ann" else max(game.hands["Ann"])
            events = game.apply(Move.play(p, tile))
        trick_points.append(next(e for e in events if e.kind == "trick").points)
        assert game.current_player == ("Ann" if i < 6 else None)
    assert sum(trick_points) == 42
    assert game.round_over and game.legal_moves() == []
    assert game.end_round_move().to_json() == {"end_round": {"taken": {"Ann": 42, "Bob": 0}}}
    with pytest.raises(IllegalMoveError, match="already took 42 points"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 40, "Bob": 2}}}))
    game.apply(Move.from_json({"end_round": {}}))
    assert game.scores == {"Ann": 42, "Bob": 0, "Cy": 42, "Dee": 0}
    assert game.round == 2 and game.needs_deal and game.players[game.shuffler] == "Bob"
    assert game.round_scores == [{"Ann": 42, "Bob": 0, "Cy": 42, "Dee": 0}]


def test_trick_winner_leads_next() -> None:
    game = bob_wins_bid(trump=0)
    events = apply_all(game, [{"player": "Bob", "play": "2-4"}, {"player": "Cy", "play": "1-4"},
                              {"player": "Dee", "play": "4-4"}, {"player": "Ann", "play": "0-1"}])
    trick = next(e for e in events if e.kind == "trick")
    assert (trick.player, trick.points) == ("Ann", 6)  # 0-1 trumps; 1-4 is 5 count
    assert game.current_player == "Ann"
    assert game.taken_now() == [6, 0]


# ---- ending a hand -----------------------------------------------------------------------
def test_end_round_early_needs_consistent_taken() -> None:
    game = bob_wins_bid(trump=0)
    apply_all(game, [{"player": "Bob", "play": "2-4"}, {"player": "Cy", "play": "1-4"},
                     {"player": "Dee", "play": "4-4"}, {"player": "Ann", "play": "0-1"}])
    before = game.snapshot()
    with pytest.raises(MoveFormatError, match="needs \"taken\""):
        game.apply(Move.from_json({"end_round": {}}))
    with pytest.raises(IllegalMoveError, match="sum to 42"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 6, "Bob": 30}}}))
    with pytest.raises(IllegalMoveError, match="already took 6 points"):
        game.apply(Move.from_json({"end_round": {"taken": {"Cy": 5, "Dee": 37}}}))
    with pytest.raises(MoveFormatError, match="both 10 and 12"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 10, "Cy": 12, "Bob": 30}}}))
    with pytest.raises(MoveFormatError, match="missing: Bob and Dee"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 42}}}))
    assert game.snapshot() == before
    game.apply(Move.from_json({"end_round": {"taken": {"Cy": 13, "Dee": 29}}}))
    assert game.scores == {"Ann": 43, "Bob": 0, "Cy": 43, "Dee": 0}  # Bob's 30 is set


def test_end_round_during_bidding_is_illegal() -> None:
    game = FortyTwo(PLAYERS)
    with pytest.raises(IllegalMoveError, match="no hand is being played"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 21, "Bob": 21}}}))


def test_deal_mid_hand_is_illegal() -> None:
    game = FortyTwo(PLAYERS)
    game.apply(Move.bid("Bob", 30))
    with pytest.raises(IllegalMoveError, match="already under way"):
        game.apply(Move.deal(DEAL))


# ---- reneges without a deal -----------------------------------------------------------
def test_renege_flagged_when_the_table_proves_it() -> None:
    game = bob_wins_bid(trump=0, deal=None)
    events = apply_all(game, [{"player": "Bob", "play": "2-4"},
                              {"player": "Cy", "play": "1-6"},  # no 4: allowed, remembered
                              {"player": "Dee", "play": "4-4"}, {"player": "Ann", "play": "0-0"}])
    assert not [e for e in events if e.kind == "renege"]
    events = apply_all(game, [{"player": "Ann", "play": "0-1"}, {"player": "Bob", "play": "1-1"},
                              {"player": "Cy", "play": "1-4"}])  # Cy shows a 4
    reneges = [e for e in events if e.kind == "renege"]
    assert len(reneges) == 1 and reneges[0].player == "Cy"
    assert reneges[0].detail.startswith(
        "Cy reneged in trick 1: 2-4 led suit 4 and Cy played 1-6, but now plays 1-4")
    assert "the table decides" in reneges[0].detail
    assert game.result()["reneges"] == [{"hand": 1, "player": "Cy", "trick": 1,
                                         "detail": reneges[0].detail}]
    # flagged once; the scores are untouched
    events = apply_all(game, [{"player": "Dee", "play": "4-5"}, {"player": "Ann", "play": "0-2"},
                              {"player": "Bob", "play": "1-2"}, {"player": "Cy", "play": "3-4"}])
    assert not [e for e in events if e.kind == "renege" and e.player == "Cy"]
    assert game.scores == {p: 0 for p in PLAYERS}


def test_no_renege_when_the_shown_tile_is_a_trump_or_another_suit() -> None:
    game = bob_wins_bid(trump=1, deal=None)
    events = apply_all(game, [{"player": "Bob", "play": "2-4"}, {"player": "Cy", "play": "5-6"},
                              {"player": "Dee", "play": "4-4"}, {"player": "Ann", "play": "3-3"},
                              {"player": "Dee", "play": "6-6"}, {"player": "Ann", "play": "0-6"},
                              {"player": "Bob", "play": "2-6"}, {"player": "Cy", "play": "1-4"}])
    assert not [e for e in events if e.kind == "renege"]  # 1-4 is a trump, not a 4
    assert "reneges" not in game.result()


def test_renege_in_trump() -> None:
    game = bob_wins_bid(trump=5, deal=None)
    events = apply_all(game, [{"player": "Bob", "play": "5-5"}, {"player": "Cy", "play": "1-1"},
                              {"player": "Dee", "play": "2-5"}, {"player": "Ann", "play": "3-5"},
                              {"player": "Bob", "play": "4-5"}, {"player": "Cy", "play": "0-5"}])
    reneges = [e for e in events if e.kind == "renege"]
    assert len(reneges) == 1 and "led trump (5s)" in reneges[0].detail


def test_a_renege_ruling_is_settled_with_taken_as_the_flag_advises() -> None:
    """After a renege is flagged, ``taken`` is the table's ruling: it may give the reneging
    side less than its tricks won (here none of the 42), mid-hand or after the last trick."""
    game = bob_wins_bid(trump=0, deal=None)
    apply_all(game, [{"player": "Bob", "play": "2-4"}, {"player": "Cy", "play": "1-6"},
                     {"player": "Dee", "play": "4-4"}, {"player": "Ann", "play": "0-0"},
                     {"player": "Ann", "play": "0-1"}, {"player": "Bob", "play": "1-1"},
                     {"player": "Cy", "play": "1-4"}])  # Cy reneged in trick 1
    assert game.taken_now() == [1, 0]
    before = game.snapshot()
    with pytest.raises(IllegalMoveError, match="sum to 42"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 0, "Bob": 40}}}))
    with pytest.raises(MoveFormatError, match="'Eve', who is not playing"):
        game.apply(Move.from_json({"end_round": {"taken": {"Eve": 0, "Bob": 42}}}))
    assert game.snapshot() == before
    events = game.apply(Move.from_json({"end_round": {"taken": {"Ann": 0, "Bob": 42}}}))
    notes = [e.detail for e in events if e.kind == "note"]
    assert notes[0] == ("the table's ruling on the renege by Cy: points taken Ann and Cy 0, "
                        "Bob and Dee 42 (the tricks gave Ann and Cy 1, Bob and Dee 0)")
    assert game.scores == {"Ann": 0, "Bob": 42, "Cy": 0, "Dee": 42}


def test_a_renege_proved_in_the_last_trick_can_still_be_ruled() -> None:
    game = bob_wins_bid(trump=0, deal=None)
    tricks = [["2-4", "1-6", "4-4", "0-0"], ["0-1", "1-1", "1-4", "1-5"],
              ["0-2", "2-2", "2-5", "2-6"], ["0-3", "2-3", "3-3", "3-4"],
              ["0-4", "3-5", "4-5", "4-6"], ["0-5", "1-2", "3-6", "5-5"],
              ["0-6", "1-3", "6-6", "5-6"]]
    leader = "Bob"
    for tiles in tricks:
        seat = PLAYERS.index(leader)
        apply_all(game, [{"player": PLAYERS[(seat + i) % 4], "play": t}
                         for i, t in enumerate(tiles)])
        leader = PLAYERS[game.turn]
    assert game.phase == "over" and game.hand_reneges()
    taken = game.taken_now()
    assert taken[0] > 0
    game.apply(Move.from_json({"end_round": {"taken": {"Ann": 0, "Bob": 42}}}))
    assert game.scores == {"Ann": 0, "Bob": 42, "Cy": 0, "Dee": 42}


def test_without_a_renege_taken_may_not_undo_tricks_won() -> None:
    game = bob_wins_bid(trump=0, deal=None)
    apply_all(game, [{"player": "Bob", "play": "2-4"}, {"player": "Cy", "play": "1-6"},
                     {"player": "Dee", "play": "4-4"}, {"player": "Ann", "play": "0-0"}])
    with pytest.raises(IllegalMoveError, match="already took 1 point, not 0 .*none was"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 0, "Bob": 42}}}))


def test_without_deal_any_unseen_tile_may_be_played() -> None:
    game = bob_wins_bid(trump=0, deal=None)
    game.apply(Move.play("Bob", "2-4"))
    tiles = [m.tile for m in game.legal_moves()]
    assert len(tiles) == 27 and Tile.of(2, 4) not in tiles


# ---- replay and the contract ---------------------------------------------------------
def _random_match(seed: int, options: dict | None = None) -> tuple[FortyTwo, list[Move]]:
    rng = random.Random(seed)
    game = FortyTwo(PLAYERS, options)
    moves = []
    while not game.finished:
        if game.needs_deal:
            m = game.deal_round(rng)
        elif game.round_over:
            m = game.end_round_move()
        else:
            m = game.resolve_draw(rng.choice(game.legal_moves()), rng)
        game.apply(m)
        moves.append(m)
        if game.hands is not None:
            everything = [t for h in game.hands.values() for t in h] + game.table_tiles()
            assert sorted(everything) == full_set(6)
        lo, hi = game.score_bounds()
        assert all(lo <= s <= hi for s in game.scores.values())
        for team in game.teams():
            assert game.scores[team[0]] == game.scores[team[1]]
    return game, moves


@pytest.mark.parametrize("options", [{}, {"marks": True, "all_pass": "force_dealer_30",
                                          "doubles_trump": True, "follow_me": True}])
def test_random_match_replays_from_its_log(options: dict) -> None:
    game, moves = _random_match(7, options)
    fresh = FortyTwo(PLAYERS, options)
    for m in moves:
        fresh.apply(Move.from_json(json.loads(m.to_line())))
    assert fresh.snapshot() == game.snapshot()
    res = game.result()
    assert res["finished"] and len(res["winner"]) == 2
    assert res["winner"] in game.teams()


def test_default_target_250_first_team_to_reach_it_wins() -> None:
    game = FortyTwo(PLAYERS)
    hands = 0
    while not game.finished:
        first = game.current_player
        team_first = next(t for t in game.teams() if first in t)
        other = next(t for t in game.teams() if first not in t)
        apply_all(game, [{"player": first, "bid": 42}, {"player": first, "trump": 6},
                         {"end_round": {"taken": {team_first[0]: 42, other[0]: 0}}}])
        hands += 1
        assert hands <= 11
    # the first bidders alternate teams: Bob and Dee make 42 in hands 1, 3, ..., 11
    assert hands == 11 and game.result()["winner"] == ["Bob", "Dee"]
    assert game.scores == {"Ann": 210, "Bob": 252, "Cy": 210, "Dee": 252}


def test_marks_bid_of_42_must_take_every_trick() -> None:
    game = FortyTwo(PLAYERS, {"marks": True})
    apply_all(game, [{"player": "Bob", "bid": 42}, {"player": "Cy", "bid": "pass"},
                     {"player": "Dee", "bid": "pass"}, {"player": "Ann", "bid": "pass"},
                     {"player": "Bob", "trump": 6},
                     {"end_round": {"taken": {"Bob": 41, "Ann": 1}}}])
    assert game.scores == {"Ann": 1, "Bob": 0, "Cy": 1, "Dee": 0}


def test_moves_of_other_games_are_refused_with_the_known_kinds() -> None:
    game = FortyTwo(PLAYERS)
    with pytest.raises(MoveFormatError, match="takes deal, bid, trump, play, end_round"):
        game.apply(Move.from_json({"player": "Bob", "draw": 1}))
    with pytest.raises(MoveFormatError, match="names only the tile"):
        bob_wins_bid().apply(Move.play("Bob", "2-4", on="4-4"))


# ---- properties of the trick engine -------------------------------------------------------
TRUMPS = [*range(7), "doubles", "follow-me"]


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(full_set(6)), min_size=4, max_size=4, unique=True),
       st.sampled_from(TRUMPS), st.permutations([1, 2, 3]))
def test_trick_winner_properties(tiles: list[Tile], trump: int | str, order: list[int]) -> None:
    w = trick_winner(tiles, trump)
    win = tiles[w]
    suit = suit_led(tiles[0], trump)
    trumps = [t for t in tiles if is_trump(t, trump)]
    if trumps:
        assert is_trump(win, trump)
        assert all(rank_in(win, TRUMP, trump) > rank_in(t, TRUMP, trump) for t in trumps if t != win)
    else:
        assert follows(win, suit, trump)
        assert all(rank_in(win, suit, trump) > rank_in(t, suit, trump)
                   for t in tiles if t != win and follows(t, suit, trump))
    # the followers' order does not change which tile wins
    shuffled = [tiles[0]] + [tiles[i] for i in order]
    assert shuffled[trick_winner(shuffled, trump)] == win


def test_deal_is_checked() -> None:
    game = FortyTwo(PLAYERS)
    with pytest.raises(MoveFormatError, match="Cy must be dealt 7 tiles, the deal gives 6"):
        game.apply(Move.deal(dict(DEAL, Cy=DEAL["Cy"][:6])))
    with pytest.raises(MoveFormatError, match="1-4 is dealt twice"):
        game.apply(Move.deal(dict(DEAL, Dee=["1-4", *DEAL["Dee"][1:]])))
    with pytest.raises(MoveFormatError, match="carries only the hands"):
        game.apply(Move.deal(DEAL, widow="0-0"))
    assert game.needs_deal


def test_end_round_hands_must_agree_with_the_deal() -> None:
    game = bob_wins_bid(trump=0)
    wrong = {p: DEAL[p] for p in PLAYERS}
    wrong["Ann"] = ["6-6"]
    with pytest.raises(IllegalMoveError, match="Ann holds 0-0, 0-1"):
        game.apply(Move.from_json({"end_round": {"hands": wrong,
                                                 "taken": {"Ann": 20, "Bob": 22}}}))
    game.apply(Move.from_json({"end_round": {"hands": DEAL, "taken": {"Ann": 20, "Bob": 22}}}))
    assert game.scores == {"Ann": 50, "Bob": 0, "Cy": 50, "Dee": 0}  # Bob's 30 set: 30 + 20
