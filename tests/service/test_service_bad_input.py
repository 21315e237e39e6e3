"""Malformed and hostile input, over real gRPC and real HTTP: a precise code and reason, a short
sentence, never INTERNAL/UNKNOWN or a stack trace, and nothing written."""

from __future__ import annotations

import grpc
import pytest
import redis

from clients.client import TyphoonError
from service.errors import MAX_MESSAGE
from service.gen.typhoon.v1 import match_service_pb2 as api

LONG_NAME = "n" * 65


def _keys(store: redis.Redis) -> int:
    # how many keys: the ladder's pairing lock comes and goes every half second whatever the requests,
    # and compacting a match that ended meanwhile (another test's) changes its keys, not their number
    return sum(1 for name in store.scan_iter(count=1000) if name != b"typhoon:{ladder}:pairing")


@pytest.fixture()
def unchanged(redis_url):
    """Asserts, after the test, that Redis holds as many keys as before."""
    store = redis.Redis.from_url(redis_url)
    before = _keys(store)
    yield
    assert _keys(store) == before
    store.close()


def http_error(reply, status: int, reason: str) -> dict:
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert error["reason"] == reason and error["code"] == status and error["message"]
    assert "Traceback" not in reply.text
    return error


@pytest.mark.parametrize("body, reason", [
    (b'{"options": {"soviet_replacements": NaN}}', "MALFORMED_REQUEST"),
    (b'{"options": {"soviet_replacements": Infinity}}', "MALFORMED_REQUEST"),
    (b'{"options": {"soviet_replacements": 1e400}}', "MALFORMED_REQUEST"),
    (b'{"options": {"preset": ["all"]}}', "OPTION_UNAVAILABLE"),
    (b'{"options": {"preset": {}}}', "OPTION_UNAVAILABLE"),
    (b"[" * 50_000, "MALFORMED_REQUEST"),  # deeper than Python's recursion limit
    (b'{"seats": [{"side": "german", "player_name": "' + LONG_NAME.encode() + b'"}]}', "NAME_TOO_LONG"),
    (b'{"seats": [{"side": "german", "player_name": "bot\\u200bone"}]}', "BAD_NAME"),  # a zero-width space
    (b'{"seats": [{"side": "german", "player_name": "\\u001b[31mred"}]}', "BAD_NAME"),  # a terminal escape
])
def test_create_match_refuses_bad_bodies(http, unchanged, body, reason):
    reply = http.post("/v1/matches", content=body, headers={"Content-Type": "application/json"})
    http_error(reply, 400, reason)


def test_a_body_that_is_not_json_is_415_and_a_huge_one_413(http, unchanged):
    http_error(http.post("/v1/matches", content=b'{"scenario": "standard"}', headers={"Content-Type": "text/plain"}),
               415, "UNSUPPORTED_MEDIA_TYPE")
    huge = b'{"scenario": "' + b"x" * 100_000 + b'"}'
    http_error(http.post("/v1/matches", content=huge, headers={"Content-Type": "application/json"}),
               413, "BODY_TOO_LARGE")


def test_unknown_paths_and_methods_answer_in_the_error_format(http):
    http_error(http.get("/v1/nope"), 404, "NO_SUCH_PATH")
    http_error(http.get("/v1/matches/a%2Fb/events"), 404, "NO_SUCH_PATH")
    http_error(http.get("/v1/matches/"), 404, "NO_SUCH_PATH")  # no redirect to another path
    http_error(http.put("/v1/matches"), 405, "METHOD_NOT_ALLOWED")


def test_an_unknown_match_status_filter_is_refused(http, client):
    http_error(http.get("/v1/matches", params={"status": 99}), 400, "UNKNOWN_STATUS")
    with pytest.raises(TyphoonError) as refused:
        client.list_matches(status=99)
    assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_STATUS")


def test_a_player_name_over_64_characters_is_refused_over_grpc(client, unchanged):
    with pytest.raises(TyphoonError) as refused:
        client.create_match(seats=[("german", LONG_NAME)])
    assert refused.value.reason == "NAME_TOO_LONG"


def test_join_refuses_a_long_player_name(http, client):
    match_id = client.create_match()[0].match_id
    http_error(http.post(f"/v1/matches/{match_id}/join", json={"side": "soviet", "player_name": LONG_NAME}),
               400, "NAME_TOO_LONG")
    reply = http.post(f"/v1/matches/{match_id}/join", json={"side": "soviet", "player_name": "nul\u0000"})
    assert http_error(reply, 400, "BAD_NAME")["message"] == (
        "player_name has an invisible or control character (U+0000 at position 4); only printable text is accepted")
    assert not any(seat.player_name for seat in client.get_match(match_id).match.seats)


def test_a_body_naming_another_match_than_the_path_is_refused(http, client):
    match, tokens = client.create_match(seats=["german", "soviet"])
    match_id, other = match.match_id, client.create_match()[0].match_id
    auth = {"Authorization": f"Bearer {tokens['german']}"}
    for key in ("match_id", "matchId"):
        reply = http.post(f"/v1/matches/{match_id}/actions", headers=auth,
                          json={key: other, "action": {"standard_setup": {}}})
        assert http_error(reply, 400, "MALFORMED_REQUEST")["message"] == (
            f"match_id is {other!r} in the body but {match_id!r} in the path; the path's is the one acted on "
            f"(leave it out of the body)")
    assert client.get_match(match_id).match.version == 0
    reply = http.post(f"/v1/matches/{match_id}/actions", headers=auth,  # the same id in both: as if only in the path
                      json={"match_id": match_id, "action": {"standard_setup": {}}})
    assert reply.status_code == 200, reply.text


def test_a_negative_expected_version_is_out_of_range_not_stale(http, client):
    match, tokens = client.create_match(seats=["german"])
    reply = http.post(f"/v1/matches/{match.match_id}/actions", headers={"Authorization": f"Bearer {tokens['german']}"},
                      json={"action": {"standard_setup": {}}, "expected_version": -1})
    assert "not -1" in http_error(reply, 400, "BAD_VERSION")["message"]
    assert client.get_match(match.match_id).match.version == 0
    twice = http.get(f"/v1/matches/{match.match_id}/events?page_size=5&pageSize=6")  # one field, named two ways
    assert "page_size" in http_error(twice, 400, "MALFORMED_REQUEST")["message"]


def test_resigning_for_no_side_is_an_unknown_side(http, client):
    match, tokens = client.create_match(seats=[("german", "a")])
    reply = http.post(f"/v1/matches/{match.match_id}/actions", headers={"Authorization": f"Bearer {tokens['german']}"},
                      json={"action": {"resign": {"side": "french"}}})
    http_error(reply, 400, "UNKNOWN_SIDE")


def test_a_long_input_is_cut_in_the_sentence_and_the_code_survives(http, client):
    with pytest.raises(TyphoonError) as refused:
        client.get_match("x" * 8000)
    assert refused.value.code == grpc.StatusCode.NOT_FOUND and refused.value.reason == "MATCH_NOT_FOUND"
    assert len(refused.value.message) <= MAX_MESSAGE
    error = http_error(http.get("/v1/scenarios/" + "y" * 8000), 404, "UNKNOWN_SCENARIO")
    assert len(error["message"]) <= MAX_MESSAGE


@pytest.mark.parametrize("payload", [b"\xff\xff\xff\xff", b"\x0a\x02\xff\xfe"])
def test_bytes_that_are_not_the_request_message_are_invalid_argument(service, payload):
    with grpc.insecure_channel(service.target) as channel:
        call = channel.unary_unary("/typhoon.v1.MatchService/GetMatch", request_serializer=lambda b: b,
                                   response_deserializer=api.GetMatchResponse.FromString)
        with pytest.raises(grpc.RpcError) as refused:
            call(payload, timeout=10)
    error = TyphoonError.from_rpc_error(refused.value)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
    assert "GetMatchRequest" in error.message


def test_nan_in_grpc_options_is_invalid_argument(client, unchanged):
    request = api.CreateMatchRequest()
    request.options.update({"soviet_replacements": float("nan")})
    with pytest.raises(grpc.RpcError) as refused:
        client.stub.CreateMatch(request, timeout=10)
    error = TyphoonError.from_rpc_error(refused.value)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


def test_the_sse_end_event_keeps_the_cursor_it_was_given(http, client):
    match, tokens = client.create_match(seats=[("german", "a"), ("soviet", "b")])
    match_id = match.match_id
    client.resign(match_id, tokens["german"])
    last = client.get_match(match_id).match.last_sequence
    with http.stream("GET", f"/v1/matches/{match_id}/watch", params={"after_sequence": last}) as response:
        text = response.read().decode()
    assert "event: end" in text and f'"last_sequence":{last}' in text
