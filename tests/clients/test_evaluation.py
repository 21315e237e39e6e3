"""The learned evaluation of the search (clients/strategies/evaluation.py) and the script that makes it."""

from __future__ import annotations

import json

import pytest

import engine
from clients.strategies import evaluation, fit_evaluation, make_strategy
from clients.strategies.search import evaluate


def test_the_shipped_model_covers_the_soviet_phases_of_every_turn_but_the_last():
    model = evaluation.load_model()
    game = engine.new_game("standard", seed="eval")
    last = game.scenario.last_turn
    for turn in range(1, last):
        for phase in ("soviet_replacement", "soviet_rail_movement", "soviet_combat", "soviet_movement"):
            assert len(model[f"{turn}:{phase}"]) == len(evaluation.FEATURES)


def test_the_search_scores_soviet_playouts_by_the_expected_end():
    game = engine.new_game("standard", seed="eval")
    game.apply(engine.StandardSetup())
    heuristic = make_strategy("heuristic", 1)
    while game.current_player() == "german":
        game.apply(heuristic.choose(game, game.legal_actions()))
    expected = evaluation.predict(game)
    assert expected is not None
    assert evaluate(game, "soviet", learned=True) == pytest.approx(expected)
    assert evaluate(game, "german", learned=True) == pytest.approx(-expected)
    points = game.victory_points()
    strength = {"german": 0, "soviet": 0}
    for unit in game.hex_of:
        strength[game.side_of(unit)] += game.strength(unit)
    assert evaluate(game, "soviet") == pytest.approx(points["soviet"] - points["german"] + 0.05 * strength["soviet"]
                                                     - 0.12 * strength["german"])  # without it: points, strength
    with pytest.raises(ValueError, match="evaluation must be one of"):
        make_strategy("search", 1, evaluation="oracle")


def test_the_model_is_made_again_from_its_seed(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert fit_evaluation.main(["--games", "30", "--seed", "t", "--ridge", "1", "-o", str(first)]) == 0
    assert fit_evaluation.main(["--games", "30", "--seed", "t", "--ridge", "1", "-o", str(second), "--jobs", "2"]) == 0
    model = json.loads(first.read_text())
    assert first.read_text() == second.read_text()
    assert model["features"] == list(evaluation.FEATURES) and model["coefficients"]
    game = engine.new_game("standard", seed="eval")
    game.apply(engine.StandardSetup())
    coefficients = evaluation.load_model(str(first))
    assert evaluation.predict(game, coefficients) is not None or evaluation.phase_key(game) not in coefficients
