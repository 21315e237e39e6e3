from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Action(_message.Message):
    __slots__ = ("place_unit", "standard_setup", "move", "end_phase", "declare_attack", "close_declarations", "resolve_battle", "choose_retreat", "choose_losses", "choose_attacker_loss", "advance", "decline_advance", "replace", "restore", "resign", "buy_winter_gear", "roll_attrition", "choose_frostbite", "designate_tank", "buy_extra_supply", "assault", "time_forfeit")
    class PlaceUnit(_message.Message):
        __slots__ = ("unit", "hex")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        unit: str
        hex: str
        def __init__(self, unit: _Optional[str] = ..., hex: _Optional[str] = ...) -> None: ...
    class StandardSetup(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Move(_message.Message):
        __slots__ = ("unit", "to", "path")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        PATH_FIELD_NUMBER: _ClassVar[int]
        unit: str
        to: str
        path: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, unit: _Optional[str] = ..., to: _Optional[str] = ..., path: _Optional[_Iterable[str]] = ...) -> None: ...
    class EndPhase(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class DeclareAttack(_message.Message):
        __slots__ = ("attackers", "defender")
        ATTACKERS_FIELD_NUMBER: _ClassVar[int]
        DEFENDER_FIELD_NUMBER: _ClassVar[int]
        attackers: _containers.RepeatedScalarFieldContainer[str]
        defender: str
        def __init__(self, attackers: _Optional[_Iterable[str]] = ..., defender: _Optional[str] = ...) -> None: ...
    class CloseDeclarations(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class ResolveBattle(_message.Message):
        __slots__ = ("defender",)
        DEFENDER_FIELD_NUMBER: _ClassVar[int]
        defender: str
        def __init__(self, defender: _Optional[str] = ...) -> None: ...
    class ChooseRetreat(_message.Message):
        __slots__ = ("path",)
        PATH_FIELD_NUMBER: _ClassVar[int]
        path: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, path: _Optional[_Iterable[str]] = ...) -> None: ...
    class ChooseLosses(_message.Message):
        __slots__ = ("units",)
        UNITS_FIELD_NUMBER: _ClassVar[int]
        units: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, units: _Optional[_Iterable[str]] = ...) -> None: ...
    class ChooseAttackerLoss(_message.Message):
        __slots__ = ("unit",)
        UNIT_FIELD_NUMBER: _ClassVar[int]
        unit: str
        def __init__(self, unit: _Optional[str] = ...) -> None: ...
    class Advance(_message.Message):
        __slots__ = ("unit",)
        UNIT_FIELD_NUMBER: _ClassVar[int]
        unit: str
        def __init__(self, unit: _Optional[str] = ...) -> None: ...
    class DeclineAdvance(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Replace(_message.Message):
        __slots__ = ("unit", "hex")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        unit: str
        hex: str
        def __init__(self, unit: _Optional[str] = ..., hex: _Optional[str] = ...) -> None: ...
    class Restore(_message.Message):
        __slots__ = ("unit",)
        UNIT_FIELD_NUMBER: _ClassVar[int]
        unit: str
        def __init__(self, unit: _Optional[str] = ...) -> None: ...
    class Resign(_message.Message):
        __slots__ = ("side",)
        SIDE_FIELD_NUMBER: _ClassVar[int]
        side: str
        def __init__(self, side: _Optional[str] = ...) -> None: ...
    class TimeForfeit(_message.Message):
        __slots__ = ("side",)
        SIDE_FIELD_NUMBER: _ClassVar[int]
        side: str
        def __init__(self, side: _Optional[str] = ...) -> None: ...
    class BuyWinterGear(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class RollAttrition(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class ChooseFrostbite(_message.Message):
        __slots__ = ("unit",)
        UNIT_FIELD_NUMBER: _ClassVar[int]
        unit: str
        def __init__(self, unit: _Optional[str] = ...) -> None: ...
    class DesignateTank(_message.Message):
        __slots__ = ("unit",)
        UNIT_FIELD_NUMBER: _ClassVar[int]
        unit: str
        def __init__(self, unit: _Optional[str] = ...) -> None: ...
    class BuyExtraSupply(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Assault(_message.Message):
        __slots__ = ("unit", "points")
        UNIT_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        unit: str
        points: int
        def __init__(self, unit: _Optional[str] = ..., points: _Optional[int] = ...) -> None: ...
    PLACE_UNIT_FIELD_NUMBER: _ClassVar[int]
    STANDARD_SETUP_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    END_PHASE_FIELD_NUMBER: _ClassVar[int]
    DECLARE_ATTACK_FIELD_NUMBER: _ClassVar[int]
    CLOSE_DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    RESOLVE_BATTLE_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_RETREAT_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_LOSSES_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_ATTACKER_LOSS_FIELD_NUMBER: _ClassVar[int]
    ADVANCE_FIELD_NUMBER: _ClassVar[int]
    DECLINE_ADVANCE_FIELD_NUMBER: _ClassVar[int]
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    RESTORE_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    BUY_WINTER_GEAR_FIELD_NUMBER: _ClassVar[int]
    ROLL_ATTRITION_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_FROSTBITE_FIELD_NUMBER: _ClassVar[int]
    DESIGNATE_TANK_FIELD_NUMBER: _ClassVar[int]
    BUY_EXTRA_SUPPLY_FIELD_NUMBER: _ClassVar[int]
    ASSAULT_FIELD_NUMBER: _ClassVar[int]
    TIME_FORFEIT_FIELD_NUMBER: _ClassVar[int]
    place_unit: Action.PlaceUnit
    standard_setup: Action.StandardSetup
    move: Action.Move
    end_phase: Action.EndPhase
    declare_attack: Action.DeclareAttack
    close_declarations: Action.CloseDeclarations
    resolve_battle: Action.ResolveBattle
    choose_retreat: Action.ChooseRetreat
    choose_losses: Action.ChooseLosses
    choose_attacker_loss: Action.ChooseAttackerLoss
    advance: Action.Advance
    decline_advance: Action.DeclineAdvance
    replace: Action.Replace
    restore: Action.Restore
    resign: Action.Resign
    buy_winter_gear: Action.BuyWinterGear
    roll_attrition: Action.RollAttrition
    choose_frostbite: Action.ChooseFrostbite
    designate_tank: Action.DesignateTank
    buy_extra_supply: Action.BuyExtraSupply
    assault: Action.Assault
    time_forfeit: Action.TimeForfeit
    def __init__(self, place_unit: _Optional[_Union[Action.PlaceUnit, _Mapping]] = ..., standard_setup: _Optional[_Union[Action.StandardSetup, _Mapping]] = ..., move: _Optional[_Union[Action.Move, _Mapping]] = ..., end_phase: _Optional[_Union[Action.EndPhase, _Mapping]] = ..., declare_attack: _Optional[_Union[Action.DeclareAttack, _Mapping]] = ..., close_declarations: _Optional[_Union[Action.CloseDeclarations, _Mapping]] = ..., resolve_battle: _Optional[_Union[Action.ResolveBattle, _Mapping]] = ..., choose_retreat: _Optional[_Union[Action.ChooseRetreat, _Mapping]] = ..., choose_losses: _Optional[_Union[Action.ChooseLosses, _Mapping]] = ..., choose_attacker_loss: _Optional[_Union[Action.ChooseAttackerLoss, _Mapping]] = ..., advance: _Optional[_Union[Action.Advance, _Mapping]] = ..., decline_advance: _Optional[_Union[Action.DeclineAdvance, _Mapping]] = ..., replace: _Optional[_Union[Action.Replace, _Mapping]] = ..., restore: _Optional[_Union[Action.Restore, _Mapping]] = ..., resign: _Optional[_Union[Action.Resign, _Mapping]] = ..., buy_winter_gear: _Optional[_Union[Action.BuyWinterGear, _Mapping]] = ..., roll_attrition: _Optional[_Union[Action.RollAttrition, _Mapping]] = ..., choose_frostbite: _Optional[_Union[Action.ChooseFrostbite, _Mapping]] = ..., designate_tank: _Optional[_Union[Action.DesignateTank, _Mapping]] = ..., buy_extra_supply: _Optional[_Union[Action.BuyExtraSupply, _Mapping]] = ..., assault: _Optional[_Union[Action.Assault, _Mapping]] = ..., time_forfeit: _Optional[_Union[Action.TimeForfeit, _Mapping]] = ...) -> None: ...
