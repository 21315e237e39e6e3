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
    neighbours = board.neighbours
    zone: set[int] = set()
    for hex_index in unit_hexes:
        for n in neighbours[hex_index]:
            zone.add(n)
    return frozenset(zone)


def communication_region(board: Board, targets: Iterable[int], blocked: list[bool]) -> list[bool]:
    """Per hex of the map: whether it is free (not ``blocked``) and joined by free hexes to a free target hex."""
    region = [False] * len(blocked)
    neighbours = board.neighbours
    frontier = []
    for t in targets:
        if not blocked[t] and not region[t]:
            region[t] = True
            frontier.append(t)
    while frontier:
        for nxt in neighbours[frontier.pop()]:
            if not region[nxt] and not blocked[nxt]:
                region[nxt] = True
                frontier.append(nxt)
    return region


def in_communication(board: Board, hex_index: int, targets: frozenset[int], region: list[bool]) -> bool:
    """Whether a unit standing in ``hex_index`` can trace communication into ``region`` (per hex, see
    :func:`communication_region`)."""
    if hex_index in targets or region[hex_index]:
        return True
    for n in board.neighbours[hex_index]:
        if region[n]:
            return True
    return False
