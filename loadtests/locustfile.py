"""Locust load test of the Typhoon game service: many simultaneous Battle for Moscow matches.

One player user plays one whole match at a time, for both seats: CreateMatch (claiming the German
seat), JoinMatch (the Soviet seat), then until the game is over, as ``typhoon bot`` plays
(``--workload stream``, the default): each seat follows its own WatchMatch stream with its seat token
and ``include_legal_actions`` (server-sent events over REST), and whenever an update says its side is
to act it submits one of the legal actions the update carries (SubmitAction with ``expected_version``),
after its think time; every ``--event-log-every`` actions it reads a page of the event log, and at the
end it reads the match. ``--workload poll`` plays as the clients of old did: ListLegalActions, then
SubmitAction, every ``--watch-every`` actions a catch-up on a WatchMatch stream. A watcher user picks a running match from ListMatches and follows its WatchMatch
stream for ``--watch-seconds``, checking that sequence numbers have no gaps and measuring how late
each live event arrives (receive time minus commit time).

User classes (pick them on the command line; ``loadtests/run.py`` does it for you):

- ``GrpcMatchUser``: a player over gRPC, through ``clients.client.TyphoonClient``; every RPC is
  reported to locust (request type ``grpc``, name = the RPC) with its latency;
- ``RestMatchUser``: a player over REST/JSON (``HttpUser``; names are the path templates);
- ``GrpcWatchUser``, ``SseWatchUser``: watchers over gRPC and over server-sent events. Their count
  is ``--watchers`` (a fixed count, on top of the players).

Each user calls from an address of its own, as players do: it sends ``X-Forwarded-For`` (HTTP header and
gRPC metadata) with an address of 198.18.0.0/15 (the range kept for benchmarks), which a service that
trusts 127.0.0.1 as its proxy (``typhoon serve --trusted-proxy 127.0.0.1``: ``loadtests/run.py`` starts it
so) counts the user's calls by, the rate limits per address included, as behind a proxy in production.
A service that trusts no proxy ignores the header.

Run it alone against a running service::

    locust -f loadtests/locustfile.py --headless -u 50 -r 10 -t 2m GrpcMatchUser \\
        --grpc-targets 127.0.0.1:50051 --http-urls http://127.0.0.1:8080

Each completed match, and the number of matches running at once, are counted by
``loadtests/metrics.py`` (summary JSON with ``--typhoon-summary FILE``).
"""

# ruff: noqa: I001 - the import order matters: locust (gevent patching), then gRPC
from __future__ import annotations

import itertools
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

# locust first: importing it patches the standard library for gevent
import gevent
from locust import HttpUser, User, constant, events, task
from locust.runners import MasterRunner, WorkerRunner

# then gRPC must be told to cooperate with gevent, before any gRPC object exists
import grpc
import grpc.experimental.gevent as grpc_gevent
import requests
import urllib3

grpc_gevent.init_gevent()
# Under gevent, a blocking gRPC call waits for its completion queue in gevent's thread pool (10
# threads by default): with more users than threads, every message of a stream queues behind the
# other users' calls, and a 30-event catch-up took seconds instead of 0.1 s. One thread per user.
# A player's two streams each hold a thread while they wait (loadtests/run.py sets this from --users).
gevent.get_hub().threadpool.maxsize = int(os.environ.get("TYPHOON_LOCUST_THREADS", "1000"))

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clients.client import RECONNECT_OPTIONS, TyphoonClient, TyphoonError, rate_limit_delay  # noqa: E402
from loadtests import metrics as m  # noqa: E402
from service.gen.typhoon.v1 import match_pb2, match_service_pb2 as api  # noqa: E402
from service.match.fresh_tokens import new_seat_token  # noqa: E402

METRICS = m.Metrics()  # this process's figures
TOTALS = m.Metrics()  # the master's (or the only process's) sum
SAMPLER = m.RunningSampler()
_GAUGES: dict[str, int] = {}  # running matches by worker (master)
_state: dict[str, Any] = {"sampler": None, "started": None, "stopped": None}
_pick = itertools.count()


# --- options ---------------------------------------------------------------------------------------

@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    group = parser.add_argument_group("Typhoon")
    group.add_argument("--grpc-targets", default=os.environ.get("TYPHOON_GRPC", "127.0.0.1:50051"),
                       help="comma-separated host:port of the gRPC services (users spread over them)")
    group.add_argument("--http-urls", default=os.environ.get("TYPHOON_HTTP", ""),
                       help="comma-separated base URLs of the REST services (default: --host)")
    group.add_argument("--scenario", default="standard", help="scenario of the matches")
    group.add_argument("--max-actions", type=int, default=0,
                       help="resign after this many actions (0: play every match to its end)")
    group.add_argument("--think-time", default="0",
                       help="seconds between two actions: LOW-HIGH (uniform), or T (uniform in 0.5T-1.5T)")
    group.add_argument("--event-log-every", type=int, default=50, help="read the event log every N actions (0: never)")
    group.add_argument("--watch-every", type=int, default=100, help="catch up on WatchMatch every N actions (0: never)")
    group.add_argument("--watch-seconds", type=float, default=15.0, help="how long a watcher follows a match")
    group.add_argument("--watchers", type=int, default=0,
                       help="number of watcher users (fixed count, shared among the watcher classes chosen)")
    group.add_argument("--typhoon-summary", default="", help="write the match figures as JSON to this file")
    group.add_argument("--workload", choices=["stream", "poll"], default="stream",
                       help="stream: each seat acts from its match_update stream, as typhoon bot does; "
                            "poll: ListLegalActions before each action")
    group.add_argument("--rest-share", type=float, default=0.5,
                       help="with both player classes: the share of players on REST (the rest on gRPC)")


def think_range(text: str) -> tuple[float, float]:
    """``"2-4"``: from 2 to 4 s; ``"3"``: from 1.5 to 4.5 s (0.5x-1.5x); ``"0"``: no thinking.

    >>> think_range("2-4"), think_range("3"), think_range("0")
    ((2.0, 4.0), (1.5, 4.5), (0.0, 0.0))
    """
    low, dash, high = text.partition("-")
    if dash:
        return float(low), float(high)
    return 0.5 * float(text), 1.5 * float(text)


def _opt(environment, name: str, default: Any = None) -> Any:
    options = environment.parsed_options
    return getattr(options, name, default) if options is not None else default


@events.init.add_listener
def _init(environment, **_kwargs) -> None:
    _state["environment"] = environment
    watchers = int(_opt(environment, "watchers", 0) or 0)
    watch_classes = [cls for cls in environment.user_classes if getattr(cls, "watcher", False)]
    for index, cls in enumerate(watch_classes):
        share = watchers // len(watch_classes) + (1 if index < watchers % len(watch_classes) else 0)
        if share:
            cls.fixed_count = share
    players = {cls.__name__: cls for cls in environment.user_classes if not getattr(cls, "watcher", False)}
    if {"GrpcMatchUser", "RestMatchUser"} <= players.keys():
        rest = round(100 * float(_opt(environment, "rest_share", 0.5)))
        players["RestMatchUser"].weight, players["GrpcMatchUser"].weight = rest, 100 - rest
    if isinstance(environment.runner, MasterRunner):
        environment.events.worker_report.add_listener(_on_worker_report)
    elif isinstance(environment.runner, WorkerRunner):
        environment.events.report_to_master.add_listener(_on_report_to_master)


def _on_report_to_master(client_id: str, data: dict) -> None:
    data["typhoon"] = METRICS.drain()


def _on_worker_report(client_id: str, data: dict) -> None:
    report = data.get("typhoon")
    if report:
        TOTALS.merge(report)
        _GAUGES[client_id] = report.get("running", 0)


def _running_now(environment) -> int:
    if isinstance(environment.runner, MasterRunner):
        return sum(_GAUGES.values())
    return METRICS.running


@events.test_start.add_listener
def _test_start(environment, **_kwargs) -> None:
    if isinstance(environment.runner, WorkerRunner) or _state["sampler"] is not None:
        return
    _state["started"] = time.monotonic()

    def sample() -> None:
        while True:
            gevent.sleep(1.0)
            SAMPLER.add(_running_now(environment))

    _state["sampler"] = gevent.spawn(sample)


@events.spawning_complete.add_listener
def _spawning_complete(**_kwargs) -> None:
    """Every user started, and locust's statistics start again (``--reset-stats``): ours too, and the time
    is written to ``--typhoon-summary`` + ``.steady`` for run.py (on the master or the only process)."""
    environment = _state.get("environment")
    if environment is None or isinstance(environment.runner, WorkerRunner) or _state.get("steady"):
        return
    _state["steady"] = True
    if environment.reset_stats:
        _reset_stats()
        path = _opt(environment, "typhoon_summary")
        if path:
            Path(f"{path}.steady").write_text(str(time.time()))


@events.reset_stats.add_listener
def _reset_stats(**_kwargs) -> None:
    """Locust's statistics start again (once every user started, or its web page's reset): so do ours."""
    METRICS.counters.clear()
    METRICS.histograms.clear()
    TOTALS.counters.clear()
    TOTALS.histograms.clear()
    if _state["started"] is not None:
        _state["started"] = time.monotonic()


@events.test_stop.add_listener
def _test_stop(environment, **_kwargs) -> None:
    if _state["sampler"] is not None and _state["stopped"] is None:
        _state["stopped"] = time.monotonic()
        _state["sampler"].kill(block=False)


@events.quitting.add_listener
def _quitting(environment, **_kwargs) -> None:
    if isinstance(environment.runner, WorkerRunner) or _state["started"] is None:
        return
    if not isinstance(environment.runner, MasterRunner):
        TOTALS.merge(METRICS.drain())
    seconds = (_state["stopped"] or time.monotonic()) - _state["started"]
    data = m.summary(TOTALS, SAMPLER, seconds)
    path = _opt(environment, "typhoon_summary")
    if path:
        m.write_summary(path, data)
    matches = data["matches"]
    print(f"typhoon: {matches['completed']} matches completed ({matches['abandoned']} abandoned), "
          f"{matches['simultaneous']['peak']} at once at most, {data['actions']['per_second']} actions/s",
          file=sys.stderr)


# --- transports ------------------------------------------------------------------------------------

class CallFailed(Exception):
    """A call failed (it is already reported to locust). ``retryable``: the service said "retry"
    (503 UNAVAILABLE) or could not be reached; ``wait``: the seconds a refusal asked to wait before the
    same call is sent again (a 429's ``Retry-After``), None if it asked for none."""

    def __init__(self, message: str, retryable: bool = False, wait: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.wait = wait


def http_failure(response, message: str) -> CallFailed:
    """The failure of a call answered ``response`` (not 200): worth a retry after a 502-504 or no answer at
    all (status 0), and after the wait a 429's ``Retry-After`` asks for."""
    wait = None
    if response.status_code == 429:
        try:
            wait = float(response.headers.get("Retry-After", "1")) + random.uniform(0, 0.25)
        except ValueError:
            wait = 1.0
    return CallFailed(message, retryable=response.status_code in (0, 502, 503, 504), wait=wait)


RETRYABLE_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
MAX_ATTEMPTS = 8
ENDED = (match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_ABORTED)
ENDED_NAMES = ("MATCH_STATUS_FINISHED", "MATCH_STATUS_ABORTED")
#: A submission the match had moved past (an update from before a reconnection): the next update has the
#: actions to choose from.
MOVED_ON = ("STALE_VERSION", "NOT_YOUR_TURN", "GAME_OVER")


def _retryable(error: BaseException) -> bool:
    if isinstance(error, TyphoonError):
        return error.code in RETRYABLE_CODES
    return isinstance(error, CallFailed) and error.retryable


#: The most a user waits out rate limits for one call, in all, as the SDK's ``rate_limit_patience``.
RATE_LIMIT_PATIENCE = 120.0


def _told_to_wait(error: BaseException) -> float | None:
    """The seconds a rate limit (or a busy history pool) asked to wait before the same call, as
    ``clients.client`` waits them out; None for any other failure."""
    if isinstance(error, TyphoonError):
        return rate_limit_delay(error)
    return error.wait if isinstance(error, CallFailed) else None


def _wait_out(error: BaseException, waited: float) -> float | None:
    """Wait as ``error`` asked, if it asked and the patience allows: the seconds waited in all since, or
    None (not a refusal to wait out: the caller retries or gives up as for any other failure)."""
    told = _told_to_wait(error)
    if told is None or waited + told > RATE_LIMIT_PATIENCE:
        return None
    METRICS.count(m.RATE_LIMIT_WAITS)
    gevent.sleep(told)
    return waited + told


class Legal(NamedTuple):
    version: int
    side: str
    actions: Any  # a sequence of actions in the transport's own form


def _fire(environment, request_type: str, name: str, started: float, length: int = 0,
          exception: BaseException | None = None, since: float | None = None) -> None:
    """Report a call to locust: its time from ``started`` until now, or with ``since``, from ``since``
    until ``started`` (a stream: until its first message)."""
    response_time = (started - since if since is not None else time.perf_counter() - started) * 1000
    environment.events.request.fire(request_type=request_type, name=name, response_time=response_time,
                                    response_length=length, exception=exception, context={})


def _targets(environment, name: str, fallback: str | None = None) -> list[str]:
    value = _opt(environment, name) or fallback or ""
    targets = [t.strip().rstrip("/") for t in value.split(",") if t.strip()]
    if not targets:
        raise RuntimeError(f"no targets: give --{name.replace('_', '-')}")
    return targets


#: The first address users call from (their X-Forwarded-For): 198.18.0.0/15, kept for benchmarks (RFC 2544).
FIRST_ADDRESS = 0xC6120000  # 198.18.0.0
_users = itertools.count()


def user_address(environment) -> str:
    """The address the next user of this process calls from (each process of a distributed run its own share).

    >>> class Environment: runner = None
    >>> user_address(Environment()).startswith("198.1")
    True
    """
    runner = environment.runner
    offset = getattr(runner, "worker_index", 0) if isinstance(runner, WorkerRunner) else 0
    n = (offset * 20_000 + next(_users)) % 2**17
    # a /24 of its own for each of the first 512 users (a client counts by its /24: service.client_identity)
    n = (n % 512) << 8 | (n // 512 % 254 + 1)
    return ".".join(str((FIRST_ADDRESS + n) >> shift & 255) for shift in (24, 16, 8, 0))


def _choose(targets: list[str], environment) -> str:
    """Round-robin over the targets (offset by the worker's index, so workers spread too)."""
    runner = environment.runner
    offset = getattr(runner, "worker_index", 0) if isinstance(runner, WorkerRunner) else 0
    return targets[(next(_pick) + offset) % len(targets)]


#: Each user's channel opens its own connection, as each of a thousand real players would. Without it
#: gRPC gives channels to one target with the same options one shared connection (its global subchannel
#: pool): 200 users were one TCP connection (``ss``), which one worker of a ``--workers 2`` service served
#: alone, and 1,050 users met the service's limit of streams per connection (REFUSED_STREAM).
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1), *RECONNECT_OPTIONS]


class LocustTyphoonClient(TyphoonClient):
    """``clients.client.TyphoonClient`` whose every call is one attempt, timed and reported to locust."""

    def __init__(self, target: str, environment, address: str) -> None:
        super().__init__(target, timeout=60.0, retries=0, metadata=[("x-forwarded-for", address)],
                         channel=grpc.insecure_channel(target, options=OWN_CONNECTION))
        self.environment = environment

    def _call(self, method: str, request: Any, token: str | None = None) -> Any:
        started = time.perf_counter()
        try:
            response = getattr(self.stub, method)(request, timeout=self.timeout, metadata=self._metadata(token))
        except grpc.RpcError as error:
            failure = TyphoonError.from_rpc_error(error)
            _fire(self.environment, "grpc", method, started, 0, failure)
            raise failure from None
        _fire(self.environment, "grpc", method, started, response.ByteSize())
        return response


class GrpcTransport:
    def __init__(self, environment, target: str, address: str) -> None:
        self.environment = environment
        self.client = LocustTyphoonClient(target, environment, address)

    def close(self) -> None:
        self.client.close()

    def create(self, scenario: str) -> tuple[str, dict[str, str]]:
        match, tokens = self.client.create_match(scenario, seats=[("german", "locust")])
        tokens["soviet"] = self.client.join_match(match.match_id, "soviet", "locust").token
        return match.match_id, tokens

    def legal(self, match_id: str) -> Legal:
        response = self.client.legal_actions(match_id)
        return Legal(response.version, response.side_to_act, response.actions)

    def submit(self, match_id: str, token: str, action: Any, version: int, request_id: str) -> int:
        response = self.client.submit(match_id, token, action, expected_version=version, request_id=request_id)
        return response.events[-1].sequence if response.events else 0

    def resign(self, match_id: str, token: str, request_id: str) -> None:
        self.client.resign(match_id, token, request_id=request_id)

    def finished(self, match_id: str) -> bool:
        return self.client.get_match(match_id).match.status == match_pb2.MATCH_STATUS_FINISHED

    def event_log(self, match_id: str, after: int) -> None:
        self.client._call("GetEventLog", api.GetEventLogRequest(match_id=match_id, after_sequence=after,
                                                                page_size=100))

    def follow(self, match_id: str, token: str, after: int) -> Iterator[tuple]:
        """The seat's stream of updates from ``after``, as ``typhoon bot`` follows it (``updates_only``:
        no log entry): ("update", version, side to act, over, legal actions or None, last sequence)."""
        started = time.perf_counter()
        call = self.client.stub.WatchMatch(api.WatchMatchRequest(
            match_id=match_id, after_sequence=after, heartbeat_seconds=15, include_legal_actions=True,
            updates_only=True), metadata=self.client._metadata(token))
        first, failure = None, None
        try:
            for response in call:
                first = first if first is not None else time.perf_counter()
                if response.WhichOneof("kind") == "update":
                    update = response.update
                    yield ("update", update.version, update.side_to_act, update.status in ENDED,
                           update.legal_actions.actions if update.HasField("legal_actions") else None,
                           update.last_sequence)
        except grpc.RpcError as error:
            failure = TyphoonError.from_rpc_error(error)
            if failure.code == grpc.StatusCode.CANCELLED:
                failure = None
        finally:
            call.cancel()
            _fire(self.environment, "grpc", "WatchMatch (play)", first or started, 0, failure, since=started)
        if failure:
            raise failure

    def catch_up(self, match_id: str, after: int, upto: int) -> None:
        """WatchMatch from ``after`` until the event ``upto`` has come (reported: the time it took)."""
        started = time.perf_counter()
        call = self.client.stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, after_sequence=after,
                                                                 heartbeat_seconds=5), timeout=60,
                                           metadata=self.client.metadata)
        received, failure, expected = 0, None, after + 1
        try:
            for response in call:
                if response.WhichOneof("kind") != "event":
                    continue
                received += 1
                if response.event.sequence != expected:
                    METRICS.count(m.WATCH_GAPS)
                    failure = CallFailed(f"sequence {response.event.sequence} after {expected - 1}")
                    break
                expected += 1
                if response.event.sequence >= upto:
                    break
            else:
                if expected <= upto:
                    failure = CallFailed(f"the stream ended at {expected - 1}, before {upto}")
        except grpc.RpcError as error:
            failure = TyphoonError.from_rpc_error(error)
        finally:
            call.cancel()
        _fire(self.environment, "grpc", "WatchMatch (catch-up)", started, received, failure)
        if failure:
            raise failure


def reconnecting(session: requests.Session, every_method: bool = False) -> requests.Session:
    """``session`` sending a request again once on a connection the service had closed meanwhile (its
    idle keep-alive timeout ended it while the session held it, between two actions of a player who
    thinks up to 4 s and waits for its update), as browsers do: such a reset is no failure of the call.
    GETs only, unless ``every_method`` (a player's POSTs all carry a request id: sent twice, applied once)."""
    methods = None if every_method else ["GET", "HEAD"]
    adapter = requests.adapters.HTTPAdapter(max_retries=urllib3.Retry(total=1, connect=1, read=1, status=0,
                                                                       allowed_methods=methods))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class RestTransport:
    def __init__(self, environment, client, base: str, address: str) -> None:
        self.environment = environment
        self.client = reconnecting(client, every_method=True)  # locust's HttpSession: reports every request
        self.client.headers["X-Forwarded-For"] = address
        self.base = base
        self.streams = requests.Session()  # for server-sent events, timed here
        self.streams.headers["X-Forwarded-For"] = address

    def close(self) -> None:
        self.streams.close()

    def _call(self, method: str, path: str, name: str, body: Any = None, token: str | None = None,
              params: dict | None = None) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        with self.client.request(method, self.base + path, name=name, json=body, params=params, headers=headers,
                                 catch_response=True) as response:
            if response.status_code == 200:
                try:
                    return response.json()
                except ValueError:
                    message = "the answer is not JSON"
            else:
                try:
                    error = response.json()["error"]
                    message = f"{response.status_code} {error['status']} {error['reason']}"
                except Exception:  # noqa: BLE001 - not an error body (connection refused: status 0)
                    message = f"HTTP {response.status_code} {response.error or ''}".strip()
            response.failure(message)
        raise http_failure(response, message)

    def create(self, scenario: str) -> tuple[str, dict[str, str]]:
        created = self._call("POST", "/v1/matches", "/v1/matches",
                             {"scenario": scenario, "seats": [{"side": "german", "player_name": "locust"}],
                              "request_id": uuid.uuid4().hex})
        match_id = created["match"]["match_id"]
        tokens = {t["side"]: t["token"] for t in created["seat_tokens"]}
        joined = self._call("POST", f"/v1/matches/{match_id}/join", "/v1/matches/{id}/join",  # sent again: the same seat
                            {"side": "soviet", "player_name": "locust", "seat_token": new_seat_token()})
        tokens["soviet"] = joined["seat_token"]
        return match_id, tokens

    def legal(self, match_id: str) -> Legal:
        answer = self._call("GET", f"/v1/matches/{match_id}/legal-actions", "/v1/matches/{id}/legal-actions")
        return Legal(answer["version"], answer["side_to_act"], answer["actions"])

    def submit(self, match_id: str, token: str, action: Any, version: int, request_id: str) -> int:
        answer = self._call("POST", f"/v1/matches/{match_id}/actions", "/v1/matches/{id}/actions",
                            {"action": action, "expected_version": version, "request_id": request_id}, token)
        return answer["events"][-1]["sequence"] if answer["events"] else 0

    def resign(self, match_id: str, token: str, request_id: str) -> None:
        self._call("POST", f"/v1/matches/{match_id}/resign", "/v1/matches/{id}/resign",
                   {"request_id": request_id}, token)

    def finished(self, match_id: str) -> bool:
        answer = self._call("GET", f"/v1/matches/{match_id}", "/v1/matches/{id}")
        return answer["match"]["status"] == "MATCH_STATUS_FINISHED"

    def event_log(self, match_id: str, after: int) -> None:
        self._call("GET", f"/v1/matches/{match_id}/events", "/v1/matches/{id}/events",
                   params={"after_sequence": after, "page_size": 100})

    def follow(self, match_id: str, token: str, after: int) -> Iterator[tuple]:
        """As :meth:`GrpcTransport.follow`, from the server-sent events of the watch route."""
        started = time.perf_counter()
        first: float | None = None
        failure: BaseException | None = None
        try:
            with self.streams.get(f"{self.base}/v1/matches/{match_id}/watch",
                                  params={"after_sequence": after, "heartbeat_seconds": 15,
                                          "include_legal_actions": "true", "updates_only": "true"},
                                  headers={"Authorization": f"Bearer {token}"}, stream=True, timeout=60) as response:
                if response.status_code != 200:
                    raise http_failure(response, f"HTTP {response.status_code}")
                for kind, data in iter_sse(response):
                    first = first if first is not None else time.perf_counter()
                    if kind == "match_update":
                        legal = data.get("legal_actions")
                        yield ("update", data.get("version", 0), data.get("side_to_act", ""),
                               data.get("status") in ENDED_NAMES, legal["actions"] if legal else None,
                               data.get("last_sequence", 0))
                    elif kind in ("end", "error"):
                        if kind == "error":
                            raise CallFailed(f"{data.get('status')} {data.get('reason')}",
                                             retryable=data.get("status") == "UNAVAILABLE")
                        break
        except CallFailed as error:
            failure = error
        except requests.RequestException as error:  # no connection, or it broke: like a 503, worth a retry
            failure = CallFailed(str(error), retryable=True)
        finally:
            _fire(self.environment, "SSE", "/v1/matches/{id}/watch (play)", first or started, 0, failure,
                  since=started)
        if failure:
            raise failure

    def catch_up(self, match_id: str, after: int, upto: int) -> None:
        started = time.perf_counter()
        received, failure, expected = 0, None, after + 1
        try:
            with self.streams.get(f"{self.base}/v1/matches/{match_id}/watch",
                                  params={"after_sequence": after, "heartbeat_seconds": 5},
                                  stream=True, timeout=60) as response:
                if response.status_code != 200:
                    raise http_failure(response, f"HTTP {response.status_code}")
                for kind, data in iter_sse(response):
                    if kind != "match_event":
                        if kind in ("end", "error"):
                            break
                        continue
                    received += 1
                    if data["sequence"] != expected:
                        METRICS.count(m.WATCH_GAPS)
                        raise CallFailed(f"sequence {data['sequence']} after {expected - 1}")
                    expected += 1
                    if data["sequence"] >= upto:
                        break
                if expected <= upto:
                    raise CallFailed(f"the stream ended at {expected - 1}, before {upto}")
        except CallFailed as error:
            failure = error
        except requests.RequestException as error:  # no connection, or it broke: like a 503, worth a retry
            failure = CallFailed(str(error), retryable=True)
        _fire(self.environment, "SSE", "/v1/matches/{id}/watch (catch-up)", started, received, failure)
        if failure:
            raise failure


def iter_sse(response) -> Iterator[tuple[str, dict]]:
    """The (event, data) frames of a server-sent events response, as they arrive."""
    buffer = b""
    for chunk in response.iter_content(chunk_size=None):
        buffer += chunk
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            kind, data = "message", ""
            for line in frame.decode().splitlines():
                field, _, value = line.partition(":")
                if field == "event":
                    kind = value.strip()
                elif field == "data":
                    data += value.lstrip()
            yield kind, (json.loads(data) if data else {})


def _ms(rfc3339: str) -> float:
    return datetime.fromisoformat(rfc3339).timestamp() * 1000


# --- players ---------------------------------------------------------------------------------------

class MatchPlayer:
    """The player's behaviour, whatever the transport: ``self.transport`` is set by on_start.
    Like a real client (docs/API.md), it retries a call the service answers UNAVAILABLE (every
    attempt is still reported to locust, failures included) and a call a rate limit refused once it
    has waited as told (``Retry-After``, up to ``RATE_LIMIT_PATIENCE`` in all); any other failure
    abandons the match."""

    transport: GrpcTransport | RestTransport

    @staticmethod
    def _retry(step, *args: Any) -> Any:
        delay, attempt, waited = 0.1, 0, 0.0
        while True:
            try:
                return step(*args)
            except (TyphoonError, CallFailed) as error:
                waited_now = _wait_out(error, waited)
                if waited_now is not None:
                    waited = waited_now
                    continue
                attempt += 1
                if not _retryable(error) or attempt == MAX_ATTEMPTS:
                    raise
                METRICS.count(m.RETRIES)
                gevent.sleep(delay)
                delay = min(delay * 2, 2.0)

    def play_match(self) -> None:
        env = self.environment
        transport = self.transport
        started = time.perf_counter()
        try:
            match_id, tokens = self._retry(transport.create, _opt(env, "scenario", "standard") or "standard")
        except (TyphoonError, CallFailed):
            METRICS.count(m.MATCHES_ABANDONED)
            gevent.sleep(1.0)  # do not spin on a service that refuses everything
            return
        METRICS.count(m.MATCHES_STARTED)
        METRICS.running += 1
        try:
            play = self._play_streamed if _opt(env, "workload", "stream") == "stream" else self._play_polled
            outcome, actions = play(match_id, tokens)
            if not self._retry(transport.finished, match_id):
                raise CallFailed("the match is not finished after its last action")
        except (TyphoonError, CallFailed):
            METRICS.count(m.MATCHES_ABANDONED)
            return
        finally:
            METRICS.running -= 1
        METRICS.count(outcome)
        METRICS.observe(m.MATCH_SECONDS, time.perf_counter() - started)
        METRICS.observe(m.MATCH_ACTIONS, actions)

    def _settings(self) -> tuple[int, tuple[float, float], int, int]:
        env = self.environment
        return (int(_opt(env, "max_actions", 0) or 0), think_range(str(_opt(env, "think_time", "0") or "0")),
                int(_opt(env, "event_log_every", 50) or 0), int(_opt(env, "watch_every", 100) or 0))

    def _play_polled(self, match_id: str, tokens: dict[str, str]) -> tuple[str, int]:
        """ListLegalActions, then SubmitAction, until the game is over (``--workload poll``)."""
        max_actions, think, log_every, watch_every = self._settings()
        transport, retry = self.transport, self._retry
        actions, last_sequence = 0, 0
        while True:
            legal = retry(transport.legal, match_id)
            if not legal.side:  # the game is over
                return m.MATCHES_FINISHED, actions
            if max_actions and actions >= max_actions:
                retry(transport.resign, match_id, tokens[legal.side], uuid.uuid4().hex)
                return m.MATCHES_RESIGNED, actions
            # a retry reuses the request id: applied once, whatever happened to the first answer
            last_sequence = retry(transport.submit, match_id, tokens[legal.side], random.choice(legal.actions),
                                  legal.version, uuid.uuid4().hex) or last_sequence
            actions += 1
            METRICS.count(m.ACTIONS)
            if log_every and actions % log_every == 0:
                retry(transport.event_log, match_id, max(0, last_sequence - 50))
            if watch_every and actions % watch_every == 0:
                retry(transport.catch_up, match_id, max(0, last_sequence - 30), last_sequence)
            if think[1]:
                gevent.sleep(random.uniform(*think))

    def _play_streamed(self, match_id: str, tokens: dict[str, str]) -> tuple[str, int]:
        """Each seat on its own match_update stream, acting when an update gives it legal actions
        (``--workload stream``, as ``typhoon bot`` plays); the seats run side by side."""
        match = StreamedMatch(self, match_id, tokens)
        seats = [gevent.spawn(match.play_seat, side) for side in tokens]
        try:
            gevent.joinall(seats, raise_error=True)
        finally:
            gevent.killall(seats)
        return match.outcome or m.MATCHES_FINISHED, match.actions


class StreamedMatch:
    """The two seats of one match, each following its stream (:meth:`play_seat` in a greenlet each)."""

    def __init__(self, player: MatchPlayer, match_id: str, tokens: dict[str, str]) -> None:
        self.player = player
        self.match_id = match_id
        self.tokens = tokens
        self.max_actions, self.think, self.log_every, _ = player._settings()
        self.actions = 0
        self.last_sequence = 0
        self.outcome: str | None = None

    def play_seat(self, side: str) -> None:
        transport, retry = self.player.transport, self.player._retry
        after, attempts, waited = 0, 0, 0.0
        while self.outcome is None:
            try:
                for item in transport.follow(self.match_id, self.tokens[side], after):
                    attempts = 0
                    _, version, to_act, over, actions, last_sequence = item
                    after = max(after, last_sequence)
                    if over or self.outcome is not None:
                        self.outcome = self.outcome or m.MATCHES_FINISHED
                        return
                    if to_act != side or not actions:
                        continue
                    if self.max_actions and self.actions >= self.max_actions:
                        retry(transport.resign, self.match_id, self.tokens[side], uuid.uuid4().hex)
                        self.outcome = m.MATCHES_RESIGNED
                        return
                    if self.think[1]:
                        gevent.sleep(random.uniform(*self.think))
                    self._submit(side, random.choice(actions), version)
                # the stream ended before the match did (the service stopping): follow it again
                error: BaseException = CallFailed("the stream ended before the match", retryable=True)
            except (TyphoonError, CallFailed) as failure:
                error = failure
            waited_now = _wait_out(error, waited)  # an open refused by stream_opens: back at its turn
            if waited_now is not None:
                waited = waited_now
                continue
            attempts += 1
            if not _retryable(error) or attempts >= MAX_ATTEMPTS:
                raise error
            METRICS.count(m.RETRIES)
            gevent.sleep(min(0.1 * 2 ** attempts, 2.0))

    def _submit(self, side: str, action: Any, version: int) -> None:
        transport, retry = self.player.transport, self.player._retry
        try:
            # a retry reuses the request id: applied once, whatever happened to the first answer
            sequence = retry(transport.submit, self.match_id, self.tokens[side], action, version, uuid.uuid4().hex)
        except (TyphoonError, CallFailed) as error:
            reason = getattr(error, "reason", "") or str(error)
            if any(moved in reason for moved in MOVED_ON):
                return  # an update from before: a later one brings the actions
            raise
        self.last_sequence = max(self.last_sequence, sequence or 0)
        self.actions += 1
        METRICS.count(m.ACTIONS)
        if self.log_every and self.actions % self.log_every == 0:
            retry(transport.event_log, self.match_id, max(0, self.last_sequence - 50))


class GrpcMatchUser(MatchPlayer, User):
    """Plays whole matches over gRPC (clients/client.py), one at a time."""

    wait_time = constant(0)

    def on_start(self) -> None:
        self.transport = GrpcTransport(self.environment, _choose(_targets(self.environment, "grpc_targets"),
                                                                 self.environment), user_address(self.environment))

    def on_stop(self) -> None:
        self.transport.close()

    @task
    def match(self) -> None:
        self.play_match()


class RestMatchUser(MatchPlayer, HttpUser):
    """Plays whole matches over REST/JSON, one at a time."""

    wait_time = constant(0)
    host = "http://127.0.0.1:8080"

    def on_start(self) -> None:
        base = _choose(_targets(self.environment, "http_urls", self.environment.host or self.host), self.environment)
        self.transport = RestTransport(self.environment, self.client, base, user_address(self.environment))

    def on_stop(self) -> None:
        self.transport.close()

    @task
    def match(self) -> None:
        self.play_match()


# --- watchers --------------------------------------------------------------------------------------

class _Watcher:
    watcher = True
    wait_time = constant(0.5)

    def _follow_live(self, after: int, stream) -> None:
        """Follow one stream: ``stream`` yields (sequence, commit ms) for events, None for heartbeats."""
        seconds = float(_opt(self.environment, "watch_seconds", 15.0) or 15.0)
        opened_ms = time.time() * 1000
        started = time.perf_counter()
        first = None
        received, expected, failure = 0, after + 1, None
        METRICS.count(m.WATCH_SESSIONS)
        try:
            for item in stream:
                now = time.perf_counter()
                if first is None:
                    first = (now - started) * 1000
                if item is not None:
                    sequence, committed_ms = item
                    received += 1
                    METRICS.count(m.WATCH_EVENTS)
                    if sequence != expected:
                        METRICS.count(m.WATCH_GAPS)
                        failure = CallFailed(f"sequence {sequence} after {expected - 1}")
                        break
                    expected += 1
                    if committed_ms >= opened_ms:  # live, not caught up from before the stream opened
                        lag = max(0.0, time.time() * 1000 - committed_ms)
                        METRICS.observe(m.EVENT_LAG_MS, lag)
                        METRICS.observe(f"{m.EVENT_LAG_MS}.{self.transport_label}", lag)
                if now - started > seconds:
                    break
        except (grpc.RpcError, requests.RequestException, CallFailed) as error:
            failure = TyphoonError.from_rpc_error(error) if isinstance(error, grpc.RpcError) else error
        self.environment.events.request.fire(
            request_type=self.stream_type, name=self.stream_name, context={},
            response_time=first if first is not None else (time.perf_counter() - started) * 1000,
            response_length=received, exception=failure)


class GrpcWatchUser(_Watcher, User):
    """Follows running matches over gRPC WatchMatch (reported latency: time to the first message)."""

    stream_type, stream_name, transport_label = "grpc", "WatchMatch (follow)", "grpc"

    def on_start(self) -> None:
        self.client = LocustTyphoonClient(_choose(_targets(self.environment, "grpc_targets"), self.environment),
                                          self.environment, user_address(self.environment))

    def on_stop(self) -> None:
        self.client.close()

    @task
    def watch(self) -> None:
        try:
            matches = self.client.list_matches(status=match_pb2.MATCH_STATUS_ACTIVE, page_size=100).matches
        except TyphoonError:
            return
        if not matches:
            return
        match = random.choice(matches)
        call = self.client.stub.WatchMatch(api.WatchMatchRequest(
            match_id=match.match_id, after_sequence=match.last_sequence, heartbeat_seconds=1), timeout=300,
            metadata=self.client.metadata)

        def items():
            for response in call:
                if response.WhichOneof("kind") == "event":
                    yield response.event.sequence, response.event.time.ToMilliseconds()
                else:
                    yield None

        try:
            self._follow_live(match.last_sequence, items())
        finally:
            call.cancel()


class SseWatchUser(_Watcher, HttpUser):
    """Follows running matches over REST server-sent events (latency: time to the first message)."""

    stream_type, stream_name, transport_label = "SSE", "/v1/matches/{id}/watch (follow)", "rest"
    host = "http://127.0.0.1:8080"

    def on_start(self) -> None:
        self.base = _choose(_targets(self.environment, "http_urls", self.environment.host or self.host),
                            self.environment)
        address = user_address(self.environment)
        reconnecting(self.client).headers["X-Forwarded-For"] = address
        self.streams = requests.Session()
        self.streams.headers["X-Forwarded-For"] = address

    def on_stop(self) -> None:
        self.streams.close()

    @task
    def watch(self) -> None:
        with self.client.get(f"{self.base}/v1/matches", params={"status": "MATCH_STATUS_ACTIVE", "page_size": 100},
                             name="/v1/matches?status=MATCH_STATUS_ACTIVE", catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"HTTP {response.status_code}")
                return
            matches = response.json()["matches"]
        if not matches:
            return
        match = random.choice(matches)
        after = match["last_sequence"]
        try:
            response = self.streams.get(f"{self.base}/v1/matches/{match['match_id']}/watch",
                                        params={"after_sequence": after, "heartbeat_seconds": 1},
                                        stream=True, timeout=60)
        except requests.RequestException as error:
            self.environment.events.request.fire(request_type=self.stream_type, name=self.stream_name,
                                                 response_time=0, response_length=0, exception=error, context={})
            return

        def items():
            if response.status_code != 200:
                raise CallFailed(f"HTTP {response.status_code}")
            for kind, data in iter_sse(response):
                if kind == "match_event":
                    yield data["sequence"], _ms(data["time"])
                elif kind in ("end", "error"):
                    return
                else:  # a heartbeat, or the match_update that tells where the match stands (as gRPC's)
                    yield None

        try:
            self._follow_live(after, items())
        finally:
            response.close()
