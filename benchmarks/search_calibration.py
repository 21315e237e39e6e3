"""Calibration of the search's work budget: CPU seconds per searched decision, by level.

Plays ``--games`` games per side of ``search`` at each level against the heuristic through the engine
(no service) and measures each searched decision's CPU time (``time.process_time``: the time of this
process on its core, about what the decision takes on an idle core however busy the machine is).

    nice -n 10 .venv/bin/python benchmarks/search_calibration.py --games 2 --levels 1 2 3
"""

from __future__ import annotations

import argparse
import statistics
import time

import engine
from clients.strategies import make_strategy


def calibrate(level: int, games: int, seed: str) -> list[float]:
    """CPU seconds of every searched decision (decisions that ran play-outs) in ``games`` games per side."""
    seconds: list[float] = []
    for i in range(games):
        for side in ("german", "soviet"):
            search = make_strategy("search", f"{seed}-{i}-{side}", level=level)
            other = make_strategy("heuristic", f"{seed}-{i}-other")
            players = {side: search, ("soviet" if side == "german" else "german"): other}
            game = engine.new_game("standard", seed=f"{seed}-{i}")
            while not game.is_terminal():
                player = players[game.current_player()]
                before_searches, start = getattr(player, "searches", 0), time.process_time()
                action = player.choose(game, game.legal_actions())
                took = time.process_time() - start
                if player is search and search.searches > before_searches:
                    seconds.append(took)
                game.apply(action)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per side and level (default 2)")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--seed", default="calibration")
    args = parser.parse_args()
    for level in args.levels:
        seconds = calibrate(level, args.games, args.seed)
        ordered = sorted(seconds)
        p90 = ordered[int(0.9 * (len(ordered) - 1))] if ordered else 0.0
        print(f"level {level}: {len(seconds)} searched decisions in {2 * args.games} games, CPU seconds per "
              f"decision mean {statistics.fmean(seconds) if seconds else 0:.2f}, 90th percentile {p90:.2f}, "
              f"max {max(seconds, default=0):.2f}", flush=True)


if __name__ == "__main__":
    main()
