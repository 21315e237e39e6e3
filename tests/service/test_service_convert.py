"""The proto mirror of the engine's actions and events: complete, and lossless both ways."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.values import Value, register
from service import convert
from service.gen.typhoon.v1 import actions_pb2, events_pb2


def test_every_engine_action_type_has_its_proto_message():
    problems = convert.check_mirror(engine.ACTIONS, actions_pb2.Action)
    assert not problems, "\n".join(problems)


def test_every_engine_event_type_has_its_proto_message():
    problems = convert.check_mirror(engine.EVENTS, events_pb2.Event)
    assert not problems, "\n".join(problems)


def test_a_new_engine_type_without_proto_fails_the_check_with_the_message_to_add():
    registry: dict[str, type] = dict(engine.ACTIONS)

    @register(registry)
    class CallAirStrike(Value):
        type: ClassVar[str] = "call_air_strike"
        target: str
        sorties: int = 1

    problems = convert.check_mirror(registry, actions_pb2.Action)
    assert len(problems) == 1
    assert "call_air_strike" in problems[0]
    assert "message CallAirStrike {" in problems[0] and "optional int32 sorties = 2;" in problems[0]


def _values(cls: type) -> st.SearchStrategy:
    """Field values for an engine value class (None or non-empty for optional lists: the API's convention)."""
    scalar = {str: st.text(max_size=12), int: st.integers(-2**31, 2**31 - 1), bool: st.booleans()}
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    fields = {}
    for name, kind, required in cls._fields:
        if isinstance(kind, tuple):
            strategy = st.lists(scalar[kind[1]], min_size=0 if required else 1, max_size=4).map(tuple)
        else:
            strategy = scalar[kind]
        fields[name] = st.none() | strategy if not required and defaults[name] is None else strategy
    return st.fixed_dictionaries(fields).map(lambda values: cls(**values))


_ACTIONS = st.sampled_from(sorted(engine.ACTIONS.values(), key=lambda c: c.type)).flatmap(_values)
_EVENTS = st.sampled_from(sorted(engine.EVENTS.values(), key=lambda c: c.type)).flatmap(_values)


@settings(max_examples=300, deadline=None)
@given(_ACTIONS)
def test_actions_round_trip(action):
    message = convert.action_to_proto(action)
    assert message.WhichOneof("kind") == action.type
    again = actions_pb2.Action.FromString(message.SerializeToString())
    data = convert.action_from_proto(again)
    assert data == action.to_json()
    assert engine.action_from_json(data) == action


@settings(max_examples=300, deadline=None)
@given(_EVENTS)
def test_events_round_trip(event):
    message = convert.event_to_proto(event)
    data = convert.event_from_proto(events_pb2.Event.FromString(message.SerializeToString()))
    assert data == event.to_json()
    assert engine.event_from_json(data) == event


def test_every_legal_action_of_a_real_game_converts():
    game = engine.new_game("standard", seed="convert")
    for _ in range(40):
        actions = game.legal_actions()
        for action in actions:
            assert engine.action_from_json(convert.action_from_proto(convert.action_to_proto(action))) == action
        for event in game.apply(actions[-1]):
            assert convert.event_from_proto(convert.event_to_proto(event)) == event.to_json()


def test_an_action_message_without_a_kind_is_refused():
    with pytest.raises(convert.ConversionError):
        convert.action_from_proto(actions_pb2.Action())


def test_an_engine_field_the_proto_lacks_is_an_error_not_a_silent_drop():
    with pytest.raises(convert.ConversionError):
        convert.action_to_proto({"type": "move", "unit": "XL", "to": "0201", "speed": 3})


def test_struct_numbers_come_back_whole():
    struct = convert.dict_to_struct({"soviet_replacements": 4, "victory": "moscow", "harsher_winter": True})
    assert convert.struct_to_dict(struct) == {"soviet_replacements": 4, "victory": "moscow", "harsher_winter": True}
