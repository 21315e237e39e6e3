"""Lines of communication and supply, the War of Attrition supply phase, and Variable Weather's roll.

Communication is traced to a side's own map edge (Soviet: east, German: west); with the optional rule
"Soviet Replacement Edge" the extra entry hexes count on the turns the scenario lists.
"""

from __future__ import annotations

from .events import SupplyChanged, WeatherChanged
from .sequence import other
from .state import GameState
from .supply import basic_supply, supply_cap, trace_costs
from .zones import communication_region, in_communication


class SupplyPhase:
    """Communication, supply and the supply phase."""

    def __init__(self) -> None:
        self._comm_cache: dict[str, tuple[tuple[int, int], list[bool]]] = {}
        self._supply_cache: dict[str, tuple[tuple[int, int, int], dict[int, int]]] = {}

    def copy_to(self, twin: SupplyPhase) -> None:
        """Give ``twin`` (the supply rules of a copy of this game) what this one keeps."""
        twin._comm_cache = dict(self._comm_cache)
        twin._supply_cache = dict(self._supply_cache)

    def extra_entry(self, game: GameState, side: str) -> frozenset[int]:
        """The Soviet Replacement Edge hexes, when the option and the turn open them."""
        if side == "soviet" and game.options.soviet_replacement_edge and game.turn in game.scenario.extra_entry_turns:
            return game.board.entry["soviet_extra"]
        return frozenset()

    def communication_targets(self, game: GameState, side: str) -> frozenset[int]:
        board = game.board
        edge = board.east_edge if side == "soviet" else board.west_edge
        extra = self.extra_entry(game, side)
        return edge | extra if extra else edge

    def communication(self, game: GameState, side: str) -> list[bool]:
        """Per hex of the map: whether it is joined to ``side``'s edge by hexes free of enemy units and enemy
        zones of control."""
        enemy = other(side)
        key = (game._positions[enemy], game.turn)  # only enemy units block communication
        cached = self._comm_cache.get(side)
        if cached and cached[0] == key:
            return cached[1]
        units, zone = game._masks(enemy)
        blocked = [unit or zoc for unit, zoc in zip(units, zone)]
        region = communication_region(game.board, self.communication_targets(game, side), blocked)
        self._comm_cache[side] = (key, region)
        return region

    def in_communication(self, game: GameState, unit: str) -> bool:
        """Whether ``unit`` can trace a path to its side's edge without entering enemy units or zones."""
        side = game.side_of(unit)
        return in_communication(game.board, game.hex_of[unit], self.communication_targets(game, side),
                                self.communication(game, side))

    def communication_of(self, game: GameState, side: str) -> dict[str, bool]:
        """Each of ``side``'s units on the map -> :meth:`in_communication` (the region and edge looked up once)."""
        board, counters = game.board, game.counters
        targets, region = self.communication_targets(game, side), self.communication(game, side)
        return {unit: in_communication(board, hex_index, targets, region)
                for unit, hex_index in game.hex_of.items() if counters[unit].side == side}

    def supply_trace_cost(self, game: GameState, unit: str) -> int | None:
        """War of Attrition: the extra supply points tracing supply to ``unit`` costs; None if out of supply."""
        return self._supply_costs(game, game.side_of(unit)).get(game.hex_of[unit])

    def _supply_costs(self, game: GameState, side: str) -> dict[int, int]:
        """Hex → what tracing ``side``'s supply from it costs (kept while no unit moves)."""
        enemy = other(side)
        key = (game._positions[side], game._positions[enemy], game.turn)
        cached = self._supply_cache.get(side)
        if cached and cached[0] == key:
            return cached[1]
        costs = trace_costs(game.board, self.communication_targets(game, side), game._units_of(enemy), game._zoc(enemy),
                            game._units_of(side), game.scenario.rules.supply_zoc_cost)
        self._supply_cache[side] = (key, costs)
        return costs

    def begin(self, game: GameState) -> None:
        """The supply phase's own steps: Variable Weather (German), supply kept, basic supply received."""
        side, rules = game.phase.side, game.scenario.rules
        if side == "german":
            self.roll_variable_weather(game)
        cap = supply_cap(rules, game.board, game.control, side)
        if game.supply[side] > cap:
            self.spend(game, side, game.supply[side] - cap, "kept only what controlled cities allow")
        self.gain(game, side, basic_supply(rules, side, game.turn), "basic supply")

    def gain(self, game: GameState, side: str, points: int, reason: str) -> None:
        if points:
            supply = game.supply
            supply[side] += points
            game._emit(SupplyChanged(side, supply[side], points, reason))

    def spend(self, game: GameState, side: str, points: int, reason: str) -> None:
        if points:
            supply = game.supply
            supply[side] -= points
            game._emit(SupplyChanged(side, supply[side], -points, reason))

    def roll_variable_weather(self, game: GameState) -> None:
        """Variable Weather: on an EARLY or LATE turn a high roll brings the next or previous turn's weather."""
        turns = game.scenario.turns
        info = turns[game.turn]
        if not game.options.variable_weather or not info.variable:
            return
        neighbour = game.turn + 1 if info.variable == "early" else game.turn - 1
        if neighbour not in turns:
            return
        if game._roll(f"variable weather ({info.variable})") >= game.scenario.rules.variable_weather_roll:
            weather = turns[neighbour].weather
            if weather != game.weather_id:
                game.weather_id = weather
                game._emit(WeatherChanged(game.turn, weather, info.variable.upper()))
