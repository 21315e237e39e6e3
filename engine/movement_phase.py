"""Movement phases: the panzer movement phase, the Soviet rail movement phase and the movement phases.

Where a unit can go is worked out by :mod:`engine.movement`; enemy units do not move during a player's
movement phase, so each unit's reach is computed once per phase.
"""

from __future__ import annotations


from bisect import bisect, bisect_left
from typing import Final

from . import movement
from .actions import END_PHASE, Action, Move, action_table
from .scenario import CounterInfo
from .errors import IllegalAction, Reason
from .events import UnitMoved
from .sequence import other
from .state import Effect, GameState

#: Whether this module runs compiled (mypyc, see engine/builds.py): a loop over native ints beats a call of
#: bisect there, while in Python bisect's C beats a loop.
_COMPILED: Final = not __file__.endswith(".py")


def _after(places: list[int], place: int) -> int:
    """``bisect.bisect(places, place)``, written out for the compiled engine."""
    low, high = 0, len(places)
    while low < high:
        middle = (low + high) // 2
        if place < places[middle]:
            high = middle
        else:
            low = middle + 1
    return low


def _before(places: list[int], place: int) -> int:
    """``bisect.bisect_left(places, place)``, written out for the compiled engine."""
    low, high = 0, len(places)
    while low < high:
        middle = (low + high) // 2
        if places[middle] < place:
            low = middle + 1
        else:
            high = middle
    return low


#: Kept segments of one unit: (its empty hexes' places in its reach's order, the moves there), or (the hexes of
#: the units it could move onto, the moves there).
Segment = tuple[list[int], list[Move]]

#: The units still to move as hosts others may move onto: their hexes (in their order), whether each can
#: go to an empty hex, and each one's reach (movement points per hex, -1 out of reach).
Hosts = tuple[list[int], dict[int, bool], dict[int, list[int]]]


class Kept:
    """What a movement phase keeps of one unit: its reach (searched once a phase) and, while it may still
    move, its segments (each None until listed, see :class:`MovementPhase`)."""

    __slots__ = ("unit", "reach", "empty", "friends")

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.reach: movement.Reach | None = None
        self.empty: Segment | None = None
        self.friends: Segment | None = None

    def copy(self) -> Kept:
        """A copy for a copy of the game: the segments are patched in place as the phase goes on (the reach
        is never changed: it is shared)."""
        twin = Kept(self.unit)
        twin.reach = self.reach
        empty, friends = self.empty, self.friends
        twin.empty = None if empty is None else (empty[0].copy(), empty[1].copy())
        twin.friends = None if friends is None else (friends[0].copy(), friends[1].copy())
        return twin


class MovementPhase:
    """Moving units: the panzer, rail and ordinary movement phases.

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

    def __init__(self, game: GameState) -> None:
        board = game.board
        self._move_table = action_table(Move, board.ids, game.counters)
        self._rules_made: dict[tuple[str, int, str, str], movement.MoveRules] = {}  # shared values (immutable)
        self._city_bits = tuple((h, 1 << i) for i, h in enumerate(sorted(board.cities)))
        self._rules_cache: dict[str, movement.MoveRules] = {}
        self._kept: dict[str, Kept] = {}  # unit → what the phase keeps of it
        self._unmoved_cache: list[str] | None = None
        self._records: list[Kept] | None = None  # what is kept of the units still to move, in their order
        #: a chain of moves onto friends under way: (the hex its first unit left, the hexes its units left)
        self._chain: tuple[int, tuple[int, ...]] | None = None

    def copy_to(self, twin: MovementPhase) -> None:
        """Give ``twin`` (the movement rules of a copy of this game) what this one keeps."""
        twin._rules_made = self._rules_made
        twin._rules_cache = dict(self._rules_cache)
        kept = twin._kept = {unit: record.copy() for unit, record in self._kept.items()}
        twin._unmoved_cache = self._unmoved_cache  # replaced, never changed in place
        twin._records = None if self._records is None else [kept[record.unit] for record in self._records]
        twin._chain = self._chain

    def reset(self, game: GameState) -> None:
        """A phase starts (or a position is loaded): forget what the last one kept; the Soviet rail movement
        phase notes the units on a railroad hex."""
        self._kept = {}
        self._rules_cache = {}
        self._reset_movement()
        phase = game.phase
        if phase.movers == "rail":
            board, counters = game.board, game.counters
            game.ps.rail_eligible = frozenset(
                u for u, h in game.hex_of.items() if counters[u].side == phase.side and board.is_rail(h))

    def _reset_movement(self) -> None:
        """Forget the kept segments and units still to move (the reaches stay: the enemy has not moved)."""
        self._unmoved_cache = None
        self._records = None
        for record in self._kept.values():
            record.empty = None
            record.friends = None
        self._chain = None

    def _movers(self, game: GameState, unmoved: list[str] | None = None) -> list[str]:
        """Units that may move now: the unit another has moved onto, or else every unit that may still
        move in this phase (``unmoved``, when already known)."""
        stack = game.ps.stack
        if stack:
            return [game.at[stack[0]]]
        return self._unmoved(game) if unmoved is None else unmoved

    def _unmoved(self, game: GameState) -> list[str]:
        """Units that may still move in this phase (kept between the phase's actions)."""
        cached = self._unmoved_cache
        if cached is not None:
            return cached
        side, movers, moved = game.phase.side, game.phase.movers, game.ps.moved
        hex_of, counters = game.hex_of, game.counters
        if movers == "rail":
            eligible = game.ps.rail_eligible
            cached = [u for u, c in counters.items() if u in hex_of and u not in moved
                      and (u in eligible or (c.side == side and c.type == "tank"))]
        else:
            cached = [u for u, c in counters.items()
                      if c.side == side and u in hex_of and u not in moved and (movers == "all" or c.type == "panzer")]
        self._unmoved_cache = cached
        self._records = [self._record(unit) for unit in cached]
        return cached

    def _record(self, unit: str) -> Kept:
        """What the phase keeps of ``unit`` (made when first asked)."""
        record = self._kept.get(unit)
        if record is None:
            record = self._kept[unit] = Kept(unit)
        return record

    def _unmoved_records(self, game: GameState) -> list[Kept]:
        """What the phase keeps of the units still to move, in their order."""
        records = self._records
        if records is None or self._unmoved_cache is None:
            self._unmoved_cache = None
            self._unmoved(game)
            records = self._records
            assert records is not None
        return records

    def _move_rules(self, game: GameState, unit: str) -> movement.MoveRules:
        """How ``unit`` moves in this phase (worked out once a phase)."""
        rules = self._rules_cache.get(unit)
        if rules is None:
            rules = self._rules_cache[unit] = self._rules_now(game, unit)
        return rules

    def _rules_now(self, game: GameState, unit: str) -> movement.MoveRules:
        counter = game.counters[unit]
        key = (counter.type, counter.ma, game.phase.movers, game.weather_id)
        rules = self._rules_made.get(key)
        if rules is None:
            rules = self._rules_made[key] = self._rules_of(game, counter)
        return rules

    def _rules_of(self, game: GameState, counter: CounterInfo) -> movement.MoveRules:
        board = game.board
        weather = game.weather()
        allowance = max(0, counter.ma + weather.ma_modifier.get(counter.type, 0))
        if game.phase.movers == "rail":
            # "A forest hex counts as only one hex for movement in this phase", and the Tank unit "may
            # move during the Rail Movement phase but need not follow any rail lines"
            lines = board.neighbours if counter.type == "tank" else board.rail_links
            return movement.MoveRules(allowance, lines, None, "rail")
        if weather.max_hexes is not None:
            # ruling 50 (ruleset 3): "Units at 1 MA", and a forest hex costs 2, so it cannot be entered;
            # rulesets 1 and 2 let the one hex be any hex (ruling 5)
            costs = board.move_cost if game.ruleset >= 3 else None
            return movement.MoveRules(min(allowance, weather.max_hexes), board.neighbours, costs, "mud")
        return movement.MoveRules(allowance, board.neighbours, board.move_cost, "normal")

    def _reach(self, game: GameState, unit: str) -> movement.Reach:
        """Where ``unit`` can go this phase; enemies do not move during it, so this is computed once."""
        return self._reach_of(game, self._record(unit))

    def _reach_of(self, game: GameState, record: Kept) -> movement.Reach:
        cached = record.reach
        unit = record.unit
        start = game.hex_of[unit]
        if cached is None or cached.start != start:
            blocked, zoc = game._masks(other(game.counters[unit].side))
            cached = record.reach = movement.reach_among(game.board, start, self._move_rules(game, unit), blocked, zoc)
        return cached

    def actions(self, game: GameState) -> list[Action]:
        """Moves to empty hexes (unit by unit, each in its reach's order), then moves onto friendly units
        that can move away, then ending the phase (not while two units share a hex)."""
        if game.ps.stack:
            kept = self._chain_actions(game)
            if kept is not None:
                return kept
            movers = self._movers(game)
            table = self._move_table
            occupied = game._occupancy()
            actions: list[Action] = [table[u][h] for u in movers for h in self._reach(game, u).order if not occupied[h]]
            actions.extend(self._moves_onto_friends(game, movers, self._unmoved(game)))
            return actions
        records = self._unmoved_records(game)
        actions = []
        hosts: Hosts | None = None
        for record in records:
            segment = record.empty
            actions.extend((segment if segment is not None else self._empty_segment_of(game, record))[1])
        for record in records:
            segment = record.friends
            if segment is None:
                if hosts is None:
                    hosts = self._free_hosts(game, records)
                segment = self._friend_segment(game, record, hosts)
            actions.extend(segment[1])
        actions.append(END_PHASE)
        return actions

    def _chain_actions(self, game: GameState) -> list[Action] | None:
        """The listing of a stack (as :meth:`_moves_onto_friends` and the unit underneath's empty hexes make
        it) read off the segments kept from before the chain began, or None if they are not all there.
        While a chain lasts, the one hex emptied is the one its first unit left (its moves end on friends):
        the unit underneath may go to its kept empty hexes and that one, if in reach (in its place in the
        reach's order); a unit still to move can be moved onto if it has a kept empty hex or that one."""
        chain, records = self._chain, self._records
        if chain is None or records is None or self._unmoved_cache is None:
            return None
        stack = game.ps.stack
        if stack is None:
            return None
        origin = chain[0]
        hex_of = game.hex_of
        unit = game.at[stack[0]]
        record = self._kept.get(unit)
        if record is None:
            return None
        reach, segment = record.reach, record.empty
        if reach is None or segment is None or reach.start != hex_of[unit]:
            return None
        costs, row = reach.costs, self._move_table[unit]
        actions: list[Action] = list(segment[1])
        if costs[origin] >= 0:
            place = reach.rank()[origin]
            actions.insert(_after(segment[0], place) if _COMPILED else bisect(segment[0], place), row[origin])
        for host_record in records:
            host = host_record.unit
            h = hex_of[host]
            if costs[h] >= 0 and host != unit:
                host_segment, host_reach = host_record.empty, host_record.reach
                if host_segment is None or host_reach is None:
                    return None
                if host_segment[0] or host_reach.costs[origin] >= 0:
                    actions.append(row[h])
        return actions

    def _empty_segment_of(self, game: GameState, record: Kept) -> Segment:
        """The empty hexes a unit can reach, as their places in its reach's order, and the moves there."""
        segment = record.empty
        if segment is None:
            row = self._move_table[record.unit]
            order = self._reach_of(game, record).order
            occupied = game._occupancy()
            places = [place for place, h in enumerate(order) if not occupied[h]]
            segment = record.empty = (places, [row[order[place]] for place in places])
        return segment

    def _free_hosts(self, game: GameState, records: list[Kept]) -> Hosts:
        """The hexes of the units still to move (``records``, in their order), whether each one's unit has an
        empty hex to go to, and each one's reach (movement points per hex, -1 out of reach)."""
        hex_of = game.hex_of
        hexes: list[int] = []
        free: dict[int, bool] = {}
        reach_of: dict[int, list[int]] = {}
        for record in records:
            h = hex_of[record.unit]
            hexes.append(h)
            free[h] = bool(self._empty_segment_of(game, record)[0])
            reach_of[h] = self._reach_of(game, record).costs
        return hexes, free, reach_of

    def _friend_segment(self, game: GameState, record: Kept, hosts: Hosts) -> Segment:
        """The hexes of units still to move (``hosts``, see ``_free_hosts``) that a unit can move onto (no two
        units sharing a hex yet), and the moves there: the host must have an empty hex to go to, or else
        the hex the unit leaves."""
        unit = record.unit
        start, costs = game.hex_of[unit], self._reach_of(game, record).costs
        host_hexes, free, reach_of = hosts
        row = self._move_table[unit]
        hexes = [h for h in host_hexes if costs[h] >= 0 and (free[h] or reach_of[h][start] >= 0)]
        segment = record.friends = (hexes, [row[h] for h in hexes])
        return segment

    def _moves_onto_friends(self, game: GameState, movers: list[str], unmoved: list[str]) -> list[Move]:
        """Moves onto a friendly unit that can then move away, which is how units swap or rotate places
        ("A unit can enter a hex containing a friendly unit, but there can only be one unit in a hex at
        the end of the phase"); here while a unit stands on another (see ``_friend_segment`` otherwise)."""
        hosts = self._hosts_of(game, unmoved)
        hex_of = game.hex_of
        moves: list[Move] = []
        for unit in movers:
            start = hex_of[unit]
            costs, row = self._reach(game, unit).costs, self._move_table[unit]
            moves.extend(row[h] for h, host in hosts.items()
                         if costs[h] >= 0 and host[0] != unit and self._has_exit(game, host, start))
        return moves

    def _hosts_of(self, game: GameState, units: list[str]) -> dict[int, tuple[str, bool, list[int]]]:
        """Hex → (the unit there, whether it can reach an empty hex, its reach's movement points per hex),
        for ``units``."""
        at, hex_of = game.at, game.hex_of
        hosts = {}
        for unit in units:
            reach = self._reach(game, unit)
            free_exit = False
            for h in reach.order:
                if h not in at:
                    free_exit = True
                    break
            hosts[hex_of[unit]] = (unit, free_exit, reach.costs)
        return hosts

    def _has_exit(self, game: GameState, host: tuple[str, bool, list[int]], vacated: int) -> bool:
        """Whether a host (see ``_hosts_of``) could move to an empty hex once a unit leaving ``vacated`` has
        moved onto it (``vacated`` stays full when the leaving unit is itself the one underneath a stack)."""
        _, free_exit, costs = host
        return free_exit or (not game.ps.stack and costs[vacated] >= 0)

    def _patch_kept(self, game: GameState, unit: str, start: int, dest: int, stacked: tuple[int, str] | None) -> None:
        """Patch what the phase keeps after ``unit`` moved from ``start`` to ``dest`` (see the class);
        ``stacked``: the stack the move began from, if any."""
        records, chain = self._records, self._chain
        if records is None or self._unmoved_cache is None or (stacked and chain is None):  # nothing kept (or a
            self._reset_movement()  # position loaded mid-chain): listed afresh
            return
        # the unit is done: what is kept of it is no longer listed
        records = [record for record in records if record.unit != unit]
        self._records = records
        self._unmoved_cache = [record.unit for record in records]
        moved = self._kept.get(unit)
        if moved is not None:
            moved.empty = None
            moved.friends = None
        if game.ps.stack:  # the chain begins or goes on: the others' segments wait
            origin, left = chain if stacked and chain is not None else (start, ())
            self._chain = (origin, (*left, start))
            return
        if stacked and chain is not None:  # the chain ends in an empty hex
            origin, left = chain
            self._chain = None
            self._moved_between_empty_hexes(game, records, origin, dest, (*left, start))
            return
        self._moved_between_empty_hexes(game, records, start, dest, ())

    def _moved_between_empty_hexes(self, game: GameState, records: list[Kept], start: int, dest: int,
                                   left: tuple[int, ...]) -> None:
        """Patch the kept segments of the units still to move (``records``) after a unit moved from ``start``
        to the empty ``dest`` (see the class), or a chain of moves onto friends emptied ``start`` and filled
        ``dest``, its units leaving the hexes ``left`` (``start`` first). Segments are patched in place: a
        clone of the game copies them."""
        table = self._move_table
        hex_of = game.hex_of
        flipped = []  # hexes of units that gained their first empty hex or lost their last
        back_home = start == dest  # a named path (or a chain) back to its first hex: no hex emptied or filled
        for record in records:
            reach = record.reach
            if reach is None:
                continue
            u = record.unit
            costs = reach.costs
            if costs[start] >= 0:
                segment = None if back_home else record.empty
                if segment is not None:
                    places, moves = segment
                    was_empty = not places
                    rank = reach.rank()
                    if costs[dest] >= 0:
                        at = _before(places, rank[dest]) if _COMPILED else bisect_left(places, rank[dest])
                        places.pop(at)
                        moves.pop(at)
                    place = rank[start]
                    at = _after(places, place) if _COMPILED else bisect(places, place)
                    places.insert(at, place)
                    moves.insert(at, table[u][start])
                    if was_empty:
                        flipped.append(hex_of[u])
                segment = record.friends
                if segment is not None and start in segment[0]:
                    hexes, moves = segment
                    at = hexes.index(start)
                    hexes.pop(at)
                    moves.pop(at)
            elif costs[dest] >= 0:
                segment = record.empty
                if segment is not None:
                    places, moves = segment
                    place = reach.rank()[dest]
                    at = _before(places, place) if _COMPILED else bisect_left(places, place)
                    places.pop(at)
                    moves.pop(at)
                    if not places:
                        flipped.append(hex_of[u])
        if len(left) > 1:  # the hexes a chain's later units left hold moved units now: no more swaps there
            gone = frozenset(left[1:])
            for record in records:
                if record.friends is None:
                    continue
                hexes, moves = record.friends
                if any(h in gone for h in hexes):
                    keep = [i for i, h in enumerate(hexes) if h not in gone]
                    kept_moves = [moves[i] for i in keep]
                    kept_hexes = [hexes[i] for i in keep]
                    moves.clear()
                    moves.extend(kept_moves)
                    hexes.clear()
                    hexes.extend(kept_hexes)
        for h in flipped:
            for record in records:
                reach = record.reach
                if record.friends is not None and reach is not None and reach.costs[h] >= 0:
                    record.friends = None

    def check_end(self, game: GameState) -> None:
        """Refuse ending the phase while two units share a hex."""
        stack = game.ps.stack
        if stack:
            hex_index, mover = stack
            raise IllegalAction(Reason.STACKED_AT_PHASE_END,
                                f"the phase cannot end while {game.board.ids[hex_index]} holds two units "
                                f"({game.at[hex_index]} and {mover}); only one unit may be in a hex at "
                                f"the end of the phase")

    def check(self, game: GameState, action: Action) -> Effect:
        """Validate a move completely (ending the phase is :meth:`check_end`); return what carries it out."""
        if not isinstance(action, Move):
            raise game._wrong_phase(action)
        counter = game._own_unit(action.unit)
        unit = action.unit
        dest = game._hex(action.to)
        ps = game.ps
        stack = ps.stack
        if stack and unit != game.at[stack[0]]:
            hex_index, mover = stack
            raise IllegalAction(Reason.MUST_MOVE_STACKED_UNIT,
                                f"unit {mover} ended its move on unit {game.at[hex_index]} in "
                                f"{game.board.ids[hex_index]}, so {game.at[hex_index]} must move next")
        if unit in ps.moved:
            raise IllegalAction(Reason.ALREADY_MOVED, f"unit {unit} has already moved in this phase")
        if unit not in self._movers(game):
            if game.phase.movers == "panzer":
                why = f"only panzers move in the panzer movement phase and {unit} is {counter.type}"
            elif game.phase.movers == "rail":
                why = f"only units that began the rail movement phase on a railroad hex may move, and {unit} did not"
            else:
                why = f"unit {unit} may not move now"
            raise IllegalAction(Reason.CANNOT_MOVE_THIS_PHASE, why)
        start = game.hex_of[unit]
        rules = self._move_rules(game, unit)
        enemy = other(counter.side)
        path: tuple[int, ...] | None
        if action.path is not None:
            path = tuple(game._hex(h) for h in action.path)
            if not path or path[-1] != dest:
                raise IllegalAction(Reason.PATH_BROKEN, f"the path of unit {unit} must end at {action.to}")
            movement.check_path(unit, start, path, rules, game._units_of(enemy), game._zoc(enemy), game.board)
        else:
            if dest == start:
                raise IllegalAction(Reason.PATH_BROKEN, f"unit {unit} is already in {action.to}")
            reach = self._reach(game, unit)
            if reach.costs[dest] < 0:
                self._explain_unreachable(game, unit, start, dest, rules, game._units_of(enemy), game._zoc(enemy))
            away, control, side, allowance = game.board.distances[dest], game.control, counter.side, rules.allowance
            # only cities a path to ``dest`` could pass through (every hex costs at least 1)
            capture = {h: bit for h, bit, spent in reach.cities(self._city_bits)
                       if control.get(h) != side and h != dest and spent + away[h] <= allowance}
            if capture:
                path = movement.preferred_path(start, dest, rules, game._units_of(enemy), game._zoc(enemy), capture,
                                               away)
                assert path is not None  # dest is within the reach: some path leads there
            else:
                path = reach.path_to(dest)
        occupant = game.at.get(dest)
        if occupant == unit:  # a named path back to its own hex: the unit that moved onto it, if any, is there
            occupant = stack[1] if stack and stack[0] == dest else None
        if occupant is not None:
            self._check_stacking(game, unit, start, dest, occupant)
        moved = path
        return lambda: self._move(game, unit, start, moved)

    def _explain_unreachable(self, game: GameState, unit: str, start: int, dest: int, rules: movement.MoveRules,
                             enemy_units: dict[int, str], enemy_zoc: frozenset[int]) -> None:
        """Refuse a destination out of reach, naming it and the rule that keeps the unit from it."""
        raise movement.unreachable(unit, start, dest, rules, enemy_units, enemy_zoc, game.board)

    def _check_stacking(self, game: GameState, unit: str, start: int, dest: int, occupant: str) -> None:
        ids = game.board.ids
        if occupant not in self._unmoved(game):
            raise IllegalAction(Reason.HEX_OCCUPIED,
                                f"unit {unit} cannot end its move in {ids[dest]}: unit {occupant} is there and "
                                f"cannot move away in this phase, and only one unit may be in a hex at the end "
                                f"of the phase")
        if not self._has_exit(game, self._hosts_of(game, [occupant])[dest], start):
            raise IllegalAction(Reason.HEX_OCCUPIED,
                                f"unit {unit} cannot end its move in {ids[dest]}: unit {occupant} there would "
                                f"have no empty hex to move to")

    def _move(self, game: GameState, unit: str, start: int, path: tuple[int, ...]) -> None:
        ps = game.ps
        dest = path[-1]
        stacked = ps.stack
        game._lift(unit)
        if dest in game.at:
            ps.stack = (dest, unit)
            game.hex_of[unit] = dest
            game._positions[game.counters[unit].side] += 1
        else:
            game._put(unit, dest)
        ps.moved.add(unit)
        self._patch_kept(game, unit, start, dest, stacked)
        ids, cities = game.board.ids, game.board.cities
        game._emit(UnitMoved(unit, ids[start], tuple(map(ids.__getitem__, path))))
        for hex_index in path:
            if hex_index in cities:
                game._enter_city(unit, hex_index)
