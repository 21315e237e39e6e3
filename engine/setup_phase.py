"""Set-up: the German player places his counters on the crosses (the Soviets set up with the scenario)."""

from __future__ import annotations

from .actions import Action, PlaceUnit, StandardSetup, action_table
from .errors import IllegalAction, Reason
from .events import UnitPlaced
from .state import Effect, GameState


class SetupPhase:
    """Placing the German counters."""

    def __init__(self, game: GameState) -> None:
        self._place_table = action_table(PlaceUnit, game.board.ids, game.counters)

    def unplaced(self, game: GameState) -> list[str]:
        """The German counters still to place."""
        return [u for u in game.scenario.units_of("german") if u not in game.hex_of and u not in game.pool]

    def actions(self, game: GameState) -> list[Action]:
        unplaced = self.unplaced(game)
        actions: list[Action] = []
        if len(unplaced) == len(game.scenario.units_of("german")):
            actions.append(StandardSetup())
        row = self._place_table[unplaced[0]]  # shared PlaceUnit values, as moves share Move values
        actions.extend(row[h] for h in game.board.setup_hexes["german"] if h not in game.at)
        return actions

    def check(self, game: GameState, action: Action) -> Effect:
        if isinstance(action, StandardSetup):
            if len(self.unplaced(game)) != len(game.scenario.units_of("german")):
                raise IllegalAction(Reason.SETUP_STARTED,
                                    "the standard set-up places every counter; some are already placed")
            return lambda: self._standard_setup(game)
        if isinstance(action, PlaceUnit):
            game._own_unit(action.unit, on_map=False)
            hex_index = game._hex(action.hex)
            if action.unit not in self.unplaced(game):
                raise IllegalAction(Reason.ALREADY_PLACED, f"unit {action.unit} is already placed")
            if game.board.setup_side[hex_index] != "german":
                raise IllegalAction(Reason.NOT_A_SETUP_HEX, f"{action.hex} is not a German set-up hex (cross)")
            if hex_index in game.at:
                raise IllegalAction(Reason.HEX_OCCUPIED, f"{action.hex} already holds unit {game.at[hex_index]}")
            unit = action.unit
            return lambda: self._place(game, unit, hex_index)
        raise game._wrong_phase(action)

    def _standard_setup(self, game: GameState) -> None:
        for hex_index, unit in sorted(game.scenario.german_standard.items()):
            self._place(game, unit, hex_index)

    def _place(self, game: GameState, unit: str, hex_index: int) -> None:
        game._put(unit, hex_index)
        if not game.scenario.german_setup_full:
            game.reduced.add(unit)
        game._emit(UnitPlaced(unit, game.board.ids[hex_index]))

    def finish(self, game: GameState) -> None:
        """Set-up done: initial city control (the sequence of play then starts the first turn)."""
        for hex_index in game.board.cities:
            occupant = game.at.get(hex_index)
            game.control[hex_index] = "german" if occupant and game.side_of(occupant) == "german" else "soviet"
