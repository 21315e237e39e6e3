"""The gRPC transport: a thin adapter from ``typhoon.v1.MatchService`` to :class:`service.match.core.MatchService`
(and from ``typhoon.v1.LadderService`` to :class:`service.ladder.core.Ladder`).

Each RPC of the service descriptor is bound to the core method of the same name in snake_case. The
adapter only reads the bearer token from the metadata, asks the guard (``service.guard``: rate limits,
the store's capacity) before the call and tells it of a refusal, maps :class:`ServiceError` to a status
with a ``google.rpc.ErrorInfo`` detail (and a ``google.rpc.RetryInfo`` when the refusal says when to
retry), and logs the call.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import grpc
import structlog
from google.protobuf import any_pb2, duration_pb2, message_factory
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2
from grpc._cython.cygrpc import ExecuteBatchError
from grpc_status import rpc_status
from redis.exceptions import RedisClusterException, RedisError

from service import metrics
from service.api import log_context
from service.api.grpc_connections import StalledStreams
from service.errors import DOMAIN, ServiceError, client_gone, internal_error, unavailable
from service.gen.typhoon.v1 import ladder_service_pb2, match_service_pb2
from service.guard.call_guard import NO_GUARD, CallGuard
from service.match.core import CallContext, MatchService
from service.match.watch_limits import client_address
from service.request_ids import log_reference

log = structlog.get_logger("typhoon.grpc")

SERVICE = match_service_pb2.DESCRIPTOR.services_by_name["MatchService"]
SERVICE_NAME = SERVICE.full_name
LADDER_SERVICE = ladder_service_pb2.DESCRIPTOR.services_by_name["LadderService"]


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def bearer_token(value: str | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` value (None if absent or another scheme)."""
    if not value:
        return None
    scheme, _, token = value.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def status_of(error: ServiceError) -> grpc.Status:
    """The gRPC status of an error: code, message, and an ErrorInfo in grpc-status-details-bin."""
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata))
    details = [detail]
    if error.retry_after is not None:
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=error.retry_after)))
        details.append(retry)
    return rpc_status.to_status(status_pb2.Status(code=error.code.value[0], message=error.message, details=details))


async def end_with(context: grpc.aio.ServicerContext, failure: ServiceError) -> None:
    """End a call with ``failure``'s status: ``context.abort()``, which sends the status alone (a unary
    call whose handler returns with its code set gets an empty message before it), with the AbortError
    it raises caught here and stripped of what it would hold: its traceback holds the handler's frames,
    which hold the call, and the call keeps its AbortError (gRPC raises it again once the handler has
    returned, from its own compiled frames, which hold no locals). Left whole, that was a reference
    cycle for every refused call, with its metadata and request, that only a full garbage collection
    frees, rare in a serving process (service.run.server.GC_THRESHOLDS): 100 calls refused for 10 MB of
    metadata each kept 1 GB. The failure's own traceback, which holds the handler's frame (and the frame
    the failure), is dropped for the same reason."""
    status = status_of(failure)
    failure.__traceback__ = None
    try:
        await context.abort(status.code, status.details, status.trailing_metadata)
    except grpc.aio.AbortError as aborted:
        # raised in the handler's except clause: its context is the failure being handled, with its frames
        aborted.__traceback__ = aborted.__context__ = aborted.__cause__ = None
    except ExecuteBatchError:  # the client has gone: nobody to tell
        pass


#: Failures of the match store: redis-py raises its own socket errors as ``redis.ConnectionError`` and
#: ``redis.TimeoutError`` (RedisErrors), and a Redis Cluster out of reach as RedisClusterException (not one).
STORE_ERRORS = (RedisError, RedisClusterException, TimeoutError)


def as_service_error(error: BaseException) -> ServiceError:
    """The status a call ends with after ``error``: a store failure is logged and counted as one
    (``typhoon_redis_errors_total{where="call"}``); a bare socket error (Python's ConnectionError: a
    reset, a broken pipe) is the client's, as redis-py wraps its own, so it is a client gone, not a store
    failure; anything else is an internal error, logged with its traceback."""
    if isinstance(error, ServiceError):
        return error
    if isinstance(error, STORE_ERRORS):
        log.warning("store_unavailable", error=repr(error))
        metrics.REDIS_ERRORS.labels("call").inc()
        return unavailable()
    if isinstance(error, ConnectionError):
        return client_gone()
    log.exception("internal_error")
    return internal_error()


def _call_context(context: grpc.aio.ServicerContext, request: Any, guard: CallGuard) -> tuple[CallContext, str]:
    metadata = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
    # logged as a short hash: a request id is the client's, and may be all a retry needs
    request_ref = log_reference(getattr(request, "request_id", "") or metadata.get("x-request-id"))
    client = guard.client(client_address(context.peer() or ""), metadata.get("x-forwarded-for"))
    return CallContext(token=bearer_token(metadata.get("authorization")), client=client), request_ref


#: What each line a call logs carries (bound around the call: the core's lines carry them too).
CALL_KEYS = ("rpc", "request_ref", "transport", "match_id")


def _unary(name: str, core: MatchService, guard: CallGuard):
    core_method = _encoded(core, name) or getattr(core, snake(name))
    rpc_guard = guard.for_rpc(name)
    keys = log_context.Keys(*CALL_KEYS)

    async def handler(request, context: grpc.aio.ServicerContext):
        ctx, request_ref = _call_context(context, request, guard)
        started = time.perf_counter()
        bound = keys.bind(name, request_ref, "grpc", getattr(request, "match_id", None) or None)
        try:
            try:
                if isinstance(request, MalformedRequest):
                    raise request.error()
                with core.admit():
                    ctx.admission = await rpc_guard.admit(ctx.token, ctx.client)
                    response = await core_method(request, ctx)
                    await rpc_guard.settle(ctx.admission)
            except Exception as error:  # noqa: BLE001 - every failure becomes a status
                failure = await rpc_guard.refused(as_service_error(error), ctx.client, ctx.token, ctx.admission)
                log.info("rpc", code=failure.code.name, reason=failure.reason,
                         ms=round((time.perf_counter() - started) * 1000, 2))
                metrics.observe_call(name, "grpc", failure.code.name, time.perf_counter() - started)
                await end_with(context, failure)
                return None
            log.info("rpc", code="OK", ms=round((time.perf_counter() - started) * 1000, 2))
            metrics.observe_call(name, "grpc", "OK", time.perf_counter() - started)
            return response
        finally:
            keys.reset(bound)

    handler.__name__ = name
    return handler


def _stream(name: str, core: MatchService, guard: CallGuard, slow_reader_timeout: float = 0.0,
            stalled: StalledStreams | None = None):
    core_method = _encoded(core, name) or getattr(core, snake(name))
    rpc_guard = guard.for_rpc(name)

    async def handler(request, context: grpc.aio.ServicerContext) -> None:
        ctx, request_ref = _call_context(context, request, guard)
        started = time.perf_counter()
        sent = 0
        with structlog.contextvars.bound_contextvars(rpc=name, request_ref=request_ref, transport="grpc",
                                                     match_id=getattr(request, "match_id", None) or None):
            stream = None
            try:
                if isinstance(request, MalformedRequest):
                    raise request.error()
                with core.admit(counted=False):
                    await rpc_guard.admit(ctx.token, ctx.client)
                    stream = await core_method(request, ctx)
                async for item in stream:
                    await _write(context, item, slow_reader_timeout, stalled)
                    sent += 1
            except ExecuteBatchError:  # the client went while a message was being sent: nobody to answer
                log.info("rpc", code="CANCELLED", reason="CLIENT_GONE", sent=sent,
                         ms=round((time.perf_counter() - started) * 1000, 2))
                metrics.observe_call(name, "grpc", "CANCELLED", None)
                return None
            except Exception as error:  # noqa: BLE001
                failure = as_service_error(error)
                await rpc_guard.refused(failure, ctx.client, ctx.token)
                log.info("rpc", code=failure.code.name, reason=failure.reason, sent=sent,
                         ms=round((time.perf_counter() - started) * 1000, 2))
                metrics.observe_call(name, "grpc", failure.code.name, None)
                await end_with(context, failure)
                return None
            finally:
                if stream is not None:
                    # a client gone mid-stream closes this handler: close the core's stream now, in this
                    # call's log context, rather than leave it to the async-generator collector's task
                    await stream.aclose()
            log.info("rpc", code="OK", sent=sent, ms=round((time.perf_counter() - started) * 1000, 2))
            metrics.observe_call(name, "grpc", "OK", None)

    handler.__name__ = name
    return handler


async def _write(context: grpc.aio.ServicerContext, item: Any, slow_reader_timeout: float,
                 stalled: StalledStreams | None = None) -> None:
    """Send one message of a stream; a client that has read nothing for ``slow_reader_timeout`` seconds
    (its flow-control window and the buffers full) is told to watch again from its cursor.

    The send is not cancelled when the time is up: gRPC's Python server never completes a status sent
    after a send it cancelled (each such call was kept for good, its connection closed or not). The
    stream is marked a slow reader then (logged, counted, its connection to be closed by ``stalled``),
    and the send waited for to its end: the client reads at last (it then gets SLOW_READER after what
    was queued) or its connection is closed under it."""
    if not slow_reader_timeout:
        await context.write(item)
        return
    stalls: list[bool] = []
    timer = asyncio.get_running_loop().call_later(slow_reader_timeout, _stalled, context, stalls,
                                                  slow_reader_timeout, stalled)
    try:
        await context.write(item)
    except ExecuteBatchError:
        if stalls:  # its connection closed under it
            raise slow_reader(slow_reader_timeout) from None
        raise
    finally:
        timer.cancel()
    if stalls:
        raise slow_reader(slow_reader_timeout)


def _stalled(context: grpc.aio.ServicerContext, stalls: list[bool], seconds: float,
             stalled: StalledStreams | None) -> None:
    """A send has waited ``seconds`` on a client that reads nothing."""
    stalls.append(True)
    metrics.CONNECTIONS_REFUSED.labels("SLOW_READER").inc()
    log.info("grpc_slow_reader", reason="SLOW_READER", seconds=seconds)
    if stalled is not None:
        stalled.ended(context)


def slow_reader(seconds: float) -> ServiceError:
    """The end of a stream whose client stopped reading: it resumes from its cursor."""
    return ServiceError(grpc.StatusCode.UNAVAILABLE, "SLOW_READER",
                        f"this stream was ended: its client read nothing of it for {seconds:g} seconds; "
                        f"watch again from your cursor (the last event you received)")


class MalformedRequest:
    """What a request that does not parse as its message becomes, so the handler can refuse it like
    any other bad input instead of gRPC answering UNKNOWN."""

    def __init__(self, message_name: str, problem: str) -> None:
        self.message_name = message_name
        self.problem = problem

    def error(self) -> ServiceError:
        return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                            f"the request is not a valid {self.message_name} message: {self.problem}")


def _deserializer(message_class):
    name = message_class.DESCRIPTOR.full_name

    def parse(data: bytes):
        try:
            return message_class.FromString(data)
        except (DecodeError, RecursionError, ValueError) as error:
            return MalformedRequest(name, str(error)[:200] or type(error).__name__)

    return parse


def _encoded(core: Any, name: str):
    """The core's ``<method>_encoded``, if it has one: the same answer (or stream) already serialized
    (built once per state: ListLegalActions; once per event and update: WatchMatch), which the transport
    sends as it is."""
    return getattr(core, snake(name) + "_encoded", None)


def _as_sent(data: bytes) -> bytes:
    return data


def method_handlers(core: MatchService, service=SERVICE, guard: CallGuard = NO_GUARD, slow_reader_timeout: float = 0.0,
                    stalled: StalledStreams | None = None) -> dict[str, grpc.RpcMethodHandler]:
    """Every RPC of the service, bound to the core method of the same (snake_case) name, behind ``guard``; a
    stream whose client reads nothing for ``slow_reader_timeout`` seconds (0: never) is ended, and its
    connection closed by ``stalled`` if its status cannot go out (service.api.grpc_connections)."""
    handlers = {}
    for method in service.methods:
        request_class = message_factory.GetMessageClass(method.input_type)
        response_class = message_factory.GetMessageClass(method.output_type)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _stream(method.name, core, guard, slow_reader_timeout, stalled), request_deserializer=_deserializer(request_class),
                response_serializer=_as_sent if _encoded(core, method.name) else response_class.SerializeToString)
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(method.name, core, guard), request_deserializer=_deserializer(request_class),
                response_serializer=_as_sent if _encoded(core, method.name) else response_class.SerializeToString)
    return handlers


def add_to_server(core: MatchService, server: grpc.aio.Server, service=SERVICE, guard: CallGuard = NO_GUARD,
                  slow_reader_timeout: float = 0.0, stalled: StalledStreams | None = None) -> None:
    """Serve ``service`` (MatchService, or LadderService with a Ladder as ``core``), behind ``guard``."""
    handlers = method_handlers(core, service, guard, slow_reader_timeout, stalled)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))
    server.add_registered_method_handlers(service.full_name, handlers)
