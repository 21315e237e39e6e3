"""Moves that name their path: accepted exactly when the rules allow that path, in every movement phase.

"A unit entering an enemy zone of control must immediately end its movement phase" and "All units may
always leave an enemy zone of control, but must stop upon entering another enemy zone of control": a
unit that leaves its start hex and comes back into it has entered it again, so a start hex in an enemy
zone of control stops it (issue 10).

The property test walks random paths through random positions with this file's own reading of the
rules and its own transcription of the map (``bfm_map``), and checks that ``apply`` accepts a named
path exactly when that walk allows it, and that the engine's destination search offers every
destination such a path reaches.
"""

from __future__ import annotations

import heapq
import random

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import IllegalAction, Move, Reason, game_from_position
from engine.events import CityCaptured, UnitMoved

from bfm_helpers import COUNTERS, legal, of_type, one, position, refuse, where
from bfm_map import MAP, forest, my_neighbours


# --- the issue's reproduction, and the same escape in each movement phase ---------------------------

def test_the_issue_reproduction_a_start_hex_in_an_enemy_zone_stops_a_unit_that_comes_back_into_it():
    # Soviet 16th at 0203 next to German VII at 0103, Smolensk (0204) German-held, turn 6
    game = position(["16th 0203", "VII 0103"], turn=6, phase="soviet_movement", city_control={"0204": "german"})
    assert "0203" in my_neighbours("0103")
    refuse(game, Move("16th", "0303", ("0204", "0203", "0303")), Reason.STOPPED_BY_ZOC, "0203")
    assert where(game, "16th") == "0203" and game.to_json()["city_control"]["0204"] == "german"
    # leaving the zone of control is allowed, and so is stepping into Smolensk and stopping back at the start
    events = game.clone().apply(Move("16th", "0203", ("0204", "0203")))
    assert one(events, CityCaptured).city == "Smolensk"
    assert one(game.clone().apply(Move("16th", "0303", ("0304", "0303"))), UnitMoved).path == ("0304", "0303")


@pytest.mark.parametrize("units, turn, weather, phase, mover, path", [
    # the German panzer movement phase: XLVII next to the Soviet 16th, out and back in and on
    (["XLVII 0604", "16th 0704"], 1, "clear", "german_panzer_movement", "XLVII", ("0505", "0604", "0605")),
    # the German movement phase, in snow
    (["VII 0603", "16th 0704"], 1, "snow", "german_movement", "VII", ("0602", "0603", "0504")),
    # the Soviet rail movement phase: along the rail line 1402-1303-1202 and back, then on
    (["16th 1303", "V 1203"], 1, "clear", "soviet_rail_movement", "16th", ("1402", "1303", "1202")),
    # the Tank in the rail movement phase (any hexes), in mud, which does not slow it there
    (["tank 0704", "V 0604"], 3, "mud", "soviet_rail_movement", "tank", ("0803", "0704", "0703")),
    # mud: one hex per phase, so out and back is already the whole allowance; the refusal is the zone
    (["16th 0704", "V 0604"], 3, "mud", "soviet_movement", "16th", ("0803", "0704")),
])
def test_no_movement_phase_lets_a_unit_come_back_into_its_start_hex_and_go_on(units, turn, weather, phase, mover,
                                                                               path):
    game = position(units, turn=turn, phase=phase, weather=weather)
    start = where(game, mover)
    enemy = [u.split()[1] for u in units if COUNTERS[u.split()[0]].side != COUNTERS[mover].side]
    assert start in {n for h in enemy for n in my_neighbours(h)} and path[1] == start
    expected = Reason.MOVEMENT_ALLOWANCE_EXCEEDED if weather == "mud" and mover != "tank" and "rail" not in phase \
        else Reason.STOPPED_BY_ZOC
    refuse(game, Move(mover, path[-1], path), expected)
    # the first hex alone, and the way back into the start hex, are allowed where the allowance lets it
    if expected is Reason.STOPPED_BY_ZOC:
        assert one(game.clone().apply(Move(mover, start, path[:2])), UnitMoved).path == path[:2]


def test_a_unit_underneath_a_swap_may_not_come_back_into_its_own_hex():
    # ruling 1: 19th moved onto 16th; 16th must move away, and its own hex (19th is there) is no end
    game = position(["16th 0305", "19th 0306", "VII 0101"], turn=6, phase="soviet_movement",
                    city_control={"0204": "german"})
    game.apply(Move("19th", "0305"))
    refuse(game, Move("16th", "0305", ("0204", "0305")), Reason.HEX_OCCUPIED, "19th")
    assert game.pending_decision()["stage"] == "unstack"
    game.apply(Move("16th", "0306", ("0204", "0305", "0306")))
    assert (where(game, "16th"), where(game, "19th")) == ("0306", "0305")


def test_a_destination_only_move_may_pass_back_through_its_start_hex_for_a_city():
    # ruling 3: 16th in 0305 to the forest 0405 (the opposite neighbour of Smolensk, 0204): the only path
    # through Smolensk within 4 movement points goes back through 0305, which is in no enemy zone
    game = position(["16th 0305", "VII 0101"], turn=6, phase="soviet_movement", city_control={"0204": "german"})
    assert forest("0405") and {"0204", "0405"} <= set(my_neighbours("0305"))
    events = game.apply(Move("16th", "0405"))
    assert one(events, UnitMoved).path == ("0204", "0305", "0405")
    assert [e.city for e in of_type(events, CityCaptured)] == ["Smolensk"]


def test_a_unit_back_in_its_own_hex_leaves_the_legal_actions_as_a_fresh_listing_makes_them():
    # a named path out and back ends where it began: no hex emptied or filled, the unit has moved; the
    # legal actions kept between actions must be those of the same position read afresh
    game = position(["16th 0305", "19th 0306", "20th 0405", "VII 0101"], turn=6, phase="soviet_movement")
    game.legal_actions()  # the kept listing, patched by the move below
    events = game.apply(Move("16th", "0305", ("0306", "0305")))
    assert one(events, UnitMoved).path == ("0306", "0305") and where(game, "16th") == "0305"
    assert game.legal_actions() == game_from_position(game.to_json()).legal_actions()
    assert not any(isinstance(a, Move) and a.unit == "16th" for a in game.legal_actions())


# --- random positions: named paths against this file's own walk of the rules ------------------------

SOVIETS = ["3rd", "5th", "10th", "13th", "19th", "20th", "24th", "29th", "30th", "32nd"]
GERMANS = ["XLVII", "LVI", "XLI", "VII", "VIII", "V", "XX", "IX", "XIII", "XL"]
ALL_HEXES = sorted(MAP)
RAIL_HEXES = [h for h in ALL_HEXES if MAP[h]["rail"]]
PRINTED_MA = {"infantry": 4, "panzer": 6, "tank": 4}  # the counter manifest: 8-4, 8-6, the Tank 8-4
SNOW = {"infantry": -1, "panzer": -2, "tank": -2}  # "infantry ... one fewer ... panzer units lose two" (ruling 30)

#: (phase, moving side, weather) of every movement phase the test plays
PHASES = [("german_panzer_movement", "german", "clear"), ("german_panzer_movement", "german", "mud"),
          ("german_movement", "german", "clear"), ("german_movement", "german", "mud"),
          ("german_movement", "german", "snow"), ("soviet_rail_movement", "soviet", "clear"),
          ("soviet_rail_movement", "soviet", "mud"), ("soviet_rail_movement", "soviet", "snow"),
          ("soviet_movement", "soviet", "clear"), ("soviet_movement", "soviet", "mud"),
          ("soviet_movement", "soviet", "snow")]


def allowance(unit: str, phase: str, weather: str) -> tuple[int, bool]:
    """(movement points, whether every hex costs 1) from the rules text."""
    kind = COUNTERS[unit].type
    ma = PRINTED_MA[kind] + (SNOW[kind] if weather == "snow" else 0)
    if phase == "soviet_rail_movement":
        return ma, True  # "A forest hex counts as only one hex"; mud: "rail movement is unaffected"
    if weather == "mud":
        return min(ma, 1), False  # "Units at 1 MA", a forest still costs 2 (ruling 50, ruleset 3)
    return ma, False


def links(unit: str, phase: str, here: str) -> list[str] | set[str]:
    if phase == "soviet_rail_movement" and COUNTERS[unit].type != "tank":
        return MAP[here]["rail"]  # "adjacent railroad hexes with connecting rail line artwork"
    return my_neighbours(here)  # the Tank "need not follow any rail lines"


def walk_allows(unit: str, start: str, path: tuple[str, ...], phase: str, weather: str, enemy: set[str]) -> bool:
    """Whether the rules let ``unit`` move from ``start`` along ``path`` (ignoring who ends where)."""
    zone = {n for h in enemy for n in my_neighbours(h)}
    points, flat = allowance(unit, phase, weather)
    spent, here, entered = 0, start, False
    for nxt in path:
        if nxt not in links(unit, phase, here) or nxt in enemy:
            return False
        if entered and here in zone:  # "must stop upon entering another enemy zone of control"
            return False
        spent += 1 if flat or not forest(nxt) else 2
        if spent > points:
            return False
        here, entered = nxt, True
    return True


def reachable(unit: str, start: str, phase: str, weather: str, enemy: set[str]) -> set[str]:
    """Every hex ``unit`` can move to from ``start`` (the cheapest walks are enough)."""
    zone = {n for h in enemy for n in my_neighbours(h)}
    points, flat = allowance(unit, phase, weather)
    best, queue = {start: 0}, [(0, start)]
    while queue:
        spent, here = heapq.heappop(queue)
        if spent > best[here] or (here != start and here in zone):
            continue
        for nxt in links(unit, phase, here):
            total = spent + (1 if flat or not forest(nxt) else 2)
            if nxt not in enemy and total <= points and total < best.get(nxt, points + 1):
                best[nxt] = total
                heapq.heappush(queue, (total, nxt))
    return set(best) - {start}


def random_path(rnd: random.Random, unit: str, start: str, phase: str, centre: list[str]) -> tuple[str, ...]:
    """A random walk, mostly along the phase's links and often back through the start hex."""
    path, here = [], start
    for _ in range(rnd.randint(1, 6)):
        roll = rnd.random()
        if roll < 0.04:
            nxt = rnd.choice(centre)  # anywhere near: often not adjacent
        elif roll < 0.25 and path and start in my_neighbours(here):
            nxt = start
        else:
            options = sorted(links(unit, phase, here)) or my_neighbours(here)
            nxt = rnd.choice(options)
        path.append(nxt)
        here = nxt
    return tuple(path)


@st.composite
def named_path_cases(draw):
    rnd = draw(st.randoms(use_true_random=False))
    phase, side, weather = draw(st.sampled_from(PHASES))
    centre_hex = rnd.choice(RAIL_HEXES if phase == "soviet_rail_movement" else ALL_HEXES)
    near = sorted({c for a in my_neighbours(centre_hex) for b in my_neighbours(a) for c in my_neighbours(b)})
    hexes = rnd.sample(near, min(len(near), rnd.randint(3, 12)))
    split = rnd.randint(1, len(hexes) - 1)
    soviets = rnd.sample(SOVIETS, len(SOVIETS))
    if rnd.random() < 0.5:  # the Tank, half the time (first, so that it is on the map)
        soviets.insert(0, "tank")
    friends, foes = (soviets, GERMANS) if side == "soviet" else (GERMANS, soviets)
    units = {u: h for u, h in zip(friends, hexes[:split])} | {u: h for u, h in zip(foes, hexes[split:])}
    return rnd, phase, side, weather, units, near


def eligible(unit: str, phase: str, side: str, start_hexes: dict[str, str], moved: set[str]) -> bool:
    """Whether ``unit`` may move in this phase (ignoring swaps): "only panzers in the panzer movement
    phase; only Soviet units on rail lines in the rail movement phase"; each unit moves once."""
    counter = COUNTERS[unit]
    if counter.side != side or unit in moved:
        return False
    if phase == "german_panzer_movement":
        return counter.type == "panzer"
    if phase == "soviet_rail_movement":
        return counter.type == "tank" or bool(MAP[start_hexes[unit]]["rail"])
    return True


@settings(max_examples=250, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(named_path_cases())
def test_a_named_path_is_accepted_exactly_when_the_rules_allow_it(case):
    rnd, phase, side, weather, start_hexes, near = case
    units = [f"{u} {h}" for u, h in start_hexes.items()]
    game = position(units, turn=3 if weather == "mud" else 1, phase=phase, weather=weather)
    moved: set[str] = set()
    for _ in range(rnd.choice([0, 0, 1, 2])):  # a few moves first: units that moved, swaps under way
        moves = legal(game, Move)
        if not moves:
            break
        choice = rnd.choice(moves)
        game.apply(choice)
        moved.add(choice.unit)
    if game.phase.name != phase:
        event("the phase ended by itself")
        return
    here = {u: None for u in start_hexes} | {e["id"]: e["hex"] for e in game.to_json()["units"]}
    enemy = {h for u, h in here.items() if h and COUNTERS[u].side != side}
    stack = (game.to_json()["phase_state"]["stack"] or {})
    offered = set(game.legal_actions())
    for _ in range(20):
        unit = rnd.choice([u for u in start_hexes if COUNTERS[u].side == side and here[u]])
        start = here[unit]
        path = random_path(rnd, unit, start, phase, near)
        dest = path[-1]
        others = [u for u, h in here.items() if h == dest and u != unit]
        may_move = eligible(unit, phase, side, start_hexes, moved) and (not stack or stack["unit"] != unit) and \
            (not stack or here[unit] == stack["hex"])  # the unit underneath a swap moves next
        allowed = walk_allows(unit, start, path, phase, weather, enemy)
        # ending on a friendly unit is a step of a swap (ruling 1): the engine's destination list says when
        expected = may_move and allowed and (not others or Move(unit, dest) in offered)
        back_in = path.count(start) > 0 and start in {n for h in enemy for n in my_neighbours(h)}
        twin = game.clone()
        try:
            events = twin.apply(Move(unit, dest, path))
        except IllegalAction as refusal:
            assert not expected, f"{unit} {start} -> {path} refused: {refusal}"
            event("refused, back into a start hex in a zone" if back_in else "refused")
            continue
        assert expected, f"{unit} {start} -> {path} accepted; the rules forbid it"
        assert one(events, UnitMoved).path == path
        event("accepted, back into a start hex in a zone" if back_in else "accepted")
        # the destination search agrees: a hex such a path reaches is offered (or is the unit's own hex,
        # or holds a friendly unit)
        if dest != start and not others:
            assert Move(unit, dest) in offered
            assert dest in reachable(unit, start, phase, weather, enemy)
