"""Loading and validating the engine's data files: map, counters, combat table, weather, scenarios.

Every file is TOML. A file is checked against its schema when loaded, then against the other files it
refers to; a broken file raises :class:`~engine.errors.DataError` naming the file and the entry.

>>> scenario = load_scenario("standard")
>>> scenario.last_turn, len(scenario.counters), scenario.board.ids[0]
(7, 40, '0101')
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .board import Board
from .errors import DataError
from .hexgrid import DIRECTIONS, OPPOSITE, distance, format_hex, parse_hex, step
from .scenario import (
    SIDES, CombatTable, CounterInfo, PoolEntry, Rules, Scenario, TurnInfo, Victory, Weather,
)

DATA_DIR = Path(__file__).parent / "data"

Side = Literal["german", "soviet"]
Direction = Literal["N", "NE", "SE", "S", "SW", "NW"]
HexId = str
RESULT_CODES = ("DE", "DRL", "DR", "EX", "NE", "AL")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- file schemas ----------------------------------------------------------------------------------


class HexSpec(_Strict):
    id: str = Field(pattern=r"^\d{4}$")
    terrain: Literal["clear", "forest"]
    city: Optional[str] = None
    capital: bool = False
    fort: bool = False
    setup: Optional[Side] = None
    rail: list[Direction] = []
    river: list[Direction] = []


class EdgesSpec(_Strict):
    west: list[str]
    east: list[str]


class EntrySpec(_Strict):
    soviet: list[str]
    german: list[str]
    soviet_extra: list[str] = []


class MapSpec(_Strict):
    name: str
    columns: int = Field(ge=1, le=99)
    rows: int = Field(ge=1, le=99)
    hexes: list[HexSpec]
    edges: EdgesSpec
    entry: EntrySpec


class CounterSpec(_Strict):
    id: str = Field(min_length=1)
    name: str
    side: Side
    type: Literal["infantry", "panzer", "tank"]
    size: str
    full: int = Field(gt=0)
    half: int = Field(gt=0)
    ma: int = Field(gt=0)


class CountersSpec(_Strict):
    unit: list[CounterSpec]


class CrtSpec(_Strict):
    name: str
    title: str
    columns: list[str] = Field(min_length=1)
    below_lowest: Literal["no_effect", "not_allowed"]
    results: dict[str, list[Literal["DE", "DRL", "DR", "EX", "NE", "AL"]]]

    @field_validator("columns")
    @classmethod
    def _ratios(cls, columns: list[str]) -> list[str]:
        for label in columns:
            parts = label.split(":")
            if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
                raise ValueError(f"odds column {label!r} is not a ratio like 3:1")
        return columns


class WeatherSpec(_Strict):
    title: str
    max_hexes: Optional[int] = Field(default=None, ge=1)
    rail_exempt: bool = False
    attack_factor: str = "1"
    ma_modifier: dict[Literal["infantry", "panzer", "tank"], int] = {}
    winter_attrition: bool = False

    @field_validator("attack_factor")
    @classmethod
    def _fraction(cls, value: str) -> str:
        try:
            if Fraction(value) <= 0:
                raise ValueError
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"attack_factor {value!r} is not a positive fraction like 1/2") from None
        return value


class ReplacementsSpec(_Strict):
    german: int = Field(ge=0)
    soviet: int = Field(ge=0)


class TurnSpec(_Strict):
    turn: int = Field(ge=1)
    dates: str
    weather: str
    replacements: ReplacementsSpec
    variable: Optional[Literal["early", "late"]] = None
    tank: bool = False


class SetupSpec(_Strict):
    soviet_strength: Literal["full", "half"]
    soviet: dict[str, str]
    german_strength: Literal["full", "half"]
    german_standard: dict[str, str]


class PoolEntrySpec(_Strict):
    unit: str
    available_from: int = Field(default=1, ge=1)


class VictorySpec(_Strict):
    elimination: int = Field(ge=0)
    city: int = Field(ge=0)
    capital: int = Field(ge=0)
    capital_occupation_bonus: int = Field(ge=0)


class _UnitShift(_Strict):
    unit: str
    attack_shift: int = Field(ge=0)


class TankSpec(_UnitShift):
    cost: int = Field(ge=0)


class SidePoints(_Strict):
    german: int = Field(ge=0)
    soviet: int = Field(ge=0)


class SupplySpec(_Strict):
    start: SidePoints
    keep_per_city: int = Field(ge=0)
    keep_capital: SidePoints
    basic: int = Field(ge=0)
    german_basic_last_turn: int = Field(ge=0)
    extra_max_replacement_points: int = Field(ge=0)
    winter_gear_cost: int = Field(ge=0)
    zoc_hex_cost: int = Field(ge=0)


class HandicapSpec(_Strict):
    soviet_replacements: list[int] = Field(min_length=1)


class DefensiveLineSpec(_Strict):
    shift: int = Field(ge=1)


class TurnsSpec(_Strict):
    turns: list[int]


class HarsherWinterSpec(_Strict):
    turns: list[int]
    german_rolls: int = Field(ge=1)


class EarlyFirstShockSpec(_Strict):
    unit: str
    turn: int = Field(ge=1)
    roll_at_least: int = Field(ge=1, le=6)


class VariableWeatherSpec(_Strict):
    roll_at_least: int = Field(ge=1, le=6)


class RulesSpec(_Strict):
    handicap: HandicapSpec
    improved_first_shock: _UnitShift
    tank: TankSpec
    stronger_defensive_line: DefensiveLineSpec
    german_logistics: TurnsSpec
    harsher_winter: HarsherWinterSpec
    early_first_shock: EarlyFirstShockSpec
    variable_weather: VariableWeatherSpec
    supply: SupplySpec


class ScenarioSpec(_Strict):
    id: str
    title: str
    map: str
    counters: str
    crt: str
    weather: str
    rules: str
    advanced_crt: Optional[str] = None
    extra_entry_turns: list[int] = []
    setup: SetupSpec
    pool: list[PoolEntrySpec] = []
    turn: list[TurnSpec] = Field(min_length=1)
    victory: VictorySpec
    winter_attrition: Optional[str] = None


# --- loading ---------------------------------------------------------------------------------------


def _read(path: Path, label: str) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise DataError(label, "", "file not found") from None
    except tomllib.TOMLDecodeError as error:
        raise DataError(label, "", f"not valid TOML: {error}") from None


def _entry_name(raw: Any, loc: tuple[Any, ...]) -> str:
    """Name the entry a validation error points at, by id where the entry has one."""
    parts: list[str] = []
    node = raw
    for key in loc:
        if isinstance(key, int) and isinstance(node, list) and key < len(node):
            node = node[key]
            name = None
            if isinstance(node, dict):
                for field in ("id", "unit", "turn"):
                    if field in node:
                        name = f"{field if field != 'id' else ''} {node[field]}".strip()
                        break
            parts.append(name or f"#{key + 1}")
        else:
            parts.append(str(key))
            node = node.get(key) if isinstance(node, dict) else None
    return ".".join(parts)


def _validated(model: type[BaseModel], raw: Any, label: str, entry: str = "") -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        name = _entry_name(raw, tuple(first["loc"]))
        raise DataError(label, f"{entry}.{name}" if entry and name else entry or name, first["msg"]) from None


def _compile_crt(spec: CrtSpec, label: str) -> CombatTable:
    ratios = tuple((int(column.split(":")[0]), int(column.split(":")[1])) for column in spec.columns)
    if any(a * d2 >= a2 * d for (a, d), (a2, d2) in zip(ratios, ratios[1:])):
        raise DataError(label, "columns", "odds columns must rise from left to right")
    results: dict[int, tuple[str, ...]] = {}
    for roll, row in spec.results.items():
        if not roll.isdigit() or not 1 <= int(roll) <= 6:
            raise DataError(label, f"results.{roll}", "die rolls run from 1 to 6")
        if len(row) != len(ratios):
            raise DataError(label, f"results.{roll}", f"{len(row)} results for {len(ratios)} columns")
        results[int(roll)] = tuple(row)
    if sorted(results) != list(range(1, 7)):
        raise DataError(label, "results", "every die roll from 1 to 6 needs a row")
    return CombatTable(spec.name, spec.title, ratios, tuple(spec.columns), spec.below_lowest, results)


def load_crt(path: Path) -> CombatTable:
    label = _label(path)
    return _compile_crt(_validated(CrtSpec, _read(path, label), label), label)


def _label(path: Path) -> str:
    try:
        return str(path.relative_to(DATA_DIR.parent.parent))
    except ValueError:
        return str(path)


def load_counters(path: Path) -> dict[str, CounterInfo]:
    label = _label(path)
    spec: CountersSpec = _validated(CountersSpec, _read(path, label), label)
    counters: dict[str, CounterInfo] = {}
    for unit in spec.unit:
        if unit.id in counters:
            raise DataError(label, f"unit {unit.id}", "listed twice")
        if unit.half >= unit.full:
            raise DataError(label, f"unit {unit.id}", "half strength must be below full strength")
        if unit.type == "panzer" and unit.side != "german":
            raise DataError(label, f"unit {unit.id}", "only the Germans have panzers")
        counters[unit.id] = CounterInfo(**unit.model_dump())
    return counters


def load_map(path: Path) -> Board:
    label = _label(path)
    spec: MapSpec = _validated(MapSpec, _read(path, label), label)
    return _compile_board(spec, label)


def _compile_board(spec: MapSpec, label: str) -> Board:
    """The map of ``spec`` compiled for play, every hex and hexside checked against the others."""
    columns, rows = spec.columns, spec.rows
    ids = tuple(format_hex(c, r) for c in range(1, columns + 1) for r in range(1, rows + 1))
    index = {hex_id: i for i, hex_id in enumerate(ids)}
    by_id = {}
    for hex_spec in spec.hexes:
        entry = f"hex {hex_spec.id}"
        if hex_spec.id not in index:
            raise DataError(label, entry, f"outside the {columns}x{rows} grid")
        if hex_spec.id in by_id:
            raise DataError(label, entry, "listed twice")
        by_id[hex_spec.id] = hex_spec
    missing = [hex_id for hex_id in ids if hex_id not in by_id]
    if missing:
        raise DataError(label, f"hex {missing[0]}", "missing from the hex list")

    coords = tuple(parse_hex(hex_id) for hex_id in ids)

    def toward(i: int, direction: str) -> int | None:
        c, r = step(*coords[i], direction)
        return index.get(format_hex(c, r)) if 1 <= c <= columns and 1 <= r <= rows else None

    direction_to = tuple({d: n for d in DIRECTIONS if (n := toward(i, d)) is not None}
                         for i in range(len(ids)))
    neighbours = tuple(tuple(dirs.values()) for dirs in direction_to)

    def links(kind: str) -> tuple[tuple[int, ...], ...]:
        result = []
        for i, hex_id in enumerate(ids):
            linked = []
            for direction in getattr(by_id[hex_id], kind):
                other = direction_to[i].get(direction)
                entry = f"hex {hex_id}"
                if other is None:
                    raise DataError(label, entry, f"{kind} {direction} leads off the map")
                if OPPOSITE[direction] not in getattr(by_id[ids[other]], kind):
                    raise DataError(label, entry, f"{kind} {direction} toward {ids[other]} is not listed "
                                                  f"there as {OPPOSITE[direction]}")
                linked.append(other)
            result.append(tuple(linked))
        return tuple(result)

    rail_links = links("rail")
    river_links = links("river")
    rivers = frozenset(frozenset((i, j)) for i, js in enumerate(river_links) for j in js)

    def hexes(listed: list[str], entry: str) -> frozenset[int]:
        for hex_id in listed:
            if hex_id not in index:
                raise DataError(label, entry, f"{hex_id} is not on the map")
        return frozenset(index[h] for h in listed)

    capitals = [index[h.id] for h in spec.hexes if h.capital]
    if len(capitals) != 1:
        raise DataError(label, "hexes", "exactly one hex must be the capital")
    if not by_id[ids[capitals[0]]].city:
        raise DataError(label, f"hex {ids[capitals[0]]}", "the capital must be a city")
    setup_side = tuple(by_id[hex_id].setup for hex_id in ids)
    forest = tuple(by_id[hex_id].terrain == "forest" for hex_id in ids)
    return Board(
        name=spec.name, columns=columns, rows=rows, ids=ids, index=index, coords=coords,
        neighbours=neighbours, direction_to=direction_to, forest=forest,
        move_cost=tuple(2 if f else 1 for f in forest),
        cities={index[h.id]: h.city for h in spec.hexes if h.city},
        capital=capitals[0],
        forts=frozenset(index[h.id] for h in spec.hexes if h.fort),
        setup_side=setup_side,
        setup_hexes={side: tuple(i for i, s in enumerate(setup_side) if s == side)
                     for side in ("german", "soviet")},
        rail_links=rail_links, rivers=rivers,
        west_edge=hexes(spec.edges.west, "edges.west"),
        east_edge=hexes(spec.edges.east, "edges.east"),
        entry={"german": hexes(spec.entry.german, "entry.german"),
               "soviet": hexes(spec.entry.soviet, "entry.soviet"),
               "soviet_extra": hexes(spec.entry.soviet_extra, "entry.soviet_extra")},
        distances=tuple(tuple(distance(a, b) for b in coords) for a in coords),
    )


def load_weather(path: Path) -> dict[str, Weather]:
    label = _label(path)
    raw = _read(path, label)
    weather = {}
    for key, body in raw.items():
        spec: WeatherSpec = _validated(WeatherSpec, body, label, key)
        weather[key] = Weather(key, spec.title, spec.max_hexes, spec.rail_exempt,
                               Fraction(spec.attack_factor), {kind: value for kind, value in spec.ma_modifier.items()},
                               spec.winter_attrition)
    if not weather:
        raise DataError(label, "", "no weather defined")
    return weather


def load_winter_attrition(path: Path) -> dict[str, dict[int, bool]]:
    """``{side: {roll: frostbite?}}`` from a table of rows ``roll = {german = ..., soviet = ...}``."""
    label = _label(path)
    raw = _read(path, label)
    table: dict[str, dict[int, bool]] = {side: {} for side in SIDES}
    rows = raw.get("rolls")
    if not isinstance(rows, dict):
        raise DataError(label, "rolls", "a table of die rolls is required")
    for roll, row in rows.items():
        if not roll.isdigit() or not 1 <= int(roll) <= 6:
            raise DataError(label, f"rolls.{roll}", "die rolls run from 1 to 6")
        for side in SIDES:
            value = row.get(side) if isinstance(row, dict) else None
            if value not in ("frostbite", "no_effect"):
                raise DataError(label, f"rolls.{roll}.{side}", "must be \"frostbite\" or \"no_effect\"")
            table[side][int(roll)] = value == "frostbite"
    if any(sorted(t) != list(range(1, 7)) for t in table.values()):
        raise DataError(label, "rolls", "every die roll from 1 to 6 needs a row")
    return table


def load_rules(path: Path, counters: dict[str, CounterInfo]) -> Rules:
    label = _label(path)
    spec: RulesSpec = _validated(RulesSpec, _read(path, label), label)
    for entry, unit in (("improved_first_shock.unit", spec.improved_first_shock.unit), ("tank.unit", spec.tank.unit),
                        ("early_first_shock.unit", spec.early_first_shock.unit)):
        if unit not in counters:
            raise DataError(label, entry, f"{unit!r} is not a counter")
    supply = spec.supply
    return Rules(
        soviet_replacement_choices=tuple(spec.handicap.soviet_replacements),
        first_shock=spec.improved_first_shock.unit, first_shock_shift=spec.improved_first_shock.attack_shift,
        tank=spec.tank.unit, tank_shift=spec.tank.attack_shift, tank_cost=spec.tank.cost,
        defensive_line_shift=spec.stronger_defensive_line.shift,
        logistics_turns=frozenset(spec.german_logistics.turns),
        harsher_winter_turns=frozenset(spec.harsher_winter.turns),
        harsher_winter_german_rolls=spec.harsher_winter.german_rolls,
        early_first_shock_turn=spec.early_first_shock.turn,
        early_first_shock_roll=spec.early_first_shock.roll_at_least,
        variable_weather_roll=spec.variable_weather.roll_at_least,
        supply_start=supply.start.model_dump(), supply_keep_per_city=supply.keep_per_city,
        supply_keep_capital=supply.keep_capital.model_dump(), supply_basic=supply.basic,
        german_basic_last_turn=supply.german_basic_last_turn,
        extra_supply_max=supply.extra_max_replacement_points, winter_gear_cost=supply.winter_gear_cost,
        supply_zoc_cost=supply.zoc_hex_cost,
    )


def load_scenario_file(path: Path) -> Scenario:
    """Load a scenario and every file it names (relative to the scenario file)."""
    label = _label(path)
    spec: ScenarioSpec = _validated(ScenarioSpec, _read(path, label), label)
    base = path.parent
    board = load_map(base / spec.map)
    counters = load_counters(base / spec.counters)
    crt = load_crt(base / spec.crt)
    weather = load_weather(base / spec.weather)
    winter = load_winter_attrition(base / spec.winter_attrition) if spec.winter_attrition else None
    rules = load_rules(base / spec.rules, counters)

    turns: dict[int, TurnInfo] = {}
    for turn in spec.turn:
        entry = f"turn {turn.turn}"
        if turn.turn in turns:
            raise DataError(label, entry, "listed twice")
        if turn.weather not in weather:
            raise DataError(label, entry, f"weather {turn.weather!r} is not in {spec.weather}")
        if weather[turn.weather].winter_attrition and winter is None:
            raise DataError(label, entry, f"{turn.weather} needs a winter_attrition table")
        turns[turn.turn] = TurnInfo(turn.turn, turn.dates, turn.weather,
                                    {"german": turn.replacements.german, "soviet": turn.replacements.soviet},
                                    turn.variable, turn.tank)
    first, last = min(turns), max(turns)
    if sorted(turns) != list(range(first, last + 1)):
        raise DataError(label, "turn", "turns must follow one another without gaps")

    def setup(assignment: dict[str, str], side: str, entry: str) -> dict[int, str]:
        placed: dict[int, str] = {}
        for hex_id, unit in assignment.items():
            if hex_id not in board.index:
                raise DataError(label, f"{entry}.{hex_id}", "no such hex on the map")
            if unit not in counters or counters[unit].side != side:
                raise DataError(label, f"{entry}.{hex_id}", f"{unit!r} is not a {side} counter")
            if board.setup_side[board.index[hex_id]] != side:
                raise DataError(label, f"{entry}.{hex_id}", f"not a {side} set-up hex")
            placed[board.index[hex_id]] = unit
        if len(set(placed.values())) != len(placed):
            raise DataError(label, entry, "a unit is placed twice")
        return placed

    soviet = setup(spec.setup.soviet, "soviet", "setup.soviet")
    german = setup(spec.setup.german_standard, "german", "setup.german_standard")
    if len(soviet) != len(board.setup_hexes["soviet"]):
        raise DataError(label, "setup.soviet", "every Soviet set-up hex needs one unit")
    if len(german) != len(board.setup_hexes["german"]):
        raise DataError(label, "setup.german_standard", "every German set-up hex needs one unit")
    german_units = set(counters[u].id for u in counters if counters[u].side == "german")
    if set(german.values()) != german_units:
        raise DataError(label, "setup.german_standard", "the German set-up must use every German counter")
    pool: list[PoolEntry] = []
    for pooled in spec.pool:
        if pooled.unit not in counters:
            raise DataError(label, f"pool.{pooled.unit}", "no such counter")
        if pooled.unit in soviet.values() or pooled.unit in german.values():
            raise DataError(label, f"pool.{pooled.unit}", "a unit cannot both set up and start in the pool")
        pool.append(PoolEntry(pooled.unit, pooled.available_from))

    v = spec.victory
    return Scenario(
        id=spec.id, title=spec.title, board=board, counters=counters, crt=crt, weather=weather,
        turns=turns, first_turn=first, last_turn=last,
        soviet_setup=soviet, soviet_setup_full=spec.setup.soviet_strength == "full",
        german_standard=german, german_setup_full=spec.setup.german_strength == "full",
        pool=tuple(pool), extra_entry_turns=frozenset(spec.extra_entry_turns),
        units={side: tuple(c.id for c in counters.values() if c.side == side) for side in SIDES},
        victory=Victory(v.elimination, v.city, v.capital, v.capital_occupation_bonus),
        winter_attrition=winter,
        rules=rules,
        advanced_crt=base / spec.advanced_crt if spec.advanced_crt else None,
        files={"map": spec.map, "counters": spec.counters, "crt": spec.crt, "weather": spec.weather},
    )


def scenario_ids() -> list[str]:
    return list(_read(DATA_DIR / "scenarios.toml", "engine/data/scenarios.toml"))


@lru_cache(maxsize=None)
def load_scenario(scenario_id: str) -> Scenario:
    """The scenario with this id (``standard``, ``campaign``), loaded once and shared: it is immutable."""
    index = _read(DATA_DIR / "scenarios.toml", "engine/data/scenarios.toml")
    if scenario_id not in index:
        raise KeyError(f"unknown scenario {scenario_id!r}; known: {', '.join(index)}")
    return load_scenario_file(DATA_DIR / index[scenario_id]["file"])


__all__ = ["DIRECTIONS", "SIDES", "CombatTable", "CounterInfo", "PoolEntry", "Rules", "Scenario", "TurnInfo",
           "Victory", "Weather",
           "load_scenario", "load_scenario_file", "load_crt", "load_map", "load_counters", "scenario_ids"]
