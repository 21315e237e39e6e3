"""What the page's browser tests share: waiting on the page, reading it in one step, and bringing a
match to the German's first movement phase."""

from __future__ import annotations

import random

import pytest
from selenium.webdriver.support.ui import WebDriverWait

#: True while an action the page sent is on its way (the page takes no click until it is in).
BUSY_JS = "return !!(window.typhoon.match && window.typhoon.match.busy)"


def wait(browser, condition, timeout: float = 20.0):
    """``condition(driver)`` once it is truthy, polled every 50 ms for up to ``timeout`` seconds."""
    return WebDriverWait(browser, timeout, poll_frequency=0.05).until(lambda driver: condition(driver))


def text(browser, css: str) -> str:
    """An element's text, read in one step (the page re-renders: a found element can go stale)."""
    return browser.execute_script("const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css)


def selected(browser):
    """The unit the play page has selected, if any."""
    return browser.execute_script("return window.typhoon.match.selected")


def kind_of(action) -> str:
    return action.WhichOneof("kind")


def to_german_moves(client, match_id: str, tokens: dict[str, str]):
    """The standard set-up, then the end of every phase before the first with moves; its legal actions."""
    while True:
        legal = client.legal_actions(match_id)
        kinds = {kind_of(a): a for a in legal.actions}
        if "move" in kinds:
            return legal
        action = kinds.get("standard_setup") or kinds["end_phase"]
        client.submit(match_id, tokens[legal.side_to_act], action, expected_version=legal.version)


def new_match(client):
    """A match with both seats taken, Bock German and Zhukov Soviet: (match, tokens)."""
    return client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])


def until(client, match_id, tokens, seed: str, done, limit: int = 5000):
    """Random legal actions until ``done(legal)``; that ListLegalActions answer."""
    chooser = random.Random(seed)
    for _ in range(limit):
        legal = client.legal_actions(match_id)
        if done(legal):
            return legal
        client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions), expected_version=legal.version)
    pytest.fail(f"not reached within {limit} random actions")


def loaded(browser, version: int | None = None) -> None:
    """The match page drawn, its counters on the map (at ``version``, if given)."""
    wait(browser, lambda d: d.execute_script(
        "const m = window.typhoon.match; return !!m && !!m.state && (arguments[0] === null || m.version === arguments[0])"
        " && !!document.querySelector('svg.board g.unit')", version))
