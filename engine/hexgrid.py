"""Hex ids, directions and distances on the offset grid of the Battle for Moscow map.

Hex ids are ``CCRR``: column ``CC`` from west to east, row ``RR`` from north to south. Hexes are
flat-topped and odd columns sit half a hex higher than even ones.

>>> step(1, 1, "SE")
(2, 1)
>>> step(2, 2, "N")
(2, 1)
>>> distance((1, 1), (3, 2))
2
"""

from __future__ import annotations

DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
OPPOSITE = {"N": "S", "NE": "SW", "SE": "NW", "S": "N", "SW": "NE", "NW": "SE"}

_ODD_COLUMN = {"N": (0, -1), "NE": (1, -1), "SE": (1, 0), "S": (0, 1), "SW": (-1, 0), "NW": (-1, -1)}
_EVEN_COLUMN = {"N": (0, -1), "NE": (1, 0), "SE": (1, 1), "S": (0, 1), "SW": (-1, 1), "NW": (-1, 0)}


def parse_hex(hex_id: str) -> tuple[int, int]:
    """``"0704"`` → ``(7, 4)``; raises ValueError for anything that is not four digits."""
    if not isinstance(hex_id, str) or len(hex_id) != 4 or not hex_id.isdigit():
        raise ValueError(f"{hex_id!r} is not a hex id (four digits, CCRR)")
    return int(hex_id[:2]), int(hex_id[2:])


def format_hex(column: int, row: int) -> str:
    return f"{column:02d}{row:02d}"


def step(column: int, row: int, direction: str) -> tuple[int, int]:
    dc, dr = (_ODD_COLUMN if column % 2 else _EVEN_COLUMN)[direction]
    return column + dc, row + dr


def _cube(column: int, row: int) -> tuple[int, int, int]:
    q = column - 1  # zero-based, so even q are the raised columns
    z = row - (q - (q & 1)) // 2
    return q, -q - z, z


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    ax, ay, az = _cube(*a)
    bx, by, bz = _cube(*b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))
