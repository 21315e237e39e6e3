"""Caps on watch streams, per process and per client address.

Watching needs no token, so without a cap anyone could open streams until the process has no memory
or file descriptors left. A stream over either cap is refused before it starts with
RESOURCE_EXHAUSTED (HTTP 429), reason ``TOO_MANY_WATCHERS`` (this process) or
``TOO_MANY_WATCHES_FROM_CLIENT`` (the caller's address), and a sentence.

>>> limits = WatchLimits(per_process=2, per_client=1)
>>> first = limits.acquire("10.0.0.1")
>>> limits.acquire("10.0.0.1")
Traceback (most recent call last):
...
service.errors.ServiceError: a client may hold at most 1 watch streams on this server; close one first
>>> second = limits.acquire("10.0.0.2"); first.release(); first.release(); limits.streams
1
"""

from __future__ import annotations

from collections import Counter

from grpc import StatusCode

from service.errors import ServiceError
from service.metrics import WATCH_REFUSED

#: Defaults of ``typhoon serve --max-watch-streams`` and ``--max-watch-streams-per-client``.
MAX_WATCH_STREAMS = 20_000
MAX_WATCH_STREAMS_PER_CLIENT = 500


class WatchLease:
    """One admitted stream; ``release()`` (idempotent) gives its place back."""

    def __init__(self, limits: "WatchLimits", client: str) -> None:
        self._limits = limits
        self.client = client
        self.released = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._limits._release(self.client)


class WatchLimits:
    def __init__(self, per_process: int = MAX_WATCH_STREAMS, per_client: int = MAX_WATCH_STREAMS_PER_CLIENT) -> None:
        self.per_process = per_process
        self.per_client = per_client
        self.streams = 0
        self._by_client: Counter[str] = Counter()

    def acquire(self, client: str) -> WatchLease:
        if self.streams >= self.per_process:
            WATCH_REFUSED.labels("TOO_MANY_WATCHERS").inc()
            raise ServiceError(StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_WATCHERS",
                               f"this server already serves its maximum of {self.per_process} watch streams; "
                               f"retry later or on another replica", limit=self.per_process)
        if client and self._by_client[client] >= self.per_client:
            WATCH_REFUSED.labels("TOO_MANY_WATCHES_FROM_CLIENT").inc()
            raise ServiceError(StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_WATCHES_FROM_CLIENT",
                               f"a client may hold at most {self.per_client} watch streams on this server; "
                               f"close one first", limit=self.per_client)
        self.streams += 1
        if client:
            self._by_client[client] += 1
        return WatchLease(self, client)

    def _release(self, client: str) -> None:
        self.streams -= 1
        if client:
            self._by_client[client] -= 1
            if self._by_client[client] <= 0:
                del self._by_client[client]

    @property
    def full(self) -> bool:
        return self.streams >= self.per_process

    def saturation(self) -> str | None:
        """A readiness reason when no stream can be admitted."""
        return f"watch streams at the cap of {self.per_process}" if self.full else None


def client_address(peer: str) -> str:
    """The address part of a gRPC peer (``ipv4:10.0.0.1:5000``, ``ipv6:[::1]:5000``, ``unix:...``).

    >>> client_address("ipv4:10.0.0.1:5000"), client_address("ipv6:[::1]:5000"), client_address("unix:/s")
    ('10.0.0.1', '::1', 'unix:/s')
    """
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return peer
