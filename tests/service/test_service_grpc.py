"""The service over real gRPC against a real Redis: a complete game, seats, listing, health, reflection."""

from __future__ import annotations

import hashlib
import json

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

import engine
from clients.client import TyphoonError
from clients.demo import verify
from service.gen.typhoon.v1 import match_pb2

from service_helpers import play_random


def test_a_complete_game_over_grpc(client):
    match, tokens = client.create_match("standard")
    assert match.status == match_pb2.MATCH_STATUS_OPEN and match.version == 0 and not match.seed
    assert len(match.seed_commitment) == 64
    german = client.join_match(match.match_id, "german", "G")
    soviet = client.join_match(match.match_id, "soviet", "S")
    assert client.get_match(match.match_id).match.status == match_pb2.MATCH_STATUS_ACTIVE

    played = play_random(client, match.match_id, {"german": german.token, "soviet": soviet.token}, seed="grpc")

    final = client.get_match(match.match_id)
    assert final.match.status == match_pb2.MATCH_STATUS_FINISHED
    assert final.match.version == played and final.match.side_to_act == ""
    assert final.match.result.winner in ("german", "soviet", "draw")
    assert final.state.result == final.match.result
    # the seed is revealed, matches the commitment published at creation, and drives every roll
    assert hashlib.sha256(final.match.seed.encode()).hexdigest() == match.seed_commitment
    assert json.loads(final.state.position_json)["seed"] == final.match.seed
    log = list(client.event_log(match.match_id, page_size=50))
    assert [e.sequence for e in log] == list(range(1, final.match.last_sequence + 1))
    assert log[0].WhichOneof("kind") == "match_created" and log[-1].WhichOneof("kind") == "seed_revealed"
    assert sum(e.WhichOneof("kind") == "action_submitted" for e in log) == played
    last_action = [e for e in log if e.WhichOneof("kind") == "action_submitted"][-1]
    assert last_action.action_submitted.state_hash == final.state.state_hash
    assert "replaying the log gives the same game" in verify(client, match.match_id)
    with pytest.raises(TyphoonError) as refused:
        client.submit(match.match_id, german.token, engine.EndPhase())
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION and refused.value.reason == "GAME_OVER"


def test_the_seed_stays_secret_while_the_match_runs(client):
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
    got = client.get_match(match.match_id)
    assert got.match.seed == ""
    assert "seed" not in json.loads(got.state.position_json)
    assert all(e.WhichOneof("kind") != "seed_revealed" for e in client.event_log(match.match_id))
    game = engine.game_from_position(json.loads(got.state.position_json))  # a client can rebuild the position
    assert game.turn == got.state.turn and game.phase.name == got.state.phase


def test_game_state_mirrors_the_engine(client):
    match, tokens = client.create_match(options={"victory": "moscow"}, seats=[("german", "Guderian")])
    assert match.options["victory"] == "moscow"
    response = client.submit(match.match_id, tokens["german"], engine.StandardSetup(), expected_version=0)
    assert response.version == 1 and response.match.version == 1
    kinds = [e.WhichOneof("kind") for e in response.events]
    assert kinds[0] == "action_submitted" and set(kinds[1:]) == {"game_event"}
    state = client.get_match(match.match_id).state
    reference = engine.new_game("standard", {"victory": "moscow"}, seed="any")
    reference.apply(engine.StandardSetup())
    assert state.turn == reference.turn and state.phase == reference.phase.name
    assert state.side_to_act == "german" and state.weather == reference.weather().id
    assert {(u.id, u.hex, u.strength) for u in state.units} == {
        (u["id"], u["hex"], u["strength"]) for u in reference.to_json()["units"]}
    assert dict(state.victory_points) == reference.victory_points()
    legal = client.legal_actions(match.match_id)
    assert legal.version == 1 and legal.side_to_act == "german"
    assert len(legal.actions) == len(reference.legal_actions())


def test_seats(client):
    match, _ = client.create_match()
    first = client.join_match(match.match_id)  # any free seat: the first in side order
    assert first.side == "german" and first.token
    with pytest.raises(TyphoonError) as taken:
        client.join_match(match.match_id, "german")
    assert taken.value.code == grpc.StatusCode.ALREADY_EXISTS and taken.value.reason == "SEAT_TAKEN"
    second = client.join_match(match.match_id, player_name="Zhukov")
    assert second.side == "soviet" and second.token != first.token
    with pytest.raises(TyphoonError) as full:
        client.join_match(match.match_id)
    assert full.value.reason == "NO_FREE_SEAT"
    with pytest.raises(TyphoonError) as bad:
        client.join_match(match.match_id, "finnish")
    assert bad.value.code == grpc.StatusCode.INVALID_ARGUMENT and bad.value.reason == "UNKNOWN_SIDE"
    got = client.get_match(match.match_id).match
    assert [(s.side, s.claimed, s.player_name) for s in got.seats] == [("german", True, ""), ("soviet", True, "Zhukov")]
    assert first.token not in str(got) and second.token not in str(got)
    claims = [e.seat_claimed.side for e in client.event_log(match.match_id) if e.WhichOneof("kind") == "seat_claimed"]
    assert claims == ["german", "soviet"]


def test_create_match_refusals(client):
    with pytest.raises(TyphoonError) as option:
        client.create_match(options={"victory": "chess"})
    assert option.value.code == grpc.StatusCode.INVALID_ARGUMENT and option.value.reason == "OPTION_UNAVAILABLE"
    with pytest.raises(TyphoonError) as scenario:
        client.create_match("kursk")
    assert scenario.value.reason == "UNKNOWN_SCENARIO"
    with pytest.raises(TyphoonError) as twice:
        client.create_match(seats=["german", "german"])
    assert twice.value.reason == "DUPLICATE_SEAT"


def test_list_matches_pages_newest_first_and_filters(client):
    ids = [client.create_match()[0].match_id for _ in range(3)]
    finished, tokens = client.create_match(seats=["german"])
    client.resign(finished.match_id, tokens["german"])
    seen, token = [], ""
    while True:
        page = client.list_matches(page_size=2, page_token=token)
        seen += [m.match_id for m in page.matches]
        token = page.next_page_token
        if not token or len(seen) > 200:
            break
    assert seen.index(finished.match_id) < seen.index(ids[2]) < seen.index(ids[1]) < seen.index(ids[0])
    assert len(seen) == len(set(seen))
    done = client.list_matches(status=match_pb2.MATCH_STATUS_FINISHED, page_size=100)
    assert finished.match_id in [m.match_id for m in done.matches]
    assert all(m.status == match_pb2.MATCH_STATUS_FINISHED for m in done.matches)
    assert done.matches[0].result.reason == "german resigned"
    with pytest.raises(TyphoonError) as late:
        client.join_match(finished.match_id, "soviet")
    assert (late.value.code, late.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_FINISHED")


def test_list_matches_pages_along_the_index_whatever_a_meta_says(client, redis_url):
    """A page ends at an index entry: a meta whose created_at differs from its entry (a repaired or
    migrated match) must not send the next page elsewhere in the index, skipping matches."""
    import redis

    from service.store.match_store import key

    ids = [client.create_match()[0].match_id for _ in range(5)]
    store = redis.Redis.from_url(redis_url)
    store.hset(key(ids[2], "meta"), "created_at", 1)  # as if created in 1970; its index entry is today's
    store.close()
    seen, token = [], ""
    while True:
        page = client.list_matches(page_size=1, page_token=token)
        seen += [m.match_id for m in page.matches]
        token = page.next_page_token
        if not token or set(ids) <= set(seen):
            break
    assert set(ids) <= set(seen)


def test_resign(client):
    match, tokens = client.create_match(seats=["german", "soviet"])
    response = client.resign(match.match_id, tokens["soviet"])  # not the side to act: allowed
    kinds = [e.WhichOneof("kind") for e in response.events]
    assert kinds[0] == "action_submitted" and kinds[-1] == "seed_revealed"
    assert response.events[0].action_submitted.action.resign.side == "soviet"
    assert response.match.result.winner == "german" and response.match.seed


def test_health_and_reflection(service):
    with grpc.insecure_channel(service.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", "typhoon.v1.MatchService"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=30)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        database = ProtoReflectionDescriptorDatabase(channel)
        assert "typhoon.v1.MatchService" in database.get_services()
        described = database.FindFileContainingSymbol("typhoon.v1.MatchService")
        assert described.name == "typhoon/v1/match_service.proto"


def test_unknown_match(client):
    for call in (lambda: client.get_match("nosuchmatch"), lambda: client.legal_actions("nosuchmatch"),
                 lambda: list(client.event_log("nosuchmatch")), lambda: client.join_match("no-such-match!")):
        with pytest.raises(TyphoonError) as missing:
            call()
        assert missing.value.code == grpc.StatusCode.NOT_FOUND and missing.value.reason == "MATCH_NOT_FOUND"


def test_a_filtered_page_that_ends_on_the_index_last_entries_keeps_the_ones_it_could_not_take(tmp_path):
    """The index (newest first): active, active, finished, active, active. Three active a page: the first
    index page (3 entries) gives two, the next (the last 2) one more, and the last active one must come
    on the following page, not be dropped because the index had nothing after it."""
    import asyncio

    from service.gen.typhoon.v1 import match_service_pb2 as api
    from service.match.core import CallContext, MatchService
    from service.store.embedded_redis import EmbeddedRedis
    from service.store.match_store import Store

    async def scenario(redis_url: str) -> tuple[list[str], list[str]]:
        store = Store.from_url(redis_url)
        service = MatchService(store)
        both = [api.SeatClaim(side="german"), api.SeatClaim(side="soviet")]
        try:
            created = []
            for number in range(5):  # oldest first; the third is over
                answer = await service.create_match(api.CreateMatchRequest(seats=both), CallContext())
                created.append(answer.match.match_id)
                if number == 2:
                    await service.resign(api.ResignRequest(match_id=created[-1]),
                                         CallContext(token=answer.seat_tokens[0].token))
                await asyncio.sleep(0.002)  # distinct creation times: the index's order
            active, token = [], ""
            for _ in range(5):
                page = await service.list_matches(api.ListMatchesRequest(
                    status=match_pb2.MATCH_STATUS_ACTIVE, page_size=3, page_token=token), CallContext())
                active += [match.match_id for match in page.matches]
                token = page.next_page_token
                if not token:
                    break
            return active, created
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path) as redis_url:
        active, created = asyncio.run(scenario(redis_url))
    assert active == [created[4], created[3], created[1], created[0]]
