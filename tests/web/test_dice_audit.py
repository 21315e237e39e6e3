"""The page and the seats' entropy (issue 37) in Chromium: a seat the page creates or takes commits to
fresh entropy from WebCrypto (its SHA-256 only) and the page reveals it when the match waits for it, as it
commits for a seat taken for it (typhoon play's); the replay's dice audit recomputes every roll in the
page (HMAC-SHA-256 with WebCrypto) from the revealed seed and each side's entropy, drawn or revealed,
each revealed one checked against its commitment."""

from __future__ import annotations

import hashlib
import json
import re

from selenium.webdriver.common.by import By

from page_helpers import text, wait
from service_helpers import play_random

#: engine/dice.py's worked example
EXAMPLE = {"german": "0123456789abcdef0123456789abcdef", "soviet": "fedcba9876543210fedcba9876543210"}


def entropy_entries(client, match_id: str) -> dict[str, str]:
    return {e.entropy_contributed.side: e.entropy_contributed.entropy for e in client.event_log(match_id)
            if e.WhichOneof("kind") == "entropy_contributed"}


def commitments(client, match_id: str) -> dict[str, str]:
    return {e.entropy_committed.side: e.entropy_committed.commitment for e in client.event_log(match_id)
            if e.WhichOneof("kind") == "entropy_committed"}


def revealed_as_committed(client, match_id: str, side: str) -> str:
    """The entropy ``side`` revealed, checked against its commitment: it is the SHA-256's preimage."""
    entropy = entropy_entries(client, match_id)[side]
    assert re.fullmatch("[0-9a-f]{64}", entropy)
    assert hashlib.sha256(entropy.encode()).hexdigest() == commitments(client, match_id)[side]
    return entropy


def test_the_pages_dice_functions_give_the_documented_example(browser, service):
    browser.get(f"{service.base_url}/#/")
    wait(browser, lambda d: d.find_elements(By.ID, "matches"))
    result = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/web/replay.js').then(async (m) => {
          const key = await m.diceKey('example', arguments[0]);
          const rolls = [];
          for (let i = 0; i < 8; i++) rolls.push(await m.mixedRoll(key, i));
          const api = await import('/web/api.js');
          done({ key: Array.from(key, (b) => b.toString(16).padStart(2, '0')).join(''), rolls,
                 drawn: await m.drawnEntropy('example', 'soviet'), old: [await m.dieRoll('example', 0), await m.dieRoll('example', 1)],
                 committed: await api.entropyCommitment(arguments[0].german) });
        }).catch((e) => done({ error: String(e) }));""", EXAMPLE)
    assert result == {"key": "bd2095a79d3ebab24946d7e2270500548c91985fe8626dc76aeb4db522a593a5",
                      "rolls": [4, 5, 2, 3, 4, 2, 6, 6],
                      "drawn": "bf02ce4b4a86a8a0d1a1716298d7d982a86526db5772e41da43b586500686bf2", "old": [2, 4],
                      "committed": "3eb1bd439947eb762998e566ccc2e099c791118b2f40579cc4f7da2b5061b7f9"}


def test_a_new_match_from_the_lobby_commits_to_the_seats_entropy_and_reveals_it_when_due(browser, service, client,
                                                                                          screenshots):
    browser.get(f"{service.base_url}/#/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".lobby-bar button.primary"))
    browser.find_element(By.CSS_SELECTOR, ".lobby-bar button.primary").click()
    wait(browser, lambda d: d.current_url.split("#")[-1].startswith("/play/"))
    match_id = browser.current_url.split("/play/")[-1].split("?")[0]
    # only the hash went out; the game waits for the other seat's commitment, and the page says so
    assert re.fullmatch("[0-9a-f]{64}", commitments(client, match_id)["german"]) and not entropy_entries(client, match_id)
    wait(browser, lambda d: "The dice wait for the Soviet seat's entropy commitment" in text(d, "#waiting"))
    browser.save_screenshot(str(screenshots / "dice-waiting.png"))
    # the Soviet player joins (and reveals, the client's own); the page reveals the German entropy itself
    client.join_match(match_id, "soviet")
    wait(browser, lambda d: "german" in entropy_entries(client, match_id), 30)
    revealed_as_committed(client, match_id, "german")
    revealed_as_committed(client, match_id, "soviet")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-action]"), 30)  # the German plays


def test_the_replay_recomputes_the_mixed_dice_in_the_page(browser, service, client, screenshots):
    # the German seat gives no entropy (drawn from the seed at the first die); the Soviet one is taken in
    # the page, which commits to fresh entropy from WebCrypto and reveals it at once (the German seat,
    # claimed without a commitment, gives none)
    match, tokens = client.create_match("standard", seats=[("german", "Bock")])
    match_id = match.match_id
    browser.set_window_size(1400, 1000)
    browser.get(f"{service.base_url}/#/play/{match_id}")
    wait(browser, lambda d: d.find_elements(By.ID, "take-seat"))
    browser.find_element(By.ID, "take-seat").click()
    wait(browser, lambda d: d.execute_script("return sessionStorage.getItem(arguments[0])", f"typhoon:{match_id}:seat"))
    seat = json.loads(browser.execute_script("return sessionStorage.getItem(arguments[0])", f"typhoon:{match_id}:seat"))
    wait(browser, lambda d: entropy_entries(client, match_id), 30)
    given = entropy_entries(client, match_id)
    assert seat["side"] == "soviet" and set(given) == {"soviet"} and seat["entropy"] == given["soviet"]
    revealed_as_committed(client, match_id, "soviet")
    assert commitments(client, match_id)["german"] == ""
    tokens["soviet"] = seat["token"]
    play_random(client, match_id, tokens, seed="page-dice", max_actions=120)
    client.resign(match_id, tokens["soviet"])
    log = list(client.event_log(match_id))
    rolls = sum(1 for e in log if e.WhichOneof("kind") == "game_event" and e.game_event.WhichOneof("kind") == "die_rolled")
    assert rolls and [e.game_event.entropy_drawn.side for e in log if e.WhichOneof("kind") == "game_event"
                      and e.game_event.WhichOneof("kind") == "entropy_drawn"] == ["german"]

    browser.get(f"{service.base_url}/#/replay/{match_id}?step=1")
    wait(browser, lambda d: "Verified" in text(d, "#verdict"))
    wait(browser, lambda d: "rolls match" in text(d, "#page-audit"))
    audit = text(browser, "#page-audit")
    assert "equals the commitment" in audit and f"{rolls} of {rolls} rolls match the log" in audit, audit
    assert "the entropy of German (drawn from the seed) and Soviet (matching its commitment)" in audit, audit
    assert browser.find_element(By.ID, "page-audit").get_attribute("class") == "ok"
    assert given["soviet"] in text(browser, "[data-entropy='soviet']")
    assert "(drawn from the seed)" in text(browser, "[data-entropy='german']")
    browser.execute_script("document.getElementById('audit').scrollIntoView()")
    browser.save_screenshot(str(screenshots / "dice-audit.png"))
    browser.set_window_size(390, 844)
    browser.execute_script("document.getElementById('audit').scrollIntoView()")
    browser.save_screenshot(str(screenshots / "dice-audit-phone.png"))
    browser.set_window_size(1400, 1000)


def test_a_seat_taken_for_the_page_commits_and_reveals_from_it(browser, service, client):
    # typhoon play's way: both seats claimed for their players (each commits itself); the page, opened with
    # the German token, commits when the match waits for it, and reveals once the other seat has committed
    match, tokens = client.create_match("standard", seats=["german", "soviet"], entropy=True)
    match_id = match.match_id
    browser.get(f"{service.base_url}/#/play/{match_id}?side=german&token={tokens['german']}")
    wait(browser, lambda d: "german" in commitments(client, match_id), 30)
    _, soviet = client.commit_entropy(match_id, tokens["soviet"])
    wait(browser, lambda d: "german" in entropy_entries(client, match_id), 30)
    client.reveal_entropy(match_id, tokens["soviet"], soviet)
    revealed_as_committed(client, match_id, "german")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-action]"), 30)
