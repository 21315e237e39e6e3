"""Running the service: gRPC and REST on one event loop, over Redis (external or embedded).

``typhoon serve --grpc-port P --http-port Q [--redis-url URL] [--data-dir DIR]``. Without a URL
(nor ``REDIS_URL``) it runs an embedded Redis with append-only persistence in the data directory
(default ``.typhoon/``). It serves gRPC health checking (``grpc.health.v1.Health``, service names ""
and "typhoon.v1.MatchService") and server reflection, logs JSON lines with structlog, and on
SIGTERM/SIGINT shuts down gracefully: health goes NOT_SERVING, watch streams end cleanly (clients
resume elsewhere with their cursor), in-flight calls finish while new ones are refused with
UNAVAILABLE/SHUTTING_DOWN, then Redis is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import os
import signal
import socket
import sys
import threading
from typing import Any, Callable, Coroutine, TypeVar

import grpc
import orjson
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from starlette.routing import BaseRoute, Route

from service import metrics
from service.client_identity import count_by
from service.api import grpc_api, http_api, log_context, reflection, web
from service.api.connection_limits import ConnectionLimits, grpc_options
from service.api.grpc_connections import StalledStreams
from service.api.grpc_edge import MetadataLimit
from service.api.http_connections import HttpServer, uvicorn_config
from service.guard.call_guard import CallGuard
from service.guard.history_pool import HistoryPool
from service.ladder.core import Ladder
from service.match.clock import Sweeper
from service.match.core import MatchService
from service.match.updates import SeatWatches
from service.match.watch_limits import WatchLimits
from service.run.config import ServeConfig
from service.run.memory import MemoryReturn
from service.run.operations import admin_app, take_docs
from service.run.readiness import Readiness
from service.run.tls import warn_if_plaintext
from service.run.workers import tell_ready
from service.store.embedded_redis import EmbeddedRedis
from service.store.hub import StreamHub
from service.store.match_store import Store
from service.upkeep.abandoned import Abandonment
from service.upkeep.compaction import CompactionSweep
from service.upkeep.retention import Retention
from service.upkeep.unused import UnusedMatches, sweep_interval

log = structlog.get_logger("typhoon.server")

#: uvicorn's HTTP/1.1 parser: httptools (C) costs a REST call ~0.15 ms less than h11, uvicorn's pure-Python
#: default when httptools is missing (benchmarks/service_floor.py, 2026-11-26: 0.64 against 0.79 ms a call).
#: The service's own protocol (service.api.http_connections) is httptools' with the limits on slow and
#: greedy clients; the benchmark's floor runs uvicorn's plain one.
HTTP_PARSER = "httptools"

T = TypeVar("T")


def grpc_server_options(config: ServeConfig) -> list[tuple[str, int]]:
    """The gRPC server's channel arguments.

    gRPC core queues a call that arrives before the event loop has asked for the next call of its
    method, and past 1,000 queued calls of one method (its ``grpc.server.max_pending_requests``) it
    drops new ones at random, all of them past 3,000, with CANCELLED, a code no client takes for
    "too busy". A burst of watchers (a replica's watchers reconnecting here after it died) queues as
    many WatchMatch calls as there are watchers, so the backlog allowed is the watch cap (twice that
    before all are dropped): the process refuses watchers past its cap itself, with
    RESOURCE_EXHAUSTED and a sentence. A call still unasked for after 30 s is dropped all the same.

    >>> dict(grpc_server_options(ServeConfig(max_watch_streams=20000)))["grpc.server.max_pending_requests"]
    20000
    """
    backlog = max(1000, config.max_watch_streams)
    return [("grpc.so_reuseport", 1 if config.worker else 0),
            ("grpc.server.max_pending_requests", backlog),
            ("grpc.server.max_pending_requests_hard_limit", 2 * backlog),
            *grpc_options(config.connections)]


#: Tracebacks as dicts, without the frames' local variables (structlog shows them by default): a key, a
#: seat token or a request id in a local would otherwise be written in clear into the log.
_TRACEBACKS = structlog.processors.ExceptionRenderer(structlog.tracebacks.ExceptionDictTransformer(show_locals=False))


def configure_logging(level: str = "info", stream=None, cache: bool = False, for_person: bool = False) -> None:
    """structlog JSON lines on stderr; each line carries the bound match_id, request_ref, rpc...

    Lines logged with ``lifecycle=True`` (serving, shutting down, stopped) pass whatever the level.
    ``cache``: each logger is assembled once, at its first line (``typhoon serve``, configured once per
    process: a line costs ~10 µs instead of ~40); in-process users that may configure again leave it off.
    ``for_person``: a command that runs the service for a person at a terminal (``typhoon play``) says
    itself what matters: lifecycle lines pass only at ``level``, and the lines that do pass are plain
    text (``2026-01-01T12:00:00Z [warning] event key=value``), not JSON."""
    number = getattr(logging, level.upper(), logging.INFO)
    logging.basicConfig(level=max(number, logging.WARNING), stream=stream or sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")

    def level_filter(logger, method_name, event_dict):
        lifecycle = event_dict.pop("lifecycle", False) and not for_person
        if not lifecycle and logging.getLevelName(method_name.upper()) < number:
            raise structlog.DropEvent
        return event_dict

    renderer = structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback) \
        if for_person else structlog.processors.JSONRenderer(serializer=_json_line)
    structlog.configure(
        processors=[level_filter, log_context.merge, structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso", utc=True),
                    *(() if for_person else (_TRACEBACKS,)), renderer],
        wrapper_class=structlog.make_filtering_bound_logger(min(number, logging.INFO)),
        # one write per line: the workers of --workers share their supervisor's output, and print()'s two
        # writes (the line, then its newline) interleaved between processes
        logger_factory=structlog.WriteLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=cache)


def _json_line(event: dict[str, Any], default: Callable[[Any], Any]) -> str:
    """A log line's JSON (orjson: a third of json.dumps's time; keys need not be strings)."""
    return orjson.dumps(event, default=default, option=orjson.OPT_NON_STR_KEYS).decode()


def operations_routes(readiness: Readiness, openapi: Callable[[], dict]) -> dict[str, BaseRoute]:
    """``GET /readyz``: 200 when this process can serve now, else 503 with the reasons;
    ``GET /healthz``: the process answers; ``GET /metrics``: the Prometheus metrics (service.metrics);
    ``GET /openapi.json``. By name, for the listeners that serve them (service.run.operations)."""
    from starlette.responses import JSONResponse, Response

    async def readyz(request) -> JSONResponse:
        return JSONResponse(readiness.to_json(), status_code=200 if readiness.ready else 503)

    async def healthz(request) -> JSONResponse:
        return JSONResponse({"status": "SERVING"})

    async def metrics_text(request) -> Response:
        body, content_type = metrics.exposition()
        return Response(body, media_type=content_type)

    async def openapi_json(request) -> JSONResponse:
        return JSONResponse(openapi())

    return {"readyz": Route("/readyz", readyz, methods=["GET"]),
            "healthz": Route("/healthz", healthz, methods=["GET", "HEAD"]),
            "metrics": Route("/metrics", metrics_text, methods=["GET"]),
            "openapi": Route("/openapi.json", openapi_json, methods=["GET"])}


class _Uvicorn(HttpServer):
    """uvicorn without its own signal handling: the Server below owns the signals."""

    @contextlib.contextmanager
    def capture_signals(self):
        yield


def _listening_socket(host: str, port: int, shared: bool) -> socket.socket:
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so (else Nagle and
    # delayed ACKs add 40 ms to every keep-alive request)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


async def _serve_http(server: _Uvicorn, sock: socket.socket, name: str) -> asyncio.Task:
    task = asyncio.create_task(server.serve(sockets=[sock]), name=name)
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError(f"the {name} server stopped at start")
        await asyncio.sleep(0.01)
    return task


class Server:
    """The running service. ``await start()``, then ``await stop()``; ports are known after start."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.embedded: EmbeddedRedis | None = None
        self.grpc_port = 0
        self.http_port = 0
        self.admin_port: int | None = None
        self.admin_grpc_port: int | None = None
        self.redis_url = ""
        self._grpc: grpc.aio.Server | None = None
        self._admin_grpc: grpc.aio.Server | None = None
        self._http: _Uvicorn | None = None
        self._http_task: asyncio.Task | None = None
        self._admin_http: _Uvicorn | None = None
        self._admin_http_task: asyncio.Task | None = None
        self.memory: MemoryReturn | None = None
        self._health: health.aio.HealthServicer | None = None
        self.core: MatchService | None = None
        self.sweeper: Sweeper | None = None
        self.compaction: CompactionSweep | None = None
        self.ladder: Ladder | None = None
        self.hub: StreamHub | None = None
        self.store: Store | None = None
        self.readiness: Readiness | None = None
        self.guard: CallGuard | None = None
        self.stalled: StalledStreams | None = None
        self.history: HistoryPool | None = None

    async def start(self) -> None:
        config = self.config
        url = config.redis_url or os.environ.get("REDIS_URL")
        if not url and not config.redis_sentinels:
            self.embedded = EmbeddedRedis(config.data_dir, fsync=config.fsync, maxmemory=config.redis_maxmemory)
            # started from this thread on purpose: the child is tied to the thread that forks it
            url = self.embedded.start()
        self.redis_url = url or ""
        # no check of Redis here: the process serves (NOT_SERVING) while Redis is down or loading,
        # and turns SERVING when it answers (service.run.readiness)
        self.store = Store.connect(config.redis_settings(self.redis_url))
        self.hub = StreamHub(self.store)
        watch_limits = WatchLimits(config.max_watch_streams, config.max_watch_streams_per_client)
        self.core = MatchService(self.store, self.hub, watch_limits=watch_limits,
                                 seat_watches=SeatWatches(config.max_seat_watches))
        self.sweeper = Sweeper(self.core.clocks, self.core.forfeit_side_on_time)
        self.sweeper.listen(self.hub.feed.listen)  # woken by the commits, not polling
        self.sweeper.start()
        self.ladder = Ladder(self.core, config.ladder)
        await self.ladder.prepare()
        self.ladder.start()
        self.compaction = CompactionSweep(self.store, abandonment=Abandonment.after_days(self.store, config.abandon_after_days),
                                          retention=Retention.for_days(self.store, config.retention_days),
                                          unused=UnusedMatches.after_hours(self.store, config.unused_after_hours),
                                          interval=sweep_interval(config.unused_after_hours))
        self.compaction.start()
        count_by(config.client_ipv4_prefix, config.client_ipv6_prefix)  # the limits' and the ladder's clients
        self.guard = CallGuard.for_store(self.store, config.limits, config.store_high_water, config.trusted_proxies)
        self.guard.capacity.start()
        self.ladder.room = self.guard.capacity.room  # the ladder's pairings add matches: judged as CreateMatch
        self.history = HistoryPool(self.store.settings, config.history, self.guard.limits,
                                   config.limits.rates("history_calls") if config.limits.enabled("history_calls") else None)
        self.core.past = self.history  # VerifyMatch and GetMatch at a version: off this event loop

        limits, operations, tls = config.connections, config.operations, config.tls
        if config.trusted_proxies:  # a trusted proxy carries many clients: the per-address cap leaves it alone
            limits = dataclasses.replace(limits, connection_cap_exempt=limits.connection_cap_exempt
                                         + tuple(config.trusted_proxies))
        self._grpc = grpc.aio.server(options=grpc_server_options(config),
                                     interceptors=[MetadataLimit(limits.max_header_bytes)])
        self.stalled = StalledStreams(self.guard.proxies.trusts)
        grpc_api.add_to_server(self.core, self._grpc, guard=self.guard, slow_reader_timeout=limits.slow_reader_timeout,
                               stalled=self.stalled)
        grpc_api.add_to_server(self.ladder, self._grpc, grpc_api.LADDER_SERVICE, guard=self.guard,
                               slow_reader_timeout=limits.slow_reader_timeout, stalled=self.stalled)
        self._health = health.aio.HealthServicer()
        self.readiness = Readiness(self.store, self._health,
                                   ["", grpc_api.SERVICE_NAME, grpc_api.LADDER_SERVICE.full_name],
                                   saturation=[watch_limits.saturation, self._pool_saturation,
                                               self.history.saturation])
        self.readiness.on_check.append(self._update_gauges)
        await self.readiness.start()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._grpc)
        reflected = [grpc_api.SERVICE_NAME, grpc_api.LADDER_SERVICE.full_name,
                     health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]
        if operations.served("reflection") == "public":
            reflection.enable(reflected, self._grpc)
        address = f"{config.host}:{config.grpc_port}"
        self.grpc_port = self._grpc.add_secure_port(address, tls.grpc_credentials()) if tls else \
            self._grpc.add_insecure_port(address)
        if not self.grpc_port:
            raise OSError(f"cannot listen for gRPC on {address}")
        self.stalled.port = self.grpc_port
        await self._grpc.start()
        if operations.admin_grpc_port is not None:
            self._admin_grpc = grpc.aio.server(options=[("grpc.so_reuseport", 1 if config.worker else 0)])
            health_pb2_grpc.add_HealthServicer_to_server(self._health, self._admin_grpc)
            if operations.served("reflection") == "admin":
                reflection.enable(reflected, self._admin_grpc)
            self.admin_grpc_port = self._admin_grpc.add_insecure_port(
                f"{operations.admin_host}:{operations.admin_grpc_port}")
            if not self.admin_grpc_port:
                raise OSError(f"cannot listen for gRPC on {operations.admin_host}:{operations.admin_grpc_port}")
            await self._admin_grpc.start()

        sock = _listening_socket(config.host, config.http_port, config.worker)
        self.http_port = sock.getsockname()[1]
        page = web.PageSettings(grpc_port=self.grpc_port, grpc_address=config.public_grpc_address,
                                api_origin=config.page_api_origin)
        app = http_api.create_app(self.core, config.cors_origins, self.ladder, page, guard=self.guard)
        routes = operations_routes(self.readiness, app.openapi)
        app.router.routes.append(routes["readyz"])
        if operations.served("metrics") == "public":
            app.router.routes.append(routes["metrics"])
        docs = take_docs(app) if operations.served("docs") != "public" else []
        self._http = _Uvicorn(uvicorn_config(app, limits, grace_seconds=config.grace_seconds), limits,
                              tls.server_context() if tls else None)
        self._http_task = await _serve_http(self._http, sock, "http")
        if operations.admin_port is not None:
            admin_routes = [routes["healthz"], routes["readyz"], routes["openapi"]]
            admin_routes += [routes["metrics"]] if operations.served("metrics") == "admin" else []
            admin_routes += docs if operations.served("docs") == "admin" else []
            admin_sock = _listening_socket(operations.admin_host, operations.admin_port, config.worker)
            self.admin_port = admin_sock.getsockname()[1]
            admin_limits = ConnectionLimits(max_connections_per_address=0)
            self._admin_http = _Uvicorn(uvicorn_config(admin_app(admin_routes), admin_limits, grace_seconds=1),
                                        admin_limits)
            self._admin_http_task = await _serve_http(self._admin_http, admin_sock, "admin-http")
        self.memory = MemoryReturn(lambda: self.core.watch_limits.streams + self._http.connections)
        self.memory.start()

        await self.readiness.check()
        if not config.worker:  # a supervisor of workers warns once for all of them
            warn_if_plaintext(config.host, config.tls, log)
        log.info("worker_serving" if config.worker else "serving", grpc_port=self.grpc_port,
                 http_port=self.http_port, host=config.host, tls=bool(config.tls),
                 admin_port=self.admin_port, admin_grpc_port=self.admin_grpc_port,
                 metrics=operations.served("metrics"), docs=operations.served("docs"),
                 reflection=operations.served("reflection"), ready=self.readiness.ready,
                 redis="embedded" if self.embedded else self.store.settings.describe(),
                 data_dir=str(self.embedded.data_dir) if self.embedded else None, lifecycle=True)

    def _update_gauges(self) -> None:
        in_use, most = self.store.connections_in_use()
        metrics.POOL_IN_USE.set(in_use)
        metrics.POOL_MAX.set(most)
        metrics.WATCH_STREAMS.set(self.core.watch_limits.streams)
        metrics.WATCHED_MATCHES.set(self.hub.matches)
        metrics.ACTIVE_MATCHES.set(metrics.active_matches())
        metrics.FEED_CONNECTED.set(1 if self.hub.feed.connected else 0)
        metrics.READY.set(1 if self.readiness.ready else 0)
        metrics.observe_process()

    def _pool_saturation(self) -> str | None:
        in_use, most = self.store.connections_in_use()
        return f"all {most} Redis connections are busy" if in_use >= most else None

    async def stop(self) -> None:
        log.info("shutting_down", lifecycle=True)
        if self.readiness:
            await self.readiness.stop()
        if self._health:
            await self._health.enter_graceful_shutdown()
        if self.hub:
            await self.hub.close()  # watch streams end now, cleanly
        if self.core:
            unfinished = await self.core.drain(self.config.grace_seconds)  # in-flight calls finish
            if unfinished:
                log.warning("calls_unfinished_at_shutdown", calls=unfinished, lifecycle=True)
        if self._http:
            self._http.should_exit = True
        if self._admin_http:
            self._admin_http.should_exit = True
        if self.memory:
            await self.memory.stop()
        if self.sweeper:
            await self.sweeper.stop()
        if self.ladder:
            await self.ladder.stop()
        if self.compaction:
            await self.compaction.stop()
        if self.guard:
            await self.guard.capacity.stop()
        if self.history:
            await self.history.stop()
        if self._grpc:
            await self._grpc.stop(1.0)
        if self._admin_grpc:
            await self._admin_grpc.stop(0.5)
        if self._http_task:
            await self._http_task
        if self._admin_http_task:
            await self._admin_http_task
        if self.store:
            await self.store.close()
        if self.embedded:
            await asyncio.to_thread(self.embedded.stop)
        log.info("stopped", lifecycle=True)


#: Allocations between two young collections (Python's default: 700), and how many of those make an
#: older one (10, 10). A call allocates thousands of objects (protobuf messages, the engine's copy of a
#: position): at the default, several collections a call.
GC_THRESHOLDS = (20_000, 20, 20)


def settle_garbage_collector() -> None:
    """For a serving process, once started: what start-up made (modules, the engine's data, gRPC's and
    protobuf's tables: most of the heap) is moved out of the collector's sight (``gc.freeze``), so a full
    collection no longer walks it, and collections run less often. At Python's defaults the collector
    took ~6% of a call's CPU and its full collections made the slowest calls (p99 450 ms against 110 ms
    with this, benchmarks/service_floor.py, gRPC, same machine)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def run_event_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on asyncio's own event loop. uvloop was tried three times: once it saved ~5 % of a
    call's CPU, within the benchmark's noise; then, in eight alternated runs of benchmarks/service_floor.py's
    gRPC loop, 0.93 ms a call against 0.92 on asyncio's, while it took 18 % off the no-op floor's; then
    (issue 35) under the stream-driven load test, where stream writes are a fifth of the service's CPU
    (300 matches, think time 1-2 s, two alternated pairs on a shared machine): 2.38 and 2.60 ms of the
    service's CPU an action against 2.60 and 2.60. So it is not a dependency."""
    return asyncio.run(main)


async def serve(config: ServeConfig, on_ready: Callable[[Server], None] | None = None,
                stop_event: asyncio.Event | None = None) -> None:
    """Run until SIGTERM/SIGINT (main thread) or until ``stop_event`` is set."""
    stop_event = stop_event or asyncio.Event()
    server = Server(config)
    loop = asyncio.get_running_loop()
    handled = []
    # before the start, so that a signal that comes as soon as the "serving" line is out stops it gracefully
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop_event.set)
            handled.append(sig)
    try:
        await server.start()
        if config.worker:
            tell_ready()
        if on_ready:
            on_ready(server)
        await stop_event.wait()
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
        await server.stop()


class BackgroundServer:
    """The service on its own event loop in a thread (the demo and tests use it)::

        with BackgroundServer(ServeConfig(grpc_port=0, http_port=0, data_dir=tmp)) as server:
            channel = grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}")
    """

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.server: Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="typhoon-server", daemon=True)

    @property
    def grpc_port(self) -> int:
        return self.server.grpc_port

    @property
    def http_port(self) -> int:
        return self.server.http_port

    @property
    def admin_port(self) -> int | None:
        return self.server.admin_port

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()

            def ready(server: Server) -> None:
                self.server = server
                self._ready.set()

            await serve(self.config, ready, self._stop)

        try:
            run_event_loop(main())
        except BaseException as error:  # noqa: BLE001 - reported by start()
            self._error = error
        finally:
            self._ready.set()

    def start(self, timeout: float = 30.0) -> "BackgroundServer":
        self._thread.start()
        self._ready.wait(timeout)
        if self._error or not self.server:
            raise RuntimeError(f"the service did not start: {self._error!r}")
        return self

    def stop(self, timeout: float = 30.0) -> None:
        if self._loop and self._stop and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def __enter__(self) -> "BackgroundServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
