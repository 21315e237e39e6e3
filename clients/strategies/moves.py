"""Movement-phase plumbing: who can go where this phase, and turning a plan into a legal order of moves."""

from __future__ import annotations

from typing import Iterable

import engine
from engine import Action, Move

from .analysis import BoardInfo, board_info, other, reach, units_by_hex, zoc


class MovePhase:
    """The movement options of the side to move, read once at the start of a phase.

    ``dests[u]`` is every hex unit ``u`` may end in (its own hex included): the legal destinations plus
    hexes of friendly units that may themselves move away (the plan is carried out by moving each
    occupant first, so only moves to empty hexes are made, and a plan that needs a swap loses it).
    """

    def __init__(self, state: engine.Game, legal: list[Action]) -> None:
        self.state = state
        self.info: BoardInfo = board_info(state)
        self.side = state.current_player()
        self.enemy = other(self.side)
        self.mine = units_by_hex(state, self.side)
        self.theirs = units_by_hex(state, self.enemy)
        self.their_zoc = frozenset(zoc(self.info, self.theirs))
        legal_dest: dict[str, set[int]] = {}
        index = self.info.by_id
        for a in legal:
            if isinstance(a, Move) and a.to in index:
                legal_dest.setdefault(a.unit, set()).add(index[a.to])
        self.movable = [u for u in state.counters if u in legal_dest]
        movable = set(self.movable)
        self.dests: dict[str, dict[int, int]] = {}
        for u in self.movable:
            start = state.hex_of[u]
            costs = reach(state, u, self.theirs, self.their_zoc)
            options = {h: 0 for h in [start]}
            for h in legal_dest[u]:
                options[h] = costs.get(h, 1)
            for h, c in costs.items():
                occupant = self.mine.get(h)
                if occupant is not None and occupant in movable and occupant != u:
                    options[h] = c
            self.dests[u] = options

    def order(self, plan: dict[str, int]) -> list[Move]:
        """The plan (unit → hex) as moves in an order where every move goes to an empty hex.

        Units whose move cannot be made (a cycle, or a hex that stays occupied) stay where they are, and
        so does anything that needed their hex.
        """
        ids = self.info.board.ids
        occupied = dict(self.mine)  # hex -> unit
        where = {u: h for h, u in self.mine.items()}
        todo = {u: h for u, h in plan.items() if u in where and where[u] != h}
        moves: list[Move] = []
        progress = True
        while todo and progress:
            progress = False
            for u in sorted(todo, key=lambda x: (x not in occupied.values(), x)):
                h = todo[u]
                if h in occupied:
                    continue
                del occupied[where[u]]
                occupied[h] = u
                where[u] = h
                moves.append(Move(u, ids[h]))
                del todo[u]
                progress = True
                break
            if not progress and todo:
                # break a cycle: the unit whose target is held by a unit that is not moving stays;
                # otherwise drop any one move
                stuck = next((u for u, h in todo.items() if occupied.get(h) not in todo), None)
                if stuck is None:
                    stuck = sorted(todo)[0]
                del todo[stuck]
                progress = True
        return moves


def hungarian(cost: list[list[float]]) -> list[int]:
    """Minimum-cost assignment of every row to a distinct column (rows ≤ columns); returns the column of
    each row."""
    n = len(cost)
    if n == 0:
        return []
    m = len(cost[0])
    INF = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [INF] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = INF
            j1 = 0
            row = cost[i0 - 1]
            ui0 = u[i0]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    result = [-1] * n
    for j in range(1, m + 1):
        if p[j]:
            result[p[j] - 1] = j - 1
    return result


def assign(units: list[str], slots: list[int], value: dict[tuple[str, int], float],
           allowed: dict[str, Iterable[int]]) -> dict[str, int]:
    """Maximum-value assignment of units to slots (each at most once); a unit may stay unassigned."""
    if not units or not slots:
        return {}
    BIG = 1e6
    cols = list(slots) + [None] * len(units)  # dummy "unassigned" columns
    cost = []
    for u in units:
        ok = set(allowed.get(u, ()))
        row = []
        for s in cols:
            if s is None:
                row.append(0.0)
            elif s in ok:
                row.append(-value.get((u, s), 0.0))
            else:
                row.append(BIG)
        cost.append(row)
    chosen = hungarian(cost)
    result = {}
    for u, j in zip(units, chosen):
        s = cols[j]
        if s is not None and cost[units.index(u)][j] < BIG / 2:
            result[u] = s
    return result
