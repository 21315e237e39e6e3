"""``typhoon demo``: the whole service in one command.

Starts the service (embedded Redis in a temporary data directory, free ports), creates a match, lets
two random bots join and play it to the end through the gRPC API, prints every event as it streams
in through WatchMatch, then the result — and checks the dice: the revealed seed matches the
commitment published at creation, and re-simulating the match from its event log alone gives every
die roll and the final state hash again.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time

import grpc

from clients.client import Seat, TyphoonClient, TyphoonError, describe_event
from service.run.config import ServeConfig
from service.run.server import BackgroundServer, configure_logging


class RandomBot:
    """Plays uniformly random legal actions for one seat, waiting for its turn on a watch stream."""

    def __init__(self, client: TyphoonClient, seat: Seat, seed: str) -> None:
        self.client = client
        self.seat = seat
        self.random = random.Random(f"{seed}-{seat.side}")
        self.actions = 0
        self.error: BaseException | None = None

    def play(self) -> None:
        watch = self.client.watch(self.seat.match_id)
        events = iter(watch)
        try:
            while True:
                legal = self.client.legal_actions(self.seat.match_id)
                if not legal.side_to_act:
                    return
                if legal.side_to_act == self.seat.side:
                    action = self.random.choice(legal.actions)
                    try:
                        self.client.submit(self.seat.match_id, self.seat.token, action,
                                           expected_version=legal.version)
                        self.actions += 1
                    except TyphoonError as error:
                        if error.code != grpc.StatusCode.ABORTED:
                            raise
                    continue
                for event in events:  # wait for the other side to move the game on
                    if event.version > legal.version:
                        break
        except BaseException as error:  # noqa: BLE001 - reported by the demo
            self.error = error
        finally:
            watch.close()


def verify(client: TyphoonClient, match_id: str) -> str:
    """Audit the match as ``typhoon replay verify`` does (seed against its commitment, every roll
    recomputed, every event and state hash re-simulated); return a sentence, raise if anything differs."""
    from clients.replay import fetch_log, verify_log

    report = verify_log(fetch_log(client, match_id), match_id=match_id, final=client.get_match(match_id))
    if report.problems:
        raise AssertionError(report.problems[0].describe())
    if report.other_ruleset:
        raise AssertionError(report.ruleset_sentence())
    if not report.seed:
        raise AssertionError("the match is not over: its seed is not revealed yet")
    return (f"seed matches its commitment; {report.rolls} die rolls recomputed; "
            "replaying the log gives the same game")


def run_demo(data_dir: str | None = None, bot_seed: str | None = None, out=sys.stdout) -> int:
    configure_logging("warning")
    bot_seed = bot_seed or str(random.randrange(10**9))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="typhoon-demo-") as tmp:
        config = ServeConfig(grpc_port=0, http_port=0, data_dir=data_dir or tmp, grace_seconds=5)
        with BackgroundServer(config) as server:
            print(f"typhoon demo: service on gRPC 127.0.0.1:{server.grpc_port}, REST http://127.0.0.1:"
                  f"{server.http_port}/v1/matches, Redis embedded in {server.server.embedded.data_dir}", file=out)
            with TyphoonClient(f"127.0.0.1:{server.grpc_port}") as client:
                match, _ = client.create_match("standard")
                print(f"match {match.match_id} created; seed commitment {match.seed_commitment}", file=out)
                bots = [RandomBot(client, client.join_match(match.match_id, side, f"random bot ({side})"), bot_seed)
                        for side in ("german", "soviet")]
                threads = [threading.Thread(target=bot.play, name=f"bot-{bot.seat.side}", daemon=True)
                           for bot in bots]
                for thread in threads:
                    thread.start()
                for event in client.watch(match.match_id):
                    print(describe_event(event), file=out, flush=True)
                for thread in threads:
                    thread.join(30)
                for bot in bots:
                    if bot.error:
                        raise bot.error
                final = client.get_match(match.match_id)
                result = final.match.result
                print(f"result: {result.winner} ({result.reason}); victory points "
                      + ", ".join(f"{side} {points}" for side, points in sorted(result.points.items())), file=out)
                print(f"{final.match.version} actions ({', '.join(f'{b.seat.side} {b.actions}' for b in bots)}), "
                      f"{final.match.last_sequence} events", file=out)
                print("dice check: " + verify(client, match.match_id), file=out)
            stopping = time.monotonic()
        stopped = time.monotonic()
        print(f"service stopped cleanly in {stopped - stopping:.1f}s (the whole demo took {stopped - started:.1f}s)",
              file=out)
    return 0


def _demo(args: argparse.Namespace) -> int:
    return run_demo(args.data_dir, args.bot_seed)


def register(commands: argparse._SubParsersAction) -> None:
    demo = commands.add_parser("demo")
    demo.add_argument("--data-dir", default=None, help="keep the demo's Redis data here (default: temporary)")
    demo.add_argument("--bot-seed", default=None, help="seed of the bots' choices")
    demo.set_defaults(run=_demo)
