"""Combat: attack strength, odds, column shifts, the combat results table and exchange losses.

From the rules: total the attackers' strengths, divide by the defender's strength dropping fractions,
reduce odds above 6:1 to 6:1, reduce them one level for a defender in forest, in Moscow or (Soviet
only) in a fortification and one more when every attacker is across a river; below 1:1 after that
the attack has no effect.

>>> from engine.data import load_scenario
>>> crt = load_scenario("standard").crt
>>> odds = compute_odds(crt, Fraction(15), 4, left=2, right=0)   # combat example 1
>>> crt.labels[odds.raw], crt.labels[odds.final]
('3:1', '1:1')
>>> compute_odds(crt, Fraction(17, 2), 4, left=0, right=0).label(crt)   # the mud example
'2:1'
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from .pickling import rebuilt_by_fields
from .board import Board
from .scenario import CombatTable, CounterInfo


@dataclass(frozen=True)
class Odds:
    attack: Fraction
    defence: int
    raw: int  # column before shifts, capped at the last column; -1, -2... for 1:2, 1:3... below the table
    shifts: int  # net column shift, negative to the left
    final: int  # column after shifts; below 0 means below the table

    def label(self, crt: CombatTable) -> str:
        return crt.labels[self.final] if self.final >= 0 else "below"

    def raw_label(self, crt: CombatTable) -> str:
        return crt.labels[self.raw] if self.raw >= 0 else "below"


def compute_odds(crt: CombatTable, attack: Fraction, defence: int, left: int, right: int) -> Odds:
    raw = crt.column_for(attack, defence)
    last = len(crt.ratios) - 1
    final = min(raw - left + right, last)
    return Odds(attack, defence, raw, right - left, final)


#: The combat results, in the words of the rules' Combat Results list.
RESULT_NAMES = {"DE": "Defender eliminated", "DRL": "Defender retreats with loss", "DR": "Defender retreats",
                "EX": "Exchange", "NE": "No effect", "AL": "Attacker loss"}


#: Each cause of a column shift in words (the rules' Terrain Effects and the optional rules').
SHIFT_CAUSES = {
    "forest": "the defender is in a forest hex",
    "moscow": "the defender is in Moscow",
    "fortification": "a Soviet defender in a fortification",
    "defensive_line": "Stronger Soviet Defensive Line: a Soviet defender in Moscow or a fortification, next to "
                      "another Soviet unit also in one",
    "river": "every attacker is across a river from the defender",
    "tank": "the Soviet Tank unit attacks",
    "first_shock": "the 1st Shock attacks from Moscow or a fortification, in communication (Improved 1st Shock)",
}


@dataclass(frozen=True)
class Shift:
    """One column shift of a battle and what causes it; ``columns`` is negative to the left (the defender's
    favour). Causes: the terrain effects ("forest", "moscow", "fortification"), "defensive_line" (the
    Stronger Soviet Defensive Line's 2 shifts in place of the terrain's 1), "river" (every attacker across a
    river), "tank" (the Soviet Tank unit attacks), "first_shock" (the Improved 1st Shock attacks)."""

    columns: int
    cause: str


def defensive_terrain(board: Board, defender_hex: int, defender_side: str) -> str | None:
    """What reduces the odds by one level for the defender (Terrain Effects): "moscow", "forest", or
    "fortification" for a Soviet defender in one; None for nothing.

    >>> from engine.data import load_scenario
    >>> board = load_scenario("standard").board
    >>> defensive_terrain(board, board.capital, "german")
    'moscow'
    """
    if defender_hex == board.capital:
        return "moscow"
    if board.forest[defender_hex]:
        return "forest"
    if defender_side == "soviet" and defender_hex in board.forts:
        return "fortification"
    return None


def defensive_shift(board: Board, defender_hex: int, defender_side: str) -> int:
    """One column left for a defender in forest, in Moscow, or a Soviet defender in a fortification."""
    return 1 if defensive_terrain(board, defender_hex, defender_side) else 0


def river_shift(board: Board, defender_hex: int, attacker_hexes: Sequence[int]) -> int:
    """One column left when every attacker is across a river hexside from the defender."""
    return 1 if attacker_hexes and all(board.river_between(a, defender_hex) for a in attacker_hexes) else 0


def step_loss(counter: CounterInfo, full: bool) -> int:
    """Strength a step loss costs: full minus half for a full-strength unit, all of it for a half one.

    >>> from engine.data import load_scenario
    >>> step_loss(load_scenario("standard").counters["XLVII"], True)   # the exchange example
    5
    """
    return counter.full - counter.half if full else counter.half


def exchange_choices(attackers: Sequence[tuple[str, CounterInfo, bool]], required: int) -> list[tuple[str, ...]]:
    """Every way the attacker can lose at least ``required`` strength without losing a step too many.

    Each choice lists one entry per step lost, in attacker order (a full-strength unit named twice is
    eliminated). When even losing everything falls short, the only choice is losing everything.
    """
    steps_available = [2 if full else 1 for _, _, full in attackers]
    losses_of = []
    for _, counter, full in attackers:
        first = step_loss(counter, full)
        losses_of.append((0, first, first + counter.half) if full else (0, first))
    choices = []
    for steps in itertools.product(*(range(n + 1) for n in steps_available)):
        total = sum(losses_of[i][s] for i, s in enumerate(steps))
        if total < required:
            continue
        # minimal: giving back any one step would fall short
        if any(s and total - (losses_of[i][s] - losses_of[i][s - 1]) >= required for i, s in enumerate(steps)):
            continue
        choices.append(tuple(unit for (unit, _, _), s in zip(attackers, steps) for _ in range(s)))
    if not choices:
        choices.append(tuple(unit for (unit, _, _), n in zip(attackers, steps_available) for _ in range(n)))
    return sorted(set(choices))


rebuilt_by_fields(Odds, Shift)
