"""How long does replaying a whole finished match take, idle and under load?

    .venv/bin/python -m loadtests.replay_probe --users 50 --load-seconds 90

Starts a service (embedded Redis), plays one random match to its end, then times reading its whole
log (~1,100 entries) three ways — GetEventLog pages of 1,000, a gRPC WatchMatch from sequence 0, an
SSE watch from 0 — first on the idle service, then while ``python -m loadtests.run`` drives
``--users`` matches against the same service. A replay viewer or a late-joining spectator does
exactly this.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clients.client import TyphoonClient  # noqa: E402
from clients.random_play import play_out  # noqa: E402
from loadtests.run import Service  # noqa: E402


def play(client: TyphoonClient) -> str:
    match, tokens = client.create_match(seats=["german", "soviet"])
    play_out(client, match.match_id, tokens, random.Random(1))
    return match.match_id


def probe(client: TyphoonClient, base_url: str, match_id: str) -> dict[str, float]:
    result = {}
    started = time.perf_counter()
    count = sum(1 for _ in client.event_log(match_id, page_size=1000))
    result["GetEventLog (pages of 1000)"] = time.perf_counter() - started
    started = time.perf_counter()
    watched = sum(1 for _ in client.watch(match_id, after_sequence=0))
    result["gRPC WatchMatch from 0"] = time.perf_counter() - started
    started = time.perf_counter()
    streamed = 0
    with httpx.stream("GET", f"{base_url}/v1/matches/{match_id}/watch", params={"after_sequence": 0},
                      timeout=300) as response:
        for line in response.iter_lines():
            if line.startswith("event: match_event"):
                streamed += 1
            elif line.startswith("event: end"):
                break
    result["SSE watch from 0"] = time.perf_counter() - started
    assert count == watched == streamed, (count, watched, streamed)
    result["entries"] = count
    return {k: round(v, 2) for k, v in result.items()}


def live_catch_up(client: TyphoonClient, tries: int = 10) -> dict[str, float]:
    """Catch up on running matches (30 events back to the last one), like the load test's players
    do, but from this plain (non-gevent) client: median and max seconds."""
    from service.gen.typhoon.v1 import match_pb2

    times = []
    for _ in range(tries):
        matches = client.list_matches(status=match_pb2.MATCH_STATUS_ACTIVE, page_size=100).matches
        match = client.get_match(random.choice(matches).match_id).match
        upto = match.last_sequence
        started = time.perf_counter()
        watch = client.watch(match.match_id, after_sequence=max(0, upto - 30))
        for event in watch:
            if event.sequence >= upto:
                break
        watch.close()
        times.append(time.perf_counter() - started)
    times.sort()
    return {"live catch-up of 30 events, median": round(times[len(times) // 2], 2), "max": round(times[-1], 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--load-seconds", type=int, default=90)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="typhoon-replay-") as tmp:
        service = Service(0, Path(tmp), None, "warning")
        service.start()
        load = None
        try:
            base_url = f"http://127.0.0.1:{service.http_port}"
            with TyphoonClient(f"127.0.0.1:{service.grpc_port}", timeout=300) as client:
                match_id = play(client)
                idle = probe(client, base_url, match_id)
                print("idle:      ", json.dumps(idle), flush=True)
                load = subprocess.Popen(
                    [sys.executable, "-m", "loadtests.run", "--quiet", "--users", str(args.users), "--run-time",
                     f"{args.load_seconds}s", "--grpc-target", f"127.0.0.1:{service.grpc_port}",
                     "--http-url", base_url], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                time.sleep(20)  # past the ramp-up
                loaded = probe(client, base_url, match_id)
                print(f"{args.users} users:", json.dumps(loaded), flush=True)
                print(f"{args.users} users:", json.dumps(live_catch_up(client)), flush=True)
            output, _ = load.communicate(timeout=args.load_seconds + 120)
            print("\n".join(line for line in output.splitlines() if line.startswith(("requests:", "CPU"))))
        finally:
            if load is not None and load.poll() is None:
                load.terminate()
                load.wait(60)
            service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
