"""The match runner: series of bot matches through the real service, the table, failed matches, and
`typhoon match run` with its own embedded service."""

from __future__ import annotations

import json

import pytest

import engine
from clients.cli import main
from clients.ratings import Ratings
from clients.runner import Series, play_match, run_series


def hurry(state, legal_actions):
    for action in legal_actions:
        if isinstance(action, engine.EndPhase):
            return action
    return legal_actions[0]


class Broken:
    """A strategy with a bug: the bot fails, the runner reports the match as failed."""

    name = "broken"

    def choose(self, state, legal_actions):
        raise RuntimeError("strategy bug")


def test_a_series_with_swapped_sides_is_tallied_and_verified(typhoon_target):
    series = run_series("heuristic", "random", games=1, target=typhoon_target, parallel=2, swap=True,
                        verify=True, seed="t")
    assert [(p.german, p.soviet) for p in series.pairings] == [("heuristic", "random"), ("random", "heuristic")]
    records = series.records
    assert len(records) == 2 and not series.failed
    assert sorted(r.index for r in records) == [1, 2]
    assert all(r.verified and r.turns == 7 and r.actions > 100 and len(r.match_id) == 16 for r in records)
    for pairing in series.pairings:
        assert pairing.wins("german") + pairing.wins("soviet") <= 1
    scores = series.strategy_scores()
    assert scores["heuristic"]["all"][1] == 2 and scores["random"]["german"][1] == 1
    table = series.table()
    lines = table.splitlines()
    assert lines[0].split()[:5] == ["German", "Soviet", "games", "German", "wins"]
    assert lines[2].split()[:3] == ["heuristic", "random", "1"] and lines[3].split()[:3] == ["random", "heuristic", "1"]
    assert "score by strategy" in table and "heuristic: as german" in table
    assert "no match failed" in table and "replay verified: 2 of 2 matches" in table


def test_a_failing_bot_makes_a_failed_row(typhoon_target):
    record = play_match(typhoon_target, Broken(), hurry, index=7)
    assert record.error and "strategy bug" in record.error and not record.ok
    assert record.german == "broken" and record.soviet == "hurry" and record.match_id
    series = Series(typhoon_target, 1)
    from clients.runner import Pairing

    series.pairings.append(Pairing("broken", "hurry", [record]))
    table = series.table()
    assert "1 failed:" in table and f"#7 broken vs hurry match {record.match_id}: german: " in table


def test_typhoon_match_run_starts_its_own_service_and_keeps_ladder_ratings(tmp_path, capsys):
    out, ladder = tmp_path / "records.json", tmp_path / "ladder.json"
    for _ in range(2):
        code = main(["match", "run", "--german", "heuristic", "--soviet", "random", "--games", "1",
                     "--parallel", "1", "--no-progress", "--json", str(out), "--ratings", str(ladder)])
        assert code == 0
    text = capsys.readouterr().out
    assert "1 match through an embedded service at 127.0.0.1:" in text and "no match failed" in text
    records = json.loads(out.read_text())
    assert len(records["matches"]) == 1
    (match,) = records["matches"]
    assert sum(match["side_actions"].values()) == match["actions"]  # every action, by the side that made it
    assert match["think_seconds"]["german"] >= match["max_think_seconds"]["german"] > 0
    players = {(p["player"], p["side"]): p for p in records["players"]}
    assert players["heuristic", "german"]["actions"] == match["side_actions"]["german"]
    assert players["random", "soviet"]["think_ms_per_action"] >= 0
    assert f"ratings (OpenSkill, kept in {ladder}):" in text
    standings = Ratings.load(ladder).standings()
    assert [(row.player, row.games, row.wins) for row in standings] == [("heuristic", 2, 2), ("random", 2, 0)]


def test_typhoon_match_run_refuses_a_file_that_is_not_a_ratings_file(tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text('{"players": {}}')
    assert main(["match", "run", "--ratings", str(other), "--no-progress"]) == 2
    assert "not a Typhoon ratings file" in capsys.readouterr().err


def test_typhoon_match_run_refuses_bad_options(capsys):
    assert main(["match", "run", "--options", "advanced_crt", "--no-progress"]) == 2
    assert "Advanced Combat Results Table" in capsys.readouterr().err


@pytest.mark.parametrize("arguments, sentence", [
    (["--german-param", "budget"], "a strategy parameter is name=value, not 'budget'"),
    (["--german", "search", "--german-param", "budgett=1"], "unknown strategy parameter budgett; known: "),
    (["--soviet", "random", "--soviet-param", "g_risk=2"], "unknown strategy parameter g_risk; known: strict"),
])
def test_typhoon_match_run_and_bot_refuse_bad_strategy_parameters_before_playing(arguments, sentence, capsys):
    assert main(["match", "run", "--no-progress", *arguments]) == 2
    assert sentence in capsys.readouterr().err
    bot_arguments = [a.replace("german-param", "param").replace("soviet-param", "param")
                     .replace("--german", "--strategy").replace("--soviet", "--strategy") for a in arguments]
    assert main(["bot", "--server", "127.0.0.1:1", *bot_arguments]) == 2
    assert sentence in capsys.readouterr().err


def test_every_search_level_plays_a_legal_complete_match_through_the_service(typhoon_target):
    from clients.strategies.search import LEVELS

    for level in sorted(LEVELS):
        # the smallest work the level's candidates allow, so that the test stays quick
        params = {"level": level, "playouts": LEVELS[level]["max_candidates"]}
        german, soviet = ("search", "random") if level % 2 else ("random", "search")
        record = play_match(typhoon_target, german, soviet, index=level, seed="levels",
                            german_params=params if german == "search" else None,
                            soviet_params=params if soviet == "search" else None)
        assert record.ok and record.illegal == 0 and record.turns == 7, record.error
