"""What one process admits of every client's stream opens together (the ``stream_opens`` limit), and when
each one it refuses should come back, so that a storm of watchers is let in gradually.

The rate is counted by the ``limits`` library, as every limit is, but in this process's memory (it
protects this process's event loop and Redis connections: each process has its own). A refusal
alone would not make a storm gradual: every refused watcher would be told to come back when the
window next has room (in a second), and come back all together, a flood of refusals (5,000
watchers that waited as told took honest play from 144 actions a second to 1). So each refusal is
given its own turn: the n-th refused since the queue was last empty is told to come back n
intervals (1 / the rate) later, and those that do find room. A client that does not wait meets
only its own limits (``watch``, ``seek``) and the flood's.

>>> from service.guard.limit_settings import LimitSettings
>>> opens = StreamOpens(LimitSettings.defaults().with_rates({"stream_opens": "2/second"}))
>>> opens.interval
0.5
"""

from __future__ import annotations

import math
import time

from limits import parse_many
from limits.aio.storage import MemoryStorage

from service.errors import ServiceError
from service.guard.limit_settings import BY_NAME, LimitSettings
from service.guard.rate_limits import RateLimits, rate_limited

NAME = "stream_opens"
ON_THIS_SERVER = "on this server"
#: The longest a refused stream open is told to wait (a storm larger than this many intervals comes
#: back all at once at the end, and is refused again).
MAX_WAIT = 120


class StreamOpens:
    """The ``stream_opens`` limit of ``settings`` (it must be on), in memory (make it on the running loop)."""

    def __init__(self, settings: LimitSettings) -> None:
        self.settings = settings
        self.limits = RateLimits(MemoryStorage(), settings)
        items = parse_many(settings.rates(NAME))
        self.interval = max(item.get_expiry() / item.amount for item in items)
        #: stream opens let in at once between :meth:`reserve` and :meth:`admit` (their other checks are
        #: under way): no more than the limit allows in its shortest window
        self.most_pending = min(item.amount for item in items)
        self.pending = 0
        self._turn = 0.0  # when the last refused open was told to come back (time.monotonic())

    async def reserve(self) -> None:
        """Hold a place for one stream open while its other checks go on (then :meth:`admit` or
        :meth:`release` it), or raise RATE_LIMITED with its own turn to come back if there is none
        (the limit reached, or as many being let in as it allows): thousands of opens arriving at
        once never all go on to their Redis checks."""
        if self.pending >= self.most_pending:
            raise self._refusal(None)
        await self._checked("test")
        self.pending += 1

    def release(self) -> None:
        """Give back a place held by :meth:`reserve` (the open was refused by another check)."""
        self.pending = max(0, self.pending - 1)

    async def admit(self) -> None:
        """Count one stream open (after :meth:`reserve`, whose place it takes), or raise RATE_LIMITED with
        the refused open's own turn to come back."""
        try:
            await self._checked("hit")
        finally:
            self.release()

    async def _checked(self, kind: str) -> None:
        try:
            await self.limits.check([(kind, NAME, "process", ON_THIS_SERVER)])  # type: ignore[list-item]
        except ServiceError as refused:
            raise self._refusal(refused.retry_after) from None

    def _refusal(self, retry_after: int | None) -> ServiceError:
        now = time.monotonic()
        self._turn = max(self._turn, now) + self.interval
        wait = min(MAX_WAIT, max(retry_after or 1, math.ceil(self._turn - now)))
        return rate_limited(NAME, BY_NAME[NAME].counts, ON_THIS_SERVER, self.settings.rates(NAME), wait)


__all__ = ["MAX_WAIT", "StreamOpens"]
