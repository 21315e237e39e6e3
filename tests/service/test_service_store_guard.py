"""The storage guard (service/guard/store_capacity.py) at a small Redis: at ``--redis-maxmemory 32mb`` a flood of
writes that add to the store (matches created, seats claimed, owners and players registered, Seek) is
refused with STORE_FULL before Redis refuses any write (its own error count stays at nought), the
refused writes change nothing, and a live match goes on. A real service with its embedded Redis."""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections import Counter
from pathlib import Path

import grpc
import pytest
import redis

from clients.client import TyphoonClient
from clients.ladder import LadderClient
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.ladder.core import PREFIX, Ladder
from service.match.core import CallContext
from service.store.match_store import INDEX_KEY, Store

from service_helpers import ServiceProcess, wait_for, within
from test_service_guard import _refused as _refusal

THREADS = 8
BALLAST = "test:ballast:"


def _oom_errors(admin: redis.Redis) -> int:
    """How many commands Redis refused for want of memory (INFO errorstats' OOM)."""
    return int(admin.info("errorstats").get("errorstat_OOM", {}).get("count", 0))


def _share(admin: redis.Redis) -> float:
    memory = admin.info("memory")
    return (memory["used_memory"] - memory.get("mem_not_counted_for_evict", 0)) / memory["maxmemory"]


@pytest.mark.timeout(900)
def test_a_flood_of_new_matches_stops_at_the_mark_before_redis_refuses_a_write(tmp_path: Path):
    service = ServiceProcess("--data-dir", str(tmp_path / "data"), "--redis-maxmemory", "32mb").start()
    admin = redis.Redis(unix_socket_path=str(tmp_path / "data" / "redis.sock"))
    try:
        assert int(admin.config_get("maxmemory")["maxmemory"]) == 32 * 2**20
        with service.client() as client, LadderClient(service.target, rate_limit_patience=0) as ladder:
            live, tokens = client.create_match(seats=["german", "soviet"])
            open_match, _ = client.create_match()
            player_key = ladder.register_with_owner("seeker").api_key
            # ballast up to ~75 % (the test's own keys), so that the flood meets the mark soon
            block = 0
            while _share(admin) < 0.75:
                admin.set(f"{BALLAST}{block}", secrets.token_bytes(256 * 1024))
                block += 1
            outcomes: Counter[str] = Counter()
            stop = threading.Event()

            def flood() -> None:
                with TyphoonClient(service.target, timeout=30, rate_limit_patience=0, retries=0) as own:
                    refused_in_a_row = 0
                    while refused_in_a_row < 20 and not stop.is_set():
                        error = _refusal(lambda: own.create_match(seats=["german"]))
                        outcomes[error.reason if error else "created"] += 1
                        refused_in_a_row = refused_in_a_row + 1 if error else 0

            threads = [threading.Thread(target=flood) for _ in range(THREADS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(600)
            stop.set()
            assert outcomes["created"] > 0 and outcomes["STORE_FULL"] >= THREADS * 20, outcomes
            assert set(outcomes) == {"created", "STORE_FULL"}, outcomes
            assert _oom_errors(admin) == 0  # Redis never refused a write
            assert _share(admin) < 1.0

            # clearly past the mark (the flood stops at it, and the next look may find a little room):
            # every write that adds to the store is refused, with when to retry, and changes nothing
            while _share(admin) < 0.93:
                admin.set(f"{BALLAST}{block}", secrets.token_bytes(64 * 1024))
                block += 1
            matches = admin.zcard(INDEX_KEY)
            wait_for(lambda: _refusal(client.create_match), timeout=30)
            error = _refusal(client.create_match)
            assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL")
            assert int(error.metadata["retry_after_seconds"]) >= 1 and "live matches go on" in error.message
            assert _refusal(lambda: client.join_match(open_match.match_id)).reason == "STORE_FULL"
            assert not client.get_match(open_match.match_id).match.seats[1].claimed
            assert _refusal(lambda: ladder.register_owner("too-late")).reason == "STORE_FULL"
            assert _refusal(lambda: next(iter(ladder.seek(player_key)))).reason == "STORE_FULL"
            with service.http() as http:
                reply = http.post("/v1/matches", json={})
                assert reply.status_code == 429 and reply.json()["error"]["reason"] == "STORE_FULL"
                assert int(reply.headers["Retry-After"]) >= 1
            assert admin.zcard(INDEX_KEY) == matches

            # the live match goes on in the memory above the mark
            for _ in range(20):
                legal = client.legal_actions(live.match_id)
                client.submit(live.match_id, tokens[legal.side_to_act], legal.actions[0], expected_version=legal.version)
            assert client.get_match(live.match_id).match.version == 20
            assert _oom_errors(admin) == 0

            # room again: new matches are welcome
            for key in admin.scan_iter(f"{BALLAST}*"):
                admin.delete(key)
            wait_for(lambda: _refusal(client.create_match) is None, timeout=60, interval=0.2)
    finally:
        admin.close()
        service.stop()


def test_the_ladder_pairs_no_one_while_the_store_has_no_room(tmp_path: Path):
    """Players already seeking when the store fills are not paired into new matches until it has room
    (the pairing asks the guard's capacity, as CreateMatch does)."""
    from test_service_ladder import matches_paired, register_each, run_with_a_ladder

    async def scenario(store: Store, ladder: Ladder) -> None:
        room = {"now": False}

        async def has_room() -> bool:
            return room["now"]

        ladder.room = has_room
        players = await register_each(ladder, "full-a", "full-b")
        seeks = [await ladder.seek(lapi.SeekRequest(heartbeat_seconds=1), CallContext(token=key))
                 for key in players.values()]

        async def told_the_store_is_full(seek) -> lapi.SeekHeartbeat:
            while True:
                item = await anext(seek)
                assert item.WhichOneof("kind") == "heartbeat", item
                if item.heartbeat.waiting == lapi.SEEK_WAIT_REASON_STORE_FULL:
                    return item.heartbeat

        matches = await store.redis.zcard(INDEX_KEY)
        # each is told why on its heartbeats
        told = asyncio.ensure_future(asyncio.gather(*(told_the_store_is_full(seek) for seek in seeks)))
        for _ in range(5):  # seeking, both of them, through a few heartbeats: no room, no match
            await asyncio.sleep(0.3)
            assert await store.redis.zcard(f"{PREFIX}seeking") == 2
            assert await ladder.pair_round() == 0
        for _ in range(400):  # pairing rounds, for at most ~2 minutes
            if told.done():
                break
            assert await ladder.pair_round() == 0
            await asyncio.wait([told], timeout=0.3)
        beats = await within(told, "heartbeats saying the store is full")
        assert all("store is full" in beat.waiting_message for beat in beats)
        assert await store.redis.zcard(INDEX_KEY) == matches
        room["now"] = True
        assert len({match.match_id for match in await matches_paired(ladder, seeks)}) == 1
        for seek in seeks:
            await seek.aclose()

    run_with_a_ladder(tmp_path, scenario)
