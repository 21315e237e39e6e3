"""The store's Redis connection pool, on a real Redis."""

from __future__ import annotations

import asyncio

from service.store import Store


def test_calls_wait_for_a_free_connection_instead_of_failing_when_all_are_busy(redis_url):
    async def scenario() -> list[object]:
        store = Store.from_url(redis_url, max_connections=2)
        try:
            busy = [store.redis.blpop(["typhoon:test:nothing"], timeout=0.3) for _ in range(2)]
            return await asyncio.gather(*busy, store.ping(), store.ping(), return_exceptions=True)
        finally:
            await store.close()

    assert asyncio.run(scenario()) == [None, None, True, True]
