"""Abandoned matches end, so what Redis holds stays bounded.

A match without a time control waits for its players for ever: one whose players left (a bot that
crashed, a page closed for good) would stay live in Redis with its whole event stream (120-240 KB)
for as long as Redis lives. ``typhoon serve --abandon-after-days N`` (30 by default, 0: never) ends
every live match in which nothing happened for N days, as an operator's ``typhoon admin abort``
does: ``match_aborted`` (no side blamed, marked by the operator, with the reason below), then
``seed_revealed``, in one commit that a player's action in the meantime refuses
(:func:`service.match.clock.end_without_result`); the match is then compacted like any match that is over.
The compaction sweep (``service.upkeep.compaction``) calls it for each live match it meets, hourly.

A match with a time control ends by its clock long before, unless its clock allows more than N days.
"""

from __future__ import annotations

import structlog

from service import metrics
from service.match.clock import end_without_result
from service.store.match_store import DAY_MS, LIVE, Store, key, text_of

log = structlog.get_logger("typhoon.abandoned")

#: Days without a change after which a live match is ended (``typhoon serve --abandon-after-days``).
DEFAULT_DAYS = 30.0


def reason(idle_ms: int) -> str:
    """The sentence the log keeps.

    >>> reason(30 * DAY_MS)
    'abandoned: nothing happened in the match for 30 days'
    >>> reason(DAY_MS // 2)
    'abandoned: nothing happened in the match for 12 hours'
    """
    if idle_ms >= DAY_MS:
        days = idle_ms / DAY_MS
        return f"abandoned: nothing happened in the match for {days:g} day{'s' if days != 1 else ''}"
    hours = idle_ms / 3_600_000
    if hours >= 1:
        return f"abandoned: nothing happened in the match for {hours:g} hour{'s' if hours != 1 else ''}"
    return f"abandoned: nothing happened in the match for {idle_ms / 1000:g} s"


class Abandonment:
    """Ends the live matches of ``store`` left for ``idle_ms`` (see the module): ``await
    Abandonment(store, 30 * DAY_MS).end_if_abandoned(match_id)``, True if it ended that one."""

    def __init__(self, store: Store, idle_ms: int) -> None:
        if idle_ms <= 0:
            raise ValueError("a match is abandoned after a positive time")
        self.store = store
        self.idle_ms = idle_ms
        self.ended = 0

    @classmethod
    def after_days(cls, store: Store, days: float) -> Abandonment | None:
        """The abandonment of ``typhoon serve --abandon-after-days`` (None for 0: never)."""
        return cls(store, round(days * DAY_MS)) if days > 0 else None

    async def end_if_abandoned(self, match_id: str) -> bool:
        """End the match if it is live and unchanged for ``idle_ms``; True if this call ended it."""
        status, changed = await self.store.redis.hmget(key(match_id, "meta"), ["status", "updated_at"])
        now = await self.store.time_ms()
        if text_of(status) not in LIVE or now - int(changed or 0) < self.idle_ms:
            return False  # the common case, told from two fields; the whole match is read only now
        snapshot = await self.store.load(match_id)  # it may have moved since: judged again on what is committed on
        if snapshot is None or snapshot.meta.get("status") not in LIVE:
            return False
        last_change = int(snapshot.meta.get("updated_at") or snapshot.meta.get("created_at") or 0)
        if now - last_change < self.idle_ms:
            return False
        if not await end_without_result(self.store, snapshot, now, "", reason(self.idle_ms), by_operator=True):
            return False  # it changed since it was read: someone is playing it
        log.info("match_abandoned", match_id=match_id, idle_ms=now - last_change)
        metrics.SWEPT.labels("abandoned").inc()
        self.ended += 1
        return True
