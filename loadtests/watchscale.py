"""Watching at scale: one service process holding many watch streams over many matches.

    .venv/bin/python -m loadtests.watchscale --matches 5000 --streams 10000 --players 20 --hold 60
    .venv/bin/python -m loadtests.watchscale --matches 200 --streams 400 --hold 10      # a quick look
    .venv/bin/python -m loadtests.watchscale --matches 500 --streams 3000 --max-watch-streams 2000   # the cap

It starts an embedded Redis and one ``typhoon serve`` on it (``--redis-connections`` bounds its pool),
creates ``--matches`` matches, then opens ``--streams`` gRPC WatchMatch streams spread evenly over
them, ``--open-rate`` a second, from ``--watcher-processes`` separate processes (asyncio, each with
``--channels`` connections of its own). Once every stream is admitted (or refused), for ``--hold``
seconds ``--players`` threads play random actions on as many of the matches, back to back, while a
probe calls GetMatch, the gRPC health check, ``/healthz`` and ``/readyz`` twice a second. It prints:

- streams admitted, refused (RESOURCE_EXHAUSTED, by reason) and failed; streams the service dropped
  and that were asked for again; gaps and repeats in the sequence numbers (must be 0);
- live delivery lag (receive time minus the commit time in the event, for events committed after
  their stream was admitted) p50/p95/p99/max while the streams are held, and its floor: the lag on
  ``4 x --players`` streams on the first matches the players take, open before anything else, before
  the many streams, while they open and while they are held (p99 held / before: what the many streams
  cost the live feed, on the same machine at the same time);
- the service's Redis connections (``CLIENT LIST`` on the Redis, sampled every second: the peak)
  against their bound (the pool, the notice feed and the readiness probe);
- the service's CPU and memory per stream, the players' and the probe's latencies, the machine's load.

The service's caps are ``--max-watch-streams`` and ``--max-watch-streams-per-client`` (by default
above ``--streams``: every stream comes from 127.0.0.1, one client address, and the service's own
default of 500 streams per address would refuse the rest). Exit status 0 when exactly the streams the
caps allow were admitted and the others refused, none saw a gap, the probe never failed and the
service's Redis connections stayed within their bound.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import shutil
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
from service.processes import ServeProcess
from service.store.embedded_redis import EmbeddedRedis

#: Connections a service holds besides its pool: the notice feed and the readiness probe.
EXTRA_CONNECTIONS = 2
#: The floor's streams per player: one on each match the players take, before and after the first ones end.
FLOOR_STREAMS_PER_PLAYER = 4


def _percentiles(histogram: Counter) -> dict[str, Any]:
    """p50/p95/p99/max of a histogram of milliseconds."""
    total = sum(histogram.values())
    if not total:
        return {"count": 0}
    return {"count": total, **{f"p{round(q * 100)}": percentile(histogram, q) for q in (0.5, 0.95, 0.99)},
            "max": max(histogram)}


def _histogram(values: list[float]) -> Counter:
    return Counter(round(v, 1) for v in values)


# --- the watcher processes -----------------------------------------------------------------------------

def watcher_process(number: int, target: str, streams: list[tuple[int, str]], channels: int, heartbeat: int,
                    rate: float, progress: Any, phase: Any, stop: Any, results: Any) -> None:
    """Opens its share of the streams (``(stream number, match id)``) at ``rate`` a second over
    ``channels`` connections of its own, follows them until ``stop`` and puts its figures on ``results``.
    ``progress[3 * number : 3 * number + 3]`` counts its streams admitted, refused and failed. The
    delivery lag of a live event (one committed after its stream was admitted) counts in the phase
    ``PHASES[phase.value - 1]`` it arrives in (none while ``phase.value`` is 0)."""
    asyncio.run(_watch_all(number, target, streams, channels, heartbeat, rate, progress, phase, stop, results))


async def _watch_all(number, target, streams, channels, heartbeat, rate, progress, phase, stop, results) -> None:
    import grpc

    from service.gen.typhoon.v1 import match_service_pb2 as api
    from service.gen.typhoon.v1 import match_service_pb2_grpc

    # a subchannel pool of its own per channel: one TCP connection each (channels with the same target
    # and arguments share one connection otherwise)
    stubs = [match_service_pb2_grpc.MatchServiceStub(
        grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]))
        for _ in range(channels)]
    stats: Counter[str] = Counter()
    lags: dict[str, Counter[float]] = {name: Counter() for name in PHASES}
    admission_ms: Counter[float] = Counter()
    refusals: Counter[str] = Counter()
    calls: set = set()
    base = 3 * number

    def count(slot: int) -> None:
        with progress.get_lock():
            progress[base + slot] += 1

    async def follow(stream: int, match_id: str) -> None:
        """One stream; asked for again from its cursor when the service drops it or is unavailable
        (as clients do: clients.client.TRANSIENT_CODES)."""
        last, admitted, delay = 0, False, 0.2
        admitted_ms = float("inf")  # wall-clock time of admission: events committed later are live
        asked = time.perf_counter()
        while not stop.is_set():
            call = stubs[stream % len(stubs)].WatchMatch(api.WatchMatchRequest(
                match_id=match_id, after_sequence=last, heartbeat_seconds=heartbeat))
            calls.add(call)
            try:
                async for item in call:
                    if not admitted:
                        admitted = True
                        admitted_ms = time.time() * 1000
                        admission_ms[round((time.perf_counter() - asked) * 1000, -1)] += 1
                        count(0)
                    if item.WhichOneof("kind") != "event":
                        continue
                    event = item.event
                    if event.sequence != last + 1:
                        stats["gaps"] += 1
                    last = event.sequence
                    stats["events"] += 1
                    sent = event.time.ToMilliseconds()
                    now = phase.value
                    if now and sent >= admitted_ms:
                        lags[PHASES[now - 1]][round(time.time() * 1000 - sent, 1)] += 1
                stats["ended"] += 1  # the match ended: the service closes its streams
                return
            except grpc.aio.AioRpcError as error:
                code = error.code()
                if stop.is_set():
                    return
                if code in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE):
                    stats[f"asked again after {code.name}"] += 1
                    await asyncio.sleep(delay * random.uniform(0.5, 1.5))
                    delay = min(delay * 2, 5.0)
                    continue
                if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    stats["refused"] += 1
                    count(1)
                else:
                    stats["failed"] += 1
                    count(2)
                refusals[f"{code.name}: {error.details()}"] += 1
                return
            finally:
                calls.discard(call)

    tasks = []
    started = time.perf_counter()
    for opened, (stream, match_id) in enumerate(streams):
        tasks.append(asyncio.create_task(follow(stream, match_id)))
        ahead = opened / rate - (time.perf_counter() - started)
        if ahead > 0:
            await asyncio.sleep(ahead)
    while not stop.is_set():
        await asyncio.sleep(0.2)
    for call in list(calls):
        call.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    results.put({"number": number, "streams": dict(stats), "lag_ms": lags, "admission_ms": admission_ms, "refusals": dict(refusals)})


# --- the main process ----------------------------------------------------------------------------------

PHASES = ("before", "opening", "holding")


class Recorder:
    """Latencies of the ordinary calls by phase: before the streams, while they open, while they are held."""

    def __init__(self) -> None:
        self.phase = PHASES[0]
        self.latency: dict[str, dict[str, list[float]]] = {phase: {} for phase in PHASES}
        self.failures: Counter[str] = Counter()
        self.not_ready: dict[str, Counter[str]] = {phase: Counter() for phase in (*PHASES, "after")}
        self.counts: Counter[str] = Counter()  # "<phase> actions", "error <reason>"
        self.started = {PHASES[0]: time.monotonic()}
        self.ended: dict[str, float] = {}

    def next_phase(self, phase: str) -> None:
        now = time.monotonic()
        self.ended[self.phase] = now
        self.phase, self.started[phase] = phase, now

    def add(self, name: str, started: float) -> None:
        self.latency.setdefault(self.phase, {}).setdefault(name, []).append((time.perf_counter() - started) * 1000)

    def seconds(self, phase: str) -> float:
        return self.ended.get(phase, time.monotonic()) - self.started[phase]


class Probe(threading.Thread):
    """GetMatch and the health check over gRPC, /healthz and /readyz over HTTP, twice a second."""

    def __init__(self, service: ServeProcess, match_id: str, recorder: Recorder) -> None:
        super().__init__(daemon=True)
        self.service, self.match_id, self.recorder = service, match_id, recorder
        self.halt = threading.Event()

    def run(self) -> None:
        import grpc
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        from clients.client import TyphoonClient

        with TyphoonClient(self.service.target, retries=0, timeout=10) as client, \
                grpc.insecure_channel(self.service.target) as channel, \
                httpx.Client(base_url=self.service.base_url, timeout=10) as http:
            health = health_pb2_grpc.HealthStub(channel)

            def check() -> None:
                status = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10).status
                if status != health_pb2.HealthCheckResponse.SERVING:
                    self.recorder.not_ready[self.recorder.phase]["grpc health: NOT_SERVING"] += 1

            def ready() -> None:
                reply = http.get("/readyz")
                if reply.status_code != 200:
                    self.recorder.not_ready[self.recorder.phase][
                        f"/readyz {reply.status_code}: {'; '.join(reply.json()['reasons'])}"[:100]] += 1

            while not self.halt.wait(0.5):
                for name, call in (("GetMatch", lambda: client.get_match(self.match_id)),
                                   ("grpc health", check),
                                   ("/healthz", lambda: http.get("/healthz").raise_for_status()),
                                   ("/readyz", ready)):
                    started = time.perf_counter()
                    try:
                        call()
                    except Exception as error:  # noqa: BLE001 - a failure of any kind is the probe's finding
                        self.recorder.failures[f"{name}: {error}"[:120]] += 1
                        continue
                    self.recorder.add(name, started)


def play(target: str, next_match: Any, halt: threading.Event, recorder: Recorder, think: float) -> None:
    """Plays random actions on both seats of a match, the next one (``next_match()``) when it ends,
    until ``halt``, thinking ``think`` seconds (0.5x to 1.5x) before each action."""
    from clients.client import TyphoonClient, TyphoonError

    match_id, tokens = next_match()
    chooser = random.Random(match_id)
    with TyphoonClient(target, timeout=30) as client:
        while not halt.wait(think * chooser.uniform(0.5, 1.5) if think else 0):
            try:
                started = time.perf_counter()
                legal = client.legal_actions(match_id)
                recorder.add("ListLegalActions", started)
                if not legal.side_to_act:
                    recorder.counts["matches played to the end"] += 1
                    match_id, tokens = next_match()
                    continue
                started = time.perf_counter()
                client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                              expected_version=legal.version)
                recorder.add("SubmitAction", started)
                recorder.counts[f"{recorder.phase} actions"] += 1
            except TyphoonError as error:
                recorder.counts[f"error {error.reason}"] += 1


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


def _service_streams(admin: httpx.Client) -> int | None:
    """The streams the service says it holds (its /metrics, on its admin listener)."""
    found = re.search(r"^typhoon_watch_streams(?:\{[^}]*\})? (\S+)$", admin.get("/metrics").text, re.MULTILINE)
    return int(float(found.group(1))) if found else None


def _busy(times) -> float:
    """CPU seconds the machine was busy, from psutil.cpu_times()."""
    return times.user + times.nice + times.system + times.irq + times.softirq + times.steal


def _cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def run(args: argparse.Namespace) -> dict[str, Any]:
    per_process = args.max_watch_streams or args.streams + 1000
    per_client = args.max_watch_streams_per_client or args.streams + 1000
    floor = min(FLOOR_STREAMS_PER_PLAYER * args.players, args.matches)
    # every stream comes from 127.0.0.1; the floor's streams take their room under the caps first
    expected = max(0, min(args.streams, per_process - floor, per_client - floor))
    workdir = Path(tempfile.mkdtemp(prefix="typhoon-watchscale-"))
    embedded = EmbeddedRedis(workdir / "redis")
    url = embedded.start()
    service = ServeProcess("--redis-url", url, "--data-dir", str(workdir / "data"), "--log-level", "warning",
                           "--redis-connections", str(args.redis_connections),
                           "--max-watch-streams", str(per_process),
                           "--max-watch-streams-per-client", str(per_client),
                           # a watcher process multiplexes its share of the streams over --channels connections
                           "--max-streams-per-connection",
                           str(max(1000, args.streams // max(1, args.watcher_processes * args.channels) + 100)),
                           # one address stands for thousands of watchers and hundreds of players: the
                           # per-address rate limits of new streams and matches are not what this measures,
                           # nor the process's stream_opens (--open-rate paces the opens)
                           "--limit", "watch=off", "--limit", "create_match=off", "--limit", "join_match=off",
                           "--limit", "stream_opens=off",
                           env={"REDIS_URL": ""}, remember=200)
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    watchers: list[Any] = []
    halt = threading.Event()
    threads: list[threading.Thread] = []
    result: dict[str, Any] = {"settings": vars(args) | {"cpus": psutil.cpu_count(), "max_watch_streams": per_process,
                                                        "max_watch_streams_per_client": per_client},
                              "load_average_before": [round(v, 1) for v in os.getloadavg()]}
    try:
        service.start()
        admin = redis.Redis.from_url(url)
        scrape = httpx.Client(base_url=service.admin_url, timeout=30)
        started = time.monotonic()
        matches = create_matches(service.target, args.matches)
        result["create_seconds"] = round(time.monotonic() - started, 1)
        print(f"{len(matches)} matches created in {result['create_seconds']} s; {args.players} players and the "
              f"probe for {args.before} s before the streams", flush=True)

        service_process = psutil.Process(service.process.pid)
        recorder = Recorder()
        probe = Probe(service, matches[-1][0], recorder)
        unplayed, taking = iter(matches), threading.Lock()

        def next_match() -> tuple[str, dict[str, str]]:
            with taking:
                return next(unplayed)

        threads = [probe] + [threading.Thread(target=play, args=(service.target, next_match, halt, recorder,
                                                                  args.think_time), daemon=True)
                             for _ in range(min(args.players, len(matches)))]
        # the floor: one stream on each of the matches the players take first, open from the start, so
        # the delivery lag without the many streams and with them is measured in the same run
        progress = context.Array("i", 3 * (args.watcher_processes + 1))
        phase = context.Value("i", 0)
        results = context.Queue()
        floor_watcher = context.Process(target=watcher_process, daemon=True, args=(
            args.watcher_processes, service.target, [(args.streams + i, matches[i][0]) for i in range(floor)], 1,
            args.heartbeat, args.open_rate, progress, phase, stop, results))
        floor_watcher.start()
        watchers.append(floor_watcher)
        floor_slots = slice(3 * args.watcher_processes, 3 * args.watcher_processes + 3)
        while sum(progress[floor_slots]) < floor and floor_watcher.is_alive():
            time.sleep(0.1)
        phase.value = PHASES.index("before") + 1
        cpu_start = _cpu_seconds(service_process)
        for thread in threads:
            thread.start()
        connections = [len(admin.client_list()) - 1]
        time.sleep(args.before)

        recorder.next_phase("opening")
        phase.value = PHASES.index("opening") + 1
        rss_before = service_process.memory_info().rss
        cpu_before = _cpu_seconds(service_process)
        # the service's CPU per action before the streams, to tell the players' share of it while they open
        cpu_per_action = (cpu_before - cpu_start) / max(recorder.counts["before actions"], 1)
        shares: list[list[tuple[int, str]]] = [[] for _ in range(args.watcher_processes)]
        for stream in range(args.streams):
            shares[stream % args.watcher_processes].append((stream, matches[stream % len(matches)][0]))
        rate = args.open_rate / args.watcher_processes
        started = time.monotonic()
        for number, share in enumerate(shares):
            watcher = context.Process(target=watcher_process, daemon=True, args=(
                number, service.target, share, args.channels, args.heartbeat, rate, progress, phase, stop,
                results))
            watcher.start()
            watchers.append(watcher)
        deadline, shown = started + args.open_timeout, started
        while time.monotonic() < deadline:
            admitted, refused, failed = (sum(progress[i:3 * args.watcher_processes:3]) for i in range(3))
            if admitted + refused + failed >= args.streams:
                break
            if time.monotonic() - shown >= 5:
                shown = time.monotonic()
                print(f"  {shown - started:5.0f} s: {admitted} admitted, {refused} refused, {failed} failed", flush=True)
                connections.append(len(admin.client_list()) - 1)
            time.sleep(0.2)
        result["open_seconds"] = round(time.monotonic() - started, 1)
        opened = sum(progress[0:3 * args.watcher_processes:3])
        rss_open = service_process.memory_info().rss
        opening_cpu = _cpu_seconds(service_process) - cpu_before
        result["service_cpu_ms_per_stream_opened"] = round(
            (opening_cpu - recorder.counts["opening actions"] * cpu_per_action) * 1000 / max(opened, 1), 2)
        result["service_rss_mb"] = {"before": round(rss_before / 2**20), "streams_open": round(rss_open / 2**20)}
        result["service_kb_per_stream"] = round((rss_open - rss_before) / 1024 / max(opened, 1), 1)
        print(f"{opened} of {args.streams} streams admitted in {result['open_seconds']} s; holding {args.hold} s",
              flush=True)

        recorder.next_phase("holding")
        phase.value = PHASES.index("holding") + 1
        processes = {"service": service_process, "redis": psutil.Process(embedded.process.pid),
                     "watchers": [psutil.Process(w.pid) for w in watchers], "this": psutil.Process()}
        cpu_at = {name: sum(_cpu_seconds(p) for p in (ps if isinstance(ps, list) else [ps]))
                  for name, ps in processes.items()}
        machine_before = psutil.cpu_times()
        result["service_streams"] = _service_streams(scrape)
        memory, loads = [], []
        while recorder.seconds("holding") < args.hold:
            time.sleep(1)
            connections.append(len(admin.client_list()) - 1)  # less this one
            memory.append(service_process.memory_info().rss)
            loads.append(os.getloadavg()[0])
        held = recorder.seconds("holding")
        cpu_percent = {name: round((sum(_cpu_seconds(p) for p in (ps if isinstance(ps, list) else [ps]))
                                    - cpu_at[name]) * 100 / held, 1) for name, ps in processes.items()}
        machine_after = psutil.cpu_times()
        cpu_percent["machine"] = round((_busy(machine_after) - _busy(machine_before)) * 100 / held, 1)
        cpu_percent["other processes"] = round(cpu_percent["machine"] - sum(
            v for k, v in cpu_percent.items() if k != "machine"), 1)
        result["service_streams_at_end"] = _service_streams(scrape)
        # what an action costs the service with the streams held (the live feed to its watchers, the
        # heartbeats of the idle streams) against before them (the floor's watchers only)
        result["service_cpu_ms_per_action"] = {
            "before": round(cpu_per_action * 1000, 2),
            "holding": round(cpu_percent["service"] * held / 100 * 1000 / max(recorder.counts["holding actions"], 1), 2)}
        recorder.next_phase("after")
        halt.set()
        probe.halt.set()
        for thread in threads:
            thread.join(30)
        stop.set()
        parts = [results.get(timeout=120) for _ in watchers]
        streams: Counter[str] = Counter()
        lags: Counter[float] = Counter()
        admission: Counter[float] = Counter()
        refusals: Counter[str] = Counter()
        floor_part = next(part for part in parts if part["number"] == args.watcher_processes)
        for part in parts:
            if part is floor_part:
                continue
            streams.update(part["streams"])
            lags.update(part["lag_ms"]["holding"])
            admission.update(part["admission_ms"])
            refusals.update(part["refusals"])
        streams["admitted"] = sum(progress[0:3 * args.watcher_processes:3])
        floor_lag = {name: _percentiles(floor_part["lag_ms"][name]) for name in PHASES}
        result |= {
            "streams": dict(streams), "refusals": dict(refusals.most_common(5)),
            "lag_ms": _percentiles(lags), "admission_ms": _percentiles(admission),
            "floor": {"streams": floor, "admitted": sum(progress[floor_slots][:1]), **floor_part["streams"],
                      "lag_ms": floor_lag,
                      "p99_held_over_before": round(floor_lag["holding"]["p99"] / floor_lag["before"]["p99"], 2)
                      if floor_lag["holding"]["count"] and floor_lag["before"]["count"] else None},
            "redis_connections": {"peak": max(connections), "samples": len(connections),
                                  "bound": args.redis_connections + EXTRA_CONNECTIONS},
            "actions_per_second": {phase: round(recorder.counts[f"{phase} actions"] / recorder.seconds(phase), 1)
                                   for phase in PHASES},
            "player_errors": {k: v for k, v in recorder.counts.items() if k.startswith("error ")},
            "matches_played_to_the_end": recorder.counts["matches played to the end"],
            "calls_ms": {phase: {name: _percentiles(_histogram(values))
                                 for name, values in sorted(recorder.latency[phase].items())} for phase in PHASES},
            "probe_failures": dict(recorder.failures),
            "not_ready": {phase: dict(recorder.not_ready[phase]) for phase in PHASES},
            "cpu_percent": cpu_percent,
            "load_average_during": [round(min(loads), 1), round(max(loads), 1)],
        }
        result["service_rss_mb"]["peak_in_hold"] = round(max(memory) / 2**20)
        result["expected"] = {"admitted": expected, "refused": args.streams - expected}
        result["ok"] = (streams["admitted"] == expected and streams.get("refused", 0) == args.streams - expected
                        and not streams.get("failed") and not streams.get("gaps") and not recorder.failures
                        and not floor_part["streams"].get("gaps")
                        and max(connections) <= args.redis_connections + EXTRA_CONNECTIONS)
        return result
    finally:
        halt.set()
        stop.set()
        for watcher in watchers:
            watcher.join(30)
            if watcher.is_alive():
                watcher.kill()
        service.stop()
        embedded.stop()
        if result.get("ok"):  # the service's and Redis's files are kept only when something failed
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            result["workdir"] = str(workdir)


def report(result: dict[str, Any]) -> None:
    s = result["settings"]
    lag, admission, streams = result["lag_ms"], result["admission_ms"], result["streams"]
    print(f"\nwatch scale: {s['matches']} matches, {s['streams']} streams from {s['watcher_processes']} processes "
          f"x {s['channels']} connections, asked for at {s['open_rate']}/s; {s['players']} players thinking "
          f"{s['think_time']} s; {s['before']} s before the streams, {s['hold']} s with them; one service process "
          f"(caps {s['max_watch_streams']} streams, {s['max_watch_streams_per_client']} per client), a pool of "
          f"{s['redis_connections']} Redis connections; {s['cpus']} CPUs")
    print(f"streams: {streams['admitted']} admitted (expected {result['expected']['admitted']}), "
          f"{streams.get('refused', 0)} refused (expected {result['expected']['refused']}), "
          f"{streams.get('failed', 0)} failed, {streams.get('gaps', 0)} gaps; the service said it held "
          f"{result['service_streams']} once open, {result['service_streams_at_end']} at the end (the floor's "
          f"{result['floor']['streams']} included)")
    print(f"  all: {streams}")
    print(f"  refusals: {result['refusals'] or 'none'}")
    print(f"  admission (asked -> first message): p50 {admission.get('p50')} ms, p99 {admission.get('p99')} ms, "
          f"max {admission.get('max')} ms; all admitted or refused in {result['open_seconds']} s")
    print(f"live delivery lag while held: p50 {lag.get('p50')} ms, p95 {lag.get('p95')} ms, p99 {lag.get('p99')} ms, "
          f"max {lag.get('max')} ms over {lag['count']} live events")
    floor = result["floor"]
    print(f"  the floor ({floor['admitted']} of {floor['streams']} streams on the first matches played, open from "
          f"the start; {floor.get('gaps', 0)} gaps), p50 / p95 / p99 / max ms (events), before the streams | "
          f"while they open | while held:")
    print("    " + " | ".join(f"{f.get('p50')} / {f.get('p95')} / {f.get('p99')} / {f.get('max')} ({f['count']})"
                              for f in (floor["lag_ms"][name] for name in PHASES))
          + f"; p99 while held / before: {floor['p99_held_over_before']}")
    connections = result["redis_connections"]
    print(f"service Redis connections: peak {connections['peak']} (bound {connections['bound']})")
    print(f"actions/s: {result['actions_per_second']}; matches played to the end: "
          f"{result['matches_played_to_the_end']}; player errors: {result['player_errors'] or 'none'}")
    print("ordinary calls, p50 / p95 / p99 / max ms (calls), before the streams | while they open | while held:")
    calls = result["calls_ms"]
    for name in sorted({n for phase in calls.values() for n in phase}):
        cells = []
        for phase in PHASES:
            f = calls[phase].get(name, {"count": 0})
            cells.append(f"{f.get('p50')} / {f.get('p95')} / {f.get('p99')} / {f.get('max')} ({f['count']})")
        print(f"  {name:17} " + " | ".join(cells))
    print(f"probe failures: {result['probe_failures'] or 'none'}")
    print(f"readiness said NOT_SERVING (probe answers): {result['not_ready']}")
    rss = result["service_rss_mb"]
    print(f"service: {result['service_cpu_ms_per_stream_opened']} ms of CPU per stream opened (less the players' "
          f"actions meanwhile at their CPU before the streams); RSS {rss['before']} MB "
          f"before the streams, {rss['streams_open']} MB with them ({result['service_kb_per_stream']} KB per stream), "
          f"peak {rss['peak_in_hold']} MB during the hold")
    print(f"CPU while held (% of one core): {result['cpu_percent']}")
    per_action = result["service_cpu_ms_per_action"]
    print(f"service CPU per action: {per_action['before']} ms before the streams, {per_action['holding']} ms while "
          f"they are held")
    print(f"load average: {result['load_average_before']} at the start; {result['load_average_during']} (1-min, "
          f"min-max) while held")
    if "workdir" in result:
        print(f"the service's and Redis's files: {result['workdir']}")
    print(f"result: {'OK' if result['ok'] else 'FAILED'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtests.watchscale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=5000)
    parser.add_argument("--streams", type=int, default=10000)
    parser.add_argument("--players", type=int, default=20, help="matches played during the hold (20)")
    parser.add_argument("--hold", type=float, default=60.0, help="seconds the streams are held under play (60)")
    parser.add_argument("--before", type=float, default=20.0,
                        help="seconds of play before the streams open: the floor of the calls' latency (20)")
    parser.add_argument("--think-time", type=float, default=0.0,
                        help="seconds a player thinks before each action, 0.5x-1.5x (0: back to back)")
    parser.add_argument("--watcher-processes", type=int, default=4, help="processes opening the streams (4)")
    parser.add_argument("--channels", type=int, default=4, help="gRPC connections of each watcher process (4)")
    parser.add_argument("--open-rate", type=float, default=1000.0, help="streams asked for per second, in all (1000)")
    parser.add_argument("--open-timeout", type=float, default=600.0, help="seconds to wait for the streams (600)")
    parser.add_argument("--heartbeat", type=int, default=60, help="the streams' heartbeat_seconds (60)")
    parser.add_argument("--redis-connections", type=int, default=50, help="the service's pool size (50)")
    parser.add_argument("--max-watch-streams", type=int, default=0,
                        help="the service's cap per process (default: --streams + 1000)")
    parser.add_argument("--max-watch-streams-per-client", type=int, default=0,
                        help="the service's cap per client address (default: --streams + 1000)")
    parser.add_argument("--json", default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    result = run(args)
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, default=str))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
