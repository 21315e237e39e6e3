"""Errors the engine raises: broken data files and refused actions."""

from __future__ import annotations

from typing import Any


class DataError(Exception):
    """A data file is missing, malformed or inconsistent.

    >>> str(DataError("map.toml", "hex 0101", "rail direction 'X' is not a direction"))
    "map.toml: hex 0101: rail direction 'X' is not a direction"
    """

    def __init__(self, file: str, entry: str, message: str) -> None:
        self.file = file
        self.entry = entry
        self.message = message
        super().__init__(f"{file}: {entry}: {message}" if entry else f"{file}: {message}")


class IllegalAction(Exception):
    """An action was refused. Nothing in the game state changed.

    ``reason`` is a stable machine-readable code (see :class:`Reason`); ``message`` is a sentence for
    people.
    """

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message
        super().__init__(message)

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "message": self.message}


class Reason:
    """Reason codes of :class:`IllegalAction`. They are part of the public API: never rename one."""

    MALFORMED_ACTION = "MALFORMED_ACTION"
    GAME_OVER = "GAME_OVER"
    WRONG_PHASE = "WRONG_PHASE"
    DECISION_PENDING = "DECISION_PENDING"
    NOT_A_CHOICE = "NOT_A_CHOICE"
    UNKNOWN_UNIT = "UNKNOWN_UNIT"
    UNKNOWN_HEX = "UNKNOWN_HEX"
    NOT_YOUR_UNIT = "NOT_YOUR_UNIT"
    UNIT_NOT_ON_MAP = "UNIT_NOT_ON_MAP"
    # set-up
    NOT_A_SETUP_HEX = "NOT_A_SETUP_HEX"
    ALREADY_PLACED = "ALREADY_PLACED"
    SETUP_STARTED = "SETUP_STARTED"
    # movement
    CANNOT_MOVE_THIS_PHASE = "CANNOT_MOVE_THIS_PHASE"
    ALREADY_MOVED = "ALREADY_MOVED"
    MUST_MOVE_STACKED_UNIT = "MUST_MOVE_STACKED_UNIT"
    PATH_BROKEN = "PATH_BROKEN"
    ENEMY_OCCUPIED = "ENEMY_OCCUPIED"
    STOPPED_BY_ZOC = "STOPPED_BY_ZOC"
    MOVEMENT_ALLOWANCE_EXCEEDED = "MOVEMENT_ALLOWANCE_EXCEEDED"
    NOT_ALONG_RAIL = "NOT_ALONG_RAIL"
    HEX_OCCUPIED = "HEX_OCCUPIED"
    STACKED_AT_PHASE_END = "STACKED_AT_PHASE_END"
    # combat
    NOT_ADJACENT = "NOT_ADJACENT"
    ALREADY_ATTACKING = "ALREADY_ATTACKING"
    DECLARATIONS_CLOSED = "DECLARATIONS_CLOSED"
    DECLARATIONS_OPEN = "DECLARATIONS_OPEN"
    NO_SUCH_BATTLE = "NO_SUCH_BATTLE"
    # replacements
    NO_REPLACEMENT_POINTS = "NO_REPLACEMENT_POINTS"
    NOT_IN_POOL = "NOT_IN_POOL"
    NOT_AVAILABLE_YET = "NOT_AVAILABLE_YET"
    NOT_AN_ENTRY_HEX = "NOT_AN_ENTRY_HEX"
    NOT_IN_COMMUNICATION = "NOT_IN_COMMUNICATION"
    ALREADY_FULL_STRENGTH = "ALREADY_FULL_STRENGTH"
    REPLACED_THIS_PHASE = "REPLACED_THIS_PHASE"
    ODDS_NOT_ALLOWED = "ODDS_NOT_ALLOWED"
    # winter, the Tank unit, supply
    ATTRITION_FIRST = "ATTRITION_FIRST"
    NOT_FULL_STRENGTH = "NOT_FULL_STRENGTH"
    TANK_NOT_AVAILABLE = "TANK_NOT_AVAILABLE"
    NOT_AN_ARMY = "NOT_AN_ARMY"
    NOT_ENOUGH_SUPPLY = "NOT_ENOUGH_SUPPLY"
    NOT_IN_SUPPLY = "NOT_IN_SUPPLY"
    NOT_ATTACKING = "NOT_ATTACKING"
    LIMIT_REACHED = "LIMIT_REACHED"
    # options and scenarios
    OPTION_UNAVAILABLE = "OPTION_UNAVAILABLE"
    UNKNOWN_SCENARIO = "UNKNOWN_SCENARIO"
    UNKNOWN_RULESET = "UNKNOWN_RULESET"
    # the seats' entropy (engine/dice.py)
    UNKNOWN_SIDE = "UNKNOWN_SIDE"
    BAD_ENTROPY = "BAD_ENTROPY"
    ENTROPY_GIVEN = "ENTROPY_GIVEN"
    BAD_COMMITMENT = "BAD_COMMITMENT"
    ENTROPY_COMMITTED = "ENTROPY_COMMITTED"
    NOT_COMMITTED = "NOT_COMMITTED"
    REVEAL_EARLY = "REVEAL_EARLY"
    ENTROPY_MISMATCH = "ENTROPY_MISMATCH"
    ENTROPY_AWAITED = "ENTROPY_AWAITED"
    DICE_ROLLED = "DICE_ROLLED"
    ENTROPY_NOT_USED = "ENTROPY_NOT_USED"
