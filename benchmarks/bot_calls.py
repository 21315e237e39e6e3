"""Benchmark: the calls a bot of the SDK (clients/sdk.py) makes per action of its own.

Plays ``--matches`` matches between two SDK bots (``--german``/``--soviet`` strategies, random by
default) through a service of its own (``typhoon serve`` in a child process, embedded Redis), each bot
with its own gRPC channel whose client interceptor counts every call by method: unary calls, and the
streams it opened. Prints, per side, the actions the bot submitted and, per own action, each kind of
call, then the calls other than SubmitAction per own action (the goal: 0, one SubmitAction and the one
stream it holds).

    .venv/bin/python benchmarks/bot_calls.py                       # 3 matches, random against random
    .venv/bin/python benchmarks/bot_calls.py --matches 5 --german heuristic

The counts do not depend on the machine's speed, only on what the bots do (a busy machine makes
races, and so stale submissions, more likely).
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
from tabulate import tabulate  # noqa: E402

from clients.client import TyphoonClient  # noqa: E402
from clients.runner import EmbeddedService  # noqa: E402
from clients.sdk import Bot  # noqa: E402


class CallCounter(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Counts the calls made on a channel, by method name (``SubmitAction``, ``WatchMatch``...)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _count(self, details) -> None:
        with self._lock:
            self.calls[details.method.rsplit("/", 1)[-1]] += 1

    def intercept_unary_unary(self, continuation, client_call_details, request):
        self._count(client_call_details)
        return continuation(client_call_details, request)

    def intercept_unary_stream(self, continuation, client_call_details, request):
        self._count(client_call_details)
        return continuation(client_call_details, request)


def counted_client(target: str) -> tuple[TyphoonClient, CallCounter]:
    counter = CallCounter()
    channel = grpc.intercept_channel(grpc.insecure_channel(target), counter)
    return TyphoonClient(target, channel=channel, retries=0), counter


def play(target: str, german: str, soviet: str, index: int) -> dict[str, tuple[int, Counter]]:
    """One match; per side, the actions its bot submitted and the calls its channel made."""
    with TyphoonClient(target) as setup:
        match, _ = setup.create_match()
    results: dict[str, tuple[int, Counter]] = {}
    bots, threads, counters = [], [], {}
    for side, strategy in (("german", german), ("soviet", soviet)):
        client, counters[side] = counted_client(target)
        bot = Bot(strategy, client=client, match_id=match.match_id, side=side, seed=f"calls-{index}-{side}")
        bots.append(bot)
        threads.append(threading.Thread(target=bot.run, daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    for bot in bots:
        results[bot.side] = (bot.result.actions, counters[bot.side].calls)
        bot.client.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--german", default="random")
    parser.add_argument("--soviet", default="random")
    parser.add_argument("--server", help="a running service's gRPC address (default: start one)")
    args = parser.parse_args(argv)
    totals = {side: [0, Counter()] for side in ("german", "soviet")}
    service = None if args.server else EmbeddedService()
    target = args.server or service.start()
    try:
        for index in range(args.matches):
            for side, (actions, calls) in play(target, args.german, args.soviet, index).items():
                totals[side][0] += actions
                totals[side][1].update(calls)
    finally:
        if service is not None:
            service.stop()
    methods = sorted({m for _, calls in totals.values() for m in calls})
    rows = []
    for side, (actions, calls) in totals.items():
        others = sum(n for m, n in calls.items() if m != "SubmitAction")
        rows.append([side, actions, *(f"{calls[m] / max(actions, 1):.3f}" for m in methods),
                     f"{others / max(actions, 1):.3f}"])
    print(f"{args.matches} matches, {args.german} (German) against {args.soviet} (Soviet): calls per own action")
    print(tabulate(rows, headers=["side", "own actions", *methods, "not SubmitAction"], disable_numparse=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
