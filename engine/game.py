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

from fractions import Fraction
from typing import Any, Iterable

from . import combat
from .actions import (  # noqa: F401
    END_PHASE,
    Action,
    ChooseLosses,
    DeclareAttack,
    EndPhase,
    Move,
    PlaceUnit,
    Replace,
    Resign,
    StandardSetup,
    TimeForfeit,
    action_from_json,
)
from .combat_phase import CombatPhase
from .data import load_scenario
from .scenario import SIDES, Scenario
from .errors import IllegalAction, Reason
from .events import CapitalOccupied, Event, PhaseStarted, TurnStarted
from .movement_phase import MovementPhase
from .options import Options
from .phase_state import Pending, PhaseState
from .replacement_phase import ReplacementPhase
from .ruleset import RULESET, known, played
from .sequence import Phase, other
from .setup_phase import SetupPhase
from .state import STATE_FORMAT, Effect, GameState, combat_table
from .supply_phase import SupplyPhase
from .victory import Result, final_result


def new_game(scenario: str | Scenario = "standard", options: Options | dict[str, Any] | None = None, seed: str = "",
             fixed_dice: Iterable[int] = (), ruleset: object = RULESET) -> Game:
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
    if not known(ruleset):  # refused here whatever it is: a compiled Game takes an int
        raise IllegalAction(Reason.UNKNOWN_RULESET, f"ruleset {ruleset!r} is not one this engine plays ({played()})")
    return Game(scenario, options, seed, tuple(fixed_dice), ruleset)


class Game(GameState):
    """A Battle for Moscow position, with the rules to move it on: the phases, each a class of its own that
    the game holds, and the sequence of play that takes the game from one phase to the next.

    Query it with :meth:`legal_actions`, :meth:`current_player`, :meth:`is_terminal`, :meth:`result`;
    change it with :meth:`apply`, which returns the events the action caused.
    """

    def __init__(self, scenario: Scenario, options: Options, seed: str, fixed_dice: tuple[int, ...] = (),
                 ruleset: int = RULESET) -> None:
        super().__init__(scenario, options, seed, fixed_dice, ruleset)
        # each phase is given the game when asked (it holds none: a game and its phases are no cycle)
        self.supply_phase = SupplyPhase()
        self.setup_phase = SetupPhase(self)
        self.movement_phase = MovementPhase(self)
        self.combat_phase = CombatPhase(self.supply_phase)
        self.replacement_phase = ReplacementPhase(self, self.supply_phase)
        self._legal_cache: list[Action] | None = None

    # --- queries -----------------------------------------------------------------------------------

    def pending_decision(self) -> dict[str, Any] | None:
        """The decision the player to act must make before anything else, if any; while the game waits
        for a seat's entropy, ``{"stage": "entropy_commitment" or "entropy_reveal", "side": side}``."""
        waiting = self.entropy_wait() if self.seat_entropy.commitments else None
        if waiting:
            return {"stage": waiting[1], "side": waiting[0]}
        ps = self.ps
        if ps.pending:
            return ps.pending.to_json(self.board.ids)
        if ps.stack:
            hex_index, mover = ps.stack
            return {"stage": "unstack", "hex": self.board.ids[hex_index], "unit": self.at[hex_index],
                    "mover": mover}
        return None

    def in_communication(self, unit: str) -> bool:
        """Whether ``unit`` can trace a path to its side's edge without entering enemy units or zones."""
        return self.supply_phase.in_communication(self, unit)

    def communication_of(self, side: str) -> dict[str, bool]:
        """Each of ``side``'s units on the map -> :meth:`in_communication`, all at once (the side's region
        and edge looked up once, not once a unit, for an observation of every unit)."""
        return self.supply_phase.communication_of(self, side)

    def supply_trace_cost(self, unit: str) -> int | None:
        """War of Attrition: the extra supply points tracing supply to ``unit`` costs; None if out of supply."""
        return self.supply_phase.supply_trace_cost(self, unit)

    def battle_odds(self, defender: str, attackers: Iterable[str]) -> combat.Odds:
        """The odds a battle would be fought at now, with every shift the rules in force give (see
        :meth:`engine.combat_phase.CombatPhase.battle_odds`)."""
        return self.combat_phase.battle_odds(self, defender, attackers)

    def attack_strength(self, attackers: Iterable[str]) -> Fraction:
        """The attackers' total: their strengths and any Assault points bought, times the weather's
        attack factor (mud: halved, the fraction kept)."""
        return self.combat_phase.attack_strength(self, attackers)

    def battle_shifts(self, defender: str, attackers: Iterable[str]) -> list[combat.Shift]:
        """Each column shift of a battle with its cause (see :meth:`battle_odds` for when the optional
        ones are judged)."""
        return self.combat_phase.battle_shifts(self, defender, attackers)

    def preview_battle(self, defender: str, attackers: Iterable[str]) -> tuple[list[str], combat.Odds,
                                                                               list[combat.Shift]]:
        """The battle declaring ``DeclareAttack(attackers, defender)`` would make now: every attacker
        against ``defender`` (those declared before and these), its odds and the shifts giving them.
        Refused, with the declaration's own reason, when that declaration is not legal now; changes
        nothing.
        """
        squad = tuple(attackers)
        if self.outcome:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        self._check(DeclareAttack(squad, defender))
        every = [*self.ps.battles.get(defender, ()), *squad]
        rules = self.combat_phase
        return every, rules.battle_odds(self, defender, every), rules.battle_shifts(self, defender, every)

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
        pending = self.ps.pending
        if pending:
            return self.combat_phase.stage_choices(self, pending)
        kind = self.phase.kind
        if kind == "movement":
            return self.movement_phase.actions(self)
        if kind == "combat":
            return self.combat_phase.actions(self)
        if kind == "replacement":
            return self.replacement_phase.actions(self)
        if kind == "setup":
            return self.setup_phase.actions(self)
        return [END_PHASE]  # a supply phase loaded from a position: its effects are done

    # --- applying actions --------------------------------------------------------------------------

    def apply(self, action: Action | dict[str, Any]) -> list[Event]:
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
                                    f"{'commitment' if stage == 'entropy_commitment' else 'reveal'} "
                                    f"(engine/seat_entropy.py)")
        execute = self._check(action)
        self._events = []
        self._legal_cache = None
        execute()
        self._settle()
        events, self._events = self._events, []
        return events

    def _check(self, action: Action) -> Effect:
        """Validate ``action`` completely; return the function that carries it out."""
        if isinstance(action, (Resign, TimeForfeit)):
            side = action.side
            if side not in SIDES:
                raise IllegalAction(Reason.MALFORMED_ACTION, f"{side!r} is not a side")
            reason = f"{side} resigned" if isinstance(action, Resign) else "time"
            return lambda: self._finish(Result(other(side), reason, self.victory_points()))
        pending = self.ps.pending
        if pending:
            return self.combat_phase.check_decision(self, action, pending)
        kind = self.phase.kind
        if isinstance(action, EndPhase):
            if kind == "movement":
                self.movement_phase.check_end(self)
            elif kind == "replacement":
                self.replacement_phase.check_end(self)
            elif kind != "supply":
                raise self._wrong_phase(action)
            return self._next_phase
        if kind == "movement":
            return self.movement_phase.check(self, action)
        if kind == "combat":
            return self.combat_phase.check(self, action)
        if kind == "replacement":
            return self.replacement_phase.check(self, action)
        if kind == "setup":
            return self.setup_phase.check(self, action)
        raise self._wrong_phase(action)

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
            self.supply_phase.begin(self)
        elif phase.kind == "replacement":
            self.replacement_phase.begin(self)

    def _reset_phase_state(self) -> None:
        """A new phase state for the phase now (at its start, or when a position is loaded)."""
        self.ps = PhaseState()
        self.replacement_phase.reset(self)
        self.movement_phase.reset(self)

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

    def _settle(self) -> None:
        """Move on past every phase in which the player to act has nothing left to decide (keeping the
        legal actions it lists to find out, when the player has some)."""
        ps = self.ps
        while not self.outcome and not ps.pending and not ps.stack:
            kind = self.phase.kind
            if kind == "movement":
                actions = self.movement_phase.actions(self)
                done = len(actions) == 1  # only ending the phase (a stack is never settled: see the loop)
                if not done:
                    self._legal_cache = actions
            elif kind == "combat":
                rules = self.combat_phase
                if ps.declaring and not rules.possible_attacks(self):
                    if not ps.battles:
                        done = True
                    elif self.options.war_of_attrition and rules.assault_candidates(self):
                        done = False  # Assault may still be bought before the declarations close
                    else:
                        rules.close_declarations(self)
                        continue
                else:
                    done = not ps.declaring and not ps.battles
            elif kind == "replacement":
                actions = self.replacement_phase.actions(self)
                done = len(actions) == 1 and actions[0] is END_PHASE  # (ending the phase comes last)
                if not done:
                    self._legal_cache = actions
            elif kind == "supply":
                done = True
            else:  # set-up: done once every German counter is placed
                if not self.setup_phase.unplaced(self):
                    self.setup_phase.finish(self)
                    self._start_turn(self.scenario.first_turn)
                    ps = self.ps
                    continue
                done = False
            if not done:
                return
            self._next_phase()
            ps = self.ps

    # --- copies ------------------------------------------------------------------------------------

    def clone(self) -> Game:
        """An independent copy of this game: the same position, its phases with what they keep."""
        twin = Game(self.scenario, self.options, self.seed, self.fixed_dice, self.ruleset)
        self._copy_state(twin)
        self.supply_phase.copy_to(twin.supply_phase)
        self.movement_phase.copy_to(twin.movement_phase)
        self.combat_phase.copy_to(twin.combat_phase)
        twin._legal_cache = None if self._legal_cache is None else list(self._legal_cache)
        return twin


__all__ = ["Game", "new_game", "combat_table", "Pending", "PhaseState", "STATE_FORMAT"]
