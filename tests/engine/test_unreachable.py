"""A move to a hex out of reach (no path named) is refused naming that hex and the true reason, never a
hex of some other way there: an enemy unit in it, no way at all, too far for the unit's movement
allowance, or every way within it stopped by an enemy zone of control.

Rules, "Movement": "Each unit has a movement allowance ("MA"), which represents the distance in hexes it
can move in one phase. (Exception: a forest hex counts as two hexes for movement.)" "A unit can never
enter a hex containing an enemy unit." "Zone of Control": "A unit entering an enemy zone of control must
immediately end its movement phase." "Rail Movement": units "must move to adjacent railroad hexes with
connecting rail line artwork." Weather: "All movement except Soviet rail movement is reduced to 1 hex per
phase" in mud.
"""

from __future__ import annotations

import re

import engine
import pytest
from engine import Move, Reason

from bfm_helpers import destinations, distance, is_forest, neighbours, position, refuse, zoc
from test_movement_examples import FAR_GERMAN, rail_phase, soviet_move_phase


def hexes_named(message: str) -> list[str]:
    return re.findall(r"\b\d{4}\b", message)


def test_the_issues_cases_name_the_hex_asked_for_and_that_it_is_too_far_round_the_enemy():
    """Issue 38: XLVIII at 0409 sent to 0609 was refused naming 0305 and 0306, hexes of another way."""
    game = engine.new_game("standard", seed="first hour")
    game.apply(engine.StandardSetup())
    for unit, start, dest, cost in (("XLVIII", "0409", "0609", 15), ("XLVI", "0306", "0606", 9)):
        assert dest not in destinations(game, unit) and distance(start, dest) <= 3
        error = refuse(game, Move(unit, dest), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)
        assert error.message == (f"unit {unit} cannot reach {dest}: the cheapest way there around the enemy units "
                                 f"takes {cost} movement points and it has 6")


def test_an_enemy_unit_in_the_hex():
    game = soviet_move_phase("16th 1306", "XLVII 1308")
    error = refuse(game, Move("16th", "1308"), Reason.ENEMY_OCCUPIED)
    assert error.message == "unit 16th cannot enter 1308: it holds the enemy unit XLVII"


def test_too_far_for_its_movement_allowance():
    game = soviet_move_phase("16th 1306")  # path F of the rules' example: through the forest 1303, five
    assert is_forest("1303") and distance("1306", "1302") == 4
    error = refuse(game, Move("16th", "1302"), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)
    assert error.message == "unit 16th cannot reach 1302: the cheapest way there takes 5 movement points and it has 4"


def test_every_way_within_the_allowance_enters_an_enemy_zone_of_control_first():
    game = soviet_move_phase("16th 1306", "XLVII 1308")
    assert distance("1306", "1209") <= 4 and "1209" not in zoc("1308") and "1307" in zoc("1308")
    error = refuse(game, Move("16th", "1209"), Reason.STOPPED_BY_ZOC)
    assert error.message == ("unit 16th cannot reach 1209: every way there within its 4 movement points enters an "
                             "enemy zone of control before it, and a unit entering one must stop (the shortest "
                             "would stop at 1307)")
    assert hexes_named(error.message) == ["1209", "1307"]


def test_a_hex_in_the_zone_of_control_is_reached_and_the_unit_stops_there():
    game = soviet_move_phase("16th 1306", "XLVII 1308")
    assert "1307" in zoc("1308") and "1307" in destinations(game, "16th")


def test_enemy_units_close_every_way():
    ring = neighbours("1306")
    game = position(["16th 1306", *(f"{unit} {hex_id}" for unit, hex_id in
                                    zip(("XLVII", "XLVI", "XLI", "LVII", "XL", "XLVIII"), ring))],
                    phase="soviet_movement")
    error = refuse(game, Move("16th", "1106"), Reason.PATH_BROKEN)
    assert error.message == "unit 16th cannot reach 1106: enemy units close every way there"


def test_no_rail_line_leads_there():
    game = rail_phase("16th 1402", "19th 1210")
    error = refuse(game, Move("16th", "0103"), Reason.PATH_BROKEN)
    assert error.message == "unit 16th cannot reach 0103: no rail line leads there from its hex"


def test_too_far_along_rail_lines():
    game = rail_phase("16th 1402", "19th 1210")
    error = refuse(game, Move("16th", "0102"), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)
    assert error.message == "unit 16th cannot reach 0102: the shortest way there along rail lines is 13 hexes and it may move 4"


def test_mud_one_hex_per_phase_under_ruleset_2():
    game = position(["16th 1304", FAR_GERMAN], turn=3, phase="soviet_movement", ruleset=2)
    error = refuse(game, Move("16th", "1306"), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)
    assert error.message == "unit 16th cannot reach 1306: in mud a unit moves one hex per phase, and 1306 is 2 hexes away"


@pytest.mark.parametrize("dest, why", [
    ("1303", "in mud a unit has 1 MA and a forest hex costs 2"),  # ruling 50: "Units at 1 MA"
    ("1306", "in mud a unit has 1 MA, and the cheapest way there takes 2"),
])
def test_mud_one_movement_point(dest, why):
    game = soviet_move_phase("16th 1304", turn=3)
    error = refuse(game, Move("16th", dest), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)
    assert error.message == f"unit 16th cannot reach {dest}: {why}"
