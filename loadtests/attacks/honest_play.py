"""Honest play beside an attack: one client from an address of its own, playing random legal actions in
matches of its own over gRPC as fast as the service answers, and the rate it gets; and the latency of
``/healthz`` meanwhile. An attack measures both alone, then under attack (a benchmark's figures, never
a test's: the machine is shared). The attacker itself runs apart, at a low CPU priority
(:func:`attacker`): what slows honest play is then what the service spends on the attack, not the
attacker's own work on this machine (an attacker elsewhere costs the service only that)."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import statistics
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import psutil

from clients.client import TyphoonClient, TyphoonError

if TYPE_CHECKING:  # the package imports this module: no import at run time
    from loadtests.attacks import Target

T = TypeVar("T")

#: The honest client's address (X-Forwarded-For through the trusted proxy): none of an attacker's.
HONEST_ADDRESS = "198.51.100.200"


class HonestPlay:
    """Random play in a process of its own (``with HonestPlay(target) as play: play.rate(5)``), so that
    the attacker's threads do not slow the honest client itself: the calls answered, counted."""

    def __init__(self, target: Target, address: str = HONEST_ADDRESS, scenario: str = "standard",
                 matches: int = 1) -> None:
        """``matches`` of ``scenario`` made at once and played in turn (each replaced when it ends)."""
        context = multiprocessing.get_context("spawn")
        self._calls = context.Value("q", 0)
        self._refused = context.Value("q", 0)
        self._stop = context.Event()
        self._process = context.Process(target=_play, args=(target.grpc, address, scenario, matches, self._calls,
                                                             self._refused, self._stop), name="honest-play", daemon=True)

    def __enter__(self) -> HonestPlay:
        self._process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._process.join(30)
        if self._process.is_alive():
            self._process.kill()

    @property
    def calls(self) -> int:
        return int(self._calls.value)

    @property
    def refused(self) -> int:
        return int(self._refused.value)

    def rate(self, seconds: float) -> float:
        """Calls answered a second over the next ``seconds``."""
        before, started = self.calls, time.monotonic()
        time.sleep(seconds)
        return round((self.calls - before) / (time.monotonic() - started), 1)


def _play(grpc_target: str, address: str, scenario: str, matches: int, calls: Any, refused: Any, stop: Any) -> None:
    """The honest client: random legal actions in ``matches`` matches of its own, in turn, until ``stop``."""
    chooser = random.Random("honest")
    playing: list[tuple[str, dict[str, str]] | None] = [None] * matches
    with TyphoonClient(grpc_target, timeout=30, rate_limit_patience=0, retries=0,
                       metadata=[("x-forwarded-for", address)]) as client:
        for turn in itertools.cycle(range(matches)):
            if stop.is_set():
                return
            try:
                current = playing[turn]
                if current is None:
                    match, tokens = client.create_match(scenario=scenario, seats=["german", "soviet"])
                    current = playing[turn] = (match.match_id, tokens)
                match_id, tokens = current
                legal = client.legal_actions(match_id)
                calls.value += 1
                if not legal.side_to_act:
                    playing[turn] = None
                    continue
                client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                              expected_version=legal.version)
                calls.value += 1
            except TyphoonError:
                refused.value += 1
                time.sleep(0.1)


def healthz_ms(target: Target, seconds: float, every: float = 0.1) -> float:
    """The median time of ``GET /healthz`` over ``seconds`` (one at a time, ``every`` seconds apart)."""
    times = []
    end = time.monotonic() + seconds
    with httpx.Client(base_url=target.http, timeout=30) as http:
        while time.monotonic() < end:
            started = time.perf_counter()
            http.get("/healthz")
            times.append((time.perf_counter() - started) * 1000)
            time.sleep(every)
    return round(statistics.median(times), 1) if times else float("nan")


def rate_and_health(play: HonestPlay, target: Target, seconds: float) -> tuple[float, float]:
    """Honest play's rate and /healthz's median over the same ``seconds``."""
    found: dict[str, float] = {}
    probe = threading.Thread(target=lambda: found.update(ms=healthz_ms(target, seconds)))
    probe.start()
    rate = play.rate(seconds)
    probe.join()
    return rate, found.get("ms", float("nan"))


class ServiceCpu:
    """The CPU the service's processes use over a span (``with ServiceCpu(target) as cpu: ...; cpu.shares``):
    its own process(es), its history pool's, Redis's, as % of one core; and the whole machine's busy %."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.shares: dict[str, float] = {}

    def _times(self) -> dict[str, float]:
        assert self.target.service.process is not None
        root = psutil.Process(self.target.service.process.pid)
        totals: dict[str, float] = {}
        for process in [root, *root.children(recursive=True)]:
            try:
                kind = "redis" if "redis" in process.name() else \
                    "history pool" if "spawn_main" in " ".join(process.cmdline()) else "service"
                times = process.cpu_times()
            except psutil.Error:
                continue
            totals[kind] = totals.get(kind, 0.0) + times.user + times.system
        return totals

    def __enter__(self) -> ServiceCpu:
        self._started, self._before = time.monotonic(), self._times()
        psutil.cpu_percent()
        return self

    def __exit__(self, *exc: object) -> None:
        spent = time.monotonic() - self._started
        after = self._times()
        self.shares = {f"{kind} CPU %": round(100 * (after[kind] - self._before.get(kind, 0.0)) / spent)
                       for kind in after}
        self.shares["machine busy %"] = round(psutil.cpu_percent())


#: The attacker's processes run this much nicer than the rest.
ATTACKER_NICENESS = 15


def attacker(function: Callable[..., T], *args: Any, seconds: float) -> T:
    """``function(*args)`` in a process of its own at a low CPU priority; what it returns (picklable),
    waiting at most ``seconds`` and two minutes more."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    process = context.Process(target=_niced, args=(function, args, results), daemon=True)
    process.start()
    try:
        return results.get(timeout=seconds + 120)  # type: ignore[no-any-return]
    finally:
        process.join(30)
        if process.is_alive():
            process.kill()


def _niced(function: Callable[..., Any], args: tuple[Any, ...], results: Any) -> None:
    os.nice(ATTACKER_NICENESS)
    results.put(function(*args))
