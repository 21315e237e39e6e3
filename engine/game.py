"""The game: a position you ask for legal actions and apply actions to.

>>> game = new_game("standard", seed="doc")
>>> game.current_player(), game.phase.name
('german', 'setup')
>>> events = game.apply(StandardSetup())
>>> game.turn, game.phase.name
(1, 'german_panzer_movement')
>>> move = next(a for a in game.legal_actions() if isinstance(a, Move))
>>> [e.type for e in game.apply(move)]
['unit_moved']

The engine is pure: no clock, no I/O, no global randomness. Die rolls come from the seed (see
:mod:`engine.dice`), so the same seed and actions give the same events and the same state.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from fractions import Fraction
from hashlib import sha256
from typing import Any, Iterable

from . import combat, movement, retreat
from .actions import (
    Action, Advance, ChooseAttackerLoss, ChooseLosses, ChooseRetreat, CloseDeclarations, DeclareAttack,
    DeclineAdvance, EndPhase, Move, PlaceUnit, Replace, Resign, ResolveBattle, Restore, StandardSetup,
    action_from_json,
)
from .data import SIDES, CounterInfo, Scenario, load_scenario
from .dice import die_roll
from .errors import IllegalAction, Reason
from .events import (
    AttackDeclared, BattleResolved, CapitalOccupied, CityCaptured, DeclarationsClosed, DieRolled, Event,
    GameEnded, PhaseStarted, ReplacementPointsReceived, StepLost, TurnStarted, UnitAdvanced,
    UnitEliminated, UnitMoved, UnitPlaced, UnitReplaced, UnitRestored, UnitRetreated,
)
from .options import Options
from .sequence import PHASES_BY_NAME, SETUP, Phase, other, turn_phases
from .victory import Result, final_result, victory_points
from .zones import communication_region, in_communication, zone_of_control

STATE_FORMAT = 1


@dataclass
class Pending:
    """A battle waiting for the attacker's decision: ``stage`` now, ``then`` the stages after it."""

    stage: str  # "exchange_losses" | "attacker_loss" | "retreat" | "advance"
    defender: str
    attackers: tuple[str, ...]
    hex: int
    required: int = 0
    then: tuple[str, ...] = ()

    def to_json(self, ids: tuple[str, ...]) -> dict[str, Any]:
        return {"stage": self.stage, "defender": self.defender, "attackers": list(self.attackers),
                "hex": ids[self.hex], "required": self.required, "then": list(self.then)}


@dataclass
class PhaseState:
    """What the current phase remembers between actions."""

    moved: set[str] = field(default_factory=set)
    rail_eligible: frozenset[str] = frozenset()
    points: int = 0
    replaced: set[str] = field(default_factory=set)
    declaring: bool = True
    battles: dict[str, list[str]] = field(default_factory=dict)  # unresolved, in declaration order
    attacking: set[str] = field(default_factory=set)
    stack: tuple[int, str] | None = None  # (hex, unit that moved onto a friendly unit)
    pending: Pending | None = None


def new_game(scenario: str | Scenario = "standard", options: Options | dict | None = None, seed: str = "",
             fixed_dice: Iterable[int] = ()) -> "Game":
    """A game at its start: the Soviets set up, the German player to place his counters."""
    if isinstance(scenario, str):
        scenario = load_scenario(scenario)
    if not isinstance(options, Options):
        options = Options.from_json(options)
    return Game(scenario, options, seed, tuple(fixed_dice))


class Game:
    """A Battle for Moscow position, with the rules to move it on.

    Query it with :meth:`legal_actions`, :meth:`current_player`, :meth:`is_terminal`, :meth:`result`;
    change it with :meth:`apply`, which returns the events the action caused.
    """

    def __init__(self, scenario: Scenario, options: Options, seed: str, fixed_dice: tuple[int, ...] = ()) -> None:
        self.scenario = scenario
        self.board = scenario.board
        self.counters: dict[str, CounterInfo] = scenario.counters
        self.options = options
        self.seed = seed
        self.fixed_dice = tuple(fixed_dice)
        self.rolls = 0
        self.turn = scenario.first_turn
        self.phase: Phase = SETUP
        self.hex_of: dict[str, int] = {}
        self.at: dict[int, str] = {}
        self.reduced: set[str] = set()
        self.pool: dict[str, int] = {entry.unit: entry.available_from for entry in scenario.pool}
        self.control: dict[int, str] = {}
        self.elimination_points = {side: 0 for side in SIDES}
        self.capital_bonus = False
        self.outcome: Result | None = None
        self.ps = PhaseState()
        self._events: list[Event] = []
        self._positions = 0
        self._zoc_cache: dict[str, tuple[int, frozenset[int]]] = {}
        self._comm_cache: dict[str, tuple[int, frozenset[int]]] = {}
        self._reach_cache: dict[str, movement.Reach] = {}
        self._moves_cache: dict[str, list[tuple[int, Move]]] = {}
        self._units_cache: dict[str, tuple[int, dict[int, str]]] = {}
        self._legal_cache: list[Action] | None = None
        for hex_index, unit in scenario.soviet_setup.items():
            self._put(unit, hex_index)
            if not scenario.soviet_setup_full:
                self.reduced.add(unit)

    # --- queries -----------------------------------------------------------------------------------

    def current_player(self) -> str | None:
        """The side to act, or None when the game is over."""
        return None if self.outcome else self.phase.side

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def result(self) -> Result | None:
        return self.outcome

    def returns(self) -> dict[str, float]:
        """+1 to the winner and -1 to the loser (0 each for a draw or an unfinished game)."""
        if not self.outcome or self.outcome.winner == "draw":
            return {side: 0.0 for side in SIDES}
        return {side: 1.0 if side == self.outcome.winner else -1.0 for side in SIDES}

    def victory_points(self) -> dict[str, int]:
        return victory_points(self.scenario, self.control, self.elimination_points, self.capital_bonus)

    def side_of(self, unit: str) -> str:
        return self.counters[unit].side

    def strength(self, unit: str) -> int:
        return self.counters[unit].strength(unit not in self.reduced)

    def unit_at(self, hex_id: str) -> str | None:
        return self.at.get(self.board.index[hex_id])

    def weather(self):
        return self.scenario.weather[self.scenario.turns[self.turn].weather]

    def pending_decision(self) -> dict[str, Any] | None:
        """The decision the player to act must make before anything else, if any."""
        if self.ps.pending:
            return self.ps.pending.to_json(self.board.ids)
        if self.ps.stack:
            hex_index, mover = self.ps.stack
            return {"stage": "unstack", "hex": self.board.ids[hex_index], "unit": self.at[hex_index],
                    "mover": mover}
        return None

    # --- legal actions -----------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to act (pending decisions first and alone)."""
        if self.outcome:
            return []
        if self._legal_cache is None:
            self._legal_cache = self._list_actions()
        return list(self._legal_cache)

    def _list_actions(self) -> list[Action]:
        kind = self.phase.kind
        if self.ps.pending:
            return self._stage_choices(self.ps.pending)
        if kind == "setup":
            return self._setup_actions()
        if kind == "movement":
            return self._movement_actions()
        if kind == "combat":
            return self._combat_actions()
        if kind == "replacement":
            return self._replacement_actions()
        raise AssertionError(kind)

    # --- applying actions --------------------------------------------------------------------------

    def apply(self, action: Action | dict) -> list[Event]:
        """Apply an action of the player to act and return the events it caused.

        An illegal or malformed action raises :class:`IllegalAction` and leaves the game unchanged.
        """
        if isinstance(action, dict):
            action = action_from_json(action)
        if not isinstance(action, Action):
            raise IllegalAction(Reason.MALFORMED_ACTION, f"not an action: {action!r}")
        if self.outcome:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        execute = self._check(action)
        self._events = []
        execute()
        self._settle()
        self._legal_cache = None
        events, self._events = self._events, []
        return events

    def _check(self, action: Action):
        """Validate ``action`` completely; return the function that carries it out."""
        if isinstance(action, Resign):
            if action.side not in SIDES:
                raise IllegalAction(Reason.MALFORMED_ACTION, f"{action.side!r} is not a side")
            return lambda: self._finish(Result(other(action.side), f"{action.side} resigned",
                                               self.victory_points()))
        pending = self.ps.pending
        if pending:
            if isinstance(action, ChooseLosses):
                action = next((c for c in self._stage_choices(pending)
                               if isinstance(c, ChooseLosses) and sorted(c.units) == sorted(action.units)), action)
            if action not in self._stage_choices(pending):
                raise IllegalAction(Reason.DECISION_PENDING if not _answers(action, pending.stage)
                                    else Reason.NOT_A_CHOICE, self._pending_refusal(action, pending))
            return lambda: self._decide(pending, action)
        kind = self.phase.kind
        if kind == "setup":
            return self._check_setup(action)
        if kind == "movement":
            return self._check_movement(action)
        if kind == "combat":
            return self._check_combat(action)
        return self._check_replacement(action)

    def _pending_refusal(self, action: Action, pending: Pending) -> str:
        wanted = {"exchange_losses": "choose_losses", "attacker_loss": "choose_attacker_loss",
                  "retreat": "choose_retreat", "advance": "advance or decline_advance"}[pending.stage]
        if _answers(action, pending.stage):
            return (f"{action.type} is not one of the choices for the battle against {pending.defender}; "
                    f"see the legal actions")
        return (f"the battle against {pending.defender} waits for a {wanted} decision, "
                f"not {action.type}")

    # --- positions ---------------------------------------------------------------------------------

    def _put(self, unit: str, hex_index: int) -> None:
        self.hex_of[unit] = hex_index
        self.at[hex_index] = unit
        self._positions += 1

    def _lift(self, unit: str) -> int:
        hex_index = self.hex_of.pop(unit)
        stack = self.ps.stack
        if stack and stack[0] == hex_index:
            self.ps.stack = None
            if self.at[hex_index] == unit:  # the unit underneath leaves; the one that moved on stays
                self.at[hex_index] = stack[1]
        else:
            del self.at[hex_index]
        self._positions += 1
        return hex_index

    def _zoc(self, side: str) -> frozenset[int]:
        """The zone of control of ``side``'s units."""
        cached = self._zoc_cache.get(side)
        if cached and cached[0] == self._positions:
            return cached[1]
        zone = zone_of_control(self.board, (h for u, h in self.hex_of.items() if self.counters[u].side == side))
        self._zoc_cache[side] = (self._positions, zone)
        return zone

    def _units_of(self, side: str) -> dict[int, str]:
        """Hex → unit, for ``side``'s units on the map."""
        cached = self._units_cache.get(side)
        if cached and cached[0] == self._positions:
            return cached[1]
        counters = self.counters
        units = {h: u for h, u in self.at.items() if counters[u].side == side}
        self._units_cache[side] = (self._positions, units)
        return units

    def _enter_city(self, unit: str, hex_index: int) -> None:
        side = self.counters[unit].side
        if hex_index in self.board.cities and self.control.get(hex_index) != side:
            self.control[hex_index] = side
            self._emit(CityCaptured(self.board.cities[hex_index], self.board.ids[hex_index], side))

    def _emit(self, event: Event) -> None:
        self._events.append(event)

    def _roll(self, purpose: str) -> int:
        index = self.rolls
        value = self.fixed_dice[index] if index < len(self.fixed_dice) else die_roll(self.seed, index)
        self.rolls += 1
        self._emit(DieRolled(index, value, purpose))
        return value

    def _hex(self, hex_id: str) -> int:
        index = self.board.index.get(hex_id) if isinstance(hex_id, str) else None
        if index is None:
            raise IllegalAction(Reason.UNKNOWN_HEX, f"{hex_id!r} is not a hex of the map")
        return index

    def _own_unit(self, unit: str, on_map: bool = True) -> CounterInfo:
        counter = self.counters.get(unit)
        if counter is None:
            raise IllegalAction(Reason.UNKNOWN_UNIT, f"there is no unit {unit!r}")
        if counter.side != self.phase.side:
            raise IllegalAction(Reason.NOT_YOUR_UNIT, f"unit {unit} is {counter.side}, and this is the "
                                                      f"{self.phase.side} player's {self.phase.name} phase")
        if on_map and unit not in self.hex_of:
            raise IllegalAction(Reason.UNIT_NOT_ON_MAP, f"unit {unit} is not on the map")
        return counter

    def _wrong_phase(self, action: Action) -> IllegalAction:
        return IllegalAction(Reason.WRONG_PHASE, f"{action.type} is not an action of the {self.phase.name} phase")

    # --- set-up ------------------------------------------------------------------------------------

    def _unplaced(self) -> list[str]:
        return [u for u in self.scenario.units_of("german") if u not in self.hex_of and u not in self.pool]

    def _setup_actions(self) -> list[Action]:
        unplaced = self._unplaced()
        actions: list[Action] = []
        if len(unplaced) == len(self.scenario.units_of("german")):
            actions.append(StandardSetup())
        free = [h for h in self.board.setup_hexes["german"] if h not in self.at]
        actions.extend(PlaceUnit(unplaced[0], self.board.ids[h]) for h in free)
        return actions

    def _check_setup(self, action: Action):
        if isinstance(action, StandardSetup):
            if len(self._unplaced()) != len(self.scenario.units_of("german")):
                raise IllegalAction(Reason.SETUP_STARTED,
                                    "the standard set-up places every counter; some are already placed")
            return self._standard_setup
        if isinstance(action, PlaceUnit):
            self._own_unit(action.unit, on_map=False)
            hex_index = self._hex(action.hex)
            if action.unit not in self._unplaced():
                raise IllegalAction(Reason.ALREADY_PLACED, f"unit {action.unit} is already placed")
            if self.board.setup_side[hex_index] != "german":
                raise IllegalAction(Reason.NOT_A_SETUP_HEX, f"{action.hex} is not a German set-up hex (cross)")
            if hex_index in self.at:
                raise IllegalAction(Reason.HEX_OCCUPIED, f"{action.hex} already holds unit {self.at[hex_index]}")
            return lambda: self._place(action.unit, hex_index)
        raise self._wrong_phase(action)

    def _standard_setup(self) -> None:
        for hex_index, unit in sorted(self.scenario.german_standard.items()):
            self._place(unit, hex_index)

    def _place(self, unit: str, hex_index: int) -> None:
        self._put(unit, hex_index)
        if not self.scenario.german_setup_full:
            self.reduced.add(unit)
        self._emit(UnitPlaced(unit, self.board.ids[hex_index]))
        if not self._unplaced():
            self._begin_play()

    def _begin_play(self) -> None:
        """Set-up done: initial city control, then the first turn."""
        for hex_index in self.board.cities:
            occupant = self.at.get(hex_index)
            self.control[hex_index] = "german" if occupant and self.side_of(occupant) == "german" else "soviet"
        self._start_turn(self.scenario.first_turn)

    # --- sequence of play --------------------------------------------------------------------------

    def _start_turn(self, turn: int) -> None:
        self.turn = turn
        info = self.scenario.turns[turn]
        self._emit(TurnStarted(turn, info.dates, info.weather))
        self._start_phase(turn_phases()[0])

    def _start_phase(self, phase: Phase) -> None:
        self.phase = phase
        self._emit(PhaseStarted(self.turn, phase.name, phase.side))
        self._reset_phase_state()
        if phase.kind == "replacement" and self.ps.points:
            self._emit(ReplacementPointsReceived(phase.side, self.ps.points))

    def _reset_phase_state(self) -> None:
        phase = self.phase
        self.ps = PhaseState()
        self._reach_cache = {}
        self._moves_cache = {}
        if phase.kind == "replacement":
            self.ps.points = self.scenario.turns[self.turn].replacements[phase.side]
        if phase.movers == "rail":
            self.ps.rail_eligible = frozenset(
                u for u, h in self.hex_of.items() if self.side_of(u) == phase.side and self.board.is_rail(h))

    def _next_phase(self) -> None:
        phases = turn_phases()
        index = phases.index(self.phase) + 1
        if index < len(phases):
            self._start_phase(phases[index])
            return
        self._end_turn()

    def _end_turn(self) -> None:
        capital = self.board.capital
        occupant = self.at.get(capital)
        if not self.capital_bonus and occupant and self.side_of(occupant) == "german":
            self.capital_bonus = True
            self._emit(CapitalOccupied("german", self.scenario.victory.capital_occupation_bonus))
        if self.turn >= self.scenario.last_turn:
            points = self.victory_points()
            self._finish(final_result(self.scenario, self.options.victory, self.control, points))
            return
        self._start_turn(self.turn + 1)

    def _finish(self, result: Result) -> None:
        self.outcome = result
        self._emit(GameEnded(result.winner, result.reason, result.points["german"], result.points["soviet"]))

    def _settle(self) -> None:
        """Move on past every phase in which the player to act has nothing left to decide."""
        while not self.outcome and not self.ps.pending and not self.ps.stack:
            kind = self.phase.kind
            if kind == "replacement":
                done = self.ps.points == 0 or not self._replacement_actions()
            elif kind == "movement":
                done = not self._can_move()
            elif kind == "combat":
                if self.ps.declaring and not self._possible_attacks():
                    if self.ps.battles:
                        self._close_declarations()
                        continue
                    done = True
                else:
                    done = not self.ps.declaring and not self.ps.battles
            else:
                done = False
            if not done:
                return
            self._next_phase()

    # --- movement ----------------------------------------------------------------------------------

    def _movers(self) -> list[str]:
        """Units that may still move in this phase."""
        if self.ps.stack:
            return [self.at[self.ps.stack[0]]]
        side, movers, moved = self.phase.side, self.phase.movers, self.ps.moved
        hex_of, counters = self.hex_of, self.counters
        if movers == "rail":
            return [u for u in counters if u in self.ps.rail_eligible and u not in moved and u in hex_of]
        return [u for u, c in counters.items()
                if c.side == side and u in hex_of and u not in moved and (movers == "all" or c.type == "panzer")]

    def _move_rules(self, unit: str) -> movement.MoveRules:
        counter = self.counters[unit]
        weather = self.weather()
        allowance = counter.ma + weather.ma_modifier.get(counter.type, 0)
        if self.phase.movers == "rail":
            return movement.MoveRules(allowance, self.board.rail_links, None, "rail")
        if weather.max_hexes is not None:
            return movement.MoveRules(min(allowance, weather.max_hexes), self.board.neighbours, None, "mud")
        return movement.MoveRules(allowance, self.board.neighbours, self.board.move_cost, "normal")

    def _reach(self, unit: str) -> movement.Reach:
        """Where ``unit`` can go this phase; enemies do not move during it, so this is computed once."""
        cached = self._reach_cache.get(unit)
        if cached is None or cached.start != self.hex_of[unit]:
            enemy = other(self.side_of(unit))
            cached = movement.reach(self.hex_of[unit], self._move_rules(unit), self._units_of(enemy), self._zoc(enemy))
            self._reach_cache[unit] = cached
        return cached

    def _moves(self, unit: str) -> list[tuple[int, Move]]:
        """(destination, action) for every hex ``unit`` can reach this phase, occupied or not."""
        moves = self._moves_cache.get(unit)
        if moves is None:
            ids = self.board.ids
            moves = [(h, Move(unit, ids[h])) for h in self._reach(unit).cost]
            self._moves_cache[unit] = moves
        return moves

    def _can_move(self) -> bool:
        at = self.at
        return any(h not in at for u in self._movers() for h, _ in self._moves(u))

    def _movement_actions(self) -> list[Action]:
        at = self.at
        actions: list[Action] = [m for u in self._movers() for h, m in self._moves(u) if h not in at]
        if not self.ps.stack:
            actions.append(EndPhase())
        return actions

    def _check_movement(self, action: Action):
        if isinstance(action, EndPhase):
            if self.ps.stack:
                hex_index, mover = self.ps.stack
                raise IllegalAction(Reason.STACKED_AT_PHASE_END,
                                    f"the phase cannot end while {self.board.ids[hex_index]} holds two units "
                                    f"({self.at[hex_index]} and {mover}); only one unit may be in a hex at "
                                    f"the end of the phase")
            return self._next_phase
        if not isinstance(action, Move):
            raise self._wrong_phase(action)
        counter = self._own_unit(action.unit)
        unit = action.unit
        dest = self._hex(action.to)
        if self.ps.stack and unit != self.at[self.ps.stack[0]]:
            hex_index, mover = self.ps.stack
            raise IllegalAction(Reason.MUST_MOVE_STACKED_UNIT,
                                f"unit {mover} ended its move on unit {self.at[hex_index]} in "
                                f"{self.board.ids[hex_index]}, so {self.at[hex_index]} must move next")
        if unit in self.ps.moved:
            raise IllegalAction(Reason.ALREADY_MOVED, f"unit {unit} has already moved in this phase")
        if unit not in self._movers():
            if self.phase.movers == "panzer":
                why = f"only panzers move in the panzer movement phase and {unit} is {counter.type}"
            elif self.phase.movers == "rail":
                why = f"only units that began the rail movement phase on a railroad hex may move, and {unit} did not"
            else:
                why = f"unit {unit} may not move now"
            raise IllegalAction(Reason.CANNOT_MOVE_THIS_PHASE, why)
        start = self.hex_of[unit]
        rules = self._move_rules(unit)
        enemy = other(counter.side)
        enemy_units, enemy_zoc = self._units_of(enemy), self._zoc(enemy)
        if action.path is not None:
            path = tuple(self._hex(h) for h in action.path)
            if not path or path[-1] != dest:
                raise IllegalAction(Reason.PATH_BROKEN, f"the path of unit {unit} must end at {action.to}")
            movement.check_path(unit, start, path, rules, enemy_units, enemy_zoc, self.board)
        else:
            if dest == start:
                raise IllegalAction(Reason.PATH_BROKEN, f"unit {unit} is already in {action.to}")
            if dest not in self._reach(unit).cost:
                self._explain_unreachable(unit, start, dest, rules, enemy_units, enemy_zoc)
            reach = self._reach(unit)
            capture = {h: 1 << i for i, h in enumerate(sorted(self.board.cities))
                       if self.control.get(h) != counter.side and h in reach.cost}
            if capture:
                path = movement.preferred_path(start, dest, rules, enemy_units, enemy_zoc, capture)
            else:
                path = reach.path_to(dest)
        occupant = self.at.get(dest)
        if occupant is not None:
            self._check_stacking(unit, start, dest, occupant)
        return lambda: self._move(unit, start, path)

    def _explain_unreachable(self, unit: str, start: int, dest: int, rules: movement.MoveRules,
                             enemy_units: dict[int, str], enemy_zoc: frozenset[int]) -> None:
        """Refuse a destination out of reach, naming the rule that the cheapest attempt breaks."""
        name = self.board.ids[dest]
        if dest in enemy_units:
            raise IllegalAction(Reason.ENEMY_OCCUPIED, f"unit {unit} cannot enter {name}: it holds the enemy "
                                                       f"unit {enemy_units[dest]}")
        unlimited = movement.MoveRules(len(self.board.ids) * 2, rules.neighbours, rules.costs, rules.kind)
        path = movement.preferred_path(start, dest, unlimited, enemy_units, frozenset(), {})
        if path is not None:
            movement.check_path(unit, start, path, rules, enemy_units, enemy_zoc, self.board)
        how = "along rail lines " if rules.kind == "rail" else ""
        raise IllegalAction(Reason.PATH_BROKEN, f"unit {unit} has no path {how}to {name} in this phase")

    def _check_stacking(self, unit: str, start: int, dest: int, occupant: str) -> None:
        ids = self.board.ids
        if self.ps.stack:
            raise IllegalAction(Reason.HEX_OCCUPIED, f"{ids[dest]} holds unit {occupant}: the units already "
                                                     f"sharing {ids[self.ps.stack[0]]} must be separated first")
        if occupant in self.ps.moved or occupant not in self._movers():
            raise IllegalAction(Reason.HEX_OCCUPIED,
                                f"unit {unit} cannot end its move in {ids[dest]}: unit {occupant} is there and "
                                f"cannot move away in this phase, and only one unit may be in a hex at the end "
                                f"of the phase")
        exits = [h for h in self._reach(occupant).cost if h not in self.at or h == start]
        if not exits:
            raise IllegalAction(Reason.HEX_OCCUPIED,
                                f"unit {unit} cannot end its move in {ids[dest]}: unit {occupant} there would "
                                f"have no empty hex to move to")

    def _move(self, unit: str, start: int, path: tuple[int, ...]) -> None:
        dest = path[-1]
        self._lift(unit)
        if dest in self.at:
            self.ps.stack = (dest, unit)
            self.hex_of[unit] = dest
            self._positions += 1
        else:
            self._put(unit, dest)
        self.ps.moved.add(unit)
        ids = self.board.ids
        self._emit(UnitMoved(unit, ids[start], tuple(ids[h] for h in path)))
        for hex_index in path:
            self._enter_city(unit, hex_index)

    # --- combat ------------------------------------------------------------------------------------

    def _possible_attacks(self) -> list[tuple[str, str]]:
        """(attacker, defender) pairs that could still be declared."""
        side = self.phase.side
        at, counters, neighbours = self.at, self.counters, self.board.neighbours
        ps = self.ps
        hex_of = self.hex_of
        pairs = []
        for unit, counter in counters.items():
            if counter.side != side or unit not in hex_of or unit in ps.attacking:
                continue
            for n in neighbours[hex_of[unit]]:
                enemy = at.get(n)
                if enemy is not None and counters[enemy].side != side:
                    pairs.append((unit, enemy))
        return pairs

    def _combat_actions(self) -> list[Action]:
        if self.ps.declaring:
            actions: list[Action] = [DeclareAttack((a,), d) for a, d in self._possible_attacks()]
            actions.append(CloseDeclarations())
            return actions
        return [ResolveBattle(d) for d in self.ps.battles]

    def _check_combat(self, action: Action):
        ps = self.ps
        if isinstance(action, DeclareAttack):
            if not ps.declaring:
                raise IllegalAction(Reason.DECLARATIONS_CLOSED, "battles can no longer be declared in this phase")
            defender = self.counters.get(action.defender)
            if defender is None:
                raise IllegalAction(Reason.UNKNOWN_UNIT, f"there is no unit {action.defender!r}")
            if defender.side == self.phase.side or action.defender not in self.hex_of:
                raise IllegalAction(Reason.NOT_ADJACENT, f"{action.defender} is not an enemy unit on the map")
            if not action.attackers or len(set(action.attackers)) != len(action.attackers):
                raise IllegalAction(Reason.MALFORMED_ACTION, "a battle needs one or more different attackers")
            target = self.hex_of[action.defender]
            for unit in action.attackers:
                self._own_unit(unit)
                if unit in ps.attacking:
                    raise IllegalAction(Reason.ALREADY_ATTACKING, f"unit {unit} already attacks in this phase")
                if not self.board.adjacent(self.hex_of[unit], target):
                    raise IllegalAction(Reason.NOT_ADJACENT, f"unit {unit} in {self.board.ids[self.hex_of[unit]]} "
                                                             f"is not adjacent to {action.defender} in "
                                                             f"{self.board.ids[target]}")
            return lambda: self._declare(action)
        if isinstance(action, CloseDeclarations):
            if not ps.declaring:
                raise IllegalAction(Reason.DECLARATIONS_CLOSED, "the declarations are already closed")
            return self._close_declarations
        if isinstance(action, ResolveBattle):
            if ps.declaring:
                raise IllegalAction(Reason.DECLARATIONS_OPEN,
                                    "all battles are announced before any is resolved: close the declarations first")
            if action.defender not in ps.battles:
                raise IllegalAction(Reason.NO_SUCH_BATTLE, f"no battle against {action.defender!r} waits to be resolved")
            return lambda: self._resolve(action.defender)
        raise self._wrong_phase(action)

    def _declare(self, action: DeclareAttack) -> None:
        self.ps.battles.setdefault(action.defender, []).extend(action.attackers)
        self.ps.attacking.update(action.attackers)
        self._emit(AttackDeclared(tuple(action.attackers), action.defender))

    def _close_declarations(self) -> None:
        self.ps.declaring = False
        self._emit(DeclarationsClosed(len(self.ps.battles)))

    def battle_odds(self, defender: str, attackers: Iterable[str]) -> combat.Odds:
        """The odds a battle would be fought at now."""
        attackers = list(attackers)
        board = self.board
        target = self.hex_of[defender]
        attack = Fraction(sum(self.strength(a) for a in attackers)) * self.weather().attack_factor
        left = combat.defensive_shift(board, target, self.side_of(defender))
        left += combat.river_shift(board, target, [self.hex_of[a] for a in attackers])
        return combat.compute_odds(self.scenario.crt, attack, self.strength(defender), left, 0)

    def _resolve(self, defender: str) -> None:
        attackers = tuple(self.ps.battles.pop(defender))
        crt = self.scenario.crt
        odds = self.battle_odds(defender, attackers)
        if odds.final < 0:
            self._emit(BattleResolved(defender, attackers, str(odds.attack), odds.defence, odds.raw_label(crt),
                                      odds.shifts, "below", "NE"))
            return
        roll = self._roll(f"combat against {defender}")
        result = crt.result(odds.final, roll)
        self._emit(BattleResolved(defender, attackers, str(odds.attack), odds.defence, odds.raw_label(crt),
                                  odds.shifts, crt.labels[odds.final], result, roll))
        hex_index = self.hex_of[defender]
        stages: tuple[str, ...] = {
            "DE": ("eliminate", "advance"), "DRL": ("defender_loss", "retreat", "advance"),
            "DR": ("retreat", "advance"), "EX": ("defender_loss", "exchange_losses", "retreat", "advance"),
            "AL": ("attacker_loss",), "NE": (),
        }[result]
        self._run(Pending("", defender, attackers, hex_index, 0, stages))

    def _run(self, context: Pending) -> None:
        """Carry a battle's result through its stages until one needs the attacker's decision."""
        self.ps.pending = None
        while context.then:
            stage, context.then = context.then[0], context.then[1:]
            context.stage = stage
            defender = context.defender
            alive = defender in self.hex_of
            if stage == "eliminate":
                self._eliminate(defender, "combat")
                continue
            if stage == "defender_loss":
                context.required = combat.step_loss(self.counters[defender], defender not in self.reduced)
                self._lose_step(defender, "combat")
                continue
            if stage == "retreat" and alive:
                options = self._retreat_options(defender)
                if not options.paths:
                    self._eliminate(defender, "no retreat path")
                    continue
                if options.through_zoc and defender in self.reduced:
                    self._eliminate(defender, "retreat through enemy zone of control")
                    continue
            if stage == "retreat" and not alive:
                continue
            if stage == "advance" and (alive or context.hex in self.at):
                continue
            choices = self._stage_choices(context)
            if not choices:
                continue
            if len(choices) == 1 and stage != "advance":
                self._decide(context, choices[0], chained=True)
                continue
            self.ps.pending = context
            return

    def _stage_choices(self, context: Pending) -> list[Action]:
        stage = context.stage
        attackers = [a for a in context.attackers if a in self.hex_of]
        ids = self.board.ids
        if stage == "exchange_losses":
            squad = [(a, self.counters[a], a not in self.reduced) for a in attackers]
            return [ChooseLosses(choice) for choice in combat.exchange_choices(squad, context.required)]
        if stage == "attacker_loss":
            return [ChooseAttackerLoss(a) for a in attackers]
        if stage == "retreat":
            return [ChooseRetreat(tuple(ids[h] for h in path))
                    for path in self._retreat_options(context.defender).paths]
        if stage == "advance":
            if not attackers:
                return []
            return [*(Advance(a) for a in attackers), DeclineAdvance()]
        raise AssertionError(stage)

    def _retreat_options(self, unit: str) -> retreat.RetreatOptions:
        side = self.side_of(unit)
        enemy = other(side)
        start = self.hex_of[unit]
        friendly = {h for h, u in self.at.items() if u != unit and self.counters[u].side == side}
        return retreat.retreat_options(self.board, start, friendly, self._units_of(enemy), self._zoc(enemy))

    def _decide(self, context: Pending, action: Action, chained: bool = False) -> None:
        if isinstance(action, ChooseLosses):
            for unit in action.units:
                if unit in self.hex_of:
                    self._lose_step(unit, "exchange")
        elif isinstance(action, ChooseAttackerLoss):
            self._lose_step(action.unit, "attacker loss")
        elif isinstance(action, ChooseRetreat):
            self._retreat(context.defender, tuple(self.board.index[h] for h in action.path))
        elif isinstance(action, Advance):
            start = self._lift(action.unit)
            self._put(action.unit, context.hex)
            self._emit(UnitAdvanced(action.unit, self.board.ids[start], self.board.ids[context.hex]))
            self._enter_city(action.unit, context.hex)
        if not chained:
            self._run(context)

    def _retreat(self, unit: str, path: tuple[int, ...]) -> None:
        options = self._retreat_options(unit)
        start = self._lift(unit)
        self._put(unit, path[-1])
        ids = self.board.ids
        self._emit(UnitRetreated(unit, ids[start], tuple(ids[h] for h in path), options.through_zoc))
        for hex_index in path:
            self._enter_city(unit, hex_index)
        if options.through_zoc:
            self._lose_step(unit, "retreat through enemy zone of control")

    def _lose_step(self, unit: str, cause: str) -> None:
        hex_id = self.board.ids[self.hex_of[unit]]
        if unit in self.reduced:
            self._eliminate(unit, cause)
            return
        self.reduced.add(unit)
        self._emit(StepLost(unit, hex_id, combat.step_loss(self.counters[unit], True), cause))

    def _eliminate(self, unit: str, cause: str, scores: bool = True) -> None:
        lost = self.strength(unit)
        hex_index = self._lift(unit)
        self.reduced.discard(unit)
        self.pool[unit] = self.scenario.first_turn
        scorer = other(self.side_of(unit)) if scores else None
        if scorer:
            self.elimination_points[scorer] += self.scenario.victory.elimination
        self._emit(UnitEliminated(unit, self.board.ids[hex_index], lost, cause, scorer))

    # --- replacements ------------------------------------------------------------------------------

    def _communication_targets(self, side: str) -> frozenset[int]:
        return self.board.east_edge if side == "soviet" else self.board.west_edge

    def _communication(self, side: str) -> frozenset[int]:
        """The hexes joined to ``side``'s edge by hexes free of enemy units and enemy zones of control."""
        cached = self._comm_cache.get(side)
        if cached and cached[0] == self._positions:
            return cached[1]
        enemy = other(side)
        blocked = set(self._zoc(enemy)) | set(self._units_of(enemy))
        region = communication_region(self.board, self._communication_targets(side), blocked)
        self._comm_cache[side] = (self._positions, region)
        return region

    def in_communication(self, unit: str) -> bool:
        side = self.side_of(unit)
        return in_communication(self.board, self.hex_of[unit], self._communication_targets(side),
                                self._communication(side))

    def _entry_hexes(self, side: str) -> list[int]:
        """Empty hexes where ``side`` may bring in a replacement now."""
        board = self.board
        hexes = set(board.entry[side])
        targets = self._communication_targets(side)
        region = self._communication(side)
        for city in board.cities:
            if self.control.get(city) != side or city in self.at:
                continue
            if (side == "soviet" and city == board.capital) or in_communication(board, city, targets, region):
                hexes.add(city)
        return sorted(h for h in hexes if h not in self.at)

    def _restorable(self, unit: str) -> bool:
        return (unit in self.reduced and unit not in self.ps.replaced
                and (self.in_communication(unit)
                     or (self.side_of(unit) == "soviet" and self.hex_of[unit] == self.board.capital)))

    def _replacement_actions(self) -> list[Action]:
        side = self.phase.side
        actions: list[Action] = []
        if self.ps.points > 0:
            ids = self.board.ids
            entries = self._entry_hexes(side)
            for unit, counter in self.counters.items():
                if counter.side == side and self.pool.get(unit, self.turn + 1) <= self.turn:
                    actions.extend(Replace(unit, ids[h]) for h in entries)
            actions.extend(Restore(u) for u, c in self.counters.items()
                           if c.side == side and u in self.hex_of and self._restorable(u))
        if actions:
            actions.append(EndPhase())
        return actions

    def _check_replacement(self, action: Action):
        side = self.phase.side
        if isinstance(action, EndPhase):
            return self._next_phase
        if not isinstance(action, (Replace, Restore)):
            raise self._wrong_phase(action)
        if self.ps.points <= 0:
            raise IllegalAction(Reason.NO_REPLACEMENT_POINTS, f"the {side} player has no replacement points left")
        unit = action.unit
        if isinstance(action, Replace):
            self._own_unit(unit, on_map=False)
            hex_index = self._hex(action.hex)
            if unit not in self.pool:
                raise IllegalAction(Reason.NOT_IN_POOL, f"unit {unit} is not in the replacement pool")
            if self.pool[unit] > self.turn:
                raise IllegalAction(Reason.NOT_AVAILABLE_YET,
                                    f"unit {unit} may not be taken as a replacement until turn {self.pool[unit]}")
            if hex_index in self.at:
                raise IllegalAction(Reason.HEX_OCCUPIED, f"{action.hex} holds unit {self.at[hex_index]}")
            if hex_index not in self._entry_hexes(side):
                raise IllegalAction(*self._entry_refusal(side, hex_index))
            return lambda: self._replace(unit, hex_index)
        self._own_unit(unit)
        if unit not in self.reduced:
            raise IllegalAction(Reason.ALREADY_FULL_STRENGTH, f"unit {unit} is already at full strength")
        if unit in self.ps.replaced:
            raise IllegalAction(Reason.REPLACED_THIS_PHASE,
                                f"unit {unit} came back this phase; no unit goes from eliminated to full "
                                f"strength in one phase")
        if not self._restorable(unit):
            raise IllegalAction(Reason.NOT_IN_COMMUNICATION,
                                f"unit {unit} in {self.board.ids[self.hex_of[unit]]} is not in communication "
                                f"with the {'east' if side == 'soviet' else 'west'} edge")
        return lambda: self._restore(unit)

    def _entry_refusal(self, side: str, hex_index: int) -> tuple[str, str]:
        board = self.board
        name = board.ids[hex_index]
        edge = "east" if side == "soviet" else "west"
        if hex_index in board.cities:
            city = board.cities[hex_index]
            if self.control.get(hex_index) != side:
                return Reason.NOT_AN_ENTRY_HEX, f"{city} ({name}) is not controlled by the {side} player"
            return Reason.NOT_IN_COMMUNICATION, f"{city} ({name}) is not in communication with the {edge} edge"
        return Reason.NOT_AN_ENTRY_HEX, (f"{name} is neither a {side} entry hex on the {edge} edge nor a "
                                         f"controlled city")

    def _replace(self, unit: str, hex_index: int) -> None:
        del self.pool[unit]
        self._put(unit, hex_index)
        self.reduced.add(unit)
        self.ps.points -= 1
        self.ps.replaced.add(unit)
        self._emit(UnitReplaced(unit, self.board.ids[hex_index]))
        self._enter_city(unit, hex_index)

    def _restore(self, unit: str) -> None:
        self.reduced.discard(unit)
        self.ps.points -= 1
        self._emit(UnitRestored(unit, self.board.ids[self.hex_of[unit]]))

    # --- serialisation -----------------------------------------------------------------------------

    def clone(self) -> "Game":
        twin = copy.copy(self)
        twin.hex_of = dict(self.hex_of)
        twin.at = dict(self.at)
        twin.reduced = set(self.reduced)
        twin.pool = dict(self.pool)
        twin.control = dict(self.control)
        twin.elimination_points = dict(self.elimination_points)
        twin.ps = copy.deepcopy(self.ps)
        twin._zoc_cache = dict(self._zoc_cache)
        twin._comm_cache = dict(self._comm_cache)
        twin._reach_cache = dict(self._reach_cache)
        twin._moves_cache = dict(self._moves_cache)
        twin._units_cache = dict(self._units_cache)
        twin._events = []
        return twin

    def to_json(self) -> dict[str, Any]:
        """The whole state, in the documented position format (see POSITION.md)."""
        ids = self.board.ids
        ps = self.ps
        units = []
        for unit in self.counters:
            if unit in self.hex_of:
                units.append({"id": unit, "hex": ids[self.hex_of[unit]],
                              "strength": "half" if unit in self.reduced else "full"})
        return {
            "format": STATE_FORMAT,
            "scenario": self.scenario.id,
            "options": self.options.to_json(),
            "seed": self.seed,
            "fixed_dice": list(self.fixed_dice),
            "rolls": self.rolls,
            "turn": self.turn,
            "phase": self.phase.name,
            "units": units,
            "pool": [{"id": u, "available_from": self.pool[u]} for u in self.counters if u in self.pool],
            "city_control": {ids[h]: self.control[h] for h in sorted(self.control)},
            "elimination_points": dict(self.elimination_points),
            "capital_bonus": self.capital_bonus,
            "phase_state": {
                "moved": sorted(ps.moved),
                "rail_eligible": sorted(ps.rail_eligible),
                "points": ps.points,
                "replaced": sorted(ps.replaced),
                "declaring": ps.declaring,
                "battles": [{"defender": d, "attackers": list(a)} for d, a in ps.battles.items()],
                "attacking": sorted(ps.attacking),
                "stack": {"hex": ids[ps.stack[0]], "unit": ps.stack[1]} if ps.stack else None,
                "pending": ps.pending.to_json(ids) if ps.pending else None,
            },
            "result": self.outcome.to_json() if self.outcome else None,
        }

    def canonical_json(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON: equal states, equal hashes."""
        return sha256(self.canonical_json().encode()).hexdigest()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Game":
        from .position import game_from_position

        return game_from_position(data)


def _answers(action: Action, stage: str) -> bool:
    return isinstance(action, {"exchange_losses": ChooseLosses, "attacker_loss": ChooseAttackerLoss,
                               "retreat": ChooseRetreat, "advance": (Advance, DeclineAdvance)}[stage])


__all__ = ["Game", "new_game", "Pending", "PhaseState", "PHASES_BY_NAME"]
