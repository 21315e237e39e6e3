"""``typhoon serve --workers N``: N service processes on every core of a host, one gRPC and one HTTP port.

One Python process serves on one core (the event loop is single-threaded), so a host runs a
process per core. The parent here (the supervisor) starts the embedded Redis unless a Redis URL is
given, chooses the ports, and starts N workers, each a plain ``typhoon serve`` process on that Redis
listening on the same two ports with ``SO_REUSEPORT``: the kernel spreads new connections over them.
Every worker is stateless (Redis is the truth; what a worker remembers is checked by the commit, see
``service.match.cache``), so any worker can serve any call of any match.

The supervisor logs ``serving`` (with the ports) once every worker serves. On SIGTERM or SIGINT it
passes the signal to every worker, which shuts down gracefully (watch streams end, calls in flight
finish), waits for them, then stops the embedded Redis. A worker that dies is started again. The
workers die with the supervisor (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import structlog

from service import metrics
from service.processes import dying_with_parent
from service.run.config import ServeConfig
from service.run.tls import warn_if_plaintext

log = structlog.get_logger("typhoon.workers")

READY_FD_VARIABLE = "TYPHOON_READY_FD"
ROOT = Path(__file__).resolve().parents[2]


def default_workers() -> int:
    """One per core this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def shared_metrics_dir() -> "tempfile.TemporaryDirectory | None":
    """The workers' metrics go to files in one directory (prometheus-client's multiprocess mode), so a
    scrape of any worker adds up all of them; an operator's PROMETHEUS_MULTIPROC_DIR is kept."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    directory = tempfile.TemporaryDirectory(prefix="typhoon-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory.name  # inherited by the workers started after
    return directory


def reserve_port(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (0: a free port) with SO_REUSEPORT and not listening: it holds
    the port for the workers, which bind it too; only listening sockets are given connections."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def tell_ready() -> None:
    """In a worker: tell the supervisor this worker serves (a byte on the pipe it passed)."""
    fd = os.environ.pop(READY_FD_VARIABLE, "")
    if fd.isdigit():
        try:
            os.write(int(fd), b"1")
            os.close(int(fd))
        except OSError:
            pass


class _Worker:
    def __init__(self, index: int, args: list[str]) -> None:
        self.index = index
        self.args = args
        self.process: subprocess.Popen | None = None
        self.ready_fd = -1
        self.started_at = 0.0

    def start(self) -> None:
        read, write = os.pipe()
        env = dict(os.environ, **{READY_FD_VARIABLE: str(write)})
        # in a session of its own: a Ctrl-C in the terminal reaches only the supervisor, which passes it on
        # once (a second signal during a worker's graceful stop would kill it)
        command, preexec = dying_with_parent(self.args)
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, pass_fds=(write,),
                                        preexec_fn=preexec, start_new_session=True)
        os.close(write)
        self.ready_fd = read
        self.started_at = time.monotonic()

    def wait_ready(self, timeout: float, stopping=lambda: False) -> bool:
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline and not stopping():
                readable, _, _ = select.select([self.ready_fd], [], [], 0.1)
                if readable:
                    return os.read(self.ready_fd, 1) == b"1"
                if self.process.poll() is not None:
                    return False
            return False
        finally:
            os.close(self.ready_fd)
            self.ready_fd = -1


class Supervisor:
    """Runs ``workers`` service processes sharing the ports of ``config`` and one Redis."""

    def __init__(self, config: ServeConfig, workers: int) -> None:
        self.config = config
        self.count = workers
        self.workers: list[_Worker] = []
        self._stop = False

    def _worker_args(self, redis_url: str, grpc_port: int, http_port: int, admin_ports: dict[str, int]) -> list[str]:
        config = self.config
        args = [sys.executable, "-m", "clients.cli", "serve", "--worker", "--workers", "1",
                "--grpc-port", str(grpc_port), "--http-port", str(http_port), "--host", config.host,
                "--redis-url", redis_url, "--grace", str(config.grace_seconds), "--log-level", config.log_level,
                "--redis-connections", str(config.redis_connections),
                "--max-watch-streams", str(config.max_watch_streams),
                "--max-watch-streams-per-client", str(config.max_watch_streams_per_client),
                "--abandon-after-days", str(config.abandon_after_days),
                "--retention-days", str(config.retention_days)]
        if config.redis_cluster:
            args.append("--redis-cluster")
        if config.redis_sentinels:
            args += ["--redis-sentinel", ",".join(f"{host}:{port}" for host, port in config.redis_sentinels),
                     "--redis-master-name", config.redis_master_name]
        args += ["--redis-min-replicas", str(config.redis_min_replicas),
                 "--redis-wait-timeout-ms", str(config.redis_wait_timeout_ms)]
        if config.redis_password_file:
            args += ["--redis-password-file", config.redis_password_file]
        for origin in config.cors_origins:
            args += ["--cors-origin", origin]
        args += _guard_args(config)
        args += ["--page-api-origin", config.page_api_origin, "--public-grpc-address", config.public_grpc_address]
        ladder = config.ladder
        args += ["--ladder-time-control", ladder.time_control.spec(),
                 "--ladder-first-action", str(ladder.time_control.first_action_ms / 1000),
                 "--ladder-max-concurrency", str(ladder.max_concurrency)]
        args += config.connections.as_args() + config.operations.as_args() + (config.tls.as_args() if config.tls else [])
        for flag, port in admin_ports.items():
            args += [flag, str(port)]
        return args + _fair_play_args(config)

    def run(self, start_timeout: float = 60.0) -> int:
        from service.store.embedded_redis import EmbeddedRedis

        config = self.config
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        embedded = None
        metrics_dir = None
        grpc_hold = http_hold = None
        admin_holds: dict[str, socket.socket] = {}
        status = 0
        try:
            url = config.redis_url or os.environ.get("REDIS_URL") or ""
            if not url and not config.redis_sentinels:
                embedded = EmbeddedRedis(config.data_dir, fsync=config.fsync, maxmemory=config.redis_maxmemory)
                url = embedded.start()
            grpc_hold = reserve_port(config.host, config.grpc_port)
            http_hold = reserve_port(config.host, config.http_port)
            grpc_port, http_port = grpc_hold.getsockname()[1], http_hold.getsockname()[1]
            operations = config.operations
            admin_holds = {flag: reserve_port(operations.admin_host, port)
                           for flag, port in (("--admin-port", operations.admin_port),
                                              ("--admin-grpc-port", operations.admin_grpc_port)) if port is not None}
            admin_ports = {flag: sock.getsockname()[1] for flag, sock in admin_holds.items()}
            args = self._worker_args(url, grpc_port, http_port, admin_ports)
            metrics_dir = shared_metrics_dir()
            self.workers = [_Worker(index, args) for index in range(self.count)]
            for worker in self.workers:
                worker.start()
            for worker in self.workers:
                if not worker.wait_ready(start_timeout, lambda: self._stop) and not self._stop:
                    raise RuntimeError(f"worker {worker.index} did not start")
            grpc_hold.close()
            http_hold.close()
            for sock in admin_holds.values():
                sock.close()
            if not self._stop:
                warn_if_plaintext(config.host, config.tls, log)
                log.info("serving", grpc_port=grpc_port, http_port=http_port, host=config.host, workers=self.count,
                         admin_port=admin_ports.get("--admin-port"), admin_grpc_port=admin_ports.get("--admin-grpc-port"),
                         tls=bool(config.tls),
                         pids=[w.process.pid for w in self.workers],
                         redis="embedded" if embedded else "external",
                         data_dir=str(embedded.data_dir) if embedded else None, lifecycle=True)
            self._watch()
        except RuntimeError as error:
            log.error("workers_failed", error=str(error), lifecycle=True)
            status = 1
        finally:
            for sock in (grpc_hold, http_hold, *admin_holds.values()):
                if sock is not None:
                    sock.close()
            self._stop_workers()
            if embedded is not None:
                embedded.stop()
            if metrics_dir is not None:
                metrics_dir.cleanup()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            log.info("stopped", lifecycle=True)
        return status

    def _on_signal(self, signum, frame) -> None:
        self._stop = True

    def _watch(self) -> None:
        """Until a signal: start again any worker that died (not more than once a second)."""
        while not self._stop:
            time.sleep(0.2)
            for worker in self.workers:
                if self._stop or worker.process.poll() is None:
                    continue
                log.warning("worker_died", worker=worker.index, pid=worker.process.pid,
                            exit_status=worker.process.returncode, lifecycle=True)
                metrics.process_exited(worker.process.pid)
                time.sleep(max(0.0, worker.started_at + 1.0 - time.monotonic()))
                worker.start()
                worker.wait_ready(60.0, lambda: self._stop)

    def _stop_workers(self) -> None:
        """SIGTERM to every worker, once (a second one, after a worker has begun its graceful stop,
        would kill it: it stops handling signals then), then wait; SIGKILL only after the grace."""
        running = [w.process for w in self.workers if w.process is not None and w.process.poll() is None]
        for process in running:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.config.grace_seconds + 30
        for process in running:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                log.warning("worker_killed", pid=process.pid, lifecycle=True)


def serve_workers(config: ServeConfig, workers: int) -> int:
    return Supervisor(config, workers).run()


__all__ = ["Supervisor", "default_workers", "reserve_port", "serve_workers", "tell_ready", "READY_FD_VARIABLE"]


def _fair_play_args(config: ServeConfig) -> list[str]:
    """The flags that give a worker the supervisor's ladder fair play (the address key by its file, never
    on a command line)."""
    fair = config.ladder.fair_play
    args = ["--ladder-pair-rated-max", str(fair.pair_rated_max),
            "--ladder-pair-window-hours", repr(fair.pair_window_ms / 3_600_000),
            "--ladder-min-actions", str(fair.min_actions), "--ladder-players-per-owner", str(fair.players_per_owner),
            "--ladder-abandon-cooldown", repr(fair.abandon_cooldown_ms / 1000),
            "--ladder-owner-pair-rated-max", str(fair.owner_pair_rated_max),
            "--ladder-related-days", repr(fair.related_window_ms / 86_400_000),
            "--ladder-established-games", str(fair.established_games),
            "--ladder-established-owners", str(fair.established_owners)]
    if fair.same_owner_pairs:
        args.append("--ladder-same-owner-pairs")
    if config.ladder_address_key_file:
        args += ["--ladder-address-key-file", config.ladder_address_key_file]
    return args


def _guard_args(config: ServeConfig) -> list[str]:
    """The flags that give a worker the supervisor's rate limits, trusted proxies and store sweeps."""
    args = ["--store-high-water", str(config.store_high_water), "--unused-after-hours", str(config.unused_after_hours)]
    for limit in config.limits.table():
        args += ["--limit", f"{limit['name']}={limit['rates']}",
                 "--limit-on-store-error", f"{limit['name']}={limit['without_redis']}"]
    for proxy in config.trusted_proxies:
        args += ["--trusted-proxy", proxy]
    return args + config.history.as_args() + ["--client-ipv4-prefix", str(config.client_ipv4_prefix),
                   "--client-ipv6-prefix", str(config.client_ipv6_prefix)]
