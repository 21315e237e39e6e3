"""A service restart in the middle of a match, on its embedded Redis: the match continues where it was."""

from __future__ import annotations

import threading

import grpc
import pytest

import engine
from clients.client import TyphoonClient, TyphoonError
from service.demo import verify
from service.embedded_redis import EmbeddedRedis, free_port
from service_helpers import ServiceProcess, play_random


def test_a_restart_in_the_middle_of_a_match_keeps_it_and_watchers_miss_nothing(tmp_path):
    ports = ["--grpc-port", str(free_port()), "--http-port", str(free_port())]
    arguments = [*ports, "--data-dir", str(tmp_path / "data")]
    embedded = {"REDIS_URL": ""}  # no external Redis: the service runs its own, persisted in the data dir
    first = ServiceProcess(*arguments, env=embedded).start()
    try:
        client = TyphoonClient(first.target)
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="restart-1", max_actions=40)
        watch = client.watch(match.match_id)  # reconnects by itself across the restart
        seen = []
        follower = threading.Thread(target=lambda: seen.extend(watch))
        follower.start()
        before = client.get_match(match.match_id)
        assert first.stop() == 0
    finally:
        first.stop()

    second = ServiceProcess(*arguments, env=embedded).start()
    try:
        after = client.get_match(match.match_id)
        assert after.match == before.match
        assert after.state == before.state
        play_random(client, match.match_id, tokens, seed="restart-2")  # the old seat tokens still act
        follower.join(30)
        assert not follower.is_alive()
        log = list(client.event_log(match.match_id))
        assert seen == log and log[-1].WhichOneof("kind") == "seed_revealed"
        assert "same game" in verify(client, match.match_id)
        client.close()
    finally:
        assert second.stop() == 0


def test_while_redis_is_down_calls_fail_cleanly_and_work_again_after(tmp_path):
    store = EmbeddedRedis(tmp_path / "redis")
    url = store.start()
    service = ServiceProcess("--redis-url", url).start()
    try:
        client = TyphoonClient(service.target, retries=0)
        match, tokens = client.create_match(seats=["german"])
        store.stop()
        with pytest.raises(TyphoonError) as down:
            client.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
        assert (down.value.code, down.value.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
        with service.http() as http:
            reply = http.get(f"/v1/matches/{match.match_id}")
            assert reply.status_code == 503 and reply.json()["error"]["reason"] == "STORE_UNAVAILABLE"
            assert http.get("/healthz").status_code == 503
        store.start()  # the same data directory: the match is still there
        response = client.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
        assert response.version == 1
        client.close()
    finally:
        service.stop()
        store.stop()
