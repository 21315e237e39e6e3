"""The bot strategies: complete games through the engine, legality, determinism, strength."""

from __future__ import annotations

import random

import pytest

import engine
from clients.arena import play_game, run_games
from clients.strategies import STRATEGIES, BaseStrategy, Strategy, make_strategy


class Referee:
    """Wraps a strategy and checks every choice against the legal actions."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.choices: list[engine.Action] = []

    def choose(self, state: engine.Game, legal_actions: list[engine.Action]) -> engine.Action:
        before = state.state_hash()
        action = self.inner.choose(state, list(legal_actions))
        assert action in legal_actions, f"{self.name} chose {action!r}, not a legal action"
        assert state.state_hash() == before, f"{self.name} changed the state it was given"
        self.choices.append(action)
        return action


def play(german: Strategy, soviet: Strategy, seed: str, **kwargs):
    g, s = Referee(german), Referee(soviet)
    record = play_game(g, s, seed=seed, **kwargs)
    return record, g.choices + s.choices


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_plays_a_complete_game_as_each_side(name):
    for german, soviet in ((name, "random"), ("random", name)):
        record, _ = play(make_strategy(german, 1, strict=True), make_strategy(soviet, 2, strict=True), "full")
        assert record.winner in ("german", "soviet", "draw")
        assert record.illegal == 0
        assert record.points["german"] >= 0 and record.points["soviet"] >= 0


def test_search_plays_a_complete_game_with_a_tiny_budget():
    search = make_strategy("search", 3, budget=0.001, max_candidates=2, strict=True)
    record, _ = play(search, make_strategy("heuristic", 4, strict=True), "search-game")
    assert record.winner in ("german", "soviet", "draw")
    assert record.illegal == 0
    assert search.searches > 0 and search.rollouts >= 2 * search.searches


def test_search_levels_do_more_work_the_higher_they_are():
    from clients.strategies.search import LEVELS

    assert sorted(LEVELS) == [1, 2, 3]
    work = [(LEVELS[n]["playouts"], LEVELS[n]["max_candidates"]) for n in sorted(LEVELS)]
    assert work == sorted(work) and len(set(work)) == len(work)
    assert make_strategy("search", 0).level == 3 and make_strategy("search", 0).budget is None
    one = make_strategy("search", 0, level=1)
    assert (one.playouts, one.max_candidates) == (LEVELS[1]["playouts"], LEVELS[1]["max_candidates"])
    assert make_strategy("search", 0, level=1, playouts=7).playouts == 7
    with pytest.raises(ValueError, match="level must be one of 1, 2, 3"):
        make_strategy("search", 0, level=9)


def test_search_spends_its_playout_budget_and_no_more():
    game = engine.new_game("standard", seed="budget")
    heuristic = make_strategy("heuristic", 1)
    while game.phase.name != "german_combat":
        game.apply(heuristic.choose(game, game.legal_actions()))
    search = make_strategy("search", 1, playouts=5, max_candidates=3)
    plans = search.combat_candidates(game, "german")
    assert len(plans) >= 2
    chosen = search.pick(game, plans, "german")
    assert search.searches == 1 and len(plans) <= search.rollouts <= 5
    again = make_strategy("search", 1, playouts=5, max_candidates=3)
    assert again.pick(game, plans, "german") == chosen and again.rollouts == search.rollouts  # same work, same choice


def test_search_as_soviet_leaves_the_real_dice_alone():
    game = engine.new_game("standard", seed="dice")
    game.apply(engine.StandardSetup())
    search = make_strategy("search", 5, budget=0.001, max_candidates=2)
    heuristic = make_strategy("heuristic", 6)
    while game.current_player() == "german" or game.phase.name != "soviet_movement":
        player = heuristic if game.current_player() == "german" else search
        rolls = game.rolls
        game.apply(player.choose(game, game.legal_actions()))
        assert game.seed == "dice"
        assert game.rolls >= rolls


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_same_seed_same_game(name):
    _, first = play(make_strategy(name, "s1"), make_strategy(name, "s2"), "determinism")
    _, second = play(make_strategy(name, "s1"), make_strategy(name, "s2"), "determinism")
    assert first == second


def test_random_depends_on_its_seed_only():
    a = make_strategy("random", 1)
    b = make_strategy("random", 2)
    game = engine.new_game("standard", seed="x")
    game.apply(engine.StandardSetup())
    legal = game.legal_actions()
    random.seed(123)
    picks_a = [a.choose(game, legal) for _ in range(20)]
    random.seed(456)
    again = make_strategy("random", 1)
    assert picks_a == [again.choose(game, legal) for _ in range(20)]
    assert picks_a != [b.choose(game, legal) for _ in range(20)]


@pytest.mark.parametrize("side", ["german", "soviet"])
def test_heuristic_beats_random(side):
    if side == "german":
        tally = run_games("heuristic", "random", games=5, seed="strength")
    else:
        tally = run_games("random", "heuristic", games=5, seed="strength")
    assert tally.illegal == 0
    assert tally.wins[side] >= 4, tally.summary()


def test_unknown_actions_fall_back_to_something_legal():
    class Future(engine.Action):
        __slots__ = ()

    game = engine.new_game("standard", seed="future")
    game.apply(engine.StandardSetup())
    strange = [Future()]
    for name in STRATEGIES:
        strategy = make_strategy(name, 0, **({"budget": 0.001} if name == "search" else {}))
        assert strategy.choose(game, strange) is strange[0]
        with_end = [Future(), engine.EndPhase()]
        assert strategy.choose(game, with_end) in with_end


def test_optional_rules_and_other_scenarios_do_not_break_the_heuristic():
    for scenario in engine.scenario_ids():
        record, _ = play(make_strategy("heuristic", 1, strict=True), make_strategy("heuristic", 2, strict=True),
                         "options", scenario=scenario, options={"preset": "all"})
        assert record.winner in ("german", "soviet", "draw")


def test_a_parameter_a_strategy_does_not_take_is_refused_not_ignored():
    for name, misspelt in [("random", "budget"), ("heuristic", "g_riks"), ("search", "budgte")]:
        with pytest.raises(ValueError, match=f"unknown strategy parameter {misspelt}; known: "):
            make_strategy(name, 0, **{misspelt: 1})
    assert make_strategy("search", 0, budget=0.5, g_risk=2.0).w.g_risk == 2.0


def test_registry_and_protocol():
    assert set(STRATEGIES) >= {"random", "heuristic", "search"}
    for name in STRATEGIES:
        strategy = make_strategy(name, 7)
        assert isinstance(strategy, Strategy)
        assert strategy.name == name
    with pytest.raises(ValueError):
        make_strategy("chess-engine", 1)


def test_a_strategy_in_a_few_lines():
    class FirstLegal(BaseStrategy):
        name = "first"

        def decide(self, state, legal_actions):
            return legal_actions[0]

    record, _ = play(FirstLegal(seed=1), make_strategy("random", 1), "few-lines")
    assert record.winner in ("german", "soviet", "draw")


def test_arena_tally():
    tally = run_games("random", "random", games=3, seed="tally")
    assert tally.games == 3
    assert sum(tally.wins.values()) == 3
    mean = tally.mean_points()
    assert mean["german"] >= 0 and mean["soviet"] >= 0
    assert "3 games" in tally.summary()
