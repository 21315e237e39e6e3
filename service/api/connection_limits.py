"""What one connection, and one client address, may hold on the two ports: the limits on slow and greedy
clients, each on by default and sized for a public site (``typhoon serve --help``; deploy/README.md).

A slow client holds a connection without finishing its request (slowloris: a header a byte at a
time), a greedy one opens many connections or streams, sends huge or countless headers, or stops
reading a stream it asked for. On the HTTP port :mod:`service.api.http_connections` enforces these; on
the gRPC port gRPC core does, from the channel arguments of :func:`grpc_options`:

>>> options = dict(grpc_options(ConnectionLimits()))
>>> options["grpc.max_concurrent_streams"], options["grpc.max_metadata_size"], options["grpc.server_handshake_timeout_ms"]
(1000, 16384, 10000)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, fields
from typing import Any

#: Addresses the per-address connection cap leaves alone by default: this host's own, where a local
#: reverse proxy (nginx...) connects from, carrying every client of the site.
LOOPBACK = ("127.0.0.1", "::1")


#: The flow-control window of each gRPC stream the server receives on (HTTP/2's initial 64 KB): what a
#: client may send on a stream before the service has read it.
STREAM_WINDOW_BYTES = 64 * 1024


def _limit(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class ConnectionLimits:
    """The limits: a flag of ``typhoon serve`` each, the field's name with dashes (its help is the
    field's ``help`` metadata)."""

    max_header_bytes: int = _limit(16 * 1024, "the largest request head in bytes (request line and headers); larger: "
                                   "431. On gRPC, the largest metadata; larger: RESOURCE_EXHAUSTED/HEADERS_TOO_LARGE")
    max_headers: int = _limit(100, "the most header fields in a request; more: 431 (on gRPC the size bounds them)")
    request_read_timeout: float = _limit(10.0, "seconds a client has to send a whole request (head and body) once "
                                         "its connection is open or its request began (slowloris; 408 after), "
                                         "and to finish a TLS handshake; on gRPC, the HTTP/2 (and TLS) handshake, "
                                         "and to acknowledge the server's HTTP/2 settings (else GOAWAY)")
    grpc_max_message_bytes: int = _limit(64 * 1024, "the largest gRPC request message in bytes (a REST body's limit "
                                         "is the same); larger: RESOURCE_EXHAUSTED")
    http_idle_timeout: float = _limit(5.0, "seconds an HTTP connection stays open between requests (keep-alive)")
    grpc_idle_timeout: float = _limit(300.0, "seconds a gRPC connection without calls stays open (then GOAWAY: the "
                                      "client reconnects when it needs to); 0: for good")
    grpc_max_connection_age: float = _limit(3600.0, "seconds a gRPC connection lives at most (then GOAWAY; its calls "
                                            "get --grpc-age-grace more, then a watch stream is cut and resumes from "
                                            "its cursor); 0: for good")
    grpc_age_grace: float = _limit(300.0, "seconds the calls of a connection past its age get to finish")
    max_streams_per_connection: int = _limit(1000, "calls at once on one gRPC connection (HTTP/2 "
                                             "SETTINGS_MAX_CONCURRENT_STREAMS); the client queues more. A process's "
                                             "channels to one address share a connection: room for a client's "
                                             "watch streams (--max-watch-streams-per-client) and its calls")
    min_ping_interval: float = _limit(10.0, "the shortest interval between a client's HTTP/2 pings gRPC tolerates; "
                                      "pinging more often twice closes the connection (GOAWAY too_many_pings)")
    keepalive_time: float = _limit(60.0, "seconds between the server's own pings on a quiet gRPC connection")
    keepalive_timeout: float = _limit(20.0, "seconds the server waits for a ping's answer before closing the "
                                      "connection (a peer that vanished)")
    slow_reader_timeout: float = _limit(30.0, "seconds an answer or a stream may wait on a client that reads "
                                        "nothing (its buffers full) before it is ended: the HTTP connection is "
                                        "closed, a gRPC stream ends with UNAVAILABLE/SLOW_READER; a watcher resumes "
                                        "from its cursor; 0: never")
    max_connections_per_address: int = _limit(200, "HTTP connections one client address may hold at once (per "
                                              "process); a request on one more gets 429 and the connection is "
                                              "closed; 0: no cap")
    grpc_max_connections: int = _limit(10_000, "gRPC connections at once (per process); gRPC closes more as they "
                                       "come; 0: no cap")
    connection_cap_exempt: tuple[str, ...] = _limit(LOOPBACK, "addresses or networks (comma-separated) the "
                                                    "per-address cap leaves alone: a local reverse proxy's")

    def __post_init__(self) -> None:
        for name in ("max_header_bytes", "max_headers", "max_streams_per_connection", "grpc_max_message_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name.replace('_', '-')} must be at least 1")
        for each in fields(self):
            value = getattr(self, each.name)
            if isinstance(value, (int, float)) and value < 0:
                raise ValueError(f"{each.name.replace('_', '-')} cannot be negative")
        for network in self.connection_cap_exempt:
            ipaddress.ip_network(network, strict=False)  # ValueError names what is not an address

    def exempt(self, address: str) -> bool:
        """Whether the per-address cap leaves ``address`` alone.

        >>> limits = ConnectionLimits(connection_cap_exempt=("127.0.0.1", "10.1.0.0/16"))
        >>> limits.exempt("10.1.2.3"), limits.exempt("10.2.0.1"), limits.exempt("127.0.0.2")
        (True, False, False)
        """
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in ipaddress.ip_network(network, strict=False) for network in self.connection_cap_exempt)

    def as_args(self) -> list[str]:
        """These limits as ``typhoon serve`` flags (what the supervisor of ``--workers`` passes on).

        >>> ConnectionLimits(max_headers=50).as_args()[2:4]
        ['--max-headers', '50']
        """
        args: list[str] = []
        for each in fields(self):
            value = getattr(self, each.name)
            flag = "--" + each.name.replace("_", "-")
            if isinstance(value, tuple):
                args += [flag, ",".join(value)]
            else:
                args += [flag, str(value)]
        return args


def grpc_options(limits: ConnectionLimits) -> list[tuple[str, int]]:
    """The gRPC server's channel arguments for ``limits``."""
    def ms(seconds: float) -> int:
        return round(seconds * 1000)

    # gRPC core holds the metadata limits only once the client has acknowledged these settings
    # (service.api.grpc_edge checks every call's itself), and closes a connection that does not within the
    # settings timeout. What a connection may make the server hold is bounded by its streams (at most
    # max_concurrent_streams), each with its metadata (max_header_bytes) and the data its window lets in
    # (STREAM_WINDOW_BYTES: no BDP probing grows it; a request message is small).
    options = [("grpc.max_metadata_size", limits.max_header_bytes),
               ("grpc.absolute_max_metadata_size", limits.max_header_bytes),
               ("grpc.server_handshake_timeout_ms", ms(limits.request_read_timeout)),
               ("grpc.http2.settings_timeout", ms(limits.request_read_timeout)),
               ("grpc.max_concurrent_streams", limits.max_streams_per_connection),
               ("grpc.max_receive_message_length", limits.grpc_max_message_bytes),
               ("grpc.http2.bdp_probe", 0),
               ("grpc.http2.lookahead_bytes", STREAM_WINDOW_BYTES),
               ("grpc.http2.min_ping_interval_without_data_ms", ms(limits.min_ping_interval)),
               ("grpc.http2.max_ping_strikes", 2),
               ("grpc.keepalive_permit_without_calls", 1),
               ("grpc.keepalive_time_ms", ms(limits.keepalive_time)),
               ("grpc.keepalive_timeout_ms", ms(limits.keepalive_timeout))]
    if limits.grpc_idle_timeout:
        options.append(("grpc.max_connection_idle_ms", ms(limits.grpc_idle_timeout)))
    if limits.grpc_max_connection_age:
        options += [("grpc.max_connection_age_ms", ms(limits.grpc_max_connection_age)),
                    ("grpc.max_connection_age_grace_ms", ms(limits.grpc_age_grace))]
    if limits.grpc_max_connections:
        options.append(("grpc.max_allowed_incoming_connections", limits.grpc_max_connections))
    return options


__all__ = ["ConnectionLimits", "LOOPBACK", "STREAM_WINDOW_BYTES", "grpc_options"]
