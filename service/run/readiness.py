"""Whether this process can serve now: readiness, apart from liveness.

Liveness (``GET /healthz``) only says the process answers. Readiness (``GET /readyz`` and the gRPC
health status of "" and ``typhoon.v1.MatchService``) says a call sent here now would be served: Redis
answers a data command (not down, not loading its data, not frozen) and the process is not
saturated (its watch streams are not at their cap, its Redis connections are not all busy, its event
loop is not late). A :class:`Readiness` checks every ``interval`` seconds (Redis every
``redis_interval``: an idle process sends Redis a command a second for it) and turns the gRPC health
status with it, so a balancer sends calls elsewhere meanwhile; the process itself starts and stays up
whatever Redis does.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

import structlog
from grpc_health.v1 import health, health_pb2
from redis.exceptions import BusyLoadingError, RedisClusterException, RedisError

from service.metrics import REDIS_ERRORS
from service.store.match_store import INDEX_KEY, Store
from service.tasks import stop_task

log = structlog.get_logger("typhoon.readiness")

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING

#: The event loop is "late" (saturated) when a check wakes up this much after it asked to.
LOOP_LATE_SECONDS = 1.0


class Readiness:
    """``await start()`` runs the checks in a task; ``ready`` and ``reasons`` are the last verdict.

    ``saturation`` are callables that return a reason (a short sentence) when the process is saturated
    in their respect, else None."""

    def __init__(self, store: Store, health_servicer: health.aio.HealthServicer | None, services: list[str],
                 saturation: list[Callable[[], str | None]] = (), interval: float = 0.25,
                 redis_interval: float = 1.0) -> None:
        self.store = store
        self.health = health_servicer
        self.services = services
        self.saturation = list(saturation)
        self.interval = interval
        self.redis_interval = redis_interval
        self._redis_checked = -redis_interval
        self._redis_problem_seen: str | None = None
        self.ready = False
        self.reasons: list[str] = ["not checked yet"]
        self.redis_ok = False
        self.on_change: list[Callable[[bool], None]] = []
        self.on_check: list[Callable[[], None]] = []  # after every check (the metrics' gauges)
        self._probe = store.probe_client()
        self._task: asyncio.Task | None = None
        self._checked = asyncio.Event()
        self._late = 0.0
        self._late_checks = 0

    async def start(self) -> None:
        await self._publish()
        self._task = asyncio.create_task(self._run(), name="readiness")

    async def wait_checked(self) -> None:
        """Until the first check has been made."""
        await self._checked.wait()

    async def stop(self) -> None:
        if self._task:
            await stop_task(self._task)
        await self._probe.aclose()

    async def _run(self) -> None:
        while True:
            await self.check()
            asked = time.monotonic()
            await asyncio.sleep(self.interval)
            self._late = time.monotonic() - asked - self.interval

    async def check(self) -> bool:
        reasons = []
        # Redis once a redis_interval, and at every check while it has a problem (to turn ready at once)
        if self._redis_problem_seen is not None or time.monotonic() - self._redis_checked >= self.redis_interval:
            self._redis_checked = time.monotonic()
            self._redis_problem_seen = await self._redis_problem()
        redis_problem = self._redis_problem_seen
        self.redis_ok = redis_problem is None
        if redis_problem:
            REDIS_ERRORS.labels("readiness").inc()
            reasons.append(redis_problem)
        for check in self.saturation:
            reason = check()
            if reason:
                reasons.append(reason)
        self._late_checks = self._late_checks + 1 if self._late > LOOP_LATE_SECONDS else 0
        if self._late_checks >= 2:  # twice running: not one pause (a collection, a busy neighbour)
            reasons.append(f"the event loop is {self._late:.1f} s late")
        ready = not reasons
        changed = ready != self.ready
        self.ready, self.reasons = ready, reasons
        if changed:
            await self._publish()
            log.info("ready" if ready else "not_ready", reasons=reasons, lifecycle=True)
            for callback in self.on_change:
                callback(ready)
        for tick in self.on_check:
            tick()
        self._checked.set()
        return ready

    async def _redis_problem(self) -> str | None:
        try:
            # a data command: PING answers even while Redis loads its data
            await asyncio.wait_for(self._probe.exists(INDEX_KEY), 2.0)
        except BusyLoadingError:
            return "Redis is loading its data"
        except (RedisError, RedisClusterException, OSError, asyncio.TimeoutError) as error:  # a Cluster gone: not a RedisError
            return f"Redis does not answer ({type(error).__name__}: {error})"[:200]
        return None

    async def _publish(self) -> None:
        if self.health is None:
            return
        for name in self.services:
            await self.health.set(name, SERVING if self.ready else NOT_SERVING)

    def to_json(self) -> dict:
        return {"status": "SERVING" if self.ready else "NOT_SERVING", "reasons": self.reasons}
