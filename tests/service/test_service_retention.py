"""Retention (service/upkeep/retention.py): with ``--retention-days N`` the sweep deletes the matches over for
more than N days, every key and their ListMatches entry, and keeps every other match; on a real Redis,
with the service running."""

from __future__ import annotations

import asyncio

import pytest
import redis
from prometheus_client import REGISTRY

import engine
from clients.client import TyphoonError
from service.run.admin import abort_match
from service.store.match_store import DAY_MS, INDEX_KEY, Store, key
from service.upkeep.compaction import CompactionSweep
from service.upkeep.retention import Retention

from service_helpers import wait_for, wait_until_unlocked


@pytest.fixture()
def store(redis_url):
    connection = redis.Redis.from_url(redis_url, decode_responses=True)
    yield connection
    connection.close()


def age(store: redis.Redis, match_id: str, created_days: float, changed_days: float) -> None:
    """What time leaves in Redis: the match created ``created_days`` ago, last changed ``changed_days`` ago."""
    meta = key(match_id, "meta")
    created = int(store.hget(meta, "created_at"))
    old_created, old_changed = created - round(created_days * DAY_MS), created - round(changed_days * DAY_MS)
    store.hset(meta, mapping={"created_at": old_created, "updated_at": old_changed})
    store.zrem(INDEX_KEY, f"{created:015d}:{match_id}")
    store.zadd(INDEX_KEY, {f"{old_created:015d}:{match_id}": 0})


def sweep(redis_url: str, days: float) -> int:
    """One pass of the sweep with ``--retention-days days``: the matches it deleted."""
    async def run() -> int:
        service_store = Store.from_url(redis_url)
        try:
            wait_until_unlocked(redis_url)
            retention = Retention.for_days(service_store, days)
            await CompactionSweep(service_store, retention=retention).sweep()
            return retention.deleted
        finally:
            await service_store.close()

    return asyncio.run(run())


def aborted(redis_url: str, match_id: str) -> None:
    async def run() -> None:
        service_store = Store.from_url(redis_url)
        try:
            assert await abort_match(service_store, match_id, "the players left") == "aborted"
        finally:
            await service_store.close()

    asyncio.run(run())


def resigned(client) -> str:
    match, tokens = client.create_match(seats=["german", "soviet"])
    client.submit(match.match_id, tokens["german"], engine.StandardSetup())
    client.resign(match.match_id, tokens["soviet"])
    return match.match_id


def listed(client) -> set[str]:
    """Every match ListMatches gives, page by page."""
    ids, token = set(), ""
    while True:
        page = client.list_matches(page_size=100, page_token=token)
        ids |= {m.match_id for m in page.matches}
        token = page.next_page_token
        if not token:
            return ids


def test_matches_over_for_longer_than_the_retention_are_deleted_and_the_others_kept(client, redis_url, store):
    finished_long_ago = resigned(client)
    age(store, finished_long_ago, created_days=120, changed_days=100)
    aborted_long_ago, _ = client.create_match(seats=["german", "soviet"])
    aborted(redis_url, aborted_long_ago.match_id)
    age(store, aborted_long_ago.match_id, created_days=95, changed_days=91)
    finished_lately = resigned(client)  # created long ago, but over for 10 days only
    age(store, finished_lately, created_days=150, changed_days=10)
    live_since_long, tokens = client.create_match(seats=["german", "soviet"])  # live: kept however old
    age(store, live_since_long.match_id, created_days=200, changed_days=1)
    finished_now = resigned(client)
    for match_id in (finished_long_ago, aborted_long_ago.match_id, finished_lately):
        wait_for(lambda: store.exists(key(match_id, "archive")), 30)  # compacted: the sweep finds them so
    kept = {finished_lately, live_since_long.match_id, finished_now}
    kept_answers = {match_id: client.get_match(match_id) for match_id in kept}

    counted = REGISTRY.get_sample_value("typhoon_swept_matches_total", {"what": "deleted"}) or 0.0
    assert sweep(redis_url, days=90) == 2
    assert REGISTRY.get_sample_value("typhoon_swept_matches_total", {"what": "deleted"}) == counted + 2

    for match_id in (finished_long_ago, aborted_long_ago.match_id):
        assert not store.keys(key(match_id, "*"))
        with pytest.raises(TyphoonError) as unknown:
            client.get_match(match_id)
        assert unknown.value.reason == "MATCH_NOT_FOUND"
        with pytest.raises(TyphoonError):
            list(client.event_log(match_id))
    assert not listed(client) & {finished_long_ago, aborted_long_ago.match_id}
    assert kept <= listed(client)
    assert {match_id: client.get_match(match_id) for match_id in kept} == kept_answers
    client.submit(live_since_long.match_id, tokens["german"], engine.StandardSetup())  # still played
    assert sweep(redis_url, days=90) == 0  # nothing more; the kept ones are looked at again, left again


def test_an_index_entry_left_without_its_match_is_removed_and_not_counted(redis_url, store):
    left = f"{1_000_000_000_000:015d}:nosuchmatchleft"  # a deletion that stopped before its index step
    store.zadd(INDEX_KEY, {left: 0})
    assert sweep(redis_url, days=90) == 0
    assert store.zscore(INDEX_KEY, left) is None


def test_without_a_retention_nothing_is_deleted(client, redis_url, store):
    match_id = resigned(client)
    age(store, match_id, created_days=3650, changed_days=3650)
    assert Retention.for_days(None, 0) is None  # --retention-days 0, the default

    async def run() -> None:
        sweep_store = Store.from_url(redis_url)
        try:
            await CompactionSweep(sweep_store).sweep()
        finally:
            await sweep_store.close()

    asyncio.run(run())
    assert client.get_match(match_id).match.match_id == match_id
