"""Closing the connection of a gRPC stream whose client reads nothing: what gRPC's Python server cannot
do for one call.

A watch stream whose client stops reading is marked a slow reader at the slow-reader timeout
(``service.api.grpc_api``), to end with the status SLOW_READER. But HTTP/2 sends a stream's status
after the messages queued before it, and those wait for the client to open its flow-control window: a raw HTTP/2 client that never does (``loadtests/attacks/grpc_raw.py``) kept every
such stream, and what was queued on it, open for good (10 of 10 still open at 75 s), no longer counted
by the watch caps. gRPC's Python server can neither reset one stream (``RST_STREAM``) nor tell whether
its status went out (its call is done once the status is queued; and a status queued behind a send
it cancelled was never completed at all), and such a client answers the keepalive pings. So ``grace`` seconds after a stream is ended as a slow reader (time for a client that
reads again to get its status and the reason) its TCP connection is closed, with a reset, as the HTTP
port closes a connection nobody reads: gRPC core ends every call of the connection and frees what they
held; a client's channel reconnects at its next call, and a watch resumes from its cursor. The
connection is found by its two addresses in ``/proc/net/tcp`` (Linux; elsewhere nothing is closed and
such a stream lasts as long as its connection, ``--grpc-max-connection-age`` at most). A trusted
proxy's connection, which carries other clients' calls, is left alone: the proxy has its own timeout
for a client that does not read.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
import struct
from collections.abc import Callable

import grpc
import structlog

from service.match.watch_limits import client_address

log = structlog.get_logger("typhoon.grpc")

#: Seconds between a stream's end as a slow reader and the close of its connection.
STATUS_GRACE = 5.0


def _hex_address(address: str) -> str:
    """An address as ``/proc/net/tcp{,6}`` writes it (each 32-bit word in the host's byte order).

    >>> _hex_address("127.0.0.1"), _hex_address("::1")[-8:]
    ('0100007F', '01000000')
    """
    packed = ipaddress.ip_address(address).packed
    words = struct.unpack(f"={len(packed) // 4}I", packed)
    return "".join(f"{word:08X}" for word in words)


def connection_inode(local_port: int, peer: str) -> int | None:
    """The inode of this process's TCP socket from ``local_port`` to ``peer`` (a gRPC peer string,
    ``ipv4:10.0.0.1:5000``), or None. (gRPC may serve IPv4 clients on an IPv6 socket: their addresses
    are then IPv4-mapped, in ``/proc/net/tcp6``.)"""
    host, port = client_address(peer), peer.rpartition(":")[2]
    try:
        address = ipaddress.ip_address(host)
        port_hex = f"{int(port):04X}"
    except ValueError:
        return None
    remotes = {"/proc/net/tcp6": f"{_hex_address(str(address) if address.version == 6 else '::ffff:' + host)}:{port_hex}"}
    if address.version == 4:
        remotes["/proc/net/tcp"] = f"{_hex_address(host)}:{port_hex}"
    for table, remote in remotes.items():
        try:
            with open(table) as lines:
                next(lines, None)
                for line in lines:
                    fields = line.split()
                    if fields[2] == remote and int(fields[1].rpartition(":")[2], 16) == local_port:
                        return int(fields[9])
        except OSError:
            continue
    return None


def close_connection(local_port: int, peer: str) -> bool:
    """Close this process's TCP connection from ``local_port`` to ``peer`` with a reset (gRPC core sees it
    end and ends its calls); whether it was found."""
    inode = connection_inode(local_port, peer)
    if inode is None:
        return False
    target = f"socket:[{inode}]"
    try:
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return False
    for name in descriptors:
        try:
            if os.readlink(f"/proc/self/fd/{name}") != target:
                continue
            sock = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue
        try:
            # the descriptor may have been closed and reused since it was read: the copy must still be it
            if sock.getsockname()[1] == local_port and sock.getpeername()[1] == int(peer.rpartition(":")[2]):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.shutdown(socket.SHUT_RDWR)
                return True
        except OSError:
            pass
        finally:
            sock.close()
    return False


class StalledStreams:
    """Closes the connection of a stream ended as a slow reader ``grace`` seconds later (see the module).
    ``port``: the gRPC port (set once listening); ``spared``: whether a peer address is left alone (a
    trusted proxy's)."""

    def __init__(self, spared: Callable[[str], bool] = lambda address: False, grace: float = STATUS_GRACE) -> None:
        self.port = 0
        self.spared = spared
        self.grace = grace
        self.closed = 0
        self._to_close: set[str] = set()  # the connections (peers) to close, each once for all its streams
        self._closing: set[asyncio.Task[None]] = set()

    def ended(self, context: grpc.aio.ServicerContext) -> None:
        """``context``'s stream is a slow reader: close its connection in ``grace`` seconds."""
        peer = context.peer() or ""
        if self.port and peer not in self._to_close and not self.spared(client_address(peer)):
            self._to_close.add(peer)
            asyncio.get_running_loop().call_later(self.grace, self._start_closing, peer)

    def _start_closing(self, peer: str) -> None:
        task = asyncio.ensure_future(self._close(peer))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close(self, peer: str) -> None:
        try:
            if await asyncio.to_thread(close_connection, self.port, peer):
                self.closed += 1
                log.info("grpc_slow_reader_connection_closed", client=client_address(peer), seconds=self.grace)
        finally:
            self._to_close.discard(peer)


__all__ = ["STATUS_GRACE", "StalledStreams", "close_connection", "connection_inode"]
