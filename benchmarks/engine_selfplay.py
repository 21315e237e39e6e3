"""Benchmark: complete random games per second and actions per second, on one core.

Each game is played through the public API (legal_actions, then apply of a random choice), exactly as
`typhoon selfplay` plays it.

    .venv/bin/python benchmarks/engine_selfplay.py [--games 100] [--scenario standard] [--options ""]
"""

from __future__ import annotations

import argparse
import os
import time

from engine.options import Options
from engine.selfplay import play_random_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--scenario", default="standard")
    parser.add_argument("--options", default="")
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    options = Options.parse(args.options).to_json()
    play_random_game("warm-up", args.scenario, options)
    actions = 0
    start = time.perf_counter()
    for number in range(args.games):
        played, _ = play_random_game(f"{args.seed}-{number}", args.scenario, options)
        actions += played.actions
    elapsed = time.perf_counter() - start
    print(f"scenario {args.scenario} options [{args.options}]: {args.games} random games in {elapsed:.2f} s "
          f"on one core")
    print(f"  {args.games / elapsed:.1f} complete games per second")
    print(f"  {actions / elapsed:.0f} actions per second ({actions / args.games:.0f} actions a game)")


if __name__ == "__main__":
    main()
