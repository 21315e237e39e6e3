import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from service.gen.typhoon.v1 import actions_pb2 as _actions_pb2
from service.gen.typhoon.v1 import events_pb2 as _events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_OPEN: _ClassVar[MatchStatus]
    MATCH_STATUS_ACTIVE: _ClassVar[MatchStatus]
    MATCH_STATUS_FINISHED: _ClassVar[MatchStatus]
    MATCH_STATUS_ABORTED: _ClassVar[MatchStatus]
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_OPEN: MatchStatus
MATCH_STATUS_ACTIVE: MatchStatus
MATCH_STATUS_FINISHED: MatchStatus
MATCH_STATUS_ABORTED: MatchStatus

class TimeControl(_message.Message):
    __slots__ = ("preset", "initial", "increment", "first_action")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_FIELD_NUMBER: _ClassVar[int]
    FIRST_ACTION_FIELD_NUMBER: _ClassVar[int]
    preset: str
    initial: _duration_pb2.Duration
    increment: _duration_pb2.Duration
    first_action: _duration_pb2.Duration
    def __init__(self, preset: _Optional[str] = ..., initial: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., increment: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., first_action: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("remaining", "running", "since", "deadline", "awaiting_first_action")
    class RemainingEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _duration_pb2.Duration
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    AWAITING_FIRST_ACTION_FIELD_NUMBER: _ClassVar[int]
    remaining: _containers.MessageMap[str, _duration_pb2.Duration]
    running: str
    since: _timestamp_pb2.Timestamp
    deadline: _timestamp_pb2.Timestamp
    awaiting_first_action: bool
    def __init__(self, remaining: _Optional[_Mapping[str, _duration_pb2.Duration]] = ..., running: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., awaiting_first_action: _Optional[bool] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("side", "claimed", "player_name", "claimed_at", "entropy", "entropy_drawn", "entropy_commitment", "entropy_due")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    CLAIMED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    CLAIMED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_DRAWN_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_DUE_FIELD_NUMBER: _ClassVar[int]
    side: str
    claimed: bool
    player_name: str
    claimed_at: _timestamp_pb2.Timestamp
    entropy: str
    entropy_drawn: bool
    entropy_commitment: str
    entropy_due: str
    def __init__(self, side: _Optional[str] = ..., claimed: _Optional[bool] = ..., player_name: _Optional[str] = ..., claimed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entropy: _Optional[str] = ..., entropy_drawn: _Optional[bool] = ..., entropy_commitment: _Optional[str] = ..., entropy_due: _Optional[str] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("winner", "reason", "points")
    class PointsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    WINNER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    winner: str
    reason: str
    points: _containers.ScalarMap[str, int]
    def __init__(self, winner: _Optional[str] = ..., reason: _Optional[str] = ..., points: _Optional[_Mapping[str, int]] = ...) -> None: ...

class Match(_message.Message):
    __slots__ = ("match_id", "scenario", "options", "status", "seats", "version", "last_sequence", "turn", "phase", "side_to_act", "result", "seed_commitment", "seed", "created_at", "updated_at", "time_control", "clock", "ruleset")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_ACT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    scenario: str
    options: _struct_pb2.Struct
    status: MatchStatus
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    version: int
    last_sequence: int
    turn: int
    phase: str
    side_to_act: str
    result: MatchResult
    seed_commitment: str
    seed: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    time_control: TimeControl
    clock: Clock
    ruleset: int
    def __init__(self, match_id: _Optional[str] = ..., scenario: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., version: _Optional[int] = ..., last_sequence: _Optional[int] = ..., turn: _Optional[int] = ..., phase: _Optional[str] = ..., side_to_act: _Optional[str] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ..., seed_commitment: _Optional[str] = ..., seed: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., ruleset: _Optional[int] = ...) -> None: ...

class Unit(_message.Message):
    __slots__ = ("id", "hex", "strength")
    ID_FIELD_NUMBER: _ClassVar[int]
    HEX_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    id: str
    hex: str
    strength: str
    def __init__(self, id: _Optional[str] = ..., hex: _Optional[str] = ..., strength: _Optional[str] = ...) -> None: ...

class PoolUnit(_message.Message):
    __slots__ = ("id", "available_from")
    ID_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FROM_FIELD_NUMBER: _ClassVar[int]
    id: str
    available_from: int
    def __init__(self, id: _Optional[str] = ..., available_from: _Optional[int] = ...) -> None: ...

class PendingDecision(_message.Message):
    __slots__ = ("stage", "defender", "attackers", "hex", "required", "then", "unit", "mover", "details_json")
    STAGE_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_FIELD_NUMBER: _ClassVar[int]
    ATTACKERS_FIELD_NUMBER: _ClassVar[int]
    HEX_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    THEN_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    MOVER_FIELD_NUMBER: _ClassVar[int]
    DETAILS_JSON_FIELD_NUMBER: _ClassVar[int]
    stage: str
    defender: str
    attackers: _containers.RepeatedScalarFieldContainer[str]
    hex: str
    required: int
    then: _containers.RepeatedScalarFieldContainer[str]
    unit: str
    mover: str
    details_json: str
    def __init__(self, stage: _Optional[str] = ..., defender: _Optional[str] = ..., attackers: _Optional[_Iterable[str]] = ..., hex: _Optional[str] = ..., required: _Optional[int] = ..., then: _Optional[_Iterable[str]] = ..., unit: _Optional[str] = ..., mover: _Optional[str] = ..., details_json: _Optional[str] = ...) -> None: ...

class GameState(_message.Message):
    __slots__ = ("turn", "phase", "side_to_act", "weather", "pending_decision", "units", "pool", "city_control", "victory_points", "elimination_points", "capital_bonus", "rolls", "result", "state_hash", "position_json", "battles")
    class CityControlEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class VictoryPointsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class EliminationPointsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    TURN_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_ACT_FIELD_NUMBER: _ClassVar[int]
    WEATHER_FIELD_NUMBER: _ClassVar[int]
    PENDING_DECISION_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    CITY_CONTROL_FIELD_NUMBER: _ClassVar[int]
    VICTORY_POINTS_FIELD_NUMBER: _ClassVar[int]
    ELIMINATION_POINTS_FIELD_NUMBER: _ClassVar[int]
    CAPITAL_BONUS_FIELD_NUMBER: _ClassVar[int]
    ROLLS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    POSITION_JSON_FIELD_NUMBER: _ClassVar[int]
    BATTLES_FIELD_NUMBER: _ClassVar[int]
    turn: int
    phase: str
    side_to_act: str
    weather: str
    pending_decision: PendingDecision
    units: _containers.RepeatedCompositeFieldContainer[Unit]
    pool: _containers.RepeatedCompositeFieldContainer[PoolUnit]
    city_control: _containers.ScalarMap[str, str]
    victory_points: _containers.ScalarMap[str, int]
    elimination_points: _containers.ScalarMap[str, int]
    capital_bonus: bool
    rolls: int
    result: MatchResult
    state_hash: str
    position_json: str
    battles: _containers.RepeatedCompositeFieldContainer[Battle]
    def __init__(self, turn: _Optional[int] = ..., phase: _Optional[str] = ..., side_to_act: _Optional[str] = ..., weather: _Optional[str] = ..., pending_decision: _Optional[_Union[PendingDecision, _Mapping]] = ..., units: _Optional[_Iterable[_Union[Unit, _Mapping]]] = ..., pool: _Optional[_Iterable[_Union[PoolUnit, _Mapping]]] = ..., city_control: _Optional[_Mapping[str, str]] = ..., victory_points: _Optional[_Mapping[str, int]] = ..., elimination_points: _Optional[_Mapping[str, int]] = ..., capital_bonus: _Optional[bool] = ..., rolls: _Optional[int] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ..., state_hash: _Optional[str] = ..., position_json: _Optional[str] = ..., battles: _Optional[_Iterable[_Union[Battle, _Mapping]]] = ...) -> None: ...

class Battle(_message.Message):
    __slots__ = ("defender", "hex", "attackers", "attack", "defence", "odds", "shifts", "column")
    DEFENDER_FIELD_NUMBER: _ClassVar[int]
    HEX_FIELD_NUMBER: _ClassVar[int]
    ATTACKERS_FIELD_NUMBER: _ClassVar[int]
    ATTACK_FIELD_NUMBER: _ClassVar[int]
    DEFENCE_FIELD_NUMBER: _ClassVar[int]
    ODDS_FIELD_NUMBER: _ClassVar[int]
    SHIFTS_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    defender: str
    hex: str
    attackers: _containers.RepeatedScalarFieldContainer[str]
    attack: str
    defence: int
    odds: str
    shifts: int
    column: str
    def __init__(self, defender: _Optional[str] = ..., hex: _Optional[str] = ..., attackers: _Optional[_Iterable[str]] = ..., attack: _Optional[str] = ..., defence: _Optional[int] = ..., odds: _Optional[str] = ..., shifts: _Optional[int] = ..., column: _Optional[str] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("sequence", "version", "time", "match_created", "seat_claimed", "action_submitted", "seed_revealed", "game_event", "match_aborted", "entropy_contributed", "entropy_committed", "entropy_awaited")
    class MatchCreated(_message.Message):
        __slots__ = ("scenario", "options", "seed_commitment", "sides", "time_control", "ruleset")
        SCENARIO_FIELD_NUMBER: _ClassVar[int]
        OPTIONS_FIELD_NUMBER: _ClassVar[int]
        SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
        SIDES_FIELD_NUMBER: _ClassVar[int]
        TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
        RULESET_FIELD_NUMBER: _ClassVar[int]
        scenario: str
        options: _struct_pb2.Struct
        seed_commitment: str
        sides: _containers.RepeatedScalarFieldContainer[str]
        time_control: TimeControl
        ruleset: int
        def __init__(self, scenario: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seed_commitment: _Optional[str] = ..., sides: _Optional[_Iterable[str]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., ruleset: _Optional[int] = ...) -> None: ...
    class SeatClaimed(_message.Message):
        __slots__ = ("side", "player_name")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
        side: str
        player_name: str
        def __init__(self, side: _Optional[str] = ..., player_name: _Optional[str] = ...) -> None: ...
    class EntropyContributed(_message.Message):
        __slots__ = ("side", "entropy")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        ENTROPY_FIELD_NUMBER: _ClassVar[int]
        side: str
        entropy: str
        def __init__(self, side: _Optional[str] = ..., entropy: _Optional[str] = ...) -> None: ...
    class EntropyCommitted(_message.Message):
        __slots__ = ("side", "commitment")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        COMMITMENT_FIELD_NUMBER: _ClassVar[int]
        side: str
        commitment: str
        def __init__(self, side: _Optional[str] = ..., commitment: _Optional[str] = ...) -> None: ...
    class EntropyAwaited(_message.Message):
        __slots__ = ("side",)
        SIDE_FIELD_NUMBER: _ClassVar[int]
        side: str
        def __init__(self, side: _Optional[str] = ...) -> None: ...
    class ActionSubmitted(_message.Message):
        __slots__ = ("side", "action", "state_hash", "time_left")
        class TimeLeftEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: _duration_pb2.Duration
            def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...
        SIDE_FIELD_NUMBER: _ClassVar[int]
        ACTION_FIELD_NUMBER: _ClassVar[int]
        STATE_HASH_FIELD_NUMBER: _ClassVar[int]
        TIME_LEFT_FIELD_NUMBER: _ClassVar[int]
        side: str
        action: _actions_pb2.Action
        state_hash: str
        time_left: _containers.MessageMap[str, _duration_pb2.Duration]
        def __init__(self, side: _Optional[str] = ..., action: _Optional[_Union[_actions_pb2.Action, _Mapping]] = ..., state_hash: _Optional[str] = ..., time_left: _Optional[_Mapping[str, _duration_pb2.Duration]] = ...) -> None: ...
    class MatchAborted(_message.Message):
        __slots__ = ("side", "reason", "by_operator")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        BY_OPERATOR_FIELD_NUMBER: _ClassVar[int]
        side: str
        reason: str
        by_operator: bool
        def __init__(self, side: _Optional[str] = ..., reason: _Optional[str] = ..., by_operator: _Optional[bool] = ...) -> None: ...
    class SeedRevealed(_message.Message):
        __slots__ = ("seed", "seed_commitment")
        SEED_FIELD_NUMBER: _ClassVar[int]
        SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
        seed: str
        seed_commitment: str
        def __init__(self, seed: _Optional[str] = ..., seed_commitment: _Optional[str] = ...) -> None: ...
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    MATCH_CREATED_FIELD_NUMBER: _ClassVar[int]
    SEAT_CLAIMED_FIELD_NUMBER: _ClassVar[int]
    ACTION_SUBMITTED_FIELD_NUMBER: _ClassVar[int]
    SEED_REVEALED_FIELD_NUMBER: _ClassVar[int]
    GAME_EVENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ABORTED_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_CONTRIBUTED_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_COMMITTED_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_AWAITED_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    version: int
    time: _timestamp_pb2.Timestamp
    match_created: MatchEvent.MatchCreated
    seat_claimed: MatchEvent.SeatClaimed
    action_submitted: MatchEvent.ActionSubmitted
    seed_revealed: MatchEvent.SeedRevealed
    game_event: _events_pb2.Event
    match_aborted: MatchEvent.MatchAborted
    entropy_contributed: MatchEvent.EntropyContributed
    entropy_committed: MatchEvent.EntropyCommitted
    entropy_awaited: MatchEvent.EntropyAwaited
    def __init__(self, sequence: _Optional[int] = ..., version: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., match_created: _Optional[_Union[MatchEvent.MatchCreated, _Mapping]] = ..., seat_claimed: _Optional[_Union[MatchEvent.SeatClaimed, _Mapping]] = ..., action_submitted: _Optional[_Union[MatchEvent.ActionSubmitted, _Mapping]] = ..., seed_revealed: _Optional[_Union[MatchEvent.SeedRevealed, _Mapping]] = ..., game_event: _Optional[_Union[_events_pb2.Event, _Mapping]] = ..., match_aborted: _Optional[_Union[MatchEvent.MatchAborted, _Mapping]] = ..., entropy_contributed: _Optional[_Union[MatchEvent.EntropyContributed, _Mapping]] = ..., entropy_committed: _Optional[_Union[MatchEvent.EntropyCommitted, _Mapping]] = ..., entropy_awaited: _Optional[_Union[MatchEvent.EntropyAwaited, _Mapping]] = ...) -> None: ...
