"""``typhoon bot``: play one seat of a match, or ladder matches, with a strategy, through the service."""

from __future__ import annotations

import sys

import engine
from clients.client import TyphoonClient, TyphoonError, as_time_control
from clients.connect import add_server_argument, service_answers, unreachable_sentence
from clients.ladder import cli_ladder_bot
from clients.sdk import Bot, BotError, checked_options, checked_strategy, parse_params
from clients.strategy_option import add_strategy_argument, strategy_label
from clients.tls import add_arguments as add_tls_arguments
from clients.tls import from_args as tls_from_args


def cli_bot(args) -> int:
    try:
        params = parse_params(args.param)
        strategy_name = checked_strategy(args.strategy, params)
        options = checked_options(args.scenario, args.options) if not args.match else None
        if args.time_control:
            as_time_control(args.time_control)
    except ValueError as error:
        print(f"typhoon bot: {error}", file=sys.stderr)
        return 2
    match_id = args.match
    created_tokens: dict[str, str] = {}
    tls = tls_from_args(args)
    name = args.name or f"{strategy_label(strategy_name)} bot"  # a module:callable's own name, if it has one
    if not service_answers(args.server, tls):
        print(f"typhoon bot: {unreachable_sentence(args.server)}", file=sys.stderr)
        return 1
    if not match_id:
        try:
            with TyphoonClient(args.server, tls=tls) as client:
                # the seat is taken for the bot below, which commits to its entropy when the match waits for it
                match, created_tokens = client.create_match(args.scenario, options=options, entropy=True,
                                                            seats=[(args.side or "german", name)],
                                                            time_control=args.time_control)
        except TyphoonError as error:
            print(f"typhoon bot: {error}", file=sys.stderr)
            return 1
        match_id = match.match_id
        (side, token), = created_tokens.items()
        print(f"created match {match_id} with the {side} seat ({name}); its token (to resume with --token): {token}\n"
              f"the other seat is free: typhoon bot --match {match_id} --server {args.server} --strategy random",
              flush=True)

    def on_action(bot: Bot, version: int, action: engine.Action, seconds: float) -> None:
        if not args.quiet:
            data = action.to_json()
            name = data.pop("type")
            details = " ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in data.items())
            print(f"v{version:<4} {bot.side} {name} {details}".rstrip() + f"  ({seconds * 1000:.0f} ms)", flush=True)

    side = args.side or (next(iter(created_tokens)) if created_tokens else "")
    token = args.token or created_tokens.get(side)
    bot = Bot(args.strategy, args.server, match_id=match_id, side=side, token=token, player_name=name,
              seed=args.seed, params=params, retry_seconds=args.retry_seconds, idle_timeout=args.idle_timeout,
              on_action=on_action, tls=tls)
    if not token:
        try:
            seat = bot.claim()
        except (BotError, TyphoonError) as error:
            print(f"typhoon bot: {error}", file=sys.stderr)
            return 1
        print(f"claimed the {seat.side} seat of match {match_id}; its token (to resume with --token): {seat.token}",
              flush=True)
    print(f"{bot.name} plays {bot.side} in match {match_id} on {args.server}", flush=True)
    try:
        result = bot.run()
    except KeyboardInterrupt:
        bot.stop()
        print("stopped", file=sys.stderr)
        return 130
    except (BotError, TyphoonError) as error:
        print(f"typhoon bot: {error}", file=sys.stderr)
        return 1
    print(result.summary())
    return 0 if result.finished else 1


def register(commands) -> None:
    """Add ``bot`` to the ``typhoon`` command line."""
    bot = commands.add_parser("bot")
    bot.add_argument("--match", help="the match id (default: create a new match and print its id)")
    bot.add_argument("--side", choices=["german", "soviet"], help="the seat to claim (default: the first free one)")
    add_strategy_argument(bot)
    add_server_argument(bot)
    bot.add_argument("--token", help="act with a seat already claimed (with --side)")
    bot.add_argument("--seed", default=None, help="seed of the strategy's own random choices")
    bot.add_argument("--param", action="append", metavar="NAME=VALUE",
                     help="a strategy parameter, e.g. --param budget=0.5 (repeatable)")
    bot.add_argument("--name", default="", help="player name shown on the seat (default: the strategy's, e.g. "
                                                "\"heuristic bot\")")
    bot.add_argument("--scenario", default="standard", help="with a new match: its scenario")
    bot.add_argument("--options", default="", help="with a new match: its options (as for selfplay)")
    bot.add_argument("--time-control", default=None, metavar="PRESET|INITIAL+INCREMENT",
                     help="with a new match: clocks, a preset (bullet, blitz, rapid, classical) or seconds "
                          "such as 300+5 (default: none)")
    bot.add_argument("--retry-seconds", type=float, default=300.0,
                     help="how long to keep retrying when the service goes away during the match (default "
                          "300); one that does not answer at the start is reported within seconds")
    bot.add_argument("--idle-timeout", type=float, default=None, help="give up when the match does not move for "
                                                                      "this many seconds (default: wait)")
    bot.add_argument("--quiet", "-q", action="store_true", help="print only the result")
    bot.add_argument("--ladder", metavar="HOST:PORT", help="play ladder matches on the service at this gRPC "
                                                           "address until stopped, as the player of --key")
    bot.add_argument("--key", help="with --ladder: the player's API key (typhoon ladder register)")
    bot.add_argument("--concurrency", type=int, default=1, help="with --ladder: matches at once (default 1); the "
                                                                   "first SIGTERM or Ctrl-C stops seeking and lets "
                                                                   "the matches in progress end, a second quits")
    add_tls_arguments(bot)

    def run(args) -> int:
        if args.ladder:
            return cli_ladder_bot(args)
        if args.token and not args.side:
            bot.error("--token needs --side (the side of the seat the token is for)")
        return cli_bot(args)

    bot.set_defaults(run=run)
