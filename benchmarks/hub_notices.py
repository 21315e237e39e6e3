"""Benchmark: what the fan-out of a change costs a watching process, read from Redis or taken from its notice.

A writer child process (core 1) commits changes to ``--matches`` bare matches, a few events each (``--events``,
of ~``--event-bytes`` JSON each, with a meta hash of ~25 fields, as a played match has), at ``--rate`` changes
a second; this process (core 0) follows every match with ``--watchers`` watchers in one
:class:`~service.store.hub.StreamHub`, as a service process does for its watch streams, and counts its own CPU
time per change delivered to every watcher. Two ways, alternated round by round in the same run:

- ``read``: the writer's commits publish only the plain notice of their last sequence (as the previous
  version's did: ``Store.notice_max_bytes = 0``), and the hub reads each change from Redis;
- ``notice``: the commits' notices carry the change (the default), and the hub hands it on as it is.

Also from Redis (``INFO``): its commands per change and its CPU per change.

    .venv/bin/python benchmarks/hub_notices.py
    .venv/bin/python benchmarks/hub_notices.py --matches 200 --watchers 3 --rate 150 --rounds 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from tabulate import tabulate  # type: ignore[import-untyped]  # noqa: E402

from service.store.embedded_redis import EmbeddedRedis  # noqa: E402
from service.store.hub import MatchState, StreamHub  # noqa: E402
from service.store.match_store import NOTICE_MAX_BYTES, Store, StoredEvent, state_hash  # noqa: E402

META_FIELDS = {f"field_{n:02d}": "v" * 20 for n in range(25)}


def _events(seq: int, version: int, count: int, size: int) -> list[StoredEvent]:
    return [StoredEvent(seq + n, version, 1_700_000_000_000 + seq + n, "game",
                        {"type": "unit_moved", "seq": seq + n, "path": ["0704"] * max(1, size // 10)})
            for n in range(1, count + 1)]


async def _create(store: Store, ids: list[str]) -> None:
    for match_id in ids:
        await store.create(match_id, {"id": match_id, "status": "active", "version": "0", "last_sequence": "1",
                                      **META_FIELDS}, '{"v":0}', 0,
                           [StoredEvent(1, 0, 0, "service", {"type": "match_created"})], 0)


def _writer(url: str, ids: list[str], stop: Any, rate: float, events: int, size: int, notices: bool,
            core: int | None) -> None:
    """Commits changes round the matches at ``rate`` a second until ``stop`` is set (a child process)."""
    if core is not None:
        os.sched_setaffinity(0, {core})

    async def run() -> None:
        store = Store.from_url(url)
        store.notice_max_bytes = NOTICE_MAX_BYTES if notices else 0
        state = {match_id: (0, 1) for match_id in ids}
        started = time.perf_counter()
        done = 0
        while not stop.is_set():
            match_id = ids[done % len(ids)]
            version, seq = state[match_id]
            new = _events(seq, version + 1, events, size)
            await store.commit(match_id, version, seq, version + 1, f'{{"v":{version + 1}}}',
                               {"version": str(version + 1), "last_sequence": str(new[-1].seq)}, new,
                               expected_hash=state_hash(f'{{"v":{version}}}'))
            state[match_id] = (version + 1, new[-1].seq)
            done += 1
            ahead = done / rate - (time.perf_counter() - started)
            if ahead > 0:
                await asyncio.sleep(ahead)
        await store.close()

    asyncio.run(run())


async def _phase(url: str, way: str, args: argparse.Namespace, number: int, cores: list[int] | None) -> dict[str, float]:
    store = Store.from_url(url)
    hub = StreamHub(store)
    ids = [f"bench{number}-{way}-{n}" for n in range(args.matches)]
    await _create(store, ids)
    changes = 0

    async def watch(match_id: str) -> None:
        nonlocal changes
        async for item in hub.follow(match_id, 0, heartbeat=30):
            if isinstance(item, MatchState):
                changes += 1

    watchers = [asyncio.create_task(watch(match_id)) for match_id in ids for _ in range(args.watchers)]
    while changes < len(watchers):  # every watcher caught up (its first MatchState)
        await asyncio.sleep(0.05)
    info = redis.Redis.from_url(url)

    def redis_now() -> tuple[int, float]:
        stats = info.info("all")
        return (sum(int(v["calls"]) for k, v in stats.items() if k.startswith("cmdstat_")),
                float(stats["used_cpu_sys"]) + float(stats["used_cpu_user"]))

    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    writer = context.Process(target=_writer, args=(url, ids, stop, args.rate, args.events, args.event_bytes,
                                                   way == "notice", cores[1] if cores else None))
    writer.start()
    changes = 0
    while changes < len(watchers):  # the writer is playing
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    changes, cpu, wall, (commands, redis_cpu) = 0, time.process_time(), time.perf_counter(), redis_now()
    reads = hub.reads
    await asyncio.sleep(args.seconds)
    delivered = changes / args.watchers
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    commands_after, redis_cpu_after = redis_now()
    reads = hub.reads - reads
    stop.set()
    await asyncio.to_thread(writer.join)
    for task in watchers:
        task.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    await hub.close()
    await store.close()
    return {"changes_per_s": delivered / wall, "hub_cpu_us_per_change": cpu * 1e6 / delivered,
            "reads_per_change": reads / delivered, "redis_commands_per_change": (commands_after - commands - 1) / delivered,
            "redis_cpu_us_per_change": (redis_cpu_after - redis_cpu) * 1e6 / delivered}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/hub_notices.py", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--watchers", type=int, default=2, help="watchers per match in this process")
    parser.add_argument("--rate", type=float, default=100.0, help="changes a second, over all the matches")
    parser.add_argument("--events", type=int, default=3, help="events per change")
    parser.add_argument("--event-bytes", type=int, default=200, help="about how long each event's JSON is")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured, per way and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pinned = cores[:2] if len(cores) >= 2 else None
    if pinned:
        os.sched_setaffinity(0, {pinned[0]})
    rows: list[dict[str, Any]] = []
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="hub-notices-") as tmp, EmbeddedRedis(Path(tmp) / "redis") as url:
        for number in range(args.rounds):
            for way in (("read", "notice") if number % 2 == 0 else ("notice", "read")):
                rows.append({"round": number + 1, "way": way,
                             **{k: round(v, 2) for k, v in asyncio.run(_phase(url, way, args, number, pinned)).items()}})
                load.append(os.getloadavg()[0])
    print(tabulate([list(r.values()) for r in rows], headers=list(rows[0]), tablefmt="github"))
    ratios = []
    for number in range(1, args.rounds + 1):
        by_way = {r["way"]: r for r in rows if r["round"] == number}
        ratios.append(by_way["notice"]["hub_cpu_us_per_change"] / by_way["read"]["hub_cpu_us_per_change"])
    print(f"the watching process's CPU per change, notice / read: median {statistics.median(ratios):.3f} "
          f"(rounds: {', '.join(f'{r:.3f}' for r in ratios)}); load average {min(load):.1f}-{max(load):.1f} "
          f"(the machine may be shared: read the ratios within a round)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
