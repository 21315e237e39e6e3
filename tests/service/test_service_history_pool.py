"""Admission by cost (service/guard/call_guard.py's table) and the history pool (service/guard/history_pool.py):
every RPC and route has a cost class; the calls that re-simulate a match's log (VerifyMatch, GetMatch at
a version) run in the pool's processes, give the answers the event loop gave, are cached where they
cannot change, and are refused (429 / RESOURCE_EXHAUSTED with Retry-After) past a client's cap, the
pool's queue or the client's budget, while play goes on.

The pool is held busy by stopping its process (SIGSTOP) rather than by timing: a test waits on
conditions, never on a clock. Real service processes, real Redis, both transports."""

from __future__ import annotations

import asyncio
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import httpx
import psutil
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from service.api.http_api import create_app
from service.api.routes import ROUTES, SERVICES
from service.gen.typhoon.v1 import ladder_service_pb2, match_service_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.guard.call_guard import OTHER_ROUTES, RPC_TABLE, Cost
from service.guard.history_pool import BLOCK, block_of
from service.guard.limit_settings import LIMITS
from service.ladder.core import Ladder
from service.match.core import CallContext, MatchService
from service.processes import ROOT
from service.store.match_store import Store

from service_helpers import ServiceProcess, play_random, wait_for

PROTOS = ROOT / "proto" / "typhoon" / "v1"


# --- the table ---------------------------------------------------------------------------------------

def _proto_methods() -> set[str]:
    """Every ``rpc`` of every service in proto/typhoon/v1, read from the .proto text."""
    return {name for path in PROTOS.glob("*.proto") for name in re.findall(r"^\s*rpc\s+(\w+)\s*\(", path.read_text(), re.M)}


def test_every_rpc_of_the_protos_has_a_cost_class_and_an_admission():
    generated = {method.name for module in (match_service_pb2, ladder_service_pb2)
                 for service in module.DESCRIPTOR.services_by_name.values() for method in service.methods}
    assert _proto_methods() == generated  # the generated descriptors are the protos'
    served = {method.name for descriptor, _ in SERVICES.values() for method in descriptor.methods}
    assert generated == served
    missing = sorted(generated - set(RPC_TABLE))
    assert not missing, f"RPCs without a row in service.guard.call_guard.RPC_TABLE: {missing}"
    assert not set(RPC_TABLE) - generated, "rows of RPCs no service has"
    for rpc, row in RPC_TABLE.items():
        assert isinstance(row.cost, Cost)
        assert row.limit is None or row.limit in {limit.name for limit in LIMITS}, rpc
        if row.cost in (Cost.HISTORY, Cost.STREAM, Cost.PLAY) and row.limit is None:
            assert row.cost != Cost.HISTORY or row.elsewhere, f"{rpc}: a costly call with no admission"
        if row.history_if:  # the field exists on the request
            request = getattr(api, SERVICES[_service_of(rpc)][0].methods_by_name[rpc].input_type.name)
            assert row.history_if in request.DESCRIPTOR.fields_by_name, rpc
    # streams are admitted when they open (the transports), a row each
    streams = {method.name for descriptor, _ in SERVICES.values() for method in descriptor.methods
               if method.server_streaming}
    assert streams and all(RPC_TABLE[name].cost == Cost.STREAM for name in streams)


def _service_of(rpc: str) -> str:
    return next(name for name, (descriptor, _) in SERVICES.items() if rpc in descriptor.methods_by_name)


def test_every_http_route_is_an_rpc_of_the_table_or_a_fixed_one():
    core = MatchService(Store.from_url("redis://127.0.0.1:1"))  # never asked: the app is only built
    app = create_app(core, ladder=Ladder(core))
    rpc_paths = {route.path for route in ROUTES}
    for route in app.router.routes:
        path = getattr(route, "path", "")
        if path in rpc_paths:
            assert next(r.rpc for r in ROUTES if r.path == path) in RPC_TABLE
        else:
            assert any(path == other or path.startswith(other + "/") for other in OTHER_ROUTES), path
    assert {route.rpc for route in ROUTES} <= set(RPC_TABLE)


def test_the_api_document_gives_every_rpc_its_cost_class():
    text = (ROOT / "docs" / "API.md").read_text()
    for rpc, row in RPC_TABLE.items():
        assert re.search(rf"^\| {rpc} \| {row.cost.value}[ ;|]", text, re.M), f"docs/API.md: no row for {rpc}"


def test_a_block_of_versions_stays_within_the_match():
    assert block_of(0, 0) == (0, 0)
    assert block_of(BLOCK, 10 * BLOCK) == (BLOCK, 2 * BLOCK - 1)
    assert block_of(2 * BLOCK + 3, 2 * BLOCK + 5) == (2 * BLOCK, 2 * BLOCK + 5)


# --- the pool's answers are the event loop's ---------------------------------------------------------

@pytest.fixture(scope="module")
def pooled(redis_url) -> Iterator[ServiceProcess]:
    """A service whose history pool is small: one process, one computation waiting, one per client."""
    process = ServiceProcess("--redis-url", redis_url, "--history-queue", "1", "--history-calls-per-client", "1",
                             "--trusted-proxy", "127.0.0.0/8").start()
    yield process
    process.stop()


def _store_answers(redis_url: str, match_id: str, versions: list[int]) -> tuple[list[api.GetMatchResponse],
                                                                                 api.VerifyMatchResponse]:
    """The answers of a core without a pool (the event loop's way), on the same Redis."""
    async def answers():
        store = Store.from_url(redis_url)
        core = MatchService(store)
        try:
            states = [await core.get_match(api.GetMatchRequest(match_id=match_id, version=v), CallContext())
                      for v in versions]
            return states, await core.verify_match(api.VerifyMatchRequest(match_id=match_id), CallContext())
        finally:
            await store.close()
    return asyncio.run(answers())


def _grpc_states(service: ServiceProcess, match_id: str, versions: list[int], address: str):
    with grpc.insecure_channel(service.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        metadata = [("x-forwarded-for", address)]
        states = [stub.GetMatch(api.GetMatchRequest(match_id=match_id, version=v), metadata=metadata) for v in versions]
        return states, stub.VerifyMatch(api.VerifyMatchRequest(match_id=match_id), metadata=metadata)


def test_the_pool_answers_as_the_event_loop_did_for_live_and_finished_matches(redis_url, pooled):
    with pooled.client() as client:
        live, live_tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, live.match_id, live_tokens, seed="live", max_actions=45)
        over, over_tokens = client.create_match(seats=["german", "soviet"])
        played = play_random(client, over.match_id, over_tokens, seed="over")
    for match_id, versions in ((live.match_id, [0, 1, 15, 16, 17, 31, 44]),
                               (over.match_id, [0, 3, BLOCK, played // 2, played - 1])):
        expected_states, expected_audit = _store_answers(redis_url, match_id, versions)
        for _ in range(2):  # computed, then cached
            states, audit = _grpc_states(pooled, match_id, versions, "198.19.1.1")
            assert states == expected_states
            assert audit == expected_audit


def test_a_repeated_request_id_gets_its_first_answer_from_the_pool_and_then_from_its_cache(redis_url, pooled):
    with pooled.client() as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="retried", max_actions=20)
        legal = client.legal_actions(match.match_id)
        action, token = legal.actions[0], tokens[legal.side_to_act]
        first = client.submit(match.match_id, token, action, expected_version=legal.version, request_id="retry-" + "a" * 26)
        play_random(client, match.match_id, tokens, seed="retried-more", max_actions=30)
        resigned = client.resign(match.match_id, tokens["german"], request_id="resign-" + "b" * 25)
        for _ in range(2):  # computed in the pool, then cached
            assert client.submit(match.match_id, token, action, expected_version=legal.version,
                                 request_id="retry-" + "a" * 26) == first
            assert client.resign(match.match_id, tokens["german"], request_id="resign-" + "b" * 25) == resigned
        with _stopped(pooled):  # cached: answered while the pool is stopped
            assert client.submit(match.match_id, token, action, expected_version=legal.version,
                                 request_id="retry-" + "a" * 26) == first


def test_bad_versions_and_unknown_matches_are_refused_as_before(pooled):
    with pooled.client() as client, pooled.http() as http:
        match, _ = client.create_match()
        reply = http.get(f"/v1/matches/{match.match_id}", params={"version": 5})
        assert reply.status_code == 400 and reply.json()["error"]["reason"] == "BAD_VERSION"
        reply = http.get("/v1/matches/nosuchmatch0000/verification")
        assert reply.status_code == 404 and reply.json()["error"]["reason"] == "MATCH_NOT_FOUND"


# --- refusals while the pool is busy ----------------------------------------------------------------

def _pool_processes(service: ServiceProcess) -> list[psutil.Process]:
    root = psutil.Process(service.process.pid)
    return [p for p in root.children(recursive=True) if "spawn_main" in " ".join(p.cmdline())]


@contextmanager
def _stopped(service: ServiceProcess) -> Iterator[None]:
    """The service's history pool stopped (SIGSTOP) meanwhile: whatever it is given waits."""
    processes = wait_for(lambda: _pool_processes(service), timeout=120)
    for process in processes:
        process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        for process in processes:
            process.send_signal(signal.SIGCONT)


def _in_background(call) -> threading.Thread:
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread


def _pending(service: ServiceProcess) -> float:
    with service.admin() as admin:
        found = re.search(r"^typhoon_history_pending (\S+)$", admin.get("/metrics").text, re.M)
    return float(found.group(1)) if found else 0.0


def test_a_full_pool_refuses_with_retry_after_while_play_goes_on(pooled):
    with pooled.client() as client, pooled.http() as http:
        over, over_tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, over.match_id, over_tokens, seed="cached")
        assert http.get(f"/v1/matches/{over.match_id}/verification").json()["verified"]  # starts the pool, cached
        live, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, live.match_id, tokens, seed="busy", max_actions=3 * BLOCK + 2)
        version = client.get_match(live.match_id).match.version
        answers: dict[str, int] = {}

        def ask(name: str, address: str, at: int) -> None:
            with httpx.Client(base_url=pooled.base_url, timeout=120, headers={"X-Forwarded-For": address}) as own:
                answers[name] = own.get(f"/v1/matches/{live.match_id}", params={"version": at}).status_code

        with _stopped(pooled):
            first = _in_background(lambda: ask("first", "198.19.2.1", 0))
            wait_for(lambda: _pending(pooled) >= 1)
            # the same client again: over its cap of one
            own = httpx.Client(base_url=pooled.base_url, timeout=20, headers={"X-Forwarded-For": "198.19.2.1"})
            reply = own.get(f"/v1/matches/{live.match_id}", params={"version": BLOCK})
            error = reply.json()["error"]
            assert (reply.status_code, error["reason"]) == (429, "TOO_MANY_HISTORY_CALLS")
            assert int(reply.headers["Retry-After"]) == error["retry_after_seconds"] >= 1
            second = _in_background(lambda: ask("second", "198.19.12.2", BLOCK))  # waits in the queue
            wait_for(lambda: _pending(pooled) >= 2)
            # a third client: the pool (one running, one waiting) is full, on both transports
            reply = httpx.get(f"{pooled.base_url}/v1/matches/{live.match_id}/verification",
                              headers={"X-Forwarded-For": "198.19.22.3"}, timeout=20)
            assert (reply.status_code, reply.json()["error"]["reason"]) == (429, "HISTORY_BUSY")
            assert "live play goes on" in reply.json()["error"]["message"] and "Retry-After" in reply.headers
            with grpc.insecure_channel(pooled.target) as channel:
                stub = match_service_pb2_grpc.MatchServiceStub(channel)
                with pytest.raises(grpc.RpcError) as caught:
                    stub.GetMatch(api.GetMatchRequest(match_id=live.match_id, version=2 * BLOCK),
                                  metadata=[("x-forwarded-for", "198.19.32.4")])
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                details = rpc_status.from_call(caught.value).details
                info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
                assert details[0].Unpack(info) and info.reason == "HISTORY_BUSY" and details[1].Unpack(retry)
                assert retry.retry_delay.seconds >= 1
            # what is cached is answered, and play goes on
            assert http.get(f"/v1/matches/{over.match_id}/verification").json()["verified"]
            legal = client.legal_actions(live.match_id)
            assert client.submit(live.match_id, tokens[legal.side_to_act], legal.actions[0],
                                 expected_version=legal.version).version == version + 1
            # readiness says so
            ready = wait_for(lambda: (lambda r: r if r.status_code == 503 else None)(http.get("/readyz")), timeout=60)
            assert any("history pool is full" in reason for reason in ready.json()["reasons"])
            own.close()
        first.join(120)
        second.join(120)
        assert answers == {"first": 200, "second": 200}
        # the refusals changed nothing; readiness comes back once the pool has been out of its flood a while
        assert client.get_match(live.match_id).match.version == version + 1
        wait_for(lambda: http.get("/readyz").status_code == 200, timeout=120, interval=0.5)


@contextmanager
def _limited(redis_url: str, limit: str) -> Iterator[ServiceProcess]:
    """A service with only ``limit`` on, believing X-Forwarded-For from this machine."""
    service = ServiceProcess("--redis-url", redis_url, "--no-rate-limits", "--limit", limit,
                             "--trusted-proxy", "127.0.0.0/8", rate_limits=True).start()
    try:
        yield service
    finally:
        service.stop()


def test_the_history_budget_counts_the_log_entries_each_call_re_simulates(redis_url):
    with _limited(redis_url, "history=150/minute") as service:
        with service.client() as client, service.http() as http:
            match, tokens = client.create_match(seats=["german", "soviet"])
            play_random(client, match.match_id, tokens, seed="budget", max_actions=40)
            entries = client.get_match(match.match_id).match.last_sequence
            assert 75 < entries <= 150  # one verification fits the budget, two do not
            headers = {"X-Forwarded-For": "198.19.3.1"}
            assert http.get(f"/v1/matches/{match.match_id}/verification", headers=headers).status_code == 200
            reply = http.get(f"/v1/matches/{match.match_id}/verification", headers=headers)  # live: not cached
            error = reply.json()["error"]
            assert (reply.status_code, error["reason"], error["metadata"]["limit"]) == (429, "RATE_LIMITED", "history")
            assert "log entries re-simulated" in error["message"] and "Retry-After" in reply.headers
            # another client has its own budget
            other = http.get(f"/v1/matches/{match.match_id}/verification", headers={"X-Forwarded-For": "198.19.13.2"})
            assert other.status_code == 200


def test_history_calls_are_counted_per_client_before_anything_is_read_cached_answers_too(redis_url):
    with _limited(redis_url, "history_calls=3/minute") as service:
        with service.client() as client, service.http() as http:
            match, tokens = client.create_match(seats=["german", "soviet"])
            play_random(client, match.match_id, tokens, seed="calls")  # finished: its verification is cached
            headers = {"X-Forwarded-For": "198.19.4.1"}
            for path, query in ((f"/v1/matches/{match.match_id}/verification", None),
                                (f"/v1/matches/{match.match_id}/verification", None),
                                (f"/v1/matches/{match.match_id}", {"version": 1})):
                assert http.get(path, params=query, headers=headers).status_code == 200
            for path, query in ((f"/v1/matches/{match.match_id}/verification", None),
                                (f"/v1/matches/{match.match_id}", {"version": 2}),
                                ("/v1/matches/nosuchmatch0000/verification", None)):  # refused before it is read
                reply = http.get(path, params=query, headers=headers)
                error = reply.json()["error"]
                assert (reply.status_code, error["reason"], error["metadata"]["limit"]) == \
                    (429, "RATE_LIMITED", "history_calls"), reply.text
                assert int(reply.headers["Retry-After"]) >= 1
            assert http.get(f"/v1/matches/{match.match_id}", headers=headers).status_code == 200  # not a history call
            other = {"X-Forwarded-For": "198.19.14.2"}
            assert http.get(f"/v1/matches/{match.match_id}/verification", headers=other).status_code == 200


def test_history_settings_are_flags_checked_at_start(redis_url):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "clients.cli", "serve", "--redis-url", redis_url,
                             "--history-workers", "0"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "--history-workers must be at least 1" in result.stdout


def test_the_history_pool_stops_with_the_service(redis_url):
    service = ServiceProcess("--redis-url", redis_url).start()
    try:
        with service.client() as client, service.http() as http:
            match, _ = client.create_match()
            assert http.get(f"/v1/matches/{match.match_id}/verification").status_code == 200
            processes = _pool_processes(service)
            assert processes
    finally:
        service.stop()
    gone = psutil.wait_procs(processes, timeout=30)[1]
    assert not gone

