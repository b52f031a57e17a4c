"""Tiles and sets: the text round trip, canonical order, ordering that agrees with equality,
set sizes, the set checker's messages and a misread tile's order of halves."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import SetError, TileParseError
from companion.tiles import (SET_SIZES, Tile, check_set, full_set, oriented_halves, parse_tiles,
                             pip_total)


def test_parse_is_canonical_smaller_first() -> None:
    assert Tile.parse("5-3") == Tile.parse("3-5")
    assert str(Tile.parse("5-3")) == "3-5"
    assert Tile.parse(" 12 - 0 ").halves == (0, 12)


def test_coloured_tiles() -> None:
    t = Tile.parse("red:5-2")
    assert str(t) == "red:2-5"
    assert t != Tile.parse("2-5") and t.plain() == Tile.parse("2-5")
    assert t.with_colour("blue") == Tile.parse("blue:2-5")


@given(st.integers(0, 15), st.integers(0, 15), st.sampled_from(["", "red", "blue"]))
def test_text_round_trip(a: int, b: int, colour: str) -> None:
    t = Tile.of(a, b, colour)
    assert Tile.parse(str(t)) == t
    assert t.pips == a + b
    assert t.is_double == (a == b)
    assert t.has(a) and t.other(a) == b


@given(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), min_size=2, max_size=8))
def test_ordering_agrees_with_equality(pairs) -> None:
    tiles = [Tile.of(a, b) for a, b in pairs]
    for x in tiles:
        for y in tiles:
            assert (x == y) == (not x < y and not y < x)


@pytest.mark.parametrize("text,fragment", [
    ("", "cannot read tile"),
    ("3", "cannot read tile"),
    ("3-16", "0 to 15"),
    ("a-b", "cannot read tile"),
    ("3--5", "cannot read tile"),
    ("RED:2-5", "cannot read tile"),
])
def test_bad_tile_text_is_explained(text: str, fragment: str) -> None:
    with pytest.raises(TileParseError, match=fragment):
        Tile.parse(text)


def test_parse_rejects_non_text() -> None:
    with pytest.raises(TileParseError, match="as text"):
        Tile.parse(35)  # type: ignore[arg-type]


def test_constructor_checks_order() -> None:
    with pytest.raises(TileParseError, match="Tile.of"):
        Tile("", 5, 3)


@pytest.mark.parametrize("n,size", [(6, 28), (9, 55), (12, 91), (15, 136)])
def test_set_sizes(n: int, size: int) -> None:
    tiles = full_set(n)
    assert len(tiles) == size == SET_SIZES[n]
    assert len(set(tiles)) == size
    check_set(tiles, n)


def test_unknown_set() -> None:
    with pytest.raises(SetError, match="double-6, double-9"):
        full_set(7)


def test_check_set_names_every_problem() -> None:
    tiles = full_set(6)
    tiles.remove(Tile.parse("2-3"))
    tiles.append(Tile.parse("4-4"))
    with pytest.raises(SetError) as err:
        check_set(tiles, 6)
    assert "duplicates 4-4" in str(err.value)
    assert "missing 2-3" in str(err.value)
    tiles = full_set(6)[:-1] + [Tile.parse("6-7")]
    with pytest.raises(SetError, match="not in the set 6-7"):
        check_set(tiles, 6)


def test_parse_tiles_names_the_item() -> None:
    assert parse_tiles(["1-2", "3-4"]) == [Tile.of(1, 2), Tile.of(3, 4)]
    with pytest.raises(TileParseError, match="item 1"):
        parse_tiles(["1-2", "x"])


def test_pip_total() -> None:
    assert pip_total(parse_tiles(["3-0", "6-5"])) == 14


@pytest.mark.parametrize("tile, read, confs, want", [
    ("2-3", (2, 5), None, (2, 3)),         # the first half read right keeps its place
    ("2-3", (5, 3), None, (2, 3)),         # the second half read right keeps its place
    ("2-3", (3, 5), None, (3, 2)),
    ("2-3", (3, 3), None, (3, 2)),         # both fit: the first half keeps its place
    ("2-3", (5, 6), None, (2, 3)),         # none read right: low-high
    ("2-3", (2, 2), (0.6, 0.9), (3, 2)),   # the surer 2 keeps its place
    ("2-3", (2, 2), (0.9, 0.6), (2, 3)),
    ("4-4", (4, 1), None, (4, 4)),
])
def test_a_tile_takes_the_order_of_its_misreading(tile, read, confs, want) -> None:
    assert oriented_halves(Tile.parse(tile), read, confs) == want
