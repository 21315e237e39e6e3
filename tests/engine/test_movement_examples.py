"""Movement: the rules' movement example (paths A-F) on real hexes, and the movement restrictions.

Rules, "Movement": a unit has a movement allowance (MA), the number of hexes it can move in one phase;
a forest hex counts as two hexes. A unit entering an enemy zone of control must immediately end its
movement phase. A unit can never enter a hex containing an enemy unit; it can enter a hex containing
a friendly unit, but only one unit may be in a hex at the end of the phase.

The example uses a Soviet infantry army (MA 4) in the Soviet movement phase of a clear turn. The
hexes used (see the map table):

* 1206-1210 and 1304-1310: clear; 1303 is forest; 1302 lies straight north of 1303, so the only
  4-hex way from 1306 to 1302 goes through the forest.
"""

from __future__ import annotations

import pytest

from engine import EndPhase, Move, Reason
from engine.events import CityCaptured, PhaseStarted, UnitMoved

from bfm_helpers import (
    BOARD, destinations, distance, is_forest, legal, neighbours, one, position, refuse, where, zoc,
)

FAR_GERMAN = "XX 0101"  # a German unit far away from the example, so that the game has both sides


def soviet_move_phase(*units: str, turn: int = 1):
    return position([*units, FAR_GERMAN], turn=turn, phase="soviet_movement")


def test_the_example_hexes_are_what_the_map_says():
    for hex_id in ("1206", "1207", "1208", "1209", "1210", "1304", "1305", "1306", "1307", "1308",
                   "1309", "1310", "1302"):
        assert not is_forest(hex_id), hex_id
    assert is_forest("1303")
    assert neighbours("1306")[0] == "1305" and neighbours("1305")[0] == "1304"
    assert neighbours("1304")[0] == "1303" and neighbours("1303")[0] == "1302"
    assert distance("1306", "1302") == 4


# --- path A: four clear hexes --------------------------------------------------------------------------

def test_path_a_four_clear_hexes():
    game = soviet_move_phase("16th 1206")
    assert "1210" in destinations(game, "16th")
    events = game.apply(Move("16th", "1210", ("1207", "1208", "1209", "1210")))
    moved = one(events, UnitMoved)
    assert moved == UnitMoved("16th", "1206", ("1207", "1208", "1209", "1210"))
    assert where(game, "16th") == "1210"


def test_path_a_a_fifth_clear_hex_is_beyond_the_allowance():
    game = soviet_move_phase("16th 1306")
    # the way round the forest (1403, 1402 are clear) is five clear hexes long
    refuse(game, Move("16th", "1302", ("1305", "1304", "1403", "1402", "1302")),
           Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "1302")


# --- path B: the third hex is forest: it counts two and the unit must stop ---------------------------

def test_path_b_forest_third_hex_counts_two_and_the_unit_stops_there():
    game = soviet_move_phase("16th 1306")
    assert "1303" in destinations(game, "16th")
    events = game.apply(Move("16th", "1303", ("1305", "1304", "1303")))
    assert one(events, UnitMoved).path == ("1305", "1304", "1303")
    assert where(game, "16th") == "1303"


def test_path_b_cannot_go_on_after_the_forest_hex():
    game = soviet_move_phase("16th 1306")
    for beyond in ("1302", "1202", "1402"):
        refuse(game, Move("16th", beyond, ("1305", "1304", "1303", beyond)), Reason.MOVEMENT_ALLOWANCE_EXCEEDED,
               beyond)


# --- path C: enemy zone of control in the first hex ------------------------------------------------

def test_path_c_enemy_zoc_in_the_first_hex_stops_the_unit():
    game = soviet_move_phase("16th 1206", "XLVII 1208")
    assert "1207" in zoc("1208") and "1206" not in zoc("1208")
    assert "1207" in destinations(game, "16th")
    refuse(game, Move("16th", "1307", ("1207", "1307")), Reason.STOPPED_BY_ZOC, "1207")
    refuse(game, Move("16th", "1107", ("1207", "1107")), Reason.STOPPED_BY_ZOC)
    events = game.apply(Move("16th", "1207", ("1207",)))
    assert one(events, UnitMoved).path == ("1207",)


def test_path_c_nothing_beyond_a_zoc_hex_is_offered_through_it():
    # Every neighbour of 1206 lies in the ZOC of a German unit two hexes away: whatever the first hex,
    # the unit stops there, so only the six neighbours are offered.
    game = soviet_move_phase("16th 1206", "XLVII 1208", "LVI 1204", "XLI 1406", "XL 1006")
    first_ring = set(neighbours("1206"))
    german_zoc = zoc("1208", "1204", "1406", "1006")
    assert first_ring <= german_zoc
    assert not first_ring & {"1208", "1204", "1406", "1006"}
    assert destinations(game, "16th") == first_ring


# --- path D: enemy zone of control in the second hex -----------------------------------------------

def test_path_d_enemy_zoc_in_the_second_hex_stops_the_unit():
    game = soviet_move_phase("16th 1206", "XLVII 1209")
    assert "1207" not in zoc("1209") and "1208" in zoc("1209")
    assert "1208" in destinations(game, "16th")
    refuse(game, Move("16th", "1308", ("1207", "1208", "1308")), Reason.STOPPED_BY_ZOC, "1208")
    events = game.apply(Move("16th", "1208", ("1207", "1208")))
    assert one(events, UnitMoved).path == ("1207", "1208")


# --- path E: ends in an enemy ZOC in its fourth hex, allowance used up ------------------------------

def test_path_e_ends_in_enemy_zoc_in_its_fourth_hex():
    game = soviet_move_phase("16th 1306", "XLVII 1410")
    path = ("1307", "1308", "1309", "1310")
    assert not any(h in zoc("1410") for h in path[:3]) and "1310" in zoc("1410")
    assert "1310" in destinations(game, "16th")
    events = game.apply(Move("16th", "1310", path))
    assert one(events, UnitMoved).path == path


# --- path F: impossible, it needs five (forest counts two) -----------------------------------------

def test_path_f_is_impossible_it_would_need_five():
    game = soviet_move_phase("16th 1306")
    assert "1302" not in destinations(game, "16th")
    refuse(game, Move("16th", "1302", ("1305", "1304", "1303", "1302")), Reason.MOVEMENT_ALLOWANCE_EXCEEDED,
           "5")
    # without a path the engine names the same rule
    refuse(game, Move("16th", "1302"), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)


# --- which units move in which phase ------------------------------------------------------------

def test_only_panzers_move_in_the_panzer_movement_phase():
    game = position(["XLVII 0406", "V 0407", "16th 1206"], phase="german_panzer_movement")
    movers = {a.unit for a in legal(game, Move)}
    assert movers == {"XLVII"}
    refuse(game, Move("V", "0507"), Reason.CANNOT_MOVE_THIS_PHASE, "V")


def test_panzers_that_moved_in_phase_2_move_again_in_phase_4():
    game = position(["XLVII 0406", "LVI 0202", "V 0407", "16th 1206"], phase="german_panzer_movement")
    game.apply(Move("XLVII", "0606"))
    assert game.phase.name == "german_panzer_movement"
    refuse(game, Move("XLVII", "0607"), Reason.ALREADY_MOVED, "XLVII")  # ruling 2: once per phase
    events = game.apply(EndPhase())
    assert game.phase.name == "german_movement"  # no combat possible: the combat phase ends by itself
    assert [e.phase for e in events if isinstance(e, PhaseStarted)] == ["german_combat", "german_movement"]
    assert {a.unit for a in legal(game, Move)} == {"XLVII", "LVI", "V"}
    game.apply(Move("XLVII", "0706"))
    assert where(game, "XLVII") == "0706"


def test_infantry_ma_4_and_panzer_ma_6():
    game = position(["XLVII 0606", "V 0707", "16th 1210"], phase="german_movement")
    assert max(distance("0606", h) for h in destinations(game, "XLVII")) == 6
    assert max(distance("0707", h) for h in destinations(game, "V")) == 4


def test_the_soviet_player_cannot_move_german_units():
    game = soviet_move_phase("16th 1206")
    refuse(game, Move("XX", "0102"), Reason.NOT_YOUR_UNIT, "XX")


# --- restrictions -----------------------------------------------------------------------------------

def test_a_unit_never_enters_an_enemy_occupied_hex():
    game = soviet_move_phase("16th 1206", "XLVII 1208")
    assert "1208" not in destinations(game, "16th")
    refuse(game, Move("16th", "1208"), Reason.ENEMY_OCCUPIED, "1208", "XLVII")
    # nor passes through one (1307 is in ZOC too, so the first refusal names the enemy hex)
    game2 = soviet_move_phase("16th 1206", "XLVII 1207")
    refuse(game2, Move("16th", "1208", ("1207", "1208")), Reason.ENEMY_OCCUPIED, "1207")


def test_a_unit_may_pass_through_friendly_units():
    game = soviet_move_phase("16th 1206", "19th 1207", "20th 1208")
    events = game.apply(Move("16th", "1209", ("1207", "1208", "1209")))
    assert one(events, UnitMoved).path == ("1207", "1208", "1209")
    assert where(game, "19th") == "1207" and where(game, "20th") == "1208"


def test_friendly_units_do_not_block_the_destinations_offered():
    # 1210's only ways lie past 1207-1209 (all friendly): it is still offered
    game = soviet_move_phase("16th 1206", "19th 1207", "20th 1208", "24th 1209")
    assert "1210" in destinations(game, "16th")
    # onto a friendly unit only as a step of a swap or a rotation: that unit must move next
    assert destinations(game, "16th") >= {"1207", "1208", "1209"}


def test_a_unit_may_always_leave_an_enemy_zoc():
    game = soviet_move_phase("16th 1207", "XLVII 1208")
    assert "1207" in zoc("1208")
    events = game.apply(Move("16th", "1204", ("1206", "1205", "1204")))
    assert one(events, UnitMoved).path == ("1206", "1205", "1204")


# --- stacking at the end of the phase (ruling 1) ------------------------------------------------------

def test_ending_on_a_friendly_unit_forces_it_to_move_and_blocks_the_phase_end():
    game = soviet_move_phase("16th 1206", "19th 1207", "20th 1306")
    game.apply(Move("16th", "1207", ("1207",)))
    decision = game.pending_decision()
    assert decision == {"stage": "unstack", "hex": "1207", "unit": "19th", "mover": "16th"}
    error = refuse(game, EndPhase(), Reason.STACKED_AT_PHASE_END, "1207")
    assert "19th" in error.message and "16th" in error.message
    refuse(game, Move("20th", "1307"), Reason.MUST_MOVE_STACKED_UNIT, "19th")
    assert {a.unit for a in legal(game, Move)} == {"19th"}
    assert EndPhase() not in game.legal_actions()
    game.apply(Move("19th", "1208"))
    assert game.pending_decision() is None
    assert where(game, "16th") == "1207" and where(game, "19th") == "1208"
    assert EndPhase() in game.legal_actions()


def test_a_unit_cannot_end_on_a_friendly_unit_that_already_moved():
    game = soviet_move_phase("16th 1206", "19th 1306", "20th 1308")
    game.apply(Move("19th", "1207"))
    refuse(game, Move("16th", "1207"), Reason.HEX_OCCUPIED, "1207")


def test_an_infantry_unit_cannot_be_the_one_underneath_in_the_panzer_phase():
    game = position(["XLVII 0606", "V 0607", "16th 1210"], phase="german_panzer_movement")
    refuse(game, Move("XLVII", "0607"), Reason.HEX_OCCUPIED, "0607")


# --- mud: one hex per phase (turns 3 and 4) -----------------------------------------------------------

@pytest.mark.parametrize("turn", [3, 4])
def test_mud_one_hex_per_phase(turn):
    game = soviet_move_phase("16th 1304", turn=turn)
    assert game.weather().id == "mud"
    # "Units at 1 MA": one clear hex; the forest 1303 costs 2 (ruling 50)
    assert destinations(game, "16th") == {h for h in neighbours("1304") if not is_forest(h)}
    refuse(game, Move("16th", "1306", ("1305", "1306")), Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "1306")
    refuse(game, Move("16th", "1303"), Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "forest hex costs 2")


@pytest.mark.parametrize("turn", [3, 4])
def test_mud_one_hex_per_phase_whatever_the_terrain_under_ruleset_2(turn):
    game = position([("16th 1304"), FAR_GERMAN], turn=turn, phase="soviet_movement", ruleset=2)
    assert destinations(game, "16th") == set(neighbours("1304"))
    refuse(game, Move("16th", "1306", ("1305", "1306")), Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "one hex per phase")


def test_mud_panzers_move_one_hex_too():
    game = position(["XLVII 0606", "16th 1210"], turn=3, phase="german_panzer_movement")
    assert destinations(game, "XLVII") == set(neighbours("0606"))


@pytest.mark.parametrize("turn,expected", [(2, 4), (5, 4), (6, 4), (7, 4)])
def test_clear_turns_are_not_mud(turn, expected):
    game = soviet_move_phase("16th 1206", turn=turn)
    assert max(distance("1206", h) for h in destinations(game, "16th")) == expected


# --- Soviet rail movement ----------------------------------------------------------------------------
# The Moscow-Ryazan line: 1402 - 1303 (forest) - 1202 - 1103 (Moscow) - 1102 - 1201 (forest) - 1302.

RAIL_PATH = ("1303", "1202", "1103", "1102")


def rail_phase(*units: str, turn: int = 1):
    return position([*units, FAR_GERMAN], turn=turn, phase="soviet_rail_movement")


def rail_links(hex_id: str) -> set[str]:
    return {BOARD.ids[n] for n in BOARD.rail_links[BOARD.index[hex_id]]}


def test_the_rail_line_of_the_example():
    assert is_forest("1303")
    assert rail_links("1402") == {"1303"}
    assert rail_links("1303") == {"1402", "1202"}
    assert rail_links("1202") == {"1303", "1103"}
    assert rail_links("1103") == {"1102", "1202", "1203", "1104", "1003", "1002"}


@pytest.mark.parametrize("turn", [1, 3])
def test_rail_movement_forest_counts_one_and_mud_does_not_matter(turn):
    game = rail_phase("16th 1402", "19th 1210", turn=turn)
    assert "1102" in destinations(game, "16th")
    events = game.apply(Move("16th", "1102", RAIL_PATH))
    assert one(events, UnitMoved).path == RAIL_PATH


def test_rail_movement_allowance_is_still_four():
    game = rail_phase("16th 1402", "19th 1210")
    refuse(game, Move("16th", "1201", RAIL_PATH + ("1201",)), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)
    assert "1201" not in destinations(game, "16th")


def test_rail_movement_only_for_units_starting_on_a_rail_hex():
    game = rail_phase("16th 1402", "19th 1306")
    assert {a.unit for a in legal(game, Move)} == {"16th"}
    refuse(game, Move("19th", "1305"), Reason.CANNOT_MOVE_THIS_PHASE, "19th")


def test_rail_movement_only_along_rail_links():
    game = rail_phase("16th 1402", "19th 1210")
    # 1302 is next to 1402 and is a rail hex, but no rail line links the two
    assert "1302" in neighbours("1402")
    refuse(game, Move("16th", "1302", ("1302",)), Reason.NOT_ALONG_RAIL, "1302")
    refuse(game, Move("16th", "1403", ("1403",)), Reason.NOT_ALONG_RAIL)
    assert destinations(game, "16th") == {"1303", "1202", "1103", "1102", "1203", "1104", "1003", "1002"}


def test_rail_movement_stops_on_entering_enemy_zoc():
    game = rail_phase("16th 1402", "XLVII 1104")
    assert "1103" in zoc("1104")
    assert "1102" not in destinations(game, "16th")
    refuse(game, Move("16th", "1102", RAIL_PATH), Reason.STOPPED_BY_ZOC, "1103")


def test_units_that_rail_moved_may_move_again_in_the_soviet_movement_phase():
    game = rail_phase("16th 1402", "19th 1210")
    game.apply(Move("16th", "1102", RAIL_PATH))
    # no other unit may rail-move and no attack is possible: both phases ended by themselves
    assert game.phase.name == "soviet_movement"
    assert "16th" in {a.unit for a in legal(game, Move)}
    game.apply(Move("16th", "1101"))
    assert where(game, "16th") == "1101"


def test_rail_movement_is_only_for_the_soviet_rail_phase():
    # in the Soviet movement phase the same unit moves normally: forest costs 2
    game = soviet_move_phase("16th 1402", "19th 1210")
    refuse(game, Move("16th", "1102", RAIL_PATH), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)


# --- random positions: the destinations offered match the rules, computed independently ------------

import heapq  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bfm_map import MAP, forest, my_neighbours  # noqa: E402

ALL_HEXES = sorted(MAP)
SOVIET_ARMIES = ["19th", "20th", "24th", "29th", "30th"]
GERMAN_CORPS = ["XL", "V", "XLI", "VI", "XX", "LVII"]
PANZER_CORPS = {"XL", "XLI", "LVII"}


def expected_destinations(start: str, ma: int, friendly: set[str], enemy: set[str], mode: str) -> set[str]:
    """Where a unit may end its move, from the rules: costs by terrain (forest 2), one hex in mud, rail
    links and cost 1 in rail movement; never into an enemy unit; entering an enemy ZOC ends the move;
    friendly units may be passed through but not ended on (see ``expected_hosts`` for swaps)."""
    enemy_zoc = {n for h in enemy for n in my_neighbours(h)}
    if mode == "rail":
        links = lambda h: MAP[h]["rail"]  # noqa: E731
        cost = lambda h: 1  # noqa: E731
    else:
        links = my_neighbours
        cost = lambda h: 2 if forest(h) else 1  # noqa: E731 (in mud too: ruling 50)
        ma = 1 if mode == "mud" else ma
    best = {start: 0}
    queue = [(0, start)]
    while queue:
        spent, here = heapq.heappop(queue)
        if spent > best[here] or (here != start and here in enemy_zoc):
            continue
        for nxt in links(here):
            total = spent + cost(nxt)
            if nxt in enemy or total > ma or best.get(nxt, ma + 1) <= total:
                continue
            best[nxt] = total
            heapq.heappush(queue, (total, nxt))
    return {h for h in best if h != start and h not in friendly}


def expected_hosts(friendly: dict[str, int], enemy: set[str], mode: str) -> set[str]:
    """The hexes of ``friendly`` units (hex → movement allowance, None when the unit may not move in
    this phase) a unit may end its move on, as a step of a swap or a rotation: the unit there would have
    an empty hex to go to (the mover's start among them)."""
    hosts = set()
    for here, ma in friendly.items():
        if ma is None or (mode == "rail" and not MAP[here]["rail"]):
            continue
        if expected_destinations(here, ma, set(friendly) - {here}, enemy, mode):
            hosts.add(here)
    return hosts


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(["normal", "mud", "rail", "panzer"]))
def test_destinations_match_the_rules_in_random_positions(rnd, mode):
    rail_hexes = [h for h in ALL_HEXES if MAP[h]["rail"]]
    start = rnd.choice(rail_hexes if mode == "rail" else ALL_HEXES)
    near = sorted({n for a in my_neighbours(start) for b in my_neighbours(a) for n in my_neighbours(b)} - {start})
    near += rnd.sample(ALL_HEXES, 6)
    others = list(dict.fromkeys(h for h in rnd.sample(near, min(len(near), rnd.randint(0, 10))) if h != start))
    split = rnd.randint(0, len(others))
    friendly, enemy = others[:split][:5], others[split:][:5]
    if mode == "panzer":  # a German panzer moving among Soviet units, in the panzer phase of a clear turn
        units = [f"XLVII {start}"] + [f"{u} {h}" for u, h in zip(GERMAN_CORPS, friendly)]
        units += [f"{u} {h}" for u, h in zip(SOVIET_ARMIES, enemy)]
        game = position(units, turn=1, phase="german_panzer_movement")
        mover, ma, rules = "XLVII", 6, "normal"
        friendly_ma = {h: 6 if u in PANZER_CORPS else None for u, h in zip(GERMAN_CORPS, friendly)}
    else:
        units = [f"16th {start}"] + [f"{u} {h}" for u, h in zip(SOVIET_ARMIES, friendly)]
        units += [f"{u} {h}" for u, h in zip(GERMAN_CORPS, enemy)]
        turn = 3 if mode == "mud" else rnd.choice([1, 3]) if mode == "rail" else 1
        phase = "soviet_rail_movement" if mode == "rail" else "soviet_movement"
        game = position(units, turn=turn, phase=phase)
        mover, ma, rules = "16th", 4, mode
        friendly_ma = {h: 4 for h in friendly}
    expected = expected_destinations(start, ma, set(friendly), set(enemy), rules)
    onto_friends = expected_destinations(start, ma, set(), set(enemy), rules) & set(friendly)
    hosts = onto_friends & expected_hosts(friendly_ma, set(enemy), rules)
    assert destinations(game, mover) == expected | hosts
    # every offered move is accepted, along a path the rules allow
    enemy_zoc = {n for h in enemy for n in my_neighbours(h)}
    for hex_id in sorted(expected)[:4]:
        twin = game.clone()
        moved = one(twin.apply(Move(mover, hex_id)), UnitMoved)
        path = moved.path
        assert path[-1] == hex_id and moved.start == start
        steps = list(zip((start,) + path, path))
        links = (lambda h: MAP[h]["rail"]) if rules == "rail" else my_neighbours  # noqa: E731
        assert all(b in links(a) for a, b in steps)
        assert not set(path) & set(enemy)
        assert not set(path[:-1]) & enemy_zoc
        cost = len(path) if rules in ("rail", "mud") else sum(2 if forest(h) else 1 for h in path)
        assert cost <= (1 if rules == "mud" else ma)
        again = game.clone()
        again.apply(Move(mover, hex_id, path))
        assert again.state_hash() == twin.state_hash()


def test_a_move_named_by_its_destination_may_step_into_a_city_and_back():
    # ruling 3: the path through the most enemy-controlled cities; "Units move ... from hex to hex, in
    # any direction", so a path may enter a hex twice: 0306 -> 0305 -> 0204 (Smolensk) -> 0305
    game = soviet_move_phase("16th 0306")
    twin = game.clone()
    events = game.apply(Move("16th", "0305"))
    assert one(events, UnitMoved).path == ("0305", "0204", "0305")
    assert one(events, CityCaptured) == CityCaptured("Smolensk", "0204", "soviet")
    # the same path named explicitly is the same move
    twin.apply(Move("16th", "0305", ("0305", "0204", "0305")))
    assert twin.state_hash() == game.state_hash()


def test_a_path_entering_a_hex_twice_pays_for_each_entry():
    game = soviet_move_phase("16th 0306")
    refuse(game, Move("16th", "0305", ("0305", "0204", "0305", "0204", "0305")),
           Reason.MOVEMENT_ALLOWANCE_EXCEEDED, "5")
    # forest twice: 1304 -> 1303 (2) -> 1304 (1) -> 1303 (2) is 5
    game = soviet_move_phase("16th 1304")
    refuse(game, Move("16th", "1303", ("1303", "1304", "1303")), Reason.MOVEMENT_ALLOWANCE_EXCEEDED)


def test_a_move_may_pass_through_an_enemy_city_on_the_way_to_its_destination():
    # 0306 -> 0305 -> 0204 (Smolensk, German) -> 0205: the destination-only move takes Smolensk
    game = soviet_move_phase("16th 0306")
    events = game.apply(Move("16th", "0205"))
    assert one(events, UnitMoved).path == ("0305", "0204", "0205")
    assert one(events, CityCaptured).city == "Smolensk"
