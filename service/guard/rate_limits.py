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

The checks of one call (a call with a seat token: has its address had too many keys refused, and
one more SubmitAction for this seat) go to Redis together (:meth:`RateLimits.check`): the library's
own Lua scripts on the library's own keys, in one write and one round trip through the service's lean
Redis path (``service.store.lean_redis``), not one library call each through redis-py's client:
~0.2 ms of CPU for both against ~0.65 ms (a loaded machine, ``benchmarks/service_floor.py``'s
figures are in deploy/README.md). The library itself answers everything else: the window
statistics of a refusal, and every check on a Redis Cluster (a call's keys may live on two nodes).
A test holds the two ways to the same answers.

A SubmitAction's checks go further: they run inside the script that commits the action
(:mod:`service.guard.in_commit`), so an action is one round trip in all.

A client refused is refused again without asking Redis until the time its refusal gave
(:meth:`RateLimits.check` remembers it, in each process, for a bounded number of clients): a flood
over a limit costs the service neither a round trip nor the call's work.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

import structlog
from grpc import StatusCode
from limits import RateLimitItem, parse_many
from limits.aio.storage import RedisClusterStorage, RedisStorage, Storage
from limits.aio.storage.redis.bridge import RedisBridge
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from redis.exceptions import NoScriptError, RedisError

from service import metrics
from service.errors import ServiceError, unavailable
from service.guard.limit_settings import BY_NAME, LimitSettings
from service.store.lean_redis import Lane
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
    if store.clustered:
        parts = urlsplit(store.url)
        options: dict[str, Any] = ({"ssl": True} if parts.scheme == "rediss" else {}) | store.settings.auth()
        return RedisClusterStorage(f"async+redis+cluster://{parts.netloc}", implementation="redispy",
                                   key_prefix=KEY_PREFIX, **options)
    return RedisStorage("async+redis://", implementation="redispy", key_prefix=KEY_PREFIX,
                        connection_pool=store.redis.connection_pool)


class _Lua:
    """One of the library's Lua scripts, named by its SHA-1 as Redis names it."""

    def __init__(self, source: str | bytes) -> None:
        self.source = source.decode() if isinstance(source, bytes) else source
        self.sha = hashlib.sha1(self.source.encode()).hexdigest()  # noqa: S324 - Redis names scripts by SHA-1


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


#: One check of a call: ``hit`` (count one, refuse if over) or ``test`` (refuse if reached, count
#: nothing), the limit's name, the client it counts, and how a refusal names that client.
Check = tuple[Literal["hit", "test"], str, str, str]
#: A check of one of a limit's rates: kind, the limit's name, the rate, the client, how a refusal names it.
Planned = tuple[str, str, RateLimitItem, str, str]
#: The clients refused lately that each process remembers (the oldest are forgotten first).
REMEMBERED_REFUSALS = 10_000


class RateLimits:
    """The named limits of ``settings`` over ``storage``.

    ``await limits.check([("hit", "create_match", "198.51.100.7", "from this address")])`` counts a call
    and raises RATE_LIMITED if it is over; a ``test`` only says (raises) whether the limit is reached;
    :meth:`record` counts without refusing (a failure already answered). A limit switched off
    (``off``) is never counted. ``lane``: the service's lean path to the same Redis, for the checks of
    a call in one round trip (none on a Redis Cluster: the library's calls, one by one)."""

    def __init__(self, storage: Storage, settings: LimitSettings, lane: Lane | None = None, marks: Any = None) -> None:
        self.storage = storage
        self.marks = marks  # a Redis client for record_once's marks (the store's)
        self.settings = settings
        self.limiter = SlidingWindowCounterRateLimiter(storage)
        self.items: dict[str, list[RateLimitItem]] = {
            name: parse_many(settings.rates(name)) for name in BY_NAME if settings.enabled(name)}
        self.lane = lane
        self._acquire = _Lua(RedisBridge.SCRIPT_ACQUIRE_SLIDING_WINDOW)
        self._window = _Lua(RedisBridge.SCRIPT_SLIDING_WINDOW)
        #: (limit, client) -> the monotonic time until which it is refused
        self._refused: dict[tuple[str, str], float] = {}

    def enabled(self, name: str) -> bool:
        return name in self.items

    def plan(self, checks: Sequence[Check]) -> list[Planned]:
        """The checks of a call, one per rate of each limit (a limit switched off has none)."""
        return [(kind, name, item, client, who) for kind, name, client, who in checks
                for item in self.items.get(name, ())]

    def refused_lately(self, checks: Sequence[Check]) -> None:
        """Raises the refusal again, without Redis, for a client refused lately and still waiting."""
        if not self._refused:
            return
        now = time.monotonic()
        for _, name, client, who in checks:
            until = self._refused.get((name, client), 0.0)
            if until > now:
                metrics.RATE_LIMITED.labels(name).inc()
                retry_after = max(1, math.ceil(until - now))
                raise rate_limited(name, BY_NAME[name].counts, who, self.settings.rates(name), retry_after)

    async def check(self, checks: Sequence[Check]) -> None:
        """Every check of one call, in one round trip: raises the refusal of the first that fails (in
        order), or for Redis away STORE_UNAVAILABLE if one of the limits is ``closed``. Every ``hit``
        is counted, even in a call another check refuses (the library would stop at the first)."""
        planned = self.plan(checks)
        if not planned:
            return
        self.refused_lately(checks)
        if self.lane is None:
            for kind, name, client, who in checks:
                await self._by_library(kind, name, client, who)
            return
        try:
            replies = await self._send(planned)
        except STORE_ERRORS as error:
            for name in dict.fromkeys(name for _, name, _, _, _ in planned):
                self._store_error(name, error)
            return
        for (kind, name, item, client, who), reply in zip(planned, replies):
            if not self._allowed(kind, item, reply):
                raise await self.refusal(name, item, client, who)

    def window_keys(self, item: RateLimitItem, name: str, client: str) -> list[str]:
        """The library's two keys of a sliding window (the previous window's, the current one's)."""
        key = item.key_for(name, client)
        bridge = self.storage.bridge
        return [bridge.prefixed_key(self.storage._previous_window_key(key)),
                bridge.prefixed_key(self.storage._current_window_key(key))]

    async def _send(self, planned: list, costs: Sequence[int] = ()) -> list[Any]:
        commands = []
        for index, (kind, name, item, client, _) in enumerate(planned):
            script = self._acquire if kind == "hit" else self._window
            arguments = [item.amount, item.get_expiry(), costs[index] if costs else 1] if kind == "hit" \
                else [item.get_expiry()]
            commands.append(("EVALSHA", script.sha, 2, *self.window_keys(item, name, client), *arguments))
        replies = await self.lane.execute_many(commands)
        if any(isinstance(reply, NoScriptError) for reply in replies):  # a Redis that restarted, or never told
            for script in (self._acquire, self._window):
                await self.lane.script_load(script.source)
            replies = await self.lane.execute_many(commands)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return replies

    def _allowed(self, kind: str, item: RateLimitItem, reply: Any) -> bool:
        """What the library's ``hit`` or ``test`` answers from the script's reply."""
        if kind == "hit":
            return bool(reply)
        previous_count, previous_ttl, current_count, _ = reply
        weighted = self.limiter._weighted_count(item, int(previous_count or 0), max(0, int(previous_ttl or 0)) / 1000,
                                                int(current_count or 0))
        return weighted < item.amount

    async def _by_library(self, kind: str, name: str, client: str, who: str) -> None:
        """One check by the library's own calls, item by item (a Redis Cluster, or no lane)."""
        call = self.limiter.hit if kind == "hit" else self.limiter.test
        try:
            for item in self.items.get(name, ()):
                if not await call(item, name, client):
                    raise await self.refusal(name, item, client, who)
        except STORE_ERRORS as error:
            self._store_error(name, error)

    async def spend(self, name: str, client: str, cost: int, who: str = "from this address") -> None:
        """Count ``cost`` against a budget (a limit counted in units of work, not calls), or raise its
        refusal if that would pass it in one of its windows (each window that admits it counts it, as
        :meth:`check` counts every hit). A cost larger than a window's rate counts as that rate there: a call
        is never refused for good. Its windows are counted in one round trip (the lane), else one by one by
        the library."""
        items = self.items.get(name, ())
        costs = [min(cost, item.amount) for item in items]
        try:
            if items and self.lane is not None:
                admitted = await self._send([("hit", name, item, client, who) for item in items], costs)
            else:
                admitted = [await self.limiter.hit(item, name, client, cost=each) for item, each in zip(items, costs)]
        except STORE_ERRORS as error:
            self._store_error(name, error)
            return
        refused = [item for item, reply in zip(items, admitted) if not reply]
        if refused:
            raise await self.refusal(name, refused[0], client, who)

    async def record(self, name: str, client: str) -> None:
        """Count one for ``client`` (a failure, already refused as it is): never raises."""
        for item in self.items.get(name, ()):
            try:
                await self.limiter.hit(item, name, client)
            except STORE_ERRORS as error:
                log.warning("rate_limit_unrecorded", limit=name, error=repr(error))
                metrics.REDIS_ERRORS.labels("rate_limit").inc()

    async def record_once(self, name: str, client: str, credential: str) -> None:
        """Count one for ``client`` unless ``credential`` (an opaque id of a token: its hash) was counted for
        it within the limit's longest window; never raises. Its mark, ``typhoon:limits:once:<limit>:<client>:
        <128 bits of SHA-256 of the credential>``, lasts that window."""
        items = self.items.get(name, ())
        if not items:
            return
        if self.marks is None:
            await self.record(name, client)
            return
        mark = hashlib.sha256(f"{name}\x00{client}\x00{credential}".encode()).hexdigest()[:32]
        try:
            first = await self.marks.set(f"{KEY_PREFIX}:once:{mark}", "1", nx=True,
                                         ex=max(item.get_expiry() for item in items))
        except STORE_ERRORS as error:
            log.warning("rate_limit_unrecorded", limit=name, error=repr(error))
            metrics.REDIS_ERRORS.labels("rate_limit").inc()
            return
        if first:
            await self.record(name, client)

    async def refusal(self, name: str, item: RateLimitItem, client: str, who: str) -> ServiceError:
        """The refusal of a call over ``item`` of limit ``name`` (its wait from the library's window
        statistics), remembered until then."""
        try:
            stats = await self.limiter.get_window_stats(item, name, client)
            retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        except STORE_ERRORS:  # refused all the same: the client waits a window
            retry_after = max(1, math.ceil(item.get_expiry()))
        metrics.RATE_LIMITED.labels(name).inc()
        self._remember(name, client, retry_after)
        return rate_limited(name, BY_NAME[name].counts, who, self.settings.rates(name), retry_after)

    def _remember(self, name: str, client: str, seconds: float) -> None:
        self._refused.pop((name, client), None)
        self._refused[name, client] = time.monotonic() + seconds
        while len(self._refused) > REMEMBERED_REFUSALS:
            self._refused.pop(next(iter(self._refused)))

    def _store_error(self, name: str, error: BaseException) -> None:
        """Redis could not be asked: let the call through (``open``) or refuse it (``closed``)."""
        metrics.REDIS_ERRORS.labels("rate_limit").inc()
        closed = self.settings.on_store_error[name] == "closed"
        log.warning("rate_limit_unchecked", limit=name, refused=closed, error=repr(error))
        if closed:
            raise unavailable() from None


__all__ = ["KEY_PREFIX", "Check", "Planned", "RateLimits", "credential_key", "limiter_storage", "rate_limited"]
