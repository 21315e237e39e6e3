"""Races and retries: two service processes on one Redis, concurrent writers, repeated request ids."""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

import engine
from clients.client import TyphoonError
from service.match.core import new_seat_token
from service_helpers import STREAM_TIMEOUT, play_random


def _race(calls):
    """Run the calls at the same moment; return each one's result or TyphoonError."""
    barrier = threading.Barrier(len(calls), timeout=STREAM_TIMEOUT)

    def run(call):
        barrier.wait()
        try:
            return call()
        except TyphoonError as error:
            return error

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def test_concurrent_submits_with_the_same_expected_version_exactly_one_wins(service, service_b):
    with service.client() as a, service_b.client() as b:
        match, tokens = a.create_match(seats=["german", "soviet"])
        a.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
        for round_ in range(3):
            legal = a.legal_actions(match.match_id)
            token = tokens[legal.side_to_act]
            actions = legal.actions[:8]
            calls = [lambda c=c, action=action, i=i: c.submit(match.match_id, token, action,
                                                              expected_version=legal.version,
                                                              request_id=f"race-{round_}-{i}")
                     for i, (action, c) in enumerate((action, (a, b)[i % 2]) for i, action in enumerate(actions * 2))]
            results = _race(calls)
            winners = [r for r in results if not isinstance(r, TyphoonError)]
            losers = [r for r in results if isinstance(r, TyphoonError)]
            assert len(winners) == 1
            assert {(e.code, e.reason) for e in losers} == {(grpc.StatusCode.ABORTED, "STALE_VERSION")}
            assert {e.metadata["current_version"] for e in losers} == {str(legal.version + 1)}
            got = a.get_match(match.match_id).match
            assert got.version == legal.version + 1 == winners[0].version
            log = list(b.event_log(match.match_id))
            assert [e.sequence for e in log] == list(range(1, len(log) + 1))
            applied = [e for e in log if e.WhichOneof("kind") == "action_submitted" and e.version == got.version]
            assert len(applied) == 1
            assert applied[0].action_submitted.action == winners[0].events[0].action_submitted.action


def test_a_repeated_request_id_is_applied_once_and_gets_the_same_answer(service, service_b):
    with service.client() as a, service_b.client() as b:
        match, tokens = a.create_match(seats=["german", "soviet"])
        first = a.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0,
                         request_id="setup-1")
        again = b.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0,
                         request_id="setup-1")
        assert again == first
        assert again.SerializeToString(deterministic=True) == first.SerializeToString(deterministic=True)
        assert a.get_match(match.match_id).match.version == 1
        # concurrent duplicates (one per process) also apply once and all get the one answer
        legal = a.legal_actions(match.match_id)
        results = _race([lambda c=c: c.submit(match.match_id, tokens["german"], legal.actions[0],
                                              expected_version=legal.version, request_id="move-1")
                         for c in (a, b, a, b, a, b)])
        assert all(not isinstance(r, TyphoonError) for r in results), results
        assert all(r == results[0] for r in results)
        assert a.get_match(match.match_id).match.version == 2
        log = list(a.event_log(match.match_id))
        assert sum(e.WhichOneof("kind") == "action_submitted" for e in log) == 2
        # the same id for a different request is refused, and changes nothing
        with pytest.raises(TyphoonError) as reused:
            a.submit(match.match_id, tokens["german"], engine.EndPhase(), expected_version=2, request_id="move-1")
        assert (reused.value.code, reused.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
        assert len(list(a.event_log(match.match_id))) == len(log)


def test_a_request_id_replays_over_rest_too(service):
    with service.http() as http:
        body = http.post("/v1/matches", json={"seats": [{"side": "german"}]}).json()
        match_id, token = body["match"]["match_id"], body["seat_tokens"][0]["token"]
        request = {"action": {"standard_setup": {}}, "expected_version": 0, "request_id": "rest-retry"}
        headers = {"Authorization": f"Bearer {token}"}
        first = http.post(f"/v1/matches/{match_id}/actions", json=request, headers=headers)
        second = http.post(f"/v1/matches/{match_id}/actions", json=request, headers=headers)
        assert first.status_code == second.status_code == 200
        assert first.json() == second.json()
        assert http.get(f"/v1/matches/{match_id}").json()["match"]["version"] == 1


def test_two_processes_serve_one_match_act_through_one_watch_through_the_other(service, service_b):
    with service.client() as actor, service_b.client() as watcher:
        match, tokens = actor.create_match(seats=["german", "soviet"])
        watch = watcher.watch(match.match_id)
        seen = []
        follow = threading.Thread(target=lambda: seen.extend(watch), daemon=True)
        follow.start()
        played = play_random(actor, match.match_id, tokens, seed="two-processes")
        follow.join(30)
        watch.close()
        assert not follow.is_alive()
        log = list(actor.event_log(match.match_id))
        assert seen == log
        assert seen[-1].WhichOneof("kind") == "seed_revealed"
        assert sum(e.WhichOneof("kind") == "action_submitted" for e in seen) == played


# --- CreateMatch and JoinMatch are safe to retry -----------------------------------------------------

@functools.cache
def _token(n: int) -> str:
    """The test's chosen seat token number ``n`` (random: a chosen token carries 128 bits, of one match)."""
    return new_seat_token()


def test_a_repeated_create_match_gets_the_same_match_and_its_chosen_tokens(service, service_b, redis_url):
    import redis

    from service.gen.typhoon.v1 import match_service_pb2 as api

    request = api.CreateMatchRequest(request_id="create-1", seats=[
        api.SeatClaim(side="german", player_name="Bock", seat_token=_token(1)),
        api.SeatClaim(side="soviet", player_name="Zhukov")])  # the service draws this one's token
    with service.client() as a, service_b.client() as b:
        count = redis.Redis.from_url(redis_url).zcard("typhoon:matches")
        results = _race([lambda c=c: c.stub.CreateMatch(request, timeout=20) for c in (a, b, a, b)])
        assert len({r.match.match_id for r in results}) == 1
        assert redis.Redis.from_url(redis_url).zcard("typhoon:matches") == count + 1
        for result in results:
            chosen = {t.side: t.token for t in result.seat_tokens}
            assert chosen["german"] == _token(1)
        drawn = {t.side: t.token for r in results for t in r.seat_tokens if t.side == "soviet"}
        assert len(drawn) <= 1  # shown to the request that created the match only
        match_id = results[0].match.match_id
        a.submit(match_id, _token(1), engine.StandardSetup(), expected_version=0)  # the chosen token acts
        # the same request id for another request changes nothing
        other = api.CreateMatchRequest(request_id="create-1", scenario="campaign")
        with pytest.raises(grpc.RpcError) as reused:
            a.stub.CreateMatch(other, timeout=20)
        assert TyphoonError.from_rpc_error(reused.value).reason == "REQUEST_ID_REUSED"


def test_a_repeated_join_match_gets_the_same_seat(service, service_b):
    from service.gen.typhoon.v1 import match_service_pb2 as api

    with service.client() as a, service_b.client() as b:
        match, _ = a.create_match()
        join = api.JoinMatchRequest(match_id=match.match_id, seat_token=_token(2), player_name="Bock")
        results = _race([lambda c=c: c.stub.JoinMatch(join, timeout=20) for c in (a, b, a, b)])
        assert {r.side for r in results} == {"german"} and {r.seat_token for r in results} == {_token(2)}
        log = list(a.event_log(match.match_id))
        assert sum(e.WhichOneof("kind") == "seat_claimed" for e in log) == 1
        # the other seat with another token; the same token for the other seat is refused
        with pytest.raises(grpc.RpcError) as in_use:
            a.stub.JoinMatch(api.JoinMatchRequest(match_id=match.match_id, side="soviet", seat_token=_token(2)),
                             timeout=20)
        assert TyphoonError.from_rpc_error(in_use.value).reason == "SEAT_TOKEN_IN_USE"
        seat = b.join_match(match.match_id, "soviet")
        assert seat.side == "soviet" and seat.token != _token(2)
        with pytest.raises(grpc.RpcError) as short:
            a.stub.JoinMatch(api.JoinMatchRequest(match_id=match.match_id, seat_token="short"), timeout=20)
        assert TyphoonError.from_rpc_error(short.value).reason == "BAD_SEAT_TOKEN"
