"""Watching at scale: one service process holding many watch streams over many matches.

    .venv/bin/python -m loadtests.watchscale --matches 5000 --streams 10000 --players 20 --hold 60
    .venv/bin/python -m loadtests.watchscale --matches 200 --streams 400 --hold 10      # a quick look

It starts an embedded Redis and one ``typhoon serve`` on it (``--redis-connections`` bounds its pool),
creates ``--matches`` matches, opens ``--streams`` gRPC WatchMatch streams spread evenly over them
(from a separate watcher process, asyncio, a few channels), then for ``--hold`` seconds lets
``--players`` threads play random actions on as many of the matches, back to back, while a probe
calls GetMatch, ``/healthz`` and ``/readyz`` twice a second. It prints:

- streams opened, refused and failed; gaps and repeats in the sequence numbers (must be 0);
- live delivery lag (receive time minus the commit time in the event) p50/p95/p99/max;
- the service's Redis connections (``CLIENT LIST`` on the Redis, sampled every second: the peak);
- the probe's latencies and failures, the actions played, and the CPU of the service and of Redis.

Exit status 0 when every stream opened, none saw a gap, the probe never failed and the service's
Redis connections stayed within its pool plus the feed and readiness connections.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import psutil
import redis

from loadtests.metrics import percentile
from service.embedded_redis import EmbeddedRedis
from service.processes import ServeProcess

#: Connections a service holds besides its pool: the notice feed and the readiness probe.
EXTRA_CONNECTIONS = 2


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    histogram = Counter(round(v, 1) for v in values)
    return {"count": len(values), **{f"p{round(q * 100)}": percentile(histogram, q) for q in (0.5, 0.95, 0.99)},
            "max": round(max(values), 1)}


# --- the watcher process -------------------------------------------------------------------------------

def watcher_process(target: str, match_ids: list[str], streams: int, channels: int, heartbeat: int,
                    opened: Any, stop: Any, results: Any) -> None:
    """Opens ``streams`` streams over ``match_ids`` (round robin) and follows them until ``stop``."""
    asyncio.run(_watch_all(target, match_ids, streams, channels, heartbeat, opened, stop, results))


async def _watch_all(target, match_ids, streams, channels, heartbeat, opened, stop, results) -> None:
    import grpc

    from service.gen.typhoon.v1 import match_service_pb2 as api, match_service_pb2_grpc

    options = [("grpc.max_concurrent_streams", 1 << 20)]
    stubs = [match_service_pb2_grpc.MatchServiceStub(grpc.aio.insecure_channel(target, options=options))
             for _ in range(channels)]
    stats = Counter()
    lags: list[float] = []
    refusals: Counter[str] = Counter()
    calls = []
    live_from = [0.0]
    started = asyncio.Event()
    admitted = [0]

    async def follow(number: int) -> None:
        """One stream; asked for again (from its cursor) when refused UNAVAILABLE, as clients do."""
        match_id = match_ids[number % len(match_ids)]
        last, first, delay = 0, True, 0.2
        while not stop.is_set():
            call = stubs[number % len(stubs)].WatchMatch(api.WatchMatchRequest(
                match_id=match_id, after_sequence=last, heartbeat_seconds=heartbeat))
            calls.append(call)
            try:
                async for item in call:
                    if first:
                        first = False
                        admitted[0] += 1
                        stats["opened"] += 1
                    if item.WhichOneof("kind") != "event":
                        continue
                    event = item.event
                    if event.sequence != last + 1:
                        stats["gaps"] += 1
                    last = event.sequence
                    stats["events"] += 1
                    if live_from[0] and event.time.ToMilliseconds() / 1000 >= live_from[0]:
                        lags.append(time.time() * 1000 - event.time.ToMilliseconds())
                return
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.CANCELLED:
                    return
                if error.code() == grpc.StatusCode.UNAVAILABLE:
                    stats["retried"] += 1
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)
                    continue
                if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    stats["refused"] += 1
                else:
                    stats["failed"] += 1
                refusals[f"{error.code().name}: {error.details()}"] += 1
                return

    tasks = []
    for number in range(streams):
        tasks.append(asyncio.create_task(follow(number)))
        if number % 200 == 199:
            await asyncio.sleep(0.05)  # open them at a pace the service can take alongside its other calls
    deadline = time.monotonic() + 900
    while admitted[0] + stats["refused"] + stats["failed"] < streams and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    live_from[0] = time.time()
    opened.set()
    started.set()
    while not stop.is_set():
        await asyncio.sleep(0.2)
    for call in calls:
        call.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    results.put({"streams": dict(stats), "lag_ms": _percentiles(lags), "refusals": dict(refusals.most_common(5))})


# --- the main process ----------------------------------------------------------------------------------

class Probe(threading.Thread):
    """GetMatch over gRPC and /healthz, /readyz over HTTP, twice a second."""

    def __init__(self, service: ServeProcess, match_id: str) -> None:
        super().__init__(daemon=True)
        self.service, self.match_id = service, match_id
        self.latency: dict[str, list[float]] = {"GetMatch": [], "/healthz": [], "/readyz": []}
        self.failures: Counter[str] = Counter()
        self.halt = threading.Event()

    def run(self) -> None:
        from clients.client import TyphoonClient, TyphoonError

        with TyphoonClient(self.service.target, retries=0, timeout=10) as client, \
                httpx.Client(base_url=self.service.base_url, timeout=10) as http:
            while not self.halt.wait(0.5):
                for name, call in (("GetMatch", lambda: client.get_match(self.match_id)),
                                   ("/healthz", lambda: http.get("/healthz").raise_for_status()),
                                   ("/readyz", lambda: _ready(http))):
                    started = time.perf_counter()
                    try:
                        call()
                    except (TyphoonError, httpx.HTTPError) as error:
                        self.failures[f"{name}: {error}"[:120]] += 1
                        continue
                    self.latency[name].append((time.perf_counter() - started) * 1000)


def _ready(http: httpx.Client) -> None:
    reply = http.get("/readyz")
    if reply.status_code != 200:
        raise httpx.HTTPError(f"{reply.status_code} {reply.text}")


def play(target: str, matches: list[tuple[str, dict[str, str]]], halt: threading.Event, counts: Counter) -> None:
    from clients.client import TyphoonClient, TyphoonError

    chooser = random.Random(len(matches))
    with TyphoonClient(target, timeout=30) as client:
        for match_id, tokens in matches:
            while not halt.is_set():
                try:
                    legal = client.legal_actions(match_id)
                    if not legal.side_to_act:
                        break
                    client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                                  expected_version=legal.version)
                    counts["actions"] += 1
                except TyphoonError as error:
                    counts[f"error {error.reason}"] += 1


def create_matches(target: str, count: int, threads: int = 4) -> list[tuple[str, dict[str, str]]]:
    from clients.client import TyphoonClient

    made: list[tuple[str, dict[str, str]]] = []

    def work(n: int) -> None:
        with TyphoonClient(target, timeout=30) as client:
            for _ in range(n):
                match, tokens = client.create_match(seats=["german", "soviet"])
                made.append((match.match_id, tokens))

    workers = [threading.Thread(target=work, args=(count // threads + (i < count % threads),)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return made


def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="typhoon-watchscale-"))
    embedded = EmbeddedRedis(workdir / "redis")
    url = embedded.start()
    service = ServeProcess("--redis-url", url, "--data-dir", str(workdir / "data"), "--log-level", "warning",
                           "--redis-connections", str(args.redis_connections),
                           # caps above the test's streams: at the cap, readiness says "saturated"
                           "--max-watch-streams", str(args.streams + 1000),
                           "--max-watch-streams-per-client", str(args.streams + 1000),
                           env={"REDIS_URL": ""}, remember=200)
    watcher = None
    result: dict[str, Any] = {"settings": vars(args) | {"cpus": psutil.cpu_count()}}
    stop = multiprocessing.get_context("spawn").Event()
    try:
        service.start()
        admin = redis.Redis.from_url(url)
        started = time.monotonic()
        matches = create_matches(service.target, args.matches)
        result["create_seconds"] = round(time.monotonic() - started, 1)
        print(f"{len(matches)} matches created in {result['create_seconds']} s", flush=True)

        context = multiprocessing.get_context("spawn")
        opened, results = context.Event(), context.Queue()
        watcher = context.Process(target=watcher_process, daemon=True, args=(
            service.target, [m for m, _ in matches], args.streams, args.channels, args.heartbeat, opened, stop,
            results))
        started = time.monotonic()
        service_process = psutil.Process(service.process.pid)
        cpu_before = sum(service_process.cpu_times()[:2])
        watcher.start()
        opened.wait(1000)
        result["open_seconds"] = round(time.monotonic() - started, 1)
        result["service_cpu_ms_per_stream_opened"] = round(
            (sum(service_process.cpu_times()[:2]) - cpu_before) * 1000 / max(args.streams, 1), 2)
        print(f"{args.streams} streams asked for in {result['open_seconds']} s; holding {args.hold} s "
              f"with {args.players} players", flush=True)

        redis_process = psutil.Process(embedded.process.pid)
        service_process.cpu_percent(None)
        redis_process.cpu_percent(None)
        probe = Probe(service, matches[-1][0])
        probe.start()
        halt, counts = threading.Event(), Counter()
        players = [threading.Thread(target=play, args=(service.target, [matches[i]], halt, counts), daemon=True)
                   for i in range(min(args.players, len(matches)))]
        for player in players:
            player.start()
        connections, cpu_service, cpu_redis, memory = [], [], [], []
        hold_started = time.monotonic()
        while time.monotonic() - hold_started < args.hold:
            time.sleep(1)
            connections.append(len(admin.client_list()) - 1)  # less this one
            cpu_service.append(service_process.cpu_percent(None))
            cpu_redis.append(redis_process.cpu_percent(None))
            memory.append(service_process.memory_info().rss)
        halt.set()
        for player in players:
            player.join(30)
        probe.halt.set()
        probe.join(30)
        stop.set()
        watched = results.get(timeout=120)
        result |= {
            "watch": watched,
            "redis_connections": {"peak": max(connections), "samples": len(connections),
                                  "bound": args.redis_connections + EXTRA_CONNECTIONS},
            "actions": counts["actions"], "actions_per_second": round(counts["actions"] / args.hold, 1),
            "player_errors": {k: v for k, v in counts.items() if k != "actions"},
            "probe": {name: _percentiles(values) for name, values in probe.latency.items()},
            "probe_failures": dict(probe.failures),
            "cpu_percent": {"service": round(sum(cpu_service) / len(cpu_service), 1),
                            "redis": round(sum(cpu_redis) / len(cpu_redis), 1),
                            "machine": psutil.cpu_percent(None) * psutil.cpu_count()},
            "service_rss_mb": round(max(memory) / 2**20),
        }
        streams = watched["streams"]
        result["ok"] = (streams.get("opened", 0) == args.streams and not streams.get("gaps")
                        and not probe.failures and max(connections) <= args.redis_connections + EXTRA_CONNECTIONS)
        return result
    finally:
        stop.set()
        if watcher is not None:
            watcher.join(30)
            if watcher.is_alive():
                watcher.kill()
        service.stop()
        embedded.stop()


def report(result: dict[str, Any]) -> None:
    s = result["settings"]
    watch = result["watch"]
    lag = watch["lag_ms"]
    print(f"\nwatch scale: {s['matches']} matches, {s['streams']} streams over {s['channels']} gRPC channels, "
          f"{s['players']} players for {s['hold']} s; one service process, pool of {s['redis_connections']} "
          f"Redis connections; {s['cpus']} CPUs")
    print(f"streams: {watch['streams']}; refusals: {watch['refusals'] or 'none'}")
    print(f"live delivery lag: p50 {lag.get('p50')} ms, p95 {lag.get('p95')} ms, p99 {lag.get('p99')} ms, "
          f"max {lag.get('max')} ms over {lag['count']} live events")
    connections = result["redis_connections"]
    print(f"service Redis connections: peak {connections['peak']} (bound {connections['bound']})")
    print(f"actions: {result['actions']} ({result['actions_per_second']}/s); player errors: "
          f"{result['player_errors'] or 'none'}")
    for name, figures in result["probe"].items():
        print(f"probe {name}: p50 {figures.get('p50')} ms, p95 {figures.get('p95')} ms, p99 {figures.get('p99')} ms "
              f"({figures['count']} calls)")
    print(f"probe failures: {result['probe_failures'] or 'none'}")
    print(f"CPU (mean, % of one core): {result['cpu_percent']}; service RSS peak {result['service_rss_mb']} MB")
    print(f"matches created in {result['create_seconds']} s, streams opened in {result['open_seconds']} s "
          f"({result['service_cpu_ms_per_stream_opened']} ms of service CPU per stream opened)")
    print(f"result: {'OK' if result['ok'] else 'FAILED'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtests.watchscale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=5000)
    parser.add_argument("--streams", type=int, default=10000)
    parser.add_argument("--players", type=int, default=20, help="matches played during the hold (20)")
    parser.add_argument("--hold", type=float, default=60.0, help="seconds the streams are held under play (60)")
    parser.add_argument("--channels", type=int, default=40, help="gRPC channels of the watcher process (40)")
    parser.add_argument("--heartbeat", type=int, default=60, help="the streams' heartbeat_seconds (60)")
    parser.add_argument("--redis-connections", type=int, default=50, help="the service's pool size (50)")
    parser.add_argument("--json", default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    result = run(args)
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
