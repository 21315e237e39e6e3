"""Measure the Redis memory a match takes, live and finished, for sizing (deploy/README.md).

Starts ``typhoon serve`` with its embedded Redis, plays random matches through it over gRPC (both
seats, every action with a request id, as the Python client sends them), and reads ``MEMORY USAGE``
of each match's keys: halfway through a match (live) and once it is over and compacted (finished).

    .venv/bin/python benchmarks/redis_memory.py [--matches 3] [--seed memory]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from tabulate import tabulate  # noqa: E402

from clients.client import TyphoonClient  # noqa: E402
from clients.random_play import play_at_random  # noqa: E402
from service.processes import ServeProcess  # noqa: E402
from service.store.match_store import key  # noqa: E402

PARTS = ("meta", "state", "events", "requests", "archive", "request-archive")


def usage(store: redis.Redis, match_id: str) -> dict[str, int]:
    """Bytes per key of a match (0 for a key it does not have)."""
    return {part: store.memory_usage(key(match_id, part), samples=0) or 0 for part in PARTS}


def play(client: TyphoonClient, store: redis.Redis, seed: str) -> tuple[int, dict[str, int], dict[str, int]]:
    """One random match to its end: (actions, bytes halfway, bytes once compacted)."""
    match, tokens = client.create_match(seats=["german", "soviet"])
    actions, halfway = 0, {}
    for actions in play_at_random(client, match.match_id, tokens, random.Random(seed)):
        if actions == 250:
            halfway = usage(store, match.match_id)
    deadline = time.monotonic() + 30
    while not store.exists(key(match.match_id, "archive")) and time.monotonic() < deadline:
        time.sleep(0.05)
    return actions, halfway, usage(store, match.match_id)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", default="memory")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="typhoon-memory-") as workdir:
        service = ServeProcess("--data-dir", str(Path(workdir) / "data"), "--log-level", "warning",
                               env={"REDIS_URL": ""}).start()
        try:
            socket_path = Path(workdir) / "data" / "redis.sock"
            store = redis.Redis(unix_socket_path=str(socket_path))
            rows = []
            with TyphoonClient(service.target, timeout=30) as client:
                for number in range(args.matches):
                    actions, halfway, finished = play(client, store, f"{args.seed}-{number}")
                    for label, sizes in (("live, after 250 actions", halfway), ("finished, compacted", finished)):
                        rows.append([number, actions, label, *(round(sizes.get(p, 0) / 1024, 1) for p in PARTS),
                                     round(sum(sizes.values()) / 1024, 1)])
            print(tabulate(rows, headers=["match", "actions", "when", *PARTS, "total KB"], tablefmt="simple",
                           disable_numparse=True))
            print("(KB = 1024 bytes of MEMORY USAGE; the request records expire 24 h after a match's last action: "
                  "while it is live in the requests hash, once it ended in the request archive, compressed)")
        finally:
            service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
