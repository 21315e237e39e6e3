"""Replacements.

Rules, "Replacements": each turn the German player gets 1 replacement point and the Soviet player 5.
A point creates a new half-strength unit (from one previously eliminated) or flips a half-strength
unit to full strength; two points cannot create a full-strength unit at once. New Soviet units appear
in an empty east-edge entry hex or in an empty controlled city in communication with the east edge
(at most one per city); a unit to be restored must also be in communication. The Soviets may bring in
or restore a unit in Moscow even without communication. German replacements trace to the west edge,
and Moscow has no special property for them. Unused points are lost. The First Shock army may not be
taken before turn 4. "Since all German units begin the game at full-strength, the German player
receives no replacements on turn 1 and skips his replacement phase."

Hexes: a wall of German units on 1302, 1304, 1306, 1308 and 1310 puts every hex of column 13 in a
German unit or its zone of control, so nothing west of it (Moscow 1103, Tula 1107, 1207) is in
communication with the east edge (1401-1410).
"""

from __future__ import annotations

import pytest

import engine
from engine import EndPhase, Reason, Replace, Restore, StandardSetup
from engine.events import PhaseStarted, ReplacementPointsReceived, UnitReplaced, UnitRestored

from bfm_helpers import (
    advance_to, control, legal, of_type, one, pool_ids, position, refuse, strength_of, where, zoc,
)

WALL = ["XL 1302", "XLVIII 1304", "LVI 1306", "XLVI 1308", "LVII 1310"]
WALL_HEXES = [w.split()[1] for w in WALL]


def soviet_replacement(units, turn=1, pool=("43rd", "49th", "50th"), **extra):
    return position(units, turn=turn, phase="soviet_replacement", pool=list(pool), **extra)


def test_the_wall_cuts_column_13():
    column_13 = {f"13{r:02d}" for r in range(1, 11)}
    assert column_13 <= zoc(*WALL_HEXES) | set(WALL_HEXES)


# --- points per turn ---------------------------------------------------------------------------------

def test_germans_get_no_replacements_on_turn_1_and_skip_the_phase():
    game = engine.new_game("standard", seed="replacements")
    events = game.apply(StandardSetup())
    phases = [e.phase for e in of_type(events, PhaseStarted)]
    assert phases == ["german_replacement", "german_panzer_movement"]  # started, and skipped at once
    assert not of_type(events, ReplacementPointsReceived)
    assert game.phase.name == "german_panzer_movement" and game.turn == 1


@pytest.mark.parametrize("turn", range(2, 8))
def test_germans_get_one_point_a_turn_from_turn_2(turn):
    game = position(["V 0104 half", "16th 1207"], turn=turn - 1, phase="soviet_movement", pool=["VI"])
    events = advance_to(game, turn, "german_replacement")
    assert ReplacementPointsReceived("german", 1) in events


@pytest.mark.parametrize("turn", range(2, 8))
def test_german_replacement_phase_has_one_point(turn):
    game = position(["V 0104 half", "16th 1207"], turn=turn, phase="german_replacement", pool=["VI"])
    game.apply(Restore("V"))
    assert strength_of(game, "V") == "full"
    assert game.phase.name != "german_replacement"  # the single point is spent: the phase is over


@pytest.mark.parametrize("turn", range(1, 8))
def test_soviets_get_five_points_a_turn(turn):
    game = position(["V 0104", "16th 1207"], turn=turn, phase="german_movement",
                    pool=["43rd", "49th", "50th", "19th", "20th", "24th"])
    events = advance_to(game, turn, "soviet_replacement")
    assert ReplacementPointsReceived("soviet", 5) in events
    for unit, hex_id in zip(["43rd", "49th", "50th", "19th"], ["1401", "1402", "1403", "1404"]):
        game.apply(Replace(unit, hex_id))
        assert game.phase.name == "soviet_replacement"
    game.apply(Replace("20th", "1405"))
    assert game.phase.name != "soviet_replacement"  # five points spent
    assert "24th" in pool_ids(game)


def test_unused_points_are_lost():
    game = soviet_replacement(["16th 1207", "V 0104"])
    game.apply(Replace("43rd", "1401"))
    game.apply(EndPhase())
    events = advance_to(game, 2, "soviet_replacement")
    assert ReplacementPointsReceived("soviet", 5) in events  # not 9
    assert game.to_json()["phase_state"]["points"] == 5


def test_the_three_spare_armies_are_available_on_turn_1_but_not_first_shock():
    game = engine.new_game("standard", seed="pool")
    game.apply(StandardSetup())
    advance_to(game, 1, "soviet_replacement")
    offered = {a.unit for a in legal(game, Replace)}
    assert offered == {"43rd", "49th", "50th"}
    refuse(game, Replace("1st-shock", "1405"), Reason.NOT_AVAILABLE_YET, "4")


# --- where new units appear ----------------------------------------------------------------------

def test_a_new_unit_appears_at_half_strength_on_an_empty_east_edge_hex():
    game = soviet_replacement(["16th 1207", "V 0104", "19th 1402"])
    events = game.apply(Replace("43rd", "1405"))
    assert one(events, UnitReplaced) == UnitReplaced("43rd", "1405")
    assert where(game, "43rd") == "1405" and strength_of(game, "43rd") == "half"
    assert "43rd" not in pool_ids(game)
    refuse(game, Replace("49th", "1402"), Reason.HEX_OCCUPIED, "1402")


def test_every_east_edge_hex_is_an_entry_hex_and_no_other_empty_hex_is_unless_a_city():
    game = soviet_replacement(["16th 1207", "V 0104"])
    offered = {a.hex for a in legal(game, Replace) if a.unit == "43rd"}
    east_edge = {f"14{r:02d}" for r in range(1, 11)}
    cities = {"1103", "1107", "0805", "0803", "0809", "0509", "0601", "0603"}  # Soviet-controlled, empty
    assert offered == east_edge | cities
    refuse(game, Replace("43rd", "1306"), Reason.NOT_AN_ENTRY_HEX, "1306")


def test_entry_hexes_need_no_communication_and_may_be_in_enemy_zoc():
    # ruling 19: 1406 is next to the German unit in 1306
    game = soviet_replacement(["16th 1207", *WALL])
    assert "1406" in zoc("1306")
    game.apply(Replace("43rd", "1406"))
    assert where(game, "43rd") == "1406"


def test_a_controlled_city_in_communication_takes_one_new_unit():
    game = soviet_replacement(["16th 1207", "V 0104"])
    game.apply(Replace("43rd", "1107"))  # Tula
    assert where(game, "43rd") == "1107"
    refuse(game, Replace("49th", "1107"), Reason.HEX_OCCUPIED, "1107")  # at most one per city


def test_a_city_out_of_communication_takes_no_new_unit():
    game = soviet_replacement(["16th 1207", *WALL])
    assert "1107" not in {a.hex for a in legal(game, Replace)}
    refuse(game, Replace("43rd", "1107"), Reason.NOT_IN_COMMUNICATION, "Tula")


def test_moscow_takes_a_new_unit_even_without_communication():
    game = soviet_replacement(["16th 1207", *WALL])
    assert "1103" in {a.hex for a in legal(game, Replace)}
    game.apply(Replace("43rd", "1103"))
    assert where(game, "43rd") == "1103"


def test_an_enemy_controlled_city_takes_no_new_unit():
    game = soviet_replacement(["16th 1207", "V 0104"], city_control={"1107": "german"})
    refuse(game, Replace("43rd", "1107"), Reason.NOT_AN_ENTRY_HEX, "Tula")


def test_moscow_held_by_the_germans_takes_no_soviet_unit():
    game = soviet_replacement(["16th 1207", "V 0104"], city_control={"1103": "german"})
    refuse(game, Replace("43rd", "1103"), Reason.NOT_AN_ENTRY_HEX, "Moscow")


def test_communication_is_blocked_by_enemy_units_and_zones_not_by_friendly_units():
    # friendly units on 1302-1310 do not cut Tula off
    friends = ["19th 1302", "20th 1304", "24th 1306", "29th 1308", "30th 1310"]
    game = soviet_replacement(["16th 1207", "V 0104", *friends])
    game.apply(Replace("43rd", "1107"))
    assert where(game, "43rd") == "1107"


# --- restoring ---------------------------------------------------------------------------------

def test_restoring_a_half_strength_unit_in_communication():
    game = soviet_replacement(["16th 1207 half", "V 0104"])
    events = game.apply(Restore("16th"))
    assert one(events, UnitRestored) == UnitRestored("16th", "1207")
    assert strength_of(game, "16th") == "full"
    refuse(game, Restore("16th"), Reason.ALREADY_FULL_STRENGTH, "16th")


def test_restoring_needs_communication():
    game = soviet_replacement(["16th 1207 half", "19th 1409 half", *WALL])
    assert Restore("16th") not in game.legal_actions()
    refuse(game, Restore("16th"), Reason.NOT_IN_COMMUNICATION, "16th")
    game.apply(Restore("19th"))
    assert strength_of(game, "19th") == "full"


def test_restoring_in_moscow_without_communication():
    game = soviet_replacement(["16th 1103 half", *WALL])
    game.apply(Restore("16th"))
    assert strength_of(game, "16th") == "full"


def test_a_unit_in_an_enemy_zone_of_control_is_in_communication_through_a_free_neighbour():
    # ruling 18: 1208 is next to the German unit in 1108; its neighbour 1308 is free
    game = soviet_replacement(["16th 1208 half", "V 1108"])
    assert "1208" in zoc("1108")
    game.apply(Restore("16th"))
    assert strength_of(game, "16th") == "full"


def test_no_unit_goes_from_eliminated_to_full_strength_in_one_phase():
    game = soviet_replacement(["16th 1207", "V 0104"])
    game.apply(Replace("43rd", "1405"))
    assert Restore("43rd") not in game.legal_actions()
    refuse(game, Restore("43rd"), Reason.REPLACED_THIS_PHASE, "43rd")


def test_a_unit_replaced_last_turn_may_be_restored():
    game = soviet_replacement(["16th 1207", "V 0104"])
    game.apply(Replace("43rd", "1405"))
    game.apply(EndPhase())
    advance_to(game, 2, "soviet_replacement")
    game.apply(Restore("43rd"))
    assert strength_of(game, "43rd") == "full"


def test_units_not_in_the_pool_cannot_be_replaced():
    game = soviet_replacement(["16th 1207", "V 0104"])
    refuse(game, Replace("16th", "1405"), Reason.NOT_IN_POOL, "16th")


# --- the First Shock army ----------------------------------------------------------------------

@pytest.mark.parametrize("turn", [1, 2, 3])
def test_first_shock_not_before_turn_4(turn):
    game = soviet_replacement(["16th 1207", "V 0104"], turn=turn,
                              pool=["43rd", {"id": "1st-shock", "available_from": 4}])
    assert "1st-shock" not in {a.unit for a in legal(game, Replace)}
    refuse(game, Replace("1st-shock", "1405"), Reason.NOT_AVAILABLE_YET, "1st-shock")


@pytest.mark.parametrize("turn", [4, 5, 7])
def test_first_shock_from_turn_4(turn):
    game = soviet_replacement(["16th 1207", "V 0104"], turn=turn,
                              pool=["43rd", {"id": "1st-shock", "available_from": 4}])
    game.apply(Replace("1st-shock", "1405"))
    assert where(game, "1st-shock") == "1405" and strength_of(game, "1st-shock") == "half"
    assert game.strength("1st-shock") == 5


def test_first_shock_in_a_new_game_becomes_available_on_turn_4():
    game = engine.new_game("standard", seed="shock")
    pool = {e["id"]: e["available_from"] for e in game.to_json()["pool"]}
    assert pool == {"43rd": 1, "49th": 1, "50th": 1, "1st-shock": 4}


# --- German replacements ------------------------------------------------------------------------

def german_replacement(units, pool=("VI",), turn=2, **extra):
    return position(units, turn=turn, phase="german_replacement", pool=list(pool), **extra)


def test_german_new_unit_on_the_west_edge():
    game = german_replacement(["V 0305", "16th 1207"])
    offered = {a.hex for a in legal(game, Replace)}
    assert {f"01{r:02d}" for r in range(1, 11)} <= offered
    assert not {f"14{r:02d}" for r in range(1, 11)} & offered
    game.apply(Replace("VI", "0108"))
    assert where(game, "VI") == "0108" and strength_of(game, "VI") == "half"


def test_german_new_unit_in_a_controlled_city_in_communication_with_the_west_edge():
    game = german_replacement(["V 0305", "16th 1207"])
    assert control(game, "0204") == "german"  # Smolensk
    game.apply(Replace("VI", "0204"))
    assert where(game, "VI") == "0204"


def test_german_units_cannot_enter_on_the_east_edge_or_in_soviet_cities():
    game = german_replacement(["V 0305", "16th 1207"])
    refuse(game, Replace("VI", "1405"), Reason.NOT_AN_ENTRY_HEX)
    refuse(game, Replace("VI", "0603"), Reason.NOT_AN_ENTRY_HEX, "Vyazma")


def test_moscow_has_no_special_property_for_the_germans():
    # German-controlled, empty Moscow cut off from the west edge: Soviet units on 0201, 0203, 0205,
    # 0207, 0209 and 0210 hold or control every hex of column 02.
    wall = ["19th 0201", "20th 0203", "24th 0205", "29th 0207", "30th 0209", "32nd 0210"]
    game = german_replacement(["V 1207", *wall], city_control={"1103": "german"})
    assert {f"02{r:02d}" for r in range(1, 11)} <= zoc("0201", "0203", "0205", "0207", "0209", "0210") | {
        "0201", "0203", "0205", "0207", "0209", "0210"}
    assert "1103" not in {a.hex for a in legal(game, Replace)}
    refuse(game, Replace("VI", "1103"), Reason.NOT_IN_COMMUNICATION, "Moscow")


def test_german_restore_needs_communication_with_the_west_edge():
    wall = ["19th 0201", "20th 0203", "24th 0205", "29th 0207", "30th 0209", "32nd 0210"]
    game = german_replacement(["V 1103 half", *wall], city_control={"1103": "german"})
    refuse(game, Restore("V"), Reason.NOT_IN_COMMUNICATION, "V")
    game = german_replacement(["V 1103 half", "16th 1207"], city_control={"1103": "german"})
    game.apply(Restore("V"))
    assert strength_of(game, "V") == "full"


def test_the_soviet_player_cannot_use_german_points():
    game = german_replacement(["V 0305 half", "16th 1207 half"])
    refuse(game, Restore("16th"), Reason.NOT_YOUR_UNIT, "16th")
