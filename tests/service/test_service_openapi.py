"""/openapi.json for code generators: a valid OpenAPI 3.1 document, every response the service sends
valid against it, and a client generated from it (openapi-python-client) playing a match."""

from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
import time

import pytest
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

from service_helpers import bounded, play_random


@pytest.fixture(scope="module")
def document(service):
    with service.http() as http:
        return http.get("/openapi.json").json()


def _validator(document, schema: str) -> OAS31Validator:
    return OAS31Validator({"$ref": f"#/components/schemas/{schema}", "components": document["components"]})


def _check(document, schema: str, body) -> None:
    errors = sorted(_validator(document, schema).iter_errors(body), key=str)
    assert not errors, f"{schema}: {errors[0].message} at {list(errors[0].absolute_path)}"


def test_the_document_is_valid_openapi_3_1(document):
    validate(document)
    schemas = document["components"]["schemas"]
    assert schemas["Match"]["required"] == ["match_id", "scenario", "options", "status", "seats", "version",
                                            "last_sequence", "turn", "phase", "side_to_act", "seed_commitment", "seed",
                                            "created_at", "updated_at", "ruleset"]
    assert schemas["Match"]["properties"]["side_to_act"]["enum"] == ["german", "soviet", ""]
    assert schemas["MapHex"]["properties"]["terrain"]["enum"] == ["clear", "forest"]
    assert schemas["Unit"]["properties"]["strength"]["enum"] == ["full", "half"]
    assert schemas["GameState"]["properties"]["weather"]["enum"] == ["clear", "mud", "snow"]
    assert "german_panzer_movement" in schemas["GameState"]["properties"]["phase"]["enum"]
    assert {v["$ref"].rsplit("/", 1)[1] for v in schemas["Action"]["oneOf"]} >= {"Action.kind.move", "Action.kind.end_phase"}
    assert schemas["Action.kind.move"]["required"] == ["move"]
    assert schemas["MatchEvent.kind.game_event"]["required"] == ["sequence", "version", "time", "game_event"]
    assert "required" not in schemas["Action.MoveInput"]  # a caller may leave out path
    # a server-sent event stream: the schema of one event's data (what generated SSE clients yield), and each
    # event whole, discriminated by its type
    for path, name in (("/v1/matches/{match_id}/watch", "Watch"), ("/v1/ladder/seek", "Seek")):
        content = document["paths"][path]["get"]["responses"]["200"]["content"]
        assert content == {"text/event-stream": {"schema": {"$ref": f"#/components/schemas/{name}EventData"}}}
        assert schemas[f"{name}Event"]["discriminator"]["propertyName"] == "event"
    assert set(schemas["WatchEvent"]["discriminator"]["mapping"]) == {"match_event", "match_update", "heartbeat",
                                                                      "end", "error"}
    assert set(schemas["SeekEvent"]["discriminator"]["mapping"]) == {"match", "match_update", "heartbeat", "end",
                                                                     "error"}
    assert schemas["WatchEvent.match_event"]["required"] == ["event", "data", "id"]
    assert schemas["WatchEvent.match_update"]["properties"]["data"] == {"$ref": "#/components/schemas/MatchUpdate"}
    assert schemas["MatchUpdate"]["properties"]["status"]["enum"][1] == "MATCH_STATUS_OPEN"
    assert "legal_actions" not in schemas["MatchUpdate"]["required"]


def test_what_the_service_sends_is_what_the_document_says(document, http, client):
    _check(document, "ListScenariosResponse", http.get("/v1/scenarios").json())
    for scenario in ("standard", "campaign"):
        _check(document, "GetScenarioResponse", http.get(f"/v1/scenarios/{scenario}").json())
    created = http.post("/v1/matches", json={"seats": [{"side": "german"}, {"side": "soviet"}],
                                             "options": {"preset": "war_of_attrition"},
                                             "time_control": {"preset": "blitz"}}).json()
    _check(document, "CreateMatchResponse", created)
    match_id = created["match"]["match_id"]
    tokens = {t["side"]: t["token"] for t in created["seat_tokens"]}
    chooser = random.Random("openapi")
    for _ in range(40):
        legal = http.get(f"/v1/matches/{match_id}/legal-actions").json()
        _check(document, "ListLegalActionsResponse", legal)
        _check(document, "GetMatchResponse", http.get(f"/v1/matches/{match_id}").json())
        reply = http.post(f"/v1/matches/{match_id}/actions", headers={"Authorization": f"Bearer {tokens[legal['side_to_act']]}"},
                          json={"action": chooser.choice(legal["actions"]), "expected_version": legal["version"]})
        _check(document, "SubmitActionResponse", reply.json())
    play_random(client, match_id, tokens, seed="openapi")
    _check(document, "GetMatchResponse", http.get(f"/v1/matches/{match_id}").json())
    _check(document, "GetEventLogResponse",
           http.get(f"/v1/matches/{match_id}/events", params={"page_size": 1000}).json())
    _check(document, "VerifyMatchResponse", http.get(f"/v1/matches/{match_id}/verification").json())
    _check(document, "ListMatchesResponse", http.get("/v1/matches").json())
    _check(document, "Error", http.get("/v1/matches/nosuchmatch").json())


def test_a_generated_client_plays_a_match(document, service, tmp_path):
    spec = tmp_path / "openapi.json"
    spec.write_text(__import__("json").dumps(document))
    config = tmp_path / "config.yaml"
    config.write_text("post_hooks: []\n")
    subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", str(spec), "--meta", "none",
                    "--config", str(config), "--output-path", str(tmp_path / "typhoon_rest")],
                   check=True, capture_output=True, timeout=120)
    sys.path.insert(0, str(tmp_path))
    try:
        generated = importlib.import_module("typhoon_rest")
        match_service = importlib.import_module("typhoon_rest.api.match_service")
        models = importlib.import_module("typhoon_rest.models")
    finally:
        sys.path.remove(str(tmp_path))
    for name in ("create_match", "get_match", "list_legal_actions", "submit_action", "resign", "get_event_log"):
        importlib.import_module(f"typhoon_rest.api.match_service.{name}")

    anonymous = generated.Client(base_url=service.base_url, raise_on_unexpected_status=True)
    created = match_service.create_match.sync(client=anonymous, body=models.CreateMatchRequest.from_dict(
        {"scenario": "standard", "seats": [{"side": "german", "player_name": "Bock"}, {"side": "soviet"}]}))
    assert isinstance(created, models.CreateMatchResponse), created
    match_id = created.match.match_id
    seats = {token.side.value if hasattr(token.side, "value") else token.side: token.token
             for token in created.seat_tokens}
    clients = {side: generated.AuthenticatedClient(base_url=service.base_url, token=token)
               for side, token in seats.items()}
    chooser = random.Random("generated")
    for _ in range(20):
        legal = match_service.list_legal_actions.sync(match_id, client=anonymous)
        side = legal.side_to_act.value if hasattr(legal.side_to_act, "value") else legal.side_to_act
        seat = clients[side]
        action = chooser.choice(legal.actions).to_dict()
        reply = match_service.submit_action.sync(match_id, client=seat, body=models.SubmitActionRequest.from_dict(
            {"action": action, "expected_version": legal.version}))
        assert isinstance(reply, models.SubmitActionResponse), reply
        assert reply.version == legal.version + 1
    bad = match_service.submit_action.sync(match_id, client=seat, body=models.SubmitActionRequest.from_dict(
        {"action": {"move": {"unit": "no-such-unit", "to": "0101"}}}))
    assert isinstance(bad, models.Error) and bad.error.status == "INVALID_ARGUMENT"
    resigned = match_service.resign.sync(match_id, client=seat, body=models.ResignRequest.from_dict({}))
    assert isinstance(resigned, models.ResignResponse), resigned
    state = match_service.get_match.sync(match_id, client=anonymous)
    assert state.match.status.value == "MATCH_STATUS_FINISHED" and state.match.seed
    log = match_service.get_event_log.sync(match_id, client=anonymous, page_size=1000)
    assert [e.sequence for e in log.events] == list(range(1, state.match.last_sequence + 1))
    kinds = {type(e).__name__ for e in log.events}
    assert {"MatchEventKindMatchCreated", "MatchEventKindActionSubmitted", "MatchEventKindGameEvent",
            "MatchEventKindSeedRevealed"} <= kinds, kinds


def _sse_events(lines, wanted: str) -> list[dict]:
    """The server-sent events read up to the first ``wanted`` one, as {"event", "data"} objects."""
    events, kind, event_id = [], None, None
    for line in lines:
        if line.startswith("id: "):
            event_id = line.removeprefix("id: ")
        elif line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            events.append({"event": kind, "data": json.loads(line.removeprefix("data: "))}
                          | ({"id": event_id} if event_id is not None else {}))
            event_id = None
            if kind == wanted:
                return events
    raise AssertionError(f"the stream ended before a {wanted!r} event: {events}")


def test_the_watch_stream_sends_what_the_document_says(document, http, client):
    """Every event of a watch with the seat's legal actions, from the log's start to the end of the match."""
    match, tokens = client.create_match(seats=["german", "soviet"], time_control="blitz")
    play_random(client, match.match_id, tokens, seed="openapi-watch", max_actions=3)
    client.resign(match.match_id, tokens["soviet"])
    with http.stream("GET", f"/v1/matches/{match.match_id}/watch", params={"include_legal_actions": "true"},
                     headers={"Authorization": f"Bearer {tokens['german']}"}) as stream:
        events = _sse_events(stream.iter_lines(), "end")
    assert {e["event"] for e in events} == {"match_event", "match_update", "end"}
    for event in events:
        _check(document, "WatchEvent", event)
        _check(document, "WatchEventData", event["data"])


def test_the_ladder_routes_send_what_the_document_says(document, http, service):
    """Every ladder route, the Seek stream's events included, through a match paired, resigned and rated."""
    for path in ("/v1/ladder", "/v1/ladder/players", "/v1/ladder/seek", "/v1/ladder/leaderboard",
                 "/v1/ladder/players/{player_id}", "/v1/ladder/players/{player_id}/matches"):
        assert path in document["paths"], path
    assert document["paths"]["/v1/ladder/players"]["post"]["requestBody"]["required"] is True
    _check(document, "GetLadderResponse", http.get("/v1/ladder").json())
    players = []
    for name in ("openapi-north", "openapi-south"):
        name = f"{name}-{random.getrandbits(32):08x}"
        owner = http.post("/v1/ladder/owners", json={"name": name}).json()
        _check(document, "RegisterOwnerResponse", owner)
        _check(document, "GetOwnerResponse", http.get(f"/v1/ladder/owners/{owner['owner']['owner_id']}").json())
        reply = http.post("/v1/ladder/players", json={"name": name},
                          headers={"Authorization": f"Bearer {owner['owner_key']}"}).json()
        _check(document, "RegisterPlayerResponse", reply)
        players.append(reply)
    _check(document, "Error", http.get("/v1/ladder/seek", headers={"Authorization": "Bearer tpk_wrong"}).json())
    with service.http() as other, \
            http.stream("GET", "/v1/ladder/seek", params={"heartbeat_seconds": 1},
                        headers={"Authorization": f"Bearer {players[0]['api_key']}"}) as north, \
            other.stream("GET", "/v1/ladder/seek", params={"heartbeat_seconds": 1},
                         headers={"Authorization": f"Bearer {players[1]['api_key']}"}) as south:
        events = _sse_events(bounded(north.iter_lines(), "a match on the Seek stream", stop=north.close), "match")
        _sse_events(bounded(south.iter_lines(), "a match on the Seek stream", stop=south.close), "match")  # both seeking, whoever the ladder pairs them with
    for event in events:
        _check(document, "SeekEvent", event)
        _check(document, "SeekEventData", event["data"])
    assert {e["event"] for e in events} <= {"heartbeat", "match", "match_update"}
    paired = events[-1]["data"]
    resigned = http.post(f"/v1/matches/{paired['match_id']}/resign",
                         headers={"Authorization": f"Bearer {paired['seat_token']}"}, json={})
    assert resigned.status_code == 200, resigned.text
    player_id = players[0]["player"]["player_id"]
    matches = f"/v1/ladder/players/{player_id}/matches"
    deadline = time.monotonic() + 30
    while not http.get(matches).json()["matches"]:
        assert time.monotonic() < deadline, "the resigned ladder match was not rated"
        time.sleep(0.2)
    history = http.get(matches).json()
    _check(document, "ListPlayerMatchesResponse", history)
    assert history["matches"][0]["outcome"] == "loss"
    _check(document, "GetPlayerResponse", http.get(f"/v1/ladder/players/{player_id}").json())
    _check(document, "GetLeaderboardResponse", http.get("/v1/ladder/leaderboard", params={"page_size": 5}).json())
    _check(document, "Error", http.get("/v1/ladder/players/pnothere").json())
