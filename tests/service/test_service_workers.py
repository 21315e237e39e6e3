"""typhoon serve --workers N: N processes on one gRPC and one HTTP port and one (embedded) Redis."""

from __future__ import annotations

import os
import signal

import psutil

from clients.client import TyphoonClient
from service_helpers import ServiceProcess, play_random, wait_for


def test_workers_share_the_ports_and_the_redis_and_stop_together(tmp_path):
    service = ServiceProcess("--data-dir", str(tmp_path / "data"), workers=2, env={"REDIS_URL": ""}).start()
    try:
        serving = next(entry for entry in service.logs if entry.get("event") == "serving")
        assert serving["workers"] == 2 and serving["redis"] == "embedded"
        pids = serving["pids"]
        assert len(set(pids)) == 2

        with service.client() as client:
            match, tokens = client.create_match(seats=["german", "soviet"])
            play_random(client, match.match_id, tokens, seed="workers", max_actions=10)
        for _ in range(20):  # new connections: the kernel spreads them over the workers
            with TyphoonClient(service.target, timeout=20) as client:
                assert client.get_match(match.match_id).match.version == 10
            with service.http() as http:
                assert http.get(f"/v1/matches/{match.match_id}").json()["match"]["version"] == 10
        answered = {entry.get("pid") for entry in list(service.logs) if entry.get("event") == "rpc"}
        assert answered == set(pids)

        os.kill(pids[0], signal.SIGKILL)  # a worker that dies is started again
        died = wait_for(lambda: next((e for e in list(service.logs) if e.get("event") == "worker_died"), None), 30)
        assert died["pid"] == pids[0]
        wait_for(lambda: len([e for e in list(service.logs) if e.get("event") == "worker_serving"]) == 3, 60)
        with TyphoonClient(service.target, timeout=20) as client:
            assert client.get_match(match.match_id).match.version == 10
        family = [p.pid for p in psutil.Process(service.process.pid).children(recursive=True)]
    finally:
        assert service.stop() == 0
    assert not [pid for pid in family if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
    stops = [entry for entry in service.logs if entry.get("event") == "stopped"]
    assert len(stops) == 3, service.log_tail(60)  # both workers, then the supervisor


def _calls(http, method: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    return sum(sample.value for family in text_string_to_metric_families(http.get("/metrics").text)
               for sample in family.samples
               if sample.name == "typhoon_calls_total" and sample.labels.get("method") == method)


def test_metrics_of_the_workers_add_up_whichever_worker_is_scraped(redis_url):
    service = ServiceProcess("--redis-url", redis_url, workers=2).start()
    try:
        for _ in range(12):  # new connections: the kernel spreads them over the workers
            with service.http() as http:
                assert http.get("/v1/matches/nosuchmatch").status_code == 404
        answered = {e.get("pid") for e in list(service.logs) if e.get("event") == "rpc"}
        assert len(answered) == 2
        for _ in range(6):  # every scrape, whichever worker answers it, counts every worker's calls
            with service.admin() as admin:
                assert _calls(admin, "GetMatch") == 12
    finally:
        assert service.stop() == 0
