"""Combat phases: all battles are declared, then resolved one at a time with the attacker's decisions.

A battle's result is carried out in stages (defender's step loss, the attacker's exchange losses, the
retreat, the advance); a stage with more than one choice waits for the attacker as a pending decision.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

from . import combat, retreat
from .actions import (
    Action, Advance, Assault, ChooseAttackerLoss, ChooseLosses, ChooseRetreat, CloseDeclarations, DeclareAttack,
    DeclineAdvance, ResolveBattle,
)
from .errors import IllegalAction, Reason
from .events import AssaultSupported, AttackDeclared, BattleResolved, DeclarationsClosed, UnitAdvanced, UnitRetreated
from .phase_state import Pending
from .sequence import other

if TYPE_CHECKING:
    from .game import Game  # noqa: F401

#: The stages each combat result goes through, in order.
RESULT_STAGES: dict[str, tuple[str, ...]] = {
    "DE": ("eliminate", "advance"),
    "DRL": ("defender_loss", "retreat", "advance"),
    "DR": ("retreat", "advance"),
    "EX": ("defender_loss", "exchange_losses", "retreat", "advance"),
    "AL": ("attacker_loss",),
    "NE": (),
}

_ANSWERS = {"exchange_losses": (ChooseLosses,), "attacker_loss": (ChooseAttackerLoss,),
            "retreat": (ChooseRetreat,), "advance": (Advance, DeclineAdvance)}


def answers_stage(action: Action, stage: str) -> bool:
    """Whether ``action`` is the kind of answer the pending ``stage`` waits for."""
    return isinstance(action, _ANSWERS[stage])


class CombatPhase:
    """Mixin of :class:`engine.game.Game`: declaring and resolving battles."""

    def _possible_attacks(self) -> list[tuple[str, str]]:
        """(attacker, defender) pairs that could still be declared (kept while no unit moves and no attacker
        is added: the phase's settling and its listing ask in turn)."""
        attacking = self.ps.attacking
        key = (self._positions["german"], self._positions["soviet"], self.turn, self.phase)
        cached = self._attacks_cache
        if cached is not None and cached[0] is self.ps and cached[1] == key:
            if cached[2] == len(attacking):
                return cached[3]
            # attackers added since, no unit moved: the same pairs less theirs, in the same order
            pairs = [pair for pair in cached[3] if pair[0] not in attacking]
        else:
            pairs = self._attacks_now()
        self._attacks_cache = (self.ps, key, len(attacking), pairs)
        return pairs

    def _attacks_now(self) -> list[tuple[str, str]]:
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
            declarations = self._declarations
            actions: list[Action] = []
            for pair in self._possible_attacks():
                declaration = declarations.get(pair)
                if declaration is None:
                    declaration = declarations[pair] = DeclareAttack((pair[0],), pair[1])
                actions.append(declaration)
            if self.options.war_of_attrition:
                actions.extend(Assault(a, 1) for a in self._assault_candidates())
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
        if isinstance(action, Assault):
            return self._check_assault(action)
        if isinstance(action, CloseDeclarations):
            if not ps.declaring:
                raise IllegalAction(Reason.DECLARATIONS_CLOSED, "the declarations are already closed")
            if self.crt.below_lowest == "not_allowed":
                for defender, attackers in ps.battles.items():
                    if self.battle_odds(defender, attackers).final < 0:
                        raise IllegalAction(Reason.ODDS_NOT_ALLOWED,
                                            f"the attack on {defender} falls below {self.crt.labels[0]}, which "
                                            f"the {self.crt.title} does not allow")
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
        # the optional shifts are judged now, when the defender is targeted and the attackers committed
        # (rulings 34 and 35), so the order the battles are resolved in cannot change them
        earned = self.ps.strongpoint_shifts
        if action.defender not in self.ps.battles and self._in_defensive_line(action.defender):
            earned.add(action.defender)
        if self.scenario.rules.first_shock in action.attackers and self._first_shock_supported():
            earned.add(self.scenario.rules.first_shock)
        self.ps.battles.setdefault(action.defender, []).extend(action.attackers)
        self.ps.attacking.update(action.attackers)
        self._emit(AttackDeclared(tuple(action.attackers), action.defender))

    def _close_declarations(self) -> None:
        self.ps.declaring = False
        self._emit(DeclarationsClosed(len(self.ps.battles)))

    def battle_odds(self, defender: str, attackers: Iterable[str]) -> combat.Odds:
        """The odds a battle would be fought at now, with every shift the rules in force give.

        The Stronger Soviet Defensive Line and Improved 1st Shock shifts of a declared battle are the
        ones judged at its declaration (rulings 34 and 35); for a battle not declared, they are judged on
        the position now.
        """
        attackers = list(attackers)
        shifts = self.battle_shifts(defender, attackers)
        left = -sum(s.columns for s in shifts if s.columns < 0)
        right = sum(s.columns for s in shifts if s.columns > 0)
        return combat.compute_odds(self.crt, self.attack_strength(attackers), self.strength(defender), left, right)

    def attack_strength(self, attackers: Iterable[str]) -> Fraction:
        """The attackers' total: their strengths and any Assault points bought, times the weather's
        attack factor (mud: halved, the fraction kept)."""
        attackers = list(attackers)
        assault = sum(self.ps.assault.get(a, 0) for a in attackers)
        return Fraction(sum(self.strength(a) for a in attackers) + assault) * self.weather().attack_factor

    def battle_shifts(self, defender: str, attackers: Iterable[str]) -> list[combat.Shift]:
        """Each column shift of a battle with its cause (see :meth:`battle_odds` for when the optional
        ones are judged)."""
        attackers = list(attackers)
        board, rules, ps = self.board, self.scenario.rules, self.ps
        target = self.hex_of[defender]
        shifts = []
        terrain = combat.defensive_terrain(board, target, self.side_of(defender))
        if terrain:
            in_line = defender in ps.strongpoint_shifts if defender in ps.battles else self._in_defensive_line(defender)
            shifts.append(combat.Shift(-rules.defensive_line_shift, "defensive_line") if in_line
                          else combat.Shift(-1, terrain))
        if combat.river_shift(board, target, [self.hex_of[a] for a in attackers]):
            shifts.append(combat.Shift(-1, "river"))
        if rules.tank in attackers:
            shifts.append(combat.Shift(rules.tank_shift, "tank"))
        shock = rules.first_shock
        if shock in attackers and (shock in ps.strongpoint_shifts if shock in ps.attacking
                                   else self._first_shock_supported()):
            shifts.append(combat.Shift(rules.first_shock_shift, "first_shock"))
        return shifts

    def preview_battle(self, defender: str, attackers: Iterable[str]) -> tuple[list[str], combat.Odds, list[combat.Shift]]:
        """The battle declaring ``DeclareAttack(attackers, defender)`` would make now: every attacker
        against ``defender`` (those declared before and these), its odds and the shifts giving them.
        Refused, with the declaration's own reason, when that declaration is not legal now; changes
        nothing.
        """
        attackers = tuple(attackers)
        if self.outcome:
            raise IllegalAction(Reason.GAME_OVER, "the game is over")
        self._check(DeclareAttack(attackers, defender))
        every = [*self.ps.battles.get(defender, ()), *attackers]
        return every, self.battle_odds(defender, every), self.battle_shifts(defender, every)

    def _strongpoint(self, hex_index: int) -> bool:
        return hex_index == self.board.capital or hex_index in self.board.forts

    def _in_defensive_line(self, unit: str) -> bool:
        """Stronger Soviet Defensive Line: a Soviet unit in Moscow or a fortification next to another
        Soviet unit also in one (and the option on)."""
        if not self.options.stronger_defensive_line or self.side_of(unit) != "soviet":
            return False
        here = self.hex_of[unit]
        if not self._strongpoint(here):
            return False
        return any(self._strongpoint(n) and (friend := self.at.get(n)) is not None and self.side_of(friend) == "soviet"
                   for n in self.board.neighbours[here])

    def _first_shock_supported(self) -> bool:
        """Improved 1st Shock: the 1st Shock stands in Moscow or a fortification and is in communication
        (and the option on)."""
        shock = self.scenario.rules.first_shock
        return (self.options.improved_first_shock and shock in self.hex_of
                and self._strongpoint(self.hex_of[shock]) and self.in_communication(shock))

    def _assault_candidates(self) -> list[str]:
        """Declared attackers that could take one more point of Assault now."""
        side = self.phase.side
        if self.supply[side] < 1:
            return []
        return [a for a in self.counters if a in self.ps.attacking and self._assault_refusal(a, 1) is None]

    def _assault_refusal(self, unit: str, points: int) -> IllegalAction | None:
        if unit not in self.ps.attacking:
            return IllegalAction(Reason.NOT_ATTACKING, f"unit {unit} is not a declared attacker")
        bought = self.ps.assault.get(unit, 0)
        cap = self.strength(unit)
        if bought + points > cap:
            return IllegalAction(Reason.LIMIT_REACHED, f"unit {unit} can take at most {cap} points of Assault "
                                                       f"(its printed strength); it has {bought}")
        trace = self.supply_trace_cost(unit)
        if trace is None:
            return IllegalAction(Reason.NOT_IN_SUPPLY, f"unit {unit} is not in supply")
        cost = points + (trace if unit not in self.ps.assault else 0)
        side = self.side_of(unit)
        if cost > self.supply[side]:
            return IllegalAction(Reason.NOT_ENOUGH_SUPPLY, f"Assault for {unit} costs {cost} supply points and the "
                                                           f"{side} player has {self.supply[side]}")
        return None

    def _check_assault(self, action: Assault):
        if not self.options.war_of_attrition:
            raise IllegalAction(Reason.WRONG_PHASE, "Assault is part of the War of Attrition variant, which is off")
        if not self.ps.declaring:
            raise IllegalAction(Reason.DECLARATIONS_CLOSED, "Assault is bought while battles are declared")
        self._own_unit(action.unit)
        if action.points < 1:
            raise IllegalAction(Reason.MALFORMED_ACTION, "Assault buys at least one point")
        refusal = self._assault_refusal(action.unit, action.points)
        if refusal:
            raise refusal
        return lambda: self._assault(action.unit, action.points)

    def _assault(self, unit: str, points: int) -> None:
        trace = self.supply_trace_cost(unit) if unit not in self.ps.assault else 0
        cost = points + trace
        self.ps.assault[unit] = self.ps.assault.get(unit, 0) + points
        self._spend_supply(self.side_of(unit), cost, f"assault by {unit}")
        self._emit(AssaultSupported(unit, points, cost))

    def _resolve(self, defender: str) -> None:
        odds = self.battle_odds(defender, self.ps.battles[defender])
        attackers = tuple(self.ps.battles.pop(defender))
        crt = self.crt
        if odds.final < 0:
            self._emit(BattleResolved(defender, attackers, str(odds.attack), odds.defence, odds.raw_label(crt),
                                      odds.shifts, "below", "NE"))
            return
        roll = self._roll(f"combat against {defender}")
        result = crt.result(odds.final, roll)
        self._emit(BattleResolved(defender, attackers, str(odds.attack), odds.defence, odds.raw_label(crt),
                                  odds.shifts, crt.labels[odds.final], result, roll))
        self._run(Pending("", defender, attackers, self.hex_of[defender], 0, RESULT_STAGES[result]))

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
            if stage == "advance" and context.hex in self.at:
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
        """Where ``unit`` may retreat now (kept while no unit moves: a battle's stage, its listing, the check
        of the choice and the retreat itself all ask)."""
        key = (unit, self._positions["german"], self._positions["soviet"])
        cached = self._retreat_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        options = self._retreat_options_now(unit)
        self._retreat_cache = (key, options)
        return options

    def _retreat_options_now(self, unit: str) -> retreat.RetreatOptions:
        side = self.side_of(unit)
        enemy = other(side)
        start = self.hex_of[unit]
        friendly = {h for h, u in self.at.items() if u != unit and self.counters[u].side == side}
        return retreat.retreat_options(self.board, start, friendly, self._units_of(enemy), self._zoc(enemy),
                                       ruleset=self.ruleset)

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
