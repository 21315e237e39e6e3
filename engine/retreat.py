"""Retreat paths after DR, DRL and EX results.

From the rules: the defending unit is moved two hexes by the attacking player; it must end up two hexes
away from its starting hex and may not enter an enemy zone of control; it must end its retreat in a
hex not already occupied by a friendly unit, and must retreat further than two hexes if necessary to
reach an empty hex. If there is no such path, the unit is eliminated.

From the Clarification: a retreat through a hex in an enemy zone of control is possible as a last
resort; it costs a full-strength unit a step, and a half-strength unit is eliminated.

Rulings (see RULINGS.md): a retreat's first two hexes go one and then two hexes from the starting hex;
a retreat is longer than two hexes only when no shorter retreat ends in an empty hex, and it goes on
only through hexes held by friendly units, never entering a hex twice; from ruleset 3 on (ruling 49)
those further hexes need only stay two hexes or more from the start ("The unit must end up two hexes
away from its starting hex"), while rulesets 1 and 2 had every hex one hex farther than the one before
(ruling 12); the last hex is never in an enemy zone of control; a last-resort retreat costs one step
however many such hexes it crosses.

The example of issue 30, under both readings (German LIII in 1002 retreating from Soviet units in 1103
and 0903, German units in 0901 and 1101): ruleset 2 has only last-resort retreats through an enemy zone
of control (a half-strength unit is eliminated by them); ruleset 3 goes on past the German units.

>>> from engine.data import load_scenario
>>> board = load_scenario("standard").board
>>> i = board.index
>>> friends, enemies = {i["0901"], i["1101"]}, {i["1103"], i["0903"]}
>>> zoc = frozenset(n for e in enemies for n in board.neighbours[e])
>>> def named(options): return [[board.ids[h] for h in path] for path in options.paths], options.through_zoc
>>> named(retreat_options(board, i["1002"], friends, enemies, zoc, ruleset=2))
([['0902', '0801'], ['1003', '1004'], ['1102', '1201']], True)
>>> named(retreat_options(board, i["1002"], friends, enemies, zoc, ruleset=3))
([['1001', '0901', '0801'], ['1001', '1101', '1201']], False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from .pickling import rebuilt_by_fields
from .board import Board


@dataclass(frozen=True)
class RetreatOptions:
    """The retreat paths the attacker may choose from (hexes entered, in order).

    ``through_zoc`` is True when only last-resort paths exist (they cross an enemy zone of control).
    No paths at all means the unit is eliminated.
    """

    paths: tuple[tuple[int, ...], ...]
    through_zoc: bool


def retreat_options(board: Board, start: int, friendly: Collection[int], enemy_units: Collection[int],
                    enemy_zoc: frozenset[int], length: int = 2, ruleset: int = 3) -> RetreatOptions:
    for last_resort in (False, True):
        paths = _paths(board, start, friendly, enemy_units, enemy_zoc, length, last_resort, ruleset >= 3)
        if paths:
            return RetreatOptions(tuple(sorted(paths)), last_resort)
    return RetreatOptions((), False)


def _paths(board: Board, start: int, friendly: Collection[int], enemy_units: Collection[int],
           enemy_zoc: frozenset[int], length: int, last_resort: bool,
           ending_away: bool) -> list[tuple[int, ...]]:
    """Out one hex farther from the start at each step for ``length`` hexes, then on through friendly units
    to the first empty hexes: each step one hex farther still (rulesets 1-2, ruling 12), or, with
    ``ending_away`` (ruling 49, ruleset 3), never closer than ``length`` hexes to the start nor into a hex
    already entered."""
    frontier: list[tuple[int, ...]] = [()]
    entered = 0
    distance = board.distances[start]
    while frontier:
        entered += 1
        grown = []
        for path in frontier:
            here = path[-1] if path else start
            for nxt in board.neighbours[here]:
                away = distance[nxt]
                if entered <= length or not ending_away:
                    if away != entered:
                        continue
                elif away < length or nxt in path:
                    continue
                if nxt in enemy_units or (nxt in enemy_zoc and not last_resort):
                    continue
                grown.append(path + (nxt,))
        if entered >= length:
            finished = [p for p in grown if p[-1] not in friendly and p[-1] not in enemy_zoc]
            if finished:
                return finished
            grown = [p for p in grown if p[-1] in friendly]
        frontier = grown
    return []


rebuilt_by_fields(RetreatOptions)
