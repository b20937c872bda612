"""The web page in a real browser: Debian's headless Chromium driven by Playwright.

Plays a few tricks by clicking, declares a marriage and sees the score
change, then saves a screenshot under ``artifacts/play/`` (or
``$SIXTYSIX_ARTIFACTS``). Skips, saying why, where Chromium or Playwright is
missing; CI installs both.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a real browser: the full lane only

pytest.importorskip("flask", reason="the web mode needs Flask (the [play] extra)")

from werkzeug.serving import make_server

from sixtysix_env.play.web import create_app

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = next(
    (p for p in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")) if p and os.path.exists(p)),
    None,
)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# You get AC KH QH 9S JS 9D; clubs are trumps (10 of clubs face up). Leading
# the ace of trumps wins the first trick whatever the computer plays; then the
# king and queen of hearts may be married (20).
MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"


def _serving(app):
    """The app on Werkzeug's server in a thread; yields its address, then shuts it down."""
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def server():
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = create_app(seed=21, deck=MARRIAGE_DECK, default="random", min_think_seconds=0)
    yield from _serving(app)


@pytest.fixture(scope="module")
def page(server, tmp_path_factory):
    # Imported here, not at the top: collecting the fast lane, which leaves these tests out,
    # imported Playwright in each worker.
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright's Python package is not installed"
    )
    if CHROMIUM is None:
        msg = "Chromium is not installed (Debian: apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(msg + "; CI installs it in .ci/run")  # CI must run the browser test
        pytest.skip(msg)
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            args=ARGS,
            headless=True,
            viewport={"width": 1280, "height": 860},
        )
        pg = ctx.new_page()
        pg.set_default_timeout(15000)
        pg.errors = []
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))
        # Console errors too, except the 4xx answers a test provokes on purpose.
        pg.on(
            "console",
            lambda m: pg.errors.append(m.text)
            if m.type == "error" and "409 (CONFLICT)" not in m.text
            else None,
        )
        yield pg
        ctx.close()


def idle(page) -> None:
    page.wait_for_selector('body[data-busy="0"]')


def points(page) -> int:
    return int(page.get_attribute("#your-points", "data-points"))


def test_play_tricks_and_declare_a_marriage_by_clicking(page, server):
    page.goto(f"{server}/?fast=1")
    page.wait_for_selector('#your-hand .card[data-card="AC"].playable')
    idle(page)
    hand = page.eval_on_selector_all("#your-hand .card", "cs => cs.map(c => c.dataset.card)")
    assert hand == ["9D", "9S", "JS", "QH", "KH", "AC"]  # sorted by suit, trumps last
    assert page.get_attribute("#stock .trump-card", "data-card") == "TC"
    assert page.locator("#your-hand .card.marriage").count() == 0  # no trick won yet
    assert "0" == page.inner_text("#score-you")

    # Trick 1: the ace of trumps.
    page.click('#your-hand .card[data-card="AC"]')
    idle(page)
    page.wait_for_selector("#your-hand .card.playable")
    assert page.inner_text("#your-tricks") == "1 trick"
    after_first = points(page)
    assert after_first >= 11
    assert "Trick 1: you A\u2663" in page.inner_text("#log")

    # The king and queen of hearts glow; the exchange and close buttons show.
    glowing = page.eval_on_selector_all(
        "#your-hand .card.marriage", "cs => cs.map(c => c.dataset.card)"
    )
    assert sorted(glowing) == ["KH", "QH"]
    assert page.is_visible("#exchange") and page.is_visible("#close")
    assert "10\u2663" in page.inner_text("#exchange")

    # Exchange the 9 of trumps for the 10 under the stock.
    page.click("#exchange")
    idle(page)
    page.wait_for_selector('#your-hand .card[data-card="TC"]')
    assert page.locator('#your-hand .card[data-card="9C"]').count() == 0
    assert not page.is_visible("#exchange")

    # Lead the king of hearts: it declares the marriage.
    page.click('#your-hand .card.marriage[data-card="KH"]')
    idle(page)
    assert points(page) >= after_first + 20
    assert "marriage" in page.inner_text("#your-points")
    assert "You declare 20 in hearts" in page.inner_text("#log")

    # A few more tricks, clicking whatever may be played.
    for _ in range(3):
        idle(page)
        if page.is_visible("#summary"):
            break
        page.locator("#your-hand .card.playable").first.click()
    idle(page)
    tricks = page.inner_text("#log").count("Trick ")
    assert tricks >= 4

    out = Path(os.environ.get("SIXTYSIX_ARTIFACTS", ROOT / "artifacts")) / "play"
    out.mkdir(parents=True, exist_ok=True)
    shot = out / "web-table.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert page.errors == []


def test_illegal_click_is_refused_and_new_match_starts_over(page, server):
    page.goto(f"{server}/?fast=1")
    idle(page)
    old = page.evaluate("sessionStorage.getItem('sixtysix-game')")  # a match resumed, if any
    page.select_option("#opponent", "random")
    page.click("#new-match")
    idle(page)
    page.wait_for_selector("#your-hand .card.playable")
    assert page.evaluate("sessionStorage.getItem('sixtysix-game')") != old
    assert page.inner_text("#score-you") == "0" and page.inner_text("#score-computer") == "0"
    assert page.locator("#computer-hand .card").count() == 6
    # The server refuses a move the page would not offer; the table stays.
    status = page.evaluate(
        """async () => {
            const gid = sessionStorage.getItem('sixtysix-game');
            const r = await fetch(`/api/games/${gid}/act`, {method: 'POST',
                headers: {'Content-Type': 'application/json'}, body: '{"action": "AS"}'});
            return r.status;
        }"""
    )
    assert status == 409
    page.click('#your-hand .card[data-card="AC"]')
    idle(page)
    assert page.inner_text("#your-tricks") == "1 trick"
    assert page.errors == []


@pytest.fixture(scope="module")
def lead_server():
    """A server whose first match the computer leads (seed 1: the computer is to move)."""
    from sixtysix_env.play.session import COMPUTER, GameSession

    assert GameSession("random", seed=1).view().to_move == COMPUTER
    app = create_app(seed=1, default="random", min_think_seconds=0)
    yield from _serving(app)


def test_the_log_tells_the_computers_lead(page, lead_server):
    """The computer's lead lies on the table, and the log says so (it said
    "Nothing played yet")."""
    page.goto(f"{lead_server}/?fast=1")
    idle(page)
    page.wait_for_selector("#slot-computer .card")
    lead = page.get_attribute("#slot-computer .card", "data-card")
    label = ("10" if lead[0] == "T" else lead[0]) + {"C": "\u2663", "D": "\u2666",
                                                    "H": "\u2665", "S": "\u2660"}[lead[1]]
    log = page.inner_text("#log")
    assert f"The computer led {label}." in log
    assert "Nothing played yet" not in log
    # Once answered, the trick is logged and the lead line is gone (or is the next lead).
    page.locator("#your-hand .card.playable").first.click()
    idle(page)
    log = page.inner_text("#log")
    assert "Trick 1: computer " + label in log and log.count(f"led {label}.") == 0
    assert page.errors == []
