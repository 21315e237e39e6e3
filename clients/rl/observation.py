"""The observation tensor: hex planes of the position, and the turn, phase and weather as constant planes.

An observation is a ``float32`` array of shape ``(planes, rows, columns)`` = ``(len(PLANES), 10, 14)``:
``obs[p, row - 1, column - 1]`` is plane ``p`` at hex ``CCRR`` (the map as printed: columns west to east,
rows north to south; odd columns sit half a hex higher). Every value lies in ``[0, 1]``. The planes, in
order, are :data:`PLANES` (name and meaning): the units (side, strength, kind, supply, what they did this
phase), the map (terrain, cities, forts, rail, rivers by hex side, edges, entry and set-up hexes), city
control, zones of control, the decision waiting (a battle's hex and attackers, the picks so far) and
then, the same in every hex, the turn, the phase, the weather, who acts and who observes, points and
the match options. The position is fully visible to both sides; ``observer_german`` says whose view it is.

>>> import engine
>>> game = engine.new_game("standard", seed="doc")
>>> observer = Observer(game.scenario)
>>> obs = observer.observe(game, "german")
>>> obs.shape, obs.dtype, len(PLANES)
((82, 10, 14), dtype('float32'), 82)
>>> plane = PLANE_INDEX
>>> int(obs[plane["soviet_unit"]].sum()), int(obs[plane["city"]].sum()), float(obs[plane["phase_setup"], 0, 0])
(13, 11, 1.0)
>>> float(obs[plane["capital"], 3 - 1, 11 - 1])  # Moscow is hex 1103
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

import engine
from engine.zones import zone_of_control

from .encoding import DIRECTIONS, ActionEncoding

PHASES: tuple[str, ...] = ("setup", "german_supply", "german_replacement", "german_panzer_movement", "german_combat",
                           "german_movement", "soviet_supply", "soviet_replacement", "soviet_rail_movement",
                           "soviet_combat", "soviet_movement")
WEATHERS: tuple[str, ...] = ("clear", "mud", "snow")
STAGES: tuple[str, ...] = ("exchange_losses", "attacker_loss", "retreat", "advance", "unstack")
#: the match options shown (switches), in this order; ``victory_moscow`` and ``soviet_replacements`` follow
SWITCHES: tuple[str, ...] = ("improved_first_shock", "stronger_defensive_line", "german_logistics",
                             "soviet_replacement_edge", "harsher_winter", "early_first_shock", "variable_weather",
                             "war_of_attrition")

STRENGTH_SCALE = 12  # the strongest counter
MA_SCALE = 6
TURN_SCALE = 14  # the campaign's length
POINTS_SCALE = 100
SUPPLY_SCALE = 30

PLANES: tuple[tuple[str, str], ...] = (
    ("german_unit", "a German unit stands here"),
    ("soviet_unit", "a Soviet unit stands here"),
    ("strength", f"the unit's attack strength now / {STRENGTH_SCALE}"),
    ("full_strength", "the unit is at full strength"),
    ("armour", "the unit is a panzer or the Tank unit"),
    ("movement_allowance", f"the unit's printed movement allowance / {MA_SCALE}"),
    ("in_communication", "the unit traces communication to its side's edge"),
    ("in_supply", "War of Attrition: the unit traces supply; otherwise as in_communication"),
    ("moved", "the unit has moved this phase"),
    ("rail_eligible", "the unit may move by rail this phase"),
    ("attacking", "the unit attacks in a battle declared this phase"),
    ("defending", "the unit is the defender of a battle declared this phase"),
    ("assault", "Assault points bought for the unit / 5"),
    ("forest", "forest hex"),
    ("city", "city hex"),
    ("capital", "Moscow"),
    ("fort", "fortification hex"),
    ("rail", "a rail line runs through the hex"),
    *((f"river_{d}", f"a river runs along the hex's {d} side") for d in DIRECTIONS),
    ("west_edge", "hex of the west map edge (German communication)"),
    ("east_edge", "hex of the east map edge (Soviet communication)"),
    ("german_entry", "German replacement entry hex"),
    ("soviet_entry", "Soviet replacement entry hex"),
    ("soviet_extra_entry", "Soviet Replacement Edge entry hex (optional rule)"),
    ("german_setup", "German set-up hex"),
    ("soviet_setup", "Soviet set-up hex"),
    ("german_city", "a city the Germans control"),
    ("soviet_city", "a city the Soviets control"),
    ("german_zoc", "in a German zone of control"),
    ("soviet_zoc", "in a Soviet zone of control"),
    ("pending_hex", "the hex of the battle waiting for a decision (the defender's, or the one to advance into)"),
    ("pending_attackers", "the attackers of that battle"),
    ("retreat_picked", "the hexes of the retreat path picked so far"),
    ("losses_picked", "exchange-loss steps picked so far from the unit (0.5 a step)"),
    ("stack", "a unit that moved onto a friendly unit: one of the two must move on"),
    ("turn", f"the game turn / {TURN_SCALE} (constant plane)"),
    ("turns_left", f"turns after this one / {TURN_SCALE}"),
    *((f"phase_{name}", f"the phase is {name}") for name in PHASES),
    *((f"weather_{name}", f"the weather is {name}") for name in WEATHERS),
    ("german_to_act", "the German player acts (else the Soviet, or nobody: the game is over)"),
    ("soviet_to_act", "the Soviet player acts"),
    ("observer_german", "the observation is the German player's (else the Soviet's)"),
    ("declaring", "battles may still be declared this phase"),
    *((f"stage_{name}", f"the decision waiting is {name}") for name in STAGES),
    ("replacement_points", "replacement points left this phase / 10"),
    ("german_supply_points", f"German supply points / {SUPPLY_SCALE}"),
    ("soviet_supply_points", f"Soviet supply points / {SUPPLY_SCALE}"),
    ("german_points", f"German victory points / {POINTS_SCALE}"),
    ("soviet_points", f"Soviet victory points / {POINTS_SCALE}"),
    ("capital_bonus", "the Germans have had their Moscow occupation bonus"),
    ("attrition", "Winter Attrition rolls still to make and Frostbite losses still to take / 3"),
    *((f"option_{name}", f"the option {name} is on") for name in SWITCHES),
    ("option_victory_moscow", "victory by holding Moscow (else by points)"),
    ("option_soviet_replacements", "Soviet replacements per turn / 5"),
)
PLANE_INDEX: dict[str, int] = {name: i for i, (name, _) in enumerate(PLANES)}

Array = npt.NDArray[np.float32]


class Observer:
    """Builds observations of the games of one scenario (its map planes are computed once)."""

    def __init__(self, scenario: engine.Scenario, encoding: ActionEncoding | None = None) -> None:
        board = scenario.board
        self.board = board
        self.encoding = encoding or ActionEncoding(scenario)
        self.shape: tuple[int, int, int] = (len(PLANES), board.rows, board.columns)
        # hex index → position in a flattened plane (row-major: row, then column)
        self._cell = np.array([(row - 1) * board.columns + (column - 1) for column, row in board.coords], np.intp)
        static = np.zeros((len(PLANES), board.rows * board.columns), np.float32)

        def mark(plane: str, hexes: Sequence[int] | frozenset[int] | set[int]) -> None:
            static[PLANE_INDEX[plane], self._cell[sorted(hexes)]] = 1.0

        hexes = range(len(board.ids))
        mark("forest", [h for h in hexes if board.forest[h]])
        mark("city", list(board.cities))
        mark("capital", [board.capital])
        mark("fort", board.forts)
        mark("rail", [h for h in hexes if board.rail_links[h]])
        for number, direction in enumerate(DIRECTIONS):
            mark(f"river_{direction}", [h for h in hexes if (n := self.encoding.neighbour(h, number)) is not None
                                        and board.river_between(h, n)])
        mark("west_edge", board.west_edge)
        mark("east_edge", board.east_edge)
        mark("german_entry", board.entry["german"])
        mark("soviet_entry", board.entry["soviet"])
        mark("soviet_extra_entry", board.entry["soviet_extra"])
        mark("german_setup", board.setup_hexes["german"])
        mark("soviet_setup", board.setup_hexes["soviet"])
        self._static = static
        # per unit (the encoding's numbering): side, armour, movement allowance, strength full and half
        counters = [scenario.counters[u] for u in self.encoding.units]
        self._german = np.array([c.side == "german" for c in counters])
        self._unit_features = np.array([[c.side == "german", c.side == "soviet", c.type != "infantry", c.ma / MA_SCALE]
                                        for c in counters], np.float32)
        self._strengths = np.array([[c.half / STRENGTH_SCALE, c.full / STRENGTH_SCALE] for c in counters], np.float32)
        self._feature_planes = np.array([PLANE_INDEX[name] for name in (
            "german_unit", "soviet_unit", "armour", "movement_allowance", "strength", "full_strength",
            "in_communication", "in_supply")], np.intp)[:, None]
        self._last_turn = scenario.last_turn

    def observe(self, game: engine.Game, observer: str, picked: Sequence[int] = ()) -> Array:
        """``game`` as ``observer`` ("german" or "soviet") sees it, with the numbers ``picked`` so far of a
        decision taken a number at a time (see :mod:`.encoding`). Read from the position's documented
        form (``Game.to_json``, POSITION.md) and the game's public queries."""
        obs = self._static.copy()
        cell, plane, index, unit_index = self._cell, PLANE_INDEX, self.board.index, self.encoding.unit_index
        state = game.to_json()
        ps, options = state["phase_state"], state["options"]
        units = state["units"]
        hex_of = {u["id"]: index[u["hex"]] for u in units}
        marks_plane: list[int] = []  # (plane, hex) pairs of the marks set to 1, written at once
        marks_hex: list[int] = []
        if units:
            ids = [u["id"] for u in units]
            numbers = np.array([unit_index[u] for u in ids], np.intp)
            hexes = list(hex_of.values())
            full = np.array([u["strength"] == "full" for u in units])
            linked = game.communication_of("german") | game.communication_of("soviet")
            communication = [linked[u] for u in ids]
            supply = ([game.supply_trace_cost(u) is not None for u in ids] if options["war_of_attrition"]
                      else communication)
            features = np.empty((8, len(units)), np.float32)
            features[:4] = self._unit_features[numbers].T
            features[4] = self._strengths[numbers, full.astype(np.intp)]
            features[5] = full
            features[6] = communication
            features[7] = supply
            obs[self._feature_planes, cell[hexes][None, :]] = features
            german = self._german[numbers]
            for side, own in (("german", german), ("soviet", ~german)):
                zone = zone_of_control(self.board, (h for h, mine in zip(hexes, own) if mine))
                marks_plane += [plane[f"{side}_zoc"]] * len(zone)
                marks_hex += zone
        for name, listed in (("moved", ps["moved"]), ("rail_eligible", ps["rail_eligible"]),
                             ("attacking", ps["attacking"]), ("defending", [b["defender"] for b in ps["battles"]])):
            on_map = [hex_of[u] for u in listed if u in hex_of]
            marks_plane += [plane[name]] * len(on_map)
            marks_hex += on_map
        for hex_id, side in state["city_control"].items():
            marks_plane.append(plane[f"{side}_city"])
            marks_hex.append(index[hex_id])
        if marks_hex:
            obs[marks_plane, cell[marks_hex]] = 1.0
        for unit, points in ps["assault"].items():
            if unit in hex_of:
                obs[plane["assault"], cell[hex_of[unit]]] = min(points / 5, 1.0)
        pending = game.pending_decision()
        if pending:
            self._decision(obs, hex_of, pending, picked)
        to_act = game.current_player()
        points = game.victory_points()
        turn = state["turn"]
        constants: dict[str, float] = {
            "turn": turn / TURN_SCALE,
            "turns_left": (self._last_turn - turn) / TURN_SCALE,
            f"phase_{state['phase']}": 1.0,
            f"weather_{state['weather']}": 1.0,
            "german_to_act": float(to_act == "german"),
            "soviet_to_act": float(to_act == "soviet"),
            "observer_german": float(observer == "german"),
            "declaring": float(state["phase"].endswith("_combat") and ps["declaring"]),
            "replacement_points": min(ps["points"] / 10, 1.0),
            "german_supply_points": min(state["supply"]["german"] / SUPPLY_SCALE, 1.0),
            "soviet_supply_points": min(state["supply"]["soviet"] / SUPPLY_SCALE, 1.0),
            "german_points": min(points["german"] / POINTS_SCALE, 1.0),
            "soviet_points": min(points["soviet"] / POINTS_SCALE, 1.0),
            "capital_bonus": float(state["capital_bonus"]),
            "attrition": min((ps["attrition_rolls"] + ps["frostbite"]) / 3, 1.0),
            "option_victory_moscow": float(options["victory"] == "moscow"),
            "option_soviet_replacements": options["soviet_replacements"] / 5,
        }
        for name in SWITCHES:
            constants[f"option_{name}"] = float(bool(options[name]))
        if pending:
            constants[f"stage_{pending['stage']}"] = 1.0
        planes = [plane[name] for name, value in constants.items() if value]
        obs[planes] = np.array([value for value in constants.values() if value], np.float32)[:, None]
        return obs.reshape(self.shape)

    def _mark_units(self, obs: Array, plane: int, hex_of: dict[str, int], units: Sequence[str]) -> None:
        hexes = [hex_of[u] for u in units if u in hex_of]
        if hexes:
            obs[plane, self._cell[hexes]] = 1.0

    def _decision(self, obs: Array, hex_of: dict[str, int], pending: dict[str, Any], picked: Sequence[int]) -> None:
        plane, cell, index = PLANE_INDEX, self._cell, self.board.index
        here = index[pending["hex"]]
        obs[plane["pending_hex"], cell[here]] = 1.0
        if pending["stage"] == "unstack":
            self._mark_units(obs, plane["stack"], hex_of, [pending["unit"], pending["mover"]])
            return
        self._mark_units(obs, plane["pending_attackers"], hex_of, pending["attackers"])
        encoding = self.encoding
        for number in picked:
            block, offset = encoding.block_of(number)
            if block == "retreat_step":
                step = encoding.neighbour(here, offset)
                if step is None:
                    raise ValueError(f"retreat step {DIRECTIONS[offset]} leaves the map")
                here = step
                obs[plane["retreat_picked"], cell[here]] = 1.0
            elif block == "lose_step":
                unit = encoding.units[offset]
                if unit in hex_of:
                    obs[plane["losses_picked"], cell[hex_of[unit]]] += 0.5


__all__ = ["Observer", "PHASES", "PLANES", "PLANE_INDEX", "STAGES", "SWITCHES", "WEATHERS"]
