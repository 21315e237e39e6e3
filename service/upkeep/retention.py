"""Matches over for longer than the service keeps them are deleted, so Redis holds a bounded number.

A match that is over stays in Redis, compacted (~36 KB: ``deploy/README.md``), for ``GetMatch``,
``GetEventLog``, ``WatchMatch``, replays and audits. By default it stays for good; ``typhoon serve
--retention-days N`` deletes every match over (finished or aborted) for more than N days: its keys
and its entry in the ``ListMatches`` index, in one script per match that checks again that it is
over and unchanged since then. Afterwards it is unknown (``NOT_FOUND``), as if it had never been; an
operator who must keep some logs exports them first (``typhoon replay export``). The hourly sweep
(``service.upkeep.compaction``) runs it, oldest matches first: the index is ordered by creation, so the
walk stops at the first match created within the last N days, and its cost grows with the matches
created before that and kept (live, or ended within N days), not with every match ever played.
"""

from __future__ import annotations

import structlog

from service import metrics
from service.store.lean_redis import Script
from service.store.match_store import DAY_MS, ENDED, INDEX_KEY, Store, key, text_of

log = structlog.get_logger("typhoon.retention")

#: Index entries read per round trip.
CHUNK = 500
#: The keys a match may have (``service.store.match_store``).
MATCH_KEYS = ("meta", "state", "events", "requests", "archive", "request-archive")

_DELETE = """
-- KEYS: meta, then the match's other keys. ARGV: the latest updated_at (ms) deleted, the ended statuses...
-- Returns the keys deleted, 0 for a match kept, -1 for none (an index entry left by a deletion that
-- stopped before removing it).
local status, updated = unpack(redis.call('HMGET', KEYS[1], 'status', 'updated_at'))
if not status then return -1 end
local over = false
for i = 2, #ARGV do if status == ARGV[i] then over = true end end
if not over or not tonumber(updated) or tonumber(updated) > tonumber(ARGV[1]) then return 0 end  -- undated: kept
return redis.call('DEL', unpack(KEYS))
"""


class Retention:
    """Deletes the matches of ``store`` over for more than ``keep_ms`` (see the module): ``await
    Retention(store, 90 * DAY_MS).sweep()``, the number it deleted."""

    def __init__(self, store: Store, keep_ms: int) -> None:
        if keep_ms <= 0:
            raise ValueError("matches are kept for a positive time")
        self.store = store
        self.keep_ms = keep_ms
        self.deleted = 0
        self._delete = Script(store.redis, _DELETE)

    @classmethod
    def for_days(cls, store: Store, days: float) -> Retention | None:
        """The retention of ``typhoon serve --retention-days`` (None for 0: matches are kept for good)."""
        return cls(store, round(days * DAY_MS)) if days > 0 else None

    async def sweep(self) -> int:
        """Delete every match over since before ``keep_ms`` ago; returns how many this call deleted."""
        cutoff = await self.store.time_ms() - self.keep_ms
        deleted, start = 0, 0
        redis = self.store.redis
        while True:
            # members are "<created_at ms, 15 digits>:<id>": those created before the cutoff, oldest first
            members = [text_of(m) for m in await redis.zrangebylex(INDEX_KEY, "-", f"({cutoff:015d}:",
                                                                     start=start, num=CHUNK)]
            if not members:
                break
            gone = []
            for member in members:
                match_id = member.partition(":")[2]
                outcome = await self._delete(keys=[key(match_id, part) for part in MATCH_KEYS],
                                             args=[str(cutoff), *ENDED])
                if outcome:
                    gone.append(member)
                    deleted += outcome > 0
            if gone:
                await redis.zrem(INDEX_KEY, *gone)
            start += len(members) - len(gone)
        if deleted:
            log.info("matches_deleted", count=deleted, over_before_ms=cutoff)
            metrics.SWEPT.labels("deleted").inc(deleted)
        self.deleted += deleted
        return deleted
