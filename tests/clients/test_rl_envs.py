"""The RL environments of clients/rl (docs/RL.md): the action numbering is one to one over every legal
action of every position, the PettingZoo environment passes PettingZoo's api_test and seed_test and plays
the engine's game, the Gymnasium environment passes Gymnasium's checker, the observation shows the
position, and a policy plays as a strategy."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import engine
from clients.arena import play_game
from clients.rl import (
    GYMNASIUM_ID, PLANE_INDEX, ActionEncoding, IllegalNumber, NumberedGame, TyphoonAEC, TyphoonSingle, as_strategy,
    env,
)
from clients.rl.encoding import DIRECTIONS
from clients.strategies import make_strategy
from engine.zones import zone_of_control

GAMES = [("standard", None), ("campaign", {"preset": "all"}), ("standard", {"preset": "war_of_attrition"}),
         ("campaign", None)]


def random_games(count: int, seed: str):
    """Positions of random games over the scenarios and options, each with the action played from it."""
    for number in range(count):
        scenario, options = GAMES[number % len(GAMES)]
        game = engine.new_game(scenario, options, seed=f"{seed}-{number}")
        chooser = random.Random(number)
        while not game.is_terminal():
            action = chooser.choice(game.legal_actions())
            yield game, action
            game.apply(action)


def test_every_legal_action_has_its_own_numbers_and_none_begins_another():
    encoding = None
    kinds = set()
    for game, _ in random_games(8, "numbers"):
        encoding = encoding or ActionEncoding(game.scenario)
        legal = game.legal_actions()
        encoded = {action: encoding.encode(game, action) for action in legal}
        assert len(set(encoded.values())) == len(legal)
        beginnings = {numbers[:depth] for numbers in encoded.values() for depth in range(1, len(numbers))}
        for action, numbers in encoded.items():
            kinds.add(action.type)
            assert all(0 <= n < encoding.size for n in numbers)
            assert numbers not in beginnings, f"{action} begins another action's numbers"
        choices = encoding.choices(game)
        first = set(choices.next_ids(()))
        assert first == {numbers[0] for numbers in encoded.values()}
        for action, numbers in encoded.items():
            assert choices.action(numbers) == action
            for depth in range(1, len(numbers)):
                assert numbers[depth] in choices.next_ids(numbers[:depth])
                assert choices.action(numbers[:depth]) is None
    assert {"place_unit", "standard_setup", "move", "end_phase", "declare_attack", "close_declarations",
            "resolve_battle", "choose_retreat", "choose_losses", "advance", "decline_advance", "replace", "restore",
            "assault", "buy_extra_supply", "roll_attrition", "choose_frostbite"} <= kinds


def test_numbers_are_named_the_same_in_every_position():
    encoding = ActionEncoding(engine.load_scenario("standard"))
    assert encoding.size == 40 * 140 + 40 * 6 + 7 * 40 + 6 + 7
    assert [encoding.block_of(start)[0] for start, _ in encoding.blocks.values()] == list(encoding.blocks)
    assert encoding.describe(encoding.blocks["attack"][0] + 6 * encoding.unit_index["XLI"] + 1) == "attack XLI NE"
    assert ActionEncoding(engine.load_scenario("campaign")).units == encoding.units
    with pytest.raises(ValueError):
        encoding.describe(encoding.size)
    game = engine.new_game("standard")
    with pytest.raises(ValueError, match="no number"):
        encoding.encode(game, engine.Resign("german"))


def test_pettingzoo_api_test_and_seed_test():
    api_test(TyphoonAEC(), num_cycles=1000)
    api_test(TyphoonAEC(reward="points", scenario="campaign", options={"preset": "all"}), num_cycles=300)
    api_test(env(), num_cycles=300)
    seed_test(lambda: TyphoonAEC(reward="points"), num_cycles=500)


def play_masked(aec: TyphoonAEC, rng: np.random.Generator, limit: int = 100_000):
    """A whole game through the AEC loop with random legal numbers; the engine actions and events it made."""
    actions, totals = [], {"german": 0.0, "soviet": 0.0}
    for agent in aec.agent_iter(limit):
        observation, reward, terminated, truncated, _ = aec.last()
        totals[agent] += reward
        if terminated or truncated:
            aec.step(None)
            continue
        assert agent == aec.game.current_player()
        before = len(aec.game.to_json()["units"]), aec.game.rolls
        aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if aec.last_events:
            actions.append((before, [event.to_json() for event in aec.last_events]))
    return actions, totals


def test_a_game_through_the_environment_is_the_engine_game_of_its_seed():
    aec = TyphoonAEC(reward="points", vp_scale=0.5)
    aec.reset(options={"engine_seed": "same game"})
    log = []
    original_play = aec.play.play

    def recorded(number: int):
        action = aec.play.choices().action((*aec.play.picked, number))
        events = original_play(number)
        if action is not None:
            log.append((action, [event.to_json() for event in events]))
        return events

    aec.play.play = recorded  # type: ignore[method-assign]
    _, totals = play_masked(aec, np.random.default_rng(1))
    final = aec.game
    assert final.is_terminal() and not aec.agents
    replay = engine.new_game("standard", seed="same game")
    for action, events in log:
        assert [event.to_json() for event in replay.apply(action)] == events
    assert replay.state_hash() == final.state_hash()
    points = final.victory_points()
    for side, other in (("german", "soviet"), ("soviet", "german")):
        lead = points[side] - points[other]
        assert totals[side] == pytest.approx(0.5 * lead + final.returns()[side])


def test_reset_seeds_and_truncation():
    aec = TyphoonAEC(max_steps=5)
    aec.reset(seed=3)
    assert aec.game.seed == "3"
    aec.reset(seed=3)
    first = aec.game.seed
    aec.reset()
    assert aec.game.seed != first
    aec.reset(seed=3)
    for _ in range(5):
        observation, *_ = aec.last()
        aec.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert aec.rewards == {"german": 0.0, "soviet": 0.0}


def test_an_illegal_number_is_refused_or_loses():
    aec = TyphoonAEC()
    aec.reset(seed=1)
    before = aec.game.state_hash(), dict(aec.rewards), aec.agent_selection, aec.play.picked
    with pytest.raises(IllegalNumber, match="not legal now"):
        aec.step(0)
    assert (aec.game.state_hash(), dict(aec.rewards), aec.agent_selection, aec.play.picked) == before
    assert aec.game.phase.name == "setup" and not any(aec.terminations.values())
    losing = TyphoonAEC(illegal="lose")
    losing.reset(seed=1)
    losing.step(0)
    assert all(losing.terminations.values()) and losing.rewards == {"german": -1.0, "soviet": 1.0}
    with pytest.raises(ValueError, match="reward"):
        TyphoonAEC(reward="gold")
    with pytest.raises(engine.IllegalAction):
        TyphoonAEC(scenario="kursk")


def test_decisions_of_several_numbers_go_one_number_at_a_time():
    """Retreats and exchange losses: the same agent picks until the numbers spell the engine's action, the
    mask offering only continuations, and the observation shows the picks."""
    seen = set()
    for game, action in random_games(12, "several"):
        if not isinstance(action, (engine.ChooseRetreat, engine.ChooseLosses)):
            continue
        play = NumberedGame(game.clone())
        numbers = play.numbers_of(action)
        for depth, number in enumerate(numbers):
            assert number in play.legal_ids()
            if depth + 1 < len(numbers):
                assert play.play(number) == [] and play.picked == numbers[:depth + 1]
                obs = play.observe(game.current_player())
                plane = "retreat_picked" if isinstance(action, engine.ChooseRetreat) else "losses_picked"
                assert obs[PLANE_INDEX[plane]].sum() > 0
            else:
                events = play.play(number)
                assert events and play.picked == ()
        twin = game.clone()
        assert [e.to_json() for e in twin.apply(action)] == [e.to_json() for e in events]
        seen.add((action.type, len(numbers) > 1))
    assert ("choose_retreat", True) in seen and ("choose_losses", True) in seen


def test_the_observation_shows_the_position():
    game = engine.new_game("standard", seed="look")
    chooser = random.Random(2)
    for _ in range(300):
        game.apply(chooser.choice(game.legal_actions()))
    play = NumberedGame(game)
    obs = play.observe("soviet")
    board = game.board
    assert obs.shape == (len(PLANE_INDEX), board.rows, board.columns) and obs.min() >= 0 and obs.max() <= 1

    def at(plane: str, hex_index: int) -> float:
        column, row = board.coords[hex_index]
        return float(obs[PLANE_INDEX[plane], row - 1, column - 1])

    for unit, hex_index in game.hex_of.items():
        side = game.side_of(unit)
        assert at(f"{side}_unit", hex_index) == 1.0
        assert at("strength", hex_index) == pytest.approx(game.strength(unit) / 12)
        assert at("in_communication", hex_index) == float(game.in_communication(unit))
    for side in ("german", "soviet"):
        zone = zone_of_control(board, [h for u, h in game.hex_of.items() if game.side_of(u) == side])
        assert {h for h in range(len(board.ids)) if at(f"{side}_zoc", h)} == set(zone)
        assert {h for h in range(len(board.ids)) if at(f"{side}_city", h)} == {
            h for h, s in game.control.items() if s == side}
    assert at(f"phase_{game.phase.name}", 0) == 1.0 and at("observer_german", 0) == 0.0
    assert at("turn", 5) == pytest.approx(game.turn / 14)
    for direction in range(6):
        name = f"river_{DIRECTIONS[direction]}"
        for h in range(len(board.ids)):
            n = play.encoding.neighbour(h, direction)
            assert at(name, h) == float(n is not None and board.river_between(h, n))


def test_gymnasium_checker_and_a_game_against_each_opponent():
    for side in ("german", "soviet"):
        check_env(TyphoonSingle(side=side), skip_render_check=True)
        check_env(TyphoonSingle(side=side, opponent="random", reward="points", render_mode="ansi"))
    made = gymnasium.make(GYMNASIUM_ID, side="soviet", opponent="heuristic", disable_env_checker=True)
    rng = np.random.default_rng(4)
    observation, info = made.reset(seed=11)
    assert info["engine_seed"] == "11" and made.unwrapped.game.current_player() == "soviet"
    steps, reward, terminated = 0, 0.0, False
    while not terminated:
        observation, reward, terminated, truncated, info = made.step(
            int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
        assert not truncated and (terminated or made.unwrapped.game.current_player() == "soviet")
    assert reward == made.unwrapped.game.returns()["soviet"] and info["result"]["winner"]
    single = TyphoonSingle(illegal="lose")
    single.reset(seed=1)
    assert single.step(0)[1:3] == (-1.0, True)
    with pytest.raises(RuntimeError, match="reset"):
        single.step(0)


def test_the_single_agent_game_is_the_same_for_the_same_seed():
    def moves(seed: int) -> list[str]:
        single = TyphoonSingle(side="german", opponent="heuristic")
        observation, _ = single.reset(seed=seed)
        for _ in range(60):
            observation, _, terminated, _, _ = single.step(int(np.flatnonzero(observation["action_mask"])[-1]))
            if terminated:
                break
        return [single.game.state_hash()]

    assert moves(5) == moves(5) != moves(6)


def test_a_policy_plays_as_a_strategy():
    def last_number(observation):
        return int(np.flatnonzero(observation["action_mask"])[-1])

    rng = np.random.default_rng(0)

    def random_number(observation):
        return int(rng.choice(np.flatnonzero(observation["action_mask"])))

    for german, soviet in ((as_strategy(random_number), make_strategy("heuristic", seed=1)),
                           (make_strategy("random", seed=2), as_strategy(last_number, name="last"))):
        record = play_game(german, soviet, seed="policy")
        assert record.illegal == 0 and record.winner in ("german", "soviet", "draw")
    # a policy's mistake falls back to a legal action, or raises when strict
    game = engine.new_game("standard", seed="mistake")
    assert as_strategy(lambda observation: 0).choose(game, game.legal_actions()) in game.legal_actions()
    with pytest.raises(IllegalNumber):
        as_strategy(lambda observation: 0, strict=True).choose(game, game.legal_actions())
