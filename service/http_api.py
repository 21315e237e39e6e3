"""The REST/JSON transport: the same core, the same messages, in protobuf's JSON mapping.

Each route of :data:`ROUTES` parses its request message from the path, the query string and/or the
JSON body (``json_format.ParseDict``: field names as in the .proto, lowerCamelCase also accepted),
calls the core method of the RPC, and answers with the response message as JSON (proto field names,
every field present). Errors are ``{"error": {"code", "status", "reason", "message", "metadata"}}``
with the HTTP status mapped from the gRPC code (service.errors.HTTP_STATUS). WatchMatch is
server-sent events. ``/openapi.json`` is generated from the route table and the proto descriptors.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any, AsyncIterator

import structlog
from fastapi import FastAPI, Request
from grpc import StatusCode
from starlette.exceptions import HTTPException
from fastapi.responses import JSONResponse, Response, StreamingResponse
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from service.convert import whole_numbers
from service.core import (
    MAX_EVENTS_PAGE, MAX_HEARTBEAT_SECONDS, MAX_MATCHES_PAGE, MAX_PLAYER_NAME, MAX_REQUEST_ID, SEAT_TOKEN,
    CallContext, MatchService,
)
from service.errors import ServiceError
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.grpc_api import SERVICE, as_service_error, bearer_token, snake

log = structlog.get_logger("typhoon.http")


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    rpc: str
    summary: str
    body: bool = False
    authenticated: bool = False

    @property
    def path_params(self) -> list[str]:
        return [part[1:-1] for part in self.path.split("/") if part.startswith("{")]


ROUTES: tuple[Route, ...] = (
    Route("POST", "/v1/matches", "CreateMatch", "Create a match (optionally claiming seats)", body=True),
    Route("GET", "/v1/matches", "ListMatches", "List matches, newest first"),
    Route("GET", "/v1/matches/{match_id}", "GetMatch", "A match and its game state"),
    Route("POST", "/v1/matches/{match_id}/join", "JoinMatch", "Claim a seat; returns its token once", body=True),
    Route("GET", "/v1/matches/{match_id}/legal-actions", "ListLegalActions", "The legal actions of the side to act"),
    Route("POST", "/v1/matches/{match_id}/actions", "SubmitAction", "Apply an action for your seat", body=True,
          authenticated=True),
    Route("POST", "/v1/matches/{match_id}/resign", "Resign", "Resign your side", body=True, authenticated=True),
    Route("GET", "/v1/matches/{match_id}/events", "GetEventLog", "The event log, a page at a time"),
    Route("GET", "/v1/matches/{match_id}/watch", "WatchMatch",
          "Server-sent events: every event after the cursor, then live (Last-Event-ID resumes)"),
    Route("GET", "/v1/scenarios", "ListScenarios", "The scenarios, and every match option with its rule"),
    Route("GET", "/v1/scenarios/{scenario_id}", "GetScenario",
          "A scenario in full: map, counters, combat table, weather, turn track, set-up, victory points"),
)


def to_json(message: Message) -> dict[str, Any]:
    """A message in the API's JSON form: proto field names, every field present, whole numbers as ints."""
    return whole_numbers(json_format.MessageToDict(message, preserving_proto_field_name=True,
                                                   always_print_fields_with_no_presence=True))


def error_response(error: ServiceError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if error.http_status == 401 else None
    return JSONResponse(error.to_json(), status_code=error.http_status, headers=headers)


def _malformed(message: str) -> ServiceError:
    return ServiceError(StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", message)


#: The largest request body accepted (a request message is a few hundred bytes).
MAX_BODY = 64 * 1024


async def _body(request: Request) -> bytes:
    """The request body, refused (413) once it passes MAX_BODY, before the rest is read."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise _too_large()
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise _too_large()
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large() -> ServiceError:
    return ServiceError(StatusCode.INVALID_ARGUMENT, "BODY_TOO_LARGE",
                        f"the request body is larger than {MAX_BODY} bytes", http_status=413)


async def _parse(route: Route, request: Request, message_type: type[Message]) -> Message:
    data: dict[str, Any] = {}
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
            if not isinstance(data, dict):
                raise _malformed("the body must be a JSON object")
    else:
        data.update(request.query_params)
    data.update(request.path_params)
    if route.rpc == "WatchMatch" and request.headers.get("last-event-id", "").isdigit():
        data["after_sequence"] = request.headers["last-event-id"]
    try:
        return json_format.ParseDict(data, message_type())
    except json_format.ParseError as error:
        raise _malformed(str(error)) from None


def _endpoint(route: Route, core: MatchService):
    method = SERVICE.methods_by_name[route.rpc]
    message_type = api.DESCRIPTOR.message_types_by_name[method.input_type.name]
    request_type = getattr(api, message_type.name)
    core_method = getattr(core, snake(route.rpc))

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        request_id = request.headers.get("x-request-id") or uuid.uuid4().hex
        with structlog.contextvars.bound_contextvars(rpc=route.rpc, transport="http", request_id=request_id,
                                                     match_id=request.path_params.get("match_id")):
            try:
                message = await _parse(route, request, request_type)
                if getattr(message, "request_id", ""):
                    structlog.contextvars.bind_contextvars(request_id=message.request_id)
                ctx = CallContext(token=bearer_token(request.headers.get("authorization")))
                if method.server_streaming:
                    with core.admit(counted=False):
                        stream = await core_method(message, ctx)
                    log.info("rpc", code="OK", streaming=True, ms=round((time.perf_counter() - started) * 1000, 2))
                    context = structlog.contextvars.get_contextvars()
                    return StreamingResponse(_sse(stream, core, context, message.after_sequence),
                                             media_type="text/event-stream",
                                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
                with core.admit():
                    response = await core_method(message, ctx)
            except Exception as error:  # noqa: BLE001 - every failure becomes an error body
                failure = as_service_error(error)
                log.info("rpc", code=failure.code.name, reason=failure.reason,
                         ms=round((time.perf_counter() - started) * 1000, 2))
                return error_response(failure)
            log.info("rpc", code="OK", ms=round((time.perf_counter() - started) * 1000, 2))
            return JSONResponse(to_json(response))

    endpoint.__name__ = snake(route.rpc)
    return endpoint


def _sse_frame(event: str, data: dict[str, Any], event_id: int | None = None) -> bytes:
    lines = [f"id: {event_id}"] if event_id is not None else []
    lines += [f"event: {event}", "data: " + json.dumps(data, separators=(",", ":")), "", ""]
    return "\n".join(lines).encode()


async def _sse(stream: AsyncIterator[api.WatchMatchResponse], core: MatchService,
               context: dict[str, Any], after_sequence: int) -> AsyncIterator[bytes]:
    """WatchMatch as server-sent events: ``match_event`` (id = sequence), ``heartbeat``, and a last
    ``end`` event saying whether the match is finished (else the server is shutting down: resume from
    its ``last_sequence``)."""
    last = after_sequence
    with structlog.contextvars.bound_contextvars(**context):
        try:
            async for item in stream:
                if item.WhichOneof("kind") == "event":
                    last = item.event.sequence
                    yield _sse_frame("match_event", to_json(item.event), item.event.sequence)
                else:
                    yield _sse_frame("heartbeat", to_json(item.heartbeat))
            yield _sse_frame("end", {"finished": not core.hub.closing, "last_sequence": last})
        except Exception as error:  # noqa: BLE001 - the status line is sent; report in-band
            failure = as_service_error(error)
            yield _sse_frame("error", failure.to_json())
        finally:
            await stream.aclose()


def create_app(core: MatchService) -> FastAPI:
    app = FastAPI(title="Typhoon", version="v1", openapi_url="/openapi.json", redirect_slashes=False,
                  description="Battle for Moscow matches; see docs/API.md")

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
        return response

    app.add_exception_handler(HTTPException, framework_error)
    for route in ROUTES:
        app.add_api_route(route.path, _endpoint(route, core), methods=[route.method], include_in_schema=False)

    async def healthz() -> Response:
        try:
            await core.store.ping()
        except Exception:  # noqa: BLE001
            return JSONResponse({"status": "NOT_SERVING"}, status_code=503)
        return JSONResponse({"status": "SERVING"})

    app.add_api_route("/healthz", healthz, methods=["GET"], include_in_schema=False)
    document = openapi_document()
    app.openapi = lambda: document  # type: ignore[method-assign]
    return app


# --- OpenAPI ---------------------------------------------------------------------------------------

_SCALARS = {
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}
_WELL_KNOWN = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?\d+(\.\d{1,9})?s$",
                                 "description": "a duration in seconds, e.g. \"300s\" or \"2.5s\""},
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {"description": "any JSON value"},
    "google.protobuf.ListValue": {"type": "array"},
}

#: Fields without which the core refuses a request (MISSING_FIELD).
_REQUIRED = {"SubmitActionRequest": ["action"]}

#: What the core refuses beyond the types (0 is "the default" wherever a number has one).
_TOKEN_PATTERN = {"pattern": f"^({SEAT_TOKEN.pattern})?$"}
_LIMITS: dict[tuple[str, str], dict[str, Any]] = {
    ("ListMatchesRequest", "page_size"): {"minimum": 0, "maximum": MAX_MATCHES_PAGE},
    ("GetEventLogRequest", "page_size"): {"minimum": 0, "maximum": MAX_EVENTS_PAGE},
    ("GetEventLogRequest", "after_sequence"): {"minimum": 0},
    ("WatchMatchRequest", "after_sequence"): {"minimum": 0},
    ("WatchMatchRequest", "heartbeat_seconds"): {"minimum": 0, "maximum": MAX_HEARTBEAT_SECONDS},
    ("SubmitActionRequest", "request_id"): {"maxLength": MAX_REQUEST_ID},
    ("ResignRequest", "request_id"): {"maxLength": MAX_REQUEST_ID},
    ("CreateMatchRequest", "request_id"): {"maxLength": MAX_REQUEST_ID},
    ("SeatClaim", "player_name"): {"maxLength": MAX_PLAYER_NAME},
    ("SeatClaim", "seat_token"): _TOKEN_PATTERN,
    ("JoinMatchRequest", "seat_token"): _TOKEN_PATTERN,
    ("JoinMatchRequest", "player_name"): {"maxLength": MAX_PLAYER_NAME},
}


def _schema_name(descriptor: Descriptor | EnumDescriptor) -> str:
    return descriptor.full_name.removeprefix("typhoon.v1.")


def _field_schema(field: FieldDescriptor, schemas: dict[str, Any]) -> dict[str, Any]:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        message = field.message_type
        if message.GetOptions().map_entry:
            return {"type": "object", "additionalProperties": _field_schema(message.fields_by_name["value"], schemas)}
        item = _WELL_KNOWN.get(message.full_name) or {"$ref": f"#/components/schemas/{_schema_name(message)}"}
        if "$ref" in item:
            _message_schema(message, schemas)
    elif field.type == FieldDescriptor.TYPE_ENUM:
        item = {"type": "string", "enum": [v.name for v in field.enum_type.values]}
    else:
        item = dict(_SCALARS[field.type]) | _LIMITS.get((field.containing_type.name, field.name), {})
    if field.is_repeated:
        return {"type": "array", "items": item}
    return item


def _message_schema(message: Descriptor, schemas: dict[str, Any]) -> None:
    name = _schema_name(message)
    if name in schemas:
        return
    schemas[name] = {}  # placeholder against recursion
    schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
    for field in message.fields:
        schema["properties"][field.name] = _field_schema(field, schemas)
    if name in _REQUIRED:
        schema["required"] = _REQUIRED[name]
    oneofs = [o for o in message.oneofs if not o.name.startswith("_")]
    for oneof in oneofs:
        schema["description"] = (f"exactly one of {', '.join(f.name for f in oneof.fields)} "
                                 f"(the oneof '{oneof.name}')")
    schemas[name] = schema


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3 document of the REST API, from ROUTES and the proto descriptors."""
    schemas: dict[str, Any] = {
        "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {
            "code": {"type": "integer", "description": "the HTTP status"},
            "status": {"type": "string", "description": "the gRPC code name, e.g. INVALID_ARGUMENT"},
            "reason": {"type": "string", "description": "machine-readable reason, e.g. STOPPED_BY_ZOC"},
            "message": {"type": "string", "description": "a sentence for people"},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}}}}}}}
    paths: dict[str, Any] = {}
    for route in ROUTES:
        method = SERVICE.methods_by_name[route.rpc]
        _message_schema(method.input_type, schemas)
        _message_schema(method.output_type, schemas)
        parameters = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                      for p in route.path_params]
        if not route.body:
            for field in method.input_type.fields:
                if field.name not in route.path_params:
                    parameters.append({"name": field.name, "in": "query", "required": False,
                                       "schema": _field_schema(field, schemas)})
        if route.rpc == "WatchMatch":
            parameters.append({"name": "Last-Event-ID", "in": "header", "required": False,
                               "schema": {"type": "string"},
                               "description": "resume after this sequence (overrides after_sequence)"})
        operation: dict[str, Any] = {
            "operationId": route.rpc, "summary": route.summary, "tags": ["MatchService"],
            "parameters": parameters,
            "responses": {"default": {"description": "an error",
                                      "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}
        if route.body:
            required = _schema_name(method.input_type) in _REQUIRED  # a body without them is refused
            operation["requestBody"] = {"required": required, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{_schema_name(method.input_type)}"}}},
                "description": "the request message; path parameters override the same fields"}
        if method.server_streaming:
            operation["responses"]["200"] = {
                "description": "text/event-stream: `match_event` events (id = sequence, data = MatchEvent), "
                               "`heartbeat` events (data = Heartbeat), then `end` ({finished, last_sequence}) "
                               "or `error` (data = Error)",
                "content": {"text/event-stream": {"schema": {"type": "string"}}}}
        else:
            operation["responses"]["200"] = {"description": "OK", "content": {"application/json": {"schema": {
                "$ref": f"#/components/schemas/{_schema_name(method.output_type)}"}}}}
        if route.authenticated:
            operation["security"] = [{"seatToken": []}]
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Typhoon", "version": "v1",
                 "description": "Battle for Moscow matches over REST/JSON: the typhoon.v1.MatchService messages in "
                                "protobuf's JSON mapping (proto field names). See docs/API.md."},
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {"seatToken": {
            "type": "http", "scheme": "bearer", "description": "the seat token from CreateMatch or JoinMatch"}}},
    }
