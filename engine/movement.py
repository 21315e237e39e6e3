"""Movement: where a unit can go in one phase, which path it takes, and why a named path is refused.

The search is a cheapest-path search over movement points that honours the rules:

* a unit never enters a hex holding an enemy unit;
* a unit that enters an enemy zone of control stops there (it may always leave the one it starts in,
  but coming back into its start hex is entering it);
* friendly units may be passed through;
* each hex costs its terrain cost (forest 2) unless the phase makes every hex cost 1 (rail movement;
  mud's one hex per phase under rulesets 1 and 2, where ruleset 3 gives 1 MA and keeps the forest's 2).

Example (path C of the rules' movement example): a unit whose first hex is in an enemy zone of control
stops there, so nothing beyond that hex is reachable through it.
"""

from __future__ import annotations

import copyreg
from dataclasses import dataclass
from typing import Collection, Final, Iterable, Mapping, Sequence

from .pickling import rebuilt_by_fields
from .board import Board
from .errors import IllegalAction, Reason


@dataclass(frozen=True)
class MoveRules:
    """How one unit moves in the current phase."""

    allowance: int
    neighbours: tuple[tuple[int, ...], ...]
    costs: tuple[int, ...] | None  # None: every hex costs 1
    kind: str  # "normal" | "rail" | "mud" (what the refusal messages say)


class Reach:
    """Every hex a unit can end its move in, with the cheapest way there: ``order`` (the hexes, in the order
    the search found them), ``costs`` (per hex of the map: the movement points to get there, negative when
    out of reach) and ``parents`` (per hex: the hex it was first reached from). ``cost`` and ``parent`` are the same
    as dicts; they and what is worked out from the reach are made when first asked (few reaches are asked)."""

    __slots__ = ("start", "order", "costs", "parents", "_cost", "_rank", "_onward", "_cities")

    def __init__(self, start: int, order: list[int], costs: list[int], parents: list[int]) -> None:
        self.start, self.order, self.costs, self.parents = start, order, costs, parents
        self._cost: dict[int, int] | None = None
        self._rank: list[int] | None = None
        self._onward: list[int] | None = None
        self._cities: list[tuple[int, int, int]] | None = None

    def __repr__(self) -> str:
        return f"Reach(start={self.start}, cost={self.cost}, parent={self.parent})"

    @property
    def cost(self) -> dict[int, int]:
        """hex → movement points to get there, in the order the search found the hexes."""
        cost = self._cost
        if cost is None:
            costs = self.costs
            cost = self._cost = {h: costs[h] for h in self.order}
        return cost

    @property
    def parent(self) -> dict[int, int]:
        """hex → the hex it was first reached from."""
        parents = self.parents
        return {h: parents[h] for h in self.order}

    def rank(self) -> list[int]:
        """Per hex of the map: its place in ``order`` (-1 when out of reach)."""
        rank = self._rank
        if rank is None:
            rank = self._rank = [-1] * len(self.costs)
            place = 0
            for h in self.order:
                rank[h] = place
                place += 1
        return rank

    def onward(self) -> list[int]:
        """The hexes of the reach some other hex was first reached from (the start hex, always left, aside)."""
        onward = self._onward
        if onward is None:
            parents, start = self.parents, self.start
            onward = self._onward = sorted({parents[h] for h in self.order} - {start})
        return onward

    def cities(self, city_bits: tuple[tuple[int, int], ...]) -> list[tuple[int, int, int]]:
        """(hex, bit, cost to reach it) of the cities of ``city_bits`` (hex, bit) in this reach, found once
        (``city_bits`` is the same for every game of a map)."""
        found = self._cities
        if found is None:
            costs = self.costs
            found = self._cities = [(h, bit, costs[h]) for h, bit in city_bits if costs[h] >= 0]
        return found

    def without(self, blocked: list[bool]) -> Reach:
        """This reach less the ``blocked`` hexes (the same costs, parents and order for the others)."""
        costs = self.costs.copy()
        order = []
        for h in self.order:
            if blocked[h]:
                costs[h] = -2
            else:
                order.append(h)
        return Reach(self.start, order, costs, self.parents)

    def path_to(self, dest: int) -> tuple[int, ...]:
        parents, start = self.parents, self.start
        path = [dest]
        here = dest
        while True:
            here = parents[here]
            if here == start:
                break
            path.append(here)
        path.reverse()
        return tuple(path)


def mask(size: int, hexes: Iterable[int]) -> list[bool]:
    """Per hex of a map of ``size`` hexes: whether it is one of ``hexes``.

    >>> mask(4, {1, 3})
    [False, True, False, True]
    """
    flags = [False] * size
    for h in hexes:
        flags[h] = True
    return flags


def search(start: int, rules: MoveRules, enemy_units: Collection[int], enemy_zoc: frozenset[int],
           capture: dict[int, int] | None = None, away: Sequence[int] | None = None
           ) -> tuple[dict[int, int], dict[int, int]]:
    """Cheapest-cost labels from ``start``.

    Without ``capture`` a label is a hex. With ``capture`` (hex → bit of an enemy-controlled city) a
    label is ``hex * 4096 + cities passed through`` so that paths capturing different cities are
    kept apart. Returns (label → cost, label → parent label).

    Only the start label is where the unit has not entered: a path back into the start hex (which
    labels keep only when it has passed through a city since) has entered it, and stops there when it
    is in an enemy zone of control.

    With ``away`` (hex → its distance to a destination) only the labels from which the destination can
    still be reached are kept (every hex costs at least 1): a label that could lead there is found only
    from labels that could, and a way that could not costs more than any that could, so the labels that
    could lead there get the same costs, parents and order as without it.
    """
    neighbours, costs, allowance = rules.neighbours, rules.costs, rules.allowance
    width = 4096 if capture is not None else 1
    start_label = start * width
    best = {start_label: 0}
    parent: dict[int, int] = {}
    buckets: list[list[int]] = [[] for _ in range(allowance + 1)]
    buckets[0].append(start_label)
    for spent in range(allowance + 1):
        for label in buckets[spent]:
            if best[label] != spent:
                continue
            here, mask = divmod(label, width)
            if label != start_label and here in enemy_zoc:
                continue
            for nxt in neighbours[here]:
                if nxt in enemy_units:
                    continue
                total = spent + (costs[nxt] if costs is not None else 1)
                if total > allowance or (away is not None and total + away[nxt] > allowance):
                    continue
                nxt_label = nxt * width + (mask | capture.get(nxt, 0) if capture else 0)
                known = best.get(nxt_label)
                if known is None or known > total:
                    best[nxt_label] = total
                    parent[nxt_label] = label
                    buckets[total].append(nxt_label)
    return best, parent


def reach(start: int, rules: MoveRules, enemy_units: Collection[int], enemy_zoc: Collection[int]) -> Reach:
    """Every hex the unit in ``start`` can end its move in (see :func:`reach_masked`)."""
    size = len(rules.neighbours)
    return reach_masked(start, rules, mask(size, enemy_units), mask(size, enemy_zoc))


def reach_masked(start: int, rules: MoveRules, blocked: list[bool], zoc: list[bool]) -> Reach:
    """Every hex the unit in ``start`` can end its move in, the enemy units' hexes ``blocked`` and their
    zones of control ``zoc`` given per hex: :func:`search` without cities, written out for speed. The cost
    of entering a hex is the hex's own, and hexes are taken in order of cost, so the first way found into
    a hex is a cheapest one: the search never revisits a hex (the same labels, costs, parents and order of
    discovery as :func:`search`, which keeps the first of equal ways too)."""
    neighbours, allowance = rules.neighbours, rules.allowance
    costs = rules.costs if rules.costs is not None else _ones(len(neighbours))
    best = [-1] * len(costs)  # -1: not weighed yet; -2: weighed and out of reach (a later way costs no more)
    best[start] = -2
    parents = [-1] * len(costs)
    order: list[int] = []
    buckets: list[list[int]] = [[] for _ in range(allowance + 1)]
    frontier = [start]  # the start hex is left even when in an enemy zone of control
    spent = 0
    while spent < allowance:  # a hex reached with the whole allowance spent goes no further
        for here in frontier:
            if spent and zoc[here]:
                continue
            for nxt in neighbours[here]:
                if best[nxt] != -1 or blocked[nxt]:
                    continue
                total = spent + costs[nxt]
                if total <= allowance:
                    best[nxt] = total
                    parents[nxt] = here
                    order.append(nxt)
                    buckets[total].append(nxt)
                else:
                    best[nxt] = -2
        spent += 1
        frontier = buckets[spent]
    return Reach(start, order, best, parents)


def reach_among(board: Board, start: int, rules: MoveRules, blocked: list[bool], zoc: list[bool]) -> Reach:
    """:func:`reach_masked`, taken from the reach with no enemy on the map when no enemy unit or zone of
    control lies within it (then the search would find the same hexes, costs, parents and order: enemy
    units out of reach and zones of control nobody enters change nothing). Those are kept on the board, per
    start hex and kind of movement, for as long as the map is loaded (a few thousand at most).

    Nor does an enemy hex or zone of control matter where the search with no enemy went no further (no
    hex was first reached from it: the other hexes are reached the same way whether it is left or not):
    then the reach is the one with no enemy less the enemy units' hexes."""
    key = (start, rules.allowance, rules.neighbours is board.rail_links, rules.costs is None)
    free: Reach | None = board.memo.get(key)
    if free is None:
        nowhere = [False] * len(board.ids)
        free = board.memo[key] = reach_masked(start, rules, nowhere, nowhere)
    touched = False  # whether an enemy unit or zone of control lies within the reach with no enemy
    for h in free.order:
        if blocked[h] or zoc[h]:
            touched = True
            break
    if not touched:
        return free
    for h in free.onward():
        if blocked[h] or zoc[h]:
            return reach_masked(start, rules, blocked, zoc)
    for h in free.order:
        if blocked[h]:
            return free.without(blocked)
    return free


_ONES: Final[dict[int, tuple[int, ...]]] = {}


def _ones(size: int) -> tuple[int, ...]:
    """Every hex costing 1, on a map of ``size`` hexes (made once)."""
    ones = _ONES.get(size)
    if ones is None:
        ones = _ONES[size] = (1,) * size
    return ones


def preferred_path(start: int, dest: int, rules: MoveRules, enemy_units: Collection[int],
                   enemy_zoc: frozenset[int], capture: dict[int, int],
                   away: Sequence[int] | None = None) -> tuple[int, ...] | None:
    """The path to ``dest`` that passes through the most enemy-controlled cities, then the cheapest.

    Ties go to the lowest set of city bits, then to the order the search found them in, so the choice
    is the same on every run. ``away``: every hex's distance to ``dest``, when known (a shorter search,
    the same path).
    """
    best, parent = search(start, rules, enemy_units, enemy_zoc, capture, away)
    candidates = [label for label in best if label // 4096 == dest and label // 4096 != start]
    if not candidates:
        return None
    chosen = min(candidates, key=lambda label: (-bin(label % 4096).count("1"), best[label], label % 4096))
    path = [chosen]
    while path[-1] != start * 4096:
        path.append(parent[path[-1]])
    return tuple(label // 4096 for label in reversed(path[:-1]))


def check_path(unit: str, start: int, path: Sequence[int], rules: MoveRules, enemy_units: Mapping[int, str],
               enemy_zoc: frozenset[int], board: Board) -> None:
    """Refuse a named path with the first rule it breaks; return quietly if it is legal."""
    ids = board.ids
    if not path:
        raise IllegalAction(Reason.PATH_BROKEN, f"unit {unit} needs at least one hex to move to")
    spent = 0
    here = start
    for entered, nxt in enumerate(path):  # ``entered``: whether the unit entered ``here`` (start included)
        name = ids[nxt]
        if nxt not in rules.neighbours[here]:
            if rules.kind == "rail" and board.adjacent(here, nxt):
                raise IllegalAction(Reason.NOT_ALONG_RAIL,
                                    f"unit {unit} cannot rail-move from {ids[here]} to {name}: "
                                    f"no rail line links the two hexes")
            raise IllegalAction(Reason.PATH_BROKEN,
                                f"unit {unit} cannot move from {ids[here]} to {name}: they are not adjacent")
        if nxt in enemy_units:
            raise IllegalAction(Reason.ENEMY_OCCUPIED,
                                f"unit {unit} cannot enter {name}: it holds the enemy unit {enemy_units[nxt]}")
        if entered and here in enemy_zoc:
            again = " (its start hex, entered again)" if here == start else ""
            raise IllegalAction(Reason.STOPPED_BY_ZOC,
                                f"unit {unit} cannot enter {name}: it stopped on entering the enemy zone "
                                f"of control at {ids[here]}{again}")
        spent += rules.costs[nxt] if rules.costs is not None else 1
        if spent > rules.allowance:
            if rules.kind == "mud" and board.forest[nxt] and rules.costs is not None:
                why = (f"in mud a unit has {rules.allowance} MA and a forest hex costs "
                       f"{rules.costs[nxt]}")
            elif rules.kind == "mud":
                why = "in mud a unit moves one hex per phase"
            else:
                why = f"that takes {spent} movement points and it has {rules.allowance}"
            raise IllegalAction(Reason.MOVEMENT_ALLOWANCE_EXCEEDED, f"unit {unit} cannot reach {name}: {why}")
        here = nxt



def unreachable(unit: str, start: int, dest: int, rules: MoveRules, enemy_units: dict[int, str],
                enemy_zoc: frozenset[int], board: "Board") -> IllegalAction:
    """The refusal of a move to ``dest``, a hex out of ``unit``'s reach this phase (no path named): it names
    ``dest`` and the rule that keeps the unit from it, whatever hexes a way there would cross:

    * ``ENEMY_OCCUPIED``: an enemy unit holds ``dest``;
    * ``PATH_BROKEN``: no way at all (enemy units, or the rail lines, close every one);
    * ``MOVEMENT_ALLOWANCE_EXCEEDED``: the cheapest way round the enemy units costs more than the
      allowance (in mud: one hex, or 1 MA);
    * ``STOPPED_BY_ZOC``: some way is within the allowance, but every such way enters an enemy zone of
      control before ``dest``, where a unit stops ("A unit entering an enemy zone of control must
      immediately end its movement phase"); the cheapest one's stop is named.
    """
    ids, allowance = board.ids, rules.allowance
    name = ids[dest]
    if dest in enemy_units:
        return IllegalAction(Reason.ENEMY_OCCUPIED, f"unit {unit} cannot enter {name}: it holds the enemy unit "
                                                    f"{enemy_units[dest]}")
    unlimited = MoveRules(len(ids) * 2, rules.neighbours, rules.costs, rules.kind)
    costs = rules.costs

    def cost_of(way: Sequence[int]) -> int:
        return sum(costs[h] for h in way) if costs is not None else len(way)

    path = preferred_path(start, dest, unlimited, enemy_units, frozenset(), {})
    plain = preferred_path(start, dest, unlimited, {}, frozenset(), {})  # as if no enemy unit were on the map
    along = " along rail lines" if rules.neighbours is board.rail_links else ""
    if path is None:
        why = f"enemy units close every way there{along}" if plain else "no rail line leads there from its hex"
        return IllegalAction(Reason.PATH_BROKEN, f"unit {unit} cannot reach {name}: {why}")
    cost = cost_of(path)
    if cost > allowance:
        way = along + (" around the enemy units" if plain is not None and cost_of(plain) < cost else "")
        if rules.kind == "mud" and costs is None:
            why = f"in mud a unit moves one hex per phase, and {name} is {len(path)} hexes away"
        elif rules.kind == "mud" and costs is not None:
            why = f"in mud a unit has {allowance} MA" + (
                f" and a forest hex costs {costs[dest]}" if len(path) == 1 and board.forest[dest]
                else f", and the cheapest way there{way} takes {cost}")
        elif costs is None:
            why = f"the shortest way there{way} is {cost} hexes and it may move {allowance}"
        else:
            why = f"the cheapest way there{way} takes {cost} movement points and it has {allowance}"
        return IllegalAction(Reason.MOVEMENT_ALLOWANCE_EXCEEDED, f"unit {unit} cannot reach {name}: {why}")
    stop = next((h for h in path[:-1] if h in enemy_zoc), None)
    if stop is None:  # not met: the reach and this search agree
        return IllegalAction(Reason.PATH_BROKEN, f"unit {unit} cannot reach {name} in this phase")
    return IllegalAction(Reason.STOPPED_BY_ZOC,
                         f"unit {unit} cannot reach {name}: every way there within its {allowance} "
                         f"{'hexes' if costs is None else 'movement points'} enters an enemy zone of control "
                         f"before it, and a unit entering one must stop (the shortest would stop at {ids[stop]})")


rebuilt_by_fields(MoveRules)
copyreg.pickle(Reach, lambda reach: (Reach, (reach.start, reach.order, reach.costs, reach.parents)))
