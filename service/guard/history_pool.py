"""The calls whose work grows with a match's length, off the event loop: VerifyMatch, GetMatch at a version,
and the first answer to a repeated SubmitAction or Resign request id.

They re-simulate the match's log with the engine (:mod:`service.match.history`, :mod:`service.match.answers`):
~0.1 s of CPU for a campaign match of 1,000 actions, more on a busy machine; a request id replayed
once a second per seat, as the ``submit_action`` limit lets a client, would take a whole core. On the event loop, four clients asking for
it in a loop stalled every call of the process. So ``typhoon serve`` hands that work to a
:class:`HistoryPool`:

- **off the loop**: a pool of processes (``--history-workers``, 1 by default, each at a lower CPU
  priority than the service), each with its own connection to Redis, reads the log and re-simulates
  it; the service's event loop only reads the match's meta and waits for the answer. Processes, not
  threads: the engine is Python, and a thread holding the GIL would stall the loop just the same;
- **cached where it cannot change**: the state at a version of a match never changes while it is
  live, nor once it is over (its seed is then revealed), so states are cached by match, version and
  whether it is over; a finished or aborted match's verification is cached by match and log length,
  a request id's first answer by match and the version it made.
  One pass over the log computes the states of a block of :data:`BLOCK` versions at once (a replay
  steps through them one by one). The cache is an LRU of ``--history-cache-mb`` (``cachetools``);
- **one computation for many callers**: a call that asks for what is being computed waits for it;
- **admitted by cost**, before the work: a client may have at most ``--history-calls-per-client``
  calls computing at once (``TOO_MANY_HISTORY_CALLS``; a computation counts until it ends, even if
  its caller left), the pool takes at most ``--history-workers`` + ``--history-queue`` computations
  (``HISTORY_BUSY``), and each computation spends its cost, the log entries it reads, from the
  client's ``history`` budget (a rate limit in Redis, service.guard.limit_settings: ``RATE_LIMITED``).
  Before any of that, before the match is even read, every such call, cached or not, counts against
  the client's ``history_calls`` in this process's memory (the ``limits`` library's memory storage: no
  round trip), so that a loop of cached answers is a loop of cheap refusals past ten a second. Every
  refusal is RESOURCE_EXHAUSTED (HTTP 429) with ``retry_after_seconds``.

Readiness (service.run.readiness) says the process is saturated while the pool is full, and for
:data:`HOLD_SECONDS` after it last was: no flapping while a flood comes and goes.

>>> settings = HistorySettings()
>>> settings.history_workers, settings.history_queue, settings.history_calls_per_client, settings.history_cache_mb
(1, 16, 4, 32.0)
>>> HistorySettings(history_queue=4).as_args()[2:4]
['--history-queue', '4']
>>> block_of(37, 40), block_of(3, 40), block_of(50, 1000)
((32, 40), (0, 15), (48, 63))
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, fields, replace
from multiprocessing import get_context
from typing import Any, TypeVar

import structlog
from cachetools import LRUCache
from grpc import StatusCode
from limits import parse_many
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from service import metrics
from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.guard.addresses import counted_as
from service.guard.limit_settings import BY_NAME
from service.guard.rate_limits import RateLimits, rate_limited
from service.match import answers, history
from service.match.core import MatchService
from service.processes import die_with_parent
from service.store.connection import RedisSettings
from service.store.match_store import ENDED, RequestRecord, Store

log = structlog.get_logger("typhoon.history")

T = TypeVar("T")

#: States computed in one pass over a log: a replay stepping through a match asks the next ones next.
BLOCK = 16
#: Seconds readiness keeps saying "full" after the pool last was (hysteresis).
HOLD_SECONDS = 5.0
#: How much nicer than the service its pool's processes are (the kernel serves play first).
NICENESS = 10
#: The ``history`` budget's limit name, and that of the calls counted in each process (service.guard.limit_settings).
BUDGET = "history"
CALLS = "history_calls"
_STATUS_ENDED = (match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_ABORTED)


def _setting(default: Any, help: str, metavar: str = "N") -> Any:
    return field(default=default, metadata={"help": help, "metavar": metavar})


@dataclass(frozen=True)
class HistorySettings:
    """The history pool's sizes: a ``typhoon serve`` flag each, the field's name with dashes."""

    history_workers: int = _setting(1, "processes (per service process) that re-simulate match logs for "
                                       "VerifyMatch and GetMatch at a version, off the event loop")
    history_queue: int = _setting(16, "such computations that may wait for a free process; more are refused "
                                      "(429 HISTORY_BUSY)")
    history_calls_per_client: int = _setting(4, "such computations one client address may have at once; more "
                                                "are refused (429 TOO_MANY_HISTORY_CALLS)")
    history_cache_mb: float = _setting(32.0, "MB of answers kept (states at a version, finished matches' "
                                             "verifications)", "MB")

    def __post_init__(self) -> None:
        for each in fields(self):
            least = 0 if each.name in ("history_queue", "history_cache_mb") else 1
            if getattr(self, each.name) < least:
                raise ValueError(f"--{each.name.replace('_', '-')} must be at least {least}")

    def as_args(self) -> list[str]:
        """These settings as ``typhoon serve`` flags (what the supervisor of ``--workers`` passes on)."""
        return [item for each in fields(self)
                for item in ("--" + each.name.replace("_", "-"), f"{getattr(self, each.name):g}")]


def block_of(version: int, current: int) -> tuple[int, int]:
    """The versions computed with ``version`` (the block of :data:`BLOCK` it falls in, up to ``current``)."""
    first = version - version % BLOCK
    return first, min(first + BLOCK - 1, current)


def refused(reason: str, message: str, retry_after: int, **metadata: int) -> ServiceError:
    metrics.HISTORY_REFUSED.labels(reason).inc()
    return ServiceError(StatusCode.RESOURCE_EXHAUSTED, reason, f"{message}; retry in {retry_after} s",
                        retry_after_seconds=retry_after, **metadata)


class HistoryPool:
    """VerifyMatch's and GetMatch-at-a-version's work for a :class:`MatchService` (its ``past``; see the
    module). ``redis``: the store's settings, for the pool's own connections; ``limits``: where the
    ``history`` budget is counted (None, or the limit off: no budget)."""

    def __init__(self, redis: RedisSettings, settings: HistorySettings = HistorySettings(),
                 limits: RateLimits | None = None, call_rates: str | None = None) -> None:
        self.redis = redis
        self.settings = settings
        self.limits = limits if limits is not None and limits.enabled(BUDGET) else None
        self._call_rates = call_rates or ""
        self._call_items = parse_many(call_rates) if call_rates else []
        self._calls = SlidingWindowCounterRateLimiter(MemoryStorage())
        self.capacity = settings.history_workers + settings.history_queue
        #: computations submitted and not finished
        self.pending = 0
        self.cache: LRUCache[tuple[Any, ...], bytes] = LRUCache(maxsize=max(1, int(settings.history_cache_mb * 2**20)),
                                                              getsizeof=len)
        self._executor: ProcessPoolExecutor | None = None
        self._by_client: Counter[str] = Counter()
        self._computing: dict[tuple[Any, ...], asyncio.Future[Any]] = {}
        self._seconds = 0.2  # a computation's running mean duration, for Retry-After
        self._last_full = -math.inf

    # --- the two calls ------------------------------------------------------------------------------

    def admit(self, client: str) -> None:
        """Before anything is read: the client's ``history_calls`` in this process (cached answers too)."""
        who = counted_as(client)
        for item in self._call_items:
            if not self._calls.hit(item, CALLS, who):
                reset = self._calls.get_window_stats(item, CALLS, who).reset_time
                metrics.RATE_LIMITED.labels(CALLS).inc()
                raise rate_limited(CALLS, BY_NAME[CALLS].counts, "from this address", self._call_rates,
                                   max(1, math.ceil(reset - time.time())))

    async def state_at(self, meta: dict[str, str], version: int, client: str) -> match_pb2.GameState:
        """The state at ``version`` (checked by the caller) of the match of ``meta``."""
        match_id, current = meta["id"], int(meta["version"])
        status = meta["status"] if meta.get("status") in ENDED else "live"
        cached = self.cache.get(("state", match_id, version, status))
        metrics.HISTORY_ANSWERS.labels("state", "computed" if cached is None else "cached").inc()
        if cached is None:
            first, last = block_of(version, current)
            cost = max(1, math.ceil(int(meta["last_sequence"]) * (last + 1) / (current + 1)))
            states = await self._compute(("states", match_id, first, last, status), client, cost,
                                         _states, match_id, meta, first, last)
            for at, computed in zip(range(first, last + 1), states):
                self._keep(("state", match_id, at, status), computed)
            cached = states[version - first]
        answer: match_pb2.GameState = match_pb2.GameState.FromString(cached)
        return answer

    async def verification(self, final: api.GetMatchResponse, client: str) -> api.VerifyMatchResponse:
        """The audit of the match as ``final`` shows it (GetMatch's answer now)."""
        match = final.match
        key = ("verification", match.match_id, match.last_sequence)
        ended = match.status in _STATUS_ENDED
        cached = self.cache.get(key) if ended else None
        metrics.HISTORY_ANSWERS.labels("verification", "computed" if cached is None else "cached").inc()
        if cached is None:
            cached = await self._compute(key, client, max(1, match.last_sequence), _verification,
                                         match.match_id, final.SerializeToString())
            if ended:
                self._keep(key, cached)
        answer: api.VerifyMatchResponse = api.VerifyMatchResponse.FromString(cached)
        return answer

    async def answer(self, meta: dict[str, str], record: RequestRecord, response: str, client: str) -> bytes:
        """A repeated SubmitAction or Resign request id's first answer, rebuilt from the log (it never
        changes: cached)."""
        key = ("answer", meta["id"], record.version, record.last_seq, response)
        cached = self.cache.get(key)
        metrics.HISTORY_ANSWERS.labels("answer", "computed" if cached is None else "cached").inc()
        if cached is None:
            cached = await self._compute(key, client, max(1, record.last_seq), _replayed, meta["id"], meta,
                                         record.text(), response)
            self._keep(key, cached)
        return cached

    def _keep(self, key: tuple[Any, ...], answer: bytes) -> None:
        if len(answer) <= self.cache.maxsize:
            self.cache[key] = answer

    # --- admission ----------------------------------------------------------------------------------

    async def _compute(self, key: tuple[Any, ...], client: str, cost: int, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` in the pool, once for every caller asking for ``key`` meanwhile, admitted for
        ``client`` at ``cost`` log entries (see the module)."""
        who = counted_as(client)
        running = self._computing.get(key)
        if running is not None:  # the same computation is under way: wait for it
            self._check_client(who)
            self._by_client[who] += 1
            try:
                shared: T = _answer(await asyncio.shield(running))
                return shared
            finally:
                self._release(who)
        self._check_room()
        self._check_client(who)
        self._by_client[who] += 1  # taken before the budget is asked, so calls meanwhile see them taken
        self.pending += 1
        try:
            if self.limits is not None:
                await self.limits.spend(BUDGET, who, cost)
            future = self._submit(job, *args)
        except BaseException:
            self._release(who)
            self._finished()
            raise
        self._computing[key] = future
        started = time.monotonic()

        def done(ended: asyncio.Future[Any]) -> None:  # a computation counts until it ends, its caller gone or not
            if not ended.cancelled():
                ended.exception()  # retrieved, whether or not a caller is still waiting for it
            self._computing.pop(key, None)
            self._release(who)
            self._finished()
            self._seconds = 0.8 * self._seconds + 0.2 * (time.monotonic() - started)

        future.add_done_callback(done)
        try:
            result: T = _answer(await asyncio.shield(future))
            return result
        except BrokenProcessPool:  # a process of the pool died (killed): the next call gets a new pool
            self._discard()
            raise ServiceError(StatusCode.UNAVAILABLE, "HISTORY_UNAVAILABLE",
                               "the process re-simulating this match's log stopped; retry", retry_after_seconds=1) from None

    def _release(self, who: str) -> None:
        self._by_client[who] -= 1
        if self._by_client[who] <= 0:
            del self._by_client[who]

    def _finished(self) -> None:
        self.pending -= 1
        metrics.HISTORY_PENDING.set(self.pending)

    def _check_client(self, who: str) -> None:
        most = self.settings.history_calls_per_client
        if self._by_client[who] >= most:
            raise refused("TOO_MANY_HISTORY_CALLS",
                          f"a client may have at most {most} calls re-simulating a match's log (VerifyMatch, GetMatch "
                          f"at a version) under way at once on this server; wait for one to finish",
                          self._retry_after(), limit=most)

    def _check_room(self) -> None:
        if self.pending >= self.capacity:
            self._last_full = time.monotonic()
            raise refused("HISTORY_BUSY",
                          f"this server is re-simulating as many match logs as it may ({self.settings.history_workers} "
                          f"at once, {self.settings.history_queue} waiting); live play goes on",
                          self._retry_after(), limit=self.capacity)

    def _retry_after(self) -> int:
        """Seconds until the computations waiting now are likely done."""
        return min(60, max(1, math.ceil(self._seconds * (self.pending + 1) / self.settings.history_workers)))

    def saturation(self) -> str | None:
        """A readiness reason while the pool is full, and for :data:`HOLD_SECONDS` after it last was."""
        now = time.monotonic()
        if self.pending >= self.capacity:
            self._last_full = now
        if now - self._last_full < HOLD_SECONDS:
            return f"the history pool is full ({self.pending} of {self.capacity} computations)"
        return None

    # --- the processes ------------------------------------------------------------------------------

    def _submit(self, job: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.settings.history_workers, mp_context=get_context("spawn"),
                                                 initializer=_start_worker, initargs=(self.redis, NICENESS))
            log.info("history_pool_started", workers=self.settings.history_workers)
        try:
            submitted: Future[Any] = self._executor.submit(_run, job, *args)
        except BrokenProcessPool:  # a process died (killed): a new pool for this call and the next
            self._discard()
            return self._submit(job, *args)
        metrics.HISTORY_PENDING.set(self.pending)
        return asyncio.wrap_future(submitted)

    def _discard(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            log.warning("history_pool_broken", lifecycle=True)
            executor.shutdown(wait=False, cancel_futures=True)

    async def stop(self) -> None:
        """Stop the pool's processes now (computations under way are dropped: their callers are gone)."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list(getattr(executor, "_processes", {}).values())  # terminate_workers() from Python 3.14
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        await asyncio.to_thread(_reap, processes)


def _reap(processes: list[Any]) -> None:
    """Wait for terminated processes; kill those still there after a few seconds (a stopped one)."""
    deadline = time.monotonic() + 3
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1)


# --- in the pool's processes -------------------------------------------------------------------------

class _Worker:
    """A pool process's event loop and its store (its own connections to the service's Redis)."""

    def __init__(self, redis: RedisSettings) -> None:
        self.loop = asyncio.new_event_loop()
        self.store = Store.connect(replace(redis, max_connections=4))

    def run(self, work: Awaitable[T]) -> T:
        return self.loop.run_until_complete(work)


_worker: _Worker | None = None


def _start_worker(redis: RedisSettings, niceness: int) -> None:  # pragma: no cover - runs in the pool's processes
    global _worker
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the whole group: the service stops the pool
    os.nice(niceness)
    _worker = _Worker(redis)


_ERROR = "error"


def _run(job: Callable[..., T], *args: Any) -> T | tuple[str, str, str, str, dict[str, str]]:
    """``job(*args)``; a ServiceError comes back as a tuple (its class is not rebuilt across processes)."""
    try:
        return job(*args)
    except ServiceError as error:
        return (_ERROR, error.code.name, error.reason, error.message, error.metadata)


def _answer(result: Any) -> Any:
    """What :func:`_run` returned, a ServiceError raised again."""
    if isinstance(result, tuple) and result and result[0] == _ERROR:
        _, code, reason, message, metadata = result
        raise ServiceError(StatusCode[code], reason, message, **metadata)
    return result


def _states(match_id: str, meta: dict[str, str], first: int, last: int) -> list[bytes]:
    """The GameStates (serialized) of versions ``first`` to ``last``, in one pass over the log."""
    assert _worker is not None
    events = _worker.run(history.load_log(_worker.store, match_id, until_version=last))
    if not events:
        raise ServiceError(StatusCode.NOT_FOUND, "MATCH_NOT_FOUND", f"there is no match {match_id!r}")
    return [MatchService.past_state(game, logged_hash, meta).SerializeToString()
            for _, game, logged_hash in history.games_at(events, first, last, history.revealed_seed(meta))]


#: The answers a repeated request id gets, by message name.
_RESPONSES = {message.DESCRIPTOR.name: message for message in (api.SubmitActionResponse, api.ResignResponse)}


def _replayed(match_id: str, meta: dict[str, str], record: str, response: str) -> bytes:
    """A repeated request id's first answer (serialized), from the log through the request's last entry."""
    assert _worker is not None
    request = RequestRecord.parse(record)
    events = _worker.run(answers.events_through(_worker.store, match_id, request.last_seq))
    data: bytes = MatchService.replayed_answer(meta, events, request, _RESPONSES[response]).SerializeToString()
    return data


def _verification(match_id: str, final: bytes) -> bytes:
    assert _worker is not None
    answer = _worker.run(history.verify_match(_worker.store, match_id,
                                              api.GetMatchResponse.FromString(final)))
    data: bytes = answer.SerializeToString()
    return data


__all__ = ["BLOCK", "HistoryPool", "HistorySettings", "block_of"]
