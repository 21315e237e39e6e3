"""Typhoon's rules engine for *Battle for Moscow* (GDW 1986): pure, deterministic, no I/O.

>>> import engine
>>> game = engine.new_game("standard", seed="readme")
>>> game.apply(engine.StandardSetup())[-1].type
'phase_started'
>>> game.current_player(), game.turn
('german', 1)

The same modules run compiled by mypyc when ``make engine`` has built them for these sources, and as Python
otherwise (``engine.BUILD`` says which; see :mod:`engine.builds`).
"""
# ruff: noqa: E402  (the build is chosen before any other engine module is imported)

from .builds import choose

#: Which build of the engine runs: "compiled" (mypyc) or "pure" (see engine/builds.py).
BUILD = choose(__path__)

from .actions import (
    ACTIONS, Action, Advance, Assault, BuyExtraSupply, BuyWinterGear, ChooseAttackerLoss, ChooseFrostbite,
    ChooseLosses, ChooseRetreat, CloseDeclarations, DeclareAttack, DeclineAdvance, DesignateTank, EndPhase, Move,
    PlaceUnit, Replace, Resign, ResolveBattle, Restore, RollAttrition, StandardSetup, TimeForfeit,
    action_from_json,
)
from .catalog import describe_options, describe_presets, describe_scenario
from .data import Scenario, load_scenario, scenario_ids
from .dice import dice_key, die_roll, drawn_entropy, keyed_die_roll, seed_commitment
from .errors import DataError, IllegalAction, Reason
from .events import EVENTS, Event, event_from_json
from .game import Game, new_game
from .options import OPTIONS, Options
from .position import PositionError, game_from_position
from .ruleset import RULESET, RULESETS
from .victory import Result

__all__ = [
    "ACTIONS", "BUILD", "EVENTS", "Action", "Advance", "Assault", "BuyExtraSupply", "BuyWinterGear", "ChooseAttackerLoss",
    "ChooseFrostbite", "ChooseLosses", "ChooseRetreat", "DesignateTank", "RollAttrition",
    "CloseDeclarations", "DataError", "DeclareAttack", "DeclineAdvance", "EndPhase", "Event", "Game",
    "IllegalAction", "Move", "OPTIONS", "Options", "PlaceUnit", "PositionError", "RULESET", "Reason", "Replace",
    "Resign", "RULESETS",
    "ResolveBattle", "Restore", "Result", "Scenario", "StandardSetup", "TimeForfeit", "action_from_json", "dice_key", "die_roll", "drawn_entropy", "keyed_die_roll",
    "describe_options", "describe_presets", "describe_scenario", "event_from_json", "game_from_position", "load_scenario", "new_game", "scenario_ids", "seed_commitment",
]
