"""Debian packages the tests need, installed by the set-up when missing (``apt-get install``; the tests
run as root), so that `make test` needs nothing installed by hand.

One install at a time: the test processes of ``pytest -n`` may all get here at once, and apt allows one
dpkg at a time. An install that fails for a stale package list updates it and tries again; a stuck
mirror fails the test rather than hanging it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def ensure_installed(packages: list[str], files: list[Path]) -> None:
    """Install ``packages`` unless every one of ``files`` (what they install) is there."""
    if all(path.exists() for path in files):
        return
    with open(Path(tempfile.gettempdir()) / "typhoon-tests-apt.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all(path.exists() for path in files):
            _install(packages)


def _install(packages: list[str]) -> None:
    if not shutil.which("apt-get"):
        pytest.fail(f"these tests need {' and '.join(packages)}, and there is no apt-get to install them")
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", *packages]
    bound = {"env": environment, "capture_output": True, "timeout": 900}
    if subprocess.run(install, **bound).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], check=True, **bound)
        subprocess.run(install, check=True, **bound)


__all__ = ["ensure_installed"]
