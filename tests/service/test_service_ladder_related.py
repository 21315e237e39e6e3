"""Related ladder owners through a real service: owners registered from one client address, over gRPC
or REST, behind a trusted proxy (X-Forwarded-For), are one owner to the ladder; their players are never
paired, a stranger's are; Redis keeps only a keyed hash of the address, for the configured window; the
service's workers run with the supervisor's fair play."""

from __future__ import annotations

import itertools
import json
import random
import threading
import uuid

import httpx
import pytest
import redis

from clients.ladder import LadderClient, LadderMatch
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.ladder.accounts import PREFIX
from service.store.embedded_redis import EmbeddedRedis

from service_helpers import ServiceProcess, wait_for

DAY_MS = 86_400_000


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Two workers on a Redis of this module's own, trusting 127.0.0.1 as a proxy; owners related for 7 days."""
    embedded = EmbeddedRedis(tmp_path_factory.mktemp("ladder-related") / "redis")
    url = embedded.start()
    service = ServiceProcess("--redis-url", url, "--trusted-proxy", "127.0.0.1", "--ladder-related-days", "7",
                             "--ladder-min-actions", "0", "--ladder-first-action", "60", related_owners=True,
                             workers=2).start()
    yield service, url
    service.stop()
    embedded.stop()


_networks = itertools.count(random.randrange(256))


def address() -> str:
    """An address of a /24 of its own (a client counts by its /24: service.client_identity)."""
    return f"198.18.{next(_networks) % 256}.{random.randrange(1, 255)}"


class Seeker:
    """A player's Seek stream read in a thread: the matches and heartbeats it got."""

    def __init__(self, ladder: LadderClient, key: str, concurrency: int) -> None:
        self.stream = ladder.seek(key, concurrency=concurrency, heartbeat_seconds=1)
        self.matches: list[LadderMatch] = []
        self.heartbeats = 0
        self.last_heartbeat = lapi.SeekHeartbeat()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for item in self.stream:
            if isinstance(item, LadderMatch):
                self.matches.append(item)
            elif isinstance(item, lapi.SeekHeartbeat):
                self.last_heartbeat = item
                self.heartbeats += 1

    def close(self) -> None:
        self.stream.close()
        self.thread.join(10)


def test_owners_from_one_address_over_grpc_and_rest_are_one_owner(served):
    service, url = served
    here, there = address(), address()
    with LadderClient(service.target, metadata=[("x-forwarded-for", here)]) as from_here, \
            LadderClient(service.target, metadata=[("x-forwarded-for", there)]) as from_there, \
            httpx.Client(base_url=service.base_url, headers={"X-Forwarded-For": here}, timeout=20) as rest_here:
        first = from_here.register_with_owner(f"here-grpc-{uuid.uuid4().hex[:6]}")
        owner = rest_here.post("/v1/ladder/owners", json={"name": f"here-rest-{uuid.uuid4().hex[:6]}",
                                                         "request_id": uuid.uuid4().hex})
        assert owner.status_code == 200, owner.text
        second = rest_here.post("/v1/ladder/players", json={"name": f"here-rest-{uuid.uuid4().hex[:6]}"},
                                headers={"Authorization": f"Bearer {owner.json()['owner_key']}"}).json()
        stranger = from_there.register_with_owner(f"there-{uuid.uuid4().hex[:6]}")
        related = {first.player.player_id: first.api_key, second["player"]["player_id"]: second["api_key"]}
        # the two related players seek: a few pairing rounds go by, no match
        seekers = {pid: Seeker(from_here, key, concurrency=1) for pid, key in related.items()}
        try:
            wait_for(lambda: all(s.heartbeats >= 3 for s in seekers.values()), 60)
            assert not any(s.matches for s in seekers.values())
            # ... and each is told why, with what to do about it
            wait_for(lambda: all(s.last_heartbeat.waiting == lapi.SEEK_WAIT_REASON_ONLY_RELATED
                                 for s in seekers.values()), 30)
            for seeker in seekers.values():
                message = seeker.last_heartbeat.waiting_message
                assert "related owner" in message and "--ladder-same-owner-pairs" in message, message
            # a stranger seeking for two: paired with each of them (one match each has room for)
            seekers[stranger.player.player_id] = Seeker(from_there, stranger.api_key, concurrency=2)
            wait_for(lambda: len(seekers[stranger.player.player_id].matches) == 2, 60)
            heartbeats = {pid: s.heartbeats for pid, s in seekers.items()}
            wait_for(lambda: all(s.heartbeats >= heartbeats[pid] + 3 for pid, s in seekers.items()), 60)
            for pid in related:
                assert [m.opponent_id for m in seekers[pid].matches] == [stranger.player.player_id]
            # every one of them plays as many matches as it asked for, and its heartbeat says so
            for seeker in seekers.values():
                assert seeker.last_heartbeat.waiting == lapi.SEEK_WAIT_REASON_PLAYING_ENOUGH, seeker.last_heartbeat
            assert "concurrency 2" in seekers[stranger.player.player_id].last_heartbeat.waiting_message
        finally:
            for seeker in seekers.values():
                seeker.close()
        settings = rest_here.get("/v1/ladder").json()["fair_play"]
        assert (settings["related_window"], settings["owner_pair_rated_max"]) == ("604800s", 3)
    # Redis: the address's keyed hash, for 7 days (the workers' setting: the supervisor's), and no address
    store = redis.Redis.from_url(url)
    try:
        tags = list(store.scan_iter(PREFIX + "address:*"))
        assert len(tags) == 2
        assert all(7 * DAY_MS - 600_000 < store.pttl(tag) <= 7 * DAY_MS for tag in tags)
        for name in store.scan_iter(PREFIX + "*"):
            kind = store.type(name).decode()
            value = {"hash": store.hgetall, "string": store.get, "list": lambda n: store.lrange(n, 0, -1),
                     "zset": lambda n: store.zrange(n, 0, -1), "set": store.smembers}[kind](name)
            assert here not in f"{name!r} {value!r}" and there not in f"{name!r} {value!r}"
    finally:
        store.close()


def test_owners_from_one_ipv4_network_are_one_owner_and_fresh_players_are_provisional(served):
    """Two addresses of one /24 are one client (service.client_identity); a fresh player is provisional:
    shown apart on the leaderboard (rank 0, after the established), on both transports."""
    service, _ = served
    here = address()
    near = f"{here.rpartition('.')[0]}.{int(here.rpartition('.')[2]) % 254 + 1}"
    with LadderClient(service.target, metadata=[("x-forwarded-for", here)]) as from_here, \
            LadderClient(service.target, metadata=[("x-forwarded-for", near)]) as from_near, \
            httpx.Client(base_url=service.base_url, timeout=20) as rest:
        first = from_here.register_with_owner(f"net-a-{uuid.uuid4().hex[:6]}")
        second = from_near.register_with_owner(f"net-b-{uuid.uuid4().hex[:6]}")
        seekers = [Seeker(from_here, first.api_key, 1), Seeker(from_near, second.api_key, 1)]
        try:
            wait_for(lambda: all(s.heartbeats >= 3 for s in seekers), 60)
            assert not any(s.matches for s in seekers)  # related: never paired
        finally:
            for seeker in seekers:
                seeker.close()
        player = from_here.player(first.player.player_id)
        assert (player.provisional, player.rank) == (True, 0)
        board = rest.get("/v1/ladder/leaderboard", params={"page_size": 200}).json()["players"]
        mine = next(p for p in board if p["player_id"] == first.player.player_id)
        assert (mine["provisional"], mine["rank"]) == (True, 0)
        fair = rest.get("/v1/ladder").json()["fair_play"]
        assert (fair["established_games"], fair["established_owners"]) == (10, 3)  # the defaults, in every worker


def test_a_player_seeking_alone_over_rest_is_told_so_on_its_heartbeats(served):
    service, _ = served
    with httpx.Client(base_url=service.base_url, headers={"X-Forwarded-For": address()}, timeout=20) as rest:
        owner = rest.post("/v1/ladder/owners", json={"name": f"alone-{uuid.uuid4().hex[:6]}",
                                                    "request_id": uuid.uuid4().hex}).json()
        player = rest.post("/v1/ladder/players", json={"name": f"alone-{uuid.uuid4().hex[:6]}"},
                           headers={"Authorization": f"Bearer {owner['owner_key']}"}).json()
        beats = []
        with rest.stream("GET", "/v1/ladder/seek?heartbeat_seconds=1",
                         headers={"Authorization": f"Bearer {player['api_key']}"}) as stream:
            lines = stream.iter_lines()
            for line in lines:
                if line == "event: heartbeat":
                    beats.append(json.loads(next(lines).removeprefix("data: ")))
                    if beats[-1].get("waiting") == "SEEK_WAIT_REASON_ALONE" or len(beats) > 20:
                        break
    assert beats[-1]["waiting"] == "SEEK_WAIT_REASON_ALONE", beats
    assert beats[-1]["waiting_message"] == "no other player is seeking: paired as soon as one does"
