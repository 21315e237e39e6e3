"""``python -m loadtests.round_trips``: the Redis round trips and commands of each hot RPC, counted by Redis.

Starts ``typhoon serve --workers 1`` as a new user would (its defaults: every rate limit on) on an
embedded Redis of its own, then calls each RPC one at a time and reads Redis's own counters around each
call (one ``INFO all``): ``total_reads_processed`` and ``total_writes_processed`` (a request read from a
client and its reply written: one each per round trip, a pipeline or a script being one; the fewer of
the two, as a long request may take two reads and a long reply two writes) and ``commandstats`` (every command, those a Lua script runs
included). The figures are medians over ``--calls`` calls of each kind (an idle process's own commands,
a readiness probe a second, fall between some of them: the median leaves them out); the INFO that
reads them is taken off.

    .venv/bin/python -m loadtests.round_trips              # the table (markdown), as in loadtests/README.md
    .venv/bin/python -m loadtests.round_trips --calls 50 --json rt.json
    .venv/bin/python -m loadtests.round_trips --serve-args="--limit client_actions=off"

What is measured, all over gRPC (REST runs the same core: ``SubmitAction (REST)`` shows it):

- ``CreateMatch``, ``JoinMatch``: a match created with one seat claimed, its other seat joined;
- ``GetMatch``, ``ListMatches``, ``ListLegalActions``, ``GetEventLog`` (a page of 10);
- ``SubmitAction``: a random legal action with ``expected_version`` and a fresh ``request_id``, as a bot
  sends it; then the same on a match with clocks; then with a watcher of the match in this process
  (what the watcher's read of the new events adds: the fan-out), and with a stream of each seat with
  its legal actions (as bots, and the load test's players, follow their matches);
- ``WatchMatch (open)``: a stream from sequence 0 until its first MatchUpdate (the catch-up).
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import grpc
import httpx
import redis
from google.protobuf import json_format
from tabulate import tabulate

from clients.client import TyphoonClient, TyphoonError, as_time_control, rate_limit_delay, to_action
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.processes import ServeProcess
from service.store.embedded_redis import EmbeddedRedis


class Counters:
    """Redis's counters around one call: round trips (replies written) and commands by name."""

    def __init__(self, url: str) -> None:
        self.redis = redis.Redis.from_url(url)

    def read(self) -> tuple[int, int, Counter]:
        info = self.redis.info("all")
        commands = Counter({name.removeprefix("cmdstat_"): fields["calls"]
                            for name, fields in info.items() if name.startswith("cmdstat_")})
        return info["total_reads_processed"], info["total_writes_processed"], commands

    def around(self, call: Callable[[], object]) -> tuple[int, Counter]:
        """What ``call`` cost Redis; a call a limit refused (the ``history`` budget: twenty watches from 0
        of a match are more log entries a second than one address may read) is measured again once its
        ``Retry-After`` has passed, so that every figure is of a call served."""
        for _ in range(30):
            reads, writes, commands = self.read()
            try:
                call()
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                delay = rate_limit_delay(TyphoonError.from_rpc_error(error))
                if delay is None:
                    raise
                time.sleep(delay)
                continue
            break
        else:
            raise RuntimeError("a call refused by a limit 30 times in a row")
        reads_after, writes_after, commands_after = self.read()
        used = commands_after - commands
        used["info"] -= 1  # the INFO that read them
        used += Counter()  # drops the zeros
        # a round trip is a read of a request and a write of its reply: a long request may take Redis two
        # reads, a long reply two writes, never both
        return min(reads_after - reads, writes_after - writes) - 1, used


#: A call to measure, prepared just before (its preparation not counted): ``prepare() -> call``.
Prepared = Callable[[], Callable[[], object]]


def measure(counters: Counters, prepared: list[Prepared]) -> dict:
    """The median round trips and commands of the calls (each of one kind), and the commands of a call
    with the median round trips."""
    seen = [counters.around(prepare()) for prepare in prepared]
    trips = statistics.median_low([t for t, _ in seen])
    commands = statistics.median_low([sum(c.values()) for t, c in seen if t == trips])
    typical = next(c for t, c in seen if t == trips and sum(c.values()) == commands)
    return {"round_trips": trips, "commands": commands,
            "which": ", ".join(f"{name} {count}" if count > 1 else name for name, count in sorted(typical.items()))}


def ready(call: Callable[[], object]) -> Prepared:
    return lambda: call


class Player:
    """A match with both seats, played one random legal action at a time."""

    def __init__(self, client: TyphoonClient, rng: random.Random, time_control: str | None = None) -> None:
        self.client = client
        self.rng = rng
        options = {"time_control": as_time_control(time_control)} if time_control else {}
        match, self.tokens = client.create_match(seats=["german"], **options)
        self.match_id = match.match_id
        self.tokens["soviet"] = client.join_match(self.match_id, "soviet").token

    def next_action(self) -> tuple[object, str, int]:
        legal = self.client.legal_actions(self.match_id)
        return self.rng.choice(legal.actions), self.tokens[legal.side_to_act], legal.version

    def submit(self) -> Callable[[], object]:
        """The next action's SubmitAction, as a bot sends it (prepare: reads its legal actions)."""
        action, token, version = self.next_action()
        return lambda: self.client.submit(self.match_id, token, action, expected_version=version)

    def submit_rest(self, http: httpx.Client) -> Callable[[], object]:
        action, token, version = self.next_action()
        body = {"action": json_format.MessageToDict(to_action(action), preserving_proto_field_name=True),
                "expected_version": version, "request_id": uuid.uuid4().hex}
        return lambda: http.post(f"/v1/matches/{self.match_id}/actions", json=body,
                                 headers={"authorization": f"Bearer {token}"}).raise_for_status()


def run(calls: int, serve_args: list[str]) -> dict[str, dict]:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="round-trips-") as tmp:
        embedded = EmbeddedRedis(Path(tmp) / "redis")
        url = embedded.start()
        service = ServeProcess("--redis-url", url, *serve_args).start()
        try:
            counters = Counters(url)
            rows: dict[str, dict] = {}
            with TyphoonClient(service.target) as client, httpx.Client(base_url=service.base_url, timeout=20) as http:
                stub = match_service_pb2_grpc.MatchServiceStub(client.channel)
                client.list_scenarios()
                players = [Player(client, rng) for _ in range(3)]
                for player in players:  # the service's cache warm, as in play
                    player.submit()()
                rows["CreateMatch"] = measure(counters, [ready(lambda: client.create_match(seats=["german"]))]
                                              * min(calls, 20))  # 30 a minute an address
                fresh = [client.create_match(seats=["german"])[0].match_id for _ in range(min(calls, 8))]
                rows["JoinMatch"] = measure(counters, [ready(lambda m=m: client.join_match(m, "soviet")) for m in fresh])
                match_id = players[0].match_id
                rows["GetMatch"] = measure(counters, [ready(lambda: client.get_match(match_id))] * calls)
                rows["ListMatches"] = measure(counters, [ready(lambda: client.list_matches(page_size=20))] * calls)
                rows["ListLegalActions"] = measure(counters, [ready(lambda p=p: p.client.legal_actions(p.match_id))
                                                              for p in players * max(1, calls // 3)])
                rows["GetEventLog"] = measure(counters, [ready(lambda: stub.GetEventLog(
                    api.GetEventLogRequest(match_id=match_id, page_size=10)))] * calls)
                rows["SubmitAction"] = measure(counters, [p.submit for p in _cycle(players, calls)])
                clocked = [Player(client, rng, "3600+0") for _ in range(3)]
                rows["SubmitAction (clocks)"] = measure(counters, [p.submit for p in _cycle(clocked, calls)])
                rows["SubmitAction (REST)"] = measure(counters, [lambda p=p: p.submit_rest(http)
                                                                 for p in _cycle(players, calls)])
                rows["SubmitAction (1 watcher here)"] = _watched_submits(client, counters, players[1], calls)
                rows["SubmitAction (both seats' streams here)"] = _watched_submits(client, counters, players[2], calls,
                                                                                   seats=True)
                rows["WatchMatch (open)"] = measure(counters, [ready(lambda: _open_watch(stub, match_id))]
                                                    * min(calls, 20))
        finally:
            service.stop()
            embedded.stop()
    return rows


def _cycle(players: list[Player], count: int) -> list[Player]:
    return [players[index % len(players)] for index in range(count)]


def _watched_submits(client: TyphoonClient, counters: Counters, player: Player, calls: int,
                     seats: bool = False) -> dict:
    """SubmitAction while WatchMatch streams of the match are open in the service: a spectator's, or
    (``seats``) one per seat with its token and ``include_legal_actions``, as bots and the load test's
    players follow their matches. The commit, and what the service reads to send the update."""
    stub = match_service_pb2_grpc.MatchServiceStub(client.channel)
    if seats:
        streams = [stub.WatchMatch(api.WatchMatchRequest(match_id=player.match_id, include_legal_actions=True),
                                   metadata=[("authorization", f"Bearer {token}")]) for token in player.tokens.values()]
    else:
        streams = [stub.WatchMatch(api.WatchMatchRequest(match_id=player.match_id))]
    updates = threading.Semaphore(0)

    def read(responses) -> None:
        try:
            for response in responses:
                if response.WhichOneof("kind") == "update":
                    updates.release()
        except grpc.RpcError:
            return

    for responses in streams:
        threading.Thread(target=read, args=(responses,), daemon=True).start()
    for _ in streams:
        updates.acquire(timeout=20)  # after the catch-up

    def prepare() -> Callable[[], object]:
        submit = player.submit()

        def call() -> None:
            submit()
            for _ in streams:
                updates.acquire(timeout=20)  # every stream has the update: the service's reads are done
        return call

    try:
        return measure(counters, [prepare] * calls)
    finally:
        for responses in streams:
            responses.cancel()


def _open_watch(stub, match_id: str) -> None:
    responses = stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, after_sequence=0))
    for response in responses:
        if response.WhichOneof("kind") == "update":
            responses.cancel()
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtests.round_trips", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="calls of each kind (median over them)")
    parser.add_argument("--serve-args", default="", help="more typhoon serve flags")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    rows = run(args.calls, shlex.split(args.serve_args))
    print(tabulate([[rpc, row["round_trips"], row["commands"], row["which"]] for rpc, row in rows.items()],
                   headers=["RPC", "round trips", "commands", "which (a typical call; inside scripts too)"],
                   tablefmt="github"))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
