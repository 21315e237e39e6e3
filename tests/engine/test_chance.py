"""engine.chance: an action applied with die rolls the caller names (OpenSpiel's chance nodes) plays exactly
as the seeded game does when the named rolls are the seed's, changes nothing it is given, and asks for each
roll an action makes, however many."""

from __future__ import annotations

import random

import pytest

import engine
from engine.chance import apply_rolling
from engine.dice import entropy_commitment


@pytest.mark.parametrize("scenario, options, most", [("standard", None, 1), ("campaign", {"preset": "all"}, 2),
                                                     ("standard", {"preset": "war_of_attrition"}, 1)])
def test_named_rolls_replay_the_seeded_game(scenario, options, most):
    seeded = engine.new_game(scenario, options, seed=f"chance-{scenario}")
    entropy = {side: f"{side}-entropy-of-the-chance-test-0123456789" for side in ("german", "soviet")}
    for side in entropy:  # the seats' entropy (ruleset 4): none is drawn, nothing but dice differs
        seeded.commit_entropy(side, entropy_commitment(entropy[side]))
    for side in entropy:
        seeded.contribute_entropy(side, entropy[side])
    named = engine.new_game(scenario, options)  # no seed: every roll is named
    chooser = random.Random(5)
    rolled: list[int] = []
    most_in_one_action = 0
    while not seeded.is_terminal():
        action = chooser.choice(seeded.legal_actions())
        before = named.to_json()
        events = seeded.apply(action)
        faces = [e.value for e in events if e.type == "die_rolled"]
        for count in range(len(faces)):  # each roll is asked for, one at a time
            assert apply_rolling(named, action, faces[:count]) is None
        outcome = apply_rolling(named, action, faces)
        assert outcome is not None
        named_after, named_events = outcome
        assert named.to_json() == before, "the game given is not changed"
        assert [e.to_json() for e in named_events] == [e.to_json() for e in events]
        named = named_after
        rolled += faces
        most_in_one_action = max(most_in_one_action, len(faces))
        mine, theirs = named.to_json(), seeded.to_json()
        assert mine.pop("fixed_dice") == rolled and mine.pop("seed") == ""  # the rolls so far, no more
        for name in ("entropy", "entropy_commitments"):  # the dice's inputs, which named rolls need not
            theirs.pop(name, None), mine.pop(name, None)
        theirs.pop("fixed_dice"), theirs.pop("seed")
        assert mine == theirs
    assert seeded.rolls == len(rolled) > 0
    assert most_in_one_action == most  # Harsher Winter: the German player rolls twice on the Winter Attrition Table


def test_the_position_holds_every_roll_and_replays():
    game = engine.new_game("standard")
    chooser, actions, faces = random.Random(8), [], random.Random(9)
    while not game.is_terminal():
        action = chooser.choice(game.legal_actions())
        rolls: tuple[int, ...] = ()
        while (outcome := apply_rolling(game, action, rolls)) is None:
            rolls += (faces.randint(1, 6),)
        game = outcome[0]
        actions.append(action)
    replayed = engine.new_game("standard", fixed_dice=game.fixed_dice)
    for action in actions:
        replayed.apply(action)
    assert replayed.state_hash() == game.state_hash()
    assert engine.game_from_position(game.to_json()).state_hash() == game.state_hash()


def test_bad_rolls_and_seeded_games_are_refused():
    game = engine.new_game("standard", seed="x")
    with pytest.raises(ValueError, match="1 to 6"):
        apply_rolling(game, engine.StandardSetup(), (7,))
    seeded = engine.new_game("standard", seed="x")
    for action in (engine.StandardSetup(), engine.EndPhase(), engine.DeclareAttack(("XLI",), "10th"),
                   engine.CloseDeclarations(), engine.ResolveBattle("10th")):
        seeded.apply(action)
    assert seeded.rolls == 1
    with pytest.raises(ValueError, match="from its seed"):
        apply_rolling(seeded, seeded.legal_actions()[0], ())
    with pytest.raises(engine.IllegalAction):
        apply_rolling(engine.new_game("standard"), engine.EndPhase(), ())
