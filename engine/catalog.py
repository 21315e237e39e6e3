"""What a frontend needs to draw and explain a game: a scenario's map, counters, tables and options.

>>> info = describe_scenario("standard")
>>> len(info["map"]["hexes"]), info["map"]["hexes"][0]["id"], info["turns"][2]["weather"]
(140, '0101', 'mud')
>>> [o["name"] for o in describe_options()][:2]
['victory', 'soviet_replacements']
"""

from __future__ import annotations

from typing import Any

from . import combat
from .data import load_scenario
from .options import OPTIONS, PRESETS


def describe_scenario(scenario_id: str) -> dict[str, Any]:
    """The scenario as plain JSON: map, counters, combat table, weather, turn track, set-up, victory."""
    scenario = load_scenario(scenario_id)
    board = scenario.board
    ids = board.ids
    hexes = []
    for index, hex_id in enumerate(ids):
        directions = board.direction_to[index]
        hexes.append({
            "id": hex_id,
            "column": board.coords[index][0],
            "row": board.coords[index][1],
            "terrain": "forest" if board.forest[index] else "clear",
            "city": board.cities.get(index, ""),
            "capital": index == board.capital,
            "fort": index in board.forts,
            "setup": board.setup_side[index] or "",
            "rail": [d for d, n in directions.items() if n in board.rail_links[index]],
            "river": [d for d, n in directions.items() if board.river_between(index, n)],
        })
    return {
        "id": scenario.id,
        "title": scenario.title,
        "first_turn": scenario.first_turn,
        "last_turn": scenario.last_turn,
        "map": {
            "name": board.name,
            "columns": board.columns,
            "rows": board.rows,
            "grid": "flat-topped hexes, ids CCRR; odd columns sit half a hex higher than even ones",
            "hexes": hexes,
            "west_edge": sorted(ids[h] for h in board.west_edge),
            "east_edge": sorted(ids[h] for h in board.east_edge),
            "entry": {kind: sorted(ids[h] for h in hexes_) for kind, hexes_ in board.entry.items()},
        },
        "counters": [
            {"id": c.id, "name": c.name, "side": c.side, "type": c.type, "size": c.size,
             "full": c.full, "half": c.half, "ma": c.ma}
            for c in scenario.counters.values()
        ],
        "crt": {
            "name": scenario.crt.name,
            "columns": list(scenario.crt.labels),
            "below_lowest": scenario.crt.below_lowest,
            "results": {str(roll): list(row) for roll, row in sorted(scenario.crt.results.items())},
            "result_names": {code: combat.RESULT_NAMES[code] for code in sorted({r for row in scenario.crt.results.values()
                                                                                 for r in row})},
        },
        "weather": {
            w.id: {"title": w.title, "max_hexes": w.max_hexes, "rail_exempt": w.rail_exempt,
                   "attack_factor": str(w.attack_factor), "ma_modifier": dict(w.ma_modifier),
                   "winter_attrition": w.winter_attrition}
            for w in scenario.weather.values()
        },
        "turns": [
            {"turn": t.turn, "dates": t.dates, "weather": t.weather, "replacements": dict(t.replacements),
             "variable": t.variable or "", "tank": t.tank}
            for t in scenario.turns.values()
        ],
        "setup": {
            "soviet": {ids[h]: u for h, u in sorted(scenario.soviet_setup.items())},
            "soviet_strength": "full" if scenario.soviet_setup_full else "half",
            "german_standard": {ids[h]: u for h, u in sorted(scenario.german_standard.items())},
            "german_strength": "full" if scenario.german_setup_full else "half",
            "pool": [{"id": p.unit, "available_from": p.available_from} for p in scenario.pool],
        },
        "victory": {
            "elimination": scenario.victory.elimination,
            "city": scenario.victory.city,
            "capital": scenario.victory.capital,
            "capital_occupation_bonus": scenario.victory.capital_occupation_bonus,
        },
    }


def describe_options() -> list[dict[str, Any]]:
    """Every match option with its allowed values, default and the rule it implements, then the presets."""
    return [{"name": name, "values": list(values), "default": default, "rule": rule}
            for name, (values, default, rule) in OPTIONS.items()]


def describe_presets() -> dict[str, dict[str, Any]]:
    return {name: dict(values) for name, values in PRESETS.items()}
