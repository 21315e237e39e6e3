"""Cities, control and victory.

Rules: "Controlled means that your units were the last units in the city; all cities except for those
that start occupied by a German unit are owned by the Soviets at the beginning of the game." "A player
controls a city if his units were the last to move through it." Clarification "Always Use Victory
Points" (New Victory Conditions): 1 VP per enemy unit eliminated from the board, even if replaced
later; 5 VP per controlled city at the end of the game and 20 for Moscow; the Germans get 10 VP if they
occupy Moscow at the end of any Soviet player turn, awarded just once. The most points wins. The
original rule (option ``victory = "moscow"``): "Whoever holds Moscow at the end of the game wins."
"""

from __future__ import annotations

import pytest

import engine
from engine import EndPhase, Move, Reason, Resign, StandardSetup
from engine.events import CapitalOccupied, CityCaptured, GameEnded

from bfm_helpers import advance_to, control, declare_and_resolve, of_type, one, pass_phase, position, refuse, where

CITIES = {
    "0204": "Smolensk", "0307": "Roslavl", "0509": "Bryansk", "0601": "Rzhev", "0603": "Vyazma",
    "0803": "Mozhaisk", "0805": "Kaluga", "0809": "Orel", "1103": "Moscow", "1107": "Tula", "1405": "Ryazan",
}


def test_the_eleven_cities_of_the_map():
    board = engine.load_scenario("standard").board
    assert {board.ids[h]: name for h, name in board.cities.items()} == CITIES
    assert board.ids[board.capital] == "1103"


def test_initial_control_smolensk_and_roslavl_german_the_rest_soviet():
    game = engine.new_game("standard", seed="cities")
    game.apply(StandardSetup())
    city_control = game.to_json()["city_control"]
    assert city_control == {h: ("german" if h in ("0204", "0307") else "soviet") for h in CITIES}


def test_initial_victory_points():
    game = engine.new_game("standard", seed="cities")
    game.apply(StandardSetup())
    # Germans: 2 cities x 5; Soviets: 8 cities x 5 + Moscow 20
    assert game.victory_points() == {"german": 10, "soviet": 60}


# --- control passes to the side whose unit last moved through ---------------------------------------

def test_moving_through_a_city_captures_it():
    # XLVII goes 0503 -> 0603 (Vyazma) -> 0703 (forest) on an explicit path and does not stop in Vyazma
    game = position(["XLVII 0503", "16th 1210"], phase="german_movement")
    assert control(game, "0603") == "soviet"
    events = game.apply(Move("XLVII", "0703", ("0603", "0703")))
    assert one(events, CityCaptured) == CityCaptured("Vyazma", "0603", "german")
    assert control(game, "0603") == "german" and where(game, "XLVII") == "0703"


def test_control_stays_after_the_unit_leaves_and_changes_when_the_enemy_passes():
    game = position(["XLVII 0503", "16th 0502"], phase="german_movement")
    game.apply(Move("XLVII", "0703", ("0603", "0703")))
    advance_to(game, 1, "soviet_movement")
    assert control(game, "0603") == "german"  # nobody is in Vyazma: the Germans were there last
    # 16th enters Vyazma, in XLVII's zone of control, and stops there: Vyazma is Soviet again
    events = game.apply(Move("16th", "0603", ("0503", "0603")))
    assert one(events, CityCaptured) == CityCaptured("Vyazma", "0603", "soviet")
    assert control(game, "0603") == "soviet"


def test_moving_within_own_cities_changes_nothing():
    game = position(["16th 1106", "V 0104"], phase="soviet_movement")
    events = game.apply(Move("16th", "1108", ("1107", "1108")))
    assert not of_type(events, CityCaptured)


def test_control_does_not_change_by_zone_of_control_or_adjacency():
    game = position(["XLVII 0503", "16th 1210"], phase="german_movement")
    game.apply(Move("XLVII", "0602", ("0602",)))  # next to Vyazma, not in it
    assert control(game, "0603") == "soviet"


def test_control_moves_with_each_city_passed():
    # a panzer crossing Vyazma and Mozhaisk in one move takes both
    game = position(["XLVII 0602", "16th 1210"], phase="german_movement")
    events = game.apply(Move("XLVII", "0804", ("0603", "0703", "0803", "0804")))
    assert [e.city for e in of_type(events, CityCaptured)] == ["Vyazma", "Mozhaisk"]


# --- victory points ----------------------------------------------------------------------------

def test_one_point_per_enemy_unit_eliminated():
    game = position(["16th 1207 half", "XXIV 1107"], fixed_dice=[1])  # 3:1, roll 1: DRL eliminates
    before = game.victory_points()
    declare_and_resolve(game, ["XXIV"], "16th")
    after = game.victory_points()
    assert after["german"] == before["german"] + 1 and after["soviet"] == before["soviet"]


def test_city_points_five_each_and_twenty_for_moscow():
    game = position(["V 0104", "16th 1210"], phase="german_movement",
                    city_control={h: "german" for h in CITIES if h != "1103"})
    assert game.victory_points() == {"german": 50, "soviet": 20}
    game = position(["V 0104", "16th 1210"], phase="german_movement", city_control={h: "german" for h in CITIES})
    assert game.victory_points() == {"german": 70, "soviet": 0}


def test_points_for_eliminations_and_cities_add_up():
    game = position(["V 0104", "16th 1210"], phase="german_movement", elimination_points={"german": 3, "soviet": 2})
    assert game.victory_points() == {"german": 13, "soviet": 62}


# --- the Moscow occupation bonus ---------------------------------------------------------------

def end_of_soviet_turn(units, turn=2, **extra):
    game = position(units, turn=turn, phase="soviet_movement", **extra)
    return game, pass_phase(game)


def test_german_occupying_moscow_at_the_end_of_a_soviet_player_turn_scores_10_once():
    game, events = end_of_soviet_turn(["XLVII 1103", "16th 1210"])
    assert one(events, CapitalOccupied) == CapitalOccupied("german", 10)
    assert game.to_json()["capital_bonus"] is True
    assert game.victory_points()["german"] == 10 + 10 + 20  # Smolensk, Roslavl, Moscow, the bonus
    events = advance_to(game, 4, "german_replacement")
    assert not of_type(events, CapitalOccupied)
    assert game.victory_points()["german"] == 40


def test_control_of_moscow_without_a_unit_there_earns_no_bonus():
    game, events = end_of_soviet_turn(["XLVII 1203", "16th 1210"], city_control={"1103": "german"})
    assert not of_type(events, CapitalOccupied)
    assert game.to_json()["capital_bonus"] is False


def test_the_bonus_is_not_given_at_the_end_of_a_german_player_turn():
    game = position(["XLVII 1103", "16th 1210"], turn=2, phase="german_movement")
    events = pass_phase(game)
    assert not of_type(events, CapitalOccupied)
    assert game.phase.name.startswith("soviet")


# --- the end of the game ------------------------------------------------------------------------

def final(units, **extra):
    game, events = end_of_soviet_turn(units, turn=7, **extra)
    assert game.is_terminal()
    return game, one(events, GameEnded)


def test_the_game_ends_after_turn_7_with_points_for_both_sides():
    game, ended = final(["V 0104", "16th 1210"])
    assert (ended.german_points, ended.soviet_points) == (10, 60)
    assert ended.winner == "soviet"
    result = game.result()
    assert result.winner == "soviet" and result.points == {"german": 10, "soviet": 60}
    assert game.current_player() is None and game.legal_actions() == []


def test_the_germans_win_with_more_points():
    game, ended = final(["V 0104", "16th 1210"], city_control={h: "german" for h in CITIES if h != "1103"})
    assert (ended.winner, ended.german_points, ended.soviet_points) == ("german", 50, 20)
    assert game.returns() == {"german": 1.0, "soviet": -1.0}


def test_equal_points_is_a_draw():
    game, ended = final(["V 0104", "16th 1210"], elimination_points={"german": 50, "soviet": 0})
    assert (ended.winner, ended.german_points, ended.soviet_points) == ("draw", 60, 60)
    assert game.returns() == {"german": 0.0, "soviet": 0.0}


def test_the_bonus_counts_at_the_end_of_turn_7():
    game, ended = final(["XLVII 1103", "16th 1210"])
    assert ended.german_points == 10 + 20 + 10 and ended.soviet_points == 40


def test_victory_option_moscow_whoever_holds_moscow_wins():
    options = {"victory": "moscow"}
    game, ended = final(["V 0104", "16th 1210"], options=options,
                        city_control={h: "german" for h in CITIES if h != "1103"})
    assert ended.winner == "soviet"  # fewer points, but Moscow
    assert (ended.german_points, ended.soviet_points) == (50, 20)  # points are still reported (ruling 23)
    game, ended = final(["XLVII 1103", "16th 1210"], options=options)
    assert ended.winner == "german"


def test_no_action_after_the_end():
    game, _ = final(["V 0104", "16th 1210"])
    refuse(game, EndPhase(), Reason.GAME_OVER)
    refuse(game, Resign("german"), Reason.GAME_OVER)


# --- resigning ------------------------------------------------------------------------------------

@pytest.mark.parametrize("side,winner", [("german", "soviet"), ("soviet", "german")])
def test_resign_the_other_side_wins(side, winner):
    game = engine.new_game("standard", seed="resign")
    game.apply(StandardSetup())
    assert game.current_player() == "german"
    events = game.apply(Resign(side))  # accepted whoever is to act
    ended = one(events, GameEnded)
    assert ended.winner == winner and game.result().winner == winner
    assert (ended.german_points, ended.soviet_points) == (10, 60)
    assert game.is_terminal()


def test_resign_with_a_bad_side_is_refused():
    game = position(["V 0104", "16th 1210"], phase="german_movement")
    refuse(game, Resign("french"), Reason.MALFORMED_ACTION)
