"""How the service reaches Redis: one server by URL, a Redis Cluster, or the primary of a Sentinel
group; and how a write is acknowledged only once a replica holds it.

:class:`RedisSettings` says which (``typhoon serve --redis-url / --redis-cluster / --redis-sentinel
--redis-master-name``, and ``--redis-min-replicas`` / ``--redis-wait-timeout-ms``); :func:`client_of`
makes the ``redis.asyncio`` client. Under Sentinel (redis-py's ``redis.asyncio.sentinel``), every new
connection asks the sentinels for the current primary: a connection broken by the primary's death, or
told READONLY by a primary demoted since, is made again to the new one within the retry policy.

The replication barrier (:data:`BARRIER_CHANNEL`): ``WAIT n timeout`` counts the replicas that hold this
connection's last write; a connection that wrote nothing (a request answered from its record, a
read) would pass at once. So the barrier first publishes an empty message on a channel nobody
listens to: PUBLISH is replicated, it moves the connection's replication offset past every write Redis
had made when it ran, and the WAIT after it holds until a replica has all of them.

>>> RedisSettings.parse_sentinels("10.0.0.1:26379, sentinel-b:26380")
(('10.0.0.1', 26379), ('sentinel-b', 26380))
>>> RedisSettings(sentinels=(("s", 26379),), master_name="typhoon").describe()
'sentinel s:26379 (typhoon)'
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as aioredis
from grpc import StatusCode
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.exceptions import BusyLoadingError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.errors import ServiceError
from service.store.lean_redis import pack_with_hiredis

#: Redis connections per service process (``typhoon serve --redis-connections``): one per call waiting
#: on Redis (watching holds none: see service.store.notify). A call that finds them all busy waits up to
#: POOL_WAIT_SECONDS for one.
MAX_CONNECTIONS = 200
POOL_WAIT_SECONDS = 10.0
#: A command whose answer has not come in this time fails (a frozen Redis must not hang calls forever).
SOCKET_TIMEOUT_SECONDS = 5.0
CONNECT_TIMEOUT_SECONDS = 2.0
#: How long a write waits for its replicas by default (``--redis-wait-timeout-ms``), and the most it may
#: (under the socket timeout, so that a WAIT is never taken for a frozen Redis).
WAIT_TIMEOUT_MS = 500
MAX_WAIT_TIMEOUT_MS = 4000
#: The channel of the replication barrier's PUBLISH (nobody subscribes to it).
BARRIER_CHANNEL = "typhoon:replication-barrier"


def retry_policy() -> dict[str, Any]:
    """A failed connection (refused, broken, Redis loading its data) is retried with exponential
    backoff, 10 ms doubling up to 250 ms, for about 2 s: a pooled connection broken by a Redis restart
    is replaced within the call instead of failing it, and calls work again within a backoff step of
    Redis being back. A write sent again after its answer was lost is not applied twice when it has a
    request id (it comes back as its recorded answer) or an expected version (it comes back STALE)."""
    return {"retry": Retry(ExponentialWithJitterBackoff(cap=0.25, base=0.01), retries=12),
            "retry_on_error": [RedisConnectionError, RedisTimeoutError, BusyLoadingError, OSError],
            "socket_timeout": SOCKET_TIMEOUT_SECONDS, "socket_connect_timeout": CONNECT_TIMEOUT_SECONDS}


#: Connections made without CLIENT SETINFO: a Redis older than 7.2 refuses it, and redis-py keeps the
#: refusal in a reference cycle with the frame that read it, which holds the task that opened the
#: connection (a watch stream, and all it holds) until a full garbage collection, seldom in a serving
#: process (tests/service/test_service_stream_memory.py).
NO_CLIENT_SETINFO: dict[str, Any] = ({"driver_info": None} if hasattr(redis, "DriverInfo")  # redis-py 7.1 on
                                     else {"lib_name": None, "lib_version": None})


#: What readiness probes with: no retry, an answer within a second.
PROBE_OPTIONS = {"retry": Retry(NoBackoff(), 0), "socket_timeout": 1.0, "socket_connect_timeout": 1.0}


@dataclass(frozen=True)
class RedisSettings:
    """Which Redis, and how many replicas must hold a write before it is acknowledged."""

    url: str = ""
    cluster: bool = False
    #: (host, port) of each sentinel; with ``master_name``, the primary they name is the Redis
    sentinels: tuple[tuple[str, int], ...] = ()
    master_name: str = ""
    #: replicas that must hold a write before it is acknowledged (0: none, no WAIT)
    min_replicas: int = 0
    wait_timeout_ms: int = WAIT_TIMEOUT_MS
    max_connections: int = MAX_CONNECTIONS

    @property
    def sentinel(self) -> bool:
        return bool(self.sentinels)

    @staticmethod
    def parse_sentinels(text: str) -> tuple[tuple[str, int], ...]:
        """``host:port,host:port`` (a bracketed IPv6 host too); ValueError if one is not."""
        found = []
        for item in filter(None, (part.strip() for part in text.split(","))):
            host, _, port = item.rpartition(":")
            host = host.strip("[]")
            if not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"a sentinel is host:port, e.g. 10.0.0.5:26379; not {item!r}")
            found.append((host, int(port)))
        return tuple(found)

    def check(self) -> None:
        """ValueError naming the setting that does not fit the others."""
        if self.sentinel and not self.master_name:
            raise ValueError("--redis-sentinel needs --redis-master-name (the name the sentinels monitor)")
        if self.master_name and not self.sentinel:
            raise ValueError("--redis-master-name needs --redis-sentinel")
        if self.sentinel and self.cluster:
            raise ValueError("--redis-sentinel and --redis-cluster exclude each other (a Cluster fails over by itself)")
        if not 0 <= self.min_replicas <= 16:
            raise ValueError("--redis-min-replicas is from 0 to 16")
        if self.min_replicas and self.cluster:
            raise ValueError("--redis-min-replicas is for one primary (Sentinel, or a primary with replicas), "
                             "not a Redis Cluster")
        if not 1 <= self.wait_timeout_ms <= MAX_WAIT_TIMEOUT_MS:
            raise ValueError(f"--redis-wait-timeout-ms is from 1 to {MAX_WAIT_TIMEOUT_MS}")

    def describe(self) -> str:
        """Which Redis, for logs (no password)."""
        if self.sentinel:
            return f"sentinel {','.join(f'{h}:{p}' for h, p in self.sentinels)} ({self.master_name})"
        return "cluster" if self.cluster else "single"


class _BlockingSentinelPool(SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """redis-py's Sentinel pool (connections to the current primary), queuing callers for a connection
    when all are busy as the service's single-Redis pool does, instead of failing them."""


def client_of(settings: RedisSettings, **options: Any) -> Any:
    """A ``redis.asyncio`` client of ``settings``' Redis: the service's (``options`` empty), or another
    with ``options`` over the service's (a probe, see :data:`PROBE_OPTIONS`)."""
    if settings.cluster:
        return _cluster_class().from_url(settings.url, **({"max_connections": settings.max_connections,
                                                           **retry_policy(), **NO_CLIENT_SETINFO} | options))
    if options:  # one connection, the caller's settings
        if settings.sentinel:
            return _sentinel(settings, options).master_for(settings.master_name, **options)
        return aioredis.Redis.from_url(settings.url, single_connection_client=True,
                                      **(NO_CLIENT_SETINFO | options))
    # a blocking pool: under a burst, calls queue for a connection instead of failing at once
    pool_options = {"max_connections": settings.max_connections, "timeout": POOL_WAIT_SECONDS,
                    "health_check_interval": 30, **retry_policy(), **NO_CLIENT_SETINFO}
    if settings.sentinel:
        client = _sentinel(settings, retry_policy()).master_for(
            settings.master_name, connection_pool_class=_BlockingSentinelPool, **pool_options)
        pack_with_hiredis(client.connection_pool)
        return client
    return aioredis.Redis.from_pool(pack_with_hiredis(aioredis.BlockingConnectionPool.from_url(
        settings.url, **pool_options)))


@functools.cache
def _cluster_class() -> type:
    from redis.asyncio.cluster import RedisCluster

    class FirstTopologyFirst(RedisCluster):
        """redis-py's asyncio Redis Cluster client, whose commands wait for its first look at the
        cluster's nodes and slots before they start: redis-py 8.1's own, when many first commands come
        at once, fails some of them (a connection closed under another: AttributeError on a None
        writer, or "Connection closed by server")."""

        async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
            if self._initialize:
                await self.initialize()
            return await super().execute_command(*args, **kwargs)

    return FirstTopologyFirst


def _sentinel(settings: RedisSettings, options: dict[str, Any]) -> Sentinel:
    # the sentinels themselves: the socket timeouts of the data connections, no retry (the next is asked)
    timeouts = {name: value for name, value in options.items() if name.startswith("socket_")}
    return Sentinel(list(settings.sentinels), sentinel_kwargs=timeouts)


def not_replicated(needed: int, held: int, timeout_ms: int) -> "NotReplicated":
    return NotReplicated(
        StatusCode.UNAVAILABLE, "NOT_REPLICATED",
        f"what this call wrote or read is on the primary Redis, but {held} of the {needed} replica"
        f"{'s' if needed > 1 else ''} it must reach confirmed it within {timeout_ms} ms, so it is not "
        "acknowledged: a failover now could take it back. Retry (a change with the same request_id: it is "
        "answered as the first time if it stayed, and applied once if it was lost)",
        replicas_needed=needed, replicas_confirmed=held)


class NotReplicated(ServiceError, RedisError):
    """A write (or what a read found) that not enough replicas confirmed in time: UNAVAILABLE
    ``NOT_REPLICATED`` to a caller, and a Redis failure to the background loops, which retry."""


__all__ = ["BARRIER_CHANNEL", "MAX_CONNECTIONS", "NotReplicated", "PROBE_OPTIONS", "RedisSettings", "client_of",
           "not_replicated", "retry_policy"]
