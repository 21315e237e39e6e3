"""``typhoon selfplay`` with the campaign and the options: one line per game, a summary, reproducible.

The command line is run in-process through ``clients.cli.main`` (its output captured), and once
through the installed ``typhoon`` script.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from clients import cli

ROOT = Path(__file__).resolve().parents[2]
GAME_LINE = re.compile(r"^game (\d+): seed (\S+) winner (german|soviet|draw) VP german (\d+) soviet (\d+) "
                       r"actions (\d+) state ([0-9a-f]{16})$")
SUMMARY = re.compile(r"^(\d+) games: German wins (\d+), Soviet wins (\d+), draws (\d+); "
                     r"mean VP German (\d+\.\d\d), Soviet (\d+\.\d\d)$")
ARGS = ["selfplay", "--games", "2", "--seed", "s", "--scenario", "campaign", "--options", "all"]


def run_main(args, capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(args)
    except SystemExit as exit_:  # argparse errors
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def test_selfplay_campaign_all_options_one_line_per_game_and_a_summary(capsys):
    code, out, err = run_main(ARGS, capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 3, out
    games = [GAME_LINE.match(line) for line in lines[:2]]
    assert all(games), lines
    assert [int(g.group(1)) for g in games] == [1, 2]
    assert [g.group(2) for g in games] == ["s-1", "s-2"]
    summary = SUMMARY.match(lines[2])
    assert summary, lines[2]
    winners = [g.group(3) for g in games]
    assert int(summary.group(1)) == 2
    assert (int(summary.group(2)), int(summary.group(3)), int(summary.group(4))) == (
        winners.count("german"), winners.count("soviet"), winners.count("draw"))
    mean_german = sum(int(g.group(4)) for g in games) / 2
    mean_soviet = sum(int(g.group(5)) for g in games) / 2
    assert summary.group(5) == f"{mean_german:.2f}" and summary.group(6) == f"{mean_soviet:.2f}"
    # a 14-turn game takes hundreds of actions
    assert all(int(g.group(6)) > 200 for g in games)


def test_selfplay_same_arguments_same_output(capsys):
    first = run_main(ARGS, capsys)
    second = run_main(ARGS, capsys)
    assert first[0] == second[0] == 0
    assert first[1] == second[1] and first[1]


def test_selfplay_options_change_the_games(capsys):
    with_all = run_main(ARGS, capsys)[1]
    without = run_main(ARGS[:-2], capsys)[1]
    assert with_all != without


def test_selfplay_lines_match_the_engine_games(capsys):
    """Each line reports the game the engine plays for that seed with those options."""
    from engine.options import Options
    from engine.selfplay import play_random_game

    out = run_main(ARGS, capsys)[1]
    first = GAME_LINE.match(out.splitlines()[0])
    game, _ = play_random_game("s-1", "campaign", Options.parse("all").to_json())
    assert (first.group(3), int(first.group(4)), int(first.group(5))) == (
        game.winner, game.points["german"], game.points["soviet"])
    assert int(first.group(6)) == game.actions and game.state_hash.startswith(first.group(7))


@pytest.mark.parametrize("options,fragment", [("advanced_crt", "not available"),
                                              ("fog_of_war", "unknown option"),
                                              ("soviet_replacements=7", "soviet_replacements")])
def test_selfplay_bad_options_are_a_one_line_error(options, fragment, capsys):
    code, out, err = run_main(["selfplay", "--games", "1", "--scenario", "campaign", "--options", options], capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and fragment in err


def test_selfplay_installed_script_same_output_as_in_process(capsys):
    script = Path(sys.executable).parent / "typhoon"
    if not script.exists():
        pytest.skip("the typhoon script is not installed in this environment")
    done = subprocess.run([str(script), *ARGS], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == run_main(ARGS, capsys)[1]
