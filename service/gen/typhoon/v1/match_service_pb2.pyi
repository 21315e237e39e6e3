import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from service.gen.typhoon.v1 import actions_pb2 as _actions_pb2
from service.gen.typhoon.v1 import match_pb2 as _match_pb2
from service.gen.typhoon.v1 import scenario_pb2 as _scenario_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SeatClaim(_message.Message):
    __slots__ = ("side", "player_name", "seat_token", "entropy_commitment", "commit_entropy_later")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    COMMIT_ENTROPY_LATER_FIELD_NUMBER: _ClassVar[int]
    side: str
    player_name: str
    seat_token: str
    entropy_commitment: str
    commit_entropy_later: bool
    def __init__(self, side: _Optional[str] = ..., player_name: _Optional[str] = ..., seat_token: _Optional[str] = ..., entropy_commitment: _Optional[str] = ..., commit_entropy_later: _Optional[bool] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("side", "token")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    side: str
    token: str
    def __init__(self, side: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("scenario", "options", "seats", "request_id", "time_control")
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    scenario: str
    options: _struct_pb2.Struct
    seats: _containers.RepeatedCompositeFieldContainer[SeatClaim]
    request_id: str
    time_control: _match_pb2.TimeControl
    def __init__(self, scenario: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatClaim, _Mapping]]] = ..., request_id: _Optional[str] = ..., time_control: _Optional[_Union[_match_pb2.TimeControl, _Mapping]] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match", "seat_tokens")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    match: _match_pb2.Match
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    def __init__(self, match: _Optional[_Union[_match_pb2.Match, _Mapping]] = ..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ...) -> None: ...

class JoinMatchRequest(_message.Message):
    __slots__ = ("match_id", "side", "player_name", "seat_token", "entropy_commitment")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    side: str
    player_name: str
    seat_token: str
    entropy_commitment: str
    def __init__(self, match_id: _Optional[str] = ..., side: _Optional[str] = ..., player_name: _Optional[str] = ..., seat_token: _Optional[str] = ..., entropy_commitment: _Optional[str] = ...) -> None: ...

class JoinMatchResponse(_message.Message):
    __slots__ = ("side", "seat_token", "match")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    side: str
    seat_token: str
    match: _match_pb2.Match
    def __init__(self, side: _Optional[str] = ..., seat_token: _Optional[str] = ..., match: _Optional[_Union[_match_pb2.Match, _Mapping]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id", "version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    def __init__(self, match_id: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match", "state")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    match: _match_pb2.Match
    state: _match_pb2.GameState
    def __init__(self, match: _Optional[_Union[_match_pb2.Match, _Mapping]] = ..., state: _Optional[_Union[_match_pb2.GameState, _Mapping]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "status")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    status: _match_pb2.MatchStatus
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., status: _Optional[_Union[_match_pb2.MatchStatus, str]] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[_match_pb2.Match]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[_match_pb2.Match, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ("version", "side_to_act", "actions", "pending_decision")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_ACT_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    PENDING_DECISION_FIELD_NUMBER: _ClassVar[int]
    version: int
    side_to_act: str
    actions: _containers.RepeatedCompositeFieldContainer[_actions_pb2.Action]
    pending_decision: _match_pb2.PendingDecision
    def __init__(self, version: _Optional[int] = ..., side_to_act: _Optional[str] = ..., actions: _Optional[_Iterable[_Union[_actions_pb2.Action, _Mapping]]] = ..., pending_decision: _Optional[_Union[_match_pb2.PendingDecision, _Mapping]] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("match_id", "action", "expected_version", "request_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    action: _actions_pb2.Action
    expected_version: int
    request_id: str
    def __init__(self, match_id: _Optional[str] = ..., action: _Optional[_Union[_actions_pb2.Action, _Mapping]] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("version", "events", "match")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[_match_pb2.MatchEvent]
    match: _match_pb2.Match
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_match_pb2.MatchEvent, _Mapping]]] = ..., match: _Optional[_Union[_match_pb2.Match, _Mapping]] = ...) -> None: ...

class ContributeEntropyRequest(_message.Message):
    __slots__ = ("match_id", "entropy", "commitment")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    entropy: str
    commitment: str
    def __init__(self, match_id: _Optional[str] = ..., entropy: _Optional[str] = ..., commitment: _Optional[str] = ...) -> None: ...

class ContributeEntropyResponse(_message.Message):
    __slots__ = ("match", "events")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match: _match_pb2.Match
    events: _containers.RepeatedCompositeFieldContainer[_match_pb2.MatchEvent]
    def __init__(self, match: _Optional[_Union[_match_pb2.Match, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_match_pb2.MatchEvent, _Mapping]]] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("match_id", "request_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ("version", "events", "match")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[_match_pb2.MatchEvent]
    match: _match_pb2.Match
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_match_pb2.MatchEvent, _Mapping]]] = ..., match: _Optional[_Union[_match_pb2.Match, _Mapping]] = ...) -> None: ...

class GetEventLogRequest(_message.Message):
    __slots__ = ("match_id", "after_sequence", "page_size")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    after_sequence: int
    page_size: int
    def __init__(self, match_id: _Optional[str] = ..., after_sequence: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetEventLogResponse(_message.Message):
    __slots__ = ("events", "next_after_sequence", "has_more")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_AFTER_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_match_pb2.MatchEvent]
    next_after_sequence: int
    has_more: bool
    def __init__(self, events: _Optional[_Iterable[_Union[_match_pb2.MatchEvent, _Mapping]]] = ..., next_after_sequence: _Optional[int] = ..., has_more: _Optional[bool] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id", "after_sequence", "heartbeat_seconds", "include_legal_actions", "updates_only")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    UPDATES_ONLY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    after_sequence: int
    heartbeat_seconds: int
    include_legal_actions: bool
    updates_only: bool
    def __init__(self, match_id: _Optional[str] = ..., after_sequence: _Optional[int] = ..., heartbeat_seconds: _Optional[int] = ..., include_legal_actions: _Optional[bool] = ..., updates_only: _Optional[bool] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("last_sequence", "time")
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    last_sequence: int
    time: _timestamp_pb2.Timestamp
    def __init__(self, last_sequence: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MatchUpdate(_message.Message):
    __slots__ = ("match_id", "version", "last_sequence", "status", "side_to_act", "turn", "phase", "clock", "result", "legal_actions", "state")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_ACT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    version: int
    last_sequence: int
    status: _match_pb2.MatchStatus
    side_to_act: str
    turn: int
    phase: str
    clock: _match_pb2.Clock
    result: _match_pb2.MatchResult
    legal_actions: ListLegalActionsResponse
    state: _match_pb2.GameState
    def __init__(self, match_id: _Optional[str] = ..., version: _Optional[int] = ..., last_sequence: _Optional[int] = ..., status: _Optional[_Union[_match_pb2.MatchStatus, str]] = ..., side_to_act: _Optional[str] = ..., turn: _Optional[int] = ..., phase: _Optional[str] = ..., clock: _Optional[_Union[_match_pb2.Clock, _Mapping]] = ..., result: _Optional[_Union[_match_pb2.MatchResult, _Mapping]] = ..., legal_actions: _Optional[_Union[ListLegalActionsResponse, _Mapping]] = ..., state: _Optional[_Union[_match_pb2.GameState, _Mapping]] = ...) -> None: ...

class WatchMatchResponse(_message.Message):
    __slots__ = ("event", "heartbeat", "update")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    event: _match_pb2.MatchEvent
    heartbeat: Heartbeat
    update: MatchUpdate
    def __init__(self, event: _Optional[_Union[_match_pb2.MatchEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., update: _Optional[_Union[MatchUpdate, _Mapping]] = ...) -> None: ...

class ListScenariosRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListScenariosResponse(_message.Message):
    __slots__ = ("scenarios", "options", "presets", "time_controls")
    SCENARIOS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PRESETS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROLS_FIELD_NUMBER: _ClassVar[int]
    scenarios: _containers.RepeatedCompositeFieldContainer[_scenario_pb2.ScenarioSummary]
    options: _containers.RepeatedCompositeFieldContainer[_scenario_pb2.MatchOption]
    presets: _containers.RepeatedCompositeFieldContainer[_scenario_pb2.OptionPreset]
    time_controls: _containers.RepeatedCompositeFieldContainer[_match_pb2.TimeControl]
    def __init__(self, scenarios: _Optional[_Iterable[_Union[_scenario_pb2.ScenarioSummary, _Mapping]]] = ..., options: _Optional[_Iterable[_Union[_scenario_pb2.MatchOption, _Mapping]]] = ..., presets: _Optional[_Iterable[_Union[_scenario_pb2.OptionPreset, _Mapping]]] = ..., time_controls: _Optional[_Iterable[_Union[_match_pb2.TimeControl, _Mapping]]] = ...) -> None: ...

class GetScenarioRequest(_message.Message):
    __slots__ = ("scenario_id",)
    SCENARIO_ID_FIELD_NUMBER: _ClassVar[int]
    scenario_id: str
    def __init__(self, scenario_id: _Optional[str] = ...) -> None: ...

class GetScenarioResponse(_message.Message):
    __slots__ = ("scenario",)
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    scenario: _scenario_pb2.Scenario
    def __init__(self, scenario: _Optional[_Union[_scenario_pb2.Scenario, _Mapping]] = ...) -> None: ...

class VerifyMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class AuditCheck(_message.Message):
    __slots__ = ("name", "description", "outcome", "detail")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    outcome: str
    detail: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., outcome: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class AuditEntropy(_message.Message):
    __slots__ = ("side", "entropy", "drawn", "sequence", "commitment")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    side: str
    entropy: str
    drawn: bool
    sequence: int
    commitment: str
    def __init__(self, side: _Optional[str] = ..., entropy: _Optional[str] = ..., drawn: _Optional[bool] = ..., sequence: _Optional[int] = ..., commitment: _Optional[str] = ...) -> None: ...

class AuditRoll(_message.Message):
    __slots__ = ("sequence", "index", "logged", "recomputed", "purpose")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LOGGED_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTED_FIELD_NUMBER: _ClassVar[int]
    PURPOSE_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    index: int
    logged: int
    recomputed: int
    purpose: str
    def __init__(self, sequence: _Optional[int] = ..., index: _Optional[int] = ..., logged: _Optional[int] = ..., recomputed: _Optional[int] = ..., purpose: _Optional[str] = ...) -> None: ...

class AuditProblem(_message.Message):
    __slots__ = ("sequence", "check", "what")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    WHAT_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    check: str
    what: str
    def __init__(self, sequence: _Optional[int] = ..., check: _Optional[str] = ..., what: _Optional[str] = ...) -> None: ...

class VerifyMatchResponse(_message.Message):
    __slots__ = ("verified", "finished", "seed_commitment", "seed", "checks", "rolls", "problems", "actions", "game_events", "final_state_hash", "summary", "verdict", "ruleset", "entropy")
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    ROLLS_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    GAME_EVENTS_FIELD_NUMBER: _ClassVar[int]
    FINAL_STATE_HASH_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_FIELD_NUMBER: _ClassVar[int]
    verified: bool
    finished: bool
    seed_commitment: str
    seed: str
    checks: _containers.RepeatedCompositeFieldContainer[AuditCheck]
    rolls: _containers.RepeatedCompositeFieldContainer[AuditRoll]
    problems: _containers.RepeatedCompositeFieldContainer[AuditProblem]
    actions: int
    game_events: int
    final_state_hash: str
    summary: str
    verdict: str
    ruleset: int
    entropy: _containers.RepeatedCompositeFieldContainer[AuditEntropy]
    def __init__(self, verified: _Optional[bool] = ..., finished: _Optional[bool] = ..., seed_commitment: _Optional[str] = ..., seed: _Optional[str] = ..., checks: _Optional[_Iterable[_Union[AuditCheck, _Mapping]]] = ..., rolls: _Optional[_Iterable[_Union[AuditRoll, _Mapping]]] = ..., problems: _Optional[_Iterable[_Union[AuditProblem, _Mapping]]] = ..., actions: _Optional[int] = ..., game_events: _Optional[int] = ..., final_state_hash: _Optional[str] = ..., summary: _Optional[str] = ..., verdict: _Optional[str] = ..., ruleset: _Optional[int] = ..., entropy: _Optional[_Iterable[_Union[AuditEntropy, _Mapping]]] = ...) -> None: ...

class PreviewBattleRequest(_message.Message):
    __slots__ = ("match_id", "defender", "attackers")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_FIELD_NUMBER: _ClassVar[int]
    ATTACKERS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    defender: str
    attackers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., defender: _Optional[str] = ..., attackers: _Optional[_Iterable[str]] = ...) -> None: ...

class ColumnShift(_message.Message):
    __slots__ = ("columns", "cause", "description")
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    columns: int
    cause: str
    description: str
    def __init__(self, columns: _Optional[int] = ..., cause: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class BattleOutcome(_message.Message):
    __slots__ = ("roll", "result", "description")
    ROLL_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    roll: int
    result: str
    description: str
    def __init__(self, roll: _Optional[int] = ..., result: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class PreviewBattleResponse(_message.Message):
    __slots__ = ("version", "battle", "strength", "weather", "attack_factor", "shift_causes", "outcomes", "allowed")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    BATTLE_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    WEATHER_FIELD_NUMBER: _ClassVar[int]
    ATTACK_FACTOR_FIELD_NUMBER: _ClassVar[int]
    SHIFT_CAUSES_FIELD_NUMBER: _ClassVar[int]
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    version: int
    battle: _match_pb2.Battle
    strength: str
    weather: str
    attack_factor: str
    shift_causes: _containers.RepeatedCompositeFieldContainer[ColumnShift]
    outcomes: _containers.RepeatedCompositeFieldContainer[BattleOutcome]
    allowed: bool
    def __init__(self, version: _Optional[int] = ..., battle: _Optional[_Union[_match_pb2.Battle, _Mapping]] = ..., strength: _Optional[str] = ..., weather: _Optional[str] = ..., attack_factor: _Optional[str] = ..., shift_causes: _Optional[_Iterable[_Union[ColumnShift, _Mapping]]] = ..., outcomes: _Optional[_Iterable[_Union[BattleOutcome, _Mapping]]] = ..., allowed: _Optional[bool] = ...) -> None: ...
