"""The gRPC port spoken to by hand (a raw HTTP/2 client, loadtests/raw_grpc.py), where a gRPC library would
refuse to send, while honest play goes on from another address:

- **metadata over the limit**, sent before the client acknowledges the server's settings (gRPC core
  checks its own limit only after that): 20 calls each with a 20 KB and a 1 MB value; counted: how many
  were served (NOT_FOUND: the call reached the service) and how many refused;
- **a megabyte of metadata, a hundred calls a connection, six connections**: the service's memory
  before, at the peak and once the calls are answered and the connections closed (15 s later);
- **watch streams whose window is never opened**: 10 connections, each from a /24 of its own, each with one
  WatchMatch stream of a match with a long log; counted: how many the service ended (their connection
  closed), and after how long (median), within ``max(seconds, 60)``.

The metadata flood runs in a process of its own at a low CPU priority (loadtests.attacks.honest_play.attacker):
what slows honest play is then what the service spends on it, not the attacker's own work.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loadtests.attacks.honest_play import attacker
from loadtests.honest import honest_play, kept
from loadtests.attacks.slow import long_match
from loadtests.raw_grpc import RawGrpc
from service.gen.typhoon.v1 import match_service_pb2 as api

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "grpc_raw"
SUMMARY = ("raw HTTP/2 on the gRPC port: metadata of 20 KB and 1 MB before the settings are acknowledged, "
           "600 calls of 1 MB (memory), 10 watch streams whose window is never opened")

GET_MATCH = "/typhoon.v1.MatchService/GetMatch"
WATCH = "/typhoon.v1.MatchService/WatchMatch"
CALLS = 20
FLOOD_CONNECTIONS = 6
FLOOD_CALLS = 100
NON_READERS = 10


def run(target: Target, seconds: float) -> dict[str, Any]:
    host, port = target.grpc.rsplit(":", 1)
    match_id = long_match(target)
    figures: dict[str, Any] = {}
    for size, label in ((20_000, "20 KB"), (1_000_000, "1 MB")):
        answers = asyncio.run(_unacknowledged_calls(host, int(port), size, CALLS, "127.0.3.1"))
        figures[f"{label} metadata served"] = f"{answers.get('5', 0)}/{CALLS}"
        figures[f"{label} metadata refused"] = f"{answers.get('8', 0)}/{CALLS}"
    with honest_play(target.grpc, target.http) as (play, before_rate):
        memory_before = target.memory_mb()
        started = time.monotonic()
        peak = attacker(_metadata_flood_apart, target.memory(), host, int(port), seconds=seconds)
        flooded = time.monotonic()
        time.sleep(15)
        after_rate = play.rate(flooded + 7, flooded + 15)  # alone again, once the memory is returned
        figures.update({"1 MB calls": FLOOD_CONNECTIONS * FLOOD_CALLS, "memory MB before": memory_before,
                        "peak": peak, "15 s after": target.memory_mb(),
                        "honest play kept (1 MB calls)": kept(before_rate, play.rate(started, flooded), after_rate)})
        started = time.monotonic()
        ended, refused = asyncio.run(_non_readers(host, int(port), match_id, max(seconds, 60.0)))
        closed = [after for after in ended if after is not None]
        figures["non-reading gRPC watchers ended"] = f"{len(closed)}/{NON_READERS}"
        figures["refused before a message"] = ", ".join(f"{n} {status}" for status, n in sorted(refused.items())) or "0"
        if closed:
            figures["ended after (median s)"] = round(statistics.median(closed), 1)
        figures["honest play kept (non-readers)"] = kept(before_rate, play.rate(started, time.monotonic()), after_rate)
    return figures


async def _unacknowledged_calls(host: str, port: int, size: int, count: int, source: str) -> Counter[str]:
    """``count`` GetMatch calls of an unknown match with ``size`` bytes of metadata, all sent before the
    server's settings are read: the grpc-status of each (5: served, 8: refused; "none": no answer)."""
    request = api.GetMatchRequest(match_id="m-none").SerializeToString()
    connection = await RawGrpc.open(host, port, read=False, source=source, keep=False)
    try:
        ids = [await asyncio.wait_for(connection.call(GET_MATCH, request, [("x-big", "a" * size)]), 30)
               for _ in range(count)]
        connection.read()
        await connection.wait(lambda: all(connection.streams[i].ended for i in ids), 30)
        return Counter(connection.streams[i].status or "none" for i in ids)
    except (OSError, asyncio.TimeoutError):
        return Counter({"connection failed": count})
    finally:
        await connection.close()


def _metadata_flood_apart(memory: Callable[[], float], host: str, port: int) -> float:
    return asyncio.run(_metadata_flood(memory, host, port))


async def _metadata_flood(memory: Callable[[], float], host: str, port: int) -> float:
    """FLOOD_CONNECTIONS connections each sending FLOOD_CALLS calls with 1 MB of metadata before
    acknowledging the settings, then reading the answers and closing; the service's peak memory."""
    peak = [memory()]
    done = asyncio.Event()

    async def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], memory())
            await asyncio.sleep(0.2)

    sampler = asyncio.ensure_future(sample())
    await asyncio.gather(*(_unacknowledged_calls(host, port, 1_000_000, FLOOD_CALLS, f"127.0.3.{2 + n}")
                           for n in range(FLOOD_CONNECTIONS)))
    done.set()
    await sampler
    return peak[0]


async def _non_readers(host: str, port: int, match_id: str,
                       seconds: float) -> tuple[list[float | None], Counter[str]]:
    """One WatchMatch stream on each of NON_READERS connections whose window is never opened: the seconds
    until the service closed each connection (None: still open after ``seconds``), and the statuses of the
    streams the service refused outright (their catch-up's cost over a budget: a status, which no window
    holds back, and nothing queued)."""
    request = api.WatchMatchRequest(match_id=match_id).SerializeToString()
    refused: Counter[str] = Counter()

    async def one(n: int) -> float | None:
        started = time.monotonic()
        # each from a /24 of its own: from one, the limits count them as one client, whose history budget
        # admits one long catch-up and refuses the others' (a status, which no window holds back)
        connection = await RawGrpc.open(host, port, window=0, source=f"127.0.{30 + n}.20", keep=False)
        try:
            stream = await connection.call(WATCH, request)
            await connection.wait(lambda: connection.closed or connection.streams[stream].ended, seconds)
            if not connection.closed and connection.streams[stream].ended:
                refused[_STATUS_NAMES.get(connection.streams[stream].status or "", "no status")] += 1
                return None
            return time.monotonic() - started if connection.closed else None
        finally:
            await connection.close()

    return list(await asyncio.gather(*(one(n) for n in range(NON_READERS)))), refused


_STATUS_NAMES = {"8": "RESOURCE_EXHAUSTED", "14": "UNAVAILABLE", "5": "NOT_FOUND", "0": "OK"}
