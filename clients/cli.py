"""The ``typhoon`` command line."""

from __future__ import annotations

import argparse
import sys


def _selfplay(args: argparse.Namespace) -> int:
    from engine.selfplay import run_cli

    return run_cli(args.games, args.seed, args.scenario, args.options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="typhoon", description="Typhoon: Battle for Moscow game service and tools")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("selfplay", help="play games of random legal actions against each other")
    play.add_argument("--games", type=int, default=10)
    play.add_argument("--seed", default="typhoon")
    play.add_argument("--scenario", default="standard", help="standard (7 turns) or campaign (14 turns)")
    play.add_argument("--options", default="", help="comma-separated options: all, a preset, name or name=value "
                                                    "(see engine/options.py)")
    play.set_defaults(run=_selfplay)

    from service.run import (
        admin,  # serve, admin
        cli,
    )

    cli.register(commands)
    admin.register(commands)

    from clients import bot_cli, demo, ladder, play, replay, runner  # demo, play, bot, match run, replay, ladder

    demo.register(commands)
    bot_cli.register(commands)
    ladder.register(commands)
    runner.register(commands)
    replay.register(commands)
    play.register(commands)

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
