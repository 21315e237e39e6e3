"""The page meets the service's rate limits (429 RATE_LIMITED with Retry-After) in Chromium: an action
over its limit is not sent and the player is told, plainly, when to try again, with nothing they chose
lost; a watch stream refused for too many openings waits as asked and follows the match again."""

from __future__ import annotations

import re

import pytest

from page_helpers import BUSY_JS, selected, text, to_german_moves, wait
from service_helpers import ServiceProcess

def limited(redis_url: str, *limits: str) -> ServiceProcess:
    """A service on the tests' Redis with only ``limits`` on."""
    flags = [item for limit in limits for item in ("--limit", limit)]
    return ServiceProcess("--redis-url", redis_url, "--no-rate-limits", *flags, rate_limits=True)


def click_in_page(browser, css: str) -> None:
    """A click on the element (dispatched: the test is about what the page does with the answer)."""
    wait(browser, lambda d: not d.execute_script(BUSY_JS) and d.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return false;"
        "e.dispatchEvent(new MouseEvent('click', {bubbles: true})); return true;", css))


@pytest.fixture(scope="module")
def one_action_a_minute(redis_url):
    service = limited(redis_url, "submit_action=1/minute").start()
    yield service
    service.stop()


def test_an_action_over_the_limit_says_when_to_try_again_and_keeps_the_selection(
        browser, client, one_action_a_minute, screenshots):
    """The German seat has used its one action of the minute (a move sent by another client with its
    token): the move the player then makes on the page is refused 429; the page says so in plain words
    with the seconds to wait, the unit stays selected, and nothing was sent."""
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    legal = to_german_moves(client, match.match_id, tokens)  # on the unlimited service, same Redis
    moves = [a.move for a in legal.actions if a.WhichOneof("kind") == "move"]
    first = moves[0]
    with one_action_a_minute.client() as limited_client:
        limited_client.submit(match.match_id, tokens["german"], next(a for a in legal.actions if a.move == first),
                              expected_version=legal.version)
        after = limited_client.legal_actions(match.match_id)
    mover, goal = next((a.move.unit, a.move.to) for a in after.actions if a.WhichOneof("kind") == "move")

    browser.set_window_size(1366, 768)
    browser.get(f"{one_action_a_minute.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
    wait(browser, lambda d: d.execute_script("const m = window.typhoon.match; return !!m && !!m.legal && "
                                             "m.version === arguments[0]", after.version))
    click_in_page(browser, f'svg.board g.unit[data-unit="{mover}"] rect.counter')
    wait(browser, lambda d: selected(d) == mover)
    click_in_page(browser, f"svg.board polygon.reachable[data-hex='{goal}']")
    wait(browser, lambda d: "Too many requests" in text(d, "#refused"))
    said = text(browser, "#refused")
    seconds = re.search(r"try again in (\d+) s\.", said)
    assert seconds and 1 <= int(seconds.group(1)) <= 60, said
    assert said.startswith(f"Moving {mover} to {goal}") and "not sent" in said, said
    assert "RATE_LIMITED" not in said and "submit_action" not in said, "the player is told in plain words"
    wait(browser, lambda d: not d.execute_script(BUSY_JS))
    assert selected(browser) == mover, "the selection is kept: the player tries again when told"
    assert client.get_match(match.match_id).match.version == after.version, "nothing was sent"
    browser.save_screenshot(str(screenshots / "play-rate-limited.png"))


def test_a_watch_refused_for_too_many_streams_waits_and_follows_again(browser, client, redis_url):
    """One watch stream per 5 seconds from an address: the page's stream, cut, is opened again at once and
    refused (429 with Retry-After); the page waits as told, opens it again, and the log carries on with
    every entry once."""
    service = limited(redis_url, "watch=1 per 5 seconds").start()
    try:
        match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
        browser.get(f"{service.base_url}/#/match/{match.match_id}")
        wait(browser, lambda d: text(d, "#live") == "live")
        browser.execute_script("window.typhoon.match.stream.drop()")  # reopened in 0.2 s: over the limit
        wait(browser, lambda d: d.execute_script("return window.typhoon.match.stream.refusals") >= 1, timeout=30)
        assert text(browser, "#live") == "reconnecting"
        to_german_moves(client, match.match_id, tokens)
        last = client.get_match(match.match_id).match.last_sequence
        wait(browser, lambda d: d.execute_script(
            "return [...document.querySelectorAll('#log li')].map(li => +li.dataset.seq).sort((a, b) => a - b)")
            == list(range(1, last + 1)), timeout=30)
        wait(browser, lambda d: text(d, "#live") == "live", timeout=30)
        assert browser.execute_script("return window.typhoon.match.stream.refusals") <= 4, "it waited as told (a retry every 0.2 s would be refused some 25 times)"
    finally:
        service.stop()
