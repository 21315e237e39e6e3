"""Match options: every rule that can be switched, documented in one place with the rule it implements.

>>> Options.from_json({"victory": "moscow"}).victory
'moscow'
>>> Options.from_json({"victory": "chess"})
Traceback (most recent call last):
...
engine.errors.IllegalAction: option victory must be one of points, moscow, not 'chess'
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .errors import IllegalAction, Reason

#: name → (allowed values, default, the rule it implements)
OPTIONS: dict[str, tuple[tuple[Any, ...], Any, str]] = {
    "victory": (
        ("points", "moscow"), "points",
        'Clarification "Always Use Victory Points": 1 VP per enemy unit eliminated, 5 per controlled '
        'city, 20 for Moscow, 10 to the Germans once for occupying Moscow at the end of a Soviet player '
        'turn; the most points wins. "moscow" is the original rule: "Whoever holds Moscow at the end of '
        'the game wins."'),
}


@dataclass(frozen=True)
class Options:
    victory: str = "points"

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "Options":
        data = dict(data or {})
        values = {}
        for name, value in data.items():
            if name not in OPTIONS:
                raise IllegalAction(Reason.OPTION_UNAVAILABLE,
                                    f"unknown option {name!r}; known options: {', '.join(OPTIONS)}")
            allowed = OPTIONS[name][0]
            if value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
                raise IllegalAction(Reason.OPTION_UNAVAILABLE,
                                    f"option {name} must be one of {', '.join(map(str, allowed))}, not {value!r}")
            values[name] = value
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
