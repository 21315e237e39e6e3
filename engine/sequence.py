"""The sequence of play: the phases of a turn, in order.

Each turn is divided into eight phases performed in the exact order given; the first four are the
German player's turn, the last four the Soviet player's turn.
"""

from __future__ import annotations

from typing import Final

from dataclasses import dataclass

from .pickling import rebuilt_by_fields


@dataclass(frozen=True)
class Phase:
    name: str
    side: str
    kind: str  # "supply" | "replacement" | "movement" | "combat"
    movers: str = ""  # movement phases: "panzer" | "all" | "rail"


SETUP: Final = Phase("setup", "german", "setup")

STANDARD_TURN: Final[tuple[Phase, ...]] = (
    Phase("german_replacement", "german", "replacement"),
    Phase("german_panzer_movement", "german", "movement", "panzer"),
    Phase("german_combat", "german", "combat"),
    Phase("german_movement", "german", "movement", "all"),
    Phase("soviet_replacement", "soviet", "replacement"),
    Phase("soviet_rail_movement", "soviet", "movement", "rail"),
    Phase("soviet_combat", "soviet", "combat"),
    Phase("soviet_movement", "soviet", "movement", "all"),
)

GERMAN_SUPPLY: Final = Phase("german_supply", "german", "supply")
SOVIET_SUPPLY: Final = Phase("soviet_supply", "soviet", "supply")

#: War of Attrition: "Add a Supply Phase prior to each Replacement phase."
SUPPLY_TURN: Final[tuple[Phase, ...]] = (GERMAN_SUPPLY, *STANDARD_TURN[:4], SOVIET_SUPPLY, *STANDARD_TURN[4:])

PHASES_BY_NAME: Final = {phase.name: phase for phase in (SETUP, *SUPPLY_TURN)}


def turn_phases(war_of_attrition: bool = False) -> tuple[Phase, ...]:
    return SUPPLY_TURN if war_of_attrition else STANDARD_TURN


def other(side: str) -> str:
    return "soviet" if side == "german" else "german"


rebuilt_by_fields(Phase)
