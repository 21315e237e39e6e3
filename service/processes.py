"""Child processes the project starts (embedded Redis, a service for the match runner or the load test)."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """``preexec_fn`` for a child that must not outlive its parent: on Linux it gets SIGTERM when the
    thread that started it ends, so a crashed parent leaves nothing behind."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except OSError:
            pass


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
