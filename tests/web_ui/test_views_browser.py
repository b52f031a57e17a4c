"""Each game's table view drawn in headless Chromium, the entry picker from ``entry_kinds``, and
editing a past entry (warning, refusal, history of changes). One screenshot per game view
(1024x768) goes to ``$DASHBOARD_SHOTS`` (default /tmp) as ``view-GAME.png``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import (
    SHOT_DIR,
    Live,
    open_page,
    pair_in_page,
    sync_api,
)

from companion.simulate import default_players, play_random_game

pytestmark = pytest.mark.browser


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    srv = Live(tmp_path)
    yield srv
    srv.close()

# game, players, moves into a seeded random match (mid-game), what the view must show
CASES = [
    ("allfives", 3, 14, "#open-count"),
    ("chickenfoot", 3, 24, ".arms .arm"),
    ("super", 3, 16, ".arms .arm"),
    ("castlerock", 1, 28, "#castle-row .tile"),  # no removal due: nothing drawn for it
    ("fortytwo", 4, 12, "#trick"),
    ("moon", 3, 9, "#trick"),
    ("buildup", 2, 12, ".stack .tile.top"),
    ("stackernoes", 2, 20, "#board .cell.lv0"),
]


def small_targets(page: Any) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('button, .btn, input, select')]
        .filter(e => e.offsetParent !== null)
        .map(e => [e.id || e.name || e.textContent.trim(), e.getBoundingClientRect()])
        .filter(([, r]) => r.height < 44 || r.width < 44).map(([n]) => n)""")


@pytest.mark.parametrize("game, n, moves, selector", CASES, ids=[c[0] for c in CASES])
def test_game_view_drawn(browser: Any, live: Live, game: str, n: int, moves: int,
                         selector: str) -> None:
    errors: list[str] = []
    players = default_players(n)
    sim = play_random_game(game, players, seed=4, max_moves=moves)
    holder = live.app.extensions["session"]
    holder.start(game, players, dict(sim.header.options))
    page = open_page(browser, live, errors, viewport={"width": 1024, "height": 768})
    pair_in_page(page, live)
    session = holder.session
    for m in sim.moves:
        assert session.submit(m).status == "accepted"
    kind = session.state()["view"]["kind"]
    page.wait_for_selector(f"#view[data-kind='{kind}']")
    sync_api.expect(page.locator("#history > li")).to_have_count(len(sim.moves))
    page.wait_for_selector(selector)
    # the entry picker offers what the game offers now, legal values first
    offered = [k["kind"] for k in session.state()["entry_kinds"] if k["kind"] != "end_round"]
    shown = page.eval_on_selector_all("#entry-kinds .kind-group", "gs => gs.map(g => g.dataset.kind)")
    assert shown == offered
    assert small_targets(page) == [], "touch targets under 44 px"
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024, "no sideways scrolling"
    shown = page.inner_text("#view") + "\n" + page.inner_text("#history")
    assert not re.search(r"\b(null|undefined|NaN)\b|\[object ", shown), shown
    page.locator("#view-card").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOT_DIR / f"view-{game}.png"))
    assert errors == []


def test_trick_view_shows_bidder_trump_and_trick(browser: Any, live: Live) -> None:
    errors: list[str] = []
    holder = live.app.extensions["session"]
    holder.start("fortytwo", ["Ann", "Bob", "Cy", "Dee"], {})
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    # the bid picker: Bob bids first (left of the shuffler Ann), every bid 30..42 legal
    page.wait_for_selector("#entry-kinds .kind-group[data-kind='bid']")
    values = page.eval_on_selector_all("#entry-kinds button.value", "bs => bs.map(b => b.dataset.value)")
    assert values == ["pass"] + [str(v) for v in range(30, 43)]
    page.click("#entry-kinds button.value[data-value='30']")
    page.wait_for_selector("#view .chip:has-text('Bob 30')")
    for entry in ({"player": "Cy", "bid": "pass"}, {"player": "Dee", "bid": 31},
                  {"player": "Ann", "bid": "pass"}):
        assert holder.session.submit(entry).status == "accepted"
    page.wait_for_selector("#entry-kinds .kind-group[data-kind='trump']")
    page.click("#entry-kinds button.value[data-value='5']")
    page.wait_for_selector("#view .chip:has-text('trump: 5')")
    for entry in ({"player": "Dee", "play": "5-5"}, {"player": "Ann", "play": "4-6"}):
        assert holder.session.submit(entry).status == "accepted"
    page.wait_for_selector("#trick .played >> nth=1")
    text = page.inner_text("#view")
    assert "Dee bid 31" in text and "led: trump (5s)" in text and "Dee led" in text
    assert errors == []


def test_trick_view_last_trick_renege_warning_and_ending_the_hand_early(
        browser: Any, live: Live) -> None:
    """Forty-Two without the deal: the trick just won stays in view until the next lead; a
    renege raises a warning line naming who and the trick; the points column says "Points";
    the "End the hand early" form enters the table's ruling as end_round "taken"."""
    from test_api import RENEGE_42

    errors: list[str] = []
    holder = live.app.extensions["session"]
    holder.start("fortytwo", ["Ann", "Bob", "Cy", "Dee"], {})
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    session = holder.session
    for entry in RENEGE_42[:9]:
        assert session.submit(entry).status == "accepted"
    page.wait_for_selector("#last-trick")
    assert "Last trick (1): Bob won it with 6-6, 1 point" in page.inner_text("#last-trick")
    assert page.eval_on_selector("#last-trick .played.won-it", "e => e.textContent") == "Bob66"
    assert page.inner_text("table.won thead").split() == ["Team", "Tricks", "Points"]
    assert page.is_visible("#taken-form") and not page.is_visible("#end-round-form")
    for entry in RENEGE_42[9:]:
        assert session.submit(entry).status == "accepted"
    page.wait_for_selector(".renege-warning")
    assert page.locator("#last-trick").count() == 0  # the next lead: only the trick in play
    warning = page.inner_text("#renege-warnings")
    assert warning.startswith("⚠ Renege: Dee reneged in trick 1 (6-6 led suit 6 and Dee played "
                              "1-1, but now plays 3-6, which is suit 6)"), warning
    assert "A renege was flagged" in page.inner_text("#taken-form")
    assert page.input_value("#taken-sides input[name='Bob']") == "1"
    page.fill("#taken-sides input[name='Ann']", "42")
    page.fill("#taken-sides input[name='Bob']", "0")
    page.click("#taken-submit")
    page.wait_for_selector("#players [data-player='Ann'] .pscore:has-text('72')")
    assert page.locator(".renege-warning").count() == 0  # a new hand
    assert errors == []


def test_a_chickenfoot_waiting_for_its_toes_is_drawn(browser: Any, live: Live) -> None:
    """A double played as a chickenfoot ends no open arm until its first toe: its arm is still
    drawn, with the toes it waits for. A camera entry says where it came from once (the chip),
    and the last move names it."""
    errors: list[str] = []
    players = ["Ann", "Bob", "Cy"]
    holder = live.app.extensions["session"]
    holder.start("chickenfoot", players, {})
    page = open_page(browser, live, errors)
    for i, toe in enumerate(["9-0", "9-1", "9-2", "9-3", "9-4", "9-5"]):
        assert holder.session.submit({"player": players[i % 3], "play": toe,
                                      "on": "9-9"}).status == "accepted"
    assert holder.session.submit({"player": "Ann", "play": "3-3", "on": "3-9",
                                  "source": "camera"}).status == "accepted"
    arm = page.wait_for_selector("#view .arm:has-text('toes to go')")
    assert re.fullmatch(r"9\s*3\s*3\s*3\s*→\s*3\s*\(3 toes to go\)", arm.inner_text().strip()), \
        arm.inner_text()
    assert page.inner_text("#last-move") == "Ann plays 3-3 on 3-9 [camera]"
    item = page.inner_text("#history > li >> nth=0")
    assert "Ann plays 3-3 on 3-9" in item and "[camera]" not in item and "camera" in item
    assert errors == []


def test_the_rounds_table_says_what_its_two_numbers_are(browser: Any, live: Live) -> None:
    """After a Chickenfoot round: each cell holds the round's penalty pips and the total after
    it, and the table's note says so (and that lower is better)."""
    errors: list[str] = []
    players = default_players(3)
    sim = play_random_game("chickenfoot", players, seed=4, max_moves=80)
    holder = live.app.extensions["session"]
    holder.start("chickenfoot", players, dict(sim.header.options))
    page = open_page(browser, live, errors)
    for m in sim.moves:
        assert holder.session.submit(m).status == "accepted"
    first = sim.game.round_scores[0]
    page.wait_for_selector("#grid tbody tr:not(.now)")
    row = page.locator("#grid tbody tr").nth(0)
    for i, p in enumerate(players):
        cell = row.locator("td").nth(i + 1)
        assert cell.locator(".rs").inner_text() == str(first[p])
        assert cell.locator(".rs").get_attribute("title") == "this round"
        assert cell.locator(".tot").get_attribute("title") == "total after it"
    assert page.inner_text("#grid-sub") == ("(penalty pips: lower is better; each round: its "
                                            "points, then the total after it)")
    assert errors == []


def test_edit_a_past_entry_with_warning_refusal_and_history(browser: Any, live: Live) -> None:
    errors: list[str] = []
    holder = live.app.extensions["session"]
    holder.start("allfives", ["Ann", "Bob"], {})
    session = holder.session
    for e in ({"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"},
              {"player": "Ann", "play": "3-5", "on": "5-5"},
              {"player": "Bob", "play": "0-2", "on": "0-5"}):
        assert session.submit(e).status == "accepted"
    page = open_page(browser, live, errors, viewport={"width": 1024, "height": 768})
    pair_in_page(page, live)
    page.wait_for_selector(".player[data-player='Bob'] .pscore:text-is('15')")
    seq = session.seqs[2]
    page.click(f"#history li[data-seq='{seq}'] button.edit")
    warning = page.inner_text("#amend-warning")
    assert "Warning" in warning and "every entry after it is checked again" in warning
    # a change that breaks a later line is refused: nothing changes
    page.fill("#amend-entry", '{"player": "Ann", "play": "0-2", "on": "0-5"}')
    page.click("#amend-save")
    toast = page.wait_for_selector("#toast.bad")
    assert "line 4" in toast.inner_text() and "no longer replay" in toast.inner_text()
    assert session.state()["scores"] == {"Ann": 10, "Bob": 15}
    # a change that fits: 5-6 instead of 3-5 (Bob's 0-2 then makes 8: no score)
    page.fill("#amend-entry", '{"player": "Ann", "play": "5-6", "on": "5-5"}')
    page.click("#amend-save")
    page.wait_for_selector(".player[data-player='Bob'] .pscore:text-is('10')")
    item = page.locator(f"#history li[data-seq='{seq}']")
    sync_api.expect(item.locator(".chip.edited")).to_have_count(1)
    text = item.inner_text()
    assert "first logged: Ann plays 3-5 on 5-5 (hand)" in text
    assert "changed to Ann plays 5-6 on 5-5 by correction" in text
    page.screenshot(path=str(SHOT_DIR / "view-amended-history.png"), full_page=True)
    # the only console error is the browser's note on the refused (400) amendment
    assert len(errors) == 1 and "400 (BAD REQUEST)" in errors[0], errors
