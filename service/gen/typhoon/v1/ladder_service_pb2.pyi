import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from service.gen.typhoon.v1 import match_pb2 as _match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as _match_service_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SeekWaitReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEEK_WAIT_REASON_UNSPECIFIED: _ClassVar[SeekWaitReason]
    SEEK_WAIT_REASON_PLAYING_ENOUGH: _ClassVar[SeekWaitReason]
    SEEK_WAIT_REASON_ALONE: _ClassVar[SeekWaitReason]
    SEEK_WAIT_REASON_ONLY_RELATED: _ClassVar[SeekWaitReason]
    SEEK_WAIT_REASON_OPPONENTS_BUSY: _ClassVar[SeekWaitReason]
    SEEK_WAIT_REASON_COOLDOWN: _ClassVar[SeekWaitReason]
    SEEK_WAIT_REASON_REMATCH_WAIT: _ClassVar[SeekWaitReason]
    SEEK_WAIT_REASON_STORE_FULL: _ClassVar[SeekWaitReason]
SEEK_WAIT_REASON_UNSPECIFIED: SeekWaitReason
SEEK_WAIT_REASON_PLAYING_ENOUGH: SeekWaitReason
SEEK_WAIT_REASON_ALONE: SeekWaitReason
SEEK_WAIT_REASON_ONLY_RELATED: SeekWaitReason
SEEK_WAIT_REASON_OPPONENTS_BUSY: SeekWaitReason
SEEK_WAIT_REASON_COOLDOWN: SeekWaitReason
SEEK_WAIT_REASON_REMATCH_WAIT: SeekWaitReason
SEEK_WAIT_REASON_STORE_FULL: SeekWaitReason

class LadderPlayer(_message.Message):
    __slots__ = ("player_id", "name", "description", "owner", "rating", "mu", "sigma", "games", "wins_as_german", "wins_as_soviet", "losses", "draws", "games_as_german", "games_as_soviet", "time_losses", "aborted", "rank", "registered_at", "owner_id", "provisional")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_AS_GERMAN_FIELD_NUMBER: _ClassVar[int]
    WINS_AS_SOVIET_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    GAMES_AS_GERMAN_FIELD_NUMBER: _ClassVar[int]
    GAMES_AS_SOVIET_FIELD_NUMBER: _ClassVar[int]
    TIME_LOSSES_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_AT_FIELD_NUMBER: _ClassVar[int]
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    name: str
    description: str
    owner: str
    rating: float
    mu: float
    sigma: float
    games: int
    wins_as_german: int
    wins_as_soviet: int
    losses: int
    draws: int
    games_as_german: int
    games_as_soviet: int
    time_losses: int
    aborted: int
    rank: int
    registered_at: _timestamp_pb2.Timestamp
    owner_id: str
    provisional: bool
    def __init__(self, player_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., owner: _Optional[str] = ..., rating: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., games: _Optional[int] = ..., wins_as_german: _Optional[int] = ..., wins_as_soviet: _Optional[int] = ..., losses: _Optional[int] = ..., draws: _Optional[int] = ..., games_as_german: _Optional[int] = ..., games_as_soviet: _Optional[int] = ..., time_losses: _Optional[int] = ..., aborted: _Optional[int] = ..., rank: _Optional[int] = ..., registered_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., owner_id: _Optional[str] = ..., provisional: _Optional[bool] = ...) -> None: ...

class LadderOwner(_message.Message):
    __slots__ = ("owner_id", "name", "registered_at", "player_ids", "closed")
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_AT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    owner_id: str
    name: str
    registered_at: _timestamp_pb2.Timestamp
    player_ids: _containers.RepeatedScalarFieldContainer[str]
    closed: bool
    def __init__(self, owner_id: _Optional[str] = ..., name: _Optional[str] = ..., registered_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., player_ids: _Optional[_Iterable[str]] = ..., closed: _Optional[bool] = ...) -> None: ...

class LadderMatch(_message.Message):
    __slots__ = ("match_id", "side", "seat_token", "time_control", "opponent_id", "opponent_name", "scenario")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_ID_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    side: str
    seat_token: str
    time_control: _match_pb2.TimeControl
    opponent_id: str
    opponent_name: str
    scenario: str
    def __init__(self, match_id: _Optional[str] = ..., side: _Optional[str] = ..., seat_token: _Optional[str] = ..., time_control: _Optional[_Union[_match_pb2.TimeControl, _Mapping]] = ..., opponent_id: _Optional[str] = ..., opponent_name: _Optional[str] = ..., scenario: _Optional[str] = ...) -> None: ...

class LadderGame(_message.Message):
    __slots__ = ("match_id", "side", "opponent_id", "opponent_name", "outcome", "reason", "rating", "mu", "sigma", "finished_at", "rating_sequence", "rated", "unrated_reason", "opponent_provisional")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_ID_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    RATING_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    UNRATED_REASON_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    side: str
    opponent_id: str
    opponent_name: str
    outcome: str
    reason: str
    rating: float
    mu: float
    sigma: float
    finished_at: _timestamp_pb2.Timestamp
    rating_sequence: int
    rated: bool
    unrated_reason: str
    opponent_provisional: bool
    def __init__(self, match_id: _Optional[str] = ..., side: _Optional[str] = ..., opponent_id: _Optional[str] = ..., opponent_name: _Optional[str] = ..., outcome: _Optional[str] = ..., reason: _Optional[str] = ..., rating: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., rating_sequence: _Optional[int] = ..., rated: _Optional[bool] = ..., unrated_reason: _Optional[str] = ..., opponent_provisional: _Optional[bool] = ...) -> None: ...

class SideRating(_message.Message):
    __slots__ = ("side", "rating", "mu", "sigma", "games")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    side: str
    rating: float
    mu: float
    sigma: float
    games: int
    def __init__(self, side: _Optional[str] = ..., rating: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., games: _Optional[int] = ...) -> None: ...

class RatingModel(_message.Message):
    __slots__ = ("name", "library_version", "mu", "sigma", "beta", "kappa", "tau", "z")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIBRARY_VERSION_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    KAPPA_FIELD_NUMBER: _ClassVar[int]
    TAU_FIELD_NUMBER: _ClassVar[int]
    Z_FIELD_NUMBER: _ClassVar[int]
    name: str
    library_version: str
    mu: float
    sigma: float
    beta: float
    kappa: float
    tau: float
    z: float
    def __init__(self, name: _Optional[str] = ..., library_version: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., beta: _Optional[float] = ..., kappa: _Optional[float] = ..., tau: _Optional[float] = ..., z: _Optional[float] = ...) -> None: ...

class RegisterOwnerRequest(_message.Message):
    __slots__ = ("name", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RegisterOwnerResponse(_message.Message):
    __slots__ = ("owner", "owner_key", "key_withheld")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OWNER_KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_WITHHELD_FIELD_NUMBER: _ClassVar[int]
    owner: LadderOwner
    owner_key: str
    key_withheld: bool
    def __init__(self, owner: _Optional[_Union[LadderOwner, _Mapping]] = ..., owner_key: _Optional[str] = ..., key_withheld: _Optional[bool] = ...) -> None: ...

class GetOwnerRequest(_message.Message):
    __slots__ = ("owner_id",)
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    owner_id: str
    def __init__(self, owner_id: _Optional[str] = ...) -> None: ...

class GetOwnerResponse(_message.Message):
    __slots__ = ("owner",)
    OWNER_FIELD_NUMBER: _ClassVar[int]
    owner: LadderOwner
    def __init__(self, owner: _Optional[_Union[LadderOwner, _Mapping]] = ...) -> None: ...

class RegisterPlayerRequest(_message.Message):
    __slots__ = ("name", "description", "owner", "api_key", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    owner: str
    api_key: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., owner: _Optional[str] = ..., api_key: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RegisterPlayerResponse(_message.Message):
    __slots__ = ("player", "api_key")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    player: LadderPlayer
    api_key: str
    def __init__(self, player: _Optional[_Union[LadderPlayer, _Mapping]] = ..., api_key: _Optional[str] = ...) -> None: ...

class RotatePlayerKeyRequest(_message.Message):
    __slots__ = ("player_id", "request_id")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    request_id: str
    def __init__(self, player_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RotatePlayerKeyResponse(_message.Message):
    __slots__ = ("api_key", "key_withheld")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_WITHHELD_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    key_withheld: bool
    def __init__(self, api_key: _Optional[str] = ..., key_withheld: _Optional[bool] = ...) -> None: ...

class RevokePlayerKeyRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class RevokePlayerKeyResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RotateOwnerKeyRequest(_message.Message):
    __slots__ = ("owner_id", "request_id")
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    owner_id: str
    request_id: str
    def __init__(self, owner_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RotateOwnerKeyResponse(_message.Message):
    __slots__ = ("owner_key", "key_withheld")
    OWNER_KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_WITHHELD_FIELD_NUMBER: _ClassVar[int]
    owner_key: str
    key_withheld: bool
    def __init__(self, owner_key: _Optional[str] = ..., key_withheld: _Optional[bool] = ...) -> None: ...

class RevokeOwnerKeyRequest(_message.Message):
    __slots__ = ("owner_id",)
    OWNER_ID_FIELD_NUMBER: _ClassVar[int]
    owner_id: str
    def __init__(self, owner_id: _Optional[str] = ...) -> None: ...

class RevokeOwnerKeyResponse(_message.Message):
    __slots__ = ("player_keys_revoked",)
    PLAYER_KEYS_REVOKED_FIELD_NUMBER: _ClassVar[int]
    player_keys_revoked: int
    def __init__(self, player_keys_revoked: _Optional[int] = ...) -> None: ...

class GetLadderRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetLadderResponse(_message.Message):
    __slots__ = ("time_control", "scenario", "options", "max_concurrency", "side_ratings", "rating_model", "fair_play")
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    SIDE_RATINGS_FIELD_NUMBER: _ClassVar[int]
    RATING_MODEL_FIELD_NUMBER: _ClassVar[int]
    FAIR_PLAY_FIELD_NUMBER: _ClassVar[int]
    time_control: _match_pb2.TimeControl
    scenario: str
    options: _struct_pb2.Struct
    max_concurrency: int
    side_ratings: _containers.RepeatedCompositeFieldContainer[SideRating]
    rating_model: RatingModel
    fair_play: LadderFairPlay
    def __init__(self, time_control: _Optional[_Union[_match_pb2.TimeControl, _Mapping]] = ..., scenario: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., max_concurrency: _Optional[int] = ..., side_ratings: _Optional[_Iterable[_Union[SideRating, _Mapping]]] = ..., rating_model: _Optional[_Union[RatingModel, _Mapping]] = ..., fair_play: _Optional[_Union[LadderFairPlay, _Mapping]] = ...) -> None: ...

class LadderFairPlay(_message.Message):
    __slots__ = ("same_owner_pairs", "pair_rated_max", "pair_window", "min_actions", "players_per_owner", "abandon_cooldown", "owner_pair_rated_max", "related_window", "established_games", "established_owners")
    SAME_OWNER_PAIRS_FIELD_NUMBER: _ClassVar[int]
    PAIR_RATED_MAX_FIELD_NUMBER: _ClassVar[int]
    PAIR_WINDOW_FIELD_NUMBER: _ClassVar[int]
    MIN_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_PER_OWNER_FIELD_NUMBER: _ClassVar[int]
    ABANDON_COOLDOWN_FIELD_NUMBER: _ClassVar[int]
    OWNER_PAIR_RATED_MAX_FIELD_NUMBER: _ClassVar[int]
    RELATED_WINDOW_FIELD_NUMBER: _ClassVar[int]
    ESTABLISHED_GAMES_FIELD_NUMBER: _ClassVar[int]
    ESTABLISHED_OWNERS_FIELD_NUMBER: _ClassVar[int]
    same_owner_pairs: bool
    pair_rated_max: int
    pair_window: _duration_pb2.Duration
    min_actions: int
    players_per_owner: int
    abandon_cooldown: _duration_pb2.Duration
    owner_pair_rated_max: int
    related_window: _duration_pb2.Duration
    established_games: int
    established_owners: int
    def __init__(self, same_owner_pairs: _Optional[bool] = ..., pair_rated_max: _Optional[int] = ..., pair_window: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., min_actions: _Optional[int] = ..., players_per_owner: _Optional[int] = ..., abandon_cooldown: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., owner_pair_rated_max: _Optional[int] = ..., related_window: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., established_games: _Optional[int] = ..., established_owners: _Optional[int] = ...) -> None: ...

class SeekRequest(_message.Message):
    __slots__ = ("concurrency", "heartbeat_seconds", "include_legal_actions", "commit_entropy")
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    COMMIT_ENTROPY_FIELD_NUMBER: _ClassVar[int]
    concurrency: int
    heartbeat_seconds: int
    include_legal_actions: bool
    commit_entropy: bool
    def __init__(self, concurrency: _Optional[int] = ..., heartbeat_seconds: _Optional[int] = ..., include_legal_actions: _Optional[bool] = ..., commit_entropy: _Optional[bool] = ...) -> None: ...

class SeekHeartbeat(_message.Message):
    __slots__ = ("time", "playing", "waiting", "waiting_message", "cooldown_until")
    TIME_FIELD_NUMBER: _ClassVar[int]
    PLAYING_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    WAITING_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    COOLDOWN_UNTIL_FIELD_NUMBER: _ClassVar[int]
    time: _timestamp_pb2.Timestamp
    playing: int
    waiting: SeekWaitReason
    waiting_message: str
    cooldown_until: _timestamp_pb2.Timestamp
    def __init__(self, time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., playing: _Optional[int] = ..., waiting: _Optional[_Union[SeekWaitReason, str]] = ..., waiting_message: _Optional[str] = ..., cooldown_until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SeekResponse(_message.Message):
    __slots__ = ("match", "heartbeat", "match_update")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    MATCH_UPDATE_FIELD_NUMBER: _ClassVar[int]
    match: LadderMatch
    heartbeat: SeekHeartbeat
    match_update: _match_service_pb2.MatchUpdate
    def __init__(self, match: _Optional[_Union[LadderMatch, _Mapping]] = ..., heartbeat: _Optional[_Union[SeekHeartbeat, _Mapping]] = ..., match_update: _Optional[_Union[_match_service_pb2.MatchUpdate, _Mapping]] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("players", "next_page_token")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    players: _containers.RepeatedCompositeFieldContainer[LadderPlayer]
    next_page_token: str
    def __init__(self, players: _Optional[_Iterable[_Union[LadderPlayer, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetPlayerRequest(_message.Message):
    __slots__ = ("player_id", "name")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    name: str
    def __init__(self, player_id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class GetPlayerResponse(_message.Message):
    __slots__ = ("player",)
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    player: LadderPlayer
    def __init__(self, player: _Optional[_Union[LadderPlayer, _Mapping]] = ...) -> None: ...

class ListPlayerMatchesRequest(_message.Message):
    __slots__ = ("player_id", "page_size", "page_token")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    page_size: int
    page_token: str
    def __init__(self, player_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListPlayerMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[LadderGame]
    next_page_token: str
    def __init__(self, matches: _Optional[_Iterable[_Union[LadderGame, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
