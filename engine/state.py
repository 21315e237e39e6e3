"""The state of a game: where every unit is, who controls what, the dice, the phase, and what every phase
does to them (putting and lifting units, losing steps, rolling, recording events).

The rules that move a game on live in the phases (:mod:`engine.setup_phase`, :mod:`engine.movement_phase`,
:mod:`engine.combat_phase`, :mod:`engine.replacement_phase`, :mod:`engine.supply_phase`), each a class of
its own, given the :class:`GameState` it works on with each call; :class:`engine.game.Game` is the state
with its phases and the sequence of play.

>>> from engine.data import load_scenario
>>> from engine.options import Options
>>> state = GameState(load_scenario("standard"), Options(), seed="doc")
>>> state.unit_at("0405"), state.strength("16th"), state.current_player()
('16th', 4, 'german')
"""

from __future__ import annotations

import json
from hashlib import sha256
from typing import Any, Callable, Final

import orjson

from . import combat
from .data import load_crt
from .scenario import SIDES, CombatTable, CounterInfo, Scenario, Weather
from .dice import dice_key, die_roll, drawn_entropy, keyed_die_roll
from .errors import DataError, IllegalAction, Reason
from .events import CityCaptured, DieRolled, EntropyDrawn, Event, GameEnded, StepLost, UnitEliminated
from .actions import Action
from .options import Options
from .phase_state import PhaseState
from .ruleset import MIXED_DICE, RULESET, known, played
from .seat_entropy import SeatEntropy
from .sequence import SETUP, Phase, other, turn_phases
from .victory import Result, victory_points
from .zones import zone_of_control

STATE_FORMAT: Final = 1

#: What a checked action does when carried out (a check returns it; nothing changes before it runs).
Effect = Callable[[], None]


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


class GameState:
    """A Battle for Moscow position: the scenario and options played, the units on the map and in the pool,
    city control, points, the dice rolled so far, the turn and phase and what the phase remembers.

    A new state has the Soviet set-up on the map; the German counters wait to be placed.
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
        self.supply: dict[str, int] = (dict(scenario.rules.supply_start) if options.war_of_attrition
                                       else {side: 0 for side in SIDES})
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
        self._units_cache: dict[str, tuple[int, dict[int, str]]] = {}
        self._masks_cache: dict[str, tuple[int, list[bool], list[bool]]] = {}
        self._occupancy_cache: tuple[int, int, list[bool]] | None = None
        for hex_index, unit in scenario.soviet_setup.items():
            self._put(unit, hex_index)
            if not scenario.soviet_setup_full:
                self.reduced.add(unit)

    def _copy_state(self, twin: GameState) -> None:
        """Make ``twin`` (a game of the same scenario, options and ruleset) this position, sharing nothing
        that changes with it."""
        twin.seed = self.seed
        twin.fixed_dice = self.fixed_dice
        twin.rolls = self.rolls
        twin.seat_entropy = self.seat_entropy.copy()
        twin._dice_key = self._dice_key
        twin.turn = self.turn
        twin.phase = self.phase
        twin.weather_id = self.weather_id
        twin.supply = dict(self.supply)
        twin.hex_of = dict(self.hex_of)
        twin.at = dict(self.at)
        twin.reduced = set(self.reduced)
        twin.pool = dict(self.pool)
        twin.control = dict(self.control)
        twin.elimination_points = dict(self.elimination_points)
        twin.capital_bonus = self.capital_bonus
        twin.outcome = self.outcome
        twin.ps = self.ps.copy()
        twin._events = []
        twin._positions = dict(self._positions)
        twin._zoc_cache = dict(self._zoc_cache)
        twin._units_cache = dict(self._units_cache)
        twin._masks_cache = dict(self._masks_cache)

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
        winner = self.outcome.winner
        return {side: 1.0 if side == winner else -1.0 for side in SIDES}

    def victory_points(self) -> dict[str, int]:
        return victory_points(self.scenario, self.control, self.elimination_points, self.capital_bonus)

    def side_of(self, unit: str) -> str:
        return self.counters[unit].side

    def strength(self, unit: str) -> int:
        return self.counters[unit].strength(unit not in self.reduced)

    def unit_at(self, hex_id: str) -> str | None:
        return self.at.get(self.board.index[hex_id])

    def weather(self) -> Weather:
        """The weather in force this turn (the turn track's, unless Variable Weather changed it)."""
        return self.scenario.weather[self.weather_id]

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
        zone = zone_of_control(self.board, self._units_of(side))
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

    def _masks(self, side: str) -> tuple[list[bool], list[bool]]:
        """Per hex of the map: whether one of ``side``'s units stands there, and whether it lies in their
        zone of control (what blocks and stops the other side's movement)."""
        cached = self._masks_cache.get(side)
        if cached and cached[0] == self._positions[side]:
            return cached[1], cached[2]
        neighbours, counters = self.board.neighbours, self.counters
        units = [False] * len(neighbours)
        zone = [False] * len(neighbours)
        for unit, h in self.hex_of.items():
            if counters[unit].side == side:
                units[h] = True
                for n in neighbours[h]:
                    zone[n] = True
        self._masks_cache[side] = (self._positions[side], units, zone)
        return units, zone

    def _occupancy(self) -> list[bool]:
        """Per hex of the map: whether a unit stands there (kept while no unit moves)."""
        positions = self._positions
        german, soviet = positions["german"], positions["soviet"]
        cached = self._occupancy_cache
        if cached is not None and cached[0] == german and cached[1] == soviet:
            return cached[2]
        occupied = [False] * len(self.board.ids)
        for h in self.at:
            occupied[h] = True
        self._occupancy_cache = (german, soviet, occupied)
        return occupied

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

    def await_entropy(self, side: object) -> None:
        """Wait for ``side``'s entropy commitment (its seat was taken for it): see :mod:`engine.seat_entropy`.
        Not an action, as are :meth:`commit_entropy` and :meth:`contribute_entropy`; each refusal raises
        :class:`IllegalAction` and changes nothing. (Each takes whatever it is given and checks it: a
        compiled method would take a str only.)"""
        self.seat_entropy.await_commitment(side, self._dice_closed())

    def commit_entropy(self, side: object, commitment: object) -> None:
        """``side`` commits to the SHA-256 (hex) of its entropy, or to none (``""``), once, before the first
        die (from ruleset 4 on, see :mod:`engine.seat_entropy`).

        >>> from engine import new_game
        >>> game = new_game("standard", seed="doc")
        >>> game.commit_entropy("soviet", "")
        >>> game.commit_entropy("soviet", "4ba68aa8767bde72e8c798ee82d1275291cea73e72ad74d35ecf48e41386eb82")
        Traceback (most recent call last):
        ...
        engine.errors.IllegalAction: the soviet side has said it gives no entropy
        """
        self.seat_entropy.commit(side, commitment, self._dice_closed())

    def contribute_entropy(self, side: object, entropy: object) -> None:
        """``side`` reveals the entropy it committed to, once every side has committed (or given none),
        before the first die (from ruleset 4 on, see :mod:`engine.seat_entropy`).

        >>> from engine import new_game
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
        key = self._dice_key
        if key is None:
            entropy = self.seat_entropy.entropy
            for side in SIDES:
                if side not in entropy:
                    entropy[side] = drawn_entropy(self.seed, side)
                    self._emit(EntropyDrawn(side, entropy[side]))
            key = self._dice_key = dice_key(self.seed, entropy)
        return keyed_die_roll(key, index)

    def _roll(self, purpose: str) -> int:
        index = self.rolls
        value = self.fixed_dice[index] if index < len(self.fixed_dice) else self._die(index)
        self.rolls += 1
        self._emit(DieRolled(index, value, purpose))
        return value

    def _finish(self, result: Result) -> None:
        self.outcome = result
        self._emit(GameEnded(result.winner, result.reason, result.points["german"], result.points["soviet"]))

    # --- checks shared by the phases ---------------------------------------------------------------

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

    # --- serialisation -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole state, in the documented position format (see POSITION.md)."""
        ids = self.board.ids
        ps = self.ps
        units = []
        for unit in self.counters:
            if unit in self.hex_of:
                units.append({"id": unit, "hex": ids[self.hex_of[unit]],
                              "strength": "half" if unit in self.reduced else "full"})
        state: dict[str, Any] = {
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
            fast: bytes | None = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # what orjson does not encode (an integer past 64 bits)
            fast = None
        if fast is not None and fast.isascii() and b"\\" not in fast and b"\x7f" not in fast:
            return fast.decode("ascii")
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON: equal states, equal hashes."""
        return sha256(self.canonical_json().encode()).hexdigest()
