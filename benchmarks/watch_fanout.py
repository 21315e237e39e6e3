"""Benchmark: what an action costs ``typhoon serve`` when its match is watched, this tree against another commit.

``--matches`` matches are played by their seats from their streams, as ``typhoon bot`` plays: each seat
watches its match (``include_legal_actions``, ``updates_only``) and, when an update says it is to act,
submits one of the legal actions the update carries after a think time (``--think``); besides,
``--spectators`` full streams follow each match. The service (``typhoon serve --workers 1`` with its
own Redis, its defaults but for the limits a one-address client stands in for many players on:
service_floor.SERVE_ARGS) runs on core 0, the client and the Redis on core 1. Over ``--seconds`` after ``--warmup``:

- the service's CPU per action (its process, psutil) and its Redis's (``INFO``: ``used_cpu_*``);
- Redis's commands per action (``INFO commandstats``): every one, and the ``XRANGE`` of the watchers'
  reads of new entries (what a change's notice carrying it spares);
- the lag of an action: from its SubmitAction's sending to the first update of it on a seat's stream.

With ``--baseline REV``, commit REV's service (a git worktree, with this tree's client) runs in each
round beside this tree's, alternated, each on a fresh Redis: read the ratio of the two in one round.

    .venv/bin/python benchmarks/watch_fanout.py --baseline main --rounds 3
    .venv/bin/python benchmarks/watch_fanout.py --matches 200 --spectators 1 --think 0.5-1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import grpc  # type: ignore[import-untyped]  # noqa: E402
import psutil  # type: ignore[import-untyped]  # noqa: E402
import redis  # noqa: E402
from baseline import short, worktree  # noqa: E402
from service_floor import SERVE_ARGS, ServerProcess, _baseline_command, _machine_busy, _own_cpu  # noqa: E402
from tabulate import tabulate  # type: ignore[import-untyped]  # noqa: E402

from service.gen.typhoon.v1 import match_service_pb2 as api  # noqa: E402
from service.gen.typhoon.v1 import match_service_pb2_grpc  # noqa: E402
from service.store.embedded_redis import EmbeddedRedis  # noqa: E402


@dataclass
class Result:
    target: str
    actions: int = 0
    stale: int = 0
    seconds: float = 0.0
    service_cpu_s: float = 0.0
    redis_cpu_s: float = 0.0
    other_cores: float = 0.0
    commands: int = 0
    xranges: int = 0
    lags_ms: list[float] = field(default_factory=list, repr=False)

    def row(self) -> dict[str, object]:
        per = (lambda value: value / self.actions) if self.actions else (lambda value: 0.0)
        lags = sorted(self.lags_ms)
        return {"target": self.target, "actions_per_s": round(self.actions / self.seconds, 1) if self.seconds else 0,
                "service_cpu_ms_per_action": round(per(self.service_cpu_s) * 1000, 3),
                "redis_cpu_ms_per_action": round(per(self.redis_cpu_s) * 1000, 3),
                "redis_commands_per_action": round(per(self.commands), 1),
                "xrange_per_action": round(per(self.xranges), 2),
                "lag_p50_ms": round(lags[len(lags) // 2], 1) if lags else None,
                "lag_p99_ms": round(lags[int(len(lags) * 0.99)], 1) if lags else None,
                "stale": self.stale, "other_processes_cores": round(self.other_cores, 2)}


class Measure:
    """What happens between open() and close(): actions, lags, the CPU of the service and of Redis."""

    def __init__(self, result: Result, server: ServerProcess, redis_url: str) -> None:
        self.result, self.server = result, server
        self.redis = redis.Redis.from_url(redis_url)
        self.open_at: float | None = None
        self.submitted: dict[tuple[str, int], float] = {}  # (match, version after) -> answer time

    def _redis(self) -> tuple[int, int, float]:
        """Redis's commands so far, its XRANGEs, its CPU seconds."""
        info = self.redis.info("all")
        stats = {name: fields for name, fields in info.items() if name.startswith("cmdstat_")}
        return (sum(int(v["calls"]) for v in stats.values()), int(stats.get("cmdstat_xrange", {}).get("calls", 0)),
                float(info["used_cpu_sys"]) + float(info["used_cpu_user"]))

    def open(self) -> None:
        self.cpu = self.server.cpu_seconds()[0]
        self.machine, self.own = _machine_busy(), _own_cpu()
        self.counts = self._redis()
        self.open_at = time.perf_counter()

    def close(self) -> None:
        result = self.result
        assert self.open_at is not None, "close() after open()"
        result.seconds = time.perf_counter() - self.open_at
        result.service_cpu_s = self.server.cpu_seconds()[0] - self.cpu
        commands, xranges, redis_cpu = self._redis()
        result.redis_cpu_s = redis_cpu - self.counts[2]
        result.commands, result.xranges = commands - self.counts[0] - 1, xranges - self.counts[1]  # less this INFO
        machine = _machine_busy() - self.machine
        result.other_cores = max(0.0, machine - result.service_cpu_s - result.redis_cpu_s
                                 - (_own_cpu() - self.own)) / result.seconds
        self.open_at = None

    def sending(self, match_id: str, version: int) -> None:
        """A SubmitAction that makes ``version`` is sent now."""
        if self.open_at is not None:
            self.submitted[match_id, version] = time.perf_counter()

    def acted(self) -> None:
        if self.open_at is not None:
            self.result.actions += 1

    def updated(self, match_id: str, version: int) -> None:
        answered = self.submitted.pop((match_id, version), None)
        if answered is not None and self.open_at is not None:
            self.result.lags_ms.append((time.perf_counter() - answered) * 1000)


async def _match(stub: match_service_pb2_grpc.MatchServiceStub, measure: Measure, stop: asyncio.Event,
                 rng: random.Random, think: tuple[float, float], spectators: int) -> None:
    request = api.CreateMatchRequest(scenario="standard", request_id=uuid.uuid4().hex)
    tokens = {}
    for side in ("german", "soviet"):
        tokens[side] = f"{side}-{rng.getrandbits(128):032x}"
        request.seats.add(side=side, player_name=f"bench {side}", seat_token=tokens[side])
    match_id = (await stub.CreateMatch(request)).match.match_id

    async def seat(side: str) -> None:
        auth = (("authorization", f"Bearer {tokens[side]}"),)
        stream = stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, include_legal_actions=True, updates_only=True,
                                                       heartbeat_seconds=30), metadata=auth)
        async for response in stream:
            if stop.is_set():
                stream.cancel()
                return
            if response.WhichOneof("kind") != "update":
                continue
            update = response.update
            measure.updated(match_id, update.version)
            if update.side_to_act != side or not update.legal_actions.actions:
                continue
            await asyncio.sleep(rng.uniform(*think))
            measure.sending(match_id, update.version + 1)
            try:
                await stub.SubmitAction(api.SubmitActionRequest(
                    match_id=match_id, action=rng.choice(update.legal_actions.actions),
                    expected_version=update.version, request_id=uuid.uuid4().hex), metadata=auth)
                measure.acted()
            except grpc.aio.AioRpcError:
                measure.result.stale += 1  # the next update says where the match stands

    async def spectator() -> None:
        stream = stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, heartbeat_seconds=30))
        async for _ in stream:
            if stop.is_set():
                stream.cancel()
                return

    tasks = [asyncio.create_task(seat(side)) for side in tokens]
    tasks += [asyncio.create_task(spectator()) for _ in range(spectators)]
    await stop.wait()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def run_phase(server: ServerProcess, redis_url: str, result: Result, args: argparse.Namespace) -> None:
    measure = Measure(result, server, redis_url)
    stop = asyncio.Event()
    rng = random.Random(7)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)  # type: ignore[no-untyped-call]
        matches = []
        pace = (2 + args.spectators) / 40  # streams opened at 40 a second: the service allows 50 (stream_opens)
        for _ in range(args.matches):
            matches.append(asyncio.create_task(_match(stub, measure, stop, rng, args.think, args.spectators)))
            await asyncio.sleep(pace)
        await asyncio.sleep(args.warmup)
        measure.open()
        await asyncio.sleep(args.seconds)
        measure.close()
        stop.set()
        await asyncio.gather(*matches, return_exceptions=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/watch_fanout.py", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=1, help="full streams per match besides its seats'")
    parser.add_argument("--think", default="0.5-1.0", help="a seat's seconds before it acts: LOW-HIGH")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline", metavar="REV", help="also run commit REV's service in each round")
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    low, _, high = args.think.partition("-")
    args.think = (float(low), float(high or low))
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    pin = args.pin and len(cores) >= 2
    if pin:
        os.sched_setaffinity(0, {cores[1]})  # before gRPC starts its threads
    workdir = Path(tempfile.mkdtemp(prefix="typhoon-fanout-"))
    here = "typhoon serve (this tree)"
    command = [sys.executable, "-m", "clients.cli", "serve", "--grpc-port", "0", "--http-port", "0", *SERVE_ARGS]
    commands, trees = {here: command}, {here: ROOT}
    load = [os.getloadavg()]
    rounds: list[dict[str, Result]] = []
    with ExitStack() as stack:
        if args.baseline:
            tree = stack.enter_context(worktree(args.baseline))
            name = f"typhoon serve @{short(args.baseline)}"
            commands, trees = {name: _baseline_command(tree, command), **commands}, {name: tree, here: ROOT}
        for number in range(args.rounds):
            results = {}
            order = list(commands) if number % 2 == 0 else list(reversed(commands))  # alternated
            for target in order:
                data = workdir / f"round{number}-{target.split()[-1].strip('()@')}"
                embedded = EmbeddedRedis(data)
                redis_url = embedded.start()
                server = ServerProcess([*commands[target], "--redis-url", redis_url], workdir / f"{data.name}.log",
                                       {cores[0]} if pin else None, trees[target]).wait_serving()
                try:
                    results[target] = Result(target)
                    asyncio.run(run_phase(server, redis_url, results[target], args))
                finally:
                    server.stop()
                    embedded.stop()
                load.append(os.getloadavg())
            rounds.append(results)
    rows = [results[target].row() for results in rounds for target in commands]
    print(tabulate([list(row.values()) for row in rows], headers=list(rows[0]), tablefmt="github"))
    if args.baseline and len(commands) == 2:
        before, after = list(commands)
        ratios = [results[after].service_cpu_s / results[after].actions
                  / (results[before].service_cpu_s / results[before].actions)
                  for results in rounds if results[before].actions and results[after].actions]
        if ratios:
            print(f"service CPU per action, this tree / {before.split('@')[-1]}: median {statistics.median(ratios):.3f}"
                  f" (rounds: {', '.join(f'{r:.3f}' for r in ratios)})")
    print(f"load average over the run: {min(a[0] for a in load):.1f}-{max(a[0] for a in load):.1f} "
          f"({psutil.cpu_count()} CPUs; the machine may be shared: read ratios within a round)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": [[r.row() for r in res.values()] for res in rounds]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
