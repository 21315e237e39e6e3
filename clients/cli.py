"""The ``typhoon`` command line."""

from __future__ import annotations

import argparse
import sys


def _selfplay(args: argparse.Namespace) -> int:
    from engine.selfplay import selfplay, summary

    options = None
    results = []
    for game in selfplay(args.games, args.seed, args.scenario, options):
        results.append(game)
        print(f"game {game.number}: seed {game.seed} winner {game.winner} "
              f"VP german {game.points['german']} soviet {game.points['soviet']} "
              f"actions {game.actions} state {game.state_hash[:16]}", flush=True)
    print(summary(results))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="typhoon", description="Typhoon: Battle for Moscow game service and tools")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("selfplay", help="play games of random legal actions against each other")
    play.add_argument("--games", type=int, default=10)
    play.add_argument("--seed", default="typhoon")
    play.add_argument("--scenario", default="standard")
    play.set_defaults(run=_selfplay)

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
