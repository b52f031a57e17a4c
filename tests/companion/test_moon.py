"""Moon rules: the 22-tile set, bids 4..7 and 21, widow and discard, tricks, scoring, match end.

Known-answer vectors live in tests/data/known_answers/moon.json.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.errors import IllegalMoveError, MoveFormatError, PlayersError
from companion.games.moon import Moon
from companion.moves import Move
from companion.tiles import Tile, parse_tiles

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "known_answers"
                   / "moon.json").read_text())
PLAYERS = ["Ann", "Bob", "Cy"]

# Bob holds every six and 5-5; the widow is 0-0.
DEAL = {
    "Ann": ["2-4", "2-5", "3-3", "3-4", "3-5", "4-4", "4-5"],
    "Bob": ["6-6", "5-6", "4-6", "3-6", "2-6", "1-6", "5-5"],
    "Cy": ["1-1", "1-2", "1-3", "1-4", "1-5", "2-2", "2-3"],
}


def apply_all(game: Moon, entries: list[dict[str, Any]]) -> list:
    events = []
    for entry in entries:
        events += game.apply(Move.from_json(entry))
    return events


def all_tiles(game: Moon) -> list[Tile]:
    assert game.hands is not None
    return sorted([t for h in game.hands.values() for t in h] + game.table_tiles()
                  + list(game.boneyard or []))


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["name"] for c in DATA["cases"]])
def test_known_answers(case: dict) -> None:
    game = Moon(case["players"], case["options"])
    apply_all(game, case["log"])
    res = game.result()
    assert res["scores"] == case["scores"]
    assert res["finished"] is case["finished"]
    assert res["winner"] == case["winner"]


def test_set_has_22_tiles_without_blanks_but_double_blank() -> None:
    tiles = Moon(PLAYERS).round_set()
    assert len(tiles) == 22 and len(set(tiles)) == 22
    assert Tile.of(0, 0) in tiles and not any(t.low == 0 and t.high > 0 for t in tiles)
    with pytest.raises(PlayersError, match="3 players"):
        Moon(["Ann", "Bob", "Cy", "Dee"])


def test_deal_accounts_for_every_tile_and_the_widow() -> None:
    game = Moon(PLAYERS)
    game.apply(Move.deal(DEAL))  # widow left out: the one tile not dealt
    assert game.widow == Tile.of(0, 0) and game.boneyard == []
    assert all_tiles(game) == sorted(game.round_set())
    game2 = Moon(PLAYERS)
    with pytest.raises(MoveFormatError, match="not in the Moon set"):
        game2.apply(Move.deal(DEAL, widow="0-3"))
    bad = dict(DEAL, Cy=["1-1", "1-2", "1-3", "1-4", "1-5", "2-2", "0-4"])
    with pytest.raises(MoveFormatError, match="0-4 dealt to Cy is not available"):
        game2.apply(Move.deal(bad, widow="2-3"))
    with pytest.raises(MoveFormatError, match="leaves 2 tiles"):
        game2.apply(Move.deal(bad))


def test_a_widow_also_dealt_to_a_hand_is_named_as_both() -> None:
    game = Moon(PLAYERS)
    with pytest.raises(MoveFormatError) as err:
        game.apply(Move.deal(DEAL, widow="5-6"))  # 5-6 is in Bob's hand; 0-0 is not dealt
    assert str(err.value) == ('deal "widow": 5-6 is both the widow and in Bob\'s hand; the widow '
                              'is a tile not dealt to a player (the one tile not dealt is 0-0)')
    assert game.hands is None


def test_seeded_deal_round_round_trips() -> None:
    game = Moon(PLAYERS)
    deal = game.deal_round(random.Random(3))
    assert Move.from_json(json.loads(deal.to_line())) == deal
    game.apply(deal)
    assert all_tiles(game) == sorted(game.round_set())


# ---- bidding ----------------------------------------------------------------------------
def test_bids_are_4_to_7_or_21_each_higher() -> None:
    game = Moon(PLAYERS)
    assert [m.value for m in game.legal_moves()] == ["pass", 4, 5, 6, 7, 21]
    with pytest.raises(IllegalMoveError, match="bids are 4, 5, 6, 7 tricks or 21"):
        game.apply(Move.bid("Bob", 3))
    with pytest.raises(IllegalMoveError, match="bids are 4, 5, 6, 7 tricks or 21"):
        game.apply(Move.bid("Bob", 8))
    game.apply(Move.bid("Bob", 6))
    assert [m.value for m in game.legal_moves()] == ["pass", 7, 21]
    with pytest.raises(IllegalMoveError, match="beat the high bid 6"):
        game.apply(Move.bid("Cy", 5))


def test_a_bid_of_21_ends_the_bidding() -> None:
    game = Moon(PLAYERS)
    events = apply_all(game, [{"player": "Bob", "bid": 4}, {"player": "Cy", "bid": 21}])
    assert [e.kind for e in events] == ["bid_won"]
    assert (game.bidder, game.bid, game.phase) == ("Cy", 21, "trump")


def test_all_pass_redeals() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"deal": DEAL}] + [{"player": p, "bid": "pass"} for p in ("Bob", "Cy", "Ann")])
    assert game.needs_deal and game.widow is None and game.players[game.shuffler] == "Bob"
    assert game.current_player == "Cy"


def test_trump_choices_include_no_trump() -> None:
    game = Moon(PLAYERS)
    game.apply(Move.bid("Bob", 21))
    assert [m.value for m in game.legal_moves()] == [0, 1, 2, 3, 4, 5, 6, "none"]
    with pytest.raises(IllegalMoveError):
        game.apply(Move.trump("Bob", "follow-me"))


# ---- widow and discard -------------------------------------------------------------------
def test_bidder_takes_widow_and_discards_one_of_eight() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"deal": DEAL}, {"player": "Bob", "bid": 5}, {"player": "Cy", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "trump": 6}])
    assert game.phase == "discard" and len(game.hands["Bob"]) == 8
    assert Tile.of(0, 0) in game.hands["Bob"] and all_tiles(game) == sorted(game.round_set())
    assert len(game.legal_moves()) == 8 and {m.kind for m in game.legal_moves()} == {"discard"}
    with pytest.raises(IllegalMoveError, match="Bob took the widow and discards one tile next"):
        game.apply(Move.play("Bob", "6-6"))  # discard first
    with pytest.raises(IllegalMoveError, match="only Bob, who won the bid, discards"):
        game.apply(Move("discard", "Cy", tile=Tile.of(1, 1)))
    with pytest.raises(IllegalMoveError, match="not 1-1"):
        game.apply(Move("discard", "Bob", tile=Tile.of(1, 1)))
    game.apply(Move.from_json({"player": "Bob", "discard": "5-5"}))  # keeps the widow 0-0
    assert game.phase == "play" and len(game.hands["Bob"]) == 7
    assert game.discarded == Tile.of(5, 5) and all_tiles(game) == sorted(game.round_set())
    with pytest.raises(IllegalMoveError, match="5-5 was discarded by Bob this hand"):
        game.apply(Move.play("Bob", "5-5"))


def test_live_discard_may_stay_face_down() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"player": "Bob", "bid": 5}, {"player": "Cy", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "trump": 6}])
    kinds = {m.kind for m in game.legal_moves()}
    assert kinds == {"discard", "play"}
    with pytest.raises(IllegalMoveError, match="Bob took the widow and discards one tile next"):
        game.apply(Move.play("Cy", "1-1"))
    game.apply(Move.play("Bob", "6-6"))  # the lead closes the unseen exchange
    assert game.phase == "play" and game.discarded is None and game.current_player == "Cy"


# ---- a full hand: shooting the moon ------------------------------------------------------
def test_full_hand_moon_made_wins_the_game() -> None:
    game = Moon(PLAYERS)
    log: list[dict[str, Any]] = [{"deal": DEAL, "widow": "0-0"}, {"player": "Bob", "bid": 21},
                                 {"player": "Bob", "trump": 6}, {"player": "Bob", "discard": "0-0"}]
    leads = ["6-6", "5-6", "4-6", "3-6", "2-6", "1-6"]
    cys = ["1-1", "1-2", "1-3", "1-4", "2-2", "2-3"]
    anns = ["2-4", "3-3", "3-4", "4-4", "2-5", "3-5"]
    for b, c, a in zip(leads, cys, anns):
        log += [{"player": "Bob", "play": b}, {"player": "Cy", "play": c},
                {"player": "Ann", "play": a}]
    apply_all(game, log)
    game.apply(Move.play("Bob", "5-5"))  # calls fives: Cy must play 1-5, Ann 4-5
    assert [m.tile for m in game.legal_moves()] == [Tile.of(1, 5)]
    game.apply(Move.play("Cy", "1-5"))
    events = game.apply(Move.play("Ann", "4-5"))
    assert events[0].kind == "trick" and events[0].player == "Bob"
    assert game.round_over and game.tricks_won == {"Ann": 0, "Bob": 7, "Cy": 0}
    assert all_tiles(game) == sorted(game.round_set())
    events = game.apply(game.end_round_move())
    assert game.finished and game.result()["winner"] == "Bob"
    assert game.scores == {"Ann": 0, "Bob": 21, "Cy": 0}
    assert events[-1].kind == "match_end"


def test_follow_suit_in_moon() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"deal": DEAL}, {"player": "Bob", "bid": 4}, {"player": "Cy", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "trump": 1},
                     {"player": "Bob", "discard": "0-0"}, {"player": "Bob", "play": "5-5"}])
    # Cy's only five is 1-5, a trump: Cy may play anything
    assert len(game.legal_moves()) == 7
    game.apply(Move.play("Cy", "2-2"))
    before = game.snapshot()
    with pytest.raises(IllegalMoveError) as err:
        game.apply(Move.play("Ann", "3-3"))
    assert str(err.value).startswith("Ann plays 3-3: must follow suit 5 (led 5-5), Ann holds "
                                     "2-5, 3-5, 4-5; legal: Ann plays 2-5")
    assert game.snapshot() == before


def test_set_bid_scores_negative_and_within_bounds() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"player": "Bob", "bid": 21}, {"player": "Bob", "trump": 2},
                     {"end_round": {"taken": {"Ann": 1, "Bob": 6, "Cy": 0}}}])
    assert game.scores == {"Ann": 1, "Bob": -21, "Cy": 0}
    lo, hi = game.score_bounds()
    assert lo < -21 and hi == 41


def test_renege_flagged_without_deal() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"player": "Bob", "bid": 4}, {"player": "Cy", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "trump": "none"}])
    events = apply_all(game, [{"player": "Bob", "play": "3-6"}, {"player": "Cy", "play": "1-1"},
                              {"player": "Ann", "play": "6-6"},
                              {"player": "Ann", "play": "4-4"}, {"player": "Bob", "play": "4-5"},
                              {"player": "Cy", "play": "2-6"}])
    reneges = [e for e in events if e.kind == "renege"]
    assert len(reneges) == 1 and reneges[0].player == "Cy"
    assert "3-6 led suit 6 and Cy played 1-1, but now plays 2-6" in reneges[0].detail


def test_a_renege_ruling_is_entered_as_taken_even_below_the_tricks_won() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"player": "Bob", "bid": 4}, {"player": "Cy", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "trump": "none"},
                     {"player": "Bob", "play": "3-6"}, {"player": "Cy", "play": "1-1"},
                     {"player": "Ann", "play": "6-6"}, {"player": "Ann", "play": "4-4"},
                     {"player": "Bob", "play": "4-5"}, {"player": "Cy", "play": "2-6"}])
    assert game.taken_now() == [2, 0, 0] and game.hand_reneges()
    with pytest.raises(IllegalMoveError, match="sum to 7"):
        game.apply(Move.from_json({"end_round": {"taken": {"Ann": 0, "Bob": 6, "Cy": 0}}}))
    # the table rules that the bidder makes the hand: Ann's tricks go to Bob
    events = game.apply(Move.from_json({"end_round": {"taken": {"Ann": 0, "Bob": 7, "Cy": 0}}}))
    assert any(e.kind == "note" and "ruling on the renege by Cy: tricks taken Ann 0, Bob 7, "
               "Cy 0 (the tricks gave Ann 2, Bob 0, Cy 0)" in e.detail for e in events)
    assert game.scores == {"Ann": 0, "Bob": 7, "Cy": 0}


def test_default_is_the_seed_rule_and_self_play_caps_hands() -> None:
    assert Moon(PLAYERS).options["max_hands"] == 0
    assert Moon(PLAYERS).score_bounds()[0] == -21_000
    assert Moon.simulation_options == {"max_hands": 50}
    assert Moon(PLAYERS, {"max_hands": 50}).score_bounds() == (-21 * 50, 41)


def test_max_hands_option_ends_the_match() -> None:
    game = Moon(PLAYERS, {"max_hands": 1})
    apply_all(game, [{"player": "Bob", "bid": 4}, {"player": "Cy", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "trump": 3},
                     {"end_round": {"taken": {"Ann": 2, "Bob": 3, "Cy": 2}}}])
    assert game.finished and game.result()["winner"] == ["Ann", "Cy"]  # Bob -4, both 2
    assert game.round == 1


def test_random_matches_replay_and_keep_their_invariants() -> None:
    for seed in (1, 2):
        rng = random.Random(seed)
        game = Moon(PLAYERS, {"max_hands": 12})
        moves = []
        lo, hi = game.score_bounds()
        while not game.finished:
            if game.needs_deal:
                m = game.deal_round(rng)
            elif game.round_over:
                m = game.end_round_move()
                assert game.legal_moves() == []
            else:
                m = rng.choice(game.legal_moves())
            game.apply(m)
            moves.append(m)
            if game.hands is not None:
                assert all_tiles(game) == sorted(game.round_set())
            assert all(lo <= s <= hi for s in game.scores.values())
        fresh = Moon(PLAYERS, {"max_hands": 12})
        for m in moves:
            fresh.apply(Move.from_json(json.loads(m.to_line())))
        assert fresh.snapshot() == game.snapshot()
        assert parse_tiles([str(t) for t in game.round_set()]) == game.round_set()


def test_live_hand_without_deal_or_discard_entry_scores_from_the_tricks() -> None:
    game = Moon(PLAYERS)
    apply_all(game, [{"player": "Bob", "bid": 4}, {"player": "Cy", "bid": "pass"},
                     {"player": "Ann", "bid": "pass"}, {"player": "Bob", "trump": 6}])
    while not game.round_over:
        legal = game.legal_moves()
        plays = [m for m in legal if m.kind == "play"]
        game.apply(plays[-1])  # the highest unseen tile each time
    assert game.hands is None and len(game.table_tiles()) == 21
    taken = dict(game.tricks_won)
    assert sum(taken.values()) == 7
    events = game.apply(Move.from_json({"end_round": {}}))
    expected_bob = taken["Bob"] if taken["Bob"] >= 4 else -4
    assert game.scores == {"Ann": taken["Ann"], "Bob": expected_bob, "Cy": taken["Cy"]}
    assert [e.kind for e in events][:3] == ["score", "score", "score"]
    assert game.needs_deal and game.round == 2
