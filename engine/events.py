"""Events: what an action caused, as small frozen values with a stable JSON form.

>>> UnitMoved("XLVII", "0305", ("0404", "0503")).to_json()
{'type': 'unit_moved', 'unit': 'XLVII', 'start': '0305', 'path': ['0404', '0503']}
"""

from __future__ import annotations

from typing import Any, ClassVar

from .values import Value, from_json, register


class Event(Value):
    __slots__ = ()


EVENTS: dict[str, type[Event]] = {}


@register(EVENTS)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    turn: int
    dates: str
    weather: str


@register(EVENTS)
class PhaseStarted(Event):
    type: ClassVar[str] = "phase_started"
    turn: int
    phase: str
    side: str


@register(EVENTS)
class UnitPlaced(Event):
    """Set-up: a counter was put on its starting hex."""
    type: ClassVar[str] = "unit_placed"
    unit: str
    hex: str


@register(EVENTS)
class UnitMoved(Event):
    """A unit moved from ``start`` through ``path`` (hexes entered, last one is where it stopped)."""
    type: ClassVar[str] = "unit_moved"
    unit: str
    start: str
    path: tuple[str, ...]


@register(EVENTS)
class CityCaptured(Event):
    """Control of a city passed to ``side``."""
    type: ClassVar[str] = "city_captured"
    city: str
    hex: str
    side: str


@register(EVENTS)
class AttackDeclared(Event):
    type: ClassVar[str] = "attack_declared"
    attackers: tuple[str, ...]
    defender: str


@register(EVENTS)
class DeclarationsClosed(Event):
    type: ClassVar[str] = "declarations_closed"
    battles: int


@register(EVENTS)
class DieRolled(Event):
    """Roll number ``index`` of the match (counting from 0) came up ``value``, for ``purpose``."""
    type: ClassVar[str] = "die_rolled"
    index: int
    value: int
    purpose: str


@register(EVENTS)
class EntropyDrawn(Event):
    """Ruleset 4 on: ``side`` gave no entropy before the first die, so ``entropy``, drawn from the committed
    seed (``engine.dice.drawn_entropy``), is mixed into the dice for it. Comes just before that die."""
    type: ClassVar[str] = "entropy_drawn"
    side: str
    entropy: str


@register(EVENTS)
class BattleResolved(Event):
    """The odds and outcome of one battle.

    ``attack`` is the attackers' total after weather (a fraction such as ``"17/2"``); ``odds`` is the
    column before terrain, ``shifts`` the columns moved (negative: left), ``column`` the final one, or
    ``below`` when the attack falls under the table (no die is rolled then).
    """
    type: ClassVar[str] = "battle_resolved"
    defender: str
    attackers: tuple[str, ...]
    attack: str
    defence: int
    odds: str
    shifts: int
    column: str
    result: str
    roll: int | None = None


@register(EVENTS)
class StepLost(Event):
    """A full-strength unit was flipped to its half-strength side; ``strength_lost`` counts the difference."""
    type: ClassVar[str] = "step_lost"
    unit: str
    hex: str
    strength_lost: int
    cause: str


@register(EVENTS)
class UnitEliminated(Event):
    """A unit left the map for the replacement pool. ``points_to`` is the side that scores for it."""
    type: ClassVar[str] = "unit_eliminated"
    unit: str
    hex: str
    strength_lost: int
    cause: str
    points_to: str | None = None


@register(EVENTS)
class UnitRetreated(Event):
    type: ClassVar[str] = "unit_retreated"
    unit: str
    start: str
    path: tuple[str, ...]
    through_zoc: bool


@register(EVENTS)
class UnitAdvanced(Event):
    type: ClassVar[str] = "unit_advanced"
    unit: str
    start: str
    hex: str


@register(EVENTS)
class ReplacementPointsReceived(Event):
    type: ClassVar[str] = "replacement_points_received"
    side: str
    points: int


@register(EVENTS)
class UnitReplaced(Event):
    """An eliminated unit came back at half strength."""
    type: ClassVar[str] = "unit_replaced"
    unit: str
    hex: str


@register(EVENTS)
class UnitRestored(Event):
    """A half-strength unit was turned to full strength."""
    type: ClassVar[str] = "unit_restored"
    unit: str
    hex: str


@register(EVENTS)
class CapitalOccupied(Event):
    """The Germans occupied Moscow at the end of a Soviet player turn: a one-time bonus."""
    type: ClassVar[str] = "capital_occupied"
    side: str
    points: int


@register(EVENTS)
class GameEnded(Event):
    """``winner`` is ``german``, ``soviet`` or ``draw``."""
    type: ClassVar[str] = "game_ended"
    winner: str
    reason: str
    german_points: int
    soviet_points: int


@register(EVENTS)
class WeatherChanged(Event):
    """Variable Weather: the turn's weather is not the printed one."""
    type: ClassVar[str] = "weather_changed"
    turn: int
    weather: str
    reason: str


@register(EVENTS)
class WinterAttrition(Event):
    """A roll on the Winter Attrition Table: ``frostbite``, ``no_effect`` or ``cancelled`` (Winter Gear)."""
    type: ClassVar[str] = "winter_attrition"
    side: str
    roll: int
    result: str


@register(EVENTS)
class WinterGearBought(Event):
    type: ClassVar[str] = "winter_gear_bought"
    side: str
    cost: int


@register(EVENTS)
class UnitAvailable(Event):
    """A unit in the replacement pool may now be taken as a replacement."""
    type: ClassVar[str] = "unit_available"
    unit: str
    reason: str


@register(EVENTS)
class TankDesignated(Event):
    """The army ``unit`` in ``hex`` became the Tank unit ``tank`` at the same strength."""
    type: ClassVar[str] = "tank_designated"
    unit: str
    tank: str
    hex: str
    strength: str


@register(EVENTS)
class SupplyChanged(Event):
    """War of Attrition: ``side`` now has ``supply`` points (``change`` from before) because of ``reason``."""
    type: ClassVar[str] = "supply_changed"
    side: str
    supply: int
    change: int
    reason: str


@register(EVENTS)
class AssaultSupported(Event):
    """War of Attrition: ``unit`` attacks with ``points`` more strength, for ``cost`` supply points."""
    type: ClassVar[str] = "assault_supported"
    unit: str
    points: int
    cost: int


def event_from_json(data: Any) -> Event:
    return from_json(EVENTS, data, "event")
