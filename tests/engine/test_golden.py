"""Not a bit of behaviour changes: every game of the golden corpus replays byte for byte.

The corpus (``tests/engine/golden/``, recorded by ``python -m clients.golden record``; see
:mod:`clients.golden`) holds over 300 games of ruleset 2 (recorded from the engine before it was made
faster and before ruleset 3), some 80 of ruleset 3 and 35 of ruleset 4 (the seats' entropy in the dice)
— random and bot games, standard and campaign, every option
and preset, many seeds — with, for each action, the number of legal actions and the action's place among
them, the digest of its events and the state hash after it. Each game is replayed here on the engine,
rebuilding it from its position every few dozen actions as the service does, in each build of the engine:
pure Python and compiled by mypyc (a child process each, see engine_builds.py).
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from clients import golden
from engine_builds import BUILDS


@lru_cache(maxsize=None)
def records(stem: str) -> tuple[dict, ...]:
    return tuple(golden.read_records(golden.CORPUS_DIR / f"{stem}.jsonl.gz"))


STEMS = [path.name.removesuffix(".jsonl.gz") for path in golden.corpus_files()]
GAMES = [(stem, number) for stem in STEMS for number in range(len(records(stem)))]


def test_the_corpus_is_there_and_large_enough():
    games = [record for stem in STEMS for record in records(stem)]
    assert sum(g["ruleset"] == 2 for g in games) >= 300 and sum(g["ruleset"] == 3 for g in games) >= 50
    fourth = [g for g in games if g["ruleset"] == 4]  # the seats' entropy: both, one (the other drawn), none
    assert len(fourth) >= 30 and {tuple(sorted(g.get("entropy", {}))) for g in fourth} == {
        (), ("german",), ("soviet",), ("german", "soviet")}
    assert {g["scenario"] for g in games} == {"standard", "campaign"}
    players = {p for g in games for p in g["players"]}
    assert {"random", "heuristic", "search1"} <= players
    assert {name for g in games for name, value in g["options"].items() if value not in (False, "points", 5)} >= {
        "victory", "soviet_replacements", "improved_first_shock", "stronger_defensive_line", "german_logistics",
        "soviet_replacement_edge", "harsher_winter", "early_first_shock", "variable_weather", "war_of_attrition"}
    assert {g["actions"][-1]["type"] for g in games} >= {"resign", "time_forfeit"}


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("stem, number", GAMES, ids=[f"{stem}-{number}" for stem, number in GAMES])
def test_a_recorded_game_replays_byte_for_byte(stem, number, build, engine_builds):
    assert engine_builds[build].ask("replay", stem=stem, number=number)["difference"] is None
