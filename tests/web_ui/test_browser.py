"""The dashboard in headless Chromium (Playwright driving Debian's /usr/bin/chromium).

Each test runs a fresh app under waitress on 127.0.0.1 and a free port (closed at the end).
``scripts/setup.sh`` installs playwright and chromium; without them these tests skip and say so.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from companion.simulate import play_random_game
from webui_helpers import PLAYERS, make_app, wait_js
from web_ui import stop_streams
from web_ui.services import StillFrames, jpeg_of_colour

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOT_DIR = Path(os.environ.get("DASHBOARD_SHOTS", "/tmp"))

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: run "
                               "scripts/setup.sh (pip install playwright)")
if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
    pytest.skip(f"{CHROMIUM} is missing: run scripts/setup.sh as root (apt-get install chromium)",
                allow_module_level=True)


class Live:
    """A dashboard served by waitress in a thread, for one test."""

    def __init__(self, tmp_path: Path, frames: StillFrames | None = None, **config: Any) -> None:
        from waitress import create_server

        cfg = {"STREAM_MAX_S": 20.0, "SSE_HEARTBEAT_S": 1.0, **config}
        self.app = make_app(tmp_path, frames=frames, **cfg)
        self.server = create_server(self.app, host="127.0.0.1", port=0, threads=12)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        self.contexts: list[Any] = []

    @property
    def code(self) -> str:
        return str(self.app.extensions["secrets"].pairing_code)

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        stop_streams(self.app, self.server, loop_thread=self.thread)
        self.thread.join(timeout=5)
        assert not self.thread.is_alive(), "the server's loop did not end"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    srv = Live(tmp_path)
    yield srv
    srv.close()


def open_page(browser: Any, live: Live, errors: list[str], **ctx: Any) -> Any:
    context = browser.new_context(**ctx)
    live.contexts.append(context)
    context.set_default_timeout(8000)
    page = context.new_page()
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}")
            if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.goto(live.url + "/")
    page.wait_for_selector("#live.ok")  # the live stream is connected
    return page


def pair_in_page(page: Any, live: Live) -> None:
    page.click("#pair-btn")
    assert page.inner_text("#host-code") == live.code  # shown on the host's own page
    page.fill("#pair-code", live.code)
    page.click("#pair-submit")
    page.wait_for_selector("#role:has-text('Controller')")
    page.wait_for_selector("#live.ok")


def api_post(page: Any, path: str, body: Any) -> Any:
    token = page.get_attribute('meta[name="csrf-token"]', "content")
    resp = page.request.post(page.url.rstrip("/") + path, data=body,
                             headers={"X-CSRF-Token": token})
    return resp


def test_controller_follows_a_game_live(browser: Any, live: Live) -> None:
    errors: list[str] = []
    page = open_page(browser, live, errors, viewport={"width": 1024, "height": 768})
    pair_in_page(page, live)
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=12)
    for m in sim.moves:
        resp = api_post(page, "/api/submit", {"entry": m.to_json()})
        assert resp.status == 200, resp.text()
    game = sim.game
    for p in PLAYERS:  # the scores shown without a reload
        page.wait_for_selector(f".player[data-player='{p}'] .pscore:text-is('{game.scores[p]}')")
    assert page.inner_text("#last-move").startswith(str(sim.moves[-1]))
    assert page.locator("#history li").count() == len(sim.moves)
    turn = game.current_player
    assert "to play" in page.inner_text(f".player[data-player='{turn}']")
    need = 100 - game.scores["Ann"]
    assert f"needs {need} to reach 100" in page.inner_text(".player[data-player='Ann']")
    assert page.locator("#houses-card").is_visible()
    page.screenshot(path=str(SHOT_DIR / "dashboard-1024x768.png"), full_page=True)
    assert errors == []


def test_illegal_alert_correction_and_undo(browser: Any, live: Live) -> None:
    errors: list[str] = []
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=6)
    for m in sim.moves[:5]:
        assert api_post(page, "/api/submit", {"entry": m.to_json()}).status == 200
    right = sim.moves[5]
    # a wrong tile entered in the play form
    page.select_option("#play-form select[name=player]", right.player)
    page.fill("#play-form input[name=play]", "6-6")
    page.click("#play-form button[type=submit]")
    alert = page.wait_for_selector(".alert-illegal")
    text = alert.inner_text()
    assert "Illegal placement" in text and "Legal now:" in text
    # correct it with the right tile
    page.click(".alert-illegal button:has-text('Correct')")
    page.fill(".correct-form input[name=play]", str(right.tile))
    page.fill(".correct-form input[name=on]", str(right.on) if right.on else "")
    page.click(".correct-form button[type=submit]")
    page.wait_for_selector("#alerts", state="hidden")
    page.wait_for_selector(f"#last-move:has-text('{right.player} plays')")
    assert "[correction]" in page.inner_text("#last-move")
    assert page.locator("#history li").count() == 6
    # undo in one tap
    page.click("#undo-btn")
    sync_api.expect(page.locator("#history li")).to_have_count(5)
    assert live.app.extensions["session"].session.state()["moves"] == 5
    # an illegal entry dismissed leaves the log as it was
    page.fill("#play-form input[name=play]", "6-6")
    page.click("#play-form button[type=submit]")
    page.click(".alert-illegal button:has-text('Dismiss')")
    page.wait_for_selector("#alerts", state="hidden")
    assert live.app.extensions["session"].session.state()["moves"] == 5
    assert errors == []


def test_a_double_tap_sends_one_request(browser: Any, live: Live) -> None:
    """Two taps on Undo before the first is answered (a double tap): one entry is undone, and
    the second tap says it was not sent."""
    errors: list[str] = []
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=3)
    for m in sim.moves:
        assert api_post(page, "/api/submit", {"entry": m.to_json()}).status == 200
    sync_api.expect(page.locator("#history li")).to_have_count(3)
    page.evaluate("() => { const b = document.querySelector('#undo-btn'); b.click(); b.click(); }")
    sync_api.expect(page.locator("#history li")).to_have_count(2)
    page.wait_for_selector("#toast:has-text('Undone')")
    page.wait_for_timeout(300)
    assert live.app.extensions["session"].session.state()["moves"] == 2
    assert errors == []


def test_spectator_cannot_change_anything(browser: Any, live: Live) -> None:
    errors: list[str] = []
    page = open_page(browser, live, errors)
    assert page.inner_text("#role") == "Spectator (read only)"
    assert page.is_disabled("#undo-btn")
    assert not page.locator("#entry-card").is_visible()
    assert not page.locator("#game-card").is_visible()
    assert errors == []
    # even a hand-made request is refused: read only
    status = page.evaluate("""async () => {
        const token = document.querySelector('meta[name=csrf-token]').content;
        const r = await fetch('/api/undo', {method: 'POST', headers: {
            'Content-Type': 'application/json', 'X-CSRF-Token': token}, body: '{}'});
        return [r.status, (await r.json()).error];
    }""")
    assert status[0] == 403 and "read only" in status[1]
    # a POST without the CSRF token is refused too
    status = page.evaluate("""async () => {
        const r = await fetch('/api/submit', {method: 'POST', headers: {
            'Content-Type': 'application/json'}, body: '{"entry": {"player": "Ann", "pass": true}}'});
        return [r.status, (await r.json()).error];
    }""")
    assert status[0] == 403 and "CSRF" in status[1]
    # the spectator still follows the game live
    session = live.app.extensions["session"].session
    sim = play_random_game("allfives", PLAYERS, seed=5, max_moves=3)
    for m in sim.moves:
        session.submit(m)
    sync_api.expect(page.locator("#history li")).to_have_count(3)
    assert session.state()["moves"] == 3
    # the only console errors are the browser's notes on the two refused requests
    assert len(errors) == 2 and all("403 (FORBIDDEN)" in e for e in errors), errors


def test_controller_post_without_csrf_is_refused(browser: Any, live: Live) -> None:
    errors: list[str] = []
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    status = page.evaluate("""async () => {
        const r = await fetch('/api/undo', {method: 'POST', headers: {
            'Content-Type': 'application/json'}, body: '{}'});
        return r.status;
    }""")
    assert status == 403
    assert len(errors) == 1 and "403 (FORBIDDEN)" in errors[0], errors


@pytest.mark.parametrize("size", [(1024, 768), (768, 1024)])
def test_tablet_viewports(browser: Any, live: Live, size: tuple[int, int]) -> None:
    errors: list[str] = []
    w, h = size
    page = open_page(browser, live, errors, viewport={"width": w, "height": h},
                     has_touch=True, is_mobile=False, color_scheme="dark")
    pair_in_page(page, live)
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=9)
    for m in sim.moves:
        api_post(page, "/api/submit", {"entry": m.to_json()})
    sync_api.expect(page.locator("#history li")).to_have_count(9)
    assert page.evaluate("document.documentElement.scrollWidth") <= w, "no sideways scrolling"
    small = page.evaluate("""() => [...document.querySelectorAll('button, .btn, input, select')]
        .filter(e => e.offsetParent !== null)
        .map(e => [e.id || e.name || e.textContent.trim(), e.getBoundingClientRect()])
        .filter(([, r]) => r.height < 44 || r.width < 44).map(([n]) => n)""")
    assert small == [], f"touch targets under 44 px: {small}"
    # undo stays visible after scrolling to the bottom
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    box = page.locator("#undo-btn").bounding_box()
    assert box is not None and 0 <= box["y"] < h
    # dark mode from prefers-color-scheme, and the toggle switches it
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.click("#theme-btn")
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != bg
    page.screenshot(path=str(SHOT_DIR / f"dashboard-{w}x{h}.png"))
    assert errors == []


def test_uncertain_reading_confirm_and_alternatives(browser: Any, live: Live) -> None:
    errors: list[str] = []
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    session = live.app.extensions["session"].session
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=4)
    for m in sim.moves[:2]:
        session.submit(m)
    read = dict(sim.moves[2].to_json(), confidence=0.6)
    session.submit(dict(read, alternatives=[sim.moves[2].to_json()]), source="camera")
    box = page.wait_for_selector(".alert-confirm")
    assert "Uncertain reading" in box.inner_text()
    labels = page.locator(".alert-confirm button").all_inner_texts()
    assert labels[0] == "Confirm" and labels[1].startswith("It was ")
    assert labels[-2:] == ["Correct…", "Dismiss"]
    page.click(".alert-confirm button:has-text('Confirm')")
    page.wait_for_selector("#alerts", state="hidden")
    sync_api.expect(page.locator("#history li")).to_have_count(3)
    # the likeliest alternative, one tap; named by its tile as the interpreters name it
    true = sim.moves[3].to_json()
    session.submit(dict(true, confidence=0.5, play="0-0",
                        alternatives=[{"tile": true["play"], "p": 0.3}]), source="camera")
    button = page.locator(".alert-confirm button:has-text('It was')")
    sync_api.expect(button).to_have_text(
        f"It was {true['player']} plays {true['play']}" + (f" on {true['on']}" if "on" in true else ""))
    button.click()
    page.wait_for_selector("#alerts", state="hidden")
    sync_api.expect(page.locator("#history li")).to_have_count(4)
    assert session.state()["history"][-1]["entry"]["reading"]["play"] == "0-0"
    assert errors == []


def test_a_held_play_shows_as_waiting_and_follows_the_answer(browser: Any, live: Live) -> None:
    """A legal camera play seen while a question waits is shown in the compact waiting list
    below the questions (no red illegal box, no legal moves judged without the play in
    question), with a button to log it at once; an illegal one judged so is listed there too;
    confirming the question logs both legal ones, in the order seen."""
    errors: list[str] = []
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    session = live.app.extensions["session"].session
    session.submit({"player": PLAYERS[0], "play": "5-5"})
    session.submit({"player": PLAYERS[1], "play": "0-5", "on": "5-5"})
    asked = session.game.current_player
    session.submit({"player": asked, "play": "3-5", "on": "5-5", "confidence": 0.6},
                   source="camera")
    held = session.submit({"player": asked, "play": "0-0", "on": "0-5", "confidence": 0.99},
                          source="camera").alert
    assert held is not None and held.held
    stray = session.submit({"player": asked, "play": "6-6", "on": "0-0", "confidence": 0.99},
                           source="camera").alert
    assert stray is not None and stray.kind == "illegal" and stray.waiting
    item = page.wait_for_selector(f".waiting-list [data-alert='{stray.id}']")
    box = page.locator(".alert-waiting")
    assert box.inner_text().startswith("Waiting: 2 entries seen while a question above is open")
    assert page.locator(".alert-illegal").count() == 0 and "Legal now" not in box.inner_text()
    labels = page.locator(f"[data-alert='{held.id}'] button").all_inner_texts()
    assert labels == ["Log now", "Dismiss"]
    assert item.inner_text().startswith(f"{asked} plays 6-6 on 0-0")
    page.screenshot(path=str(SHOT_DIR / "held-play.png"))
    page.click(f"[data-alert='{stray.id}'] button:has-text('Dismiss')")
    sync_api.expect(page.locator(".waiting-list li")).to_have_count(1)
    page.click(".alert-confirm button:has-text('Confirm')")
    page.wait_for_selector("#alerts", state="hidden")
    sync_api.expect(page.locator("#history li")).to_have_count(4)
    texts = [h["text"] for h in session.state()["history"]]
    assert texts[2].endswith("plays 3-5 on 5-5") and texts[3].endswith("plays 0-0 on 0-5")
    assert not texts[3].startswith(asked)  # the turn after the 3-5, not the turn before it
    assert errors == []

def test_an_answer_refused_for_the_turn_offers_the_missed_pass(browser: Any,
                                                              live: Live) -> None:
    """Answered with the player who really laid the tile, a question the rules refuse only for
    the turn shows one button per explanation ("Bob passes, then Cy plays ..."); one tap logs
    the pass and the play."""
    errors: list[str] = []
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    session = live.app.extensions["session"].session
    first, turn, laid_by = PLAYERS[0], PLAYERS[1], PLAYERS[2]
    session.submit({"player": first, "play": "5-5"})
    asked = session.submit({"player": turn, "play": "0-5", "on": "5-5", "confidence": 0.6},
                           source="camera").alert
    refused = api_post(page, f"/api/alerts/{asked.id}/correct",
                       {"entry": {"player": laid_by, "play": "0-5", "on": "5-5"}})
    assert refused.ok and refused.json()["status"] == "illegal"
    button = page.locator(".alert-illegal button", has_text="passes, then")
    sync_api.expect(button).to_have_text(f"{turn} passes, then {laid_by} plays 0-5 on 5-5")
    assert "the camera cannot see a pass" in page.inner_text(".alert-illegal")
    page.screenshot(path=str(SHOT_DIR / "missed-pass.png"))
    button.click()
    page.wait_for_selector("#alerts", state="hidden")
    sync_api.expect(page.locator("#history li")).to_have_count(3)
    assert [h["text"] for h in session.state()["history"]] == [
        f"{first} plays 5-5", f"{turn} passes", f"{laid_by} plays 0-5 on 5-5"]
    assert errors == []


def test_camera_video_and_offline_banner(browser: Any, tmp_path: Path) -> None:
    frames = StillFrames(stall_after=1.0)
    green = jpeg_of_colour((0, 120, 0), (320, 240), "table")
    feeding = threading.Event()
    feeding.set()

    def feed() -> None:  # a camera at 10 fps while ``feeding`` is set
        while feeding.is_set():
            frames.push(green)
            time.sleep(0.1)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    live = Live(tmp_path, frames=frames, STREAM_MAX_S=2.0)
    try:
        errors: list[str] = []
        page = open_page(browser, live, errors)
        wait_js(page, "document.querySelector('#video').naturalWidth === 320")
        assert not page.locator("#camera").is_visible()  # camera ok: no banner
        assert page.locator("#diag-card").is_visible()
        assert "frames" in page.inner_text("#diag")
        # the camera stops: past stall_after the offline banner shows, with a hint
        feeding.clear()
        feeder.join(2)
        page.wait_for_selector("#camera.banner-offline", timeout=8000)
        assert "Camera offline" in page.inner_text("#camera-msg")
        assert page.locator("#camera-hints li").count() >= 1
        # the video stream has ended by now (STREAM_MAX_S); the page opens the next one itself
        time.sleep(2.5)
        frames.push(jpeg_of_colour((0, 0, 120), (400, 300), "back"))
        wait_js(page, "document.querySelector('#video').naturalWidth === 400")
        page.wait_for_selector("#camera", state="hidden")  # camera ok again: banner gone
        assert errors == []
    finally:
        feeding.clear()
        live.close()


def test_refused_stream_is_retried(browser: Any, tmp_path: Path) -> None:
    live = Live(tmp_path, SSE_MAX_STREAMS=1)
    try:
        errors: list[str] = []
        first = open_page(browser, live, errors)
        ctx = browser.new_context()
        live.contexts.append(ctx)
        second = ctx.new_page()
        second.goto(live.url + "/")
        second.wait_for_selector("#live.warn")  # refused: over the cap
        first.context.close()  # frees the one stream
        second.wait_for_selector("#live.ok", timeout=15000)
        assert live.app.extensions["sse_gate"].open == 1
    finally:
        live.close()


def test_game_view_is_shown_as_key_values(browser: Any, live: Live) -> None:
    errors: list[str] = []
    page = open_page(browser, live, errors)
    # every game reports a view now: All Fives draws its (still empty) line
    page.wait_for_selector("#view[data-kind='line']")
    assert "no tile on the table yet" in page.inner_text("#view")
    session = live.app.extensions["session"].session
    # a view without a "kind" the dashboard knows is shown as key-values
    session.game.view = lambda: {"open_ends": [5, 3], "count": 8}
    sim = play_random_game("allfives", PLAYERS, seed=1, max_moves=1)
    session.submit(sim.moves[0])
    page.wait_for_selector("#view[data-kind='generic']")
    text = page.inner_text("#view")
    assert "open ends" in text and "[5,3]" in text and "count" in text and "8" in text
    assert errors == []


def test_a_play_read_again_is_amended_or_kept_with_one_tap(browser: Any, live: Live) -> None:
    """The camera now reads 5-6 where it first read Cy's 3-5: the alert offers the amendment and
    keeping the play; "Amend" changes the history and the scores without a reload; "Keep"
    leaves the log as it was."""
    errors: list[str] = []
    page = open_page(browser, live, errors)
    pair_in_page(page, live)
    session = live.app.extensions["session"].session
    plays = [{"player": "Ann", "play": "5-5"}, {"player": "Bob", "play": "0-5", "on": "5-5"},
             {"player": "Cy", "play": "3-5", "on": "5-5"},
             {"player": "Ann", "play": "0-2", "on": "0-5"}]
    for e in plays:
        assert session.submit(e).status == "accepted"
    session.submit({"reread": {"was": "3-5", "as": {"play": "5-6"}}, "confidence": 0.97},
                   source="camera")
    box = page.wait_for_selector(".alert-amend")
    assert box.inner_text().startswith("Read again: the camera now reads 5-6 where it first read 3-5")
    labels = page.locator(".alert-amend button").all_inner_texts()
    assert labels == ["Amend to Cy plays 5-6 on 5-5", "Keep 3-5"]
    page.click(".alert-amend button:has-text('Amend to')")
    page.wait_for_selector("#alerts", state="hidden")
    page.wait_for_selector(".player[data-player='Ann'] .pscore:text-is('10')")
    sync_api.expect(page.locator("#history li.amended")).to_have_count(1)
    assert "5-6" in page.locator("#history li.amended").inner_text()
    # read again once more, as 4-5 this time: kept as logged
    session.submit({"reread": {"was": "5-6", "as": {"play": "4-5"}}}, source="camera")
    page.click(".alert-amend button:has-text('Keep 5-6')")
    page.wait_for_selector("#alerts", state="hidden")
    assert session.history[2]["entry"]["play"] == "5-6" and session.game.scores["Ann"] == 10
    assert errors == []
