"""Time controls: each side's initial time, the increment per action and the time for a first action,
and the named presets. Light on purpose (protobuf, no Redis): the clients read and send time controls.

>>> TimeControl.parse("rapid").spec()
'rapid'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from google.protobuf import duration_pb2
from grpc import StatusCode

from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2

SECOND = 1000
DEFAULT_FIRST_ACTION_MS = 60 * SECOND
#: (smallest, largest) allowed, in ms
LIMITS = {"initial": (1 * SECOND, 24 * 3600 * SECOND), "increment": (0, 3600 * SECOND),
          "first_action": (1 * SECOND, 24 * 3600 * SECOND)}


@dataclass(frozen=True)
class TimeControl:
    """Each side's initial time, the Fischer increment per action and the time for a first action (ms).

    >>> TimeControl.parse("300+5")
    TimeControl(initial_ms=300000, increment_ms=5000, first_action_ms=60000, preset='')
    >>> TimeControl.parse("blitz").initial_ms
    300000
    """

    initial_ms: int
    increment_ms: int = 0
    first_action_ms: int = DEFAULT_FIRST_ACTION_MS
    preset: str = ""

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A preset name, or ``INITIAL[+INCREMENT]`` in seconds (``"300+5"``, ``"2.5+0.1"``);
        ValueError otherwise."""
        if text in PRESETS:
            return PRESETS[text]
        initial, _, increment = text.partition("+")
        try:
            control = cls(round(float(initial) * SECOND), round(float(increment or 0) * SECOND))
        except ValueError:
            raise ValueError(f"a time control is a preset ({', '.join(PRESETS)}) or INITIAL+INCREMENT in "
                             f"seconds, e.g. 300+5; not {text!r}") from None
        control.check()
        return control

    def check(self) -> None:
        for name, value in (("initial", self.initial_ms), ("increment", self.increment_ms),
                            ("first_action", self.first_action_ms)):
            low, high = LIMITS[name]
            if not low <= value <= high:
                raise ValueError(f"time control {name} must be from {low / SECOND:g} s to {high / SECOND:g} s, "
                                 f"not {value / SECOND:g} s")

    def spec(self) -> str:
        """The text :meth:`parse` reads back (without the first-action time): the preset's name, or
        ``INITIAL+INCREMENT`` in seconds."""
        if self.preset and PRESETS.get(self.preset) == replace(self, first_action_ms=DEFAULT_FIRST_ACTION_MS):
            return self.preset
        return f"{self.initial_ms / SECOND:g}+{self.increment_ms / SECOND:g}"

    def __str__(self) -> str:
        times = f"{self.initial_ms / SECOND:g}+{self.increment_ms / SECOND:g}"
        return f"{self.preset} ({times})" if self.preset else times

    def to_json(self) -> dict[str, Any]:
        return {"preset": self.preset, "initial_ms": self.initial_ms, "increment_ms": self.increment_ms,
                "first_action_ms": self.first_action_ms}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimeControl:
        return cls(data["initial_ms"], data["increment_ms"], data["first_action_ms"], data.get("preset", ""))

    def to_proto(self) -> match_pb2.TimeControl:
        return match_pb2.TimeControl(preset=self.preset, initial=_duration(self.initial_ms),
                                     increment=_duration(self.increment_ms),
                                     first_action=_duration(self.first_action_ms))

    def to_request(self) -> match_pb2.TimeControl:
        """The time control as a CreateMatch asks for it: the preset's name alone when these are its
        times (a request naming a preset may not give times too), else the times.

        >>> PRESETS["blitz"].to_request()
        preset: "blitz"
        first_action {
          seconds: 60
        }
        <BLANKLINE>
        """
        if self.preset and replace(PRESETS.get(self.preset, self), first_action_ms=self.first_action_ms) == self:
            return match_pb2.TimeControl(preset=self.preset, first_action=_duration(self.first_action_ms))
        return replace(self, preset="").to_proto()

    @classmethod
    def from_proto(cls, message: match_pb2.TimeControl) -> TimeControl:
        """The time control a request asks for; ServiceError (INVALID_ARGUMENT) when it is not one."""
        if message.preset:
            if message.preset not in PRESETS:
                raise ServiceError(StatusCode.INVALID_ARGUMENT, "UNKNOWN_TIME_CONTROL",
                                   f"there is no time control preset {message.preset!r}; presets: "
                                   f"{', '.join(PRESETS)}")
            if message.HasField("initial") or message.HasField("increment"):
                raise ServiceError(StatusCode.INVALID_ARGUMENT, "BAD_TIME_CONTROL",
                                   "give a time control preset or its times, not both")
            control = PRESETS[message.preset]
        else:
            if not message.HasField("initial"):
                raise ServiceError(StatusCode.INVALID_ARGUMENT, "BAD_TIME_CONTROL",
                                   "a time control needs a preset or an initial time")
            control = cls(message.initial.ToMilliseconds(), message.increment.ToMilliseconds())
        if message.HasField("first_action"):
            control = replace(control, first_action_ms=message.first_action.ToMilliseconds())
        try:
            control.check()
        except ValueError as error:
            raise ServiceError(StatusCode.INVALID_ARGUMENT, "BAD_TIME_CONTROL", str(error)) from None
        return control


#: The named time controls (a Battle for Moscow game is some 250 actions a side).
PRESETS: dict[str, TimeControl] = {
    "bullet": TimeControl(60 * SECOND, 1 * SECOND, preset="bullet"),
    "blitz": TimeControl(300 * SECOND, 3 * SECOND, preset="blitz"),
    "rapid": TimeControl(900 * SECOND, 10 * SECOND, preset="rapid"),
    "classical": TimeControl(3600 * SECOND, 30 * SECOND, preset="classical"),
}


def _duration(ms: int) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromMilliseconds(ms)
    return duration


__all__ = ["DEFAULT_FIRST_ACTION_MS", "LIMITS", "PRESETS", "SECOND", "TimeControl"]
