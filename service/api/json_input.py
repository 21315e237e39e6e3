"""REST input checked against the request message before protobuf parses it, so a refusal names the
field and says what is wrong in the API's words (protobuf's own messages speak of its internals).

>>> from service.gen.typhoon.v1 import match_service_pb2 as api
>>> try:
...     check_body({"action": {"move": {"unit": 7}}}, api.SubmitActionRequest.DESCRIPTOR)
... except ValueError as error:
...     print(error)
action.move.unit must be a string, not a number
>>> query_value(api.WatchMatchRequest.DESCRIPTOR.fields_by_name["heartbeat_seconds"], "abc")
Traceback (most recent call last):
ValueError: heartbeat_seconds must be a whole number, not 'abc'
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

_INTEGERS = {FieldDescriptor.TYPE_INT32: 2**31, FieldDescriptor.TYPE_SINT32: 2**31, FieldDescriptor.TYPE_UINT32: 2**32,
             FieldDescriptor.TYPE_INT64: 2**63, FieldDescriptor.TYPE_SINT64: 2**63, FieldDescriptor.TYPE_UINT64: 2**64}
_UNSIGNED = {FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64}
_FLOATS = {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT}
_WHOLE = re.compile(r"-?[0-9]{1,30}")  # not \d: it takes other scripts' digits ('٣'), which int() reads


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def field_named(descriptor: Descriptor, name: str) -> FieldDescriptor | None:
    """A field by its proto name or its lowerCamelCase JSON name (protobuf's JSON mapping takes both)."""
    return descriptor.fields_by_name.get(name) or next((f for f in descriptor.fields if f.json_name == name), None)


def field_list(descriptor: Descriptor) -> str:
    return ", ".join(f.name for f in descriptor.fields) or "none"


def _enum_names(field: FieldDescriptor) -> list[str]:
    return [value.name for value in field.enum_type.values]


def _integer(field: FieldDescriptor, value: Any, where: str) -> int:
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())
                                       or (isinstance(value, str) and _WHOLE.fullmatch(value))):
        shown = repr(value) if isinstance(value, str) else _kind(value) if not isinstance(value, (int, float)) \
            else str(value)
        raise ValueError(f"{where} must be a whole number, not {shown}")
    number = int(value)
    bound = _INTEGERS[field.type]
    low, high = (0, bound - 1) if field.type in _UNSIGNED else (-bound, bound - 1)
    if not low <= number <= high:
        raise ValueError(f"{where} is out of range: {number} (it is a {high.bit_length() + (low < 0)}-bit number)")
    return number


def _check_value(field: FieldDescriptor, value: Any, where: str) -> None:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        name = field.message_type.full_name
        if name in ("google.protobuf.Struct",):
            if not isinstance(value, dict):
                raise ValueError(f"{where} must be an object, not {_kind(value)}")
        elif name in ("google.protobuf.Value", "google.protobuf.ListValue"):
            return
        elif name == "google.protobuf.Timestamp":
            if not isinstance(value, str):
                raise ValueError(f"{where} must be an RFC 3339 time string, not {_kind(value)}")
        elif name == "google.protobuf.Duration":
            if not isinstance(value, str):
                raise ValueError(f"{where} must be a duration in seconds such as \"300s\", not {_kind(value)}")
        elif name.startswith("google.protobuf."):  # other well-known types have JSON forms of their own
            return
        else:
            check_message(value, field.message_type, where)
    elif field.type == FieldDescriptor.TYPE_ENUM:
        names = _enum_names(field)
        if not (value in names or (isinstance(value, int) and not isinstance(value, bool))):
            raise ValueError(f"{where} must be one of {', '.join(names)}, not {value!r}")
    elif field.type in _INTEGERS:
        _integer(field, value, where)
    elif field.type in _FLOATS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where} must be a number, not {_kind(value)}")
    elif field.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise ValueError(f"{where} must be true or false, not {_kind(value)}")
    elif field.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a string, not {_kind(value)}")


def check_message(data: Any, descriptor: Descriptor, where: str) -> None:
    """ValueError with a sentence if ``data`` is not the JSON form of ``descriptor``'s message."""
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be an object, not {_kind(data)}")
    chosen: dict[str, str] = {}
    for key, value in data.items():
        field = field_named(descriptor, key)
        if field is None:
            raise ValueError(f"{where} has no field {key!r}; its fields: {field_list(descriptor)}")
        path = field.name if where == "the body" else f"{where}.{field.name}"
        oneof = field.containing_oneof
        if oneof is not None and not oneof.name.startswith("_") and value is not None:
            if oneof.name in chosen:
                raise ValueError(f"{where} takes one of {', '.join(f.name for f in oneof.fields)}, "
                                 f"not both {chosen[oneof.name]} and {field.name}")
            chosen[oneof.name] = field.name
        if value is None:  # null means "not set" in protobuf's JSON mapping
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            if not isinstance(value, dict):
                raise ValueError(f"{path} must be an object, not {_kind(value)}")
            for item_key, item in value.items():
                _check_value(field.message_type.fields_by_name["value"], item, f"{path}[{item_key!r}]")
        elif field.is_repeated:
            if not isinstance(value, list):
                raise ValueError(f"{path} must be a list, not {_kind(value)}")
            for position, item in enumerate(value):
                _check_value(field, item, f"{path}[{position}]")
        else:
            _check_value(field, value, path)


def check_body(data: Any, descriptor: Descriptor) -> None:
    check_message(data, descriptor, "the body")


def query_value(field: FieldDescriptor, text: str) -> Any:
    """A query parameter's text as the JSON value of its field, or of one element of a repeated field
    (``?attackers=A&attackers=B``); ValueError with a sentence if it is not one."""
    if field.type in _INTEGERS:
        return _integer(field, text, field.name)
    if field.type == FieldDescriptor.TYPE_BOOL:
        if text not in ("true", "false"):
            raise ValueError(f"{field.name} must be true or false, not {text!r}")
        return text == "true"
    if field.type == FieldDescriptor.TYPE_ENUM:
        if _WHOLE.fullmatch(text):  # proto3 enums are open: the service judges numbers it has no name for
            return int(text)
        _check_value(field, text, field.name)
        return text
    if field.type in _FLOATS:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{field.name} must be a number, not {text!r}") from None
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        raise ValueError(f"{field.name} cannot be given as a query parameter")
    return text
