"""The gRPC port's checks on what arrives that gRPC core leaves undone: every call's metadata within the
request-head limit of the HTTP port (``--max-header-bytes``), whatever the client did first.

gRPC core enforces ``grpc.max_metadata_size`` only once the client has acknowledged the server's HTTP/2
settings: before that (a client that sends its calls at once and acknowledges late, or never) it
checks metadata against HTTP/2's default list size of 16 MB, and the advertised limit only as a
random early drop (a 1 MB header was served ~19 times in 20, a 20 KB one every time, by a raw HTTP/2
client: ``loadtests/attacks/grpc_raw.py``). This interceptor refuses every call of every service on
the port (health and reflection too) whose metadata is over the limit, before any handler runs: no
call is served with it, and a stream opened with it ends at once.

What such a call carried is not freed with it: gRPC's server keeps every call's metadata in a reference
cycle of its own (its method lookup's closure) that only the garbage collector frees, and a serving
process collects seldom (service.run.server.GC_THRESHOLDS). Once ``COLLECT_PAST`` bytes of metadata have
been refused, a full collection is made (one for a burst, ``COLLECT_AFTER`` seconds later), and
service.run.memory returns the memory freed. Before the acknowledgement gRPC core itself still parses
up to ``--max-streams-per-connection`` calls a connection, of up to 16 MB each: a raw client's 100
calls of 10 MB on one connection raised the process by ~500 MB for the second it took (then returned).

>>> metadata_size([("authorization", "Bearer abc"), ("x-request-id", "r1")])
101
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import grpc
from grpc import StatusCode

from service.api.grpc_api import end_with
from service.errors import ServiceError
from service.metrics import CONNECTIONS_REFUSED

#: Metadata refused since the last collection past which the refused calls' cycles are collected, and
#: the seconds after which that is done (one full collection for a burst).
COLLECT_PAST = 16 * 2**20
COLLECT_AFTER = 0.5
#: What HTTP/2 counts for each header field besides its name and value (RFC 7541, 4.1).
FIELD_OVERHEAD = 32


def metadata_size(metadata: Sequence[tuple[str, str | bytes]] | None) -> int:
    """The size of a call's metadata as HTTP/2 counts a header list."""
    return sum(len(name) + len(value) + FIELD_OVERHEAD for name, value in metadata or ())


def metadata_too_large(limit: int) -> ServiceError:
    """The refusal of a call whose metadata is over ``limit`` bytes (the HTTP port answers 431).

    >>> error = metadata_too_large(16384)
    >>> error.code.name, error.reason, error.metadata, error.http_status
    ('RESOURCE_EXHAUSTED', 'HEADERS_TOO_LARGE', {'limit': '16384'}, 431)
    """
    return ServiceError(StatusCode.RESOURCE_EXHAUSTED, "HEADERS_TOO_LARGE",
                        f"the call's metadata is larger than {limit} bytes", http_status=431, limit=limit)


class MetadataLimit(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Refuses a call whose metadata is over ``limit`` bytes with RESOURCE_EXHAUSTED ``HEADERS_TOO_LARGE``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        refusal = metadata_too_large(limit)
        self._refused_bytes = 0
        self._collection: asyncio.TimerHandle | None = None

        async def refuse(request: Any, context: grpc.aio.ServicerContext) -> None:
            CONNECTIONS_REFUSED.labels("HEADERS_TOO_LARGE").inc()
            await end_with(context, refusal)
            if self._refused_bytes >= COLLECT_PAST and self._collection is None:
                self._collection = asyncio.get_running_loop().call_later(COLLECT_AFTER, self._collect)

        self._refuse = refuse

        # the request is never parsed: taken as bytes, whatever the method
        self._refusal = grpc.unary_unary_rpc_method_handler(refuse)

    def _collect(self) -> None:
        """Free what the refused calls left in gRPC's own reference cycles (see the module)."""
        self._collection = None
        self._refused_bytes = 0
        gc.collect()

    async def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails],
                                                             Awaitable[grpc.RpcMethodHandler]],
                                handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        size = metadata_size(handler_call_details.invocation_metadata)
        if size > self.limit:
            self._refused_bytes += size
            return self._refusal
        return await continuation(handler_call_details)


__all__ = ["FIELD_OVERHEAD", "MetadataLimit", "metadata_size", "metadata_too_large"]
