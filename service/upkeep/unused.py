"""Matches nobody joined or played in go away, so one client cannot fill Redis with them.

A match costs Redis ~10 KB from its creation (meta, state, its first events), and until now stayed
for the 30 days of the abandonment sweep. ``typhoon serve --unused-after-hours H`` (1 by default; 0:
never) deletes every live match in which no action was ever applied (version 0: its seats may
be claimed or not) and nothing happened for H hours (no seat claimed either): its keys, its entry in the
``ListMatches`` index, in one script per match that checks again that it is still unused. Afterwards it
is unknown (``NOT_FOUND``), as if it had never been: it had no move to replay or audit. A match with
a running clock is left to its clock, which ends it (a first action not made in time aborts it).

The compaction sweep (``service.upkeep.compaction``) calls it for each live match it walks.
"""

from __future__ import annotations

import structlog

from service import metrics
from service.store.lean_redis import Script
from service.store.match_store import INDEX_KEY, LIVE, Store, key, text_of
from service.upkeep.retention import MATCH_KEYS

log = structlog.get_logger("typhoon.unused")

#: Default of ``typhoon serve --unused-after-hours``.
DEFAULT_HOURS = 1.0

_DELETE_UNUSED = """
-- KEYS: meta, then the match's other keys. ARGV: the latest updated_at (ms) deleted, the live statuses...
-- Returns the keys deleted, 0 for a match kept.
local status, version, updated, deadline = unpack(redis.call('HMGET', KEYS[1], 'status', 'version', 'updated_at',
                                                             'clock:deadline'))
if not status or version ~= '0' or (deadline and deadline ~= '') then return 0 end
local live = false
for i = 2, #ARGV do if status == ARGV[i] then live = true end end
if not live or tonumber(updated) > tonumber(ARGV[1]) then return 0 end
return redis.call('DEL', unpack(KEYS))
"""


class UnusedMatches:
    """Deletes the matches of ``store`` unused for ``idle_ms`` (see the module): ``await
    UnusedMatches(store, 3_600_000).delete_if_unused(match_id)``, True if it deleted that one."""

    def __init__(self, store: Store, idle_ms: int) -> None:
        if idle_ms <= 0:
            raise ValueError("a match is unused after a positive time")
        self.store = store
        self.idle_ms = idle_ms
        self.deleted = 0
        self._delete = Script(store.redis, _DELETE_UNUSED)

    @classmethod
    def after_hours(cls, store: Store, hours: float) -> UnusedMatches | None:
        """The sweep of ``typhoon serve --unused-after-hours`` (None for 0: never)."""
        return cls(store, round(hours * 3_600_000)) if hours > 0 else None

    async def delete_if_unused(self, match_id: str) -> bool:
        """Delete the match if it is live, at version 0, without a running clock and unchanged for ``idle_ms``."""
        version, changed, created = await self.store.redis.hmget(key(match_id, "meta"),
                                                                 ["version", "updated_at", "created_at"])
        now = await self.store.time_ms()
        if text_of(version) != "0" or now - int(changed or now) < self.idle_ms:
            return False  # the common case, told from two fields
        deleted = await self._delete(keys=[key(match_id, part) for part in MATCH_KEYS],
                                     args=[str(now - self.idle_ms), *LIVE])
        if not deleted:
            return False
        await self.store.redis.zrem(INDEX_KEY, f"{int(created or 0):015d}:{match_id}")
        log.info("unused_match_deleted", match_id=match_id, idle_ms=now - int(changed or 0))
        metrics.SWEPT.labels("unused").inc()
        self.deleted += 1
        return True


def sweep_interval(hours: float, longest: float = 3600.0) -> float:
    """Seconds between two sweeps for ``--unused-after-hours hours``: hourly, or twice per while if that
    is shorter (so an unused match goes between 1 and 1.5 whiles after its last change), at least a minute.

    >>> sweep_interval(1.0), sweep_interval(0.25), sweep_interval(0.001), sweep_interval(0)
    (1800.0, 450.0, 60.0, 3600.0)
    """
    return longest if hours <= 0 else max(60.0, min(longest, hours * 3600 / 2))


__all__ = ["DEFAULT_HOURS", "UnusedMatches", "sweep_interval"]
