"""Rulesets: every match records the engine ruleset it was started under and is played under it; a match of a
ruleset the engine does not play is shown but not continued (RULESET_CHANGED).

A match "of another ruleset" is made by rewriting the ruleset in its meta hash, then read by the second
service process, which has not seen the match before (as a newly deployed service would). A match of
ruleset 2 (an older ruleset the engine still plays) is written into Redis as a service of ruleset 2 wrote it.
"""

from __future__ import annotations

import asyncio
import json
import random

import grpc
import pytest
import redis

import engine
from clients.client import TyphoonError, as_time_control
from clients.replay import Replay, verify_log
from clients.sdk import engine_actions
from service.gen.typhoon.v1 import match_pb2
from service.match.core import new_match_id, new_seat_token, token_hash
from service.match.log_entries import match_event
from service.store.deadlines import shard_key
from service.store.match_store import Store, StoredEvent, key

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
    assert match.ruleset == engine.RULESET == 4
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
        assert "this service plays rulesets 2, 3 and 4" in refused.value.message
        assert refused.value.metadata == {"match_ruleset": "1", "service_ruleset": str(engine.RULESET),
                                          "service_rulesets": "2,3,4"}
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
    assert store.zscore(shard_key(match.match_id), match.match_id) is not None
    wait_for(lambda: client.get_match(match.match_id).match.status == match_pb2.MATCH_STATUS_ABORTED)
    assert store.zscore(shard_key(match.match_id), match.match_id) is None
    shown = client.get_match(match.match_id)
    assert shown.match.version == 1 and not shown.match.HasField("result") and shown.match.seed
    assert shown.state.side_to_act == ""
    aborted = [e.match_aborted for e in client.event_log(match.match_id) if e.HasField("match_aborted")]
    assert [a.side for a in aborted] == [""]
    assert aborted[0].reason.startswith("the match was started under ruleset 1 and this service plays rulesets ")
    with pytest.raises(TyphoonError) as refused:
        client.submit(match.match_id, tokens["soviet"], engine.EndPhase())
    assert refused.value.reason == "MATCH_ABORTED"


def create_older_match(redis_url: str, seed: str, ruleset: int = 2) -> tuple[str, dict[str, str]]:
    """A match as a service of an older ruleset created it (both seats claimed): its id and seat tokens."""
    game = engine.new_game("standard", seed=seed, ruleset=ruleset)
    tokens = {side: new_seat_token() for side in ("german", "soviet")}
    options, commitment = game.options.to_json(), engine.seed_commitment(seed)
    meta = {"id": new_match_id(), "scenario": "standard", "options": json.dumps(options), "sides": "german,soviet",
            "seed": seed, "seed_commitment": commitment, "created_at": "1000", "updated_at": "1000",
            "version": "0", "turn": str(game.turn), "phase": game.phase.name, "side_to_act": "german",
            "result": "", "ruleset": str(ruleset), "status": "active", "last_sequence": "3"}
    events = [StoredEvent(1, 0, 1000, "service", {"type": "match_created", "scenario": "standard", "options": options,
                                                  "seed_commitment": commitment, "sides": ["german", "soviet"],
                                                  "ruleset": ruleset})]
    for number, side in enumerate(("german", "soviet"), start=2):
        meta |= {f"seat:{side}:token": token_hash(tokens[side]), f"seat:{side}:player": side,
                 f"seat:{side}:claimed_at": "1000"}
        events.append(StoredEvent(number, 0, 1000, "service", {"type": "seat_claimed", "side": side,
                                                               "player_name": side}))

    async def write() -> None:
        store = Store.from_url(redis_url)
        try:
            assert await store.create(meta["id"], meta, game.canonical_json(), 0, events, 1000)
        finally:
            await store.close()

    asyncio.run(write())
    return meta["id"], tokens


@pytest.mark.parametrize("ruleset", [2, 3])  # 3: its dice the seed's alone, before the seats' entropy (4)
def test_a_match_of_an_older_ruleset_the_engine_plays_goes_on_and_verifies_under_its_own(fresh, redis_url, ruleset):
    match_id, tokens = create_older_match(redis_url, "older ruleset", ruleset)
    local = engine.new_game("standard", seed="older ruleset", ruleset=ruleset)  # the same game, played here
    shown = fresh.get_match(match_id)
    assert shown.match.ruleset == ruleset and json.loads(shown.state.position_json)["ruleset"] == ruleset
    with pytest.raises(TyphoonError) as refused:  # its dice take no entropy
        fresh.commit_entropy(match_id, tokens["german"])
    assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ENTROPY_NOT_USED")
    chooser = random.Random(2)
    for _ in range(120):  # the set-up and into the first turns, with battles and retreats
        assert engine_actions(fresh.legal_actions(match_id).actions) == local.legal_actions()
        action = chooser.choice(local.legal_actions())
        answer = fresh.submit(match_id, tokens[local.current_player()], action)
        local.apply(action)
        logged = answer.events[0].action_submitted.state_hash
        assert logged == local.state_hash()  # ruleset 2's state: no "ruleset" field in it
        if local.is_terminal():
            break
    assert ("ruleset" in json.loads(local.canonical_json())) == (ruleset > 2) and local.to_json()["ruleset"] == ruleset
    assert "entropy" not in local.to_json()
    fresh.resign(match_id, tokens["german"])
    log = list(fresh.event_log(match_id))
    assert log[0].match_created.ruleset == ruleset
    report = verify_log(log)
    assert (report.ruleset, report.verdict) == (ruleset, "verified"), report.text()
    assert report.rolls and not report.entropy
    assert all(logged == engine.die_roll("older ruleset", index) for _, index, logged, _, _ in report.roll_checks)
    replay = Replay(log)
    assert replay.stopped_at is None and replay.steps[-1].game.ruleset == ruleset
