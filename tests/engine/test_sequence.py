"""Set-up and the sequence of play.

Rules, "Starting the Game": one Soviet unit on each star, all at half strength, without the 1st Shock
Army; four units are left over (counting the 1st Shock Army). One German unit on each black cross, all
at full strength. Then the German player begins his panzer movement phase (no German replacements on
turn 1). "How to Play": seven turns, eight phases each, in the exact order given; the first four are the
German player's turn, the last four the Soviet player's turn. Turns 3 and 4 are mud turns.
"""

from __future__ import annotations

import pytest

import engine
from engine import PlaceUnit, Reason, StandardSetup
from engine.events import GameEnded, PhaseStarted, TurnStarted, UnitPlaced

from bfm_helpers import COUNTERS, legal, pass_phase, pool_ids, refuse

SOVIET_STARS = {"0301", "0302", "0303", "0304", "0405", "0504", "0505", "0506", "0507", "0508", "0509", "0510",
                "0803"}
GERMAN_CROSSES = {"0103", "0104", "0106", "0107", "0201", "0202", "0203", "0204", "0205", "0206", "0209", "0210",
                  "0305", "0306", "0307", "0309", "0310", "0406", "0407", "0408", "0409", "0410"}
PHASES = ["german_replacement", "german_panzer_movement", "german_combat", "german_movement",
          "soviet_replacement", "soviet_rail_movement", "soviet_combat", "soviet_movement"]
TURNS = {1: ("Oct I", "clear"), 2: ("Oct II", "clear"), 3: ("Oct III/IV", "mud"), 4: ("Nov I/II", "mud"),
         5: ("Nov III", "clear"), 6: ("Nov IV", "clear"), 7: ("Dec I", "clear")}
GERMAN_UNITS = {u for u, c in COUNTERS.items() if c.side == "german"}


def units_by_side(game, side):
    return {e["id"]: e for e in game.to_json()["units"] if COUNTERS[e["id"]].side == side}


def test_the_set_up_hexes_of_the_map():
    board = engine.load_scenario("standard").board
    assert {board.ids[h] for h in board.setup_hexes["soviet"]} == SOVIET_STARS
    assert {board.ids[h] for h in board.setup_hexes["german"]} == GERMAN_CROSSES


def test_the_counter_manifest():
    german = {u: (c.full, c.half, c.ma, c.type) for u, c in COUNTERS.items() if c.side == "german"}
    assert german == {
        "XXXIV": (4, 2, 4, "infantry"), "XLII": (4, 2, 4, "infantry"), "VI": (5, 2, 4, "infantry"),
        "XII": (5, 2, 4, "infantry"), "V": (6, 3, 4, "infantry"), "XIII": (6, 3, 4, "infantry"),
        "XX": (6, 3, 4, "infantry"), "XXVII": (6, 3, 4, "infantry"), "LIII": (6, 3, 4, "infantry"),
        "VII": (7, 4, 4, "infantry"), "VIII": (7, 4, 4, "infantry"), "IX": (7, 4, 4, "infantry"),
        "XXII": (8, 4, 4, "infantry"), "XXXV": (8, 4, 4, "infantry"), "XL": (8, 4, 6, "panzer"),
        "XLVIII": (8, 4, 6, "panzer"), "XLVII": (9, 4, 6, "panzer"), "LVI": (9, 4, 6, "panzer"),
        "XLVI": (10, 5, 6, "panzer"), "XXIV": (12, 6, 6, "panzer"), "XLI": (12, 6, 6, "panzer"),
        "LVII": (12, 6, 6, "panzer"),
    }
    armies = {u: (c.full, c.half, c.ma, c.type) for u, c in COUNTERS.items()
              if c.side == "soviet" and c.type == "infantry"}
    assert len(armies) == 17
    assert armies.pop("1st-shock") == (10, 5, 4, "infantry")
    assert set(armies.values()) == {(8, 4, 4, "infantry")}


def test_a_new_game_waits_for_the_german_set_up_with_the_soviets_on_the_stars():
    game = engine.new_game("standard", seed="setup")
    assert game.phase.name == "setup" and game.current_player() == "german" and game.turn == 1
    soviets = units_by_side(game, "soviet")
    assert {e["hex"] for e in soviets.values()} == SOVIET_STARS and len(soviets) == 13
    assert {e["strength"] for e in soviets.values()} == {"half"}
    assert "1st-shock" not in soviets
    assert pool_ids(game) == {"43rd", "49th", "50th", "1st-shock"}
    assert not units_by_side(game, "german")


def test_standard_set_up_puts_22_german_counters_on_the_22_crosses_at_full_strength():
    game = engine.new_game("standard", seed="setup")
    assert StandardSetup() in game.legal_actions()
    events = game.apply(StandardSetup())
    germans = units_by_side(game, "german")
    assert set(germans) == GERMAN_UNITS
    assert {e["hex"] for e in germans.values()} == GERMAN_CROSSES
    assert {e["strength"] for e in germans.values()} == {"full"}
    assert len([e for e in events if isinstance(e, UnitPlaced)]) == 22
    assert game.turn == 1 and game.phase.name == "german_panzer_movement"


def test_the_german_player_may_place_counters_one_at_a_time():
    game = engine.new_game("standard", seed="place")
    crosses = sorted(GERMAN_CROSSES)
    for i in range(22):
        offered = legal(game, PlaceUnit)
        assert {a.hex for a in offered} == set(crosses[i:])
        unit = offered[0].unit
        events = game.apply(PlaceUnit(unit, crosses[i]))
        assert events[0] == UnitPlaced(unit, crosses[i])
        if i == 0:
            refuse(game, StandardSetup(), Reason.SETUP_STARTED)
            refuse(game, PlaceUnit(unit, crosses[5]), Reason.ALREADY_PLACED, unit)
            nxt = legal(game, PlaceUnit)[0].unit
            refuse(game, PlaceUnit(nxt, crosses[0]), Reason.HEX_OCCUPIED, crosses[0])
            refuse(game, PlaceUnit(nxt, "0301"), Reason.NOT_A_SETUP_HEX, "0301")
            refuse(game, PlaceUnit(nxt, "0605"), Reason.NOT_A_SETUP_HEX)
            refuse(game, PlaceUnit("16th", crosses[3]), Reason.NOT_YOUR_UNIT)
    assert game.phase.name == "german_panzer_movement"
    assert {e["hex"] for e in units_by_side(game, "german").values()} == GERMAN_CROSSES


def test_initial_city_control_is_fixed_when_the_set_up_is_complete():
    # ruling 24: with a non-standard set-up, the cities occupied by German units start German
    game = engine.new_game("standard", seed="control")
    order = sorted(GERMAN_CROSSES - {"0204"}) + ["0204"]
    for hex_id in order:
        game.apply(PlaceUnit(legal(game, PlaceUnit)[0].unit, hex_id))
    control = game.to_json()["city_control"]
    assert control["0204"] == "german" and control["0307"] == "german"
    assert control["1103"] == "soviet"


def play_passively():
    game = engine.new_game("standard", seed="sequence")
    events = game.apply(StandardSetup())
    while not game.is_terminal():
        events += pass_phase(game)
    return game, events


def test_seven_turns_of_eight_phases_in_order():
    game, events = play_passively()
    turns = [e for e in events if isinstance(e, TurnStarted)]
    assert [(e.turn, e.dates, e.weather) for e in turns] == [(t, *TURNS[t]) for t in range(1, 8)]
    phases = [(e.turn, e.phase, e.side) for e in events if isinstance(e, PhaseStarted)]
    expected = [(t, p, p.split("_")[0]) for t in range(1, 8) for p in PHASES]
    assert phases == expected
    ended = [e for e in events if isinstance(e, GameEnded)]
    assert len(ended) == 1 and events[-1] == ended[0]
    assert game.turn == 7


def test_the_player_to_act_follows_the_phase():
    game = engine.new_game("standard", seed="players")
    game.apply(StandardSetup())
    seen = set()
    while not game.is_terminal() and game.turn == 1:
        seen.add((game.phase.name, game.current_player()))
        pass_phase(game)
    for phase, player in seen:
        assert player == phase.split("_")[0]


@pytest.mark.parametrize("turn,weather", [(t, w) for t, (_, w) in TURNS.items()])
def test_weather_by_turn(turn, weather):
    game = engine.game_from_position({"turn": turn, "phase": "german_combat",
                                      "units": [{"id": "V", "hex": "0104"}, {"id": "16th", "hex": "1210"}]})
    assert game.weather().id == weather
