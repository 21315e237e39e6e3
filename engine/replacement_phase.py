"""Replacement phases: replacement points, where units come back, and what else the phase holds.

On snow turns the phase opens with the Winter Attrition roll (and Frostbite losses); on the campaign's
Tank turn the Soviet player may designate the Tank unit; in the War of Attrition a player may buy
extra supply with replacement points.
"""

from __future__ import annotations

from typing import Final

from itertools import filterfalse

from .actions import (
    BUY_EXTRA_SUPPLY, BUY_WINTER_GEAR, END_PHASE, ROLL_ATTRITION, Action, BuyExtraSupply, BuyWinterGear,
    ChooseFrostbite, DesignateTank, Replace, Restore, RollAttrition, action_table, shared,
)
from .errors import IllegalAction, Reason
from .events import (
    ReplacementPointsReceived, TankDesignated, UnitAvailable, UnitReplaced, UnitRestored, WinterAttrition,
    WinterGearBought,
)
from .phase_state import PhaseState
from .sequence import other
from .state import Effect, GameState
from .supply_phase import SupplyPhase
from .zones import in_communication


#: The shared actions of a unit (see actions.shared).
_RESTORE: Final[dict[str, Restore]] = {}
_DESIGNATE: Final[dict[str, DesignateTank]] = {}
_FROSTBITE: Final[dict[str, ChooseFrostbite]] = {}


class ReplacementPhase:
    """Spending replacement points, winter attrition and the Tank unit (with the game's supply rules:
    communication, Winter Gear and extra supply)."""

    def __init__(self, game: GameState, supplies: SupplyPhase) -> None:
        self.supplies = supplies
        self._replace_table = action_table(Replace, game.board.ids, game.counters)
        self._entries_cache: tuple[PhaseState, tuple[str, int, int], tuple[list[int], dict[str, bool]]] | None = None

    def reset(self, game: GameState) -> None:
        """A phase starts (or a position is loaded): a replacement phase's points and winter attrition rolls."""
        if game.phase.kind == "replacement":
            side = game.phase.side
            game.ps.points = self.replacement_points(game, side)
            game.ps.attrition_rolls = self._attrition_rolls(game, side)

    def replacement_points(self, game: GameState, side: str) -> int:
        """The turn track's points for ``side``, after the options that change them."""
        points = game.scenario.turns[game.turn].replacements[side]
        if side == "german" and game.options.german_logistics and game.turn not in game.scenario.rules.logistics_turns:
            return 0
        if side == "soviet":
            points = min(points, game.options.soviet_replacements)
        return points

    def begin(self, game: GameState) -> None:
        """The phase's own steps: Variable Weather (German, without the War of Attrition), the points
        received, Possible Early 1st Shock, Winter Attrition."""
        ps = game.ps
        side, rules, options = game.phase.side, game.scenario.rules, game.options
        if side == "german" and not options.war_of_attrition:
            self.supplies.roll_variable_weather(game)
        if ps.points:
            game._emit(ReplacementPointsReceived(side, ps.points))
        shock = rules.first_shock
        if (side == "soviet" and options.early_first_shock and game.turn == rules.early_first_shock_turn
                and game.pool.get(shock, 0) > game.turn):
            if game._roll("Possible Early 1st Shock") >= rules.early_first_shock_roll:
                game.pool[shock] = game.turn
                game._emit(UnitAvailable(shock, "Possible Early 1st Shock"))
        ps.attrition_rolls = self._attrition_rolls(game, side)  # Variable Weather may have brought snow
        if ps.attrition_rolls and not options.war_of_attrition:  # no Winter Gear to decide on first
            self._roll_attrition(game)

    def _attrition_rolls(self, game: GameState, side: str) -> int:
        """Rolls on the Winter Attrition Table ``side`` makes this replacement phase."""
        rules = game.scenario.rules
        if not game.weather().winter_attrition:
            return 0
        if game.options.harsher_winter and side == "german" and game.turn in rules.harsher_winter_turns:
            return rules.harsher_winter_german_rolls
        return 1

    # --- winter attrition --------------------------------------------------------------------------

    def _roll_attrition(self, game: GameState) -> None:
        side, ps = game.phase.side, game.ps
        tables = game.scenario.winter_attrition
        assert tables is not None  # a scenario with snow has a Winter Attrition Table (checked when loaded)
        table = tables[side]
        for _ in range(ps.attrition_rolls):
            roll = game._roll(f"winter attrition ({side})")
            if not table[roll]:
                result = "no_effect"
            elif ps.winter_gear:
                ps.winter_gear -= 1
                result = "cancelled"
            else:
                ps.frostbite += 1
                result = "frostbite"
            game._emit(WinterAttrition(side, roll, result))
        ps.attrition_rolls = 0
        ps.winter_gear = 0
        self._take_forced_frostbite(game)

    def _frostbite_candidates(self, game: GameState) -> list[str]:
        side, hex_of = game.phase.side, game.hex_of
        own = [u for u, c in game.counters.items() if c.side == side and u in hex_of]
        if game.options.harsher_winter:
            full = [u for u in own if u not in game.reduced]
            if full:
                return full
        return own

    def _take_forced_frostbite(self, game: GameState) -> None:
        """Frostbite with no choice to make: the only unit there is, or none at all."""
        while game.ps.frostbite:
            candidates = self._frostbite_candidates(game)
            if len(candidates) > 1:
                return
            game.ps.frostbite -= 1
            if candidates:
                game._lose_step(candidates[0], "frostbite", scores=False)

    # --- actions -----------------------------------------------------------------------------------

    def actions(self, game: GameState) -> list[Action]:
        side, ps = game.phase.side, game.ps
        if ps.attrition_rolls:
            if game.options.war_of_attrition and ps.winter_gear < ps.attrition_rolls:
                cost = self._winter_gear_cost(game, side)
                if cost is not None and game.supply[side] >= cost:
                    return [BUY_WINTER_GEAR, ROLL_ATTRITION]
            return [ROLL_ATTRITION]
        if ps.frostbite:
            return [shared(_FROSTBITE, ChooseFrostbite, u) for u in self._frostbite_candidates(game)]
        actions: list[Action] = []
        if ps.points > 0:
            entries = self._entry_hexes(game, side)
            counters, pool, hex_of, turn, table = game.counters, game.pool, game.hex_of, game.turn, self._replace_table
            for unit, counter in counters.items():
                if counter.side == side and pool.get(unit, turn + 1) <= turn:
                    actions.extend(map(table[unit].__getitem__, entries))
            actions.extend(shared(_RESTORE, Restore, u) for u, c in counters.items()
                           if c.side == side and u in hex_of and self._restorable(game, u))
            if self._tank_refusal(game) is None:
                actions.extend(shared(_DESIGNATE, DesignateTank, u) for u in counters
                               if u in hex_of and self._tank_candidate_refusal(game, u) is None)
            if game.options.war_of_attrition and ps.extra_supply < game.scenario.rules.extra_supply_max:
                actions.append(BUY_EXTRA_SUPPLY)
        actions.append(END_PHASE)
        return actions

    def check_end(self, game: GameState) -> None:
        """Refuse ending the phase before its Winter Attrition is rolled and its Frostbite taken."""
        ps = game.ps
        if ps.attrition_rolls:
            raise IllegalAction(Reason.ATTRITION_FIRST, "roll for winter attrition first")
        if ps.frostbite:
            raise IllegalAction(Reason.ATTRITION_FIRST,
                                f"choose the unit that loses a step to frostbite first ({ps.frostbite} to go)")

    def check(self, game: GameState, action: Action) -> Effect:
        """Validate an action of the phase completely (ending it is :meth:`check_end`); return what carries
        it out."""
        side, ps = game.phase.side, game.ps
        if isinstance(action, (BuyWinterGear, RollAttrition)):
            return self._check_attrition(game, action)
        if ps.attrition_rolls:
            raise IllegalAction(Reason.ATTRITION_FIRST, "roll for winter attrition first")
        if isinstance(action, ChooseFrostbite):
            return self._check_frostbite(game, action)
        if ps.frostbite:
            raise IllegalAction(Reason.ATTRITION_FIRST,
                                f"choose the unit that loses a step to frostbite first ({ps.frostbite} to go)")
        if not isinstance(action, (Replace, Restore, DesignateTank, BuyExtraSupply)):
            raise game._wrong_phase(action)
        if ps.points <= 0:
            raise IllegalAction(Reason.NO_REPLACEMENT_POINTS, f"the {side} player has no replacement points left")
        if isinstance(action, BuyExtraSupply):
            return self._check_extra_supply(game)
        if isinstance(action, DesignateTank):
            return self._check_tank(game, action)
        unit = action.unit
        if isinstance(action, Replace):
            game._own_unit(unit, on_map=False)
            hex_index = game._hex(action.hex)
            if unit not in game.pool:
                raise IllegalAction(Reason.NOT_IN_POOL, f"unit {unit} is not in the replacement pool")
            if game.pool[unit] > game.turn:
                raise IllegalAction(Reason.NOT_AVAILABLE_YET,
                                    f"unit {unit} may not be taken as a replacement until turn {game.pool[unit]}")
            if hex_index in game.at:
                raise IllegalAction(Reason.HEX_OCCUPIED, f"{action.hex} holds unit {game.at[hex_index]}")
            if hex_index not in self._entry_hexes(game, side):
                raise IllegalAction(*self._entry_refusal(game, side, hex_index))
            return lambda: self._replace(game, unit, hex_index)
        game._own_unit(unit)
        if unit not in game.reduced:
            raise IllegalAction(Reason.ALREADY_FULL_STRENGTH, f"unit {unit} is already at full strength")
        if unit in ps.replaced:
            raise IllegalAction(Reason.REPLACED_THIS_PHASE,
                                f"unit {unit} came back this phase; no unit goes from eliminated to full "
                                f"strength in one phase")
        if not self._restorable(game, unit):
            raise IllegalAction(Reason.NOT_IN_COMMUNICATION,
                                f"unit {unit} in {game.board.ids[game.hex_of[unit]]} is not in communication "
                                f"with the {'east' if side == 'soviet' else 'west'} edge")
        return lambda: self._restore(game, unit)

    def _check_attrition(self, game: GameState, action: Action) -> Effect:
        side, ps = game.phase.side, game.ps
        if not ps.attrition_rolls:
            raise IllegalAction(Reason.WRONG_PHASE, "there is no winter attrition roll to make now")
        if isinstance(action, RollAttrition):
            return lambda: self._roll_attrition(game)
        if not game.options.war_of_attrition:
            raise IllegalAction(Reason.WRONG_PHASE, "Winter Gear is part of the War of Attrition variant, which is off")
        if ps.winter_gear >= ps.attrition_rolls:
            raise IllegalAction(Reason.LIMIT_REACHED, "Winter Gear is already bought for every roll of this phase")
        cost = self._winter_gear_cost(game, side)
        if cost is None:
            raise IllegalAction(Reason.NOT_IN_SUPPLY, f"no {side} unit is in supply to receive Winter Gear")
        if game.supply[side] < cost:
            raise IllegalAction(Reason.NOT_ENOUGH_SUPPLY, f"Winter Gear costs {cost} supply points "
                                                          f"and the {side} player has {game.supply[side]}")
        price = cost
        return lambda: self._buy_winter_gear(game, price)

    def _winter_gear_cost(self, game: GameState, side: str) -> int | None:
        """Supply points are "spent on units that are in supply": Winter Gear goes to the unit that is
        cheapest to supply, so it costs 2 plus that unit's trace cost; None when no unit is in supply."""
        cheapest: int | None = None
        for unit, counter in game.counters.items():
            if counter.side == side and unit in game.hex_of:
                trace = self.supplies.supply_trace_cost(game, unit)
                if trace is not None and (cheapest is None or trace < cheapest):
                    cheapest = trace
                    if not trace:
                        break
        return None if cheapest is None else game.scenario.rules.winter_gear_cost + cheapest

    def _buy_winter_gear(self, game: GameState, cost: int) -> None:
        side = game.phase.side
        game.ps.winter_gear += 1
        self.supplies.spend(game, side, cost, "winter gear")
        game._emit(WinterGearBought(side, cost))

    def _check_frostbite(self, game: GameState, action: ChooseFrostbite) -> Effect:
        if not game.ps.frostbite:
            raise IllegalAction(Reason.WRONG_PHASE, "no frostbite loss is waiting to be taken")
        game._own_unit(action.unit)
        if action.unit not in self._frostbite_candidates(game):
            raise IllegalAction(Reason.NOT_FULL_STRENGTH,
                                f"Harsher Winter: frostbite losses fall on full-strength units while there are any, "
                                f"and {action.unit} is at half strength")
        unit = action.unit
        return lambda: self._frostbite(game, unit)

    def _frostbite(self, game: GameState, unit: str) -> None:
        game.ps.frostbite -= 1
        game._lose_step(unit, "frostbite", scores=False)
        self._take_forced_frostbite(game)

    # --- replacing and restoring -------------------------------------------------------------------

    def _entry_hexes(self, game: GameState, side: str) -> list[int]:
        """Empty hexes where ``side`` may bring in a replacement now.

        The hexes a phase's replacements may enter, empty or not, are kept through the phase while the
        enemy stands still (the enemy alone blocks communication; a city's control changes only where a
        replacement enters it, which fills the hex), and the empty ones read off them."""
        return list(filterfalse(game.at.__contains__, self._phase_kept(game, side)[0]))

    def _phase_kept(self, game: GameState, side: str) -> tuple[list[int], dict[str, bool]]:
        """What a replacement phase keeps while the enemy stands still: the entry hexes, empty or not, and
        whether each unit asked about is in communication (its own units do not move in the phase)."""
        key = (side, game._positions[other(side)], game.turn)
        cached = self._entries_cache
        if cached is None or cached[0] is not game.ps or cached[1] != key:
            cached = self._entries_cache = (game.ps, key, (self._entry_candidates(game, side), {}))
        return cached[2]

    def _entry_candidates(self, game: GameState, side: str) -> list[int]:
        """The hexes of :meth:`_entry_hexes`, empty or not, in order."""
        board, supplies = game.board, self.supplies
        hexes = set(board.entry[side]) | supplies.extra_entry(game, side)
        if game.ruleset >= 3:  # ruling 51: a city on the edge is an entry hex only while controlled
            hexes = {h for h in hexes if h not in board.cities or game.control.get(h) == side}
        targets = supplies.communication_targets(game, side)
        region = supplies.communication(game, side)
        for city in board.cities:
            if game.control.get(city) != side:
                continue
            if (side == "soviet" and city == board.capital) or in_communication(board, city, targets, region):
                hexes.add(city)
        return sorted(hexes)

    def _restorable(self, game: GameState, unit: str) -> bool:
        if unit not in game.reduced or unit in game.ps.replaced:
            return False
        side = game.side_of(unit)
        known = self._phase_kept(game, side)[1]
        linked = known.get(unit)
        if linked is None:
            linked = known[unit] = self.supplies.in_communication(game, unit)
        return linked or (side == "soviet" and game.hex_of[unit] == game.board.capital)

    def _entry_refusal(self, game: GameState, side: str, hex_index: int) -> tuple[str, str]:
        board = game.board
        name = board.ids[hex_index]
        edge = "east" if side == "soviet" else "west"
        if hex_index in board.cities:
            city = board.cities[hex_index]
            if game.control.get(hex_index) != side:
                return Reason.NOT_AN_ENTRY_HEX, f"{city} ({name}) is not controlled by the {side} player"
            return Reason.NOT_IN_COMMUNICATION, f"{city} ({name}) is not in communication with the {edge} edge"
        return Reason.NOT_AN_ENTRY_HEX, (f"{name} is neither a {side} entry hex on the {edge} edge nor a "
                                         f"controlled city")

    def _replace(self, game: GameState, unit: str, hex_index: int) -> None:
        del game.pool[unit]
        game._put(unit, hex_index)
        game.reduced.add(unit)
        game.ps.points -= 1
        game.ps.replaced.add(unit)
        game._emit(UnitReplaced(unit, game.board.ids[hex_index]))
        game._enter_city(unit, hex_index)

    def _restore(self, game: GameState, unit: str) -> None:
        game.reduced.discard(unit)
        game.ps.points -= 1
        game._emit(UnitRestored(unit, game.board.ids[game.hex_of[unit]]))

    # --- the Tank unit -----------------------------------------------------------------------------

    def _tank_refusal(self, game: GameState) -> IllegalAction | None:
        rules = game.scenario.rules
        tank = rules.tank
        if game.phase.side != "soviet" or not game.scenario.turns[game.turn].tank:
            return IllegalAction(Reason.TANK_NOT_AVAILABLE, "the Tank unit is designated only in the Soviet "
                                                            "replacement phase of the turn the track marks for it")
        if tank in game.hex_of or tank in game.pool:
            return IllegalAction(Reason.TANK_NOT_AVAILABLE, "the Tank unit is already in play")
        if game.ps.points < rules.tank_cost:
            return IllegalAction(Reason.NO_REPLACEMENT_POINTS, f"designating the Tank unit costs {rules.tank_cost} "
                                                               f"replacement point")
        return None

    def _tank_candidate_refusal(self, game: GameState, unit: str) -> IllegalAction | None:
        counter = game.counters[unit]
        if counter.side != "soviet" or counter.size != "army" or counter.type != "infantry":
            return IllegalAction(Reason.NOT_AN_ARMY, f"unit {unit} is not a Soviet army")
        if not self.supplies.in_communication(game, unit):
            return IllegalAction(Reason.NOT_IN_COMMUNICATION, f"unit {unit} is not in communication with the east edge")
        return None

    def _check_tank(self, game: GameState, action: DesignateTank) -> Effect:
        refusal = self._tank_refusal(game)
        if refusal:
            raise refusal
        game._own_unit(action.unit)
        refusal = self._tank_candidate_refusal(game, action.unit)
        if refusal:
            raise refusal
        unit = action.unit
        return lambda: self._designate_tank(game, unit)

    def _designate_tank(self, game: GameState, unit: str) -> None:
        ps = game.ps
        tank = game.scenario.rules.tank
        hex_index = game._lift(unit)  # the army's counter is replaced by the Tank counter: it leaves play
        game._put(tank, hex_index)
        if unit in game.reduced:
            game.reduced.discard(unit)
            game.reduced.add(tank)
        if unit in ps.replaced:
            ps.replaced.add(tank)
        ps.points -= game.scenario.rules.tank_cost
        game._emit(TankDesignated(unit, tank, game.board.ids[hex_index], "half" if tank in game.reduced else "full"))

    # --- extra supply ------------------------------------------------------------------------------

    def _check_extra_supply(self, game: GameState) -> Effect:
        if not game.options.war_of_attrition:
            raise IllegalAction(Reason.WRONG_PHASE, "extra supply is part of the War of Attrition variant, which is off")
        limit = game.scenario.rules.extra_supply_max
        if game.ps.extra_supply >= limit:
            raise IllegalAction(Reason.LIMIT_REACHED, f"at most {limit} replacement points a phase buy extra supply")
        return lambda: self._buy_extra_supply(game)

    def _buy_extra_supply(self, game: GameState) -> None:
        side = game.phase.side
        game.ps.points -= 1
        game.ps.extra_supply += 1
        self.supplies.gain(game, side, game._roll(f"extra supply ({side})"), "extra supply")
