"""Seat tokens a caller chooses: strong enough to be a secret, and the seat of one match only.

A seat token is the seat: whoever holds it acts for the side. The service draws one (256 random bits:
:func:`service.match.core.new_seat_token`) unless the caller brings its own, which makes CreateMatch (with
its request_id) and JoinMatch safe to retry: the retry gets the seat its token holds. A chosen token must

* **carry at least 128 bits** by its length and alphabet: ``n`` characters of the smallest of the usual
  alphabets that holds it (:data:`ALPHABETS`: digits, hex, lowercase or uppercase letters and digits,
  letters and digits, base64url) give ``n · log2(size)`` bits: 32 hex digits, 22 base64url characters;
* **show no pattern**: zxcvbn (Dropbox's estimator of how a guesser would go at a secret: repeats,
  sequences, keyboard walks, dictionary words, dates) must find no way to its first :data:`SCREENED`
  characters in fewer than
  2^:data:`LEAST_GUESS_BITS` guesses (it reckons each character it cannot explain as one in ten: a random
  22-character base64url token is ~2^73 to it, ``"a" * 32`` ~2^9);
* **not be another match's** (:class:`ChosenTokens`): a token that holds a seat of a match that still
  exists is refused for any other, so a token seen in one match (a log, a shared script) opens no other.

Refusals: INVALID_ARGUMENT ``BAD_SEAT_TOKEN`` (the form, or too weak), ``SEAT_TOKEN_REUSED``.

>>> check_strength("a" * 32)
Traceback (most recent call last):
...
service.errors.ServiceError: the seat token is too weak: a chosen seat token must carry at least 128 random bits \
(this one shows a pattern: a repeat); draw it at random, e.g. secrets.token_urlsafe(32)
>>> check_strength("0123456789abcdef" * 2)
Traceback (most recent call last):
...
service.errors.ServiceError: the seat token is too weak: a chosen seat token must carry at least 128 random bits \
(this one shows a pattern: a repeat); draw it at random, e.g. secrets.token_urlsafe(32)
>>> check_strength("7" * 40 + "Zq")
Traceback (most recent call last):
...
service.errors.ServiceError: the seat token is too weak: a chosen seat token must carry at least 128 random bits \
(this one shows a pattern: a repeat); draw it at random, e.g. secrets.token_urlsafe(32)
>>> bits("c0ffee" * 6), bits("Zq-" * 11)
(144.0, 198.0)
>>> check_strength("3f9a0c1e5b7d2a4c6e8f0b1d3a5c7e9f")  # 32 random hex digits: 128 bits
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from typing import Any

from grpc import StatusCode
from zxcvbn import zxcvbn

from service.errors import ServiceError

#: The fewest bits a chosen seat token carries by its length and alphabet.
LEAST_BITS = 128
#: zxcvbn must not guess a chosen token in fewer than 2^this.
LEAST_GUESS_BITS = 64
#: The characters zxcvbn screens, from the start (its time grows with the square of the length: ~3 ms for
#: 32, ~200 ms for 128); a token that does not start with 22 random characters is refused anyway.
SCREENED = 32
#: The usual alphabets of a token, smallest first: (pattern, size).
ALPHABETS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"[0-9]+"), 10), (re.compile(r"[0-9a-f]+"), 16), (re.compile(r"[0-9A-F]+"), 16),
    (re.compile(r"[0-9a-z]+"), 36), (re.compile(r"[0-9A-Z]+"), 36), (re.compile(r"[0-9A-Za-z]+"), 62),
    (re.compile(r"[0-9A-Za-z_-]+"), 64))
#: How long a chosen token stays another match's: longer than a match is live by default (an untouched
#: one is ended after 30 days: ``--abandon-after-days``).
KEPT_SECONDS = 31 * 24 * 3600
_PREFIX = "typhoon:seat-token:"
_PATTERNS = {"repeat": "a repeat", "sequence": "a sequence", "spatial": "a keyboard walk",
             "dictionary": "a word", "date": "a date", "regex": "a run of one kind of character"}


def bits(token: str) -> float:
    """The bits ``token`` can carry by its length and alphabet (0 outside base64url)."""
    for pattern, size in ALPHABETS:
        if pattern.fullmatch(token):
            return round(len(token) * math.log2(size), 1)
    return 0.0


def _weak(message: str) -> ServiceError:
    return ServiceError(StatusCode.INVALID_ARGUMENT, "BAD_SEAT_TOKEN",
                        f"the seat token is too weak: a chosen seat token must carry at least {LEAST_BITS} random "
                        f"bits ({message}); draw it at random, e.g. secrets.token_urlsafe(32)")


def check_strength(token: str) -> None:
    """Refuse (BAD_SEAT_TOKEN) a chosen token of the right form that is too weak (see the module)."""
    carried = bits(token)
    if carried < LEAST_BITS:
        raise _weak(f"this one has {len(token)} characters: at most {carried:g} bits")
    estimate: dict[str, Any] = zxcvbn(token[:SCREENED], max_length=SCREENED)
    if float(estimate["guesses_log10"]) * math.log2(10) < LEAST_GUESS_BITS:
        found = [_PATTERNS.get(match["pattern"], match["pattern"]) for match in estimate["sequence"]
                 if match["pattern"] != "bruteforce"]
        raise _weak(f"this one shows a pattern: {found[0] if found else 'too few kinds of character'}")


def _slot(token: str) -> str:
    return _PREFIX + hashlib.sha256(token.encode()).hexdigest()[:32]


class ChosenTokens:
    """Which match holds each chosen seat token (by its hash: ``typhoon:seat-token:<128 bits of SHA-256>``
    -> the match id, for :data:`KEPT_SECONDS`). One key per token, so it works on a Redis Cluster too."""

    def __init__(self, redis: Any, meta_key: Any) -> None:
        self.redis = redis
        self.meta_key = meta_key  # match id -> the key of its meta hash

    async def reserve(self, match_id: str, tokens: Sequence[str]) -> list[str]:
        """Mark ``tokens`` as ``match_id``'s; SEAT_TOKEN_REUSED (and nothing kept) if one holds a seat of
        another match that still exists (one whose creation failed, or that was deleted, holds none).
        Returns the tokens this call marked (not those already ``match_id``'s: a concurrent repeat's)."""
        done: list[str] = []
        for token in tokens:
            slot = _slot(token)
            if not await self.redis.set(slot, match_id, nx=True, ex=KEPT_SECONDS):
                holder = await self.redis.get(slot)
                holder = holder.decode() if isinstance(holder, bytes) else holder
                if holder == match_id:
                    continue
                if holder is not None and await self.redis.exists(self.meta_key(holder)):
                    await self.release(match_id, done)
                    raise ServiceError(StatusCode.INVALID_ARGUMENT, "SEAT_TOKEN_REUSED",
                                       "this seat token holds a seat of another match; a token is the seat of one "
                                       "match only: draw a new one for each seat")
                await self.redis.set(slot, match_id, ex=KEPT_SECONDS)
            done.append(token)
        return done

    async def release(self, match_id: str, tokens: Sequence[str]) -> None:
        """Forget ``tokens`` reserved for ``match_id`` (its seat was not claimed after all)."""
        for token in tokens:
            slot = _slot(token)
            holder = await self.redis.get(slot)
            if (holder.decode() if isinstance(holder, bytes) else holder) == match_id:
                await self.redis.delete(slot)


__all__ = ["ALPHABETS", "ChosenTokens", "KEPT_SECONDS", "LEAST_BITS", "LEAST_GUESS_BITS", "bits", "check_strength"]
