"""The live feed of every match watched by this process, over one Redis pub/sub connection.

Every script that appends to a match's event stream (``service.store.match_store``) also publishes the new last
sequence number on the match's channel ``typhoon:{m:<id>}:feed``, in the same atomic script: with
sharded pub/sub (``SPUBLISH``) where Redis has it (7.0 and later), so on Redis Cluster a notice stays
on the shard of the match, else classic ``PUBLISH``. A commit also publishes, just before that notice,
one that carries the change itself (its entries and the match's meta hash after it:
``service.store.match_store.Change``), unless the change is large: the hub hands those to its watchers
without reading Redis, and reads the stream through the store's pool for every other notice
(``service.store.hub``). A process of an older version, which reads only the plain notices, ignores the
ones with the change and reads, as it did.

A :class:`Feed` holds one subscriber connection per process (per shard on a Redis 7 Cluster, which
redis-py's ``ClusterPubSub`` manages) subscribed to the channels of the matches watched here, however
many. ``want(match_id)`` subscribes and returns a future that is done once Redis has confirmed the
subscription: every commit after that point reaches this process. When the connection breaks, the
feed reconnects with backoff, subscribes again and, once each channel is in force again, calls
``on_lost(match_id)``: notices published meanwhile are gone, so the hub reads that match again.

The same connection carries the service's own wake-up channels (:meth:`Feed.listen`): a loop that would
otherwise poll Redis (the clocks' sweeper, the ladder's rounds) sleeps until a script or a call tells it
that something changed, and is woken as well whenever notices may have been lost.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, cast

import structlog
from redis.exceptions import RedisError

from service.metrics import REDIS_ERRORS
from service.store.match_store import Change, Store

log = structlog.get_logger("typhoon.notify")

#: Channels per SUBSCRIBE command (thousands of watched matches subscribe in a few round trips).
CHUNK = 1000


def channel(match_id: str) -> str:
    """The feed channel of a match: the match's hash tag, so on Cluster it lives on the match's shard.

    >>> channel("abc")
    'typhoon:{m:abc}:feed'
    """
    return f"typhoon:{{m:{match_id}}}:feed"


def match_of(name: bytes | str) -> str:
    return _text(name)[len("typhoon:{m:"):-len("}:feed")]


def _text(name: bytes | str) -> str:
    return name.decode() if isinstance(name, bytes) else name


class _Channel:
    """What this process wants of one channel, and what Redis has confirmed (replies come in order:
    the subscription is in force when every command sent for the channel is answered and the last
    one was a subscribe)."""

    __slots__ = ("wanted", "subscribed", "sent", "acked", "confirmed", "lost")

    def __init__(self) -> None:
        self.wanted = True
        self.subscribed = False  # the last command sent was a subscribe
        self.sent = 0
        self.acked = 0
        self.lost = False  # a connection broke since the last confirmation: notices may be gone
        self.confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class Feed:
    def __init__(self, store: Store, on_notice: Callable[[str, int, Change | None], None],
                 on_lost: Callable[[str], None]) -> None:
        self.store = store
        self.on_notice = on_notice
        self.on_lost = on_lost
        self.connected = False
        self.reconnects = 0
        self._channels: dict[str, _Channel] = {}
        self._listeners: dict[str, Callable[[], None]] = {}
        self._dirty = asyncio.Event()
        self._pending: set[str] = set()  # channels whose wanted state may differ from what was sent
        self._task: asyncio.Task[None] | None = None
        #: redis-py's PubSub, or its ClusterPubSub on a Redis 7 Cluster (the same methods, no common type)
        self._pubsub: Any = None
        self._sharded = False
        self._closing = False
        self._generation = 0  # one per connection: a writer of an older one stops

    @property
    def channels(self) -> int:
        return sum(1 for c in self._channels.values() if c.wanted)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="feed")

    def start_once(self) -> None:
        if self._task is None and not self._closing:
            self.start()

    def listen(self, name: str, on_message: Callable[[], None]) -> asyncio.Future[None]:
        """Subscribe to a channel of the service's own (not a match's), for good: ``on_message()`` on
        each message on it, once Redis confirms the subscription (what was published before may have
        been missed), and after each reconnection. Starts the feed."""
        self._listeners[name] = on_message
        self.start_once()
        return self._want(name)

    def want(self, match_id: str) -> asyncio.Future[None]:
        """Subscribe to the match's notices; the future is done once Redis confirms."""
        return self._want(channel(match_id))

    def _want(self, name: str) -> asyncio.Future[None]:
        state = self._channels.get(name)
        if state is None:
            state = self._channels[name] = _Channel()
        state.wanted = True
        if state.subscribed and state.acked == state.sent:  # in force (an unsubscribe not sent yet)
            if not state.confirmed.done():
                state.confirmed.set_result(None)
        else:
            if state.confirmed.done():
                state.confirmed = asyncio.get_running_loop().create_future()
            self._pending.add(name)
            self._dirty.set()
        return state.confirmed

    def drop(self, match_id: str) -> None:
        state = self._channels.get(channel(match_id))
        if state is not None and state.wanted:
            state.wanted = False
            self._pending.add(channel(match_id))
            self._dirty.set()

    async def close(self) -> None:
        self._closing = True
        self._dirty.set()
        if self._task:
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=2.0)
        await self._close_pubsub()
        for state in self._channels.values():
            if not state.confirmed.done():
                state.confirmed.cancel()

    # --- the connection ------------------------------------------------------------------------------

    async def _run(self) -> None:
        delay = 0.05
        while not self._closing:
            try:
                await self._connect()
                delay = 0.05
                await self._serve()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError, RuntimeError) as error:
                REDIS_ERRORS.labels("feed").inc()
                if self.connected:
                    log.warning("feed_lost", error=repr(error)[:200])
                self.connected = False
                await self._close_pubsub()
                for name, state in list(self._channels.items()):  # nothing is in force on a new connection
                    if not state.wanted:
                        del self._channels[name]
                        continue
                    state.subscribed, state.sent, state.acked, state.lost = False, 0, 0, True
                    self._pending.add(name)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)

    async def _connect(self) -> None:
        info = await self.store.redis.info("server")
        if isinstance(info, dict) and "redis_version" not in info:  # Cluster: {node: info}
            info = next(iter(info.values()))
        self._sharded = int(str(info.get("redis_version", "6")).split(".")[0]) >= 7
        if self.store.clustered and self._sharded:
            self._pubsub = self.store.redis.pubsub()
        elif self.store.clustered:  # classic PUBLISH reaches every node of a Redis 6 Cluster: any one will do
            from redis.asyncio import Redis, RedisCluster

            node = cast(RedisCluster, self.store.redis).get_default_node()
            auth: dict[str, Any] = dict(self.store.settings.auth())
            self._pubsub = Redis(host=node.host, port=int(node.port), socket_connect_timeout=2, **auth).pubsub()
        else:
            self._pubsub = self.store.redis.pubsub()
        # redis-py's PubSub subscribes again by itself on a reconnect; this class does that itself
        self.connected = True
        self.reconnects += 1
        if self.reconnects > 1:
            log.info("feed_reconnected", channels=self.channels)
        self._dirty.set()

    async def _serve(self) -> None:
        writer = asyncio.create_task(self._write(self._generation), name="feed-writer")
        try:
            while not self._closing:
                if writer.done():
                    writer.result()  # its error ends this connection
                message = await self._next_message()
                if message is not None:
                    self._handle(message)
        finally:
            # redis-py may swallow a cancellation in the middle of a command: the generation stops it too
            self._generation += 1
            self._dirty.set()
            writer.cancel()
            await asyncio.wait({writer}, timeout=2.0)

    async def _next_message(self) -> dict[str, Any] | None:
        pubsub = self._pubsub
        if not pubsub.subscribed:
            await asyncio.sleep(0.05)  # nothing subscribed yet: redis-py would return at once
            return None
        if self.store.clustered and self._sharded:
            return cast("dict[str, Any] | None", await pubsub.get_sharded_message(timeout=0.2))
        return cast("dict[str, Any] | None", await pubsub.get_message(timeout=1.0))

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind in ("message", "smessage"):
            listener = self._listeners.get(_text(message["channel"]))
            if listener is not None:
                listener()
                return
            data = message["data"]
            if data[:1] in (b"{", "{"):  # a commit's notice with its change
                change = Change.parse(data)
                if change is not None:  # else the plain notice after it will do
                    self.on_notice(match_of(message["channel"]), change.seq, change)
                return
            try:
                seq = int(data)
            except (TypeError, ValueError):
                return
            self.on_notice(match_of(message["channel"]), seq, None)
            return
        if kind in ("subscribe", "ssubscribe", "unsubscribe", "sunsubscribe"):
            name = _text(message["channel"])
            state = self._channels.get(name)
            if state is None:
                return
            state.acked += 1
            if state.acked == state.sent:
                if state.subscribed and state.wanted:
                    first = not state.confirmed.done()
                    if first:
                        state.confirmed.set_result(None)
                    listener = self._listeners.get(name)
                    if listener is not None and (first or state.lost):  # what was published before is unknown
                        state.lost = False
                        listener()
                    elif state.lost:  # subscribed again after a break: what was published meanwhile is gone
                        state.lost = False
                        self.on_lost(match_of(name))
                elif not state.wanted and not state.subscribed:
                    del self._channels[name]

    async def _write(self, generation: int) -> None:
        """Sends the subscribes and unsubscribes the watchers asked for, many channels per command."""
        subscribe = self._pubsub.ssubscribe if self._sharded else self._pubsub.subscribe
        unsubscribe = self._pubsub.sunsubscribe if self._sharded else self._pubsub.unsubscribe
        while True:
            await self._dirty.wait()
            if generation != self._generation or self._closing:
                return
            self._dirty.clear()
            pending, self._pending = self._pending, set()
            states = [(name, self._channels.get(name)) for name in pending]
            adds = [name for name, s in states if s is not None and s.wanted and not s.subscribed]
            removes = [name for name, s in states if s is not None and not s.wanted and s.subscribed]
            for names, command, subscribed in ((adds, subscribe, True), (removes, unsubscribe, False)):
                for start in range(0, len(names), CHUNK):
                    chunk = names[start:start + CHUNK]
                    for name in chunk:
                        state = self._channels[name]
                        state.subscribed = subscribed
                        state.sent += 1
                    await command(*chunk)
            # a channel wanted again while its unsubscribe was on the way is sent again next round
            again = {name for name, s in states if s is not None and s.wanted != s.subscribed}
            if again:
                self._pending |= again
                self._dirty.set()

    async def _close_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            try:
                await pubsub.aclose()
            except (RedisError, OSError, RuntimeError):
                pass
