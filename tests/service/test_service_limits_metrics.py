"""Caps on watch streams (per process, per client address), and the Prometheus metrics."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from pathlib import Path

import grpc
from prometheus_client.parser import text_string_to_metric_families

from clients.client import TyphoonClient
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc

from service_helpers import ServiceProcess, wait_for


def _open_watch(stub, match_id: str):
    call = stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, heartbeat_seconds=30))
    next(call)  # admitted: match_created arrives
    return call


def _refusal(stub, match_id: str) -> tuple[grpc.StatusCode, str]:
    try:
        _open_watch(stub, match_id)
    except grpc.RpcError as error:
        return error.code(), error.details()
    raise AssertionError("the stream was admitted")


def test_watch_streams_over_the_process_cap_are_refused_until_one_ends(redis_url):
    service = ServiceProcess("--redis-url", redis_url, "--max-watch-streams", "2",
                             "--max-watch-streams-per-client", "10").start()
    try:
        with service.client() as client, grpc.insecure_channel(service.target) as channel, service.http() as http:
            match, _ = client.create_match()
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            first, second = _open_watch(stub, match.match_id), _open_watch(stub, match.match_id)
            code, message = _refusal(stub, match.match_id)
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "maximum of 2 watch streams" in message
            reply = http.get(f"/v1/matches/{match.match_id}/watch")
            assert reply.status_code == 429 and reply.json()["error"]["reason"] == "TOO_MANY_WATCHERS"
            ready = http.get("/readyz")  # saturated: a balancer should send watchers elsewhere
            wait_for(lambda: http.get("/readyz").status_code == 503)
            assert "watch streams at the cap of 2" in http.get("/readyz").json()["reasons"]
            assert ready.status_code in (200, 503)
            first.cancel()
            third = wait_for(lambda: _try_open(stub, match.match_id))
            second.cancel()
            third.cancel()
    finally:
        service.stop()


def _try_open(stub, match_id: str):
    try:
        return _open_watch(stub, match_id)
    except grpc.RpcError:
        return None


def test_watch_streams_over_the_per_client_cap_are_refused(redis_url):
    service = ServiceProcess("--redis-url", redis_url, "--max-watch-streams-per-client", "1").start()
    try:
        with service.client() as client, grpc.insecure_channel(service.target) as channel, service.http() as http:
            match, _ = client.create_match()
            stub = match_service_pb2_grpc.MatchServiceStub(channel)
            held = _open_watch(stub, match.match_id)
            code, message = _refusal(stub, match.match_id)
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert message == "a client may hold at most 1 watch streams on this server; close one first"
            reply = http.get(f"/v1/matches/{match.match_id}/watch")  # the same address over REST
            assert reply.status_code == 429
            assert reply.json()["error"]["reason"] == "TOO_MANY_WATCHES_FROM_CLIENT"
            held.cancel()
    finally:
        service.stop()


BURST = 2500


async def _burst(target: str, match_id: str, streams: int) -> Counter:
    """Opens ``streams`` watch streams at once on one connection; how each began (OK or its code)."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        calls = [stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, heartbeat_seconds=60))
                 for _ in range(streams)]

        async def first(call) -> str:
            try:
                await call.read()
                return "OK"
            except grpc.aio.AioRpcError as error:
                return error.code().name

        outcomes = Counter(await asyncio.gather(*(first(call) for call in calls)))
        for call in calls:
            call.cancel()
        return outcomes


def test_a_burst_of_watchers_larger_than_grpc_cores_backlog_is_admitted_not_dropped(redis_url):
    # gRPC core drops calls queued before the event loop asks for them past 1,000 per method, as
    # CANCELLED; the service allows a backlog as large as its watch cap (service.run.server)
    # (every stream on one connection, beyond the default cap of streams per connection)
    service = ServiceProcess("--redis-url", redis_url, "--max-watch-streams-per-client", str(BURST),
                             "--max-streams-per-connection", str(BURST)).start()
    try:
        with service.client() as client:
            match, _ = client.create_match()
        assert asyncio.run(_burst(service.target, match.match_id, BURST)) == Counter({"OK": BURST})
    finally:
        service.stop()


def _metrics(admin) -> dict[tuple[str, tuple], float]:
    samples = {}
    for family in text_string_to_metric_families(admin.get("/metrics").text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def test_metrics_count_calls_commits_watch_streams_and_the_process(service, client: TyphoonClient, http, admin):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(match.match_id, tokens["german"], {"type": "standard_setup"}, expected_version=0)
    try:
        client.submit(match.match_id, tokens["german"], {"type": "standard_setup"}, expected_version=0)
    except Exception:  # noqa: BLE001 - refused: STALE_VERSION
        pass
    http.get("/v1/matches/nosuchmatch")
    watch = client.watch(match.match_id, heartbeat_seconds=30)
    events = iter(watch)
    next(events)
    samples = wait_for(lambda: (s := _metrics(admin)).get(("typhoon_watch_streams", ())) and s)
    calls = lambda method, transport, code: samples.get(  # noqa: E731
        ("typhoon_calls_total", (("code", code), ("method", method), ("transport", transport))), 0)
    assert calls("CreateMatch", "grpc", "OK") >= 1
    assert calls("SubmitAction", "grpc", "ABORTED") >= 1
    assert calls("GetMatch", "http", "NOT_FOUND") >= 1
    assert samples[("typhoon_call_duration_seconds_count", (("method", "SubmitAction"), ("transport", "grpc")))] >= 2
    assert samples[("typhoon_commits_total", (("outcome", "OK"),))] >= 1
    assert samples[("typhoon_active_matches", ())] >= 1
    assert samples[("typhoon_watch_streams", ())] >= 1
    assert samples[("typhoon_redis_connections_max", ())] > 0
    assert samples[("typhoon_ready", ())] == 1
    assert samples[("process_resident_memory_bytes", ())] > 0
    assert ("process_cpu_seconds_total", ()) in samples
    watch.close()


ROOT = Path(__file__).resolve().parents[2]
#: What a PromQL query names besides metrics: its functions, and the label lists of by/without
PROMQL_WORDS = {"sum", "min", "max", "avg", "count", "rate", "irate", "increase", "histogram_quantile"}


def _exported_names(admin) -> set[str]:
    """Every sample name the service's /metrics has or will have (a labelled family shows no sample
    before its first observation)."""
    suffixes = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_count", "_sum", "_created"),
                "gauge": ("",)}
    names: set[str] = set()
    for family in text_string_to_metric_families(admin.get("/metrics").text):
        names |= {family.name + suffix for suffix in suffixes.get(family.type, ())}
        names |= {sample.name for sample in family.samples}
    return names


def _metric_names(expr: str) -> set[str]:
    bare = re.sub(r"\b(?:by|without)\s*\([^)]*\)|\{[^}]*\}|\[[^\]]*\]|\b\d+(?:\.\d+)?\b", " ", expr)
    return set(re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", bare)) - PROMQL_WORDS


def test_the_grafana_dashboard_queries_the_documented_queries_of_metrics_the_service_exports(admin):
    dashboard = json.loads((ROOT / "deploy" / "grafana-dashboard.json").read_text())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    block = re.search(r"```promql\n(.*?)```", (ROOT / "deploy" / "README.md").read_text(), re.DOTALL).group(1)
    documented = {line.split("#")[0].strip() for line in block.splitlines()} - {""}
    assert set(queries) == documented  # the dashboard shows every query deploy/README.md gives, no other
    named = set().union(*map(_metric_names, queries))
    assert {"typhoon_calls_total", "typhoon_call_duration_seconds_bucket", "typhoon_watch_streams"} <= named
    assert named <= _exported_names(admin), named - _exported_names(admin)
