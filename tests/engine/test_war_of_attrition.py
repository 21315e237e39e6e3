"""The "War of Attrition" variant: supply points, the supply phase, extra supply, in-supply tracing,
Assault and Winter Gear.

Rules text: "The War of Attrition Variant" (Supply Phase, Basic Supply, Extra Supply, Supply
Utilization, Assault, Winter Gear); engine rulings 41-46 (engine/RULINGS.md).

Hexes used: with German units on every hex of column 13 but 1305 (the "gap"), a Soviet unit in 1205
can trace supply to the east edge only through 1305 and then 1404 or 1405, all three empty hexes in
German zones of control, unless Soviet units stand there. 1207, 1307, 1202 and 1203 are clear with no
river between 1207 and 1307 nor between 1203 and 1202.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import CloseDeclarations, DeclareAttack, EndPhase, Reason, Replace, ResolveBattle, Restore
from engine.actions import Assault, BuyExtraSupply, BuyWinterGear, ChooseFrostbite, RollAttrition
from engine.events import (
    AssaultSupported, BattleResolved, PhaseStarted, StepLost, SupplyChanged, WinterAttrition,
    WinterGearBought,
)
from engine.sequence import turn_phases

from campaign_helpers import (
    QUIET, enter_german_turn, enter_soviet_replacement, legal, neighbours, of_type, one, phases_started,
    points_left, position, refuse, rolls_for, strength_of, supply,
)

WOA = {"war_of_attrition": True}
GAP_WALL = ["XL 1301", "XLI 1302", "XLVI 1303", "XLVII 1304", "XLVIII 1306", "LVI 1307", "LVII 1308",
            "XXIV 1309", "VII 1310"]
ALL_CITIES = ["0204", "0307", "0509", "0601", "0603", "0803", "0805", "0809", "1103", "1107", "1405"]


def control(german: list[str]) -> dict[str, str]:
    """City control: the listed cities German, every other one Soviet."""
    return {c: ("german" if c in german else "soviet") for c in ALL_CITIES}


def supply_changes(events, side):
    return [(e.change, e.supply) for e in of_type(events, SupplyChanged) if e.side == side]


# --- supply points and the supply phase --------------------------------------------------------------

@pytest.mark.parametrize("scenario", ["standard", "campaign"])
def test_supply_points_at_the_start_german_5_soviet_15(scenario):
    game = engine.new_game(scenario, WOA, seed="s")
    assert supply(game) == {"german": 5, "soviet": 15}


def test_no_supply_points_without_the_variant():
    game = engine.new_game("campaign", {}, seed="s")
    assert supply(game) == {"german": 0, "soviet": 0}


def test_supply_phase_added_before_each_replacement_phase():
    assert [p.name for p in turn_phases(True)] == [
        "german_supply", "german_replacement", "german_panzer_movement", "german_combat", "german_movement",
        "soviet_supply", "soviet_replacement", "soviet_rail_movement", "soviet_combat", "soviet_movement"]
    assert "german_supply" not in [p.name for p in turn_phases(False)]


def test_supply_phases_in_every_turn_of_a_played_campaign():
    game = engine.new_game("campaign", {"preset": "war_of_attrition"}, seed="woa-phases")
    chooser = random.Random(3)
    started = []
    while not game.is_terminal():
        started += [e for e in game.apply(chooser.choice(game.legal_actions())) if isinstance(e, PhaseStarted)]
        assert min(supply(game).values()) >= 0
    for side in ("german", "soviet"):
        supply_turns = [e.turn for e in started if e.phase == f"{side}_supply"]
        assert supply_turns == list(range(1, 15))
        for i, event in enumerate(started):
            if event.phase == f"{side}_replacement":
                assert started[i - 1].phase == f"{side}_supply" and started[i - 1].turn == event.turn


def test_turn_1_german_supply_phase_is_played():
    game = engine.new_game("standard", WOA, seed="t1")
    events = game.apply(engine.StandardSetup())
    assert phases_started(events)[:2] == ["german_supply", "german_replacement"]
    # 5 points, 2 controlled cities (Smolensk, Roslavl): keep 2, then 3 basic supply
    assert supply_changes(events, "german") == [(-3, 2), (3, 5)]
    assert supply(game)["german"] == 5


def test_turn_1_soviet_supply_phase_keeps_what_the_cities_allow_then_adds_basic_supply():
    # "At the start of game ... the Soviet player has 15"; "a player is allowed to keep 1 supply point for
    # every city that they control, with Moscow allowing 3 points for the Soviet player"; "each player
    # receives 3 supply points". The Soviets start with every city but Smolensk and Roslavl: 8 cities
    # and Moscow keep 8 + 3 = 11 of the 15, then 3 basic supply: 14, before the replacement points
    game = engine.new_game("standard", WOA, seed="t1")
    game.apply(engine.StandardSetup())
    events = []
    while game.phase.side == "german":
        events = game.apply(next(a for a in (EndPhase(), CloseDeclarations()) if a in game.legal_actions()))
    assert supply(game)["soviet"] == 14 and game.turn == 1
    assert phases_started(events)[:2] == ["soviet_supply", "soviet_replacement"]
    assert supply_changes(events, "soviet") == [(-4, 11), (3, 14)]
    reasons = [e.reason for e in of_type(events, SupplyChanged)]
    assert reasons == ["kept only what controlled cities allow", "basic supply"]
    received = one(events, engine.events.ReplacementPointsReceived)
    assert (received.side, received.points) == ("soviet", 5)
    assert events.index(received) > max(events.index(e) for e in of_type(events, SupplyChanged))


def test_supply_kept_is_one_per_controlled_city():
    _, events = enter_german_turn(2, WOA, supply={"german": 10, "soviet": 0},
                                  city_control=control(["0204", "0307", "0603"]))
    assert supply_changes(events, "german") == [(-7, 3), (3, 6)]


def test_supply_kept_moscow_allows_the_soviets_three():
    _, events = enter_soviet_replacement(6, WOA, supply={"german": 0, "soviet": 20},
                                         city_control=control(["0204", "0307", "0509", "0601", "0603", "0809"]))
    # Soviet cities: Moscow (3) + Mozhaisk, Kaluga, Tula, Ryazan (4) = 7; then 3 basic supply
    assert supply_changes(events, "soviet") == [(-13, 7), (3, 10)]


def test_supply_kept_moscow_allows_the_germans_only_one():
    _, events = enter_german_turn(2, WOA, supply={"german": 10, "soviet": 0},
                                  city_control=control(["0204", "1103"]))
    assert supply_changes(events, "german") == [(-8, 2), (3, 5)]


def test_supply_below_the_limit_is_kept_whole():
    _, events = enter_german_turn(3, WOA, supply={"german": 1, "soviet": 0}, scenario="standard")
    assert supply_changes(events, "german") == [(3, 4)]


def test_supply_all_lost_without_a_controlled_city():
    _, events = enter_german_turn(2, WOA, supply={"german": 4, "soviet": 0}, city_control=control([]))
    assert supply_changes(events, "german") == [(-4, 0), (3, 3)]


@pytest.mark.parametrize("turn", range(2, 15))
def test_basic_supply_german_3_until_turn_4_then_none(turn):
    _, events = enter_german_turn(turn, WOA, supply={"german": 0, "soviet": 0}, dice=[6, 6])
    basic = [e.change for e in of_type(events, SupplyChanged) if e.side == "german" and e.reason == "basic supply"]
    assert basic == ([3] if turn <= 4 else [])


@pytest.mark.parametrize("turn", [1, 5, 8, 14])
def test_basic_supply_soviet_3_every_turn(turn):
    _, events = enter_soviet_replacement(turn, WOA, supply={"german": 0, "soviet": 0}, dice=[6])
    basic = [e.change for e in of_type(events, SupplyChanged) if e.side == "soviet" and e.reason == "basic supply"]
    assert basic == [3]


def test_supply_phase_asks_nothing_and_passes_by_itself():
    game, events = enter_soviet_replacement(5, WOA)
    assert phases_started(events) == ["soviet_supply", "soviet_replacement"]
    assert game.phase.name == "soviet_replacement"


# --- extra supply ------------------------------------------------------------------------------------

def replacement_position(side="soviet", turn=5, options=WOA, units=QUIET, **extra):
    extra.setdefault("supply", {"german": 2, "soviet": 6})
    return position(units, turn, f"{side}_replacement", options, **extra)


def test_extra_supply_one_replacement_point_buys_a_die_roll_of_supply():
    game = replacement_position(fixed_dice=[4])
    assert BuyExtraSupply() in game.legal_actions()
    events = game.apply(BuyExtraSupply())
    assert rolls_for(events, "extra supply (soviet)") == [4]
    assert one(events, SupplyChanged) == SupplyChanged("soviet", 10, 4, "extra supply")
    assert supply(game) == {"german": 2, "soviet": 10}
    assert points_left(game) == 4


def test_extra_supply_for_the_german_player_too():
    game = replacement_position("german", units=QUIET + ["XL 0107 half"], fixed_dice=[6])
    game.apply(BuyExtraSupply())
    assert supply(game)["german"] == 8 and points_left(game) == 0


def test_extra_supply_at_most_two_points_a_phase():
    game = replacement_position(fixed_dice=[1, 2, 3])
    game.apply(BuyExtraSupply())
    game.apply(BuyExtraSupply())
    assert supply(game)["soviet"] == 6 + 1 + 2 and points_left(game) == 3
    assert BuyExtraSupply() not in game.legal_actions()
    refuse(game, BuyExtraSupply(), Reason.LIMIT_REACHED, "2")
    game.apply(Replace("43rd", "1405"))  # the other points still buy replacements


def test_extra_supply_limit_is_per_phase():
    game = replacement_position(turn=4, phase_state={"extra_supply": 2, "points": 3}, fixed_dice=[5])
    refuse(game, BuyExtraSupply(), Reason.LIMIT_REACHED)
    game = replacement_position(turn=4, phase_state={"extra_supply": 1, "points": 3}, fixed_dice=[5])
    game.apply(BuyExtraSupply())
    assert supply(game)["soviet"] == 11


def test_extra_supply_needs_a_replacement_point():
    game = replacement_position(phase_state={"points": 0})
    refuse(game, BuyExtraSupply(), Reason.NO_REPLACEMENT_POINTS)


def test_extra_supply_not_without_the_variant():
    game = replacement_position(options={})
    assert BuyExtraSupply() not in game.legal_actions()
    refuse(game, BuyExtraSupply(), Reason.WRONG_PHASE, "War of Attrition")


# --- in supply ---------------------------------------------------------------------------------------

def trace(units, unit="3rd", options=WOA):
    game = position(units, 5, "soviet_combat", options)
    return game, game.supply_trace_cost(unit)


def test_in_supply_free_path_costs_nothing():
    game, cost = trace(["VII 0206", "3rd 1205"])
    assert cost == 0 and game.in_communication("3rd")


def test_in_supply_through_empty_enemy_zoc_hexes_one_point_each():
    game, cost = trace(GAP_WALL + ["3rd 1205"])
    assert not game.in_communication("3rd")
    assert cost == 2  # 1305, then 1404 or 1405: both empty and in German zones of control


def test_in_supply_through_friendly_units_always():
    game, cost = trace(GAP_WALL + ["3rd 1205", "10th 1305"])
    assert not game.in_communication("3rd")
    assert cost == 1  # 1305 holds a Soviet unit: free; 1404/1405 still cost 1
    game, cost = trace(GAP_WALL + ["3rd 1205", "10th 1305", "5th 1405"])
    assert cost == 0 and not game.in_communication("3rd")


def test_in_supply_blocked_by_enemy_units():
    _, cost = trace(GAP_WALL + ["3rd 1205", "IX 1305"])
    assert cost is None


def test_in_supply_for_the_germans_traced_to_the_west_edge():
    game, cost = trace(["VII 0206", "XXII 0505", "3rd 1205"], unit="XXII")
    assert cost == 0
    walled = [f"{u} 02{r:02d}" for u, r in zip(
        ["3rd", "5th", "10th", "13th", "16th", "19th", "20th", "24th", "29th", "30th"], range(1, 11))]
    game, cost = trace(walled + ["XXII 0505"], unit="XXII")
    assert cost is None


# --- Assault -----------------------------------------------------------------------------------------

ASSAULT = ["VII 0206", "V 1307 half", "3rd 1207", "XII 1202", "10th 1203"]


def assault_game(turn=5, units=ASSAULT, soviet_supply=10, options=WOA, dice=(1,)):
    return position(units, turn, "soviet_combat", options, supply={"german": 0, "soviet": soviet_supply},
                    fixed_dice=list(dice))


def test_assault_adds_one_strength_per_supply_point_to_a_declared_attacker():
    game = assault_game()
    game.apply(DeclareAttack(("3rd",), "V"))
    assert Assault("3rd", 1) in game.legal_actions()
    events = game.apply(Assault("3rd", 3))
    assert one(events, AssaultSupported) == AssaultSupported("3rd", 3, 3)
    assert supply(game)["soviet"] == 7
    odds = game.battle_odds("V", ["3rd"])
    assert (odds.attack, odds.defence) == (11, 3)


def test_assault_in_mud_is_added_before_halving():
    game = assault_game(turn=3, dice=[2])
    game.apply(DeclareAttack(("3rd",), "V"))
    game.apply(Assault("3rd", 2))
    game.apply(CloseDeclarations())
    battle = one(game.apply(ResolveBattle("V")), BattleResolved)
    assert battle.attack == "5"  # (8 + 2) / 2, not 8 / 2 + 2 = 6
    assert (battle.defence, battle.odds, battle.column) == (3, "1:1", "1:1")


def test_assault_bonus_used_in_the_battle_and_spent_with_it():
    game = assault_game(dice=[4])
    game.apply(DeclareAttack(("3rd",), "V"))
    game.apply(Assault("3rd", 4))  # 12 against 3: 4:1
    game.apply(CloseDeclarations())
    battle = one(game.apply(ResolveBattle("V")), BattleResolved)
    assert (battle.attack, battle.odds, battle.result) == ("12", "4:1", "DR")


def test_assault_at_most_the_printed_strength():
    game = assault_game(soviet_supply=20)
    game.apply(DeclareAttack(("3rd",), "V"))
    refuse(game, Assault("3rd", 9), Reason.LIMIT_REACHED, "8")
    game.apply(Assault("3rd", 5))
    refuse(game, Assault("3rd", 4), Reason.LIMIT_REACHED)
    game.apply(Assault("3rd", 3))
    assert Assault("3rd", 1) not in game.legal_actions()
    assert game.battle_odds("V", ["3rd"]).attack == 16


def test_assault_half_strength_unit_at_most_its_half_strength():
    units = ["VII 0206", "V 1307 half", "3rd 1207 half", "XII 1202", "10th 1203"]
    game = assault_game(units=units)
    game.apply(DeclareAttack(("3rd",), "V"))
    refuse(game, Assault("3rd", 5), Reason.LIMIT_REACHED)
    game.apply(Assault("3rd", 4))


def test_assault_only_for_a_declared_attacker():
    game = assault_game()
    assert not legal(game, Assault)
    refuse(game, Assault("3rd", 1), Reason.NOT_ATTACKING, "3rd")
    game.apply(DeclareAttack(("3rd",), "V"))
    refuse(game, Assault("10th", 1), Reason.NOT_ATTACKING)


def test_assault_not_for_an_enemy_unit():
    game = assault_game()
    game.apply(DeclareAttack(("3rd",), "V"))
    refuse(game, Assault("V", 1), Reason.NOT_YOUR_UNIT)


def test_assault_needs_enough_supply():
    game = assault_game(soviet_supply=2)
    game.apply(DeclareAttack(("3rd",), "V"))
    refuse(game, Assault("3rd", 3), Reason.NOT_ENOUGH_SUPPLY, "3")
    game.apply(Assault("3rd", 2))
    assert supply(game)["soviet"] == 0
    assert not legal(game, Assault)
    refuse(game, Assault("3rd", 1), Reason.NOT_ENOUGH_SUPPLY)


def test_assault_pays_the_trace_cost_once_with_the_first_point():
    units = GAP_WALL + ["3rd 1205", "10th 1203"]  # 3rd traces through 1305 and 1404/1405: 2 extra points
    game = position(units, 5, "soviet_combat", WOA, supply={"german": 0, "soviet": 10})
    game.apply(DeclareAttack(("3rd",), "XLVIII"))
    events = game.apply(Assault("3rd", 1))
    assert one(events, AssaultSupported) == AssaultSupported("3rd", 1, 3)
    assert supply(game)["soviet"] == 7
    events = game.apply(Assault("3rd", 2))
    assert one(events, AssaultSupported) == AssaultSupported("3rd", 2, 2)
    assert supply(game)["soviet"] == 5


def test_assault_trace_cost_counts_toward_enough_supply():
    units = GAP_WALL + ["3rd 1205", "10th 1203"]
    game = position(units, 5, "soviet_combat", WOA, supply={"german": 0, "soviet": 2})
    game.apply(DeclareAttack(("3rd",), "XLVIII"))
    refuse(game, Assault("3rd", 1), Reason.NOT_ENOUGH_SUPPLY)


def test_assault_refused_for_a_unit_not_in_supply():
    units = GAP_WALL + ["IX 1305", "3rd 1205", "10th 1203"]
    game = position(units, 5, "soviet_combat", WOA, supply={"german": 0, "soviet": 10})
    game.apply(DeclareAttack(("3rd",), "XLVIII"))
    assert Assault("3rd", 1) not in game.legal_actions()
    refuse(game, Assault("3rd", 1), Reason.NOT_IN_SUPPLY, "3rd")


def test_assault_for_german_attackers():
    units = ["XXII 0604", "16th 0705 half", "XII 0305", "3rd 0405 half"]
    game = position(units, 5, "german_combat", WOA, supply={"german": 3, "soviet": 0})
    game.apply(DeclareAttack(("XXII",), "16th"))
    game.apply(Assault("XXII", 3))
    assert game.battle_odds("16th", ["XXII"]).attack == 11
    assert supply(game) == {"german": 0, "soviet": 0}


def test_assault_only_while_battles_are_declared():
    game = assault_game()
    game.apply(DeclareAttack(("3rd",), "V"))
    game.apply(CloseDeclarations())
    refuse(game, Assault("3rd", 1), Reason.DECLARATIONS_CLOSED)


def test_assault_buys_at_least_one_point():
    game = assault_game()
    game.apply(DeclareAttack(("3rd",), "V"))
    refuse(game, Assault("3rd", 0), Reason.MALFORMED_ACTION)


def test_assault_not_without_the_variant():
    game = assault_game(options={})
    game.apply(DeclareAttack(("3rd",), "V"))
    assert not legal(game, Assault)
    refuse(game, Assault("3rd", 1), Reason.WRONG_PHASE, "War of Attrition")


def test_assault_can_be_bought_for_the_only_possible_battle():
    units = ["VII 0206", "V 1307 half", "3rd 1207"]
    game = assault_game(units=units)
    events = game.apply(DeclareAttack(("3rd",), "V"))
    assert not of_type(events, engine.events.DeclarationsClosed)
    assert Assault("3rd", 1) in game.legal_actions() and CloseDeclarations() in game.legal_actions()
    game.apply(Assault("3rd", 2))
    assert game.battle_odds("V", ["3rd"]).attack == 10


def test_declarations_close_by_themselves_when_no_assault_can_be_bought_either():
    units = ["VII 0206", "V 1307 half", "3rd 1207"]
    game = assault_game(units=units, soviet_supply=0)
    events = game.apply(DeclareAttack(("3rd",), "V"))
    assert one(events, engine.events.DeclarationsClosed).battles == 1
    assert game.legal_actions() == [ResolveBattle("V")]


# --- Winter Gear -------------------------------------------------------------------------------------

def winter_game(side="soviet", turn=9, soviet_supply=5, german_supply=5, options=WOA, dice=(1,), units=QUIET):
    return position(units, turn, f"{side}_replacement", options, supply={"german": german_supply,
                                                                          "soviet": soviet_supply},
                    fixed_dice=list(dice))


def test_winter_attrition_waits_for_the_winter_gear_decision():
    game, events = enter_soviet_replacement(9, WOA, dice=[1], supply={"german": 0, "soviet": 20})
    assert not rolls_for(events, "winter attrition")
    assert set(map(type, game.legal_actions())) == {BuyWinterGear, RollAttrition}


def test_winter_gear_costs_two_supply_points_and_cancels_a_frostbite():
    game = winter_game(dice=[1])
    events = game.apply(BuyWinterGear())
    assert one(events, WinterGearBought) == WinterGearBought("soviet", 2)
    assert supply(game)["soviet"] == 3
    events = game.apply(RollAttrition())
    attrition = one(events, WinterAttrition)
    assert (attrition.roll, attrition.result) == (1, "cancelled")
    assert not of_type(events, StepLost) and not legal(game, ChooseFrostbite)
    assert strength_of(game, "3rd") == "full"
    game.apply(Replace("43rd", "1405"))  # the phase goes on


def test_without_winter_gear_the_same_roll_is_frostbite():
    game = winter_game(dice=[1])
    events = game.apply(RollAttrition())
    assert one(events, WinterAttrition).result == "frostbite"
    assert legal(game, ChooseFrostbite)
    assert supply(game)["soviet"] == 5


def test_winter_gear_unused_is_lost():
    game = winter_game(dice=[6])
    game.apply(BuyWinterGear())
    events = game.apply(RollAttrition())
    assert one(events, WinterAttrition).result == "no_effect"
    assert supply(game)["soviet"] == 3
    assert game.to_json()["phase_state"]["winter_gear"] == 0


def test_winter_gear_one_purchase_per_roll():
    game = winter_game(soviet_supply=10)
    game.apply(BuyWinterGear())
    assert game.legal_actions() == [RollAttrition()]
    refuse(game, BuyWinterGear(), Reason.LIMIT_REACHED)


def test_winter_gear_harsher_winter_two_rolls_two_purchases():
    options = {"war_of_attrition": True, "harsher_winter": True}
    game = winter_game("german", turn=10, options=options, german_supply=4, dice=[1, 2])
    game.apply(BuyWinterGear())
    game.apply(BuyWinterGear())
    assert supply(game)["german"] == 0
    events = game.apply(RollAttrition())
    assert [e.result for e in of_type(events, WinterAttrition)] == ["cancelled", "cancelled"]
    assert not of_type(events, StepLost)


def test_winter_gear_cancels_only_one_of_two_frostbites():
    options = {"war_of_attrition": True, "harsher_winter": True}
    game = winter_game("german", turn=11, options=options, german_supply=4, dice=[3, 4])
    game.apply(BuyWinterGear())
    events = game.apply(RollAttrition())
    assert [e.result for e in of_type(events, WinterAttrition)] == ["cancelled", "frostbite"]
    assert sorted(a.unit for a in legal(game, ChooseFrostbite)) == ["VII", "XLVII"]


def test_winter_gear_needs_two_supply_points():
    game = winter_game(soviet_supply=1)
    assert BuyWinterGear() not in game.legal_actions()
    refuse(game, BuyWinterGear(), Reason.NOT_ENOUGH_SUPPLY, "2")


def test_winter_gear_is_spent_on_a_unit_in_supply():
    # "Supply points may be spent on units that are in supply ... for avoiding winter attrition":
    # XX, the only German unit, is surrounded by six Soviet units and traces no supply
    ring = ["3rd", "5th", "10th", "13th", "16th", "19th"]
    units = ["XX 0807"] + [f"{unit} {hex_id} half" for unit, hex_id in zip(ring, neighbours("0807"))]
    game = winter_game("german", german_supply=4, units=units)
    assert game.supply_trace_cost("XX") is None
    assert game.legal_actions() == [RollAttrition()]
    refuse(game, BuyWinterGear(), Reason.NOT_IN_SUPPLY, "no german unit is in supply")


def test_winter_gear_pays_the_supply_trace_of_the_cheapest_unit():
    # XX in 0807 has one free neighbour, 0907, in a Soviet zone of control: tracing costs 1 more
    ring = ["3rd", "5th", "10th", "13th", "16th"]
    free = "0907"
    hexes = [h for h in neighbours("0807") if h != free]
    units = ["XX 0807"] + [f"{unit} {hex_id} half" for unit, hex_id in zip(ring, hexes)]
    game = winter_game("german", german_supply=3, units=units)
    assert game.supply_trace_cost("XX") == 1
    events = game.apply(BuyWinterGear())
    assert one(events, WinterGearBought) == WinterGearBought("german", 3)
    assert supply(game)["german"] == 0


def test_winter_gear_only_before_the_roll():
    game = winter_game(dice=[6])
    game.apply(RollAttrition())
    refuse(game, BuyWinterGear(), Reason.WRONG_PHASE)
    refuse(game, RollAttrition(), Reason.WRONG_PHASE)


def test_winter_attrition_first_then_replacements():
    game = winter_game(dice=[6])
    refuse(game, Replace("43rd", "1405"), Reason.ATTRITION_FIRST)
    refuse(game, Restore("5th"), Reason.ATTRITION_FIRST)
    refuse(game, BuyExtraSupply(), Reason.ATTRITION_FIRST)
    refuse(game, EndPhase(), Reason.ATTRITION_FIRST)
    game.apply(RollAttrition())
    game.apply(Restore("5th"))
    assert strength_of(game, "5th") == "full"


def test_winter_gear_not_without_the_variant():
    game = winter_game(options={})
    assert game.legal_actions() == [RollAttrition()]
    refuse(game, BuyWinterGear(), Reason.WRONG_PHASE, "War of Attrition")


def test_winter_gear_no_purchase_outside_snow_turns():
    game = winter_game(turn=7)
    assert BuyWinterGear() not in game.legal_actions()
    refuse(game, BuyWinterGear(), Reason.WRONG_PHASE)


# --- positions ---------------------------------------------------------------------------------------

def test_position_supply_points_and_phase_state_read_back():
    game = position(ASSAULT, 5, "soviet_combat", WOA, supply={"german": 1, "soviet": 9},
                    phase_state={"battles": [{"defender": "V", "attackers": ["3rd"]}], "assault": {"3rd": 2}})
    assert supply(game) == {"german": 1, "soviet": 9}
    assert game.battle_odds("V", ["3rd"]).attack == 10
    copy = engine.game_from_position(game.to_json())
    assert copy.state_hash() == game.state_hash()
    assert copy.to_json()["phase_state"]["assault"] == {"3rd": 2}


@pytest.mark.parametrize("bad", [{"german": -1, "soviet": 3}, {"german": "5", "soviet": 3}, [5, 15]])
def test_position_bad_supply_is_a_position_error(bad):
    with pytest.raises(engine.PositionError) as caught:
        position(QUIET, 5, "soviet_combat", WOA, supply=bad)
    assert "supply" in str(caught.value)


def test_position_supply_phase_only_with_the_variant():
    with pytest.raises(engine.PositionError) as caught:
        position(QUIET, 5, "german_supply", {})
    assert "german_supply" in str(caught.value)
    game = position(QUIET, 5, "german_supply", WOA)
    assert game.phase.name == "german_supply" and game.current_player() == "german"
