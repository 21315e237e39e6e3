"""Honest play beside an attack, from another address than the attacker's: a few threads playing random
legal actions over gRPC, and the service's readiness read twice a second, in a process of their own; what the attacks print as
"honest play kept" (the rate during the attack against the rate just before, on the same machine).
The attackers come from 127.0.0.2 and up; honest play is 127.0.0.1's.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from clients.client import TyphoonClient
from clients.random_play import play_at_random

ROOT = Path(__file__).resolve().parents[1]


class HonestPlay:
    """``players`` threads in a process of their own (the attacker's own work does not slow them), each
    playing one match after another (random legal actions, both seats) and telling when each action was
    applied; :meth:`rate` is actions a second over a period, :meth:`readiness` what ``/readyz`` said."""

    def __init__(self, grpc_target: str, http_base: str, players: int = 2) -> None:
        self.grpc_target = grpc_target
        self.http_base = http_base
        self.players = players
        self.actions: list[float] = []  # when each action was applied (time.monotonic(), the same clock)
        self.failures = 0
        self.ready: list[tuple[float, bool]] = []
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> HonestPlay:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "loadtests.honest", self.grpc_target, self.http_base, str(self.players)],
            cwd=ROOT, stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        return self

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(30)
        if self._reader is not None:
            self._reader.join(30)

    def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            kind, _, rest = line.strip().partition(" ")
            if kind == "a":
                self.actions.append(float(rest))
            elif kind == "f":
                self.failures += 1
            elif kind == "r":
                at, _, ok = rest.partition(" ")
                self.ready.append((float(at), ok == "1"))


    def rate(self, start: float, end: float) -> float:
        """Actions a second between two ``time.monotonic()`` instants."""
        return round(sum(start <= at < end for at in list(self.actions)) / max(end - start, 1e-9), 1)

    def readiness(self, start: float, end: float) -> dict[str, Any]:
        """How often ``/readyz`` said not ready between two instants, and how many times it turned."""
        seen = [ok for at, ok in list(self.ready) if start <= at < end]
        turns = sum(1 for before, after in zip(seen, seen[1:]) if before != after)
        return {"not ready": f"{seen.count(False)}/{len(seen)}", "turns": turns}


def _play(grpc_target: str, number: int, say: Callable[[str], None]) -> None:
    """Play matches one after another, each as players of a network of its own (the service under attack
    trusts this machine as a proxy: its limits count each of them, not the attacker's). A network, not
    only an address: the limits count an IPv4 client by its /24 and an IPv6 one by its /64, and two
    players at full speed from one /24 spent its ``client_actions`` (2,400 a minute) in the first eight
    seconds, the baseline, and then waited out the rest of the minute under the attack."""
    chooser = random.Random(number)
    for match_number in itertools.count():
        address = f"2001:db8:{number:x}:{match_number % 65536:x}::1"
        try:
            with TyphoonClient(grpc_target, timeout=30, rate_limit_patience=120,
                               metadata=[("x-forwarded-for", address)]) as client:
                match, tokens = client.create_match(seats=["german", "soviet"])
                for _ in play_at_random(client, match.match_id, tokens, chooser):
                    say(f"a {time.monotonic()}")
        except Exception:  # noqa: BLE001 - told: honest play that failed under the attack
            say("f")
            time.sleep(0.5)


def _probe(http_base: str, say: Callable[[str], None]) -> None:
    with httpx.Client(base_url=http_base, timeout=10) as http:
        while True:
            time.sleep(0.5)
            try:
                ok = http.get("/readyz").status_code == 200
            except httpx.HTTPError:
                ok = False
            say(f"r {time.monotonic()} {int(ok)}")


def main(argv: list[str]) -> None:
    """The honest players' process: ``python -m loadtests.honest GRPC HTTP PLAYERS``."""
    grpc_target, http_base, players = argv[0], argv[1], int(argv[2])
    lock = threading.Lock()

    def say(line: str) -> None:
        with lock:
            print(line, flush=True)

    threads = [threading.Thread(target=_play, args=(grpc_target, n, say), daemon=True) for n in range(players)]
    threads.append(threading.Thread(target=_probe, args=(http_base, say), daemon=True))
    for thread in threads:
        thread.start()
    threads[0].join()


@contextmanager
def honest_play(grpc_target: str, http_base: str, baseline: float = 8.0) -> Iterator[tuple[HonestPlay, float]]:
    """Honest play running, after ``baseline`` seconds of it alone: yields it and the rate it had then."""
    play = HonestPlay(grpc_target, http_base).start()
    try:
        warm = time.monotonic() + 120  # its process started and playing (imports take seconds)
        while len(play.actions) < 20 and time.monotonic() < warm:
            time.sleep(0.2)
        started = time.monotonic()
        time.sleep(baseline)
        yield play, play.rate(started, time.monotonic())
    finally:
        play.stop()


def kept(before: float, during: float, after: float | None = None) -> str:
    """Honest play's rate during an attack as a share of its rate alone: before the attack, or the mean of
    before and ``after`` it when given (on a shared machine the rate alone drifts: a control run with no
    attack at all kept 46 % of its first eight seconds' rate).

    >>> kept(10.0, 6.0)
    '60% (10.0 -> 6.0 actions/s)'
    >>> kept(10.0, 6.0, 6.0)
    '75% (10.0 -> 6.0 -> 6.0 actions/s)'
    """
    alone = before if after is None else (before + after) / 2
    share = round(100 * during / alone) if alone else 0
    return f"{share}% ({before} -> {during}{'' if after is None else f' -> {after}'} actions/s)"


__all__ = ["HonestPlay", "honest_play", "kept"]


if __name__ == "__main__":
    main(sys.argv[1:])
