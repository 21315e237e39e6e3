"""Shared helpers of the engine rules tests: build positions compactly, check refusals, read events.

Units are written as short strings: ``"XLVII 0604"`` (full strength) or ``"16th 0705 half"``.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

import pytest

import engine
from engine import IllegalAction
from engine.events import Event

SCENARIO = engine.load_scenario("standard")
BOARD = SCENARIO.board
COUNTERS = SCENARIO.counters


# --- the map -----------------------------------------------------------------------------------------

def neighbours(hex_id: str) -> list[str]:
    """The neighbours of a hex, in the order N, NE, SE, S, SW, NW (those on the map)."""
    return [BOARD.ids[n] for n in BOARD.neighbours[BOARD.index[hex_id]]]


def distance(a: str, b: str) -> int:
    return BOARD.distance(BOARD.index[a], BOARD.index[b])


def is_forest(hex_id: str) -> bool:
    return BOARD.forest[BOARD.index[hex_id]]


def river_between(a: str, b: str) -> bool:
    return BOARD.river_between(BOARD.index[a], BOARD.index[b])


def zoc(*hexes: str) -> set[str]:
    """The zone of control of units standing in ``hexes``: every neighbouring hex."""
    return {n for h in hexes for n in neighbours(h)}


# --- positions ---------------------------------------------------------------------------------------

def unit_entry(spec: str | dict) -> dict:
    if isinstance(spec, dict):
        return spec
    parts = spec.split()
    assert len(parts) in (2, 3), spec
    return {"id": parts[0], "hex": parts[1], "strength": parts[2] if len(parts) == 3 else "full"}


def position_data(units: Iterable[str | dict], turn: int = 1, phase: str = "german_combat", **extra: Any) -> dict:
    data = {"scenario": "standard", "turn": turn, "phase": phase, "units": [unit_entry(u) for u in units]}
    data.update(extra)
    return data


def position(units: Iterable[str | dict], turn: int = 1, phase: str = "german_combat", **extra: Any) -> engine.Game:
    """A game in ``phase`` of ``turn`` with exactly these units on the map."""
    return engine.game_from_position(position_data(units, turn, phase, **extra))


def where(game: engine.Game, unit: str) -> str | None:
    for entry in game.to_json()["units"]:
        if entry["id"] == unit:
            return entry["hex"]
    return None


def strength_of(game: engine.Game, unit: str) -> str | None:
    """"full", "half", or None when the unit is not on the map."""
    for entry in game.to_json()["units"]:
        if entry["id"] == unit:
            return entry["strength"]
    return None


def pool_ids(game: engine.Game) -> set[str]:
    return {entry["id"] for entry in game.to_json()["pool"]}


def control(game: engine.Game, hex_id: str) -> str:
    return game.to_json()["city_control"][hex_id]


# --- actions and refusals ----------------------------------------------------------------------------

def legal(game: engine.Game, kind: type | None = None) -> list:
    actions = game.legal_actions()
    return [a for a in actions if kind is None or isinstance(a, kind)]


def destinations(game: engine.Game, unit: str) -> set[str]:
    """Hexes offered to ``unit`` by legal_actions."""
    return {a.to for a in game.legal_actions() if isinstance(a, engine.Move) and a.unit == unit}


def refuse(game: engine.Game, action: Any, reason: str, *fragments: str) -> IllegalAction:
    """Assert ``action`` is refused for ``reason`` with a sentence (containing ``fragments``) and that
    the state did not change."""
    before = game.state_hash()
    legal_before = [a.to_json() for a in game.legal_actions()]
    with pytest.raises(IllegalAction) as caught:
        game.apply(action)
    error = caught.value
    assert error.reason == reason, f"expected {reason}, got {error.reason}: {error.message}"
    assert isinstance(error.message, str) and len(error.message.split()) >= 3, error.message
    for fragment in fragments:
        assert fragment in error.message, f"{fragment!r} not in {error.message!r}"
    assert game.state_hash() == before, "a refused action changed the state"
    assert [a.to_json() for a in game.legal_actions()] == legal_before
    return error


def of_type(events: Iterable[Event], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def one(events: Iterable[Event], kind: type):
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]


def event_types(events: Iterable[Event]) -> list[str]:
    return [e.type for e in events]


def events_json(events: Iterable[Event]) -> str:
    return json.dumps([e.to_json() for e in events], sort_keys=True)


# --- combat ------------------------------------------------------------------------------------------

def declare_and_resolve(game: engine.Game, attackers: Iterable[str], defender: str) -> list[Event]:
    """Declare one battle, close the declarations, resolve it; return every event."""
    events = game.apply(engine.DeclareAttack(tuple(attackers), defender))
    if engine.CloseDeclarations() in game.legal_actions():  # they close by themselves otherwise (ruling 11)
        events += game.apply(engine.CloseDeclarations())
    events += game.apply(engine.ResolveBattle(defender))
    return events


def battle(game: engine.Game, events: Iterable[Event]):
    return one(events, engine.events.BattleResolved)


# --- the sequence of play ------------------------------------------------------------------------------

def pass_phase(game: engine.Game) -> list[Event]:
    """End the current phase doing nothing more (no attacks, no moves, no replacements)."""
    actions = game.legal_actions()
    for candidate in (engine.EndPhase(), engine.CloseDeclarations(), engine.DeclineAdvance()):
        if candidate in actions:
            return game.apply(candidate)
    raise AssertionError(f"cannot pass the {game.phase.name} phase: {actions[:5]}")


def advance_to(game: engine.Game, turn: int, phase: str, limit: int = 100) -> list[Event]:
    """Pass phases until ``phase`` of ``turn`` has begun; return every event on the way."""
    events: list[Event] = []
    for _ in range(limit):
        if (game.turn, game.phase.name) == (turn, phase) or game.is_terminal():
            return events
        events += pass_phase(game)
    raise AssertionError(f"did not reach {phase} of turn {turn}")


# --- random play ---------------------------------------------------------------------------------------

def play_random(game: engine.Game, rnd, max_actions: int = 10_000, on_step=None) -> list[tuple[dict, str]]:
    """Play random legal actions until the game ends (or ``max_actions``); return (action JSON, events JSON)
    per step. ``on_step(game, action, events)`` is called after each action."""
    log = []
    for _ in range(max_actions):
        if game.is_terminal():
            break
        actions = game.legal_actions()
        assert actions, f"no legal action in {game.phase.name} of turn {game.turn}"
        action = rnd.choice(actions)
        events = game.apply(action)
        log.append((action.to_json(), events_json(events)))
        if on_step:
            on_step(game, action, events)
    return log


def replay(seed: str, actions: list[dict], start: engine.Game | None = None) -> tuple[engine.Game, list[str]]:
    game = start if start is not None else engine.new_game("standard", seed=seed)
    return game, [events_json(game.apply(engine.action_from_json(a))) for a in actions]
