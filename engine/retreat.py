"""Retreat paths after DR, DRL and EX results.

From the rules: the defending unit is moved two hexes by the attacking player; it must end up two hexes
away from its starting hex and may not enter an enemy zone of control; it must end its retreat in a
hex not already occupied by a friendly unit, and must retreat further than two hexes if necessary to
reach an empty hex. If there is no such path, the unit is eliminated.

From the Clarification: a retreat through a hex in an enemy zone of control is possible as a last
resort; it costs a full-strength unit a step, and a half-strength unit is eliminated.

Rulings (see RULINGS.md): every hex of a retreat is one hex farther from the starting hex than the one
before; a retreat is longer than two hexes only when no shorter retreat ends in an empty hex; the last
hex is never in an enemy zone of control; a last-resort retreat costs one step however many such hexes
it crosses.
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board


@dataclass(frozen=True)
class RetreatOptions:
    """The retreat paths the attacker may choose from (hexes entered, in order).

    ``through_zoc`` is True when only last-resort paths exist (they cross an enemy zone of control).
    No paths at all means the unit is eliminated.
    """

    paths: tuple[tuple[int, ...], ...]
    through_zoc: bool


def retreat_options(board: Board, start: int, friendly: set[int] | dict, enemy_units: set[int] | dict,
                    enemy_zoc: frozenset[int], length: int = 2) -> RetreatOptions:
    for last_resort in (False, True):
        paths = _paths(board, start, friendly, enemy_units, enemy_zoc, length, last_resort)
        if paths:
            return RetreatOptions(tuple(sorted(paths)), last_resort)
    return RetreatOptions((), False)


def _paths(board: Board, start: int, friendly, enemy_units, enemy_zoc, length: int,
           last_resort: bool) -> list[tuple[int, ...]]:
    frontier: list[tuple[int, ...]] = [()]
    distance_out = 0
    while frontier:
        distance_out += 1
        grown = []
        for path in frontier:
            here = path[-1] if path else start
            for nxt in board.neighbours[here]:
                if board.distance(start, nxt) != distance_out or nxt in enemy_units:
                    continue
                if nxt in enemy_zoc and not last_resort:
                    continue
                grown.append(path + (nxt,))
        if distance_out >= length:
            finished = [p for p in grown if p[-1] not in friendly and p[-1] not in enemy_zoc]
            if finished:
                return finished
            grown = [p for p in grown if p[-1] in friendly]
        frontier = grown
    return []
