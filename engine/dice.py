"""Dice derived from the match seed and, from ruleset 4 on, every seat's entropy: no single party can
bias them.

**Rulesets 4 on (issue 37).** The service draws a secret *seed* and publishes its SHA-256, the *seed
commitment*, when it creates the match. Each seat then takes part in the dice in two steps
(:mod:`engine.seat_entropy` has the rules, with the argument for them):

1. it *commits*: it gives the SHA-256 (hex) of its secret *entropy* (:func:`entropy_commitment`; the
   entropy is 32 to 128 characters from ``A-Z a-z 0-9 - _``), or says it gives none;
2. once every seat has committed (or said it gives none), it *reveals* the entropy, which must match its
   commitment. The game waits for each reveal, and a seat that never reveals loses on time.

A seat that gives none, or whose reveal never became due, gets an entropy *drawn from the committed
seed* at the first die (:func:`drawn_entropy`): the service cannot choose it after seeing the other
seat's. The seed is revealed when the match ends. Roll ``i`` (counting from 0) is then, with
HMAC-SHA-256 over UTF-8 text:

1. ``key = HMAC(key=seed, message="typhoon-dice-v2|german=" + german_entropy + "|soviet=" + soviet_entropy)``
   (the sides in alphabetical order);
2. ``digest = HMAC(key=key, message=str(i) + ":" + str(attempt))``, starting with ``attempt = 0``;
3. the first byte ``b`` of the digest below 252 gives the roll ``b % 6 + 1`` (bytes 252-255 are skipped so
   that every face has the same chance); if all 32 bytes are 252 or more, add 1 to ``attempt`` and go
   back to step 2.

No party can steer a roll: the service committed to its seed before it saw any entropy; each seat
committed to its entropy before it could see the other's (the log orders the commitments before the
reveals), so even a seat that knows the seed, because the service's operator plays it, cannot try
entropies until it likes the dice; and a seat that sees the other's reveal and keeps its own back does
not get other dice, it loses the match.

A worked example, with the seed ``"example"``:

>>> entropy = {"german": "0123456789abcdef0123456789abcdef", "soviet": "fedcba9876543210fedcba9876543210"}
>>> entropy_commitment(entropy["german"])  # what the German seat commits to: SHA-256 of its entropy
'3eb1bd439947eb762998e566ccc2e099c791118b2f40579cc4f7da2b5061b7f9'
>>> key = dice_key("example", entropy)  # step 1, once both have revealed
>>> key.hex()
'bd2095a79d3ebab24946d7e2270500548c91985fe8626dc76aeb4db522a593a5'
>>> digest = hmac.new(key, b"0:0", sha256).digest()  # step 2, roll 0
>>> digest[0], digest[0] % 6 + 1  # step 3: 141 is below 252, so roll 0 is 141 % 6 + 1
(141, 4)
>>> [keyed_die_roll(key, i) for i in range(8)]
[4, 5, 2, 3, 4, 2, 6, 6]
>>> drawn_entropy("example", "soviet")  # what the Soviet seat gets if it gives none
'bf02ce4b4a86a8a0d1a1716298d7d982a86526db5772e41da43b586500686bf2'

The same in a few lines of Python, for an auditor::

    import hashlib, hmac
    def committed(entropy, commitment):  # each reveal against its commitment
        return hashlib.sha256(entropy.encode()).hexdigest() == commitment
    def roll(seed, entropy, i):
        text = "typhoon-dice-v2" + "".join(f"|{side}={entropy[side]}" for side in sorted(entropy))
        key = hmac.new(seed.encode(), text.encode(), hashlib.sha256).digest()
        for attempt in range(1000):
            for b in hmac.new(key, f"{i}:{attempt}".encode(), hashlib.sha256).digest():
                if b < 252:
                    return b % 6 + 1

**Rulesets 1 to 3.** Roll ``i`` is a function of the seed alone: the first byte ``b`` below 252 of
``SHA-256("typhoon-die-v1:" + seed + ":" + str(i) + ":" + str(attempt))``, from ``attempt = 0``, gives
``b % 6 + 1``.

>>> die_roll("example", 0), die_roll("example", 1)
(2, 4)

Tests may fix the dice: a game's ``fixed_dice`` are used, in order, for its first rolls.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Mapping
from hashlib import sha256

#: What a seat's entropy may be: 32 to 128 characters from A-Z, a-z, 0-9, "-" and "_" (e.g. 64 hex
#: digits, or Python's ``secrets.token_urlsafe(32)``): at least 128 bits when random, and never a
#: character of the key's message ("|", "=").
ENTROPY = re.compile(r"[A-Za-z0-9_-]{32,128}")


def die_roll(seed: str, index: int) -> int:
    """Roll number ``index`` of a ruleset 1-3 match with this seed: 1 to 6."""
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


def entropy_problem(entropy: object) -> str | None:
    """What is wrong with a seat's entropy, as a sentence; None when it is one.

    >>> entropy_problem("0123456789abcdef0123456789abcdef") is None
    True
    >>> entropy_problem("short")
    'entropy must be 32 to 128 characters from A-Z, a-z, 0-9, - and _ (it has 5)'
    """
    if isinstance(entropy, str) and ENTROPY.fullmatch(entropy):
        return None
    size = f" (it has {len(entropy)})" if isinstance(entropy, str) else ""
    return f"entropy must be 32 to 128 characters from A-Z, a-z, 0-9, - and _{size}"


#: What a commitment is: the SHA-256 of the entropy's UTF-8 bytes, 64 lowercase hex digits.
COMMITMENT = re.compile(r"[0-9a-f]{64}")


def entropy_commitment(entropy: str) -> str:
    """What a seat commits to before it reveals ``entropy``: the SHA-256 (hex) of its UTF-8 bytes."""
    return sha256(entropy.encode()).hexdigest()


def commitment_problem(commitment: object) -> str | None:
    """What is wrong with a commitment, as a sentence; None when it is one.

    >>> commitment_problem("3eb1bd439947eb762998e566ccc2e099c791118b2f40579cc4f7da2b5061b7f9") is None
    True
    >>> commitment_problem("0123456789abcdef0123456789abcdef")
    'a commitment is the SHA-256 of the entropy: 64 lowercase hex digits'
    """
    if isinstance(commitment, str) and COMMITMENT.fullmatch(commitment):
        return None
    return "a commitment is the SHA-256 of the entropy: 64 lowercase hex digits"


def drawn_entropy(seed: str, side: str) -> str:
    """The entropy of a seat that gave none by the first die: HMAC-SHA-256 (hex) with the seed as key of
    ``"typhoon-drawn-entropy-v1|" + side``. Fixed by the seed commitment, so the service cannot choose it."""
    return hmac.new(seed.encode(), f"typhoon-drawn-entropy-v1|{side}".encode(), sha256).hexdigest()


def dice_key(seed: str, entropy: Mapping[str, str]) -> bytes:
    """The key every roll of a ruleset-4 match derives from: the seed mixed with each seat's entropy
    (sides in alphabetical order). Secret until the seed is revealed."""
    text = "typhoon-dice-v2" + "".join(f"|{side}={entropy[side]}" for side in sorted(entropy))
    return hmac.new(seed.encode(), text.encode(), sha256).digest()


def keyed_die_roll(key: bytes, index: int) -> int:
    """Roll number ``index`` of the match whose dice key is ``key`` (:func:`dice_key`): 1 to 6."""
    attempt = 0
    while True:
        for byte in hmac.new(key, f"{index}:{attempt}".encode(), sha256).digest():
            if byte < 252:
                return byte % 6 + 1
        attempt += 1
