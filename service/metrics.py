"""Prometheus metrics of a service process, served at ``GET /metrics`` (prometheus-client).

=============================================  =========================================================
``typhoon_calls_total{method,transport,code}``  calls answered (WatchMatch counts when its stream ends)
``typhoon_call_duration_seconds{method,transport}``  latency histogram of the unary calls
``typhoon_commits_total{outcome}``              commit scripts run: OK, STALE (a refusal, or a race
                                                 lost), MOVED (a race lost), DUPLICATE (a repeated
                                                 request id), NOT_FOUND
``typhoon_commit_retries_total``                commits run again after losing a race
``typhoon_active_matches``                      matches this process committed to in the last 5 minutes
``typhoon_watch_streams``                       open watch streams
``typhoon_watched_matches``                     matches with at least one watch stream here
``typhoon_watch_streams_refused_total{reason}`` streams refused by the caps (service.match.watch_limits)
``typhoon_connections_refused_total{reason}``   refused or ended by the limits on slow and greedy clients
                                                 (service.api.connection_limits): HEADERS_TOO_LARGE,
                                                 TOO_MANY_HEADERS, REQUEST_TIMEOUT, TOO_MANY_CONNECTIONS,
                                                 SLOW_READER
``typhoon_redis_errors_total{where}``           Redis failures: call, feed, fetch, readiness
``typhoon_redis_connections_in_use``, ``typhoon_redis_connections_max``  the pool of this process
``typhoon_feed_connected``                      1 while the notice connection is up (service.store.notify)
``typhoon_ready``                               1 while /readyz says SERVING
``typhoon_process_cpu_seconds``, ``typhoon_process_resident_memory_bytes``  per process (``pid`` label
                                                 with several workers)
``process_cpu_seconds_total``, ``process_resident_memory_bytes``, ...  the process (prometheus-client; one
                                                 worker only: not in multiprocess mode)
=============================================  =========================================================

With several worker processes (``PROMETHEUS_MULTIPROC_DIR`` set before the workers start),
prometheus-client's multiprocess mode adds every worker's counters and histograms up at each scrape
and sums the gauges of the live workers; queries are in ``deploy/README.md``.
"""

from __future__ import annotations

import os
import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

CALLS = Counter("typhoon_calls", "Calls answered, by method, transport and status code",
                ["method", "transport", "code"])
CALL_SECONDS = Histogram("typhoon_call_duration_seconds", "Time to answer a unary call, in seconds",
                         ["method", "transport"],
                         buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
COMMITS = Counter("typhoon_commits", "Commit scripts run, by outcome", ["outcome"])
COMMIT_RETRIES = Counter("typhoon_commit_retries", "Commits run again after losing a race with another writer")
REDIS_ERRORS = Counter("typhoon_redis_errors", "Redis failures, by where they happened", ["where"])
FEED_CHANGES = Counter("typhoon_feed_changes", "Changes handed to a process's watchers, by how: as their commit's "
                       "notice carried them (notice), or read from Redis (read)", ["how"])
WATCH_REFUSED = Counter("typhoon_watch_streams_refused", "Watch streams refused by a cap", ["reason"])
CONNECTIONS_REFUSED = Counter("typhoon_connections_refused", "Connections, requests and streams refused or ended by "
                              "the limits on slow and greedy clients, by reason", ["reason"])
STORED_MATCHES = Gauge("typhoon_stored_matches", "Matches Redis held at the last sweep, live or over", ["state"],
                       multiprocess_mode="mostrecent")
SWEPT = Counter("typhoon_swept_matches", "Matches the hourly sweep compacted, ended as abandoned, or deleted past "
                "the retention, and records it skipped as unreadable", ["what"])
RATE_LIMITED = Counter("typhoon_rate_limited", "Calls refused by a rate limit (service.guard), by limit", ["limit"])
STORE_FULL_REFUSED = Counter("typhoon_store_full_refused", "New matches and players refused while Redis is near "
                             "its maxmemory", ["method"])
STORE_MEMORY = Gauge("typhoon_store_memory_ratio", "Redis's used memory over its maxmemory at the last look "
                     "(the fullest node of a Cluster; 0 without a maxmemory)", multiprocess_mode="livemax")
HISTORY_REFUSED = Counter("typhoon_history_refused", "VerifyMatch and GetMatch-at-a-version calls refused by the "
                          "history pool (service.guard.history_pool), by reason", ["reason"])
HISTORY_ANSWERS = Counter("typhoon_history_answers", "History answers (state at a version, verification), computed "
                          "in the history pool or cached", ["what", "how"])

_LIVE = {"multiprocess_mode": "livesum"}
ACTIVE_MATCHES = Gauge("typhoon_active_matches", "Matches this process committed to in the last 5 minutes", **_LIVE)
WATCH_STREAMS = Gauge("typhoon_watch_streams", "Open watch streams", **_LIVE)
WATCHED_MATCHES = Gauge("typhoon_watched_matches", "Matches with a watch stream in this process", **_LIVE)
POOL_IN_USE = Gauge("typhoon_redis_connections_in_use", "Redis connections of the pool in use", **_LIVE)
POOL_MAX = Gauge("typhoon_redis_connections_max", "The most Redis connections the pool may open", **_LIVE)
FEED_CONNECTED = Gauge("typhoon_feed_connected", "1 while the notice connection is up", **_LIVE)
READY = Gauge("typhoon_ready", "1 while the process is ready to serve", **_LIVE)
HISTORY_PENDING = Gauge("typhoon_history_pending", "Computations in the history pool, running or waiting", **_LIVE)
# per process (a pid label in multiprocess mode, where prometheus-client's process_* metrics are not
# collected): what the process itself measures at each readiness check
PROCESS_CPU = Gauge("typhoon_process_cpu_seconds", "CPU seconds the process has used", multiprocess_mode="all")
PROCESS_RSS = Gauge("typhoon_process_resident_memory_bytes", "Resident memory of the process",
                    multiprocess_mode="all")
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

ACTIVE_WINDOW_SECONDS = 300.0
_last_commit: dict[str, float] = {}


_calls: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}
_commits: dict[str, Counter] = {}


def observe_call(method: str, transport: str, code: str, seconds: float | None) -> None:
    # the labelled children are looked up once (labels() takes a lock and checks its arguments: ~5 µs a call)
    children = _calls.get((method, transport, code))
    if children is None:
        children = _calls[method, transport, code] = (CALLS.labels(method, transport, code),
                                                      CALL_SECONDS.labels(method, transport))
    children[0].inc()
    if seconds is not None:
        children[1].observe(seconds)


def observe_commit(match_id: str, outcome: str) -> None:
    counter = _commits.get(outcome)
    if counter is None:
        counter = _commits[outcome] = COMMITS.labels(outcome)
    counter.inc()
    if outcome == "OK":
        _last_commit[match_id] = time.monotonic()


def active_matches() -> int:
    horizon = time.monotonic() - ACTIVE_WINDOW_SECONDS
    for match_id in [m for m, t in _last_commit.items() if t < horizon]:
        del _last_commit[match_id]
    return len(_last_commit)


def observe_process() -> None:
    PROCESS_CPU.set(time.process_time())
    try:
        with open("/proc/self/statm") as statm:
            PROCESS_RSS.set(int(statm.read().split()[1]) * _PAGE)
    except (OSError, ValueError, IndexError):
        import resource

        PROCESS_RSS.set(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)  # the peak, in KB on Linux


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def exposition() -> tuple[bytes, str]:
    """The text a scrape gets, and its content type."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def process_exited(pid: int) -> None:
    """A worker's live gauges leave the sums (multiprocess mode)."""
    if multiprocess_dir():
        multiprocess.mark_process_dead(pid)
