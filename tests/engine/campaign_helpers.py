"""Helpers of the campaign, optional-rules and War of Attrition tests.

Units are written as short strings: ``"XLVII 0604"`` (full strength) or ``"16th 0705 half"``.
Positions default to the 14-turn campaign; pass ``scenario="standard"`` for the 7-turn game.
"""

from __future__ import annotations

from typing import Any, Iterable


import engine
from engine import EndPhase
from engine.events import DieRolled, Event, PhaseStarted

from bfm_helpers import (  # noqa: F401 (shared with the tests that import them from here)
    destinations, distance, is_forest, legal, neighbours, of_type, one, pool_ids, refuse, river_between,
    strength_of, unit_entry, where,
)

CAMPAIGN = engine.load_scenario("campaign")
STANDARD = engine.load_scenario("standard")
BOARD = CAMPAIGN.board

#: The preset of the War of Attrition variant, spelled out (the tests check the engine's preset against it).
WAR_OF_ATTRITION = {
    "war_of_attrition": True, "improved_first_shock": True, "stronger_defensive_line": True,
    "german_logistics": True, "soviet_replacement_edge": True, "harsher_winter": True,
    "early_first_shock": True, "variable_weather": True,
}

#: Every option that switches on, except the Advanced CRT (which cannot be played).
SWITCHES = tuple(WAR_OF_ATTRITION)


# --- the map -----------------------------------------------------------------------------------------


def adjacent(a: str, b: str) -> bool:
    return b in neighbours(a)


def is_fort(hex_id: str) -> bool:
    return BOARD.index[hex_id] in BOARD.forts


def is_rail(hex_id: str) -> bool:
    return BOARD.is_rail(BOARD.index[hex_id])


# --- positions ---------------------------------------------------------------------------------------


def position_data(units: Iterable[str | dict], turn: int, phase: str, options: dict | None = None,
                  scenario: str = "campaign", **extra: Any) -> dict:
    data: dict[str, Any] = {"scenario": scenario, "turn": turn, "phase": phase,
                            "units": [unit_entry(u) for u in units]}
    if options is not None:
        data["options"] = options
    data.update(extra)
    return data


def position(units: Iterable[str | dict], turn: int, phase: str, options: dict | None = None,
             scenario: str = "campaign", **extra: Any) -> engine.Game:
    """A game in ``phase`` of ``turn`` with exactly these units on the map."""
    return engine.game_from_position(position_data(units, turn, phase, options, scenario, **extra))


def points_left(game: engine.Game) -> int:
    """Replacement points still to spend in this replacement phase."""
    return game.to_json()["phase_state"]["points"]


def supply(game: engine.Game) -> dict[str, int]:
    return game.to_json()["supply"]


# --- actions, refusals and events --------------------------------------------------------------------


def rolls_for(events: Iterable[Event], purpose: str) -> list[int]:
    """Values of the dice rolled for a purpose containing ``purpose``."""
    return [e.value for e in events if isinstance(e, DieRolled) and purpose in e.purpose]


def phases_started(events: Iterable[Event]) -> list[str]:
    return [e.phase for e in events if isinstance(e, PhaseStarted)]


def end_phase(game: engine.Game) -> list[Event]:
    return game.apply(EndPhase())


# --- entering a phase --------------------------------------------------------------------------------

#: Units far from each other: each side has a unit in communication that can move, nobody can attack.
QUIET = ["VII 0206", "XLVII 0305", "3rd 1308", "5th 1208 half"]


def enter_german_turn(turn: int, options: dict | None = None, units: Iterable[str] = QUIET,
                      dice: Iterable[int] = (), scenario: str = "campaign", **extra: Any) -> tuple[engine.Game, list[Event]]:
    """Start at the Soviet movement phase of ``turn - 1`` and end it: the game runs into ``turn``.

    Returns the game and the events of the turn's start (up to the first decision)."""
    game = position(units, turn - 1, "soviet_movement", options, scenario, fixed_dice=list(dice), **extra)
    return game, end_phase(game)


def enter_soviet_replacement(turn: int, options: dict | None = None, units: Iterable[str] = QUIET,
                             dice: Iterable[int] = (), scenario: str = "campaign",
                             **extra: Any) -> tuple[engine.Game, list[Event]]:
    """Start at the German movement phase of ``turn`` and end it: the Soviet player's turn begins."""
    game = position(units, turn, "german_movement", options, scenario, fixed_dice=list(dice), **extra)
    return game, end_phase(game)
