"""Bad input: every refusal has a precise reason code and a sentence, and leaves the state unchanged.

(The helper ``refuse`` checks the reason, that the message is a sentence, and that both the state hash
and the legal actions are the same before and after.)
"""

from __future__ import annotations

import pytest

import engine
from engine import (
    Advance, ChooseRetreat, CloseDeclarations, DeclareAttack, EndPhase, IllegalAction, Move, PlaceUnit, Reason,
    Replace, ResolveBattle, Restore, StandardSetup,
)

from bfm_helpers import declare_and_resolve, position, refuse


@pytest.fixture
def movement():
    return position(["XLVII 0606", "V 0607", "16th 1210", "19th 1207"], phase="german_movement")


@pytest.fixture
def combat():
    return position(["16th 1207", "19th 1209", "XXIV 1107", "XLI 1108"], fixed_dice=[3])


# --- malformed actions -------------------------------------------------------------------------------

@pytest.mark.parametrize("data,fragment", [
    ({"type": "teleport", "unit": "XLVII"}, "unknown type"),
    ({"unit": "XLVII", "to": "0607"}, "unknown type"),
    ({"type": "move", "unit": "XLVII"}, "'to'"),
    ({"type": "move", "to": "0607"}, "'unit'"),
    ({"type": "move", "unit": 47, "to": "0607"}, "move.unit"),
    ({"type": "move", "unit": "XLVII", "to": 607}, "move.to"),
    ({"type": "move", "unit": "XLVII", "to": "0607", "path": "0607"}, "move.path"),
    ({"type": "move", "unit": "XLVII", "to": "0607", "path": [607]}, "move.path"),
    ({"type": "move", "unit": "XLVII", "to": "0607", "speed": "fast"}, "speed"),
    ({"type": "declare_attack", "attackers": "XLVII", "defender": "16th"}, "attackers"),
    ({"type": "end_phase", "now": True}, "now"),
    ({"type": 3}, "unknown type"),
])
def test_malformed_json_actions(movement, data, fragment):
    refuse(movement, data, Reason.MALFORMED_ACTION, fragment)


@pytest.mark.parametrize("thing", [None, 42, "move", ["move", "XLVII", "0607"], ("end_phase",)])
def test_things_that_are_not_actions(movement, thing):
    refuse(movement, thing, Reason.MALFORMED_ACTION)


def test_a_json_action_is_accepted_like_the_action(movement):
    twin = movement.clone()
    assert movement.apply({"type": "move", "unit": "XLVII", "to": "0706"}) == \
        twin.apply(Move("XLVII", "0706"))
    assert movement.state_hash() == twin.state_hash()


def test_illegal_action_has_a_json_form(movement):
    error = refuse(movement, Move("XLVII", "9999"), Reason.UNKNOWN_HEX)
    assert error.to_json() == {"reason": "UNKNOWN_HEX", "message": error.message}
    assert "9999" in error.message


# --- unknown units and hexes ----------------------------------------------------------------------

@pytest.mark.parametrize("hex_id", ["9999", "1501", "0011", "0100", "abcd", "", "01010"])
def test_unknown_hex(movement, hex_id):
    refuse(movement, Move("XLVII", hex_id), Reason.UNKNOWN_HEX)


def test_unknown_hex_in_a_path(movement):
    refuse(movement, Move("XLVII", "0706", ("0607x", "0706")), Reason.UNKNOWN_HEX)


@pytest.mark.parametrize("unit", ["Napoleon", "xlvii", "16", ""])
def test_unknown_unit(movement, unit):
    refuse(movement, Move(unit, "0706"), Reason.UNKNOWN_UNIT)


def test_unknown_defender(combat):
    refuse(combat, DeclareAttack(("XXIV",), "Kutuzov"), Reason.UNKNOWN_UNIT, "Kutuzov")


def test_unit_not_on_the_map(movement):
    refuse(movement, Move("XX", "0706"), Reason.UNIT_NOT_ON_MAP, "XX")


# --- the wrong side, the wrong phase ---------------------------------------------------------------

def test_moving_the_other_sides_unit(movement):
    refuse(movement, Move("16th", "1209"), Reason.NOT_YOUR_UNIT, "16th")


def test_attacking_with_the_other_sides_unit(combat):
    refuse(combat, DeclareAttack(("19th",), "16th"), Reason.NOT_YOUR_UNIT, "19th")


def test_attacking_an_own_unit(combat):
    refuse(combat, DeclareAttack(("XXIV",), "XLI"), Reason.NOT_ADJACENT, "XLI")


@pytest.mark.parametrize("action", [
    DeclareAttack(("XLVII",), "16th"), CloseDeclarations(), ResolveBattle("16th"), Replace("VI", "0101"),
    Restore("V"), PlaceUnit("VI", "0103"), StandardSetup(), ChooseRetreat(("0706", "0806")), Advance("XLVII"),
])
def test_actions_of_other_phases_in_a_movement_phase(movement, action):
    refuse(movement, action, Reason.WRONG_PHASE, action.type)


@pytest.mark.parametrize("action", [Move("XXIV", "1106"), EndPhase(), Replace("VI", "0101"), Restore("XXIV"),
                                    StandardSetup()])
def test_actions_of_other_phases_in_a_combat_phase(combat, action):
    refuse(combat, action, Reason.WRONG_PHASE)


@pytest.mark.parametrize("action", [Move("V", "0105"), DeclareAttack(("V",), "16th"), StandardSetup()])
def test_actions_of_other_phases_in_a_replacement_phase(action):
    game = position(["V 0104 half", "16th 1210"], turn=2, phase="german_replacement", pool=["VI"])
    refuse(game, action, Reason.WRONG_PHASE)


def test_movement_in_the_set_up():
    game = engine.new_game("standard", seed="bad")
    refuse(game, Move("3rd", "0401"), Reason.WRONG_PHASE)
    refuse(game, EndPhase(), Reason.WRONG_PHASE)


def test_german_actions_in_the_soviet_turn():
    game = position(["V 0104", "16th 1210"], phase="soviet_movement")
    refuse(game, Move("V", "0105"), Reason.NOT_YOUR_UNIT, "V")


# --- bad paths -------------------------------------------------------------------------------------

def test_moving_to_where_the_unit_stands(movement):
    refuse(movement, Move("XLVII", "0606"), Reason.PATH_BROKEN, "0606")


def test_a_path_that_does_not_end_at_the_destination(movement):
    refuse(movement, Move("XLVII", "0708", ("0706", "0707")), Reason.PATH_BROKEN, "0708")


def test_an_empty_path(movement):
    refuse(movement, Move("XLVII", "0706", ()), Reason.PATH_BROKEN)


def test_a_path_with_a_gap(movement):
    refuse(movement, Move("XLVII", "0806", ("0706", "0906", "0806")), Reason.PATH_BROKEN, "0906")


# --- bad declarations and decisions --------------------------------------------------------------

def test_a_battle_without_attackers(combat):
    refuse(combat, DeclareAttack((), "16th"), Reason.MALFORMED_ACTION)


def test_a_battle_naming_an_attacker_twice(combat):
    refuse(combat, DeclareAttack(("XXIV", "XXIV"), "16th"), Reason.MALFORMED_ACTION)


def test_resolving_a_battle_never_declared(combat):
    combat.apply(DeclareAttack(("XXIV",), "16th"))
    combat.apply(CloseDeclarations())
    refuse(combat, ResolveBattle("19th"), Reason.NO_SUCH_BATTLE, "19th")


def test_closing_twice(combat):
    combat.apply(DeclareAttack(("XXIV",), "16th"))
    combat.apply(CloseDeclarations())
    refuse(combat, CloseDeclarations(), Reason.DECLARATIONS_CLOSED)


def test_anything_else_while_a_decision_waits(combat):
    declare_and_resolve(combat, ["XXIV", "XLI"], "16th")  # 24 v 8: 3:1, roll 3: DR
    assert combat.pending_decision()["stage"] == "retreat"
    refuse(combat, Move("XXIV", "1106"), Reason.DECISION_PENDING, "16th")
    refuse(combat, EndPhase(), Reason.DECISION_PENDING)
    refuse(combat, Advance("XXIV"), Reason.DECISION_PENDING)
    refuse(combat, ChooseRetreat(("1206", "1205")), Reason.NOT_A_CHOICE)
    refuse(combat, ChooseRetreat(()), Reason.NOT_A_CHOICE)


def test_the_defender_cannot_decide_the_retreat(combat):
    declare_and_resolve(combat, ["XXIV", "XLI"], "16th")
    assert combat.current_player() == "german"


# --- replacements -----------------------------------------------------------------------------

def test_replacement_points_spent():
    game = position(["16th 1207 half", "19th 1208 half", "V 0104"], phase="soviet_replacement", pool=["43rd"],
                    phase_state={"points": 0})
    refuse(game, Restore("16th"), Reason.NO_REPLACEMENT_POINTS)
    refuse(game, Replace("43rd", "1405"), Reason.NO_REPLACEMENT_POINTS)


def test_replace_a_unit_of_the_other_side():
    game = position(["16th 1207", "V 0104"], phase="soviet_replacement", pool=["43rd", "VI"])
    refuse(game, Replace("VI", "1405"), Reason.NOT_YOUR_UNIT, "VI")
    refuse(game, Replace("43rd", "99"), Reason.UNKNOWN_HEX)
    refuse(game, Replace("Napoleon", "1405"), Reason.UNKNOWN_UNIT)


def test_restore_a_unit_not_on_the_map():
    game = position(["16th 1207", "V 0104"], phase="soviet_replacement", pool=["43rd"])
    refuse(game, Restore("43rd"), Reason.UNIT_NOT_ON_MAP, "43rd")


# --- options, scenarios and positions --------------------------------------------------------------

@pytest.mark.parametrize("options", [{"victory": "chess"}, {"victory": True}, {"no_such_option": 1}])
def test_bad_options(options):
    with pytest.raises(IllegalAction) as caught:
        engine.new_game("standard", options=options)
    assert caught.value.reason == Reason.OPTION_UNAVAILABLE


def test_unknown_scenario():
    with pytest.raises((IllegalAction, KeyError)) as caught:
        engine.new_game("waterloo")
    assert "waterloo" in str(caught.value)


@pytest.mark.parametrize("data,fragment", [
    ({"units": [{"id": "Napoleon", "hex": "0101"}]}, "Napoleon"),
    ({"units": [{"id": "V", "hex": "9999"}]}, "9999"),
    ({"units": [{"id": "V", "hex": "0101"}, {"id": "VI", "hex": "0101"}]}, "0101"),
    ({"units": [{"id": "V", "hex": "0101"}, {"id": "V", "hex": "0102"}]}, "twice"),
    ({"units": [{"id": "V", "hex": "0101", "strength": "quarter"}]}, "strength"),
    ({"units": "V"}, "units"),
    ({"units": [], "phase": "lunch"}, "lunch"),
    ({"units": [], "turn": 8}, "8"),
    ({"units": [], "fixed_dice": [7]}, "fixed_dice"),
    ({"units": [], "colour": "red"}, "colour"),
    ({"units": [{"id": "V", "hex": "0101"}], "pool": ["V"]}, "V"),
    ({"units": [], "city_control": {"0101": "german"}}, "0101"),
    ({"units": [], "city_control": {"1103": "french"}}, "french"),
])
def test_bad_positions(data, fragment):
    with pytest.raises(engine.PositionError) as caught:
        engine.game_from_position(data)
    assert fragment in str(caught.value)
