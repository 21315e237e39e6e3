from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Event(_message.Message):
    __slots__ = ("turn_started", "phase_started", "unit_placed", "unit_moved", "city_captured", "attack_declared", "declarations_closed", "die_rolled", "battle_resolved", "step_lost", "unit_eliminated", "unit_retreated", "unit_advanced", "replacement_points_received", "unit_replaced", "unit_restored", "capital_occupied", "game_ended", "weather_changed", "winter_attrition", "winter_gear_bought", "unit_available", "tank_designated", "supply_changed", "assault_supported", "entropy_drawn")
    class TurnStarted(_message.Message):
        __slots__ = ("turn", "dates", "weather")
        TURN_FIELD_NUMBER: _ClassVar[int]
        DATES_FIELD_NUMBER: _ClassVar[int]
        WEATHER_FIELD_NUMBER: _ClassVar[int]
        turn: int
        dates: str
        weather: str
        def __init__(self, turn: _Optional[int] = ..., dates: _Optional[str] = ..., weather: _Optional[str] = ...) -> None: ...
    class PhaseStarted(_message.Message):
        __slots__ = ("turn", "phase", "side")
        TURN_FIELD_NUMBER: _ClassVar[int]
        PHASE_FIELD_NUMBER: _ClassVar[int]
        SIDE_FIELD_NUMBER: _ClassVar[int]
        turn: int
        phase: str
        side: str
        def __init__(self, turn: _Optional[int] = ..., phase: _Optional[str] = ..., side: _Optional[str] = ...) -> None: ...
    class UnitPlaced(_message.Message):
        __slots__ = ("unit", "hex")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        unit: str
        hex: str
        def __init__(self, unit: _Optional[str] = ..., hex: _Optional[str] = ...) -> None: ...
    class UnitMoved(_message.Message):
        __slots__ = ("unit", "start", "path")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        START_FIELD_NUMBER: _ClassVar[int]
        PATH_FIELD_NUMBER: _ClassVar[int]
        unit: str
        start: str
        path: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, unit: _Optional[str] = ..., start: _Optional[str] = ..., path: _Optional[_Iterable[str]] = ...) -> None: ...
    class CityCaptured(_message.Message):
        __slots__ = ("city", "hex", "side")
        CITY_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        SIDE_FIELD_NUMBER: _ClassVar[int]
        city: str
        hex: str
        side: str
        def __init__(self, city: _Optional[str] = ..., hex: _Optional[str] = ..., side: _Optional[str] = ...) -> None: ...
    class AttackDeclared(_message.Message):
        __slots__ = ("attackers", "defender")
        ATTACKERS_FIELD_NUMBER: _ClassVar[int]
        DEFENDER_FIELD_NUMBER: _ClassVar[int]
        attackers: _containers.RepeatedScalarFieldContainer[str]
        defender: str
        def __init__(self, attackers: _Optional[_Iterable[str]] = ..., defender: _Optional[str] = ...) -> None: ...
    class DeclarationsClosed(_message.Message):
        __slots__ = ("battles",)
        BATTLES_FIELD_NUMBER: _ClassVar[int]
        battles: int
        def __init__(self, battles: _Optional[int] = ...) -> None: ...
    class EntropyDrawn(_message.Message):
        __slots__ = ("side", "entropy")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        ENTROPY_FIELD_NUMBER: _ClassVar[int]
        side: str
        entropy: str
        def __init__(self, side: _Optional[str] = ..., entropy: _Optional[str] = ...) -> None: ...
    class DieRolled(_message.Message):
        __slots__ = ("index", "value", "purpose")
        INDEX_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        PURPOSE_FIELD_NUMBER: _ClassVar[int]
        index: int
        value: int
        purpose: str
        def __init__(self, index: _Optional[int] = ..., value: _Optional[int] = ..., purpose: _Optional[str] = ...) -> None: ...
    class BattleResolved(_message.Message):
        __slots__ = ("defender", "attackers", "attack", "defence", "odds", "shifts", "column", "result", "roll")
        DEFENDER_FIELD_NUMBER: _ClassVar[int]
        ATTACKERS_FIELD_NUMBER: _ClassVar[int]
        ATTACK_FIELD_NUMBER: _ClassVar[int]
        DEFENCE_FIELD_NUMBER: _ClassVar[int]
        ODDS_FIELD_NUMBER: _ClassVar[int]
        SHIFTS_FIELD_NUMBER: _ClassVar[int]
        COLUMN_FIELD_NUMBER: _ClassVar[int]
        RESULT_FIELD_NUMBER: _ClassVar[int]
        ROLL_FIELD_NUMBER: _ClassVar[int]
        defender: str
        attackers: _containers.RepeatedScalarFieldContainer[str]
        attack: str
        defence: int
        odds: str
        shifts: int
        column: str
        result: str
        roll: int
        def __init__(self, defender: _Optional[str] = ..., attackers: _Optional[_Iterable[str]] = ..., attack: _Optional[str] = ..., defence: _Optional[int] = ..., odds: _Optional[str] = ..., shifts: _Optional[int] = ..., column: _Optional[str] = ..., result: _Optional[str] = ..., roll: _Optional[int] = ...) -> None: ...
    class StepLost(_message.Message):
        __slots__ = ("unit", "hex", "strength_lost", "cause")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        STRENGTH_LOST_FIELD_NUMBER: _ClassVar[int]
        CAUSE_FIELD_NUMBER: _ClassVar[int]
        unit: str
        hex: str
        strength_lost: int
        cause: str
        def __init__(self, unit: _Optional[str] = ..., hex: _Optional[str] = ..., strength_lost: _Optional[int] = ..., cause: _Optional[str] = ...) -> None: ...
    class UnitEliminated(_message.Message):
        __slots__ = ("unit", "hex", "strength_lost", "cause", "points_to")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        STRENGTH_LOST_FIELD_NUMBER: _ClassVar[int]
        CAUSE_FIELD_NUMBER: _ClassVar[int]
        POINTS_TO_FIELD_NUMBER: _ClassVar[int]
        unit: str
        hex: str
        strength_lost: int
        cause: str
        points_to: str
        def __init__(self, unit: _Optional[str] = ..., hex: _Optional[str] = ..., strength_lost: _Optional[int] = ..., cause: _Optional[str] = ..., points_to: _Optional[str] = ...) -> None: ...
    class UnitRetreated(_message.Message):
        __slots__ = ("unit", "start", "path", "through_zoc")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        START_FIELD_NUMBER: _ClassVar[int]
        PATH_FIELD_NUMBER: _ClassVar[int]
        THROUGH_ZOC_FIELD_NUMBER: _ClassVar[int]
        unit: str
        start: str
        path: _containers.RepeatedScalarFieldContainer[str]
        through_zoc: bool
        def __init__(self, unit: _Optional[str] = ..., start: _Optional[str] = ..., path: _Optional[_Iterable[str]] = ..., through_zoc: _Optional[bool] = ...) -> None: ...
    class UnitAdvanced(_message.Message):
        __slots__ = ("unit", "start", "hex")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        START_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        unit: str
        start: str
        hex: str
        def __init__(self, unit: _Optional[str] = ..., start: _Optional[str] = ..., hex: _Optional[str] = ...) -> None: ...
    class ReplacementPointsReceived(_message.Message):
        __slots__ = ("side", "points")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        side: str
        points: int
        def __init__(self, side: _Optional[str] = ..., points: _Optional[int] = ...) -> None: ...
    class UnitReplaced(_message.Message):
        __slots__ = ("unit", "hex")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        unit: str
        hex: str
        def __init__(self, unit: _Optional[str] = ..., hex: _Optional[str] = ...) -> None: ...
    class UnitRestored(_message.Message):
        __slots__ = ("unit", "hex")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        unit: str
        hex: str
        def __init__(self, unit: _Optional[str] = ..., hex: _Optional[str] = ...) -> None: ...
    class CapitalOccupied(_message.Message):
        __slots__ = ("side", "points")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        side: str
        points: int
        def __init__(self, side: _Optional[str] = ..., points: _Optional[int] = ...) -> None: ...
    class GameEnded(_message.Message):
        __slots__ = ("winner", "reason", "german_points", "soviet_points")
        WINNER_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        GERMAN_POINTS_FIELD_NUMBER: _ClassVar[int]
        SOVIET_POINTS_FIELD_NUMBER: _ClassVar[int]
        winner: str
        reason: str
        german_points: int
        soviet_points: int
        def __init__(self, winner: _Optional[str] = ..., reason: _Optional[str] = ..., german_points: _Optional[int] = ..., soviet_points: _Optional[int] = ...) -> None: ...
    class WeatherChanged(_message.Message):
        __slots__ = ("turn", "weather", "reason")
        TURN_FIELD_NUMBER: _ClassVar[int]
        WEATHER_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        turn: int
        weather: str
        reason: str
        def __init__(self, turn: _Optional[int] = ..., weather: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
    class WinterAttrition(_message.Message):
        __slots__ = ("side", "roll", "result")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        ROLL_FIELD_NUMBER: _ClassVar[int]
        RESULT_FIELD_NUMBER: _ClassVar[int]
        side: str
        roll: int
        result: str
        def __init__(self, side: _Optional[str] = ..., roll: _Optional[int] = ..., result: _Optional[str] = ...) -> None: ...
    class WinterGearBought(_message.Message):
        __slots__ = ("side", "cost")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        COST_FIELD_NUMBER: _ClassVar[int]
        side: str
        cost: int
        def __init__(self, side: _Optional[str] = ..., cost: _Optional[int] = ...) -> None: ...
    class UnitAvailable(_message.Message):
        __slots__ = ("unit", "reason")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        unit: str
        reason: str
        def __init__(self, unit: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...
    class TankDesignated(_message.Message):
        __slots__ = ("unit", "tank", "hex", "strength")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        TANK_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        STRENGTH_FIELD_NUMBER: _ClassVar[int]
        unit: str
        tank: str
        hex: str
        strength: str
        def __init__(self, unit: _Optional[str] = ..., tank: _Optional[str] = ..., hex: _Optional[str] = ..., strength: _Optional[str] = ...) -> None: ...
    class SupplyChanged(_message.Message):
        __slots__ = ("side", "supply", "change", "reason")
        SIDE_FIELD_NUMBER: _ClassVar[int]
        SUPPLY_FIELD_NUMBER: _ClassVar[int]
        CHANGE_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        side: str
        supply: int
        change: int
        reason: str
        def __init__(self, side: _Optional[str] = ..., supply: _Optional[int] = ..., change: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...
    class AssaultSupported(_message.Message):
        __slots__ = ("unit", "points", "cost")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        COST_FIELD_NUMBER: _ClassVar[int]
        unit: str
        points: int
        cost: int
        def __init__(self, unit: _Optional[str] = ..., points: _Optional[int] = ..., cost: _Optional[int] = ...) -> None: ...
    TURN_STARTED_FIELD_NUMBER: _ClassVar[int]
    PHASE_STARTED_FIELD_NUMBER: _ClassVar[int]
    UNIT_PLACED_FIELD_NUMBER: _ClassVar[int]
    UNIT_MOVED_FIELD_NUMBER: _ClassVar[int]
    CITY_CAPTURED_FIELD_NUMBER: _ClassVar[int]
    ATTACK_DECLARED_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_CLOSED_FIELD_NUMBER: _ClassVar[int]
    DIE_ROLLED_FIELD_NUMBER: _ClassVar[int]
    BATTLE_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    STEP_LOST_FIELD_NUMBER: _ClassVar[int]
    UNIT_ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    UNIT_RETREATED_FIELD_NUMBER: _ClassVar[int]
    UNIT_ADVANCED_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_POINTS_RECEIVED_FIELD_NUMBER: _ClassVar[int]
    UNIT_REPLACED_FIELD_NUMBER: _ClassVar[int]
    UNIT_RESTORED_FIELD_NUMBER: _ClassVar[int]
    CAPITAL_OCCUPIED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    WEATHER_CHANGED_FIELD_NUMBER: _ClassVar[int]
    WINTER_ATTRITION_FIELD_NUMBER: _ClassVar[int]
    WINTER_GEAR_BOUGHT_FIELD_NUMBER: _ClassVar[int]
    UNIT_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    TANK_DESIGNATED_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_CHANGED_FIELD_NUMBER: _ClassVar[int]
    ASSAULT_SUPPORTED_FIELD_NUMBER: _ClassVar[int]
    ENTROPY_DRAWN_FIELD_NUMBER: _ClassVar[int]
    turn_started: Event.TurnStarted
    phase_started: Event.PhaseStarted
    unit_placed: Event.UnitPlaced
    unit_moved: Event.UnitMoved
    city_captured: Event.CityCaptured
    attack_declared: Event.AttackDeclared
    declarations_closed: Event.DeclarationsClosed
    die_rolled: Event.DieRolled
    battle_resolved: Event.BattleResolved
    step_lost: Event.StepLost
    unit_eliminated: Event.UnitEliminated
    unit_retreated: Event.UnitRetreated
    unit_advanced: Event.UnitAdvanced
    replacement_points_received: Event.ReplacementPointsReceived
    unit_replaced: Event.UnitReplaced
    unit_restored: Event.UnitRestored
    capital_occupied: Event.CapitalOccupied
    game_ended: Event.GameEnded
    weather_changed: Event.WeatherChanged
    winter_attrition: Event.WinterAttrition
    winter_gear_bought: Event.WinterGearBought
    unit_available: Event.UnitAvailable
    tank_designated: Event.TankDesignated
    supply_changed: Event.SupplyChanged
    assault_supported: Event.AssaultSupported
    entropy_drawn: Event.EntropyDrawn
    def __init__(self, turn_started: _Optional[_Union[Event.TurnStarted, _Mapping]] = ..., phase_started: _Optional[_Union[Event.PhaseStarted, _Mapping]] = ..., unit_placed: _Optional[_Union[Event.UnitPlaced, _Mapping]] = ..., unit_moved: _Optional[_Union[Event.UnitMoved, _Mapping]] = ..., city_captured: _Optional[_Union[Event.CityCaptured, _Mapping]] = ..., attack_declared: _Optional[_Union[Event.AttackDeclared, _Mapping]] = ..., declarations_closed: _Optional[_Union[Event.DeclarationsClosed, _Mapping]] = ..., die_rolled: _Optional[_Union[Event.DieRolled, _Mapping]] = ..., battle_resolved: _Optional[_Union[Event.BattleResolved, _Mapping]] = ..., step_lost: _Optional[_Union[Event.StepLost, _Mapping]] = ..., unit_eliminated: _Optional[_Union[Event.UnitEliminated, _Mapping]] = ..., unit_retreated: _Optional[_Union[Event.UnitRetreated, _Mapping]] = ..., unit_advanced: _Optional[_Union[Event.UnitAdvanced, _Mapping]] = ..., replacement_points_received: _Optional[_Union[Event.ReplacementPointsReceived, _Mapping]] = ..., unit_replaced: _Optional[_Union[Event.UnitReplaced, _Mapping]] = ..., unit_restored: _Optional[_Union[Event.UnitRestored, _Mapping]] = ..., capital_occupied: _Optional[_Union[Event.CapitalOccupied, _Mapping]] = ..., game_ended: _Optional[_Union[Event.GameEnded, _Mapping]] = ..., weather_changed: _Optional[_Union[Event.WeatherChanged, _Mapping]] = ..., winter_attrition: _Optional[_Union[Event.WinterAttrition, _Mapping]] = ..., winter_gear_bought: _Optional[_Union[Event.WinterGearBought, _Mapping]] = ..., unit_available: _Optional[_Union[Event.UnitAvailable, _Mapping]] = ..., tank_designated: _Optional[_Union[Event.TankDesignated, _Mapping]] = ..., supply_changed: _Optional[_Union[Event.SupplyChanged, _Mapping]] = ..., assault_supported: _Optional[_Union[Event.AssaultSupported, _Mapping]] = ..., entropy_drawn: _Optional[_Union[Event.EntropyDrawn, _Mapping]] = ...) -> None: ...
