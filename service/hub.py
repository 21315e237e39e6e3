"""Following match event streams in Redis, for WatchMatch.

Redis is the truth: a watcher reads the log from its cursor with XRANGE, then waits for new entries.
To wait, one follower task per watched match and process runs a blocking XREAD on the match's
stream and hands each new entry to the local watchers of that match through a bounded queue, so idle
watchers cost a queue each, not a Redis connection or a thread.

The queues are only a hint: sequence numbers have no gaps, so a watcher that sees a jump (a
follower started late, a full queue dropped entries) reads the missing entries from Redis again.
Whatever happens, a watcher yields every entry after its cursor exactly once, in order.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

import structlog
from redis.exceptions import RedisError

from service.store import Store, StoredEvent

log = structlog.get_logger("typhoon.hub")

_CLOSED = object()
BATCH = 500


class _Subscription:
    def __init__(self, match_id: str, size: int) -> None:
        self.match_id = match_id
        self.queue: asyncio.Queue = asyncio.Queue(size)
        self.overflowed = False
        self.closed = False

    def offer(self, item: object) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.overflowed = True

    def close(self) -> None:
        self.closed = True
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(_CLOSED)


class _Follower:
    def __init__(self) -> None:
        self.subscribers: set[_Subscription] = set()
        self.ready = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task | None = None


class StreamHub:
    """Shares one blocking reader per match among all the watchers of this process."""

    def __init__(self, store: Store, block_ms: int = 2000, queue_size: int = 1000) -> None:
        self.store = store
        self.block_ms = block_ms
        self.queue_size = queue_size
        self._followers: dict[str, _Follower] = {}
        self.closing = False

    @property
    def watchers(self) -> int:
        return sum(len(f.subscribers) for f in self._followers.values())

    async def follow(self, match_id: str, after: int, heartbeat: float) -> AsyncIterator[StoredEvent | int]:
        """Every event of the match after sequence ``after``, then the live ones; an ``int`` (the last
        sequence sent) each time ``heartbeat`` seconds pass without one. Ends when the hub closes."""
        if self.closing:
            return
        subscription, ready = self._subscribe(match_id)
        getter: asyncio.Future | None = None
        last = after
        try:
            # wait until the follower knows where the stream ends, so that whatever the watcher's own
            # catch-up read does not see, the follower will; beat meanwhile (Redis may be down)
            while not ready.done():
                done, _ = await asyncio.wait({ready}, timeout=heartbeat)
                if not done:
                    yield last
            while not subscription.closed:
                # from Redis: the catch-up, and any gap
                while not subscription.closed:
                    batch = await self.store.read_events(match_id, last, BATCH)
                    for event in batch:
                        yield event
                        last = event.seq
                        await asyncio.sleep(0)  # let the loop notice a gone client during a long catch-up
                    if len(batch) < BATCH:
                        break
                # live, from the follower
                while not subscription.closed:
                    if subscription.overflowed:
                        subscription.overflowed = False
                        break
                    if getter is None:
                        getter = asyncio.ensure_future(subscription.queue.get())
                    done, _ = await asyncio.wait({getter}, timeout=heartbeat)
                    if not done:
                        yield last
                        continue
                    item, getter = getter.result(), None
                    if item is _CLOSED:
                        return
                    if item.seq <= last:
                        continue
                    if item.seq > last + 1:
                        break  # a gap: read it from Redis
                    yield item
                    last = item.seq
        finally:
            if getter is not None:
                getter.cancel()
            self._unsubscribe(subscription)

    def _subscribe(self, match_id: str) -> tuple[_Subscription, asyncio.Future]:
        subscription = _Subscription(match_id, self.queue_size)
        follower = self._followers.get(match_id)
        if follower is None:
            follower = self._followers[match_id] = _Follower()
            follower.task = asyncio.create_task(self._follow(match_id, follower), name=f"follow-{match_id}")
        follower.subscribers.add(subscription)
        return subscription, follower.ready

    def _unsubscribe(self, subscription: _Subscription) -> None:
        follower = self._followers.get(subscription.match_id)
        if follower:
            follower.subscribers.discard(subscription)

    async def _follow(self, match_id: str, follower: _Follower) -> None:
        delay = 0.1
        last = None
        try:
            while follower.subscribers and not self.closing:
                try:
                    if last is None:
                        last = await self.store.last_sequence(match_id)
                        if not follower.ready.done():
                            follower.ready.set_result(None)
                    events = await self.store.wait_events(match_id, last, self.block_ms)
                    delay = 0.1
                except RedisError as error:
                    log.warning("follow_failed", match_id=match_id, error=str(error))
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)
                    continue
                for event in events:
                    last = event.seq
                    for subscription in list(follower.subscribers):
                        subscription.offer(event)
        finally:
            if not follower.ready.done():
                follower.ready.set_result(None)
            if self._followers.get(match_id) is follower:
                del self._followers[match_id]
            for subscription in list(follower.subscribers):  # still there only if closing or cancelled
                subscription.close()

    async def close(self) -> None:
        """End every watch (cleanly) and stop the followers."""
        self.closing = True
        followers = list(self._followers.values())
        for follower in followers:
            for subscription in list(follower.subscribers):
                subscription.close()
        tasks = [f.task for f in followers if f.task]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
