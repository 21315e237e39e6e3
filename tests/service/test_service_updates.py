"""The stream carries what a bot needs: WatchMatch's MatchUpdates (gRPC and SSE) after each change, with
the seat's legal actions and game state on request, so a bot plays with no call but SubmitAction."""

from __future__ import annotations

import json
import random
import threading
import time
import uuid

import grpc
import httpx
import pytest

import engine
from clients.client import TyphoonClient, TyphoonError
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc

from service_helpers import play_random, wait_for

ACTIVE, FINISHED = match_pb2.MATCH_STATUS_ACTIVE, match_pb2.MATCH_STATUS_FINISHED


def test_two_seats_play_a_whole_match_from_their_streams_alone(service, client):
    """Each seat watches with its token and include_legal_actions, and does nothing but SubmitAction:
    every update comes after the entries of its change, says whose turn it is, carries the legal actions
    and the state exactly when the watcher's seat is to act (the same as ListLegalActions and GetMatch
    give at that version), and the stream ends with the final update."""
    match, tokens = client.create_match(seats=["german", "soviet"], time_control="3600+0")
    watches = {side: client.watch(match.match_id, updates=True, token=token) for side, token in tokens.items()}
    iterators = {side: iter(watch) for side, watch in watches.items()}
    chooser = random.Random("updates")
    checked = submitted = 0
    last_update: dict[str, api.MatchUpdate] = {}
    version = 0  # the version the last action made
    while True:
        for side in ("german", "soviet"):  # each seat reads its stream up to the update of that version
            while side not in last_update or last_update[side].version < version:
                item = next(iterators[side])
                if isinstance(item, api.MatchUpdate):
                    assert item.last_sequence == watches[side].cursor  # every entry of the change came first
                    last_update[side] = item
        german, soviet = last_update["german"], last_update["soviet"]
        assert german.version == soviet.version == version
        if german.status == FINISHED:
            break
        to_act = german.side_to_act
        assert to_act == soviet.side_to_act and german.status == ACTIVE and german.clock.running == to_act
        mine, theirs = last_update[to_act], last_update["soviet" if to_act == "german" else "german"]
        assert mine.HasField("legal_actions") and mine.HasField("state")
        assert not theirs.HasField("legal_actions") and not theirs.HasField("state")
        if checked < 3 or chooser.random() < 0.05:  # what the calls would have answered, at times
            assert mine.legal_actions == client.legal_actions(match.match_id)
            assert mine.state.position_json == client.get_match(match.match_id).state.position_json
            checked += 1
        action = chooser.choice(mine.legal_actions.actions)
        version = client.submit(match.match_id, tokens[to_act], action, expected_version=mine.version).version
        submitted += 1
        if submitted == 60:
            version = client.resign(match.match_id, tokens["soviet"]).version
    for side, iterator in iterators.items():
        assert list(iterator) == []  # the final update was the stream's last message
        assert watches[side].finished
    final = last_update["german"]
    assert (final.status, final.side_to_act, final.result.winner) == (FINISHED, "", "german")
    assert final.version == submitted + 1 == client.get_match(match.match_id).match.version


def test_an_update_follows_the_catch_up_and_only_the_seat_to_act_gets_its_actions(service, client):
    match, tokens = client.create_match(seats=["german"])
    play_random(client, match.match_id, tokens, max_actions=1)
    with grpc.insecure_channel(service.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)

        def first_messages(request, token=None, count=None):
            call = stub.WatchMatch(request, metadata=[("authorization", f"Bearer {token}")] if token else [])
            messages = []
            for response in call:
                messages.append(response)
                if response.WhichOneof("kind") == "update":
                    call.cancel()
                    return messages
            return messages

        plain = first_messages(api.WatchMatchRequest(match_id=match.match_id))
        assert [m.WhichOneof("kind") for m in plain] == ["event"] * (len(plain) - 1) + ["update"]
        update = plain[-1].update
        assert (update.version, update.last_sequence, update.side_to_act) == (1, plain[-2].event.sequence, "german")
        assert update.status == match_pb2.MATCH_STATUS_OPEN and not update.HasField("legal_actions")
        # an old cursor, at the end of the log: the update alone
        resumed = first_messages(api.WatchMatchRequest(match_id=match.match_id,
                                                       after_sequence=update.last_sequence))
        assert [m.WhichOneof("kind") for m in resumed] == ["update"] and resumed[0].update == update
        seat = first_messages(api.WatchMatchRequest(match_id=match.match_id, after_sequence=update.last_sequence,
                                                    include_legal_actions=True), tokens["german"])[0].update
        assert seat.legal_actions.side_to_act == "german" and seat.legal_actions.version == 1
        assert seat.legal_actions.actions and seat.state.side_to_act == "german"
        assert '"seed"' not in seat.state.position_json  # the seed stays secret while the match runs
        soviet = client.join_match(match.match_id, "soviet")
        joined_at = client.get_match(match.match_id).match.last_sequence  # the seat claimed, and its entropy
        other = first_messages(api.WatchMatchRequest(match_id=match.match_id, include_legal_actions=True,
                                                     after_sequence=joined_at), soviet.token)
        assert other[0].update.status == ACTIVE and not other[0].update.HasField("legal_actions")


@pytest.mark.parametrize("token, reason", [(None, "TOKEN_MISSING"), ("x" * 40, "TOKEN_INVALID")])
def test_legal_actions_on_a_watch_need_a_seat_token(client, token, reason):
    match, _ = client.create_match(seats=["german"])
    with pytest.raises(TyphoonError) as refused:
        next(iter(client.watch(match.match_id, updates=True, token=token or "", resume=False)
                  if token else _watch_without_token(client, match.match_id)))
    assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.UNAUTHENTICATED, reason)


def _watch_without_token(client: TyphoonClient, match_id: str):
    request = api.WatchMatchRequest(match_id=match_id, include_legal_actions=True)
    try:
        yield from client.stub.WatchMatch(request)
    except grpc.RpcError as error:
        raise TyphoonError.from_rpc_error(error) from None


def test_server_sent_events_carry_the_updates_with_the_same_actions_as_the_rest_call(service, client, http):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    legal = http.get(f"/v1/matches/{match.match_id}/legal-actions").json()
    with http.stream("GET", f"/v1/matches/{match.match_id}/watch",
                     headers={"Authorization": f"Bearer {tokens[legal['side_to_act']]}"},
                     params={"include_legal_actions": "true"}) as response:
        frames, frame = [], {}
        for line in response.iter_lines():
            if not line:
                frames.append(frame)
                if frame.get("event") == "match_update":
                    break
                frame = {}
                continue
            name, _, value = line.partition(": ")
            frame[name] = value
    assert all(f["event"] == "match_event" and "id" in f for f in frames[:-1])
    update = frames[-1]
    assert "id" not in update  # not a log entry: the cursor (Last-Event-ID) stays the last entry's sequence
    data = json.loads(update["data"])
    assert data["legal_actions"] == legal and data["side_to_act"] == legal["side_to_act"]
    assert data["status"] == "MATCH_STATUS_ACTIVE" and data["version"] == legal["version"]
    assert data["state"]["side_to_act"] == legal["side_to_act"] and data["last_sequence"] == int(frames[-2]["id"])


def test_the_seek_stream_carries_each_ladder_match_with_its_updates(service, http):
    """Two players seek over SSE with include_legal_actions: each gets its match, then its updates; the
    German's carry the legal actions (the Soviet's do not), and a move shows in both streams."""
    keys = {}
    for name in ("north", "south"):
        unique = f"{name}-{random.getrandbits(32):08x}"
        owner = http.post("/v1/ladder/owners", json={"name": unique, "request_id": str(uuid.uuid4())}).json()
        reply = http.post("/v1/ladder/players", json={"name": unique},
                          headers={"Authorization": f"Bearer {owner['owner_key']}"}).json()
        keys[name] = reply["api_key"]
    frames: dict[str, list[dict]] = {name: [] for name in keys}

    def seek(name: str) -> None:
        with httpx.Client(base_url=service.base_url, timeout=60) as own, own.stream(
                "GET", "/v1/ladder/seek", params={"include_legal_actions": "true", "heartbeat_seconds": 1},
                headers={"Authorization": f"Bearer {keys[name]}"}) as response:
            frame: dict = {}
            for line in response.iter_lines():
                if line:
                    field, _, value = line.partition(": ")
                    frame[field] = value
                    continue
                frames[name].append(frame)
                frame = {}
                if sum(f["event"] == "match_update" for f in frames[name]) >= 2:
                    return

    threads = [threading.Thread(target=seek, args=(name,), daemon=True) for name in keys]
    for thread in threads:
        thread.start()
    def update_of(name: str, index: int = 0) -> dict | None:
        updates = [json.loads(f["data"]) for f in frames[name] if f["event"] == "match_update"]
        return updates[index] if len(updates) > index else None

    wait_for(lambda: update_of("north") and update_of("south"), timeout=60)
    matches = {name: json.loads(next(f["data"] for f in frames[name] if f["event"] == "match")) for name in keys}
    german = next(name for name, match in matches.items() if match["side"] == "german")
    soviet = next(name for name in keys if name != german)
    first = update_of(german)
    assert first["match_id"] == matches[german]["match_id"] and first["side_to_act"] == "german"
    assert first["legal_actions"]["actions"] and "legal_actions" not in update_of(soviet)
    reply = http.post(f"/v1/matches/{first['match_id']}/actions", json={
        "action": {"standard_setup": {}}, "expected_version": first["version"]},
        headers={"Authorization": f"Bearer {matches[german]['seat_token']}"})
    assert reply.status_code == 200, reply.text
    wait_for(lambda: update_of(german, 1) and update_of(soviet, 1), timeout=30)
    assert update_of(german, 1)["version"] == update_of(soviet, 1)["version"] == first["version"] + 1
    for thread in threads:
        thread.join(10)


def test_a_seat_is_watched_with_its_legal_actions_by_a_few_streams_at_once(service, client):
    """Each such watch is sent a position and a list of actions at every change: a seat token's holder may
    not multiply them past the process's limit (4)."""
    match, tokens = client.create_match(seats=["german"])
    with grpc.insecure_channel(service.target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        metadata = [("authorization", f"Bearer {tokens['german']}")]
        request = api.WatchMatchRequest(match_id=match.match_id, include_legal_actions=True)
        calls = [stub.WatchMatch(request, metadata=metadata) for _ in range(4)]
        for call in calls:
            next(call)  # open, and sending
        with pytest.raises(grpc.RpcError) as refused:
            next(stub.WatchMatch(request, metadata=metadata))
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "TOO_MANY_SEAT_WATCHES" in TyphoonError.from_rpc_error(refused.value).reason
        plain = stub.WatchMatch(api.WatchMatchRequest(match_id=match.match_id))  # without the actions: as before
        assert next(plain).WhichOneof("kind") == "event"
        calls[0].cancel()
        deadline = time.monotonic() + 10
        while True:  # the place comes back once the server sees the stream gone
            try:
                assert next(stub.WatchMatch(request, metadata=metadata)).WhichOneof("kind") == "event"
                break
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and time.monotonic() < deadline
                time.sleep(0.2)
        for call in [*calls, plain]:
            call.cancel()


def test_a_bot_stream_of_updates_only_gets_one_message_a_change_and_resumes_from_them(service, client, http):
    """``updates_only`` (what typhoon bot asks for): no log entry, one update a change with the seat's
    legal actions when it is to act; resumed from an update's last_sequence it misses no change. Over
    gRPC and as server-sent events."""
    match, tokens = client.create_match(seats=["german", "soviet"])
    stub = match_service_pb2_grpc.MatchServiceStub(client.channel)
    call = stub.WatchMatch(api.WatchMatchRequest(match_id=match.match_id, include_legal_actions=True,
                                                 updates_only=True, heartbeat_seconds=30),
                           metadata=[("authorization", f"Bearer {tokens['german']}")])
    responses = iter(call)
    first = next(responses)
    assert first.WhichOneof("kind") == "update"  # the catch-up's entries are not sent, its update is
    assert first.update.side_to_act == "german" and first.update.HasField("legal_actions")
    versions = [first.update.version]
    for _ in range(3):
        legal = client.legal_actions(match.match_id)
        client.submit(match.match_id, tokens[legal.side_to_act], legal.actions[0], expected_version=legal.version)
        response = next(responses)
        assert response.WhichOneof("kind") == "update", response  # one message for the whole change
        assert response.update.version == legal.version + 1
        assert response.update.last_sequence == client.get_match(match.match_id).match.last_sequence
        versions.append(response.update.version)
    call.cancel()
    assert versions == list(range(versions[0], versions[0] + 4))
    resume_from = response.update.last_sequence
    legal = client.legal_actions(match.match_id)
    client.submit(match.match_id, tokens[legal.side_to_act], legal.actions[0], expected_version=legal.version)
    with http.stream("GET", f"/v1/matches/{match.match_id}/watch",
                     params={"after_sequence": resume_from, "updates_only": "true"}) as response:
        kinds = []
        for line in response.iter_lines():
            if line.startswith("event: "):
                kinds.append(line[len("event: "):])
            if line.startswith("data: ") and kinds[-1] == "match_update":
                data = json.loads(line[len("data: "):])
                break
    assert kinds == ["match_update"] and data["version"] == legal.version + 1  # the change made meanwhile
    # the client's watch of updates only keeps its cursor from them
    watch = client.watch(match.match_id, after_sequence=resume_from, updates_only=True)
    update = next(iter(watch))
    assert isinstance(update, api.MatchUpdate) and watch.cursor == update.last_sequence
    watch.close()
