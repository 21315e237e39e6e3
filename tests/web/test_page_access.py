"""The page as a wargamer meets it (issue 28) in Chromium: axe-core on every view, the map by keyboard,
a phone's fingers (touch emulated through the DevTools protocol: real touch events), what happened in
view (a battle's result, the opponent's turn in brief), the replay's battles with their odds."""

from __future__ import annotations

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_helpers import BUSY_JS, kind_of, loaded, new_match, text, until, wait
from service_helpers import play_random

def test_axe_finds_nothing_critical_or_serious_on_any_view(browser, service, client, axe):
    match, tokens = new_match(client)
    live = match.match_id
    play_random(client, live, tokens, seed="axe", max_actions=60)
    finished, finished_tokens = new_match(client)
    play_random(client, finished.match_id, finished_tokens, seed="axe-end", max_actions=30)
    client.resign(finished.match_id, finished_tokens["soviet"])
    browser.set_window_size(1366, 768)
    found = {}
    views = {
        "lobby": ("/#/", lambda d: d.find_elements(By.CSS_SELECTOR, "#matches tbody tr[data-match]")),
        "live match": (f"/#/match/{live}", lambda d: text(d, "#live") == "live"),
        "finished match": (f"/#/match/{finished.match_id}", lambda d: text(d, ".headline .status") == "finished"),
        "replay": (f"/#/replay/{finished.match_id}?step=20", lambda d: "Verified" in text(d, "#verdict")),
        "seat form": (f"/#/play/{live}", lambda d: d.find_elements(By.ID, "seat-token")),
        "play": (f"/#/play/{live}?side={client.legal_actions(live).side_to_act}"
                 f"&token={tokens[client.legal_actions(live).side_to_act]}",
                 lambda d: d.find_elements(By.CSS_SELECTOR, "#all-actions")),
    }
    for name, (path, ready) in views.items():
        browser.get(f"{service.base_url}{path}")
        wait(browser, ready)
        found[name] = axe(browser)
    print("\naxe-core, critical and serious violations per view:", {name: len(v) for name, v in found.items()})
    assert not any(found.values()), found


def to_german_moves(client, match_id, tokens):
    return until(client, match_id, tokens, "-", lambda legal: any(kind_of(a) == "move" for a in legal.actions))


def keys_to(browser, start: str, goal: str) -> list[str]:
    """The arrow keys from hex ``start`` to ``goal`` (board.js step: across keeps the row, up and down the column)."""
    (c0, r0), (c1, r1) = (int(start[:2]), int(start[2:])), (int(goal[:2]), int(goal[2:]))
    return ([Keys.ARROW_RIGHT if c1 > c0 else Keys.ARROW_LEFT] * abs(c1 - c0)
            + [Keys.ARROW_DOWN if r1 > r0 else Keys.ARROW_UP] * abs(r1 - r0))


def test_the_map_and_every_action_by_keyboard(browser, service, client, screenshots):
    """Arrow keys move a cursor across the hexes and a live status says what is there; Enter selects a unit
    and Enter on a hex it may go to moves it; the focus stays on the map after the move. Every legal
    action is in the list grouped by unit, none left out, and acting from the list keeps the focus there."""
    match, tokens = new_match(client)
    legal = to_german_moves(client, match.match_id, tokens)
    state = client.get_match(match.match_id).state
    hex_of = {u.id: u.hex for u in state.units}
    move = next(a.move for a in legal.actions if kind_of(a) == "move" and a.move.to not in hex_of.values())
    browser.set_window_size(1366, 768)
    browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
    loaded(browser, legal.version)
    board = browser.find_element(By.CSS_SELECTOR, "svg.board")
    assert board.get_attribute("aria-label").startswith("Map") and board.get_attribute("tabindex") == "0"
    labels = browser.execute_script("return [...document.querySelectorAll('svg.board g.unit')].map(g => g.getAttribute('aria-label'))")
    assert all(label and " strength " in label for label in labels), labels[:3]

    board.send_keys(Keys.ARROW_RIGHT)  # the first key puts the cursor on a unit of ours
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.cursor"))
    start = browser.execute_script("return window.typhoon.match.cursor")
    assert start in text(browser, "#map-status")
    board.send_keys(*keys_to(browser, start, hex_of[move.unit]))
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.cursor") == hex_of[move.unit])
    assert move.unit in text(browser, "#map-status")
    board.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.selected") == move.unit)
    board.send_keys(*keys_to(browser, hex_of[move.unit], move.to))
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.cursor") == move.to)
    assert "may go here" in text(browser, "#map-status")
    browser.save_screenshot(str(screenshots / "keyboard.png"))
    board.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.version") == legal.version + 1)
    assert client.get_match(match.match_id).match.version == legal.version + 1
    assert [u.hex for u in client.get_match(match.match_id).state.units if u.id == move.unit] == [move.to]
    assert browser.execute_script("return document.activeElement.matches('svg.board')"), "the focus left the map"

    # every legal action, grouped by unit
    legal = client.legal_actions(match.match_id)
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.legal && window.typhoon.match.legal.version")
         == legal.version)
    listed = browser.execute_script("return document.querySelectorAll('#all-actions .action-group button').length")
    assert listed == len(legal.actions), (listed, len(legal.actions))
    groups = browser.execute_script("return [...document.querySelectorAll('#all-actions .action-group')].map(g => g.dataset.unit)")
    movers = {a.move.unit for a in legal.actions if kind_of(a) == "move"}
    assert movers <= set(groups)
    mover = sorted(movers)[0]
    browser.find_element(By.CSS_SELECTOR, "#all-actions > summary").send_keys(Keys.ENTER)
    browser.find_element(By.CSS_SELECTOR, f'#all-actions .action-group[data-unit="{mover}"] > summary').send_keys(Keys.ENTER)
    first = browser.find_element(By.CSS_SELECTOR, f'#all-actions .action-group[data-unit="{mover}"] button')
    first.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.version") == legal.version + 1
         and not d.execute_script(BUSY_JS))
    assert browser.execute_script("return !!document.activeElement.closest('#all-actions')"), \
        browser.execute_script("return document.activeElement.outerHTML.slice(0, 120)")
    assert browser.execute_script("return document.getElementById('log').closest('[role=log]').getAttribute('aria-live')") \
        == "polite"


def touch(browser, kind: str, points: list[tuple[float, float]]) -> None:
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def test_a_phone_pinches_drags_and_taps(browser, service, client, screenshots):
    """On a touch phone (390×844): the map opens zoomed in so counters are 44 px targets, two fingers
    zoom it and one drags it, a tap selects a unit, the hints say "tap" and name no key, and the play
    controls follow the map at once."""
    match, tokens = new_match(client)
    legal = to_german_moves(client, match.match_id, tokens)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2,
                                                                   "mobile": True})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    browser.execute_cdp_cmd("Emulation.setEmitTouchEventsForMouse", {"enabled": True, "configuration": "mobile"})
    try:
        browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
        loaded(browser, legal.version)
        assert browser.execute_script("return matchMedia('(pointer: coarse)').matches")
        wait(browser, lambda d: d.execute_script("return document.querySelector('svg.board').dataset.zoom"))
        widths = browser.execute_script("return [...document.querySelectorAll('svg.board rect.counter')]"
                                        ".map(r => r.getBoundingClientRect().width)")
        assert min(widths) >= 44, min(widths)
        gap = browser.execute_script("return document.getElementById('play').getBoundingClientRect().top"
                                     " - document.querySelector('svg.board').getBoundingClientRect().bottom")
        assert 0 <= gap < 30, gap  # the play card right under the map
        play_top = browser.execute_script("return document.getElementById('play').getBoundingClientRect().top")
        assert play_top < 844, play_top  # and on the screen
        bar_bottom, map_top = browser.execute_script(
            "return [document.querySelector('.zoom-bar').getBoundingClientRect().bottom,"
            " document.querySelector('svg.board').getBoundingClientRect().top]")
        assert bar_bottom <= map_top, (bar_bottom, map_top)  # the zoom buttons above the map, hiding none of it
        hint = text(browser, "#play")
        assert "Tap a unit" in hint and "Escape" not in hint and "Click" not in hint, hint

        box = browser.execute_script("const b = document.querySelector('svg.board').getBoundingClientRect();"
                                     "return [b.left, b.top, b.width, b.height];")
        cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
        zoom = lambda: float(browser.execute_script("return document.querySelector('svg.board').dataset.zoom"))  # noqa: E731
        before = zoom()
        touch(browser, "touchStart", [(cx - 30, cy), (cx + 30, cy)])
        for spread in range(40, 130, 10):
            touch(browser, "touchMove", [(cx - spread, cy), (cx + spread, cy)])
        touch(browser, "touchEnd", [])
        wait(browser, lambda d: zoom() > before * 1.5)
        view = lambda: browser.execute_script("return document.querySelector('svg.board').getAttribute('viewBox')")  # noqa: E731
        panned_from = view()
        touch(browser, "touchStart", [(cx, cy)])
        for dx in range(10, 100, 10):
            touch(browser, "touchMove", [(cx - dx, cy - dx / 2)])
        touch(browser, "touchEnd", [])
        wait(browser, lambda d: view() != panned_from)
        assert browser.execute_script("return window.typhoon.match.selected") is None, "a drag selected a unit"

        browser.find_element(By.ID, "zoom-fit").click()  # the whole map, then back to targets by the unit

        def settled(_driver) -> bool:  # the map no longer moving (a zoom may glide), so a unit is where it is seen
            seen = view()
            time.sleep(0.3)
            return view() == seen

        wait(browser, settled)
        unit = browser.execute_script(
            "const box = document.querySelector('svg.board').getBoundingClientRect();"
            "const g = [...document.querySelectorAll('svg.board g.unit.movable')].find(g => {"
            "  const b = g.getBoundingClientRect(); return b.top > box.top && b.bottom < box.bottom && b.left > box.left"
            "    && b.right < box.right; });"
            "return g.dataset.unit;")
        x, y = browser.execute_script("const b = document.querySelector(`svg.board g.unit[data-unit='${arguments[0]}'] "
                                      "rect.counter`).getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2];",
                                      unit)
        touch(browser, "touchStart", [(x, y)])
        touch(browser, "touchEnd", [])
        wait(browser, lambda d: d.execute_script("return window.typhoon.match.selected") == unit)
        assert "Tap it again to let go." in text(browser, "#selection")
        browser.execute_script("const m = window.typhoon.match, h = m.board.byId.get(m.state.units.find(u => u.id === m.selected).hex);"
                               "m.zoom.toTargets(h.x, h.y);")
        ring = browser.execute_script("const a = document.activeElement;"
                                      "return [a.matches('svg.board'), getComputedStyle(a).outlineStyle];")
        assert ring == [True, "none"], ring  # the map has the focus, but a tap draws no focus ring
        browser.save_screenshot(str(screenshots / "phone-touch.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.setEmitTouchEventsForMouse", {"enabled": False})
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_opponents_turn_in_brief_when_it_ends(browser, service, client, screenshots):
    """The German player's page waits while the Soviet player moves; when the Soviet run ends, the play
    card (and the live region) sum it up: the units it moved, its battles, losses and cities. The same
    brief stays readable under "Turns in brief"."""
    match, tokens = new_match(client)
    legal = until(client, match.match_id, tokens, "brief", lambda legal: legal.side_to_act == "soviet"
                  and any(kind_of(a) == "move" for a in legal.actions))
    browser.set_window_size(1366, 768)
    browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
    loaded(browser, legal.version)
    wait(browser, lambda d: text(d, "#waiting"))
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.caughtUp"))
    first = client.get_match(match.match_id).match.last_sequence
    legal = until(client, match.match_id, tokens, "brief-soviet", lambda legal: legal.side_to_act == "german")
    moved = {e.game_event.unit_moved.unit for e in client.event_log(match.match_id)
             if e.sequence > first and e.WhichOneof("kind") == "game_event"
             and e.game_event.WhichOneof("kind") == "unit_moved"}
    wait(browser, lambda d: text(d, "#summary"))
    summary = text(browser, "#summary")
    assert "Soviet" in summary and (f"{len(moved)} unit" in summary if moved else "Nothing moved" in summary), summary
    assert all(unit in summary for unit in moved), (moved, summary)
    wait(browser, lambda d: "Your move" in text(d, "#announce"))
    wait(browser, lambda d: "Soviet" in text(d, "#briefs"))
    browser.save_screenshot(str(screenshots / "play-summary.png"))


def test_a_resolved_battle_shows_in_the_play_card_and_on_the_map(browser, service, client, screenshots):
    match, tokens = new_match(client)
    legal = until(client, match.match_id, tokens, "resolve",
                  lambda legal: any(kind_of(a) == "resolve_battle" for a in legal.actions))
    side = legal.side_to_act
    defender = next(a.resolve_battle.defender for a in legal.actions if kind_of(a) == "resolve_battle")
    defender_hex = next(b.hex for b in client.get_match(match.match_id).state.battles if b.defender == defender)
    browser.set_window_size(1366, 768)
    browser.get(f"{service.base_url}/#/play/{match.match_id}?side={side}&token={tokens[side]}")
    loaded(browser, legal.version)
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.caughtUp"))
    browser.execute_script("document.querySelector(`#choices button[data-action='resolve_battle']`)"
                           ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    resolved = wait(browser, lambda d: [e.game_event.battle_resolved for e in client.event_log(match.match_id)
                                        if e.WhichOneof("kind") == "game_event"
                                        and e.game_event.WhichOneof("kind") == "battle_resolved"])[-1]
    wait(browser, lambda d: text(d, "#last-battle"))
    card = text(browser, "#last-battle")
    assert f"Battle for {resolved.defender}" in card and resolved.result in card, card
    if resolved.HasField("roll"):
        assert f"roll {resolved.roll}: {resolved.result}" in card
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "svg.board g.battle-result"))
    badge = browser.execute_script("const g = document.querySelector('svg.board g.battle-result');"
                                   "return [g.dataset.hex, g.textContent];")
    assert badge[1].startswith(resolved.result)
    assert badge[0] == defender_hex or resolved.defender != defender
    in_view = browser.execute_script("const b = document.getElementById('last-battle').getBoundingClientRect();"
                                     "return b.top >= 0 && b.bottom <= window.innerHeight;")
    assert in_view, "the result is below the fold"
    browser.save_screenshot(str(screenshots / "battle-result.png"))


def test_the_replay_shows_declared_battles_with_their_odds_and_the_redraw_time_is_for_developers(
        browser, service, client, screenshots):
    match, tokens = new_match(client)
    until(client, match.match_id, tokens, "replay-battles", lambda legal: bool(client.get_match(match.match_id).state.battles))
    at = client.get_match(match.match_id)
    browser.set_window_size(1366, 768)
    browser.get(f"{service.base_url}/#/replay/{match.match_id}?step={at.match.version}")
    wait(browser, lambda d: text(d, "#battles td.odds"))
    battle = at.state.battles[0]
    column = battle.column if battle.column != "below" else "below 1:1 (no effect)"
    assert text(browser, f'#battles tr[data-defender="{battle.defender}"] td.odds') == column
    assert not browser.find_element(By.CSS_SELECTOR, ".redraw").is_displayed()
    browser.execute_script("localStorage.setItem('typhoon:debug', '1')")
    browser.refresh()
    wait(browser, lambda d: "map redrawn in" in text(d, ".redraw") and d.find_element(By.CSS_SELECTOR, ".redraw").is_displayed())
    browser.execute_script("localStorage.removeItem('typhoon:debug'); document.documentElement.classList.remove('debug')")
    # "may go here" is told apart from forest: a hatched amber pattern, not a green tint
    fills = browser.execute_script("return getComputedStyle(document.querySelector('svg.board polygon.hex.forest')).fill")
    assert "url" not in fills
