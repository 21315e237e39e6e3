"""Combat phases: all battles are declared, then resolved one at a time with the attacker's decisions.

A battle's result is carried out in stages (defender's step loss, the attacker's exchange losses, the
retreat, the advance); a stage with more than one choice waits for the attacker as a pending decision.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final, Iterable

from . import combat, retreat
from .actions import (
    CLOSE_DECLARATIONS, DECLINE_ADVANCE, Action, Advance, Assault, ChooseAttackerLoss, ChooseLosses, ChooseRetreat,
    CloseDeclarations, DeclareAttack, DeclineAdvance, ResolveBattle, shared,
)
from .errors import IllegalAction, Reason
from .events import AssaultSupported, AttackDeclared, BattleResolved, DeclarationsClosed, UnitAdvanced, UnitRetreated
from .phase_state import Pending
from .sequence import other
from .state import Effect, GameState
from .supply_phase import SupplyPhase

#: The stages each combat result goes through, in order.
RESULT_STAGES: Final[dict[str, tuple[str, ...]]] = {
    "DE": ("eliminate", "advance"),
    "DRL": ("defender_loss", "retreat", "advance"),
    "DR": ("retreat", "advance"),
    "EX": ("defender_loss", "exchange_losses", "retreat", "advance"),
    "AL": ("attacker_loss",),
    "NE": (),
}

_ANSWERS: Final[dict[str, tuple[type[Action], ...]]] = {"exchange_losses": (ChooseLosses,), "attacker_loss": (ChooseAttackerLoss,),
            "retreat": (ChooseRetreat,), "advance": (Advance, DeclineAdvance)}


def answers_stage(action: Action, stage: str) -> bool:
    """Whether ``action`` is the kind of answer the pending ``stage`` waits for."""
    return isinstance(action, _ANSWERS[stage])


#: The shared actions of a unit (see actions.shared).
_RESOLVE: Final[dict[str, ResolveBattle]] = {}
_ATTACKER_LOSS: Final[dict[str, ChooseAttackerLoss]] = {}
_ADVANCE: Final[dict[str, Advance]] = {}
_ASSAULT: Final[dict[str, Assault]] = {}


def _one_point_of_assault(unit: str) -> Assault:
    return Assault(unit, 1)


#: What each pending stage waits for, in words.
_WANTED: Final = {"exchange_losses": "choose_losses", "attacker_loss": "choose_attacker_loss",
           "retreat": "choose_retreat", "advance": "advance or decline_advance"}


class CombatPhase:
    """Declaring and resolving battles (with the game's supply rules: communication and Assault).

    Like every phase, it keeps what it worked out between actions and is given the game each call (it holds
    no reference to it, so that a game and its phases are freed as soon as the game is dropped)."""

    def __init__(self, supplies: SupplyPhase) -> None:
        self.supplies = supplies
        self._attacks_cache: tuple[object, tuple[int, int, int, object], int, list[tuple[str, str]]] | None = None
        self._retreat_cache: tuple[tuple[str, int, int], retreat.RetreatOptions] | None = None
        self._declarations: dict[tuple[str, str], DeclareAttack] = {}  # shared DeclareAttack values (immutable)

    def copy_to(self, twin: CombatPhase) -> None:
        """Give ``twin`` (the combat rules of a copy of this game) what this one keeps."""
        twin._retreat_cache = self._retreat_cache  # (the possible attacks are kept for this game's phase state)
        twin._declarations = self._declarations

    def possible_attacks(self, game: GameState) -> list[tuple[str, str]]:
        """(attacker, defender) pairs that could still be declared (kept while no unit moves and no attacker
        is added: the phase's settling and its listing ask in turn)."""
        ps = game.ps
        attacking = ps.attacking
        key = (game._positions["german"], game._positions["soviet"], game.turn, game.phase)
        cached = self._attacks_cache
        if cached is not None and cached[0] is ps and cached[1] == key:
            if cached[2] == len(attacking):
                return cached[3]
            # attackers added since, no unit moved: the same pairs less theirs, in the same order
            pairs = [pair for pair in cached[3] if pair[0] not in attacking]
        else:
            pairs = self._attacks_now(game)
        self._attacks_cache = (ps, key, len(attacking), pairs)
        return pairs

    def _attacks_now(self, game: GameState) -> list[tuple[str, str]]:
        side = game.phase.side
        at, counters, neighbours = game.at, game.counters, game.board.neighbours
        attacking = game.ps.attacking
        hex_of = game.hex_of
        enemies = game._masks(other(side))[0]
        pairs = []
        for unit, counter in counters.items():
            if counter.side != side or unit not in hex_of or unit in attacking:
                continue
            for n in neighbours[hex_of[unit]]:
                if enemies[n]:
                    pairs.append((unit, at[n]))
        return pairs

    def actions(self, game: GameState) -> list[Action]:
        if game.ps.declaring:
            declarations = self._declarations
            actions: list[Action] = []
            for pair in self.possible_attacks(game):
                declaration = declarations.get(pair)
                if declaration is None:
                    declaration = declarations[pair] = DeclareAttack((pair[0],), pair[1])
                actions.append(declaration)
            if game.options.war_of_attrition:
                actions.extend(shared(_ASSAULT, _one_point_of_assault, a) for a in self.assault_candidates(game))
            actions.append(CLOSE_DECLARATIONS)
            return actions
        return [shared(_RESOLVE, ResolveBattle, d) for d in game.ps.battles]

    def check(self, game: GameState, action: Action) -> Effect:
        """Validate a declaration, Assault, the close of the declarations or a battle's resolution completely;
        return what carries it out."""
        ps = game.ps
        if isinstance(action, DeclareAttack):
            if not ps.declaring:
                raise IllegalAction(Reason.DECLARATIONS_CLOSED, "battles can no longer be declared in this phase")
            defender = game.counters.get(action.defender)
            if defender is None:
                raise IllegalAction(Reason.UNKNOWN_UNIT, f"there is no unit {action.defender!r}")
            if defender.side == game.phase.side or action.defender not in game.hex_of:
                raise IllegalAction(Reason.NOT_ADJACENT, f"{action.defender} is not an enemy unit on the map")
            if not action.attackers or len(set(action.attackers)) != len(action.attackers):
                raise IllegalAction(Reason.MALFORMED_ACTION, "a battle needs one or more different attackers")
            target = game.hex_of[action.defender]
            board = game.board
            for unit in action.attackers:
                game._own_unit(unit)
                if unit in ps.attacking:
                    raise IllegalAction(Reason.ALREADY_ATTACKING, f"unit {unit} already attacks in this phase")
                if not board.adjacent(game.hex_of[unit], target):
                    raise IllegalAction(Reason.NOT_ADJACENT, f"unit {unit} in {board.ids[game.hex_of[unit]]} "
                                                             f"is not adjacent to {action.defender} in "
                                                             f"{board.ids[target]}")
            declared = action
            return lambda: self._declare(game, declared)
        if isinstance(action, Assault):
            return self._check_assault(game, action)
        if isinstance(action, CloseDeclarations):
            if not ps.declaring:
                raise IllegalAction(Reason.DECLARATIONS_CLOSED, "the declarations are already closed")
            crt = game.crt
            if crt.below_lowest == "not_allowed":
                for defender_id, attackers in ps.battles.items():
                    if self.battle_odds(game, defender_id, attackers).final < 0:
                        raise IllegalAction(Reason.ODDS_NOT_ALLOWED,
                                            f"the attack on {defender_id} falls below {crt.labels[0]}, which "
                                            f"the {crt.title} does not allow")
            return lambda: self.close_declarations(game)
        if isinstance(action, ResolveBattle):
            if ps.declaring:
                raise IllegalAction(Reason.DECLARATIONS_OPEN,
                                    "all battles are announced before any is resolved: close the declarations first")
            if action.defender not in ps.battles:
                raise IllegalAction(Reason.NO_SUCH_BATTLE, f"no battle against {action.defender!r} waits to be resolved")
            resolved = action.defender
            return lambda: self._resolve(game, resolved)
        raise game._wrong_phase(action)

    def _declare(self, game: GameState, action: DeclareAttack) -> None:
        # the optional shifts are judged now, when the defender is targeted and the attackers committed
        # (rulings 34 and 35), so the order the battles are resolved in cannot change them
        ps = game.ps
        earned = ps.strongpoint_shifts
        if action.defender not in ps.battles and self.in_defensive_line(game, action.defender):
            earned.add(action.defender)
        shock = game.scenario.rules.first_shock
        if shock in action.attackers and self.first_shock_supported(game):
            earned.add(shock)
        ps.battles.setdefault(action.defender, []).extend(action.attackers)
        ps.attacking.update(action.attackers)
        game._emit(AttackDeclared(tuple(action.attackers), action.defender))

    def close_declarations(self, game: GameState) -> None:
        ps = game.ps
        ps.declaring = False
        game._emit(DeclarationsClosed(len(ps.battles)))

    def battle_odds(self, game: GameState, defender: str, attackers: Iterable[str]) -> combat.Odds:
        """The odds a battle would be fought at now, with every shift the rules in force give.

        The Stronger Soviet Defensive Line and Improved 1st Shock shifts of a declared battle are the
        ones judged at its declaration (rulings 34 and 35); for a battle not declared, they are judged on
        the position now.
        """
        squad = list(attackers)
        shifts = self.battle_shifts(game, defender, squad)
        left = -sum(s.columns for s in shifts if s.columns < 0)
        right = sum(s.columns for s in shifts if s.columns > 0)
        return combat.compute_odds(game.crt, self.attack_strength(game, squad), game.strength(defender), left, right)

    def attack_strength(self, game: GameState, attackers: Iterable[str]) -> Fraction:
        """The attackers' total: their strengths and any Assault points bought, times the weather's
        attack factor (mud: halved, the fraction kept)."""
        squad = list(attackers)
        bought = game.ps.assault
        assault = sum(bought.get(a, 0) for a in squad)
        return Fraction(sum(game.strength(a) for a in squad) + assault) * game.weather().attack_factor

    def battle_shifts(self, game: GameState, defender: str, attackers: Iterable[str]) -> list[combat.Shift]:
        """Each column shift of a battle with its cause (see :meth:`battle_odds` for when the optional
        ones are judged)."""
        squad = list(attackers)
        board, rules, ps, hex_of = game.board, game.scenario.rules, game.ps, game.hex_of
        target = hex_of[defender]
        shifts = []
        terrain = combat.defensive_terrain(board, target, game.side_of(defender))
        if terrain:
            in_line = defender in ps.strongpoint_shifts if defender in ps.battles else self.in_defensive_line(game, defender)
            shifts.append(combat.Shift(-rules.defensive_line_shift, "defensive_line") if in_line
                          else combat.Shift(-1, terrain))
        if combat.river_shift(board, target, [hex_of[a] for a in squad]):
            shifts.append(combat.Shift(-1, "river"))
        if rules.tank in squad:
            shifts.append(combat.Shift(rules.tank_shift, "tank"))
        shock = rules.first_shock
        if shock in squad and (shock in ps.strongpoint_shifts if shock in ps.attacking
                                   else self.first_shock_supported(game)):
            shifts.append(combat.Shift(rules.first_shock_shift, "first_shock"))
        return shifts

    def _strongpoint(self, game: GameState, hex_index: int) -> bool:
        board = game.board
        return hex_index == board.capital or hex_index in board.forts

    def in_defensive_line(self, game: GameState, unit: str) -> bool:
        """Stronger Soviet Defensive Line: a Soviet unit in Moscow or a fortification next to another
        Soviet unit also in one (and the option on)."""
        if not game.options.stronger_defensive_line or game.side_of(unit) != "soviet":
            return False
        here = game.hex_of[unit]
        if not self._strongpoint(game, here):
            return False
        return any(self._strongpoint(game, n) and (friend := game.at.get(n)) is not None and game.side_of(friend) == "soviet"
                   for n in game.board.neighbours[here])

    def first_shock_supported(self, game: GameState) -> bool:
        """Improved 1st Shock: the 1st Shock stands in Moscow or a fortification and is in communication
        (and the option on)."""
        shock = game.scenario.rules.first_shock
        return (game.options.improved_first_shock and shock in game.hex_of
                and self._strongpoint(game, game.hex_of[shock]) and self.supplies.in_communication(game, shock))

    def assault_candidates(self, game: GameState) -> list[str]:
        """Declared attackers that could take one more point of Assault now."""
        if game.supply[game.phase.side] < 1:
            return []
        attacking = game.ps.attacking
        return [a for a in game.counters if a in attacking and self._assault_refusal(game, a, 1) is None]

    def _assault_refusal(self, game: GameState, unit: str, points: int) -> IllegalAction | None:
        if unit not in game.ps.attacking:
            return IllegalAction(Reason.NOT_ATTACKING, f"unit {unit} is not a declared attacker")
        bought = game.ps.assault.get(unit, 0)
        cap = game.strength(unit)
        if bought + points > cap:
            return IllegalAction(Reason.LIMIT_REACHED, f"unit {unit} can take at most {cap} points of Assault "
                                                       f"(its printed strength); it has {bought}")
        trace = self.supplies.supply_trace_cost(game, unit)
        if trace is None:
            return IllegalAction(Reason.NOT_IN_SUPPLY, f"unit {unit} is not in supply")
        cost = points + (trace if unit not in game.ps.assault else 0)
        side = game.side_of(unit)
        if cost > game.supply[side]:
            return IllegalAction(Reason.NOT_ENOUGH_SUPPLY, f"Assault for {unit} costs {cost} supply points and the "
                                                           f"{side} player has {game.supply[side]}")
        return None

    def _check_assault(self, game: GameState, action: Assault) -> Effect:
        if not game.options.war_of_attrition:
            raise IllegalAction(Reason.WRONG_PHASE, "Assault is part of the War of Attrition variant, which is off")
        if not game.ps.declaring:
            raise IllegalAction(Reason.DECLARATIONS_CLOSED, "Assault is bought while battles are declared")
        game._own_unit(action.unit)
        if action.points < 1:
            raise IllegalAction(Reason.MALFORMED_ACTION, "Assault buys at least one point")
        refusal = self._assault_refusal(game, action.unit, action.points)
        if refusal:
            raise refusal
        unit, points = action.unit, action.points
        return lambda: self._assault(game, unit, points)

    def _assault(self, game: GameState, unit: str, points: int) -> None:
        bought = game.ps.assault
        trace = 0
        if unit not in bought:
            trace = self.supplies.supply_trace_cost(game, unit) or 0  # in supply: checked before
        cost = points + trace
        bought[unit] = bought.get(unit, 0) + points
        self.supplies.spend(game, game.side_of(unit), cost, f"assault by {unit}")
        game._emit(AssaultSupported(unit, points, cost))

    def _resolve(self, game: GameState, defender: str) -> None:
        battles = game.ps.battles
        odds = self.battle_odds(game, defender, battles[defender])
        attackers = tuple(battles.pop(defender))
        crt = game.crt
        if odds.final < 0:
            game._emit(BattleResolved(defender, attackers, str(odds.attack), odds.defence, odds.raw_label(crt),
                                      odds.shifts, "below", "NE"))
            return
        roll = game._roll(f"combat against {defender}")
        result = crt.result(odds.final, roll)
        game._emit(BattleResolved(defender, attackers, str(odds.attack), odds.defence, odds.raw_label(crt),
                                  odds.shifts, crt.labels[odds.final], result, roll))
        self._run(game, Pending("", defender, attackers, game.hex_of[defender], 0, RESULT_STAGES[result]))

    def _run(self, game: GameState, context: Pending) -> None:
        """Carry a battle's result through its stages until one needs the attacker's decision."""
        game.ps.pending = None
        while context.then:
            stage, context.then = context.then[0], context.then[1:]
            context.stage = stage
            defender = context.defender
            alive = defender in game.hex_of
            if stage == "eliminate":
                game._eliminate(defender, "combat")
                continue
            if stage == "defender_loss":
                context.required = combat.step_loss(game.counters[defender], defender not in game.reduced)
                game._lose_step(defender, "combat")
                continue
            if stage == "retreat" and alive:
                options = self._retreat_options(game, defender)
                if not options.paths:
                    game._eliminate(defender, "no retreat path")
                    continue
                if options.through_zoc and defender in game.reduced:
                    game._eliminate(defender, "retreat through enemy zone of control")
                    continue
            if stage == "retreat" and not alive:
                continue
            if stage == "advance" and context.hex in game.at:
                continue
            choices = self.stage_choices(game, context)
            if not choices:
                continue
            if len(choices) == 1 and stage != "advance":
                self._decide(game, context, choices[0], chained=True)
                continue
            game.ps.pending = context
            return

    def check_decision(self, game: GameState, action: Action, pending: Pending) -> Effect:
        """Validate the answer to the battle waiting for a decision; return what carries it out."""
        choices = self.stage_choices(game, pending)
        if isinstance(action, ChooseLosses):
            wanted = sorted(action.units)
            action = next((c for c in choices if isinstance(c, ChooseLosses) and sorted(c.units) == wanted), action)
        if action not in choices:
            raise IllegalAction(Reason.DECISION_PENDING if not answers_stage(action, pending.stage)
                                else Reason.NOT_A_CHOICE, self._pending_refusal(game, action, pending))
        chosen = action
        return lambda: self._decide(game, pending, chosen)

    def _pending_refusal(self, game: GameState, action: Action, pending: Pending) -> str:
        if answers_stage(action, pending.stage):
            return (f"{action.type} is not one of the choices for the battle against {pending.defender}; "
                    f"see the legal actions")
        return (f"the battle against {pending.defender} waits for a {_WANTED[pending.stage]} decision, "
                f"not {action.type}")

    def stage_choices(self, game: GameState, context: Pending) -> list[Action]:
        """The attacker's choices at the stage a battle waits at."""
        stage = context.stage
        hex_of = game.hex_of
        attackers = [a for a in context.attackers if a in hex_of]
        ids = game.board.ids
        if stage == "exchange_losses":
            reduced, counters = game.reduced, game.counters
            squad = [(a, counters[a], a not in reduced) for a in attackers]
            return [ChooseLosses(choice) for choice in combat.exchange_choices(squad, context.required)]
        if stage == "attacker_loss":
            return [shared(_ATTACKER_LOSS, ChooseAttackerLoss, a) for a in attackers]
        if stage == "retreat":
            return [ChooseRetreat(tuple(ids[h] for h in path))
                    for path in self._retreat_options(game, context.defender).paths]
        if stage == "advance":
            if not attackers:
                return []
            return [*(shared(_ADVANCE, Advance, a) for a in attackers), DECLINE_ADVANCE]
        raise AssertionError(stage)

    def _retreat_options(self, game: GameState, unit: str) -> retreat.RetreatOptions:
        """Where ``unit`` may retreat now (kept while no unit moves: a battle's stage, its listing, the check
        of the choice and the retreat itself all ask)."""
        positions = game._positions
        key = (unit, positions["german"], positions["soviet"])
        cached = self._retreat_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        options = self._retreat_options_now(game, unit)
        self._retreat_cache = (key, options)
        return options

    def _retreat_options_now(self, game: GameState, unit: str) -> retreat.RetreatOptions:
        side = game.side_of(unit)
        enemy = other(side)
        start = game.hex_of[unit]
        counters = game.counters
        friendly = {h for h, u in game.at.items() if u != unit and counters[u].side == side}
        return retreat.retreat_options(game.board, start, friendly, game._units_of(enemy), game._zoc(enemy),
                                       ruleset=game.ruleset)

    def _decide(self, game: GameState, context: Pending, action: Action, chained: bool = False) -> None:
        if isinstance(action, ChooseLosses):
            for unit in action.units:
                if unit in game.hex_of:
                    game._lose_step(unit, "exchange")
        elif isinstance(action, ChooseAttackerLoss):
            game._lose_step(action.unit, "attacker loss")
        elif isinstance(action, ChooseRetreat):
            self._retreat(game, context.defender, tuple(game.board.index[h] for h in action.path))
        elif isinstance(action, Advance):
            ids = game.board.ids
            start = game._lift(action.unit)
            game._put(action.unit, context.hex)
            game._emit(UnitAdvanced(action.unit, ids[start], ids[context.hex]))
            game._enter_city(action.unit, context.hex)
        if not chained:
            self._run(game, context)

    def _retreat(self, game: GameState, unit: str, path: tuple[int, ...]) -> None:
        options = self._retreat_options(game, unit)
        start = game._lift(unit)
        game._put(unit, path[-1])
        ids = game.board.ids
        game._emit(UnitRetreated(unit, ids[start], tuple(ids[h] for h in path), options.through_zoc))
        for hex_index in path:
            game._enter_city(unit, hex_index)
        if options.through_zoc:
            game._lose_step(unit, "retreat through enemy zone of control")
