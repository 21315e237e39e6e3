"""The fault test's short form: live matches over two service processes and one Redis while a service
is SIGKILLed, Redis is SIGKILLed and Redis is frozen (SIGSTOP); then every acknowledged action is in
the log exactly once at its acknowledged version, nothing else is, every match replay-verifies and
every live watcher saw the whole log once, in order (``loadtests/chaos.py``; the long form's figures
are in loadtests/README.md)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from loadtests import chaos


def test_acknowledged_actions_survive_killed_services_and_a_killed_or_frozen_redis():
    result = chaos.run(matches=4, services=2, faults_wanted=3, fault_every=1.0, freeze=1.0, seed=12, quiet=True)
    assert result["problems"] == {}, result
    assert set(result["faults"]) == {"service SIGKILL", "Redis SIGKILL", "Redis SIGSTOP 1 s"}
    assert result["acknowledged"] > 0 and result["finished"] == 4
    assert result["replays_verified"] == 4
    assert result["ok"]
