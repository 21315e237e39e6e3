"""Redis outages ridden out: a service started while Redis is down, Redis restarted or frozen under it.

Readiness (gRPC health, ``/readyz``) follows Redis; liveness (``/healthz``) stays up; the first call
after Redis is back works (broken pooled connections are retried, not failed); watch streams go on
across the outage with every event once, in order.
"""

from __future__ import annotations

import os
import signal
import threading

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.client import TyphoonClient
from service.store.embedded_redis import EmbeddedRedis

from service_helpers import ServiceProcess, play_random, wait_for


def health_status(target: str) -> str:
    with grpc.insecure_channel(target) as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="typhoon.v1.MatchService"), timeout=20)
    return health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)


def test_a_service_started_while_redis_is_down_waits_not_serving_then_serves(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis")
    url = redis.start()
    redis.stop()  # the URL now leads nowhere
    service = ServiceProcess("--redis-url", url).start()
    try:
        assert service.process.poll() is None
        serving = next(line for line in service.logs if line.get("event") == "serving")
        assert serving["ready"] is False
        assert health_status(service.target) == "NOT_SERVING"
        with service.http() as http:
            assert http.get("/healthz").status_code == 200
            reply = http.get("/readyz")
            assert reply.status_code == 503 and "Redis does not answer" in reply.json()["reasons"][0]
            redis.start()
            wait_for(lambda: health_status(service.target) == "SERVING", timeout=30)
            assert http.get("/readyz").json() == {"status": "SERVING", "reasons": []}
        with TyphoonClient(service.target, retries=0) as client:
            match, _ = client.create_match(seats=["german"])
            assert client.get_match(match.match_id).match.version == 0
        assert not [line for line in service.logs if "Traceback" in str(line) or line.get("level") == "error"]
    finally:
        service.stop()
        redis.stop()


def test_calls_and_watchers_ride_out_a_redis_restart_and_a_frozen_redis(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis")
    url = redis.start()
    service = ServiceProcess("--redis-url", url).start()
    client = TyphoonClient(service.target, retries=0)
    watching = TyphoonClient(service.target)  # the watch resumes by itself after a cut stream
    try:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="outage-1", max_actions=10)
        seen = []
        watch = watching.watch(match.match_id)
        follower = threading.Thread(target=lambda: seen.extend(watch), daemon=True)
        follower.start()

        redis.stop()
        wait_for(lambda: health_status(service.target) == "NOT_SERVING", timeout=30)
        redis.start()  # the same data: nothing is lost (a clean stop flushes the append-only file)
        # at once, with no retry of the client's: the service's broken connections are replaced within the call
        play_random(client, match.match_id, tokens, seed="outage-2", max_actions=10)
        wait_for(lambda: health_status(service.target) == "SERVING", timeout=30)

        os.kill(redis.process.pid, signal.SIGSTOP)  # frozen: connections stay open, nothing answers
        try:
            wait_for(lambda: health_status(service.target) == "NOT_SERVING", timeout=30)
        finally:
            os.kill(redis.process.pid, signal.SIGCONT)
        wait_for(lambda: health_status(service.target) == "SERVING", timeout=30)
        play_random(client, match.match_id, tokens, seed="outage-3", max_actions=10)
        client.resign(match.match_id, tokens["german"])
        follower.join(60)
        watch.close()
        assert not follower.is_alive()
        log = list(client.event_log(match.match_id))
        assert seen == log and log[-1].WhichOneof("kind") == "seed_revealed"  # each event once, in order
        assert client.get_match(match.match_id).match.version == 31
        assert service.process.poll() is None
        assert not [line for line in service.logs if line.get("level") == "error"]
    finally:
        client.close()
        watching.close()
        service.stop()
        redis.stop()

