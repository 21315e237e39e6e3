"""Actions: everything a player can do, as small frozen values with a stable JSON form.

>>> Move("XLVII", "0704").to_json()
{'type': 'move', 'unit': 'XLVII', 'to': '0704'}
>>> action_from_json({"type": "declare_attack", "attackers": ["XLVII"], "defender": "16th"})
DeclareAttack(attackers=('XLVII',), defender='16th')
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Iterable, TypeVar

from .values import Value, from_json, register


class Action(Value):
    __slots__ = ()


ACTIONS: dict[str, type[Action]] = {}


# --- set-up ----------------------------------------------------------------------------------------

@register(ACTIONS)
class PlaceUnit(Action):
    """German set-up: put one counter on a free cross."""
    type: ClassVar[str] = "place_unit"
    unit: str
    hex: str


@register(ACTIONS)
class StandardSetup(Action):
    """German set-up: use the scenario's standard set-up for every counter."""
    type: ClassVar[str] = "standard_setup"


# --- movement --------------------------------------------------------------------------------------

@register(ACTIONS)
class Move(Action):
    """Move a unit to ``to``. ``path`` (hexes entered, ending with ``to``) is optional: without it the
    engine picks the path that passes through the most enemy-controlled cities, then the cheapest."""
    type: ClassVar[str] = "move"
    unit: str
    to: str
    path: tuple[str, ...] | None = None


@register(ACTIONS)
class EndPhase(Action):
    """Finish the current movement or replacement phase."""
    type: ClassVar[str] = "end_phase"


# --- combat ----------------------------------------------------------------------------------------

@register(ACTIONS)
class DeclareAttack(Action):
    """Announce that ``attackers`` attack ``defender``; joins the battle against ``defender`` if one is
    already declared."""
    type: ClassVar[str] = "declare_attack"
    attackers: tuple[str, ...]
    defender: str


@register(ACTIONS)
class CloseDeclarations(Action):
    """No more battles: from now on they are resolved one at a time."""
    type: ClassVar[str] = "close_declarations"


@register(ACTIONS)
class ResolveBattle(Action):
    """Roll for the declared battle against ``defender``."""
    type: ClassVar[str] = "resolve_battle"
    defender: str


@register(ACTIONS)
class ChooseRetreat(Action):
    """The attacker's choice of the defender's retreat path (hexes entered, in order)."""
    type: ClassVar[str] = "choose_retreat"
    path: tuple[str, ...]


@register(ACTIONS)
class ChooseLosses(Action):
    """The attacker's exchange losses: one entry per step lost (a unit named twice loses both steps)."""
    type: ClassVar[str] = "choose_losses"
    units: tuple[str, ...]


@register(ACTIONS)
class ChooseAttackerLoss(Action):
    """The attacking unit that takes the step loss of an AL result."""
    type: ClassVar[str] = "choose_attacker_loss"
    unit: str


@register(ACTIONS)
class Advance(Action):
    """Move one attacker into the hex the defender left."""
    type: ClassVar[str] = "advance"
    unit: str


@register(ACTIONS)
class DeclineAdvance(Action):
    """Leave the defender's hex empty."""
    type: ClassVar[str] = "decline_advance"


# --- replacements ----------------------------------------------------------------------------------

@register(ACTIONS)
class Replace(Action):
    """Spend a replacement point: bring an eliminated unit back at half strength on ``hex``."""
    type: ClassVar[str] = "replace"
    unit: str
    hex: str


@register(ACTIONS)
class Restore(Action):
    """Spend a replacement point: turn a half-strength unit on the map to full strength."""
    type: ClassVar[str] = "restore"
    unit: str


# --- match -----------------------------------------------------------------------------------------

@register(ACTIONS)
class Resign(Action):
    """``side`` gives up; the other side wins. Accepted at any time, whoever is to act."""
    type: ClassVar[str] = "resign"
    side: str


@register(ACTIONS)
class TimeForfeit(Action):
    """``side``'s clock ran out; the other side wins (reason ``time``). The engine has no clock: a game
    service applies this when its clock says the flag fell, so a replay ends the same way. Accepted at
    any time, like Resign; never among the legal actions."""
    type: ClassVar[str] = "time_forfeit"
    side: str


# --- winter, the Tank unit and supply (campaign, optional rules, War of Attrition) -----------------

@register(ACTIONS)
class BuyWinterGear(Action):
    """War of Attrition: spend supply points to cancel one Frostbite result of the coming roll."""
    type: ClassVar[str] = "buy_winter_gear"


@register(ACTIONS)
class RollAttrition(Action):
    """Roll on the Winter Attrition Table (after any Winter Gear is bought)."""
    type: ClassVar[str] = "roll_attrition"


@register(ACTIONS)
class ChooseFrostbite(Action):
    """The unit of the player's own that loses a step to Frostbite."""
    type: ClassVar[str] = "choose_frostbite"
    unit: str


@register(ACTIONS)
class DesignateTank(Action):
    """Campaign turn 13: spend a replacement point to turn an army in communication into the Tank unit."""
    type: ClassVar[str] = "designate_tank"
    unit: str


@register(ACTIONS)
class BuyExtraSupply(Action):
    """War of Attrition: spend a replacement point for a die roll of supply points."""
    type: ClassVar[str] = "buy_extra_supply"


@register(ACTIONS)
class Assault(Action):
    """War of Attrition: spend supply points to add attack strength to a declared attacker in supply."""
    type: ClassVar[str] = "assault"
    unit: str
    points: int = 1


def action_from_json(data: Any) -> Action:
    """Rebuild an action from its JSON form; a malformed one raises IllegalAction(MALFORMED_ACTION)."""
    return from_json(ACTIONS, data, "action")


A = TypeVar("A", bound=Action)

#: The shared tables of :func:`action_table`, by maker and map.
_TABLES: dict[tuple[object, tuple[str, ...]], dict[str, list[Any]]] = {}


def action_table(make: Callable[[str, str], A], ids: tuple[str, ...], units: Iterable[str]) -> dict[str, list[A]]:
    """unit → ``[make(unit, hex) for every hex of the map, by index]`` for ``units`` (and any other unit a game
    of the map asked for before): the actions of a kind (Move, Replace, PlaceUnit) of every unit to every hex
    of a map, each made once. Every phase offers the same moves (and replacements) again, and they are
    immutable values, so sharing them between games changes nothing.

    >>> table = action_table(Move, ("0101", "0102"), ["XLVII"])
    >>> table["XLVII"][1], table is action_table(Move, ("0101", "0102"), [])
    (Move(unit='XLVII', to='0102', path=None), True)
    """
    table: dict[str, list[A]] = _TABLES.setdefault((make, ids), {})
    for unit in units:
        if unit not in table:
            table[unit] = [make(unit, hex_id) for hex_id in ids]
    return table


#: One value of each action without fields, shared by every listing (immutable values).
END_PHASE = EndPhase()
CLOSE_DECLARATIONS = CloseDeclarations()
DECLINE_ADVANCE = DeclineAdvance()
ROLL_ATTRITION = RollAttrition()
BUY_WINTER_GEAR = BuyWinterGear()
BUY_EXTRA_SUPPLY = BuyExtraSupply()


def shared(table: dict[str, A], make: Callable[[str], A], unit: str) -> A:
    """``make(unit)``, made once and kept in ``table`` (unit → action of one kind): the actions of a unit a
    listing offers again and again (Restore, ResolveBattle...) are immutable values, so sharing them
    changes nothing.

    >>> table: dict[str, Restore] = {}
    >>> shared(table, Restore, "16th") is shared(table, Restore, "16th")
    True
    """
    action = table.get(unit)
    if action is None:
        action = table[unit] = make(unit)
    return action
