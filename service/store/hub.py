"""Following match event streams in Redis, for WatchMatch, in a bounded number of Redis connections.

Redis is the truth: a watcher reads the log from its cursor with XRANGE, then waits for new entries.
To wait, the process subscribes to the matches' notice channels over one pub/sub connection
(:class:`service.store.notify.Feed`). A commit's notice carries the change (its entries and the match's
meta hash after it: :class:`~service.store.match_store.Change`), and the hub hands it to each local
watcher's bounded queue as it is: an action costs Redis one round trip in all, its watchers included.
Any other notice (a large change, another kind of write, a process of an older version) only says a
match's stream grew, and one read per match and process (through the store's pool, shared by all the
local watchers of the match) fetches the new entries. Idle watchers cost a queue each: no Redis
connection, no thread, no polling.

The queues are only a hint: sequence numbers have no gaps, so a watcher that sees a jump (a full
queue dropped entries, a notice was lost while the feed reconnected) reads the missing entries from
Redis again. A watcher starts its own catch-up read only once the subscription is in force, so
whatever that read does not see, a notice will announce. Whatever happens, a watcher yields every
entry after its cursor exactly once, in order.

A change that does not follow what the hub handed on (a notice lost, or one that came while a read
was on its way) is read from Redis too, from where the hub stands.

Each read of new entries also reads the match's meta hash, in the same script (as a change carries it):
when the entries read reach the meta's ``last_sequence`` (the last entry of the latest change), the watchers get a
:class:`MatchState` after them, where the match stands now. A watcher yields one after its catch-up
and after each change it follows, never twice for the same last sequence.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

import structlog
from redis.exceptions import RedisError

from service.metrics import FEED_CHANGES, REDIS_ERRORS
from service.store.match_store import Change, Store, StoredEvent
from service.store.notify import Feed

log = structlog.get_logger("typhoon.hub")


@dataclass(eq=False)
class MatchState:
    """A match's meta hash as it was once every entry up to its ``last_sequence`` had been read: where
    the match stands after a change. One object is shared by the local watchers of the match, and
    ``cached`` holds what the match core made of it, by view (built once for all of them)."""

    meta: dict[str, str]
    cached: dict[Any, Any] = field(default_factory=dict)

    @property
    def last_sequence(self) -> int:
        return int(self.meta.get("last_sequence") or 0)


class _Closed:
    """What a queue holds last when its watch ends."""


_CLOSED = _Closed()
_Item = StoredEvent | MatchState | _Closed


def _state_after(events: list[StoredEvent], meta: dict[str, str] | None, cursor: int) -> MatchState | None:
    """The state to hand on after a read that ended at ``cursor``: only if the read reached the end."""
    if meta is None or len(events) >= BATCH:
        return None
    state = MatchState(meta)
    return state if state.last_sequence == cursor else None


#: Entries per read of a match's stream.
BATCH = 500
#: Reads of new entries running at once (after a feed reconnect every watched match is read again).
FETCH_CONCURRENCY = 32


class _Subscription:
    def __init__(self, match_id: str, size: int, last: int) -> None:
        self.match_id = match_id
        self.queue: asyncio.Queue[_Item] = asyncio.Queue(size)
        self.overflowed = False
        self.closed = False
        self.last = last  # the watcher's cursor

    def offer(self, item: _Item) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.overflowed = True

    def close(self) -> None:
        self.closed = True
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(_CLOSED)


class _Watched:
    """A match watched in this process: its watchers, and how far its new entries have been read."""

    def __init__(self, confirmed: asyncio.Future[None]) -> None:
        self.subscribers: set[_Subscription] = set()
        self.confirmed = confirmed
        self.cursor: int | None = None  # the last sequence handed to the queues
        self.announced = 0  # the highest last sequence a notice announced
        self.reread = False  # read to the end of the stream whatever the notices said
        self.task: asyncio.Task[None] | None = None


class StreamHub:
    """Shares one feed connection among all the watchers of this process, one read per new entry."""

    def __init__(self, store: Store, queue_size: int = 1000, fetch_concurrency: int = FETCH_CONCURRENCY) -> None:
        self.store = store
        self.queue_size = queue_size
        self.feed = Feed(store, self._on_notice, self._on_lost)
        self._watched: dict[str, _Watched] = {}
        self._fetch_slots = asyncio.Semaphore(fetch_concurrency)
        self.closing = False
        #: changes handed to the watchers as their notice carried them, and reads of new entries made
        self.changes_from_notices = 0
        self.reads = 0
        #: a notice's change is used only where the store sends them: not when writes wait for replicas
        #: (a watcher must not see what a failover could take back; a read waits for them)
        self._changes_usable = store.notice_max_bytes > 0

    @property
    def watchers(self) -> int:
        return sum(len(w.subscribers) for w in self._watched.values())

    @property
    def matches(self) -> int:
        return len(self._watched)

    async def follow(self, match_id: str, after: int,
                     heartbeat: float) -> AsyncIterator[StoredEvent | MatchState | int]:
        """Every event of the match after sequence ``after``, then the live ones; a :class:`MatchState`
        after the catch-up and after each change's last event; an ``int`` (the last sequence sent) each
        time ``heartbeat`` seconds pass without anything. Ends when the hub closes."""
        if self.closing:
            return
        self.feed.start_once()
        subscription = _Subscription(match_id, self.queue_size, after)
        watched = self._subscribe(subscription)
        getter: asyncio.Future[_Item] | None = None
        last = after
        stated = -1  # the last sequence of the last MatchState yielded
        try:
            # wait until Redis confirms the subscription (beat meanwhile: Redis may be down)
            while not watched.confirmed.done():
                done, _ = await asyncio.wait({watched.confirmed}, timeout=heartbeat)
                if not done:
                    yield last
            if watched.confirmed.cancelled():
                return
            while not subscription.closed:
                # from Redis: the catch-up, and any gap
                while not subscription.closed:
                    batch, meta = await self.store.read_events_and_meta(match_id, last, BATCH)
                    for event in batch:
                        yield event
                        last = subscription.last = event.seq
                        await asyncio.sleep(0)  # let the loop notice a gone client during a long catch-up
                    state = _state_after(batch, meta, last)
                    if state is not None and state.last_sequence > stated:
                        stated = state.last_sequence
                        yield state
                    if len(batch) < BATCH:
                        break
                # live, from the notices
                while not subscription.closed:
                    if subscription.overflowed:
                        subscription.overflowed = False
                        break
                    if getter is None and not subscription.queue.empty():
                        item = subscription.queue.get_nowait()  # a change's entries come together: no task each
                    else:
                        if getter is None:
                            getter = asyncio.ensure_future(subscription.queue.get())
                        got, _ = await asyncio.wait({getter}, timeout=heartbeat)
                        if not got:
                            yield last
                            continue
                        item, getter = getter.result(), None
                    if isinstance(item, _Closed):
                        return
                    if isinstance(item, MatchState):
                        if item.last_sequence == last and last > stated:
                            stated = last
                            yield item
                        continue
                    if item.seq <= last:
                        continue
                    if item.seq > last + 1:
                        break  # a gap: read it from Redis
                    yield item
                    last = subscription.last = item.seq
        finally:
            if getter is not None:
                getter.cancel()
            self._unsubscribe(subscription)

    def _subscribe(self, subscription: _Subscription) -> _Watched:
        watched = self._watched.get(subscription.match_id)
        if watched is None:
            watched = self._watched[subscription.match_id] = _Watched(self.feed.want(subscription.match_id))
        elif watched.confirmed.done() and not watched.confirmed.cancelled():
            watched.confirmed = self.feed.want(subscription.match_id)  # a new future if the feed broke since
        watched.subscribers.add(subscription)
        return watched

    def _unsubscribe(self, subscription: _Subscription) -> None:
        watched = self._watched.get(subscription.match_id)
        if watched is None:
            return
        watched.subscribers.discard(subscription)
        if not watched.subscribers:
            del self._watched[subscription.match_id]
            self.feed.drop(subscription.match_id)
            if watched.task is not None:
                watched.task.cancel()

    # --- notices -------------------------------------------------------------------------------------

    def _on_notice(self, match_id: str, last_sequence: int, change: Change | None) -> None:
        watched = self._watched.get(match_id)
        if watched is None:
            return
        if change is not None and self._changes_usable and watched.task is None and not watched.reread:
            self._hand_on(watched, change)
        watched.announced = max(watched.announced, last_sequence)
        if watched.cursor is None or watched.cursor < watched.announced or watched.reread:
            self._fetch_soon(match_id, watched)

    def _hand_on(self, watched: _Watched, change: Change) -> None:
        """The change's entries to the queues, if they follow what was handed on (else a read will)."""
        if watched.cursor is None:
            watched.cursor = max(s.last for s in watched.subscribers)  # one behind finds its gap
        events = [event for event in change.events if event.seq > watched.cursor]
        if not events or events[0].seq != watched.cursor + 1:
            return
        for event in events:
            watched.cursor = event.seq
            for subscription in list(watched.subscribers):
                subscription.offer(event)
        state = MatchState(change.meta)
        if state.last_sequence == watched.cursor:
            for subscription in list(watched.subscribers):
                subscription.offer(state)
        self.changes_from_notices += 1
        FEED_CHANGES.labels("notice").inc()

    def _on_lost(self, match_id: str) -> None:
        watched = self._watched.get(match_id)
        if watched is None:
            return
        watched.reread = True
        self._fetch_soon(match_id, watched)

    def _fetch_soon(self, match_id: str, watched: _Watched) -> None:
        if watched.task is None and not self.closing:
            watched.task = asyncio.create_task(self._fetch(match_id, watched), name=f"fetch-{match_id}")

    async def _fetch(self, match_id: str, watched: _Watched) -> None:
        """Reads what the notices announced, once for all the local watchers of the match."""
        delay = 0.05
        try:
            while watched.subscribers and not self.closing:
                if watched.cursor is None:
                    watched.cursor = max(s.last for s in watched.subscribers)  # one behind finds its gap
                if not watched.reread and watched.cursor >= watched.announced:
                    break
                watched.reread = False
                try:
                    async with self._fetch_slots:
                        self.reads += 1
                        FEED_CHANGES.labels("read").inc()
                        batch, meta = await self.store.read_events_and_meta(match_id, watched.cursor, BATCH)
                    delay = 0.05
                except RedisError as error:
                    log.warning("fetch_failed", match_id=match_id, error=str(error))
                    REDIS_ERRORS.labels("fetch").inc()
                    watched.reread = True
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
                    continue
                for event in batch:
                    watched.cursor = event.seq
                    for subscription in list(watched.subscribers):
                        subscription.offer(event)
                state = _state_after(batch, meta, watched.cursor)
                if state is not None:
                    for subscription in list(watched.subscribers):
                        subscription.offer(state)
                if len(batch) == BATCH:
                    watched.reread = True
        finally:
            watched.task = None

    async def close(self) -> None:
        """End every watch (cleanly) and stop the feed."""
        self.closing = True
        watched = list(self._watched.values())
        for entry in watched:
            for subscription in list(entry.subscribers):
                subscription.close()
        tasks = [w.task for w in watched if w.task]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)  # each also stops by itself, seeing `closing`
        await self.feed.close()
