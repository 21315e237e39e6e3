"""The REST/JSON transport: the same core, the same messages, in protobuf's JSON mapping.

Each route of :data:`service.api.routes.ROUTES` parses its request message from the path, the query string and/or the
JSON body (``json_format.ParseDict``: field names as in the .proto, lowerCamelCase also accepted),
calls the core method of the RPC, and answers with the response message as JSON (proto field names,
every field present). Errors are ``{"error": {"code", "status", "reason", "message", "metadata"}}``
with the HTTP status mapped from the gRPC code (service.errors.HTTP_STATUS). WatchMatch and the
ladder's Seek are server-sent events. ``/openapi.json`` is generated from the route table and the proto descriptors
(service/api/openapi.py); the page is served at ``/`` (service/api/web.py). Browsers on other origins may call
the API when their origin is allowed (``cors_origins``, ``typhoon serve --cors-origin``).
"""

from __future__ import annotations

import json
import re
import time
from collections import OrderedDict
from typing import Any, AsyncIterator

import orjson
import structlog
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from fastapi_offline import FastAPIOffline
from google.protobuf import json_format
from google.protobuf.message import Message
from grpc import StatusCode
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect
from starlette.routing import Match as RouteMatch

from service import metrics
from service.api import json_form, json_input, log_context, web
from service.api.event_stream import EventStreamResponse
from service.api.grpc_api import LADDER_SERVICE, SERVICE, as_service_error, bearer_token, snake
from service.api.openapi import openapi_document
from service.api.routes import ROUTES, SERVICES, Route
from service.errors import ServiceError, client_gone
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.guard.call_guard import NO_GUARD, CallGuard
from service.match import convert
from service.match.cache import ActionTable, Known
from service.match.core import CallContext, MatchService
from service.request_ids import log_reference

log = structlog.get_logger("typhoon.http")


def response_json(message: Message) -> bytes:
    """A response as the body of its answer: :func:`to_json`, encoded."""
    return orjson.dumps(to_json(message))


def legal_actions_json(known: Known) -> bytes:
    """The body of a ListLegalActions answer (the largest and most frequent), the same as
    ``response_json(known.legal_actions())``: each action object is converted once per process."""
    data = to_json(known.legal_head())
    data["actions"] = ACTION_JSON.of(known.engine_actions())
    return orjson.dumps(data)


#: Each action's JSON form (shared: never change one), per action object.
ACTION_JSON: ActionTable[dict[str, Any]] = ActionTable(lambda action: to_json(convert.action_to_proto(action)))

#: RPCs answered from what the core holds rather than from their response message: the core method
#: giving it, and the answer's body.
ANSWER_BODIES = {"ListLegalActions": ("legal_answer", lambda known: known.legal_json(legal_actions_json))}


def to_json(message: Message) -> dict[str, Any]:
    """A message in the API's JSON form: proto field names, every field present, whole numbers as ints."""
    return json_form.message_to_dict(message, whole=True)


def error_response(error: ServiceError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if error.http_status == 401 else {}
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    return JSONResponse(error.to_json(), status_code=error.http_status, headers=headers or None)


def _malformed(message: str) -> ServiceError:
    return ServiceError(StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", message)


#: The largest request body accepted (a request message is a few hundred bytes).
MAX_BODY = 64 * 1024
#: The largest event sequence number (after_sequence is an int32).
MAX_SEQUENCE = 2**31 - 1


async def _body(request: Request) -> bytes:
    """The request body, refused (413) once it passes MAX_BODY, before the rest is read."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        raise _too_large()
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise _too_large()
            chunks.append(chunk)
    except ClientDisconnect:  # gone before its body was all sent: not the service's failure
        raise client_gone() from None
    return b"".join(chunks)


def _too_large() -> ServiceError:
    return ServiceError(StatusCode.INVALID_ARGUMENT, "BODY_TOO_LARGE",
                        f"the request body is larger than {MAX_BODY} bytes", http_status=413)


async def _parse(route: Route, request: Request, message_type: type[Message]) -> Message:
    descriptor = message_type.DESCRIPTOR
    data: dict[str, Any] = {}
    try:
        if route.body:
            raw = await _body(request)
            if raw.strip():
                media_type = request.headers.get("content-type", "application/json").partition(";")[0].strip().lower()
                if media_type != "application/json" and not media_type.endswith("+json"):
                    raise ServiceError(StatusCode.INVALID_ARGUMENT, "UNSUPPORTED_MEDIA_TYPE",
                                       f"the body must be application/json, not {media_type}",
                                       http_status=415)
                try:
                    data = json.loads(raw)
                except (ValueError, RecursionError) as error:
                    raise _malformed(f"the body is not JSON: {str(error) or 'nested too deeply'}") from None
                json_input.check_body(data, descriptor)
        else:
            for name, text in request.query_params.multi_items():
                field = json_input.field_named(descriptor, name)
                if field is None or field.name in route.path_params:
                    raise _malformed(f"there is no query parameter {name!r} on {route.path}; its parameters: "
                                     + (", ".join(f.name for f in descriptor.fields
                                                  if f.name not in route.path_params) or "none"))
                if field.is_repeated:  # ?attackers=A&attackers=B, in order
                    data.setdefault(field.name, []).append(json_input.query_value(field, text))
                    continue
                if field.name in data:  # twice, or by both of its names: which one was meant?
                    raise _malformed(f"the query parameter {field.name!r} is given more than once")
                data[field.name] = json_input.query_value(field, text)
    except RecursionError:
        raise _malformed("the body is nested too deeply") from None
    except ValueError as error:
        raise _malformed(str(error)) from None
    for name, value in request.path_params.items():  # the path names the resource; a body may repeat it
        field = json_input.field_named(descriptor, name)
        given = [data.pop(key) for key in {name, field.json_name if field else name} if key in data]
        other = [item for item in given if item not in ("", value)]
        if other:
            raise _malformed(f"{name} is {other[0]!r} in the body but {value!r} in the path; the path's is the one "
                             f"acted on (leave it out of the body)")
    data.update(request.path_params)
    if route.rpc == "WatchMatch" and "last-event-id" in request.headers:
        data["after_sequence"] = _last_event_id(request.headers["last-event-id"])
    try:
        return json_format.ParseDict(data, message_type())
    except json_format.ParseError as error:  # what the checks above let through; none known
        raise _malformed(f"the request is not a valid {descriptor.name}: {error}") from None


def _last_event_id(value: str) -> int:
    """The cursor a reconnecting EventSource sends (an ``id:`` this service gave: a sequence number)."""
    value = value.strip()
    if not value:
        return 0
    if not re.fullmatch(r"[0-9]{1,10}", value) or int(value) > MAX_SEQUENCE:
        raise ServiceError(StatusCode.INVALID_ARGUMENT, "BAD_CURSOR",
                           f"Last-Event-ID must be an event sequence number this service sent, not {value[:40]!r}")
    return int(value)


def _endpoint(route: Route, core: Any, guard: CallGuard):
    descriptor, module = SERVICES[route.service]
    rpc_guard = guard.for_rpc(route.rpc)
    method = descriptor.methods_by_name[route.rpc]
    request_type = getattr(module, method.input_type.name)
    core_method = getattr(core, snake(route.rpc))
    answer_name, answer_body = ANSWER_BODIES.get(route.rpc, (None, None))
    answer_method = getattr(core, answer_name) if answer_name else None

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        request_ref = log_reference(request.headers.get("x-request-id"))  # a short hash: see service.request_ids
        client = guard.client(request.client.host if request.client else "",
                              ",".join(request.headers.getlist("x-forwarded-for")))
        ctx = CallContext(token=bearer_token(request.headers.get("authorization")), client=client)
        with log_context.bound(rpc=route.rpc, transport="http", request_ref=request_ref,
                               match_id=request.path_params.get("match_id")):
            try:
                with core.admit(counted=not method.server_streaming):
                    ctx.admission = await rpc_guard.admit(ctx.token, client)
                if route.authenticated:  # who is asking, before anything they sent is read
                    with core.admit():
                        if route.service == SERVICE.full_name:
                            await core.check_seat(request.path_params["match_id"], ctx.token)
                        else:
                            await core.check_key(ctx.token)
                message = await _parse(route, request, request_type)
                if getattr(message, "request_id", ""):
                    structlog.contextvars.bind_contextvars(request_ref=log_reference(message.request_id))
                if method.server_streaming:
                    with core.admit(counted=False):
                        stream = await core_method(message, ctx)
                    log.info("rpc", code="OK", streaming=True, ms=round((time.perf_counter() - started) * 1000, 2))
                    if request.method == "HEAD":
                        await stream.aclose()
                        return Response(media_type="text/event-stream", headers=_SSE_HEADERS)
                    metrics.observe_call(route.rpc, "http", "OK", None)
                    context = structlog.contextvars.get_contextvars()
                    frames = _sse(stream, core, context, message.after_sequence) if route.rpc == "WatchMatch" \
                        else _sse_members(stream, core, context)
                    return EventStreamResponse(frames, headers=_SSE_HEADERS)
                with core.admit():
                    if answer_body is None:
                        body = response_json(await core_method(message, ctx))
                    else:
                        body = answer_body(await answer_method(message, ctx))
                    await rpc_guard.settle(ctx.admission)
            except Exception as error:  # noqa: BLE001 - every failure becomes an error body
                failure = await rpc_guard.refused(as_service_error(error), client, ctx.token, ctx.admission)
                log.info("rpc", code=failure.code.name, reason=failure.reason,
                         ms=round((time.perf_counter() - started) * 1000, 2))
                metrics.observe_call(route.rpc, "http", failure.code.name,
                                     None if method.server_streaming else time.perf_counter() - started)
                return error_response(failure)
            log.info("rpc", code="OK", ms=round((time.perf_counter() - started) * 1000, 2))
            metrics.observe_call(route.rpc, "http", "OK", time.perf_counter() - started)
            return Response(body, media_type="application/json")

    endpoint.__name__ = snake(route.rpc)
    return endpoint


_SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _sse_frame(event: str, data: dict[str, Any] | bytes, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    body = data if isinstance(data, bytes) else orjson.dumps(data)
    return f"{head}event: {event}\ndata: ".encode() + body + b"\n\n"


#: The SSE event type of each member of a stream's oneof, where it is not the member's name.
SSE_EVENTS = {"event": "match_event", "update": "match_update"}


#: The JSON of the latest updates, by (match, last sequence, with the seat's view): an update goes to every
#: watcher of its match, converted once.
_UPDATE_JSON: OrderedDict[tuple[str, int, bool], bytes] = OrderedDict()
UPDATES_KEPT = 512


def update_json(update: api.MatchUpdate, core: MatchService) -> bytes:
    """A MatchUpdate as JSON, converted once per change (and seat view) for all the watchers; its legal
    actions (the largest part) as the REST ListLegalActions sends them, when this process holds the state."""
    key = (update.match_id, update.last_sequence, update.HasField("legal_actions"))
    body = _UPDATE_JSON.get(key)
    if body is None:
        known = core.cache.get(update.match_id) if key[2] else None
        if known is None or known.version != update.version:
            body = orjson.dumps(to_json(update))
        else:
            lean = api.MatchUpdate()
            lean.CopyFrom(update)
            lean.ClearField("legal_actions")
            data = to_json(lean)
            data["legal_actions"] = orjson.Fragment(known.legal_json(legal_actions_json))
            body = orjson.dumps(data)
        _UPDATE_JSON[key] = body
        while len(_UPDATE_JSON) > UPDATES_KEPT:
            _UPDATE_JSON.popitem(last=False)
    return body


async def _sse(stream: AsyncIterator[api.WatchMatchResponse], core: MatchService,
               context: dict[str, Any], after_sequence: int) -> AsyncIterator[bytes]:
    """WatchMatch as server-sent events: ``match_event`` (id = sequence), ``match_update`` (where the
    match stands after a change), ``heartbeat``, and a last ``end`` event saying whether the match is
    finished (else the server is shutting down: resume from its ``last_sequence``)."""
    last = after_sequence
    with structlog.contextvars.bound_contextvars(**context):
        try:
            async for item in stream:
                kind = item.WhichOneof("kind")
                if kind == "event":
                    last = item.event.sequence
                    yield _sse_frame("match_event", to_json(item.event), item.event.sequence)
                elif kind == "update":
                    last = max(last, item.update.last_sequence)  # updates_only: no entry says where it is
                    yield _sse_frame("match_update", update_json(item.update, core))
                else:
                    yield _sse_frame("heartbeat", to_json(item.heartbeat))
            yield _sse_frame("end", {"finished": not core.hub.closing, "last_sequence": last})
        except Exception as error:  # noqa: BLE001 - the status line is sent; report in-band
            failure = as_service_error(error)
            yield _sse_frame("error", failure.to_json())
        finally:
            await stream.aclose()


async def _sse_members(stream: AsyncIterator[Message], core: Any, context: dict[str, Any]) -> AsyncIterator[bytes]:
    """A stream of oneof responses (Seek) as server-sent events named by the member set (``match``,
    ``heartbeat``, ``match_update``), then ``end`` (the server is shutting down: reconnect) or ``error``."""
    with structlog.contextvars.bound_contextvars(**context):
        try:
            async for item in stream:
                kind = item.WhichOneof("kind")
                member = getattr(item, kind)
                if isinstance(member, api.MatchUpdate):
                    yield _sse_frame(SSE_EVENTS.get(kind, kind), update_json(member, core.core))
                else:
                    yield _sse_frame(SSE_EVENTS.get(kind, kind), to_json(member))
            yield _sse_frame("end", {})
        except Exception as error:  # noqa: BLE001 - the status line is sent; report in-band
            yield _sse_frame("error", as_service_error(error).to_json())
        finally:
            await stream.aclose()


#: Methods and headers a page on an allowed origin may use (the preflight's answer).
CORS_METHODS = ["GET", "HEAD", "POST"]
CORS_HEADERS = ["Authorization", "Content-Type", "Last-Event-ID", "X-Request-ID"]


#: Answers of at least this many bytes are compressed for clients that accept gzip (the page's files,
#: legal actions, logs); a smaller one gains less than the header costs.
GZIP_MINIMUM = 1024
#: Never compressed: server-sent events go out one event at a time, never held back for a better ratio.
GZIP_EXCLUDED = ("text/event-stream", "image/png")


def create_app(core: MatchService, cors_origins: tuple[str, ...] | list[str] = (), ladder: Any = None,
               page: web.PageSettings | None = None, guard: CallGuard = NO_GUARD) -> FastAPI:
    """The REST app: the API routes, /healthz, /openapi.json and the page. ``cors_origins``: the
    origins (``https://example.org``, or ``*``) whose pages may call the API; none by default.
    ``ladder``: the :class:`service.ladder.core.Ladder` serving the ladder's routes (none without it).
    ``page``: what the page is told (:class:`service.api.web.PageSettings`).
    ``guard``: the rate limits and the store's capacity every API call passes (service.guard)."""

    # /docs (Swagger UI) loads its scripts from this server, not from a CDN, under /docs/ so that they move with
    # it to the admin listener (service.run.operations); no /redoc (its bundle fetches a logo from its makers' site)
    app = FastAPIOffline(title="Typhoon", version="v1", openapi_url="/openapi.json", redirect_slashes=False,
                         redoc_url=None, static_url="/docs/static", description="Battle for Moscow matches; see docs/API.md")

    async def framework_error(request: Request, error: HTTPException) -> Response:
        """Unknown paths and methods answer in the API's error format too."""
        code, reason, message = {
            404: (StatusCode.NOT_FOUND, "NO_SUCH_PATH",
                  f"there is no {request.url.path} in this API (see /openapi.json)"),
            405: (StatusCode.UNIMPLEMENTED, "METHOD_NOT_ALLOWED",
                  f"{request.method} is not allowed on {request.url.path} (see /openapi.json)"),
        }.get(error.status_code, (StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", str(error.detail)))
        response = error_response(ServiceError(code, reason, message, http_status=error.status_code))
        if error.headers:
            response.headers.update(error.headers)
        if error.status_code == 405:
            response.headers["Allow"] = ", ".join(_methods_of(app, request))
        return response

    app.add_exception_handler(HTTPException, framework_error)
    cores = {SERVICE.full_name: core, LADDER_SERVICE.full_name: ladder}
    for route in ROUTES:
        if cores[route.service] is None:
            continue
        methods = [route.method, "HEAD"] if route.method == "GET" else [route.method]
        # a plain Starlette route: the endpoint takes the request and reads it itself, so FastAPI's
        # per-call dependency solving (~5 % of a REST call's CPU, benchmarks/service_floor.py) buys nothing
        app.router.add_route(route.path, _endpoint(route, cores[route.service], guard), methods=methods,
                             include_in_schema=False)

    async def healthz() -> Response:
        """Liveness: the process answers (whether it can serve now is /readyz)."""
        return JSONResponse({"status": "SERVING"})

    app.add_api_route("/healthz", healthz, methods=["GET", "HEAD"], include_in_schema=False)
    document = openapi_document()
    app.openapi = lambda: document  # type: ignore[method-assign]
    web.add_page(app, page)
    # Starlette's gzip (level 6: most of level 9's gain at a third of its CPU)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM, compresslevel=6, exclude_content_types=GZIP_EXCLUDED)
    if cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=CORS_METHODS,
                           allow_headers=CORS_HEADERS, expose_headers=["X-Request-ID"], max_age=600)
    return app


def _methods_of(app: FastAPI, request: Request) -> list[str]:
    """Every method some route serves on the request's path (for the ``Allow`` header of a 405)."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match != RouteMatch.NONE and getattr(route, "methods", None):
            methods |= set(route.methods)
    return sorted(methods)
