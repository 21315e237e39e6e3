"""Building a game from a JSON position description (see POSITION.md), so any situation can be set up.

Only ``scenario``, ``turn``, ``phase`` and ``units`` are needed; everything else has a default:

>>> game = game_from_position({
...     "scenario": "standard", "turn": 3, "phase": "german_combat",
...     "units": [{"id": "XLVII", "hex": "0604", "strength": "full"},
...               {"id": "16th", "hex": "0705", "strength": "half"}]})
>>> game.unit_at("0705"), game.strength("16th"), game.weather().id
('16th', 4, 'mud')
"""

from __future__ import annotations

import copyreg
from typing import Any, Callable

from .data import SIDES, load_scenario
from .dice import commitment_problem, drawn_entropy, entropy_commitment, entropy_problem
from .errors import IllegalAction
from .game import STATE_FORMAT, Game, Pending, PhaseState
from .options import Options
from .ruleset import MIXED_DICE, RULESET, known, played
from .sequence import PHASES_BY_NAME


class PositionError(ValueError):
    """A position description that does not describe a legal position."""


def game_from_position(data: dict[str, Any], ruleset: int | None = None) -> Game:
    """The game ``data`` describes. Its ruleset is the position's ``ruleset`` field (``Game.to_json()``
    always writes it); a position without one plays ``ruleset`` (a service passes the ruleset its match
    records: its stored ruleset-2 states have none, see ``Game.canonical_json``), by default the current
    ruleset, :data:`~engine.ruleset.RULESET`.

    >>> import json
    >>> from engine import new_game
    >>> old = new_game("standard", seed="r", ruleset=2)
    >>> game_from_position(old.to_json()).ruleset, game_from_position(json.loads(old.canonical_json())).ruleset
    (2, 4)
    >>> game_from_position(json.loads(old.canonical_json()), ruleset=2).ruleset
    2
    """
    if not isinstance(data, dict):
        raise PositionError("a position is a JSON object")
    fields = {"format", "scenario", "options", "seed", "fixed_dice", "rolls", "turn", "phase", "weather", "supply",
              "units", "pool", "city_control", "elimination_points", "capital_bonus", "phase_state", "result",
              "ruleset", "entropy", "entropy_commitments"}
    unknown = sorted(set(data) - fields)
    if unknown:
        raise PositionError(f"unknown field {unknown[0]!r}")
    if data.get("format", STATE_FORMAT) != STATE_FORMAT:
        raise PositionError(f"unsupported format {data.get('format')!r}")
    try:
        scenario = load_scenario(data.get("scenario", "standard"))
    except KeyError as error:
        raise PositionError(str(error.args[0])) from None
    try:
        options = Options.from_json(data.get("options"))
    except IllegalAction as error:
        raise PositionError(error.message) from None
    written = data.get("ruleset")
    if not (written is None or known(written)):
        raise PositionError(f"ruleset {written!r} is not one this engine plays ({played()})")
    ruleset = written if written is not None else RULESET if ruleset is None else ruleset
    if not known(ruleset):
        raise PositionError(f"ruleset {ruleset!r} is not one this engine plays ({played()})")
    fixed = data.get("fixed_dice", [])
    if not (isinstance(fixed, list) and all(isinstance(d, int) and 1 <= d <= 6 for d in fixed)):
        raise PositionError("fixed_dice must be a list of die rolls from 1 to 6")
    try:
        game = Game(scenario, options, str(data.get("seed", "")), tuple(fixed), ruleset)
    except IllegalAction as error:
        raise PositionError(error.message) from None
    _load_entropy(game, data.get("entropy"), data.get("entropy_commitments"))
    board, counters = game.board, game.counters

    # start from an empty board: the description says where everything is
    game.hex_of.clear()
    game.at.clear()
    game.reduced.clear()
    game.pool.clear()

    def hex_index(hex_id: Any, where: str) -> int:
        if not (isinstance(hex_id, str) and hex_id in board.index):
            raise PositionError(f"{where}: {hex_id!r} is not a hex of the map")
        return board.index[hex_id]

    units = data.get("units")
    stack = (data.get("phase_state") or {}).get("stack") or {}
    if not isinstance(units, list):
        raise PositionError("units must be a list of {id, hex, strength}")
    for entry in units:
        if not (isinstance(entry, dict) and set(entry) <= {"id", "hex", "strength"}):
            raise PositionError(f"unit entry {entry!r} must have id, hex and strength")
        unit = entry.get("id")
        if unit not in counters:
            raise PositionError(f"unknown unit {unit!r}")
        if unit in game.hex_of:
            raise PositionError(f"unit {unit} is listed twice")
        where = hex_index(entry.get("hex"), f"unit {unit}")
        strength = entry.get("strength", "full")
        if strength not in ("full", "half"):
            raise PositionError(f"unit {unit}: strength must be full or half")
        if stack and stack.get("unit") == unit and stack.get("hex") == entry.get("hex"):
            game.hex_of[unit] = where  # the unit that moved onto a friendly unit this phase
        else:
            if where in game.at:
                raise PositionError(f"{board.ids[where]} holds two units ({game.at.get(where)} and {unit})")
            game._put(unit, where)
        if strength == "half":
            game.reduced.add(unit)

    phase_name = data.get("phase", "setup")
    if phase_name not in PHASES_BY_NAME:
        raise PositionError(f"unknown phase {phase_name!r}; phases: {', '.join(PHASES_BY_NAME)}")
    game.phase = PHASES_BY_NAME[phase_name]
    turn = data.get("turn", scenario.first_turn)
    if turn not in scenario.turns:
        raise PositionError(f"turn {turn!r} is not on the {scenario.id} turn track")
    game.turn = turn
    weather = data.get("weather", scenario.turns[turn].weather)
    if weather not in scenario.weather:
        raise PositionError(f"unknown weather {weather!r}")
    game.weather_id = weather
    if not (game.phase in game.phases or game.phase.name == "setup"):
        raise PositionError(f"phase {phase_name} is not played with these options")
    supply = data.get("supply")
    if supply is not None:
        if not (isinstance(supply, dict)
                and all(isinstance(supply.get(s, 0), int) and supply.get(s, 0) >= 0 for s in SIDES)):
            raise PositionError("supply must give each side a whole number")
        game.supply = {side: supply.get(side, 0) for side in SIDES}

    default_pool = {entry.unit: entry.available_from for entry in scenario.pool}
    pool = data.get("pool")
    if pool is None:
        in_play = set(default_pool) | {u for u in counters if u in scenario.german_standard.values()
                                       or u in scenario.soviet_setup.values()}
        if game.phase.name == "setup":
            in_play -= set(scenario.german_standard.values())
        pool = [{"id": u, "available_from": default_pool.get(u, 1)}
                for u in counters if u in in_play and u not in game.hex_of]
    if not isinstance(pool, list):
        raise PositionError("pool must be a list")
    for entry in pool:
        if isinstance(entry, str):
            entry = {"id": entry}
        if not isinstance(entry, dict):
            raise PositionError(f"pool entry {entry!r} must be a unit id or {{id, available_from}}")
        unit = entry.get("id")
        if unit not in counters:
            raise PositionError(f"unknown unit {unit!r} in the pool")
        if unit in game.hex_of:
            raise PositionError(f"unit {unit} is both on the map and in the pool")
        available = entry.get("available_from", default_pool.get(unit, 1))
        if not isinstance(available, int):
            raise PositionError(f"pool unit {unit}: available_from must be a turn number")
        game.pool[unit] = available

    control = {}
    if game.phase.name != "setup":
        for city in board.cities:
            occupant = game.at.get(city)
            if occupant:
                control[city] = counters[occupant].side
            else:
                control[city] = "german" if board.setup_side[city] == "german" else "soviet"
    for hex_id, side in (data.get("city_control") or {}).items():
        where = hex_index(hex_id, "city_control")
        if where not in board.cities:
            raise PositionError(f"city_control: {hex_id} is not a city")
        if side not in SIDES:
            raise PositionError(f"city_control: {side!r} is not a side")
        control[where] = side
    game.control = control

    points = data.get("elimination_points") or {}
    for side in SIDES:
        value = points.get(side, 0)
        if not (isinstance(value, int) and value >= 0):
            raise PositionError(f"elimination_points.{side} must be a whole number")
        game.elimination_points[side] = value
    game.capital_bonus = bool(data.get("capital_bonus", False))
    rolls = data.get("rolls", 0)
    if not (isinstance(rolls, int) and rolls >= 0):
        raise PositionError("rolls must be a whole number")
    game.rolls = rolls

    game._reset_phase_state()
    state = data.get("phase_state")
    if state:
        _load_phase_state(game, state, hex_index)

    result = data.get("result")
    if result:
        from .victory import Result

        game.outcome = Result(result["winner"], result["reason"], dict(result["points"]))
    return game


def _reduce_game(game: Game) -> tuple[Callable[[dict[str, Any]], Game], tuple[dict[str, Any]]]:
    """How a game is pickled and copied (``copy.copy``, ``copy.deepcopy``, ``pickle``): as its position, which
    holds the whole state (what a game keeps to go faster is worked out again). The same in both builds of
    the engine: a compiled game has no ``__dict__`` to copy."""
    return game_from_position, (game.to_json(),)


copyreg.pickle(Game, _reduce_game)


def _load_entropy(game: Game, entropy: object, commitments: object = None) -> None:
    """The seats' entropy (ruleset 4 on): side → entropy, every side once the first die is rolled; and
    side → commitment (SHA-256 hex, "" for none, null while awaited) for the seats that took part."""
    _load_commitments(game, commitments)
    if entropy is None or entropy == {}:
        return
    if not isinstance(entropy, dict):
        raise PositionError("entropy must map sides to their entropy")
    if game.ruleset < MIXED_DICE:
        raise PositionError(f"entropy: the dice of ruleset {game.ruleset} mix in none (from ruleset {MIXED_DICE} on)")
    for side, value in entropy.items():
        if side not in SIDES:
            raise PositionError(f"entropy: {side!r} is not a side")
        problem = entropy_problem(value)
        if problem:
            raise PositionError(f"entropy.{side}: {problem}")
        committed = game.seat_entropy.commitments.get(side)
        if committed and entropy_commitment(value) != committed and value != drawn_entropy(game.seed, side):
            raise PositionError(f"entropy.{side} does not match the side's commitment")
        game.entropy[side] = value


def _load_commitments(game: Game, commitments: object) -> None:
    if commitments is None or commitments == {}:
        return
    if not isinstance(commitments, dict):
        raise PositionError("entropy_commitments must map sides to their commitment")
    if game.ruleset < MIXED_DICE:
        raise PositionError(f"entropy_commitments: the dice of ruleset {game.ruleset} mix in no entropy "
                            f"(from ruleset {MIXED_DICE} on)")
    for side, value in commitments.items():
        if side not in SIDES:
            raise PositionError(f"entropy_commitments: {side!r} is not a side")
        problem = commitment_problem(value) if value else None
        if not (value is None or isinstance(value, str)):
            problem = 'a commitment, "" (none) or null (awaited)'
        if problem:
            raise PositionError(f"entropy_commitments.{side}: {problem}")
        game.seat_entropy.commitments[side] = value


def _load_phase_state(game: Game, state: dict[str, Any], hex_index: Callable[[Any, str], int]) -> None:
    counters = game.counters

    def units(name: str) -> set[str]:
        listed = state.get(name, [])
        if not (isinstance(listed, list) and all(u in counters for u in listed)):
            raise PositionError(f"phase_state.{name} must list unit ids")
        return set(listed)

    ps = PhaseState()
    ps.moved = units("moved")
    if "rail_eligible" in state:
        ps.rail_eligible = frozenset(units("rail_eligible"))
    else:
        ps.rail_eligible = game.ps.rail_eligible
    ps.points = state.get("points", game.ps.points)
    ps.replaced = units("replaced")
    ps.declaring = bool(state.get("declaring", True))
    for battle in state.get("battles", []):
        ps.battles[battle["defender"]] = list(battle["attackers"])
    ps.attacking = units("attacking") | {a for attackers in ps.battles.values() for a in attackers}
    stack = state.get("stack")
    if stack:
        ps.stack = (hex_index(stack["hex"], "phase_state.stack"), stack["unit"])
    for name in ("attrition_rolls", "winter_gear", "frostbite", "extra_supply"):
        value = state.get(name, getattr(game.ps, name))
        if not (isinstance(value, int) and value >= 0):
            raise PositionError(f"phase_state.{name} must be a whole number")
        setattr(ps, name, value)
    assault = state.get("assault", {})
    if not (isinstance(assault, dict) and all(u in counters and isinstance(v, int) for u, v in assault.items())):
        raise PositionError("phase_state.assault maps unit ids to points")
    ps.assault = dict(assault)
    if "strongpoint_shifts" in state:
        ps.strongpoint_shifts = units("strongpoint_shifts")
    else:  # judged on the position given, for the battles it has declared
        game.ps = ps
        ps.strongpoint_shifts = {d for d in ps.battles if d in game.hex_of and game.combat_phase.in_defensive_line(game, d)}
        if game.scenario.rules.first_shock in ps.attacking and game.combat_phase.first_shock_supported(game):
            ps.strongpoint_shifts.add(game.scenario.rules.first_shock)
    pending = state.get("pending")
    if pending:
        ps.pending = Pending(pending["stage"], pending["defender"], tuple(pending["attackers"]),
                             hex_index(pending["hex"], "phase_state.pending"), pending.get("required", 0),
                             tuple(pending.get("then", ())))
    game.ps = ps
