"""Conversions between the engine's values (JSON forms) and the API's protobuf messages.

Engine actions and events map to ``typhoon.v1.Action`` / ``typhoon.v1.Event`` generically: the
``kind`` oneof member named like the engine type (``move``) holds a message whose fields are the
engine's fields. Nothing here knows an individual type, so a new engine type only needs its proto
message and oneof entry (``check_mirror`` lists what is missing; tests/service/test_convert.py runs it).

>>> msg = action_to_proto({"type": "move", "unit": "XLVII", "to": "0704"})
>>> msg.WhichOneof("kind"), msg.move.unit
('move', 'XLVII')
>>> action_from_proto(msg)
{'type': 'move', 'unit': 'XLVII', 'to': '0704'}
"""

from __future__ import annotations

import functools
import json
from typing import Any, Iterable

from google.protobuf import struct_pb2, timestamp_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

import engine
from service.gen.typhoon.v1 import actions_pb2, events_pb2, match_pb2

Action = actions_pb2.Action
Event = events_pb2.Event


class ConversionError(ValueError):
    """A message or JSON value that has no counterpart on the other side."""


# --- the generic engine value <-> oneof message mapping --------------------------------------------

def _to_proto(data: dict[str, Any], container: type[Message]) -> Message:
    kind = data.get("type")
    field = container.DESCRIPTOR.oneofs_by_name["kind"].fields
    member = next((f for f in field if f.name == kind), None)
    if member is None:
        raise ConversionError(f"{container.DESCRIPTOR.full_name} has no member {kind!r}")
    out = container()
    inner = getattr(out, kind)
    inner.SetInParent()
    fields = inner.DESCRIPTOR.fields_by_name
    for name, value in data.items():
        if name == "type" or value is None:
            continue
        target = fields.get(name)
        if target is None:
            raise ConversionError(f"{inner.DESCRIPTOR.full_name} has no field {name!r}")
        try:
            if target.is_repeated:
                getattr(inner, name).extend(value)
            else:
                setattr(inner, name, value)
        except (TypeError, ValueError) as error:
            raise ConversionError(f"{inner.DESCRIPTOR.full_name}.{name}: {error}") from None
    return out


def _from_proto(message: Message, registry: dict[str, type]) -> dict[str, Any]:
    kind = message.WhichOneof("kind")
    if kind is None:
        raise ConversionError(f"{message.DESCRIPTOR.full_name}: no member of kind is set")
    inner = getattr(message, kind)
    engine_type = registry.get(kind)
    required = {name: req for name, _, req in getattr(engine_type, "_fields", ())}
    out: dict[str, Any] = {"type": kind}
    for field in inner.DESCRIPTOR.fields:
        name = field.name
        if field.is_repeated:
            values = list(getattr(inner, name))
            if values or required.get(name, False):
                out[name] = values
        elif field.has_presence:
            if inner.HasField(name):
                out[name] = getattr(inner, name)
        else:
            out[name] = getattr(inner, name)
    return out


def action_to_proto(action: engine.Action | dict[str, Any]) -> actions_pb2.Action:
    data = action.to_json() if isinstance(action, engine.Action) else action
    return _to_proto(data, Action)


def action_from_proto(message: actions_pb2.Action) -> dict[str, Any]:
    """The engine JSON form of an action message (check it with engine.action_from_json)."""
    return _from_proto(message, engine.ACTIONS)


def event_to_proto(event: engine.Event | dict[str, Any]) -> events_pb2.Event:
    data = event.to_json() if isinstance(event, engine.Event) else event
    return _to_proto(data, Event)


def event_from_proto(message: events_pb2.Event) -> dict[str, Any]:
    return _from_proto(message, engine.EVENTS)


# --- checking the mirror ---------------------------------------------------------------------------

_PROTO_TYPES = {
    str: (FieldDescriptor.TYPE_STRING,),
    int: (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT32,
          FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_UINT32),
    bool: (FieldDescriptor.TYPE_BOOL,),
}
_PROTO_NAMES = {str: "string", int: "int32", bool: "bool"}


def check_mirror(registry: dict[str, type], container: type[Message]) -> list[str]:
    """Problems that stop the engine types of ``registry`` converting to ``container`` and back:
    missing oneof members, message names not the engine's class names, missing or mistyped fields."""
    problems = []
    members = {f.name: f for f in container.DESCRIPTOR.oneofs_by_name["kind"].fields}
    for kind, cls in registry.items():
        member = members.get(kind)
        if member is None:
            problems.append(f"engine type {kind!r} ({cls.__name__}) has no member in "
                            f"{container.DESCRIPTOR.full_name}.kind; add:\n{proto_stub(cls)}")
            continue
        message: Descriptor = member.message_type
        if message.name != cls.__name__:
            problems.append(f"{container.DESCRIPTOR.full_name}.kind.{kind} is a {message.name}, "
                            f"the engine calls it {cls.__name__}")
        engine_fields = {name for name, _, _ in cls._fields}
        for name, kind_of, required in cls._fields:
            field = message.fields_by_name.get(name)
            if field is None:
                problems.append(f"{message.full_name} lacks the field {name!r}")
                continue
            repeated = isinstance(kind_of, tuple)
            base = kind_of[1] if repeated else kind_of
            if repeated != (field.is_repeated):
                problems.append(f"{message.full_name}.{name}: repeated should be {repeated}")
            if field.type not in _PROTO_TYPES.get(base, ()):
                problems.append(f"{message.full_name}.{name}: a {base!r} field cannot be proto type {field.type}")
            if not repeated and not required and not field.has_presence:
                problems.append(f"{message.full_name}.{name} has a default in the engine: make it optional")
        for name in message.fields_by_name:
            if name not in engine_fields:
                problems.append(f"{message.full_name}.{name} is not a field of the engine's {cls.__name__}")
    return problems


def proto_stub(cls: type) -> str:
    """The proto message an engine action or event type needs (to paste into actions/events.proto)."""
    lines = [f"  message {cls.__name__} {{"]
    for number, (name, kind_of, required) in enumerate(cls._fields, start=1):
        if isinstance(kind_of, tuple):
            lines.append(f"    repeated {_PROTO_NAMES.get(kind_of[1], '?')} {name} = {number};")
        else:
            prefix = "" if required else "optional "
            lines.append(f"    {prefix}{_PROTO_NAMES.get(kind_of, '?')} {name} = {number};")
    lines.append("  }")
    lines.append(f"  // and in `oneof kind`: {cls.__name__} {cls.type} = <next number>;")
    return "\n".join(lines)


# --- plain JSON values ------------------------------------------------------------------------------

def whole_numbers(value: Any) -> Any:
    """JSON from protobuf Structs has floats only: turn 5.0 back into 5 (the API has no fractions)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return value


def struct_to_dict(struct: struct_pb2.Struct) -> dict[str, Any]:
    from google.protobuf import json_format

    return whole_numbers(json_format.MessageToDict(struct))


def dict_to_struct(data: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(data)
    return struct


@functools.lru_cache(maxsize=256)
def options_struct(options_json: str) -> struct_pb2.Struct:
    """The Struct of a match's options as stored (JSON text), built once per distinct text: matches
    share a few option sets, and every answer carrying a Match holds them. Shared: never change it
    (assigning it to a field, as ``Match(options=...)`` does, copies it)."""
    return dict_to_struct(json.loads(options_json))


def timestamp(ms: int | str | None) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    if ms not in (None, ""):
        stamp.FromMilliseconds(int(ms))
    return stamp


# --- engine query results ---------------------------------------------------------------------------

_PENDING_FIELDS = {"stage", "defender", "attackers", "hex", "required", "then", "unit", "mover"}


def pending_to_proto(decision: dict[str, Any] | None) -> match_pb2.PendingDecision | None:
    if not decision:
        return None
    message = match_pb2.PendingDecision(details_json=json.dumps(decision, sort_keys=True))
    for name, value in decision.items():
        if name not in _PENDING_FIELDS or value is None:
            continue
        if isinstance(value, (list, tuple)):
            getattr(message, name).extend(str(v) for v in value)
        elif name == "required":
            message.required = int(value)
        else:
            setattr(message, name, str(value))
    return message


def result_to_proto(result: dict[str, Any] | None) -> match_pb2.MatchResult | None:
    if not result:
        return None
    return match_pb2.MatchResult(winner=result["winner"], reason=result["reason"],
                                 points={k: int(v) for k, v in result.get("points", {}).items()})


def iter_oneof_names(container: type[Message]) -> Iterable[str]:
    return (f.name for f in container.DESCRIPTOR.oneofs_by_name["kind"].fields)
