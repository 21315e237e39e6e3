"""The OpenAPI 3.1 document of the REST API, generated from the route table and the proto descriptors,
written for code generators:

- a response field is ``required`` when the service always sends it (every field without presence:
  scalars, enums, lists and maps; message fields and ``optional`` fields only when set);
- a request message is its own schema (``...Request``), and a message that requests and responses
  share gets an ``...Input`` variant wherever what a caller must send differs from what the service
  sends;
- a oneof (``Action.kind``, ``Event.kind``, ``MatchEvent.kind``...) is a ``oneOf`` of one schema per
  member, each requiring its member's property (the protobuf JSON form names the member by its key);
- closed sets of strings (sides, phases, weather, terrain, step, winner) are ``enum``s, from the engine;
- the server-sent events of WatchMatch and of the ladder's Seek are ``text/event-stream``, whose schema
  is that of one event's ``data`` (``WatchEventData``: a oneOf of the payloads), as the generated
  SSE clients that yield each event's parsed data read it; ``WatchEvent`` (``SeekEvent``) describes
  each event whole, ``{event, id, data}``, a oneOf discriminated by the SSE event type (``match_event``,
  ``match_update``, ``heartbeat``, ``end``, ``error``; Seek's: ``match``, ``heartbeat``,
  ``match_update``, ``end``, ``error``), for a consumer that parses the frames itself.

Nothing names a particular service or message: a route of any RPC in the descriptor pool comes out
the same way.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pool
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor

import engine
from engine.data import SIDES
from engine.dice import COMMITMENT, ENTROPY
from engine.sequence import PHASES_BY_NAME
from service.api.routes import ROUTES
from service.ladder import core as ladder
from service.match.core import (
    MAX_EVENTS_PAGE,
    MAX_HEARTBEAT_SECONDS,
    MAX_MATCHES_PAGE,
    MAX_PLAYER_NAME,
    SEAT_TOKEN,
)
from service.request_ids import REQUEST_ID

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
_PACKAGE = "typhoon.v1."


def _weather_ids() -> list[str]:
    return sorted({w for s in engine.scenario_ids() for w in engine.describe_scenario(s)["weather"]})


#: Closed sets of strings, by field name ("" where the service sends an empty string for "none").
_SIDES = list(SIDES)
_ENUMS: dict[str, list[str]] = {
    "side": _SIDES, "points_to": _SIDES, "sides": _SIDES, "side_to_act": [*_SIDES, ""], "setup": [*_SIDES, ""],
    "winner": [*_SIDES, "draw"], "phase": list(PHASES_BY_NAME), "terrain": ["clear", "forest"],
    "strength": ["full", "half"], "soviet_strength": ["full", "half"], "german_strength": ["full", "half"],
    "movers": ["panzer", "all", "rail", ""], "outcome": ["passed", "failed", "not_checked"],
}
#: Fields whose name alone does not say it (message, field) -> values.
_FIELD_ENUMS: dict[tuple[str, str], list[str]] = {
    ("TurnPhase", "kind"): ["setup", "supply", "replacement", "movement", "combat"],
    ("TurnPhase", "name"): list(PHASES_BY_NAME),
    ("Counter", "type"): ["infantry", "panzer", "tank"],
    ("Counter", "size"): ["corps", "army"],
    ("JoinMatchRequest", "side"): [*_SIDES, ""],
    ("GameState", "city_control"): _SIDES,
    ("LadderGame", "outcome"): ["win", "loss", "draw", "aborted"],
    ("LadderGame", "unrated_reason"): ["", "aborted", "early", "pair_limit", "owner_pair_limit"],
}
_WEATHER_FIELDS = {("GameState", "weather"), ("Event.TurnStarted", "weather"), ("Event.WeatherChanged", "weather"),
                   ("TurnRecord", "weather"), ("WeatherRules", "id")}

#: Fields without which the core refuses a request (MISSING_FIELD).
_REQUIRED_INPUT = {"SubmitActionRequest": ["action"], "RegisterPlayerRequest": ["name"], "RegisterOwnerRequest": ["name"]}

#: What the core refuses beyond the types (0 is "the default" wherever a number has one).
_TOKEN_PATTERN = {"pattern": f"^({SEAT_TOKEN.pattern})?$"}
_REQUEST_ID_PATTERN = {"pattern": f"^({REQUEST_ID.pattern})?$"}
_ENTROPY_PATTERN = {"pattern": f"^({ENTROPY.pattern})?$"}
_COMMITMENT_PATTERN = {"pattern": f"^({COMMITMENT.pattern})?$"}
_LIMITS: dict[tuple[str, str], dict[str, Any]] = {
    ("ListMatchesRequest", "page_size"): {"minimum": 0, "maximum": MAX_MATCHES_PAGE},
    ("GetEventLogRequest", "page_size"): {"minimum": 0, "maximum": MAX_EVENTS_PAGE},
    ("GetEventLogRequest", "after_sequence"): {"minimum": 0},
    ("WatchMatchRequest", "after_sequence"): {"minimum": 0},
    ("WatchMatchRequest", "heartbeat_seconds"): {"minimum": 0, "maximum": MAX_HEARTBEAT_SECONDS},
    ("GetMatchRequest", "version"): {"minimum": 0},
    ("SubmitActionRequest", "request_id"): _REQUEST_ID_PATTERN,
    ("ResignRequest", "request_id"): _REQUEST_ID_PATTERN,
    ("CreateMatchRequest", "request_id"): _REQUEST_ID_PATTERN,
    ("SeatClaim", "player_name"): {"maxLength": MAX_PLAYER_NAME},
    ("SeatClaim", "seat_token"): _TOKEN_PATTERN,
    ("JoinMatchRequest", "seat_token"): _TOKEN_PATTERN,
    ("JoinMatchRequest", "player_name"): {"maxLength": MAX_PLAYER_NAME},
    ("SeatClaim", "entropy_commitment"): _COMMITMENT_PATTERN,
    ("JoinMatchRequest", "entropy_commitment"): _COMMITMENT_PATTERN,
    ("ContributeEntropyRequest", "entropy"): _ENTROPY_PATTERN,  # the reveal, or the commitment (one of the two)
    ("ContributeEntropyRequest", "commitment"): {"pattern": f"^({COMMITMENT.pattern}|none)?$"},
    ("RegisterPlayerRequest", "name"): {"minLength": 1, "maxLength": ladder.MAX_NAME},
    ("RegisterPlayerRequest", "owner"): {"maxLength": 0},  # retired: refused if set
    ("RegisterPlayerRequest", "api_key"): {"maxLength": 0},
    ("RegisterPlayerRequest", "request_id"): _REQUEST_ID_PATTERN,
    ("RegisterOwnerRequest", "name"): {"minLength": 1, "maxLength": ladder.MAX_NAME},
    ("RegisterOwnerRequest", "request_id"): _REQUEST_ID_PATTERN,
    ("RotatePlayerKeyRequest", "request_id"): _REQUEST_ID_PATTERN,
    ("RotateOwnerKeyRequest", "request_id"): _REQUEST_ID_PATTERN,
    ("RegisterPlayerRequest", "description"): {"maxLength": ladder.MAX_DESCRIPTION},
    ("SeekRequest", "heartbeat_seconds"): {"minimum": 0, "maximum": ladder.MAX_HEARTBEAT_SECONDS},
    ("SeekRequest", "concurrency"): {"minimum": 0},
    ("GetLeaderboardRequest", "page_size"): {"minimum": 0, "maximum": ladder.MAX_PAGE},
    ("ListPlayerMatchesRequest", "page_size"): {"minimum": 0, "maximum": ladder.MAX_PAGE},
}


def schema_name(message: Descriptor) -> str:
    return message.full_name.removeprefix(_PACKAGE)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


#: Message fields the service leaves out when there is nothing to say (every other one it always sets).
_SOMETIMES_ABSENT = {("Seat", "claimed_at"), ("Match", "result"), ("GameState", "pending_decision"),
                     ("GameState", "result"), ("ListLegalActionsResponse", "pending_decision"),
                     ("Match", "time_control"), ("Match", "clock"), ("MatchEvent.MatchCreated", "time_control"),
                     ("Clock", "since"), ("Clock", "deadline"), ("TimeControl", "first_action"),
                     ("MatchUpdate", "clock"), ("MatchUpdate", "result"), ("MatchUpdate", "legal_actions"),
                     ("MatchUpdate", "state")}


def _always_sent(field: FieldDescriptor) -> bool:
    """The JSON form always has it: responses print every field without presence, and the service sets
    every message field but those of _SOMETIMES_ABSENT (``optional`` scalars only when set)."""
    if field.type == FieldDescriptor.TYPE_MESSAGE and not field.is_repeated:
        return (schema_name(field.containing_type), field.name) not in _SOMETIMES_ABSENT
    return not field.has_presence


def _real_oneofs(message: Descriptor) -> list:
    return [oneof for oneof in message.oneofs if not (len(oneof.fields) == 1 and oneof.name == "_" + oneof.fields[0].name)]


class _Schemas:
    """The components/schemas of the document, built on demand, output and input variants."""

    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {}
        self._input_names: dict[str, str] = {}

    def output(self, message: Descriptor) -> str:
        name = schema_name(message)
        if name not in self.schemas:
            self.schemas[name] = {}  # placeholder against recursion
            self.schemas[name], variants = self._message(message, name, output=True)
            self.schemas.update(variants)
        return name

    def input(self, message: Descriptor) -> str:
        """The schema of what a caller sends: ``<Name>`` for request messages (and messages identical
        both ways), ``<Name>Input`` where it differs from what the service sends."""
        full = message.full_name
        if full in self._input_names:
            return self._input_names[full]
        base = schema_name(message)
        self._input_names[full] = base if base.endswith("Request") else base + "Input"
        candidate, variants = self._message(message, self._input_names[full], output=False)
        if not base.endswith("Request"):
            self.output(message)
            if _same(candidate, self.schemas[base], self._input_names[full], base) and all(
                    _same(v, self.schemas[k.replace(self._input_names[full] + ".", base + ".", 1)],
                          self._input_names[full], base) for k, v in variants.items()):
                self._input_names[full] = base
                return base
        self.schemas[self._input_names[full]] = candidate
        self.schemas.update(variants)
        return self._input_names[full]

    def field(self, field: FieldDescriptor, output: bool) -> dict[str, Any]:
        owner = schema_name(field.containing_type)
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            message = field.message_type
            if message.GetOptions().map_entry:
                value = self.field(message.fields_by_name["value"], output)
                values = _FIELD_ENUMS.get((owner, field.name))
                return {"type": "object", "additionalProperties": {**value, "enum": values} if values else value}
            item = dict(_WELL_KNOWN.get(message.full_name) or
                        _ref(self.output(message) if output else self.input(message)))
        elif field.type == FieldDescriptor.TYPE_ENUM:
            item = {"type": "string", "enum": [v.name for v in field.enum_type.values]}
        else:
            item = dict(_SCALARS[field.type]) | _LIMITS.get((owner, field.name), {})
            values = _FIELD_ENUMS.get((owner, field.name)) or _ENUMS.get(field.name)
            if (owner, field.name) in _WEATHER_FIELDS:
                values = _weather_ids()
            if values and field.type == FieldDescriptor.TYPE_STRING:
                item["enum"] = values
        if field.is_repeated:
            return {"type": "array", "items": item}
        return item

    def _message(self, message: Descriptor, name: str, output: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        """The message's schema, and the schemas of its oneof's variants (by name)."""
        oneofs = _real_oneofs(message)
        in_oneof = {f.name for oneof in oneofs for f in oneof.fields}
        properties = {f.name: self.field(f, output) for f in message.fields}
        required = [f.name for f in message.fields if output and _always_sent(f) and f.name not in in_oneof]
        if not output:
            required = list(_REQUIRED_INPUT.get(schema_name(message), []))
        common = {"type": "object", "properties": properties, "additionalProperties": False}
        if not oneofs:
            return common | ({"required": required} if required else {}), {}
        # one schema per member of the (first) oneof: the common fields and that member, required
        (oneof,) = oneofs[:1]
        variants: dict[str, Any] = {}
        for member in oneof.fields:
            variants[f"{name}.{oneof.name}.{member.name}"] = {
                "type": "object", "additionalProperties": False,
                "properties": {k: v for k, v in properties.items() if k not in in_oneof or k == member.name},
                "required": [*required, member.name],
                "description": f"{schema_name(message)} with its oneof '{oneof.name}' set to {member.name}"}
        return {"oneOf": [_ref(variant) for variant in variants],
                "description": f"exactly one of {', '.join(f.name for f in oneof.fields)} (the oneof '{oneof.name}'): "
                               f"the property present says which"}, variants


def _same(a: Any, b: Any, name_a: str, name_b: str) -> bool:
    """Equal schemas, up to their own names (variant refs name their parent)."""
    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, str):
            return value.replace(f"/{name_a}.", f"/{name_b}.")
        return value
    return plain(a) == plain(b)


def _error_schema() -> dict[str, Any]:
    return {"type": "object", "required": ["error"], "additionalProperties": False, "properties": {"error": {
        "type": "object", "required": ["code", "status", "reason", "message"], "additionalProperties": False,
        "properties": {
            "code": {"type": "integer", "description": "the HTTP status"},
            "status": {"type": "string", "description": "the gRPC code name, e.g. INVALID_ARGUMENT"},
            "reason": {"type": "string", "description": "machine-readable reason, e.g. STOPPED_BY_ZOC"},
            "message": {"type": "string", "description": "a sentence for people"},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            "retry_after_seconds": {"type": "integer", "minimum": 1,
                                    "description": "when the refusal says when to try again (RATE_LIMITED, "
                                                   "STORE_FULL): seconds, as the Retry-After header"}}}}}


#: The SSE event type of each member of a stream message's oneof (the others: the member's name), as the
#: REST transport names them (service.api.http_api.SSE_EVENTS).
_SSE_EVENTS = {"event": "match_event", "update": "match_update"}


def _stream_schemas(schemas: _Schemas, method: MethodDescriptor) -> tuple[str, str]:
    """The server-sent events of a streaming RPC: one event type per member of its response's oneof
    (``match_event``, ``match_update``, ``heartbeat``...), then ``end`` and ``error``. Two descriptions
    of them, for the two ways generators read a ``text/event-stream`` response:

    - ``WatchEvent`` (``SeekEvent``): one schema per event as the SSE format has it, ``{event, id?, data}``, a oneOf
      discriminated by ``event`` (what OpenAPI 3.2 calls the item schema): a consumer that parses the
      frames narrows ``data`` by the event type;
    - ``WatchEventData`` (``SeekEventData``): the ``data`` of any of them, a oneOf of their payloads: what a generated SSE
      client that yields each event's parsed ``data`` (@hey-api/openapi-ts) yields.

    Returns the two names."""
    stem = method.name.removesuffix("Match")  # WatchMatch: Watch
    name = stem + "Event"
    kinds: dict[str, tuple[dict[str, Any], str, bool]] = {}  # event type -> data schema, description, has an id
    for member in method.output_type.oneofs_by_name["kind"].fields:
        kind = _SSE_EVENTS.get(member.name, member.name)
        logged = member.message_type.full_name.endswith("MatchEvent")
        kinds[kind] = (_ref(schemas.output(member.message_type)), f"a {member.message_type.name}", logged)
    end = f"{stem}End"
    if method.name == "WatchMatch":
        schemas.schemas[end] = {
            "type": "object", "additionalProperties": False, "required": ["finished", "last_sequence"],
            "properties": {"finished": {"type": "boolean", "description": "false: the server is shutting down; "
                                                                          "resume (anywhere) from last_sequence"},
                           "last_sequence": {"type": "integer", "format": "int32"}}}
    else:
        schemas.schemas[end] = {"type": "object", "additionalProperties": False, "maxProperties": 0,
                                "description": "the server is shutting down: reconnect"}
    kinds["end"] = (_ref(end), "the last event of the stream", False)
    kinds["error"] = (_ref("Error"), "the stream failed after it started", False)
    for kind, (data, description, with_id) in kinds.items():
        properties: dict[str, Any] = {"event": {"type": "string", "enum": [kind]}, "data": data}
        if with_id:
            properties["id"] = {"type": "string", "pattern": "^[0-9]+$",
                                "description": "the entry's sequence (send it back as Last-Event-ID to resume)"}
        schemas.schemas[f"{name}.{kind}"] = {
            "type": "object", "properties": properties, "additionalProperties": False, "description": description,
            "required": ["event", "data", *(["id"] if with_id else [])]}
    schemas.schemas[name] = {
        "oneOf": [_ref(f"{name}.{kind}") for kind in kinds],
        "discriminator": {"propertyName": "event",
                          "mapping": {kind: f"#/components/schemas/{name}.{kind}" for kind in kinds}},
        "description": f"one server-sent event of a {method.name} stream: `event:` its type, `data:` its JSON"
                       + (", `id:` the entry's sequence (match_event only)" if any(k[2] for k in kinds.values())
                          else "")}
    unique = list(dict.fromkeys(data["$ref"] for data, _, _ in kinds.values()))
    schemas.schemas[name + "Data"] = {
        "oneOf": [{"$ref": ref} for ref in unique],
        "description": f"the `data` of one server-sent event of a {method.name} stream; its `event:` says which: "
                       + ", ".join(f"{kind}: {data['$ref'].rsplit('/', 1)[1]}" for kind, (data, _, _) in kinds.items())}
    return name, name + "Data"


def _method(route) -> MethodDescriptor:
    service = getattr(route, "service", "typhoon.v1.MatchService")
    return descriptor_pool.Default().FindServiceByName(service).methods_by_name[route.rpc]


def openapi_document(routes=None) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API (``routes``: service.api.routes.ROUTES by default)."""
    if routes is None:
        routes = ROUTES
    schemas = _Schemas()
    schemas.schemas["Error"] = _error_schema()
    error = {"description": "an error", "content": {"application/json": {"schema": _ref("Error")}}}
    paths: dict[str, Any] = {}
    for route in routes:
        method = _method(route)
        parameters = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                      for p in route.path_params]
        if not route.body:
            for field in method.input_type.fields:
                if field.name not in route.path_params:
                    parameters.append({"name": field.name, "in": "query", "required": False,
                                       "schema": schemas.field(field, output=False)})
        operation: dict[str, Any] = {
            "operationId": route.rpc, "summary": route.summary, "tags": [method.containing_service.name],
            "parameters": parameters, "responses": {"default": error}}
        if route.body:
            required = schema_name(method.input_type) in _REQUIRED_INPUT  # a body without them is refused
            operation["requestBody"] = {"required": required, "content": {"application/json": {
                "schema": _ref(schemas.input(method.input_type))}},
                "description": "the request message; path parameters override the same fields"}
        if method.server_streaming:
            events, data = _stream_schemas(schemas, method)
            if "event" in method.output_type.fields_by_name:  # a match's log: resumable by Last-Event-ID
                parameters.append({"name": "Last-Event-ID", "in": "header", "required": False,
                                   "schema": {"type": "string", "pattern": "^[0-9]*$"},
                                   "description": "resume after this sequence (overrides after_sequence); "
                                                  "EventSource sends it by itself when it reconnects"})
            operation["responses"]["200"] = {
                "description": f"server-sent events, one per message of the stream, each with the event type of "
                               f"the member it sets: {', '.join(schemas.schemas[events]['discriminator']['mapping'])}"
                               f" (the last two close the stream). The schema is that of each event's `data` "
                               f"({data}); {events} describes each event with its type (`event`), `data` and `id`.",
                "content": {"text/event-stream": {"schema": _ref(data)}}}
        else:
            operation["responses"]["200"] = {"description": "OK", "content": {"application/json": {
                "schema": _ref(schemas.output(method.output_type))}}}
        if route.keys:
            operation["security"] = [{scheme: []} for scheme in route.keys]
        elif route.authenticated or route.token_optional:
            scheme = "apiKey" if method.containing_service.name == "LadderService" else "seatToken"
            operation["security"] = [{scheme: []}] if route.authenticated else [{}, {scheme: []}]
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Typhoon", "version": "v1",
                 "description": "Battle for Moscow matches over REST/JSON: the typhoon.v1 messages in protobuf's "
                                "JSON mapping (proto field names). See docs/API.md."},
        "paths": paths,
        "components": {"schemas": dict(sorted(schemas.schemas.items())), "securitySchemes": {
            "seatToken": {"type": "http", "scheme": "bearer", "description": "the seat token from CreateMatch or JoinMatch"},
            "apiKey": {"type": "http", "scheme": "bearer", "description": "a ladder player's API key, from RegisterPlayer"},
            "ownerKey": {"type": "http", "scheme": "bearer", "description": "a ladder owner's key, from RegisterOwner"}}},
    }
