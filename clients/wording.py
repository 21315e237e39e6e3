"""Counts in words, for what the commands print.

>>> counted(1, "match"), counted(2, "match"), counted(0, "game"), counted(1, "ladder match")
('1 match', '2 matches', '0 games', '1 ladder match')
>>> counted(3, "die roll", "die rolls")
'3 die rolls'
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, plural unless one (English: -es after s, x, z, ch, sh; else -s)."""
    if count == 1:
        return f"{count} {noun}"
    if plural is None:
        plural = noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")
    return f"{count} {plural}"


__all__ = ["counted"]
