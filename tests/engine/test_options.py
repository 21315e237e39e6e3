"""Match options: the Game Balance handicap, the Soviet Play Balance rules and the Optional Rules.

Rules text: "Game Balance" (basic rules, Replacements), "Soviet Play Balance", "Optional Rules";
engine rulings 34-40 and 47 (engine/RULINGS.md); the readings of the Soviet Replacement Edge hexes
(0901, 1301, 0810) and of the EARLY/LATE turns in reference/bfm-map.md.

Hexes used: 1107 (Tula) is a fortification hex with clear neighbours 1106 (fortification), 1206,
1207, 1108, 1007 and 1006, and no river hexsides; Moscow 1103 has no river toward 1202; 1104 is a
fortification hex with a river toward 1103 and 1203 but none toward 1204. A German "wall" on 1302,
1304, 1306, 1308 and 1310 occupies or controls every hex of column 13: west of it, the Soviets are
in communication with the east edge only through the Soviet Replacement Edge hexes.
"""

from __future__ import annotations

import itertools

import pytest

import engine
from engine import IllegalAction, Options, Reason, Replace, Restore
from engine.actions import ChooseFrostbite, RollAttrition
from engine.events import (
    PhaseStarted, ReplacementPointsReceived, StepLost, UnitAvailable, UnitEliminated, WeatherChanged, WinterAttrition,
)
from engine.options import OPTIONS, PRESETS

from campaign_helpers import (
    QUIET, SWITCHES, WAR_OF_ATTRITION, destinations, distance, end_phase, enter_german_turn,
    enter_soviet_replacement, is_fort, is_forest, legal, of_type, one, phases_started, points_left, position,
    refuse, river_between, rolls_for, strength_of, where,
)

WALL = ["XL 1302", "XLI 1304", "XLVI 1306", "XLVII 1308", "XLVIII 1310"]
EXTRA_HEXES = ["0901", "1301", "0810"]


def german_points(events) -> int:
    return sum(e.points for e in of_type(events, ReplacementPointsReceived) if e.side == "german")


def soviet_points(events) -> int:
    return sum(e.points for e in of_type(events, ReplacementPointsReceived) if e.side == "soviet")


# --- Game Balance: Soviet replacements 4 or 3 --------------------------------------------------------

@pytest.mark.parametrize("scenario", ["standard", "campaign"])
@pytest.mark.parametrize("handicap", [4, 3])
@pytest.mark.parametrize("turn", [1, 4, 7])
def test_handicap_soviet_replacements_four_or_three(scenario, handicap, turn):
    _, events = enter_soviet_replacement(turn, {"soviet_replacements": handicap}, scenario=scenario)
    assert soviet_points(events) == handicap


@pytest.mark.parametrize("handicap", [5, 4, 3])
@pytest.mark.parametrize("turn", [8, 11, 14])
def test_handicap_campaign_turns_with_two_points_stay_two(handicap, turn):
    _, events = enter_soviet_replacement(turn, {"soviet_replacements": handicap}, dice=[6])
    assert soviet_points(events) == 2


def test_handicap_does_not_touch_german_replacements():
    _, events = enter_german_turn(2, {"soviet_replacements": 3}, scenario="standard")
    assert german_points(events) == 1


@pytest.mark.parametrize("bad", [6, 2, 0, "4", True, None])
def test_handicap_other_values_refused(bad):
    with pytest.raises(IllegalAction) as caught:
        engine.new_game("standard", {"soviet_replacements": bad})
    assert caught.value.reason == Reason.OPTION_UNAVAILABLE
    assert "soviet_replacements" in caught.value.message


# --- Soviet Play Balance: Improved Soviet 1st Shock Unit ---------------------------------------------

def first_shock_odds(shock_hex, options, extra=(), defender="XXXIV 1007", attackers=("1st-shock",)):
    units = ["VII 0206", defender, f"1st-shock {shock_hex} half", *extra]
    game = position(units, 5, "soviet_combat", options)
    return game, game.battle_odds(defender.split()[0], list(attackers))


def test_improved_first_shock_shifts_right_from_a_fortification_in_communication():
    assert is_fort("1107") and not is_forest("1007") and not river_between("1107", "1007")
    game, odds = first_shock_odds("1107", {"improved_first_shock": True})
    assert game.in_communication("1st-shock")
    assert (odds.attack, odds.defence) == (5, 4)
    assert (odds.shifts, game.crt.labels[odds.raw], game.crt.labels[odds.final]) == (1, "1:1", "2:1")


def test_improved_first_shock_shifts_right_from_moscow():
    game, odds = first_shock_odds("1103", {"improved_first_shock": True}, defender="XXXIV 1202")
    assert not river_between("1103", "1202")
    assert game.in_communication("1st-shock")
    assert odds.shifts == 1


def test_improved_first_shock_shift_shown_in_the_battle_result():
    units = ["VII 0206", "XXXIV 1007", "1st-shock 1107 half"]
    game = position(units, 5, "soviet_combat", {"improved_first_shock": True}, fixed_dice=[2])
    events = game.apply(engine.DeclareAttack(("1st-shock",), "XXXIV"))
    events += game.apply(engine.ResolveBattle("XXXIV"))
    battle = one(events, engine.events.BattleResolved)
    assert (battle.odds, battle.shifts, battle.column, battle.result) == ("1:1", 1, "2:1", "DR")


def test_improved_first_shock_no_shift_when_not_in_communication():
    game, odds = first_shock_odds("1107", {"improved_first_shock": True}, extra=["XLII 1206", "XII 1108"])
    assert not game.in_communication("1st-shock")
    assert odds.shifts == 0


def test_improved_first_shock_no_shift_outside_moscow_and_fortifications():
    assert not is_fort("1108")
    game, odds = first_shock_odds("1108", {"improved_first_shock": True})
    assert game.in_communication("1st-shock")
    assert odds.shifts == 0


def test_improved_first_shock_no_shift_without_the_option():
    _, odds = first_shock_odds("1107", {})
    assert odds.shifts == 0


def test_improved_first_shock_only_for_the_first_shock_unit():
    units = ["VII 0206", "XXXIV 1007", "3rd 1107 half"]
    game = position(units, 5, "soviet_combat", {"improved_first_shock": True})
    assert game.battle_odds("XXXIV", ["3rd"]).shifts == 0


def test_improved_first_shock_shift_when_attacking_with_others():
    _, odds = first_shock_odds("1107", {"improved_first_shock": True}, extra=["3rd 1108 half"],
                               attackers=("1st-shock", "3rd"))
    assert odds.shifts == 1


# --- Soviet Play Balance: Stronger Soviet Defensive Line ---------------------------------------------

def line_odds(defender_hex, friend, options, attackers=("XLVII 1207", "LVII 1206"), defender="16th"):
    units = ["VII 0206", f"{defender} {defender_hex} half", *attackers, *([friend] if friend else [])]
    game = position(units, 5, "german_combat", options)
    odds = game.battle_odds(defender, [a.split()[0] for a in attackers])
    return game, odds


def test_stronger_line_two_left_shifts_next_to_a_soviet_unit_in_a_fortification():
    game, odds = line_odds("1107", "3rd 1106", {"stronger_defensive_line": True})  # 21 against 4
    assert (game.crt.labels[odds.raw], odds.shifts, game.crt.labels[odds.final]) == ("5:1", -2, "3:1")


def test_stronger_line_one_shift_without_the_option():
    game, odds = line_odds("1107", "3rd 1106", {})
    assert (odds.shifts, game.crt.labels[odds.final]) == (-1, "4:1")


def test_stronger_line_one_shift_when_the_neighbour_is_not_in_moscow_or_a_fortification():
    assert not is_fort("1108")
    game, odds = line_odds("1107", "3rd 1108", {"stronger_defensive_line": True})
    assert odds.shifts == -1


def test_stronger_line_one_shift_without_a_soviet_neighbour():
    _, odds = line_odds("1107", None, {"stronger_defensive_line": True})
    assert odds.shifts == -1


def test_stronger_line_defender_in_moscow_next_to_a_fortification():
    _, odds = line_odds("1103", "3rd 1104", {"stronger_defensive_line": True}, attackers=("LVII 1202",))
    assert odds.shifts == -2


def test_stronger_line_defender_in_a_fortification_next_to_moscow():
    assert not river_between("1102", "1202") and not river_between("1102", "1201")
    _, odds = line_odds("1102", "3rd 1103", {"stronger_defensive_line": True},
                        attackers=("LVII 1202", "XLVII 1201"))
    assert odds.shifts == -2


def test_stronger_line_river_still_adds_its_own_shift():
    assert river_between("1104", "1203")
    _, odds = line_odds("1104", "3rd 1105", {"stronger_defensive_line": True}, attackers=("LVII 1203",))
    assert odds.shifts == -3


def test_stronger_line_no_shift_for_a_defender_in_the_open():
    _, odds = line_odds("1208", "3rd 1107", {"stronger_defensive_line": True}, attackers=("LVII 1209",))
    assert odds.shifts == 0


def test_stronger_line_only_for_soviet_defenders():
    units = ["XXII 1107", "VII 1106", "3rd 1207", "10th 1208"]
    game = position(units, 5, "soviet_combat", {"stronger_defensive_line": True})
    assert game.battle_odds("XXII", ["3rd", "10th"]).shifts == 0



# --- both shifts are judged when the battle is declared (rulings 34 and 35) --------------------------

def resolve_in_order(game, order, answer=lambda game: game.legal_actions()[-1]):
    """Resolve the declared battles in ``order``, answering every decision; the BattleResolved events."""
    if game.ps.declaring:
        game.apply(engine.CloseDeclarations())
    resolved = {}
    for defender in order:
        resolved[defender] = one(game.apply(engine.ResolveBattle(defender)), engine.events.BattleResolved)
        while game.pending_decision():
            game.apply(answer(game))
    return resolved


@pytest.mark.parametrize("order", [("3rd", "16th"), ("16th", "3rd")])
def test_stronger_line_is_judged_when_the_defender_is_targeted_in_either_order(order):
    # 16th (1107) and 3rd (1106): neighbouring fortifications, each the other's line; 3rd is eliminated
    # (DE) in its battle, yet the battle against 16th keeps its two shifts whichever is resolved first
    units = ["VII 0206", "16th 1107 half", "3rd 1106 half", "XLVII 1207", "LVII 1206", "XLI 1205", "XXIV 1006"]
    dice = [1, 6] if order[0] == "3rd" else [6, 1]
    game = position(units, 5, "german_combat", {"stronger_defensive_line": True}, fixed_dice=dice)
    game.apply(engine.DeclareAttack(("XLVII", "LVII"), "16th"))
    game.apply(engine.DeclareAttack(("XLI", "XXIV"), "3rd"))
    assert game.to_json()["phase_state"]["strongpoint_shifts"] == ["16th", "3rd"]
    resolved = resolve_in_order(game, order)
    assert resolved["3rd"].result == "DE" and "3rd" not in game.hex_of
    assert (resolved["16th"].shifts, resolved["16th"].column) == (-2, "3:1")
    assert (resolved["3rd"].shifts, resolved["3rd"].column) == (-2, "4:1")


def test_stronger_line_judgement_survives_a_saved_position():
    units = ["VII 0206", "16th 1107 half", "3rd 1106 half", "XLVII 1207", "LVII 1206", "XLI 1205", "XXIV 1006"]
    game = position(units, 5, "german_combat", {"stronger_defensive_line": True}, fixed_dice=[1])
    game.apply(engine.DeclareAttack(("XLVII", "LVII"), "16th"))
    game.apply(engine.DeclareAttack(("XLI", "XXIV"), "3rd"))
    resolve_in_order(game, ["3rd"])
    again = engine.game_from_position(game.to_json())
    assert again.battle_odds("16th", ["XLVII", "LVII"]).shifts == -2
    # not yet declared, the defender is judged on the position now: its neighbour is gone
    fresh = position([u for u in units if not u.startswith("3rd")], 5, "german_combat",
                     {"stronger_defensive_line": True})
    assert fresh.battle_odds("16th", ["XLVII", "LVII"]).shifts == -1


@pytest.mark.parametrize("order", [("XLII", "XXXIV"), ("XXXIV", "XLII")])
def test_improved_first_shock_is_judged_when_it_is_declared_in_either_order(order):
    # the 1st Shock in the fortification 1107 is cut off by XLII (1206), XII (1108) and XXXIV (1007) when
    # the battles are declared; eliminating XLII first opens its communication, but its attack on XXXIV
    # gets no shift in either order
    units = ["VII 0206", "XXXIV 1007", "1st-shock 1107 half", "XLII 1206", "XII 1108", "3rd 1306", "5th 1205"]
    dice = [1, 6] if order[0] == "XLII" else [6, 1]
    game = position(units, 5, "soviet_combat", {"improved_first_shock": True}, fixed_dice=dice)
    assert not game.in_communication("1st-shock")
    game.apply(engine.DeclareAttack(("3rd", "5th"), "XLII"))
    game.apply(engine.DeclareAttack(("1st-shock",), "XXXIV"))
    resolved = resolve_in_order(game, order)
    assert resolved["XLII"].result == "DE"
    assert (resolved["XXXIV"].shifts, resolved["XXXIV"].column) == (0, "1:1")
    if "1st-shock" in game.hex_of:
        assert game.in_communication("1st-shock")  # it would have had the shift, judged at resolution


# --- Soviet Play Balance: German Logistics Problems --------------------------------------------------

@pytest.mark.parametrize("turn", range(2, 8))
def test_german_logistics_points_only_on_turns_2_4_6(turn):
    _, events = enter_german_turn(turn, {"german_logistics": True}, scenario="standard")
    assert german_points(events) == (1 if turn in (2, 4, 6) else 0)


@pytest.mark.parametrize("turn", range(2, 15))
def test_german_logistics_in_the_campaign_no_points_after_turn_6(turn):
    _, events = enter_german_turn(turn, {"german_logistics": True}, dice=[6, 6])
    assert german_points(events) == (1 if turn in (2, 4, 6) else 0)


def test_german_logistics_phase_without_points_passes_by_itself():
    game, events = enter_german_turn(3, {"german_logistics": True}, units=QUIET + ["XL 0107 half"],
                                     scenario="standard")
    assert "german_replacement" in phases_started(events)
    assert game.phase.name != "german_replacement"
    assert strength_of(game, "XL") == "half"


def test_german_logistics_snow_turn_without_points_still_rolls_for_winter_attrition():
    game, events = enter_german_turn(8, {"german_logistics": True}, dice=[1])
    assert german_points(events) == 0
    assert one(events, WinterAttrition).result == "frostbite"
    assert game.phase.name == "german_replacement" and legal(game, ChooseFrostbite)
    events = game.apply(ChooseFrostbite("VII"))
    assert strength_of(game, "VII") == "half"
    assert game.phase.name == "german_panzer_movement"  # nothing left to do in the phase


def test_german_logistics_off_points_every_turn():
    _, events = enter_german_turn(3, {}, scenario="standard")
    assert german_points(events) == 1


# --- Optional Rule: Soviet Replacement Edge ----------------------------------------------------------

def edge_game(turn, options=None, scenario="standard", units=(), **extra):
    options = {"soviet_replacement_edge": True} if options is None else options
    game = position([*WALL, "VII 0206", *units], turn, "soviet_replacement", options, scenario,
                    fixed_dice=[6], **extra)
    if RollAttrition() in game.legal_actions():  # snow turns: the attrition roll comes first
        game.apply(RollAttrition())
    return game


OPEN_TURNS = [("standard", 1), ("standard", 2), ("standard", 3), ("campaign", 1), ("campaign", 3),
              ("campaign", 13), ("campaign", 14)]
CLOSED_TURNS = [("standard", 4), ("standard", 7), ("campaign", 4), ("campaign", 7), ("campaign", 8),
                ("campaign", 12)]


@pytest.mark.parametrize("scenario,turn", OPEN_TURNS)
@pytest.mark.parametrize("hex_id", EXTRA_HEXES)
def test_replacement_edge_hexes_are_entry_hexes_on_open_turns(scenario, turn, hex_id):
    game = edge_game(turn, scenario=scenario)
    assert Replace("43rd", hex_id) in game.legal_actions()
    game.apply(Replace("43rd", hex_id))
    assert where(game, "43rd") == hex_id and strength_of(game, "43rd") == "half"


@pytest.mark.parametrize("scenario,turn", CLOSED_TURNS)
@pytest.mark.parametrize("hex_id", EXTRA_HEXES)
def test_replacement_edge_hexes_closed_on_other_turns(scenario, turn, hex_id):
    game = edge_game(turn, scenario=scenario)
    assert Replace("43rd", hex_id) not in game.legal_actions()
    refuse(game, Replace("43rd", hex_id), Reason.NOT_AN_ENTRY_HEX, hex_id)


@pytest.mark.parametrize("hex_id", EXTRA_HEXES)
def test_replacement_edge_hexes_closed_without_the_option(hex_id):
    game = edge_game(1, options={})
    refuse(game, Replace("43rd", hex_id), Reason.NOT_AN_ENTRY_HEX)


@pytest.mark.parametrize("scenario,turn", OPEN_TURNS)
def test_replacement_edge_traces_communication_on_open_turns(scenario, turn):
    game = edge_game(turn, scenario=scenario, units=["10th 0902 half"])
    assert game.in_communication("10th")
    game.apply(Restore("10th"))
    assert strength_of(game, "10th") == "full"


@pytest.mark.parametrize("scenario,turn", CLOSED_TURNS)
def test_replacement_edge_no_communication_on_other_turns(scenario, turn):
    game = edge_game(turn, scenario=scenario, units=["10th 0902 half"])
    assert not game.in_communication("10th")
    refuse(game, Restore("10th"), Reason.NOT_IN_COMMUNICATION, "10th")


def test_replacement_edge_without_the_option_no_communication_on_turn_1():
    game = edge_game(1, options={}, units=["10th 0902 half"])
    assert not game.in_communication("10th")


def test_replacement_edge_makes_a_cut_off_city_an_entry_hex():
    open_game = edge_game(2)
    assert Replace("43rd", "0805") in open_game.legal_actions()  # Kaluga
    open_game.apply(Replace("43rd", "0805"))
    closed = edge_game(4)
    refuse(closed, Replace("43rd", "0805"), Reason.NOT_IN_COMMUNICATION, "Kaluga")


# --- Optional Rule: Harsher Winter -------------------------------------------------------------------

@pytest.mark.parametrize("turn,rolls", [(8, 1), (9, 2), (10, 2), (11, 2), (12, 1)])
def test_harsher_winter_german_rolls_twice_on_turns_9_to_11(turn, rolls):
    _, events = enter_german_turn(turn, {"harsher_winter": True}, dice=[6, 6, 6])
    assert len(rolls_for(events, "winter attrition (german)")) == rolls


@pytest.mark.parametrize("turn", [9, 10, 11])
def test_harsher_winter_soviet_still_rolls_once(turn):
    _, events = enter_soviet_replacement(turn, {"harsher_winter": True}, dice=[6, 6, 6])
    assert len(rolls_for(events, "winter attrition (soviet)")) == 1


def test_without_harsher_winter_german_rolls_once_on_turn_10():
    _, events = enter_german_turn(10, {}, dice=[6, 6])
    assert len(rolls_for(events, "winter attrition (german)")) == 1


def test_harsher_winter_two_frostbites_two_losses():
    units = ["VII 0206", "XLVII 0305", "XXII 0107", "3rd 1308"]
    game, events = enter_german_turn(10, {"harsher_winter": True}, units=units, dice=[2, 5])
    assert [e.result for e in of_type(events, WinterAttrition)] == ["frostbite", "frostbite"]
    game.apply(ChooseFrostbite("VII"))
    # the second loss too must fall on a unit still at full strength
    assert sorted(a.unit for a in legal(game, ChooseFrostbite)) == ["XLVII", "XXII"]
    refuse(game, ChooseFrostbite("VII"), Reason.NOT_FULL_STRENGTH)
    game.apply(ChooseFrostbite("XXII"))
    assert [strength_of(game, u) for u in ("VII", "XLVII", "XXII")] == ["half", "full", "half"]
    assert not legal(game, ChooseFrostbite)


GERMANS = ["VII 0206", "XLVII 0305", "XL 0107 half", "3rd 1308"]
SOVIETS = ["VII 0206", "3rd 1308", "10th 1309", "5th 1208 half"]


def test_harsher_winter_german_frostbite_must_fall_on_a_full_strength_unit():
    game, _ = enter_german_turn(8, {"harsher_winter": True}, units=GERMANS, dice=[1])
    assert sorted(a.unit for a in legal(game, ChooseFrostbite)) == ["VII", "XLVII"]
    refuse(game, ChooseFrostbite("XL"), Reason.NOT_FULL_STRENGTH, "XL")
    game.apply(ChooseFrostbite("XLVII"))
    assert strength_of(game, "XLVII") == "half"


def test_harsher_winter_soviet_frostbite_must_fall_on_a_full_strength_unit():
    game, _ = enter_soviet_replacement(12, {"harsher_winter": True}, units=SOVIETS, dice=[3])
    assert sorted(a.unit for a in legal(game, ChooseFrostbite)) == ["10th", "3rd"]
    refuse(game, ChooseFrostbite("5th"), Reason.NOT_FULL_STRENGTH, "5th")


def test_harsher_winter_single_full_strength_unit_takes_the_loss_by_itself():
    units = ["VII 0206", "XLVII 0305 half", "XL 0107 half", "3rd 1308"]
    game, events = enter_german_turn(8, {"harsher_winter": True}, units=units, dice=[1])
    assert one(events, StepLost).unit == "VII"


def test_harsher_winter_any_unit_when_none_is_at_full_strength():
    units = ["VII 0206 half", "XLVII 0305 half", "3rd 1308"]
    game, _ = enter_german_turn(8, {"harsher_winter": True}, units=units, dice=[1])
    assert sorted(a.unit for a in legal(game, ChooseFrostbite)) == ["VII", "XLVII"]
    events = game.apply(ChooseFrostbite("VII"))
    assert one(events, UnitEliminated).points_to is None


def test_without_harsher_winter_a_half_strength_unit_may_take_the_frostbite():
    game, _ = enter_german_turn(8, {}, units=GERMANS, dice=[1])
    assert sorted(a.unit for a in legal(game, ChooseFrostbite)) == ["VII", "XL", "XLVII"]
    events = game.apply(ChooseFrostbite("XL"))
    assert one(events, UnitEliminated).unit == "XL"


# --- Optional Rule: Possible Early 1st Shock ---------------------------------------------------------

@pytest.mark.parametrize("scenario", ["standard", "campaign"])
@pytest.mark.parametrize("roll", [4, 5, 6])
def test_early_first_shock_roll_4_to_6_makes_it_available_on_turn_3_at_half_strength(scenario, roll):
    game, events = enter_soviet_replacement(3, {"early_first_shock": True}, dice=[roll], scenario=scenario)
    assert rolls_for(events, "Early 1st Shock") == [roll]
    assert one(events, UnitAvailable).unit == "1st-shock"
    assert Replace("1st-shock", "1405") in game.legal_actions()
    before = points_left(game)
    game.apply(Replace("1st-shock", "1405"))
    assert strength_of(game, "1st-shock") == "half"
    assert points_left(game) == before - 1  # it counts as one of the replacements


@pytest.mark.parametrize("roll", [1, 2, 3])
def test_early_first_shock_roll_1_to_3_it_waits_for_turn_4(roll):
    game, events = enter_soviet_replacement(3, {"early_first_shock": True}, dice=[roll], scenario="standard")
    assert rolls_for(events, "Early 1st Shock") == [roll]
    assert not of_type(events, UnitAvailable)
    assert not any(isinstance(a, Replace) and a.unit == "1st-shock" for a in game.legal_actions())
    refuse(game, Replace("1st-shock", "1405"), Reason.NOT_AVAILABLE_YET, "4")


def test_early_first_shock_no_roll_without_the_option():
    game, events = enter_soviet_replacement(3, {}, dice=[6], scenario="standard")
    assert not rolls_for(events, "Early 1st Shock")
    refuse(game, Replace("1st-shock", "1405"), Reason.NOT_AVAILABLE_YET)


@pytest.mark.parametrize("turn", [1, 2, 4])
def test_early_first_shock_roll_only_on_turn_3(turn):
    _, events = enter_soviet_replacement(turn, {"early_first_shock": True}, dice=[6], scenario="standard")
    assert not rolls_for(events, "Early 1st Shock")


def test_early_first_shock_no_roll_in_the_german_replacement_phase():
    _, events = enter_german_turn(3, {"early_first_shock": True}, dice=[6], scenario="standard")
    assert not rolls_for(events, "Early 1st Shock")


# --- Optional Rule: Variable Weather -----------------------------------------------------------------

VARIABLE = [("standard", 2, "early", "clear", "mud"), ("standard", 5, "late", "clear", "mud"),
            ("campaign", 2, "early", "clear", "mud"), ("campaign", 5, "late", "clear", "mud"),
            ("campaign", 7, "early", "clear", "snow"), ("campaign", 13, "late", "clear", "snow")]


@pytest.mark.parametrize("scenario,turn,marking,printed,other", VARIABLE)
@pytest.mark.parametrize("roll", range(1, 7))
def test_variable_weather_roll_at_the_start_of_the_german_replacement_phase(scenario, turn, marking, printed,
                                                                             other, roll):
    game, events = enter_german_turn(turn, {"variable_weather": True}, dice=[roll, 6, 6], scenario=scenario)
    assert rolls_for(events, "variable weather") == [roll]
    types = [e.type for e in events]
    rolled = types.index("die_rolled")
    assert events[rolled - 1] == PhaseStarted(turn, "german_replacement", "german")
    expected = other if roll >= 4 else printed
    assert game.weather().id == expected and game.to_json()["weather"] == expected
    changed = of_type(events, WeatherChanged)
    if roll >= 4:
        assert changed == [WeatherChanged(turn, other, marking.upper())]
    else:
        assert changed == []


@pytest.mark.parametrize("scenario,turn", [("standard", 3), ("standard", 6), ("standard", 7), ("campaign", 4),
                                           ("campaign", 8), ("campaign", 12), ("campaign", 14)])
def test_variable_weather_no_roll_on_unmarked_turns(scenario, turn):
    _, events = enter_german_turn(turn, {"variable_weather": True}, dice=[6, 6, 6], scenario=scenario)
    assert not rolls_for(events, "variable weather")
    assert not of_type(events, WeatherChanged)


def test_variable_weather_no_roll_without_the_option():
    _, events = enter_german_turn(2, {}, dice=[6], scenario="standard")
    assert not rolls_for(events, "variable weather")


def test_variable_weather_early_mud_on_turn_2_moves_panzers_one_hex():
    game, _ = enter_german_turn(2, {"variable_weather": True}, dice=[5], scenario="standard")
    end_phase(game)  # the German replacement phase
    assert game.phase.name == "german_panzer_movement"
    assert {distance("0305", h) for h in destinations(game, "XLVII")} == {1}


def test_variable_weather_holds_for_the_whole_turn_and_ends_with_it():
    game, _ = enter_german_turn(5, {"variable_weather": True}, dice=[6], scenario="standard")
    assert game.weather().id == "mud"
    while game.phase.name != "soviet_movement":
        end_phase(game)
        assert game.turn == 5 and game.weather().id == "mud"
    assert {distance("1308", h) for h in destinations(game, "3rd")} == {1}
    events = end_phase(game)
    assert game.turn == 6 and game.weather().id == "clear"
    assert not rolls_for(events, "variable weather")


def test_variable_weather_campaign_turn_7_early_snow_brings_winter_attrition():
    game, events = enter_german_turn(7, {"variable_weather": True}, dice=[4, 1])
    assert game.weather().id == "snow"
    attrition = one(events, WinterAttrition)
    assert (attrition.side, attrition.roll, attrition.result) == ("german", 1, "frostbite")
    assert events.index(attrition) > events.index(one(events, WeatherChanged))
    assert legal(game, ChooseFrostbite)


def test_variable_weather_campaign_turn_7_snow_for_the_soviet_player_too():
    game, _ = enter_german_turn(7, {"variable_weather": True}, dice=[4, 6, 2])
    while game.phase.side == "german":
        end_phase(game)
    assert game.phase.name == "soviet_replacement"
    assert game.weather().id == "snow"
    assert legal(game, ChooseFrostbite)  # the Soviet roll of 2 was Frostbite
    game.apply(ChooseFrostbite("3rd"))
    assert points_left(game) == 5  # turn 7 keeps its replacement points
    while game.phase.name != "soviet_movement":
        end_phase(game)
    assert max(distance("1308", h) for h in destinations(game, "3rd")) == 3  # snow: one hex less


def test_variable_weather_campaign_turn_13_late_snow():
    game, events = enter_german_turn(13, {"variable_weather": True}, dice=[6, 6])
    assert game.weather().id == "snow"
    assert one(events, WeatherChanged) == WeatherChanged(13, "snow", "LATE")
    assert len(rolls_for(events, "winter attrition (german)")) == 1


def test_variable_weather_under_war_of_attrition_rolls_in_the_german_supply_phase():
    options = {"variable_weather": True, "war_of_attrition": True}
    game, events = enter_german_turn(2, options, dice=[4], scenario="standard")
    started = [e for e in events if isinstance(e, PhaseStarted)]
    assert [e.phase for e in started][:2] == ["german_supply", "german_replacement"]
    roll_at = events.index(next(e for e in events if e.type == "die_rolled"))
    assert events.index(started[0]) < roll_at < events.index(started[1])
    assert game.weather().id == "mud"


# --- Optional Rule: Advanced Combat Results Table ----------------------------------------------------

@pytest.mark.parametrize("scenario", ["standard", "campaign"])
def test_advanced_crt_is_a_clear_error(scenario):
    with pytest.raises(IllegalAction) as caught:
        engine.new_game(scenario, {"advanced_crt": True})
    assert caught.value.reason == Reason.OPTION_UNAVAILABLE
    assert "not available" in caught.value.message
    assert "Advanced Combat Results Table" in caught.value.message


def test_advanced_crt_in_a_preset_combination_is_refused_too():
    with pytest.raises(IllegalAction) as caught:
        engine.new_game("campaign", {"preset": "all", "advanced_crt": True})
    assert caught.value.reason == Reason.OPTION_UNAVAILABLE


def test_advanced_crt_in_a_position_is_a_position_error():
    with pytest.raises(engine.PositionError) as caught:
        position(QUIET, 2, "german_combat", {"advanced_crt": True})
    assert "not available" in str(caught.value)


def test_advanced_crt_off_is_accepted():
    game = engine.new_game("standard", {"advanced_crt": False})
    assert game.options.advanced_crt is False


# --- unknown options, bad values, presets ------------------------------------------------------------

@pytest.mark.parametrize("options,fragment", [
    ({"fog_of_war": True}, "unknown option 'fog_of_war'"),
    ({"harsher_winter": "yes"}, "harsher_winter"),
    ({"harsher_winter": 1}, "harsher_winter"),
    ({"variable_weather": None}, "variable_weather"),
    ({"victory": "chess"}, "victory"),
    ({"preset": "everything"}, "unknown preset 'everything'"),
])
def test_unknown_options_and_bad_values_are_refused(options, fragment):
    with pytest.raises(IllegalAction) as caught:
        engine.new_game("campaign", options)
    assert caught.value.reason == Reason.OPTION_UNAVAILABLE
    assert fragment in caught.value.message


def test_unknown_option_in_a_position_is_a_position_error():
    with pytest.raises(engine.PositionError):
        position(QUIET, 2, "german_combat", {"fog_of_war": True})


@pytest.mark.parametrize("preset", ["war_of_attrition", "all"])
def test_presets_switch_on_every_play_balance_and_optional_rule(preset):
    options = Options.from_json({"preset": preset})
    for name in SWITCHES:
        assert getattr(options, name) is True, name
    assert options.advanced_crt is False
    assert options.soviet_replacements == 5 and options.victory == "points"
    assert {k: v for k, v in PRESETS[preset].items() if v} == WAR_OF_ATTRITION


def test_a_whole_number_written_as_a_float_is_the_number():
    """JSON may write 3 as 3.0: the option is the whole number itself (the state and both builds of the
    engine hold an int; the compiled one takes nothing else)."""
    options = Options.from_json({"soviet_replacements": 3.0})
    assert options.soviet_replacements == 3 and type(options.soviet_replacements) is int
    assert engine.new_game("standard", {"soviet_replacements": 3.0}).to_json()["options"]["soviet_replacements"] == 3


def test_preset_then_single_options_override_it():
    options = Options.from_json({"preset": "war_of_attrition", "harsher_winter": False, "soviet_replacements": 4})
    assert options.harsher_winter is False and options.war_of_attrition is True
    assert options.soviet_replacements == 4


@pytest.mark.parametrize("data", [{"preset": ["all"]}, {"preset": {}}, {"preset": 3}, ["all"],
                                  {"soviet_replacements": float("nan")}, {"victory": ["points"]}])
def test_options_of_the_wrong_type_are_refused(data):
    with pytest.raises(IllegalAction) as caught:
        Options.from_json(data)
    assert caught.value.reason == Reason.OPTION_UNAVAILABLE


def test_every_option_documents_its_rule_and_default():
    for name, (allowed, default, rule) in OPTIONS.items():
        assert default in allowed and isinstance(rule, str) and len(rule) > 20, name
    assert set(SWITCHES) | {"advanced_crt", "victory", "soviet_replacements"} == set(OPTIONS)


def test_options_parse_command_line_lists():
    assert Options.parse("all") == Options.from_json({"preset": "all"})
    assert Options.parse("") == Options()
    parsed = Options.parse("variable_weather, soviet_replacements=3,harsher_winter=false")
    assert parsed == Options(variable_weather=True, soviet_replacements=3)
    with pytest.raises(IllegalAction) as caught:
        Options.parse("teleport")
    assert caught.value.reason == Reason.OPTION_UNAVAILABLE


def test_new_game_records_its_options():
    game = engine.new_game("campaign", {"preset": "all"}, seed="o")
    assert game.to_json()["options"] == Options.from_json({"preset": "all"}).to_json()


# --- options combine freely --------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", ["standard", "campaign"])
def test_every_combination_of_options_starts_a_game(scenario):
    for bits in itertools.product((False, True), repeat=len(SWITCHES)):
        options = dict(zip(SWITCHES, bits))
        game = engine.new_game(scenario, options, seed="combo")
        events = game.apply(engine.StandardSetup())
        assert game.turn == 1 and not game.is_terminal()
        assert phases_started(events)[0] == ("german_supply" if options["war_of_attrition"]
                                             else "german_replacement")
        assert game.legal_actions()


def test_combined_play_balance_rules_apply_in_one_game():
    options = {"improved_first_shock": True, "stronger_defensive_line": True, "soviet_replacements": 4}
    attack = position(["VII 0206", "XXXIV 1007", "1st-shock 1107 half"], 5, "soviet_combat", options)
    assert attack.battle_odds("XXXIV", ["1st-shock"]).shifts == 1
    _, odds = line_odds("1107", "3rd 1106", options)
    assert odds.shifts == -2
    _, events = enter_soviet_replacement(5, options)
    assert soviet_points(events) == 4
