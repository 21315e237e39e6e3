"""The map compiled for play: hexes as small integers with precomputed neighbours, costs and links.

A hex's index is ``(column - 1) * rows + (row - 1)``; ``ids`` and ``index`` convert both ways.

>>> from engine.data import load_scenario
>>> board = load_scenario("standard").board
>>> board.id_of(board.neighbours[board.index["0101"]][0])
'0201'
>>> board.river_between(board.index["0604"], board.index["0603"])
True
>>> board.distance(board.index["0101"], board.index["1410"])
16
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .pickling import rebuilt_by_fields


@dataclass(frozen=True)
class Board:
    name: str
    columns: int
    rows: int
    ids: tuple[str, ...]
    index: dict[str, int]
    coords: tuple[tuple[int, int], ...]
    neighbours: tuple[tuple[int, ...], ...]
    direction_to: tuple[dict[str, int], ...]
    forest: tuple[bool, ...]
    move_cost: tuple[int, ...]
    cities: dict[int, str]
    capital: int
    forts: frozenset[int]
    setup_side: tuple[str | None, ...]
    setup_hexes: dict[str, tuple[int, ...]]
    rail_links: tuple[tuple[int, ...], ...]
    rivers: frozenset[frozenset[int]]
    west_edge: frozenset[int]
    east_edge: frozenset[int]
    entry: dict[str, frozenset[int]]
    distances: tuple[tuple[int, ...], ...]  # distances[a][b]: hexes between a and b, precomputed for speed
    #: searches kept for the map's lifetime (engine.movement.free_reach): not part of the map's value
    memo: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def id_of(self, hex_index: int) -> str:
        return self.ids[hex_index]

    def adjacent(self, a: int, b: int) -> bool:
        return b in self.neighbours[a]

    def river_between(self, a: int, b: int) -> bool:
        return frozenset((a, b)) in self.rivers

    def distance(self, a: int, b: int) -> int:
        return self.distances[a][b]

    def is_rail(self, hex_index: int) -> bool:
        return bool(self.rail_links[hex_index])


rebuilt_by_fields(Board)
