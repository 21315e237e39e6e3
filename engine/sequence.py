"""The sequence of play: the phases of a turn, in order.

Each turn is divided into eight phases performed in the exact order given; the first four are the
German player's turn, the last four the Soviet player's turn.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Phase:
    name: str
    side: str
    kind: str  # "replacement" | "movement" | "combat"
    movers: str = ""  # movement phases: "panzer" | "all" | "rail"


SETUP = Phase("setup", "german", "setup")

STANDARD_TURN: tuple[Phase, ...] = (
    Phase("german_replacement", "german", "replacement"),
    Phase("german_panzer_movement", "german", "movement", "panzer"),
    Phase("german_combat", "german", "combat"),
    Phase("german_movement", "german", "movement", "all"),
    Phase("soviet_replacement", "soviet", "replacement"),
    Phase("soviet_rail_movement", "soviet", "movement", "rail"),
    Phase("soviet_combat", "soviet", "combat"),
    Phase("soviet_movement", "soviet", "movement", "all"),
)

PHASES_BY_NAME = {phase.name: phase for phase in (SETUP, *STANDARD_TURN)}


def turn_phases() -> tuple[Phase, ...]:
    return STANDARD_TURN


def other(side: str) -> str:
    return "soviet" if side == "german" else "german"
