"""Random games under every option, checking the invariants of the rules after every action.

Hypothesis draws the match seed and the players' choices; the games run in the 14-turn campaign (and
the 7-turn game) with no option, with the preset "all", with each option alone and with random
combinations. After every action:

* no hex holds two units, except the one hex where a unit has just ended its move on a friendly unit
  that must move next (ruling 1) - never at a phase end, never a unit on an enemy unit;
* every unit on the map is at full or half strength, and every counter is in exactly one place: on the
  map, in the replacement pool or out of play (the Tank before it is designated, the army it replaces);
* every eliminated unit is in the replacement pool;
* supply points and replacement points are never negative, Assault never exceeds the strength of a unit
  whose battle is still to be fought;
* the weather is the turn's printed weather, or (Variable Weather) that of the neighbouring turn;
* a sample of the listed legal actions (always including the one played) is accepted by ``apply`` on a
  clone, and trying them leaves the game itself unchanged;
* the state written by ``to_json`` reads back (``game_from_position``) to the same state and legal
  actions, at every phase start and pending battle decision;
* replaying the same seed and actions gives the same events and the same state hash at every step.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import engine
from engine.events import PhaseStarted, TankDesignated, UnitEliminated
from engine.selfplay import play_random_game

from campaign_helpers import SWITCHES

SAMPLE = 2  # legal actions tried on a clone at each step, besides the one played
MAX_ACTIONS = 4000

# No shrinking: a failing game is reported as drawn (shrinking a 1000-action game would take long).
FAST = settings(max_examples=1, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
                suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
CHOOSERS = st.integers(min_value=0, max_value=2**32 - 1)


def check_position(game: engine.Game, out_of_play: set[str]) -> None:
    state = game.to_json()
    scenario = game.scenario
    ps = state["phase_state"]
    hexes = Counter(u["hex"] for u in state["units"])
    shared = [h for h, n in hexes.items() if n > 1]
    if ps["stack"] is None:
        assert not shared, f"two units in {shared} with no move under way"
    else:
        assert shared == [ps["stack"]["hex"]] and hexes[shared[0]] == 2, shared
        assert game.phase.kind == "movement"
        sides = {game.side_of(u["id"]) for u in state["units"] if u["hex"] == shared[0]}
        assert sides == {game.phase.side}, "a unit on an enemy unit"
    on_map = {u["id"] for u in state["units"]}
    assert len(on_map) == len(state["units"])
    for entry in state["units"]:
        assert entry["strength"] in ("full", "half")
        counter = game.counters[entry["id"]]
        assert game.strength(entry["id"]) == (counter.full if entry["strength"] == "full" else counter.half)
    pool = {p["id"] for p in state["pool"]}
    assert not on_map & pool and not on_map & out_of_play and not pool & out_of_play
    if state["phase"] != "setup":
        assert on_map | pool | out_of_play == set(game.counters)
    assert min(state["supply"].values()) >= 0
    assert ps["points"] >= 0 and ps["frostbite"] >= 0 and ps["winter_gear"] >= 0
    assert ps["extra_supply"] <= scenario.rules.extra_supply_max
    waiting = {a for battle in ps["battles"] for a in battle["attackers"]}  # battles not yet fought
    for unit, points in ps["assault"].items():
        assert 0 < points and unit in ps["attacking"]
        # bought up to the unit's strength; its own battle may then reduce it (an AL), after which the
        # points are spent
        assert points <= game.strength(unit) or unit not in waiting
    if not game.options.war_of_attrition:
        assert state["supply"] == {"german": 0, "soviet": 0}
    printed = scenario.turns[state["turn"]]
    allowed = {printed.weather}
    if game.options.variable_weather and printed.variable:
        neighbour = state["turn"] + (1 if printed.variable == "early" else -1)
        if neighbour in scenario.turns:
            allowed.add(scenario.turns[neighbour].weather)
    assert state["weather"] in allowed
    if ps["frostbite"] and not ps["attrition_rolls"]:
        assert all(a.type == "choose_frostbite" for a in game.legal_actions())


def check_legal_actions(game: engine.Game, actions: list, played, chooser: random.Random) -> None:
    before = game.state_hash()
    tried = chooser.sample(actions, min(SAMPLE, len(actions))) + [played]
    for action in tried:
        twin = game.clone()
        twin.apply(action)  # raises IllegalAction if a listed action is refused
    assert game.state_hash() == before, "trying actions on a clone changed the game"


def play_and_check(scenario: str, options: dict, seed: str, choices: int) -> tuple[list, list, list, engine.Game]:
    game = engine.new_game(scenario, options, seed=seed)
    chooser = random.Random(choices)
    out_of_play = {"tank"}
    played, hashes, events_json = [], [], []
    check_position(game, out_of_play)
    while not game.is_terminal():
        actions = game.legal_actions()
        assert actions, f"no legal action in {game.phase.name} of turn {game.turn}"
        action = chooser.choice([a for a in actions if a.type != "resign"])
        check_legal_actions(game, actions, action, chooser)
        events = game.apply(action)
        for event in events:
            if isinstance(event, TankDesignated):
                out_of_play.discard(event.tank)
                out_of_play.add(event.unit)
            if isinstance(event, UnitEliminated):
                assert event.unit in {p["id"] for p in game.to_json()["pool"]}, f"{event.unit} not in the pool"
                assert event.points_to is None or event.cause != "frostbite"
            if isinstance(event, PhaseStarted):
                assert event.turn == game.turn or event.turn == game.turn - 1 or game.is_terminal()
        if any(isinstance(event, PhaseStarted) for event in events) or game.ps.pending:
            copy = engine.game_from_position(game.to_json())  # the position format holds the whole state
            assert copy.state_hash() == game.state_hash()
            assert copy.legal_actions() == game.legal_actions()
        check_position(game, out_of_play)
        played.append(action)
        hashes.append(game.state_hash())
        events_json.append([e.to_json() for e in events])
        assert len(played) < MAX_ACTIONS, "the game does not end"
    result = game.result()
    assert game.turn == game.scenario.last_turn or result.reason.endswith("resigned")
    assert result.points == game.victory_points()
    return played, hashes, events_json, game


def replay(scenario: str, options: dict, seed: str, played: list) -> tuple[list, list]:
    game = engine.new_game(scenario, options, seed=seed)
    hashes, events_json = [], []
    for action in played:
        events_json.append([e.to_json() for e in game.apply(engine.action_from_json(action.to_json()))])
        hashes.append(game.state_hash())
    return hashes, events_json


def run(scenario: str, options: dict, seed: str, choices: int) -> engine.Game:
    played, hashes, events_json, game = play_and_check(scenario, options, seed, choices)
    again_hashes, again_events = replay(scenario, options, seed, played)
    assert again_hashes == hashes
    assert again_events == events_json
    return game


# --- the campaign, the preset "all", each option alone, random combinations --------------------------

@FAST
@given(seed=SEEDS, choices=CHOOSERS)
def test_invariants_campaign_without_options(seed, choices):
    game = run("campaign", {}, seed, choices)
    assert game.turn == 14


@pytest.mark.parametrize("scenario", ["campaign", "standard"])
@settings(FAST, max_examples=2)
@given(seed=SEEDS, choices=CHOOSERS)
def test_invariants_preset_all(scenario, seed, choices):
    run(scenario, {"preset": "all"}, seed, choices)


@pytest.mark.parametrize("option", [*SWITCHES, "soviet_replacements=4", "soviet_replacements=3", "victory=moscow"])
@FAST
@given(seed=SEEDS, choices=CHOOSERS)
def test_invariants_each_option_alone(option, seed, choices):
    name, _, value = option.partition("=")
    options = {name: (int(value) if value.isdigit() else value) if value else True}
    run("campaign", options, f"{option}-{seed}", choices + zlib.crc32(option.encode()))


COMBINATIONS = st.fixed_dictionaries(
    {name: st.booleans() for name in SWITCHES} | {"soviet_replacements": st.sampled_from([5, 4, 3])})


@settings(FAST, max_examples=5)
@given(scenario=st.sampled_from(["campaign", "standard"]), options=COMBINATIONS, seed=SEEDS, choices=CHOOSERS)
def test_invariants_random_combinations_of_options(scenario, options, seed, choices):
    run(scenario, options, seed, choices)


def test_same_seed_and_choices_give_the_same_game_under_all_options():
    first, _ = play_random_game("same", "campaign", {"preset": "all"})
    second, second_game = play_random_game("same", "campaign", {"preset": "all"})
    assert first == second
    assert second_game.turn == 14 and second_game.is_terminal()
    other, _ = play_random_game("other", "campaign", {"preset": "all"})
    assert other.state_hash != first.state_hash
