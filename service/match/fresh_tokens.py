"""Seat tokens drawn by the service, or by a client for the seats it claims. Light on purpose: the
clients draw theirs with the same function, and a client command imports no more than this of the
service (a chosen token's checks, ``service.match.seat_tokens``, need zxcvbn's word lists)."""

from __future__ import annotations

import secrets


def new_seat_token() -> str:
    """A fresh seat token: 256 random bits, URL-safe base64, never starting with ``-`` (a command line
    would take ``typhoon bot --token -Xb2...`` for an option: one token in 64 did).

    >>> all(not new_seat_token().startswith("-") for _ in range(1000))
    True
    """
    while (token := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return token


__all__ = ["new_seat_token"]
