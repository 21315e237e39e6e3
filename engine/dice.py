"""Dice derived from the match seed: roll number ``i`` of a match is a pure function of (seed, i).

How an auditor recomputes roll ``i`` (counting from 0) of a match whose seed is the text ``seed``:

1. Take ``attempt = 0``.
2. Compute ``SHA-256("typhoon-die-v1:" + seed + ":" + str(i) + ":" + str(attempt))`` over the UTF-8
   bytes of that text.
3. Read the 32 bytes of the digest in order; the first byte ``b`` below 252 gives the roll
   ``b % 6 + 1``. (Bytes 252-255 are skipped so that every face has the same chance.)
4. If all 32 bytes are 252 or more, add 1 to ``attempt`` and go back to step 2.

>>> die_roll("example", 0), die_roll("example", 1)
(2, 4)

Tests may fix the dice: a game's ``fixed_dice`` are used, in order, for its first rolls.
"""

from __future__ import annotations

from hashlib import sha256


def die_roll(seed: str, index: int) -> int:
    """Roll number ``index`` of the match with this seed: 1 to 6."""
    attempt = 0
    while True:
        digest = sha256(f"typhoon-die-v1:{seed}:{index}:{attempt}".encode()).digest()
        for byte in digest:
            if byte < 252:
                return byte % 6 + 1
        attempt += 1


def seed_commitment(seed: str) -> str:
    """The SHA-256 (hex) of the seed's UTF-8 bytes, published before the seed is revealed."""
    return sha256(seed.encode()).hexdigest()
