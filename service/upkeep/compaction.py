"""The compaction sweep: matches that ended but were never compacted get compacted after all.

The process whose commit ends a match compacts it in the background (``Store.compact_soon``). A
process that stops in between (killed, crashed, or Redis away at that moment) leaves the match over
but uncompacted: every read still answers, but its event stream stays in Redis for good, several
times the size of its archive. This sweep finds such matches (an event stream whose match is over)
and compacts them: a little after each process starts, then every ``interval`` seconds, one process
at a time (a lock in Redis). It walks the keys with SCAN, so it never blocks Redis, and what it costs
grows with the live matches (each has a stream), not with the finished ones (they have none).

Each live match the walk meets is also handed to ``abandonment`` if the service has one
(``service.upkeep.abandoned``); a match it ends is compacted by the commit that ends it. One it does
not end is handed to ``unused`` (``service.upkeep.unused``), which deletes it if nobody ever played in it. Then, if the
service keeps matches over for a limited time, ``retention`` deletes those past it
(``service.upkeep.retention``). The matches Redis holds after the pass, live and over, are the
``typhoon_stored_matches`` gauge.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog
from redis.exceptions import LockError, RedisError

from service import metrics
from service.store.match_store import INDEX_KEY, Store, key
from service.tasks import stop_task
from service.upkeep.abandoned import Abandonment
from service.upkeep.retention import Retention
from service.upkeep.unused import UnusedMatches

log = structlog.get_logger("typhoon.compaction")

LOCK_KEY = "typhoon:compaction-sweep"
EVENTS_PATTERN = key("*", "events")


class CompactionSweep:
    """Compacts every match that is over but still has its event stream.

    >>> sweep = CompactionSweep(store)          # doctest: +SKIP
    >>> await sweep.sweep()                     # doctest: +SKIP
    0
    """

    def __init__(self, store: Store, interval: float = 3600.0, first_after: float = 30.0,
                 lock_ms: int = 600_000, abandonment: Abandonment | None = None,
                 retention: Retention | None = None, unused: UnusedMatches | None = None) -> None:
        self.store = store
        self.abandonment = abandonment
        self.unused = unused
        self.retention = retention
        self.interval = interval
        self.first_after = first_after
        self.lock_ms = lock_ms
        self.compacted = 0
        self._task: asyncio.Task | None = None
        self._stopping = False

    def start(self) -> None:
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name="compaction-sweep")

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            await stop_task(self._task)
            self._task = None

    async def sweep(self) -> int:
        """One pass over every event stream; returns the matches this call compacted (0 if another
        process holds the sweep)."""
        lock = self.store.redis.lock(LOCK_KEY, timeout=self.lock_ms / 1000, blocking=False)
        if not await lock.acquire():
            return 0
        try:
            done = live = 0
            async for name in self.store.redis.scan_iter(match=EVENTS_PATTERN, count=1000):
                match_id = _match_id(name)
                try:
                    compacted, ended, gone = await self._sweep_match(match_id)
                except (RedisError, OSError):
                    raise  # Redis away: the next pass does it
                except Exception as error:  # noqa: BLE001 - a record no service wrote: the others are still swept
                    log.warning("sweep_skipped_match", match_id=match_id, error=repr(error))
                    metrics.SWEPT.labels("unreadable").inc()
                    compacted = ended = gone = False
                done += compacted  # an ended one is compacted by the commit that ends it (Store.commit)
                live += not compacted and not ended and not gone
            if self.retention:
                await self.retention.sweep()
            stored = await self.store.redis.zcard(INDEX_KEY)
            metrics.STORED_MATCHES.labels("live").set(live)
            metrics.STORED_MATCHES.labels("over").set(max(0, stored - live))
        finally:
            with contextlib.suppress(LockError):  # held too long: another process may have it now
                await lock.release()
        if done:
            log.info("compaction_sweep", compacted=done)
            metrics.SWEPT.labels("compacted").inc(done)
        self.compacted += done
        return done

    async def _sweep_match(self, match_id: str) -> tuple[bool, bool, bool]:
        """Compact the match if it is over, else end it if abandoned, else delete it if unused:
        (compacted, ended, deleted)."""
        compacted = await self.store.compact(match_id)  # False for a live match
        ended = not compacted and bool(self.abandonment) and await self.abandonment.end_if_abandoned(match_id)
        gone = not compacted and not ended and bool(self.unused) and await self.unused.delete_if_unused(match_id)
        return compacted, ended, gone

    async def _run(self) -> None:
        pause = self.first_after
        while not self._stopping:
            await asyncio.sleep(pause)
            pause = self.interval
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - Redis away: the next pass does it
                log.warning("compaction_sweep_failed", error=repr(error))


def _match_id(events_key: bytes | str) -> str:
    """``typhoon:{m:<id>}:events`` -> ``<id>``."""
    text = events_key.decode() if isinstance(events_key, bytes) else events_key
    return text[text.index("{m:") + 3:text.index("}")]
