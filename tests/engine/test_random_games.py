"""Random games (hypothesis chooses the seeds): invariants after every action, and replays.

After every action: no hex holds two units unless a unit must move off (ruling 1) - and never at a
phase start; no unit stands on an enemy; strengths are full or half; eliminated units are in the pool;
every counter is on the map or in the pool; the victory points add up; a non-terminal game offers a
legal action and (a sample of) the listed legal actions are accepted by apply on a clone. Replaying
the same seed and actions gives the same state hash.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.events import PhaseStarted, UnitEliminated, UnitReplaced

from bfm_helpers import BOARD, COUNTERS, play_random, replay

SAMPLED_ACTIONS = 8


def check_invariants(game: engine.Game, action, events, rnd: random.Random, roster: set[str]) -> None:
    state = game.to_json()
    hexes = [u["hex"] for u in state["units"]]
    decision = game.pending_decision()
    stacked = decision and decision.get("stage") == "unstack"
    if not stacked:
        assert len(hexes) == len(set(hexes)), f"two units in a hex after {action}"
    if any(isinstance(e, PhaseStarted) for e in events):
        assert len(hexes) == len(set(hexes)), "a phase ended with two units in a hex"
    by_hex: dict[str, set[str]] = {}
    for u in state["units"]:
        by_hex.setdefault(u["hex"], set()).add(COUNTERS[u["id"]].side)
        assert u["strength"] in ("full", "half")
        assert u["hex"] in BOARD.index
    assert all(len(sides) == 1 for sides in by_hex.values()), "a unit stands on an enemy"
    pool = {p["id"] for p in state["pool"]}
    on_map = {u["id"] for u in state["units"]}
    assert not pool & on_map
    if state["phase"] != "setup":  # during the set-up German counters wait to be placed
        assert pool | on_map == roster, "a counter left play"
    for event in events:
        if isinstance(event, UnitEliminated):
            replaced_again = any(isinstance(e, UnitReplaced) and e.unit == event.unit for e in events)
            assert event.unit in pool or replaced_again
    # victory points add up
    points = dict(state["elimination_points"])
    for hex_id, side in state["city_control"].items():
        points[side] += 20 if hex_id == "1103" else 5
    if state["capital_bonus"]:
        points["german"] += 10
    assert game.victory_points() == points
    if game.is_terminal():
        assert game.legal_actions() == [] and game.result() is not None
        return
    actions = game.legal_actions()
    assert actions, "a game in progress offers no action"
    assert game.current_player() in ("german", "soviet")
    for candidate in rnd.sample(actions, min(SAMPLED_ACTIONS, len(actions))):
        twin = game.clone()
        twin.apply(candidate)  # must not raise
    assert game.to_json() == state  # trying actions on clones left the game alone


@settings(max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_keep_the_invariants_and_replay(seed):
    rnd = random.Random(seed)
    checker = random.Random(seed + 1)
    game = engine.new_game("standard", seed=f"random-{seed}")
    roster = {u["id"] for u in game.to_json()["units"]} | {p["id"] for p in game.to_json()["pool"]}
    roster |= {u for u, c in COUNTERS.items() if c.side == "german"}
    log = play_random(game, rnd, on_step=lambda g, a, e: check_invariants(g, a, e, checker, roster))
    assert game.is_terminal()
    result = game.result()
    assert result.winner in ("german", "soviet", "draw")
    points = result.points
    assert result.winner == ("draw" if points["german"] == points["soviet"]
                             else max(points, key=points.get))
    again, events = replay(f"random-{seed}", [a for a, _ in log])
    assert events == [e for _, e in log]
    assert again.state_hash() == game.state_hash()


@settings(max_examples=5, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1), st.sampled_from(["points", "moscow"]))
def test_random_games_from_a_standard_set_up_end_with_a_result(seed, victory):
    game = engine.new_game("standard", options={"victory": victory}, seed=str(seed))
    game.apply(engine.StandardSetup())
    play_random(game, random.Random(seed))
    result = game.result()
    if victory == "moscow":
        assert result.winner == game.to_json()["city_control"]["1103"]
    assert set(result.points) == {"german", "soviet"}


@settings(max_examples=5, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_with_moves_onto_friendly_units(seed):
    """Ruling 1: moves onto a friendly unit are not listed but may be tried; when accepted, the unit
    underneath must move next and no phase ends with two units in a hex."""
    rnd = random.Random(seed)
    game = engine.new_game("standard", seed=f"stack-{seed}")
    game.apply(engine.StandardSetup())
    stacked_moves = 0
    for _ in range(3000):
        if game.is_terminal():
            break
        actions = game.legal_actions()
        movers = sorted({a.unit for a in actions if isinstance(a, engine.Move)})
        if game.phase.kind == "movement" and movers and game.pending_decision() is None and rnd.random() < 0.3:
            unit = rnd.choice(movers)
            state = game.to_json()
            side = COUNTERS[unit].side
            friends = [u["hex"] for u in state["units"] if COUNTERS[u["id"]].side == side and u["id"] != unit]
            target = rnd.choice(friends)
            before = game.state_hash()
            try:
                game.apply(engine.Move(unit, target))
            except engine.IllegalAction as error:
                assert error.reason in (engine.Reason.HEX_OCCUPIED, engine.Reason.PATH_BROKEN,
                                        engine.Reason.MOVEMENT_ALLOWANCE_EXCEEDED, engine.Reason.STOPPED_BY_ZOC,
                                        engine.Reason.NOT_ALONG_RAIL, engine.Reason.ENEMY_OCCUPIED)
                assert game.state_hash() == before
            else:
                stacked_moves += 1
                decision = game.pending_decision()
                assert decision["stage"] == "unstack" and decision["hex"] == target and decision["mover"] == unit
                assert {a.unit for a in game.legal_actions()} == {decision["unit"]}
                assert engine.EndPhase() not in game.legal_actions()
            continue
        events = game.apply(rnd.choice(actions))
        if any(isinstance(e, PhaseStarted) for e in events):
            hexes = [u["hex"] for u in game.to_json()["units"]]
            assert len(hexes) == len(set(hexes))
    assert game.is_terminal()
    assert stacked_moves > 0
