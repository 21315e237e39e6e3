"""The ``typhoon`` command line."""

from __future__ import annotations

import argparse
import importlib
import sys


def _selfplay(args: argparse.Namespace) -> int:
    from engine.selfplay import run_cli

    return run_cli(args.games, args.seed, args.scenario, args.options)


#: The commands of ``typhoon`` besides ``selfplay``: the module whose ``register(commands)`` adds each, and what
#: it does. Only the module of the command run is imported (``typhoon bot`` imports no part of the service,
#: ``typhoon --help`` none of them).
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("service.run.cli", "run the game service (gRPC and REST over Redis)"),
    "admin": ("service.run.admin", "operator actions on the matches of a Redis (abort, backup, restore)"),
    "demo": ("clients.demo", "start the service, let two random bots play a match, show it"),
    "bot": ("clients.bot_cli", "play one seat of a match with a strategy, through the service"),
    "ladder": ("clients.ladder", "the service's bot ladder: owners, players, keys, standings"),
    "match": ("clients.runner", "series of bot matches through the service"),
    "replay": ("clients.replay", "audit and replay a match's event log (from a service or a file)"),
    "play": ("clients.play", "play a bot in the browser: start the service, seat the bot, open the page"),
}


def _add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser], argv: list[str]) -> None:
    """The command named first in ``argv`` with all its options; the others by name (for help or an error)."""
    named = argv[0] if argv else None
    for name, (module, says) in COMMANDS.items():
        if name == named:
            importlib.import_module(module).register(commands)
            parser = commands.choices[name]
            parser.description = parser.description or says
        else:
            commands.add_parser(name, help=says)


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

    _add_commands(commands, sys.argv[1:] if argv is None else argv)

    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
