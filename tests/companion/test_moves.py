"""Moves: every kind of log entry parses, round-trips through JSON, and bad entries are
explained."""

from __future__ import annotations

import pytest

from companion.errors import MoveFormatError
from companion.moves import Move
from companion.tiles import Tile

ENTRIES = [
    {"player": "Ann", "play": "5-5"},
    {"player": "Bob", "play": "0-5", "on": "5-5"},
    {"player": "Ann", "play": "blue:4-4", "on": "red:2-5"},
    {"player": "Ann", "play": "3-5", "at": [[0, 0], [1, 0]], "level": 0},
    {"player": "Bob", "draw": 1},
    {"player": "Bob", "draw": "3-4"},
    {"player": "Bob", "draw": ["3-4", "6-6"]},
    {"player": "Bob", "pass": True},
    {"player": "Ann", "bid": 31},
    {"player": "Ann", "bid": "pass"},
    {"player": "Ann", "trump": 4},
    {"player": "Ann", "trump": "follow-me"},
    {"player": "Ann", "discard": "3-4"},
    {"player": "Sol", "remove": ["3-4"]},
    {"deal": {"Ann": ["5-5", "3-4"], "Bob": ["0-1", "2-2"]}},
    {"deal": {"Ann": ["5-5"], "Bob": ["0-1"]}, "widow": "2-3"},
    {"end_round": {"hands": {"Ann": [], "Bob": ["0-3", "5-6"]}}},
    {"player": "Bob", "play": "0-5", "on": "5-5", "source": "camera", "confidence": 0.8},
]


@pytest.mark.parametrize("entry", ENTRIES)
def test_round_trip(entry: dict) -> None:
    move = Move.from_json(entry)
    assert move.to_json() == entry
    assert Move.from_json(move.to_json()) == move
    assert str(move)


def test_tiles_are_canonical() -> None:
    move = Move.from_json({"player": "Bob", "play": "5-0", "on": "5-5"})
    assert move.tile == Tile.of(0, 5)
    assert move.to_json()["play"] == "0-5"


def test_meta_does_not_change_equality() -> None:
    a = Move.from_json({"player": "Bob", "pass": True})
    b = Move.from_json({"player": "Bob", "pass": True, "source": "hand", "t": 12.5})
    assert a == b


@pytest.mark.parametrize("entry,fragment", [
    ({}, "exactly one of the keys"),
    ({"player": "Ann", "play": "5-5", "pass": True}, "exactly one of the keys"),
    ({"play": "5-5"}, 'needs "player"'),
    ({"player": 3, "play": "5-5"}, '"player" must be a name'),
    ({"player": "Ann", "play": "5-x"}, '"play": cannot read tile'),
    ({"player": "Ann", "draw": 0}, "at least 1"),
    ({"player": "Ann", "draw": True}, "count, a tile or a list"),
    ({"player": "Ann", "draw": []}, "at least one tile"),
    ({"player": "Ann", "pass": False}, "must be true"),
    ({"player": "Ann", "bid": "31"}, 'whole number or "pass"'),
    ({"player": "Ann", "trump": "spades"}, "pip value or one of"),
    ({"player": "Ann", "bid": 31, "on": "5-5"}, "unexpected keys"),
    ({"deal": ["5-5"]}, "maps each player"),
    ({"deal": {"Ann": "5-5"}}, "must be a list"),
    ({"end_round": []}, '"hands"'),
    (["play"], "JSON object"),
])
def test_bad_entries_are_explained(entry, fragment: str) -> None:
    with pytest.raises(MoveFormatError, match=fragment):
        Move.from_json(entry)


def test_constructors() -> None:
    assert Move.play("Ann", "5-5").to_json() == {"player": "Ann", "play": "5-5"}
    assert Move.draw("Bob", 2).count == 2
    assert Move.draw("Bob", Tile.of(3, 4)).drawn == (Tile.of(3, 4),)
    assert Move.deal({"Ann": [Tile.of(1, 2)]}).to_json() == {"deal": {"Ann": ["1-2"]}}
    assert Move.end_round().to_json() == {"end_round": {}}
