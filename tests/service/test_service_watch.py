"""WatchMatch: resuming from a cursor after a disconnect, heartbeats, a clean end at shutdown."""

from __future__ import annotations

import asyncio
import threading

import grpc

import engine
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.store.embedded_redis import EmbeddedRedis
from service.store.hub import StreamHub
from service.store.match_store import Store, StoredEvent

from service_helpers import STREAM_TIMEOUT, ServiceProcess, bounded, play_random, wait_for, within


def test_a_watcher_resumes_from_its_cursor_after_a_disconnect(service, client):
    match, tokens = client.create_match(seats=["german", "soviet"])
    play_random(client, match.match_id, tokens, seed="resume", max_actions=5)
    with grpc.insecure_channel(service.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        first: list = []
        call = stub.WatchMatch(api.WatchMatchRequest(match_id=match.match_id), timeout=STREAM_TIMEOUT)
        for response in call:
            if response.WhichOneof("kind") != "event":
                continue  # an update (where the match stands), not a log entry
            first.append(response.event)
            if len(first) == 7:
                call.cancel()  # the watcher goes away in the middle of the log
                break
        cursor = first[-1].sequence
        play_random(client, match.match_id, tokens, seed="resume-more", max_actions=20)
        client.resign(match.match_id, tokens["german"])
        second = [r.event for r in stub.WatchMatch(api.WatchMatchRequest(match_id=match.match_id,
                                                                         after_sequence=cursor),
                                                   timeout=STREAM_TIMEOUT)
                  if r.WhichOneof("kind") == "event"]
    log = list(client.event_log(match.match_id))
    assert first + second == log  # nothing missed, nothing twice
    assert second[0].sequence == cursor + 1


def test_heartbeats_while_nothing_happens_then_live_events(client):
    match, tokens = client.create_match(seats=["german"])
    watch = client.watch(match.match_id, heartbeat_seconds=1, heartbeats=True)
    items = []

    def follow():
        for item in watch:
            items.append(item)
            if hasattr(item, "sequence") and item.WhichOneof("kind") == "action_submitted":
                watch.close()

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    wait_for(lambda: any(not hasattr(i, "sequence") for i in items))
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    thread.join(60)
    watch.close()
    assert not thread.is_alive()
    heartbeat = next(i for i in items if not hasattr(i, "sequence"))
    assert heartbeat.last_sequence == 2  # match_created, seat_claimed
    assert items[-1].action_submitted.action.WhichOneof("kind") == "standard_setup"


def test_watching_a_finished_match_replays_it_and_ends(client):
    match, tokens = client.create_match(seats=["german"])
    client.resign(match.match_id, tokens["german"])
    events = list(bounded(client.watch(match.match_id, resume=False), "the watch of a finished match"))
    assert events[-1].WhichOneof("kind") == "seed_revealed"
    assert list(bounded(client.watch(match.match_id, after_sequence=events[-1].sequence, resume=False),
                        "the watch after a finished match's last event")) == []


def test_shutdown_ends_watch_streams_cleanly(redis_url, client):
    extra = ServiceProcess("--redis-url", redis_url).start()
    try:
        match, _ = client.create_match()
        with grpc.insecure_channel(extra.target) as channel:
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            call = stub.WatchMatch(api.WatchMatchRequest(match_id=match.match_id, heartbeat_seconds=30),
                                   timeout=STREAM_TIMEOUT)
            received = [next(call)]  # the stream is open: match_created
            extra.process.send_signal(15)
            received += list(call)  # ends without an error
            assert call.code() == grpc.StatusCode.OK
        assert extra.process.wait(20) == 0
        assert [e.event.sequence for e in received if e.WhichOneof("kind") == "event"] == [1]
        assert any(line.get("event") == "stopped" for line in extra.logs)
    finally:
        extra.stop()


def test_a_watcher_that_goes_away_is_released(service, client, http):
    match, tokens = client.create_match(seats=["german"])
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())

    def ended():
        return [line for line in service.logs
                if line.get("event") == "watch_ended" and line.get("match_id") == match.match_id]

    with http.stream("GET", f"/v1/matches/{match.match_id}/watch", params={"heartbeat_seconds": 1}) as response:
        next(response.iter_lines())  # connected, then the client hangs up in the middle of the catch-up
    with grpc.insecure_channel(service.target) as channel:
        call = match_service_pb2_grpc.MatchServiceStub(channel).WatchMatch(
            api.WatchMatchRequest(match_id=match.match_id, heartbeat_seconds=1), timeout=STREAM_TIMEOUT)
        next(call)
        call.cancel()
    lines = wait_for(lambda: len(ended()) == 2 and ended())
    assert {line["reason"] for line in lines} == {"client_gone"}
    assert {line.get("transport") for line in lines} == {"http", "grpc"}, lines
    assert not any("socket.send() raised" in str(line) for line in service.logs)


def test_a_watcher_that_subscribes_while_redis_is_down_gets_heartbeats_then_the_events(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis")
    url = redis.start()
    redis.stop()

    async def scenario() -> list[object]:
        store = Store.from_url(url)
        hub = StreamHub(store)
        stream = hub.follow("m1", 0, heartbeat=0.1)

        async def next_item() -> object:
            return await asyncio.wait_for(anext(stream), 30)

        try:
            seen = [await next_item(), await next_item()]  # beats while Redis is down
            await asyncio.to_thread(redis.start)
            first = StoredEvent(1, 0, 0, "service", {"type": "match_created"})
            await store.create("m1", {"status": "open"}, "{}", 0, [first], created_ms=0)
            async def beats_then_the_event() -> object:
                while isinstance(item := await next_item(), int):
                    seen.append(item)
                return item

            return [*seen, await within(beats_then_the_event(), "the event after Redis came back")]
        finally:
            await stream.aclose()
            await hub.close()
            await store.close()

    try:
        seen = asyncio.run(scenario())
    finally:
        redis.stop()
    assert seen[:2] == [0, 0] and set(seen[2:-1]) <= {0}
    assert seen[-1] == StoredEvent(1, 0, 0, "service", {"type": "match_created"})
