"""Zones of control and communication.

A unit's zone of control is the six hexes around it. A hex is *in communication* with an edge when a
path of any length leads from it to a target hex of that edge without entering a hex that holds an
enemy unit or lies in an enemy zone of control (the hex the path starts from does not count: a unit
is not "entering" the hex it stands in).
"""

from __future__ import annotations

from typing import Iterable

from .board import Board


def zone_of_control(board: Board, unit_hexes: Iterable[int]) -> frozenset[int]:
    zone: set[int] = set()
    for hex_index in unit_hexes:
        zone.update(board.neighbours[hex_index])
    return frozenset(zone)


def communication_region(board: Board, targets: Iterable[int], blocked: frozenset[int] | set[int]) -> frozenset[int]:
    """The free hexes (not ``blocked``) joined by free hexes to a free target hex."""
    seen = set(blocked)  # the blocked hexes and those already in the region: one look-up a neighbour
    frontier = [t for t in targets if t not in seen]
    seen.update(frontier)
    neighbours = board.neighbours
    while frontier:
        for nxt in neighbours[frontier.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return frozenset(seen.difference(blocked))


def in_communication(board: Board, hex_index: int, targets: frozenset[int], region: frozenset[int]) -> bool:
    """Whether a unit standing in ``hex_index`` can trace communication into ``region``."""
    if hex_index in targets or hex_index in region:
        return True
    return any(n in region for n in board.neighbours[hex_index])
