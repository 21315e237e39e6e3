"""The store's Redis connection pool, on a real Redis."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import pytest

from service.store.embedded_redis import EmbeddedRedis
from service.store.match_store import Store, StoredEvent, commit_id, state_hash


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """A Redis of this module's own: its tests write bare matches (no seed, no players) that the sweeps
    and listings of the modules sharing the session's Redis must never meet, whichever runs first."""
    embedded = EmbeddedRedis(tmp_path_factory.mktemp("store-redis"))
    yield embedded.start()
    embedded.stop()


def test_calls_wait_for_a_free_connection_instead_of_failing_when_all_are_busy(redis_url):
    async def scenario() -> list[object]:
        store = Store.from_url(redis_url, max_connections=2)
        try:
            busy = [store.redis.blpop(["typhoon:test:nothing"], timeout=0.3) for _ in range(2)]
            return await asyncio.gather(*busy, store.ping(), store.ping(), return_exceptions=True)
        finally:
            await store.close()

    assert asyncio.run(scenario()) == [None, None, True, True]


def test_a_commit_sent_again_after_its_answer_was_lost_is_applied_once(redis_url):
    """redis-py resends a script when the connection breaks after sending it; Redis may have run it."""
    def event(seq: int, version: int) -> StoredEvent:
        return StoredEvent(seq, version, 1000 + seq, "service", {"type": "test", "seq": seq})

    async def scenario() -> tuple[list[object], int, int]:
        store = Store.from_url(redis_url)
        match_id = "resent" + secrets.token_hex(4)
        try:
            outcomes = [await store.create(match_id, {"id": match_id, "status": "active"}, '{"s":0}', 0,
                                           [event(1, 0)], 1000)]
            commit = commit_id()
            for _ in range(2):  # the same write twice, as a retry on a new connection sends it
                result = await store.commit(match_id, 0, 1, 1, '{"s":1}', {"version": "1"}, [event(2, 1)],
                                            expected_hash=state_hash('{"s":0}'), commit=commit)
                outcomes.append(result.outcome)
            outcomes.append((await store.commit(match_id, 0, 1, 1, '{"s":1}', {"version": "1"}, [event(2, 1)],
                                                expected_hash=state_hash('{"s":0}'))).outcome)
            events = await store.read_events(match_id, 0, 100)
            return outcomes, len(events), (await store.load(match_id)).version
        finally:
            await store.close()

    outcomes, events, version = asyncio.run(scenario())
    assert outcomes == [True, "OK", "OK", "STALE"]  # another write (another id) at the old version is stale
    assert (events, version) == (2, 1)


def test_the_stores_scripts_load_themselves_again_after_redis_forgets_them_and_commands_pack_alike(redis_url):
    """The store sends EVALSHA itself (service.store.lean_redis): a Redis that lost its scripts (restarted,
    SCRIPT FLUSH) gets them again; commands packed by hiredis carry any text, byte for byte."""
    async def scenario() -> tuple[bool, str, bytes]:
        store = Store.from_url(redis_url)
        match_id = "flushed" + secrets.token_hex(4)
        try:
            await store.redis.script_flush()
            created = await store.create(match_id, {"id": match_id, "status": "active", "name": "Ærø ✓ \r\n\0"},
                                         '{"s":0}', 0, [StoredEvent(1, 0, 1000, "service", {"type": "test"})], 1000)
            snapshot = await store.load(match_id)
            raw = await store.redis.hget(f"typhoon:{{m:{match_id}}}:meta", "name")
            return created, snapshot.meta["name"], raw
        finally:
            await store.close()

    created, name, raw = asyncio.run(scenario())
    assert created and name == "Ærø ✓ \r\n\0" and raw == "Ærø ✓ \r\n\0".encode()


def test_request_records_of_matches_compacted_before_request_archives_are_still_found(redis_url):
    """An archive written before request archives existed holds the request records itself."""
    from service.store.archive import Archive
    from service.store.match_store import RequestRecord, key

    async def scenario() -> tuple[object, object]:
        store = Store.from_url(redis_url)
        match_id = "oldarchive" + secrets.token_hex(4)
        try:
            await store.create(match_id, {"id": match_id, "status": "finished"}, '{"s":0}', 0,
                               [StoredEvent(1, 0, 1000, "service", {"type": "test"})], 1000)
            old = Archive([(1, 0, 1000, "service", '{"type":"test"}')], {"early": "1 2 2 ab12"})
            await store.redis.set(key(match_id, "archive"), old.encode())
            await store.redis.delete(key(match_id, "events"))
            found = (await store.load(match_id, "early")).request
            missing = (await store.load(match_id, "never")).request
            return found, missing
        finally:
            await store.close()

    found, missing = asyncio.run(scenario())
    assert found == RequestRecord(1, 2, 2, "ab12") and missing is None


def test_the_scripts_lane_survives_broken_connections_error_replies_and_cancelled_commands(redis_url):
    """service.store.lean_redis.Lane sends the scripts' commands on connections it keeps from the pool: a
    connection Redis closed is replaced (the command sent again through redis-py's retries), an
    error reply leaves the connection usable, and a command cancelled before its reply never lets a
    later command read that reply."""
    import redis.asyncio as aioredis
    from redis.exceptions import ResponseError

    from service.store.lean_redis import Lane

    async def scenario() -> None:
        store = Store.from_url(redis_url)
        admin = aioredis.Redis.from_url(redis_url)
        lane = Lane(store.redis)
        try:
            assert await lane.execute_command("ECHO", "one") == b"one"
            (kept,) = lane._connections
            assert await lane.execute_command("ECHO", "two") == b"two"
            assert lane._connections == [kept]  # the same connection, taken back

            with pytest.raises(ResponseError):
                await lane.execute_command("EVALSHA", "0" * 40, 0)  # NOSCRIPT: an error reply
            assert lane._connections == [kept] and await lane.execute_command("ECHO", "three") == b"three"

            await admin.execute_command("CLIENT", "KILL", "ID", await lane.execute_command("CLIENT", "ID"))
            assert await lane.execute_command("ECHO", "after the kill") == b"after the kill"

            slow = asyncio.create_task(lane.execute_command("BLPOP", "typhoon:test:lane-nothing", "0.5"))
            await asyncio.sleep(0.1)
            slow.cancel()
            with pytest.raises(asyncio.CancelledError):
                await slow
            await admin.rpush("typhoon:test:lane-nothing", "late")  # the cancelled BLPOP's reply, if it were read
            answers = [await lane.execute_command("ECHO", f"after cancel {i}") for i in range(3)]
            assert answers == [b"after cancel 0", b"after cancel 1", b"after cancel 2"]
            await admin.delete("typhoon:test:lane-nothing")

            small = Store.from_url(redis_url, max_connections=8)  # an eighth of the pool at most
            try:
                narrow = Lane(small.redis)
                await asyncio.gather(*(narrow.execute_command("ECHO", str(i)) for i in range(6)))
                assert narrow.kept == 1
            finally:
                await small.close()
        finally:
            await admin.aclose()
            await store.close()

    asyncio.run(scenario())


def test_a_call_cancelled_as_its_command_is_sent_stays_cancelled(redis_url):
    """A task cancelled during a Redis call ends cancelled, wherever the cancellation lands: on Python
    3.11, redis-py's send under ``asyncio.wait_for`` dropped one that came as the send completed, and a
    Seek stream whose client had gone polled Redis forever (service.store.cancellation)."""

    async def scenario() -> tuple[int, int]:
        store = Store.from_url(redis_url)
        await store.redis.hset("typhoon:test:cancel", "a", "1")
        cancelled = went_on = 0
        for attempt in range(300):
            async def calls() -> None:
                while True:
                    await store.redis.hget("typhoon:test:cancel", "a")

            task = asyncio.ensure_future(calls())
            await asyncio.sleep(attempt % 7 * 0.0003)
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=30)
            assert done, "a cancelled Redis call went on (the cancellation was swallowed)"
            if task.cancelled():
                cancelled += 1
            else:
                went_on += 1
        await store.close()
        return cancelled, went_on

    assert asyncio.run(scenario()) == (300, 0)
