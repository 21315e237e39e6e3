"""The odds of a battle before it is declared (``Game.preview_battle``, PreviewBattle): the same odds the
declaration then gives, each column shift named by its cause, and nothing changed.

Terrain Effects (the rules): "If the defending unit is in a forest hex, is in Moscow, or is a Soviet unit
in a fortification, reduce the odds by one level ... If *all* of the attacking units are across a river
from the defending unit, reduce the odds by one level. (If both these conditions apply, reduce the odds
by *two* levels.)"
"""

from __future__ import annotations

import pytest

from engine import DeclareAttack, IllegalAction, Reason

from bfm_helpers import position


@pytest.mark.parametrize("defender,attackers,causes", [
    ("16th 1303 half", ["XXIV 1304"], [(-1, "forest")]),
    ("16th 1103 half", ["XXIV 1202"], [(-1, "moscow")]),
    ("16th 1203 half", ["XXIV 1202"], [(-1, "fortification")]),
    ("16th 1207 half", ["XXIV 1107"], []),
    ("16th 0705 half", ["XXIV 0605"], [(-1, "river")]),
    ("19th 0504 half", ["XLVII 0404", "V 0403"], [(-1, "fortification"), (-1, "river")]),  # combat example 1
    ("19th 0504 half", ["XLVII 0404", "V 0403", "VI 0603 half"], [(-1, "fortification")]),  # example 2
])
def test_each_shift_is_named_by_its_cause_and_the_declaration_gives_the_same_odds(defender, attackers, causes):
    game = position([defender, *attackers])
    target, units = defender.split()[0], [a.split()[0] for a in attackers]
    before = game.state_hash()
    every, odds, shifts = game.preview_battle(target, units)
    assert game.state_hash() == before, "a preview changes nothing"
    assert every == units
    assert [(s.columns, s.cause) for s in shifts] == causes
    assert odds.shifts == sum(s.columns for s in shifts)
    game.apply(DeclareAttack(tuple(units), target))
    assert game.battle_odds(target, units) == odds


def test_an_attacker_added_to_a_declared_battle_is_previewed_with_the_others():
    game = position(["19th 0504 half", "XLVII 0404", "V 0403", "VI 0603 half"])
    game.apply(DeclareAttack(("XLVII", "V"), "19th"))
    every, odds, shifts = game.preview_battle("19th", ["VI"])
    assert every == ["XLVII", "V", "VI"]  # VI is not across the river: the river shift goes
    assert [(s.columns, s.cause) for s in shifts] == [(-1, "fortification")]
    assert (odds.attack, game.crt.labels[odds.raw], game.crt.labels[odds.final]) == (17, "4:1", "3:1")


def test_mud_halves_the_attack_of_the_preview():
    game = position(["19th 0504 half", "XLVII 0404", "V 0403", "VI 0603 half"], turn=3)
    _, odds, _ = game.preview_battle("19th", ["XLVII", "V", "VI"])
    assert odds.attack * 2 == 17 and game.crt.labels[odds.raw] == "2:1"  # the mud example: 8 1/2 to 4


@pytest.mark.parametrize("attackers,reason", [
    (["XXIV"], Reason.NOT_ADJACENT),          # XXIV is two hexes away
    (["V", "V"], Reason.MALFORMED_ACTION),
])
def test_a_preview_of_a_declaration_that_is_not_legal_is_refused_with_its_reason(attackers, reason):
    game = position(["16th 1207 half", "XXIV 1105", "V 1107"])
    with pytest.raises(IllegalAction) as refused:
        game.preview_battle("16th", attackers)
    assert refused.value.reason == reason


def test_no_preview_outside_the_declarations():
    game = position(["16th 1207 half", "V 1107"], phase="german_movement")
    with pytest.raises(IllegalAction):
        game.preview_battle("16th", ["V"])
