"""Memory given back to the system once a crowd of streams has gone.

5,000 watch streams opened and closed left a process ~200 MB above where it started. Most of it was
cyclic garbage (fixed where it was made: service.api.event_stream); the rest is memory the C allocator
(glibc's malloc, which Python uses for everything larger than 512 bytes: buffers, transports, frames)
keeps for later instead of returning it, because the free pages are scattered between live ones. glibc
returns them on request: ``malloc_trim(0)``. A :class:`MemoryReturn` watches how many streams and
connections are open and asks for that once their number has fallen well below its last peak; a call
walks the heap (a few milliseconds for hundreds of MB) in a worker thread, off the event loop. When most
of the streams are gone it first makes a full garbage collection (cheap then: little is left to walk),
which empties the interpreter's free lists.

Some of what a client can make the process allocate is counted nowhere: gRPC calls with megabytes of
metadata, refused at once (service.api.grpc_edge) but parsed first by gRPC core (100 such calls on one
connection: +0.4 to 1 GB, all of it kept). So the allocator's free memory is also returned whenever it
has grown by ``GROWTH`` since the last look that returned it (glibc's ``mallinfo2``: its free bytes,
read in microseconds), whatever freed it.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import os
from typing import Callable

import structlog

log = structlog.get_logger("typhoon.memory")

#: Streams and connections that must have closed since the peak before memory is returned.
DROP = 500
#: Seconds between two looks at the count.
INTERVAL = 5.0
#: Bytes freed (and kept by the allocator) since the last return past which memory is returned.
GROWTH = 32 * 2**20


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _allocator_free() -> Callable[[], int] | None:
    """The bytes glibc's allocator holds free (``mallinfo2().fordblks``, glibc 2.33+), or None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        info = libc.mallinfo2
    except (OSError, AttributeError):
        return None
    info.argtypes, info.restype = [], _MallInfo2
    return lambda: int(info().fordblks)


def resident_bytes() -> int:
    """The process's resident memory (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class MemoryReturn:
    """Every ``interval`` seconds, reads ``count()`` (streams and connections open); once it is ``drop``
    below its highest value since the last return, returns the allocator's free memory to the system."""

    def __init__(self, count: Callable[[], int], drop: int = DROP, interval: float = INTERVAL,
                 growth: int = GROWTH, free: Callable[[], int] | None = None) -> None:
        self.count = count
        self.drop = drop
        self.interval = interval
        self.growth = growth
        self.free = free or _allocator_free()
        self.returns = 0
        #: the allocator's free bytes at the last return (the least since, as free memory is used again)
        self._freed_mark: int | None = self.free() if self.free else None
        self._trim = _malloc_trim()
        self._peak = 0
        self._again = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._trim is not None:
            self._task = asyncio.create_task(self._run(), name="memory-return")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.check()

    async def check(self) -> bool:
        """Return memory now if the count has dropped enough (whether it did), or if the allocator's free
        memory has grown by ``growth`` since the last return (not counted as one)."""
        now = self.count()
        self._peak = max(self._peak, now)
        if self._trim is None:
            return False
        if self._again:  # what the closed streams held is freed over a few moments: once more, a look later
            self._again = False
            await asyncio.to_thread(self._trim, 0)
        before = resident_bytes()
        if self._peak - now < self.drop:
            await self._return_freed()
            return False
        if now <= self._peak - now:
            # most streams are gone: a full collection walks little, and it empties the interpreter's free
            # lists, whose blocks pin the allocator's arenas (5,000 streams closed: 34 MB more returned)
            gc.collect()
        await asyncio.to_thread(self._trim, 0)
        self.returns += 1
        after = resident_bytes()
        self._freed_mark = self.free() if self.free else None
        log.info("memory_returned", closed=self._peak - now, open=now, rss_mb_before=round(before / 2**20, 1),
                 rss_mb_after=round(after / 2**20, 1))
        self._peak = now
        self._again = True
        return True

    async def _return_freed(self) -> None:
        """Return the allocator's free memory if it has grown by ``growth`` since the last return."""
        if self.free is None or self._trim is None:
            return
        free = self.free()
        if self._freed_mark is None or free < self._freed_mark:
            self._freed_mark = free
        if free - self._freed_mark < self.growth:
            return
        before = resident_bytes()
        await asyncio.to_thread(self._trim, 0)
        self._freed_mark = self.free()
        self._again = True  # what is being freed may not all be free yet: once more, a look later
        log.info("memory_returned", freed_mb=round(free / 2**20, 1), rss_mb_before=round(before / 2**20, 1),
                 rss_mb_after=round(resident_bytes() / 2**20, 1))


__all__ = ["MemoryReturn", "resident_bytes"]
