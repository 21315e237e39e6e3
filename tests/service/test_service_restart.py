"""A service restart in the middle of a match, on its embedded Redis: the match continues where it was."""

from __future__ import annotations

import threading

from clients.client import TyphoonClient
from service.demo import verify
from service.embedded_redis import free_port
from service_helpers import ServiceProcess, play_random


def test_a_restart_in_the_middle_of_a_match_keeps_it_and_watchers_miss_nothing(tmp_path):
    ports = ["--grpc-port", str(free_port()), "--http-port", str(free_port())]
    arguments = [*ports, "--data-dir", str(tmp_path / "data")]
    embedded = {"REDIS_URL": ""}  # no external Redis: the service runs its own, persisted in the data dir
    first = ServiceProcess(*arguments, env=embedded).start()
    try:
        client = TyphoonClient(first.target)
        match, tokens = client.create_match(seats=["german", "soviet"])
        play_random(client, match.match_id, tokens, seed="restart-1", max_actions=40)
        watch = client.watch(match.match_id)  # reconnects by itself across the restart
        seen = []
        follower = threading.Thread(target=lambda: seen.extend(watch))
        follower.start()
        before = client.get_match(match.match_id)
        assert first.stop() == 0
    finally:
        first.stop()

    second = ServiceProcess(*arguments, env=embedded).start()
    try:
        after = client.get_match(match.match_id)
        assert after.match == before.match
        assert after.state == before.state
        play_random(client, match.match_id, tokens, seed="restart-2")  # the old seat tokens still act
        follower.join(30)
        assert not follower.is_alive()
        log = list(client.event_log(match.match_id))
        assert seen == log and log[-1].WhichOneof("kind") == "seed_revealed"
        assert "same game" in verify(client, match.match_id)
        client.close()
    finally:
        assert second.stop() == 0
