"""Replacement phases: replacement points, where units come back, and what else the phase holds.

On snow turns the phase opens with the Winter Attrition roll (and Frostbite losses); on the campaign's
Tank turn the Soviet player may designate the Tank unit; in the War of Attrition a player may buy
extra supply with replacement points.
"""

from __future__ import annotations

from itertools import filterfalse
from typing import TYPE_CHECKING

from .actions import (
    Action, BuyExtraSupply, BuyWinterGear, ChooseFrostbite, DesignateTank, EndPhase, Replace, Restore, RollAttrition,
)
from .errors import IllegalAction, Reason
from .events import (
    ReplacementPointsReceived, TankDesignated, UnitAvailable, UnitReplaced, UnitRestored, WinterAttrition,
    WinterGearBought,
)
from .sequence import other
from .zones import in_communication

if TYPE_CHECKING:
    from .game import Game  # noqa: F401


class ReplacementPhase:
    """Mixin of :class:`engine.game.Game`: spending replacement points, winter attrition, the Tank unit."""

    def _replacement_points(self, side: str) -> int:
        """The turn track's points for ``side``, after the options that change them."""
        points = self.scenario.turns[self.turn].replacements[side]
        if side == "german" and self.options.german_logistics and self.turn not in self.scenario.rules.logistics_turns:
            return 0
        if side == "soviet":
            points = min(points, self.options.soviet_replacements)
        return points

    def _begin_replacement_phase(self) -> None:
        side, rules, options = self.phase.side, self.scenario.rules, self.options
        if side == "german" and not options.war_of_attrition:
            self._roll_variable_weather()
        if self.ps.points:
            self._emit(ReplacementPointsReceived(side, self.ps.points))
        shock = rules.first_shock
        if (side == "soviet" and options.early_first_shock and self.turn == rules.early_first_shock_turn
                and self.pool.get(shock, 0) > self.turn):
            if self._roll("Possible Early 1st Shock") >= rules.early_first_shock_roll:
                self.pool[shock] = self.turn
                self._emit(UnitAvailable(shock, "Possible Early 1st Shock"))
        self.ps.attrition_rolls = self._attrition_rolls(side)  # Variable Weather may have brought snow
        if self.ps.attrition_rolls and not options.war_of_attrition:  # no Winter Gear to decide on first
            self._roll_attrition()

    def _attrition_rolls(self, side: str) -> int:
        """Rolls on the Winter Attrition Table ``side`` makes this replacement phase."""
        rules = self.scenario.rules
        if not self.weather().winter_attrition:
            return 0
        if self.options.harsher_winter and side == "german" and self.turn in rules.harsher_winter_turns:
            return rules.harsher_winter_german_rolls
        return 1

    # --- winter attrition --------------------------------------------------------------------------

    def _roll_attrition(self) -> None:
        side, ps = self.phase.side, self.ps
        table = self.scenario.winter_attrition[side]
        for _ in range(ps.attrition_rolls):
            roll = self._roll(f"winter attrition ({side})")
            if not table[roll]:
                result = "no_effect"
            elif ps.winter_gear:
                ps.winter_gear -= 1
                result = "cancelled"
            else:
                ps.frostbite += 1
                result = "frostbite"
            self._emit(WinterAttrition(side, roll, result))
        ps.attrition_rolls = 0
        ps.winter_gear = 0
        self._take_forced_frostbite()

    def _frostbite_candidates(self) -> list[str]:
        side = self.phase.side
        own = [u for u, c in self.counters.items() if c.side == side and u in self.hex_of]
        if self.options.harsher_winter:
            full = [u for u in own if u not in self.reduced]
            if full:
                return full
        return own

    def _take_forced_frostbite(self) -> None:
        """Frostbite with no choice to make: the only unit there is, or none at all."""
        while self.ps.frostbite:
            candidates = self._frostbite_candidates()
            if len(candidates) > 1:
                return
            self.ps.frostbite -= 1
            if candidates:
                self._lose_step(candidates[0], "frostbite", scores=False)

    # --- actions -----------------------------------------------------------------------------------

    def _replacement_actions(self) -> list[Action]:
        side, ps = self.phase.side, self.ps
        if ps.attrition_rolls:
            if self.options.war_of_attrition and ps.winter_gear < ps.attrition_rolls:
                cost = self._winter_gear_cost(side)
                if cost is not None and self.supply[side] >= cost:
                    return [BuyWinterGear(), RollAttrition()]
            return [RollAttrition()]
        if ps.frostbite:
            return [ChooseFrostbite(u) for u in self._frostbite_candidates()]
        actions: list[Action] = []
        if ps.points > 0:
            entries = self._entry_hexes(side)
            for unit, counter in self.counters.items():
                if counter.side == side and self.pool.get(unit, self.turn + 1) <= self.turn:
                    actions.extend(map(self._replace_table[unit].__getitem__, entries))
            actions.extend(Restore(u) for u, c in self.counters.items()
                           if c.side == side and u in self.hex_of and self._restorable(u))
            if self._tank_refusal() is None:
                actions.extend(DesignateTank(u) for u in self.counters
                               if u in self.hex_of and self._tank_candidate_refusal(u) is None)
            if self.options.war_of_attrition and ps.extra_supply < self.scenario.rules.extra_supply_max:
                actions.append(BuyExtraSupply())
        actions.append(EndPhase())
        return actions

    def _check_replacement(self, action: Action):
        side, ps = self.phase.side, self.ps
        if isinstance(action, (BuyWinterGear, RollAttrition)):
            return self._check_attrition(action)
        if ps.attrition_rolls:
            raise IllegalAction(Reason.ATTRITION_FIRST, "roll for winter attrition first")
        if isinstance(action, ChooseFrostbite):
            return self._check_frostbite(action)
        if ps.frostbite:
            raise IllegalAction(Reason.ATTRITION_FIRST,
                                f"choose the unit that loses a step to frostbite first ({ps.frostbite} to go)")
        if isinstance(action, EndPhase):
            return self._next_phase
        if not isinstance(action, (Replace, Restore, DesignateTank, BuyExtraSupply)):
            raise self._wrong_phase(action)
        if ps.points <= 0:
            raise IllegalAction(Reason.NO_REPLACEMENT_POINTS, f"the {side} player has no replacement points left")
        if isinstance(action, BuyExtraSupply):
            return self._check_extra_supply()
        if isinstance(action, DesignateTank):
            return self._check_tank(action)
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
        if unit in ps.replaced:
            raise IllegalAction(Reason.REPLACED_THIS_PHASE,
                                f"unit {unit} came back this phase; no unit goes from eliminated to full "
                                f"strength in one phase")
        if not self._restorable(unit):
            raise IllegalAction(Reason.NOT_IN_COMMUNICATION,
                                f"unit {unit} in {self.board.ids[self.hex_of[unit]]} is not in communication "
                                f"with the {'east' if side == 'soviet' else 'west'} edge")
        return lambda: self._restore(unit)

    def _check_attrition(self, action: Action):
        side, ps = self.phase.side, self.ps
        if not ps.attrition_rolls:
            raise IllegalAction(Reason.WRONG_PHASE, "there is no winter attrition roll to make now")
        if isinstance(action, RollAttrition):
            return self._roll_attrition
        if not self.options.war_of_attrition:
            raise IllegalAction(Reason.WRONG_PHASE, "Winter Gear is part of the War of Attrition variant, which is off")
        if ps.winter_gear >= ps.attrition_rolls:
            raise IllegalAction(Reason.LIMIT_REACHED, "Winter Gear is already bought for every roll of this phase")
        cost = self._winter_gear_cost(side)
        if cost is None:
            raise IllegalAction(Reason.NOT_IN_SUPPLY, f"no {side} unit is in supply to receive Winter Gear")
        if self.supply[side] < cost:
            raise IllegalAction(Reason.NOT_ENOUGH_SUPPLY, f"Winter Gear costs {cost} supply points "
                                                          f"and the {side} player has {self.supply[side]}")
        return lambda: self._buy_winter_gear(cost)

    def _winter_gear_cost(self, side: str) -> int | None:
        """Supply points are "spent on units that are in supply": Winter Gear goes to the unit that is
        cheapest to supply, so it costs 2 plus that unit's trace cost; None when no unit is in supply."""
        cheapest = None
        for unit, counter in self.counters.items():
            if counter.side == side and unit in self.hex_of:
                trace = self.supply_trace_cost(unit)
                if trace is not None and (cheapest is None or trace < cheapest):
                    cheapest = trace
                    if not trace:
                        break
        return None if cheapest is None else self.scenario.rules.winter_gear_cost + cheapest

    def _buy_winter_gear(self, cost: int) -> None:
        side = self.phase.side
        self.ps.winter_gear += 1
        self._spend_supply(side, cost, "winter gear")
        self._emit(WinterGearBought(side, cost))

    def _check_frostbite(self, action: ChooseFrostbite):
        if not self.ps.frostbite:
            raise IllegalAction(Reason.WRONG_PHASE, "no frostbite loss is waiting to be taken")
        self._own_unit(action.unit)
        if action.unit not in self._frostbite_candidates():
            raise IllegalAction(Reason.NOT_FULL_STRENGTH,
                                f"Harsher Winter: frostbite losses fall on full-strength units while there are any, "
                                f"and {action.unit} is at half strength")
        return lambda: self._frostbite(action.unit)

    def _frostbite(self, unit: str) -> None:
        self.ps.frostbite -= 1
        self._lose_step(unit, "frostbite", scores=False)
        self._take_forced_frostbite()

    # --- replacing and restoring -------------------------------------------------------------------

    def _entry_hexes(self, side: str) -> list[int]:
        """Empty hexes where ``side`` may bring in a replacement now.

        The hexes a phase's replacements may enter, empty or not, are kept through the phase while the
        enemy stands still (the enemy alone blocks communication; a city's control changes only where a
        replacement enters it, which fills the hex), and the empty ones read off them."""
        return list(filterfalse(self.at.__contains__, self._phase_kept(side)[0]))

    def _phase_kept(self, side: str) -> tuple[list[int], dict[str, bool]]:
        """What a replacement phase keeps while the enemy stands still: the entry hexes, empty or not, and
        whether each unit asked about is in communication (its own units do not move in the phase)."""
        key = (side, self._positions[other(side)], self.turn)
        cached = self._entries_cache
        if cached is None or cached[0] is not self.ps or cached[1] != key:
            cached = self._entries_cache = (self.ps, key, (self._entry_candidates(side), {}))
        return cached[2]

    def _entry_candidates(self, side: str) -> list[int]:
        """The hexes of :meth:`_entry_hexes`, empty or not, in order."""
        board = self.board
        hexes = set(board.entry[side]) | self._extra_entry(side)
        if self.ruleset >= 3:  # ruling 51: a city on the edge is an entry hex only while controlled
            hexes = {h for h in hexes if h not in board.cities or self.control.get(h) == side}
        targets = self._communication_targets(side)
        region = self._communication(side)
        for city in board.cities:
            if self.control.get(city) != side:
                continue
            if (side == "soviet" and city == board.capital) or in_communication(board, city, targets, region):
                hexes.add(city)
        return sorted(hexes)

    def _restorable(self, unit: str) -> bool:
        if unit not in self.reduced or unit in self.ps.replaced:
            return False
        known = self._phase_kept(self.side_of(unit))[1]
        linked = known.get(unit)
        if linked is None:
            linked = known[unit] = self.in_communication(unit)
        return linked or (self.side_of(unit) == "soviet" and self.hex_of[unit] == self.board.capital)

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

    # --- the Tank unit -----------------------------------------------------------------------------

    def _tank_refusal(self) -> IllegalAction | None:
        rules = self.scenario.rules
        tank = rules.tank
        if self.phase.side != "soviet" or not self.scenario.turns[self.turn].tank:
            return IllegalAction(Reason.TANK_NOT_AVAILABLE, "the Tank unit is designated only in the Soviet "
                                                            "replacement phase of the turn the track marks for it")
        if tank in self.hex_of or tank in self.pool:
            return IllegalAction(Reason.TANK_NOT_AVAILABLE, "the Tank unit is already in play")
        if self.ps.points < rules.tank_cost:
            return IllegalAction(Reason.NO_REPLACEMENT_POINTS, f"designating the Tank unit costs {rules.tank_cost} "
                                                               f"replacement point")
        return None

    def _tank_candidate_refusal(self, unit: str) -> IllegalAction | None:
        counter = self.counters[unit]
        if counter.side != "soviet" or counter.size != "army" or counter.type != "infantry":
            return IllegalAction(Reason.NOT_AN_ARMY, f"unit {unit} is not a Soviet army")
        if not self.in_communication(unit):
            return IllegalAction(Reason.NOT_IN_COMMUNICATION, f"unit {unit} is not in communication with the east edge")
        return None

    def _check_tank(self, action: DesignateTank):
        refusal = self._tank_refusal()
        if refusal:
            raise refusal
        self._own_unit(action.unit)
        refusal = self._tank_candidate_refusal(action.unit)
        if refusal:
            raise refusal
        return lambda: self._designate_tank(action.unit)

    def _designate_tank(self, unit: str) -> None:
        tank = self.scenario.rules.tank
        hex_index = self._lift(unit)  # the army's counter is replaced by the Tank counter: it leaves play
        self._put(tank, hex_index)
        if unit in self.reduced:
            self.reduced.discard(unit)
            self.reduced.add(tank)
        if unit in self.ps.replaced:
            self.ps.replaced.add(tank)
        self.ps.points -= self.scenario.rules.tank_cost
        self._emit(TankDesignated(unit, tank, self.board.ids[hex_index], "half" if tank in self.reduced else "full"))

    # --- extra supply ------------------------------------------------------------------------------

    def _check_extra_supply(self):
        if not self.options.war_of_attrition:
            raise IllegalAction(Reason.WRONG_PHASE, "extra supply is part of the War of Attrition variant, which is off")
        limit = self.scenario.rules.extra_supply_max
        if self.ps.extra_supply >= limit:
            raise IllegalAction(Reason.LIMIT_REACHED, f"at most {limit} replacement points a phase buy extra supply")
        return self._buy_extra_supply

    def _buy_extra_supply(self) -> None:
        side = self.phase.side
        self.ps.points -= 1
        self.ps.extra_supply += 1
        self._gain_supply(side, self._roll(f"extra supply ({side})"), "extra supply")
