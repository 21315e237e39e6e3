"""The HTTP port's connections, guarded against slow and greedy clients: uvicorn's httptools protocol with
the limits of :class:`service.api.connection_limits.ConnectionLimits`.

uvicorn has a keep-alive timeout but no limit on a request's head (a 1 MB header line, 20,000 headers
were accepted), no timeout for reading one (a connection that sends its head a byte at a time, or
nothing at all, stayed open for good: slowloris), no per-address cap and nothing for a client that
stops reading an answer. A small subclass of its protocol adds them where the bytes arrive, before any
request reaches the app, so the cost of a well-formed call is a counter and a timer (measured with
``make bench-service``: within the benchmark's noise). Another server (hypercorn has most of these)
would have cost the httptools parser's speed and the whole serving path's tuning.

- a request head (request line and header fields) larger than ``max_header_bytes`` or with more than
  ``max_headers`` fields: 431, and the connection is closed;
- a new connection, or a request once begun, must send its whole request (head and body) within
  ``request_read_timeout`` seconds: else 408 and closed;
- an answer (an event stream) whose client reads nothing for ``slow_reader_timeout`` seconds while its
  buffers are full: the connection is closed (a watcher resumes with Last-Event-ID, as EventSource does);
- one address holds at most ``max_connections_per_address`` connections (per process): a request on
  one more is answered 429 and its connection closed;
- between requests a connection stays open ``http_idle_timeout`` seconds (uvicorn's keep-alive).

Every refusal is the API's JSON error (``{"error": {"code", "status", "reason", "message"}}``) and is
counted in ``typhoon_connections_refused_total{reason}``.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import struct
from collections import Counter
from typing import Any

import structlog
import uvicorn
from grpc import StatusCode
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service.api.connection_limits import ConnectionLimits
from service.errors import ServiceError
from service.metrics import CONNECTIONS_REFUSED

log = structlog.get_logger("typhoon.http")


#: Bytes the kernel may hold unsent on a connection (TCP_NOTSENT_LOWAT; what is in flight is not counted):
#: past it, what the service writes waits in the transport's own buffer, whose high-water mark tells the
#: protocol that the client is not reading. Without it the kernel's send buffer grows up to 4 MB a
#: connection (net.ipv4.tcp_wmem) and a client that reads nothing is never noticed. Throughput is kept:
#: what is in flight is bounded by the client's window, not by this.
NOTSENT_LOWAT = 16 * 1024


class _Refused(Exception):
    """Raised from a parser callback to stop parsing a request that is refused."""


class AddressCounts:
    """How many connections each client address holds (the per-address cap), shared by the connections
    of one listener.

    >>> counts = AddressCounts(ConnectionLimits(max_connections_per_address=1, connection_cap_exempt=()))
    >>> counts.admit("10.0.0.1"), counts.admit("10.0.0.1"), counts.admit("10.0.0.2")
    (True, False, True)
    >>> counts.release("10.0.0.1"); counts.admit("10.0.0.1")
    True
    """

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self._held: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        cap = self.limits.max_connections_per_address
        if cap and self._held[address] >= cap and not self.limits.exempt(address):
            return False
        self._held[address] += 1
        return True

    def release(self, address: str) -> None:
        self._held[address] -= 1
        if self._held[address] <= 0:
            del self._held[address]

    @property
    def connections(self) -> int:
        return sum(self._held.values())


def refusal(reason: str, limits: ConnectionLimits) -> ServiceError:
    """The error a refused connection or request gets."""
    if reason == "HEADERS_TOO_LARGE":
        return ServiceError(StatusCode.RESOURCE_EXHAUSTED, reason, f"the request head is larger than "
                            f"{limits.max_header_bytes} bytes", http_status=431, limit=limits.max_header_bytes)
    if reason == "TOO_MANY_HEADERS":
        return ServiceError(StatusCode.RESOURCE_EXHAUSTED, reason, f"the request has more than "
                            f"{limits.max_headers} header fields", http_status=431, limit=limits.max_headers)
    if reason == "REQUEST_TIMEOUT":
        return ServiceError(StatusCode.DEADLINE_EXCEEDED, reason, f"the request was not sent within "
                            f"{limits.request_read_timeout:g} seconds", http_status=408)
    if reason == "TOO_MANY_CONNECTIONS":
        return ServiceError(StatusCode.RESOURCE_EXHAUSTED, reason, f"this address already holds "
                            f"{limits.max_connections_per_address} connections to this server; close one first",
                            limit=limits.max_connections_per_address)
    raise ValueError(reason)


def _answer(error: ServiceError, retry_after: int | None = None) -> bytes:
    """A whole HTTP/1.1 answer carrying ``error`` that closes the connection."""
    import orjson

    body = orjson.dumps(error.to_json())
    status = error.http_status
    phrase = {408: b"Request Timeout", 429: b"Too Many Requests", 431: b"Request Header Fields Too Large"}
    head = [b"HTTP/1.1 %d %s" % (status, phrase.get(status, b"Error")), b"content-type: application/json",
            b"content-length: %d" % len(body), b"connection: close"]
    if retry_after is not None:
        head.append(b"retry-after: %d" % retry_after)
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits (a subclass per listener: :func:`protocol_class`)."""

    limits: ConnectionLimits
    counts: AddressCounts

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and hasattr(socket, "TCP_NOTSENT_LOWAT"):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NOTSENT_LOWAT, NOTSENT_LOWAT)
        self._address = self.client[0] if self.client else ""
        self._admitted = self.counts.admit(self._address)
        self._in_head = True  # reading a request's head (or waiting for one)
        self._head_bytes = 0
        self._fields = 0
        self._refused: str | None = None
        self._stall: asyncio.TimerHandle | None = None
        # armed from the connection's start, and from a request's first byte, until the request is read
        self._read_timer: asyncio.TimerHandle | None = self.loop.call_later(
            self.limits.request_read_timeout, self._read_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._read_timer, self._stall):
            if timer is not None:
                timer.cancel()
        self._read_timer = self._stall = None
        if self._admitted:
            self._admitted = False
            self.counts.release(self._address)
        super().connection_lost(exc)
        # asyncio's socket transport refers to itself (its read callback is its own bound method) and is
        # never untied: every closed connection waited for a full garbage collection, pinning the
        # allocator's arenas it was spread over (5,000 closed streams kept ~70 MB). Closed, it reads no more.
        if getattr(self.transport, "_read_ready_cb", None) is not None:
            self.transport._read_ready_cb = None

    # --- reading ------------------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._refused or self.transport.is_closing():
            return
        if not self._admitted:
            self._refuse("TOO_MANY_CONNECTIONS")
            return
        if self._in_head:
            if self._read_timer is None:
                self._read_timer = self.loop.call_later(self.limits.request_read_timeout, self._read_timed_out)
            self._head_bytes += len(data)
        super().data_received(data)
        if self._in_head and self._head_bytes > self.limits.max_header_bytes and not self._refused:
            self._refuse("HEADERS_TOO_LARGE")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._fields = 0

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        if self._fields > self.limits.max_headers:
            self._refused = "TOO_MANY_HEADERS"
            raise _Refused  # httptools stops parsing; uvicorn answers through send_400_response
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.limits.max_header_bytes:
            self._refused = "HEADERS_TOO_LARGE"
            raise _Refused
        self._in_head = False
        self._head_bytes = 0
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None
        self._in_head = True  # what comes next is the next request's head

    def send_400_response(self, msg: str) -> None:
        if self._refused:
            self._refuse(self._refused)
        else:
            super().send_400_response(msg)

    def _refuse(self, reason: str) -> None:
        self._refused = reason
        CONNECTIONS_REFUSED.labels(reason).inc()
        log.info("http_refused", reason=reason, client=self._address)
        retry = 10 if reason == "TOO_MANY_CONNECTIONS" else None
        if not self.transport.is_closing():
            self.transport.write(_answer(refusal(reason, self.limits), retry))
            self.transport.close()

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete:
            CONNECTIONS_REFUSED.labels("REQUEST_TIMEOUT").inc()
            self._reset()  # answering already: nothing more can be said on this connection
            return
        self._refuse("REQUEST_TIMEOUT")

    # --- writing ------------------------------------------------------------------------------------

    def pause_writing(self) -> None:
        """The transport's buffer is full: the client has not read what was sent. It has
        ``slow_reader_timeout`` seconds to read some of it."""
        super().pause_writing()
        if self._stall is None and self.limits.slow_reader_timeout:
            self._stall = self.loop.call_later(self.limits.slow_reader_timeout, self._stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def _stalled(self) -> None:
        self._stall = None
        CONNECTIONS_REFUSED.labels("SLOW_READER").inc()
        log.info("http_slow_reader_closed", client=self._address, seconds=self.limits.slow_reader_timeout)
        self._reset()

    def _reset(self) -> None:
        """Close the connection at once, with a reset: what is queued for the client is dropped (a plain
        close would leave the kernel trying to deliver it, and the client waiting, for minutes)."""
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        self.transport.abort()


def protocol_class(limits: ConnectionLimits) -> type[GuardedHttpProtocol]:
    """A protocol class for one listener: its limits, and its own count of connections per address."""
    return type("GuardedHttpProtocol", (GuardedHttpProtocol,), {"limits": limits, "counts": AddressCounts(limits)})


class HttpServer(uvicorn.Server):
    """uvicorn's server on sockets made by the caller, with TLS whose handshake must end within the
    request read timeout (asyncio's default is a minute; uvicorn has no setting for it)."""

    def __init__(self, config: uvicorn.Config, limits: ConnectionLimits, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(config)
        self.limits = limits
        self.tls = tls

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        config = self.config
        if not config.loaded:
            config.load()
        loop = asyncio.get_running_loop()

        def create_protocol(_loop: Any = None) -> asyncio.Protocol:
            return config.http_protocol_class(config=config, server_state=self.server_state,  # type: ignore[call-arg]
                                              app_state=self.lifespan.state, _loop=_loop)

        handshake = {"ssl_handshake_timeout": self.limits.request_read_timeout} if self.tls else {}
        self.servers = [await loop.create_server(create_protocol, sock=sock, ssl=self.tls, backlog=config.backlog,
                                                 **handshake) for sock in sockets or []]
        self.started = True

    @property
    def connections(self) -> int:
        """The connections open now."""
        return len(self.server_state.connections)


def uvicorn_config(app: Any, limits: ConnectionLimits, http_parser_class: type | None = None,
                   grace_seconds: float = 10.0) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` with the guarded protocol and the idle timeout."""
    # proxy_headers off: the client's address is the guard's to tell, from --trusted-proxy only, the same
    # for gRPC and REST (uvicorn would believe X-Forwarded-For from 127.0.0.1 by default)
    return uvicorn.Config(app, log_config=None, access_log=False, lifespan="off", proxy_headers=False,
                          http=http_parser_class or protocol_class(limits),
                          timeout_keep_alive=limits.http_idle_timeout,  # type: ignore[arg-type]
                          timeout_graceful_shutdown=int(grace_seconds))


__all__ = ["AddressCounts", "GuardedHttpProtocol", "HttpServer", "protocol_class", "refusal", "uvicorn_config"]
