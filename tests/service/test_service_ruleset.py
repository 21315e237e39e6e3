"""Rulesets: every match records the engine ruleset it was started under, and a service whose engine
plays another one shows the match but does not continue it (RULESET_CHANGED).

A match "of another ruleset" is made by rewriting the ruleset in its meta hash, then read by the second
service process, which has not seen the match before (as a newly deployed service would).
"""

from __future__ import annotations

import grpc
import pytest
import redis

import engine
from clients.client import TyphoonError, as_time_control
from service.gen.typhoon.v1 import match_pb2
from service.match.log_entries import match_event
from service.store.match_store import DEADLINES_KEY, StoredEvent, key

from service_helpers import wait_for


@pytest.fixture()
def store(redis_url):
    connection = redis.Redis.from_url(redis_url)
    yield connection
    connection.close()


@pytest.fixture()
def fresh(service_b):
    """A client of the second service process."""
    with service_b.client() as c:
        yield c


def test_a_match_records_the_engine_ruleset(client, http):
    match, tokens = client.create_match(seats=["german"])
    assert match.ruleset == engine.RULESET == 2
    created = next(iter(client.event_log(match.match_id))).match_created
    assert created.ruleset == engine.RULESET
    reply = http.get(f"/v1/matches/{match.match_id}")
    assert reply.json()["match"]["ruleset"] == engine.RULESET
    events = http.get(f"/v1/matches/{match.match_id}/events").json()["events"]
    assert events[0]["match_created"]["ruleset"] == engine.RULESET
    assert client.submit(match.match_id, tokens["german"], engine.StandardSetup()).version == 1


@pytest.mark.parametrize("stored", ["1", None])  # ruleset 1 recorded, or a match stored before rulesets were
def test_a_live_match_of_another_ruleset_is_shown_but_not_continued(client, fresh, service_b, store, stored):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    if stored:
        store.hset(key(match.match_id, "meta"), "ruleset", stored)
    else:
        store.hdel(key(match.match_id, "meta"), "ruleset")
    shown = fresh.get_match(match.match_id)
    assert shown.match.ruleset == 1 and shown.state.turn == 1
    for call in (lambda: fresh.submit(match.match_id, tokens["german"], engine.EndPhase()),
                 lambda: fresh.legal_actions(match.match_id),
                 lambda: fresh.resign(match.match_id, tokens["soviet"])):
        with pytest.raises(TyphoonError) as refused:
            call()
        assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "RULESET_CHANGED")
        assert "started under ruleset 1" in refused.value.message
        assert f"this service plays ruleset {engine.RULESET}" in refused.value.message
        assert refused.value.metadata == {"match_ruleset": "1", "service_ruleset": str(engine.RULESET)}
    with service_b.http() as http:
        reply = http.post(f"/v1/matches/{match.match_id}/actions", json={"action": {"end_phase": {}}},
                          headers={"authorization": f"Bearer {tokens['german']}"})
    assert reply.status_code == 400 and reply.json()["error"]["reason"] == "RULESET_CHANGED"
    assert fresh.get_match(match.match_id).match.version == 1  # nothing changed


def test_a_finished_match_of_another_ruleset_answers_as_any_finished_match(client, fresh, store):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.resign(match.match_id, tokens["soviet"])
    store.hset(key(match.match_id, "meta"), "ruleset", "1")
    with pytest.raises(TyphoonError) as refused:
        fresh.submit(match.match_id, tokens["german"], engine.StandardSetup())
    assert refused.value.reason == "GAME_OVER"
    assert fresh.get_match(match.match_id).match.ruleset == 1
    assert not fresh.legal_actions(match.match_id).actions


def test_a_match_created_entry_logged_without_a_ruleset_is_ruleset_1():
    data = {"type": "match_created", "scenario": "standard", "options": {}, "seed_commitment": "00",
            "sides": ["german", "soviet"]}
    assert match_event(StoredEvent(1, 0, 0, "service", data)).match_created.ruleset == 1
    assert match_event(StoredEvent(1, 0, 0, "service", data | {"ruleset": 2})).match_created.ruleset == 2


def test_a_live_match_of_another_ruleset_is_aborted_when_its_clock_runs_out(client, store):
    # a flag would end the game under other rules than it started with; waiting would keep its players
    # in a match nobody can continue: it ends without a result, blaming no side
    match, tokens = client.create_match(seats=["german", "soviet"], time_control=as_time_control("1+0"))
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    store.hset(key(match.match_id, "meta"), "ruleset", "1")
    assert store.zscore(DEADLINES_KEY, match.match_id) is not None
    wait_for(lambda: client.get_match(match.match_id).match.status == match_pb2.MATCH_STATUS_ABORTED)
    assert store.zscore(DEADLINES_KEY, match.match_id) is None
    shown = client.get_match(match.match_id)
    assert shown.match.version == 1 and not shown.match.HasField("result") and shown.match.seed
    assert shown.state.side_to_act == ""
    aborted = [e.match_aborted for e in client.event_log(match.match_id) if e.HasField("match_aborted")]
    assert [a.side for a in aborted] == [""]
    assert aborted[0].reason.startswith("the match was started under ruleset 1 and this service plays ruleset ")
    with pytest.raises(TyphoonError) as refused:
        client.submit(match.match_id, tokens["soviet"], engine.EndPhase())
    assert refused.value.reason == "MATCH_ABORTED"
