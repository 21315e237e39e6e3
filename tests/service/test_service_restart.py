"""A service restart in the middle of a match, on its embedded Redis: the match continues where it was."""

from __future__ import annotations

import random
import threading

import grpc
import httpx
import pytest

import engine
from clients.client import TyphoonClient, TyphoonError
from clients.demo import verify
from service.store.embedded_redis import EmbeddedRedis, free_port

from service_helpers import STREAM_TIMEOUT, ServiceProcess, play_random, wait_for


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
        follower = threading.Thread(target=lambda: seen.extend(watch), daemon=True)
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
        watch.close()
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
            assert http.get("/healthz").status_code == 200  # liveness: the process is fine
            assert http.get("/readyz").status_code == 503
        store.start()  # the same data directory: the match is still there
        response = client.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
        assert response.version == 1
        client.close()
    finally:
        service.stop()
        store.stop()


def test_shutdown_finishes_calls_in_flight_and_refuses_new_ones_with_unavailable(redis_url):
    """SIGTERM under load: every call either completes and is answered, or is refused with
    UNAVAILABLE (SHUTTING_DOWN, or no connection) having changed nothing, never cancelled halfway."""
    service = ServiceProcess("--redis-url", redis_url, "--grace", "5").start()
    setup = TyphoonClient(service.target)
    matches = [setup.create_match(seats=["german", "soviet"]) for _ in range(6)]
    acknowledged: dict[str, int] = {}
    failures: list[TyphoonError] = []
    rest_endings: list[object] = []
    started = threading.Barrier(len(matches) * 3 + 1, timeout=STREAM_TIMEOUT)

    def player(match_id: str, tokens: dict[str, str], seed: int) -> None:
        client, chooser = TyphoonClient(service.target, retries=0), random.Random(seed)
        started.wait()
        try:
            while True:
                legal = client.legal_actions(match_id)
                reply = client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                                      expected_version=legal.version)
                acknowledged[match_id] = reply.version
        except TyphoonError as error:
            failures.append(error)
        finally:
            client.close()

    def reader(match_id: str) -> None:
        client = TyphoonClient(service.target, retries=0)
        started.wait()
        try:
            while True:
                client.get_match(match_id)
        except TyphoonError as error:
            failures.append(error)
        finally:
            client.close()

    def rest_reader(match_id: str) -> None:
        with service.http() as http:
            started.wait()
            try:
                while (reply := http.get(f"/v1/matches/{match_id}")).status_code == 200:
                    pass
                rest_endings.append((reply.status_code, reply.json()["error"]["reason"]))
            except httpx.TransportError:
                rest_endings.append("no connection")

    threads = [threading.Thread(target=player, args=(match.match_id, tokens, number), daemon=True)
               for number, (match, tokens) in enumerate(matches)]
    threads += [threading.Thread(target=reader, args=(match.match_id,), daemon=True) for match, _ in matches]
    threads += [threading.Thread(target=rest_reader, args=(match.match_id,), daemon=True) for match, _ in matches]
    for thread in threads:
        thread.start()
    started.wait()
    wait_for(lambda: len(acknowledged) == len(matches) and min(acknowledged.values()) >= 5, timeout=30)
    assert service.stop() == 0
    for thread in threads:
        thread.join(30)

    assert len(failures) + len(rest_endings) == len(threads)
    assert set(rest_endings) <= {(503, "SHUTTING_DOWN"), "no connection"}
    assert {error.code for error in failures} == {grpc.StatusCode.UNAVAILABLE}
    assert {error.reason for error in failures} <= {"SHUTTING_DOWN", "UNAVAILABLE"}
    assert any(error.reason == "SHUTTING_DOWN" for error in failures)
    assert not [line for line in service.logs if line.get("level") in ("warning", "error")]
    restarted = ServiceProcess("--redis-url", redis_url).start()
    try:
        with restarted.client() as after:
            for match, _ in matches:  # every answered action is there, and nothing that was refused
                assert after.get_match(match.match_id).match.version == acknowledged[match.match_id]
    finally:
        setup.close()
        assert restarted.stop() == 0
