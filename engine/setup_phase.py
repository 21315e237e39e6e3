"""Set-up: the German player places his counters on the crosses (the Soviets set up with the scenario)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import Action, PlaceUnit, StandardSetup
from .errors import IllegalAction, Reason
from .events import UnitPlaced

if TYPE_CHECKING:
    from .game import Game  # noqa: F401


class SetupPhase:
    """Mixin of :class:`engine.game.Game`: placing the German counters."""

    def _unplaced(self) -> list[str]:
        return [u for u in self.scenario.units_of("german") if u not in self.hex_of and u not in self.pool]

    def _setup_actions(self) -> list[Action]:
        unplaced = self._unplaced()
        actions: list[Action] = []
        if len(unplaced) == len(self.scenario.units_of("german")):
            actions.append(StandardSetup())
        row = self._place_table[unplaced[0]]  # shared PlaceUnit values, as moves share Move values
        actions.extend(row[h] for h in self.board.setup_hexes["german"] if h not in self.at)
        return actions

    def _check_setup(self, action: Action):
        if isinstance(action, StandardSetup):
            if len(self._unplaced()) != len(self.scenario.units_of("german")):
                raise IllegalAction(Reason.SETUP_STARTED,
                                    "the standard set-up places every counter; some are already placed")
            return self._standard_setup
        if isinstance(action, PlaceUnit):
            self._own_unit(action.unit, on_map=False)
            hex_index = self._hex(action.hex)
            if action.unit not in self._unplaced():
                raise IllegalAction(Reason.ALREADY_PLACED, f"unit {action.unit} is already placed")
            if self.board.setup_side[hex_index] != "german":
                raise IllegalAction(Reason.NOT_A_SETUP_HEX, f"{action.hex} is not a German set-up hex (cross)")
            if hex_index in self.at:
                raise IllegalAction(Reason.HEX_OCCUPIED, f"{action.hex} already holds unit {self.at[hex_index]}")
            return lambda: self._place(action.unit, hex_index)
        raise self._wrong_phase(action)

    def _standard_setup(self) -> None:
        for hex_index, unit in sorted(self.scenario.german_standard.items()):
            self._place(unit, hex_index)

    def _place(self, unit: str, hex_index: int) -> None:
        self._put(unit, hex_index)
        if not self.scenario.german_setup_full:
            self.reduced.add(unit)
        self._emit(UnitPlaced(unit, self.board.ids[hex_index]))
        if not self._unplaced():
            self._begin_play()

    def _begin_play(self) -> None:
        """Set-up done: initial city control, then the first turn."""
        for hex_index in self.board.cities:
            occupant = self.at.get(hex_index)
            self.control[hex_index] = "german" if occupant and self.side_of(occupant) == "german" else "soviet"
        self._start_turn(self.scenario.first_turn)

