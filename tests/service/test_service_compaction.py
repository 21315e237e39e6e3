"""Request records without copies of the answers, and finished matches compacted into one value
(service/store/match_store.py, service/store/archive.py, service/match/answers.py): every read answers exactly as before,
over gRPC and REST, on a real Redis."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc
import pytest
import redis

import engine
from clients.client import TyphoonError, as_time_control
from clients.demo import verify
from service.api.http_api import to_json
from service.store.archive import Archive
from service.store.match_store import Store, key
from service.upkeep.compaction import LOCK_KEY, CompactionSweep

from service_helpers import bounded, wait_for

MAX_FINISHED_MATCH_BYTES = 64 * 1024


def _play_to_the_end(client, match_id: str, tokens: dict[str, str], seed: str, retry_every: int = 0):
    """Play random actions, each with its own request id, until the game ends; every ``retry_every``
    actions repeat an earlier request id and check the answer is the first one. Returns the
    (request id, token, action, expected version, answer) of every action."""
    chooser = random.Random(seed)
    played = []
    while True:
        legal = client.legal_actions(match_id)
        if not legal.side_to_act:
            return played
        request_id = uuid.uuid4().hex
        action = chooser.choice(legal.actions)
        token = tokens[legal.side_to_act]
        answer = client.submit(match_id, token, action, expected_version=legal.version, request_id=request_id)
        played.append((request_id, token, action, legal.version, answer))
        if retry_every and len(played) % retry_every == 0:
            earlier = played[chooser.randrange(len(played))]
            again = client.submit(match_id, earlier[1], earlier[2], expected_version=earlier[3], request_id=earlier[0])
            assert again == earlier[4]


def _keys_of(store: redis.Redis, match_id: str) -> list[str]:
    return [k.decode() for k in store.scan_iter(match=key(match_id, "*"), count=1000)]


def test_a_finished_match_is_compacted_and_answers_exactly_as_before(client, service, redis_url):
    store = redis.Redis.from_url(redis_url)
    match, tokens = client.create_match(seats=[("german", "Guderian"), ("soviet", "Zhukov")])
    match_id = match.match_id
    opening = list(client.event_log(match_id))
    played = _play_to_the_end(client, match_id, tokens, seed="compaction", retry_every=37)
    final = client.get_match(match_id)
    assert final.match == played[-1][4].match

    wait_for(lambda: store.exists(key(match_id, "archive")), 30)
    assert sorted(_keys_of(store, match_id)) == sorted(key(match_id, part)
                                                       for part in ("meta", "state", "archive", "request-archive"))
    assert 0 < store.ttl(key(match_id, "request-archive")) <= 24 * 3600  # request records expire, as live ones do
    used = sum(store.memory_usage(name) for name in _keys_of(store, match_id))
    assert used <= MAX_FINISHED_MATCH_BYTES, f"{used} bytes of Redis for a finished match of {len(played)} actions"

    # the log, whole and in pages, and the match
    log = opening + [event for *_, answer in played for event in answer.events]
    assert [e.sequence for e in log] == list(range(1, len(log) + 1))
    assert list(client.event_log(match_id)) == log
    assert list(client.event_log(match_id, after_sequence=5, page_size=7)) == log[5:]
    assert client.get_match(match_id) == final
    assert "same game" in verify(client, match_id)

    # watching from any cursor
    for cursor in (0, 1, len(log) // 2, len(log) - 1, len(log)):
        assert list(bounded(client.watch(match_id, after_sequence=cursor, resume=False), "a compacted log's watch")) == log[cursor:]

    # retried request ids: the first answers; a reused id with another request: refused
    chooser = random.Random("retries")
    for request_id, token, action, expected, answer in played[:3] + chooser.sample(played, 10) + played[-3:]:
        assert client.submit(match_id, token, action, expected_version=expected, request_id=request_id) == answer
    request_id, token, action, expected, _ = played[10]
    with pytest.raises(TyphoonError) as reused:
        client.submit(match_id, token, action, expected_version=expected + 1, request_id=request_id)
    assert (reused.value.code, reused.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")

    # the same over REST
    with service.http() as http:
        page = http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": 3, "page_size": 50}).json()
        assert page["events"] == [to_json(e) for e in log[3:53]]
        assert http.get(f"/v1/matches/{match_id}").json() == to_json(final)
        request_id, token, action, expected, answer = played[len(played) // 2]
        again = http.post(f"/v1/matches/{match_id}/actions", headers={"authorization": f"Bearer {token}"},
                          json={"action": to_json(action), "expected_version": expected, "request_id": request_id})
        assert again.status_code == 200 and again.json() == to_json(answer)
        cursor = len(log) - 4
        with http.stream("GET", f"/v1/matches/{match_id}/watch", headers={"Last-Event-ID": str(cursor)}) as stream:
            ids = [int(line[4:]) for line in bounded(stream.iter_lines(), "the events after Last-Event-ID", stop=stream.close)
                   if line.startswith("id: ")]
        assert ids == [e.sequence for e in log[cursor:]]


def test_an_earlier_request_id_of_a_match_with_clocks_gets_its_first_answer(client):
    match, tokens = client.create_match(seats=["german", "soviet"], time_control="rapid")
    chooser = random.Random("clocks")
    played = []
    for _ in range(12):
        legal = client.legal_actions(match.match_id)
        request_id = uuid.uuid4().hex
        action = chooser.choice(legal.actions)
        token = tokens[legal.side_to_act]
        answer = client.submit(match.match_id, token, action, expected_version=legal.version, request_id=request_id)
        assert answer.match.HasField("clock")
        played.append((request_id, token, action, legal.version, answer))
    for request_id, token, action, expected, answer in played:
        assert client.submit(match.match_id, token, action, expected_version=expected, request_id=request_id) == answer


def test_a_seat_claimed_after_an_action_is_not_in_that_action_s_answer(client):
    match, tokens = client.create_match(seats=["german"])
    answer = client.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0,
                           request_id="before-the-soviet-seat")
    client.join_match(match.match_id, side="soviet", player_name="late")
    now = client.get_match(match.match_id).match
    assert now.status != answer.match.status and now.seats != answer.match.seats
    again = client.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0,
                          request_id="before-the-soviet-seat")
    assert again == answer


def test_an_aborted_match_is_compacted_too(client, redis_url):
    store = redis.Redis.from_url(redis_url)
    clock = as_time_control("60+0")
    clock.first_action.FromMilliseconds(1000)  # the soviet seat stays empty: aborted after a second
    match, _ = client.create_match(seats=["german"], time_control=clock)
    log = wait_for(lambda: [e for e in client.event_log(match.match_id)
                            if e.WhichOneof("kind") == "seed_revealed"] and list(client.event_log(match.match_id)), 15)
    wait_for(lambda: store.exists(key(match.match_id, "archive")), 30)
    assert sorted(_keys_of(store, match.match_id)) == sorted(key(match.match_id, part)
                                                             for part in ("meta", "state", "archive"))
    assert [e.WhichOneof("kind") for e in log][-2:] == ["match_aborted", "seed_revealed"]
    assert list(client.event_log(match.match_id)) == log
    assert list(bounded(client.watch(match.match_id, after_sequence=1, resume=False), "a compacted log's watch")) == log[1:]


def _uncompact(store: redis.Redis, match_id: str) -> list:
    """Put a compacted match back as a process that stopped before compacting it leaves it: its event
    stream and no archive."""
    archive = Archive.decode(store.get(key(match_id, "archive")))
    rows = archive.after(0, archive.last_sequence)
    for seq, version, time_ms, source, event in rows:
        store.xadd(key(match_id, "events"), {"seq": seq, "version": version, "time": time_ms, "source": source,
                                             "event": event}, id=f"{seq}-0")
    store.delete(key(match_id, "archive"))
    return rows


def test_the_sweep_compacts_a_match_that_ended_without_being_compacted(client, redis_url):
    store = redis.Redis.from_url(redis_url)
    ended, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(ended.match_id, tokens["german"], engine.StandardSetup())
    client.resign(ended.match_id, tokens["soviet"])
    live, live_tokens = client.create_match(seats=["german", "soviet"])
    client.submit(live.match_id, live_tokens["german"], engine.StandardSetup())
    wait_for(lambda: store.exists(key(ended.match_id, "archive")), 30)
    log = list(client.event_log(ended.match_id))
    rows = _uncompact(store, ended.match_id)
    assert len(rows) == len(log) and store.xlen(key(ended.match_id, "events")) == len(log)
    assert list(client.event_log(ended.match_id)) == log  # readable uncompacted

    async def sweep() -> int:
        service_store = Store.from_url(redis_url)
        try:
            sweeper = CompactionSweep(service_store)
            for _ in range(50):  # the service's own sweep may hold the lock for a moment
                if await sweeper.sweep() or store.exists(key(ended.match_id, "archive")):
                    break
                await asyncio.sleep(0.1)
            return sweeper.compacted
        finally:
            await service_store.close()

    assert asyncio.run(sweep()) >= 1 or store.exists(key(ended.match_id, "archive"))
    assert store.exists(key(ended.match_id, "archive")) and not store.exists(key(ended.match_id, "events"))
    assert store.exists(key(live.match_id, "events")) and not store.exists(key(live.match_id, "archive"))
    assert Archive.decode(store.get(key(ended.match_id, "archive"))).after(0, len(rows)) == rows
    assert list(client.event_log(ended.match_id)) == log
    assert list(bounded(client.watch(ended.match_id, after_sequence=2, resume=False), "a compacted log's watch")) == log[2:]
    assert not store.exists(LOCK_KEY)  # released


def test_one_process_sweeps_at_a_time(redis_url):
    store = redis.Redis.from_url(redis_url)
    store.set(LOCK_KEY, "another process", px=5000)

    async def sweep() -> int:
        service_store = Store.from_url(redis_url)
        try:
            return await CompactionSweep(service_store).sweep()
        finally:
            await service_store.close()

    try:
        assert asyncio.run(sweep()) == 0
        assert store.get(LOCK_KEY) == b"another process"  # not taken, not released
    finally:
        store.delete(LOCK_KEY)
