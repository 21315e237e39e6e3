"""gRPC spoken by hand over one HTTP/2 connection (the ``h2`` package), for attacks and tests: what a gRPC
library would refuse to send or always does for its user.

A gRPC library checks its own metadata against the server's advertised limit before sending, and opens
its flow-control windows as it reads. This client sends whatever metadata it is given (a megabyte,
twenty thousand fields) and opens a window only if told to, so that a stream whose client never reads
can be held open with the socket itself still read (the server's TCP buffers never fill: only HTTP/2's
flow control holds its writes back)::

    async with await RawGrpc.open("127.0.0.1", 50051, window=0) as connection:
        stream = await connection.call("/typhoon.v1.MatchService/WatchMatch", request.SerializeToString())
        await connection.wait(lambda: connection.streams[stream].ended, 60)
        connection.streams[stream].status   # grpc-status, or None if it was reset

Every call is a stream of :class:`RawStream`; the connection's own end (GOAWAY, the socket closed) is
``connection.closed``.
"""

from __future__ import annotations

import asyncio
import base64
import struct
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import hpack
from google.rpc import error_details_pb2, status_pb2

#: The largest flow-control window HTTP/2 allows (a reader that never wants to be held back).
MAX_WINDOW = 2**31 - 1


def framed(message: bytes) -> bytes:
    """A gRPC message on the wire: not compressed, its length, itself.

    >>> framed(b"ab")
    b'\\x00\\x00\\x00\\x00\\x02ab'
    """
    return struct.pack(">BI", 0, len(message)) + message


@dataclass
class RawStream:
    """What one call got: its response headers, its messages' bytes, its trailers, how it ended."""

    stream_id: int
    headers: dict[str, str] = field(default_factory=dict)
    trailers: dict[str, str] = field(default_factory=dict)
    data: bytearray = field(default_factory=bytearray)
    received_bytes: int = 0
    ended: bool = False
    #: the HTTP/2 error code of a RST_STREAM that ended it (None: not reset)
    reset_code: int | None = None

    @property
    def status(self) -> str | None:
        """Its grpc-status (trailers, or headers of a trailers-only answer); None if it has none (yet)."""
        return self.trailers.get("grpc-status") or self.headers.get("grpc-status")

    @property
    def message(self) -> str:
        return self.trailers.get("grpc-message") or self.headers.get("grpc-message") or ""

    @property
    def retry_after(self) -> float | None:
        """The delay of the google.rpc.RetryInfo the status carries (grpc-status-details-bin), if any."""
        encoded = self.trailers.get("grpc-status-details-bin") or self.headers.get("grpc-status-details-bin")
        if not encoded:
            return None
        status = status_pb2.Status.FromString(base64.b64decode(encoded + "=" * (-len(encoded) % 4)))
        for detail in status.details:
            info = error_details_pb2.RetryInfo()
            if detail.Unpack(info):
                return float(info.retry_delay.seconds + info.retry_delay.nanos / 1e9)
        return None

    def messages(self) -> list[bytes]:
        """The whole messages received so far (each without its 5-byte prefix)."""
        found, at = [], 0
        while at + 5 <= len(self.data):
            size = struct.unpack(">I", self.data[at + 1:at + 5])[0]
            if at + 5 + size > len(self.data):
                break
            found.append(bytes(self.data[at + 5:at + 5 + size]))
            at += 5 + size
        return found


class _PlainEncoder(hpack.Encoder):
    """HPACK without Huffman coding: the package's Huffman coder takes minutes for a megabyte (its time
    grows with the square of the size), plain literals take a millisecond."""

    def encode(self, headers, huffman: bool = True):  # type: ignore[no-untyped-def]
        return super().encode(headers, huffman=False)


class RawGrpc:
    """One HTTP/2 connection to a gRPC server (see the module). ``window``: the flow-control window each
    stream starts with and that is opened again as data arrives; ``0``: none, never opened (a client
    that reads nothing of its streams); :data:`MAX_WINDOW`: all it can take. ``keep``: whether received
    data is kept in :attr:`RawStream.data` (an attacker of many streams keeps only counts)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, window: int, authority: str,
                 keep: bool = True) -> None:
        self.reader = reader
        self.writer = writer
        self.window = window
        self.authority = authority
        self.keep = keep
        self.streams: dict[int, RawStream] = {}
        self.closed = False
        #: the error code of a GOAWAY the server sent (None: none)
        self.goaway: int | None = None
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=True, header_encoding="utf-8", validate_outbound_headers=False,
            normalize_outbound_headers=False, validate_inbound_headers=False))
        self.h2.encoder = _PlainEncoder()
        self._changed = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, host: str, port: int, window: int = MAX_WINDOW, source: str | None = None,
                   keep: bool = True, read: bool = True) -> RawGrpc:
        """Connect (from ``source``'s address, if given) and say hello: the preface and the settings.
        ``read`` False: nothing the server sends is read (nor its settings acknowledged) until :meth:`read`."""
        reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0) if source else None,
                                                       limit=2**20)
        connection = cls(reader, writer, window, f"{host}:{port}", keep)
        connection.h2.local_settings = h2.settings.Settings(client=True, initial_values={
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: min(window, MAX_WINDOW),
            h2.settings.SettingCodes.ENABLE_PUSH: 0})
        connection.h2.initiate_connection()
        if window > 65535:  # the connection's own window starts at 64 KB whatever the settings say
            connection.h2.increment_flow_control_window(window - 65535)
        await connection._flush()
        if read:
            connection.read()
        return connection

    def read(self) -> None:
        """Start reading what the server sends (and acknowledging its settings), if not yet."""
        if self._pump is None:
            self._pump = asyncio.create_task(self._read())

    async def __aenter__(self) -> RawGrpc:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.close()

    async def call(self, path: str, request: bytes, metadata: Iterable[tuple[str, str]] = (),
                   end: bool = True) -> int:
        """Start a call of ``path`` (``/package.Service/Method``) with ``request`` (a serialized message)
        and ``metadata`` as given; returns its stream id. ``end``: half-close after the request."""
        stream_id = self.h2.get_next_available_stream_id()
        self.streams[stream_id] = RawStream(stream_id)
        headers = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", self.authority),
                   ("content-type", "application/grpc"), ("te", "trailers"), *metadata]
        self.h2.send_headers(stream_id, headers)
        self.h2.send_data(stream_id, framed(request), end_stream=end)
        await self._flush()
        return stream_id

    async def unary(self, path: str, request: bytes, metadata: Iterable[tuple[str, str]] = (),
                    timeout: float = 30.0) -> RawStream:
        """A whole unary call: what came back once it ended (or ``timeout`` passed, or the connection ended)."""
        deadline = time.monotonic() + timeout
        try:  # a server that stops reading what is sent holds the send itself
            stream_id = await asyncio.wait_for(self.call(path, request, metadata), timeout)
        except TimeoutError:
            stream_id = max(self.streams)
        await self.wait(lambda: self.streams[stream_id].ended or self.closed, max(0.0, deadline - time.monotonic()))
        return self.streams[stream_id]

    async def wait(self, condition: Callable[[], object], timeout: float) -> bool:
        """Wait until ``condition()`` holds (checked as frames arrive) or ``timeout`` passes; whether it holds."""
        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0 or (self.closed and not condition()):
                return bool(condition())
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))
            except TimeoutError:
                pass
        return True

    def open_window(self, stream_id: int, size: int) -> None:
        """Let the server send ``size`` more bytes on a stream (and on the connection)."""
        self.h2.increment_flow_control_window(size)
        self.h2.increment_flow_control_window(size, stream_id)

    async def close(self) -> None:
        """Drop the connection at once (an attacker does not say goodbye)."""
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.wait([self._pump])
        self.closed = True
        self.writer.transport.abort()

    async def _flush(self) -> None:
        data = self.h2.data_to_send()
        if data and not self.writer.is_closing():
            self.writer.write(data)
            try:
                await self.writer.drain()
            except ConnectionError:
                self._end()

    async def _read(self) -> None:
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    events = self.h2.receive_data(data)
                except h2.exceptions.ProtocolError:
                    break
                for event in events:
                    self._on(event)
                await self._flush()
                self._changed.set()
        except ConnectionError:
            pass
        self._end()

    def _end(self) -> None:
        self.closed = True
        self._changed.set()

    def _on(self, event: h2.events.Event) -> None:
        stream = self.streams.get(getattr(event, "stream_id", 0) or 0)
        if isinstance(event, h2.events.ResponseReceived) and stream:
            stream.headers = _decoded(event.headers)
            stream.ended = stream.ended or event.stream_ended is not None  # a trailers-only answer
        elif isinstance(event, h2.events.TrailersReceived) and stream:
            stream.trailers = _decoded(event.headers)
            stream.ended = True
        elif isinstance(event, h2.events.DataReceived) and stream:
            stream.received_bytes += len(event.data)
            if self.keep:
                stream.data += event.data
            if self.window and event.flow_controlled_length:
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded) and stream:
            stream.ended = True
        elif isinstance(event, h2.events.StreamReset) and stream:
            stream.ended = True
            stream.reset_code = int(event.error_code or 0)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.goaway = int(event.error_code or 0)  # the streams it let in may still end


def _decoded(headers: Iterable[tuple[bytes | str, bytes | str]] | None) -> dict[str, str]:
    return {(name.decode() if isinstance(name, bytes) else name): (value.decode() if isinstance(value, bytes) else value)
            for name, value in headers or ()}


__all__ = ["MAX_WINDOW", "RawGrpc", "RawStream", "framed"]
