"""structlog's context-local log context, at the price of the keys it holds rather than of the whole
asyncio context.

structlog keeps each bound key in a ``ContextVar`` of its own; its ``merge_contextvars`` processor and
``bound_contextvars`` walk every variable of the current context (asyncio's, gRPC's, ours) to find
them: ~17 µs a log line in a context of 30 variables, against ~2 µs here (a call logs one or two
lines). These do the same through the variables structlog made, by name.

    >>> import structlog
    >>> with bound(rpc="GetMatch", match_id=None):
    ...     merge(None, "info", {"event": "rpc"}) == {'event': 'rpc', 'rpc': 'GetMatch', 'match_id': None}
    True
    >>> merge(None, "info", {"event": "rpc"})
    {'event': 'rpc'}
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import structlog.contextvars as _structlog_context

#: structlog's variables by prefixed key (one per key ever bound); read, never changed here.
_VARIABLES: dict[str, contextvars.ContextVar[Any]] | None = getattr(_structlog_context, "_CONTEXT_VARS", None)
_PREFIX_LENGTH = len(_structlog_context.STRUCTLOG_KEY_PREFIX)


def merge(logger: Any, method_name: str, event_dict: dict[str, Any]) -> dict[str, Any]:
    """A processor: what ``structlog.contextvars.merge_contextvars`` does (the line's own keys win)."""
    if _VARIABLES is None:  # a structlog without the registry: its own processor
        return _structlog_context.merge_contextvars(logger, method_name, event_dict)
    for name, variable in tuple(_VARIABLES.items()):
        value = variable.get()
        if value is not Ellipsis:
            event_dict.setdefault(name[_PREFIX_LENGTH:], value)
    return event_dict


def _variable(key: str) -> contextvars.ContextVar[Any]:
    """structlog's variable of ``key``, made and registered as ``bind_contextvars`` makes it if new."""
    assert _VARIABLES is not None
    name = _structlog_context.STRUCTLOG_KEY_PREFIX + key
    variable = _VARIABLES.get(name)
    if variable is None:
        variable = _VARIABLES[name] = contextvars.ContextVar(name, default=Ellipsis)
    return variable


class Keys:
    """Keys bound together around each call of one handler, their variables looked up once: what
    :func:`bound` does, at about a third of its price (a gRPC call binds four keys).

    >>> keys = Keys("rpc", "match_id")
    >>> tokens = keys.bind("GetMatch", None)
    >>> merge(None, "info", {"event": "rpc"}) == {'event': 'rpc', 'rpc': 'GetMatch', 'match_id': None}
    True
    >>> keys.reset(tokens)
    >>> merge(None, "info", {"event": "rpc"})
    {'event': 'rpc'}
    """

    __slots__ = ("names", "_variables")

    def __init__(self, *names: str) -> None:
        self.names = names
        self._variables = tuple(_variable(name) for name in names) if _VARIABLES is not None else ()

    def bind(self, *values: Any) -> Any:
        """Bind each key to its value (in the order of the names); returns what :meth:`reset` takes."""
        if not self._variables:  # a structlog without the registry: its own functions
            return _structlog_context.bind_contextvars(**dict(zip(self.names, values)))
        return [variable.set(value) for variable, value in zip(self._variables, values)]

    def reset(self, tokens: Any) -> None:
        """Each key back to what it was before :meth:`bind` gave ``tokens``."""
        if not self._variables:
            _structlog_context.reset_contextvars(**tokens)
            return
        for variable, token in zip(self._variables, tokens):
            variable.reset(token)


@contextlib.contextmanager
def bound(**values: Any) -> Iterator[None]:
    """``structlog.contextvars.bound_contextvars`` for a block that starts and ends in one context
    (a coroutine's call, not an async generator's): each key back to what it was afterwards."""
    tokens = _structlog_context.bind_contextvars(**values)
    try:
        yield
    finally:
        _structlog_context.reset_contextvars(**tokens)
