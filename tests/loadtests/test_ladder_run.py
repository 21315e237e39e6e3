"""loadtests/ladder_run.py rides out an outage of the service as long as its bots do: the service is killed
while its bots play, stays away longer than the run's calls used to wait (~11 s), and comes back; the run
ends with every check passed. Its ``--bots`` take strategy parameters."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from clients.ladder import LadderClient  # noqa: E402
from loadtests import ladder_run  # noqa: E402
from service.store.embedded_redis import EmbeddedRedis, free_port  # noqa: E402

from service_helpers import ServiceProcess  # noqa: E402


def test_bot_specs_take_strategy_parameters():
    assert ladder_run.bot_specs("search:level=1,random:3,flaky") == [
        ("search", {"level": 1}, 1), ("random", {}, 3), ("flaky", {}, 1)]


def test_the_ladder_run_rides_out_an_outage_of_the_service(tmp_path, capsys):
    redis = EmbeddedRedis(tmp_path / "redis")
    url = redis.start()
    port = free_port()
    serve = ("--redis-url", url, "--ladder-time-control", "300+1", "--ladder-first-action", "120")
    service = ServiceProcess(*serve, grpc_port=port).start()
    outcome: list[int] = []
    run = threading.Thread(target=lambda: outcome.append(ladder_run.main([
        "--server", service.target, "--matches", "2", "--bots", "random:2", "--verify", "1",
        "--retry-seconds", "120"])), daemon=True)
    try:
        run.start()
        with LadderClient(service.target) as ladder:  # the bots are registered and playing
            deadline = time.monotonic() + 60
            while not any(p.name.startswith("random-") for p in ladder.standings()):
                assert time.monotonic() < deadline
                time.sleep(0.5)
        time.sleep(3)
        service.process.kill()
        service.process.wait()
        time.sleep(20)
        service = ServiceProcess(*serve, grpc_port=port).start()
        run.join(300)
        assert not run.is_alive(), capsys.readouterr()
        output = capsys.readouterr()
        assert outcome == [0], output.out + output.err
        assert "every ended match rated once, none left open" in output.out
        assert "bot failures: 0" in output.out
    finally:
        service.stop()
        redis.stop()
