"""The attacks of ``python -m loadtests.abuse``, one module each: ``NAME``, ``SUMMARY`` (what it tries,
in a line) and ``run(target, seconds) -> dict`` (what it got, as figures: counts, refusals by reason,
memory, ranks). An attack is bounded: it stops after ``seconds`` at most and closes what it opened."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import ModuleType

import psutil

from loadtests.attacks import (account_replay, event_log, flood, grpc_raw, history, plaintext, seat_views, slow,
                               store_full, stream_storm, streams, sybil, sybil_patient, sybil_spread, token_guesses)
from service.processes import ServeProcess


@dataclass
class Target:
    """The service under attack: its gRPC address, its HTTP base URL, and its process."""

    grpc: str
    http: str
    service: ServeProcess

    def memory_mb(self) -> float:
        """The resident memory of the service's Python processes (the supervisor and its workers; not
        the embedded Redis), in MB."""
        assert self.service.process is not None
        return memory_mb(self.service.process.pid)

    def memory(self) -> functools.partial[float]:
        """:meth:`memory_mb` as a function an attacker in a process of its own can take (picklable)."""
        assert self.service.process is not None
        return functools.partial(memory_mb, self.service.process.pid)


def memory_mb(pid: int) -> float:
    """The resident memory of process ``pid`` and its children but Redis, in MB."""
    root = psutil.Process(pid)
    processes = [p for p in [root, *root.children(recursive=True)] if "redis" not in p.name()]
    return round(sum(p.memory_info().rss for p in processes) / 2**20, 1)


#: Every attack, in the order they run (a module of this package each; add yours here).
#: (The flood last: it leaves its address waiting, key_failures, and out of registrations.)
ATTACKS: list[ModuleType] = [slow, grpc_raw, streams, stream_storm, sybil, sybil_patient, sybil_spread, seat_views,
                             account_replay, token_guesses, history, event_log, store_full, plaintext, flood]
