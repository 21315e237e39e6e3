"""A storm of watch streams that never read, from 50 addresses, half of them server-sent events, half gRPC
(a raw HTTP/2 client whose flow-control window is never opened), while honest play goes on from
another address: what was admitted, honest play's rate and the service's readiness during the storm,
and its memory before, at the peak, and 30 s after the streams closed; then the same storm again (memory
after a process's first storm: see :func:`run`).

Each of the 50 addresses (127.0.101.1 to 127.0.150.1: each in a /24 of its own, as limits count IPv4
clients by /24) opens 50 event streams (a connection each) and 50
gRPC streams (on one connection), of 20 matches. A stream refused RATE_LIMITED is asked for again when
its Retry-After says (as the project's clients do; the flood attack covers clients that do not wait),
until ``max(seconds, 60)`` have passed. Admitted streams are held, never read, then all closed at
once; the service's own limits may end some first (a reader that reads nothing, its connection). The
attacker runs in a process of its own at a low CPU priority (loadtests.attacks.honest_play.attacker), so
that what slows honest play is what the service spends on the storm, not the attacker's own work on the
same two cores.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from clients.client import TyphoonClient
from loadtests.attacks.honest_play import attacker
from loadtests.honest import HonestPlay, honest_play, kept
from loadtests.raw_grpc import RawGrpc
from service.gen.typhoon.v1 import match_service_pb2 as api

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "stream_storm"
SUMMARY = ("5,000 watch streams that never read (SSE and raw gRPC) from 50 addresses while honest play goes on, "
           "twice: admitted, honest play kept, readiness, memory before / peak / 30 s after")

ADDRESSES = [f"127.0.{100 + n}.1" for n in range(1, 51)]
PER_ADDRESS = 50  # of each kind
MATCHES = 20
#: Event streams being opened at once (the attacker's own pace).
OPENING = 200
#: Seconds after the streams closed when memory is read.
AFTER = 30.0
#: The last seconds of those in which honest play's rate alone is measured again (before and after: the mean).
ALONE_AFTER = 10.0
WATCH = "/typhoon.v1.MatchService/WatchMatch"


def run(target: Target, seconds: float) -> dict[str, Any]:
    match_ids = _matches(target)
    with honest_play(target.grpc, target.http) as (play, before_rate):
        first = _one_storm(target, play, before_rate, match_ids, max(seconds, 60.0))
        # the same storm again: a fresh process's first crowd leaves it larger for good (first use of its
        # allocators' arenas and caches, reused by every crowd after it); memory back after the second
        # storm is what a process that has seen one holds
        second = _one_storm(target, play, first.pop("rate alone after"), match_ids, max(seconds, 60.0))
        second.pop("rate alone after")
    return {**first, "second storm": second}


def _one_storm(target: Target, play: HonestPlay, before_rate: float, match_ids: list[str],
               storm: float) -> dict[str, Any]:
    memory_before = target.memory_mb()
    started = time.monotonic()
    figures, peak = attacker(_storm_apart, target.grpc, target.http, target.memory(), match_ids, storm,
                             seconds=storm)
    closed = time.monotonic()
    during = play.rate(started, closed)
    readiness = play.readiness(started, closed)
    time.sleep(AFTER)
    memory_after = target.memory_mb()
    after_rate = play.rate(closed + AFTER - ALONE_AFTER, closed + AFTER)
    return {**figures, "honest play kept": kept(before_rate, during, after_rate), "honest calls failed": play.failures,
            "readiness during": readiness, "memory MB before": memory_before, "peak": peak,
            f"{AFTER:g} s after closing": memory_after,
            "after / before": f"{round(100 * memory_after / memory_before)}%", "rate alone after": after_rate}


def _matches(target: Target) -> list[str]:
    with TyphoonClient(target.grpc) as client:
        return [client.create_match(seats=["german"])[0].match_id for _ in range(MATCHES)]


def _storm_apart(grpc_target: str, http_base: str, memory: Callable[[], float], match_ids: list[str],
                 seconds: float) -> tuple[dict[str, Any], float]:
    return asyncio.run(_storm(grpc_target, http_base, memory, match_ids, seconds))


async def _storm(grpc_target: str, http_base: str, memory: Callable[[], float], match_ids: list[str],
                 seconds: float) -> tuple[dict[str, Any], float]:
    deadline = time.monotonic() + seconds
    http = urlsplit(http_base)
    grpc_host, grpc_port = grpc_target.rsplit(":", 1)
    sse: Counter[str] = Counter()
    grpc: Counter[str] = Counter()
    writers: list[asyncio.StreamWriter] = []
    connections: list[RawGrpc] = []
    slots = asyncio.Semaphore(OPENING)
    peak = [memory()]

    async def sample() -> None:
        while time.monotonic() < deadline:
            await asyncio.sleep(1.0)
            peak[0] = max(peak[0], memory())

    async def event_stream(index: int) -> None:
        source, match_id = ADDRESSES[index % len(ADDRESSES)], match_ids[index % len(match_ids)]
        while time.monotonic() < deadline:
            async with slots:
                try:
                    reader, writer = await asyncio.open_connection(http.hostname, http.port, local_addr=(source, 0))
                except OSError as error:
                    sse[f"connect failed ({error.strerror})"] += 1
                    return
                writer.write(f"GET /v1/matches/{match_id}/watch HTTP/1.1\r\nHost: typhoon\r\n\r\n".encode())
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), max(1.0, deadline - time.monotonic()))
                except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    head = b""
            status = head.split(b" ", 2)[1].decode() if head.count(b" ") >= 2 else "no answer"
            if status == "200":
                writer.transport.pause_reading()  # type: ignore[attr-defined]  # never read again
                writers.append(writer)
                sse["admitted"] += 1
                return
            writer.transport.abort()
            sse[f"refused {status}"] += 1
            if status != "429":
                return
            retry = next((line.split(b":", 1)[1] for line in head.split(b"\r\n") if line.lower().startswith(b"retry-after:")),
                         b"1")
            await asyncio.sleep(float(retry))

    async def grpc_streams(source: str) -> None:
        try:
            connection = await RawGrpc.open(grpc_host, int(grpc_port), window=0, source=source, keep=False)
        except OSError as error:
            grpc[f"connect failed ({error.strerror})"] += PER_ADDRESS
            return
        connections.append(connection)

        async def one(match_id: str) -> None:
            request = api.WatchMatchRequest(match_id=match_id).SerializeToString()
            while time.monotonic() < deadline and not connection.closed:
                stream_id = await connection.call(WATCH, request)
                stream = connection.streams[stream_id]
                await connection.wait(lambda: stream.headers or stream.ended, max(0.1, deadline - time.monotonic()))
                if stream.headers and not stream.status:
                    grpc["admitted"] += 1
                    return
                grpc[f"refused {stream.status}"] += 1
                await asyncio.sleep(stream.retry_after or 1.0)  # as its RetryInfo says

        await asyncio.gather(*(one(match_ids[n % len(match_ids)]) for n in range(PER_ADDRESS)))

    sampler = asyncio.ensure_future(sample())
    await asyncio.gather(*(event_stream(n) for n in range(PER_ADDRESS * len(ADDRESSES))),
                         *(grpc_streams(source) for source in ADDRESSES))
    held_sse = sum(not writer.transport.is_closing() for writer in writers)
    held_grpc = sum(1 for connection in connections if not connection.closed
                    for stream in connection.streams.values() if stream.headers and not stream.ended)
    sampler.cancel()
    peak[0] = max(peak[0], memory())
    for writer in writers:
        writer.transport.abort()
    for connection in connections:
        await connection.close()
    return {"streams tried": 2 * PER_ADDRESS * len(ADDRESSES), "SSE": dict(sorted(sse.items())),
            "gRPC": dict(sorted(grpc.items())), "still open at the end": {"SSE": held_sse, "gRPC": held_grpc},
            "storm seconds": round(seconds)}, peak[0]
