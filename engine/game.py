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
from hashlib import sha256
from typing import Any, Iterable

import orjson

from . import combat, movement, retreat
from .actions import (  # noqa: F401
    Action,
    ChooseLosses,
    EndPhase,
    Move,
    PlaceUnit,
    Replace,
    Resign,
    StandardSetup,
    TimeForfeit,
    action_from_json,
)
from .combat_phase import CombatPhase, answers_stage
from .data import SIDES, CombatTable, CounterInfo, Scenario, Weather, load_crt, load_scenario
from .dice import die_roll, dice_key, drawn_entropy, keyed_die_roll
from .errors import DataError, IllegalAction, Reason
from .events import (
    CapitalOccupied,
    CityCaptured,
    DieRolled,
    EntropyDrawn,
    Event,
    GameEnded,
    PhaseStarted,
    StepLost,
    TurnStarted,
    UnitEliminated,
)
from .movement_phase import MovementPhase, action_table
from .options import Options
from .phase_state import Pending, PhaseState
from .replacement_phase import ReplacementPhase
from .ruleset import MIXED_DICE, RULESET, known, played
from .seat_entropy import SeatEntropy
from .sequence import SETUP, Phase, other, turn_phases
from .setup_phase import SetupPhase
from .supply_phase import SupplyPhase
from .victory import Result, final_result, victory_points
from .zones import in_communication, zone_of_control

STATE_FORMAT = 1


def new_game(scenario: str | Scenario = "standard", options: Options | dict | None = None, seed: str = "",
             fixed_dice: Iterable[int] = (), ruleset: int = RULESET) -> "Game":
    """A game at its start: the Soviets set up, the German player to place his counters.

    Options the scenario cannot play (the Advanced Combat Results Table, whose table the rules do not
    give) raise IllegalAction(OPTION_UNAVAILABLE); a ruleset the engine does not play (see
    :mod:`engine.ruleset`) raises IllegalAction(UNKNOWN_RULESET).
    """
    if isinstance(scenario, str):
        try:
            scenario = load_scenario(scenario)
        except KeyError as error:
            raise IllegalAction(Reason.UNKNOWN_SCENARIO, str(error.args[0])) from None
    if not isinstance(options, Options):
        options = Options.from_json(options)
    return Game(scenario, options, seed, tuple(fixed_dice), ruleset)


def combat_table(scenario: Scenario, options: Options) -> CombatTable:
    """The combat results table the options ask for."""
    if not options.advanced_crt:
        return scenario.crt
    path = scenario.advanced_crt
    if path is None or not path.exists():
        raise IllegalAction(Reason.OPTION_UNAVAILABLE,
                            "the Advanced Combat Results Table is not available: the rules text names it but "
                            "does not give the table" + (f" (no file {path.name})" if path else ""))
    try:
        return load_crt(path)
    except DataError as error:
        raise IllegalAction(Reason.OPTION_UNAVAILABLE, f"the Advanced Combat Results Table is broken: {error}") from None


class Game(SetupPhase, MovementPhase, CombatPhase, ReplacementPhase, SupplyPhase):
    """A Battle for Moscow position, with the rules to move it on.

    Query it with :meth:`legal_actions`, :meth:`current_player`, :meth:`is_terminal`, :meth:`result`;
    change it with :meth:`apply`, which returns the events the action caused.
    """

    def __init__(self, scenario: Scenario, options: Options, seed: str, fixed_dice: tuple[int, ...] = (),
                 ruleset: int = RULESET) -> None:
        if not known(ruleset):
            raise IllegalAction(Reason.UNKNOWN_RULESET, f"ruleset {ruleset!r} is not one this engine plays "
                                                        f"({played()})")
        self.ruleset = ruleset
        self.scenario = scenario
        self.board = scenario.board
        self.counters: dict[str, CounterInfo] = scenario.counters
        self.options = options
        self.crt = combat_table(scenario, options)
        if options.soviet_replacements not in scenario.rules.soviet_replacement_choices:
            raise IllegalAction(Reason.OPTION_UNAVAILABLE,
                                f"soviet_replacements must be one of {scenario.rules.soviet_replacement_choices}")
        self.phases = turn_phases(options.war_of_attrition)
        self.seed = seed
        self.fixed_dice = tuple(fixed_dice)
        self.rolls = 0
        #: Ruleset 4 on: each side's commitment and entropy, mixed into the dice with the seed (engine.seat_entropy).
        self.seat_entropy = SeatEntropy()
        self._dice_key: bytes | None = None  # set at the first roll the seed gives: the entropy is final then
        self.turn = scenario.first_turn
        self.phase: Phase = SETUP
        self.weather_id = scenario.turns[self.turn].weather
        self.supply = dict(scenario.rules.supply_start) if options.war_of_attrition else {side: 0 for side in SIDES}
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
        self._positions = {side: 0 for side in SIDES}  # bumped whenever a unit of that side moves
        self._zoc_cache: dict[str, tuple[int, frozenset[int]]] = {}
        self._comm_cache: dict[str, tuple[int, frozenset[int]]] = {}
        self._supply_cache: dict[str, tuple[tuple[int, int, int], dict[int, int]]] = {}
        self._reach_cache: dict[str, movement.Reach] = {}
        self._move_table = action_table(Move, self.board.ids)
        self._replace_table = action_table(Replace, self.board.ids)
        self._place_table = action_table(PlaceUnit, self.board.ids)
        self._rules_cache: dict[str, movement.MoveRules] = {}
        self._units_cache: dict[str, tuple[int, dict[int, str]]] = {}
        self._legal_cache: list[Action] | None = None
        self._attacks_cache: tuple[PhaseState, tuple, int, list[tuple[str, str]]] | None = None
        self._entries_cache: tuple[PhaseState, tuple, tuple[list[int], dict[str, bool]]] | None = None
        self._retreat_cache: tuple[tuple[str, int, int], retreat.RetreatOptions] | None = None
        self._declarations: dict[tuple[str, str], Action] = {}  # shared DeclareAttack values (immutable)
        self._rules_made: dict[tuple, movement.MoveRules] = {}  # shared MoveRules values (immutable)
        self._city_bits = tuple((h, 1 << i) for i, h in enumerate(sorted(self.board.cities)))
        self._reset_movement()
        for hex_index, unit in scenario.soviet_setup.items():
            self._put(unit, hex_index)
            if not scenario.soviet_setup_full:
                self.reduced.add(unit)

    # --- queries -----------------------------------------------------------------------------------

    def current_player(self) -> str | None:
        """The side to act, or None when the game is over: while the game waits for a seat's entropy
        commitment or reveal (ruleset 4 on, :mod:`engine.seat_entropy`), that side."""
        if self.outcome:
            return None
        if self.seat_entropy.commitments:
            waiting = self.entropy_wait()
            if waiting:
                return waiting[0]
        return self.phase.side

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

    def communication_of(self, side: str) -> dict[str, bool]:
        """Each of ``side``'s units on the map -> :meth:`in_communication`, all at once (the side's region
        and edge looked up once, not once a unit, for an observation of every unit)."""
        board, targets, region = self.board, self._communication_targets(side), self._communication(side)
        return {unit: in_communication(board, hex_index, targets, region)
                for unit, hex_index in self.hex_of.items() if self.counters[unit].side == side}

    def strength(self, unit: str) -> int:
        return self.counters[unit].strength(unit not in self.reduced)

    def unit_at(self, hex_id: str) -> str | None:
        return self.at.get(self.board.index[hex_id])

    def weather(self) -> Weather:
        """The weather in force this turn (the turn track's, unless Variable Weather changed it)."""
        return self.scenario.weather[self.weather_id]

    def pending_decision(self) -> dict[str, Any] | None:
        """The decision the player to act must make before anything else, if any; while the game waits
        for a seat's entropy, ``{"stage": "entropy_commitment" or "entropy_reveal", "side": side}``."""
        waiting = self.entropy_wait() if self.seat_entropy.commitments else None
        if waiting:
            return {"stage": waiting[1], "side": waiting[0]}
        if self.ps.pending:
            return self.ps.pending.to_json(self.board.ids)
        if self.ps.stack:
            hex_index, mover = self.ps.stack
            return {"stage": "unstack", "hex": self.board.ids[hex_index], "unit": self.at[hex_index],
                    "mover": mover}
        return None

    # --- legal actions -----------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to act (pending decisions first and alone); none while the
        game waits for a seat's entropy (:meth:`entropy_wait`)."""
        if self.outcome or (self.seat_entropy.commitments and self.entropy_wait()):
            return []
        kept = self._legal_cache
        if kept is None:
            return self._list_actions()
        # the list the last action's settling made is handed over, not copied: the caller may change it,
        # so it is not kept (a second call lists again, the same actions in the same order)
        self._legal_cache = None
        return kept

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
        return [EndPhase()]  # a supply phase loaded from a position: its effects are done

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
        if self.seat_entropy.commitments and not isinstance(action, (Resign, TimeForfeit)):
            waiting = self.entropy_wait()
            if waiting:
                side, stage = waiting
                raise IllegalAction(Reason.ENTROPY_AWAITED, f"the game waits for the {side} seat's entropy "
                                    f"{'commitment' if stage == 'entropy_commitment' else 'reveal'} (engine/seat_entropy.py)")
        execute = self._check(action)
        self._events = []
        self._legal_cache = None
        execute()
        self._settle()
        events, self._events = self._events, []
        return events

    def _check(self, action: Action):
        """Validate ``action`` completely; return the function that carries it out."""
        if isinstance(action, Resign):
            if action.side not in SIDES:
                raise IllegalAction(Reason.MALFORMED_ACTION, f"{action.side!r} is not a side")
            return lambda: self._finish(Result(other(action.side), f"{action.side} resigned",
                                               self.victory_points()))
        if isinstance(action, TimeForfeit):
            if action.side not in SIDES:
                raise IllegalAction(Reason.MALFORMED_ACTION, f"{action.side!r} is not a side")
            return lambda: self._finish(Result(other(action.side), "time", self.victory_points()))
        pending = self.ps.pending
        if pending:
            if isinstance(action, ChooseLosses):
                action = next((c for c in self._stage_choices(pending)
                               if isinstance(c, ChooseLosses) and sorted(c.units) == sorted(action.units)), action)
            if action not in self._stage_choices(pending):
                raise IllegalAction(Reason.DECISION_PENDING if not answers_stage(action, pending.stage)
                                    else Reason.NOT_A_CHOICE, self._pending_refusal(action, pending))
            return lambda: self._decide(pending, action)
        kind = self.phase.kind
        if kind == "setup":
            return self._check_setup(action)
        if kind == "movement":
            return self._check_movement(action)
        if kind == "combat":
            return self._check_combat(action)
        if kind == "replacement":
            return self._check_replacement(action)
        if isinstance(action, EndPhase):
            return self._next_phase
        raise self._wrong_phase(action)

    def _pending_refusal(self, action: Action, pending: Pending) -> str:
        wanted = {"exchange_losses": "choose_losses", "attacker_loss": "choose_attacker_loss",
                  "retreat": "choose_retreat", "advance": "advance or decline_advance"}[pending.stage]
        if answers_stage(action, pending.stage):
            return (f"{action.type} is not one of the choices for the battle against {pending.defender}; "
                    f"see the legal actions")
        return (f"the battle against {pending.defender} waits for a {wanted} decision, "
                f"not {action.type}")

    # --- positions ---------------------------------------------------------------------------------

    def _put(self, unit: str, hex_index: int) -> None:
        self.hex_of[unit] = hex_index
        self.at[hex_index] = unit
        self._positions[self.counters[unit].side] += 1

    def _lift(self, unit: str) -> int:
        hex_index = self.hex_of.pop(unit)
        stack = self.ps.stack
        if stack and stack[0] == hex_index:
            self.ps.stack = None
            if self.at[hex_index] == unit:  # the unit underneath leaves; the one that moved on stays
                self.at[hex_index] = stack[1]
        else:
            del self.at[hex_index]
        self._positions[self.counters[unit].side] += 1
        return hex_index

    def _zoc(self, side: str) -> frozenset[int]:
        """The zone of control of ``side``'s units."""
        cached = self._zoc_cache.get(side)
        if cached and cached[0] == self._positions[side]:
            return cached[1]
        zone = zone_of_control(self.board, (h for u, h in self.hex_of.items() if self.counters[u].side == side))
        self._zoc_cache[side] = (self._positions[side], zone)
        return zone

    def _units_of(self, side: str) -> dict[int, str]:
        """Hex → unit, for ``side``'s units on the map."""
        cached = self._units_cache.get(side)
        if cached and cached[0] == self._positions[side]:
            return cached[1]
        counters = self.counters
        units = {h: u for h, u in self.at.items() if counters[u].side == side}
        self._units_cache[side] = (self._positions[side], units)
        return units

    def _enter_city(self, unit: str, hex_index: int) -> None:
        side = self.counters[unit].side
        if hex_index in self.board.cities and self.control.get(hex_index) != side:
            self.control[hex_index] = side
            self._emit(CityCaptured(self.board.cities[hex_index], self.board.ids[hex_index], side))

    def _lose_step(self, unit: str, cause: str, scores: bool = True) -> None:
        hex_id = self.board.ids[self.hex_of[unit]]
        if unit in self.reduced:
            self._eliminate(unit, cause, scores)
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

    def _emit(self, event: Event) -> None:
        self._events.append(event)

    # --- the dice ---------------------------------------------------------------------------------

    @property
    def entropy(self) -> dict[str, str]:
        """Ruleset 4 on: each side's entropy mixed into the dice: the ones revealed, and from the first die
        on every side's (a side that gave none has one drawn from the seed)."""
        return self.seat_entropy.entropy

    def await_entropy(self, side: str) -> None:
        """Wait for ``side``'s entropy commitment (its seat was taken for it): see :mod:`engine.seat_entropy`.
        Not an action, as are :meth:`commit_entropy` and :meth:`contribute_entropy`; each refusal raises
        :class:`IllegalAction` and changes nothing."""
        self.seat_entropy.await_commitment(side, self._dice_closed())

    def commit_entropy(self, side: str, commitment: str) -> None:
        """``side`` commits to the SHA-256 (hex) of its entropy, or to none (``""``), once, before the first
        die (from ruleset 4 on, see :mod:`engine.seat_entropy`).

        >>> game = new_game("standard", seed="doc")
        >>> game.commit_entropy("soviet", "")
        >>> game.commit_entropy("soviet", "4ba68aa8767bde72e8c798ee82d1275291cea73e72ad74d35ecf48e41386eb82")
        Traceback (most recent call last):
        ...
        engine.errors.IllegalAction: the soviet side has said it gives no entropy
        """
        self.seat_entropy.commit(side, commitment, self._dice_closed())

    def contribute_entropy(self, side: str, entropy: str) -> None:
        """``side`` reveals the entropy it committed to, once every side has committed (or given none),
        before the first die (from ruleset 4 on, see :mod:`engine.seat_entropy`).

        >>> game = new_game("standard", seed="doc")
        >>> game.commit_entropy("german", "")
        >>> game.commit_entropy("soviet", "4ba68aa8767bde72e8c798ee82d1275291cea73e72ad74d35ecf48e41386eb82")
        >>> game.current_player(), game.legal_actions(), game.pending_decision()
        ('soviet', [], {'stage': 'entropy_reveal', 'side': 'soviet'})
        >>> game.contribute_entropy("soviet", "fedcba9876543210fedcba9876543210")
        >>> game.current_player(), game.entropy
        ('german', {'soviet': 'fedcba9876543210fedcba9876543210'})
        """
        self.seat_entropy.reveal(side, entropy, self._dice_closed())

    def entropy_wait(self) -> tuple[str, str] | None:
        """The side the game waits for before anything else, and for what (``"entropy_commitment"`` or
        ``"entropy_reveal"``); None when it waits for no seat's entropy (nor after the first die)."""
        if self.outcome or self.rolls or self._dice_key is not None:
            return None
        return self.seat_entropy.waiting_for()

    def _dice_closed(self) -> bool:
        """Whether the dice take no more entropy (after the first die); refused for a ruleset without it."""
        if self.ruleset < MIXED_DICE:
            raise IllegalAction(Reason.ENTROPY_NOT_USED, f"the dice of ruleset {self.ruleset} derive from the seed "
                                                         f"alone: they mix in no entropy (from ruleset {MIXED_DICE} on)")
        return bool(self.rolls) or self._dice_key is not None

    def _die(self, index: int) -> int:
        """Roll ``index`` as the seed (and, from ruleset 4 on, the entropy) gives it. The first such roll of
        a ruleset-4 game fixes the entropy: a side that gave none gets one drawn from the seed (an event)."""
        if self.ruleset < MIXED_DICE:
            return die_roll(self.seed, index)
        if self._dice_key is None:
            entropy = self.seat_entropy.entropy
            for side in SIDES:
                if side not in entropy:
                    entropy[side] = drawn_entropy(self.seed, side)
                    self._emit(EntropyDrawn(side, entropy[side]))
            self._dice_key = dice_key(self.seed, self.entropy)
        return keyed_die_roll(self._dice_key, index)

    def _roll(self, purpose: str) -> int:
        index = self.rolls
        value = self.fixed_dice[index] if index < len(self.fixed_dice) else self._die(index)
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

    # --- sequence of play --------------------------------------------------------------------------

    def _start_turn(self, turn: int) -> None:
        self.turn = turn
        info = self.scenario.turns[turn]
        self.weather_id = info.weather
        self._emit(TurnStarted(turn, info.dates, info.weather))
        self._start_phase(self.phases[0])

    def _start_phase(self, phase: Phase) -> None:
        self.phase = phase
        self._emit(PhaseStarted(self.turn, phase.name, phase.side))
        self._reset_phase_state()
        if phase.kind == "supply":
            self._begin_supply_phase()
        elif phase.kind == "replacement":
            self._begin_replacement_phase()

    def _reset_phase_state(self) -> None:
        phase = self.phase
        self.ps = PhaseState()
        self._reach_cache = {}
        self._rules_cache = {}
        self._reset_movement()
        if phase.kind == "replacement":
            self.ps.points = self._replacement_points(phase.side)
            self.ps.attrition_rolls = self._attrition_rolls(phase.side)
        if phase.movers == "rail":
            self.ps.rail_eligible = frozenset(
                u for u, h in self.hex_of.items() if self.side_of(u) == phase.side and self.board.is_rail(h))

    def _next_phase(self) -> None:
        phases = self.phases
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
        """Move on past every phase in which the player to act has nothing left to decide (keeping the
        legal actions it lists to find out, when the player has some)."""
        while not self.outcome and not self.ps.pending and not self.ps.stack:
            kind = self.phase.kind
            if kind == "supply":
                done = True
            elif kind == "replacement":
                actions = self._replacement_actions()
                done = actions in ([], [EndPhase()])
                if not done:
                    self._legal_cache = actions
            elif kind == "movement":
                actions = self._movement_actions()
                done = len(actions) == 1  # only ending the phase (a stack is never settled: see the loop)
                if not done:
                    self._legal_cache = actions
            elif kind == "combat":
                if self.ps.declaring and not self._possible_attacks():
                    if not self.ps.battles:
                        done = True
                    elif self.options.war_of_attrition and self._assault_candidates():
                        done = False  # Assault may still be bought before the declarations close
                    else:
                        self._close_declarations()
                        continue
                else:
                    done = not self.ps.declaring and not self.ps.battles
            else:
                done = False
            if not done:
                return
            self._next_phase()

    # --- serialisation -----------------------------------------------------------------------------

    def clone(self) -> "Game":
        twin = copy.copy(self)
        twin.hex_of = dict(self.hex_of)
        twin.at = dict(self.at)
        twin.reduced = set(self.reduced)
        twin.pool = dict(self.pool)
        twin.control = dict(self.control)
        twin.elimination_points = dict(self.elimination_points)
        twin.supply = dict(self.supply)
        twin.seat_entropy = self.seat_entropy.copy()
        twin._positions = dict(self._positions)
        twin.ps = self.ps.copy()
        twin._zoc_cache = dict(self._zoc_cache)
        twin._comm_cache = dict(self._comm_cache)
        twin._supply_cache = dict(self._supply_cache)
        twin._reach_cache = dict(self._reach_cache)
        twin._rules_cache = dict(self._rules_cache)
        twin._units_cache = dict(self._units_cache)
        # the kept segments are patched in place as the phase goes on: each game its own
        twin._empty_segs = {u: (hexes.copy(), moves.copy()) for u, (hexes, moves) in self._empty_segs.items()}
        twin._friend_segs = {u: (hexes.copy(), moves.copy()) for u, (hexes, moves) in self._friend_segs.items()}
        twin._events = []
        twin._legal_cache = None if self._legal_cache is None else list(self._legal_cache)
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
        state = {
            "format": STATE_FORMAT,
            "scenario": self.scenario.id,
            "options": self.options.to_json(),
            "seed": self.seed,
            "fixed_dice": list(self.fixed_dice),
            "rolls": self.rolls,
            "turn": self.turn,
            "phase": self.phase.name,
            "weather": self.weather_id,
            "supply": dict(self.supply),
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
                "attrition_rolls": ps.attrition_rolls,
                "winter_gear": ps.winter_gear,
                "frostbite": ps.frostbite,
                "extra_supply": ps.extra_supply,
                "assault": dict(sorted(ps.assault.items())),
                "strongpoint_shifts": sorted(ps.strongpoint_shifts),
            },
            "result": self.outcome.to_json() if self.outcome else None,
            "ruleset": self.ruleset,
        }
        if self.ruleset >= MIXED_DICE:
            state["entropy"] = dict(sorted(self.entropy.items()))
            if self.seat_entropy.commitments:  # written only when a seat took part (older states keep their hash)
                state["entropy_commitments"] = dict(sorted(self.seat_entropy.commitments.items()))
        return state

    def canonical_json(self) -> str:
        """``json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))``: the text of the state
        the service stores and whose hash every action logs. A state of ruleset 2 leaves out its
        ``ruleset`` (written into states from ruleset 3 on), so that the hashes its matches logged still
        verify; a service reads it back with the ruleset its match records (see POSITION.md).

        orjson writes the same text ~20× faster for what a position holds (dicts with string keys, lists,
        integers, booleans, null, ASCII strings); the two differ only where a position never goes (floats,
        integers past 64 bits, non-ASCII or control characters and DEL, which ``json.dumps`` escapes), so
        any text with those takes ``json.dumps``.
        """
        data = self.to_json()
        if self.ruleset < 3:
            del data["ruleset"]
        try:
            fast = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # what orjson does not encode (an integer past 64 bits)
            fast = None
        if fast is not None and fast.isascii() and b"\\" not in fast and b"\x7f" not in fast:
            return fast.decode("ascii")
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON: equal states, equal hashes."""
        return sha256(self.canonical_json().encode()).hexdigest()


__all__ = ["Game", "new_game", "combat_table", "Pending", "PhaseState"]
