"""Position analysis shared by the strategies: distances, reach, zones of control, retreats, values.

Everything here reads an :class:`engine.Game` and never changes it. Hexes are the engine's hex indices
(``state.board.index[hex_id]``); units are counter ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import engine
from engine import movement, retreat

SIDES = ("german", "soviet")


def other(side: str) -> str:
    return "soviet" if side == "german" else "german"


# --- the board, precomputed once ---------------------------------------------------------------------

@dataclass
class BoardInfo:
    """Static facts about a board that the strategies look up all the time."""

    board: object
    n: int
    col: tuple[int, ...]
    row: tuple[int, ...]
    dist: tuple[tuple[int, ...], ...]
    neighbours: tuple[tuple[int, ...], ...]
    cities: dict[int, str]
    capital: int
    forts: frozenset[int]
    forest: tuple[bool, ...]
    rail: tuple[tuple[int, ...], ...]
    river_pairs: frozenset
    west_edge: frozenset[int]
    east_edge: frozenset[int]
    rows: int
    columns: int
    to_capital: tuple[int, ...] = ()
    by_id: dict[str, int] = field(default_factory=dict)
    _mcost: list | None = None

    def mcost(self) -> list[list[int]]:
        """All-pairs cost of normal movement (forest 2, clear 1), ignoring units: ``mcost()[a][b]``."""
        if self._mcost is None:
            import heapq
            costs = self.board.move_cost
            table = []
            for a in range(self.n):
                best = [10 ** 6] * self.n
                best[a] = 0
                heap = [(0, a)]
                while heap:
                    c, h = heapq.heappop(heap)
                    if c > best[h]:
                        continue
                    for nb in self.neighbours[h]:
                        nc = c + costs[nb]
                        if nc < best[nb]:
                            best[nb] = nc
                            heapq.heappush(heap, (nc, nb))
                table.append(best)
            self._mcost = table
        return self._mcost

    def river(self, a: int, b: int) -> bool:
        return frozenset((a, b)) in self.river_pairs

    def hex_id(self, h: int) -> str:
        return self.board.ids[h]


_BOARDS: dict[int, BoardInfo] = {}


def board_info(state: engine.Game) -> BoardInfo:
    board = state.board
    info = _BOARDS.get(id(board))
    if info is not None and info.board is board:
        return info
    n = len(board.ids)
    coords = board.coords
    dist = tuple(tuple(board.distance(a, b) for b in range(n)) for a in range(n))
    info = BoardInfo(
        board=board, n=n, col=tuple(c for c, _ in coords), row=tuple(r for _, r in coords), dist=dist,
        neighbours=board.neighbours, cities=dict(board.cities), capital=board.capital, forts=board.forts,
        forest=board.forest, rail=board.rail_links, river_pairs=board.rivers, west_edge=board.west_edge,
        east_edge=board.east_edge, rows=board.rows, columns=board.columns,
        to_capital=tuple(dist[h][board.capital] for h in range(n)), by_id=dict(board.index),
    )
    _BOARDS[id(board)] = info
    return info


# --- who is where -----------------------------------------------------------------------------------

def units_by_hex(state: engine.Game, side: str) -> dict[int, str]:
    """Hex → unit for ``side``'s units on the map."""
    counters = state.counters
    return {h: u for u, h in state.hex_of.items() if counters[u].side == side}


def zoc(info: BoardInfo, hexes: Iterable[int]) -> set[int]:
    zone: set[int] = set()
    neighbours = info.neighbours
    for h in hexes:
        zone.update(neighbours[h])
    return zone


def strength(state: engine.Game, unit: str) -> int:
    return state.strength(unit)


def full_strength(state: engine.Game, unit: str) -> int:
    return state.counters[unit].full


def is_reduced(state: engine.Game, unit: str) -> bool:
    return unit in state.reduced


# --- movement ---------------------------------------------------------------------------------------

def move_rules(state: engine.Game, unit: str) -> movement.MoveRules | None:
    """The movement rules of ``unit`` in the current movement phase, as the engine applies them."""
    phase = state.phase
    counter = state.counters[unit]
    weather = state.weather()
    allowance = counter.ma + weather.ma_modifier.get(counter.type, 0)
    board = state.board
    movers = getattr(phase, "movers", "")
    if movers == "rail":
        return movement.MoveRules(allowance, board.rail_links, None, "rail")
    if weather.max_hexes is not None:
        return movement.MoveRules(min(allowance, weather.max_hexes), board.neighbours, None, "mud")
    return movement.MoveRules(allowance, board.neighbours, board.move_cost, "normal")


def reach(state: engine.Game, unit: str, enemy_units: dict[int, str] | None = None,
          enemy_zoc: frozenset[int] | set[int] | None = None) -> dict[int, int]:
    """Hex → movement cost for every hex ``unit`` could end its move in this phase (friendly-occupied
    hexes included). Empty if the rules cannot be worked out."""
    try:
        rules = move_rules(state, unit)
        side = state.counters[unit].side
        if enemy_units is None:
            enemy_units = units_by_hex(state, other(side))
        if enemy_zoc is None:
            enemy_zoc = frozenset(zoc(board_info(state), enemy_units))
        return dict(movement.reach(state.hex_of[unit], rules, enemy_units, frozenset(enemy_zoc)).cost)
    except Exception:
        return {}


def potential_reach(info: BoardInfo, start: int, allowance: int, enemy_units: dict | set, enemy_zoc: set | frozenset,
                    costs: tuple[int, ...] | None, neighbours=None) -> dict[int, int]:
    """A movement search for a hypothetical move (another phase, another weather)."""
    rules = movement.MoveRules(allowance, neighbours or info.neighbours, costs, "normal")
    return dict(movement.reach(start, rules, enemy_units, frozenset(enemy_zoc)).cost)


# --- retreats ---------------------------------------------------------------------------------------

def retreat_status(info: BoardInfo, start: int, friendly: set[int] | dict, enemy_units: set[int] | dict,
                   enemy_zoc: frozenset[int] | set[int]) -> str:
    """How a unit in ``start`` would retreat: ``"free"``, ``"zoc"`` (only through an enemy zone of control,
    losing a step) or ``"none"`` (eliminated)."""
    options = retreat.retreat_options(info.board, start, friendly, enemy_units, frozenset(enemy_zoc))
    if not options.paths:
        return "none"
    return "zoc" if options.through_zoc else "free"


# --- odds without the engine (fast) -----------------------------------------------------------------

def odds_column(state: engine.Game, defender: str, attackers: Iterable[str], def_hex: int | None = None,
                attacker_hexes: Iterable[int] | None = None, defence: int | None = None) -> int:
    """The final CRT column (−1 or less: below the table) for a battle, the engine's own odds rule.

    With ``def_hex``/``attacker_hexes`` the battle is imagined with the units in those hexes (planning);
    otherwise it is :meth:`engine.Game.battle_odds` on the current position.
    """
    attackers = list(attackers)
    if def_hex is None and attacker_hexes is None and defence is None:
        return state.battle_odds(defender, attackers).final
    from engine import combat
    board = state.board
    target = state.hex_of[defender] if def_hex is None else def_hex
    hexes = [state.hex_of[a] for a in attackers] if attacker_hexes is None else list(attacker_hexes)
    from fractions import Fraction
    attack = Fraction(sum(state.strength(a) for a in attackers)) * state.weather().attack_factor
    left = combat.defensive_shift(board, target, state.side_of(defender))
    left += combat.river_shift(board, target, hexes)
    d = state.strength(defender) if defence is None else defence
    return combat.compute_odds(state.scenario.crt, attack, d, left, 0).final


def result_distribution(state: engine.Game, column: int) -> list[tuple[str, float]]:
    """[(result, probability)] for a CRT column; below the table: no effect."""
    crt = state.scenario.crt
    if column < 0:
        return [("NE", 1.0)]
    counts: dict[str, int] = {}
    for roll in range(1, 7):
        r = crt.results[roll][column]
        counts[r] = counts.get(r, 0) + 1
    return [(r, c / 6) for r, c in counts.items()]
