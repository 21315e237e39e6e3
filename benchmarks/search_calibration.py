"""Calibration of the search's work budget: CPU seconds per searched decision and per action, by level.

Plays ``--games`` games per side of ``search`` at each level against the heuristic through the engine
(no service) and measures each of the search's decisions in CPU time (``time.process_time``: the time of
this process on its core, about what the decision takes on an idle core however busy the machine is):
per searched decision (those that ran play-outs) and per action of the search's side (every decision,
the ones it answers without searching too). Each level runs in a child process pinned to one core.

    nice -n 10 .venv/bin/python benchmarks/search_calibration.py --games 2 --levels 1 2 3
    .venv/bin/python benchmarks/search_calibration.py --games 1 --levels 1 3 --baseline c671d70

``--baseline REV`` runs the same games with commit REV's engine and bots too (a temporary git worktree),
alternately with this tree, and prints the ratio of the CPU seconds per action.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline import ROOT, describe_here, run_worker, short, worktree  # noqa: E402

#: The child process: plays the games with the engine and bots of the tree it is started in. It uses only
#: what every tree since the search bot has (engine.new_game, make_strategy, the search's ``searches``).
WORKER = r"""
import inspect, json, sys, time
import engine
from clients.strategies import make_strategy
level, games, seed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
# ruleset 2 where the engine takes one, which every engine plays: both trees then play the same games
try:
    takes_ruleset = "ruleset" in inspect.signature(engine.new_game).parameters
except ValueError:  # compiled by mypyc: no signature to read (every compiled engine takes a ruleset)
    takes_ruleset = True
extra = {"ruleset": 2} if takes_ruleset else {}
searched, spent, decisions, states = [], 0.0, 0, []
for i in range(games):
    for side in ("german", "soviet"):
        search = make_strategy("search", f"{seed}-{i}-{side}", level=level)
        other = make_strategy("heuristic", f"{seed}-{i}-other")
        players = {side: search, ("soviet" if side == "german" else "german"): other}
        game = engine.new_game("standard", seed=f"{seed}-{i}", **extra)
        while not game.is_terminal():
            player = players[game.current_player()]
            before, start = getattr(player, "searches", 0), time.process_time()
            action = player.choose(game, game.legal_actions())
            took = time.process_time() - start
            if player is search:
                spent += took
                decisions += 1
                if search.searches > before:
                    searched.append(took)
            game.apply(action)
        states.append(game.state_hash())
print(json.dumps({"searched": searched, "spent": spent, "decisions": decisions, "states": states,
                  "engine": engine.__file__}))
"""


def calibrate(tree: Path, level: int, games: int, seed: str) -> dict:
    """The search's figures at ``level`` over ``games`` games per side, with the engine and bots of ``tree``."""
    return run_worker(tree, WORKER, str(level), str(games), seed)


def describe(label: str, level: int, games: int, figures: dict) -> str:
    seconds = sorted(figures["searched"])
    p90 = seconds[int(0.9 * (len(seconds) - 1))] if seconds else 0.0
    return (f"level {level}, {label}: {len(seconds)} searched decisions in {2 * games} games, CPU seconds per "
            f"decision mean {statistics.fmean(seconds) if seconds else 0:.3f}, 90th percentile {p90:.3f}, "
            f"max {max(seconds, default=0):.3f}; {figures['spent'] / max(1, figures['decisions']):.4f} CPU s per "
            f"action of the search's side ({figures['decisions']} actions)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per side and level (default 2)")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--seed", default="calibration")
    parser.add_argument("--baseline", metavar="REV", help="also run commit REV, alternately, and print the ratio")
    args = parser.parse_args()
    if not args.baseline:
        for level in args.levels:
            print(describe(describe_here(), level, args.games, calibrate(ROOT, level, args.games, args.seed)),
                  flush=True)
        return
    with worktree(args.baseline) as tree:
        for number, level in enumerate(args.levels):
            order = [("this tree (" + describe_here() + ")", ROOT), (f"baseline ({short(args.baseline)})", tree)]
            if number % 2:
                order.reverse()
            figures = {}
            for label, path in order:
                figures[path] = calibrate(path, level, args.games, args.seed)
                print(describe(label, level, args.games, figures[path]), flush=True)
            per_action = {path: f["spent"] / max(1, f["decisions"]) for path, f in figures.items()}
            same = figures[ROOT]["states"] == figures[tree]["states"]
            print(f"level {level}: this tree takes {per_action[ROOT] / per_action[tree]:.2f}x the baseline's CPU per "
                  f"action ({per_action[tree] / per_action[ROOT]:.2f}x faster); "
                  f"{'the same games' if same else 'the games differ'}", flush=True)


if __name__ == "__main__":
    main()
