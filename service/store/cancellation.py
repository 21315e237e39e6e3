"""A cancelled Redis call stays cancelled.

redis-py's asyncio connection sends a command under ``asyncio.wait_for(..., socket_timeout)``. On
Python 3.11, ``wait_for`` returns the inner result and drops the caller's cancellation when the
cancellation arrives as the send completes (CPython gh-86296; fixed in 3.12, whose ``wait_for`` is
``asyncio.timeout``). The send completes almost at once, so the window is wide: a task cancelled there
went on as if nothing had happened. A Seek stream whose client had left kept polling Redis forever,
and the test that cancels one hung (the CI run that timed out).

:func:`keep_cancellations` wraps the connection's send once for the process: when the task's count of
cancellation requests grew during the send, the connection (its reply now unread) is closed, as
redis-py does for any send interrupted, and the cancellation raised. On 3.12 and later it never fires.

>>> keep_cancellations(); keep_cancellations()  # idempotent
>>> from redis.asyncio.connection import AbstractConnection
>>> AbstractConnection.send_packed_command.__name__
'send_packed_command'
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from redis.asyncio.connection import AbstractConnection


@functools.cache
def keep_cancellations() -> None:
    """Make every ``redis.asyncio`` connection raise a cancellation its send swallowed (see the module)."""
    send = AbstractConnection.send_packed_command

    @functools.wraps(send)
    async def send_packed_command(self: AbstractConnection, *args: Any, **kwargs: Any) -> None:
        requested = _cancellations_requested()
        await send(self, *args, **kwargs)
        if _cancellations_requested() > requested:
            await self.disconnect(nowait=True)  # the command went out; nobody will read its reply
            raise asyncio.CancelledError()

    AbstractConnection.send_packed_command = send_packed_command  # type: ignore[method-assign]


def _cancellations_requested() -> int:
    """The current task's count of cancellation requests. The task is not kept in the send's frame: the
    raised cancellation's traceback keeps that frame, and the task keeps the cancellation, a cycle only
    the garbage collector would free."""
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


__all__ = ["keep_cancellations"]
