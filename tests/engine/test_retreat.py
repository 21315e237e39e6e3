"""Retreats (DR, DRL, EX) and the Zone of Control Clarification.

Rules, DR: "The defending unit is moved two hexes by the attacking player. The unit must end up two
hexes away from its starting hex and may not enter an enemy zone of control. If there is no retreat
path which satisfies these conditions, the unit is eliminated. The unit also must end its retreat in
a hex not already occupied by a friendly unit, and must retreat further than two hexes if necessary to
reach an empty hex."

Clarification: "Retreat through a hex with enemy zone of control is possible as a last resort, but
will cause a loss to full-strength. Half-strength units retreating through an enemy zone of control
are eliminated." Combat: "Units cannot end their retreat in an enemy zone of control."

Rulings 12-15 and 49 (RULINGS.md) settle the details: ruleset 3 (ruling 49) lets a retreat that goes
further than two hexes end in any empty hex at least two hexes away, where rulesets 1 and 2 (ruling 12)
had every hex one farther than the one before. The retreat paths are checked against an enumeration
written here from those words, with its own hex geometry (the neighbour rule of the map reference).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import ChooseRetreat, Reason
from engine.events import StepLost, UnitEliminated, UnitRetreated

from bfm_helpers import battle, declare_and_resolve, legal, one, of_type, pool_ids, position, refuse, strength_of, where


# --- an independent geometry: the neighbour rule of the map reference (bfm-map.md) ------------------

def my_neighbours(hex_id: str) -> list[str]:
    c, r = int(hex_id[:2]), int(hex_id[2:])
    if c % 2:
        steps = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)]
    else:
        steps = [(0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)]
    return [f"{c + dc:02d}{r + dr:02d}" for dc, dr in steps if 1 <= c + dc <= 14 and 1 <= r + dr <= 10]


def my_distance(a: str, b: str) -> int:
    seen, frontier, steps = {a}, [a], 0
    while b not in seen:
        steps += 1
        frontier = [n for h in frontier for n in my_neighbours(h) if n not in seen]
        seen.update(frontier)
    return steps


def expected_retreats(start: str, friendly: set[str], enemy: set[str],
                      ruleset: int = 3) -> tuple[set[tuple[str, ...]], bool]:
    """Retreat paths by the rules and rulings 12-14 (ruleset 2) or 13, 14 and 49 (ruleset 3): (paths, last
    resort?)."""
    enemy_zoc = {n for h in enemy for n in my_neighbours(h)}
    for last_resort in (False, True):
        frontier: list[tuple[str, ...]] = [()]
        out = 0
        found: set[tuple[str, ...]] = set()
        while frontier and not found:
            out += 1
            grown = []
            for path in frontier:
                here = path[-1] if path else start
                for nxt in my_neighbours(here):
                    away = my_distance(start, nxt)
                    if ruleset >= 3 and out > 2:  # "end up two hexes away": never back nearer, nor in circles
                        if away < 2 or nxt in path:
                            continue
                    elif away != out:
                        continue
                    if nxt in enemy:
                        continue
                    if nxt in enemy_zoc and not last_resort:
                        continue
                    grown.append(path + (nxt,))
            if out >= 2:
                found = {p for p in grown if p[-1] not in friendly and p[-1] not in enemy_zoc}
                grown = [p for p in grown if p[-1] in friendly]
            frontier = grown
        if found:
            return found, last_resort
    return set(), False


def offered_retreats(game) -> set[tuple[str, ...]]:
    return {a.path for a in legal(game, ChooseRetreat)}


def force_retreat(units: list[str], attackers: list[str], defender: str = "16th", roll: int = 1):
    """A German attack that ends in DR (1:1 or 2:1 with roll 1)."""
    game = position(units, fixed_dice=[roll])
    events = declare_and_resolve(game, attackers, defender)
    assert battle(game, events).result == "DR"
    return game, events


# --- two hexes away, not into enemy zones of control ----------------------------------------------

def test_retreat_is_two_hexes_away_avoiding_enemy_zoc():
    # 16th (8) in 1207 attacked by XXIV (12) from 1107: 1:1, roll 1: DR
    game, _ = force_retreat(["16th 1207", "XXIV 1107", "XLI 1108"], ["XXIV"])
    offered = offered_retreats(game)
    assert offered == expected_retreats("1207", set(), {"1107", "1108"})[0]
    for path in offered:
        assert len(path) == 2 and my_distance("1207", path[0]) == 1 and my_distance("1207", path[1]) == 2
        assert not {"1206", "1208"} & set(path)  # in the ZOC of 1107 / 1108


def test_the_retreating_unit_ends_where_the_attacker_chose():
    game, _ = force_retreat(["16th 1207", "XXIV 1107", "XLI 1108"], ["XXIV"])
    events = game.apply(ChooseRetreat(("1307", "1406")))
    assert one(events, UnitRetreated) == UnitRetreated("16th", "1207", ("1307", "1406"), False)
    assert where(game, "16th") == "1406"


def test_a_retreat_may_not_double_back_or_stop_short():
    game, _ = force_retreat(["16th 1207", "XXIV 1107", "XLI 1108"], ["XXIV"])
    refuse(game, ChooseRetreat(("1307",)), Reason.NOT_A_CHOICE)
    refuse(game, ChooseRetreat(("1307", "1308")), Reason.NOT_A_CHOICE)  # 1308 is only one hex away
    refuse(game, ChooseRetreat(("1307", "1306", "1305")), Reason.NOT_A_CHOICE)  # 1306 is empty: stop there


def test_a_retreat_never_enters_an_enemy_unit():
    game, _ = force_retreat(["16th 1207", "XXIV 1107", "XLI 1406"], ["XXIV"])
    for path in offered_retreats(game):
        assert "1406" not in path


# --- further than two hexes, through friendly units, only if necessary ------------------------------

FULL_RING = ["19th 1306", "20th 1406", "24th 1407", "29th 1309", "30th 1408"]


def test_retreat_goes_further_through_friendly_units_only_when_every_two_hex_end_is_occupied():
    game, _ = force_retreat(["16th 1207", "XXIV 1107", "XLI 1108", *FULL_RING], ["XXIV"])
    friendly = {u.split()[1] for u in FULL_RING}
    offered = offered_retreats(game)
    assert offered == expected_retreats("1207", friendly, {"1107", "1108"})[0]
    for path in offered:
        assert len(path) == 3 and path[1] in friendly and path[2] not in friendly
        assert my_distance("1207", path[2]) >= 2
    assert {my_distance("1207", path[2]) for path in offered} == {2, 3}  # ruling 49: two hexes away or more
    events = game.apply(ChooseRetreat(("1308", "1309", "1310")))
    assert where(game, "16th") == "1310" and where(game, "29th") == "1309"
    assert one(events, UnitRetreated).through_zoc is False


def test_no_longer_retreat_when_one_two_hex_end_is_empty_and_a_single_path_is_taken_by_itself():
    ring = [u for u in FULL_RING if not u.endswith("1406")]
    game = position(["16th 1207", "XXIV 1107", "XLI 1108", *ring], fixed_dice=[1])
    events = declare_and_resolve(game, ["XXIV"], "16th")
    assert one(events, UnitRetreated).path == ("1307", "1406")
    assert where(game, "16th") == "1406"


# --- the last resort: through an enemy zone of control ---------------------------------------------
# Germans in 1107, 1108 (west of 1207) and 1406, 1408 (east): every hex next to 1207 is in a German
# ZOC, but 1205 and 1209, two hexes away, are not.

LAST_RESORT = ["XXIV 1107", "XLI 1108", "LVII 1406", "XL 1408"]


def test_last_resort_paths_cross_enemy_zoc_but_end_outside_it():
    game, _ = force_retreat(["16th 1207", *LAST_RESORT], ["XXIV"])
    expected, last_resort = expected_retreats("1207", set(), {"1107", "1108", "1406", "1408"})
    assert last_resort and expected == {("1206", "1205"), ("1208", "1209")}
    assert offered_retreats(game) == expected


def test_last_resort_costs_a_full_strength_unit_a_step():
    game, _ = force_retreat(["16th 1207", *LAST_RESORT], ["XXIV"])
    events = game.apply(ChooseRetreat(("1208", "1209")))
    assert one(events, UnitRetreated) == UnitRetreated("16th", "1207", ("1208", "1209"), True)
    lost = one(events, StepLost)
    assert (lost.unit, lost.strength_lost) == ("16th", 4)
    assert where(game, "16th") == "1209" and strength_of(game, "16th") == "half"


def test_last_resort_eliminates_a_half_strength_unit():
    # 16th (4) attacked by XXIV (12): 3:1, roll 2: DR
    game = position(["16th 1207 half", *LAST_RESORT], fixed_dice=[2])
    events = declare_and_resolve(game, ["XXIV"], "16th")
    assert battle(game, events).result == "DR"
    gone = one(events, UnitEliminated)
    assert (gone.unit, gone.points_to) == ("16th", "german")
    assert "16th" in pool_ids(game)


def test_drl_then_last_resort_eliminates():
    # full-strength 16th: DRL takes the step, then the half-strength unit must cross a ZOC: eliminated
    game = position(["16th 1207", *LAST_RESORT], fixed_dice=[1])
    events = declare_and_resolve(game, ["XXIV", "XLI"], "16th")  # 24 v 8: 3:1, roll 1: DRL
    assert battle(game, events).result == "DRL"
    assert [e.type for e in events if e.type in ("step_lost", "unit_eliminated")] == ["step_lost", "unit_eliminated"]
    assert where(game, "16th") is None
    assert game.to_json()["elimination_points"]["german"] == 1


def test_a_retreat_avoiding_zoc_is_preferred_to_a_last_resort():
    # the same, but 1408 empty: 1309 and 1308 are free again
    game, _ = force_retreat(["16th 1207", "XXIV 1107", "XLI 1108", "LVII 1406"], ["XXIV"])
    offered = offered_retreats(game)
    assert offered == expected_retreats("1207", set(), {"1107", "1108", "1406"})[0]
    assert offered and all("1206" not in p and "1208" not in p for p in offered)
    path = sorted(offered)[0]
    events = game.apply(ChooseRetreat(path))
    assert one(events, UnitRetreated).through_zoc is False
    assert strength_of(game, "16th") == "full"


# --- no path: eliminated -------------------------------------------------------------------------

def test_no_retreat_path_eliminates_the_unit():
    # the corner hex 1410: its only neighbours are 1409 and 1310; Germans in 1310 and 1407
    game = position(["16th 1410", "XXIV 1310", "XLI 1407"], fixed_dice=[1])
    assert expected_retreats("1410", set(), {"1310", "1407"}) == (set(), False)
    events = declare_and_resolve(game, ["XXIV"], "16th")  # 12 v 8: 1:1, roll 1: DR
    assert battle(game, events).result == "DR"
    gone = one(events, UnitEliminated)
    assert (gone.unit, gone.hex, gone.strength_lost, gone.points_to) == ("16th", "1410", 8, "german")
    assert not of_type(events, UnitRetreated) and not of_type(events, StepLost)


def test_a_unit_cannot_retreat_off_the_map():
    # from the corner 1410 the only retreat is 1409 (in XXIV's zone of control), 1408: a last resort
    assert expected_retreats("1410", set(), {"1310"}) == ({("1409", "1408")}, True)
    game = position(["16th 1410", "XXIV 1310"], fixed_dice=[1])
    events = declare_and_resolve(game, ["XXIV"], "16th")
    assert one(events, UnitRetreated) == UnitRetreated("16th", "1410", ("1409", "1408"), True)
    assert where(game, "16th") == "1408" and strength_of(game, "16th") == "half"


def test_german_units_retreat_the_same_way():
    game = position(["V 1207", "16th 1307", "19th 1308"], phase="soviet_combat", fixed_dice=[1])
    events = declare_and_resolve(game, ["16th"], "V")  # 8 v 6: 1:1, roll 1: DR
    assert battle(game, events).result == "DR"
    expected = expected_retreats("1207", set(), {"1307", "1308"})[0]
    assert offered_retreats(game) == expected
    assert all(my_distance("1207", p[-1]) == 2 for p in expected)
    assert game.current_player() == "soviet"  # the attacking player chooses


# --- random positions: the engine's retreat paths match the rules' enumeration ---------------------

ALL_HEXES = [f"{c:02d}{r:02d}" for c in range(1, 15) for r in range(1, 11)]
SOVIETS = ["19th", "20th", "24th", "29th", "30th", "32nd"]
GERMANS = ["XL", "XLVIII", "LVI", "XLVI", "LVII", "XLVII"]
DR_ROLL = {"1:1": 1, "2:1": 1, "3:1": 2}


def test_under_ruleset_2_every_hex_of_a_longer_retreat_is_one_farther():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108", *FULL_RING], fixed_dice=[1], ruleset=2)
    declare_and_resolve(game, ["XXIV"], "16th")
    friendly = {u.split()[1] for u in FULL_RING}
    offered = offered_retreats(game)
    assert offered == expected_retreats("1207", friendly, {"1107", "1108"}, ruleset=2)[0]
    assert offered and all(my_distance("1207", path[2]) == 3 for path in offered)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from([2, 3]))
def test_retreat_paths_match_the_rules_in_random_positions(rnd, ruleset):
    defender_hex = rnd.choice(ALL_HEXES)
    ring = my_neighbours(defender_hex)
    attacker_hexes = rnd.sample(ring, 2)
    around = {n for h in ring for n in my_neighbours(h)}
    around |= {n for h in around for n in my_neighbours(h)}
    nearby = sorted(around - {defender_hex, *attacker_hexes})
    others = rnd.sample(nearby, min(len(nearby), rnd.randint(0, 9)))
    split = rnd.randint(0, len(others))
    friendly, enemy = others[:split][:len(SOVIETS)], others[split:][:len(GERMANS)]
    units = [f"16th {defender_hex}", f"XXIV {attacker_hexes[0]}", f"XLI {attacker_hexes[1]}"]
    units += [f"{u} {h}" for u, h in zip(SOVIETS, friendly)] + [f"{u} {h}" for u, h in zip(GERMANS, enemy)]
    probe = position(units)
    column = probe.battle_odds("16th", ["XXIV", "XLI"]).label(probe.scenario.crt)  # 24 v 8: 3:1 less terrain
    game = position(units, fixed_dice=[DR_ROLL[column]], ruleset=ruleset)
    events = declare_and_resolve(game, ["XXIV", "XLI"], "16th")
    assert battle(game, events).result == "DR"
    expected, last_resort = expected_retreats(defender_hex, set(friendly), {*attacker_hexes, *enemy}, ruleset)
    if not expected:
        assert one(events, UnitEliminated).unit == "16th"
        assert not of_type(events, UnitRetreated)
        return
    if len(expected) > 1:
        assert offered_retreats(game) == expected
        events = game.apply(ChooseRetreat(sorted(expected)[rnd.randrange(len(expected))]))
    retreat = one(events, UnitRetreated)
    assert retreat.path in expected and retreat.through_zoc == last_resort
    assert where(game, "16th") == retreat.path[-1]
    assert strength_of(game, "16th") == ("half" if last_resort else "full")
