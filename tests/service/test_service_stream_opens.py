"""A storm of stream opens is let in gradually (service/guard/stream_opens.py): past the ``stream_opens``
rate of a process, a watch or seek stream is refused RATE_LIMITED on both transports, each refusal
told its own turn to come back, and a client that waits as told gets in. The service runs with a small
rate so that the test opens few streams; nothing here asserts how fast anything happened."""

from __future__ import annotations

import asyncio

import grpc
import httpx
import pytest

from clients.client import TyphoonClient, TyphoonError
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.guard.limit_settings import LimitSettings
from service.guard.stream_opens import StreamOpens

from service_helpers import ServiceProcess


@pytest.fixture(scope="module")
def storm_guarded(redis_url):
    process = ServiceProcess("--redis-url", redis_url, "--no-rate-limits", "--limit", "stream_opens=2 per 10 seconds",
                             rate_limits=True).start()
    yield process
    process.stop()


def test_refused_stream_opens_are_each_given_a_later_turn():
    async def scenario() -> list[int | None]:
        opens = StreamOpens(LimitSettings.off().with_rates({"stream_opens": "2/second"}))
        waits: list[int | None] = []
        for _ in range(7):
            try:
                await opens.reserve()
                await opens.admit()
                waits.append(None)
            except Exception as refused:  # noqa: BLE001 - the refusal is what is looked at
                waits.append(int(refused.metadata["retry_after_seconds"]))
        return waits

    waits = asyncio.run(scenario())
    assert waits[:2] == [None, None]  # the rate lets two in
    assert all(wait >= 1 for wait in waits[2:]) and waits[2:] == sorted(waits[2:]) and waits[-1] > waits[2]


def test_a_storm_of_watch_opens_is_refused_past_the_rate_on_both_transports_then_let_in(storm_guarded):
    with storm_guarded.client() as client:
        match_id = client.create_match()[0].match_id
    refused = []
    with grpc.insecure_channel(storm_guarded.target) as channel, \
            httpx.Client(base_url=storm_guarded.base_url, timeout=20) as http:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        held = []
        for _ in range(6):
            call = stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, heartbeat_seconds=60), timeout=120)
            try:
                next(call)
                held.append(call)
            except grpc.RpcError as error:
                refused.append(TyphoonError.from_rpc_error(error))
        reply = http.get(f"/v1/matches/{match_id}/watch")
        assert reply.status_code == 429 and reply.json()["error"]["metadata"]["limit"] == "stream_opens"
        assert int(reply.headers["Retry-After"]) >= 1
        for call in held:
            call.cancel()
    assert len(held) <= 2 and len(refused) >= 4
    for error in refused:
        assert (error.code, error.reason, error.metadata["limit"]) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", "stream_opens")
    turns = [int(error.metadata["retry_after_seconds"]) for error in refused]
    assert turns == sorted(turns) and turns[-1] > turns[0]  # each a later turn
    # a client that waits as told gets its stream (the SDK's watch does it by itself)
    with TyphoonClient(storm_guarded.target, timeout=20, rate_limit_patience=300) as patient:
        watch = patient.watch(match_id)
        assert next(iter(watch)).sequence == 1
        watch.close()
