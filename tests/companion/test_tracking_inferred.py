"""The tracking's memory of stacks the reader lost sight of (companion.tracking.diff with
``changed``): a covered tile stays; a tile laid on one the reader misses, and that one too,
leaves a place remembered with an inferred tile on it, so what is laid there later lies above
both (marked inferred, with a lower layer confidence); a tile read with the value of the tile
it was laid on is laid on it; a tile taken away (the one under it seen again) is forgotten."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
from live_helpers import changed_at, laid_on, tile_at

from companion.tiles import Tile
from companion.tracking import (
    COVER_MIN_OVERLAP,
    GONE_MAX,
    INFERRED_LAYER_CONFIDENCE,
    LAID_MIN_CHANGED,
    UNSEEN_TILE,
    VANISHED_UNDER_MIN,
    ChangedFractions,
    Seen,
    changed_fractions,
    diff,
    overlap_fraction,
)


def test_a_tile_covered_wholly_stays_under_the_stack_while_it_stands() -> None:
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    table = diff([], [low, side]).table
    top = laid_on(low, 3, 4)
    table = diff(table, [side, top], changed=changed_at((100, 100))).table
    for _ in range(GONE_MAX + 3):  # many readings where nothing changed: still under 3-4
        step = diff(table, [side, top], changed=changed_at())
        assert step.empty
        table = step.table
    assert {(s.tile, s.layer, s.hidden) for s in table} == {
        (Tile.of(5, 5), 0, False), (Tile.of(3, 4), 1, False), (Tile.of(1, 2), 0, True)}
    # 3-4 taken back: 1-2 is seen again with its layer, not added
    back = diff(table, [side, low], changed=changed_at((100, 100)))
    assert [s.tile for s in back.uncovered] == [Tile.of(1, 2)] and back.added == []
    assert [s.tile for s in back.removed] == [Tile.of(3, 4)]


def test_a_support_the_reader_never_found_is_inferred_and_marked() -> None:
    """4-4 is laid on 1-2 and the reader misses both (the picture changed there); later 6-6
    is laid there and found: it lies on 4-4, so two layers above 1-2, its layer resting on a
    tile only inferred."""
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    table = diff([], [low, side]).table
    missed = diff(table, [side], changed=changed_at((100, 100)))
    assert [s.tile for s in missed.removed] == [Tile.of(1, 2)]
    gone = [s for s in missed.table if s.gone]
    assert [(s.tile, s.hidden, s.unseen_on) for s in gone] == [(Tile.of(1, 2), True, 1)]
    table = missed.table
    for _ in range(2):  # nothing changes there for two readings: still remembered
        table = diff(table, [side], changed=changed_at()).table
    top = laid_on(laid_on(low, 4, 4), 6, 6)
    laid = diff(table, [side, top], changed=changed_at((100, 100)))
    [six] = laid.added
    assert (six.tile, six.layer, six.inferred_under) == (Tile.of(6, 6), 2, 1)
    assert six.layer_confidence == INFERRED_LAYER_CONFIDENCE < 1.0
    assert [s.tile for s in laid.under[six]] == [Tile.of(1, 2)]
    assert [(a.tile, b.tile) for a, b in laid.covered] == [(Tile.of(1, 2), Tile.of(6, 6))]
    # the inferred tile is never in the table (its value is unknown); 1-2 is hidden under 6-6
    assert {(s.tile, s.hidden) for s in laid.table} == {
        (Tile.of(5, 5), False), (Tile.of(6, 6), False), (Tile.of(1, 2), True)}
    # a tile seen laid on one seen carries no inference
    on_seen = diff(diff([], [low]).table, [laid_on(low, 0, 3)], changed=changed_at((100, 100)))
    assert [(s.layer, s.inferred_under, s.layer_confidence) for s in on_seen.added] == [(1, 0, 1.0)]


def test_a_tile_found_late_where_a_stack_went_out_of_sight_lies_on_it() -> None:
    """The reader misses 0-3 laid on 1-2 and 1-2 under it; three readings later it finds 0-3
    where the picture did not change since: 0-3 is the tile inferred on 1-2, one layer up."""
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    table = diff(diff([], [low, side]).table, [side], changed=changed_at((100, 100))).table
    for _ in range(3):
        table = diff(table, [side], changed=changed_at()).table
    found = diff(table, [side, laid_on(low, 0, 3)], changed=changed_at())
    assert [(s.tile, s.layer, s.inferred_under) for s in found.added] == [(Tile.of(0, 3), 1, 0)]
    assert [(a.tile, b.tile) for a, b in found.covered] == [(Tile.of(1, 2), Tile.of(0, 3))]


def test_a_tile_laid_on_a_known_tile_and_read_with_its_value_is_laid_on_it() -> None:
    """In a game whose tiles stay where they are laid (``fixed``)."""
    low = tile_at(2, 2, 100, 100)
    side = tile_at(5, 5, 300, 100)
    table = diff([], [low, side]).table
    misread = laid_on(low, 2, 2, dx=2.0, dy=1.0)  # a tile laid on 2-2 read as 2-2
    laid = diff(table, [misread, side], changed=changed_at((100, 100)), fixed=True)
    assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(2, 2), 1)]
    assert [a.tile for a, _ in laid.covered] == [Tile.of(2, 2)]
    # a game that moves tiles (or a glare spot over 2-2): the same tile, it stayed
    glare = diff(table, [misread, side], changed=changed_at((100, 100)))
    assert glare.empty and [s.layer for s in glare.table] == [0, 0]
    # its own outline changed less than a tile laid does: the same tile, it stayed
    slight = diff(table, [misread, side], changed=lambda s: LAID_MIN_CHANGED / 2
                  if s.center[0] < 150 else 0.0, fixed=True)
    assert slight.empty and [s.layer for s in slight.table] == [0, 0]
    # its value read far away where a tile was laid now, 2-2 not found where the picture
    # changed too: a new tile, 2-2 did not move (in a game that moves tiles, it moved)
    far = tile_at(2, 2, 200, 100)
    both = changed_at((100, 100), (200, 100))
    elsewhere = diff(table, [side, far], changed=both, fixed=True)
    assert elsewhere.moved == [] and [s.center.tolist() for s in elsewhere.added] == [
        [200.0, 100.0]]
    assert [o.tile for o, _ in diff(table, [side, far], changed=both).moved] == [Tile.of(2, 2)]
    # another tile laid now over part of 2-2 explains the change: 2-2 stayed, the span is on it
    span = Seen(Tile.of(0, 1), (0, 1), tuple((x + 25.0, y) for x, y in low.corners), 0.9)
    spanned = diff(table, [misread, side, span], changed=changed_at((100, 100), (125, 100)),
                   fixed=True)
    assert [(s.tile, s.layer) for s in spanned.added] == [(Tile.of(0, 1), 1)]
    assert [(s.tile, s.layer) for s in spanned.table if s.tile == Tile.of(2, 2)] == [
        (Tile.of(2, 2), 0)]


def test_a_tile_taken_away_with_the_tile_under_it_seen_again_is_forgotten() -> None:
    """3-4 lies on 1-2; 3-4 is taken away (1-2 seen again where it lay): nothing is
    remembered there, so a tile laid there next lies on 1-2, one layer up, not two."""
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 200, 100)
    table = diff(diff([], [low, side]).table, [side, laid_on(low, 3, 4)],
                 changed=changed_at((100, 100))).table
    taken = diff(table, [side, low], changed=changed_at((100, 100)))
    assert [s.tile for s in taken.removed] == [Tile.of(3, 4)]
    assert not any(s.gone for s in taken.table)
    again = diff(taken.table, [side, laid_on(low, 6, 6)], changed=changed_at((100, 100)))
    assert [(s.tile, s.layer, s.inferred_under) for s in again.added] == [(Tile.of(6, 6), 1, 0)]


def _patches(*places: tuple[float, float], size: tuple[float, float] = (44.0, 24.0)
             ) -> ChangedFractions:
    """``changed`` from a mask (frame 400 x 200 px, full scale) changed over a rectangle of
    ``size`` around each of ``places`` (a tile and a little shadow by default)."""
    mask = np.zeros((200, 400), bool)
    for x, y in places:
        mask[int(y - size[1] / 2):int(y + size[1] / 2),
             int(x - size[0] / 2):int(x + size[0] / 2)] = True
    return changed_fractions(SimpleNamespace(mask=mask, scale=1.0))


def test_a_tile_laid_where_the_picture_changed_with_nothing_found_lies_on_an_inferred_one() -> None:
    """The reader misses a tile laid on the table at (100, 100); the next tile, laid on it and
    found, lies one layer up, on a tile only inferred (never in the change, marked)."""
    side = tile_at(5, 5, 250, 100)
    table = diff([], [side]).table
    missed = diff(table, [side], changed=_patches((100, 100)), fixed=True)
    assert missed.empty
    [ghost] = [s for s in missed.table if s.inferred]
    assert (ghost.tile, ghost.hidden, ghost.gone, ghost.layer) == (UNSEEN_TILE, True, True, 0)
    top = laid_on(tile_at(1, 2, 100, 100), 3, 4)
    laid = diff(missed.table, [side, top], changed=_patches((100, 100)), fixed=True)
    [three] = laid.added
    assert (three.tile, three.layer, three.inferred_under) == (Tile.of(3, 4), 1, 1)
    assert three.layer_confidence < 1.0
    assert laid.under[three] == [] and laid.covered == [] and laid.removed == []
    assert not any(s.inferred for s in laid.table)
    # found late where nothing changed since: it is the tile inferred there, on the table
    late = diff(missed.table, [side, tile_at(1, 2, 100, 100)], changed=_patches(), fixed=True)
    assert [(s.tile, s.layer, s.inferred_under) for s in late.added] == [(Tile.of(1, 2), 0, 0)]
    # a game whose tiles move, a change explained by a tile found, or a patch of change far
    # larger than a tile (a hand, the light): nothing inferred
    assert not any(s.inferred for s in diff(table, [side], changed=_patches((100, 100))).table)
    found = diff(table, [side, tile_at(1, 2, 100, 100)], changed=_patches((100, 100)), fixed=True)
    assert not any(s.inferred for s in found.table)
    big = diff(table, [side], changed=_patches((100, 100), size=(150.0, 90.0)), fixed=True)
    assert not any(s.inferred for s in big.table)


def test_patches_of_change_are_given_in_the_units_tiles_are_tracked_in() -> None:
    mask = np.zeros((100, 200), bool)  # frame 400 x 200 px at half size
    mask[40:60, 30:70] = True  # 80 x 40 frame px around (100, 100)
    region = SimpleNamespace(mask=mask, scale=0.5)
    [quad] = changed_fractions(region).blobs()
    assert np.allclose(np.mean(quad, axis=0), [99.0, 99.0], atol=1.5)
    # tracked in other units (mm, here frame px / 2): without the way back, no patches
    to_mm = changed_fractions(region, to_image=lambda s: np.asarray(s.corners) * 2.0)
    assert to_mm.blobs() is None
    both = changed_fractions(region, to_image=lambda s: np.asarray(s.corners) * 2.0,
                             from_image=lambda c: np.asarray(c) / 2.0)
    [mm] = both.blobs()
    assert np.allclose(np.mean(mm, axis=0), [49.5, 49.5], atol=1.0)
    assert changed_fractions(SimpleNamespace(mask=np.zeros((10, 10), bool), scale=1.0)).blobs() == []


def test_a_tile_laid_whose_outline_overlaps_a_known_tile_whose_picture_did_not_change_is_beside_it(
) -> None:
    """A reader's outline of a tile laid beside 0-5 reaches a third over it, but the picture
    at 0-5 did not change: nothing was laid on 0-5, the new tile lies on the table."""
    known = tile_at(0, 5, 100, 100)
    table = diff([], [known]).table
    beside = Seen(Tile.of(1, 3), (1, 3), tuple((x + 28.0, y) for x, y in known.corners), 0.6)
    laid = diff(table, [known, beside], changed=lambda s: 1.0 if s.center[0] > 120 else 0.0)
    assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(1, 3), 0)]
    assert laid.covered == [] and laid.under[laid.added[0]] == []
    # where the picture at 0-5 changed too, it lies on it (a span)
    both = diff(table, [known, beside], changed=lambda s: 1.0 if s.center[0] > 120 else 0.3)
    assert [(s.tile, s.layer) for s in both.added] == [(Tile.of(1, 3), 1)]


def test_a_known_tile_read_with_an_outline_a_third_off_where_nothing_changed_keeps_its_layer(
) -> None:
    """The reader's outline of an upper tile moves by a third of its length between frames
    (IoU 0.45 with the one seen before): where nothing changed it is that tile, on its layer."""
    upper = dataclasses.replace(tile_at(2, 2, 100, 100), layer=2)
    table = diff([], [upper]).table
    jittered = Seen(Tile.of(2, 4), (2, 4), tuple((x + 15.0, y) for x, y in upper.corners), 0.5)
    again = diff(table, [jittered], changed=changed_at())
    assert again.empty and [(s.tile, s.layer) for s in again.table] == [(Tile.of(2, 2), 2)]
    # where the picture changed as a tile laid does, it is a tile laid on it
    laid = diff(table, [jittered], changed=changed_at((115, 100)))
    assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(2, 4), 3)]


def test_a_tile_found_late_over_a_covered_tile_lies_on_it() -> None:
    """In a game whose tiles stay where they are laid (``fixed``): the tile laid on 1-2 was
    read 0-4 with its outline slid across; read right where nothing changes now, it is the tile
    covering 1-2, one layer up, not at the reader's cold-start layer 0 (a game that moves tiles
    keeps that)."""
    low = tile_at(1, 2, 100, 100)
    side = tile_at(5, 5, 300, 100)
    table = diff([], [low, side]).table
    slid = tile_at(0, 4, 100, 112)
    table = diff(table, [slid, side], changed=changed_at((100, 100)), fixed=True).table
    assert {s.tile: (s.layer, s.hidden) for s in table}[Tile.of(1, 2)] == (0, True)
    right = laid_on(low, 0, 3)
    found = diff(table, [right, side], changed=changed_at(), fixed=True)
    assert [(s.tile, s.layer) for s in found.added] == [(Tile.of(0, 3), 1)]
    assert found.removed == []
    moving = diff(table, [right, side], changed=changed_at())
    assert [(s.tile, s.layer) for s in moving.added] == [(Tile.of(0, 3), 0)]


def test_a_tile_laid_on_a_span_read_as_two_tiles_lies_on_both() -> None:
    """In a game whose tiles stay where they are laid: a span over 1-1 and 2-2 was read as two
    tiles, 3-4 and 4-5, one on each support; a tile laid across the span overlaps each by less
    than :data:`COVER_MIN_OVERLAP` but more than :data:`VANISHED_UNDER_MIN`, and they are not
    found now where the picture changed: it lies on them (layer 2), and they are covered, not
    taken away. Before this rule it landed on the table and both were taken as removed."""
    one, two, far = tile_at(1, 1, 106, 100), tile_at(2, 2, 164, 100), tile_at(6, 6, 300, 100)
    table = diff([], [one, two, far]).table
    left, right = tile_at(3, 4, 112, 100), tile_at(4, 5, 158, 100)
    table = diff(table, [left, right, far], changed=changed_at((112, 100), (158, 100)),
                 fixed=True).table
    top = tile_at(0, 5, 135, 100, vertical=True)
    assert VANISHED_UNDER_MIN <= overlap_fraction(top, left) < COVER_MIN_OVERLAP
    laid = diff(table, [top, far], changed=changed_at((135, 100)), fixed=True)
    assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(0, 5), 2)]
    assert {a.tile for a, _ in laid.covered} == {Tile.of(3, 4), Tile.of(4, 5)}
    assert not {Tile.of(3, 4), Tile.of(4, 5)} & {s.tile for s in laid.removed}
    moving = diff(table, [top, far], changed=changed_at((135, 100)))
    assert [(s.tile, s.layer) for s in moving.added] == [(Tile.of(0, 5), 0)]


def _span_read_as_two(changed_radius: float) -> tuple[list[Seen], Seen, Seen]:
    """A span laid across 1-1 and 2-2 and read as two tiles, 3-4 over 1-1 and 4-5 over 2-2
    (one on each support, as the reader reads a span now and then), then 0-5 laid crosswise on
    the span: the table after that, 0-5, and a tile far away. ``changed_radius``: how far
    from 0-5's centre the picture changed when 0-5 was laid."""
    one, two, far = tile_at(1, 1, 106, 100), tile_at(2, 2, 164, 100), tile_at(6, 6, 300, 100)
    table = diff([], [one, two, far]).table
    left, right = tile_at(3, 4, 112, 100), tile_at(4, 5, 158, 100)
    span = diff(table, [left, right, far], changed=changed_at((106, 100), (164, 100)),
                fixed=True)
    assert {a.tile for a, _ in span.covered} == {Tile.of(1, 1), Tile.of(2, 2)}
    top = tile_at(0, 5, 135, 100, vertical=True)
    assert overlap_fraction(top, one) < COVER_MIN_OVERLAP
    laid = diff(span.table, [top, far], changed=changed_at((135, 100), radius=changed_radius),
                fixed=True)
    assert [(s.tile, s.layer) for s in laid.added] == [(Tile.of(0, 5), 2)]
    assert {a.tile for a, _ in laid.covered} == {Tile.of(3, 4), Tile.of(4, 5)}
    return laid.table, top, far


def test_the_supports_of_a_span_read_as_two_tiles_stay_under_it_when_it_is_covered() -> None:
    """The supports 1-1 and 2-2 lie under 3-4 and 4-5 (the span read as two tiles), which lie
    under 0-5; 0-5 covers less than :data:`COVER_MIN_OVERLAP` of each support, and the picture
    changed over the supports too when 0-5 was laid: they stay hidden under the hidden tiles
    above them, not removed (before, a hidden tile stayed only under a tile seen, so both
    supports were reported taken off the table, in a game whose tiles stay where laid)."""
    one, two = tile_at(1, 1, 106, 100), tile_at(2, 2, 164, 100)
    assert changed_at((135, 100), radius=40.0)(one) == 1.0  # their place changed
    table, top, far = _span_read_as_two(changed_radius=40.0)
    assert {(s.tile, s.layer, s.hidden) for s in table} == {
        (Tile.of(6, 6), 0, False), (Tile.of(0, 5), 2, False), (Tile.of(3, 4), 1, True),
        (Tile.of(4, 5), 1, True), (Tile.of(1, 1), 0, True), (Tile.of(2, 2), 0, True)}
    assert one.tile not in {s.tile for s in diff(
        _span_read_as_two(40.0)[0], [top, far], changed=changed_at()).removed}
    # 0-5 taken away with the span (the picture changed over all of it, nothing seen under
    # it): every tile of the stack is gone, as before
    cleared = diff(table, [far], changed=changed_at((135, 100), radius=40.0), fixed=True)
    assert {s.tile for s in cleared.removed} == {
        Tile.of(0, 5), Tile.of(3, 4), Tile.of(4, 5), Tile.of(1, 1), Tile.of(2, 2)}
    assert two.tile in {s.tile for s in cleared.removed}


def test_a_hidden_tile_where_the_picture_did_not_change_is_not_removed() -> None:
    """After the span of the test above was covered, the reader's outline of 0-5 shifts a
    little: it covers less than :data:`COVER_MIN_OVERLAP` of 3-4 and 4-5 now, but the
    picture did not change anywhere, so nothing was taken off them: all stay hidden (before,
    3-4 and 4-5 were reported removed, and with them the supports)."""
    table, top, far = _span_read_as_two(changed_radius=25.0)
    shifted = Seen(top.tile, top.halves, tuple((x, y - 9.0) for x, y in top.corners), 0.99)
    left = next(s for s in table if s.tile == Tile.of(3, 4))
    assert overlap_fraction(shifted, left) < COVER_MIN_OVERLAP
    step = diff(table, [shifted, far], changed=changed_at(), fixed=True)
    assert step.removed == [] and step.added == []
    assert {s.tile for s in step.table if s.hidden} == {
        Tile.of(3, 4), Tile.of(4, 5), Tile.of(1, 1), Tile.of(2, 2)}
    # without the memory nothing says the picture did not change: as before
    assert Tile.of(3, 4) in {s.tile for s in diff(table, [shifted, far]).removed}
