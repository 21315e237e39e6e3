"""The OpenSpiel game of clients/rl/spiel.py: OpenSpiel's own random-simulation checks pass (with state
serialization), the dice are chance nodes of probability 1/6 each, a clone is independent, and OpenSpiel's
MCTS bot plays it."""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import engine
from clients.rl.spiel import SHORT_NAME, PointsRolloutEvaluator


def test_openspiel_random_simulation_checks():
    pyspiel.random_sim_test(pyspiel.load_game(SHORT_NAME), num_sims=1, serialize=True, verbose=False)
    campaign = pyspiel.load_game(SHORT_NAME, {"scenario": "campaign", "options": "all"})
    pyspiel.random_sim_test(campaign, num_sims=1, serialize=False, verbose=False)


def to_first_battle() -> pyspiel.State:
    game = pyspiel.load_game(SHORT_NAME)
    state = game.new_initial_state()
    for name in ("standard_setup", "end_phase", "attack XLI NE", "close_declarations", "resolve 10th"):
        state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == name))
    return state


def test_a_die_roll_is_a_chance_node_and_clones_are_independent():
    state = to_first_battle()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    outcomes = state.chance_outcomes()
    assert outcomes == [(face, 1 / 6) for face in range(6)]
    positions = set()
    for outcome in range(6):
        twin = state.clone()
        twin.apply_action(outcome)
        assert not twin.is_chance_node() and twin.engine_game().fixed_dice == (outcome + 1,)
        assert twin.history() == [*state.history(), outcome]
        positions.add(twin.engine_game().to_json()["units"].__repr__())
    assert state.is_chance_node() and state.engine_game().rolls == 0, "the clones left the state alone"
    assert len(positions) > 1, "different faces, different battles"


def test_the_engine_game_inside_replays_with_its_rolls():
    game = pyspiel.load_game(SHORT_NAME)
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(6)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    inside = state.engine_game()
    assert inside.rolls == len(inside.fixed_dice) > 0
    replayed = engine.game_from_position(inside.to_json())
    assert replayed.state_hash() == inside.state_hash() and replayed.is_terminal()
    assert state.returns() == [inside.returns()["german"], inside.returns()["soviet"]]
    again = game.new_initial_state()
    for action in state.history():
        again.apply_action(action)
    assert again.engine_game().state_hash() == inside.state_hash()


def test_openspiel_mcts_plays_it():
    game = pyspiel.load_game(SHORT_NAME)
    evaluator = PointsRolloutEvaluator(depth=6, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=6, evaluator=evaluator, random_state=np.random.RandomState(1))
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    chance_nodes = bot_moves = 0
    while state.engine_game().turn == 1 and not state.is_terminal():
        if state.is_chance_node():
            chance_nodes += 1
            state.apply_action(int(rng.integers(6)))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            bot_moves += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert bot_moves > 10 and chance_nodes > 0
