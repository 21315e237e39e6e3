"""Account integrity (issue 34, point 2): no retry of a call that hands out a key gives a working key to
anyone but its first caller; request ids have one form; no log line holds a request id, a key or a seat
token in clear. A real service and Redis, over gRPC and REST; "another address" is another client sending
the same request (the session's service believes no X-Forwarded-For: the retry is judged by what it
carries, never by where it comes from)."""

from __future__ import annotations

import io
import json
import uuid

import grpc
import pytest
import structlog

from clients.client import TyphoonError
from clients.ladder import LadderClient
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.ladder.accounts import KEY_INVALID_MESSAGE
from service.request_ids import log_reference
from service.run.server import configure_logging

from service_helpers import ServiceProcess


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def refused(call) -> TyphoonError:
    with pytest.raises(TyphoonError) as caught:
        call()
    return caught.value


@pytest.fixture()
def ladder(service: ServiceProcess):
    with LadderClient(service.target, retries=0, rate_limit_patience=0) as client:
        yield client


@pytest.fixture()
def attacker(service: ServiceProcess):
    """Another client (another channel, another 'address'), replaying what it saw."""
    with LadderClient(service.target, retries=0, rate_limit_patience=0,
                      metadata=[("x-forwarded-for", "203.0.113.66")]) as client:
        yield client


def test_a_replayed_owner_registration_gets_no_key_and_the_first_key_keeps_working(ladder, attacker, http):
    request = lapi.RegisterOwnerRequest(name=unique("victim"), request_id=str(uuid.uuid4()))
    first = ladder._call("RegisterOwner", request)
    assert first.owner_key and not first.key_withheld
    for replay in (lambda: attacker._call("RegisterOwner", request), lambda: ladder._call("RegisterOwner", request)):
        again = replay()
        assert again.owner.owner_id == first.owner.owner_id
        assert (again.owner_key, again.key_withheld) == ("", True)
    body = {"name": request.name, "request_id": request.request_id}
    for _ in range(2):  # REST, from yet another client: the same
        reply = http.post("/v1/ladder/owners", json=body, headers={"X-Forwarded-For": "198.51.100.9"})
        assert reply.status_code == 200, reply.text
        assert (reply.json()["owner"]["owner_id"], reply.json()["owner_key"], reply.json()["key_withheld"]) == \
            (first.owner.owner_id, "", True)
    # the first caller's key still works; the SDK tells a retried registration apart
    player, api_key = ladder.register(unique("bot"), owner_key=first.owner_key)
    assert api_key and ladder.owner(first.owner.owner_id).player_ids == [player.player_id]
    # a different name under the same request id is another request, refused as such
    reused = refused(lambda: attacker._call("RegisterOwner", lapi.RegisterOwnerRequest(
        name=unique("other"), request_id=request.request_id)))
    assert reused.reason == "REQUEST_ID_REUSED"


def test_the_sdk_says_when_a_registration_answer_held_no_key(service, ladder, monkeypatch):
    """A retry inside the SDK (its first answer lost) raises KEY_WITHHELD, never a key-less success."""
    sent = []
    real = ladder._send

    def lose_first_answer(method, request, key=None):
        answer = real(method, request, key)
        sent.append(method)
        if len(sent) == 1:  # the answer is lost on its way back: the SDK sends the request again
            answer = real(method, request, key)
        return answer

    monkeypatch.setattr(ladder, "_send", lose_first_answer)
    error = refused(lambda: ladder.register_owner(unique("unlucky")))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "KEY_WITHHELD")
    assert "register another name" in error.message


def test_a_retried_player_registration_needs_the_owner_key_which_may_rotate_it_anyway(ladder, attacker):
    owner, owner_key = ladder.register_owner(unique("owner"))
    _, other_owner_key = ladder.register_owner(unique("stranger"))
    request = lapi.RegisterPlayerRequest(name=unique("bot"), request_id=str(uuid.uuid4()))
    first = ladder._call("RegisterPlayer", request, key=owner_key)
    # without the owner key the retry is refused; with another owner's key it is that owner's own request
    assert refused(lambda: attacker._call("RegisterPlayer", request)).reason == "KEY_MISSING"
    assert refused(lambda: attacker._call("RegisterPlayer", request, key="tpo_" + "x" * 43)).reason == "KEY_INVALID"
    elsewhere = attacker._call("RegisterPlayer", lapi.RegisterPlayerRequest(
        name=unique("bot"), request_id=request.request_id), key=other_owner_key)
    assert elsewhere.player.player_id != first.player.player_id
    # the owner's own retry: the same player, a new key, as RotatePlayerKey would give it
    again = ladder._call("RegisterPlayer", request, key=owner_key)
    assert again.player.player_id == first.player.player_id and again.api_key not in ("", first.api_key)
    assert ladder.owner(owner.owner_id).player_ids == [first.player.player_id]


def test_a_replayed_rotation_gets_no_key(ladder, attacker, http):
    owner, owner_key = ladder.register_owner(unique("owner"))
    player, api_key = ladder.register(unique("bot"), owner_key=owner_key)
    rotation = lapi.RotatePlayerKeyRequest(player_id=player.player_id, request_id=str(uuid.uuid4()))
    rotated = ladder._call("RotatePlayerKey", rotation, key=api_key)
    assert rotated.api_key and not rotated.key_withheld
    replayed = attacker._call("RotatePlayerKey", rotation, key=api_key)  # the old key and the id: all it saw
    assert (replayed.api_key, replayed.key_withheld) == ("", True)
    assert http.head("/v1/ladder/seek", headers={"Authorization": f"Bearer {rotated.api_key}"}).status_code == 200
    assert http.head("/v1/ladder/seek", headers={"Authorization": f"Bearer {api_key}"}).status_code == 401
    # the owner key rotates it again, with a new request id
    assert ladder.rotate_player_key(player.player_id, owner_key) not in ("", rotated.api_key)
    # an owner key's rotation likewise
    owner_rotation = lapi.RotateOwnerKeyRequest(owner_id=owner.owner_id, request_id=str(uuid.uuid4()))
    new_owner_key = ladder._call("RotateOwnerKey", owner_rotation, key=owner_key).owner_key
    replayed = attacker._call("RotateOwnerKey", owner_rotation, key=owner_key)
    assert (replayed.owner_key, replayed.key_withheld) == ("", True)
    assert ladder.register(unique("bot"), owner_key=new_owner_key)[1]
    assert refused(lambda: ladder.register(unique("bot"), owner_key=owner_key)).reason == "KEY_INVALID"


BAD_REQUEST_IDS = ["a b", "naïve-id", "x\ny", "'quoted'", "a" * 129, "id/with/slashes"]


def test_request_ids_have_one_form_on_every_call(client, ladder, http):
    owner, owner_key = ladder.register_owner(unique("owner"))
    player, api_key = ladder.register(unique("bot"), owner_key=owner_key)
    match, tokens = client.create_match(seats=["german", "soviet"])
    for bad in BAD_REQUEST_IDS:
        calls = [
            lambda: ladder._call("RegisterOwner", lapi.RegisterOwnerRequest(name=unique("o"), request_id=bad)),
            lambda: ladder._call("RegisterPlayer", lapi.RegisterPlayerRequest(name=unique("p"), request_id=bad),
                                 key=owner_key),
            lambda: ladder._call("RotatePlayerKey", lapi.RotatePlayerKeyRequest(player_id=player.player_id,
                                                                                request_id=bad), key=api_key),
            lambda: ladder._call("RotateOwnerKey", lapi.RotateOwnerKeyRequest(owner_id=owner.owner_id,
                                                                              request_id=bad), key=owner_key),
            lambda: client._call("CreateMatch", api.CreateMatchRequest(request_id=bad)),
            lambda: client.resign(match.match_id, tokens["german"], request_id=bad),
        ]
        for call in calls:
            error = refused(call)
            assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST_ID"), (bad, error)
        reply = http.post("/v1/ladder/owners", json={"name": unique("o"), "request_id": bad})
        assert (reply.status_code, reply.json()["error"]["reason"]) == (400, "BAD_REQUEST_ID")
    for good in (str(uuid.uuid4()), uuid.uuid4().hex, "01HZX3V6Q9K2M4N8P0R5T7W9Y1", f"{match.match_id}-0", "r1"):
        assert ladder._call("RegisterOwner", lapi.RegisterOwnerRequest(name=unique("o"), request_id=good)).owner_key


def test_one_answer_for_any_key_that_does_not_do(ladder, http):
    """Unknown, an owner key where a player's is needed, another owner's: the same reason and sentence, on
    both transports, so no answer tells whether a key exists as some ladder key."""
    owner, owner_key = ladder.register_owner(unique("owner"))
    other, other_key = ladder.register_owner(unique("other"))
    player, api_key = ladder.register(unique("bot"), owner_key=owner_key)
    unknown_player, unknown_owner = "tpk_" + "Q" * 43, "tpo_" + "Q" * 43
    answers = set()
    for key in (unknown_player, owner_key, "not-even-a-key"):  # a player's key is needed
        error = refused(lambda: next(iter(ladder.seek(key))))
        answers.add((error.reason, error.message))
        reply = http.get("/v1/ladder/seek", headers={"Authorization": f"Bearer {key}"})
        answers.add((reply.json()["error"]["reason"], reply.json()["error"]["message"]))
    for key in (unknown_owner, api_key, other_key):  # this owner's key is needed
        error = refused(lambda: ladder.rotate_owner_key(owner.owner_id, key))
        answers.add((error.reason, error.message))
        reply = http.post(f"/v1/ladder/owners/{owner.owner_id}/rotate-key", json={},
                          headers={"Authorization": f"Bearer {key}"})
        answers.add((reply.json()["error"]["reason"], reply.json()["error"]["message"]))
    for key in (unknown_owner, api_key):  # an owner key is needed
        reply = http.post("/v1/ladder/players", json={"name": unique("p")}, headers={"Authorization": f"Bearer {key}"})
        answers.add((reply.json()["error"]["reason"], reply.json()["error"]["message"]))
    assert answers == {("KEY_INVALID", KEY_INVALID_MESSAGE)}


def test_no_log_line_holds_a_request_id_a_key_or_a_seat_token(service, client, ladder, http):
    secrets_sent = []
    request_id = str(uuid.uuid4())
    owner = ladder._call("RegisterOwner", lapi.RegisterOwnerRequest(name=unique("logged"), request_id=request_id))
    ladder._call("RegisterOwner", lapi.RegisterOwnerRequest(name=owner.owner.name, request_id=request_id))
    player, api_key = ladder.register(unique("bot"), owner_key=owner.owner_key)
    rotated = ladder.rotate_player_key(player.player_id, api_key)
    refused(lambda: next(iter(ladder.seek(api_key))))  # the old key: refused, logged
    match, tokens = client.create_match(seats=["german", "soviet"])
    resign_id = str(uuid.uuid4())
    client.resign(match.match_id, tokens["soviet"], request_id=resign_id)
    header_id = str(uuid.uuid4())
    http.post("/v1/ladder/owners", json={"name": unique("rest"), "request_id": str(uuid.uuid4())},
              headers={"X-Request-ID": header_id})
    secrets_sent += [request_id, owner.owner_key, api_key, rotated, *tokens.values(), resign_id, header_id]
    text = "\n".join(json.dumps(line) for line in list(service.logs))
    for secret in secrets_sent:
        assert secret not in text
    assert log_reference(request_id) in text and log_reference(resign_id) in text  # what a line shows instead


def test_a_traceback_in_the_log_shows_no_local_variable():
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    try:
        def register(owner_key: str) -> None:
            raise RuntimeError("boom")

        try:
            register("tpo_secret-owner-key-in-a-local")
        except RuntimeError:
            structlog.get_logger("test").exception("internal_error")
    finally:
        configure_logging("info")
    line = stream.getvalue()
    assert "internal_error" in line and "boom" in line and "tpo_secret" not in line
