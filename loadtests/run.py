"""One command for a Typhoon load test: start the service, run locust headless, print the figures.

    .venv/bin/python -m loadtests.run --users 50 --run-time 2m
    .venv/bin/python -m loadtests.run --users 200 --services 2 --locust-processes 2 --run-time 3m
    .venv/bin/python -m loadtests.run --users 50 --transport rest --watchers 10
    .venv/bin/python -m loadtests.run --users 50 --redis-url redis://10.0.0.5:6379/0
    .venv/bin/python -m loadtests.run --users 50 --grpc-target host:50051 --http-url http://host:8080

``--users`` is the number of player users, i.e. of matches played at the same time (each user
plays one whole match after another). By default one ``typhoon serve`` process runs with its own
embedded Redis (in a temporary directory); with ``--services N`` the runner starts one embedded
Redis and N service processes sharing it (users are spread round-robin over them); with
``--redis-url`` (or ``$REDIS_URL``) the services use that Redis; with ``--grpc-target``/``--http-url``
nothing is started and an already running service is tested.

At the end it prints: requests per second, latency percentiles per RPC and transport, failures,
matches completed, matches running at once, actions per second, watch delivery lag, and the CPU
used by the service processes, Redis and locust. ``--json FILE`` writes all of it; ``--out DIR``
keeps locust's CSV files and the service logs (otherwise a temporary directory, removed).

Everything it starts is stopped at the end, also on Ctrl-C or SIGTERM: locust first (it writes its
statistics), then the services with SIGTERM (graceful shutdown), then the embedded Redis.
The exit status is 0 when there were no failed requests, no abandoned matches, no watch gaps and
every service stopped cleanly.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import psutil
from tabulate import tabulate

from loadtests.metrics import percentile
from service.processes import ServeProcess, stop_process

ROOT = Path(__file__).resolve().parents[1]
LOCUSTFILE = Path(__file__).resolve().parent / "locustfile.py"

PLAYERS = {"grpc": ["GrpcMatchUser"], "rest": ["RestMatchUser"], "mixed": ["GrpcMatchUser", "RestMatchUser"]}
WATCHERS = {"grpc": ["GrpcWatchUser"], "rest": ["SseWatchUser"], "mixed": ["GrpcWatchUser", "SseWatchUser"]}

# locust's (type, name) -> (RPC, transport)
REST_NAMES = {
    ("POST", "/v1/matches"): "CreateMatch",
    ("POST", "/v1/matches/{id}/join"): "JoinMatch",
    ("GET", "/v1/matches/{id}"): "GetMatch",
    ("GET", "/v1/matches?status=MATCH_STATUS_ACTIVE"): "ListMatches",
    ("GET", "/v1/matches/{id}/legal-actions"): "ListLegalActions",
    ("POST", "/v1/matches/{id}/actions"): "SubmitAction",
    ("POST", "/v1/matches/{id}/resign"): "Resign",
    ("GET", "/v1/matches/{id}/events"): "GetEventLog",
    ("SSE", "/v1/matches/{id}/watch (catch-up)"): "WatchMatch (catch-up)",
    ("SSE", "/v1/matches/{id}/watch (follow)"): "WatchMatch (follow)",
    ("SSE", "/v1/matches/{id}/watch (play)"): "WatchMatch (play)",
}
RPC_ORDER = ["CreateMatch", "JoinMatch", "WatchMatch (play)", "ListLegalActions", "SubmitAction", "Resign", "GetMatch",
             "GetEventLog", "WatchMatch (catch-up)", "ListMatches", "WatchMatch (follow)"]


#: Users started a second per service process, by default: a stream-driven player opens two streams at
#: once (its seats) and a watcher one, and a process admits 50 opens a second of every client together
#: (the service's ``stream_opens`` limit) and refuses the rest with a turn to come back. Locust starts
#: each second's users together, and they need not spread evenly over the processes: at 20 a second per
#: process, 1,000 users met 2,600 refusals, whose turns came back with the next second's users.
USERS_PER_PROCESS_SECOND = 10.0


def default_spawn_rate(users: int, processes: int) -> float:
    """Users started a second: every user within 5 s, or slower, within the service's stream opens.

    >>> default_spawn_rate(20, 1), default_spawn_rate(1000, 2), default_spawn_rate(1000, 8)
    (4.0, 20.0, 80.0)
    """
    return max(1.0, min(users / 5, USERS_PER_PROCESS_SECOND * max(1, processes)))


def seconds_of(text: str) -> float:
    """Locust's time format: 90, 90s, 2m, 1h30m, 1m30s."""
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+)\s*([hms])", text)
    if not parts or "".join(f"{n}{u}" for n, u in parts) != text.replace(" ", ""):
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 90s, 2m, 1m30s)")
    return float(sum(int(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts))


def _think_range(text: str) -> tuple[float, float]:
    low, dash, high = text.partition("-")
    return (float(low), float(high)) if dash else (0.5 * float(text), 1.5 * float(text))


def _until_of(text: str) -> dict[str, int]:
    """``--until``'s value: each RPC named, and the calls it needs.

    >>> _until_of("CreateMatch,Resign=2")
    {'CreateMatch': 2, 'Resign': 2}
    """
    names, equals, count = text.rpartition("=")
    if not equals or not count.isdigit() or not names:
        raise argparse.ArgumentTypeError(f"RPC,RPC,...=N, not {text!r}")
    return {name.strip(): int(count) for name in names.split(",") if name.strip()}


def reached(until: dict[str, int], transports: list[str], rows: list[dict[str, Any]]) -> bool:
    """Whether every RPC of ``until`` has had its calls over every transport, by locust's statistics so far.

    >>> row = lambda rpc, transport, n: {"rpc": rpc, "transport": transport, "requests": n}
    >>> reached({"Resign": 2}, ["grpc", "rest"], [row("Resign", "grpc", 2), row("Resign", "rest", 1)])
    False
    >>> reached({"Resign": 2}, ["grpc", "rest"], [row("Resign", "grpc", 2), row("Resign", "rest", 3)])
    True
    """
    calls = {(r["rpc"], r["transport"]): r["requests"] for r in rows}
    return bool(until) and all(calls.get((rpc, transport), 0) >= count
                               for rpc, count in until.items() for transport in transports)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m loadtests.run", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", "-u", type=int, default=50, help="player users = simultaneous matches (50)")
    parser.add_argument("--watchers", type=int, default=0, help="watcher users following running matches (0)")
    parser.add_argument("--transport", choices=sorted(PLAYERS), default="grpc",
                        help="players (and watchers) over gRPC, REST, or both (grpc)")
    parser.add_argument("--rest-share", type=float, default=0.5,
                        help="with --transport mixed: the share of players on REST/SSE, the rest on gRPC (0.5)")
    parser.add_argument("--workload", choices=["stream", "poll"], default="stream",
                        help="stream: each seat acts from its match_update stream, as typhoon bot does; poll: "
                             "ListLegalActions before every action, as the clients of old (stream)")
    parser.add_argument("--run-time", "-t", type=seconds_of, default=60.0, help="how long, e.g. 90s, 2m (60s)")
    parser.add_argument("--spawn-rate", "-r", type=float, default=0.0,
                        help="users started per second (default: all within 5 s, but at most "
                             f"{USERS_PER_PROCESS_SECOND:g} a second per service process: each opens its streams, "
                             "which a process admits at its stream_opens limit, 50 a second)")
    parser.add_argument("--services", type=int, default=1, help="service processes sharing one Redis (1)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"),
                        help="use this Redis (default: $REDIS_URL, else an embedded one)")
    parser.add_argument("--grpc-target", action="append", default=[],
                        help="test a running service at host:port instead (repeatable)")
    parser.add_argument("--http-url", action="append", default=[],
                        help="REST base URL of the running service (repeatable; with --grpc-target)")
    parser.add_argument("--locust-processes", type=int, default=1,
                        help="locust processes (more than 1: a master and that many workers)")
    parser.add_argument("--max-actions", type=int, default=0,
                        help="players resign after this many actions (0: every match is played to its end)")
    parser.add_argument("--think-time", default="0",
                        help="players' seconds between actions: LOW-HIGH (e.g. 2-4), or T for 0.5T-1.5T (0)")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes per service (typhoon serve --workers; 0: one per core) (1)")
    parser.add_argument("--event-log-every", type=int, default=50, help="players read the log every N actions")
    parser.add_argument("--watch-every", type=int, default=100, help="players catch up on a watch every N actions")
    parser.add_argument("--watch-seconds", type=float, default=15.0, help="how long a watcher follows a match")
    parser.add_argument("--service-log-level", default="info", choices=["debug", "info", "warning", "error"],
                        help="the services' --log-level (info: one JSON line per call, as in production)")
    parser.add_argument("--out", default=None, help="keep locust's CSV files and the service logs here")
    parser.add_argument("--json", default=None, help="write the figures as JSON to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--pin", action="store_true",
                        help="the service's processes on the first CPU, locust and the embedded Redis on the "
                             "others (with --workers 1: the service's capacity on one core of its own, whatever "
                             "the load generator spends)")
    parser.add_argument("--include-ramp-up", action="store_true",
                        help="count the calls made while users are still starting (with --until always); by "
                             "default the figures are of --run-time once the last user started")
    parser.add_argument("--until", type=_until_of, default={}, metavar="RPC,...=N",
                        help="end the run as soon as each of these RPCs has been called N times over each transport "
                             "of the run (--run-time still ends it at the latest): for a smoke test that must see "
                             "every call whatever the machine's load, not a throughput")
    args = parser.parse_args(argv)
    try:
        low, high = _think_range(args.think_time)
    except ValueError:
        parser.error(f"--think-time: not seconds or LOW-HIGH: {args.think_time!r}")
    if not 0 <= low <= high:
        parser.error("--think-time: LOW-HIGH with 0 <= LOW <= HIGH")
    if args.users < 1 or args.services < 1 or args.watchers < 0:
        parser.error("--users and --services must be at least 1, --watchers at least 0")
    if args.http_url and not args.grpc_target and args.transport != "rest":
        parser.error("--http-url alone tests REST only: add --transport rest, or give --grpc-target too")
    if args.grpc_target and not args.http_url and args.transport != "grpc":
        parser.error("the REST users need --http-url")
    return args


# --- processes ---------------------------------------------------------------------------------------

class Service(ServeProcess):
    """One ``typhoon serve`` child process; its JSON log goes to a file."""

    def __init__(self, index: int, workdir: Path, redis_url: str | None, log_level: str, workers: int = 1) -> None:
        # the defaults, rate limits included; 127.0.0.1 is trusted as a proxy, so each user counts as the
        # address of its own it forwards (loadtests/locustfile.py), as behind a proxy in production
        arguments = ["--data-dir", str(workdir / f"data-{index}"), "--log-level", log_level, "--grace", "5",
                     "--trusted-proxy", "127.0.0.1"]
        if redis_url:
            arguments += ["--redis-url", redis_url]
        # the URL, if any, is on the command line; the last lines are kept for a failed start
        super().__init__(*arguments, env={"REDIS_URL": ""}, log_path=workdir / f"service-{index}.log",
                         remember=50, own_session=True, workers=workers)
        self.index = index

    def log_summary(self, since: float | None = None) -> dict[str, Any]:
        """What the service's log says: calls by outcome code, warnings and errors; the handlers' times
        of the calls logged at ``since`` (epoch seconds: the ramp-up's end) or later."""
        codes: dict[str, int] = {}
        handler_ms: dict[str, list[float]] = {}
        problems: list[str] = []
        stopped = False
        if self.log_path.exists():
            for line in self.log_path.read_text(errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    if line.strip():
                        problems.append(line.strip()[:200])
                    continue
                if entry.get("event") == "rpc":
                    codes[entry.get("code", "?")] = codes.get(entry.get("code", "?"), 0) + 1
                    if not entry.get("streaming") and "sent" not in entry and "ms" in entry \
                            and (since is None or _epoch(entry.get("timestamp")) >= since):
                        transport = "rest" if entry.get("transport") == "http" else "grpc"
                        handler_ms.setdefault(f"{entry.get('rpc')} {transport}", []).append(entry["ms"])
                elif entry.get("event") == "stopped":
                    stopped = True
                if entry.get("level") in ("warning", "error", "critical"):
                    problems.append(line[:300])
        return {"calls_by_code": codes, "problems": len(problems), "first_problems": problems[:5],
                "stopped_cleanly": stopped and self.returncode == 0, "handler_ms": handler_ms}


def pin(pids: list[int], cpus: set[int], redis_cpus: set[int] | None = None) -> None:
    """Keep these processes and their children (those alive now) on ``cpus``, any ``redis-server`` among
    them on ``redis_cpus`` (if given)."""
    for pid in pids:
        try:
            root = psutil.Process(pid)
            for process in [root, *root.children(recursive=True)]:
                own = redis_cpus if redis_cpus and "redis-server" in process.name() else cpus
                process.cpu_affinity(sorted(own))
        except psutil.Error:
            continue


def _epoch(timestamp: str | None) -> float:
    """Epoch seconds of a log line's ISO timestamp (0 if it has none)."""
    try:
        return datetime.fromisoformat(str(timestamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _percentiles(values: list[float]) -> dict[str, float]:
    """p50, p95, p99 as :func:`loadtests.metrics.percentile` defines them for the client-side figures."""
    histogram = Counter(values)
    return {f"p{round(q * 100)}": percentile(histogram, q) for q in (0.50, 0.95, 0.99)} if values else {}


class Probe(threading.Thread):
    """A lone plain gRPC client (outside locust, no gevent) calling ListLegalActions twice a second
    on a match of its own (after the set-up): how fast the service answers one more player, whatever
    locust's own CPU. (The hot method on purpose: the gRPC server queues calls per method before
    their handler, so a rarely called method such as GetMatch skips the queue and looks fast.)"""

    def __init__(self, target: str, interval: float = 0.5) -> None:
        super().__init__(name="probe", daemon=True)
        self.target = target
        self.interval = interval
        self.latencies: list[float] = []
        self.errors = 0
        self._halt = threading.Event()

    def run(self) -> None:
        from clients.client import TyphoonClient, TyphoonError

        with TyphoonClient(self.target, timeout=30, retries=0) as client:
            try:
                match, tokens = client.create_match(seats=["german", "soviet"])
                match_id = match.match_id
                client.submit(match_id, tokens["german"], {"type": "standard_setup"}, expected_version=0)
            except TyphoonError:
                self.errors += 1
                return
            while not self._halt.wait(self.interval):
                started = time.perf_counter()
                try:
                    client.legal_actions(match_id)
                except TyphoonError:
                    self.errors += 1
                    continue
                self.latencies.append((time.perf_counter() - started) * 1000)

    def stop(self) -> None:
        self._halt.set()
        self.join(35)

    def summary(self) -> dict[str, Any]:
        return {"calls": len(self.latencies), "errors": self.errors,
                **{k: round(v, 1) for k, v in _percentiles(self.latencies).items()}}


class CpuMonitor(threading.Thread):
    """Samples, once a second, the CPU used by groups of processes and their children (any
    ``redis-server`` among them counts as "redis"), and the whole machine's. Also adds up the CPU
    seconds each group used from start to stop, for the CPU cost of a request."""

    def __init__(self, groups: dict[str, list[int]], interval: float = 1.0) -> None:
        super().__init__(name="cpu-monitor", daemon=True)
        self.groups = groups
        self.interval = interval
        self.names = [*groups, "redis"] if "redis" not in groups else list(groups)
        self.samples: dict[str, list[float]] = {name: [] for name in [*self.names, "machine"]}
        self.timeline: list[dict[str, float]] = []
        self._halt = threading.Event()
        self._procs: dict[int, tuple[psutil.Process, str]] = {}
        self._first: dict[int, float] = {}  # cpu seconds at the first sight of each process
        self._last: dict[int, float] = {}
        self._marked: int | None = None  # the samples before :meth:`mark`
        self._t0 = time.monotonic()

    def _scan(self) -> dict[str, float]:
        percent = {name: 0.0 for name in self.names}
        for group, pids in self.groups.items():
            for pid in pids:
                try:
                    root = psutil.Process(pid)
                    family = [root, *root.children(recursive=True)]
                except psutil.Error:
                    continue
                for process in family:
                    if process.pid not in self._procs:
                        try:
                            name = "redis" if "redis-server" in process.name() else group
                        except psutil.Error:
                            continue
                        self._procs[process.pid] = (process, name)
                    known, name = self._procs[process.pid]
                    try:
                        percent[name] += known.cpu_percent(None)
                        times = known.cpu_times()
                    except psutil.Error:
                        continue
                    self._first.setdefault(known.pid, times.user + times.system)
                    self._last[known.pid] = times.user + times.system
        return percent

    def run(self) -> None:
        psutil.cpu_percent(None)
        self._scan()  # the first reading of each process is 0
        while not self._halt.wait(self.interval):
            percent = self._scan()
            machine = psutil.cpu_percent(None) * psutil.cpu_count()
            for name, value in percent.items():
                self.samples[name].append(value)
            self.samples["machine"].append(machine)
            self.timeline.append({"t": round(time.monotonic() - self._t0, 1), **percent, "machine": machine})

    def stop(self) -> None:
        self._halt.set()
        self.join(5)

    def mark(self) -> None:
        """Count from now on (the ramp-up's end): :meth:`cpu_seconds` is what each group used since, and
        :meth:`summary` the mean of the samples since."""
        self._first = dict(self._last)
        self._marked = len(self.samples["machine"])

    def cpu_seconds(self) -> dict[str, float]:
        seconds = {name: 0.0 for name in self.names}
        for pid, (_, name) in self._procs.items():
            seconds[name] += self._last.get(pid, 0.0) - self._first.get(pid, 0.0)
        return {name: round(value, 1) for name, value in seconds.items()}

    def summary(self, skip: int = 5) -> dict[str, float]:
        """Mean CPU in % of one core per group (the ramp-up's first ``skip`` seconds left out)."""
        result = {}
        for name, values in self.samples.items():
            if self._marked is not None:
                values = values[self._marked:]
            elif len(values) > skip * 2:
                values = values[skip:]
            result[name] = round(sum(values) / len(values), 1) if values else 0.0
        # whatever else ran on the machine meanwhile (it competed for the same cores)
        result["other processes"] = round(max(0.0, result["machine"] - sum(v for k, v in result.items()
                                                                          if k != "machine")), 1)
        return result


class RedisMemory(threading.Thread):
    """Samples the Redis's memory (``INFO memory``) every few seconds: the peak and the last figure."""

    def __init__(self, url: str, interval: float = 5.0) -> None:
        super().__init__(name="redis-memory", daemon=True)
        self.url = url
        self.interval = interval
        self.peak = self.last = self.keys = 0
        self._halt = threading.Event()

    def _sample(self, client) -> None:
        used = int(client.info("memory")["used_memory"])
        self.peak, self.last = max(self.peak, used), used
        self.keys = int(client.dbsize())

    def run(self) -> None:
        import redis

        client = redis.Redis.from_url(self.url)
        try:
            while True:
                try:
                    self._sample(client)
                except redis.RedisError:
                    pass
                if self._halt.wait(self.interval):
                    return
        finally:
            client.close()

    def stop(self) -> None:
        self._halt.set()
        self.join(10)

    def summary(self) -> dict[str, float]:
        mb = 1024 * 1024
        return {"used_mb_end": round(self.last / mb, 1), "used_mb_peak": round(self.peak / mb, 1), "keys": self.keys}


def _kill_group(process: subprocess.Popen) -> None:
    """Stop what is left of a process group this runner started (locust's forked workers)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


# --- figures -----------------------------------------------------------------------------------------

def read_stats(prefix: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    rows, total = [], None
    path = Path(f"{prefix}_stats.csv")
    if not path.exists():
        return rows, total
    with open(path, newline="") as source:
        for row in csv.DictReader(source):
            def num(key: str, row: dict = row) -> float:
                try:
                    return float(row.get(key) or 0)
                except ValueError:  # "N/A"
                    return 0.0

            entry = {"type": row["Type"], "name": row["Name"], "requests": int(num("Request Count")),
                     "failures": int(num("Failure Count")), "rps": round(num("Requests/s"), 1),
                     "avg": round(num("Average Response Time"), 1), "p50": num("50%"), "p95": num("95%"),
                     "p99": num("99%"), "max": round(num("Max Response Time"))}
            if row["Name"] == "Aggregated":
                total = entry
                continue
            if entry["type"] == "grpc":
                entry["rpc"], entry["transport"] = entry["name"], "grpc"
            else:
                entry["rpc"] = REST_NAMES.get((entry["type"], entry["name"]), f"{entry['type']} {entry['name']}")
                entry["transport"] = "rest"
            rows.append(entry)
    order = {name: i for i, name in enumerate(RPC_ORDER)}
    rows.sort(key=lambda r: (order.get(r["rpc"], 99), r["transport"]))
    return rows, total


def read_failures(prefix: Path) -> list[dict[str, str]]:
    path = Path(f"{prefix}_failures.csv")
    if not path.exists():
        return []
    with open(path, newline="") as source:
        return [{"type": r.get("Method", ""), "name": r.get("Name", ""), "error": r.get("Error", ""),
                 "occurrences": r.get("Occurrences", "")} for r in csv.DictReader(source)]


def report(result: dict[str, Any], out=sys.stdout) -> None:
    s = result["settings"]
    print(file=out)
    transport = s["transport"] + (f", {s['rest_share']:.0%} on REST" if s.get("rest_share") is not None else "")
    ramp_up = f" after a ramp-up of {s['ramp_up_s']:.0f} s" if s.get("ramp_up_s") else ""
    print(f"Typhoon load test: {s['users']} player users ({transport}, {s.get('workload', 'poll')} workload) = "
          f"{s['users']} simultaneous matches, "
          f"{s['watchers']} watchers, {s['run_time_s']:.0f} s{ramp_up}; {s['services']} service(s) of "
          f"{s.get('workers', 1) or 'one per core'} worker process(es), think time {s['think_time']} s, "
          f"Redis {s['redis']}; locust {s['locust_processes']} process(es); {s['cpus']} CPUs", file=out)
    total = result["total"] or {"requests": 0, "failures": 0, "rps": 0, "p50": 0, "p95": 0, "p99": 0}
    print(f"requests: {total['requests']} ({total['rps']}/s), failures: {total['failures']}; "
          f"all calls p50 {total['p50']:.0f} ms, p95 {total['p95']:.0f} ms, p99 {total['p99']:.0f} ms", file=out)
    print(file=out)
    head = ["RPC", "transport", "requests", "req/s", "fail", "p50", "p95", "p99", "max", "| svc p50", "p95", "p99"]
    rows = []
    for row in result["rpcs"]:
        inside = row.get("service") or {}
        service_ms = [f"{inside[k]:.0f}" if k in inside else "-" for k in ("p50", "p95", "p99")]
        rows.append([row["rpc"], row["transport"], row["requests"], row["rps"], row["failures"], f"{row['p50']:.0f}",
                     f"{row['p95']:.0f}", f"{row['p99']:.0f}", row["max"], f"| {service_ms[0]}", *service_ms[1:]])
    print(tabulate(rows, headers=head, tablefmt="plain", colalign=("left", "left", *["right"] * 10),
                   disable_numparse=True) + "  (ms)", file=out)
    print("(p50...max: latency as locust measured it, locust's own delays included; svc: the handler's own time "
          "from the service log, queueing before the handler not included)", file=out)
    if result.get("probe") and result["probe"].get("calls"):
        probe = result["probe"]
        print(f"lone-client probe (plain gRPC ListLegalActions, 2/s, outside locust): p50 {probe['p50']} ms, "
              f"p95 {probe['p95']} ms, p99 {probe['p99']} ms, {probe['errors']} errors", file=out)
    print(file=out)
    typhoon = result.get("typhoon") or {}
    matches = typhoon.get("matches")
    if matches:
        sim = matches["simultaneous"]
        duration = matches["duration_seconds"]
        per_match = matches["actions_per_match"]
        print(f"matches: {matches['completed']} completed ({matches['finished']} played to the end, "
              f"{matches['resigned']} resigned), {matches['abandoned']} abandoned, {matches['started']} started; "
              f"{matches['completed_per_minute']}/min", file=out)
        print(f"simultaneous matches: peak {sim['peak']}, mean {sim['mean_after_ramp_up']} after the ramp-up", file=out)
        if duration["count"]:
            print(f"match duration: p50 {duration['p50']} s, p95 {duration['p95']} s, max {duration['max']} s; "
                  f"{per_match['mean']} actions per match", file=out)
        print(f"actions: {typhoon['actions']['total']} ({typhoon['actions']['per_second']}/s); "
              f"calls retried after UNAVAILABLE: {typhoon.get('retries', 0)}; "
              f"sent again after a rate limit's Retry-After: {typhoon.get('rate_limit_waits', 0)}", file=out)
        watch = typhoon["watch"]
        if watch["sessions"]:
            lag = watch["event_lag_ms"]
            print(f"watchers: {watch['sessions']} streams, {watch['events']} events, {watch['gaps']} gaps; "
                  f"delivery lag p50 {lag['p50']} ms, p95 {lag['p95']} ms, p99 {lag['p99']} ms, max {lag['max']} ms",
                  file=out)
            for transport, lag in watch.get("event_lag_ms_by_transport", {}).items():
                print(f"    {transport} watchers: lag p50 {lag['p50']} ms, p95 {lag['p95']} ms, p99 {lag['p99']} ms "
                      f"({lag['count']} live events)", file=out)
    cpu = result.get("cpu") or {}
    if cpu:
        print("CPU (mean, % of one core): " + ", ".join(f"{name} {value}%" for name, value in cpu.items())
              + f" (machine: {s['cpus']} cores = {s['cpus'] * 100}%)", file=out)
    if result.get("redis_memory"):
        memory = result["redis_memory"]
        print(f"Redis memory: {memory['used_mb_end']} MB at the end, {memory['used_mb_peak']} MB at most "
              f"(used_memory), {memory['keys']} keys", file=out)
    if result.get("service_cpu_ms_per_request"):
        cost = result["service_cpu_ms_per_request"]
        print(f"service CPU per request: {cost} ms (CPU seconds of the service processes / requests), i.e. one "
              f"service process with a core of its own tops out near {1000 / cost:.0f} requests/s", file=out)
    if result.get("service_cpu_ms_per_action"):
        print(f"service CPU per action: {result['service_cpu_ms_per_action']} ms (every call and stream message "
              f"of the run / actions applied)", file=out)
    for service in result.get("services", []):
        print(f"service {service['index']}: calls by code {service['calls_by_code']}, "
              f"{service['problems']} warnings/errors in its log, "
              f"{'stopped cleanly' if service['stopped_cleanly'] else 'DID NOT STOP CLEANLY'}", file=out)
        for line in service["first_problems"]:
            print(f"    {line}", file=out)
    for failure in result["failures"][:10]:
        print(f"failure: {failure['occurrences']}x {failure['type']} {failure['name']}: {failure['error']}", file=out)
    print(f"result: {'OK' if result['ok'] else 'FAILED'}", file=out)


# --- the run -----------------------------------------------------------------------------------------

class _Stop(Exception):
    pass


def _on_sigterm(signum, frame) -> None:
    raise _Stop()


def run(args: argparse.Namespace) -> dict[str, Any]:
    keep = args.out is not None
    workdir = Path(args.out).resolve() if keep else Path(tempfile.mkdtemp(prefix="typhoon-load-"))
    workdir.mkdir(parents=True, exist_ok=True)
    prefix = workdir / "locust"
    summary_path = workdir / "typhoon-summary.json"
    for stale in [summary_path, Path(f"{summary_path}.steady"), *workdir.glob("locust_*.csv")]:
        stale.unlink(missing_ok=True)
    embedded = None
    services: list[Service] = []
    locust: subprocess.Popen | None = None
    monitor: CpuMonitor | None = None
    probe: Probe | None = None
    memory: RedisMemory | None = None
    ramp_ended: float | None = None  # epoch seconds once every user started
    interrupted = False
    redis_label = "?"
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if threading.current_thread() is threading.main_thread() \
        else None
    try:
        # the service(s)
        if args.grpc_target or args.http_url:
            redis_label = "of the service under test"
            grpc_targets, http_urls = args.grpc_target, [u.rstrip("/") for u in args.http_url]
        else:
            redis_url = args.redis_url
            if redis_url:
                redis_label = "external"
            elif args.services > 1:
                from service.store.embedded_redis import EmbeddedRedis

                embedded = EmbeddedRedis(workdir / "redis")
                redis_url = embedded.start()
                redis_label = "embedded (shared)"
            else:
                redis_label = "embedded"
            for index in range(args.services):
                service = Service(index, workdir, redis_url, args.service_log_level, args.workers)
                services.append(service)
                service.start()
            grpc_targets = [f"127.0.0.1:{s.grpc_port}" for s in services]
            http_urls = [f"http://127.0.0.1:{s.http_port}" for s in services]
        if not args.quiet:
            print(f"service: gRPC {', '.join(grpc_targets) or '-'}; REST {', '.join(http_urls) or '-'}; "
                  f"Redis {redis_label}; files in {workdir}", flush=True)

        # locust
        users = args.users + args.watchers
        spawn_rate = args.spawn_rate or default_spawn_rate(users, len(grpc_targets) * (args.workers or os.cpu_count() or 1))
        # the figures are of the run after the ramp-up (locust's --reset-stats once every user started),
        # unless --include-ramp-up: creating a thousand matches is not playing them
        ramp_up = 0.0 if args.include_ramp_up or args.until else users / spawn_rate
        locust_seconds = args.run_time + ramp_up
        classes = PLAYERS[args.transport] + (WATCHERS[args.transport] if args.watchers else [])
        command = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--only-summary",
                   "-u", str(users), "-r", str(spawn_rate), "-t", f"{int(locust_seconds)}s", "--stop-timeout", "0",
                   "--csv", str(prefix), "--logfile", str(workdir / "locust.log"), "--loglevel", "WARNING",
                   "--exit-code-on-error", "0",
                   "--grpc-targets", ",".join(grpc_targets), "--http-urls", ",".join(http_urls),
                   "--host", http_urls[0] if http_urls else "http://127.0.0.1:8080",
                   "--max-actions", str(args.max_actions), "--think-time", str(args.think_time),
                   "--event-log-every", str(args.event_log_every), "--watch-every", str(args.watch_every),
                   "--watch-seconds", str(args.watch_seconds), "--watchers", str(args.watchers),
                   "--typhoon-summary", str(summary_path), "--workload", args.workload,
                   "--rest-share", str(args.rest_share)]
        if args.locust_processes > 1:
            command += ["--processes", str(args.locust_processes)]
        if ramp_up:
            command.append("--reset-stats")
        command += classes
        # a gRPC stream waiting for its next message holds a thread of gevent's pool: two a player
        threads = {"TYPHOON_LOCUST_THREADS": str(max(1000, 3 * users + 100))}
        with open(workdir / "locust.out", "wb") as output:
            locust = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=output,
                                      stderr=subprocess.STDOUT, start_new_session=True, env=os.environ | threads)
        groups = {"service": [s.process.pid for s in services], "locust": [locust.pid]}
        if embedded is not None:
            groups["redis"] = [embedded.process.pid]
        if args.pin:
            cpus = set(range(psutil.cpu_count() or 1))
            others = cpus - {min(cpus)} or cpus
            pin(groups["service"], {min(cpus)}, redis_cpus=others)
            pin(groups["locust"] + groups.get("redis", []), others)
        monitor = CpuMonitor(groups)
        monitor.start()
        memory_url = embedded.url if embedded is not None else args.redis_url if services else None
        if services and memory_url is None and (workdir / "data-0" / "redis.sock").exists():
            memory_url = f"unix://{workdir / 'data-0' / 'redis.sock'}"
        if memory_url:
            memory = RedisMemory(memory_url)
            memory.start()
        if grpc_targets:
            probe = Probe(grpc_targets[0])
            probe.start()
        started = time.monotonic()
        next_report = started + 10
        while locust.poll() is None:
            time.sleep(0.25)
            steady = Path(f"{summary_path}.steady")
            if ramp_up and ramp_ended is None and steady.exists():
                ramp_ended = float(steady.read_text() or time.time())
                monitor.mark()
                if probe is not None:
                    probe.latencies.clear()
                if not args.quiet:
                    print(f"  {time.monotonic() - started:4.0f} s: every user started; the figures count from now",
                          flush=True)
            if not args.quiet and time.monotonic() >= next_report:
                next_report += 10
                _, total = read_stats(prefix)
                if total:
                    print(f"  {time.monotonic() - started:4.0f} s: {total['requests']} requests, "
                          f"{total['failures']} failures, {total['rps']}/s", flush=True)
            if time.monotonic() - started > locust_seconds + 120:
                raise RuntimeError("locust did not stop in time")
            if args.until and reached(args.until, ["grpc", "rest"] if args.transport == "mixed" else [args.transport],
                                      read_stats(prefix)[0]):
                break  # locust is stopped below, as at the end of its time
    except (KeyboardInterrupt, _Stop):
        interrupted = True
        print("interrupted: stopping everything", file=sys.stderr, flush=True)
    finally:
        # in order, each step whatever happened to the previous one
        steps = []
        if locust is not None:
            # SIGTERM: locust stops its users and writes its statistics
            steps += [lambda: stop_process(locust, 30), lambda: _kill_group(locust)]
        if monitor is not None:
            steps.append(monitor.stop)
        if probe is not None:
            steps.append(probe.stop)
        if memory is not None:
            steps.append(memory.stop)
        steps += [service.stop for service in services]
        if embedded is not None:
            steps.append(embedded.stop)
        for step in steps:
            try:
                step()
            except BaseException as error:  # noqa: BLE001 - go on stopping the rest
                print(f"while stopping: {error!r}", file=sys.stderr)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)

    rows, total = read_stats(prefix)
    typhoon = json.loads(summary_path.read_text()) if summary_path.exists() else None
    failures = read_failures(prefix)
    service_logs = [{"index": s.index, **s.log_summary(since=ramp_ended)} for s in services]
    handler_ms: dict[str, list[float]] = {}
    for log in service_logs:
        for name, values in log.pop("handler_ms").items():
            handler_ms.setdefault(name, []).extend(values)
    for row in rows:
        row["service"] = _percentiles(handler_ms.get(f"{row['rpc']} {row['transport']}", []))
    ok = (not interrupted and total is not None and total["failures"] == 0 and typhoon is not None
          and typhoon["matches"]["abandoned"] == 0 and typhoon["watch"]["gaps"] == 0
          and all(s["stopped_cleanly"] for s in service_logs))
    result = {
        "settings": {"users": args.users, "watchers": args.watchers, "transport": args.transport,
                     "workload": args.workload, "rest_share": args.rest_share if args.transport == "mixed" else None,
                     "run_time_s": args.run_time, "ramp_up_s": round(ramp_up, 1), "services": len(services) or len(args.grpc_target or args.http_url),
                     "redis": redis_label,
                     "locust_processes": args.locust_processes, "max_actions": args.max_actions,
                     "think_time": args.think_time, "workers": args.workers, "pinned": args.pin, "cpus": psutil.cpu_count(),
                     "command": " ".join(sys.argv)},
        "total": total, "rpcs": rows, "typhoon": typhoon, "failures": failures,
        "probe": probe.summary() if probe else None,
        "redis_memory": memory.summary() if memory else None,
        "cpu": monitor.summary() if monitor else {}, "cpu_seconds": monitor.cpu_seconds() if monitor else {},
        "services": service_logs,
        "interrupted": interrupted, "ok": ok, "files": str(workdir) if keep else None,
    }
    if total and total["requests"] and result["cpu_seconds"].get("service"):
        result["service_cpu_ms_per_request"] = round(result["cpu_seconds"]["service"] * 1000 / total["requests"], 2)
    if typhoon and typhoon["actions"]["total"] and result["cpu_seconds"].get("service"):
        result["service_cpu_ms_per_action"] = round(result["cpu_seconds"]["service"] * 1000
                                                    / typhoon["actions"]["total"], 2)
    if monitor is not None and keep:
        (workdir / "cpu-timeline.json").write_text(json.dumps(monitor.timeline))
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = run(args)
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
