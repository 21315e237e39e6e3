"""Smoke test of the load test: ``python -m loadtests.run`` for a few seconds with a few users.

It starts a real service (its own embedded Redis) and locust headless with gRPC and REST players
and watchers, then checks that matches progressed (actions applied, matches completed through a
resignation after a few actions), that nothing failed, that watchers saw no sequence gap, and that
everything stopped cleanly. The runner runs in a child process: locust patches the standard
library with gevent, which must not happen inside pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from loadtests import metrics  # noqa: E402
from loadtests.run import read_stats, seconds_of  # noqa: E402


#: What the run must have seen before it ends (each over gRPC and over REST), by workload; --run-time only
#: bounds it, so a busy machine makes it longer, never a failure.
RPCS = {"stream": ["CreateMatch", "JoinMatch", "WatchMatch (play)", "SubmitAction", "Resign", "GetEventLog",
                   "ListMatches"],
        "poll": ["CreateMatch", "JoinMatch", "ListLegalActions", "SubmitAction", "Resign", "GetEventLog",
                 "WatchMatch (catch-up)", "ListMatches"]}


@pytest.mark.parametrize("workload", ["stream", "poll"])
def test_locust_smoke(tmp_path, workload):
    out = tmp_path / "run"
    result_path = tmp_path / "result.json"
    completed = subprocess.run(
        [sys.executable, "-m", "loadtests.run", "--users", "4", "--watchers", "2", "--transport", "mixed",
         "--workload", workload,
         "--run-time", "300s", "--until", ",".join(RPCS[workload]) + "=2", "--max-actions", "30",
         "--event-log-every", "5", "--watch-every", "10", "--watch-seconds", "3", "--out", str(out),
         # a player's pace, not a flood: with no think time at all its log reads (one every 5 actions) pass the
         # history budget's 1,000 entries a second per client and are refused, as a flood's should be
         "--think-time", "0.05",
         "--json", str(result_path), "--quiet"],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads(result_path.read_text())

    assert result["ok"]
    assert result["total"]["requests"] > 100
    assert result["total"]["failures"] == 0
    assert result["failures"] == []
    calls = {(row["rpc"], row["transport"]): row["requests"] for row in result["rpcs"]}
    for transport in ("grpc", "rest"):
        for rpc in RPCS[workload]:
            assert calls.get((rpc, transport), 0) >= 2, (rpc, transport, calls)

    # what the calls above imply (two resignations per transport, each after 30 actions), not a throughput
    figures = result["typhoon"]
    assert figures["matches"]["completed"] >= 2
    assert figures["matches"]["resigned"] >= 2
    assert figures["matches"]["abandoned"] == 0
    assert figures["actions"]["total"] >= 60
    assert figures["matches"]["simultaneous"]["peak"] >= 1
    assert figures["watch"]["gaps"] == 0

    assert [s["stopped_cleanly"] for s in result["services"]] == [True]
    assert result["services"][0]["calls_by_code"].get("OK", 0) > 100
    # nothing left running: no service, no Redis, no locust started from this run's directory
    leftovers = [p.info for p in psutil.process_iter(["pid", "cmdline"])
                 if any(str(out) in part for part in (p.info["cmdline"] or []))]
    assert leftovers == []


def test_seconds_of():
    assert seconds_of("90") == 90
    assert seconds_of("90s") == 90
    assert seconds_of("2m") == 120
    assert seconds_of("1m30s") == 90


def test_metrics_merge_and_percentiles():
    a, b = metrics.Metrics(), metrics.Metrics()
    for value in range(1, 101):
        a.observe(metrics.EVENT_LAG_MS, value)
    a.count(metrics.ACTIONS, 5)
    b.merge(a.drain())
    b.merge(a.drain())  # drained: nothing more
    assert b.counters[metrics.ACTIONS] == 5
    figures = metrics.describe(b.histograms[metrics.EVENT_LAG_MS])
    assert figures["count"] == 100
    assert 45 <= figures["p50"] <= 55
    assert figures["p99"] >= 95


def test_read_stats_without_files(tmp_path):
    assert read_stats(tmp_path / "none") == ([], None)
