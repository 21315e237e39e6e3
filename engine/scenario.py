"""A scenario compiled for play: counters, the combat results table, weather, the turn track, set-up,
victory and the numbers of the optional rules, as immutable values (:mod:`engine.data` loads them from
the data files and checks them).

>>> from engine.data import load_scenario
>>> scenario = load_scenario("standard")
>>> scenario.counters["XLVII"].strength(False), scenario.units_of("german")[:2]
(4, ['XXXIV', 'XLII'])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Final, Optional

from .pickling import rebuilt_by_fields
from .board import Board

SIDES: Final[tuple[str, str]] = ("german", "soviet")


@dataclass(frozen=True)
class CounterInfo:
    """One counter of the manifest: its two sides and what it can do."""

    id: str
    name: str
    side: str
    type: str
    size: str
    full: int
    half: int
    ma: int

    def strength(self, full: bool) -> int:
        return self.full if full else self.half


@dataclass(frozen=True)
class CombatTable:
    """A combat results table: odds columns (attacker:defender ratios, lowest first) × die rolls.

    >>> from engine.data import load_scenario
    >>> crt = load_scenario("standard").crt
    >>> crt.column_for(Fraction(15), 4), crt.labels[crt.column_for(Fraction(15), 4)]
    (2, '3:1')
    >>> crt.column_for(Fraction(3), 4)
    -1
    """

    name: str
    title: str
    ratios: tuple[tuple[int, int], ...]
    labels: tuple[str, ...]
    below_lowest: str
    results: dict[int, tuple[str, ...]]

    def column_for(self, attack: Fraction, defence: int) -> int:
        """The highest column whose ratio ``attack:defence`` reaches.

        Below the first column (say 1:1) the odds levels go on as 1:2, 1:3, ... numbered -1, -2, ...,
        so that column shifts move an attack one odds level at a time there too.
        """
        num, den = attack.numerator, attack.denominator  # in whole numbers: Fraction arithmetic is slow
        column = -1
        for index, (a, d) in enumerate(self.ratios):
            if num * d >= defence * a * den:
                column = index
        if column == -1:
            a, d = self.ratios[0]
            level = d + 1  # the next level below a:d, reading the first ratio as 1:d
            while num * level * a < defence * den:
                level += 1
            column = -(level - d)
        return column

    def result(self, column: int, roll: int) -> str:
        return self.results[roll][column]


@dataclass(frozen=True)
class Weather:
    id: str
    title: str
    max_hexes: Optional[int]
    rail_exempt: bool
    attack_factor: Fraction
    ma_modifier: dict[str, int]
    winter_attrition: bool


@dataclass(frozen=True)
class TurnInfo:
    turn: int
    dates: str
    weather: str
    replacements: dict[str, int]
    variable: Optional[str]
    tank: bool


@dataclass(frozen=True)
class PoolEntry:
    unit: str
    available_from: int


@dataclass(frozen=True)
class Victory:
    elimination: int
    city: int
    capital: int
    capital_occupation_bonus: int


@dataclass(frozen=True)
class Rules:
    """The numbers of the optional rules and the War of Attrition variant (rules.toml)."""

    soviet_replacement_choices: tuple[int, ...]
    first_shock: str
    first_shock_shift: int
    tank: str
    tank_shift: int
    tank_cost: int
    defensive_line_shift: int
    logistics_turns: frozenset[int]
    harsher_winter_turns: frozenset[int]
    harsher_winter_german_rolls: int
    early_first_shock_turn: int
    early_first_shock_roll: int
    variable_weather_roll: int
    supply_start: dict[str, int]
    supply_keep_per_city: int
    supply_keep_capital: dict[str, int]
    supply_basic: int
    german_basic_last_turn: int
    extra_supply_max: int
    winter_gear_cost: int
    supply_zoc_cost: int


@dataclass(frozen=True)
class Scenario:
    """Everything static about a game: board, counters, tables, turn track, set-up and victory."""

    id: str
    title: str
    board: Board
    counters: dict[str, CounterInfo]
    crt: CombatTable
    weather: dict[str, Weather]
    turns: dict[int, TurnInfo]
    first_turn: int
    last_turn: int
    soviet_setup: dict[int, str]
    soviet_setup_full: bool
    german_standard: dict[int, str]
    german_setup_full: bool
    pool: tuple[PoolEntry, ...]
    extra_entry_turns: frozenset[int]
    victory: Victory
    winter_attrition: Optional[dict[str, dict[int, bool]]]
    rules: Rules
    advanced_crt: Optional[Path]
    files: dict[str, str]
    units: dict[str, tuple[str, ...]]  # each side's counters, in the counter manifest's order

    def units_of(self, side: str) -> list[str]:
        """The ids of ``side``'s counters, in the counter manifest's order (a new list each call)."""
        return list(self.units[side])


rebuilt_by_fields(CounterInfo, CombatTable, Weather, TurnInfo, PoolEntry, Victory, Rules, Scenario)
