"""The load test's own figures, besides locust's per-request statistics.

Locust counts requests; a match service is also judged by matches: how many were played to the end,
how many ran at once, how many actions per second they made, how late watchers saw the events.
Each locust process keeps a :class:`Metrics`; in a distributed run (``--processes``) the workers
send theirs to the master with every stats report (``report_to_master``), and the master adds them
up (``worker_report``). The master (or the only process) samples the number of running matches
every second and writes the summary as JSON at the end (``--typhoon-summary``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

# counters
MATCHES_STARTED = "matches_started"
MATCHES_FINISHED = "matches_finished"  # played to the end of the game
MATCHES_RESIGNED = "matches_resigned"  # ended by a resignation after --max-actions actions
MATCHES_ABANDONED = "matches_abandoned"  # a call failed: the user left the match and started another
ACTIONS = "actions"  # SubmitAction calls that applied an action
RETRIES = "retries"  # calls retried after UNAVAILABLE (each failed attempt is also a locust failure)
RATE_LIMIT_WAITS = "rate_limit_waits"  # calls sent again once a rate limit's Retry-After passed (each refusal is a locust failure too)
WATCH_SESSIONS = "watch_sessions"
WATCH_EVENTS = "watch_events"
WATCH_GAPS = "watch_gaps"  # a watcher saw a sequence number jump or repeat: must stay 0

# histograms
MATCH_SECONDS = "match_seconds"  # wall time of a whole match (create to last action), rounded to 0.1 s
MATCH_ACTIONS = "match_actions"  # actions per completed match
EVENT_LAG_MS = "event_lag_ms"  # watchers: receive time - commit time of each live event


def _bucket(value: float) -> float:
    """Locust-like rounding, so that histograms stay small: 2 significant digits above 100."""
    if value < 100:
        return round(value, 1) if value < 10 else round(value)
    digits = int(math.log10(value)) - 1
    return round(value, -digits)


class Metrics:
    """Counters, a gauge of running matches and histograms of one locust process."""

    def __init__(self) -> None:
        self.counters: Counter[str] = Counter()
        self.histograms: dict[str, Counter[float]] = {}
        self.running = 0  # matches in progress in this process (the gauge)

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def observe(self, name: str, value: float) -> None:
        self.histograms.setdefault(name, Counter())[_bucket(value)] += 1

    def drain(self) -> dict[str, Any]:
        """What happened since the last drain (a worker's report), plus the current gauge."""
        report = {"counters": dict(self.counters), "running": self.running,
                  "histograms": {name: [[k, v] for k, v in h.items()] for name, h in self.histograms.items()}}
        self.counters = Counter()
        self.histograms = {}
        return report

    def merge(self, report: dict[str, Any]) -> None:
        self.counters.update(report.get("counters", {}))
        for name, pairs in report.get("histograms", {}).items():
            histogram = self.histograms.setdefault(name, Counter())
            for value, n in pairs:
                histogram[value] += n


def percentile(histogram: Counter[float], fraction: float) -> float | None:
    total = sum(histogram.values())
    if not total:
        return None
    rank = fraction * total
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= rank:
            return value
    return max(histogram)


def describe(histogram: Counter[float] | None) -> dict[str, Any]:
    histogram = histogram or Counter()
    total = sum(histogram.values())
    return {"count": total,
            "mean": round(sum(k * v for k, v in histogram.items()) / total, 2) if total else None,
            "p50": percentile(histogram, 0.50), "p95": percentile(histogram, 0.95),
            "p99": percentile(histogram, 0.99), "max": max(histogram) if histogram else None}


class RunningSampler:
    """Samples the number of running matches (the sum over the workers) once a second."""

    def __init__(self) -> None:
        self.samples: list[int] = []

    def add(self, value: int) -> None:
        self.samples.append(value)

    def summary(self) -> dict[str, Any]:
        samples = self.samples
        # the steady state: from the first time the peak was reached (after the ramp-up)
        peak = max(samples, default=0)
        steady = samples[samples.index(peak):] if samples else []
        return {"peak": peak, "mean": round(sum(samples) / len(samples), 1) if samples else 0,
                "mean_after_ramp_up": round(sum(steady) / len(steady), 1) if steady else 0,
                "samples": len(samples)}


def summary(metrics: Metrics, sampler: RunningSampler, seconds: float) -> dict[str, Any]:
    c = metrics.counters
    completed = c[MATCHES_FINISHED] + c[MATCHES_RESIGNED]
    return {
        "seconds": round(seconds, 1),
        "matches": {"started": c[MATCHES_STARTED], "completed": completed, "finished": c[MATCHES_FINISHED],
                    "resigned": c[MATCHES_RESIGNED], "abandoned": c[MATCHES_ABANDONED],
                    "completed_per_minute": round(completed * 60 / seconds, 2) if seconds else 0,
                    "simultaneous": sampler.summary(),
                    "duration_seconds": describe(metrics.histograms.get(MATCH_SECONDS)),
                    "actions_per_match": describe(metrics.histograms.get(MATCH_ACTIONS))},
        "actions": {"total": c[ACTIONS], "per_second": round(c[ACTIONS] / seconds, 1) if seconds else 0},
        "retries": c[RETRIES],
        "rate_limit_waits": c[RATE_LIMIT_WAITS],
        "watch": {"sessions": c[WATCH_SESSIONS], "events": c[WATCH_EVENTS], "gaps": c[WATCH_GAPS],
                  "event_lag_ms": describe(metrics.histograms.get(EVENT_LAG_MS)),

                  "event_lag_ms_by_transport": {
                      transport: describe(metrics.histograms.get(f"{EVENT_LAG_MS}.{transport}"))
                      for transport in ("grpc", "rest") if f"{EVENT_LAG_MS}.{transport}" in metrics.histograms}},
    }


def write_summary(path: str, data: dict[str, Any]) -> None:
    with open(path, "w") as out:
        json.dump(data, out, indent=2, sort_keys=True)
