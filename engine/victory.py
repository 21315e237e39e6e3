"""Victory: points, and who wins.

From "New Victory Conditions" (which the Clarification "Always Use Victory Points" applies to the
7-turn game too): each side gets 1 VP per enemy unit eliminated from the board, even if it is
replaced later; 5 VP per controlled city at the end of the game and 20 for Moscow; the Germans get
10 VP, once, if they occupy Moscow at the end of any Soviet player turn. The most points wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .pickling import rebuilt_by_fields
from .scenario import SIDES, Scenario


@dataclass(frozen=True)
class Result:
    winner: str  # "german" | "soviet" | "draw"
    reason: str
    points: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "reason": self.reason, "points": dict(self.points)}


def victory_points(scenario: Scenario, control: dict[int, str], elimination_points: dict[str, int],
                   capital_bonus: bool) -> dict[str, int]:
    points = {side: elimination_points[side] for side in SIDES}
    for hex_index, side in control.items():
        points[side] += scenario.victory.capital if hex_index == scenario.board.capital else scenario.victory.city
    if capital_bonus:
        points["german"] += scenario.victory.capital_occupation_bonus
    return points


def final_result(scenario: Scenario, rule: str, control: dict[int, str], points: dict[str, int]) -> Result:
    if rule == "moscow":
        holder = control[scenario.board.capital]
        return Result(holder, "holds Moscow at the end of the game", points)
    if points["german"] == points["soviet"]:
        return Result("draw", "equal victory points", points)
    winner = max(SIDES, key=lambda side: points[side])
    return Result(winner, "more victory points", points)


rebuilt_by_fields(Result)
