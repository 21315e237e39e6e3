"""The strength script (benchmarks/bot_strength.py): players, intervals, and a tiny series through the
real service."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bot_strength.py"


@pytest.fixture(scope="module")
def strength():
    spec = importlib.util.spec_from_file_location("bot_strength", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bot_strength"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules["bot_strength"]


def test_players_are_names_with_parameters(strength):
    player = strength.Player.parse("search:level=2,horizon=1")
    assert player.name == "search" and player.param_dict() == {"level": 2, "horizon": 1}
    assert str(player) == "search:level=2,horizon=1"
    assert str(strength.Player.parse("heuristic")) == "heuristic"
    with pytest.raises(ValueError, match="unknown strategy parameter"):
        strength.Player.parse("search:levle=2")
    with pytest.raises(ValueError, match="key=value"):
        strength.Player.parse("search:level")


def test_wilson_interval_is_scipys(strength):
    low, high = strength.wilson(0, 40)
    assert low == 0.0 and 0.08 < high < 0.09
    low, high = strength.wilson(40, 40)
    assert 0.91 < low < 0.92 and high == pytest.approx(1.0)
    assert strength.wilson(0, 0) == (0.0, 1.0)


def test_a_pairing_is_played_on_both_sides_and_tabled(strength, typhoon_target, capsys, tmp_path):
    out = tmp_path / "records.json"
    code = strength.main(["--server", typhoon_target, "--games", "1", "--parallel", "2", "--pair",
                          "heuristic/random", "--json", str(out), "--timeout", "300"])  # a stuck match fails, not hangs
    assert code == 0
    table = capsys.readouterr().out
    lines = [line for line in table.splitlines() if line.startswith("| heuristic")]
    assert len(lines) == 2
    sides = [line.split("|")[3].strip() for line in lines]
    assert sides == ["german", "soviet"]
    assert all(line.split("|")[4].strip() in ("0/1", "1/1") for line in lines)
    assert "1 match per side" in table
    import json

    records = json.loads(out.read_text())
    assert len(records) == 2 and {r["player_side"] for r in records} == {"german", "soviet"}


def test_one_side_only(strength, typhoon_target, capsys):
    code = strength.main(["--server", typhoon_target, "--games", "1", "--side", "soviet", "--pair", "heuristic/random"])
    assert code == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| heuristic")]
    assert [line.split("|")[3].strip() for line in lines] == ["soviet"]
