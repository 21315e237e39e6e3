"""Benchmark: what a call to ``typhoon serve`` costs, against the transport's floor, in one run.

The floor is a server doing nothing: a grpc.aio server answering ListLegalActions and SubmitAction
with empty messages, and a bare ASGI app under uvicorn answering the same two REST routes with ``{}``
(both in one process on one event loop, as ``typhoon serve`` runs gRPC and REST). A second floor,
"floor + Redis GET", is the same server reading one key of its own embedded Redis before each answer
(through the service's Redis path, service.store.lean_redis.Lane): what a call costs with the one Redis
round trip each of the service's calls makes, and nothing else. The targets are against the first
floor. The same client loop runs against each: over 50 matches at once, ListLegalActions, then
SubmitAction of a random legal action with ``expected_version`` and a fresh ``request_id`` (the floors
offer no actions: the client sends a fixed one). The service runs as a new user starts it, ``typhoon serve`` with its
embedded Redis and its default log level and rate limits, but for the limits on new matches and seats
and on a client's actions over all its seats (:data:`SERVE_ARGS`): the one client stands for 50
players, who would call from 50 addresses.

Where the machine has two cores or more, the server (and its Redis) run on core 0 and the client
on core 1. Server CPU per call is the server process's own CPU time (psutil) over the measured
window divided by the calls answered in it; Redis's CPU is shown beside it.

    .venv/bin/python benchmarks/service_floor.py                  # or: make bench-service
    .venv/bin/python benchmarks/service_floor.py --seconds 30 --matches 50 --transport grpc
    .venv/bin/python benchmarks/service_floor.py --serve-args="--workers 2" --no-pin
    .venv/bin/python benchmarks/service_floor.py --time-control 3600+0     # matches with clocks
    .venv/bin/python benchmarks/service_floor.py --rounds 3 --transport grpc  # median of three rounds
    .venv/bin/python benchmarks/service_floor.py --profile /tmp/profiles  # where each server's CPU goes
    .venv/bin/python benchmarks/service_floor.py --baseline c671d70 --rounds 3  # against another commit

``--baseline REV`` also runs commit REV's ``typhoon serve`` (a temporary git worktree, with this tree's
Python environment and client), in each round beside the others, and prints this tree's service
against it: before and after under the same load. Flags REV's command line lacks (the limits) are left out.

Machines are noisy: read the ratios (service / floor, same run), and the load line, which says how
much CPU other processes took meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
import grpc  # noqa: E402
import psutil  # noqa: E402
from baseline import short, worktree  # noqa: E402
from tabulate import tabulate  # noqa: E402

from service.gen.typhoon.v1 import actions_pb2, match_service_pb2 as api  # noqa: E402
from service.gen.typhoon.v1 import match_service_pb2_grpc  # noqa: E402
from service.processes import DIE_WITH_PARENT_VARIABLE, die_with_parent_if_asked, stop_process  # noqa: E402
from service.run.server import HTTP_PARSER  # noqa: E402
from service.store.embedded_redis import EmbeddedRedis  # noqa: E402
from service.store.lean_redis import Lane  # noqa: E402
from service.store.match_store import Store  # noqa: E402

SERVICE_NAME = "typhoon.v1.MatchService"
#: The floor offers no legal action: the client submits this one instead.
FIXED_ACTION = actions_pb2.Action(move=actions_pb2.Action.Move(unit="XLVII", to="0704"))
FIXED_ACTION_JSON = {"move": {"unit": "XLVII", "to": "0704"}}
#: With --time-control, the service's matches have clocks (what clocks and their sweeper cost).
TIME_CONTROL: str | None = None
#: With --native, py-spy also samples C frames.
NATIVE = False
#: The second floor: the no-op server making one Redis call per call (what the service cannot do without).
FLOOR_REDIS = "floor + Redis GET"
#: What typhoon serve is given besides its defaults: the client creates and joins a match whenever one
#: ends (~40 a minute), from one address, and its actions stand for 50 clients' (client_actions); every
#: other limit, the per-seat SubmitAction limit and the wrong-key check of every call with a token among
#: them, costs what it costs a deployment.
SERVE_ARGS = ["--limit", "create_match=off", "--limit", "join_match=off", "--limit", "client_actions=off"]
#: How a baseline commit's service is named in the tables: ``typhoon serve @c671d70``.
BASELINE_PREFIX = "typhoon serve @"
#: What typhoon serve logs once its history pool's processes are up (service.guard.history_pool.HistoryPool.warm).
WARMED_EVENTS = ("history_pool_warm", "history_pool_not_warmed")
#: The issue's targets: service / floor.
TARGETS = {"grpc": {"cpu": 2.5, "throughput": 0.5, "p99": 2.0}, "rest": {"cpu": 3.0}}


# --- the floor server (a child process) -------------------------------------------------------------

async def _serve_floor(redis_url: str = "") -> None:
    """The floor server; given ``redis_url``, each call first reads one key there, as the service's
    scripts are sent (service.store.lean_redis.Lane): the transport and one Redis round trip."""
    import uvicorn

    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    lane = Lane(Store.from_url(redis_url).redis) if redis_url else None

    def empty(response_type):
        async def handler(request, context):
            if lane:
                await lane.execute_command("GET", "floor")
            return response_type()
        return handler

    handlers = {
        "ListLegalActions": grpc.unary_unary_rpc_method_handler(
            empty(api.ListLegalActionsResponse), request_deserializer=api.ListLegalActionsRequest.FromString,
            response_serializer=api.ListLegalActionsResponse.SerializeToString),
        "SubmitAction": grpc.unary_unary_rpc_method_handler(
            empty(api.SubmitActionResponse), request_deserializer=api.SubmitActionRequest.FromString,
            response_serializer=api.SubmitActionResponse.SerializeToString),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    grpc_port = server.add_insecure_port("127.0.0.1:0")
    await server.start()

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        if lane:
            await lane.execute_command("GET", "floor")
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"{}"})

    # the same listening socket and uvicorn settings as service/run/server.py
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    sock.setblocking(False)
    http = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="off",
                                         http=HTTP_PARSER))
    task = asyncio.create_task(http.serve(sockets=[sock]))
    while not http.started:
        await asyncio.sleep(0.01)
    print(json.dumps({"event": "serving", "grpc_port": grpc_port, "http_port": sock.getsockname()[1]}), flush=True)
    await task


# --- starting servers -------------------------------------------------------------------------------

class ServerProcess:
    """A server child process, pinned to ``cores`` if given; its log goes to a file."""

    def __init__(self, args: list[str], log_path: Path, cores: set[int] | None, tree: Path = ROOT) -> None:
        self.log_path = log_path
        self.cores = cores

        # taskset, not a preexec_fn: this process runs gRPC, and a fork without exec restarts gRPC's poller
        # in the child, which aborts when the fork closes the descriptors (grpc/grpc#43055); the child's
        # threads and children inherit the affinity
        if cores:
            args = ["taskset", "-c", ",".join(map(str, sorted(cores))), *args]
        self.log = open(log_path, "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(args, cwd=tree, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT,
                                        env=dict(os.environ, REDIS_URL="", PYTHONUNBUFFERED="1", PYTHONPATH=str(tree),
                                                 **{DIE_WITH_PARENT_VARIABLE: str(os.getpid())}))
        self.grpc_port = self.http_port = 0

    def wait_serving(self, timeout: float = 60.0) -> "ServerProcess":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.log_path.read_text().splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("event") == "serving":
                    self.grpc_port, self.http_port = entry["grpc_port"], entry["http_port"]
                    return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the server did not start:\n{self.log_path.read_text()[-2000:]}")

    def wait_logged(self, events: tuple[str, ...], timeout: float = 60.0) -> None:
        """Wait until the server has logged one of ``events`` (or ``timeout`` passed, or it ended)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            for line in self.log_path.read_text().splitlines():
                try:
                    if json.loads(line).get("event") in events:
                        return
                except (ValueError, AttributeError):
                    continue
            time.sleep(0.1)

    def family(self) -> list[psutil.Process]:
        root = psutil.Process(self.process.pid)  # taskset execs the server: same process
        return [root, *root.children(recursive=True)]

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU seconds used so far by the server's Python processes, and by its Redis."""
        server = redis = 0.0
        for process in self.family():
            try:
                times = process.cpu_times()
                is_redis = "redis-server" in process.name()
            except psutil.Error:
                continue
            if is_redis:
                redis += times.user + times.system
            else:
                server += times.user + times.system
        return server, redis

    def stop(self) -> None:
        stop_process(self.process, 30)
        self.log.close()


# --- the client loop --------------------------------------------------------------------------------

@dataclass
class Result:
    target: str
    transport: str
    calls: int = 0
    errors: int = 0
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    server_cpu_s: float = 0.0
    redis_cpu_s: float = 0.0
    other_cpu_s: float = 0.0

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        values = sorted(self.latencies_ms)
        return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0

    @property
    def cpu_ms(self) -> float:
        return self.server_cpu_s * 1000 / self.calls if self.calls else 0.0

    @property
    def redis_ms(self) -> float:
        return self.redis_cpu_s * 1000 / self.calls if self.calls else 0.0

    def row_cells(self) -> list:
        row = self.row()
        return [row["calls_per_s"], row["p50_ms"], row["p99_ms"], row["server_cpu_ms_per_call"],
                row["redis_cpu_ms_per_call"], row["errors"], row["other_processes_cores"]]

    def row(self) -> dict:
        return {"target": self.target, "transport": self.transport, "calls": self.calls, "errors": self.errors,
                "calls_per_s": round(self.rate, 1), "p50_ms": round(self.percentile(0.50), 2),
                "p99_ms": round(self.percentile(0.99), 2), "server_cpu_ms_per_call": round(self.cpu_ms, 3),
                "redis_cpu_ms_per_call": round(self.redis_ms, 3),
                "other_processes_cores": round(self.other_cpu_s / self.seconds, 2) if self.seconds else 0}


class Window:
    """The measured part of a phase: calls, latencies and CPU only between open() and close()."""

    def __init__(self, result: Result, server: ServerProcess) -> None:
        self.result = result
        self.server = server
        self.open_at: float | None = None

    def open(self) -> None:
        self.cpu = self.server.cpu_seconds()
        self.machine = _machine_busy()
        self.client = _own_cpu()
        self.open_at = time.perf_counter()

    def close(self) -> None:
        self.result.seconds = time.perf_counter() - self.open_at
        server, redis = self.server.cpu_seconds()
        self.result.server_cpu_s = server - self.cpu[0]
        self.result.redis_cpu_s = redis - self.cpu[1]
        machine = _machine_busy() - self.machine
        self.result.other_cpu_s = max(0.0, machine - self.result.server_cpu_s - self.result.redis_cpu_s
                                      - (_own_cpu() - self.client))
        self.open_at = None

    def record(self, started: float, ok: bool) -> None:
        if self.open_at is None or started < self.open_at:
            return
        self.result.calls += 1
        self.result.latencies_ms.append((time.perf_counter() - started) * 1000)
        if not ok:
            self.result.errors += 1


def _machine_busy() -> float:
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


def _own_cpu() -> float:
    times = psutil.Process().cpu_times()
    return times.user + times.system


async def _new_match(stub, rng: random.Random) -> tuple[str, dict[str, str]]:
    request = api.CreateMatchRequest(scenario="standard", request_id=uuid.uuid4().hex)
    if TIME_CONTROL:
        from clients.client import as_time_control

        request.time_control.CopyFrom(as_time_control(TIME_CONTROL))
    tokens = {}
    for side in ("german", "soviet"):
        token = f"{side}-{rng.getrandbits(128):032x}"
        tokens[side] = token
        request.seats.add(side=side, player_name=f"bench {side}", seat_token=token)
    response = await stub.CreateMatch(request)
    return response.match.match_id, tokens


async def _grpc_player(stub, window: Window, stop: asyncio.Event, floor: bool, rng: random.Random) -> None:
    match_id, tokens = ("floor", {"german": "x", "soviet": "x"}) if floor else await _new_match(stub, rng)
    while not stop.is_set():
        started = time.perf_counter()
        try:
            legal = await stub.ListLegalActions(api.ListLegalActionsRequest(match_id=match_id))
        except grpc.aio.AioRpcError:
            window.record(started, False)
            continue
        window.record(started, True)
        if not floor and not legal.side_to_act:  # over: play another (not measured)
            match_id, tokens = await _new_match(stub, rng)
            continue
        action = rng.choice(legal.actions) if legal.actions else FIXED_ACTION
        token = tokens.get(legal.side_to_act or "german")
        started = time.perf_counter()
        try:
            await stub.SubmitAction(api.SubmitActionRequest(match_id=match_id, action=action,
                                                            expected_version=legal.version,
                                                            request_id=uuid.uuid4().hex),
                                    metadata=(("authorization", f"Bearer {token}"),))
            window.record(started, True)
        except grpc.aio.AioRpcError:
            window.record(started, False)


async def _rest_player(http: aiohttp.ClientSession, stub, window: Window, stop: asyncio.Event, floor: bool,
                       rng: random.Random) -> None:
    match_id, tokens = ("floor", {"german": "x", "soviet": "x"}) if floor else await _new_match(stub, rng)
    while not stop.is_set():
        started = time.perf_counter()
        try:
            async with http.get(f"/v1/matches/{match_id}/legal-actions") as reply:
                legal = await reply.json()
                ok = reply.status == 200
        except aiohttp.ClientError:
            legal, ok = {}, False
        window.record(started, ok)
        if not ok:
            continue
        side = legal.get("side_to_act") or ""
        if not floor and not side:
            match_id, tokens = await _new_match(stub, rng)
            continue
        actions = legal.get("actions") or [FIXED_ACTION_JSON]
        body = {"action": rng.choice(actions), "expected_version": legal.get("version", 0),
                "request_id": uuid.uuid4().hex}
        started = time.perf_counter()
        try:
            async with http.post(f"/v1/matches/{match_id}/actions", json=body,
                                 headers={"authorization": f"Bearer {tokens.get(side or 'german')}"}) as reply:
                await reply.read()
                ok = reply.status == 200
        except aiohttp.ClientError:
            ok = False
        window.record(started, ok)


async def run_phase(server: ServerProcess, target: str, transport: str, matches: int, warmup: float,
                    seconds: float, seed: str, profile: Path | None = None, channels: int = 1) -> Result:
    result = Result(target, transport)
    window = Window(result, server)
    stop = asyncio.Event()
    floor = not target.startswith("typhoon serve")  # the floors offer no matches
    rng = random.Random(seed)
    # one gRPC connection per channel: the kernel spreads connections (not calls) over --workers
    opened = [grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}",
                                        options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(channels)]
    stubs = [match_service_pb2_grpc.MatchServiceStub(channel) for channel in opened]
    try:
        stub = stubs[0]
        connector = aiohttp.TCPConnector(limit=matches)
        async with aiohttp.ClientSession(f"http://127.0.0.1:{server.http_port}", connector=connector,
                                         timeout=aiohttp.ClientTimeout(total=60)) as http:
            if transport == "grpc":
                players = [_grpc_player(stubs[i % channels], window, stop, floor, random.Random(rng.random()))
                           for i in range(matches)]
            else:
                players = [_rest_player(http, stub, window, stop, floor, random.Random(rng.random()))
                           for _ in range(matches)]
            tasks = [asyncio.create_task(p) for p in players]
            await asyncio.sleep(warmup)
            profiler = _profiler(server, profile / f"{transport}.txt", seconds, NATIVE) if profile else None
            window.open()
            await asyncio.sleep(seconds)
            window.close()
            if profiler:
                await asyncio.to_thread(profiler.wait, 60)
            stop.set()
            failures = [r for r in await asyncio.gather(*tasks, return_exceptions=True) if isinstance(r, Exception)]
            if failures:  # a player that could not play (its match not created) made no calls: say why
                print(f"{target}: {len(failures)} of {matches} players failed: {failures[0]!r}"[:2000], file=sys.stderr)
    finally:
        for channel in opened:
            await channel.close()
    return result


def _profiler(server: ServerProcess, out: Path, seconds: float, native: bool = False) -> subprocess.Popen:
    """py-spy sampling the server's Python processes (collapsed stacks, one line per stack and count);
    ``native`` adds the C frames (gRPC's core, protobuf's, hiredis), pausing the process at each sample."""
    out.parent.mkdir(parents=True, exist_ok=True)
    beside = Path(sys.executable).parent / "py-spy"
    return subprocess.Popen([str(beside) if beside.exists() else "py-spy", "record", "--format", "raw",
                             *(["--native"] if native else ["--nonblocking"]), "-d", str(int(seconds)),
                             "-o", str(out), "-p", str(server.process.pid), "--subprocesses"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


#: A sample whose innermost frame is one of these (the event loop running a callback, the gRPC poller
#: thread, the selector) is time in C under them: gRPC's core and Cython, asyncio's tasks.
IN_C = "transport and event loop (C)"
IN_C_FRAMES = ("Handle._run (asyncio/events.py:80)", "Thread.run (threading.py", "EpollSelector.select")
#: Where the rest of a profiled call's time goes: (part, what marks a sample's frames as that part),
#: the first that matches wins.
PARTS = (
    ("engine", ("(engine/",)),
    ("Redis client", ("(redis/", "(service/store/lean_redis.py", "(service/store/match_store.py", "(hiredis")),
    ("logging", ("(structlog/", "(service/api/log_context.py")),
    ("metrics", ("(prometheus_client/", "(service/metrics.py")),
    ("HTTP framework", ("(uvicorn/", "(starlette/", "(fastapi/", "(h11/", "(httptools/", "(sse_starlette/")),
    ("service (other Python)", ("(service/", "service_floor.py")),
)
OTHER_PART = "asyncio and other Python"
PART_NAMES = (IN_C, *(name for name, _ in PARTS), OTHER_PART)


def profile_parts(path: Path) -> dict[str, float]:
    r"""The share of a py-spy raw profile's samples in each of ``PART_NAMES``.

    >>> import tempfile
    >>> raw = Path(tempfile.mkdtemp()) / "grpc.txt"
    >>> _ = raw.write_text("process 1;run (asyncio/runners.py:190);Handle._run (asyncio/events.py:80) 3\n"
    ...                    "process 1;handler (service/api/grpc_api.py:80);apply (engine/game.py:10) 1\n"
    ...                    "process 1;run_event_loop (service/run/server.py:306);Handle._run (asyncio/events.py:80);"
    ...                    "call_soon (asyncio/base_events.py:768) 1\n")
    >>> parts = profile_parts(raw)
    >>> parts["transport and event loop (C)"], parts["engine"], parts["asyncio and other Python"]
    (0.6, 0.2, 0.2)
    """
    counts = dict.fromkeys(PART_NAMES, 0)
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if frames and frames[0].startswith("process "):
            frames = frames[1:]
        if not frames or any(mark in frames[-1] for mark in IN_C_FRAMES):
            part = IN_C
        else:
            # what runs the loop (clients.cli, service.run.server) is not the call's own code
            first_callback = next((i for i, frame in enumerate(frames) if frame.startswith("Handle._run ")), 0)
            text = ";".join(frames[first_callback:])
            part = next((name for name, marks in PARTS if any(mark in text for mark in marks)), OTHER_PART)
        counts[part] += int(count)
    total = sum(counts.values()) or 1
    return {part: count / total for part, count in counts.items()}


def profile_rows(profile: Path, results: dict[tuple[str, str], Result], transports: list[str]) -> list[list]:
    """Each profiled server's CPU per call split by ``PART_NAMES`` (its samples' shares of the measured CPU)."""
    rows = []
    for transport in transports:
        for (target, where), result in results.items():
            raw = profile / target.replace(" ", "-") / f"{transport}.txt"
            if where != transport or not raw.exists():
                continue
            shares = profile_parts(raw)
            rows.append([transport, target, f"{result.cpu_ms:.3f}",
                         *(f"{share * result.cpu_ms:.3f}" for share in shares.values())])
    return rows


# --- the run ----------------------------------------------------------------------------------------

def ratios(floor: Result, service: Result) -> dict[str, float]:
    def div(a: float, b: float) -> float:
        return round(a / b, 2) if b else float("inf")

    return {"cpu": div(service.cpu_ms, floor.cpu_ms), "throughput": div(service.rate, floor.rate),
            "p99": div(service.percentile(0.99), floor.percentile(0.99)),
            "p50": div(service.percentile(0.50), floor.percentile(0.50))}


def verdict(transport: str, ratio: dict[str, float]) -> str:
    parts = []
    for name, limit in TARGETS[transport].items():
        good = ratio[name] >= limit if name == "throughput" else ratio[name] <= limit
        sign = "≥" if name == "throughput" else "≤"
        parts.append(f"{name} {ratio[name]}× ({'met' if good else 'MISSED'}: {sign} {limit}×)")
    return ", ".join(parts)


def summarize(results: dict[tuple[str, str], Result], transports: list[str],
              label: str = "") -> tuple[list[list], dict[str, dict]]:
    """One round's table rows (each transport labelled ``transport + label``) and figures."""
    rows, summary = [], {}
    for transport in transports:
        floor, with_redis = results["floor", transport], results[FLOOR_REDIS, transport]
        service = results["typhoon serve", transport]
        ratio, redis_ratio = ratios(floor, service), ratios(with_redis, service)
        summary[transport] = {"floor": floor.row(), "floor_redis": with_redis.row(), "service": service.row(),
                              "ratios": ratio, "ratios_to_floor_redis": redis_ratio,
                              "verdict": verdict(transport, ratio)}
        for result in (floor, with_redis, service):
            rows.append([transport + label, result.target, *result.row_cells()])
        compared = [("service / floor", ratio), ("service / floor + Redis", redis_ratio)]
        baseline = next((result for (target, where), result in results.items()
                         if where == transport and target.startswith(BASELINE_PREFIX)), None)
        if baseline:
            before = {"floor": ratios(floor, baseline), "floor_redis": ratios(with_redis, baseline),
                      "after_to_before": ratios(baseline, service)}
            summary[transport]["baseline"] = {"service": baseline.row(), "ratios": before}
            rows.append([transport + label, baseline.target, *baseline.row_cells()])
            compared += [(f"{baseline.target} / floor", before["floor"]),
                         (f"{baseline.target} / floor + Redis", before["floor_redis"]),
                         (f"service / {baseline.target}", before["after_to_before"])]
        for name, r in compared:
            rows.append([transport + label, name, f"{r['throughput']}×", f"{r['p50']}×", f"{r['p99']}×",
                         f"{r['cpu']}×", "", "", ""])
    return rows, summary


def median_ratios(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Each ratio's median over the rounds (the machine's noise moves single rounds by ±15 %).

    >>> median_ratios([{"cpu": 3.0, "p99": 4.0}, {"cpu": 3.6, "p99": 3.0}, {"cpu": 3.2, "p99": 5.0}])
    {'cpu': 3.2, 'p99': 4.0}
    """
    return {name: round(statistics.median(r[name] for r in rounds), 2) for name in rounds[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=50, help="matches played at once (50)")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per phase (15)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (3)")
    parser.add_argument("--transport", choices=["grpc", "rest", "both"], default="both")
    parser.add_argument("--serve-args", default="", help="more arguments for typhoon serve, e.g. '--workers 2'")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the server and the client to cores")
    parser.add_argument("--channels", type=int, default=1,
                        help="gRPC channels (connections) the matches are spread over (1; more for --workers)")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure everything this many times, alternating, and judge the median ratios (1)")
    parser.add_argument("--time-control", default=None,
                        help="give the service's matches clocks, e.g. 3600+0 (no flag falls): what clocks cost")
    parser.add_argument("--baseline", metavar="REV", default=None,
                        help="also run commit REV's typhoon serve in each round: the service before and after")
    parser.add_argument("--json", default=None, help="write the figures as JSON to this file")
    parser.add_argument("--profile", default=None,
                        help="record py-spy profiles of each server into DIR/SERVER/TRANSPORT.txt (py-spy on PATH)")
    parser.add_argument("--native", action="store_true",
                        help="with --profile: sample native (C) frames too (py-spy --native; slows the server)")
    parser.add_argument("--serve-floor", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-redis-dir", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    global TIME_CONTROL, NATIVE
    TIME_CONTROL, NATIVE = args.time_control, args.native
    if args.serve_floor:
        from service.run.server import run_event_loop  # the event loop typhoon serve runs on

        die_with_parent_if_asked()
        if not args.floor_redis_dir:
            run_event_loop(_serve_floor())
            return 0
        with EmbeddedRedis(args.floor_redis_dir) as redis_url:  # beside the floor, as typhoon serve's
            run_event_loop(_serve_floor(redis_url))
        return 0

    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pin = len(cores) >= 2 and not args.no_pin
    server_cores = {cores[0]} if pin else None
    if pin:
        os.sched_setaffinity(0, {cores[1]})  # before any thread exists: gRPC's threads inherit it
    transports = ["grpc", "rest"] if args.transport == "both" else [args.transport]
    workdir = Path(tempfile.mkdtemp(prefix="typhoon-bench-"))
    floor_command = [sys.executable, str(Path(__file__).resolve()), "--serve-floor"]
    commands = {
        "floor": floor_command,
        FLOOR_REDIS: [*floor_command, "--floor-redis-dir", str(workdir / "floor-redis")],
        "typhoon serve": [sys.executable, "-m", "clients.cli", "serve", "--grpc-port", "0", "--http-port", "0",
                          "--data-dir", str(workdir / "data"), *SERVE_ARGS, *shlex.split(args.serve_args)],
    }
    trees = dict.fromkeys(commands, ROOT)
    with ExitStack() as stack:
        if args.baseline:
            tree = stack.enter_context(worktree(args.baseline))
            target = BASELINE_PREFIX + short(args.baseline)
            commands[target] = _baseline_command(tree, commands["typhoon serve"])
            trees[target] = tree
        return _measure(args, commands, trees, transports, workdir, server_cores, cores, pin)


def _baseline_command(tree: Path, command: list[str]) -> list[str]:
    """``command`` (this tree's typhoon serve) for the service of ``tree``, without the flags it lacks."""
    known = subprocess.run([sys.executable, "-m", "clients.cli", "serve", "--help"], cwd=tree, capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=str(tree))).stdout
    limits = tree / "service" / "guard" / "limit_settings.py"
    known_limits = limits.read_text() if limits.exists() else ""
    kept, words = [], iter(command)
    for word in words:
        if word in SERVE_ARGS and word.startswith("--") and f"{word} " not in known:
            next(words, None)  # and its value
            continue
        if word == "--limit":
            value = next(words, "")
            if f'"{value.partition("=")[0]}"' in known_limits:  # a limit that tree has
                kept += [word, value]
            continue
        kept.append(word)
    return kept


def _round_order(commands: dict[str, list[str]], number: int) -> list[tuple[str, list[str]]]:
    """The servers of round ``number`` (from 0) in the order they run: the floors first, then the
    services, the baseline's before this tree's in every other round (alternated, so that neither
    always runs last, as the machine's load drifts).

    >>> [t for t, _ in _round_order({"floor": [], FLOOR_REDIS: [], "typhoon serve": [], "typhoon serve @a": []}, 1)]
    ['floor', 'floor + Redis GET', 'typhoon serve @a', 'typhoon serve']
    """
    floors = [(t, c) for t, c in commands.items() if t in ("floor", FLOOR_REDIS)]
    services = [(t, c) for t, c in commands.items() if t not in ("floor", FLOOR_REDIS)]
    return floors + (services[::-1] if number % 2 else services)


def _measure(args: argparse.Namespace, commands: dict[str, list[str]], trees: dict[str, Path],
             transports: list[str], workdir: Path, server_cores: set[int] | None, cores: list[int],
             pin: bool) -> int:
    load_before = os.getloadavg()
    rounds: list[dict[tuple[str, str], Result]] = []
    try:
        for number in range(args.rounds):  # each round starts every server afresh
            results: dict[tuple[str, str], Result] = {}
            for target, command in _round_order(commands, number):
                # every service starts on an empty store: the seeded players draw the same seat tokens in each
                # phase, which a store that kept another phase's matches refuses (SEAT_TOKEN_REUSED)
                shutil.rmtree(workdir / "data", ignore_errors=True)
                server = ServerProcess(command, workdir / f"{target.replace(' ', '-')}.log",
                                       server_cores, trees[target]).wait_serving()
                if target not in ("floor", FLOOR_REDIS):
                    # the history pool's process starts (~2-3 s of CPU, more on a busy core) once the service
                    # serves: a one-off, not the calls', so it is not left to fall in the measured window
                    server.wait_logged(WARMED_EVENTS)
                try:
                    for transport in transports:
                        profile = Path(args.profile) / target.replace(" ", "-") if args.profile else None
                        results[target, transport] = asyncio.run(run_phase(
                            server, target, transport, args.matches, args.warmup, args.seconds, args.seed, profile,
                            args.channels))
                finally:
                    server.stop()
            rounds.append(results)
    except BaseException:
        print(f"the servers' logs and data are kept in {workdir}", file=sys.stderr)
        raise
    load_after = os.getloadavg()

    print(f"{args.matches} matches at once, {args.seconds:.0f} s measured per phase after {args.warmup:.0f} s; "
          + (f"server on core {cores[0]}, client on core {cores[1]}" if pin else "not pinned")
          + f"; {psutil.cpu_count()} cores; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
          + (f"; typhoon serve {args.serve_args}" if args.serve_args else "")
          + (f"; {args.channels} gRPC channels" if args.channels > 1 else "")
          + (f"; matches with clocks {args.time_control}" if args.time_control else "")
          + (f"; {args.rounds} rounds" if args.rounds > 1 else "")
          + (f"; before: {BASELINE_PREFIX}{short(args.baseline)}" if args.baseline else ""))
    rows, summaries = [], []
    for number, results in enumerate(rounds, 1):
        label = f" #{number}" if args.rounds > 1 else ""
        round_rows, summary = summarize(results, transports, label)
        rows += round_rows
        summaries.append(summary)
    print(tabulate(rows, headers=["", "server", "calls/s", "p50 ms", "p99 ms", "server CPU ms/call",
                                  "Redis CPU ms/call", "errors", "other procs (cores)"],
                   tablefmt="simple", disable_numparse=True))
    if args.profile:
        print(f"\nserver CPU ms per call by part (py-spy samples in {args.profile}; the last round):")
        print(tabulate(profile_rows(Path(args.profile), rounds[-1], transports),
                       headers=["", "server", "CPU ms/call", *PART_NAMES],
                       tablefmt="simple", disable_numparse=True))
    medians = {transport: median_ratios([summary[transport]["ratios"] for summary in summaries])
               for transport in transports}
    for transport in transports:
        if args.rounds > 1:
            print(f"{transport}, median of {args.rounds} rounds: {verdict(transport, medians[transport])}")
        else:
            print(f"{transport}: {summaries[0][transport]['verdict']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"settings": vars(args), "cores": len(cores), "pinned": pin,
                                               "load": [load_before, load_after], "rounds": summaries,
                                               "median_ratios": medians, "results": summaries[-1]}, indent=2))
    errors = sum(r.errors for results in rounds for r in results.values())
    if errors:
        print(f"{errors} calls failed: the servers' logs and data are kept in {workdir}", file=sys.stderr)
        return 1
    shutil.rmtree(workdir, ignore_errors=True)  # a run's Redis data and logs (~50 MB) are of no use after it
    return 0


if __name__ == "__main__":
    sys.exit(main())
