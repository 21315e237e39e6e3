"""The 14-turn campaign ("What Happens Next"): turn record, winter, the Soviet Tank unit, the end.

Rules text: "What Happens Next: Continuing play in Battle for Moscow" (New Timetable, Winter Effects,
Replacements) and the Clarification "Soviet Tank Unit"; engine rulings 28-33 (engine/RULINGS.md).

Hexes used (bfm-map.md): 1207 is clear with clear neighbours and no river hexsides; 1104 lies on the
Moscow-Tula railway (1103-1104-1105-1106-1107-1108); a German "wall" on 1302, 1304, 1306, 1308 and
1310 occupies or controls every hex of column 13, so no Soviet unit west of it is in communication
with the east edge.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import DeclareAttack, EndPhase, Move, Reason, Replace, Restore
from engine.actions import ChooseFrostbite, DesignateTank, RollAttrition
from engine.events import (
    BattleResolved, GameEnded, ReplacementPointsReceived, StepLost, TankDesignated, TurnStarted, UnitEliminated,
    WinterAttrition,
)

from campaign_helpers import (
    CAMPAIGN, QUIET, destinations, distance, end_phase, enter_german_turn, enter_soviet_replacement, is_forest,
    is_rail, legal, of_type, one, points_left, pool_ids, position, refuse, river_between, rolls_for, strength_of,
    where,
)

TRACK_WEATHER = {1: "clear", 2: "clear", 3: "mud", 4: "mud", 5: "clear", 6: "clear", 7: "clear",
                 8: "snow", 9: "snow", 10: "snow", 11: "snow", 12: "snow", 13: "clear", 14: "clear"}
SNOW_TURNS = range(8, 13)
WALL = ["XL 1302", "XLI 1304", "XLVI 1306", "XLVII 1308", "XLVIII 1310"]


def random_game_events(seed: str, options: dict | None = None) -> tuple[engine.Game, list]:
    game = engine.new_game("campaign", options, seed=seed)
    chooser = random.Random(seed)
    events = []
    while not game.is_terminal():
        events += game.apply(chooser.choice(game.legal_actions()))
    return game, events


# --- the turn record ---------------------------------------------------------------------------------

def test_new_timetable_fourteen_turns_with_the_printed_weather():
    assert sorted(CAMPAIGN.turns) == list(range(1, 15))
    assert (CAMPAIGN.first_turn, CAMPAIGN.last_turn) == (1, 14)
    assert {t: info.weather for t, info in CAMPAIGN.turns.items()} == TRACK_WEATHER
    assert CAMPAIGN.turns[8].dates == "Dec II/III" and CAMPAIGN.turns[14].dates == "Mar II"


def test_a_played_campaign_runs_turns_1_to_14_with_the_track_weather_and_ends_with_points():
    game, events = random_game_events("campaign-track")
    started = of_type(events, TurnStarted)
    assert [e.turn for e in started] == list(range(1, 15))
    assert {e.turn: e.weather for e in started} == TRACK_WEATHER
    ended = one(events, GameEnded)
    assert events[-1] == ended
    assert game.is_terminal() and game.turn == 14
    assert game.result().points == {"german": ended.german_points, "soviet": ended.soviet_points}
    assert game.result().points == game.victory_points()


@pytest.mark.parametrize("turn", range(2, 15))
def test_turn_record_german_replacement_points(turn):
    game, events = enter_german_turn(turn, dice=[6, 6])
    received = [e.points for e in of_type(events, ReplacementPointsReceived) if e.side == "german"]
    assert received == [1]


def test_turn_record_no_german_replacements_on_turn_1():
    game = engine.new_game("campaign", seed="t1")
    events = game.apply(engine.StandardSetup())
    assert [e for e in of_type(events, ReplacementPointsReceived) if e.side == "german"] == []
    assert game.phase.name == "german_panzer_movement" and game.turn == 1


@pytest.mark.parametrize("turn", range(1, 15))
def test_turn_record_soviet_replacement_points_five_then_two_from_turn_8(turn):
    game, events = enter_soviet_replacement(turn, dice=[6])
    received = [e.points for e in of_type(events, ReplacementPointsReceived) if e.side == "soviet"]
    assert received == [5 if turn <= 7 else 2]


# --- winter attrition --------------------------------------------------------------------------------

@pytest.mark.parametrize("turn", range(2, 15))
def test_winter_attrition_rolled_in_the_german_replacement_phase_on_turns_8_to_12_only(turn):
    game, events = enter_german_turn(turn, dice=[6, 6, 6])
    assert len(rolls_for(events, "winter attrition (german)")) == (1 if turn in SNOW_TURNS else 0)
    assert not rolls_for(events, "winter attrition (soviet)")


@pytest.mark.parametrize("turn", range(1, 15))
def test_winter_attrition_rolled_in_the_soviet_replacement_phase_on_turns_8_to_12_only(turn):
    game, events = enter_soviet_replacement(turn, dice=[6, 6])
    assert len(rolls_for(events, "winter attrition (soviet)")) == (1 if turn in SNOW_TURNS else 0)
    assert not rolls_for(events, "winter attrition (german)")


def test_winter_attrition_roll_comes_before_any_replacement_point_is_spent():
    game, events = enter_soviet_replacement(9, dice=[1])
    types = [e.type for e in events]
    assert types.index("phase_started") < types.index("die_rolled")
    assert one(events, WinterAttrition).result == "frostbite"
    assert points_left(game) == 2  # nothing spent yet: the frostbite loss waits to be assigned
    assert all(isinstance(a, ChooseFrostbite) for a in game.legal_actions())


@pytest.mark.parametrize("roll", range(1, 7))
def test_winter_attrition_table_german_frostbite_on_1_to_5(roll):
    game, events = enter_german_turn(10, dice=[roll])
    attrition = one(events, WinterAttrition)
    assert (attrition.side, attrition.roll) == ("german", roll)
    assert attrition.result == ("frostbite" if roll <= 5 else "no_effect")


@pytest.mark.parametrize("roll", range(1, 7))
def test_winter_attrition_table_soviet_frostbite_on_1_to_4(roll):
    game, events = enter_soviet_replacement(10, dice=[roll])
    attrition = one(events, WinterAttrition)
    assert (attrition.side, attrition.roll) == ("soviet", roll)
    assert attrition.result == ("frostbite" if roll <= 4 else "no_effect")


def test_frostbite_the_owner_chooses_which_of_his_units_loses_a_step():
    game, events = enter_german_turn(8, dice=[2])  # QUIET: VII and XLVII, both full strength
    assert game.current_player() == "german"
    assert sorted(a.unit for a in legal(game)) == ["VII", "XLVII"]
    assert all(isinstance(a, ChooseFrostbite) for a in legal(game))
    events = game.apply(ChooseFrostbite("XLVII"))
    lost = one(events, StepLost)
    assert (lost.unit, lost.cause, lost.strength_lost) == ("XLVII", "frostbite", 9 - 4)
    assert strength_of(game, "XLVII") == "half" and strength_of(game, "VII") == "full"
    assert not any(isinstance(a, ChooseFrostbite) for a in game.legal_actions())


def test_frostbite_soviet_player_chooses_among_soviet_units():
    game, _ = enter_soviet_replacement(11, dice=[3])
    assert game.current_player() == "soviet"
    assert sorted(a.unit for a in legal(game)) == ["3rd", "5th"]
    game.apply(ChooseFrostbite("3rd"))
    assert strength_of(game, "3rd") == "half"


def test_frostbite_eliminating_a_half_strength_unit_gives_no_victory_points():
    game, _ = enter_soviet_replacement(12, dice=[1], elimination_points={"german": 4, "soviet": 2})
    before = game.victory_points()
    events = game.apply(ChooseFrostbite("5th"))  # 5th is at half strength
    gone = one(events, UnitEliminated)
    assert (gone.unit, gone.cause, gone.points_to) == ("5th", "frostbite", None)
    assert where(game, "5th") is None and "5th" in pool_ids(game)
    assert game.to_json()["elimination_points"] == {"german": 4, "soviet": 2}
    assert game.victory_points() == before


def test_frostbite_with_a_single_unit_is_taken_by_itself():
    units = ["VII 0206", "3rd 1308"]
    game, events = enter_german_turn(9, units=units, dice=[4])
    lost = one(events, StepLost)
    assert (lost.unit, lost.cause) == ("VII", "frostbite")
    assert not any(isinstance(a, ChooseFrostbite) for a in game.legal_actions())


def test_frostbite_must_be_taken_before_replacements_or_the_end_of_the_phase():
    game, _ = enter_soviet_replacement(8, dice=[1])
    refuse(game, Replace("43rd", "1405"), Reason.ATTRITION_FIRST, "frostbite")
    refuse(game, Restore("5th"), Reason.ATTRITION_FIRST)
    refuse(game, EndPhase(), Reason.ATTRITION_FIRST)
    game.apply(ChooseFrostbite("3rd"))
    game.apply(Replace("43rd", "1405"))
    assert strength_of(game, "43rd") == "half" and points_left(game) == 1


def test_frostbite_refusals_enemy_unit_and_no_loss_waiting():
    game, _ = enter_soviet_replacement(8, dice=[1])
    refuse(game, ChooseFrostbite("VII"), Reason.NOT_YOUR_UNIT)
    refuse(game, ChooseFrostbite("nobody"), Reason.UNKNOWN_UNIT)
    game.apply(ChooseFrostbite("3rd"))
    refuse(game, ChooseFrostbite("5th"), Reason.WRONG_PHASE, "frostbite")


def test_no_winter_attrition_outside_snow_turns_in_a_replacement_phase_position():
    game = position(QUIET, 7, "soviet_replacement", fixed_dice=[1])
    assert not any(isinstance(a, (ChooseFrostbite, RollAttrition)) for a in game.legal_actions())
    refuse(game, RollAttrition(), Reason.WRONG_PHASE)


# --- snow movement -----------------------------------------------------------------------------------

def farthest(game, unit, start):
    return max(distance(start, h) for h in destinations(game, unit))


@pytest.mark.parametrize("turn,expected", [(7, 4), (8, 3), (12, 3), (13, 4)])
def test_snow_soviet_infantry_moves_one_hex_less(turn, expected):
    game = position(["VII 0206", "XLVII 0305", "3rd 1207"], turn, "soviet_movement")
    assert farthest(game, "3rd", "1207") == expected


@pytest.mark.parametrize("turn,expected", [(7, 6), (10, 4)])
def test_snow_panzers_move_two_hexes_less(turn, expected):
    game = position(["VII 0208", "XLVII 0306", "3rd 1207"], turn, "german_panzer_movement")
    assert farthest(game, "XLVII", "0306") == expected


@pytest.mark.parametrize("turn,expected", [(7, 4), (11, 3)])
def test_snow_german_infantry_moves_one_hex_less(turn, expected):
    game = position(["VII 0208", "XLVII 0306", "3rd 1207"], turn, "german_movement")
    assert farthest(game, "VII", "0208") == expected


def test_snow_panzer_refused_a_hex_at_its_full_allowance():
    game = position(["VII 0208", "XLVII 0306", "3rd 1207"], 9, "german_panzer_movement")
    far = next(h for h in ("0906", "0905", "0907", "0806") if distance("0306", h) == 6 and not is_forest(h))
    assert far not in destinations(game, "XLVII")
    error = refuse(game, Move("XLVII", far), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)
    assert error.message


def test_snow_rail_movement_is_reduced_too():
    # 1104 -> 1105 -> 1106 -> 1107 -> 1108 along the Moscow-Tula railway
    assert all(is_rail(h) for h in ("1104", "1105", "1106", "1107", "1108"))
    clear = position(["VII 0208", "XLVII 0306", "3rd 1104"], 7, "soviet_rail_movement")
    assert {"1107", "1108"} <= destinations(clear, "3rd")
    snow = position(["VII 0208", "XLVII 0306", "3rd 1104"], 8, "soviet_rail_movement")
    assert "1107" in destinations(snow, "3rd")
    assert "1108" not in destinations(snow, "3rd")
    refuse(snow, Move("3rd", "1108"), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)


# --- the Soviet Tank unit ----------------------------------------------------------------------------

def tank_turn(units=None, turn=13, **extra):
    return position(units or (WALL + ["10th 0803", "3rd 1409", "5th 1407 half", "VII 0206"]),
                    turn, "soviet_replacement", **extra)


def test_tank_designation_replaces_an_army_in_communication_at_full_strength_for_one_point():
    game = tank_turn()
    assert points_left(game) == 2
    hash_points = game.to_json()["elimination_points"]
    events = game.apply(DesignateTank("3rd"))
    designated = one(events, TankDesignated)
    assert (designated.unit, designated.tank, designated.hex, designated.strength) == ("3rd", "tank", "1409", "full")
    assert where(game, "tank") == "1409" and strength_of(game, "tank") == "full"
    assert points_left(game) == 1
    # the army's counter leaves play: not on the map, not in the pool, and nobody scores for it
    assert where(game, "3rd") is None and "3rd" not in pool_ids(game)
    assert not of_type(events, UnitEliminated)
    assert game.to_json()["elimination_points"] == hash_points
    refuse(game, Replace("3rd", "1405"), Reason.NOT_IN_POOL)  # the army's counter cannot come back


def test_tank_designation_after_winter_attrition_on_a_snowy_turn_13():
    game, _ = enter_soviet_replacement(13, units=QUIET, dice=[2], weather="snow")
    refuse(game, DesignateTank("3rd"), Reason.ATTRITION_FIRST)
    game.apply(ChooseFrostbite("5th"))
    game.apply(DesignateTank("3rd"))
    assert where(game, "tank") == "1308" and points_left(game) == 1


def test_tank_designation_half_strength_army_gives_half_strength_tank():
    game = tank_turn()
    events = game.apply(DesignateTank("5th"))
    assert one(events, TankDesignated).strength == "half"
    assert where(game, "tank") == "1407" and strength_of(game, "tank") == "half"
    assert where(game, "5th") is None and "5th" not in pool_ids(game)


def test_tank_designation_offered_for_every_army_in_communication_on_turn_13():
    game = tank_turn()
    offered = sorted(a.unit for a in legal(game, DesignateTank))
    assert offered == ["3rd", "5th"]  # not the 10th, cut off behind the German wall


def test_tank_designation_refused_for_an_army_not_in_communication():
    game = tank_turn()
    assert not game.in_communication("10th")
    refuse(game, DesignateTank("10th"), Reason.NOT_IN_COMMUNICATION, "10th")


@pytest.mark.parametrize("turn", [8, 12, 14])
def test_tank_designation_only_on_turn_13(turn):
    game = tank_turn(turn=turn, fixed_dice=[6])
    if turn in SNOW_TURNS:
        game.apply(RollAttrition())
    assert not legal(game, DesignateTank)
    refuse(game, DesignateTank("3rd"), Reason.TANK_NOT_AVAILABLE)


def test_tank_designation_not_in_the_seven_turn_game():
    game = position(["VII 0206", "3rd 1409"], 7, "soviet_replacement", scenario="standard")
    assert not legal(game, DesignateTank)
    refuse(game, DesignateTank("3rd"), Reason.TANK_NOT_AVAILABLE)


def test_tank_designation_refused_in_moscow_without_communication():
    # Moscow lets a unit be restored without communication, but the Tank needs "an army in communication"
    ring = ["XL 1202", "XLI 1204", "XLVI 1002", "XLVII 1004", "VII 0206"]
    game = position(ring + ["3rd 1103 half"], 13, "soviet_replacement")
    assert not game.in_communication("3rd")
    assert Restore("3rd") in game.legal_actions() and not legal(game, DesignateTank)
    refuse(game, DesignateTank("3rd"), Reason.NOT_IN_COMMUNICATION)


def test_tank_designation_through_the_soviet_replacement_edge_on_turn_13():
    # behind the German wall the 10th Army reaches the edge hex 0901 (optional rule, turns 13 and 14)
    units = WALL + ["10th 0902", "VII 0206"]
    without = position(units, 13, "soviet_replacement")
    refuse(without, DesignateTank("10th"), Reason.NOT_IN_COMMUNICATION)
    game = position(units, 13, "soviet_replacement", {"soviet_replacement_edge": True})
    game.apply(DesignateTank("10th"))
    assert where(game, "tank") == "0902"


def test_tank_designation_only_once():
    game = tank_turn()
    game.apply(DesignateTank("3rd"))
    assert not legal(game, DesignateTank)
    refuse(game, DesignateTank("5th"), Reason.TANK_NOT_AVAILABLE, "already")


def test_tank_designation_refused_when_the_tank_is_in_the_pool():
    game = tank_turn(pool=[{"id": "tank", "available_from": 1}])
    assert not legal(game, DesignateTank)
    refuse(game, DesignateTank("3rd"), Reason.TANK_NOT_AVAILABLE)


def test_tank_designation_needs_a_replacement_point():
    game = tank_turn(phase_state={"points": 0})
    refuse(game, DesignateTank("3rd"), Reason.NO_REPLACEMENT_POINTS)


def test_tank_designation_refused_for_german_and_absent_units():
    game = tank_turn()
    refuse(game, DesignateTank("VII"), Reason.NOT_YOUR_UNIT)
    refuse(game, DesignateTank("43rd"), Reason.UNIT_NOT_ON_MAP)


def test_tank_designation_not_by_the_german_player():
    game = position(WALL + ["3rd 1409", "VII 0206 half"], 13, "german_replacement")
    refuse(game, DesignateTank("3rd"), Reason.TANK_NOT_AVAILABLE)


def test_tank_made_from_an_army_brought_back_this_phase_cannot_be_restored_this_phase():
    game = tank_turn(phase_state={"points": 3})
    game.apply(Replace("43rd", "1405"))
    game.apply(DesignateTank("43rd"))
    assert strength_of(game, "tank") == "half"
    refuse(game, Restore("tank"), Reason.REPLACED_THIS_PHASE)


@pytest.mark.parametrize("strength, tank_strength", [("full", "full"), ("half", "half")])
def test_tank_designation_of_the_1st_shock_army(strength, tank_strength):
    # "designate any one army which is in communication": the "1st Shock Army" is an army; "If that unit
    # was at full-strength, then so is the Soviet Tank unit – otherwise it will be at half-strength", so a
    # 10-5 army becomes an 8-4 Tank on the same side
    game = tank_turn(WALL + ["1st-shock 1409 " + strength, "VII 0206"])
    assert DesignateTank("1st-shock") in legal(game, DesignateTank)
    events = game.apply(DesignateTank("1st-shock"))
    assert one(events, TankDesignated) == TankDesignated("1st-shock", "tank", "1409", tank_strength)
    assert game.strength("tank") == {"full": 8, "half": 4}[tank_strength]
    # the 1st Shock leaves play (ruling 31): not eliminated, not in the pool, no points, no coming back
    assert where(game, "1st-shock") is None and "1st-shock" not in pool_ids(game)
    assert not of_type(events, UnitEliminated) and game.to_json()["elimination_points"] == {"german": 0, "soviet": 0}
    refuse(game, Replace("1st-shock", "1405"), Reason.NOT_IN_POOL)
    assert points_left(game) == 1


def test_an_eliminated_tank_is_rebuilt_from_the_pool_at_half_strength():
    # "Spending a Replacement point will create a new half-strength unit (using one which was previously
    # eliminated)": the Tank is a Soviet unit like any other once eliminated; the army it replaced stays
    # out of play, and the Tank cannot be designated again while it is in the pool
    units = ["tank 1207 half", "XXIV 1107", "XLI 1108", "3rd 1409 half"]
    game = position(units, 13, "german_combat", fixed_dice=[1], pool=[])
    game.apply(DeclareAttack(("XXIV", "XLI"), "tank"))
    events = game.apply(engine.ResolveBattle("tank"))  # 24 against 4: 6:1, roll 1: DE
    eliminated = one(events, UnitEliminated)
    assert (eliminated.unit, eliminated.points_to) == ("tank", "german")
    assert "tank" in pool_ids(game) and game.to_json()["elimination_points"]["german"] == 1
    game.apply(engine.DeclineAdvance())
    end_phase(game)  # the German movement phase
    assert (game.turn, game.phase.name) == (13, "soviet_replacement")
    assert not legal(game, DesignateTank)
    refuse(game, DesignateTank("3rd"), Reason.TANK_NOT_AVAILABLE, "already in play")
    assert Replace("tank", "1405") in game.legal_actions()
    events = game.apply(Replace("tank", "1405"))
    assert where(game, "tank") == "1405" and strength_of(game, "tank") == "half"
    refuse(game, Restore("tank"), Reason.REPLACED_THIS_PHASE)  # ruling 20
    # it is the Tank again: it moves in the rail movement phase off the rail lines
    end_phase(game)
    assert game.phase.name == "soviet_rail_movement" and not is_rail("1404") and not is_rail("1306")
    assert {"1404", "1306"} <= destinations(game, "tank")


def test_tank_moves_in_the_rail_movement_phase_without_rail_lines():
    assert not is_rail("1207")
    units = ["VII 0206", "XLVII 0305", "tank 1207", "3rd 1208"]
    game = position(units, 13, "soviet_rail_movement")
    reach = destinations(game, "tank")
    assert reach and max(distance("1207", h) for h in reach) == 4  # its movement allowance, any terrain
    assert not all(is_rail(h) for h in reach)
    # an infantry army off the railway does not move in this phase
    refuse(game, Move("3rd", "1308"), Reason.CANNOT_MOVE_THIS_PHASE)
    game.apply(Move("tank", "1309"))
    assert where(game, "tank") == "1309"


def test_tank_in_the_rail_movement_phase_counts_a_forest_as_one_hex_like_rail_movement():
    # "A forest hex counts as only one hex for movement in this phase": along the railway 0601-0702
    # (forest)-0802-0902 (forest)-1002 an army and the Tank (both movement allowance 4) reach 1002
    for unit in ("3rd", "tank"):
        game = position(["VII 0110", f"{unit} 0601"], 13, "soviet_rail_movement")
        assert "1002" in destinations(game, unit)
        game.apply(Move(unit, "1002", path=("0702", "0802", "0902", "1002")))
        assert where(game, unit) == "1002"


def test_tank_in_the_rail_movement_phase_is_not_slowed_by_mud():
    game = position(["VII 0206", "XLVII 0305", "tank 1207"], 13, "soviet_rail_movement", weather="mud")
    assert max(distance("1207", h) for h in destinations(game, "tank")) == 4


def test_tank_that_moved_in_the_rail_phase_moves_again_in_the_movement_phase():
    units = ["VII 0206", "XLVII 0305", "tank 1207"]
    game = position(units, 14, "soviet_rail_movement")
    events = game.apply(Move("tank", "1208"))
    # nothing else can move by rail and no battle is possible: both phases pass by themselves
    assert [e.phase for e in of_type(events, engine.events.PhaseStarted)] == ["soviet_combat", "soviet_movement"]
    assert "1210" in destinations(game, "tank")


def test_tank_in_snow_loses_two_movement_points():
    game = position(["VII 0206", "XLVII 0305", "tank 1207"], 13, "soviet_movement", weather="snow")
    assert farthest(game, "tank", "1207") == 2


def tank_battle(attackers, defender="XXXIV 1206", dice=(4,)):
    units = ["VII 0206", defender] + list(attackers)
    game = position(units, 13, "soviet_combat", fixed_dice=list(dice))
    ids = tuple(a.split()[0] for a in attackers)
    events = game.apply(DeclareAttack(ids, defender.split()[0]))
    if engine.CloseDeclarations() in game.legal_actions():
        events += game.apply(engine.CloseDeclarations())
    events += game.apply(engine.ResolveBattle(defender.split()[0]))
    return game, one(events, BattleResolved)


def test_tank_attacking_shifts_one_column_right():
    assert not is_forest("1206") and not river_between("1207", "1206")
    _, battle = tank_battle(["tank 1207"])  # 8 against 4: 2:1, one column right: 3:1
    assert (battle.attack, battle.defence, battle.odds) == ("8", 4, "2:1")
    assert (battle.shifts, battle.column) == (1, "3:1")


def test_same_attack_by_an_infantry_army_has_no_shift():
    _, battle = tank_battle(["3rd 1207"])
    assert (battle.odds, battle.shifts, battle.column) == ("2:1", 0, "2:1")


def test_tank_shift_counts_once_for_a_battle_with_other_attackers():
    _, battle = tank_battle(["tank 1207 half", "3rd 1307"])  # 4 + 8 = 12 against 4: 3:1 -> 4:1
    assert (battle.odds, battle.shifts, battle.column) == ("3:1", 1, "4:1")


def test_tank_shift_after_the_6_to_1_cap_never_passes_the_last_column():
    _, battle = tank_battle(["tank 1207", "3rd 1307"], defender="XXXIV 1206 half")  # 16 against 2
    assert battle.odds == "6:1" and battle.column == "6:1"


def test_tank_shift_brings_a_1_to_2_attack_onto_the_table():
    _, battle = tank_battle(["tank 1207 half"], defender="XXII 1206", dice=(1,))  # 4 against 8
    assert (battle.odds, battle.shifts, battle.column, battle.result) == ("below", 1, "1:1", "DR")


def test_tank_shift_as_defender_does_not_apply():
    game = position(["VII 0206", "XXII 1206", "tank 1207 half"], 13, "german_combat", fixed_dice=[6])
    odds = game.battle_odds("tank", ["XXII"])  # 8 against 4: 2:1, no shift for the defending Tank
    assert (odds.shifts, game.crt.labels[odds.final]) == (0, "2:1")


# --- the end of the campaign -------------------------------------------------------------------------

CONTROL = {"0204": "german", "0307": "german", "0509": "german", "0601": "german", "0603": "german",
           "0809": "german", "1103": "soviet", "0803": "soviet", "0805": "soviet", "1107": "soviet",
           "1405": "soviet"}


def test_the_campaign_goes_on_after_turn_7():
    game = position(QUIET, 7, "soviet_movement")
    events = end_phase(game)
    assert not game.is_terminal()
    assert one(events, TurnStarted).turn == 8


def test_the_campaign_ends_after_turn_14_with_victory_points():
    game = position(QUIET, 14, "soviet_movement", city_control=CONTROL,
                    elimination_points={"german": 7, "soviet": 3})
    events = end_phase(game)
    assert game.is_terminal() and game.legal_actions() == [] and game.current_player() is None
    ended = one(events, GameEnded)
    # Germans: 6 cities x 5 + 7 eliminations = 37; Soviets: Moscow 20 + 4 cities x 5 + 3 = 43
    assert (ended.german_points, ended.soviet_points, ended.winner) == (37, 43, "soviet")
    assert game.result().points == {"german": 37, "soviet": 43}
    refuse(game, EndPhase(), Reason.GAME_OVER)


def test_the_campaign_end_counts_the_german_moscow_occupation_bonus():
    game = position(QUIET, 14, "soviet_movement", city_control=CONTROL, capital_bonus=True,
                    elimination_points={"german": 7, "soviet": 3})
    ended = one(end_phase(game), GameEnded)
    assert (ended.german_points, ended.soviet_points, ended.winner) == (47, 43, "german")


# --- positions ---------------------------------------------------------------------------------------

def test_position_weather_field_sets_the_turn_weather():
    game = position(["VII 0206", "XLVII 0305", "3rd 1207"], 13, "soviet_movement", weather="snow")
    assert game.weather().id == "snow" and game.to_json()["weather"] == "snow"
    assert farthest(game, "3rd", "1207") == 3
    assert engine.game_from_position(game.to_json()).state_hash() == game.state_hash()


def test_position_unknown_weather_is_a_position_error():
    with pytest.raises(engine.PositionError) as caught:
        position(QUIET, 9, "soviet_movement", weather="blizzard")
    assert "blizzard" in str(caught.value)
