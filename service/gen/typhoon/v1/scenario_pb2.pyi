from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MapHex(_message.Message):
    __slots__ = ("id", "column", "row", "terrain", "city", "capital", "fort", "setup", "rail", "river")
    ID_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    TERRAIN_FIELD_NUMBER: _ClassVar[int]
    CITY_FIELD_NUMBER: _ClassVar[int]
    CAPITAL_FIELD_NUMBER: _ClassVar[int]
    FORT_FIELD_NUMBER: _ClassVar[int]
    SETUP_FIELD_NUMBER: _ClassVar[int]
    RAIL_FIELD_NUMBER: _ClassVar[int]
    RIVER_FIELD_NUMBER: _ClassVar[int]
    id: str
    column: int
    row: int
    terrain: str
    city: str
    capital: bool
    fort: bool
    setup: str
    rail: _containers.RepeatedScalarFieldContainer[str]
    river: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., column: _Optional[int] = ..., row: _Optional[int] = ..., terrain: _Optional[str] = ..., city: _Optional[str] = ..., capital: _Optional[bool] = ..., fort: _Optional[bool] = ..., setup: _Optional[str] = ..., rail: _Optional[_Iterable[str]] = ..., river: _Optional[_Iterable[str]] = ...) -> None: ...

class EntryHexes(_message.Message):
    __slots__ = ("soviet", "german", "soviet_extra")
    SOVIET_FIELD_NUMBER: _ClassVar[int]
    GERMAN_FIELD_NUMBER: _ClassVar[int]
    SOVIET_EXTRA_FIELD_NUMBER: _ClassVar[int]
    soviet: _containers.RepeatedScalarFieldContainer[str]
    german: _containers.RepeatedScalarFieldContainer[str]
    soviet_extra: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, soviet: _Optional[_Iterable[str]] = ..., german: _Optional[_Iterable[str]] = ..., soviet_extra: _Optional[_Iterable[str]] = ...) -> None: ...

class MapBoard(_message.Message):
    __slots__ = ("name", "columns", "rows", "grid", "hexes", "west_edge", "east_edge", "entry")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    GRID_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    WEST_EDGE_FIELD_NUMBER: _ClassVar[int]
    EAST_EDGE_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    name: str
    columns: int
    rows: int
    grid: str
    hexes: _containers.RepeatedCompositeFieldContainer[MapHex]
    west_edge: _containers.RepeatedScalarFieldContainer[str]
    east_edge: _containers.RepeatedScalarFieldContainer[str]
    entry: EntryHexes
    def __init__(self, name: _Optional[str] = ..., columns: _Optional[int] = ..., rows: _Optional[int] = ..., grid: _Optional[str] = ..., hexes: _Optional[_Iterable[_Union[MapHex, _Mapping]]] = ..., west_edge: _Optional[_Iterable[str]] = ..., east_edge: _Optional[_Iterable[str]] = ..., entry: _Optional[_Union[EntryHexes, _Mapping]] = ...) -> None: ...

class Counter(_message.Message):
    __slots__ = ("id", "name", "side", "type", "size", "full", "half", "ma")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    FULL_FIELD_NUMBER: _ClassVar[int]
    HALF_FIELD_NUMBER: _ClassVar[int]
    MA_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    side: str
    type: str
    size: str
    full: int
    half: int
    ma: int
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., side: _Optional[str] = ..., type: _Optional[str] = ..., size: _Optional[str] = ..., full: _Optional[int] = ..., half: _Optional[int] = ..., ma: _Optional[int] = ...) -> None: ...

class CrtRow(_message.Message):
    __slots__ = ("roll", "results")
    ROLL_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    roll: int
    results: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, roll: _Optional[int] = ..., results: _Optional[_Iterable[str]] = ...) -> None: ...

class CombatResultsTable(_message.Message):
    __slots__ = ("name", "columns", "below_lowest", "rows", "result_names")
    class ResultNamesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    BELOW_LOWEST_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    RESULT_NAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    columns: _containers.RepeatedScalarFieldContainer[str]
    below_lowest: str
    rows: _containers.RepeatedCompositeFieldContainer[CrtRow]
    result_names: _containers.ScalarMap[str, str]
    def __init__(self, name: _Optional[str] = ..., columns: _Optional[_Iterable[str]] = ..., below_lowest: _Optional[str] = ..., rows: _Optional[_Iterable[_Union[CrtRow, _Mapping]]] = ..., result_names: _Optional[_Mapping[str, str]] = ...) -> None: ...

class WeatherRules(_message.Message):
    __slots__ = ("id", "title", "max_hexes", "rail_exempt", "attack_factor", "ma_modifier", "winter_attrition")
    class MaModifierEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MAX_HEXES_FIELD_NUMBER: _ClassVar[int]
    RAIL_EXEMPT_FIELD_NUMBER: _ClassVar[int]
    ATTACK_FACTOR_FIELD_NUMBER: _ClassVar[int]
    MA_MODIFIER_FIELD_NUMBER: _ClassVar[int]
    WINTER_ATTRITION_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    max_hexes: int
    rail_exempt: bool
    attack_factor: str
    ma_modifier: _containers.ScalarMap[str, int]
    winter_attrition: bool
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., max_hexes: _Optional[int] = ..., rail_exempt: _Optional[bool] = ..., attack_factor: _Optional[str] = ..., ma_modifier: _Optional[_Mapping[str, int]] = ..., winter_attrition: _Optional[bool] = ...) -> None: ...

class TurnRecord(_message.Message):
    __slots__ = ("turn", "dates", "weather", "replacements", "variable", "tank")
    class ReplacementsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    TURN_FIELD_NUMBER: _ClassVar[int]
    DATES_FIELD_NUMBER: _ClassVar[int]
    WEATHER_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    VARIABLE_FIELD_NUMBER: _ClassVar[int]
    TANK_FIELD_NUMBER: _ClassVar[int]
    turn: int
    dates: str
    weather: str
    replacements: _containers.ScalarMap[str, int]
    variable: str
    tank: bool
    def __init__(self, turn: _Optional[int] = ..., dates: _Optional[str] = ..., weather: _Optional[str] = ..., replacements: _Optional[_Mapping[str, int]] = ..., variable: _Optional[str] = ..., tank: _Optional[bool] = ...) -> None: ...

class ScenarioPoolUnit(_message.Message):
    __slots__ = ("id", "available_from")
    ID_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_FROM_FIELD_NUMBER: _ClassVar[int]
    id: str
    available_from: int
    def __init__(self, id: _Optional[str] = ..., available_from: _Optional[int] = ...) -> None: ...

class ScenarioSetup(_message.Message):
    __slots__ = ("soviet", "soviet_strength", "german_standard", "german_strength", "pool")
    class SovietEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class GermanStandardEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SOVIET_FIELD_NUMBER: _ClassVar[int]
    SOVIET_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    GERMAN_STANDARD_FIELD_NUMBER: _ClassVar[int]
    GERMAN_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    POOL_FIELD_NUMBER: _ClassVar[int]
    soviet: _containers.ScalarMap[str, str]
    soviet_strength: str
    german_standard: _containers.ScalarMap[str, str]
    german_strength: str
    pool: _containers.RepeatedCompositeFieldContainer[ScenarioPoolUnit]
    def __init__(self, soviet: _Optional[_Mapping[str, str]] = ..., soviet_strength: _Optional[str] = ..., german_standard: _Optional[_Mapping[str, str]] = ..., german_strength: _Optional[str] = ..., pool: _Optional[_Iterable[_Union[ScenarioPoolUnit, _Mapping]]] = ...) -> None: ...

class VictoryRules(_message.Message):
    __slots__ = ("elimination", "city", "capital", "capital_occupation_bonus")
    ELIMINATION_FIELD_NUMBER: _ClassVar[int]
    CITY_FIELD_NUMBER: _ClassVar[int]
    CAPITAL_FIELD_NUMBER: _ClassVar[int]
    CAPITAL_OCCUPATION_BONUS_FIELD_NUMBER: _ClassVar[int]
    elimination: int
    city: int
    capital: int
    capital_occupation_bonus: int
    def __init__(self, elimination: _Optional[int] = ..., city: _Optional[int] = ..., capital: _Optional[int] = ..., capital_occupation_bonus: _Optional[int] = ...) -> None: ...

class Scenario(_message.Message):
    __slots__ = ("id", "title", "first_turn", "last_turn", "map", "counters", "crt", "weather", "turns", "setup", "victory", "sequence")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    FIRST_TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_TURN_FIELD_NUMBER: _ClassVar[int]
    MAP_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    CRT_FIELD_NUMBER: _ClassVar[int]
    WEATHER_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    SETUP_FIELD_NUMBER: _ClassVar[int]
    VICTORY_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    first_turn: int
    last_turn: int
    map: MapBoard
    counters: _containers.RepeatedCompositeFieldContainer[Counter]
    crt: CombatResultsTable
    weather: _containers.RepeatedCompositeFieldContainer[WeatherRules]
    turns: _containers.RepeatedCompositeFieldContainer[TurnRecord]
    setup: ScenarioSetup
    victory: VictoryRules
    sequence: _containers.RepeatedCompositeFieldContainer[TurnPhase]
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., first_turn: _Optional[int] = ..., last_turn: _Optional[int] = ..., map: _Optional[_Union[MapBoard, _Mapping]] = ..., counters: _Optional[_Iterable[_Union[Counter, _Mapping]]] = ..., crt: _Optional[_Union[CombatResultsTable, _Mapping]] = ..., weather: _Optional[_Iterable[_Union[WeatherRules, _Mapping]]] = ..., turns: _Optional[_Iterable[_Union[TurnRecord, _Mapping]]] = ..., setup: _Optional[_Union[ScenarioSetup, _Mapping]] = ..., victory: _Optional[_Union[VictoryRules, _Mapping]] = ..., sequence: _Optional[_Iterable[_Union[TurnPhase, _Mapping]]] = ...) -> None: ...

class TurnPhase(_message.Message):
    __slots__ = ("name", "side", "kind", "movers", "option")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MOVERS_FIELD_NUMBER: _ClassVar[int]
    OPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    side: str
    kind: str
    movers: str
    option: str
    def __init__(self, name: _Optional[str] = ..., side: _Optional[str] = ..., kind: _Optional[str] = ..., movers: _Optional[str] = ..., option: _Optional[str] = ...) -> None: ...

class MatchOption(_message.Message):
    __slots__ = ("name", "values", "default_value", "rule")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    name: str
    values: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    default_value: _struct_pb2.Value
    rule: str
    def __init__(self, name: _Optional[str] = ..., values: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., default_value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., rule: _Optional[str] = ...) -> None: ...

class OptionPreset(_message.Message):
    __slots__ = ("name", "options")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    options: _struct_pb2.Struct
    def __init__(self, name: _Optional[str] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ScenarioSummary(_message.Message):
    __slots__ = ("id", "title", "first_turn", "last_turn")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    FIRST_TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_TURN_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    first_turn: int
    last_turn: int
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., first_turn: _Optional[int] = ..., last_turn: _Optional[int] = ...) -> None: ...
