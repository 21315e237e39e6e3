"""Movement phases: the panzer movement phase, the Soviet rail movement phase and the movement phases.

Where a unit can go is worked out by :mod:`engine.movement`; enemy units do not move during a player's
movement phase, so each unit's reach is computed once per phase.
"""

from __future__ import annotations

from bisect import bisect
from itertools import filterfalse
from typing import TYPE_CHECKING

from . import movement
from .actions import Action, EndPhase, Move
from .errors import IllegalAction, Reason
from .events import UnitMoved
from .sequence import other

if TYPE_CHECKING:
    from .data import CounterInfo
    from .game import Game  # noqa: F401


#: The actions of a kind of every unit to every hex of a map ((kind, the map's hex ids) → unit → action by
#: hex index), each made once: every phase offers the same moves (and replacements) again, and they are
#: immutable values, so sharing them changes nothing.
_TABLES: dict[tuple[type, tuple[str, ...]], "ActionTable"] = {}

END_PHASE = EndPhase()


class ActionTable(dict):
    """unit → [kind(unit, hex) for every hex of the map, by index], each row made on first use."""

    def __init__(self, kind: type, ids: tuple[str, ...]) -> None:
        super().__init__()
        self.kind = kind
        self.ids = ids

    def __missing__(self, unit: str) -> list[Action]:
        row = self[unit] = [self.kind(unit, hex_id) for hex_id in self.ids]
        return row


def action_table(kind: type, ids: tuple[str, ...]) -> ActionTable:
    """The shared ``kind(unit, hex)`` actions (Move, Replace) on the map whose hex ids are ``ids``."""
    table = _TABLES.get((kind, ids))
    if table is None:
        table = _TABLES[(kind, ids)] = ActionTable(kind, ids)
    return table


class MovementPhase:
    """Mixin of :class:`engine.game.Game`: moving units.

    A movement phase changes the board one move at a time, and its legal actions change only where a move
    touches them, so they are kept between actions (enemies do not move during the phase): each unit's
    reach is searched once a phase; each unit still to move keeps its *segments*, the hexes of its reach
    that are empty (in the reach's order) and those of friendly units it could move onto and swap with
    (in the order of the units still to move). A move from one hex to an empty one then patches the
    segments of the units whose reach holds one of the two hexes: the hex left is put back in order, the
    hex entered taken out, the mover's hex taken out of the others' swaps; a unit left with or without an
    empty hex (a change of whether others may move onto it) has the swaps onto it listed again. A move
    onto a friend starts a *chain* (the unit underneath moves next, maybe onto another friend): while it
    lasts the segments wait (the listing of a stack does not read them); when its last unit moves to an
    empty hex, the chain as a whole has emptied the first mover's hex and filled that one, so the
    segments are patched as for one move between them, every hex of the chain taken out of the swaps.
    """

    def _reset_movement(self) -> None:
        self._unmoved_cache: list[str] | None = None
        self._empty_segs: dict[str, tuple[list[int], list[Move]]] = {}
        self._friend_segs: dict[str, tuple[list[int], list[Move]]] = {}
        #: a chain of moves onto friends under way: (the hex its first unit left, the hexes its units left)
        self._chain: tuple[int, tuple[int, ...]] | None = None

    def _movers(self, unmoved: list[str] | None = None) -> list[str]:
        """Units that may move now: the unit another has moved onto, or else every unit that may still
        move in this phase (``unmoved``, when already known)."""
        if self.ps.stack:
            return [self.at[self.ps.stack[0]]]
        return self._unmoved() if unmoved is None else unmoved

    def _unmoved(self) -> list[str]:
        """Units that may still move in this phase (kept between the phase's actions)."""
        cached = self._unmoved_cache
        if cached is not None:
            return cached
        side, movers, moved = self.phase.side, self.phase.movers, self.ps.moved
        hex_of, counters = self.hex_of, self.counters
        if movers == "rail":
            eligible = self.ps.rail_eligible
            cached = [u for u, c in counters.items() if u in hex_of and u not in moved
                      and (u in eligible or (c.side == side and c.type == "tank"))]
        else:
            cached = [u for u, c in counters.items()
                      if c.side == side and u in hex_of and u not in moved and (movers == "all" or c.type == "panzer")]
        self._unmoved_cache = cached
        return cached

    def _move_rules(self, unit: str) -> movement.MoveRules:
        """How ``unit`` moves in this phase (worked out once a phase)."""
        rules = self._rules_cache.get(unit)
        if rules is None:
            rules = self._rules_cache[unit] = self._rules_now(unit)
        return rules

    def _rules_now(self, unit: str) -> movement.MoveRules:
        counter = self.counters[unit]
        key = (counter.type, counter.ma, self.phase.movers, self.weather_id)
        rules = self._rules_made.get(key)
        if rules is None:
            rules = self._rules_made[key] = self._rules_of(counter)
        return rules

    def _rules_of(self, counter: CounterInfo) -> movement.MoveRules:
        weather = self.weather()
        allowance = max(0, counter.ma + weather.ma_modifier.get(counter.type, 0))
        if self.phase.movers == "rail":
            # "A forest hex counts as only one hex for movement in this phase", and the Tank unit "may
            # move during the Rail Movement phase but need not follow any rail lines"
            lines = self.board.neighbours if counter.type == "tank" else self.board.rail_links
            return movement.MoveRules(allowance, lines, None, "rail")
        if weather.max_hexes is not None:
            # ruling 50 (ruleset 3): "Units at 1 MA", and a forest hex costs 2, so it cannot be entered;
            # rulesets 1 and 2 let the one hex be any hex (ruling 5)
            costs = self.board.move_cost if self.ruleset >= 3 else None
            return movement.MoveRules(min(allowance, weather.max_hexes), self.board.neighbours, costs, "mud")
        return movement.MoveRules(allowance, self.board.neighbours, self.board.move_cost, "normal")

    def _reach(self, unit: str) -> movement.Reach:
        """Where ``unit`` can go this phase; enemies do not move during it, so this is computed once."""
        cached = self._reach_cache.get(unit)
        if cached is None or cached.start != self.hex_of[unit]:
            enemy = other(self.counters[unit].side)
            cached = movement.reach_among(self.board, self.hex_of[unit], self._move_rules(unit), self._units_of(enemy),
                                          self._zoc(enemy))
            self._reach_cache[unit] = cached
        return cached

    def _movement_actions(self) -> list[Action]:
        """Moves to empty hexes (unit by unit, each in its reach's order), then moves onto friendly units
        that can move away, then ending the phase (not while two units share a hex)."""
        if self.ps.stack:
            kept = self._chain_actions()
            if kept is not None:
                return kept
            movers = self._movers()
            at, table = self.at, self._move_table
            actions: list[Action] = [table[u][h] for u in movers for h in self._reach(u).cost if h not in at]
            actions.extend(self._moves_onto_friends(movers, self._unmoved()))
            return actions
        unmoved = self._unmoved()
        empty, friends = self._empty_segs, self._friend_segs
        actions = []
        for unit in unmoved:
            segment = empty.get(unit)
            actions += (segment if segment is not None else self._empty_segment(unit))[1]
        hosts = None
        for unit in unmoved:
            segment = friends.get(unit)
            if segment is None:
                if hosts is None:
                    hosts = self._free_hosts(unmoved)
                segment = self._friend_segment(unit, hosts)
            actions += segment[1]
        actions.append(END_PHASE)
        return actions

    def _chain_actions(self) -> list[Action] | None:
        """The listing of a stack (as :meth:`_moves_onto_friends` and the unit underneath's empty hexes make
        it) read off the segments kept from before the chain began, or None if they are not all there.
        While a chain lasts, the one hex emptied is the one its first unit left (its moves end on friends):
        the unit underneath may go to its kept empty hexes and that one, if in reach (in its place in the
        reach's order); a unit still to move can be moved onto if it has a kept empty hex or that one."""
        chain, unmoved = self._chain, self._unmoved_cache
        if chain is None or unmoved is None:
            return None
        origin = chain[0]
        empty, reach_cache, hex_of = self._empty_segs, self._reach_cache, self.hex_of
        unit = self.at[self.ps.stack[0]]
        reach = reach_cache.get(unit)
        segment = empty.get(unit)
        if reach is None or segment is None or reach.start != hex_of[unit]:
            return None
        cost, row = reach.cost, self._move_table[unit]
        actions: list[Action] = list(segment[1])
        if origin in cost:
            rank = reach.rank()
            actions.insert(bisect(segment[0], rank[origin], key=rank.__getitem__), row[origin])
        for host in unmoved:
            h = hex_of[host]
            if h in cost and host != unit:
                host_segment, host_reach = empty.get(host), reach_cache.get(host)
                if host_segment is None or host_reach is None:
                    return None
                if host_segment[0] or origin in host_reach.cost:
                    actions.append(row[h])
        return actions

    def _empty_segment(self, unit: str) -> tuple[list[int], list[Move]]:
        """The empty hexes ``unit`` can reach, in its reach's order, and the moves there."""
        segment = self._empty_segs.get(unit)
        if segment is None:
            hexes = list(filterfalse(self.at.__contains__, self._reach(unit).cost))
            segment = self._empty_segs[unit] = (hexes, list(map(self._move_table[unit].__getitem__, hexes)))
        return segment

    def _free_hosts(self, unmoved: list[str]) -> tuple[list[int], dict[int, bool], dict[int, dict[int, int]]]:
        """The hexes of the units still to move (in their order), whether each one's unit has an empty hex
        to go to, and each one's reach."""
        hex_of, empty_segment, reach_of = self.hex_of, self._empty_segment, self._reach
        hexes = [hex_of[host] for host in unmoved]
        return (hexes, {h: bool(empty_segment(host)[0]) for h, host in zip(hexes, unmoved)},
                {h: reach_of(host).cost for h, host in zip(hexes, unmoved)})

    def _friend_segment(self, unit: str, hosts: tuple[list[int], dict[int, bool], dict[int, dict[int, int]]]
                        ) -> tuple[list[int], list[Move]]:
        """The hexes of units still to move (``hosts``, see ``_free_hosts``) that ``unit`` can move onto (no
        two units sharing a hex yet), and the moves there: the host must have an empty hex to go to, or
        else the hex ``unit`` leaves."""
        start, reachable = self.hex_of[unit], self._reach(unit).cost
        host_hexes, free, reach_of = hosts
        hexes = [h for h in filter(reachable.__contains__, host_hexes) if free[h] or start in reach_of[h]]
        segment = self._friend_segs[unit] = (hexes, list(map(self._move_table[unit].__getitem__, hexes)))
        return segment

    def _moves_onto_friends(self, movers: list[str], unmoved: list[str]) -> list[Move]:
        """Moves onto a friendly unit that can then move away, which is how units swap or rotate places
        ("A unit can enter a hex containing a friendly unit, but there can only be one unit in a hex at
        the end of the phase"); here while a unit stands on another (see ``_friend_segment`` otherwise)."""
        hosts = self._hosts_of(unmoved)
        moves = []
        for unit in movers:
            start = self.hex_of[unit]
            reachable, row = self._reach(unit).cost, self._move_table[unit]
            moves.extend(row[h] for h, host in hosts.items()
                         if h in reachable and host[0] != unit and self._has_exit(host, start))
        return moves

    def _hosts_of(self, units: list[str]) -> dict[int, tuple[str, bool, dict[int, int]]]:
        """Hex → (the unit there, whether it can reach an empty hex, its reach), for ``units``."""
        occupied = self.at.keys()
        hosts = {}
        for unit in units:
            reach = self._reach(unit).cost
            hosts[self.hex_of[unit]] = (unit, not reach.keys() <= occupied, reach)
        return hosts

    def _has_exit(self, host: tuple[str, bool, dict[int, int]], vacated: int) -> bool:
        """Whether a host (see ``_hosts_of``) could move to an empty hex once a unit leaving ``vacated`` has
        moved onto it (``vacated`` stays full when the leaving unit is itself the one underneath a stack)."""
        _, free_exit, reach = host
        return free_exit or (not self.ps.stack and vacated in reach)

    def _patch_kept(self, unit: str, start: int, dest: int, stacked: tuple[int, str] | None) -> None:
        """Patch what the phase keeps after ``unit`` moved from ``start`` to ``dest`` (see the class);
        ``stacked``: the stack the move began from, if any."""
        if self._unmoved_cache is None or (stacked and self._chain is None):  # nothing kept (or a position
            self._reset_movement()  # loaded mid-chain): listed afresh
            return
        if self.ps.stack:  # the chain begins or goes on: the unit is done, the others' segments wait
            origin, left = self._chain if stacked else (start, ())
            self._chain = (origin, (*left, start))
            self._unmoved_cache = [u for u in self._unmoved_cache if u != unit]
            self._empty_segs.pop(unit, None)
            self._friend_segs.pop(unit, None)
            return
        if stacked:  # the chain ends in an empty hex
            origin, left = self._chain
            self._chain = None
            self._moved_between_empty_hexes(unit, origin, dest, (*left, start))
            return
        self._moved_between_empty_hexes(unit, start, dest, ())

    def _moved_between_empty_hexes(self, unit: str, start: int, dest: int, left: tuple[int, ...]) -> None:
        """Patch the kept segments after ``unit`` moved from ``start`` to the empty ``dest`` (see the class),
        or a chain of moves onto friends emptied ``start`` and filled ``dest``, its units leaving the hexes
        ``left`` (``start`` first). Segments are patched in place: a clone of the game copies them."""
        self._unmoved_cache = unmoved = [u for u in self._unmoved_cache if u != unit]
        reach_cache, empty, friends, table = self._reach_cache, self._empty_segs, self._friend_segs, self._move_table
        empty.pop(unit, None)
        friends.pop(unit, None)
        flipped = []  # hexes of units that gained their first empty hex or lost their last
        back_home = start == dest  # a named path (or a chain) back to its first hex: no hex emptied or filled
        for u in unmoved:
            reach = reach_cache.get(u)
            if reach is None:
                continue
            cost = reach.cost
            if start in cost:
                segment = None if back_home else empty.get(u)
                if segment is not None:
                    hexes, moves = segment
                    was_empty = not hexes
                    if dest in cost:
                        at = hexes.index(dest)
                        del hexes[at], moves[at]
                    rank = reach.rank()
                    at = bisect(hexes, rank[start], key=rank.__getitem__)
                    hexes.insert(at, start)
                    moves.insert(at, table[u][start])
                    if was_empty:
                        flipped.append(self.hex_of[u])
                segment = friends.get(u)
                if segment is not None and start in segment[0]:
                    hexes, moves = segment
                    at = hexes.index(start)
                    del hexes[at], moves[at]
            elif dest in cost:
                segment = empty.get(u)
                if segment is not None:
                    hexes, moves = segment
                    at = hexes.index(dest)
                    del hexes[at], moves[at]
                    if not hexes:
                        flipped.append(self.hex_of[u])
        if len(left) > 1:  # the hexes a chain's later units left hold moved units now: no more swaps there
            gone = frozenset(left[1:])
            for hexes, moves in friends.values():
                if not gone.isdisjoint(hexes):
                    keep = [i for i, h in enumerate(hexes) if h not in gone]
                    moves[:] = [moves[i] for i in keep]
                    hexes[:] = [hexes[i] for i in keep]
        for h in flipped:
            for u in [u for u in friends if h in reach_cache[u].cost]:
                del friends[u]

    def _check_movement(self, action: Action):
        if isinstance(action, EndPhase):
            if self.ps.stack:
                hex_index, mover = self.ps.stack
                raise IllegalAction(Reason.STACKED_AT_PHASE_END,
                                    f"the phase cannot end while {self.board.ids[hex_index]} holds two units "
                                    f"({self.at[hex_index]} and {mover}); only one unit may be in a hex at "
                                    f"the end of the phase")
            return self._next_phase
        if not isinstance(action, Move):
            raise self._wrong_phase(action)
        counter = self._own_unit(action.unit)
        unit = action.unit
        dest = self._hex(action.to)
        if self.ps.stack and unit != self.at[self.ps.stack[0]]:
            hex_index, mover = self.ps.stack
            raise IllegalAction(Reason.MUST_MOVE_STACKED_UNIT,
                                f"unit {mover} ended its move on unit {self.at[hex_index]} in "
                                f"{self.board.ids[hex_index]}, so {self.at[hex_index]} must move next")
        if unit in self.ps.moved:
            raise IllegalAction(Reason.ALREADY_MOVED, f"unit {unit} has already moved in this phase")
        if unit not in self._movers():
            if self.phase.movers == "panzer":
                why = f"only panzers move in the panzer movement phase and {unit} is {counter.type}"
            elif self.phase.movers == "rail":
                why = f"only units that began the rail movement phase on a railroad hex may move, and {unit} did not"
            else:
                why = f"unit {unit} may not move now"
            raise IllegalAction(Reason.CANNOT_MOVE_THIS_PHASE, why)
        start = self.hex_of[unit]
        rules = self._move_rules(unit)
        enemy = other(counter.side)
        if action.path is not None:
            path = tuple(self._hex(h) for h in action.path)
            if not path or path[-1] != dest:
                raise IllegalAction(Reason.PATH_BROKEN, f"the path of unit {unit} must end at {action.to}")
            movement.check_path(unit, start, path, rules, self._units_of(enemy), self._zoc(enemy), self.board)
        else:
            if dest == start:
                raise IllegalAction(Reason.PATH_BROKEN, f"unit {unit} is already in {action.to}")
            reach = self._reach(unit)
            cost = reach.cost
            if dest not in cost:
                self._explain_unreachable(unit, start, dest, rules, self._units_of(enemy), self._zoc(enemy))
            away, control, side, allowance = self.board.distances[dest], self.control, counter.side, rules.allowance
            # only cities a path to ``dest`` could pass through (every hex costs at least 1)
            capture = {h: bit for h, bit, spent in reach.cities(self._city_bits)
                       if control.get(h) != side and h != dest and spent + away[h] <= allowance}
            if capture:
                path = movement.preferred_path(start, dest, rules, self._units_of(enemy), self._zoc(enemy), capture,
                                               away)
            else:
                path = reach.path_to(dest)
        occupant = self.at.get(dest)
        if occupant == unit:  # a named path back to its own hex: the unit that moved onto it, if any, is there
            occupant = self.ps.stack[1] if self.ps.stack and self.ps.stack[0] == dest else None
        if occupant is not None:
            self._check_stacking(unit, start, dest, occupant)
        return lambda: self._move(unit, start, path)

    def _explain_unreachable(self, unit: str, start: int, dest: int, rules: movement.MoveRules,
                             enemy_units: dict[int, str], enemy_zoc: frozenset[int]) -> None:
        """Refuse a destination out of reach, naming it and the rule that keeps the unit from it."""
        raise movement.unreachable(unit, start, dest, rules, enemy_units, enemy_zoc, self.board)

    def _check_stacking(self, unit: str, start: int, dest: int, occupant: str) -> None:
        ids = self.board.ids
        if occupant not in self._unmoved():
            raise IllegalAction(Reason.HEX_OCCUPIED,
                                f"unit {unit} cannot end its move in {ids[dest]}: unit {occupant} is there and "
                                f"cannot move away in this phase, and only one unit may be in a hex at the end "
                                f"of the phase")
        if not self._has_exit(self._hosts_of([occupant])[dest], start):
            raise IllegalAction(Reason.HEX_OCCUPIED,
                                f"unit {unit} cannot end its move in {ids[dest]}: unit {occupant} there would "
                                f"have no empty hex to move to")

    def _move(self, unit: str, start: int, path: tuple[int, ...]) -> None:
        dest = path[-1]
        stacked = self.ps.stack
        self._lift(unit)
        if dest in self.at:
            self.ps.stack = (dest, unit)
            self.hex_of[unit] = dest
            self._positions[self.counters[unit].side] += 1
        else:
            self._put(unit, dest)
        self.ps.moved.add(unit)
        self._patch_kept(unit, start, dest, stacked)
        ids, cities = self.board.ids, self.board.cities
        self._emit(UnitMoved(unit, ids[start], tuple(map(ids.__getitem__, path))))
        for hex_index in path:
            if hex_index in cities:
                self._enter_city(unit, hex_index)

