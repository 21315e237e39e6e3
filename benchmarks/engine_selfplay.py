"""Benchmark: complete random games per CPU second on one core, optionally against another commit.

Each game is played through the public API (legal_actions, then apply of a uniform random choice), as
`typhoon selfplay` plays it. Speed is counted in CPU seconds of the process (``time.process_time``),
which a busy machine disturbs less than the wall clock, and the process is pinned to one core.

    .venv/bin/python benchmarks/engine_selfplay.py [--games 100] [--scenario standard] [--options ""]
    .venv/bin/python benchmarks/engine_selfplay.py --baseline c671d70 [--rounds 6] [--games 20]

This tree's engine runs in both its builds (see engine/builds.py): pure Python (``TYPHOON_PURE_ENGINE=1``)
and compiled by mypyc (``TYPHOON_PURE_ENGINE=0``; ``make bench`` builds it first, ``--builds pure`` leaves
it out). ``--baseline REV`` checks commit REV out in a temporary git worktree (removed afterwards) and runs
the same games there and with each build of this tree in turn, one child process per round and side (the
order rotated every round, so that a machine growing busier or quieter weighs on all alike), then prints
each side's games per CPU second and their ratios. Every side plays ruleset 2 when it can, so that they
play the very same games (the digest of the final states says whether they did).

Profile (cProfile, line_profiler and per-phase timers over 8-12 random standard games, 2026-11-27, after
parts 7-14 of the speed work, machine loaded): the start of each movement phase, where every mover's reach
is searched and its segments listed, is ~27 % of the time (``movement.reach`` ~12 % on its own, ~250 full
searches a game, the rest taken from the reach with no enemy); the patching of the kept segments after a
move ~10 %; the check of a move ~10 % (a city-capturing path search ~3 %); the listing kept between moves
~3 %; replacement phases ~5 %, combat resolution ~5 %, the rest spread thin (no function above 3 % on its
own). Before parts 7-14, a chain of moves onto friends (~1 move in 7 in random play) dropped the kept
segments and listed every unit again, and a replacement listing worked its entry hexes and each
unit's communication out again after every action.
Before the work (c671d70) the same games spent most of their time re-listing every unit's moves after each
move and rebuilding reach searches (parts 1-6 in the git log). The reach search itself is at CPython's
floor (variants with bytearrays, split frontiers or hoisted lookups measured no faster). An optional Cython
build of the hot modules gave ~1.2-1.3x on top (2026-11-26 and 11-27) and was set aside: a compiled module
shadows its edited source until rebuilt, and a compiled and a pure engine would both need the corpus.
Measured again on 2026-11-27 with every engine module but the data loaders compiled (Cython 3.3, the same
.py files, annotations as C types where Cython can): 1.11-1.29x in six alternated pairs of 40 games
(median 1.23x), so about 2.6x against c671d70 in all, short of 3x. mypyc compiles nothing of the engine
as it stands: its phases are mixins of Game whose attributes mypy cannot see (483 type errors). Compiling
for 3x would mean rewriting the movement core as typed classes over arrays, not compiling this code.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline import ROOT, describe_here, one_core, run_worker, short, worktree  # noqa: E402

#: The child process: plays the games with the engine of the tree it is started in and prints its figures.
#: It uses only what every engine since the first benchmark has (new_game, legal_actions, apply).
WORKER = r"""
import hashlib, inspect, json, random, sys, time
import engine
from engine.options import Options
games, seed, scenario, options_text, ruleset = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
options = Options.parse(options_text).to_json()
try:
    takes_ruleset = "ruleset" in inspect.signature(engine.new_game).parameters
except ValueError:  # compiled by mypyc: no signature to read (every compiled engine takes a ruleset)
    takes_ruleset = True
extra = {"ruleset": int(ruleset)} if ruleset and takes_ruleset else {}

def play(game_seed):
    game = engine.new_game(scenario, options, seed=game_seed, **extra)
    chooser = random.Random(f"{game_seed}-players")
    actions = 0
    while not game.is_terminal():
        game.apply(chooser.choice(game.legal_actions()))
        actions += 1
    return actions, game.state_hash()

play("warm-up")
digest = hashlib.sha256()
actions = 0
start = time.process_time()
for number in range(games):
    played, state = play(f"{seed}-{number}")
    actions += played
    digest.update(state.encode())
cpu = time.process_time() - start
print(json.dumps({"games": games, "actions": actions, "cpu": cpu, "digest": digest.hexdigest(),
                  "engine": engine.__file__, "build": getattr(engine, "BUILD", "pure")}))
"""

#: This tree's builds: the environment that chooses each.
BUILDS = {"pure": {"TYPHOON_PURE_ENGINE": "1"}, "compiled": {"TYPHOON_PURE_ENGINE": "0"}}


def play(tree: Path, args: argparse.Namespace, seed: str, build: str | None = None) -> dict:
    """Play ``args.games`` games with the engine of ``tree`` (in ``build``, for this tree) in a child process;
    its figures."""
    figures = run_worker(tree, WORKER, str(args.games), seed, args.scenario, args.options, args.ruleset,
                         env=BUILDS[build] if build else None)
    if build and figures["build"] != build:
        raise RuntimeError(f"asked for the {build} engine, the worker ran the {figures['build']} one")
    return figures


def builds(args: argparse.Namespace) -> list[str]:
    """The builds of this tree to run: those asked for that are there (the compiled one once built)."""
    wanted = [b for b in args.builds.split(",") if b]
    if "compiled" in wanted:
        check = subprocess.run([sys.executable, "-m", "engine.build", "--check"], cwd=ROOT, capture_output=True)
        if check.returncode:
            print("(no compiled engine for these sources: `make engine` builds it; running the pure one only)")
            wanted.remove("compiled")
    return wanted


def describe(label: str, totals: dict) -> str:
    return (f"  {label}: {totals['games']} games in {totals['cpu']:.2f} CPU s: "
            f"{totals['games'] / totals['cpu']:.1f} games per CPU second, "
            f"{totals['actions'] / totals['cpu']:.0f} actions per CPU second")


def compare(args: argparse.Namespace) -> None:
    """Run the benchmark with each build of this tree and on ``args.baseline`` in turn; print all and the
    ratios."""
    sides = [f"this tree, {build}" for build in builds(args)] + ["baseline"]
    totals = {side: {"games": 0, "actions": 0, "cpu": 0.0, "digests": []} for side in sides}
    with worktree(args.baseline) as tree:
        for round_number in range(args.rounds):
            seed = f"{args.seed}-{round_number}"
            shift = round_number % len(sides)
            for side in sides[shift:] + sides[:shift]:
                figures = (play(tree, args, seed) if side == "baseline"
                           else play(ROOT, args, seed, side.rpartition(" ")[2]))
                for key in ("games", "actions", "cpu"):
                    totals[side][key] += figures[key]
                totals[side]["digests"].append(figures["digest"])
                print(f"round {round_number + 1}/{args.rounds} {side}: {figures['games'] / figures['cpu']:.1f} "
                      f"games per CPU second", flush=True)
    same = all(totals[side]["digests"] == totals["baseline"]["digests"] for side in sides)
    print(f"scenario {args.scenario} options [{args.options}], {args.rounds} rounds of {args.games} random games "
          f"on core {one_core()}, ruleset {args.ruleset or 'default'}:")
    for side in sides:
        label = f"baseline ({short(args.baseline)})" if side == "baseline" else side.replace(
            "this tree", f"this tree ({describe_here()})")
        print(describe(label, totals[side]))
    rate = {side: totals[side]["games"] / totals[side]["cpu"] for side in sides}
    for side in sides[:-1]:
        print(f"  ratio, {side} to the baseline: {rate[side] / rate['baseline']:.2f}x games per CPU second")
    if len(sides) == 3:
        print(f"  ratio, compiled to pure: {rate[sides[1]] / rate[sides[0]]:.2f}x")
    print(f"  {'the same games on all (final states match)' if same else 'the games differ between them'}")


def single(args: argparse.Namespace) -> None:
    print(f"scenario {args.scenario} options [{args.options}]: {args.games} random games on core {one_core()}")
    for build in builds(args):
        figures = play(ROOT, args, args.seed, build)
        print(describe(f"this tree ({describe_here()}), {build}", figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games per run (default 100; 20 per round with --baseline)")
    parser.add_argument("--scenario", default="standard")
    parser.add_argument("--options", default="")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--baseline", metavar="REV", help="also run commit REV, alternately, and print the ratio")
    parser.add_argument("--rounds", type=int, default=6, help="alternations with --baseline (default 6)")
    parser.add_argument("--builds", default="pure,compiled",
                        help="this tree's builds to run (default pure,compiled; the compiled one when built)")
    parser.add_argument("--ruleset", default="2",
                        help="ruleset to play where the engine takes one (default 2, which every engine plays; "
                             "'' for each engine's default)")
    args = parser.parse_args()
    if args.games is None:
        args.games = 20 if args.baseline else 100
    if args.baseline:
        compare(args)
    else:
        single(args)


if __name__ == "__main__":
    main()
