"""Lines of communication and supply, the War of Attrition supply phase, and Variable Weather's roll.

Communication is traced to a side's own map edge (Soviet: east, German: west); with the optional rule
"Soviet Replacement Edge" the extra entry hexes count on the turns the scenario lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .events import SupplyChanged, WeatherChanged
from .sequence import other
from .supply import basic_supply, supply_cap, trace_costs
from .zones import communication_region, in_communication

if TYPE_CHECKING:
    from .game import Game  # noqa: F401


class SupplyPhase:
    """Mixin of :class:`engine.game.Game`: communication, supply and the supply phase."""

    def _extra_entry(self, side: str) -> frozenset[int]:
        """The Soviet Replacement Edge hexes, when the option and the turn open them."""
        if side == "soviet" and self.options.soviet_replacement_edge and self.turn in self.scenario.extra_entry_turns:
            return self.board.entry["soviet_extra"]
        return frozenset()

    def _communication_targets(self, side: str) -> frozenset[int]:
        edge = self.board.east_edge if side == "soviet" else self.board.west_edge
        extra = self._extra_entry(side)
        return edge | extra if extra else edge

    def _communication(self, side: str) -> frozenset[int]:
        """The hexes joined to ``side``'s edge by hexes free of enemy units and enemy zones of control."""
        key = (self._positions[other(side)], self.turn)  # only enemy units block communication
        cached = self._comm_cache.get(side)
        if cached and cached[0] == key:
            return cached[1]
        enemy = other(side)
        blocked = set(self._zoc(enemy)) | set(self._units_of(enemy))
        region = communication_region(self.board, self._communication_targets(side), blocked)
        self._comm_cache[side] = (key, region)
        return region

    def in_communication(self, unit: str) -> bool:
        """Whether ``unit`` can trace a path to its side's edge without entering enemy units or zones."""
        side = self.side_of(unit)
        return in_communication(self.board, self.hex_of[unit], self._communication_targets(side),
                                self._communication(side))

    def supply_trace_cost(self, unit: str) -> int | None:
        """War of Attrition: the extra supply points tracing supply to ``unit`` costs; None if out of supply."""
        return self._supply_costs(self.side_of(unit)).get(self.hex_of[unit])

    def _supply_costs(self, side: str) -> dict[int, int]:
        """Hex → what tracing ``side``'s supply from it costs (kept while no unit moves)."""
        enemy = other(side)
        key = (self._positions[side], self._positions[enemy], self.turn)
        cached = self._supply_cache.get(side)
        if cached and cached[0] == key:
            return cached[1]
        costs = trace_costs(self.board, self._communication_targets(side), self._units_of(enemy), self._zoc(enemy),
                            self._units_of(side), self.scenario.rules.supply_zoc_cost)
        self._supply_cache[side] = (key, costs)
        return costs

    def _begin_supply_phase(self) -> None:
        side, rules = self.phase.side, self.scenario.rules
        if side == "german":
            self._roll_variable_weather()
        cap = supply_cap(rules, self.board, self.control, side)
        if self.supply[side] > cap:
            self._spend_supply(side, self.supply[side] - cap, "kept only what controlled cities allow")
        self._gain_supply(side, basic_supply(rules, side, self.turn), "basic supply")

    def _gain_supply(self, side: str, points: int, reason: str) -> None:
        if points:
            self.supply[side] += points
            self._emit(SupplyChanged(side, self.supply[side], points, reason))

    def _spend_supply(self, side: str, points: int, reason: str) -> None:
        if points:
            self.supply[side] -= points
            self._emit(SupplyChanged(side, self.supply[side], -points, reason))

    def _roll_variable_weather(self) -> None:
        """Variable Weather: on an EARLY or LATE turn a high roll brings the next or previous turn's weather."""
        info = self.scenario.turns[self.turn]
        if not self.options.variable_weather or not info.variable:
            return
        neighbour = self.turn + 1 if info.variable == "early" else self.turn - 1
        if neighbour not in self.scenario.turns:
            return
        if self._roll(f"variable weather ({info.variable})") >= self.scenario.rules.variable_weather_roll:
            weather = self.scenario.turns[neighbour].weather
            if weather != self.weather_id:
                self.weather_id = weather
                self._emit(WeatherChanged(self.turn, weather, info.variable.upper()))
