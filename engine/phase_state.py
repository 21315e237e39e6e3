"""What a phase remembers between actions, and a battle waiting for a decision."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .pickling import rebuilt_by_fields


@dataclass
class Pending:
    """A battle waiting for the attacker's decision: ``stage`` now, ``then`` the stages after it."""

    stage: str  # "exchange_losses" | "attacker_loss" | "retreat" | "advance"
    defender: str
    attackers: tuple[str, ...]
    hex: int
    required: int = 0
    then: tuple[str, ...] = ()

    def copy(self) -> Pending:
        return Pending(self.stage, self.defender, self.attackers, self.hex, self.required, self.then)

    def to_json(self, ids: tuple[str, ...]) -> dict[str, Any]:
        return {"stage": self.stage, "defender": self.defender, "attackers": list(self.attackers),
                "hex": ids[self.hex], "required": self.required, "then": list(self.then)}


@dataclass
class PhaseState:
    """What the current phase remembers between actions."""

    moved: set[str] = field(default_factory=set)
    rail_eligible: frozenset[str] = frozenset()
    points: int = 0
    replaced: set[str] = field(default_factory=set)
    declaring: bool = True
    battles: dict[str, list[str]] = field(default_factory=dict)  # unresolved, in declaration order
    attacking: set[str] = field(default_factory=set)
    stack: tuple[int, str] | None = None  # (hex, unit that moved onto a friendly unit)
    pending: Pending | None = None
    attrition_rolls: int = 0  # winter attrition rolls still to make this phase
    winter_gear: int = 0  # frostbite results the player's winter gear will cancel
    frostbite: int = 0  # frostbite step losses still to assign
    extra_supply: int = 0  # replacement points spent on extra supply this phase
    assault: dict[str, int] = field(default_factory=dict)  # attacker → extra strength bought
    # units whose optional Moscow-or-fortification shift held when their battle was declared (a Soviet
    # defender in the Stronger Soviet Defensive Line, the 1st Shock under Improved 1st Shock)
    strongpoint_shifts: set[str] = field(default_factory=set)

    def copy(self) -> PhaseState:
        """A copy sharing nothing that changes with this one (what a copy of the game needs; a tenth of
        ``copy.deepcopy``'s time)."""
        return PhaseState(
            set(self.moved), self.rail_eligible, self.points, set(self.replaced), self.declaring,
            {defender: list(attackers) for defender, attackers in self.battles.items()}, set(self.attacking),
            self.stack,
            # a battle's stages advance in it (its fields are immutable)
            None if self.pending is None else self.pending.copy(),
            self.attrition_rolls, self.winter_gear, self.frostbite, self.extra_supply, dict(self.assault),
            set(self.strongpoint_shifts))


rebuilt_by_fields(Pending, PhaseState)
