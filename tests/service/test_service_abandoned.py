"""Abandoned matches (service/upkeep/abandoned.py): the sweep ends a live match in which nothing happened for
the service's ``--abandon-after-days``, as an operator's abort, and leaves every other match as it is;
on a real Redis, with the service running."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
import redis
from prometheus_client import REGISTRY

import engine
from clients.client import TyphoonError
from clients.replay import fetch_log, verify_log
from service.gen.typhoon.v1 import match_pb2, match_service_pb2 as api
from service.match.core import CallContext, MatchService
from service.processes import ROOT
from service.store.embedded_redis import EmbeddedRedis
from service.store.match_store import DAY_MS, INDEX_KEY, Store, StoredEvent, key, text_of
from service.upkeep.abandoned import Abandonment
from service.upkeep.compaction import CompactionSweep

from service_helpers import wait_for, wait_until_unlocked

REASON = "abandoned: nothing happened in the match for 30 days"


@pytest.fixture()
def store(redis_url):
    connection = redis.Redis.from_url(redis_url, decode_responses=True)
    yield connection
    connection.close()


def leave_for_days(store: redis.Redis, match_id: str, days: float) -> None:
    """What ``days`` without a change leave in Redis: the match's last change that long ago."""
    last = int(store.hget(key(match_id, "meta"), "updated_at"))
    store.hset(key(match_id, "meta"), mapping={"updated_at": last - round(days * DAY_MS),
                                                 "created_at": last - round(days * DAY_MS)})


def swept(what: str) -> float:
    return REGISTRY.get_sample_value("typhoon_swept_matches_total", {"what": what}) or 0.0


def sweep(redis_url: str, days: float = 30) -> None:
    """One pass of the compaction sweep with the abandonment of ``--abandon-after-days days`` (once the
    service's own sweep, which ends matches left 30 days as well, does not hold the sweep's lock)."""
    async def run() -> None:
        service_store = Store.from_url(redis_url)
        try:
            wait_until_unlocked(redis_url)
            await CompactionSweep(service_store, abandonment=Abandonment.after_days(service_store, days)).sweep()
        finally:
            await service_store.close()

    asyncio.run(run())


def test_a_match_left_for_longer_than_the_limit_is_ended_and_the_others_are_not(client, redis_url, store):
    left, left_tokens = client.create_match(seats=["german", "soviet"])
    client.submit(left.match_id, left_tokens["german"], engine.StandardSetup())
    leave_for_days(store, left.match_id, 31)
    never_joined, _ = client.create_match(seats=["german"])  # open: its soviet seat was never taken
    leave_for_days(store, never_joined.match_id, 45)
    recent, recent_tokens = client.create_match(seats=["german", "soviet"])  # played 29 days ago
    client.submit(recent.match_id, recent_tokens["german"], engine.StandardSetup())
    leave_for_days(store, recent.match_id, 29)
    finished, finished_tokens = client.create_match(seats=["german", "soviet"])
    client.resign(finished.match_id, finished_tokens["soviet"])
    leave_for_days(store, finished.match_id, 400)
    finished_before = client.get_match(finished.match_id)
    counted = swept("abandoned")

    sweep(redis_url)

    for match_id in (left.match_id, never_joined.match_id):
        final = client.get_match(match_id).match
        assert final.status == match_pb2.MATCH_STATUS_ABORTED and final.seed and not final.HasField("result")
        aborted, revealed = list(client.event_log(match_id))[-2:]
        assert (aborted.match_aborted.side, aborted.match_aborted.reason, aborted.match_aborted.by_operator) == \
            ("", REASON, True)
        assert revealed.seed_revealed.seed == final.seed
        report = verify_log(fetch_log(client, match_id), match_id=match_id, final=client.get_match(match_id))
        assert report.ok and report.aborted == f"by an operator of the service: {REASON}", report.text()
        wait_for(lambda: store.exists(key(match_id, "archive")) and not store.exists(key(match_id, "events")), 30)
    assert swept("abandoned") == counted + 2  # this process's sweep ended both (typhoon_swept_matches_total)
    with pytest.raises(TyphoonError) as refused:
        client.submit(left.match_id, left_tokens["soviet"], engine.EndPhase())
    assert refused.value.reason == "MATCH_ABORTED"

    assert client.get_match(recent.match_id).match.status == match_pb2.MATCH_STATUS_ACTIVE
    legal = client.legal_actions(recent.match_id)  # still played
    client.submit(recent.match_id, recent_tokens[legal.side_to_act], legal.actions[0])
    assert client.get_match(finished.match_id) == finished_before


def test_a_match_left_for_less_than_the_limit_is_not_ended(client, redis_url, store):
    match, _ = client.create_match(seats=["german", "soviet"])
    leave_for_days(store, match.match_id, 10)
    sweep(redis_url, days=10.5)
    assert client.get_match(match.match_id).match.status == match_pb2.MATCH_STATUS_ACTIVE  # both seats taken
    assert Abandonment.after_days(None, 0) is None  # --abandon-after-days 0: never


def test_the_sweep_counts_the_matches_redis_holds(client, redis_url, store):
    client.create_match(seats=["german", "soviet"])
    for _ in range(3):  # a match of another test may end between the sweep and the count: sweep again
        sweep(redis_url)
        live = sum(store.hget(k.replace(":events", ":meta"), "status") in ("open", "active")
                   for k in store.scan_iter(match=key("*", "events")))
        held = {"live": live, "over": store.zcard(INDEX_KEY) - live}
        gauge = {state: REGISTRY.get_sample_value("typhoon_stored_matches", {"state": state}) for state in held}
        if gauge == held:
            break
    assert gauge == held and live >= 1  # typhoon_stored_matches: what Redis holds, as the sweep left it


@pytest.mark.parametrize("option", ["--abandon-after-days", "--retention-days"])
def test_serve_refuses_a_negative_number_of_days(option):
    done = subprocess.run([sys.executable, "-m", "clients.cli", "serve", option, "-1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stdout.strip() == f"typhoon serve: {option}: a number of days, or 0 for never"


def test_a_match_record_the_sweep_cannot_read_is_skipped_and_the_others_are_still_swept(tmp_path):
    """A record no service wrote (here: live, left for a year, without a seed or players) fails its own
    sweep, not the pass: the matches scanned after it are ended as before; ListMatches leaves it out
    instead of failing the page."""
    async def scenario(redis_url: str) -> tuple[str | None, str | None]:
        store = Store.from_url(redis_url)
        try:
            long_ago = await store.time_ms() - 365 * DAY_MS
            for match_id in ("broken-a", "broken-b"):  # two, so the scan meets one before the real match, whatever its order
                assert await store.create(match_id, {"id": match_id, "status": "active", "version": "0",
                                                     "updated_at": str(long_ago), "created_at": str(long_ago)},
                                          '{"s":0}', 0, [StoredEvent(1, 0, long_ago, "service", {"type": "x"})],
                                          long_ago)
            created = await MatchService(store).create_match(
                api.CreateMatchRequest(scenario="standard", seats=[api.SeatClaim(side="german"), api.SeatClaim(side="soviet")]),
                CallContext())
            real = created.match.match_id
            await store.redis.hset(key(real, "meta"), mapping={"updated_at": long_ago, "created_at": long_ago})
            sweeper = CompactionSweep(store, abandonment=Abandonment(store, DAY_MS))
            await sweeper.sweep()
            listed = await MatchService(store).list_matches(api.ListMatchesRequest(page_size=10), CallContext())
            assert [match.match_id for match in listed.matches] == [real]  # ListMatches skips them too
            return (await store.redis.hget(key(real, "meta"), "status"),
                    await store.redis.hget(key("broken-a", "meta"), "status"))
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path) as redis_url:
        real_status, broken_status = asyncio.run(scenario(redis_url))
    assert (text_of(real_status), text_of(broken_status)) == ("aborted", "active")
