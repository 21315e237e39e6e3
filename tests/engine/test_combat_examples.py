"""Combat: the rules' combat examples on real hexes, the combat results table and every result.

Hexes used (see the map table):

* 0504: a Soviet set-up hex in the Vyazma fortification line; its hexsides toward 0503, 0604, 0404
  and 0403 are river hexsides, those toward 0603 (Vyazma) and 0505 are not.
* 1207: clear, no river, no fortification; neighbours 1206, 1307, 1308, 1208, 1108, 1107.
* 1303: forest. 1103: Moscow (river toward 1104, 1003, 1002; none toward 1202). 1203: a fortification
  hex (river toward 1204 and 1104; none toward 1202). 0705: clear, river toward 0706, 0605 and 0604.
"""

from __future__ import annotations

import pytest

import engine
from engine import (
    Advance, ChooseAttackerLoss, ChooseLosses, ChooseRetreat, CloseDeclarations, DeclareAttack, DeclineAdvance,
    Move, Reason, ResolveBattle,
)
from engine.events import (
    AttackDeclared, BattleResolved, CityCaptured, DieRolled, StepLost, UnitAdvanced, UnitEliminated, UnitRetreated,
)

from bfm_helpers import (
    BOARD, battle, declare_and_resolve, distance, is_forest, legal, neighbours, of_type, one, pool_ids, position,
    refuse, river_between, strength_of, where, zoc,
)

# The combat results table as printed in the rules: CRT[roll] = results for 1:1 ... 6:1
COLUMNS = ["1:1", "2:1", "3:1", "4:1", "5:1", "6:1"]
CRT = {
    1: ["DR", "DR", "DRL", "DE", "DE", "DE"],
    2: ["NE", "DR", "DR", "DRL", "DE", "DE"],
    3: ["NE", "NE", "DR", "DRL", "DRL", "DE"],
    4: ["EX", "NE", "DR", "DR", "DRL", "DE"],
    5: ["EX", "EX", "EX", "DR", "DRL", "DRL"],
    6: ["AL", "EX", "EX", "EX", "DR", "DRL"],
}


def roll_for(result: str, column: str) -> int:
    """A die roll that gives ``result`` in ``column``."""
    index = COLUMNS.index(column)
    return next(roll for roll in range(1, 7) if CRT[roll][index] == result)


# --- combat example: the first attack -------------------------------------------------------------

EXAMPLE_1 = ["19th 0504 half", "XLVII 0404", "V 0403"]          # 9 + 6 = 15 against 4, all across rivers
EXAMPLE_2 = EXAMPLE_1 + ["VI 0603 half"]                          # + a strength-2 unit not across a river


def test_example_hexes():
    assert 0 < BOARD.index["0504"] and BOARD.index["0504"] in BOARD.forts
    assert river_between("0504", "0404") and river_between("0504", "0403")
    assert not river_between("0504", "0603")
    assert not is_forest("0504")
    assert engine.load_scenario("standard").counters["VI"].half == 2


def test_combat_example_first_attack_15_to_4_is_3_to_1_then_1_to_1():
    game = position(EXAMPLE_1, fixed_dice=[2])
    odds = game.battle_odds("19th", ["XLVII", "V"])
    assert (odds.attack, odds.defence) == (15, 4)
    result = battle(game, declare_and_resolve(game, ["XLVII", "V"], "19th"))
    assert (result.attack, result.defence, result.odds) == ("15", 4, "3:1")
    assert result.shifts == -2  # one for the river, one for the fortification
    assert result.column == "1:1"
    assert (result.roll, result.result) == (2, "NE")


def test_combat_example_second_attack_17_to_4_is_4_to_1_then_3_to_1():
    game = position(EXAMPLE_2, fixed_dice=[1])
    result = battle(game, declare_and_resolve(game, ["XLVII", "V", "VI"], "19th"))
    assert (result.attack, result.odds, result.shifts, result.column) == ("17", "4:1", -1, "3:1")
    assert (result.roll, result.result) == (1, "DRL")  # 3:1, roll 1: DRL - the half-strength unit is lost


@pytest.mark.parametrize("roll", [2, 3, 4])
def test_combat_example_second_attack_surrounded_defender_is_eliminated_when_forced_to_retreat(roll):
    game = position(EXAMPLE_2, fixed_dice=[roll])
    germans = {"0404", "0403", "0603"}
    assert set(neighbours("0504")) - germans <= zoc(*germans)  # surrounded by German zones of control
    events = declare_and_resolve(game, ["XLVII", "V", "VI"], "19th")
    assert battle(game, events).result == "DR"
    gone = one(events, UnitEliminated)
    assert (gone.unit, gone.hex, gone.points_to) == ("19th", "0504", "german")
    assert not of_type(events, UnitRetreated)
    assert where(game, "19th") is None and "19th" in pool_ids(game)
    assert game.victory_points()["german"] - game.victory_points()["german"] == 0
    assert game.to_json()["elimination_points"]["german"] == 1


def test_mud_example_17_becomes_8_and_a_half_2_to_1_before_terrain():
    game = position(EXAMPLE_2, turn=3, fixed_dice=[2])
    assert game.weather().id == "mud"
    result = battle(game, declare_and_resolve(game, ["XLVII", "V", "VI"], "19th"))
    assert result.attack == "17/2"
    assert result.defence == 4  # defenders are not halved
    assert result.odds == "2:1"
    assert result.column == "1:1"  # the fortification


@pytest.mark.parametrize("turn", [3, 4])
def test_mud_halves_attackers_not_defenders(turn):
    game = position(["16th 1207", "XLVII 1107"], turn=turn, phase="german_combat")
    odds = game.battle_odds("16th", ["XLVII"])
    assert odds.attack == pytest.approx(4.5) and odds.defence == 8


# --- the exchange example: a 9-strength panzer's step loss counts 5 -----------------------------------

def exchange_position():
    # 9 + 6 = 15 against a full-strength 8: 1:1; roll 4: EX. The defender's step loss is 8 - 4 = 4.
    return position(["16th 1207", "XLVII 1107", "V 1108"], fixed_dice=[4])


def test_exchange_example_panzer_step_of_5_meets_a_loss_of_4():
    game = exchange_position()
    events = declare_and_resolve(game, ["XLVII", "V"], "16th")
    assert battle(game, events).result == "EX"
    assert one(events, StepLost) == StepLost("16th", "1207", 4, "combat")
    decision = game.pending_decision()
    assert decision["stage"] == "exchange_losses" and decision["required"] == 4
    choices = {tuple(sorted(a.units)) for a in legal(game, ChooseLosses)}
    assert ("XLVII",) in choices
    assert ("V",) not in choices  # 6 - 3 = 3 is not enough
    events = game.apply(ChooseLosses(("XLVII",)))
    assert one(events, StepLost) == StepLost("XLVII", "1107", 5, "exchange")
    assert strength_of(game, "XLVII") == "half" and strength_of(game, "V") == "full"
    # then the defender, which survived, must retreat
    assert game.pending_decision()["stage"] == "retreat"


def test_exchange_losses_below_the_defender_loss_are_refused():
    game = exchange_position()
    declare_and_resolve(game, ["XLVII", "V"], "16th")
    refuse(game, ChooseLosses(("V",)), Reason.NOT_A_CHOICE)
    refuse(game, ChooseLosses(("XLVII", "V")), Reason.NOT_A_CHOICE)  # a step to spare
    # losing both steps of V (6) is another way to reach 4
    events = game.apply(ChooseLosses(("V", "V")))
    assert [e.type for e in events[:2]] == ["step_lost", "unit_eliminated"]
    assert where(game, "V") is None and strength_of(game, "XLVII") == "full"


def test_attackers_lost_in_an_exchange_score_for_the_defender():
    game = exchange_position()
    declare_and_resolve(game, ["XLVII", "V"], "16th")
    events = game.apply(ChooseLosses(("V", "V")))
    gone = one(events, UnitEliminated)
    assert (gone.unit, gone.strength_lost, gone.points_to) == ("V", 3, "soviet")
    assert game.to_json()["elimination_points"] == {"german": 0, "soviet": 1}


def test_a_choice_naming_a_unit_outside_the_battle_is_refused():
    game = position(["16th 1207", "XLVII 1107", "V 1108", "XXIV 1206"], fixed_dice=[4])
    declare_and_resolve(game, ["XLVII", "V"], "16th")
    refuse(game, ChooseLosses(("XXIV",)), Reason.NOT_A_CHOICE)


def test_soviet_exchange_against_a_9_strength_panzer_needs_two_army_steps():
    # 8 + 8 = 16 against XLVII (9): 1:1, roll 4: EX. XLVII loses 9 - 4 = 5; one army step is only 4
    game = position(["XLVII 1207", "16th 1307", "19th 1308"], phase="soviet_combat", fixed_dice=[4])
    events = declare_and_resolve(game, ["16th", "19th"], "XLVII")
    assert battle(game, events).result == "EX"
    assert one(events, StepLost) == StepLost("XLVII", "1207", 5, "combat")
    assert game.pending_decision()["required"] == 5
    assert {tuple(sorted(a.units)) for a in legal(game, ChooseLosses)} == {
        ("16th", "16th"), ("16th", "19th"), ("19th", "19th")}
    events = game.apply(ChooseLosses(("16th", "19th")))
    assert strength_of(game, "16th") == "half" and strength_of(game, "19th") == "half"


def test_units_that_advanced_may_move_in_the_movement_phase():
    game = position(["16th 1207 half", "XXIV 1107"], fixed_dice=[1])
    declare_and_resolve(game, ["XXIV"], "16th")
    game.apply(Advance("XXIV"))
    assert game.phase.name == "german_movement"
    assert "XXIV" in {a.unit for a in legal(game, engine.Move)}


def test_exchange_in_mud_losses_count_printed_strength():
    # turn 3: (9 + 6) / 2 = 7.5 against 4 (half-strength defender): 1:1, roll 4: EX. The defender (4)
    # is eliminated: a loss of 4, met by the printed step of XLVII (5), not by a halved one.
    game = position(["16th 1207 half", "XLVII 1107", "V 1108"], turn=3, fixed_dice=[4])
    events = declare_and_resolve(game, ["XLVII", "V"], "16th")
    result = battle(game, events)
    assert (result.attack, result.column, result.result) == ("15/2", "1:1", "EX")
    assert one(events, UnitEliminated).unit == "16th"
    assert game.pending_decision()["required"] == 4
    assert {tuple(sorted(a.units)) for a in legal(game, ChooseLosses)} == {("XLVII",), ("V", "V")}


def test_exchange_the_defender_eliminated_in_its_retreat_is_not_matched_again():
    # the defender survives its step loss but has no retreat (surrounded): the attacker loses only
    # what the step loss required
    game = position(["19th 0504", "XLVII 0404", "V 0403", "XXII 0603"], fixed_dice=[5])
    # 9 + 6 + 8 = 23 against 8: 2:1, fortification: 1:1, roll 5: EX
    events = declare_and_resolve(game, ["XLVII", "V", "XXII"], "19th")
    assert battle(game, events).result == "EX"
    assert game.pending_decision()["required"] == 4
    events = game.apply(ChooseLosses(("XLVII",)))
    assert one(events, UnitEliminated).unit == "19th"
    assert len(of_type(events, StepLost)) == 1  # only XLVII's step


def test_exchange_then_the_reduced_defender_retreats_and_a_last_resort_retreat_eliminates_it_unmatched():
    # "First, the defending unit takes a step loss. Then the attacking player must lose at least the
    # same amount ... Finally, the defending unit, if it survives, must retreat as for DR above. (Note
    # that the defending unit may be eliminated in its retreat, but the attacking player is not required
    # to match this loss)." VII in 1407 puts every retreat from 1207 through a German zone of control, so
    # the only retreats are last resorts, which eliminate a half-strength unit (ruling 15).
    game = position(["16th 1207", "XLVII 1107", "V 1108", "VII 1407"], fixed_dice=[4])
    events = declare_and_resolve(game, ["XLVII", "V"], "16th")  # 15 against 8: 1:1, roll 4: EX
    assert battle(game, events).result == "EX"
    assert one(events, StepLost).unit == "16th" and where(game, "16th") == "1207"  # the step loss first
    pending = game.pending_decision()
    assert (pending["stage"], pending["required"], pending["then"]) == ("exchange_losses", 4, ["retreat", "advance"])
    events = game.apply(ChooseLosses(("XLVII",)))  # then the attacker's loss, before any retreat
    assert [(e.unit, e.cause) for e in of_type(events, StepLost)] == [("XLVII", "exchange")]
    eliminated = one(events, UnitEliminated)
    assert (eliminated.unit, eliminated.cause) == ("16th", "retreat through enemy zone of control")
    assert not of_type(events, UnitRetreated) and strength_of(game, "V") == "full"  # not matched
    assert game.pending_decision()["stage"] == "advance"  # the hex is empty: an attacker may advance
    # without VII the same exchange ends with an ordinary two-hex retreat of the reduced defender
    game = position(["16th 1207", "XLVII 1107", "V 1108"], fixed_dice=[4])
    declare_and_resolve(game, ["XLVII", "V"], "16th")
    game.apply(ChooseLosses(("XLVII",)))
    retreats = legal(game, ChooseRetreat)
    assert retreats and all(len(r.path) == 2 and distance("1207", r.path[-1]) == 2 for r in retreats)
    assert all(r.path[-1] not in zoc("1107", "1108") for r in retreats)
    retreated = one(game.apply(retreats[0]), UnitRetreated)
    assert not retreated.through_zoc and strength_of(game, "16th") == "half"


def test_advance_after_combat_on_a_mud_turn():
    # turn 3 is mud: "All movement ... is reduced to 1 hex per phase" and attackers are halved, but an
    # advance after combat is part of the battle, not of a movement phase: a panzer that moved its one
    # hex in the panzer movement phase still advances, and moves its one hex again in phase 4
    game = position(["16th 1207 half", "XXIV 1007", "XLI 1108", "VII 0206"], turn=3,
                    phase="german_panzer_movement", fixed_dice=[1])
    game.apply(Move("XXIV", "1107"))
    refuse(game, Move("XLI", "1110", ("1109", "1110")), Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "one hex")
    game.apply(engine.EndPhase())
    assert game.phase.name == "german_combat"
    events = declare_and_resolve(game, ["XXIV", "XLI"], "16th")  # (12 + 12) / 2 = 12 against 4: 3:1, roll 1
    assert (battle(game, events).attack, battle(game, events).result) == ("12", "DRL")
    assert one(events, UnitEliminated).unit == "16th"
    assert set(legal(game)) == {Advance("XXIV"), Advance("XLI"), DeclineAdvance()}
    assert one(game.apply(Advance("XXIV")), UnitAdvanced) == UnitAdvanced("XXIV", "1107", "1207")
    assert game.phase.name == "german_movement"
    # one hex, any neighbour (1108 too, as a swap with XLI: ruling 1)
    assert {a.to for a in legal(game, Move) if a.unit == "XXIV"} == set(neighbours("1207"))


# --- the combat results table ---------------------------------------------------------------------

# Attackers adjacent to a half-strength defender in 1207 (clear, no river): total = 4 x the ratio.
ATTACKERS_FOR = {
    "1:1": ["XXXIV 1107"],                              # 4
    "2:1": ["XXII 1107"],                               # 8
    "3:1": ["XXIV 1107"],                               # 12
    "4:1": ["XXII 1107", "XXXV 1108"],                  # 16
    "5:1": ["XXIV 1107", "XXII 1108"],                  # 20
    "6:1": ["XXIV 1107", "XLI 1108"],                   # 24
}


@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("roll", range(1, 7))
def test_combat_results_table(column, roll):
    specs = ATTACKERS_FOR[column]
    game = position(["16th 1207 half", *specs], fixed_dice=[roll])
    attackers = [s.split()[0] for s in specs]
    events = declare_and_resolve(game, attackers, "16th")
    result = battle(game, events)
    assert (result.odds, result.shifts, result.column, result.roll) == (column, 0, column, roll)
    assert result.result == CRT[roll][COLUMNS.index(column)]
    assert one(events, DieRolled).value == roll


def test_integer_division_drops_fractions():
    # 16 against 4 is 4:1, 15 against 4 only 3:1 (rules, step 2)
    game = position(["16th 1207 half", "XXII 1107", "XXXV 1108", "V 1206"])
    assert game.battle_odds("16th", ["XXII", "XXXV"]).label(game.scenario.crt) == "4:1"
    game = position(["16th 1207 half", "XLVII 1107", "V 1108"])
    assert game.battle_odds("16th", ["XLVII", "V"]).label(game.scenario.crt) == "3:1"


# --- each result and its decisions ----------------------------------------------------------------

def test_de_eliminates_the_defender_and_an_attacker_may_advance():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108", "LVII 1208"], fixed_dice=[1])  # 36 v 8: 4:1
    events = declare_and_resolve(game, ["XXIV", "XLI", "LVII"], "16th")
    assert battle(game, events).result == "DE"
    gone = one(events, UnitEliminated)
    assert (gone.unit, gone.strength_lost, gone.points_to) == ("16th", 8, "german")
    assert "16th" in pool_ids(game)
    assert game.pending_decision()["stage"] == "advance"
    assert set(legal(game)) == {Advance("XXIV"), Advance("XLI"), Advance("LVII"), DeclineAdvance()}
    events = game.apply(Advance("LVII"))
    assert one(events, UnitAdvanced) == UnitAdvanced("LVII", "1208", "1207")
    assert where(game, "LVII") == "1207"


def test_only_one_attacker_advances_and_advancing_is_optional():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108", "LVII 1208"], fixed_dice=[1])
    declare_and_resolve(game, ["XXIV", "XLI", "LVII"], "16th")
    events = game.apply(DeclineAdvance())
    assert not of_type(events, UnitAdvanced)
    assert game.unit_at("1207") is None
    assert (where(game, "XXIV"), where(game, "XLI"), where(game, "LVII")) == ("1107", "1108", "1208")


def test_only_one_attacker_advances():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108", "LVII 1208"], fixed_dice=[1])
    declare_and_resolve(game, ["XXIV", "XLI", "LVII"], "16th")
    game.apply(Advance("XXIV"))
    assert game.pending_decision() is None
    with pytest.raises(engine.IllegalAction):
        game.apply(Advance("XLI"))
    assert where(game, "XLI") == "1108"


def test_a_unit_that_did_not_attack_cannot_advance():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108", "LVII 1208", "V 1206"], fixed_dice=[1])
    declare_and_resolve(game, ["XXIV", "XLI", "LVII"], "16th")
    refuse(game, Advance("V"), Reason.NOT_A_CHOICE)


def test_drl_full_strength_defender_loses_a_step_then_retreats():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108"], fixed_dice=[1])  # 24 v 8: 3:1, roll 1: DRL
    events = declare_and_resolve(game, ["XXIV", "XLI"], "16th")
    assert battle(game, events).result == "DRL"
    assert one(events, StepLost) == StepLost("16th", "1207", 4, "combat")
    assert strength_of(game, "16th") == "half"
    assert game.pending_decision()["stage"] == "retreat"
    path = legal(game, ChooseRetreat)[0].path
    events = game.apply(ChooseRetreat(path))
    assert one(events, UnitRetreated).path == path
    assert where(game, "16th") == path[-1] and distance("1207", path[-1]) == 2


def test_drl_half_strength_defender_is_eliminated():
    game = position(["16th 1207 half", "XXIV 1107"], fixed_dice=[1])  # 12 v 4: 3:1, roll 1: DRL
    events = declare_and_resolve(game, ["XXIV"], "16th")
    assert battle(game, events).result == "DRL"
    assert one(events, UnitEliminated).unit == "16th"
    assert not of_type(events, UnitRetreated)


def test_dr_the_attacker_chooses_the_retreat_path():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108"], fixed_dice=[3])  # 3:1, roll 3: DR
    events = declare_and_resolve(game, ["XXIV", "XLI"], "16th")
    assert battle(game, events).result == "DR"
    assert game.current_player() == "german"
    options = [a.path for a in legal(game, ChooseRetreat)]
    assert len(options) > 1
    for path in options:
        assert len(path) == 2 and distance("1207", path[-1]) == 2
        assert not set(path) & zoc("1107", "1108")
    refuse(game, ChooseRetreat(("1307",)), Reason.NOT_A_CHOICE)
    refuse(game, ChooseRetreat(("1206", "1205")), Reason.NOT_A_CHOICE)  # 1206 is in German ZOC
    refuse(game, Advance("XXIV"), Reason.DECISION_PENDING)  # the retreat comes first
    chosen = options[-1]
    events = game.apply(ChooseRetreat(chosen))
    assert one(events, UnitRetreated) == UnitRetreated("16th", "1207", chosen, False)
    assert strength_of(game, "16th") == "full"  # DR costs no step


def test_ex_then_the_defender_retreats():
    game = exchange_position()
    declare_and_resolve(game, ["XLVII", "V"], "16th")
    game.apply(ChooseLosses(("XLVII",)))
    path = legal(game, ChooseRetreat)[0].path
    events = game.apply(ChooseRetreat(path))
    assert one(events, UnitRetreated).path == path
    assert where(game, "16th") == path[-1] and strength_of(game, "16th") == "half"


@pytest.mark.parametrize("roll,result", [(3, "DR"), (1, "DRL")])
def test_an_attacker_may_advance_after_the_defender_retreats(roll, result):
    # rules, combat step 6: "If the attacked unit is no longer in the hex (eliminated or forced to
    # retreat), one of the attacking units may immediately move into the hex."
    game = position(["16th 1207", "XXIV 1107", "XLI 1108"], fixed_dice=[roll])  # 24 v 8: 3:1
    events = declare_and_resolve(game, ["XXIV", "XLI"], "16th")
    assert battle(game, events).result == result
    game.apply(ChooseRetreat(("1308", "1309")))
    assert game.unit_at("1207") is None
    assert game.pending_decision()["stage"] == "advance"
    assert set(legal(game)) == {Advance("XXIV"), Advance("XLI"), DeclineAdvance()}
    events = game.apply(Advance("XLI"))
    assert one(events, UnitAdvanced) == UnitAdvanced("XLI", "1108", "1207")


def test_an_attacker_that_lost_a_step_in_an_exchange_may_advance():
    game = exchange_position()
    declare_and_resolve(game, ["XLVII", "V"], "16th")
    game.apply(ChooseLosses(("XLVII",)))
    game.apply(ChooseRetreat(("1308", "1309")))
    assert set(legal(game)) == {Advance("XLVII"), Advance("V"), DeclineAdvance()}
    game.apply(Advance("XLVII"))
    assert where(game, "XLVII") == "1207"


def test_ne_nothing_happens():
    game = position(["16th 1207", "XXIV 1107"], fixed_dice=[2])  # 12 v 8: 1:1, roll 2: NE
    before = {u: (where(game, u), strength_of(game, u)) for u in ("16th", "XXIV")}
    events = declare_and_resolve(game, ["XXIV"], "16th")
    assert battle(game, events).result == "NE"
    assert not of_type(events, StepLost) and not of_type(events, UnitEliminated)
    assert {u: (where(game, u), strength_of(game, u)) for u in ("16th", "XXIV")} == before
    assert game.pending_decision() is None


def test_al_the_attacker_chooses_which_unit_loses_a_step():
    game = position(["16th 1207", "XLVII 1107", "VI 1108 half"], fixed_dice=[6])  # 11 v 8: 1:1, roll 6: AL
    events = declare_and_resolve(game, ["XLVII", "VI"], "16th")
    assert battle(game, events).result == "AL"
    assert game.pending_decision()["stage"] == "attacker_loss"
    assert set(legal(game)) == {ChooseAttackerLoss("XLVII"), ChooseAttackerLoss("VI")}
    refuse(game, ChooseAttackerLoss("16th"), Reason.NOT_A_CHOICE)
    events = game.apply(ChooseAttackerLoss("VI"))
    gone = one(events, UnitEliminated)  # a half-strength unit that loses a step is eliminated
    assert (gone.unit, gone.points_to) == ("VI", "soviet")
    assert where(game, "16th") == "1207" and strength_of(game, "XLVII") == "full"
    assert game.pending_decision() is None  # no advance after AL


def test_al_full_strength_attacker_is_flipped():
    game = position(["16th 1207", "XLVII 1107", "VI 1108 half"], fixed_dice=[6])
    declare_and_resolve(game, ["XLVII", "VI"], "16th")
    events = game.apply(ChooseAttackerLoss("XLVII"))
    assert one(events, StepLost) == StepLost("XLVII", "1107", 5, "attacker loss")
    assert strength_of(game, "XLVII") == "half"


# --- maximum and minimum odds ---------------------------------------------------------------------

def test_odds_above_6_to_1_are_reduced_to_6_to_1_before_terrain():
    # 36 against 4 in forest is 9:1 -> 6:1, then the forest: 5:1 (not 8:1 -> 6:1)
    assert is_forest("1303")
    game = position(["16th 1303 half", "XXIV 1304", "XLI 1402", "LVII 1202"], fixed_dice=[6])
    result = battle(game, declare_and_resolve(game, ["XXIV", "XLI", "LVII"], "16th"))
    assert (result.odds, result.shifts, result.column) == ("6:1", -1, "5:1")
    assert result.result == CRT[6][COLUMNS.index("5:1")] == "DR"


def test_odds_below_1_to_1_have_no_effect_and_no_die_is_rolled():
    game = position(["16th 1207 half", "VI 1107 half"])  # 2 against 4
    events = declare_and_resolve(game, ["VI"], "16th")
    result = battle(game, events)
    assert (result.column, result.result, result.roll) == ("below", "NE", None)
    assert not of_type(events, DieRolled)
    assert game.to_json()["rolls"] == 0
    assert strength_of(game, "VI") == "half" and strength_of(game, "16th") == "half"


def test_terrain_can_push_odds_below_1_to_1():
    game = position(["16th 1303 half", "XXXIV 1304"])  # 4 v 4 = 1:1, forest: below the table
    events = declare_and_resolve(game, ["XXXIV"], "16th")
    result = battle(game, events)
    assert (result.odds, result.column, result.result) == ("1:1", "below", "NE")
    assert not of_type(events, DieRolled)


# --- terrain effects -----------------------------------------------------------------------------

@pytest.mark.parametrize("defender,attacker,shift", [
    ("16th 1303 half", "XXIV 1304", -1),        # forest
    ("16th 1103 half", "XXIV 1202", -1),        # Moscow (attacked across no river)
    ("16th 1203 half", "XXIV 1202", -1),        # Soviet unit in a fortification
    ("16th 1207 half", "XXIV 1107", 0),         # clear
    ("16th 0705 half", "XXIV 0605", -1),        # every attacker across a river
])
def test_terrain_shifts(defender, attacker, shift):
    game = position([defender, attacker])
    result = battle(game, declare_and_resolve(game, ["XXIV"], "16th"))
    assert result.odds == "3:1" and result.shifts == shift
    assert result.column == COLUMNS[COLUMNS.index("3:1") + shift]


def test_the_hexes_of_the_terrain_shifts():
    assert is_forest("1303") and BOARD.index["1303"] not in BOARD.forts
    assert BOARD.capital == BOARD.index["1103"] and BOARD.index["1103"] not in BOARD.forts
    assert not river_between("1103", "1202") and not river_between("1203", "1202")
    assert BOARD.index["1203"] in BOARD.forts
    assert river_between("0705", "0605") and not river_between("0705", "0804")


def test_river_shift_only_when_all_attackers_are_across_a_river():
    game = position(["16th 0705 half", "XXIV 0605", "VI 0804 half"])
    result = battle(game, declare_and_resolve(game, ["XXIV", "VI"], "16th"))
    assert (result.odds, result.shifts) == ("3:1", 0)  # 14 v 4, VI is not across the river


def test_german_defender_in_a_fortification_gets_no_shift():
    game = position(["V 1203 half", "16th 1202", "19th 1103"], phase="soviet_combat")  # 8 v 3: 2:1
    result = battle(game, declare_and_resolve(game, ["16th"], "V"))
    assert (result.odds, result.shifts, result.column) == ("2:1", 0, "2:1")


def test_german_defender_in_moscow_and_forest_gets_the_shift():
    game = position(["V 1103 half", "16th 1202"], phase="soviet_combat")  # 8 v 3: 2:1, Moscow: 1:1
    assert battle(game, declare_and_resolve(game, ["16th"], "V")).column == "1:1"
    game = position(["V 1303 half", "16th 1304"], phase="soviet_combat")
    assert battle(game, declare_and_resolve(game, ["16th"], "V")).column == "1:1"


# --- declarations ---------------------------------------------------------------------------------

def two_battles():
    # Soviet units in 1207 and 1209; Germans in 1107, 1108 (next to 1207) and 1109 (next to 1209 and 1208)
    return position(["16th 1207", "19th 1209", "XXIV 1107", "XLI 1108", "LVII 1110"], fixed_dice=[2, 2])


def test_battles_are_declared_before_any_is_resolved():
    game = two_battles()
    game.apply(DeclareAttack(("XXIV",), "16th"))
    refuse(game, ResolveBattle("16th"), Reason.DECLARATIONS_OPEN)
    game.apply(DeclareAttack(("LVII",), "19th"))
    game.apply(CloseDeclarations())
    refuse(game, DeclareAttack(("XLI",), "16th"), Reason.DECLARATIONS_CLOSED)
    assert set(legal(game)) == {ResolveBattle("16th"), ResolveBattle("19th")}
    # the attacking player resolves them in any order
    events = game.apply(ResolveBattle("19th"))
    assert battle(game, events).defender == "19th"
    refuse(game, ResolveBattle("19th"), Reason.NO_SUCH_BATTLE)
    events = game.apply(ResolveBattle("16th"))
    assert battle(game, events).defender == "16th"


def test_each_unit_attacks_once_per_phase():
    game = two_battles()
    game.apply(DeclareAttack(("XLI",), "16th"))
    refuse(game, DeclareAttack(("XLI",), "16th"), Reason.ALREADY_ATTACKING, "XLI")


def test_a_unit_attacks_only_once_even_when_next_to_two_defenders():
    game = position(["16th 1207", "19th 1209", "XXIV 1208 half", "XLI 1107"], phase="german_combat")
    assert "1207" in neighbours("1208") and "1209" in neighbours("1208")
    game.apply(DeclareAttack(("XXIV",), "16th"))
    refuse(game, DeclareAttack(("XXIV",), "19th"), Reason.ALREADY_ATTACKING, "XXIV")
    assert DeclareAttack(("XXIV",), "19th") not in game.legal_actions()


def test_a_defender_is_attacked_in_one_battle_declarations_join():
    game = two_battles()
    game.apply(DeclareAttack(("XXIV",), "16th"))
    events = game.apply(DeclareAttack(("XLI",), "16th"))
    assert one(events, AttackDeclared) == AttackDeclared(("XLI",), "16th")
    game.apply(DeclareAttack(("LVII",), "19th"))  # declarations close by themselves: nothing is left
    assert CloseDeclarations() not in game.legal_actions()
    result = battle(game, game.apply(ResolveBattle("16th")))
    assert set(result.attackers) == {"XXIV", "XLI"} and result.attack == "24"


def test_attackers_must_be_adjacent():
    game = two_battles()
    refuse(game, DeclareAttack(("LVII",), "16th"), Reason.NOT_ADJACENT, "LVII")
    refuse(game, DeclareAttack(("XXIV", "LVII"), "16th"), Reason.NOT_ADJACENT)


def test_declarations_offered_are_adjacent_pairs():
    game = two_battles()
    offered = {(a.attackers, a.defender) for a in legal(game, DeclareAttack)}
    assert offered == {(("XXIV",), "16th"), (("XLI",), "16th"), (("LVII",), "19th")}


def test_attacking_is_voluntary():
    game = two_battles()
    events = game.apply(CloseDeclarations())
    assert game.phase.name != "german_combat"
    assert not of_type(events, BattleResolved)


def test_soviet_units_attack_in_the_soviet_combat_phase():
    game = position(["16th 1207", "19th 1206", "V 1107 half"], phase="soviet_combat", fixed_dice=[1])
    assert game.current_player() == "soviet"
    events = declare_and_resolve(game, ["16th", "19th"], "V")  # 16 v 3: 5:1, roll 1: DE
    assert battle(game, events).result == "DE"
    assert one(events, UnitEliminated).points_to == "soviet"


def test_advance_captures_a_city():
    # a German unit in Vyazma (0603) is eliminated; the Soviet unit that advances takes the city back
    game = position(["V 0603 half", "16th 0602", "19th 0703"], phase="soviet_combat", fixed_dice=[1],
                    city_control={"0603": "german"})
    declare_and_resolve(game, ["16th", "19th"], "V")
    events = game.apply(Advance("19th"))
    assert one(events, CityCaptured) == CityCaptured("Vyazma", "0603", "soviet")


# --- random battles: odds, shifts and results computed from the rules ----------------------------

from fractions import Fraction  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bfm_map import MAP, my_neighbours  # noqa: E402

GERMAN_POOL = ["XXXIV", "VI", "V", "VII", "XXII", "XL", "XLVII", "XLVI", "XXIV"]
SOVIET_POOL = ["19th", "20th", "24th", "29th", "30th", "1st-shock"]


def expected_battle(defender_hex, defender_side, defence, attackers, turn):
    """(odds label before terrain, shifts, final column or 'below') from the rules."""
    attack = Fraction(sum(s for _, s in attackers))
    if turn in (3, 4):
        attack /= 2
    ratio = int(attack // defence)  # dropping fractions
    ratio = min(ratio, 6)
    terrain = MAP[defender_hex]["terrain"] == "forest" or defender_hex == "1103" or (
        defender_side == "soviet" and MAP[defender_hex]["fort"])
    river = all(h in MAP[defender_hex]["river"] for h, _ in attackers)
    shifts = -int(terrain) - int(river)
    final = ratio + shifts
    return (f"{ratio}:1" if ratio >= 1 else "below"), shifts, (f"{final}:1" if final >= 1 else "below")


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(["german", "soviet"]), st.sampled_from([1, 3]),
       st.integers(1, 6))
def test_random_battles_follow_the_rules(rnd, attacker_side, turn, roll):
    defender_hex = rnd.choice(sorted(MAP))
    ring = my_neighbours(defender_hex)
    attacker_hexes = rnd.sample(ring, rnd.randint(1, min(3, len(ring))))
    own, enemy = (GERMAN_POOL, SOVIET_POOL) if attacker_side == "german" else (SOVIET_POOL, GERMAN_POOL)
    attackers = rnd.sample(own, len(attacker_hexes))
    defender = rnd.choice(enemy)
    strengths = {u: rnd.choice(["full", "half"]) for u in attackers + [defender]}
    units = [f"{defender} {defender_hex} {strengths[defender]}"]
    units += [f"{u} {h} {strengths[u]}" for u, h in zip(attackers, attacker_hexes)]
    phase = f"{attacker_side}_combat"
    game = position(units, turn=turn, phase=phase, fixed_dice=[roll])
    value = lambda u: getattr(COUNTERS_[u], strengths[u])  # noqa: E731
    odds, shifts, column = expected_battle(defender_hex, COUNTERS_[defender].side, value(defender),
                                           [(h, value(u)) for u, h in zip(attackers, attacker_hexes)], turn)
    events = declare_and_resolve(game, attackers, defender)
    result = battle(game, events)
    assert (result.odds, result.shifts, result.column) == (odds, shifts, column)
    assert result.defence == value(defender)
    total = Fraction(sum(value(u) for u in attackers)) / (2 if turn == 3 else 1)
    assert Fraction(result.attack) == total
    if column == "below":
        assert (result.result, result.roll) == ("NE", None)
        return
    assert result.roll == roll and result.result == CRT[roll][COLUMNS.index(column)]
    if result.result == "EX":
        counter = COUNTERS_[defender]
        required = counter.full - counter.half if strengths[defender] == "full" else counter.half
        expected = expected_exchange_choices([(u, strengths[u]) for u in attackers], required)
        decision = game.pending_decision()
        if len(expected) > 1:
            assert decision["stage"] == "exchange_losses" and decision["required"] == required
            assert {tuple(sorted(a.units)) for a in legal(game, ChooseLosses)} == expected
        else:  # a single way is taken by itself (ruling 27)
            lost = [e.unit for e in events if isinstance(e, (StepLost, UnitEliminated)) and e.unit != defender]
            assert tuple(sorted(lost)) in expected
    if result.result == "AL":
        if len(attackers) > 1:
            assert set(legal(game)) == {ChooseAttackerLoss(u) for u in attackers}
        else:
            lost = [e.unit for e in events if isinstance(e, (StepLost, UnitEliminated))]
            assert lost == attackers


def expected_exchange_choices(attackers, required):
    """Sets of step losses (a unit named once per step) reaching ``required`` with no step to spare,
    counting printed strengths: a full unit's first step is full - half, its second step half."""
    import itertools

    steps = []
    for unit, strength in attackers:
        c = COUNTERS_[unit]
        steps.append([c.full - c.half, c.half] if strength == "full" else [c.half])
    found = set()
    for taken in itertools.product(*(range(len(s) + 1) for s in steps)):
        losses = [sum(s[:k]) for s, k in zip(steps, taken)]
        total = sum(losses)
        if total < required:
            continue
        if any(k and total - s[k - 1] >= required for s, k in zip(steps, taken)):
            continue
        found.add(tuple(sorted(u for (u, _), k in zip(attackers, taken) for _ in range(k))))
    if not found:
        found.add(tuple(sorted(u for (u, _), s in zip(attackers, steps) for _ in s)))
    return found


COUNTERS_ = engine.load_scenario("standard").counters
