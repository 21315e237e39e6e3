"""A ladder run: bots play the service's ladder unattended until enough matches are rated.

    .venv/bin/python -m loadtests.ladder_run --matches 100 --bots heuristic:2,random:3,flaky:1 \\
        --time-control 30+0.5 --first-action 10

starts ``typhoon serve`` (its embedded Redis in a temporary directory; or ``--server ADDR`` for a
running one), registers the bots (``strategy[:name=value...][:count]``: ``heuristic``, ``random``,
``search:level=1:2`` (two search bots of level 1), ``package.module:callable``, or ``flaky``: a random bot
that, in one match out of ``--flaky-rate``, stops answering long enough to lose on time),
runs each as a :class:`clients.ladder.LadderBot` in this process (each bot its own owner; the service
may go away and come back: the run waits for it as long as its bots do, ``--retry-seconds``), and once
``--matches`` ladder matches are settled (rated or not: with the ladder's fair play, two bots are rated
at most 3 times a day, so a small ladder's later matches are not) stops seeking, lets the matches in
progress end and prints the leaderboard, how the
matches ended (wins, draws, on time, aborted), the bots' failures, and checks what the ladder
promises: every ended match rated once (in both players' histories), none left open, ratings changed
only by finished matches. ``--verify N`` replay-verifies N of the matches (the time forfeits first).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential

from clients.client import TRANSIENT_CODES, TyphoonClient, TyphoonError
from clients.ladder import LadderBot, LadderClient, leaderboard_table
from clients.ratings import player_label
from clients.replay import fetch_log, verify_log
from clients.sdk import checked_strategy, parse_params
from clients.strategies import make_strategy
from service.gen.typhoon.v1 import match_pb2
from service.processes import ServeProcess


def _away(error: BaseException) -> bool:
    """The service is unreachable (or stopping): worth waiting for."""
    return isinstance(error, TyphoonError) and error.code in TRANSIENT_CODES


def bot_specs(text: str) -> list[tuple[str, dict[str, Any], int]]:
    """``--bots``: (strategy, parameters, count) of each comma-separated ``strategy[:name=value...][:count]``.

    >>> bot_specs("heuristic:2,search:level=1,search:level=2:3,my.bots:Greedy")
    [('heuristic', {}, 2), ('search', {'level': 1}, 1), ('search', {'level': 2}, 3), ('my.bots:Greedy', {}, 1)]
    """
    specs = []
    for spec in filter(None, text.split(",")):
        name, params, count = [], [], 1
        for part in spec.split(":"):
            if "=" in part:
                params.append(part)
            elif part.isdigit() and name:
                count = int(part)
            else:
                name.append(part)
        specs.append((":".join(name), parse_params(params), count))
    return specs


class Flaky:
    """Plays at random; in about one match of ``rate`` it stops answering for ``hang`` seconds at a
    random point (long enough for its clock to run out), then answers again."""

    name = "flaky"

    def __init__(self, seed: str, rate: int, hang: float) -> None:
        self.rng = random.Random(seed)
        self.hang_at = self.rng.randrange(5, 150) if self.rng.randrange(rate) == 0 else None
        self.hang = hang
        self.answers = 0

    def choose(self, state, legal_actions):
        self.answers += 1
        if self.answers == self.hang_at:
            time.sleep(self.hang)
        return self.rng.choice(legal_actions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100, help="rated matches to wait for (default 100)")
    parser.add_argument("--bots", default="heuristic:2,random:3,flaky:1",
                        help="strategy[:name=value...][:count],... (heuristic, random, search, flaky, "
                             "package.module:callable), e.g. search:level=1:2")
    parser.add_argument("--concurrency", type=int, default=1, help="matches each bot plays at once (default 1)")
    parser.add_argument("--time-control", default="30+0.5", help="the ladder's clocks (default 30+0.5)")
    parser.add_argument("--first-action", type=float, default=10.0, help="seconds for a first action (default 10)")
    parser.add_argument("--flaky-rate", type=int, default=4, help="a flaky bot hangs in one match of this many")
    parser.add_argument("--server", help="a running service's gRPC address (default: start one)")
    parser.add_argument("--serve-args", default="", help="more arguments for typhoon serve, e.g. '--workers 2'")
    parser.add_argument("--verify", type=int, default=5, help="replay-verify this many matches (default 5)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="give up after this many seconds")
    parser.add_argument("--retry-seconds", type=float, default=300.0,
                        help="how long the bots, and the run, wait for a service that went away (default 300)")
    args = parser.parse_args(argv)
    try:
        specs = bot_specs(args.bots)
        for strategy, params, _ in specs:
            if strategy != "flaky":
                checked_strategy(strategy, params)
    except ValueError as error:
        parser.error(str(error))

    def patient(call, *call_args, **kwargs):
        """A call to the service, retried while it is away, as long as the bots wait for it."""
        for attempt in Retrying(retry=retry_if_exception(_away), stop=stop_after_delay(args.retry_seconds),
                                wait=wait_exponential(multiplier=0.2, max=5.0), reraise=True):
            with attempt:
                return call(*call_args, **kwargs)

    service = None
    workdir = tempfile.TemporaryDirectory(prefix="typhoon-ladder-")
    target = args.server
    if not target:
        # each bot registers from an address of its own (X-Forwarded-For, believed from 127.0.0.1), as bots
        # of different authors do: owners registered from one address are related, never paired
        service = ServeProcess("--data-dir", str(Path(workdir.name) / "data"), "--log-level", "warning",
                               "--trusted-proxy", "127.0.0.1",
                               "--ladder-time-control", args.time_control, "--ladder-first-action",
                               str(args.first_action), *args.serve_args.split(), env={"REDIS_URL": ""},
                               remember=200).start()
        target = service.target
    hang = 0.0
    bots: dict[str, LadderBot] = {}
    started = time.monotonic()
    try:
        with LadderClient(target) as ladder:
            control = patient(ladder.ladder).time_control
            hang = control.initial.ToMilliseconds() / 1000 + 0.5 * control.increment.ToMilliseconds() * 300 / 1000
            suffix = f"{random.getrandbits(24):06x}"
            taken: Counter = Counter()
            for strategy, params, count in specs:
                label = player_label(strategy.rpartition(":")[2] if ":" in strategy else strategy, params)
                label = label.replace(" ", "-").replace('"', "")
                for _ in range(count):
                    taken[label] += 1
                    name = f"{label}-{taken[label]}" + (f"-{suffix}" if args.server else "")
                    # each bot its own owner, from a /24 of its own: the ladder never pairs two players of one
                    # owner, nor of owners registered from one network (service.client_identity)
                    address = f"198.19.{len(bots) % 256}.{len(bots) // 256 % 250 + 1}"
                    with LadderClient(target, metadata=[("x-forwarded-for", address)]) as registering:
                        key = patient(registering.register_with_owner, name,
                                      f"loadtests/ladder_run.py {strategy}").api_key

                    def factory(match, name=name, strategy=strategy, params=params):
                        if strategy == "flaky":
                            return Flaky(f"{name}-{match.match_id}", args.flaky_rate, hang)
                        return make_strategy(strategy, f"{name}-{match.match_id}", **params)

                    bots[name] = LadderBot(strategy, target, key, concurrency=args.concurrency, factory=factory,
                                           retry_seconds=args.retry_seconds)
            threads = [threading.Thread(target=bot.run, daemon=True, name=name) for name, bot in bots.items()]
            for thread in threads:
                thread.start()
            print(f"{len(bots)} bots ({args.bots}) on {target}, time control "
                  f"{control.initial.ToMilliseconds() / 1000:g}+{control.increment.ToMilliseconds() / 1000:g}, "
                  f"until {args.matches} matches are settled (rated or not)", file=sys.stderr, flush=True)
            ours = set(bots)
            while True:
                time.sleep(5)
                players = [p for p in patient(ladder.standings) if p.name in ours]
                rated = sum(p.games for p in players) // 2
                settled = sum(len(ladder.matches(p.player_id)) for p in players) // 2
                print(f"  {time.monotonic() - started:6.0f} s: {settled} settled, {rated} rated, "
                      f"{sum(p.aborted for p in players) // 2} aborted", file=sys.stderr, flush=True)
                if settled >= args.matches or time.monotonic() - started > args.timeout:
                    break
            for bot in bots.values():
                bot.stop_seeking()
            for bot in bots.values():
                bot.wait(600)
            match_ids = {m.match_id for bot in bots.values() for m in bot.record.started}
            with TyphoonClient(target) as client:
                ended = (match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_ABORTED)
                deadline = time.monotonic() + 120
                while any(patient(client.get_match, m).match.status not in ended for m in match_ids):
                    if time.monotonic() > deadline:
                        break
                    time.sleep(1)
                open_matches = [m for m in match_ids if patient(client.get_match, m).match.status not in ended]
                time.sleep(3)  # the last results
                players = [p for p in patient(ladder.standings) if p.name in ours]
                histories = {p.name: patient(ladder.matches, p.player_id) for p in players}
                by_match: dict[str, list] = {}
                for games in histories.values():
                    for game in games:
                        by_match.setdefault(game.match_id, []).append(game)
                outcomes, unrated = Counter(), Counter()
                for games in by_match.values():
                    first = games[0]
                    kind = "aborted" if first.outcome == "aborted" else "draw" if first.outcome == "draw" else \
                        "lost on time" if first.reason == "time" else "won on the board"
                    outcomes[kind] += 1
                    unrated[first.unrated_reason or "rated"] += 1
                problems = []
                problems += [f"match {m} is still open" for m in open_matches]
                problems += [f"match {m} has {len(g)} history entries, not 2" for m, g in by_match.items() if len(g) != 2]
                problems += [f"match {m} was started but never rated" for m in match_ids - by_match.keys()]
                for player in players:
                    rated_games = sum(g.rated for g in histories[player.name])
                    if rated_games != player.games:
                        problems.append(f"{player.name}: {player.games} games rated, {rated_games} in its history")
                failures = [f"{name}: {error}" for name, bot in bots.items() for error in bot.record.errors]
                forfeits = [m for m, g in by_match.items() if g[0].reason == "time"]
                sample = (forfeits + sorted(by_match.keys() - set(forfeits)))[:args.verify]
                verified = sum(patient(lambda m=m: verify_log(fetch_log(client, m), match_id=m,
                                                              final=client.get_match(m)).ok) for m in sample)
        print(leaderboard_table(players))
        print()
        print(f"{len(by_match)} ladder matches in {time.monotonic() - started:.0f} s: "
              + ", ".join(f"{n} {kind}" for kind, n in outcomes.most_common()))
        print("rated: " + ", ".join(f"{n} {reason if reason == 'rated' else 'not rated: ' + reason}"
                                    for reason, n in unrated.most_common()))
        print(f"bot failures: {len(failures)}" + "".join(f"\n  {f}" for f in failures[:10]))
        print(f"replay verified: {verified} of {len(sample)} (time forfeits first)")
        print("checks: " + ("every ended match rated once, none left open" if not problems else
                            f"{len(problems)} problems" + "".join(f"\n  {p}" for p in problems[:20])))
        return 0 if not problems and not failures and verified == len(sample) else 1
    finally:
        for bot in bots.values():
            bot.stop()
        if service is not None:
            service.stop()
        workdir.cleanup()


if __name__ == "__main__":
    sys.exit(main())
