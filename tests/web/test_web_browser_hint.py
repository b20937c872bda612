"""The play page: the Hints box shows the cards the computer likely holds (needs Chromium).

A server of its own (the fixtures of test_web_browser.py, built again for this module)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("flask", reason="the web mode needs Flask (the [play] extra)")
pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")

from test_web_browser import idle, page, server  # noqa: E402, F401 - the same fixtures


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_the_hint_shows_only_when_its_box_is_ticked(page, server):  # noqa: F811
    page.goto(f"{server}/?fast=1")
    page.wait_for_selector('#your-hand .card[data-card="AC"].playable')
    idle(page)
    assert not page.is_visible("#hint")  # off by default
    page.click('#your-hand .card[data-card="AC"]')  # a trick: the computer has moved
    idle(page)
    page.check("#hints")
    page.wait_for_selector("#hint", state="visible")
    text = page.inner_text("#hint")
    assert text.startswith("Hint (read from the computer's moves)")
    assert re.search(r"\d+%", text)
    page.uncheck("#hints")
    page.wait_for_selector("#hint", state="hidden")
    assert not page.errors, page.errors
