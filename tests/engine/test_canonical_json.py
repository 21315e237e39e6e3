"""``Game.canonical_json()`` (written by orjson where it can) is ``json.dumps`` with sorted keys and no
spaces, byte for byte: the service stores it and logs its hash with every action, and replays recompute it."""

from __future__ import annotations

import json
import random

import pytest

import engine


def reference(game: engine.Game) -> str:
    return json.dumps(game.to_json(), sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize("scenario,options", [("standard", {}), ("standard", {"preset": "all"}),
                                              ("standard", {"victory": "moscow", "soviet_replacements": 3.0})]
                         + [(scenario, {}) for scenario in engine.scenario_ids() if scenario != "standard"])
def test_the_canonical_json_is_json_dumps_in_every_state_of_a_game(scenario, options):
    chooser = random.Random(f"{scenario}{options}")
    game = engine.new_game(scenario, options, seed=f"state-json-{scenario}")
    states = 0
    while True:
        assert game.canonical_json() == reference(game)
        states += 1
        actions = game.legal_actions()
        if not actions or game.result():
            break
        game.apply(chooser.choice(actions))
    assert states > 50 and game.result() is not None


@pytest.mark.parametrize("seed", ["é-non-ascii", "tab\tand\nnewline", "quote\"back\\slash", "del\x7f"])
def test_text_orjson_would_write_otherwise_takes_json_dumps(seed):
    game = engine.new_game("standard", {}, seed=seed)
    assert game.canonical_json() == reference(game)

