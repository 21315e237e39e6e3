"""The proto mirror of the engine's actions and events: complete, and lossless both ways."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import ClassVar

import orjson
import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.values import Value, register
from service.api import json_form
from service.gen.typhoon.v1 import actions_pb2, events_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert
from service.match.core import MatchService
from service.match.log_entries import match_event
from service.store.match_store import StoredEvent


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


def _same_json(message) -> bool:
    """service.api.json_form's dict of the message is the library's, keys in the same order, and so is
    the API's JSON form (whole numbers)."""
    library = json_format.MessageToDict(message, preserving_proto_field_name=True,
                                        always_print_fields_with_no_presence=True)
    return (orjson.dumps(json_form.message_to_dict(message)) == orjson.dumps(library)
            and orjson.dumps(json_form.message_to_dict(message, whole=True)) == orjson.dumps(convert.whole_numbers(library)))


@settings(max_examples=300, deadline=None)
@given(_ACTIONS, _EVENTS)
def test_the_json_form_is_the_librarys_byte_for_byte(action, event):
    for message in (convert.action_to_proto(action), convert.event_to_proto(event)):
        assert _same_json(message)


def test_the_json_form_of_whole_answers_is_the_librarys_byte_for_byte():
    """Every SubmitAction answer of random games played to the end (events, the match with its seats,
    options and result), and the game state and legal actions on the way."""
    rng = random.Random(11)
    for seed in ("json-1", "json-2"):
        game = engine.new_game("standard", seed=seed)
        meta = {"id": "m" * 16, "scenario": "standard", "options": '{"weather": true, "turns": 7}',
                "sides": "german,soviet", "seed": seed, "seed_commitment": "c" * 64, "created_at": "1763870000000",
                "status": "active", "result": "", "ruleset": "2", "seat:german:token": "t",
                "seat:german:player": "Ann", "seat:german:claimed_at": "1763870000123"}
        for step in range(2000):
            if game.is_terminal():
                break
            actions = game.legal_actions()
            legal = api.ListLegalActionsResponse(version=step, side_to_act=game.current_player() or "",
                                                 actions=[convert.action_to_proto(a) for a in actions[:20]])
            assert _same_json(legal)
            action = rng.choice(actions)
            side = game.current_player()
            stored = [StoredEvent(3 * step + 1, step + 1, 1763870000000 + step, "service", {
                "type": "action_submitted", "side": side, "action": action.to_json(), "state_hash": "ab" * 16})]
            stored += [StoredEvent(3 * step + 2 + i, step + 1, 1763870000000 + step, "game", e.to_json())
                       for i, e in enumerate(game.apply(action))]
            result = game.result()
            if result:
                meta.update(status="finished", result=json.dumps(result.to_json()))
            meta.update(version=str(step + 1), last_sequence=str(stored[-1].seq), turn=str(game.turn),
                        phase=game.phase.name, side_to_act=game.current_player() or "",
                        updated_at=str(1763870000000 + step))
            answer = api.SubmitActionResponse(version=step + 1, events=[match_event(e) for e in stored],
                                              match=MatchService._match(meta))
            assert _same_json(answer)
            if step % 25 == 0:
                state = api.GetMatchResponse(match=MatchService._match(meta), state=MatchService._state(game, meta))
                assert _same_json(state)
        assert game.is_terminal()
