"""A small Redis filled by a flood of new matches (issue 34, point 9): with ``--redis-maxmemory 32mb``,
the guard sampled Redis's memory every 5 s, Redis went past 100 % and refused 50 writes, an honest
action among them.

The attack starts a service of its own with its defaults but ``--redis-maxmemory 32mb`` (trusting
127.0.0.1 as a proxy, as ``loadtests.abuse`` does), measures honest play from an address of its own
(:mod:`loadtests.attacks.honest_play`: four campaign matches made before, played in turn: no new one
is made while the store is full) alone for a quarter of its time, then floods CreateMatch from eight threads, each moving
to a fresh address of 198.18.0.0/15 every 30 matches (the ``create_match`` limit counts per address),
for half its time, then measures honest play alone again, the store full (the rate alone is the mean
of the two: the machine is shared, its load drifts). Figures: Redis's memory before and after (and the largest share of
``maxmemory`` seen, read every 0.1 s), the writes Redis refused for want of memory (its
``errorstat_OOM``: 0 is the goal), the flood's answers by reason, and honest play's rate alone and
during the flood, with its refusals.
"""

from __future__ import annotations

import itertools
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import redis

from clients.client import TyphoonClient, TyphoonError
from loadtests.attacks.honest_play import HonestPlay, attacker
from service.processes import ServeProcess

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

NAME = "store-full"
SUMMARY = "a flood of new matches from many addresses into a 32 MB Redis, with honest play beside it"
MAXMEMORY = "32mb"
THREADS = 8
PER_ADDRESS = 30


def _share(admin: redis.Redis) -> float:
    memory = admin.info("memory")
    share: float = (memory["used_memory"] - memory.get("mem_not_counted_for_evict", 0)) / max(1, memory["maxmemory"])
    return share


def _oom(admin: redis.Redis) -> int:
    return int(admin.info("errorstats").get("errorstat_OOM", {}).get("count", 0))


def run(target: Target, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="typhoon-store-full-") as data_dir:
        service = ServeProcess("--data-dir", data_dir, "--trusted-proxy", "127.0.0.1", "--redis-maxmemory", MAXMEMORY,
                               remember=200).start()
        admin = redis.Redis(unix_socket_path=str(Path(data_dir) / "redis.sock"))
        try:
            own = type(target)(grpc=service.target, http=service.base_url, service=service)
            return _attack(own, admin, seconds)
        finally:
            admin.close()
            service.stop()


def _flood(grpc_target: str, seconds: float) -> Counter[str]:
    """CreateMatch from THREADS threads for ``seconds``, each moving to a fresh address every PER_ADDRESS."""
    addresses = (f"198.{18 + n // 65536 % 2}.{n // 256 % 256}.{n % 256}" for n in itertools.count(1))
    lock = threading.Lock()
    outcomes: Counter[str] = Counter()
    end = time.monotonic() + seconds

    def flood() -> None:
        while time.monotonic() < end:
            with lock:
                address = next(addresses)
            with TyphoonClient(grpc_target, timeout=30, rate_limit_patience=0, retries=0,
                               metadata=[("x-forwarded-for", address)]) as client:
                for _ in range(PER_ADDRESS):
                    if time.monotonic() > end:
                        return
                    try:
                        client.create_match(seats=["german"])
                        outcomes["created"] += 1
                    except TyphoonError as error:
                        outcomes[error.reason or error.code.name] += 1

    threads = [threading.Thread(target=flood) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def _attack(target: Target, admin: redis.Redis, seconds: float) -> dict[str, Any]:
    figures: dict[str, Any] = {"maxmemory": MAXMEMORY, "Redis MB before": round(admin.info("memory")["used_memory"] / 2**20, 1)}
    peak = {"share": _share(admin)}
    stop = threading.Event()

    def watch_memory() -> None:
        while not stop.is_set():
            peak["share"] = max(peak["share"], _share(admin))
            time.sleep(0.1)

    with HonestPlay(target, scenario="campaign", matches=4) as play:
        play.rate(1.0)  # its first match made
        before = play.rate(seconds / 4)
        refused_before = play.refused
        watcher = threading.Thread(target=watch_memory)
        watcher.start()
        found: dict[str, Any] = {}
        flooding = threading.Thread(target=lambda: found.update(
            outcomes=attacker(_flood, target.grpc, seconds / 2, seconds=seconds)))
        flooding.start()
        during = play.rate(seconds / 2)
        flooding.join()
        refused_during = play.refused - refused_before
        after = play.rate(seconds / 4)  # the store full: the live matches go on
        stop.set()
        watcher.join(60)
        outcomes = found.get("outcomes", Counter())
        alone = (before + after) / 2
        figures |= {"honest calls/s alone before, after": f"{before}, {after}",
                    "honest calls/s during the flood": f"{during} ({during / alone:.0%} of alone)" if alone else during,
                    "honest calls refused during the flood": refused_during}
    figures |= {"flood answers": dict(outcomes.most_common()),
                "Redis MB after": round(admin.info("memory")["used_memory"] / 2**20, 1),
                "largest share of maxmemory seen": f"{peak['share']:.1%}",
                "writes Redis refused (OOM)": _oom(admin)}
    return figures
