"""What a service process remembers of a match (service/match/cache.py) is a guess the commit checks: with
two processes on one Redis, and with the state changed behind a process's back, every answer is
the one a fresh read gives."""

from __future__ import annotations

import json
import random

import grpc
import pytest
import redis

import engine
from clients.client import TyphoonError
from clients.demo import verify
from service.store.match_store import key


def _play_until_the_side_changes(client, match_id: str, tokens: dict[str, str], side: str, chooser) -> None:
    for _ in range(500):
        legal = client.legal_actions(match_id)
        if legal.side_to_act != side:
            return
        client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                      expected_version=legal.version)
    raise AssertionError("the side to act never changed")


def test_two_processes_taking_turns_on_one_match_play_the_same_game_as_one(service, service_b):
    chooser = random.Random("turns")
    with service.client() as a, service_b.client() as b:
        match, tokens = a.create_match(seats=["german", "soviet"])
        match_id = match.match_id
        for number in range(80):
            reader, writer = chooser.choice([(a, b), (b, a), (a, a), (b, b)])
            legal = reader.legal_actions(match_id)
            if not legal.side_to_act:
                break
            expected = legal.version if number % 2 else None
            answer = writer.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                                   expected_version=expected)
            assert answer.version == legal.version + 1
        b.resign(match_id, tokens["german"])
        assert "same game" in verify(a, match_id)
        assert a.get_match(match_id) == b.get_match(match_id)
        assert a.legal_actions(match_id) == b.legal_actions(match_id)


def test_an_action_refused_on_an_out_of_date_state_is_decided_on_the_current_one(service, service_b):
    chooser = random.Random("out-of-date")
    with service.client() as a, service_b.client() as b:
        match, tokens = a.create_match(seats=["german", "soviet"])
        match_id = match.match_id
        a.submit(match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
        before = a.legal_actions(match_id)  # process a now holds the German's turn
        _play_until_the_side_changes(b, match_id, tokens, before.side_to_act, chooser)
        now = b.legal_actions(match_id)
        assert now.side_to_act != before.side_to_act

        with pytest.raises(TyphoonError) as stale:  # the version a holds is not the match's
            a.submit(match_id, tokens[before.side_to_act], before.actions[0], expected_version=before.version)
        assert (stale.value.code, stale.value.reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
        assert stale.value.metadata["current_version"] == str(now.version)

        # not this side's turn on what a holds, but it is on the match: applied
        answer = a.submit(match_id, tokens[now.side_to_act], now.actions[0])
        assert answer.version == now.version + 1
        a.resign(match_id, tokens["soviet"])
        assert "same game" in verify(b, match_id)


def test_a_state_replaced_behind_the_service_s_back_is_never_built_on(service, redis_url):
    """Two states at one version and sequence (as after a Redis failover that lost a write): the
    commit compares the state hash too, so the service applies the action to the state Redis has."""
    store = redis.Redis.from_url(redis_url)
    with service.client() as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        match_id = match.match_id
        client.submit(match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
        client.legal_actions(match_id)  # the service now holds the state after the set-up

        other = engine.new_game("standard", seed="another seed")
        other.apply(engine.StandardSetup())
        assert other.state_hash() != json.loads(store.hget(key(match_id, "state"), "state"))
        store.hset(key(match_id, "state"), mapping={"state": other.canonical_json(), "hash": other.state_hash()})

        answer = client.submit(match_id, tokens["german"], engine.EndPhase())  # legal on both states
        other.apply(engine.EndPhase())
        assert answer.events[0].action_submitted.state_hash == other.state_hash()
        assert store.hget(key(match_id, "state"), "state").decode() == other.canonical_json()
        assert client.legal_actions(match_id).side_to_act == other.current_player()


def test_the_legal_actions_answer_is_the_one_the_generic_conversion_gives():
    from service.api.http_api import legal_actions_json, response_json
    from service.gen.typhoon.v1 import match_service_pb2 as api
    from service.match import convert
    from service.match.cache import Known

    game = engine.new_game("standard", seed="legal-bytes")
    chooser = random.Random("legal-bytes")
    for version in range(150):
        legal = game.legal_actions()
        if not legal:
            break
        expected = api.ListLegalActionsResponse(version=version, side_to_act=game.current_player() or "",
                                                actions=[convert.action_to_proto(a) for a in legal])
        pending = convert.pending_to_proto(game.pending_decision())
        if pending:
            expected.pending_decision.CopyFrom(pending)
        known = Known(version, 0, game.state_hash(), game)
        answer = known.legal_actions()
        assert answer.SerializeToString(deterministic=True) == expected.SerializeToString(deterministic=True)
        assert api.ListLegalActionsResponse.FromString(known.legal_bytes()) == expected
        assert json.loads(legal_actions_json(known)) == json.loads(response_json(expected))  # the REST body
        assert known.legal_json(legal_actions_json) is known.legal_json(legal_actions_json)  # built once a state
        game.apply(chooser.choice(legal))


def test_the_action_table_encodes_each_action_object_once_and_starts_again_when_full():
    from service.match.cache import ActionTable

    encoded = []
    table = ActionTable(lambda action: encoded.append(action) or action.to_json()["unit"], size=3)
    a, b, c, d = (engine.Move(unit, "0704") for unit in ("XLVII", "XLVI", "LVII", "XXIV"))
    assert table.of([a, b, a]) == ["XLVII", "XLVI", "XLVII"] and encoded == [a, b]
    assert table.of([b, a]) == ["XLVI", "XLVII"] and encoded == [a, b]
    for _ in range(2):  # equal, other objects (as EndPhase() is made afresh): found by their value
        assert table.of([engine.Move("XLVII", "0704")]) == ["XLVII"] and encoded == [a, b]
    assert table.of([c]) == ["LVII"] and encoded == [a, b, c]  # 4 objects past 3: those forgotten first
    assert table.of([a]) == ["XLVII"] and encoded == [a, b, c]  # still known by its value
    assert table.of([d]) == ["XXIV"] and encoded == [a, b, c, d]
    assert table.of([b]) == ["XLVI"] and encoded == [a, b, c, d, b]  # 4 values past 3: forgotten first
