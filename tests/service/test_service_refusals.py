"""Every refusal of point 4, over gRPC and over REST: the right code and reason, and nothing changes."""

from __future__ import annotations

import json
from dataclasses import dataclass

import grpc
import pytest

import engine
from clients.client import TyphoonError
from service.api.http_api import to_json
from service.match import convert

HTTP = {grpc.StatusCode.UNAUTHENTICATED: 401, grpc.StatusCode.PERMISSION_DENIED: 403,
        grpc.StatusCode.FAILED_PRECONDITION: 400, grpc.StatusCode.INVALID_ARGUMENT: 400,
        grpc.StatusCode.ABORTED: 409, grpc.StatusCode.NOT_FOUND: 404}


@dataclass
class Refusal:
    code: grpc.StatusCode
    reason: str
    message: str
    metadata: dict[str, str]


@pytest.fixture(params=["grpc", "http"])
def submit(request, client, http):
    """submit(match_id, token, action, expected_version=None) -> Refusal, whichever the transport."""

    def over_grpc(match_id, token, action, expected_version=None, resign=False):
        with pytest.raises(TyphoonError) as refused:
            if resign:
                client.resign(match_id, token)
            else:
                client.submit(match_id, token, action, expected_version=expected_version)
        error = refused.value
        return Refusal(error.code, error.reason, error.message, error.metadata)

    def over_http(match_id, token, action, expected_version=None, resign=False):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if resign:
            reply = http.post(f"/v1/matches/{match_id}/resign", headers=headers, json={})
        else:
            body = {"action": to_json(convert.action_to_proto(action))}
            if expected_version is not None:
                body["expected_version"] = expected_version
            reply = http.post(f"/v1/matches/{match_id}/actions", headers=headers, json=body)
        error = reply.json()["error"]
        code = grpc.StatusCode[error["status"]]
        assert reply.status_code == error["code"] == HTTP[code]
        return Refusal(code, error["reason"], error["message"], error.get("metadata", {}))

    return over_grpc if request.param == "grpc" else over_http


@pytest.fixture()
def match(client):
    """A match after the standard set-up: German panzer movement, version 1."""
    created, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(created.match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
    return created.match_id, tokens


def fingerprint(client, match_id):
    got = client.get_match(match_id)
    return (got.match.version, got.match.last_sequence, got.match.updated_at.ToMilliseconds(), got.state.state_hash,
            len(list(client.event_log(match_id))))


def test_missing_token(client, match, submit):
    match_id, _ = match
    before = fingerprint(client, match_id)
    refusal = submit(match_id, None, engine.EndPhase())
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
    assert "Bearer" in refusal.message
    assert fingerprint(client, match_id) == before


@pytest.mark.parametrize("which", ["made up", "other match"])
def test_wrong_token(client, match, submit, which):
    match_id, _ = match
    token = "not-a-token" if which == "made up" else client.create_match(seats=["german"])[1]["german"]
    before = fingerprint(client, match_id)
    refusal = submit(match_id, token, engine.EndPhase())
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    assert fingerprint(client, match_id) == before


def test_out_of_turn(client, match, submit):
    match_id, tokens = match
    before = fingerprint(client, match_id)
    refusal = submit(match_id, tokens["soviet"], engine.EndPhase())
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert refusal.message == ("it is the german player's turn (german_panzer_movement phase); your seat is soviet")
    assert refusal.metadata == {"side_to_act": "german", "seat": "soviet"}
    assert fingerprint(client, match_id) == before


def test_acting_for_the_other_side(client, match, submit):
    match_id, tokens = match
    before = fingerprint(client, match_id)
    refusal = submit(match_id, tokens["german"], engine.Resign("soviet"))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.PERMISSION_DENIED, "WRONG_SIDE")
    assert refusal.message == "your seat is german; you cannot act for soviet"
    assert fingerprint(client, match_id) == before


def test_illegal_action_gets_the_engines_reason_and_sentence(client, match, submit):
    match_id, tokens = match
    before = fingerprint(client, match_id)
    move = engine.Move("XL", "0201")
    position = json.loads(client.get_match(match_id).state.position_json)
    with pytest.raises(engine.IllegalAction) as expected:
        engine.game_from_position(position).apply(move)
    refusal = submit(match_id, tokens["german"], move, expected_version=1)
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "STOPPED_BY_ZOC")
    assert (refusal.reason, refusal.message) == (expected.value.reason, expected.value.message)
    assert fingerprint(client, match_id) == before


def test_malformed_action(client, match, submit):
    match_id, tokens = match
    refusal = submit(match_id, tokens["german"], {"type": "move", "unit": "XL", "to": "9999"})
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_HEX")


def test_stale_expected_version(client, match, submit):
    match_id, tokens = match
    before = fingerprint(client, match_id)
    refusal = submit(match_id, tokens["german"], engine.EndPhase(), expected_version=0)
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
    assert refusal.metadata["current_version"] == "1"
    assert "version 1" in refusal.message
    assert fingerprint(client, match_id) == before


def test_acting_after_the_end(client, match, submit):
    match_id, tokens = match
    client.resign(match_id, tokens["soviet"])
    before = fingerprint(client, match_id)
    refusal = submit(match_id, tokens["german"], engine.EndPhase())
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    refusal = submit(match_id, tokens["german"], None, resign=True)
    assert refusal.reason == "GAME_OVER"
    assert fingerprint(client, match_id) == before


def test_unknown_match(submit):
    refusal = submit("nosuchmatch", "token", engine.EndPhase())
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.NOT_FOUND, "MATCH_NOT_FOUND")
