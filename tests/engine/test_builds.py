"""The engine's two builds (engine/builds.py): the same typed source runs as Python or compiled by mypyc, the
compiled modules only ever for the very sources they were built from, and both play identically.

The golden corpus replays on both (test_golden.py); here both builds play the same random games —
standard and campaign, every option, both rulesets — and every legal-action listing, event and state hash
along them is compared.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine import builds
from engine_builds import ROOT, ensure_compiled

GAMES = [("standard", "", "builds-a", 6, 2), ("standard", "", "builds-b", 6, 3),
         ("campaign", "all", "builds-c", 2, 3), ("campaign", "war_of_attrition", "builds-d", 2, 2),
         ("standard", "variable_weather,harsher_winter,soviet_replacements=3", "builds-e", 4, 3)]


@pytest.mark.parametrize("scenario, options, seed, games, ruleset", GAMES)
def test_both_builds_play_the_same_games(scenario, options, seed, games, ruleset, engine_builds):
    played = {build: engine_builds[build].ask("random_games", scenario=scenario, options=options, seed=seed,
                                              games=games, ruleset=ruleset) for build in ("pure", "compiled")}
    assert played["pure"]["actions"] > 100 * games
    assert played["compiled"] == played["pure"]


@pytest.mark.parametrize("build", ["pure", "compiled"])
def test_a_game_pickles_and_copies_as_its_position_in_both_builds(build, engine_builds):
    """copy, deepcopy and pickle give the game its position describes (a compiled game has no __dict__;
    OpenSpiel serializes its states with pickle)."""
    copied = engine_builds[build].ask("copies", seed="copies")
    assert copied["problems"] == [] and copied["steps"] > 200


def test_the_compiled_build_loads_from_the_installation_and_the_pure_one_from_the_sources(engine_builds):
    compiled, pure = engine_builds["compiled"].where, engine_builds["pure"].where
    assert Path(compiled["game"]).is_relative_to(builds.builds_root()) and compiled["game"].endswith(".so")
    assert pure["game"] == str(ROOT / "engine" / "game.py")
    assert compiled["package"] == pure["package"] == str(ROOT / "engine" / "__init__.py")
    assert not [p.name for p in (ROOT / "engine").iterdir() if p.suffix in (".so", ".pyd", ".c")]


def sources_copy(tmp_path: Path) -> Path:
    copied = tmp_path / "engine"
    copied.mkdir()
    for path in (ROOT / "engine").glob("*.py"):
        shutil.copy(path, copied / path.name)
    return copied


def fake_build(environ: dict[str, str], sources: Path) -> Path:
    built = builds.build_dir(environ, sources)
    built.mkdir(parents=True)
    (built / builds.BUILT).write_text("{}")
    return built


def test_a_build_serves_only_the_sources_it_was_made_from(tmp_path):
    sources = sources_copy(tmp_path)
    environ = {"TYPHOON_ENGINE_BUILDS": str(tmp_path / "builds")}
    path: list[str] = [str(sources)]
    assert builds.choose(path, environ, sources) == "pure" and path == [str(sources)]
    built = fake_build(environ, sources)
    assert builds.choose(path, environ, sources) == "compiled" and path == [str(built), str(sources)]
    for name in ("game.py", "options.py"):  # a compiled module, and one the compiled ones import
        with open(sources / name, "a") as source:
            source.write("# a newer edit\n")
        path = [str(sources)]
        assert builds.choose(path, environ, sources) == "pure" and path == [str(sources)]
        built = fake_build(environ, sources)
        assert builds.choose(path, environ, sources) == "compiled"


def test_the_environment_forces_a_build(tmp_path):
    sources = sources_copy(tmp_path)
    environ = {"TYPHOON_ENGINE_BUILDS": str(tmp_path / "builds")}
    with pytest.raises(ImportError, match="make engine"):
        builds.choose([], {**environ, "TYPHOON_PURE_ENGINE": "0"}, sources)
    fake_build(environ, sources)
    path: list[str] = []
    assert builds.choose(path, {**environ, "TYPHOON_PURE_ENGINE": "1"}, sources) == "pure" and path == []
    assert builds.choose(path, {**environ, "TYPHOON_PURE_ENGINE": "0"}, sources) == "compiled"


def test_the_key_is_the_sources_and_the_python():
    assert builds.source_key() == builds.source_key(ROOT / "engine")
    assert builds.build_dir({"TYPHOON_ENGINE_BUILDS": "/x"}) == Path("/x") / builds.source_key() / "engine"
    assert builds.builds_root({}) == Path(sys.prefix) / "typhoon-engine"


def test_the_build_command_says_where_the_build_is():
    ensure_compiled()
    check = subprocess.run([sys.executable, "-m", "engine.build", "--check"], cwd=ROOT, capture_output=True,
                           text=True)
    assert check.returncode == 0 and check.stdout.strip() == str(builds.build_dir())
    built = json.loads((builds.build_dir() / builds.BUILT).read_text())
    assert built["key"] == builds.source_key() and built["modules"] == list(builds.COMPILED)
    again = subprocess.run([sys.executable, "-m", "engine.build"], cwd=ROOT, capture_output=True, text=True,
                           env=dict(os.environ), timeout=120)
    assert again.returncode == 0 and again.stdout.strip() == str(builds.build_dir())  # kept, not rebuilt
