"""Data files: the map encoding against a transcription of the printed map, and broken data files.

A broken data file must raise ``engine.DataError`` naming the file and the entry at fault. Each test
copies engine/data to a temporary directory, breaks one thing, and loads the copy with
``engine.data.load_scenario_file``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from engine import DataError
from engine.data import DATA_DIR, load_scenario_file

from bfm_helpers import BOARD
from bfm_map import DIRECTION, MAP, toward

def ids(indices) -> set[str]:
    return {BOARD.ids[i] for i in indices}


# --- the map encoding ---------------------------------------------------------------------------

def test_the_transcription_totals():
    assert len(MAP) == 140
    assert sum(h["terrain"] == "forest" for h in MAP.values()) == 25
    assert sum(h["fort"] for h in MAP.values()) == 22
    assert sum(bool(h["city"]) for h in MAP.values()) == 11
    assert sum(len(h["rail"]) for h in MAP.values()) == 2 * 70
    assert sum(len(h["river"]) for h in MAP.values()) == 2 * 57
    assert sum(h["setup"] == "soviet" for h in MAP.values()) == 13
    assert sum(h["setup"] == "german" for h in MAP.values()) == 22


@pytest.mark.parametrize("hex_id", sorted(MAP))
def test_every_hex_matches_the_printed_map(hex_id):
    expected = MAP[hex_id]
    i = BOARD.index[hex_id]
    assert BOARD.forest[i] == (expected["terrain"] == "forest")
    assert BOARD.cities.get(i) == expected["city"]
    assert (i in BOARD.forts) == expected["fort"]
    assert BOARD.setup_side[i] == expected["setup"]
    assert ids(BOARD.rail_links[i]) == expected["rail"]
    assert {n for n in ids(BOARD.neighbours[i]) if BOARD.river_between(i, BOARD.index[n])} == expected["river"]
    assert BOARD.move_cost[i] == (2 if expected["terrain"] == "forest" else 1)


def test_neighbours_follow_the_offset_rule():
    for hex_id in MAP:
        expected = {toward(hex_id, d) for d in DIRECTION} & set(MAP)
        assert ids(BOARD.neighbours[BOARD.index[hex_id]]) == expected
    assert toward("0101", "SE") == "0201" and toward("0202", "N") == "0201"


def test_edges_and_entry_hexes():
    assert ids(BOARD.west_edge) == {f"01{r:02d}" for r in range(1, 11)}
    assert ids(BOARD.east_edge) == {f"14{r:02d}" for r in range(1, 11)}
    assert ids(BOARD.entry["soviet"]) == ids(BOARD.east_edge)
    assert ids(BOARD.entry["german"]) == ids(BOARD.west_edge)
    assert BOARD.ids[BOARD.capital] == "1103"


def test_the_standard_scenario_loads_from_a_copy(tmp_path):
    data = copy_data(tmp_path)
    scenario = load_scenario_file(data / "bfm" / "standard.toml")
    assert scenario.last_turn == 7 and len(scenario.board.ids) == 140


# --- broken files ----------------------------------------------------------------------------------

def copy_data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def edit(path: Path, pattern: str, replacement: str, count: int = 1) -> None:
    text = path.read_text()
    new, made = re.subn(pattern, replacement, text, count=count, flags=re.MULTILINE)
    assert made, f"pattern {pattern!r} not found in {path.name}"
    path.write_text(new)


def counter_block(unit: str) -> str:
    """A pattern matching the [[unit]] block of ``unit`` up to its ``half`` line (group 1)."""
    return r'(id = "' + re.escape(unit) + r'"(?:\n(?!\[\[unit\]\]).*)*?\n)'


def broken(tmp_path: Path, file: str, pattern: str, replacement: str) -> DataError:
    data = copy_data(tmp_path)
    edit(data / "bfm" / file, pattern, replacement)
    with pytest.raises(DataError) as caught:
        load_scenario_file(data / "bfm" / "standard.toml")
    error = caught.value
    assert error.file.endswith(file), f"{error.file} should name {file}"
    assert str(error).startswith(error.file)
    return error


@pytest.mark.parametrize("pattern,replacement,entry", [
    # a rail link listed on one side only
    (r'(\{ id = "0602", terrain = "clear", rail = \[)"N", ', r'\1', "0601"),
    # a river hexside listed on one side only
    (r'(\{ id = "0604", terrain = "forest", river = \[)"N", ', r'\1', "0603"),
    # an unknown terrain
    (r'\{ id = "0207", terrain = "forest"', '{ id = "0207", terrain = "swamp"', "0207"),
    # an unknown direction
    (r'(\{ id = "1406", terrain = "clear", rail = \[)"N"', r'\1"UP"', "1406"),
    # a hex outside the grid
    (r'\{ id = "1410"', '{ id = "1511"', "1511"),
    # a hex listed twice (and so another missing)
    (r'\{ id = "1409"', '{ id = "1408"', "140"),
    # a rail line leading off the map
    (r'\{ id = "0101", terrain = "clear" \}', '{ id = "0101", terrain = "clear", rail = ["N"] }', "0101"),
])
def test_broken_map(tmp_path, pattern, replacement, entry):
    error = broken(tmp_path, "map.toml", pattern, replacement)
    assert entry in error.entry, f"{error.entry!r} should name {entry}"
    assert error.message


@pytest.mark.parametrize("unit,pattern,replacement,entry", [
    ("XLVII", r"half = 4", "half = 9", "XLVII"),         # half strength not below full strength
    ("16th", r'type = "infantry"', 'type = "panzer"', "16th"),   # a Soviet panzer
    ("V", r"ma = 4", "ma = 0", "V"),                   # no movement allowance
    ("XX", r'side = "german"', 'side = "french"', "XX"),   # an unknown side
])
def test_broken_counters(tmp_path, unit, pattern, replacement, entry):
    error = broken(tmp_path, "counters.toml", counter_block(unit) + pattern, r"\1" + replacement)
    assert entry in error.entry


def test_a_counter_listed_twice(tmp_path):
    error = broken(tmp_path, "counters.toml", r'id = "XLII"', 'id = "XXXIV"')
    assert "XXXIV" in error.entry and "twice" in error.message


@pytest.mark.parametrize("pattern,replacement,entry", [
    (r'^3 = \["NE", "NE", "DR", "DRL", "DRL", "DE"\]', '3 = ["NE", "NE", "DR", "DRL", "DRL"]', "3"),
    (r'^4 = \["EX",', '4 = ["XX",', "4"),
    (r'^6 = .*$', "", "results"),
    (r'^columns = .*$', 'columns = ["1:1", "3:1", "2:1", "4:1", "5:1", "6:1"]', "columns"),
    (r'^columns = .*$', 'columns = ["1:1", "2:1", "3:1", "4:1", "5:1", "six"]', "columns"),
])
def test_broken_crt(tmp_path, pattern, replacement, entry):
    error = broken(tmp_path, "crt.toml", pattern, replacement)
    assert entry in error.entry


@pytest.mark.parametrize("pattern,replacement,entry", [
    (r'(turn = 3\ndates = "Oct III/IV"\n)weather = "mud"', r'\1weather = "blizzard"', "turn 3"),
    (r'"0301" = "3rd"', '"0401" = "3rd"', "0401"),                 # a Soviet unit off the stars
    (r'"0301" = "3rd"', '"0301" = "XX"', "0301"),                  # a German unit on a star
    (r'\{ unit = "43rd" \}', '{ unit = "Napoleon" }', "Napoleon"),  # an unknown pool unit
    (r'\{ unit = "43rd" \}', '{ unit = "3rd" }', "3rd"),          # a pool unit also set up
    (r'"0202" = "LVI"', '"0605" = "LVI"', "0605"),                 # a German unit off the crosses
    (r'^turn = 4$', "turn = 3", "turn 3"),                         # a turn listed twice
    (r'elimination = 1', 'elimination = -1', "victory"),
])
def test_broken_scenario(tmp_path, pattern, replacement, entry):
    error = broken(tmp_path, "standard.toml", pattern, replacement)
    assert entry in error.entry


def break_weather(tmp_path) -> DataError:
    data = copy_data(tmp_path)
    edit(data / "bfm" / "weather.toml", r'attack_factor = "1/2"', 'attack_factor = "nothing"')
    with pytest.raises(DataError) as caught:
        load_scenario_file(data / "bfm" / "standard.toml")
    return caught.value


def test_broken_weather_message_names_the_file_and_the_entry(tmp_path):
    error = break_weather(tmp_path)
    assert "weather.toml" in str(error) and "mud" in str(error) and "attack_factor" in str(error)


def test_broken_weather_file_attribute_is_the_file(tmp_path):
    error = break_weather(tmp_path)
    assert error.file.endswith("weather.toml")
    assert "mud" in error.entry


def test_invalid_toml(tmp_path):
    error = broken(tmp_path, "crt.toml", r"^\[results\]$", "[results")
    assert "TOML" in error.message


def test_a_missing_file(tmp_path):
    data = copy_data(tmp_path)
    (data / "bfm" / "counters.toml").unlink()
    with pytest.raises(DataError) as caught:
        load_scenario_file(data / "bfm" / "standard.toml")
    assert caught.value.file.endswith("counters.toml") and "not found" in caught.value.message
