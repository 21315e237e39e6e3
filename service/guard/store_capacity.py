"""Before Redis is full, new matches and new players are refused, so the live matches can go on.

Redis runs with ``maxmemory-policy noeviction`` (an evicted key is a corrupted match): once its
memory reaches ``maxmemory`` it refuses every write, and every match stops. So while Redis's memory is
at or above a high-water mark of ``maxmemory`` (90 % by default: ``typhoon serve --store-high-water``)
the calls that add to the store for good (CreateMatch, JoinMatch, RegisterPlayer, RegisterOwner, Seek,
and the ladder's pairings) are refused with RESOURCE_EXHAUSTED (HTTP 429), reason ``STORE_FULL``,
while everything else, the actions of live matches first, goes on in the memory left above the mark.

Each such write is judged on a figure at most :data:`FRESH_SECONDS` old (0.1 s): when the last look
at Redis's ``INFO memory`` is older, the write waits for a new one (one look at a time, shared by the
writes waiting). Between two looks each admitted write adds :data:`GROWTH` bytes to the figure (a
created match takes ~9 KB), so a burst of writes admitted on one look cannot run far past the mark:
at ``--redis-maxmemory 32mb`` a flood of creations stops before Redis refuses any write. The memory
is Redis's own measure against ``maxmemory`` (``used_memory`` less the replication and AOF buffers,
which Redis does not count). A background look every few seconds keeps the metric and the log's
``store_full`` / ``store_has_room`` lines current. On a Redis Cluster the fullest primary decides. A
Redis without ``maxmemory`` (0: it takes what the machine has) cannot be judged: a warning is logged
at start and nothing is refused (set one: deploy/README.md).

>>> capacity = StoreCapacity(None, high_water=0.9)
>>> capacity.observe(used=950, most=1000), capacity.full
(True, True)
>>> capacity.check("CreateMatch")
Traceback (most recent call last):
...
service.errors.ServiceError: the match store is nearly full (95% of Redis's maxmemory, over its high-water mark of \
90%): new matches and players are refused until matches end or are deleted; live matches go on
>>> capacity.observe(used=950, most=0), capacity.full    # no maxmemory: nothing to judge by
(True, False)
>>> capacity.observe(used=800, most=1000), capacity.full
(False, False)
>>> capacity.admitted(150), capacity.full               # a write admitted: counted until the next look
(None, True)
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import structlog
from grpc import StatusCode

from service import metrics
from service.errors import ServiceError
from service.guard.rate_limits import STORE_ERRORS
from service.store.match_store import Store
from service.tasks import stop_task

log = structlog.get_logger("typhoon.capacity")

#: Default of ``typhoon serve --store-high-water``: the share of ``maxmemory`` past which new matches
#: and players are refused.
HIGH_WATER = 0.9
#: Seconds between two looks at Redis's memory in the background (each process; one ``INFO memory`` each).
INTERVAL = 5.0
#: The oldest figure a write that adds to the store is judged on, in seconds.
FRESH_SECONDS = 0.1
#: Bytes each admitted write is taken to add until the next look (a match: ~9 KB; an owner and a player: ~2 KB).
GROWTH = 16 * 1024
#: What a refused caller is told to wait before trying again.
RETRY_AFTER_SECONDS = 60


def memory_of(info: dict[str, Any]) -> tuple[int, int]:
    """(used memory, maxmemory) of an ``INFO memory`` answer, the used memory as Redis weighs it against
    maxmemory (``used_memory`` less ``mem_not_counted_for_evict``); on a Cluster (one answer per node)
    those of the fullest node.

    >>> memory_of({"used_memory": 5, "maxmemory": 10})
    (5, 10)
    >>> memory_of({"a:7000": {"used_memory": 5, "maxmemory": 10}, "b:7001": {"used_memory": 9, "maxmemory": 10}})
    (9, 10)
    """
    if "used_memory" in info:
        return int(info["used_memory"]) - int(info.get("mem_not_counted_for_evict", 0)), int(info.get("maxmemory", 0))
    nodes = [memory_of(node) for node in info.values() if isinstance(node, dict)]
    return max(nodes, key=lambda node: node[0] / node[1] if node[1] else 0.0, default=(0, 0))


class StoreCapacity:
    """Whether the store has room for new matches and players (see the module); ``high_water`` 0: never judged."""

    def __init__(self, store: Store | None, high_water: float = HIGH_WATER, interval: float = INTERVAL) -> None:
        if not 0 <= high_water <= 1:
            raise ValueError("--store-high-water is a share of maxmemory, from 0 (off) to 1")
        self.store = store
        self.high_water = high_water
        self.interval = interval
        self.used = 0
        self.most = 0
        self._task: asyncio.Task[None] | None = None
        self._warned = False
        self._looked_at = -1.0e9
        self._looking: asyncio.Future[None] | None = None

    @property
    def ratio(self) -> float:
        return self.used / self.most if self.most else 0.0

    @property
    def full(self) -> bool:
        return bool(self.high_water) and bool(self.most) and self.ratio >= self.high_water

    def observe(self, used: int, most: int) -> bool:
        """Take Redis's memory as this; True if the store became full or had room again."""
        was_full = self.full
        self.used, self.most = used, most
        self._looked_at = time.monotonic()
        metrics.STORE_MEMORY.set(round(self.ratio, 4))
        return self.full != was_full

    async def look(self) -> None:
        """Read Redis's memory now."""
        from redis.asyncio.cluster import RedisCluster

        assert self.store is not None
        redis = self.store.redis
        if isinstance(redis, RedisCluster):
            info = await redis.info("memory", target_nodes=RedisCluster.PRIMARIES)
        else:
            info = await redis.info("memory")
        used, most = memory_of(info)
        if not most and not self._warned:
            self._warned = True
            log.warning("redis_without_maxmemory", lifecycle=True,
                        advice="set Redis's maxmemory (deploy/README.md): without it the service cannot refuse "
                               "new matches before Redis is full")
        if self.observe(used, most):
            log.warning("store_full" if self.full else "store_has_room", used_memory=used, maxmemory=most,
                        high_water=self.high_water, lifecycle=True)

    def admitted(self, growth: int = GROWTH) -> None:
        """A write was let through: count what it may add until the next look."""
        self.used += growth

    async def admit(self, method: str) -> None:
        """Before a write that adds to the store: STORE_FULL if it is past its high-water mark, judged on a
        figure at most :data:`FRESH_SECONDS` old; else the write is counted (:meth:`admitted`)."""
        if not self.high_water or self.store is None:
            return
        if time.monotonic() - self._looked_at > FRESH_SECONDS:
            await self.fresh()
        self.check(method)
        self.admitted()

    async def room(self) -> bool:
        """:meth:`admit` as a question (the ladder's pairings ask it before each match they create)."""
        try:
            await self.admit("LadderPairing")
        except ServiceError:
            return False
        return True

    async def fresh(self) -> None:
        """Look at Redis's memory now, or wait for the look already under way; a Redis that cannot be
        read keeps the last figure (the write meets the same Redis next)."""
        if self._looking is None:
            self._looking = asyncio.ensure_future(self.look())
            self._looking.add_done_callback(self._looked)
        with contextlib.suppress(*STORE_ERRORS):
            await asyncio.shield(self._looking)

    def _looked(self, look: asyncio.Future[None]) -> None:
        self._looking = None
        if not look.cancelled() and look.exception() is not None:
            log.debug("store_capacity_unread", error=repr(look.exception()))

    def check(self, method: str) -> None:
        """STORE_FULL if the store is past its high-water mark."""
        if self.full:
            metrics.STORE_FULL_REFUSED.labels(method).inc()
            raise ServiceError(StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL",
                               f"the match store is nearly full ({self.ratio:.0%} of Redis's maxmemory, over its "
                               f"high-water mark of {self.high_water:.0%}): new matches and players are refused "
                               f"until matches end or are deleted; live matches go on",
                               retry_after_seconds=RETRY_AFTER_SECONDS)

    def start(self) -> None:
        if self.high_water and self.store is not None:
            self._task = asyncio.create_task(self._run(), name="store-capacity")

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.look()
            except asyncio.CancelledError:
                raise
            except STORE_ERRORS as error:  # Redis away: judged again at the next look
                log.debug("store_capacity_unread", error=repr(error))
            await asyncio.sleep(self.interval)


__all__ = ["HIGH_WATER", "StoreCapacity", "memory_of"]
