"""One test per ruling of engine/RULINGS.md (rulings 1-27: the 7-turn game), named after its number."""

from __future__ import annotations

from fractions import Fraction


import engine
from engine import (
    Advance, ChooseLosses, ChooseRetreat, DeclareAttack, DeclineAdvance,
    EndPhase, Move, Reason, Replace, ResolveBattle, Restore, StandardSetup,
)
from engine.combat import compute_odds, exchange_choices
from engine.events import (
    AttackDeclared, CapitalOccupied, CityCaptured, DeclarationsClosed, DieRolled, GameEnded,
    PhaseStarted, StepLost, UnitAdvanced, UnitEliminated, UnitMoved, UnitReplaced, UnitRetreated,
)

from bfm_helpers import (
    BOARD, advance_to, battle, declare_and_resolve, destinations, distance, is_forest, legal, neighbours,
    of_type, one, pass_phase, pool_ids, position, refuse, strength_of, where, zoc,
)

CRT = engine.load_scenario("standard").crt


def test_ruling_01_temporary_stacking():
    game = position(["16th 1206", "19th 1207", "20th 1306", "V 0104"], phase="soviet_movement")
    # a move onto a friendly unit that can still move away is offered and accepted ...
    assert {"1207", "1306"} <= {a.to for a in legal(game, Move) if a.unit == "16th"}
    game.apply(Move("16th", "1207"))
    # ... the unit underneath must move next and the phase cannot end
    assert game.pending_decision()["stage"] == "unstack"
    refuse(game, EndPhase(), Reason.STACKED_AT_PHASE_END, "1207")
    refuse(game, Move("20th", "1307"), Reason.MUST_MOVE_STACKED_UNIT)
    game.apply(Move("19th", "1208"))
    game.apply(EndPhase())
    assert (where(game, "16th"), where(game, "19th")) == ("1207", "1208")


def test_ruling_01_two_units_swap_places():
    game = position(["16th 1206", "19th 1207", "V 0104"], phase="soviet_movement")
    assert Move("16th", "1207") in game.legal_actions()
    game.apply(Move("16th", "1207"))
    assert legal(game, Move) and all(a.unit == "19th" for a in legal(game, Move))
    game.apply(Move("19th", "1206"))
    game.apply(EndPhase())
    assert (where(game, "16th"), where(game, "19th")) == ("1207", "1206")


def test_ruling_01_three_units_rotate():
    # VII 0606 -> 0607 (onto VIII), VIII -> 0707 (onto IX), IX -> 0606
    game = position(["VII 0606", "VIII 0607", "IX 0707", "16th 1210"], phase="german_movement")
    game.apply(Move("VII", "0607"))
    assert Move("VIII", "0707") in game.legal_actions()
    game.apply(Move("VIII", "0707"))
    refuse(game, Move("VII", "0608"), Reason.MUST_MOVE_STACKED_UNIT, "IX must move next")
    game.apply(Move("IX", "0606"))
    game.apply(EndPhase())
    assert [where(game, u) for u in ("VII", "VIII", "IX")] == ["0607", "0707", "0606"]


def test_ruling_01_never_onto_a_unit_that_cannot_move_away():
    # 19th has moved already; 20th in 1306 has every neighbour taken or out of its reach
    game = position(["16th 1206", "19th 1207", "V 0104"], phase="soviet_movement")
    game.apply(Move("19th", "1208"))
    assert Move("16th", "1208") not in game.legal_actions()
    refuse(game, Move("16th", "1208"), Reason.HEX_OCCUPIED, "cannot move away")


def test_ruling_01_the_unit_underneath_may_not_end_back_in_its_own_hex():
    game = position(["16th 0305", "19th 0306", "VII 0101"], turn=6, phase="soviet_movement",
                    city_control={"0204": "german"})
    game.apply(Move("19th", "0305"))
    refuse(game, Move("16th", "0305", ("0204", "0305")), Reason.HEX_OCCUPIED, "19th")


def test_ruling_02_each_unit_moves_once_per_movement_phase():
    game = position(["XLVII 0606", "LVI 0202", "V 0104", "16th 1210"], phase="german_panzer_movement")
    game.apply(Move("XLVII", "0607"))
    refuse(game, Move("XLVII", "0608"), Reason.ALREADY_MOVED, "XLVII")
    game.apply(EndPhase())
    assert game.phase.name == "german_movement"
    game.apply(Move("XLVII", "0608"))  # again in phase 4
    refuse(game, Move("XLVII", "0609"), Reason.ALREADY_MOVED)


def test_ruling_03_without_a_path_the_engine_picks_the_most_enemy_cities_then_the_cheapest():
    # XLVII in 0502 to 0602 (next door): a longer path through Rzhev (0601) and Vyazma (0603) is preferred
    game = position(["XLVII 0502", "16th 1210"], phase="german_movement")
    assert "0602" in neighbours("0502")
    events = game.apply(Move("XLVII", "0602"))
    path = one(events, UnitMoved).path
    assert path[-1] == "0602" and {"0601", "0603"} <= set(path)
    assert [e.city for e in of_type(events, CityCaptured)] == [
        {"0601": "Rzhev", "0603": "Vyazma"}[h] for h in path if h in ("0601", "0603")]
    # with no enemy city within reach (every city German), the cheapest path
    game = position(["XLVII 1206", "16th 0101"], phase="german_movement",
                    city_control={BOARD.ids[h]: "german" for h in BOARD.cities})
    events = game.apply(Move("XLVII", "1209"))
    assert len(one(events, UnitMoved).path) == 3


def test_ruling_03_a_destination_only_move_may_pass_back_through_its_start_hex():
    # 0305 to the forest 0405 through Smolensk (0204) within 4 points: only back through 0305
    game = position(["16th 0305", "VII 0101"], turn=6, phase="soviet_movement", city_control={"0204": "german"})
    assert one(game.apply(Move("16th", "0405")), UnitMoved).path == ("0204", "0305", "0405")


def test_ruling_04_every_kind_of_movement_captures_cities():
    # rail movement: through German-held Moscow
    game = position(["16th 1402", "19th 1210", "V 0104"], phase="soviet_rail_movement",
                    city_control={"1103": "german"})
    events = game.apply(Move("16th", "1102", ("1303", "1202", "1103", "1102")))
    assert one(events, CityCaptured) == CityCaptured("Moscow", "1103", "soviet")
    # a retreat: the German V retreats through Soviet-held Vyazma
    game = position(["V 0602", "16th 0601", "19th 0702"], phase="soviet_combat", fixed_dice=[1])
    events = declare_and_resolve(game, ["16th", "19th"], "V")  # 16 v 6: 2:1, roll 1: DR
    through = [a for a in legal(game, ChooseRetreat) if a.path[0] == "0603"]
    assert through
    events = game.apply(through[0])
    assert one(events, CityCaptured) == CityCaptured("Vyazma", "0603", "german")
    # an advance after combat (into Vyazma)
    game = position(["V 0603 half", "16th 0602", "19th 0703"], phase="soviet_combat", fixed_dice=[1],
                    city_control={"0603": "german"})
    declare_and_resolve(game, ["16th", "19th"], "V")
    assert one(game.apply(Advance("16th")), CityCaptured).side == "soviet"
    # a replacement placed in a city: Ryazan (an east-edge entry hex) held by the Germans, which
    # ruleset 2 allows (ruleset 3 does not: ruling 51)
    game = position(["16th 1207", "V 0104"], phase="soviet_replacement", pool=["43rd"],
                    city_control={"1405": "german"}, ruleset=2)
    events = game.apply(Replace("43rd", "1405"))
    assert one(events, CityCaptured) == CityCaptured("Ryazan", "1405", "soviet")


def test_ruling_05_mud_exactly_one_hex_whatever_the_terrain():  # rulesets 1 and 2 (ruleset 3: ruling 50)
    game = position(["16th 1304", "V 0104"], turn=3, phase="soviet_movement", ruleset=2)
    assert is_forest("1303") and "1303" in destinations(game, "16th")
    game.apply(Move("16th", "1303"))
    assert where(game, "16th") == "1303"
    game = position(["XLVII 0606", "16th 1210"], turn=4, phase="german_panzer_movement", ruleset=2)
    assert destinations(game, "XLVII") == set(neighbours("0606"))  # MA 6, still one hex


def test_ruling_06_leaving_a_zoc_directly_into_another():
    game = position(["16th 1207", "V 1108"], phase="soviet_movement")
    assert {"1207", "1208"} <= zoc("1108")
    assert "1208" in destinations(game, "16th")
    refuse(game, Move("16th", "1209", ("1208", "1209")), Reason.STOPPED_BY_ZOC, "1208")
    events = game.apply(Move("16th", "1208", ("1208",)))
    assert one(events, UnitMoved).path == ("1208",)


def test_ruling_06_coming_back_into_the_start_hex_is_entering_it():
    # issue 10: 16th in 0203 is in VII's zone; out to Smolensk (0204) and back into 0203, it stops there
    game = position(["16th 0203", "VII 0103"], turn=6, phase="soviet_movement", city_control={"0204": "german"})
    refuse(game, Move("16th", "0303", ("0204", "0203", "0303")), Reason.STOPPED_BY_ZOC, "0203 (its start hex")
    assert one(game.apply(Move("16th", "0203", ("0204", "0203"))), CityCaptured).city == "Smolensk"


def test_ruling_07_rail_movement_links_costs_enemies_and_zones():
    game = position(["16th 1402", "19th 1210", "V 0104"], phase="soviet_rail_movement")
    game.apply(Move("16th", "1102", ("1303", "1202", "1103", "1102")))  # forest 1303 counts 1
    # an enemy unit on the line blocks it, its zone of control ends the move
    game = position(["16th 1402", "19th 1210", "V 1202"], phase="soviet_rail_movement")
    refuse(game, Move("16th", "1103", ("1303", "1202", "1103")), Reason.ENEMY_OCCUPIED, "1202")
    assert destinations(game, "16th") == {"1303"}
    # not along a link
    refuse(game, Move("16th", "1403", ("1403",)), Reason.NOT_ALONG_RAIL)


def test_ruling_08_attacks_below_1_to_1_may_be_declared_and_roll_no_die():
    game = position(["16th 1207", "VI 1107 half"])
    assert DeclareAttack(("VI",), "16th") in game.legal_actions()
    events = declare_and_resolve(game, ["VI"], "16th")
    assert battle(game, events).column == "below" and battle(game, events).result == "NE"
    assert not of_type(events, DieRolled)


def test_ruling_09_below_the_table_the_levels_go_on_as_1_to_2_1_to_3():
    assert [CRT.column_for(Fraction(a), 10) for a in (10, 9, 5, 4, 3)] == [0, -1, -1, -2, -3]
    # a shift to the right brings 1:2 onto the table, not 1:3
    assert compute_odds(CRT, Fraction(5), 10, left=0, right=1).label(CRT) == "1:1"
    assert compute_odds(CRT, Fraction(4), 10, left=0, right=1).label(CRT) == "below"
    below = compute_odds(CRT, Fraction(3), 4, left=0, right=0)
    assert below.label(CRT) == "below"
    assert compute_odds(CRT, Fraction(3), 4, left=1, right=0).label(CRT) == "below"
    assert compute_odds(CRT, Fraction(3), 4, left=0, right=1).label(CRT) == "1:1"  # back on the table
    assert compute_odds(CRT, Fraction(4), 4, left=1, right=1).label(CRT) == "1:1"
    # in a game: 4 against 4 in forest is 1:1 - 1: below, no effect
    game = position(["16th 1303 half", "XXXIV 1304"])
    assert battle(game, declare_and_resolve(game, ["XXXIV"], "16th")).column == "below"


def test_ruling_10_terrain_is_one_level_the_river_another():
    # no hex of this map combines forest, Moscow and fortification; each alone is one level
    forts = {BOARD.ids[h] for h in BOARD.forts}
    forests = {BOARD.ids[h] for h in range(len(BOARD.ids)) if BOARD.forest[h]}
    assert not forts & forests and "1103" not in forts | forests
    for defender, attacker in [("1303", "1304"), ("1103", "1202"), ("1203", "1202")]:
        game = position([f"16th {defender} half", f"XXIV {attacker}"])
        assert game.battle_odds("16th", ["XXIV"]).shifts == -1
    # a fortification and a river: two levels (combat example 1)
    game = position(["19th 0504 half", "XLVII 0404", "V 0403"])
    assert game.battle_odds("19th", ["XLVII", "V"]).shifts == -2


def test_ruling_11_declarations_one_at_a_time_join_and_close_by_themselves():
    game = position(["16th 1207", "XXIV 1107", "XLI 1108"], fixed_dice=[2])
    events = game.apply(DeclareAttack(("XXIV",), "16th"))
    assert events == [AttackDeclared(("XXIV",), "16th")]
    events = game.apply(DeclareAttack(("XLI",), "16th"))  # joins; nothing left to declare: closed
    assert events == [AttackDeclared(("XLI",), "16th"), DeclarationsClosed(1)]
    assert game.legal_actions() == [ResolveBattle("16th")]
    assert set(battle(game, game.apply(ResolveBattle("16th"))).attackers) == {"XXIV", "XLI"}


def test_ruling_12_each_retreat_hex_is_one_farther():  # rulesets 1 and 2 (ruleset 3: ruling 49)
    game = position(["16th 1207", "XXIV 1107"], fixed_dice=[1], ruleset=2)
    declare_and_resolve(game, ["XXIV"], "16th")
    options = legal(game, ChooseRetreat)
    assert options
    for option in options:
        assert [distance("1207", h) for h in option.path] == [1, 2]
    refuse(game, ChooseRetreat(("1307", "1308")), Reason.NOT_A_CHOICE)  # sideways: 1308 is next to 1207


def test_ruling_13_longer_retreats_only_when_needed_and_only_through_friends():
    friends = ["19th 1306", "20th 1406", "24th 1407", "29th 1309", "30th 1408"]
    game = position(["16th 1207", "XXIV 1107", "XLI 1108", *friends], fixed_dice=[1])
    declare_and_resolve(game, ["XXIV"], "16th")
    friendly = {f.split()[1] for f in friends}
    options = legal(game, ChooseRetreat)
    assert options and all(len(o.path) == 3 and o.path[1] in friendly for o in options)


def test_ruling_14_last_resort_only_when_needed_and_never_ending_in_a_zoc():
    germans = ["XXIV 1107", "XLI 1108", "LVII 1406", "XL 1408"]
    german_zoc = zoc("1107", "1108", "1406", "1408")
    game = position(["16th 1207", *germans], fixed_dice=[1])
    declare_and_resolve(game, ["XXIV"], "16th")
    options = legal(game, ChooseRetreat)
    assert options
    for option in options:
        assert option.path[0] in german_zoc and option.path[-1] not in german_zoc


def test_ruling_15_a_last_resort_costs_one_step_however_many_zoc_hexes():
    # the only retreat from 1207 is 1108, 1008 (both in German ZOC, both held by friends), then 0908
    germans = ["XXIV 1107", "XLI 1306", "LVII 1009", "XL 1309"]
    friends = ["19th 1008", "20th 1308", "24th 1407", "29th 1108", "30th 1006"]
    german_zoc = zoc("1107", "1306", "1009", "1309")
    game = position(["16th 1207", *germans, *friends], fixed_dice=[1])
    events = declare_and_resolve(game, ["XXIV"], "16th")  # 12 v 8: 1:1, roll 1: DR
    retreat = one(events, UnitRetreated)
    assert retreat.path == ("1108", "1008", "0908") and retreat.through_zoc
    assert {"1108", "1008"} <= german_zoc
    assert [e.unit for e in of_type(events, StepLost)] == ["16th"]
    assert where(game, "16th") == "0908" and strength_of(game, "16th") == "half"


def test_ruling_16_exchange_losses_any_minimal_set():
    # 6 + 2 = 8 against 4: 2:1, roll 5: EX; the defender (4) is eliminated: the attacker loses 4 or more
    game = position(["16th 1207 half", "V 1107", "VI 1108 half"], fixed_dice=[5])
    events = declare_and_resolve(game, ["V", "VI"], "16th")
    assert battle(game, events).result == "EX"
    choices = {tuple(sorted(a.units)) for a in legal(game, ChooseLosses)}
    assert choices == {("V", "V"), ("V", "VI")}  # V's two steps count 6; V's step (3) + VI (2) = 5
    # if even every step falls short, everything is lost
    counters = engine.load_scenario("standard").counters
    assert exchange_choices([("VI", counters["VI"], False)], 4) == [("VI",)]
    assert exchange_choices([("VI", counters["VI"], True)], 9) == [("VI", "VI")]


def test_ruling_17_only_a_surviving_attacker_advances_zoc_does_not_stop_it_optional():
    game = position(["16th 1207 half", "V 1107", "VI 1108 half", "19th 1307"], fixed_dice=[5])
    declare_and_resolve(game, ["V", "VI"], "16th")
    game.apply(ChooseLosses(("V", "VI")))  # VI is eliminated, V is flipped
    assert where(game, "VI") is None
    assert set(legal(game)) == {Advance("V"), DeclineAdvance()}
    refuse(game, Advance("VI"), Reason.NOT_A_CHOICE)
    assert "1207" in zoc("1307")
    events = game.apply(Advance("V"))
    assert one(events, UnitAdvanced) == UnitAdvanced("V", "1107", "1207")


def test_ruling_18_a_unit_in_an_enemy_zone_is_in_communication_through_a_free_neighbour():
    game = position(["16th 1208 half", "V 1108"], phase="soviet_replacement", pool=[])
    assert Restore("16th") in game.legal_actions()
    game.apply(Restore("16th"))
    assert strength_of(game, "16th") == "full"


def test_ruling_19_entry_hexes_need_no_communication_and_may_be_in_a_zoc():
    wall = ["XL 1302", "XLVIII 1304", "LVI 1306", "XLVI 1308", "LVII 1310"]
    game = position(["16th 1207", *wall], phase="soviet_replacement", pool=["43rd"])
    offered = {a.hex for a in legal(game, Replace)}
    assert {f"14{r:02d}" for r in range(1, 11)} <= offered
    assert "1405" in zoc("1306")
    game.apply(Replace("43rd", "1405"))
    assert where(game, "43rd") == "1405"


def test_ruling_20_a_unit_eliminated_earlier_in_the_turn_comes_back_at_once_but_not_to_full():
    game = position(["16th 1207 half", "XXIV 1107", "19th 1409 half"], turn=2, fixed_dice=[1], pool=[])
    declare_and_resolve(game, ["XXIV"], "16th")  # 3:1, roll 1: DRL eliminates the half-strength unit
    assert "16th" in pool_ids(game)
    advance_to(game, 2, "soviet_replacement")
    assert Replace("16th", "1405") in game.legal_actions()
    events = game.apply(Replace("16th", "1405"))
    assert one(events, UnitReplaced) == UnitReplaced("16th", "1405")
    refuse(game, Restore("16th"), Reason.REPLACED_THIS_PHASE)


def test_ruling_21_pool_units_give_no_points_every_elimination_counts():
    game = engine.new_game("standard", seed="r21")
    game.apply(StandardSetup())
    assert game.to_json()["elimination_points"] == {"german": 0, "soviet": 0}
    game = position(["16th 1207 half", "XXIV 1107"], fixed_dice=[1], elimination_points={"german": 1, "soviet": 0})
    events = declare_and_resolve(game, ["XXIV"], "16th")  # eliminated a second time
    assert one(events, UnitEliminated).points_to == "german"
    assert game.to_json()["elimination_points"]["german"] == 2


def test_ruling_22_occupying_moscow_means_a_german_unit_there_at_the_end_of_the_soviet_movement_phase():
    game = position(["XLVII 1103", "16th 1210"], turn=2, phase="soviet_movement")
    assert one(pass_phase(game), CapitalOccupied).points == 10
    game = position(["XLVII 1102", "16th 1210"], turn=2, phase="soviet_movement", city_control={"1103": "german"})
    assert not of_type(pass_phase(game), CapitalOccupied)


def test_ruling_23_victory_moscow_points_still_reported():
    game = position(["V 0104", "16th 1210"], turn=7, phase="soviet_movement", options={"victory": "moscow"},
                    elimination_points={"german": 100, "soviet": 0})
    ended = one(pass_phase(game), GameEnded)
    assert ended.winner == "soviet"
    assert (ended.german_points, ended.soviet_points) == (110, 60)
    assert game.result().points == {"german": 110, "soviet": 60}


def test_ruling_24_initial_control_is_fixed_when_the_set_up_is_complete():
    game = engine.new_game("standard", seed="r24")
    crosses = [BOARD.ids[h] for h in BOARD.setup_hexes["german"]]
    assert "0204" in crosses and "0307" in crosses
    for hex_id in crosses:
        game.apply(engine.PlaceUnit(legal(game, engine.PlaceUnit)[0].unit, hex_id))
    city_control = game.to_json()["city_control"]
    assert {h for h, side in city_control.items() if side == "german"} == {"0204", "0307"}


def test_ruling_25_fixed_soviet_set_up_german_one_at_a_time_or_standard():
    first = engine.new_game("standard", seed="a").to_json()["units"]
    second = engine.new_game("standard", seed="b").to_json()["units"]
    assert first == second
    standard = engine.load_scenario("standard").soviet_setup
    assert {(e["id"], e["hex"]) for e in first} == {(u, BOARD.ids[h]) for h, u in standard.items()}
    game = engine.new_game("standard", seed="c")
    actions = game.legal_actions()
    assert StandardSetup() in actions and any(isinstance(a, engine.PlaceUnit) for a in actions)
    game.apply(legal(game, engine.PlaceUnit)[0])
    assert StandardSetup() not in game.legal_actions()


def test_ruling_26_phases_with_nothing_to_decide_end_by_themselves():
    # turn 1 German replacement phase (no points)
    game = engine.new_game("standard", seed="r26")
    events = game.apply(StandardSetup())
    assert PhaseStarted(1, "german_replacement", "german") in events
    assert game.phase.name == "german_panzer_movement"
    # a replacement phase with points but nothing to spend them on, a rail movement phase with no unit
    # on a railroad, a combat phase without possible attacks
    game = position(["16th 1207", "V 0104"], turn=2, phase="german_movement", pool=[])
    events = pass_phase(game)
    assert [e.phase for e in of_type(events, PhaseStarted)] == [
        "soviet_replacement", "soviet_rail_movement", "soviet_combat", "soviet_movement"]
    assert game.phase.name == "soviet_movement"
    # a combat phase once every battle is resolved
    game = position(["16th 1207", "XXIV 1107"], fixed_dice=[2])
    events = declare_and_resolve(game, ["XXIV"], "16th")  # NE
    assert game.phase.name == "german_movement"
    assert PhaseStarted(1, "german_movement", "german") in events


def test_ruling_26_also_for_a_position_loaded_in_such_a_phase():
    game = position(["16th 1207", "V 0104"], phase="soviet_replacement", pool=[])
    assert not game.is_terminal()
    assert game.legal_actions(), "a game in progress offers no legal action"


def test_ruling_27_single_choices_are_taken_by_themselves_advance_is_always_offered():
    # the only attacker takes the AL step by itself
    game = position(["16th 1207", "XXIV 1107"], fixed_dice=[6])  # 12 v 8: 1:1, roll 6: AL
    events = declare_and_resolve(game, ["XXIV"], "16th")
    assert one(events, StepLost).unit == "XXIV" and game.pending_decision() is None
    # the only way to meet an exchange is taken by itself
    game = position(["16th 1207", "XLVII 1107"], fixed_dice=[4])  # 9 v 8: 1:1, roll 4: EX
    events = declare_and_resolve(game, ["XLVII"], "16th")
    assert [e.unit for e in of_type(events, StepLost)] == ["16th", "XLVII"]
    # advancing is offered even to a single attacker
    game = position(["16th 1207 half", "XXIV 1107"], fixed_dice=[1])  # 3:1, roll 1: DRL: eliminated
    declare_and_resolve(game, ["XXIV"], "16th")
    assert set(game.legal_actions()) == {Advance("XXIV"), DeclineAdvance()}


def test_ruling_48_moscow_counts_twenty_in_place_of_five():
    game = position(["16th 1207", "XXIV 1107"])
    control = game.to_json()["city_control"]
    assert control[BOARD.ids[BOARD.capital]] == "soviet"
    soviet_cities = sum(side == "soviet" for side in control.values())
    assert game.victory_points()["soviet"] == 5 * (soviet_cities - 1) + 20


def test_every_ruling_says_since_which_ruleset_it_holds():
    import re
    from pathlib import Path

    text = (Path(engine.__file__).parent / "RULINGS.md").read_text()
    rulings = re.findall(r"^(\d+)\. .*\*\((?:Since ruleset (\d+)[.;]|Rulesets 1 and 2; ruleset 3 reads it as ruling "
                         r"(\d+)\.).*\)\*$", text, re.M)
    numbers = [int(n) for n, _, _ in rulings]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == len(re.findall(r"^\d+\. ", text, re.M))
    assert all(1 <= int(since) <= engine.RULESET for _, since, _ in rulings if since)
    assert {int(n) for n, since, _ in rulings if since == "2"} == {1, 3, 6, 34, 35}  # issue 10
    assert {int(n) for n, since, _ in rulings if since == "3"} == {49, 50, 51}  # issue 30
    assert {int(n): int(by) for n, _, by in rulings if by} == {5: 50, 12: 49}  # read otherwise from ruleset 3


# --- ruleset 3 (issue 30) ------------------------------------------------------------------------------

ISSUE_30_RETREAT = ["LIII 1002 half", "VII 0901 half", "XII 1101 half", "24th 1103 half", "50th 0903"]


def test_ruling_49_a_longer_retreat_ends_two_hexes_away_through_friendly_units():
    # the example of issue 30: standard, turn 5, Soviet combat; a 4 gives DR at 4:1 (12 against 3)
    game = position(ISSUE_30_RETREAT, turn=5, phase="soviet_combat", fixed_dice=[4])
    events = declare_and_resolve(game, ["24th", "50th"], "LIII")
    assert battle(game, events).result == "DR"
    assert not of_type(events, UnitEliminated)
    assert {a.path for a in legal(game, ChooseRetreat)} == {("1001", "0901", "0801"), ("1001", "1101", "1201")}
    assert [distance("1002", h) for h in ("1001", "0901", "0801")] == [1, 2, 2]  # ends two hexes away
    events = game.apply(ChooseRetreat(("1001", "0901", "0801")))
    assert one(events, UnitRetreated) == UnitRetreated("LIII", "1002", ("1001", "0901", "0801"), False)
    assert (where(game, "LIII"), where(game, "VII"), strength_of(game, "LIII")) == ("0801", "0901", "half")
    # a retreat never comes closer than two hexes to its start, nor stops short of an empty hex
    game = position(ISSUE_30_RETREAT, turn=5, phase="soviet_combat", fixed_dice=[4])
    declare_and_resolve(game, ["24th", "50th"], "LIII")
    refuse(game, ChooseRetreat(("1001", "0901")), Reason.NOT_A_CHOICE)  # 0901 holds VII
    refuse(game, ChooseRetreat(("1001", "0901", "0902")), Reason.NOT_A_CHOICE)  # 0902: one hex away, in a ZOC


def test_ruling_49_under_ruleset_2_the_same_battle_eliminates_the_unit():
    game = position(ISSUE_30_RETREAT, turn=5, phase="soviet_combat", fixed_dice=[4], ruleset=2)
    events = declare_and_resolve(game, ["24th", "50th"], "LIII")
    gone = one(events, UnitEliminated)
    assert (gone.unit, gone.cause) == ("LIII", "retreat through enemy zone of control")


def test_ruling_50_in_mud_a_forest_hex_cannot_be_entered():
    # 16th in 1304: 1303 (forest) is next to it; turns 3 and 4 are mud
    for turn in (3, 4):
        game = position(["16th 1304", "V 0104"], turn=turn, phase="soviet_movement")
        assert game.weather().id == "mud" and is_forest("1303")
        assert "1303" not in destinations(game, "16th")
        assert destinations(game, "16th") == {h for h in neighbours("1304") if not is_forest(h)}
        refuse(game, Move("16th", "1303"), Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "1 MA", "forest hex costs 2")
        refuse(game, Move("16th", "1303", ("1303",)), Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "forest hex costs 2")
    # panzers too, whatever their printed allowance (XLVII: 6)
    game = position(["XLVII 0606", "16th 1210"], turn=3, phase="german_panzer_movement")
    assert destinations(game, "XLVII") == {h for h in neighbours("0606") if not is_forest(h)}
    # Soviet rail movement is unaffected by mud, and a forest counts one hex there: 1303 along the rail
    game = position(["16th 1304", "V 0104"], turn=3, phase="soviet_rail_movement")
    assert "1303" in destinations(game, "16th")
    # and in clear weather a forest costs 2 of the allowance as always
    game = position(["16th 1304", "V 0104"], turn=1, phase="soviet_movement")
    assert "1303" in destinations(game, "16th")


def test_ruling_50_in_the_campaign_one_hex_movement_is_no_forest_hex():
    # the campaign's turn record: "Mud Game Turns causes one hex movement per Movement Phase"; a forest hex
    # "counts as two hexes for movement", so it is not the one hex a mud turn allows
    campaign = engine.load_scenario("campaign")
    assert [t for t, info in campaign.turns.items() if info.weather == "mud"] == [3, 4]
    for turn, weather in ((3, None), (4, None), (13, "mud")):  # the track's mud turns, and Variable Weather's
        extra = {"weather": weather} if weather else {}
        for phase, unit, start, friend in (("soviet_movement", "16th", "1304", "3rd 1308"),
                                           ("german_movement", "V", "0605", "VII 0206"),
                                           ("german_panzer_movement", "XLVII", "0605", "XLVI 0210")):
            others = [friend, "V 0104"] if unit == "16th" else [friend, "16th 1210"]
            game = position([f"{unit} {start}"] + others, turn=turn, phase=phase, scenario="campaign", **extra)
            assert game.scenario.id == "campaign" and game.weather().id == "mud"
            forests = {h for h in neighbours(start) if is_forest(h)}
            assert forests, start
            assert destinations(game, unit) == set(neighbours(start)) - forests
            refuse(game, Move(unit, sorted(forests)[0]), Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "forest hex costs 2")
            # one hex per Movement Phase: a unit that moved has no movement left
            game.apply(Move(unit, sorted(set(neighbours(start)) - forests)[0]))
            assert game.phase.name == phase and not destinations(game, unit)
            assert destinations(game, friend.split()[0])
    # Soviet rail movement is unaffected there too
    game = position(["16th 1304", "V 0104"], turn=3, phase="soviet_rail_movement", scenario="campaign")
    assert "1303" in destinations(game, "16th")


def test_ruling_51_no_replacement_in_an_edge_city_the_enemy_controls():
    game = position(["16th 1207", "V 0104"], phase="soviet_replacement", pool=["43rd"],
                    city_control={"1405": "german"})
    offered = {a.hex for a in legal(game, Replace)}
    assert "1405" not in offered and {f"14{r:02d}" for r in range(1, 11) if r != 5} <= offered
    refuse(game, Replace("43rd", "1405"), Reason.NOT_AN_ENTRY_HEX, "Ryazan", "not controlled by the soviet player")
    # a Soviet-controlled Ryazan is an entry hex as before
    game = position(["16th 1207", "V 0104"], phase="soviet_replacement", pool=["43rd"])
    assert Replace("43rd", "1405") in game.legal_actions()
    events = game.apply(Replace("43rd", "1405"))
    assert not of_type(events, CityCaptured) and where(game, "43rd") == "1405"


def test_ruling_51_a_german_ryazan_stays_on_the_edge_communication_is_traced_to():
    # 16th (half strength) in 1305: German zones of control (from 1105, 1307 and 1403) cover every hex
    # around it but Ryazan (1405), an east-edge hex: its communication depends on Ryazan alone
    germans = ["V 1105", "VII 1307", "IX 1403"]
    blocked = zoc("1105", "1307", "1403")
    assert set(neighbours("1305")) - blocked == {"1405"} and "1405" in neighbours("1305")

    def soviet_replacement(*units, **extra):
        return position(["16th 1305 half", *germans, *units], phase="soviet_replacement", **extra)

    # empty and under German control, Ryazan is still an edge hex: 16th is in communication, and restored
    game = soviet_replacement(city_control={"1405": "german"})
    assert game.in_communication("16th") and Restore("16th") in game.legal_actions()
    assert not any(a.hex == "1405" for a in legal(game, Replace))  # though no replacement may enter it
    game.apply(Restore("16th"))
    assert strength_of(game, "16th") == "full"
    # Soviet-controlled, the same
    game = soviet_replacement()
    assert game.in_communication("16th") and Restore("16th") in game.legal_actions()
    # a German unit in Ryazan blocks it: 16th is cut off, and cannot be restored
    game = soviet_replacement("XII 1405")
    assert not game.in_communication("16th")
    refuse(game, Restore("16th"), Reason.NOT_IN_COMMUNICATION, "16th")
    # and its zone of control alone (a German unit in 1406) does the same
    game = soviet_replacement("XII 1406", city_control={"1405": "german"})
    assert not game.in_communication("16th")
    refuse(game, Restore("16th"), Reason.NOT_IN_COMMUNICATION, "16th")
