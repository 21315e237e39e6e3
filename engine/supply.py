"""War of Attrition supply: what a side keeps, what it receives, and what tracing supply costs.

"In supply uses the same rules as in communication, except it can always be traced through a friendly
unit" and "can also be traced through an empty hex containing enemy zone of control, but for each such
hex entered it will cost 1 supply point more."
"""

from __future__ import annotations

from collections import deque
from typing import Collection

from .board import Board
from .scenario import Rules


def supply_cap(rules: Rules, board: Board, control: dict[int, str], side: str) -> int:
    """Supply points ``side`` may keep: 1 per controlled city, Moscow 3 for the Soviets."""
    return sum(rules.supply_keep_capital[side] if city == board.capital else rules.supply_keep_per_city
               for city, owner in control.items() if owner == side)


def basic_supply(rules: Rules, side: str, turn: int) -> int:
    """3 points each; "Starting with turn 5, the German player no longer receives basic supply"."""
    if side == "german" and turn > rules.german_basic_last_turn:
        return 0
    return rules.supply_basic


def trace_cost(board: Board, start: int, targets: frozenset[int], enemy_units: Collection[int],
               enemy_zoc: frozenset[int], friendly: Collection[int], zoc_hex_cost: int) -> int | None:
    """Extra supply points a path from ``start`` to a target costs at the cheapest; None: no path.

    Entering an empty hex in an enemy zone of control costs ``zoc_hex_cost``; friendly units and
    every other free hex cost nothing; enemy units block.
    """
    if start in targets:
        return 0
    best = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        spent = best[here]
        for nxt in board.neighbours[here]:
            if nxt in enemy_units:
                continue
            step = zoc_hex_cost if nxt in enemy_zoc and nxt not in friendly else 0
            total = spent + step
            if total < best.get(nxt, total + 1):
                best[nxt] = total
                if step:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    costs = [best[t] for t in targets if t in best]
    return min(costs) if costs else None


def trace_costs(board: Board, targets: frozenset[int], enemy_units: Collection[int], enemy_zoc: frozenset[int],
                friendly: Collection[int], zoc_hex_cost: int) -> dict[int, int]:
    """:func:`trace_cost` from every hex at once (a hex missing: no path): the cheapest cost from each hex
    to a target, found backwards from the targets — entering a hex costs the same whichever side it is
    entered from, so the cost from ``h`` through its neighbour ``n`` is the cost of entering ``n`` plus the
    cost from ``n``. Only hexes free of enemy units are passed through.

    A unit in 1205 with enemy units in 1204, 1206, 1304 and 1306 around it traces through one hex of
    their zones of control:

    >>> from engine.data import load_scenario
    >>> board = load_scenario("standard").board
    >>> enemies = {board.index[h] for h in ("1204", "1206", "1304", "1306")}
    >>> zoc = frozenset(n for e in enemies for n in board.neighbours[e])
    >>> start = board.index["1205"]
    >>> trace_costs(board, board.east_edge, enemies, zoc, {}, 1)[start]
    1
    >>> trace_cost(board, start, board.east_edge, enemies, zoc, {}, 1)
    1
    """
    best = {t: 0 for t in targets if t not in enemy_units}
    queue = deque(best)
    neighbours = board.neighbours
    while queue:
        here = queue.popleft()
        if here in enemy_units:
            continue  # a start only: no path goes on through an enemy unit
        entering = zoc_hex_cost if here in enemy_zoc and here not in friendly else 0  # targets too
        total = best[here] + entering
        for nxt in neighbours[here]:
            if total < best.get(nxt, total + 1):
                best[nxt] = total
                if entering:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    return best
