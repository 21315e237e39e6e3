"""Seat tokens and key guesses (issue 34, point 8): a chosen seat token carries at least 128 bits and is
the seat of one match only; JoinMatch's answer to a token counts toward ``key_failures``; a wrong token
sent again and again counts once. A real service and Redis, over gRPC and REST; each test calls from
addresses of its own (X-Forwarded-For through a trusted proxy, as tests/service/test_service_guard.py)."""

from __future__ import annotations

import secrets
import uuid
from typing import Any, Iterator

import grpc
import pytest

from clients.ladder import LadderClient
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match.core import new_seat_token

from service_helpers import ServiceProcess
from test_service_guard import assert_429, assert_rate_limited, client_from, guarded, http_from, new_address, refusal

WEAK = ["a" * 32, "abcdefghijklmnopqrstuvwxyz012345", "0123456789" * 4, "passwordpasswordpasswordpassword",
        "qwertyuiopasdfghjklzxcvbnm123456", "aB" * 16]


@pytest.fixture(scope="module")
def guessed(redis_url) -> Iterator[ServiceProcess]:
    process = guarded(redis_url, "key_failures=3 per 5 minutes").start()
    yield process
    process.stop()


def test_a_chosen_seat_token_carries_128_bits_on_both_transports(guessed):
    address = new_address()
    with client_from(guessed, address) as client, http_from(guessed, address) as http:
        match, _ = client.create_match(seats=["german"])
        for weak in WEAK:
            for call in (lambda: client._call("CreateMatch", api.CreateMatchRequest(seats=[
                             api.SeatClaim(side="german", seat_token=weak)])),
                         lambda: client._call("JoinMatch", api.JoinMatchRequest(match_id=match.match_id,
                                                                                seat_token=weak))):
                error = refusal(call)
                assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT_TOKEN"), weak
                assert "128" in error.message
            reply = http.post(f"/v1/matches/{match.match_id}/join", json={"seat_token": weak})
            assert (reply.status_code, reply.json()["error"]["reason"]) == (400, "BAD_SEAT_TOKEN")
        for strong in (secrets.token_hex(16), secrets.token_urlsafe(32), uuid.uuid4().hex + uuid.uuid4().hex):
            created = client._call("CreateMatch", api.CreateMatchRequest(seats=[
                api.SeatClaim(side="soviet", seat_token=strong)]))
            assert [t.token for t in created.seat_tokens] == [strong]


def test_a_chosen_seat_token_is_the_seat_of_one_match_only(guessed):
    address = new_address()
    token = new_seat_token()
    with client_from(guessed, address) as client, http_from(guessed, address) as http:
        request = api.CreateMatchRequest(request_id=str(uuid.uuid4()), seats=[api.SeatClaim(side="german",
                                                                                            seat_token=token)])
        first = client._call("CreateMatch", request)
        assert client._call("CreateMatch", request).match.match_id == first.match.match_id  # a retry: the same
        other, _ = client.create_match()
        again = refusal(lambda: client._call("CreateMatch", api.CreateMatchRequest(seats=[
            api.SeatClaim(side="german", seat_token=token)])))
        assert (again.code, again.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SEAT_TOKEN_REUSED")
        reply = http.post(f"/v1/matches/{other.match_id}/join", json={"seat_token": token})
        assert (reply.status_code, reply.json()["error"]["reason"]) == (400, "SEAT_TOKEN_REUSED")
        # in its own match it is still the seat it holds (a repeated join), and another token joins the other
        joined = client._call("JoinMatch", api.JoinMatchRequest(match_id=first.match.match_id, seat_token=token))
        assert joined.side == "german"
        assert client._call("JoinMatch", api.JoinMatchRequest(match_id=other.match_id,
                                                              seat_token=new_seat_token())).side == "german"
        # a token that failed to join (the seat was taken) holds nothing: it may join elsewhere
        spare = new_seat_token()
        taken = refusal(lambda: client._call("JoinMatch", api.JoinMatchRequest(
            match_id=other.match_id, side="german", seat_token=spare)))
        assert taken.reason == "SEAT_TAKEN"
        assert client._call("JoinMatch", api.JoinMatchRequest(match_id=other.match_id, seat_token=spare)).side == \
            "soviet"


def full_match(service: ServiceProcess) -> tuple[Any, dict[str, str], Any]:
    """A match with both seats taken (from an address of its own): the match, its tokens, its legal actions."""
    with client_from(service, new_address()) as setup:
        match, tokens = setup.create_match(seats=["german", "soviet"])
        return match, tokens, setup.legal_actions(match.match_id)


def test_join_match_guesses_count_toward_key_failures(guessed):
    match, tokens, legal = full_match(guessed)
    guesser, neighbour = new_address(), new_address()
    with client_from(guessed, guesser) as client, http_from(guessed, guesser) as http:
        for _ in range(2):  # a guess answers NO_FREE_SEAT where the right token would get its seat
            error = refusal(lambda: client._call("JoinMatch", api.JoinMatchRequest(match_id=match.match_id,
                                                                                   seat_token=new_seat_token())))
            assert error.reason == "NO_FREE_SEAT"
        reply = http.post(f"/v1/matches/{match.match_id}/join", json={"seat_token": new_seat_token(), "side": "german"})
        assert reply.json()["error"]["reason"] == "SEAT_TAKEN"
        # three guesses: the address waits, even with the right token, on any call that checks one
        assert_rate_limited(refusal(lambda: client._call("JoinMatch", api.JoinMatchRequest(
            match_id=match.match_id, seat_token=tokens["german"]))), "key_failures")
        assert_rate_limited(refusal(lambda: client.submit(match.match_id, tokens["german"], legal.actions[0])),
                            "key_failures")
        assert_429(http.post(f"/v1/matches/{match.match_id}/join", json={}), "key_failures")
        # a seat's watch checks its token too
        assert_rate_limited(refusal(lambda: next(iter(client.watch(match.match_id, updates=True, resume=False,
                                                                   token=tokens["german"])))), "key_failures")
    with client_from(guessed, neighbour) as client:  # another address is not kept waiting
        assert client._call("JoinMatch", api.JoinMatchRequest(match_id=match.match_id,
                                                              seat_token=tokens["german"])).side == "german"
        assert client.submit(match.match_id, tokens["german"], legal.actions[0]).version == 1


def test_a_wrong_token_sent_again_and_again_counts_once(guessed):
    match, tokens, legal = full_match(guessed)
    address, stale, stale_key = new_address(), secrets.token_urlsafe(32), "tpk_" + secrets.token_urlsafe(32)
    with client_from(guessed, address) as client, http_from(guessed, address) as http:
        for _ in range(8):  # a client library retrying its 401 forever, on both transports
            assert refusal(lambda: client.resign(match.match_id, stale)).reason == "TOKEN_INVALID"
            reply = http.post(f"/v1/matches/{match.match_id}/actions", json={"action": {"pass": {}}},
                              headers={"Authorization": f"Bearer {stale}"})
            assert reply.json()["error"]["reason"] == "TOKEN_INVALID"
            reply = http.get("/v1/ladder/seek", headers={"Authorization": f"Bearer {stale_key}"})
            assert reply.json()["error"]["reason"] == "KEY_INVALID"
        with LadderClient(guessed.target, rate_limit_patience=0, metadata=[("x-forwarded-for", address)]) as ladder:
            for _ in range(8):
                assert refusal(lambda: next(iter(ladder.seek(stale_key)))).reason == "KEY_INVALID"
        # two wrong tokens counted (of the three the limit allows): the right token still plays
        assert client.submit(match.match_id, tokens["german"], legal.actions[0]).version == 1
        # a third, different one locks the address
        assert refusal(lambda: client.resign(match.match_id, secrets.token_urlsafe(32))).reason == "TOKEN_INVALID"
        assert_rate_limited(refusal(lambda: client.resign(match.match_id, tokens["soviet"])), "key_failures")
