"""Helpers of the service tests: service processes, random play, waiting."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx
import redis

from clients.client import TyphoonClient
from clients.random_play import play_out
from loadtests.redis_topologies import LocalCluster
from service.processes import ServeProcess
from service.store.embedded_redis import EmbeddedRedis
from service.store.match_store import Store
from service.upkeep.compaction import LOCK_KEY


@dataclass
class Backend:
    """A Redis the service runs on in a test: ``single`` (one server) or ``cluster`` (a 3-primary Redis
    Cluster), with the ``typhoon serve`` arguments and a store of it."""

    kind: str
    url: str
    server: EmbeddedRedis | LocalCluster | None = None  # one started by fresh(), which stop() stops

    @property
    def cluster(self) -> bool:
        return self.kind == "cluster"

    @property
    def serve_args(self) -> tuple[str, ...]:
        return ("--redis-url", self.url, *(("--redis-cluster",) if self.cluster else ()))

    def store(self) -> Store:
        return Store.from_url(self.url, cluster=self.cluster)

    def client(self) -> redis.Redis:
        """A synchronous client, for what a test looks at in Redis itself."""
        return redis.RedisCluster.from_url(self.url) if self.cluster else redis.Redis.from_url(self.url)

    def fresh(self, directory: Path) -> "Backend":
        """Another Redis of the same kind, started, of the test's own (no other service process sweeps
        it): ``stop()`` it at the end."""
        if self.cluster:
            cluster = LocalCluster(directory).start()
            return Backend(self.kind, cluster.url, cluster)
        embedded = EmbeddedRedis(directory)
        return Backend(self.kind, embedded.start(), embedded)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


#: Seconds a test lets a service take to start: on a loaded machine (the suite beside stress-ng) its
#: imports alone took over a minute.
START_TIMEOUT = 300.0

#: Seconds a test waits on a stream (its next item, or its end) before it fails saying what did not
#: come: generous, so a loaded machine makes a test slower, never failing, and a hung one fails alone.
STREAM_TIMEOUT = 120.0

T = TypeVar("T")


class ServiceProcess(ServeProcess):
    """`typhoon serve` in a child process, with clients for both transports.

    Without rate limits unless ``rate_limits`` (every test calls from 127.0.0.1, far faster than a
    person): ``--limit NAME=RATES`` flags then switch on just those limits (tests/service/test_service_guard.py).
    Without related ladder owners unless ``related_owners`` (every owner a test registers comes from
    127.0.0.1: all would be one owner; tests/service/test_service_ladder_related.py)."""

    def __init__(self, *serve_args: str, rate_limits: bool = False, related_owners: bool = False, **options) -> None:
        if not rate_limits:
            serve_args = ("--no-rate-limits", *serve_args)
        if not related_owners:
            serve_args = ("--ladder-related-days", "0", *serve_args)
        super().__init__(*serve_args, **options)

    def start(self, timeout: float = START_TIMEOUT) -> "ServiceProcess":
        return super().start(timeout)

    def client(self) -> TyphoonClient:
        return TyphoonClient(self.target, timeout=20)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=20)

    def admin(self) -> httpx.Client:
        """The HTTP admin listener (/metrics)."""
        return httpx.Client(base_url=self.admin_url, timeout=20)


def play_random(client: TyphoonClient, match_id: str, tokens: dict[str, str], seed: str = "test",
                max_actions: int | None = None) -> int:
    """Play random legal actions for both seats until the end (or ``max_actions``); return how many."""
    return play_out(client, match_id, tokens, random.Random(seed), max_actions)


def wait_for(condition, timeout: float = 60.0, interval: float = 0.02):
    """Wait until ``condition()`` is true (and return it): the bound is generous, so that a loaded machine
    makes a test slower, never failing; a condition met returns at once."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval)


def wait_until_unlocked(redis_url: str, timeout: float = 30.0) -> None:
    """Wait until no service holds the hourly sweep's lock (service.upkeep.compaction), so a test's own sweep
    runs alone."""
    connection = redis.Redis.from_url(redis_url)
    try:
        wait_for(lambda: not connection.exists(LOCK_KEY), timeout)
    finally:
        connection.close()


async def within(awaitable: Awaitable[T], what: str, seconds: float = STREAM_TIMEOUT) -> T:
    """``await awaitable``, failing (it cancelled) if it has not come in ``seconds``.

    >>> asyncio.run(within(asyncio.sleep(0, "beat"), "a beat"))
    'beat'
    >>> asyncio.run(within(asyncio.Event().wait(), "a match", 0.01))
    Traceback (most recent call last):
    AssertionError: a match: not within 0.01 s
    """
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        raise AssertionError(f"{what}: not within {seconds:g} s") from None


def bounded(stream: Iterable[T], what: str, seconds: float = STREAM_TIMEOUT,
            stop: Callable[[], object] | None = None) -> Iterator[T]:
    """The items of ``stream``, failing once ``seconds`` have passed: then ``stop()`` (by default the
    stream's own ``cancel`` or ``close``: a gRPC call's, a Watch's) ends a read blocked on it, and a
    stream kept alive by heartbeats is left between two items.

    >>> list(bounded([1, 2], "two items"))
    [1, 2]
    """
    stop = stop or getattr(stream, "cancel", None) or getattr(stream, "close", None)
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        if stop is not None:
            stop()

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        for item in stream:
            if expired.is_set():
                break
            yield item
    except Exception as error:
        if expired.is_set():
            raise AssertionError(f"{what}: not over within {seconds:g} s") from error
        raise
    finally:
        timer.cancel()
    if expired.is_set():
        raise AssertionError(f"{what}: not over within {seconds:g} s")
