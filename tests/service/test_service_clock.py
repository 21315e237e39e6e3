"""Clocks: time controls, flag falls the service enforces by itself, aborts, and the log that proves them;
on a single Redis and on a Redis Cluster (the ``backend`` fixture)."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import replace

import grpc
import pytest

import engine
from clients.client import TyphoonClient, TyphoonError, as_time_control, time_left
from clients.replay import fetch_log, verify_log
from service.gen.typhoon.v1 import match_pb2
from service.match.clock import PRESETS, TimeControl
from service.store.deadlines import LEGACY_KEY, shard_key, slot
from service.store.match_store import key

from service_helpers import ServiceProcess, bounded, wait_for

FINISHED, ABORTED = match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_ABORTED


@pytest.fixture(scope="module")
def service(backend_service):
    return backend_service


@pytest.fixture(scope="module")
def service_b(backend_service_b):
    return backend_service_b


def control(initial: float, increment: float = 0.0, first_action: float = 30.0) -> match_pb2.TimeControl:
    message = as_time_control(f"{initial}+{increment}")
    message.first_action.FromMilliseconds(round(first_action * 1000))
    return message


def ended(client: TyphoonClient, match_id: str, timeout: float = 15.0) -> match_pb2.Match:
    return wait_for(lambda: (m := client.get_match(match_id).match).status in (FINISHED, ABORTED) and m, timeout)


def kinds(client: TyphoonClient, match_id: str) -> list[str]:
    return [e.WhichOneof("kind") for e in client.event_log(match_id)]


def verified(client: TyphoonClient, match_id: str) -> None:
    report = verify_log(fetch_log(client, match_id), match_id=match_id, final=client.get_match(match_id))
    assert report.ok, report.text()
    assert report.time_control


def test_presets_are_listed_and_bad_time_controls_refused(client, http):
    presets = {c.preset: c for c in client.list_scenarios().time_controls}
    assert {"bullet", "blitz", "rapid", "classical"} <= presets.keys()
    assert presets["blitz"].initial.seconds == 300
    for bad, reason in [(match_pb2.TimeControl(preset="armageddon"), "UNKNOWN_TIME_CONTROL"),
                        (match_pb2.TimeControl(), "BAD_TIME_CONTROL"),
                        (match_pb2.TimeControl(preset="blitz", initial={"seconds": 9}), "BAD_TIME_CONTROL"),
                        (match_pb2.TimeControl(initial={"nanos": 5_000_000}), "BAD_TIME_CONTROL"),
                        (match_pb2.TimeControl(initial={"seconds": 60}, increment={"seconds": -1}), "BAD_TIME_CONTROL")]:
        with pytest.raises(TyphoonError) as refused:
            client.create_match(time_control=bad)
        assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
    # REST: durations are strings in seconds
    reply = http.post("/v1/matches", json={"time_control": {"initial": "90s", "increment": "0.5s"}})
    assert reply.status_code == 200, reply.text
    match = reply.json()["match"]
    assert match["time_control"]["initial"] == "90s" and match["time_control"]["first_action"] == "60s"
    assert match["clock"]["running"] == "german" and match["clock"]["awaiting_first_action"] is True
    assert match["clock"]["remaining"] == {"german": "90s", "soviet": "90s"}
    schema = http.get("/openapi.json").json()["components"]["schemas"]
    assert schema["TimeControl"]["properties"]["initial"]["type"] == "string"
    assert "time_left" in schema["MatchEvent.ActionSubmitted"]["properties"]


def test_a_time_control_asks_for_itself_as_a_request_the_service_takes(client):
    """What the ladder sends to create its matches: a preset by its name (with the ladder's first-action
    time), other times as times; the match created has the same time control."""
    for wanted, preset in ((PRESETS["blitz"], "blitz"), (replace(PRESETS["bullet"], first_action_ms=15_000), "bullet"),
                           (TimeControl(90_000, 500), ""), (replace(PRESETS["rapid"], increment_ms=1_000), "")):
        request = wanted.to_request()
        assert request.preset == preset
        match, _ = client.create_match(time_control=request)
        created = match.time_control
        assert (created.preset, created.initial.ToMilliseconds(), created.increment.ToMilliseconds(),
                created.first_action.ToMilliseconds()) == (
            preset, wanted.initial_ms, wanted.increment_ms, wanted.first_action_ms), request


def test_the_clock_of_the_side_to_act_runs_and_every_action_records_the_time_left(client):
    match, tokens = client.create_match(seats=["german", "soviet"], time_control=control(60, 2))
    assert not match.HasField("result") and match.clock.running == "german" and match.clock.awaiting_first_action
    response = client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    submitted = response.events[0].action_submitted
    # the first action: no time charged (the first-action time ran), then the increment
    assert {s: v.ToMilliseconds() for s, v in submitted.time_left.items()} == {"german": 62_000, "soviet": 60_000}
    clock = response.match.clock
    assert clock.running == "german" and not clock.awaiting_first_action
    assert clock.deadline.ToMilliseconds() == clock.since.ToMilliseconds() + 62_000
    assert 61 < time_left(response.match)["german"] <= 62
    chooser = random.Random(3)
    while True:  # the German player turn, then the Soviet side's first action
        legal = client.legal_actions(match.match_id)
        response = client.submit(match.match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                                 expected_version=legal.version)
        if legal.side_to_act == "soviet":
            break
        if response.match.clock.running == "soviet":
            assert response.match.clock.awaiting_first_action
    assert response.events[0].action_submitted.time_left["soviet"].ToMilliseconds() == 62_000
    left = response.events[0].action_submitted.time_left["german"].ToMilliseconds()
    assert 40_000 < left <= 62_000 + 2_000 * response.version  # charged its time, plus the increments
    client.resign(match.match_id, tokens["german"])
    final = client.get_match(match.match_id).match
    assert final.clock.running == "" and not final.clock.HasField("deadline")
    verified(client, match.match_id)


def test_the_flag_falls_with_nobody_calling_and_the_log_proves_it(client):
    match, tokens = client.create_match(seats=["german", "soviet"], time_control=control(1, 0))
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    final = ended(client, match.match_id)
    assert final.status == FINISHED
    assert (final.result.winner, final.result.reason) == ("soviet", "time")
    assert final.clock.remaining["german"].ToMilliseconds() == 0
    assert kinds(client, match.match_id)[-3:] == ["action_submitted", "game_event", "seed_revealed"]
    forfeit = [e for e in client.event_log(match.match_id) if e.WhichOneof("kind") == "action_submitted"][-1]
    assert forfeit.action_submitted.action.time_forfeit.side == "german"
    with pytest.raises(TyphoonError) as late:
        client.submit(match.match_id, tokens["german"], engine.EndPhase())
    assert (late.value.code, late.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    verified(client, match.match_id)


def test_a_match_with_clocks_keeps_its_deadline_in_its_own_slot(backend, client):
    """Its commits write the deadline in the script that writes the match: on a Cluster, one slot."""
    match, _ = client.create_match(seats=["german", "soviet"], time_control=control(60))
    assert slot(key(match.match_id, "meta")) == slot(shard_key(match.match_id))
    deadline = backend.client().zscore(shard_key(match.match_id), match.match_id)
    assert deadline == client.get_match(match.match_id).match.clock.deadline.ToMilliseconds()


def test_a_deadline_in_the_set_of_older_versions_still_makes_its_flag_fall(backend, client):
    if backend.cluster:
        pytest.skip("older versions refused clocks on a Redis Cluster")
    match, tokens = client.create_match(seats=["german", "soviet"], time_control=control(1, 0))
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    redis = backend.client()
    deadline = redis.zscore(shard_key(match.match_id), match.match_id)
    redis.zrem(shard_key(match.match_id), match.match_id)  # as an older version left it
    redis.zadd(LEGACY_KEY, {match.match_id: deadline})
    final = ended(client, match.match_id)
    assert (final.result.winner, final.result.reason) == ("soviet", "time")
    deadline = time.monotonic() + 60  # the sweeper forgets the old entry just after the flag's commit
    while redis.zscore(LEGACY_KEY, match.match_id) is not None:
        assert time.monotonic() < deadline, "the older versions' entry outlived its flag"
        time.sleep(0.05)
    assert redis.zscore(shard_key(match.match_id), match.match_id) is None


def test_no_first_action_in_time_aborts_the_match(client, http):
    match, tokens = client.create_match(seats=["german"], time_control=control(60, 0, first_action=1))
    final = ended(client, match.match_id)
    assert final.status == ABORTED and not final.HasField("result") and final.side_to_act == ""
    assert kinds(client, match.match_id)[-2:] == ["match_aborted", "seed_revealed"]
    assert final.seed  # revealed, as at any end
    assert not client.legal_actions(match.match_id).side_to_act
    with pytest.raises(TyphoonError) as refused:
        client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    assert refused.value.reason == "MATCH_ABORTED"
    with pytest.raises(TyphoonError) as refused:
        client.join_match(match.match_id, "soviet")
    assert refused.value.reason == "MATCH_FINISHED"
    assert http.get("/v1/matches", params={"status": "MATCH_STATUS_ABORTED"}).json()["matches"]
    assert list(bounded(client.watch(match.match_id), "the watch of a finished match"))[-1].WhichOneof("kind") == "seed_revealed"  # watchers end
    verified(client, match.match_id)


def test_a_seat_cannot_submit_a_time_forfeit(client):
    match, tokens = client.create_match(seats=["german"], time_control=control(60))
    with pytest.raises(TyphoonError) as refused:
        client.submit(match.match_id, tokens["german"], engine.TimeForfeit("german"))
    assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "SERVICE_ACTION")


def test_moves_racing_the_flag_from_two_processes_end_each_match_once(service, service_b):
    """Both seats of every match act as fast as they can through two service processes while the
    clocks run out: whatever wins each race, every match ends exactly once, no action is accepted
    after its side's time ran out, and the log verifies (clocks recomputed)."""
    clients = [service.client(), service_b.client()]
    matches = []
    for _ in range(6):
        # 1 s a side for the whole game, no increment: random play needs ~250 actions a side, several
        # seconds of its clock even on a quiet machine (with 0.01 s a move, all six once ended on points)
        match, tokens = clients[0].create_match(seats=["german", "soviet"], time_control=control(1))
        matches.append((match.match_id, tokens))

    def hammer(client: TyphoonClient, match_id: str, tokens: dict[str, str], seed: int) -> None:
        chooser = random.Random(seed)
        while True:
            legal = client.legal_actions(match_id)
            if not legal.side_to_act or not legal.actions:
                return
            try:
                client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions))
            except TyphoonError:
                pass  # the other process acted first, or the flag fell

    threads = [threading.Thread(target=hammer, args=(clients[i % 2], match_id, tokens, i), daemon=True)
               for i, (match_id, tokens) in enumerate(matches * 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    reasons = []
    for match_id, _ in matches:
        final = ended(clients[0], match_id)
        assert final.status == FINISHED
        reasons.append(final.result.reason)
        log = kinds(clients[0], match_id)
        assert log.count("seed_revealed") == 1 and log[-1] == "seed_revealed"
        verified(clients[0], match_id)
    assert "time" in reasons
    for client in clients:
        client.close()


def test_flags_fall_when_a_service_process_dies_and_after_every_process_restarts(backend, tmp_path):
    redis = backend.fresh(tmp_path / "redis")  # of its own: no other service process sweeps it
    first, second = ServiceProcess(*redis.serve_args).start(), ServiceProcess(*redis.serve_args).start()
    try:
        client = TyphoonClient(first.target, retries=0)
        match, tokens = client.create_match(seats=["german", "soviet"], time_control=control(2, 0))
        client.submit(match.match_id, tokens["german"], engine.StandardSetup())
        client.close()
        first.process.kill()  # no shutdown: whatever it held (a sweep lease) is left behind
        first.process.wait()
        with second.client() as other:
            assert ended(other, match.match_id).result.reason == "time"
            # every process down while a deadline passes: the next one to start enforces it
            late, late_tokens = other.create_match(seats=["german"], time_control=control(1, 0))
            other.submit(late.match_id, late_tokens["german"], engine.StandardSetup())
        second.stop()
        third = ServiceProcess(*redis.serve_args).start()
        try:
            with third.client() as client:
                final = ended(client, late.match_id)
                assert (final.result.winner, final.result.reason) == ("soviet", "time")
                verified(client, late.match_id)
        finally:
            third.stop()
    finally:
        first.stop()
        second.stop()
        redis.stop()
