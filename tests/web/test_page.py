"""The page at / in Chromium: the lobby, a match live, a replay compared with GetMatch, and play
through the page (legal actions and one the engine refuses) against a bot started by `typhoon play`."""

from __future__ import annotations

import random
from fractions import Fraction
import re
import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from service.gen.typhoon.v1 import match_service_pb2 as api
from service.processes import ROOT, dying_with_parent, stop_process
from page_helpers import BUSY_JS, kind_of, selected, text, to_german_moves, wait
from service_helpers import play_random

UNITS_JS = """return [...document.querySelectorAll('svg.board g.unit')]
    .map(g => [g.dataset.unit, g.dataset.hex, g.dataset.strength]).sort();"""


def click(browser, css: str) -> None:
    """Click the element, once it is there and the page sends no action (a click event: an SVG hex's
    centre may be under a counter)."""
    wait(browser, lambda d: d.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "if (e && !(window.typhoon.match && window.typhoon.match.busy))"
        "  e.dispatchEvent(new MouseEvent('click', {bubbles: true})); else return false;"
        "return true;", css))


def press(browser, css: str) -> None:
    """Click as a person does: at the element's centre, which must be the element on top there."""
    def pressed(driver) -> bool:
        if driver.execute_script(BUSY_JS):  # an action on its way: the page takes no click until it is in
            return False
        try:
            driver.find_element(By.CSS_SELECTOR, css).click()
            return True
        except (NoSuchElementException, StaleElementReferenceException):  # not there yet, or just redrawn
            return False
    wait(browser, pressed)


def press_hex(browser, hex_id: str, below: float = 0.0) -> None:
    """A person's click in a hex, ``below`` (a fraction of the hex's height) under its centre: beside
    a counter there, on the hex itself."""
    wait(browser, lambda d: not d.execute_script(BUSY_JS))
    x, y = browser.execute_script(
        "const b = document.querySelector(`svg.board polygon.hex[data-hex='${arguments[0]}']`).getBoundingClientRect();"
        "return [b.left + b.width / 2, b.top + b.height * (0.5 + arguments[1])];", hex_id, below)
    actions = ActionBuilder(browser)
    actions.pointer_action.move_to_location(int(x), int(y)).click()
    actions.perform()


def page_version(browser) -> int:
    return browser.execute_script("return window.typhoon.match.version")


def units(state) -> list[list[str]]:
    return sorted([u.id, u.hex, u.strength] for u in state.units)


def page_units(browser) -> list[list[str]]:
    return [list(u) for u in browser.execute_script(UNITS_JS)]


def logged_sequences(browser) -> list[int]:
    return browser.execute_script("return [...document.querySelectorAll('#log li')].map(li => +li.dataset.seq);")


def new_match(client, seed: str, actions: int | None, time_control: str | None = None):
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")],
                                        time_control=time_control)
    play_random(client, match.match_id, tokens, seed=seed, max_actions=actions)
    return match.match_id, tokens


def test_the_lobby_lists_matches_live(browser, service, client, screenshots):
    first, _ = new_match(client, "lobby", 40)
    browser.set_window_size(1400, 1000)
    browser.get(f"{service.base_url}/")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'tr[data-match="{first}"]'))
    second, _ = new_match(client, "lobby-2", 0)  # appears without reloading the page
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'tr[data-match="{second}"]'), timeout=10)
    row = text(browser, f'tr[data-match="{first}"]')
    assert "Bock" in row and "Zhukov" in row and "to act" in row
    browser.save_screenshot(str(screenshots / "lobby.png"))
    browser.set_window_size(390, 844)  # a phone: the table scrolls in its own box, the page does not
    wait(browser, lambda d: d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"))
    browser.get(f"{service.base_url}/#/match/{first}")
    wait(browser, lambda d: len(page_units(d)) > 10)
    browser.save_screenshot(str(screenshots / "phone.png"))
    browser.set_window_size(1400, 1000)


def test_a_live_match_shows_events_as_they_arrive_and_resumes_after_a_cut(browser, service, client, screenshots):
    match_id, tokens = new_match(client, "live", 30, time_control="blitz")
    browser.get(f"{service.base_url}/#/match/{match_id}")
    last = client.get_match(match_id).match.last_sequence
    wait(browser, lambda d: max(logged_sequences(d) or [0]) == last)

    play_random(client, match_id, tokens, seed="live-more", max_actions=8)
    now = client.get_match(match_id)
    wait(browser, lambda d: max(logged_sequences(d)) == now.match.last_sequence)
    wait(browser, lambda d: page_units(d) == units(now.state))
    assert text(browser, "#to-act").lower().startswith(now.match.side_to_act)
    running = now.match.clock.running  # a match with a time control: its clocks, the running one ticking
    assert re.fullmatch(r"\d+:\d\d", text(browser, f'.clock.running[data-side="{running}"]')), "the running clock"

    browser.execute_script("window.typhoon.match.stream.drop()")  # the network cuts the stream
    play_random(client, match_id, tokens, seed="while-cut", max_actions=8)
    now = client.get_match(match_id)
    # each once, none missing (the older ones come once the page is drawn: waited for)
    wait(browser, lambda d: sorted(logged_sequences(d)) == list(range(1, now.match.last_sequence + 1)))
    wait(browser, lambda d: page_units(d) == units(now.state))
    redraws = browser.execute_script("return window.typhoon.redraws")
    print(f"\nmap redraws on the live page: {len(redraws)}, max {max(redraws):.1f} ms")
    browser.save_screenshot(str(screenshots / "match.png"))


def test_a_replay_at_a_step_shows_the_counters_of_get_match_at_that_version(browser, service, client, screenshots):
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    match_id = match.match_id
    recorded = {}
    for version in (0, 25, 80):
        current = client.get_match(match_id).match.version
        play_random(client, match_id, tokens, seed=f"replay-{version}", max_actions=version - current)
        state = client.get_match(match_id)
        assert state.match.version == version
        recorded[version] = units(state.state)
    play_random(client, match_id, tokens, seed="replay-end", max_actions=40)
    client.resign(match_id, tokens["soviet"])  # a finished match (its seed revealed) without playing it all out
    final = client.get_match(match_id)
    assert final.match.seed

    browser.get(f"{service.base_url}/#/replay/{match_id}?step=25")
    wait(browser, lambda d: text(d, "#where") == f"step 25 / {final.match.version}")
    wait(browser, lambda d: page_units(d) == recorded[25])
    click(browser, "#next")
    wait(browser, lambda d: text(d, "#where").startswith("step 26 "))
    at_26 = client._call("GetMatch", api.GetMatchRequest(match_id=match_id, version=26))
    wait(browser, lambda d: page_units(d) == units(at_26.state))
    step_input = browser.find_element(By.ID, "step-input")
    step_input.clear()
    step_input.send_keys("80\n")
    wait(browser, lambda d: text(d, "#where").startswith("step 80 "))
    wait(browser, lambda d: page_units(d) == recorded[80])
    click(browser, "#first")
    wait(browser, lambda d: page_units(d) == recorded[0])
    click(browser, "#next-turn")
    wait(browser, lambda d: "Turn 2" in text(d, ".headline .big")
         or "Turn 1" in text(d, ".headline .big"))
    click(browser, "#last")
    wait(browser, lambda d: page_units(d) == units(final.state))

    wait(browser, lambda d: "Verified" in text(d, "#verdict"))
    rolls = sum(1 for _ in re.finditer("die_rolled", str(list(client.event_log(match_id)))))
    wait(browser, lambda d: "rolls match" in text(d, "#page-audit"))
    audit = text(browser, "#page-audit")
    assert "equals the commitment" in audit and f"{rolls} of {rolls} rolls match the log" in audit, audit
    browser.execute_script("window.scrollTo(0, 0)")
    browser.find_element(By.ID, "step-input").clear()
    browser.find_element(By.ID, "step-input").send_keys("120\n")
    wait(browser, lambda d: text(d, "#where").startswith("step 120 "))
    browser.save_screenshot(str(screenshots / "replay.png"))

    browser.get(f"{service.base_url}/#/match/{match_id}")  # the match page of a match that is over
    wait(browser, lambda d: max(logged_sequences(d) or [0]) == final.match.last_sequence)
    wait(browser, lambda d: not d.find_elements(By.ID, "live"))  # its stream ended: the badge goes
    headline = text(browser, ".headline")
    assert text(browser, ".headline .status") == "finished" and headline.count("finished") == 1, headline
    assert "play a seat" not in headline  # nor a seat to play
    browser.get(f"{service.base_url}/#/play/{match_id}?side=german&token={tokens['german']}")
    wait(browser, lambda d: "The game is over." in text(d, "#play"))
    assert not browser.find_elements(By.ID, "resign")


@pytest.fixture()
def played(redis_url):
    """`typhoon play` against a random bot: the URL it prints, and the process."""
    command, preexec = dying_with_parent([sys.executable, "-m", "clients.cli", "play", "--no-browser", "--strategy",
                                          "random", "--seed", "page", "--redis-url", redis_url])
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=preexec)
    url = None
    for line in process.stdout:
        if line.startswith("open "):
            url = line.split()[1]
            break
    assert url, "typhoon play printed no URL"
    yield url
    stop_process(process, 10)


def test_play_through_the_page_against_a_bot(browser, played, screenshots):
    fragment = urlsplit(played).fragment  # /play/<id>?side=german&token=...
    match_id = fragment.split("?")[0].rsplit("/", 1)[1]
    token = parse_qs(fragment.split("?")[1])["token"][0]
    browser.get(played)
    wait(browser, lambda d: "token" not in d.current_url)  # moved out of the address bar
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '#choices button[data-action="standard_setup"]'))
    click(browser, '#choices button[data-action="standard_setup"]')

    ended = set()

    def movable(d):  # end the phases before the first with moves (the replacement phase), once each
        version, moves, ends = d.execute_script(
            "const m = window.typhoon.match, l = m.legal;"
            "return [m.version, !!l && l.actions.some(a => a.move), !!l && l.actions.some(a => a.end_phase)];")
        if moves:
            return True
        if ends and version not in ended and text(d, '#choices button[data-action="end_phase"]'):
            ended.add(version)
            click(d, '#choices button[data-action="end_phase"]')
        return False

    wait(browser, movable, timeout=60)
    before = browser.execute_script("return window.typhoon.match.version")
    unit_id = browser.execute_script("return document.querySelector('svg.board g.unit.movable').dataset.unit")
    click(browser, f'svg.board g.unit[data-unit="{unit_id}"]')
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "svg.board polygon.reachable"))
    browser.save_screenshot(str(screenshots / "play.png"))
    target = browser.execute_script("return document.querySelector('svg.board polygon.reachable').dataset.hex")
    click(browser, f'svg.board polygon.reachable[data-hex="{target}"]')  # its centre may be under a counter
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.version") == before + 1)
    wait(browser, lambda d: [unit_id, target] in [u[:2] for u in page_units(d)])

    # an illegal move: the engine's sentence, and nothing changes
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "svg.board g.unit.movable"))
    other_id = browser.execute_script("return document.querySelector('svg.board g.unit.movable').dataset.unit")
    click(browser, f'svg.board g.unit[data-unit="{other_id}"]')
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "svg.board polygon.reachable"))
    click(browser, 'svg.board polygon.hex[data-hex="1410"]')
    refused = wait(browser, lambda d: text(d, "#refused"))
    version = browser.execute_script("return window.typhoon.match.version")
    assert version == before + 1
    browser.save_screenshot(str(screenshots / "play-refused.png"))

    http_port = int(browser.execute_script("return location.port"))
    with httpx.Client(base_url=f"http://127.0.0.1:{http_port}") as http:
        answer = http.post(f"/v1/matches/{match_id}/actions", headers={"Authorization": f"Bearer {token}"},
                           json={"action": {"move": {"unit": other_id, "to": "1410"}}, "expected_version": version})
        error = answer.json()["error"]
        # the refusal names what was clicked, then the engine's reason (which may name a hex on the way)
        assert answer.status_code == 400
        assert refused == f"Moving {other_id} to 1410, the hex you clicked: refused. {error['message']} ({error['reason']})"
        # and a legal end of the phase
        click(browser, '#choices button[data-action="end_phase"]')
        wait(browser, lambda d: d.execute_script("return window.typhoon.match.version") >= version + 1)
        state = http.get(f"/v1/matches/{match_id}").json()
        assert state["match"]["version"] >= version + 1
        assert [unit_id, target] in [[u["id"], u["hex"]] for u in state["state"]["units"]]

        # the combat phase: declare a battle by clicking an attacker, then its target; the odds show
        wait(browser, lambda d: d.execute_script(
            "const l = window.typhoon.match.legal; return !!l && l.actions.some(a => a.declare_attack)"), timeout=30)
        attacker, defender = browser.execute_script(
            "const a = window.typhoon.match.legal.actions.find(a => a.declare_attack).declare_attack;"
            "return [a.attackers[0], a.defender];")
        assert "cannot be withdrawn" in text(browser, "#play")  # there is no taking a declaration back
        click(browser, f'svg.board g.unit[data-unit="{attacker}"]')
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'svg.board g.unit.target[data-unit="{defender}"]'))
        assert "attack" in text(browser, "#selection") and "move" not in text(browser, "#selection")
        declaring = page_version(browser)
        click(browser, 'svg.board polygon.hex[data-hex="1410"]')  # a hex is no target: nothing is sent
        wait(browser, lambda d: "outlined red" in text(d, "#hint"))
        assert page_version(browser) == declaring and not text(browser, "#refused")
        # the defender: the odds before anything is declared, each shift with its cause, each die roll
        click(browser, f'svg.board g.unit[data-unit="{defender}"]')
        wait(browser, lambda d: text(d, "#preview-odds"))
        preview = http.get(f"/v1/matches/{match_id}/battle-preview",
                           params={"defender": defender, "attackers": attacker}).json()
        column = preview["battle"]["column"] if preview["battle"]["column"] != "below" else "below 1:1 (no effect)"
        assert text(browser, "#preview-odds").endswith(f"→ {column}"), text(browser, "#preview-odds")
        for shift in preview["shift_causes"]:
            assert shift["description"] in text(browser, "#shifts")
        rows = browser.execute_script("return [...document.querySelectorAll('#outcomes tbody tr')].map(r => r.textContent)")
        assert "".join(rows).count(" in 6") == len(rows) and all(o["result"] in "".join(rows) for o in preview["outcomes"])
        assert page_version(browser) == declaring, "a preview declares nothing"
        browser.save_screenshot(str(screenshots / "battle-preview.png"))
        click(browser, "#declare")  # the confirming click
        wait(browser, lambda d: defender in text(d, "#battles"))
        battle, = http.get(f"/v1/matches/{match_id}").json()["state"]["battles"]
        assert battle["defender"] == defender and battle["attackers"] == [attacker]
        assert battle == preview["battle"]
        assert text(browser, "#battles td.odds") == (battle["column"] if battle["column"] != "below"
                                                     else "below 1:1 (no effect)")
        browser.save_screenshot(str(screenshots / "battle.png"))


def last_action(client, match_id: str):
    """The action of the last ActionSubmitted entry of the match's log."""
    submitted = [e.action_submitted for e in client.event_log(match_id) if e.WhichOneof("kind") == "action_submitted"]
    return submitted[-1].action


def test_combat_decisions_through_the_page(browser, service, client, screenshots):
    """Random play through the API until a battle waits for a retreat, a loss or an advance; each such
    decision (one of each kind met) is then taken by clicking in the page, for the side that must take it,
    and the log records exactly the action the page offered. A retreat's possible ends are outlined and
    its path drawn from the retreating unit; an exchange is counted in strength points. The server draws
    each match's dice, so a game may end before a retreat, an advance and an exchange were met: then a new
    match goes on (within 20,000 actions in all)."""
    chooser = random.Random("decisions")
    taken: dict[str, str] = {}
    opened = match_id = None
    for _ in range(20_000):
        if {"retreat", "advance", "exchange_losses"} <= set(taken):
            break
        if match_id is None:
            match_id, tokens = new_match(client, "decisions", 0)
            opened = None
        legal = client.legal_actions(match_id)
        side = legal.side_to_act
        if not side:
            match_id = None
            continue
        stage = legal.pending_decision.stage
        if stage not in ("retreat", "advance", "attacker_loss", "exchange_losses") or stage in taken:
            client.submit(match_id, tokens[side], chooser.choice(legal.actions), expected_version=legal.version)
            continue
        if opened != side:
            browser.get(f"{service.base_url}/#/play/{match_id}?side={side}&token={tokens[side]}")
            opened = side
        version = legal.version
        wait(browser, lambda d, v=version: d.execute_script(
            "const m = window.typhoon.match; return !!m.legal && m.version === arguments[0]", v))
        kind = {"retreat": "choose_retreat", "advance": "advance", "attacker_loss": "choose_attacker_loss",
                "exchange_losses": "choose_losses"}[stage]
        offered = [a for a in legal.actions if a.WhichOneof("kind") == kind]
        assert offered, f"{stage}: no {kind} among the legal actions"
        if stage == "retreat":  # the path is chosen on the map: a click on its last hex, then the button
            ends = {a.choose_retreat.path[-1] for a in offered}
            wait(browser, lambda d, e=ends: set(d.execute_script(
                "return [...document.querySelectorAll('svg.board polygon.reachable')].map(p => p.dataset.hex)")) == e)
            start = legal.pending_decision.hex  # the retreating unit's: no retreat ends there
            click(browser, f'svg.board polygon.hex[data-hex="{start}"]')
            wait(browser, lambda d: f"cannot end in {start}" in text(d, "#hint"))
            path = list(offered[0].choose_retreat.path)
            click(browser, f'svg.board polygon.hex[data-hex="{path[-1]}"]')
            wait(browser, lambda d: text(d, '#choices button[data-action="choose_retreat"]'))
            expected = next(a for a in offered if a.choose_retreat.path[-1] == path[-1])
            drawn_from, unit_at = browser.execute_script(
                "const first = document.querySelector('svg.board polyline.path').points[0];"
                "const b = document.querySelector(`svg.board polygon.hex[data-hex='${arguments[0]}']`).getBBox();"
                "return [[first.x, first.y], [b.x + b.width / 2, b.y + b.height / 2]];", start)
            assert drawn_from == pytest.approx(unit_at, abs=0.2), "the path starts in the retreating unit's hex"
            browser.save_screenshot(str(screenshots / "play-retreat.png"))
        elif stage == "exchange_losses":  # strength points to lose; a choice naming a unit twice eliminates it
            assert f"must lose at least {legal.pending_decision.required} strength point" in text(browser, "#decision")
            labels = browser.execute_script("return [...document.querySelectorAll("
                                            "'#choices button[data-action=\"choose_losses\"]')].map(b => b.textContent)")
            for label, choice in zip(labels, offered, strict=True):
                units_lost = list(choice.choose_losses.units)
                assert ("is eliminated" in label) >= (len(set(units_lost)) < len(units_lost)), label
            expected = offered[0]
        else:
            expected = offered[0]
        click(browser, f'#choices button[data-action="{kind}"]')
        wait(browser, lambda d, v=version: d.execute_script("return window.typhoon.match.version") > v)
        assert last_action(client, match_id) == expected, stage
        taken[stage] = kind
    print(f"\ncombat decisions taken through the page: {sorted(taken)}")
    assert {"retreat", "advance", "exchange_losses"} <= set(taken), taken


def test_a_click_on_a_reachable_hex_moves_there_even_onto_a_unit_of_yours(browser, service, client, screenshots):
    """A click on a counter of yours selects that unit (it switches the selection, or lets go of it), one
    with nothing to do is not selected, Escape lets go; but where the selected unit may go, a click moves
    it there, on a unit of yours too (that unit is selected once the selection is let go, or from the
    list of actions). In the stack the move makes, the unit that must move on is drawn on top."""
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    match_id = match.match_id
    legal = to_german_moves(client, match_id, tokens)
    state = client.get_match(match_id).state
    unit_in = {u.hex: u.id for u in state.units}
    movers = {a.move.unit for a in legal.actions if kind_of(a) == "move"}
    onto = next(a.move for a in legal.actions if kind_of(a) == "move"  # a legal move ending on a friend that can move
                and unit_in.get(a.move.to) in movers - {a.move.unit})
    mover, friend, friend_hex = onto.unit, unit_in[onto.to], onto.to
    reach = {a.move.to for a in legal.actions if kind_of(a) == "move" and a.move.unit == mover}
    other = next(u.id for u in state.units if u.id in movers - {mover} and u.hex not in reach)
    browser.set_window_size(1400, 1000)
    browser.get(f"{service.base_url}/#/play/{match_id}?side=german&token={tokens['german']}")
    wait(browser, lambda d: d.execute_script("const m = window.typhoon.match; return !!m.legal && m.version === "
                                             "arguments[0]", legal.version))

    press(browser, f'svg.board g.unit[data-unit="{mover}"] rect.counter')
    wait(browser, lambda d: selected(d) == mover)
    assert "Escape" in text(browser, "#selection") and "even onto a unit of yours" in text(browser, "#selection")
    press(browser, f'svg.board g.unit[data-unit="{other}"] rect.counter')  # out of the mover's reach: selected
    wait(browser, lambda d: selected(d) == other)
    press(browser, f'svg.board g.unit[data-unit="{other}"] rect.counter')  # again: let go
    wait(browser, lambda d: selected(d) is None)
    press(browser, f'svg.board g.unit[data-unit="{mover}"] rect.counter')
    wait(browser, lambda d: selected(d) == mover)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait(browser, lambda d: selected(d) is None)
    assert client.get_match(match_id).match.version == legal.version, "selecting moved a unit"

    # a refusal names the hex clicked; the selection still switches after it
    press(browser, f'svg.board g.unit[data-unit="{mover}"] rect.counter')
    wait(browser, lambda d: selected(d) == mover)
    far = "1410"  # out of reach of any unit on turn 1, and empty
    assert far not in unit_in and all(a.move.to != far for a in legal.actions if kind_of(a) == "move")
    press_hex(browser, far)
    wait(browser, lambda d: f"Moving {mover} to {far}, the hex you clicked: refused." in text(d, "#refused"))
    press(browser, f'svg.board g.unit[data-unit="{other}"] rect.counter')
    wait(browser, lambda d: selected(d) == other)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait(browser, lambda d: selected(d) is None)

    # onto the friend: a click on the friend's counter, in a hex the mover may go to
    press(browser, f'svg.board g.unit[data-unit="{mover}"] rect.counter')
    wait(browser, lambda d: selected(d) == mover)
    press(browser, f'svg.board g.unit[data-unit="{friend}"] rect.counter')
    wait(browser, lambda d: page_version(d) == legal.version + 1)
    stacked = client.legal_actions(match_id)
    assert stacked.pending_decision.stage == "unstack", stacked.pending_decision
    assert last_action(client, match_id).move.to == friend_hex
    must_move = {a.move.unit for a in stacked.actions if kind_of(a) == "move"}
    wait(browser, lambda d: d.execute_script("return window.typhoon.match.legal.version") == stacked.version)
    on_top = browser.execute_script("const here = document.querySelectorAll(`svg.board g.unit[data-hex='${arguments[0]}']`);"
                                    "return here[here.length - 1].dataset.unit;", friend_hex)
    assert on_top in must_move, (on_top, must_move)
    assert "one must move on" in text(browser, "#decision")
    browser.save_screenshot(str(screenshots / "play-stack.png"))
    press(browser, f'svg.board g.unit[data-unit="{on_top}"] rect.counter')  # not under the other counter
    wait(browser, lambda d: selected(d) == on_top)

    # a unit with nothing to do is not selected, and the page says so
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    idle = next(u.id for u in client.get_match(match_id).state.units
                if u.id not in must_move and u.hex != friend_hex and u.id in {c.id for c in german_counters(client)})
    press(browser, f'svg.board g.unit[data-unit="{idle}"] rect.counter')
    wait(browser, lambda d: f"{idle} has nothing to do now" in text(d, "#hint"))
    assert selected(browser) is None


def german_counters(client):
    return [c for c in client.get_scenario("standard").scenario.counters if c.side == "german"]


def test_a_service_that_goes_away_and_comes_back(browser, redis_url, screenshots):
    """The page of a match while its service restarts: an action says the service cannot be reached (not
    the browser's "Failed to fetch"), and the live badge, "reconnecting" meanwhile, is live again once
    the stream delivers again."""
    from service_helpers import ServiceProcess

    first = ServiceProcess("--redis-url", redis_url).start()
    port = first.http_port
    with first.client() as client:
        match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    browser.get(f"{first.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
    wait(browser, lambda d: text(d, "#live") == "live")
    wait(browser, lambda d: text(d, '#choices button[data-action="standard_setup"]'))
    first.stop()
    wait(browser, lambda d: text(d, "#live") == "reconnecting")
    press(browser, '#choices button[data-action="standard_setup"]')
    wait(browser, lambda d: "cannot be reached" in text(d, "#refused"))
    assert "Failed to fetch" not in text(browser, "#play")

    again = ServiceProcess("--redis-url", redis_url, "--http-port", str(port)).start()
    try:
        with again.client() as client:
            legal = client.legal_actions(match.match_id)
            client.submit(match.match_id, tokens["german"], legal.actions[0], expected_version=legal.version)
            last = client.get_match(match.match_id).match.last_sequence
        wait(browser, lambda d: max(logged_sequences(d) or [0]) == last, timeout=30)
        wait(browser, lambda d: text(d, "#live") == "live")
    finally:
        again.stop()


def test_a_double_click_sends_an_action_once(browser, service, client):
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
    wait(browser, lambda d: text(d, '#choices button[data-action="standard_setup"]'))
    def double_clicked(driver) -> bool:
        try:
            button = driver.find_element(By.CSS_SELECTOR, '#choices button[data-action="standard_setup"]')
            ActionChains(driver).double_click(button).perform()
            return True
        except StaleElementReferenceException:  # the card was just drawn again
            return False
    wait(browser, double_clicked)
    wait(browser, lambda d: text(d, "#notice").startswith("Done: use the standard set-up"))
    assert client.get_match(match.match_id).match.version == 1 and not text(browser, "#refused")


def test_a_wrong_seat_token_is_refused_at_once_and_the_seat_asked_again(browser, service, client):
    """A token that holds no seat of the match is refused when the page opens with it, or when it is
    pasted into the seat form, before any action (issue 38: it was accepted until the first action)."""
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    match_id = match.match_id
    browser.get(f"{service.base_url}/#/play/{match_id}?side=german&token=not-a-token")
    wait(browser, lambda d: "TOKEN_INVALID" in text(d, "#refused"))
    assert text(browser, "#refused").startswith("That seat token holds no seat of this match")
    assert browser.find_elements(By.ID, "seat-token") and not browser.find_elements(By.ID, "choices")
    assert browser.execute_script("return sessionStorage.getItem(arguments[0])", f"typhoon:{match_id}:seat") is None
    browser.find_element(By.ID, "seat-token").send_keys(tokens["soviet"][:-2] + "xx")  # a typo: refused in place
    press(browser, "#open-seat")
    wait(browser, lambda d: d.execute_script("return !!document.getElementById('refused')"
                                             " && !document.getElementById('seat-token').value"))
    assert not browser.find_elements(By.ID, "choices")
    assert client.get_match(match_id).match.version == 0  # nothing was sent for either
    browser.find_element(By.ID, "seat-token").send_keys(tokens["german"])
    press(browser, "#open-seat")
    press(browser, '#choices button[data-action="standard_setup"]')
    wait(browser, lambda d: text(d, "#notice").startswith("Done: use the standard set-up"))
    assert client.get_match(match_id).match.version == 1


def test_a_new_match_from_the_lobby_says_how_to_seat_the_other_side(browser, service, client, screenshots):
    browser.set_window_size(1400, 1000)
    browser.get(f"{service.base_url}/#/")
    press(browser, ".lobby-bar button.primary")
    wait(browser, lambda d: text(d, "#invite"))
    match_id = browser.execute_script("return window.typhoon.match.matchId")
    invite = text(browser, "#invite")
    link = browser.execute_script("return document.querySelector('#invite input').value")  # one step: it re-renders
    assert link == f"{service.base_url}/#/play/{match_id}", link
    # the service's real gRPC port (the test service's is not 50051), as the page is told it
    assert f"typhoon bot --match {match_id} --side soviet --strategy heuristic --server 127.0.0.1:{service.grpc_port}" \
        in invite, invite
    browser.save_screenshot(str(screenshots / "play-invite.png"))
    client.join_match(match_id, "soviet", "Zhukov")  # someone took it: the invitation goes
    wait(browser, lambda d: not d.find_elements(By.ID, "invite"))


def test_the_replay_of_a_running_match_learns_its_new_steps(browser, service, client):
    match_id, tokens = new_match(client, "replay-running", 10)
    browser.get(f"{service.base_url}/#/replay/{match_id}")
    wait(browser, lambda d: text(d, "#where") == "step 0 / 10")
    play_random(client, match_id, tokens, seed="replay-running-more", max_actions=5)
    wait(browser, lambda d: text(d, "#where") == "step 0 / 15")
    client.resign(match_id, tokens["soviet"])
    wait(browser, lambda d: text(d, "#where") == "step 0 / 16")
    wait(browser, lambda d: "Verified" in text(d, "#verdict"))  # the seed revealed at the end: the audit again


IN_MAP_JS = """const svg = document.querySelector('svg.board'), box = svg ? svg.getBoundingClientRect() : null;
    const inside = (e) => { if (!box) return false; const b = e.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
      return x > box.left + 15 && x < box.right - 15 && y > box.top + 60 && y < box.bottom - 15; };"""


def movable_in_view(browser) -> str:
    """A unit outlined as able to act whose counter is inside the map's box (on a phone the map is zoomed in)."""
    return wait(browser, lambda d: d.execute_script(
        IN_MAP_JS + "const g = [...document.querySelectorAll('svg.board g.unit.movable')].find(inside);"
                    "return g ? g.dataset.unit : null;"))


def empty_hex_in_view(browser) -> str:
    """A hex in the map's box with no unit and no "may go here" mark."""
    return browser.execute_script(
        IN_MAP_JS + "const taken = new Set([...document.querySelectorAll('svg.board g.unit, svg.board polygon.reachable')]"
                    "  .map(e => e.dataset.hex));"
                    "return [...document.querySelectorAll('svg.board polygon.hex')].filter(p => !taken.has(p.dataset.hex))"
                    "  .filter(inside).map(p => p.dataset.hex).pop();")


def test_a_refusal_after_a_tap_on_a_phone_is_in_view(browser, service, client, screenshots):
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    to_german_moves(client, match.match_id, tokens)
    browser.set_window_size(390, 844)
    try:
        browser.get(f"{service.base_url}/#/play/{match.match_id}?side=german&token={tokens['german']}")
        mover = movable_in_view(browser)
        press(browser, f'svg.board g.unit.movable[data-unit="{mover}"] rect.counter')
        wait(browser, lambda d: selected(d) == mover)
        empty = empty_hex_in_view(browser)
        press_hex(browser, empty)
        wait(browser, lambda d: f"to {empty}, the hex you clicked" in text(d, "#refused"))
        wait(browser, lambda d: d.execute_script(
            "const b = document.getElementById('refused').getBoundingClientRect();"
            "return b.top >= 0 && b.bottom <= window.innerHeight;"))
        browser.save_screenshot(str(screenshots / "phone-refused.png"))
    finally:
        browser.set_window_size(1400, 1000)


def test_a_long_unit_id_fits_its_counter(browser, service):
    browser.get(f"{service.base_url}/#/")
    wait(browser, lambda d: d.find_elements(By.ID, "matches"))
    label, counter = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        Promise.all([import('/web/board.js'), fetch('/v1/scenarios/standard').then(r => r.json())]).then(([board, r]) => {
          const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
          document.body.append(svg);
          board.draw(svg, board.prepare(r.scenario), {units: [{id: '1st-shock', hex: '0808', strength: 'full'}]});
          const unit = svg.querySelector('g.unit');
          done([unit.querySelector('.unit-id').getBBox().width, unit.querySelector('.counter').getBBox().width]);
        });""")
    assert label <= counter - 4, (label, counter)


def test_a_battle_in_the_mud_reads_as_a_person_reads_it(browser, service, client):
    """Random play until battles can be declared in the mud (strengths halved): one declared and the
    declarations closed through the API, the page writes the attack as a decimal (5.5, not 11/2), the
    odds below the table by the table's first column, and offers to resolve the battle in those words."""
    chooser = random.Random("mud")
    match_id, tokens = new_match(client, "mud", 0)
    for _ in range(5000):
        legal = client.legal_actions(match_id)
        attacks = [a for a in legal.actions if kind_of(a) == "declare_attack"]
        if attacks and client.get_match(match_id).state.weather == "mud":
            break
        client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions), expected_version=legal.version)
    else:
        pytest.fail("no battle to declare in the mud within 5000 random actions")
    side = legal.side_to_act
    client.submit(match_id, tokens[side], attacks[0], expected_version=legal.version)
    legal = client.legal_actions(match_id)
    close = [a for a in legal.actions if kind_of(a) == "close_declarations"]  # none: they closed by themselves
    if close:
        client.submit(match_id, tokens[side], close[0], expected_version=legal.version)
    battle, = client.get_match(match_id).state.battles

    browser.get(f"{service.base_url}/#/play/{match_id}?side={side}&token={tokens[side]}")
    wait(browser, lambda d: text(d, '#choices button[data-action="resolve_battle"]'))
    attack = Fraction(battle.attack)
    written = f"{float(attack):g}"
    column = battle.column if battle.column != "below" else "below 1:1 (no effect)"
    assert text(browser, "#battles td.muted").startswith(f"{written} to {battle.defence}"), (battle, written)
    assert text(browser, "#battles td.odds") == column
    assert text(browser, '#choices button[data-action="resolve_battle"]') == f"Resolve {battle.defender}: {column}"
    assert "below below" not in text(browser, "#play") + text(browser, "#battles")
