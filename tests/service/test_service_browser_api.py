"""What a browser frontend on another origin needs from the REST API, and a few things every client
does: CORS (preflight, SSE), refusals in the API's words, cursors past the end, Allow and HEAD, the
match's past (GetMatch at a version), the service's audit (VerifyMatch), the sequence of play, and
gRPC reflection under both names."""

from __future__ import annotations

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2

from clients.client import TyphoonError

from service.gen.typhoon.v1 import match_service_pb2 as api
from service_helpers import ServiceProcess, play_random

ORIGIN = "http://frontend.example"


@pytest.fixture(scope="module")
def cors_service(redis_url):
    process = ServiceProcess("--redis-url", redis_url, "--cors-origin", ORIGIN,
                             "--cors-origin", "http://other.example").start()
    yield process
    process.stop()


def _error(reply, status: int, reason: str) -> str:
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert error["reason"] == reason, error
    assert "Traceback" not in reply.text and "ParseError" not in reply.text
    return error["message"]


def _new_match(http, seats=("german", "soviet")):
    body = http.post("/v1/matches", json={"seats": [{"side": side} for side in seats]}).json()
    return body["match"]["match_id"], {t["side"]: t["token"] for t in body["seat_tokens"]}


def test_cors_preflight_and_simple_requests_for_allowed_origins_only(cors_service, service):
    with cors_service.http() as http:
        preflight = http.options("/v1/matches/abc/actions", headers={
            "Origin": ORIGIN, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == ORIGIN
        assert "POST" in preflight.headers["access-control-allow-methods"]
        assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
        listed = http.get("/v1/matches", headers={"Origin": ORIGIN})
        assert listed.headers["access-control-allow-origin"] == ORIGIN
        stranger = http.get("/v1/matches", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in stranger.headers
        refused = http.options("/v1/matches", headers={"Origin": "http://evil.example",
                                                       "Access-Control-Request-Method": "POST"})
        assert refused.status_code == 400 and "access-control-allow-origin" not in refused.headers
        # the SSE stream too
        match_id, tokens = _new_match(http)
        with http.stream("GET", f"/v1/matches/{match_id}/watch", headers={"Origin": ORIGIN},
                         params={"heartbeat_seconds": 1}) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.headers["access-control-allow-origin"] == ORIGIN
    with service.http() as http:  # no --cors-origin: no CORS at all
        assert "access-control-allow-origin" not in http.get("/v1/matches", headers={"Origin": ORIGIN}).headers


def test_bad_input_in_the_apis_words(http):
    match_id, tokens = _new_match(http)
    message = _error(http.get(f"/v1/matches/{match_id}/watch", params={"heartbeat_seconds": "abc"}),
                     400, "MALFORMED_REQUEST")
    assert message == "heartbeat_seconds must be a whole number, not 'abc'"
    message = _error(http.get("/v1/matches", params={"colour": "red"}), 400, "MALFORMED_REQUEST")
    assert message == "there is no query parameter 'colour' on /v1/matches; its parameters: page_size, page_token, status"
    message = _error(http.get("/v1/matches", params={"status": "MATCH_STATUS_WON"}), 400, "MALFORMED_REQUEST")
    assert message.startswith("status must be one of MATCH_STATUS_UNSPECIFIED, MATCH_STATUS_OPEN")
    message = _error(http.post("/v1/matches", json={"scenario": "standard", "seets": []}), 400, "MALFORMED_REQUEST")
    assert message.startswith("the body has no field 'seets'; its fields: scenario, options, seats, request_id")
    message = _error(http.post("/v1/matches", json={"seats": [{"side": "german", "nmae": "x"}]}),
                     400, "MALFORMED_REQUEST")
    assert message == ("seats[0] has no field 'nmae'; its fields: side, player_name, seat_token, entropy_commitment, "
                       "commit_entropy_later")
    message = _error(http.post(f"/v1/matches/{match_id}/actions", headers={"Authorization": f"Bearer {tokens['german']}"},
                               json={"action": {"move": {"unit": "XL"}, "end_phase": {}}}), 400, "MALFORMED_REQUEST")
    assert message.startswith("action takes one of place_unit, standard_setup, move")
    message = _error(http.post(f"/v1/matches/{match_id}/actions", headers={"Authorization": f"Bearer {tokens['german']}"},
                               json={"action": {"standard_setup": {}}, "expected_version": "soon"}),
                     400, "MALFORMED_REQUEST")
    assert message == "expected_version must be a whole number, not 'soon'"
    # digits of other scripts are not numbers here, though int() reads them
    message = _error(http.post(f"/v1/matches/{match_id}/actions", headers={"Authorization": f"Bearer {tokens['german']}"},
                               json={"action": {"standard_setup": {}}, "expected_version": "\u0663"}),
                     400, "MALFORMED_REQUEST")
    assert message == "expected_version must be a whole number, not '\u0663'"
    message = _error(http.get(f"/v1/matches/{match_id}/events", params={"page_size": "\u06f1"}), 400, "MALFORMED_REQUEST")
    assert message == "page_size must be a whole number, not '\u06f1'"


def test_a_cursor_past_the_end_is_refused(http, client):
    match_id, _ = _new_match(http)
    last = http.get(f"/v1/matches/{match_id}").json()["match"]["last_sequence"]
    assert http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": last}).json()["events"] == []
    message = _error(http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": last + 1}),
                     400, "CURSOR_PAST_END")
    assert message == f"after_sequence {last + 1} is past the end of the log (its last sequence is {last})"
    _error(http.get(f"/v1/matches/{match_id}/watch", params={"after_sequence": last + 5}), 400, "CURSOR_PAST_END")
    reply = http.get(f"/v1/matches/{match_id}/watch", headers={"Last-Event-ID": str(last + 1)})
    assert _error(reply, 400, "CURSOR_PAST_END")
    with pytest.raises(TyphoonError) as refused:
        client._call("GetEventLog", api.GetEventLogRequest(match_id=match_id, after_sequence=last + 1))
    assert refused.value.code == grpc.StatusCode.OUT_OF_RANGE and refused.value.reason == "CURSOR_PAST_END"


def test_a_malformed_last_event_id_is_refused(http):
    match_id, _ = _new_match(http)
    # a header is read as latin-1, so byte 0xB9 is '¹': a digit to str.isdigit() and int()
    for value in (b"abc", b"-1", b"1.5", b"9" * 20, b"9" * 10, b"\xb9", b"\xb2\xb3"):
        message = _error(http.get(f"/v1/matches/{match_id}/watch", headers={"Last-Event-ID": value}), 400, "BAD_CURSOR")
        assert message.startswith("Last-Event-ID must be an event sequence number")


def test_allow_lists_every_method_and_head_works_where_get_does(http):
    match_id, _ = _new_match(http)
    put = http.put("/v1/matches")
    assert put.status_code == 405 and put.json()["error"]["reason"] == "METHOD_NOT_ALLOWED"
    assert {m.strip() for m in put.headers["allow"].split(",")} == {"GET", "HEAD", "POST"}
    delete = http.delete(f"/v1/matches/{match_id}/actions")
    assert {m.strip() for m in delete.headers["allow"].split(",")} == {"POST"}
    for path in ("/v1/matches", f"/v1/matches/{match_id}", f"/v1/matches/{match_id}/events", "/v1/scenarios",
                 "/v1/scenarios/standard", "/healthz", "/", f"/v1/matches/{match_id}/verification",
                 f"/v1/matches/{match_id}/watch"):
        head, get = http.head(path), http.get(path) if not path.endswith("/watch") else None
        assert head.status_code == 200, (path, head.status_code)
        assert head.content == b""
        if get is not None:
            assert head.headers["content-type"] == get.headers["content-type"], path
    assert http.head("/v1/matches/nosuchmatch").status_code == 404


def test_get_match_at_a_version_and_the_services_audit(http, client):
    match_id, tokens = _new_match(http)
    states = {}
    for step in range(12):
        legal = client.legal_actions(match_id)
        states[legal.version] = http.get(f"/v1/matches/{match_id}").json()["state"]
        play_random(client, match_id, tokens, seed=f"v{step}", max_actions=1)
    current = http.get(f"/v1/matches/{match_id}").json()
    for version, state in states.items():  # the past while the match runs: the logged dice
        past = http.get(f"/v1/matches/{match_id}", params={"version": version}).json()
        assert past["match"] == current["match"]
        assert past["state"]["units"] == state["units"] and past["state"]["turn"] == state["turn"]
        assert past["state"]["phase"] == state["phase"] and past["state"]["victory_points"] == state["victory_points"]
        if version:
            assert past["state"]["state_hash"] == state["state_hash"]
    message = _error(http.get(f"/v1/matches/{match_id}", params={"version": 99}), 400, "BAD_VERSION")
    assert message == f"version 99 is not in this match's history: it runs from 0 to {current['match']['version']}"

    running = http.get(f"/v1/matches/{match_id}/verification").json()
    assert not running["verified"] and not running["finished"] and running["seed"] == ""
    outcomes = {check["name"]: check["outcome"] for check in running["checks"]}
    assert outcomes["log"] == "passed" and outcomes["dice"] == "not_checked"

    play_random(client, match_id, tokens, seed="to-the-end")
    audit = client._call("VerifyMatch", api.VerifyMatchRequest(match_id=match_id))
    assert audit.verified and audit.finished and audit.seed
    assert {check.outcome for check in audit.checks} == {"passed"}
    assert audit.rolls and all(roll.logged == roll.recomputed for roll in audit.rolls)
    assert "VERIFIED" in audit.summary
    final = http.get(f"/v1/matches/{match_id}").json()
    for version, state in states.items():  # the past of a finished match: the seed's dice, hashes recomputed
        past = http.get(f"/v1/matches/{match_id}", params={"version": version}).json()["state"]
        assert past["units"] == state["units"] and past["state_hash"]
        if version:
            assert past["state_hash"] == state["state_hash"]
    last = http.get(f"/v1/matches/{match_id}", params={"version": final["match"]["version"]}).json()
    assert last["state"] == final["state"]


def test_get_scenario_publishes_the_sequence_of_play(http):
    sequence = http.get("/v1/scenarios/standard").json()["scenario"]["sequence"]
    assert [p["name"] for p in sequence if not p["option"]] == [
        "setup", "german_replacement", "german_panzer_movement", "german_combat", "german_movement",
        "soviet_replacement", "soviet_rail_movement", "soviet_combat", "soviet_movement"]
    assert {p["name"] for p in sequence if p["option"] == "war_of_attrition"} == {"german_supply", "soviet_supply"}
    assert sequence[3] == {"name": "german_panzer_movement", "side": "german", "kind": "movement",
                           "movers": "panzer", "option": ""}


def test_grpc_reflection_answers_as_v1_and_v1alpha(service):
    with grpc.insecure_channel(service.target) as channel:
        for version in ("v1", "v1alpha"):
            call = channel.stream_stream(f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
                                         request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                         response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
            requests = [reflection_pb2.ServerReflectionRequest(list_services=""),
                        reflection_pb2.ServerReflectionRequest(file_containing_symbol="typhoon.v1.MatchService")]
            listed, described = list(call(iter(requests), timeout=10))
            names = {s.name for s in listed.list_services_response.service}
            assert {"typhoon.v1.MatchService", "grpc.reflection.v1.ServerReflection",
                    "grpc.reflection.v1alpha.ServerReflection"} <= names, version
            assert described.file_descriptor_response.file_descriptor_proto
