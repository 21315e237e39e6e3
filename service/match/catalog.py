"""The scenario catalogue as proto messages: engine.describe_scenario / describe_options, reshaped.

Nothing here decides anything: the data is the engine's, only laid out as the messages of
proto/typhoon/v1/scenario.proto.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from google.protobuf import json_format

import engine
from engine.sequence import SETUP, STANDARD_TURN, SUPPLY_TURN
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import scenario_pb2
from service.match.clock import PRESETS


@lru_cache(maxsize=None)
def scenario_message(scenario_id: str) -> scenario_pb2.Scenario:
    """The scenario as a message (built once per process: scenarios never change while it runs)."""
    data: dict[str, Any] = engine.describe_scenario(scenario_id)
    data["weather"] = [{"id": key, **{k: (v or 0) if k == "max_hexes" else v for k, v in body.items()}}
                       for key, body in data["weather"].items()]
    data["crt"]["rows"] = [{"roll": int(roll), "results": row} for roll, row in data["crt"].pop("results").items()]
    data["sequence"] = [{"name": phase.name, "side": phase.side, "kind": phase.kind, "movers": phase.movers,
                         "option": "war_of_attrition" if phase not in (SETUP, *STANDARD_TURN) else ""}
                        for phase in (SETUP, *SUPPLY_TURN)]
    return json_format.ParseDict(data, scenario_pb2.Scenario())


@lru_cache(maxsize=1)
def scenarios_response() -> api.ListScenariosResponse:
    response = api.ListScenariosResponse()
    for scenario_id in engine.scenario_ids():
        scenario = scenario_message(scenario_id)
        response.scenarios.add(id=scenario.id, title=scenario.title, first_turn=scenario.first_turn,
                               last_turn=scenario.last_turn)
    for option in engine.describe_options():
        message = response.options.add(name=option["name"], rule=option["rule"])
        for value in option["values"]:
            json_format.ParseDict(value, message.values.add())
        json_format.ParseDict(option["default"], message.default_value)
    for name, options in engine.describe_presets().items():
        preset = response.presets.add(name=name)
        preset.options.update(options)
    response.time_controls.extend(control.to_proto() for control in PRESETS.values())
    return response
