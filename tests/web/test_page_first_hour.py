"""What a new player stumbled on in the page's first hour (issue 38), each as they meet it, in Chromium:
a battle chosen from the list of every action shows its odds before it is declared; the page's heading
(an <h1> on every view, in the accessibility tree) says whose turn it is and the phase, and a live region
says it when it changes; the replay's map exposes its units; on a phone the set-up's hexes come into
view, the opponent's turn in brief lands in view, the lobby's links fit and the seat's token field is a
44 px target; the set-up's run is filed under turn 1; Declare stands apart from "close the
declarations"; and after an action the keyboard's focus stays in the play card, whose hints speak to it."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_helpers import BUSY_JS, kind_of, loaded, new_match, text, to_german_moves, until, wait
from service_helpers import play_random

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}


def active(browser) -> str:
    """The focused element, as "tag#id[data-key]"."""
    return browser.execute_script("const a = document.activeElement;"
                                  "return `${a.tagName.toLowerCase()}#${a.id}[${a.dataset ? a.dataset.key || '' : ''}]`")


def accessibility_tree(browser) -> list[dict]:
    """Chromium's accessibility tree of the page (what a screen reader is given): role, name, level."""
    browser.execute_cdp_cmd("Accessibility.enable", {})
    nodes = browser.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    out = []
    for node in nodes:
        if node.get("ignored"):
            continue
        level = next((p["value"]["value"] for p in node.get("properties", []) if p["name"] == "level"), None)
        out.append({"role": node.get("role", {}).get("value"), "name": node.get("name", {}).get("value", ""),
                    "level": level})
    return out


def phone(browser, touch: bool = True) -> None:
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    if touch:
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        browser.execute_cdp_cmd("Emulation.setEmitTouchEventsForMouse", {"enabled": True, "configuration": "mobile"})


def desktop(browser) -> None:
    browser.execute_cdp_cmd("Emulation.setEmitTouchEventsForMouse", {"enabled": False})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.set_window_size(1366, 768)


def tap(browser, css: str) -> None:
    """A finger's tap on the element's centre (scrolled into view first), as real touch events: a
    chromedriver click under touch emulation may never return."""
    x, y = browser.execute_script("const e = document.querySelector(arguments[0]); e.scrollIntoView({block: 'center'});"
                                  "const b = e.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2];",
                                  css)
    for kind, points in (("touchStart", [{"x": x, "y": y, "id": 0}]), ("touchEnd", [])):
        browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def in_viewport(browser, css: str) -> bool:
    return browser.execute_script("const e = document.querySelector(arguments[0]); if (!e) return false;"
                                  "const b = e.getBoundingClientRect();"
                                  "return b.top >= -1 && b.bottom <= window.innerHeight + 1 && b.height > 0;", css)


# --- point 6: the list's battles, odds first ------------------------------------------------------------

def test_a_battle_chosen_from_the_list_of_every_action_shows_its_odds_before_it_is_declared(
        browser, service, client, axe, screenshots):
    """By keyboard, the list of every legal action: a battle there opens the same odds preview as on the
    map, its Declare and Cancel alone (not beside "close the declarations"), the focus on Declare; Cancel
    declares nothing and gives the focus back to the list; Declare declares it, and the focus stays in the
    play card, not on the map."""
    match, tokens = new_match(client)
    legal = until(client, match.match_id, tokens, "list-battle", lambda legal: legal.side_to_act == "german"
                  and any(kind_of(a) == "declare_attack" for a in legal.actions))
    declaration = next(a.declare_attack for a in legal.actions if kind_of(a) == "declare_attack")
    attacker, defender = declaration.attackers[0], declaration.defender
    browser.set_window_size(1366, 768)
    browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
    loaded(browser, legal.version)
    browser.find_element(By.CSS_SELECTOR, "svg.board").send_keys(Keys.ARROW_RIGHT)  # a keyboard user
    wait(browser, lambda d: "arrow keys" in text(d, "#play"))
    assert "Click" not in text(browser, "#play") and "choose" in text(browser, "#play").lower()

    def choose_from_the_list() -> None:
        for css in ("#all-actions", f'#all-actions .action-group[data-unit="{attacker}"]'):  # opened, if closed
            if not browser.execute_script("return document.querySelector(arguments[0]).open", css):
                browser.find_element(By.CSS_SELECTOR, f"{css} > summary").send_keys(Keys.ENTER)
        button = browser.find_element(By.XPATH, f'//details[@data-unit="{attacker}"]//button[@data-action="declare_attack"]'
                                                f'[contains(., "attack")][contains(., "{defender}")]')
        assert "see the odds" in button.text
        button.send_keys(Keys.ENTER)

    choose_from_the_list()
    wait(browser, lambda d: text(d, "#preview-odds"))
    wait(browser, lambda d: active(d).startswith("button#declare"))
    assert client.get_match(match.match_id).match.version == legal.version, "the list declared the battle at once"
    assert browser.execute_script("return document.getElementById('choices').hidden")  # Declare stands alone
    assert "Battle for" in text(browser, "#announce")
    assert not axe(browser)
    browser.save_screenshot(str(screenshots / "battle-from-list.png"))

    browser.switch_to.active_element.send_keys(Keys.TAB)  # to Cancel
    assert active(browser).startswith("button#cancel-plan")
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait(browser, lambda d: not d.find_elements(By.ID, "plan"))
    assert browser.execute_script("return !!document.activeElement.closest('#all-actions')"), active(browser)
    assert client.get_match(match.match_id).match.version == legal.version

    choose_from_the_list()
    wait(browser, lambda d: active(d).startswith("button#declare"))
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.version") == legal.version + 1
         and not d.execute_script(BUSY_JS))
    battles = client.get_match(match.match_id).state.battles
    assert [(list(b.attackers), b.defender) for b in battles] == [([attacker], defender)]
    focus = active(browser)
    assert browser.execute_script("return !!document.activeElement.closest('#play')"), focus  # not the map
    assert not focus.startswith("svg")


# --- point 9: the heading, said when it changes; the replay's units --------------------------------------

def test_every_view_has_a_heading_and_the_match_says_whose_turn_it_is_when_it_changes(browser, service, client):
    match, tokens = new_match(client)
    to_german_moves(client, match.match_id, tokens)
    browser.set_window_size(1366, 768)
    browser.get(f"{service.base_url}/#/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#matches tbody tr[data-match]"))
    assert browser.execute_script("return [...document.querySelectorAll('h1')].map(h => h.textContent)") == ["Matches"]

    browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
    legal = client.legal_actions(match.match_id)
    loaded(browser, legal.version)
    state = client.get_match(match.match_id).state
    heading = text(browser, "h1")
    assert browser.execute_script("return document.querySelectorAll('h1').length") == 1
    assert heading.startswith(f"Turn {state.turn}") and state.phase.replace("_", " ") in heading, heading
    assert heading.endswith(f"{state.side_to_act.capitalize()} to act"), heading
    tree = accessibility_tree(browser)
    assert any(n["role"] == "heading" and n["level"] == 1 and "to act" in n["name"] for n in tree), \
        [n for n in tree if n["role"] == "heading"]

    # the phase ends (another player, another tab: the stream brings it): the live region says so
    end = next(a for a in legal.actions if kind_of(a) == "end_phase")
    client.submit(match.match_id, tokens["german"], end, expected_version=legal.version)
    after = client.get_match(match.match_id).state
    wait(browser, lambda d: text(d, "#turn-status").startswith(f"Turn {after.turn}, {after.phase.replace('_', ' ')}"))
    assert browser.execute_script("return document.getElementById('turn-status').getAttribute('role')") == "status"


def test_the_replays_map_exposes_its_units_to_a_screen_reader(browser, service, client):
    match, tokens = new_match(client)
    play_random(client, match.match_id, tokens, seed="replay-units", max_actions=30)
    at = client.get_match(match.match_id)
    browser.set_window_size(1366, 768)
    browser.get("about:blank")  # a page of its own: an earlier test's view (its counters) leaves no accessible node
    browser.get(f"{service.base_url}/#/replay/{match.match_id}?step={at.match.version}")
    wait(browser, lambda d: text(d, "#where").startswith(f"step {at.match.version} "))
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "svg.board g.unit")) == len(at.state.units))
    assert browser.execute_script("return document.querySelectorAll('h1').length") == 1

    def read_units(driver) -> list[str]:
        return [n["name"] for n in accessibility_tree(driver) if n["role"] == "image" and " strength " in n["name"]]

    # Chromium updates its accessibility tree after the DOM: a counter of a step drawn before may linger a moment
    units = wait(browser, lambda d: (found := read_units(d)) and len(found) == len(at.state.units) and found)
    assert all(any(u.id in name and u.hex in name for name in units) for u in at.state.units)


# --- point 8: a phone ---------------------------------------------------------------------------------

def test_a_phone_brings_the_set_ups_hexes_into_view_when_a_unit_is_picked(browser, service, client, screenshots):
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    phone(browser)
    try:
        browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#tray button"))
        wait(browser, lambda d: d.execute_script("return document.querySelector('svg.board').dataset.zoom"))
        # the map moved away (a drag), then a unit picked from the tray: where it may go comes into view
        browser.execute_script("window.typhoon.match.zoom.centreOn(780, 600)")
        unit = browser.execute_script("return document.querySelector('#tray button').dataset.unit")
        tap(browser, f'#tray button[data-unit="{unit}"]')
        wait(browser, lambda d: d.execute_script("return window.typhoon.match.selected") == unit)
        visible = wait(browser, lambda d: d.execute_script(
            "const box = document.querySelector('svg.board').getBoundingClientRect();"
            "return [...document.querySelectorAll('svg.board polygon.reachable')].filter(p => {"
            "  const b = p.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;"
            "  return x > box.left && x < box.right && y > box.top && y < box.bottom; }).length;"))
        assert visible, "no hex where the unit may be placed is in view"
        browser.execute_script("window.scrollTo(0, 0)")
        browser.save_screenshot(str(screenshots / "phone-setup.png"))
    finally:
        desktop(browser)


def test_a_phone_sees_the_opponents_turn_in_brief_after_ending_a_phase(browser, service, client, screenshots):
    match, tokens = new_match(client)
    legal = until(client, match.match_id, tokens, "phone-brief", lambda legal: legal.side_to_act == "german"
                  and legal.version > 30 and any(kind_of(a) == "move" for a in legal.actions)
                  and client.get_match(match.match_id).state.phase == "german_movement")
    phone(browser)
    try:
        browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
        loaded(browser, legal.version)
        wait(browser, lambda d: d.execute_script("return window.typhoon.match.caughtUp && window.typhoon.match.history"))
        tap(browser, '#choices button[data-action="end_phase"]')  # the German turn ends: the Soviet's, played elsewhere
        wait(browser, lambda d: d.execute_script("return window.typhoon.match.version") == legal.version + 1)
        browser.execute_script("window.scrollTo(0, 0)")  # the player watches the map meanwhile
        until(client, match.match_id, tokens, "phone-brief-soviet", lambda legal: legal.side_to_act == "german")
        wait(browser, lambda d: text(d, "#summary"))
        wait(browser, lambda d: in_viewport(d, "#summary"))
        browser.save_screenshot(str(screenshots / "phone-summary.png"))
    finally:
        desktop(browser)


def test_a_phone_lobby_shows_every_link_and_the_seat_token_field_is_a_44px_target(browser, service, client,
                                                                                     screenshots):
    match, tokens = new_match(client)
    play_random(client, match.match_id, tokens, seed="phone-lobby", max_actions=10)
    phone(browser)
    try:
        browser.get(f"{service.base_url}/#/")
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'tr[data-match="{match.match_id}"] td.links a'))
        fits = browser.execute_script(
            "const box = document.querySelector('.table-scroll');"
            "const links = [...document.querySelectorAll('#matches td.links a')].map(a => a.getBoundingClientRect());"
            "return [box.scrollWidth <= box.clientWidth, links.every(b => b.right <= window.innerWidth && b.left >= 0)];")
        assert fits == [True, True], fits
        height = browser.execute_script("return document.querySelector('#matches td.links a').getBoundingClientRect().height")
        assert height >= 24, height
        browser.save_screenshot(str(screenshots / "phone-lobby.png"))
        browser.get(f"{service.base_url}/#/play/{match.match_id}")
        wait(browser, lambda d: d.find_elements(By.ID, "seat-token"))
        sizes = browser.execute_script("return ['seat-token', 'seat-side', 'open-seat']"
                                       ".map(id => document.getElementById(id).getBoundingClientRect().height)")
        assert min(sizes) >= 44, sizes
    finally:
        desktop(browser)


# --- point 10: the turns in brief ------------------------------------------------------------------------

def test_the_set_up_is_filed_under_turn_1_in_the_turns_in_brief(browser, service, client):
    match, tokens = new_match(client)
    until(client, match.match_id, tokens, "briefs", lambda legal: legal.side_to_act == "soviet")
    browser.set_window_size(1366, 768)
    browser.get(f"{service.base_url}/#/match/{match.match_id}")
    wait(browser, lambda d: text(d, "#briefs summary"))
    titles = browser.execute_script("return [...document.querySelectorAll('#briefs summary')].map(s => s.textContent)")
    assert titles[-1] == "German, set-up and turn 1", titles
