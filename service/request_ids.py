"""Request ids: the one form a client's ``request_id`` may take, and the short hash a log line shows of it.

A ``request_id`` makes a call safe to retry (CreateMatch, SubmitAction, Resign and the ladder's account
calls): 1 to 128 characters of ``A-Z a-z 0-9 . _ : ~ -``. A UUID (hex or with dashes), a ULID,
base64url, ``<match>-<version>``, all fit. Why so narrow: the id is repeated in error sentences
(``REQUEST_ID_REUSED``) and kept, hashed, in Redis; without spaces, quotes, control characters or
non-ASCII, an id can neither forge a line of a log or a terminal, nor be two ids that print alike.

A request id proves nothing: a retry of a call that hands out a key gets a key only if it carries a
key that could make the call afresh (``service.ladder.accounts``), so an id seen by someone else (a
proxy's log, a shared machine) takes nothing over. Still, no log line holds one in clear, nor an
``X-Request-ID``: a line shows :func:`log_reference`, 12 hex digits of its SHA-256 (an operator finds
a client's call by hashing the id the client reports).

>>> check_request_id("3f2c1a9e-7b4d-4c1e-9a2b-5d6e7f8a9b0c"), check_request_id("")
('3f2c1a9e-7b4d-4c1e-9a2b-5d6e7f8a9b0c', '')
>>> check_request_id("retry 1")
Traceback (most recent call last):
...
service.errors.ServiceError: request_id must be 1 to 128 characters of A-Z, a-z, 0-9 and . _ : ~ - (a UUID4 will do)
>>> log_reference("3f2c1a9e-7b4d-4c1e-9a2b-5d6e7f8a9b0c")
'ea76c1f4a891'
"""

from __future__ import annotations

import hashlib
import re
import secrets

from grpc import StatusCode

from service.errors import ServiceError

MAX_REQUEST_ID = 128
#: The form of every request id (see the module).
REQUEST_ID = re.compile(r"[A-Za-z0-9._:~-]{1,%d}" % MAX_REQUEST_ID)


def check_request_id(request_id: str) -> str:
    """``request_id`` if it is empty (no retry asked for) or of the form :data:`REQUEST_ID`; else
    INVALID_ARGUMENT ``BAD_REQUEST_ID``."""
    if request_id and not REQUEST_ID.fullmatch(request_id):
        raise ServiceError(StatusCode.INVALID_ARGUMENT, "BAD_REQUEST_ID",
                           f"request_id must be 1 to {MAX_REQUEST_ID} characters of A-Z, a-z, 0-9 and . _ : ~ - "
                           f"(a UUID4 will do)")
    return request_id


def log_reference(request_id: str | None) -> str:
    """What a log line shows of a client's request id: 12 hex digits of its SHA-256; of none, 12 random
    hex digits (the call's lines still share one)."""
    if not request_id:
        return secrets.token_hex(6)
    return hashlib.sha256(request_id.encode(errors="replace")).hexdigest()[:12]


__all__ = ["MAX_REQUEST_ID", "REQUEST_ID", "check_request_id", "log_reference"]
