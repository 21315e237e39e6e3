"""Child processes the project starts (embedded Redis, a service for the match runner or the load test)."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """``preexec_fn`` for a child that must not outlive its parent: on Linux it gets SIGTERM when the
    thread that started it ends, so a crashed parent leaves nothing behind."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except OSError:
            pass


def dying_with_parent(args: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """The command and ``preexec_fn`` that start ``args`` as a child which gets SIGTERM when the thread
    that started it ends: through util-linux's ``setpriv --pdeathsig`` where it is installed, so that no
    Python runs between fork and exec (a process whose gRPC runs may abort there: grpc/grpc#43055);
    else :func:`die_with_parent` as ``preexec_fn``.

    >>> command, preexec = dying_with_parent(["redis-server"])
    >>> command[-1], preexec is None or preexec is die_with_parent
    ('redis-server', True)
    """
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    if setpriv:
        return [setpriv, "--pdeathsig", "TERM", *args], None
    return args, die_with_parent


#: Set in the environment of a child started by ServeProcess: it calls die_with_parent() itself.
DIE_WITH_PARENT_VARIABLE = "TYPHOON_DIE_WITH_PARENT"


def die_with_parent_if_asked() -> None:
    """In a ``typhoon serve`` child of :class:`ServeProcess`: die with the parent (set after exec, not in
    a ``preexec_fn``: forking without exec in a process whose gRPC is running restarts gRPC's poller in
    the child, which then aborts when the fork closes the file descriptors: grpc/grpc#43055)."""
    parent = os.environ.pop(DIE_WITH_PARENT_VARIABLE, "")
    if parent.isdigit():
        die_with_parent()
        if os.getppid() != int(parent):  # the parent died before that
            os.kill(os.getpid(), signal.SIGTERM)


def stop_process(process: subprocess.Popen, timeout: float) -> int:
    """SIGTERM (a graceful stop: Redis flushes its append-only file, the service finishes its calls),
    then SIGKILL if it is still running after ``timeout`` seconds. Returns the exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


class ServeProcess:
    """``typhoon serve`` in a child process, for the match runner, the load test and the tests.

    The child's JSON log lines are parsed as they arrive: the ``serving`` line gives the ports (ask for
    port 0 and the service picks free ones), ``logs`` keeps the last ``remember`` lines (all of them
    when ``None``) and ``log_path``, when given, receives every line as written.
    """

    def __init__(self, *serve_args: str, grpc_port: int = 0, env: dict[str, str] | None = None,
                 log_path: Path | None = None, remember: int | None = None, own_session: bool = False,
                 workers: int = 1, admin_listener: bool = True) -> None:
        # one process unless asked (typhoon serve's own default is one per core); an HTTP admin listener
        # (/metrics) on a free port unless asked
        self.args = [sys.executable, "-m", "clients.cli", "serve", "--grpc-port", str(grpc_port), "--http-port", "0",
                     "--workers", str(workers), *(["--admin-port", "0"] if admin_listener else []), *serve_args]
        self.env = env
        self.log_path = log_path
        self.own_session = own_session
        self.logs: list[dict] = []  # a list, not a deque: readers iterate it while the reader thread appends
        self.remember = remember
        self.process: subprocess.Popen | None = None
        self.grpc_port = 0
        self.http_port = 0
        self.admin_port: int | None = None
        self.admin_grpc_port: int | None = None
        self.returncode: int | None = None
        self._serving = threading.Event()
        self._reader: threading.Thread | None = None

    def start(self, timeout: float = 60.0) -> ServeProcess:
        """Start the child and wait for its ``serving`` line; raise ``RuntimeError`` with the log's tail
        if it exits or stays silent for ``timeout`` seconds."""
        environment = dict(os.environ, PYTHONUNBUFFERED="1", **(self.env or {}),
                           **{DIE_WITH_PARENT_VARIABLE: str(os.getpid())})
        self.process = subprocess.Popen(
            self.args, cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
            # in its own session a Ctrl-C in the terminal reaches only the parent, which stops it in order
            start_new_session=self.own_session)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while not self._serving.wait(0.05):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._reader.join(5)
                problem = f"exited with {self.process.returncode}" if self.process.poll() is not None else \
                    f"did not start in {timeout:.0f} s"
                self.stop(5)
                raise RuntimeError(f"the service {problem}:\n{self.log_tail()}")
        return self

    def _read(self) -> None:
        log_file = open(self.log_path, "w") if self.log_path else None  # noqa: SIM115 - closed below
        try:
            for line in self.process.stdout:
                if log_file:
                    log_file.write(line)
                try:
                    entry = json.loads(line)
                except ValueError:
                    entry = {"event": "raw", "line": line.rstrip()}
                self.logs.append(entry)
                if self.remember is not None and len(self.logs) > 2 * self.remember:
                    del self.logs[:-self.remember]
                if entry.get("event") == "serving":
                    self.grpc_port, self.http_port = entry["grpc_port"], entry["http_port"]
                    self.admin_port, self.admin_grpc_port = entry.get("admin_port"), entry.get("admin_grpc_port")
                    self._serving.set()
        finally:
            if log_file:
                log_file.close()

    @property
    def target(self) -> str:
        """The gRPC address, ``host:port``."""
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def base_url(self) -> str:
        """The REST address."""
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def admin_url(self) -> str:
        """The HTTP admin listener's address (/metrics)."""
        return f"http://127.0.0.1:{self.admin_port}"

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(entry["line"] if entry.get("event") == "raw" else json.dumps(entry)
                         for entry in list(self.logs)[-lines:])

    def stop(self, timeout: float = 30.0) -> int:
        """Stop the child (see ``stop_process``) and wait until its log is read to the end."""
        if self.process is None:
            return 0
        self.returncode = stop_process(self.process, timeout)
        if self._reader is not None:
            self._reader.join(10)
        return self.returncode
