"""Stopping the service's background tasks so that a graceful stop ends, whatever they were doing."""

from __future__ import annotations

import asyncio
import io
import time

import structlog

log = structlog.get_logger("typhoon.tasks")


async def stop_task(task: asyncio.Task, timeout: float = 5.0) -> bool:
    """Cancel ``task`` and wait up to ``timeout`` seconds for it to end; True if it did.

    The cancellation is sent again every 100 ms: a task can lose one (a library that turns it into an
    error its loop catches and goes on, as a Redis call cancelled at the moment its own timeout fires
    may), and a loop that lost it would otherwise keep the process from stopping. A task still running
    at the end is logged with where it is, and left behind.
    """
    deadline = time.monotonic() + timeout
    cancels, where = 0, ""
    while not task.done():
        if cancels == 1:  # the first one was not enough: say where it was lost
            where = _stack(task)
        task.cancel()
        cancels += 1
        left = deadline - time.monotonic()
        if left <= 0:
            log.warning("task_did_not_stop", task=task.get_name(), seconds=timeout, stack=_stack(task),
                        lifecycle=True)
            return False
        await asyncio.wait({task}, timeout=min(0.1, left))
    if cancels > 1:
        log.info("task_stopped_late", task=task.get_name(), cancels=cancels, stack=where, lifecycle=True)
    if not task.cancelled() and task.exception() is not None:
        log.warning("task_failed", task=task.get_name(), error=repr(task.exception()), lifecycle=True)
    return True


def _stack(task: asyncio.Task) -> str:
    stack = io.StringIO()
    task.print_stack(file=stack)
    return stack.getvalue()
