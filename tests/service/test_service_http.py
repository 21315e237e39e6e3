"""The service over real HTTP (REST/JSON and server-sent events) against a real Redis."""

from __future__ import annotations

import hashlib
import json
import random
import threading

import httpx

import engine
from service.api.routes import ROUTES

from service_helpers import bounded, play_random


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def read_sse(response: httpx.Response):
    """(event, id, data) triples of a text/event-stream response."""
    event, event_id, data = None, None, []
    for line in bounded(response.iter_lines(), "the server-sent events", stop=response.close):
        if line == "":
            if event:
                yield event, event_id, json.loads("\n".join(data))
            event, event_id, data = None, None, []
        elif line.startswith("event: "):
            event = line[7:]
        elif line.startswith("id: "):
            event_id = int(line[4:])
        elif line.startswith("data: "):
            data.append(line[6:])


def test_a_complete_game_over_rest(http):
    created = http.post("/v1/matches", json={"scenario": "standard", "seats": [{"side": "german"}]})
    assert created.status_code == 200, created.text
    body = created.json()
    match_id = body["match"]["match_id"]
    tokens = {t["side"]: t["token"] for t in body["seat_tokens"]}
    assert body["match"]["status"] == "MATCH_STATUS_OPEN" and body["match"]["version"] == 0
    joined = http.post(f"/v1/matches/{match_id}/join", json={"side": "soviet", "player_name": "Konev"}).json()
    tokens["soviet"] = joined["seat_token"]
    assert joined["match"]["status"] == "MATCH_STATUS_ACTIVE"

    chooser = random.Random("rest")
    played = 0
    while True:
        legal = http.get(f"/v1/matches/{match_id}/legal-actions").json()
        if not legal["side_to_act"]:
            break
        action = chooser.choice(legal["actions"])
        reply = http.post(f"/v1/matches/{match_id}/actions", headers=auth(tokens[legal["side_to_act"]]),
                          json={"action": action, "expected_version": legal["version"],
                                "request_id": f"rest-{played}"})
        assert reply.status_code == 200, reply.text
        assert reply.json()["version"] == legal["version"] + 1
        played += 1

    final = http.get(f"/v1/matches/{match_id}").json()
    assert final["match"]["status"] == "MATCH_STATUS_FINISHED" and final["match"]["version"] == played
    assert hashlib.sha256(final["match"]["seed"].encode()).hexdigest() == final["match"]["seed_commitment"]
    events, cursor = [], 0
    while True:
        page = http.get(f"/v1/matches/{match_id}/events", params={"after_sequence": cursor, "page_size": 100}).json()
        events += page["events"]
        cursor = page["next_after_sequence"]
        if not page["has_more"]:
            break
    assert [e["sequence"] for e in events] == list(range(1, final["match"]["last_sequence"] + 1))
    # the JSON log alone re-simulates the game
    created_event = events[0]["match_created"]
    game = engine.new_game(created_event["scenario"], created_event["options"], seed=events[-1]["seed_revealed"]["seed"])
    for entry in events:
        if "action_submitted" in entry:
            (kind, fields), = entry["action_submitted"]["action"].items()
            game.apply(engine.action_from_json({"type": kind, **{k: v for k, v in fields.items() if v != []}}))
            assert game.state_hash() == entry["action_submitted"]["state_hash"]
    assert game.state_hash() == final["state"]["state_hash"]


def test_watch_as_server_sent_events_with_resume(http, service):
    body = http.post("/v1/matches", json={"seats": [{"side": "german"}, {"side": "soviet"}]}).json()
    match_id, tokens = body["match"]["match_id"], {t["side"]: t["token"] for t in body["seat_tokens"]}
    received: list[tuple[str, int | None, dict]] = []
    connected = threading.Event()

    def watch():
        with httpx.Client(base_url=service.base_url, timeout=30) as watcher:
            with watcher.stream("GET", f"/v1/matches/{match_id}/watch", params={"heartbeat_seconds": 1}) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                for item in read_sse(response):
                    received.append(item)
                    connected.set()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    assert connected.wait(60)
    reply = http.post(f"/v1/matches/{match_id}/actions", headers=auth(tokens["german"]),
                      json={"action": {"standard_setup": {}}, "expected_version": 0})
    assert reply.status_code == 200
    http.post(f"/v1/matches/{match_id}/resign", headers=auth(tokens["german"]), json={})
    thread.join(20)
    assert not thread.is_alive()
    events = [(i, d) for e, i, d in received if e == "match_event"]
    assert [i for i, _ in events] == list(range(1, len(events) + 1))
    assert [i for i, d in events] == [d["sequence"] for _, d in events]
    assert "seed_revealed" in events[-1][1]
    assert received[-1][0] == "end" and received[-1][2] == {"finished": True, "last_sequence": len(events)}
    final = received[-2]  # where the match stands at its end, after its last entry (no id: not an entry)
    assert final[:2] == ("match_update", None) and final[2]["status"] == "MATCH_STATUS_FINISHED"

    # Last-Event-ID resumes after the given sequence
    with http.stream("GET", f"/v1/matches/{match_id}/watch", headers={"Last-Event-ID": str(len(events) - 2)}) as again:
        resumed = [(e, i) for e, i, _ in read_sse(again)]
    assert resumed == [("match_event", len(events) - 1), ("match_event", len(events)), ("match_update", None),
                       ("end", None)]


def test_rest_error_bodies(http):
    missing = http.get("/v1/matches/nosuchmatch")
    assert missing.status_code == 404
    assert missing.json() == {"error": {"code": 404, "status": "NOT_FOUND", "reason": "MATCH_NOT_FOUND",
                                        "message": "there is no match 'nosuchmatch'"}}
    body = http.post("/v1/matches", json={"seats": [{"side": "german"}]}).json()
    match_id = body["match"]["match_id"]
    token = body["seat_tokens"][0]["token"]
    not_json = http.post(f"/v1/matches/{match_id}/actions", content=b"{nope", headers=auth(token))
    assert not_json.status_code == 400 and not_json.json()["error"]["reason"] == "MALFORMED_REQUEST"
    unknown_field = http.post(f"/v1/matches/{match_id}/actions", json={"actoin": {}}, headers=auth(token))
    assert unknown_field.status_code == 400 and unknown_field.json()["error"] == {
        "code": 400, "status": "INVALID_ARGUMENT", "reason": "MALFORMED_REQUEST",
        "message": "the body has no field 'actoin'; its fields: match_id, action, expected_version, request_id"}
    bad_token = http.post(f"/v1/matches/{match_id}/actions", json={"action": {"end_phase": {}}}, headers=auth("x"))
    assert bad_token.status_code == 401 and bad_token.headers["www-authenticate"] == "Bearer"
    assert bad_token.json()["error"]["reason"] == "TOKEN_INVALID"
    # the token is checked before the body is read: a stranger learns nothing about the body
    for headers in ({}, auth("x")):
        refused = http.post(f"/v1/matches/{match_id}/actions", content=b"{nope", headers=headers)
        assert refused.status_code == 401, refused.text
    page = http.get("/v1/matches", params={"page_size": 1000})
    assert page.status_code == 400 and page.json()["error"]["reason"] == "BAD_PAGE_SIZE"
    assert "Traceback" not in not_json.text + unknown_field.text + page.text


def test_camel_case_json_names_are_accepted_too(http):
    body = http.post("/v1/matches", json={"seats": [{"side": "german", "playerName": "Bock"}]}).json()
    assert body["match"]["seats"][0]["player_name"] == "Bock"
    stale = http.post(f"/v1/matches/{body['match']['match_id']}/actions",
                      headers=auth(body["seat_tokens"][0]["token"]),
                      json={"action": {"standard_setup": {}}, "expectedVersion": 5})
    assert stale.status_code == 409
    assert stale.json()["error"]["metadata"]["current_version"] == "0"


def test_openapi_document(http):
    document = http.get("/openapi.json").json()
    assert document["openapi"].startswith("3.")
    for route in ROUTES:
        operation = document["paths"][route.path][route.method.lower()]
        assert operation["operationId"] == route.rpc
    schemas = document["components"]["schemas"]
    assert schemas["Action.kind.move"]["properties"]["move"] == {"$ref": "#/components/schemas/Action.Move"}
    assert schemas["Action.Move"]["properties"]["path"] == {"type": "array", "items": {"type": "string"}}
    assert schemas["MatchEvent.kind.game_event"]["properties"]["time"] == {"type": "string", "format": "date-time"}
    submit = document["paths"]["/v1/matches/{match_id}/actions"]["post"]
    assert submit["security"] == [{"seatToken": []}]
    assert document["components"]["securitySchemes"]["seatToken"]["scheme"] == "bearer"
    for name, schema in schemas.items():  # every reference resolves
        for ref in _refs(schema):
            assert ref.removeprefix("#/components/schemas/") in schemas, (name, ref)


def _refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_the_legal_actions_answer_is_the_generic_conversion_of_the_message(client, http):
    """The REST answer of ListLegalActions (built from per-action pieces) is the message's JSON form."""
    from service.api.http_api import to_json

    match, tokens = client.create_match(seats=["german", "soviet"])
    play_random(client, match.match_id, tokens, seed="legal-json", max_actions=40)
    reply = http.get(f"/v1/matches/{match.match_id}/legal-actions")
    assert reply.json() == to_json(client.legal_actions(match.match_id))
    assert reply.headers["content-type"] == "application/json"
