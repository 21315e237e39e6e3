"""A message's JSON form as ``json_format.MessageToDict(message, preserving_proto_field_name=True,
always_print_fields_with_no_presence=True)`` gives it, in a third of the time.

``json_format`` works out each field's kind, name and default on every message it meets; the REST
gateway converts thousands of small messages a second (a SubmitAction answer holds its events and the
match). This printer does that work once per message type and hands everything it does not plan for
(well-known types such as Timestamp and Struct, bytes, int64, floats, enums) to ``json_format``'s own
printer, so the output is the same dict, keys in the same order.

    >>> from service.gen.typhoon.v1 import match_pb2
    >>> message_to_dict(match_pb2.Seat(side="german", claimed=True))
    {'side': 'german', 'claimed': True, 'player_name': '', 'entropy': '', 'entropy_drawn': False, 'entropy_commitment': '', 'entropy_due': ''}
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from service.match.convert import whole_numbers

#: Fields whose value is its own JSON form.
_PLAIN = {FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_UINT32, FieldDescriptor.CPPTYPE_BOOL}
_MESSAGE = FieldDescriptor.CPPTYPE_MESSAGE
# how a field's value becomes JSON: kinds of the plan
_AS_IS, _NESTED, _LIBRARY = 0, 1, 2


class _Printer(json_format._Printer):  # noqa: SLF001 - the library's printer, with per-type plans
    def __init__(self, whole: bool) -> None:
        super().__init__(preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
        #: what becomes of the library's JSON (our own kinds hold no floats)
        self._finish = whole_numbers if whole else _same
        self._plans: dict[Descriptor, tuple[dict[FieldDescriptor, tuple[str, int, bool]],
                                            list[tuple[str, Any]]] | None] = {}

    def _plan(self, descriptor: Descriptor):
        """Per field: its name, kind and repetition; and the absent no-presence fields' JSON defaults.
        None for a type the library handles as a whole (well-known types, wrappers, extensions)."""
        plan = self._plans.get(descriptor, False)
        if plan is not False:
            return plan
        plan = None
        special = json_format._IsWrapperMessage(descriptor) or descriptor.full_name in json_format._WKTJSONMETHODS  # noqa: SLF001
        if not special and not descriptor.is_extendable:
            fields = {}
            for field in descriptor.fields:
                if json_format._IsMapEntry(field):  # noqa: SLF001
                    kind = _LIBRARY
                elif field.cpp_type == _MESSAGE:
                    kind = _NESTED
                elif field.cpp_type in _PLAIN or (field.cpp_type == FieldDescriptor.CPPTYPE_STRING
                                                  and field.type != FieldDescriptor.TYPE_BYTES):
                    kind = _AS_IS
                else:
                    kind = _LIBRARY
                fields[field] = (field.name, kind, field.is_repeated)
            defaults = []
            for field in descriptor.fields:
                if field.has_presence:
                    continue
                if json_format._IsMapEntry(field):  # noqa: SLF001
                    defaults.append((field.name, dict))
                elif field.is_repeated:
                    defaults.append((field.name, list))
                else:
                    value = self._finish(super()._FieldToJsonObject(field, field.default_value))
                    defaults.append((field.name, lambda value=value: value))
            plan = (fields, defaults)
        self._plans[descriptor] = plan
        return plan

    def _MessageToJsonObject(self, message: Message) -> Any:  # noqa: N802 - the library's name
        plan = self._plan(message.DESCRIPTOR)
        if plan is None:
            return self._finish(super()._MessageToJsonObject(message))
        fields, defaults = plan
        js: dict[str, Any] = {}
        for field, value in message.ListFields():
            name, kind, repeated = fields[field]
            if kind == _AS_IS:
                js[name] = list(value) if repeated else value
            elif kind == _NESTED and not repeated:
                js[name] = self._MessageToJsonObject(value)
            elif kind == _NESTED:
                js[name] = [self._MessageToJsonObject(item) for item in value]
            elif repeated and not json_format._IsMapEntry(field):  # noqa: SLF001
                js[name] = self._finish([super(_Printer, self)._FieldToJsonObject(field, item) for item in value])
            else:  # a map, or a scalar the library formats
                js[name] = self._finish(self._library_field(field, value))
        for name, default in defaults:
            if name not in js:
                js[name] = default()
        return js

    def _library_field(self, field: FieldDescriptor, value: Any) -> Any:
        if json_format._IsMapEntry(field):  # noqa: SLF001
            value_field = field.message_type.fields_by_name["value"]
            return {("true" if key else "false") if isinstance(key, bool) else str(key):
                    self._FieldToJsonObject(value_field, value[key]) for key in value}
        return super()._FieldToJsonObject(field, value)


def _same(value: Any) -> Any:
    return value


_PRINTERS = {False: _Printer(whole=False), True: _Printer(whole=True)}


def message_to_dict(message: Message, whole: bool = False) -> dict[str, Any]:
    """``json_format.MessageToDict(message, preserving_proto_field_name=True,
    always_print_fields_with_no_presence=True)``, the same dict; with ``whole``, passed through
    :func:`service.match.convert.whole_numbers` as well (the API's JSON form)."""
    return _PRINTERS[whole]._MessageToJsonObject(message)  # noqa: SLF001
