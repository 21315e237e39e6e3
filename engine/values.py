"""The shared machinery of actions and events: small frozen values with a stable JSON form.

A value's JSON form is an object whose ``type`` names the kind, followed by its fields in declaration
order; fields that are ``None`` are left out, tuples become lists.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Callable, ClassVar, TypeVar, dataclass_transform

from .errors import IllegalAction, Reason


class Value:
    __slots__ = ()
    type: ClassVar[str]
    _fields: ClassVar[tuple[tuple[str, Any, bool], ...]]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name, _, _ in self._fields:
            value = getattr(self, name)
            if value is None:
                continue
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


def _field_kind(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _field_kind(args[0])
    if origin is tuple:
        return (tuple, typing.get_args(annotation)[0])
    return annotation


V = TypeVar("V", bound=Value)


@dataclass_transform(frozen_default=True)
def register(registry: dict[str, type[V]]) -> Callable[[type[V]], type[V]]:
    """Class decorator: make a frozen dataclass a :class:`Value` listed in ``registry`` by its type."""

    def wrap(cls: type[V]) -> type[V]:
        made: type[V] = dataclasses.dataclass(frozen=True, slots=True)(cls)
        hints = typing.get_type_hints(made)
        made._fields = tuple(
            (f.name, _field_kind(hints[f.name]), f.default is dataclasses.MISSING
             and f.default_factory is dataclasses.MISSING)
            for f in dataclasses.fields(made))  # type: ignore[arg-type]  # a dataclass now, which mypy cannot see
        registry[made.type] = made
        return made

    return wrap


def _malformed(what: str, message: str) -> IllegalAction:
    return IllegalAction(Reason.MALFORMED_ACTION, f"malformed {what}: {message}")


def from_json(registry: dict[str, type[V]], data: Any, what: str) -> V:
    """Rebuild a value from its JSON form, refusing anything that does not fit exactly."""
    if not isinstance(data, dict):
        raise _malformed(what, "expected a JSON object")
    kind = data.get("type")
    cls = registry.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise _malformed(what, f"unknown type {kind!r}; known types: {', '.join(sorted(registry))}")
    known = {name for name, _, _ in cls._fields}
    extra = sorted(set(data) - known - {"type"})
    if extra:
        raise _malformed(what, f"{kind} has no field {extra[0]!r}")
    values = {}
    for name, kind_of, required in cls._fields:
        if name not in data or data[name] is None:
            if required:
                raise _malformed(what, f"{kind} needs the field {name!r}")
            continue
        raw = data[name]
        if isinstance(kind_of, tuple):
            item = kind_of[1]
            if not isinstance(raw, (list, tuple)) or not all(_is(x, item) for x in raw):
                raise _malformed(what, f"{kind}.{name} must be a list of {item.__name__}")
            values[name] = tuple(raw)
        else:
            if not _is(raw, kind_of):
                raise _malformed(what, f"{kind}.{name} must be {getattr(kind_of, '__name__', kind_of)}")
            values[name] = raw
    return cls(**values)


def _is(value: Any, kind: Any) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is Any:
        return True
    return isinstance(value, kind)
