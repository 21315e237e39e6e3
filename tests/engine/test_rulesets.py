"""Rulesets as a parameter of a game (engine/ruleset.py): recorded in its state, kept through its position,
and a game of an older ruleset the engine plays plays by that ruleset's rules."""

from __future__ import annotations

import json

import pytest

import engine
from engine import Reason
from engine.ruleset import CHANGES, RULESET, RULESETS

from bfm_helpers import position, refuse


def test_new_games_play_the_newest_ruleset_and_older_ones_on_request():
    assert RULESET == max(RULESETS) == 4 and set(CHANGES) >= set(RULESETS)
    assert engine.new_game("standard", seed="r").ruleset == 4
    for ruleset in (2, 3):
        assert engine.new_game("standard", seed="r", ruleset=ruleset).ruleset == ruleset


@pytest.mark.parametrize("ruleset", [1, 5, "3", True, None])
def test_a_ruleset_the_engine_does_not_play_is_refused(ruleset):
    with pytest.raises(engine.IllegalAction) as refused:
        engine.new_game("standard", seed="r", ruleset=ruleset)
    assert refused.value.reason == Reason.UNKNOWN_RULESET and "rulesets 2, 3 and 4" in refused.value.message
    with pytest.raises(engine.PositionError, match="is not one this engine plays"):
        engine.game_from_position({"units": [], "ruleset": ruleset if ruleset is not None else 0})


def test_every_state_names_its_ruleset_and_a_ruleset_2_state_keeps_its_hash():
    old, new = (engine.new_game("standard", seed="r", ruleset=r) for r in (2, 3))
    assert old.to_json()["ruleset"] == 2 and new.to_json()["ruleset"] == 3
    # the canonical form of a ruleset-2 state (stored, and hashed by state_hash) is written as it always
    # was, without the ruleset, so the hashes of ruleset-2 matches do not change
    assert old.canonical_json() == new.canonical_json().replace(',"ruleset":3', "")
    assert "ruleset" not in json.loads(old.canonical_json()) and json.loads(new.canonical_json())["ruleset"] == 3
    assert old.state_hash() != new.state_hash()


@pytest.mark.parametrize("scenario", ["standard", "campaign"])
def test_a_ruleset_2_game_round_trips_through_its_json(scenario):
    game = engine.new_game(scenario, seed="round trip", ruleset=2)
    game.apply(engine.StandardSetup())
    for _ in range(40):  # into the first battles: a ruleset-2 game's state mid-turn
        game.apply(game.legal_actions()[-1])
    again = engine.game_from_position(game.to_json())
    assert again.ruleset == 2 and again.to_json() == game.to_json()
    assert again.canonical_json() == game.canonical_json() and again.state_hash() == game.state_hash()
    # the two go on alike
    for _ in range(60):
        if game.is_terminal():
            break
        action = game.legal_actions()[0]
        assert game.apply(action) == again.apply(action)
    assert again.state_hash() == game.state_hash()
    # its canonical form has no ruleset: read without one it is of the current ruleset, so the reader
    # names it (as the service does, from its match)
    stored = json.loads(game.canonical_json())
    assert engine.game_from_position(stored).ruleset == RULESET
    assert engine.game_from_position(stored, ruleset=2).state_hash() == game.state_hash()


def test_a_ruleset_2_position_read_back_plays_by_ruleset_2():
    # ruling 5 (rulesets 1 and 2): in mud a unit may enter a forest hex; ruling 50 (ruleset 3) forbids it
    game = position(["16th 1304", "V 0104"], turn=3, phase="soviet_movement", ruleset=2)
    again = engine.game_from_position(game.to_json())
    assert again.ruleset == 2 and engine.Move("16th", "1303") in again.legal_actions()


def test_a_position_keeps_its_ruleset():
    for ruleset in RULESETS:
        game = engine.new_game("campaign", seed="r", ruleset=ruleset)
        game.apply(engine.StandardSetup())
        again = engine.game_from_position(game.to_json(), ruleset=ruleset)
        assert again.ruleset == ruleset and again.canonical_json() == game.canonical_json()
    # a position naming its ruleset is of that ruleset; one that does not is of the ruleset asked for, by
    # default the engine's
    data = {"turn": 3, "phase": "soviet_movement", "units": [{"id": "16th", "hex": "1304"}]}
    assert engine.game_from_position(data).ruleset == RULESET
    assert engine.game_from_position(data, ruleset=2).ruleset == 2
    assert engine.game_from_position(data | {"ruleset": 3}, ruleset=2).ruleset == 3


def test_the_rulings_of_each_ruleset_hold_in_its_games():
    # ruling 50 (ruleset 3) against ruling 5 (ruleset 2): a forest hex in mud
    for ruleset, enters in ((2, True), (3, False)):
        game = position(["16th 1304", "V 0104"], turn=3, phase="soviet_movement", ruleset=ruleset)
        assert (engine.Move("16th", "1303") in game.legal_actions()) is enters
    # ruling 51 (ruleset 3) against ruling 19 (ruleset 2): a replacement in a German-held Ryazan
    for ruleset in RULESETS:
        game = position(["16th 1207", "V 0104"], phase="soviet_replacement", pool=["43rd"],
                        city_control={"1405": "german"}, ruleset=ruleset)
        if ruleset == 2:
            assert engine.Replace("43rd", "1405") in game.legal_actions()
        else:
            refuse(game, engine.Replace("43rd", "1405"), Reason.NOT_AN_ENTRY_HEX, "Ryazan")
