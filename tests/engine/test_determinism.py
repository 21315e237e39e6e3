"""Determinism: the same seed and actions give the same events and state; the dice follow the
documented derivation (engine/dice.py), recomputed here independently; positions round-trip."""

from __future__ import annotations

import json
import random
from hashlib import sha256

import pytest

import engine
from engine import Move
from engine.events import DieRolled

from bfm_helpers import events_json, play_random, position, replay


def my_die(seed: str, index: int) -> int:
    """The documented algorithm, written from the docstring of engine/dice.py."""
    attempt = 0
    while True:
        digest = sha256(("typhoon-die-v1:" + seed + ":" + str(index) + ":" + str(attempt)).encode("utf-8")).digest()
        for byte in digest:
            if byte < 252:
                return byte % 6 + 1
        attempt += 1


def played(seed: str, rnd_seed: int, max_actions: int = 10_000, ruleset: int = engine.RULESET):
    game = engine.new_game("standard", seed=seed, ruleset=ruleset)
    log = play_random(game, random.Random(rnd_seed), max_actions)
    return game, log


def test_the_documented_example():
    assert (my_die("example", 0), my_die("example", 1)) == (2, 4)
    assert (engine.die_roll("example", 0), engine.die_roll("example", 1)) == (2, 4)


@pytest.mark.parametrize("seed", ["", "a", "typhoon", "Москва", "x" * 300])
def test_die_roll_matches_the_documented_algorithm(seed):
    assert [engine.die_roll(seed, i) for i in range(200)] == [my_die(seed, i) for i in range(200)]


def test_the_die_is_fair_enough():
    counts = [0] * 7
    for i in range(6000):
        counts[my_die("fairness", i)] += 1
    assert all(850 < c < 1150 for c in counts[1:])


def test_seed_commitment_is_the_sha256_of_the_seed():
    assert engine.seed_commitment("secret seed") == sha256("secret seed".encode()).hexdigest()


def test_same_seed_and_actions_give_the_same_events_and_state():
    game, log = played("determinism", 11)
    assert game.is_terminal()
    again, events = replay("determinism", [a for a, _ in log])
    assert events == [e for _, e in log]
    assert again.state_hash() == game.state_hash()
    assert again.to_json() == game.to_json()
    assert again.result() == game.result()


def test_the_dice_of_a_played_game_are_recomputed_from_the_seed():
    # the dice of rulesets 1-3; those of ruleset 4 (the seats' entropy too): tests/engine/test_dice.py
    game, log = played("audit me", 5, ruleset=3)
    rolls = [json.loads(e) for _, e in log]
    dice = [ev for events in rolls for ev in events if ev["type"] == "die_rolled"]
    assert dice, "the game rolled no die"
    assert [d["index"] for d in dice] == list(range(len(dice)))
    assert [d["value"] for d in dice] == [my_die("audit me", d["index"]) for d in dice]
    assert game.to_json()["rolls"] == len(dice)


def test_a_different_seed_gives_different_dice():
    assert [my_die("one", i) for i in range(30)] != [my_die("two", i) for i in range(30)]


def test_fixed_dice_come_first_then_the_seed():
    game = position(["16th 1207", "19th 1209", "XXIV 1107", "XLI 1110"], fixed_dice=[6], seed="fixed", ruleset=3)
    game.apply(engine.DeclareAttack(("XXIV",), "16th"))
    game.apply(engine.DeclareAttack(("XLI",), "19th"))
    first = [e for e in game.apply(engine.ResolveBattle("16th")) if isinstance(e, DieRolled)]
    while game.pending_decision():
        game.apply(game.legal_actions()[0])
    second = [e for e in game.apply(engine.ResolveBattle("19th")) if isinstance(e, DieRolled)]
    assert first[0] == DieRolled(0, 6, first[0].purpose)
    assert second[0].index == 1 and second[0].value == my_die("fixed", 1)


def test_position_round_trip_at_every_step_of_a_game():
    game = engine.new_game("standard", seed="round trip")
    rnd = random.Random(3)
    steps = 0
    while not game.is_terminal() and steps < 600:
        data = json.loads(json.dumps(game.to_json()))  # plain JSON on the way
        twin = engine.game_from_position(data)
        assert twin.state_hash() == game.state_hash()
        if steps % 7 == 0:
            assert [a.to_json() for a in twin.legal_actions()] == [a.to_json() for a in game.legal_actions()]
        action = rnd.choice(game.legal_actions())
        assert events_json(twin.apply(action)) == events_json(game.apply(action))
        assert twin.state_hash() == game.state_hash()
        steps += 1
    assert game.is_terminal()
    final = engine.game_from_position(game.to_json())
    assert final.is_terminal() and final.result() == game.result()


def test_round_trip_with_a_pending_decision_and_a_stack():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108"], fixed_dice=[3])
    game.apply(engine.DeclareAttack(("XXIV", "XLI"), "16th"))
    game.apply(engine.ResolveBattle("16th"))
    assert game.pending_decision()["stage"] == "retreat"
    twin = engine.game_from_position(game.to_json())
    assert twin.state_hash() == game.state_hash() and twin.pending_decision() == game.pending_decision()
    assert twin.legal_actions() == game.legal_actions()

    game = position(["16th 1206", "19th 1207", "20th 1306", "V 0104"], phase="soviet_movement")
    game.apply(Move("16th", "1207"))
    twin = engine.game_from_position(game.to_json())
    assert twin.state_hash() == game.state_hash() and twin.pending_decision() == game.pending_decision()
    assert twin.legal_actions() == game.legal_actions()
    assert events_json(twin.apply(Move("19th", "1208"))) == events_json(game.apply(Move("19th", "1208")))


def test_state_hash_is_the_sha256_of_the_canonical_json():
    game = engine.new_game("standard", seed="hash")
    canonical = json.dumps(game.to_json(), sort_keys=True, separators=(",", ":"))
    assert game.state_hash() == sha256(canonical.encode()).hexdigest()


def test_a_clone_is_independent():
    game = engine.new_game("standard", seed="clone")
    game.apply(engine.StandardSetup())
    before = game.state_hash()
    twin = game.clone()
    play_random(twin, random.Random(1), 60)
    assert game.state_hash() == before
    assert twin.state_hash() != before


def test_a_clone_shares_no_changing_part_of_the_phase_state():
    """Game.clone copies the phase state field by field (PhaseState.copy): a field added to it that
    holds a set, list, dict or anything changed in place must be copied there too."""
    from dataclasses import fields

    from engine.phase_state import Pending, PhaseState

    state = PhaseState(moved={"a"}, replaced={"b"}, battles={"16th": ["XLVII"]}, attacking={"XLVII"},
                       pending=Pending("retreat", "16th", ("XLVII",), 3), assault={"XLVII": 1},
                       strongpoint_shifts={"16th"})
    twin = state.copy()
    assert twin == state
    for name in (f.name for f in fields(PhaseState)):
        value = getattr(state, name)
        if isinstance(value, (set, list, dict)):
            assert getattr(twin, name) is not value, name
    assert all(twin.battles[d] is not attackers for d, attackers in state.battles.items())
    assert twin.pending is not state.pending  # changed in place as a battle's stages run
    twin.battles["16th"].append("XLVI")
    assert state.battles == {"16th": ["XLVII"]}


def test_clones_played_apart_match_the_same_game_played_from_its_position():
    """Copies taken at every step of a random game, each played on for a few actions, end where the
    same actions lead from the step's position read back from its JSON (no copy shares a change), with
    the same legal actions (what a movement phase keeps and patches between actions is each game's own)."""
    game = engine.new_game("standard", seed="clones")
    rnd = random.Random(5)
    for _ in range(300):
        if game.is_terminal():
            break
        twin = game.clone()
        fresh = engine.game_from_position(json.loads(game.canonical_json()))
        for _ in range(3):
            if twin.is_terminal():
                break
            action = rnd.choice(twin.legal_actions())
            assert events_json(twin.apply(action)) == events_json(fresh.apply(action))
            assert twin.legal_actions() == fresh.legal_actions()
        assert twin.canonical_json() == fresh.canonical_json()
        assert game.legal_actions() == engine.game_from_position(json.loads(game.canonical_json())).legal_actions()
        game.apply(rnd.choice(game.legal_actions()))


def test_actions_and_events_have_a_stable_json_form():
    game = engine.new_game("standard", seed="json")
    rnd = random.Random(8)
    for _ in range(400):
        if game.is_terminal():
            break
        for action in game.legal_actions():
            assert engine.action_from_json(json.loads(json.dumps(action.to_json()))) == action
        for event in game.apply(rnd.choice(game.legal_actions())):
            assert engine.event_from_json(json.loads(json.dumps(event.to_json()))) == event
