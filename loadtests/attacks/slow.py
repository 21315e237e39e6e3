"""Slow and greedy clients: slowloris on both ports, a 1 MB header line and 20,000 headers on both ports,
and watchers that never read.

All of it runs at once for ``seconds``, over raw sockets (the attacker's side is cheap: a socket and a
byte now and then):

- **slowloris**: 300 sockets on the HTTP port each send a request's head one byte a second, and 300 on
  the gRPC port each send HTTP/2's connection preface one byte a second; counted: how many the service
  closed within ``seconds``, and after how long (median);
- **a 1 MB header line and 20,000 headers**, to ``/healthz`` and as gRPC metadata of GetMatch: what
  the service answered (HTTP status, gRPC code);
- **watchers that never read**: 20 event streams (server-sent events) of a match with a long log,
  whose sockets have a 4 KB receive buffer and are never read, and 20 gRPC WatchMatch streams of it
  whose client grants a 1 KB flow-control window and never reads; counted: how many the service ended
  within ``seconds`` (a gRPC one is read at the end: ended by the service, or still open at its deadline).
"""

from __future__ import annotations

import asyncio
import random
import socket
import statistics
import time
from collections import Counter
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import grpc

from clients.client import TyphoonClient
from clients.random_play import play_out
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "slow"
SUMMARY = ("slowloris (300 sockets a port, a byte a second), a 1 MB header line, 20,000 headers, "
           "40 watchers that never read (SSE, gRPC)")

SLOWLORIS_SOCKETS = 300
NON_READERS = 20
HUGE_LINE = 1_000_000
MANY_HEADERS = 20_000
#: HTTP/2's connection preface, which a gRPC connection starts with, then the head of a SETTINGS frame of
#: 256 settings (1,536 bytes), all of it valid, sent a byte a second: the handshake never ends
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SLOW_SETTINGS = b"\x00\x06\x00\x04\x00\x00\x00\x00\x00" + b"\x00" * 1536


def run(target: Target, seconds: float) -> dict[str, Any]:
    return asyncio.run(_run(target, seconds))


async def _run(target: Target, seconds: float) -> dict[str, Any]:
    address = urlsplit(target.http)
    host, http_port = address.hostname, address.port
    grpc_host, grpc_port = target.grpc.rsplit(":", 1)
    deadline = time.monotonic() + seconds
    match_id = await asyncio.to_thread(long_match, target)
    grpc_non_readers = _GrpcNonReaders(target.grpc, match_id, seconds)
    http_loris, grpc_loris, non_readers = await asyncio.gather(
        _slowloris(host, http_port, b"GET /healthz HTTP/1.1\r\nHost: typhoon\r\nX-Slow: " + b"a" * 10_000, deadline),
        _slowloris(grpc_host, int(grpc_port), HTTP2_PREFACE + SLOW_SETTINGS, deadline),
        _non_readers(host, http_port, match_id, deadline))
    figures: dict[str, Any] = {}
    figures.update(_closing_figures("http slowloris", http_loris))
    figures.update(_closing_figures("grpc slowloris", grpc_loris))
    figures["1 MB header line: http"] = await _http_status(host, http_port, b"X-Big: " + b"a" * HUGE_LINE + b"\r\n")
    figures["20,000 headers: http"] = await _http_status(
        host, http_port, b"".join(b"X-H%d: v\r\n" % n for n in range(MANY_HEADERS)))
    figures["1 MB header line: grpc"] = await asyncio.to_thread(_grpc_code, target.grpc, [("x-big", "a" * HUGE_LINE)])
    figures["20,000 headers: grpc"] = await asyncio.to_thread(
        _grpc_code, target.grpc, [(f"x-h{n}", "v") for n in range(MANY_HEADERS)])
    figures.update(_closing_figures("non-reading SSE watchers", non_readers))
    ended = await asyncio.to_thread(grpc_non_readers.ended)
    figures["non-reading gRPC watchers ended"] = f"{sum(ended.values()) - ended.get('still open', 0)}/{NON_READERS}"
    figures["their ends"] = dict(ended)
    return figures


def _closing_figures(label: str, closed_after: list[float | None]) -> dict[str, Any]:
    closed = [after for after in closed_after if after is not None]
    figures = {f"{label} closed": f"{len(closed)}/{len(closed_after)}"}
    if closed:
        figures[f"{label} closed after (median s)"] = round(statistics.median(closed), 1)
    return figures


async def _slowloris(host: str, port: int, payload: bytes, deadline: float) -> list[float | None]:
    """Open the sockets, then send ``payload`` a byte a second on each until the service closes it or the
    deadline; the seconds each one lasted (None: still open at the deadline)."""
    async def one() -> float | None:
        started = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            return 0.0
        try:
            for byte in payload:
                writer.write(bytes([byte]))
                await writer.drain()
                try:
                    data = await asyncio.wait_for(reader.read(65536), timeout=min(1.0, deadline - time.monotonic()))
                except asyncio.TimeoutError:
                    data = None
                if data == b"":
                    return time.monotonic() - started
                if time.monotonic() >= deadline:
                    return None
            return None
        except (ConnectionError, OSError):
            return time.monotonic() - started
        finally:
            writer.close()

    return await asyncio.gather(*(one() for _ in range(SLOWLORIS_SOCKETS)))


async def _http_status(host: str, port: int, headers: bytes) -> str:
    """Send a request to /healthz with these extra header lines; the status the service answered (or
    what happened to the connection)."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError as error:
        return f"connect failed: {error.strerror}"
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: typhoon\r\n" + headers + b"\r\n")
        try:
            await writer.drain()
        except ConnectionError:
            pass  # the service may answer and close before reading it all
        line = await asyncio.wait_for(reader.readline(), timeout=30)
        return line.decode(errors="replace").strip().removeprefix("HTTP/1.1 ") or "closed without an answer"
    except (ConnectionError, asyncio.TimeoutError) as error:
        return f"no answer ({type(error).__name__})"
    finally:
        writer.close()


def _grpc_code(target: str, metadata: list[tuple[str, str]]) -> str:
    with grpc.insecure_channel(target) as channel:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        try:
            stub.GetMatch(api.GetMatchRequest(match_id="m-none"), metadata=metadata, timeout=30)
        except grpc.RpcError as error:
            return error.code().name
        return "OK"


async def _non_readers(host: str, port: int, match_id: str, deadline: float) -> list[float | None]:
    """Event streams of a long match on sockets with a tiny receive buffer, never read: the seconds until
    the service ended each one (None: still open at the deadline)."""
    async def one() -> float | None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        try:
            await loop.sock_connect(sock, (host, port))
            await loop.sock_sendall(sock, f"GET /v1/matches/{match_id}/watch?heartbeat_seconds=1 HTTP/1.1\r\n"
                                          f"Host: typhoon\r\n\r\n".encode())
            while time.monotonic() < deadline:
                await asyncio.sleep(0.5)
                # peek, without reading: has the service closed or reset the connection?
                state = sock.getsockopt(socket.SOL_TCP, socket.TCP_INFO, 1)[0]
                if state not in (1,):  # TCP_ESTABLISHED
                    return time.monotonic() - started
            return None
        except OSError:
            return time.monotonic() - started
        finally:
            sock.close()

    return await asyncio.gather(*(one() for _ in range(NON_READERS)))


class _GrpcNonReaders:
    """WatchMatch streams whose client grants a 1 KB window and reads nothing until :meth:`ended`."""

    def __init__(self, target: str, match_id: str, seconds: float) -> None:
        self.channel = grpc.insecure_channel(target, options=[("grpc.http2.bdp_probe", 0),
                                                              ("grpc.http2.lookahead_bytes", 1024)])
        stub = match_service_pb2_grpc.MatchServiceStub(self.channel)
        self.calls = [stub.WatchMatch(api.WatchMatchRequest(match_id=match_id), timeout=seconds + 10)
                      for _ in range(NON_READERS)]

    def ended(self) -> Counter:
        """Read each stream to its end: how each ended (``still open``: at its own deadline, not by the service)."""
        ends: Counter = Counter()
        for call in self.calls:
            try:
                for _ in call:
                    pass
                ends["OK"] += 1
            except grpc.RpcError as error:
                reason = _reason(error)
                ends["still open" if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                     else f"{error.code().name} {reason}".strip()] += 1
        self.channel.close()
        return ends


def _reason(error: grpc.RpcError) -> str:
    from grpc_status import rpc_status
    from google.rpc import error_details_pb2

    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def long_match(target: Target, actions: int = 350) -> str:
    """A live match whose log is long (``actions`` random legal actions: ~900 events, ~170 KB of events as
    server-sent events), so that a watcher that does not read fills its buffers."""
    chooser = random.Random(NAME)
    with TyphoonClient(target.grpc) as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_out(client, match.match_id, tokens, chooser, actions)
        return match.match_id
