"""Rate limits shared by every process and replica: the ``limits`` library, its counters in the service's Redis.

Each named limit (:mod:`service.guard.limit_settings`) is counted by the library's **sliding window
counter** (``SlidingWindowCounterRateLimiter``): two small counters per limit and client in Redis,
the current window's and the previous one's, the previous weighted by how much of it still lies
within one window from now. Its cost does not grow with the rate (a moving window keeps one
timestamp per call allowed: 1,200 for ``submit_action``, for each seat), and unlike a fixed window
it never lets twice the rate through across a window's edge. One check is one Lua script, so one
Redis round trip, atomic whatever the number of processes.

A refusal is RESOURCE_EXHAUSTED (HTTP 429), reason ``RATE_LIMITED``, with the limit's name and
``retry_after_seconds`` (when a call would next be allowed, from the library's window statistics):
see :func:`rate_limited`. When Redis cannot be asked, a limit that is ``open`` lets the call through,
one that is ``closed`` refuses it with UNAVAILABLE ``STORE_UNAVAILABLE`` (:class:`RateLimits`).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from typing import Any
from urllib.parse import urlsplit

import structlog
from grpc import StatusCode
from limits import RateLimitItem, parse_many
from limits.aio.storage import RedisClusterStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from redis.exceptions import RedisError

from service import metrics
from service.errors import ServiceError, unavailable
from service.guard.limit_settings import BY_NAME, LimitSettings
from service.store.match_store import Store

log = structlog.get_logger("typhoon.limits")

#: The prefix of the limits' keys in Redis (``typhoon:limits:{LIMITER/<limit>/<client>/...}``).
KEY_PREFIX = "typhoon:limits"
#: Failures of Redis that a limit's ``on_store_error`` decides about.
STORE_ERRORS = (RedisError, ConnectionError, TimeoutError, OSError, asyncio.TimeoutError)


def limiter_storage(store: Store) -> Storage:
    """The limits' storage, on the service's own Redis: the store's connection pool (so the same URL,
    socket, TLS, retries and timeouts, and whatever else the store's client is built with), or on a
    Redis Cluster a cluster client of the same nodes. The one place that knows how."""
    if store.cluster:
        parts = urlsplit(store.url)
        options: dict[str, Any] = {"ssl": True} if parts.scheme == "rediss" else {}
        return RedisClusterStorage(f"async+redis+cluster://{parts.netloc}", implementation="redispy",
                                   key_prefix=KEY_PREFIX, **options)
    return RedisStorage("async+redis://", implementation="redispy", key_prefix=KEY_PREFIX,
                        connection_pool=store.redis.connection_pool)


def credential_key(token: str) -> str:
    """What a limit counts a seat token or API key by: 128 bits of its SHA-256 (never the secret).

    >>> credential_key("a" * 43)
    'key:66d34fba71f8f450f7e45598853e53bf'
    """
    return "key:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def rate_limited(name: str, counts: str, who: str, rates: str, retry_after: int) -> ServiceError:
    """The refusal of a call over a limit.

    >>> error = rate_limited("create_match", "CreateMatch calls", "from this address", "30/minute", 12)
    >>> error.code.name, error.reason, error.metadata, error.http_status
    ('RESOURCE_EXHAUSTED', 'RATE_LIMITED', {'limit': 'create_match', 'retry_after_seconds': '12'}, 429)
    >>> error.message
    'too many CreateMatch calls from this address (the create_match limit: 30/minute); retry in 12 s'
    """
    return ServiceError(StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED",
                        f"too many {counts} {who} (the {name} limit: {rates}); retry in {retry_after} s",
                        limit=name, retry_after_seconds=retry_after)


class RateLimits:
    """The named limits of ``settings`` over ``storage``.

    ``await limits.hit("create_match", "198.51.100.7", who="from this address")`` counts a call and
    raises RATE_LIMITED if it is over; :meth:`test` only says (raises) whether the limit is reached;
    :meth:`record` counts without refusing (a failure already answered). A limit switched off
    (``off``) is never counted."""

    def __init__(self, storage: Storage, settings: LimitSettings) -> None:
        self.storage = storage
        self.settings = settings
        self.limiter = SlidingWindowCounterRateLimiter(storage)
        self.items: dict[str, list[RateLimitItem]] = {
            name: parse_many(settings.rates(name)) for name in BY_NAME if settings.enabled(name)}

    def enabled(self, name: str) -> bool:
        return name in self.items

    async def hit(self, name: str, client: str, who: str) -> None:
        """Count a call of ``client`` against limit ``name``; RATE_LIMITED if it is over."""
        items = self.items.get(name)
        if items is None:
            return
        try:
            for item in items:
                if not await self.limiter.hit(item, name, client):
                    raise await self._refusal(name, item, client, who)
        except STORE_ERRORS as error:
            self._store_error(name, error)

    async def test(self, name: str, client: str, who: str) -> None:
        """RATE_LIMITED if limit ``name`` of ``client`` is reached (one more would be over); counts nothing."""
        items = self.items.get(name)
        if items is None:
            return
        try:
            for item in items:
                if not await self.limiter.test(item, name, client):
                    raise await self._refusal(name, item, client, who)
        except STORE_ERRORS as error:
            self._store_error(name, error)

    async def record(self, name: str, client: str) -> None:
        """Count one for ``client`` (a failure, already refused as it is): never raises."""
        for item in self.items.get(name, ()):
            try:
                await self.limiter.hit(item, name, client)
            except STORE_ERRORS as error:
                log.warning("rate_limit_unrecorded", limit=name, error=repr(error))
                metrics.REDIS_ERRORS.labels("rate_limit").inc()

    async def _refusal(self, name: str, item: RateLimitItem, client: str, who: str) -> ServiceError:
        stats = await self.limiter.get_window_stats(item, name, client)
        retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        metrics.RATE_LIMITED.labels(name).inc()
        return rate_limited(name, BY_NAME[name].counts, who, self.settings.rates(name), retry_after)

    def _store_error(self, name: str, error: BaseException) -> None:
        """Redis could not be asked: let the call through (``open``) or refuse it (``closed``)."""
        metrics.REDIS_ERRORS.labels("rate_limit").inc()
        closed = self.settings.on_store_error[name] == "closed"
        log.warning("rate_limit_unchecked", limit=name, refused=closed, error=repr(error))
        if closed:
            raise unavailable() from None


__all__ = ["KEY_PREFIX", "RateLimits", "credential_key", "limiter_storage", "rate_limited"]
