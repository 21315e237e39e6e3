"""``typhoon play``: play a bot in the browser.

Starts the service (in this process, with an embedded Redis unless ``--redis-url`` or ``REDIS_URL``),
creates a match, seats a bot on one side, and opens the page at ``/`` on the other side's seat (the
seat token travels in the URL's fragment, which browsers do not send to servers; the page moves it
into the tab's storage). The URL is always printed, for when no browser opens (a remote shell) or for
another device::

    typhoon play --strategy heuristic                 # you play the Germans
    typhoon play --side soviet --strategy search --param budget=0.5
    typhoon play --no-browser --http-port 8080 --host 0.0.0.0
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import webbrowser


def page_url(host: str, http_port: int, match_id: str, side: str, token: str) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://{shown}:{http_port}/#/play/{match_id}?side={side}&token={token}"


def cli_play(args: argparse.Namespace) -> int:
    from clients.client import TyphoonClient
    from clients.sdk import checked_options, checked_strategy, parse_params, start_bot
    from clients.strategy_option import strategy_label
    from service.run.config import ServeConfig
    from service.run.server import BackgroundServer, configure_logging

    try:
        params = parse_params(args.param)
        checked_strategy(args.strategy, params)
        options = checked_options(args.scenario, args.options)
    except ValueError as error:
        print(f"typhoon play: {error}", file=sys.stderr)
        return 2
    configure_logging("warning", for_person=True)  # the service's JSON lines are for `typhoon serve`
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="typhoon-play-")
    config = ServeConfig(grpc_port=args.grpc_port, http_port=args.http_port, host=args.host,
                         redis_url=args.redis_url, data_dir=data_dir)
    bot_side = "soviet" if args.side == "german" else "german"
    with BackgroundServer(config) as server:
        with TyphoonClient(f"127.0.0.1:{server.grpc_port}") as client:
            # both seats taken for their players, the page's and the bot's, who commit to their entropy themselves
            match, tokens = client.create_match(args.scenario, options=options, entropy=True,
                                                seats=[(args.side, args.name or "you"),
                                                       (bot_side, f"{strategy_label(args.strategy)} bot")])
        bot, thread = start_bot(args.strategy, f"127.0.0.1:{server.grpc_port}", match_id=match.match_id,
                                side=bot_side, token=tokens[bot_side], seed=args.seed, params=params)
        try:  # from the bot's start: a Ctrl-C at any moment stops it (else its thread would keep the process)
            url = page_url(args.host, server.http_port, match.match_id, args.side, tokens[args.side])
            print(f"match {match.match_id}: you play {args.side}, the {args.strategy} bot plays {bot_side}", flush=True)
            print(f"open {url}", flush=True)
            print(f"(the service: gRPC 127.0.0.1:{server.grpc_port}, HTTP {server.http_port}; Ctrl-C stops it)",
                  flush=True)
            if not args.no_browser:
                try:
                    webbrowser.open(url)
                except webbrowser.Error:
                    pass
            while thread.is_alive():
                thread.join(0.5)
            if bot.error:
                print(f"typhoon play: the bot stopped: {bot.error}", file=sys.stderr)
            else:
                print(bot.result.summary(), flush=True)
                print("the match is over; the service keeps running for the replay until Ctrl-C", flush=True)
                while True:
                    time.sleep(3600)
        except KeyboardInterrupt:
            bot.stop()
            print("stopped", file=sys.stderr)
    return 0


def register(commands) -> None:
    """Add ``play`` to the ``typhoon`` command line."""
    from clients.strategy_option import add_strategy_argument

    play = commands.add_parser("play")
    play.add_argument("--side", choices=["german", "soviet"], default="german", help="your side (default german)")
    add_strategy_argument(play, "the bot's strategy")
    play.add_argument("--param", action="append", metavar="NAME=VALUE", help="a parameter of the bot's strategy")
    play.add_argument("--seed", default=None, help="seed of the bot's own random choices")
    play.add_argument("--name", default="", help="your name on the seat (default: you)")
    play.add_argument("--scenario", default="standard", help="standard (7 turns) or campaign (14 turns)")
    play.add_argument("--options", default="", help="match options, as for selfplay")
    play.add_argument("--host", default=os.environ.get("TYPHOON_HOST", "127.0.0.1"),
                      help="address the service listens on (default 127.0.0.1)")
    play.add_argument("--http-port", type=int, default=0, help="the page's port (default: any free port)")
    play.add_argument("--grpc-port", type=int, default=0, help="gRPC port (default: any free port)")
    play.add_argument("--redis-url", default=os.environ.get("REDIS_URL"),
                      help="external Redis (default: $REDIS_URL, else an embedded one in --data-dir)")
    play.add_argument("--data-dir", default=None, help="the embedded Redis's data (default: a temporary directory)")
    play.add_argument("--no-browser", action="store_true", help="only print the URL")
    play.set_defaults(run=cli_play)
