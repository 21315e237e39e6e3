"""The scenario catalogue over real gRPC and HTTP: what a frontend reads before any match exists."""

from __future__ import annotations

import grpc
import pytest

import engine
from clients.client import TyphoonError


def test_list_scenarios_and_options_over_grpc(client):
    listed = client.list_scenarios()
    assert [(s.id, s.first_turn, s.last_turn) for s in listed.scenarios] == [("standard", 1, 7), ("campaign", 1, 14)]
    options = {o.name: o for o in listed.options}
    assert set(options) == set(engine.OPTIONS)
    assert [v.number_value for v in options["soviet_replacements"].values] == [5, 4, 3]
    assert options["victory"].default_value.string_value == "points"
    assert "Always Use Victory Points" in options["victory"].rule
    presets = {p.name: dict(p.options) for p in listed.presets}
    assert presets["war_of_attrition"]["war_of_attrition"] is True


def test_get_scenario_publishes_the_engine_data_over_grpc(client):
    scenario = client.get_scenario("campaign").scenario
    reference = engine.load_scenario("campaign")
    board = reference.board
    assert (scenario.map.columns, scenario.map.rows, len(scenario.map.hexes)) == (14, 10, 140)
    moscow = next(h for h in scenario.map.hexes if h.id == "1103")
    assert (moscow.city, moscow.capital, sorted(moscow.river)) == ("Moscow", True, ["NW", "S", "SW"])
    assert sum(h.terrain == "forest" for h in scenario.map.hexes) == sum(board.forest)
    assert sum(len(h.rail) for h in scenario.map.hexes) == 2 * sum(len(links) for links in board.rail_links) // 2
    assert {c.id: (c.full, c.half, c.ma) for c in scenario.counters}["XLVII"] == (9, 4, 6)
    assert list(scenario.crt.columns) == list(reference.crt.labels)
    assert [list(r.results) for r in scenario.crt.rows] == [list(reference.crt.results[roll]) for roll in range(1, 7)]
    assert [(t.turn, t.weather, t.replacements["soviet"]) for t in scenario.turns][7] == (8, "snow", 2)
    assert {w.id: w.max_hexes for w in scenario.weather} == {"clear": 0, "mud": 1, "snow": 0}
    assert scenario.setup.soviet["0803"] == "40th" and scenario.victory.capital == 20


def test_an_unknown_scenario_is_not_found(client):
    with pytest.raises(TyphoonError) as caught:
        client.get_scenario("kursk")
    assert caught.value.code == grpc.StatusCode.NOT_FOUND and caught.value.reason == "UNKNOWN_SCENARIO"


def test_scenarios_over_rest(http):
    listed = http.get("/v1/scenarios").json()
    assert [s["id"] for s in listed["scenarios"]] == ["standard", "campaign"]
    scenario = http.get("/v1/scenarios/standard").json()["scenario"]
    assert scenario["last_turn"] == 7 and len(scenario["map"]["hexes"]) == 140
    assert scenario["turns"][2]["weather"] == "mud"
    missing = http.get("/v1/scenarios/kursk")
    assert missing.status_code == 404 and missing.json()["error"]["reason"] == "UNKNOWN_SCENARIO"
    assert "/v1/scenarios/{scenario_id}" in http.get("/openapi.json").json()["paths"]
