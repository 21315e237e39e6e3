"""5,000 event streams from a few addresses, then closed: the service's memory before, while they are
open, and after.

Ten addresses of the loopback network (127.0.0.2 to 127.0.0.11: a few clients, none of them the
service's own address) each open 500 server-sent event streams of one of 20 matches (fewer than the
``create_match`` rate limit lets one address make in a minute), every stream
on its own connection; the service admits what its caps let in (opening takes ``seconds`` at most). Once
they are all open (or refused) the attacker closes them all, waits until the service has closed its ends
too (its open connections back to where they were), then reads its resident memory once it has stopped
falling (:meth:`loadtests.attacks.Target.memory_mb`; SETTLE seconds at most).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import psutil

from clients.client import TyphoonClient

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "streams"
SUMMARY = "5,000 event streams from 10 addresses, then closed: memory before, with them open, and after"

STREAMS = 5000
ADDRESSES = [f"127.0.0.{n}" for n in range(2, 12)]
MATCHES = 20
#: Streams being opened at once (the attacker's own pace)
OPENING = 200
#: Seconds the service gets, at most, to close its ends and return memory after the streams closed.
SETTLE = 40.0


def run(target: Target, seconds: float) -> dict[str, Any]:
    return asyncio.run(_run(target, seconds))


async def _run(target: Target, seconds: float) -> dict[str, Any]:
    address = urlsplit(target.http)
    match_ids = await asyncio.to_thread(_matches, target)
    connections = _connections(target)
    before = await _settled_memory(target, 2.0)
    deadline = time.monotonic() + seconds  # for opening the streams, once the matches are made
    outcomes: Counter[str] = Counter()
    writers: list[asyncio.StreamWriter] = []
    slots = asyncio.Semaphore(OPENING)

    async def open_one(index: int) -> None:
        async with slots:
            if time.monotonic() > deadline:
                outcomes["not tried (out of time)"] += 1
                return
            try:
                reader, writer = await asyncio.open_connection(
                    address.hostname, address.port, local_addr=(ADDRESSES[index % len(ADDRESSES)], 0))
            except OSError as error:
                outcomes[f"connect failed ({error.strerror})"] += 1
                return
            writer.write(f"GET /v1/matches/{match_ids[index % len(match_ids)]}/watch HTTP/1.1\r\n"
                         f"Host: typhoon\r\n\r\n".encode())
            try:
                status = await asyncio.wait_for(reader.readline(), timeout=max(1.0, deadline - time.monotonic()))
            except (asyncio.TimeoutError, ConnectionError):
                status = b""
            code = status.split(b" ")[1].decode() if status.count(b" ") >= 2 else "no answer"
            outcomes[code] += 1
            writers.append(writer)

    await asyncio.gather(*(open_one(index) for index in range(STREAMS)))
    await asyncio.sleep(1.0)
    peak = target.memory_mb()
    for writer in writers:
        writer.transport.abort()
    closed_by = time.monotonic() + SETTLE
    while _connections(target) > connections + 10 and time.monotonic() < closed_by:
        await asyncio.sleep(0.5)
    after = await _settled_memory(target, max(3.0, closed_by - time.monotonic()))
    return {"streams tried": STREAMS, "answers": dict(sorted(outcomes.items())),
            "memory MB before": before, "with streams open": peak, "after closing": after,
            "kept MB": round(after - before, 1)}


def _connections(target: Target) -> int:
    """The service's open TCP connections (its workers' too)."""
    root = psutil.Process(target.service.process.pid)
    return sum(len(p.net_connections("tcp")) for p in [root, *root.children(recursive=True)] if "redis" not in p.name())


def _matches(target: Target) -> list[str]:
    with TyphoonClient(target.grpc) as client:
        return [client.create_match(seats=["german"])[0].match_id for _ in range(MATCHES)]


async def _settled_memory(target: Target, seconds: float) -> float:
    """The service's memory once it stopped falling for 6 s running (read every second, ``seconds`` at
    most): the service returns memory a few seconds after the streams have gone."""
    end = time.monotonic() + seconds
    last, steady = target.memory_mb(), 0
    while time.monotonic() < end and steady < 6:
        await asyncio.sleep(1.0)
        now = target.memory_mb()
        steady = steady + 1 if now >= last else 0
        last = min(last, now)
    return last
