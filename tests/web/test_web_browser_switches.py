"""The play page's switches (needs Chromium): a king or queen led without declaring its
marriage, and the Hints box that shows the cards the computer likely holds.

A server of its own (the fixtures of test_web_browser.py, built again for this module):
the page's new matches count against the client's rate like any other."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("flask", reason="the web mode needs Flask (the [play] extra)")
pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")

from test_web_browser import idle, page, server  # noqa: E402, F401 - the same fixtures


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_lead_a_king_without_declaring(page, server):  # noqa: F811
    page.goto(f"{server}/?fast=1")
    page.wait_for_selector('#your-hand .card[data-card="AC"].playable')
    idle(page)
    assert not page.is_visible("#declare")  # no marriage possible yet
    page.click('#your-hand .card[data-card="AC"]')  # wins the first trick
    idle(page)
    page.wait_for_selector("#your-hand .card.marriage")
    assert page.is_visible("#declare")
    page.click("#declare")  # switch marriages off
    assert page.locator("#your-hand .card.marriage").count() == 0
    assert page.get_attribute("#declare", "aria-pressed") == "false"
    assert page.get_attribute('#your-hand .card[data-card="KH"]', "data-action") == "KH"
    page.click('#your-hand .card[data-card="KH"]')
    idle(page)
    log = page.inner_text("#log")
    assert "K\u2665" in log and "20 in hearts" not in log  # led, not declared
    assert not page.errors, page.errors


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_the_hint_shows_only_when_its_box_is_ticked(page, server):  # noqa: F811
    page.goto(f"{server}/?fast=1")
    page.wait_for_selector("#your-hand .card.playable")
    idle(page)
    assert not page.is_visible("#hint")  # off by default
    while page.locator("#log li").count() == 0:  # until the computer has made a move
        page.click("#your-hand .card.playable >> nth=0")
        idle(page)
    page.wait_for_selector("#your-hand .card.playable")
    page.check("#hints")
    page.wait_for_selector("#hint", state="visible")
    text = page.inner_text("#hint")
    assert text.startswith("Hint (read from the computer's moves)")
    assert re.search(r"\d+%", text)
    page.uncheck("#hints")
    page.wait_for_selector("#hint", state="hidden")
    assert not page.errors, page.errors
