"""The fault test: live matches over two service processes and one Redis while they are killed.

    .venv/bin/python -m loadtests.chaos --matches 40 --duration 180          # the long form
    .venv/bin/python -m loadtests.chaos --matches 4 --faults 3 --fault-every 1 --freeze 1   # make test's form

It starts one embedded Redis and two ``typhoon serve`` processes on it (fixed ports, so a restarted
process is found where it was), then plays ``--matches`` matches at once, one player thread each,
every player sending each action with a request id of its own and, when a call fails with anything
but a refusal, sending the very same request again (the same id) until it is answered — as a client
of a flaky service must. Each match also has a live watcher (``WatchMatch``, resuming with its cursor
after a cut stream). Meanwhile a fault thread, from ``--seed``, every ``--fault-every`` seconds:

- SIGKILLs one service process and starts it again half a second later, or
- SIGKILLs Redis and starts it again on the same data (append-only file), or
- freezes Redis with SIGSTOP for ``--freeze`` seconds, then SIGCONT.

Redis runs with ``appendfsync always`` (``--fsync``): with ``everysec``, Redis answers writes whose
append-only write it postponed while a slow fsync runs (up to 2 s), and a SIGKILL then loses them —
seen here on a busy disk.

Then it checks, for every match:

- every acknowledged action is in the log exactly once, at the version its answer gave, and the log
  holds no action nobody was told about (versions 1..N, each once, each acknowledged);
- the match replay-verifies (``clients.replay.verify_log``: seed, every die, every state hash);
- the live watcher saw exactly the log: every event once, in order.

It prints the faults, the actions acknowledged, the calls retried and what failed the checks; the exit
status is 0 when every check holds. ``run()`` returns the same as a dict (the short test uses it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from clients.client import TRANSIENT_CODES, TyphoonClient, TyphoonError
from clients.replay import verify_log
from service.processes import ServeProcess
from service.store.embedded_redis import EmbeddedRedis, EmbeddedRedisError, free_port

#: Codes a player retries with the same request: the service, or Redis behind it, was away.
RETRIED_CODES = set(TRANSIENT_CODES) | {grpc.StatusCode.ABORTED}


@dataclass
class MatchRecord:
    match_id: str
    tokens: dict[str, str]
    acknowledged: dict[int, dict] = field(default_factory=dict)  # version -> action JSON
    retries: int = 0
    #: the calls retried, by what the service said (its reason, or the gRPC code)
    retried: Counter = field(default_factory=Counter)
    #: time.monotonic() of each acknowledgement, in order
    acknowledged_at: list[float] = field(default_factory=list)
    #: the versions of acknowledged actions the log does not hold as told (found by check())
    lost: list[int] = field(default_factory=list)
    refused: Counter = field(default_factory=Counter)
    watched: list = field(default_factory=list)
    finished: bool = False
    error: str = ""


class Cluster:
    """Redis and the service processes, each of which can be killed and started again."""

    def __init__(self, workdir: Path, services: int, fsync: str = "always") -> None:
        self.redis = EmbeddedRedis(workdir / "redis", fsync=fsync)
        self.url = ""
        self.ports = [(free_port(), free_port()) for _ in range(services)]
        self.services: list[ServeProcess | None] = [None] * services
        self.workdir = workdir
        self.lock = threading.Lock()
        self.restart_failures: list[str] = []

    def start(self) -> None:
        self.url = self.redis.start()
        for index in range(len(self.ports)):
            self.start_service(index)

    def start_service(self, index: int) -> None:
        grpc_port, http_port = self.ports[index]
        for attempt in range(3):
            process = ServeProcess("--redis-url", self.url, "--http-port", str(http_port), "--log-level", "warning",
                                   "--grace", "2", grpc_port=grpc_port, env={"REDIS_URL": ""}, remember=200)
            # ServeProcess asks for --http-port 0 first; ours, later on the line, wins
            try:
                process.start()
            except RuntimeError as error:  # seen on a loaded machine: the new process died at start (-6, -11)
                self.restart_failures.append(f"service: {str(error)[:300]}")
                if attempt == 2:
                    raise
                continue
            self.services[index] = process
            return

    def targets(self) -> list[str]:
        return [f"127.0.0.1:{grpc_port}" for grpc_port, _ in self.ports]

    def kill_service(self, index: int) -> None:
        with self.lock:
            process = self.services[index]
            process.process.send_signal(signal.SIGKILL)
            process.stop(5)
            time.sleep(0.5)
            self.start_service(index)

    def kill_redis(self) -> None:
        with self.lock:
            self.redis.process.send_signal(signal.SIGKILL)
            self.redis.stop(5)
            time.sleep(0.5)
            for attempt in range(3):
                try:
                    self.redis.start()
                    return
                except EmbeddedRedisError as error:  # seen once: redis-server 6.2 aborted (-6) at start
                    self.restart_failures.append(f"Redis: {str(error)[:300]}")
                    if attempt == 2:
                        raise

    def freeze_redis(self, seconds: float) -> None:
        with self.lock:
            pid = self.redis.process.pid
            os.kill(pid, signal.SIGSTOP)
            try:
                time.sleep(seconds)
            finally:
                os.kill(pid, signal.SIGCONT)

    def stop(self) -> list[int]:
        codes = [process.stop(10) for process in self.services if process is not None]
        self.redis.stop()
        return codes


def _call_until_answered(record: MatchRecord, call, halt: threading.Event, deadline: float):
    """The same request again until it is answered (or refused), as long as the run lasts."""
    delay = 0.05
    while True:
        try:
            return call()
        except TyphoonError as error:
            if error.code not in RETRIED_CODES or (error.code == grpc.StatusCode.ABORTED
                                                   and error.reason == "STALE_VERSION"):
                raise
            record.retries += 1
            record.retried[error.reason or error.code.name] += 1
            if time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


def play(record: MatchRecord, target: str, seed: int, max_actions: int, halt: threading.Event,
         deadline: float) -> None:
    chooser = random.Random(seed)
    with TyphoonClient(target, timeout=15, retries=0) as client:
        try:
            while not halt.is_set() and (not max_actions or len(record.acknowledged) < max_actions):
                legal = _call_until_answered(record, lambda: client.legal_actions(record.match_id), halt, deadline)
                if not legal.side_to_act:
                    record.finished = True
                    return
                action = chooser.choice(legal.actions)
                request_id = uuid.uuid4().hex
                token = record.tokens[legal.side_to_act]
                try:
                    reply = _call_until_answered(record, lambda: client.submit(
                        record.match_id, token, action, expected_version=legal.version, request_id=request_id),
                        halt, deadline)
                except TyphoonError as error:
                    record.refused[error.reason] += 1
                    if error.reason == "STALE_VERSION":
                        continue  # a retry of ours after its first attempt had landed reads again
                    raise
                record.acknowledged[reply.version] = json.loads(json.dumps(_action_json(action)))
                record.acknowledged_at.append(time.monotonic())
            if not record.finished:  # the run is over: resign, so that the match ends and is checked whole
                request_id = uuid.uuid4().hex
                reply = _call_until_answered(record, lambda: client.resign(
                    record.match_id, record.tokens["german"], request_id=request_id), halt, deadline)
                record.acknowledged[reply.version] = {"resign": {"side": "german"}}
                record.finished = True
        except TyphoonError as error:
            record.error = f"{error.code.name} {error.reason}: {error.message}"


def _action_json(action) -> dict:
    from google.protobuf import json_format

    return json_format.MessageToDict(action, preserving_proto_field_name=True)


def watch(record: MatchRecord, target: str, give_up: threading.Event) -> None:
    """Follows the match to its end (the stream ends after the last event), unless told to give up."""
    with TyphoonClient(target, timeout=15) as client:
        stream = client.watch(record.match_id, heartbeat_seconds=1)
        watcher = threading.Thread(target=lambda: record.watched.extend(stream), daemon=True)
        watcher.start()
        while watcher.is_alive() and not give_up.is_set():
            watcher.join(0.2)
        if watcher.is_alive():
            stream.close()
            watcher.join(10)


def lost(record: MatchRecord, log: list) -> list[int]:
    """The versions of the actions acknowledged to the player that the log does not hold as told."""
    by_version = {e.version: e for e in log if e.WhichOneof("kind") == "action_submitted"}
    return [version for version, action in record.acknowledged.items()
            if version not in by_version
            or ("resign" not in action and _action_json(by_version[version].action_submitted.action) != action)]


def check(record: MatchRecord, client: TyphoonClient) -> list[str]:
    """What is wrong with a match after the run (empty: nothing)."""
    problems = []
    log = list(client.event_log(record.match_id))
    submitted = [e for e in log if e.WhichOneof("kind") == "action_submitted"]
    versions = Counter(e.version for e in submitted)
    twice = [v for v, n in versions.items() if n > 1]
    if twice:
        problems.append(f"actions applied twice at versions {twice[:5]}")
    if sorted(versions) != list(range(1, len(versions) + 1)):
        problems.append(f"the versions in the log are not 1..{len(versions)}")
    by_version = {e.version: e for e in submitted}
    record.lost = lost(record, log)
    for version in record.lost:
        event = by_version.get(version)
        if event is None:
            problems.append(f"the action acknowledged at version {version} is not in the log")
        else:
            problems.append(f"version {version}: the log has {_action_json(event.action_submitted.action)}, "
                            f"the player was told {record.acknowledged[version]}")
    unacknowledged = sorted(set(by_version) - set(record.acknowledged))
    if unacknowledged and not record.error:
        problems.append(f"actions in the log nobody was told about at versions {unacknowledged[:5]}")
    report = verify_log(log, record.match_id, client.get_match(record.match_id))
    if not report.ok:
        problems.append(f"replay: {report.first.what if report.first else 'failed'}")
    if record.finished and record.watched != log:
        seen = [e.sequence for e in record.watched]
        problems.append(f"the watcher saw {len(seen)} events ({seen[:3]}...{seen[-3:]}), the log has {len(log)}")
    return problems


def wind_down(halt: threading.Event, players: list[threading.Thread], give_up: threading.Event,
              watchers: list[threading.Thread], deadline: float) -> None:
    """The end of play: the players finish (each resigns a match not over), then the watchers follow
    their matches to the end (or are told to give up after a minute)."""
    halt.set()
    for thread in players:
        thread.join(max(1.0, deadline - time.monotonic()))
    for thread in watchers:
        thread.join(60)
    give_up.set()


def problems_of(records: list[MatchRecord], target: str) -> dict[str, list[str]]:
    """What is wrong with each match after a run (:func:`check`), by match id (none: left out)."""
    problems = {}
    with TyphoonClient(target, timeout=30) as reader:
        for record in records:
            found = check(record, reader)
            if record.error:
                found.insert(0, f"the player stopped: {record.error}")
            if found:
                problems[record.match_id] = found
    return problems


def run(matches: int = 40, duration: float = 180.0, services: int = 2, fault_every: float = 6.0,
        freeze: float = 3.0, max_actions: int = 0, seed: int = 1, quiet: bool = False,
        faults_wanted: int = 0, fsync: str = "always") -> dict[str, Any]:
    """Plays for ``duration`` seconds, or, with ``faults_wanted``, until that many faults are done
    (whatever the time they take: the short form in ``make test``); then every player resigns its
    match if it is not over, and everything is checked."""
    workdir = Path(tempfile.mkdtemp(prefix="typhoon-chaos-"))
    cluster = Cluster(workdir, services, fsync)
    faults: Counter[str] = Counter()
    halt, give_up = threading.Event(), threading.Event()
    chooser = random.Random(seed)
    records: list[MatchRecord] = []
    stop_codes: list[int] = []
    started = time.monotonic()
    try:
        cluster.start()
        targets = cluster.targets()
        with TyphoonClient(targets[0], timeout=15) as setup:
            for _ in range(matches):
                match, tokens = setup.create_match(seats=["german", "soviet"])
                records.append(MatchRecord(match.match_id, tokens))
        deadline = time.monotonic() + duration + 120  # players give up retrying after this
        players, watchers = [], []
        for number, record in enumerate(records):
            players.append(threading.Thread(target=play, daemon=True, args=(
                record, targets[number % len(targets)], seed * 1000 + number, max_actions, halt, deadline)))
            watchers.append(threading.Thread(target=watch, daemon=True,
                                             args=(record, targets[(number + 1) % len(targets)], give_up)))
        for thread in players + watchers:
            thread.start()
        play_until = time.monotonic() + duration
        schedule: list[str] = []
        while not all(r.finished or r.error for r in records):
            if faults_wanted:
                if sum(faults.values()) >= faults_wanted:
                    time.sleep(fault_every)  # some play after the last fault
                    break
                time.sleep(fault_every)
            else:
                time.sleep(min(fault_every, max(0.0, play_until - time.monotonic())))
                if time.monotonic() >= play_until:
                    break
            if not schedule:  # every kind of fault in each round, in a seeded order
                schedule = chooser.sample(["service", "redis", "freeze"], 3)
            kind = schedule.pop()
            if kind == "service":
                index = chooser.randrange(services)
                cluster.kill_service(index)
                faults["service SIGKILL"] += 1
            elif kind == "redis":
                cluster.kill_redis()
                faults["Redis SIGKILL"] += 1
            else:
                cluster.freeze_redis(freeze)
                faults[f"Redis SIGSTOP {freeze:g} s"] += 1
            if not quiet:
                print(f"  {time.monotonic() - started:5.1f} s: {kind}; "
                      f"{sum(len(r.acknowledged) for r in records)} actions acknowledged", flush=True)
        wind_down(halt, players, give_up, watchers, deadline)
        problems = problems_of(records, targets[0])
    finally:
        halt.set()
        give_up.set()
        stop_codes = cluster.stop()
    result = {
        "settings": {"matches": matches, "duration": duration, "services": services, "fault_every": fault_every,
                     "freeze": freeze, "max_actions": max_actions, "seed": seed, "fsync": fsync},
        "seconds": round(time.monotonic() - started, 1),
        "faults": dict(faults),
        **tally(records),
        "replays_verified": len(records) - sum(any(p.startswith("replay") for p in v) for v in problems.values()),
        "problems": problems,
        "stop_codes": stop_codes,
        "restart_failures": cluster.restart_failures,
        "ok": not problems,
    }
    # the logs and Redis files (~50-80 MB) are kept only when there is something to look into
    return kept_if(result, workdir, bool(problems or cluster.restart_failures))


def tally(records: list[MatchRecord]) -> dict[str, Any]:
    """What the players of a run were told and saw, added up."""
    return {"acknowledged": sum(len(r.acknowledged) for r in records),
            "retries": sum(r.retries for r in records),
            "retried": dict(sum((r.retried for r in records), Counter())),
            "refused": dict(sum((r.refused for r in records), Counter())),
            "finished": sum(r.finished for r in records),
            "watched_events": sum(len(r.watched) for r in records)}


def kept_if(result: dict[str, Any], workdir: Path, keep: bool) -> dict[str, Any]:
    """``result``, with ``workdir`` (logs, Redis files) kept and named in it if ``keep``, else removed."""
    if keep:
        result["workdir"] = str(workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtests.chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of play under faults (180)")
    parser.add_argument("--services", type=int, default=2)
    parser.add_argument("--fault-every", type=float, default=6.0, help="seconds between faults (6)")
    parser.add_argument("--freeze", type=float, default=3.0, help="seconds Redis stays frozen (3)")
    parser.add_argument("--max-actions", type=int, default=0, help="resign after this many actions (0: play out)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", type=int, default=0, help="stop after this many faults instead of --duration")
    parser.add_argument("--fsync", choices=["always", "everysec"], default="always",
                        help="Redis's appendfsync (always: a SIGKILLed Redis loses no acknowledged write; "
                             "everysec may lose up to 2 s of them when the disk is slow)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    result = run(args.matches, args.duration, args.services, args.fault_every, args.freeze, args.max_actions,
                 args.seed, faults_wanted=args.faults, fsync=args.fsync)
    print(f"\nchaos: {result['settings']['matches']} matches over {result['settings']['services']} service "
          f"processes and one Redis, {result['seconds']} s; faults: {result['faults']}")
    print(f"acknowledged actions: {result['acknowledged']}; calls retried: {result['retries']}; refusals: "
          f"{result['refused'] or 'none'}; matches finished: {result['finished']}; events watched live: "
          f"{result['watched_events']}; replays verified: {result['replays_verified']}/{result['settings']['matches']}")
    for failure in result["restart_failures"]:
        print(f"  a process did not start again at the first try: {failure}")
    return report_end(result, args.json)


def report_end(result: dict[str, Any], json_path: str | None) -> int:
    """The end of a run's report (this test's and loadtests/failover.py's): what failed the checks,
    where the logs are kept, the result line; the result as JSON to ``json_path``; the exit status."""
    for match_id, found in result["problems"].items():
        print(f"  {match_id}: {'; '.join(found)}")
    if "workdir" in result:
        print(f"  the services' and Redis's logs and files: {result['workdir']}")
    print(f"result: {'OK' if result['ok'] else 'FAILED'}")
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=2))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
