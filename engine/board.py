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
from typing import TYPE_CHECKING, Any

from .errors import DataError
from .hexgrid import DIRECTIONS, OPPOSITE, distance, format_hex, parse_hex, step

if TYPE_CHECKING:
    from .data import MapSpec


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
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

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

    @classmethod
    def from_spec(cls, spec: "MapSpec", label: str) -> "Board":
        columns, rows = spec.columns, spec.rows
        ids = tuple(format_hex(c, r) for c in range(1, columns + 1) for r in range(1, rows + 1))
        index = {hex_id: i for i, hex_id in enumerate(ids)}
        by_id = {}
        for hex_spec in spec.hexes:
            entry = f"hex {hex_spec.id}"
            if hex_spec.id not in index:
                raise DataError(label, entry, f"outside the {columns}x{rows} grid")
            if hex_spec.id in by_id:
                raise DataError(label, entry, "listed twice")
            by_id[hex_spec.id] = hex_spec
        missing = [hex_id for hex_id in ids if hex_id not in by_id]
        if missing:
            raise DataError(label, f"hex {missing[0]}", "missing from the hex list")

        coords = tuple(parse_hex(hex_id) for hex_id in ids)

        def toward(i: int, direction: str) -> int | None:
            c, r = step(*coords[i], direction)
            return index.get(format_hex(c, r)) if 1 <= c <= columns and 1 <= r <= rows else None

        direction_to = tuple({d: n for d in DIRECTIONS if (n := toward(i, d)) is not None}
                             for i in range(len(ids)))
        neighbours = tuple(tuple(dirs.values()) for dirs in direction_to)

        def links(kind: str) -> tuple[tuple[int, ...], ...]:
            result = []
            for i, hex_id in enumerate(ids):
                linked = []
                for direction in getattr(by_id[hex_id], kind):
                    other = direction_to[i].get(direction)
                    entry = f"hex {hex_id}"
                    if other is None:
                        raise DataError(label, entry, f"{kind} {direction} leads off the map")
                    if OPPOSITE[direction] not in getattr(by_id[ids[other]], kind):
                        raise DataError(label, entry, f"{kind} {direction} toward {ids[other]} is not listed "
                                                      f"there as {OPPOSITE[direction]}")
                    linked.append(other)
                result.append(tuple(linked))
            return tuple(result)

        rail_links = links("rail")
        river_links = links("river")
        rivers = frozenset(frozenset((i, j)) for i, js in enumerate(river_links) for j in js)

        def hexes(listed: list[str], entry: str) -> frozenset[int]:
            for hex_id in listed:
                if hex_id not in index:
                    raise DataError(label, entry, f"{hex_id} is not on the map")
            return frozenset(index[h] for h in listed)

        capitals = [index[h.id] for h in spec.hexes if h.capital]
        if len(capitals) != 1:
            raise DataError(label, "hexes", "exactly one hex must be the capital")
        if not by_id[ids[capitals[0]]].city:
            raise DataError(label, f"hex {ids[capitals[0]]}", "the capital must be a city")
        setup_side = tuple(by_id[hex_id].setup for hex_id in ids)
        forest = tuple(by_id[hex_id].terrain == "forest" for hex_id in ids)
        return cls(
            name=spec.name, columns=columns, rows=rows, ids=ids, index=index, coords=coords,
            neighbours=neighbours, direction_to=direction_to, forest=forest,
            move_cost=tuple(2 if f else 1 for f in forest),
            cities={index[h.id]: h.city for h in spec.hexes if h.city},
            capital=capitals[0],
            forts=frozenset(index[h.id] for h in spec.hexes if h.fort),
            setup_side=setup_side,
            setup_hexes={side: tuple(i for i, s in enumerate(setup_side) if s == side)
                         for side in ("german", "soviet")},
            rail_links=rail_links, rivers=rivers,
            west_edge=hexes(spec.edges.west, "edges.west"),
            east_edge=hexes(spec.edges.east, "edges.east"),
            entry={"german": hexes(spec.entry.german, "entry.german"),
                   "soviet": hexes(spec.entry.soviet, "entry.soviet"),
                   "soviet_extra": hexes(spec.entry.soviet_extra, "entry.soviet_extra")},
            distances=tuple(tuple(distance(a, b) for b in coords) for a in coords),
        )
