"""The engine's speed-ups give what the long ways give (issue 30: not a bit of behaviour changes).

A movement phase keeps and patches its legal actions between actions, a reach is taken from the one with
no enemy where the enemy changes nothing, and the search for a city-capturing path skips the hexes from
which the destination is out of reach. Here, along random games (standard, and the campaign with every
option), each is compared with the long way: a listing made afresh from the position's JSON, a full reach
search, the search without the shortcut.
"""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import movement
from engine.options import Options
from engine.sequence import other


def walk(scenario: str, options: str, seed: str, actions: int):
    """The states of a random game, one per action (the same game object, changed as it goes)."""
    game = engine.new_game(scenario, Options.parse(options).to_json(), seed=seed)
    rnd = random.Random(seed)
    for _ in range(actions):
        if game.is_terminal():
            return
        yield game
        game.apply(rnd.choice(game.legal_actions()))


GAMES = [("standard", "", "kept-1", 700), ("standard", "", "kept-2", 700), ("campaign", "all", "kept-3", 900)]


@pytest.mark.parametrize("scenario, options, seed, actions", GAMES)
def test_the_kept_legal_actions_are_those_of_a_fresh_listing(scenario, options, seed, actions):
    for game in walk(scenario, options, seed, actions):
        fresh = engine.game_from_position(json.loads(game.canonical_json()))
        assert game.legal_actions() == fresh.legal_actions(), (game.turn, game.phase.name)


@pytest.mark.parametrize("scenario, options, seed, actions", GAMES)
def test_a_reach_taken_from_the_one_with_no_enemy_is_the_full_search(scenario, options, seed, actions):
    compared = 0
    for game in walk(scenario, options, seed, actions):
        if game.phase.kind != "movement" or game.ps.stack:
            continue
        for unit in game.movement_phase._unmoved(game):
            enemy = other(game.side_of(unit))
            start, rules = game.hex_of[unit], game.movement_phase._move_rules(game, unit)
            enemy_units, enemy_zoc = game._units_of(enemy), game._zoc(enemy)
            taken = movement.reach_among(game.board, start, rules, *game._masks(enemy))
            full = movement.reach(start, rules, enemy_units, enemy_zoc)
            assert list(taken.cost.items()) == list(full.cost.items())
            assert all(taken.path_to(h) == full.path_to(h) for h in full.cost)
            compared += 1
    assert compared > 100


@pytest.mark.parametrize("scenario, options, seed, actions", GAMES)
def test_a_capturing_path_searched_toward_its_destination_is_the_one_searched_everywhere(scenario, options, seed,
                                                                                        actions):
    compared = 0
    for game in walk(scenario, options, seed, actions):
        if game.phase.kind != "movement" or game.ps.stack:
            continue
        for unit in game.movement_phase._unmoved(game)[:3]:
            side, enemy = game.side_of(unit), other(game.side_of(unit))
            start, rules = game.hex_of[unit], game.movement_phase._move_rules(game, unit)
            enemy_units, enemy_zoc = game._units_of(enemy), game._zoc(enemy)
            capture = {h: bit for h, bit in game.movement_phase._city_bits if game.control.get(h) != side}
            for dest in list(game.movement_phase._reach(game, unit).cost)[::7]:
                away = game.board.distances[dest]
                assert (movement.preferred_path(start, dest, rules, enemy_units, enemy_zoc, capture, away)
                        == movement.preferred_path(start, dest, rules, enemy_units, enemy_zoc, capture))
                compared += 1
    assert compared > 100
