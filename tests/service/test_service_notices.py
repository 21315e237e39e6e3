"""A commit's notice carries its change to the watchers (service.store.hub): an action costs Redis one round
trip, its watchers included; a large change, a lost notice and a process of the older version still read.

Each test follows a bare match (no seed, no players) through the store and the hub on a Redis of its own,
and counts reads twice: the hub's own counters, and Redis's commands (``INFO commandstats``: the read
script's ``XRANGE``)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import redis

from loadtests.redis_topologies import LocalCluster
from service.store.embedded_redis import EmbeddedRedis
from service.store.hub import MatchState, StreamHub
from service.store.match_store import Change, Store, StoredEvent, state_hash
from service.store.notify import channel

from service_helpers import within


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """A Redis of this module's own: its commands are counted, and its bare matches must not meet the
    sweeps and listings of the modules sharing the session's Redis."""
    embedded = EmbeddedRedis(tmp_path_factory.mktemp("notices-redis"))
    yield embedded.start()
    embedded.stop()


def event(seq: int, version: int, payload: str = "") -> StoredEvent:
    return StoredEvent(seq, version, 1000 + seq, "game", {"type": "test", "seq": seq, "payload": payload})


class Listener:
    """A plain subscriber of a match's notices, as a process of any version subscribes (sharded on Redis 7)."""

    def __init__(self, url: str, match_id: str) -> None:
        self.client = redis.Redis.from_url(url)  # kept: a client collected closes its pool, the subscription's too
        self.sharded = int(self.client.info("server")["redis_version"].split(".")[0]) >= 7
        self.pubsub = self.client.pubsub()
        (self.pubsub.ssubscribe if self.sharded else self.pubsub.subscribe)(channel(match_id))
        assert self.next()["type"] in ("subscribe", "ssubscribe")

    def next(self) -> dict:
        get = self.pubsub.get_sharded_message if self.sharded else self.pubsub.get_message
        return get(timeout=10)

    def close(self) -> None:
        self.pubsub.close()


def xranges(url: str) -> int:
    """The XRANGE commands Redis has run (scripts' included): a watcher's read is one."""
    return int(redis.Redis.from_url(url).info("commandstats").get("cmdstat_xrange", {}).get("calls", 0))


class Match:
    """A bare match in ``store`` at version ``version`` and last sequence ``seq``, committed a change at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.id = "notice" + secrets.token_hex(4)
        self.version, self.seq, self.state = 0, 1, '{"v":0}'

    async def create(self) -> None:
        assert await self.store.create(self.id, {"id": self.id, "status": "active", "version": "0", "last_sequence": "1",
                                                 "name": "Ærø ✓ \"quoted\" \\ / \r\n\0"},
                                       self.state, 0, [StoredEvent(1, 0, 1000, "service", {"type": "match_created"})],
                                       1000)

    async def commit(self, entries: int = 2, payload: str = "") -> list[StoredEvent]:
        version = self.version + 1
        events = [event(self.seq + n, version, payload) for n in range(1, entries + 1)]
        state = f'{{"v":{version}}}'
        result = await self.store.commit(self.id, self.version, self.seq, version, state,
                                         {"version": str(version), "last_sequence": str(events[-1].seq)}, events,
                                         expected_hash=state_hash(self.state))
        assert result.outcome == "OK"
        self.version, self.seq, self.state = version, events[-1].seq, state
        return events


async def take(stream: AsyncIterator[Any], count: int) -> list[Any]:
    """The next ``count`` items of a watch (heartbeats left out)."""
    items: list[Any] = []
    while len(items) < count:
        item = await within(anext(stream), "the watch's next item")
        if not isinstance(item, int):
            items.append(item)
    return items


def seqs(items: list[Any]) -> list[int | str]:
    return [item.seq if isinstance(item, StoredEvent) else f"state@{item.last_sequence}" for item in items]


async def following(url: str, scenario: Callable[[Store, StreamHub, Match, list[AsyncIterator[Any]]], Any],
                    watchers: int = 2, cluster: bool = False) -> Any:
    """``scenario(store, hub, match, streams)`` once ``watchers`` watchers of a new match in one hub have
    caught up (its first entry and where it stands)."""
    store = Store.from_url(url, cluster=cluster)
    hub = StreamHub(store)
    match = Match(store)
    await match.create()
    streams = [hub.follow(match.id, 0, heartbeat=5) for _ in range(watchers)]
    try:
        for stream in streams:
            assert seqs(await take(stream, 2)) == [1, "state@1"]
        return await scenario(store, hub, match, streams)
    finally:
        for stream in streams:
            await stream.aclose()
        await hub.close()
        await store.close()


def test_a_commits_notice_hands_its_change_to_every_watcher_without_a_read(redis_url):
    async def scenario(store: Store, hub: StreamHub, match: Match, streams: list) -> tuple:
        before = xranges(redis_url)
        got = []
        for _ in range(3):
            committed = await match.commit()
            for stream in streams:
                items = await take(stream, 3)
                assert items[:2] == committed
                got.append(items)
        meta = {k.decode(): v.decode() for k, v in
                (await store.redis.hgetall(f"typhoon:{{m:{match.id}}}:meta")).items()}
        return got, meta, xranges(redis_url) - before, hub.reads, hub.changes_from_notices

    got, meta, reads_in_redis, reads, from_notices = asyncio.run(following(redis_url, scenario))
    assert [seqs(items) for items in got] == [[2, 3, "state@3"]] * 2 + [[4, 5, "state@5"]] * 2 + [[6, 7, "state@7"]] * 2
    assert got[-1][-1].meta == meta  # the meta hash as the commit left it, byte for byte
    assert got[0][-1] is got[1][-1]  # one MatchState for all the watchers (its views are built once)
    assert (reads_in_redis, reads, from_notices) == (0, 0, 3)


def test_a_change_larger_than_the_notice_bound_is_read(redis_url):
    async def scenario(store: Store, hub: StreamHub, match: Match, streams: list) -> tuple:
        store.notice_max_bytes = 2000
        before = xranges(redis_url)
        large = await match.commit(entries=3, payload="x" * 1000)  # 3 KB of entries: the plain notice only
        got_large = [await take(stream, 4) for stream in streams]
        reads_in_redis = xranges(redis_url) - before
        small = await match.commit(entries=1, payload="x" * 100)  # within the bound again
        got_small = [await take(stream, 2) for stream in streams]
        return (large, got_large, reads_in_redis, small, got_small, xranges(redis_url) - before, hub.reads,
                hub.changes_from_notices)

    large, got_large, reads_in_redis, small, got_small, reads_after, reads, from_notices = asyncio.run(
        following(redis_url, scenario))
    assert [items[:3] for items in got_large] == [large, large]
    assert [items[:1] for items in got_small] == [small, small]
    assert (reads_in_redis, reads_after, reads, from_notices) == (1, 1, 1, 1)  # one read for both watchers


def test_a_notice_that_does_not_follow_what_was_handed_on_is_read_from_where_the_hub_stands(redis_url):
    """A notice lost (the feed reconnecting, say): the next change's notice skips entries, and the hub
    reads them all from Redis instead of handing on the change alone."""
    async def scenario(store: Store, hub: StreamHub, match: Match, streams: list) -> tuple:
        deliver = hub.feed.on_notice
        lost: list[int] = []

        def losing_the_first(match_id: str, seq: int, change: Change | None) -> None:
            if seq <= 3:
                lost.append(seq)
                return
            deliver(match_id, seq, change)

        hub.feed.on_notice = losing_the_first
        first = await match.commit()
        second = await match.commit()
        got = [await take(stream, 5) for stream in streams]
        return first + second, got, lost, hub.reads, hub.changes_from_notices

    committed, got, lost, reads, from_notices = asyncio.run(following(redis_url, scenario))
    assert lost == [3, 3]  # the first commit's notice with its change, then its plain one
    assert [items[:4] for items in got] == [committed, committed]  # every entry once, in order
    assert [seqs(items) for items in got] == [[2, 3, 4, 5, "state@5"]] * 2
    assert (reads, from_notices) == (1, 0)


def test_a_rolling_update_reads_the_older_versions_notices_and_publishes_one_it_reads(redis_url):
    """A process of the older version commits with the plain notice alone (its script): this one reads.
    A process of the older version reads only plain notices: each commit's last notice is one."""
    async def scenario(store: Store, hub: StreamHub, match: Match, streams: list) -> tuple:
        listener = Listener(redis_url, match.id)
        store.notice_max_bytes = 0  # as the older version's script: no change in its notice
        older = await match.commit()
        got_older = [await take(stream, 3) for stream in streams]
        store.notice_max_bytes = 16 * 1024
        newer = await match.commit()
        got_newer = [await take(stream, 3) for stream in streams]
        messages = [listener.next() for _ in range(3)]
        listener.close()
        return older, got_older, newer, got_newer, messages, hub.reads, hub.changes_from_notices

    older, got_older, newer, got_newer, messages, reads, from_notices = asyncio.run(following(redis_url, scenario))
    assert [items[:2] for items in got_older] == [older, older]
    assert [items[:2] for items in got_newer] == [newer, newer]
    assert (reads, from_notices) == (1, 1)
    data = [message["data"] for message in messages]
    assert data[0] == b"3"
    assert Change.parse(data[1]).events == newer and data[2] == b"5"  # an older process ignores the first


@pytest.fixture()
def cluster(tmp_path) -> Iterator[str]:
    with LocalCluster(tmp_path) as started:
        yield started.url


def test_notices_carry_the_changes_on_a_redis_cluster(cluster):
    """Each match's notices come from its own node (Redis 7: sharded pub/sub), changes included."""
    async def scenario(store: Store, hub: StreamHub, match: Match, streams: list) -> tuple:
        got = []
        for _ in range(2):
            committed = await match.commit()
            got += [(await take(stream, 3))[:2] == committed for stream in streams]
        return got, hub.reads, hub.changes_from_notices

    for _ in range(3):  # three matches: their keys (and notices) on more than one node, in all likelihood
        got, reads, from_notices = asyncio.run(following(cluster, scenario, cluster=True))
        assert got == [True] * 4
        assert (reads, from_notices) == (0, 2)


def test_a_state_after_a_change_is_the_meta_the_commit_left(redis_url):
    """The watchers' MatchState from a notice is the one a read gives (where the match stands)."""
    async def scenario(store: Store, hub: StreamHub, match: Match, streams: list) -> tuple:
        await match.commit()
        from_notice = (await take(streams[0], 3))[-1]
        _, meta = await store.read_events_and_meta(match.id, 0, 10)
        return from_notice, meta

    from_notice, meta = asyncio.run(following(redis_url, scenario, watchers=1))
    assert isinstance(from_notice, MatchState) and from_notice.meta == meta
    assert meta["name"] == "Ærø ✓ \"quoted\" \\ / \r\n\0"


def test_a_commit_nobody_watches_publishes_no_change(redis_url):
    """The script looks whether anyone listens before it builds the notice with the change (its HGETALL)."""
    async def scenario() -> tuple[int, int]:
        store = Store.from_url(redis_url)
        match = Match(store)
        try:
            await match.create()
            commands = redis.Redis.from_url(redis_url)
            calls = lambda: int(commands.info("commandstats").get("cmdstat_hgetall", {}).get("calls", 0))  # noqa: E731
            before = calls()
            await match.commit()
            unwatched = calls() - before
            listener = Listener(redis_url, match.id)
            await match.commit()
            listener.close()
            return unwatched, calls() - before - unwatched
        finally:
            await store.close()

    assert asyncio.run(scenario()) == (0, 1)
