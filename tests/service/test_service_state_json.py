"""The state JSON the store keeps (service/state_json.py) is the engine's canonical JSON, byte for byte:
its hash, logged with every action, is what replay verification recomputes with the engine."""

from __future__ import annotations

import random

import pytest

import engine
from service.state_json import canonical_json


@pytest.mark.parametrize("scenario,options", [("standard", {}), ("standard", {"preset": "all"}),
                                              ("standard", {"victory": "moscow", "soviet_replacements": 3.0})]
                         + [(scenario, {}) for scenario in engine.scenario_ids() if scenario != "standard"])
def test_the_state_json_is_the_engines_canonical_json_in_every_state_of_a_game(scenario, options):
    chooser = random.Random(f"{scenario}{options}")
    game = engine.new_game(scenario, options, seed=f"state-json-{scenario}")
    states = 0
    while True:
        assert canonical_json(game) == game.canonical_json()
        states += 1
        actions = game.legal_actions()
        if not actions or game.result():
            break
        game.apply(chooser.choice(actions))
    assert states > 50 and game.result() is not None


@pytest.mark.parametrize("seed", ["é-non-ascii", "tab\tand\nnewline", "quote\"back\\slash", "del\x7f"])
def test_text_orjson_would_write_otherwise_takes_the_engines_path(seed):
    game = engine.new_game("standard", {}, seed=seed)
    assert canonical_json(game) == game.canonical_json()

