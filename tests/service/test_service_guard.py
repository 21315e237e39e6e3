"""Rate limits and quotas (service/guard): each limit and its refusal, on both transports, with a real
service and Redis; counted per address (through a trusted proxy only) or per seat token or key; shared
by processes; wrong keys make an address wait; the clients wait by themselves; the store is refused
new matches and players before it is full; unused matches go away.

Each test calls from addresses of its own (``X-Forwarded-For`` from 127.0.0.1, a trusted proxy here,
in 198.18.0.0/15, the range kept for benchmarks), so the counts of one test never meet another's.
Limits are small and set by flags; no test waits for a window to pass, none asserts a time."""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import subprocess
import sys
import threading
from typing import Iterator

import grpc
import httpx
import jsonschema
import pytest
import redis
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.client import TyphoonClient, TyphoonError
from clients.ladder import LadderBot, LadderClient
from service.api.openapi import openapi_document
from service.api.routes import ROUTES, SERVICES
from service.errors import ServiceError
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.gen.typhoon.v1 import ladder_service_pb2_grpc
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.gen.typhoon.v1 import match_service_pb2_grpc
from service.guard.call_guard import KEY_CHECKED, RPC_LIMITS, RPC_TABLE, TOKEN_IN_REQUEST
from service.guard.in_commit import InCommitAdmission
from service.guard.limit_settings import LIMITS, LimitSettings
from service.guard.rate_limits import RateLimits, limiter_storage
from service.processes import ROOT
from service.store.embedded_redis import EmbeddedRedis, free_port
from service.store.match_store import INDEX_KEY, Store, key
from service.upkeep.compaction import CompactionSweep
from service.upkeep.unused import UnusedMatches

from service_helpers import ServiceProcess, bounded, wait_for, wait_until_unlocked

SMALL = ["create_match=3/minute", "join_match=3/minute", "register_player=2/minute", "seek=2/minute",
         "submit_action=5/minute", "resign=2/minute", "watch=2/minute", "key_failures=3/minute"]
_addresses = itertools.count(secrets.randbelow(512))


def guarded(redis_url: str, *limits: str, proxy: str = "127.0.0.0/8") -> ServiceProcess:
    """A service with only ``limits`` on, believing X-Forwarded-For from ``proxy`` (this machine)."""
    flags = [item for limit in limits for item in ("--limit", limit)]
    return ServiceProcess("--redis-url", redis_url, "--no-rate-limits", *flags, "--trusted-proxy", proxy,
                          rate_limits=True)


@pytest.fixture(scope="module")
def limited(redis_url) -> Iterator[ServiceProcess]:
    process = guarded(redis_url, *SMALL).start()
    yield process
    process.stop()


def new_address() -> str:
    """An address of this test's own, in a /24 of its own (a client counts by its /24: its counts start at zero)."""
    n = next(_addresses)
    return f"198.{18 + n // 256 % 2}.{n % 256}.{1 + secrets.randbelow(254)}"


def client_from(service: ServiceProcess, address: str, patience: float = 0) -> TyphoonClient:
    return TyphoonClient(service.target, timeout=20, rate_limit_patience=patience,
                         metadata=[("x-forwarded-for", address)])


def http_from(service: ServiceProcess, address: str) -> httpx.Client:
    return httpx.Client(base_url=service.base_url, timeout=20, headers={"X-Forwarded-For": address})


def refusal(call) -> TyphoonError:
    with pytest.raises(TyphoonError) as caught:
        call()
    return caught.value


def assert_rate_limited(error: TyphoonError, limit: str) -> int:
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED"), error
    assert error.metadata["limit"] == limit and limit in error.message
    seconds = int(error.metadata["retry_after_seconds"])
    assert 1 <= seconds <= 3600 and f"retry in {seconds} s" in error.message
    return seconds


def assert_429(reply: httpx.Response, limit: str) -> dict:
    assert reply.status_code == 429, reply.text
    error = reply.json()["error"]
    assert (error["status"], error["reason"], error["metadata"]["limit"]) == ("RESOURCE_EXHAUSTED", "RATE_LIMITED", limit)
    assert int(reply.headers["Retry-After"]) == error["retry_after_seconds"] == int(error["metadata"]["retry_after_seconds"])
    assert error["retry_after_seconds"] >= 1
    return error


def test_create_match_over_its_limit_is_refused_with_when_to_retry_on_both_transports(limited):
    address = new_address()
    with client_from(limited, address) as client, http_from(limited, address) as http, \
            grpc.insecure_channel(limited.target) as channel:
        for _ in range(3):
            client.create_match()
        seconds = assert_rate_limited(refusal(client.create_match), "create_match")
        assert "from this address" in refusal(client.create_match).message
        # the raw status: ErrorInfo and a RetryInfo of the same delay
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.CreateMatch(api.CreateMatchRequest(), metadata=[("x-forwarded-for", address)])
        details = rpc_status.from_call(caught.value).details
        info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        assert details[0].Unpack(info) and details[1].Unpack(retry)
        assert info.reason == "RATE_LIMITED" and info.domain == "typhoon.v1"
        assert retry.retry_delay.seconds == int(info.metadata["retry_after_seconds"]) <= seconds
        # REST counts the same calls: the address is over its limit there too; the body is an Error of /openapi.json
        reply = http.post("/v1/matches", json={})
        assert_429(reply, "create_match")
        jsonschema.validate(reply.json(), openapi_document()["components"]["schemas"]["Error"])
    with http_from(limited, new_address()) as other:
        assert other.post("/v1/matches", json={}).status_code == 200  # another address: its own count


def test_join_match_has_its_limit(limited):
    with client_from(limited, new_address()) as setup:
        matches = [setup.create_match()[0].match_id for _ in range(2)]
    address = new_address()
    with client_from(limited, address) as client, http_from(limited, address) as http:
        for side in ("german", "soviet"):
            client.join_match(matches[0], side)
        client.join_match(matches[1], "german")
        assert_rate_limited(refusal(lambda: client.join_match(matches[1], "soviet")), "join_match")
        assert_429(http.post(f"/v1/matches/{matches[1]}/join", json={"side": "soviet"}), "join_match")


def test_register_player_has_its_limit(limited):
    address = new_address()
    ladder = LadderClient(limited.target, rate_limit_patience=0, metadata=[("x-forwarded-for", address)])
    try:
        _, owner_key = ladder.register_owner(f"guarded-{secrets.token_hex(4)}")
        for _ in range(2):
            ladder.register(f"guarded-{secrets.token_hex(4)}", owner_key=owner_key)
        assert_rate_limited(refusal(lambda: ladder.register(f"guarded-{secrets.token_hex(4)}", owner_key=owner_key)),
                            "register_player")
    finally:
        ladder.close()
    with http_from(limited, address) as http:
        assert_429(http.post("/v1/ladder/players", json={"name": f"guarded-{secrets.token_hex(4)}"},
                             headers={"Authorization": f"Bearer {owner_key}"}), "register_player")


def test_submit_action_and_resign_are_counted_per_seat(limited):
    with client_from(limited, new_address()) as setup:
        match, tokens = setup.create_match(seats=["german", "soviet"])
    address = new_address()
    illegal = {"type": "move", "unit": "no-such-unit", "to": "0101"}
    with client_from(limited, address) as client, http_from(limited, address) as http:
        for _ in range(5):  # refused by the rules, counted all the same
            assert refusal(lambda: client.submit(match.match_id, tokens["german"], illegal)).reason != "RATE_LIMITED"
        error = refusal(lambda: client.submit(match.match_id, tokens["german"], illegal))
        assert_rate_limited(error, "submit_action")
        assert "for this seat" in error.message
        reply = http.post(f"/v1/matches/{match.match_id}/actions", json={"action": {"pass": {}}},
                          headers={"Authorization": f"Bearer {tokens['german']}"})
        assert_429(reply, "submit_action")
        # the other seat of the same match, from the same address, has its own count
        assert refusal(lambda: client.submit(match.match_id, tokens["soviet"], illegal)).reason == "NOT_YOUR_TURN"
        client.resign(match.match_id, tokens["soviet"], request_id="same-resignation")
        client.resign(match.match_id, tokens["soviet"], request_id="same-resignation")  # its answer again, counted
        assert_rate_limited(refusal(lambda: client.resign(match.match_id, tokens["soviet"])), "resign")


def _open_watch(stub, match_id: str, address: str):
    call = stub.WatchMatch(api.WatchMatchRequest(match_id=match_id, heartbeat_seconds=30),
                           metadata=[("x-forwarded-for", address)])
    next(call)  # admitted: match_created arrives
    return call


def test_new_watch_streams_are_limited_per_address(limited):
    with client_from(limited, new_address()) as setup:
        match_id = setup.create_match()[0].match_id
    address = new_address()
    with grpc.insecure_channel(limited.target) as channel, http_from(limited, address) as http:
        stub = match_service_pb2_grpc.MatchServiceStub(channel)
        first, second = _open_watch(stub, match_id, address), _open_watch(stub, match_id, address)
        with pytest.raises(grpc.RpcError) as caught:
            _open_watch(stub, match_id, address)
        assert_rate_limited(TyphoonError.from_rpc_error(caught.value), "watch")
        assert_429(http.get(f"/v1/matches/{match_id}/watch"), "watch")
        _open_watch(stub, match_id, new_address()).cancel()  # another address opens one
        first.cancel()
        second.cancel()  # closing streams gives no new ones back: the limit counts streams opened


def test_seek_streams_are_limited_per_key(limited):
    address = new_address()
    ladder = LadderClient(limited.target, rate_limit_patience=0, metadata=[("x-forwarded-for", address)])
    try:
        key = ladder.register_with_owner(f"seeker-{secrets.token_hex(4)}").api_key
        other = ladder.register_with_owner(f"seeker-{secrets.token_hex(4)}").api_key
        stub = ladder_service_pb2_grpc.LadderServiceStub(ladder.channel)

        def seek(api_key: str):
            call = stub.Seek(lapi.SeekRequest(heartbeat_seconds=1),
                             metadata=[("authorization", f"Bearer {api_key}"), ("x-forwarded-for", address)])
            next(call)
            call.cancel()

        seek(key), seek(key)
        with pytest.raises(grpc.RpcError) as caught:
            seek(key)
        error = TyphoonError.from_rpc_error(caught.value)
        assert_rate_limited(error, "seek")
        assert "with this API key" in error.message
        seek(other)  # another key, same address: its own count
    finally:
        ladder.close()


def test_wrong_tokens_make_an_address_wait_even_with_the_right_token(limited):
    with client_from(limited, new_address()) as setup:
        match, tokens = setup.create_match(seats=["german", "soviet"])
        legal = setup.legal_actions(match.match_id)
    guesser, neighbour = new_address(), new_address()
    with client_from(limited, guesser) as client, http_from(limited, guesser) as http:
        for _ in range(2):  # no token at all is no guess: never counted
            assert refusal(lambda: client.resign(match.match_id, "")).reason == "TOKEN_MISSING"
        for _ in range(3):
            error = refusal(lambda: client.resign(match.match_id, secrets.token_urlsafe(32)))
            assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
        assert_rate_limited(refusal(lambda: client.submit(match.match_id, tokens["german"], legal.actions[0])),
                            "key_failures")
        reply = http.post(f"/v1/matches/{match.match_id}/actions", json={"action": {"pass": {}}},
                          headers={"Authorization": f"Bearer {tokens['german']}"})
        assert_429(reply, "key_failures")
        ladder = LadderClient(limited.target, rate_limit_patience=0, metadata=[("x-forwarded-for", guesser)])
        try:
            assert_rate_limited(refusal(lambda: next(iter(ladder.seek("not-a-key-" + "x" * 30)))), "key_failures")
        finally:
            ladder.close()
    with client_from(limited, neighbour) as client:  # another address is not kept waiting
        assert client.submit(match.match_id, tokens["german"], legal.actions[0]).version == 1


def test_a_forwarded_address_is_believed_only_from_a_trusted_proxy(redis_url):
    # the proxy trusted is elsewhere: 127.0.0.1's X-Forwarded-For is anyone's to write, and ignored (counted
    # as 127.0.0.1, under a rate of this test's own, since every test calls from there)
    rate = f"2 per {7 + secrets.randbelow(50)} minutes"
    service = guarded(redis_url, f"create_match={rate}", proxy="192.0.2.0/24").start()
    try:
        for spoofed in ("198.18.0.1", "198.18.0.2"):
            with client_from(service, spoofed) as client:
                client.create_match()
        with client_from(service, "198.18.0.3") as client:
            assert_rate_limited(refusal(client.create_match), "create_match")
    finally:
        service.stop()


def test_every_process_and_replica_shares_the_counts(limited, redis_url):
    other = guarded(redis_url, *SMALL).start()
    try:
        address = new_address()
        with client_from(limited, address) as first, client_from(other, address) as second:
            first.create_match(), first.create_match(), second.create_match()
            assert_rate_limited(refusal(second.create_match), "create_match")
            assert_rate_limited(refusal(first.create_match), "create_match")
    finally:
        other.stop()


def test_the_clients_wait_by_themselves_and_carry_on(redis_url):
    service = guarded(redis_url, "create_match=1/second", "register_player=1/second", "watch=1/second").start()
    try:
        address = new_address()
        with client_from(service, address, patience=30) as client:
            created = [client.create_match(seats=["german", "soviet"]) for _ in range(3)]
            match, tokens = created[0]
            client.resign(match.match_id, tokens["german"])
            last = client.get_match(match.match_id).match.last_sequence
            for _ in range(3):  # a finished match's stream: its log, then the end
                assert [event.sequence for event in bounded(client.watch(match.match_id), "the watch of a finished match")][-1] == last
        ladder = LadderClient(service.target, rate_limit_patience=30, metadata=[("x-forwarded-for", address)])
        try:
            _, owner_key = ladder.register_owner(f"patient-{secrets.token_hex(4)}")
            assert len({ladder.register(f"patient-{secrets.token_hex(4)}", owner_key=owner_key)[0].player_id
                        for _ in range(3)}) == 3
        finally:
            ladder.close()
        refused = {(line.get("rpc"), line.get("reason")) for line in service.logs if line.get("reason") == "RATE_LIMITED"}
        assert {("CreateMatch", "RATE_LIMITED"), ("RegisterPlayer", "RATE_LIMITED"), ("WatchMatch", "RATE_LIMITED")} <= refused
        with client_from(service, address, patience=0) as impatient:  # without patience, the refusal is raised
            impatient.create_match()
            assert_rate_limited(refusal(impatient.create_match), "create_match")
    finally:
        service.stop()


def test_redis_away_lets_open_limits_through_and_refuses_closed_ones():
    async def run() -> None:
        store = Store.from_url(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
        try:
            for lane in (None, store.lane):  # the library's calls, and the checks of a call together
                limits = RateLimits(limiter_storage(store), LimitSettings.defaults(), lane)
                await limits.check([("hit", "watch", "198.18.0.1", "from this address")])  # open: through
                await limits.check([("hit", "submit_action", "key:x", "for this seat")])
                with pytest.raises(ServiceError) as caught:  # closed: refused as a call needing Redis is
                    await limits.check([("hit", "create_match", "198.18.0.1", "from this address")])
                assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
                with pytest.raises(ServiceError):  # one closed limit among the checks is enough
                    await limits.check([("test", "key_failures", "198.18.0.1", ""), ("hit", "submit_action", "k", "")])
                await limits.record("key_failures", "198.18.0.1")  # a failure not recorded never raises
        finally:
            await store.close()

    asyncio.run(run())
    assert {limit.name: limit.on_store_error for limit in LIMITS}["key_failures"] == "closed"


def test_the_one_round_trip_checks_count_as_the_library_does(redis_url):
    """The checks of a call go to Redis together (the library's scripts and keys through the service's
    lean path); the library itself, on the same keys, sees the same counts and gives the same answers."""
    async def run() -> None:
        store = Store.from_url(redis_url)
        settings = LimitSettings.off().with_rates({"watch": "3/minute", "key_failures": "2/minute"})
        storage = limiter_storage(store)
        together, library = RateLimits(storage, settings, store.lane), RateLimits(storage, settings)
        client = new_address()
        try:
            await store.redis.script_flush()  # the scripts are loaded again when Redis does not know them
            for _ in range(2):
                await together.check([("test", "key_failures", client, "from this address"),
                                      ("hit", "watch", client, "from this address")])
            await library.check([("test", "watch", client, "")])  # 2 of 3: one more is allowed
            await together.check([("hit", "watch", client, "")])
            for limits in (library, together):
                with pytest.raises(ServiceError) as caught:
                    await limits.check([("test", "watch", client, "")])
                assert caught.value.metadata["limit"] == "watch"
            with pytest.raises(ServiceError):
                await library.check([("hit", "watch", client, "")])
            item = library.items["watch"][0]
            assert (await library.limiter.get_window_stats(item, "watch", client)).remaining == 0
            for _ in range(2):
                await library.record("key_failures", client)
            with pytest.raises(ServiceError) as caught:  # the first check that fails is the one refused
                await together.check([("test", "key_failures", client, ""), ("hit", "watch", new_address(), "")])
            assert caught.value.metadata["limit"] == "key_failures"
        finally:
            await store.close()

    asyncio.run(run())


def test_the_checks_in_a_commit_script_count_as_the_library_does(redis_url):
    """SubmitAction's checks run inside its commit script (service.guard.in_commit): the library's own
    scripts, on its keys; the library sees the same counts and gives the same answers."""
    async def run() -> None:
        store = Store.from_url(redis_url)
        settings = LimitSettings.off().with_rates({"watch": "3/minute", "key_failures": "2/minute"})
        library = RateLimits(limiter_storage(store), settings, store.lane)
        client = new_address()

        async def in_commit(*checks) -> int | None:
            precheck = InCommitAdmission(library, checks).take()
            return await store.redis.eval(precheck.lua + "\nreturn admit(KEYS, ARGV)", len(precheck.keys),
                                          *precheck.keys, *precheck.args)
        try:
            for _ in range(2):
                assert await in_commit(("test", "key_failures", client, ""), ("hit", "watch", client, "")) is None
            await library.check([("test", "watch", client, "")])  # 2 of 3: one more is allowed
            assert await in_commit(("hit", "watch", client, "")) is None
            with pytest.raises(ServiceError):
                await library.check([("test", "watch", client, "")])
            assert await in_commit(("test", "watch", client, "")) == 1
            assert await in_commit(("test", "key_failures", client, ""), ("hit", "watch", client, "")) == 2
            item = library.items["watch"][0]
            assert (await library.limiter.get_window_stats(item, "watch", client)).remaining == 0
            for _ in range(2):
                await library.record("key_failures", client)
            # the first check that fails is the one refused; every hit is counted all the same
            other = new_address()
            assert await in_commit(("test", "key_failures", client, ""), ("hit", "watch", other, "")) == 1
            assert (await library.limiter.get_window_stats(item, "watch", other)).remaining == 2
        finally:
            await store.close()

    asyncio.run(run())


def test_actions_are_limited_per_client_across_all_its_seats(redis_url):
    """Issue 34, point 7: one address holding many seats gets the action rate of one client, not of
    every seat; an action over it is refused by its commit script and changes nothing."""
    service = guarded(redis_url, "client_actions=4/minute", "submit_action=100/minute").start()
    try:
        address = new_address()
        with client_from(service, address) as client, client_from(service, new_address()) as another:
            matches = [client.create_match(seats=["german", "soviet"]) for _ in range(3)]

            def act(player: TyphoonClient, index: int):
                match, tokens = matches[index]
                legal = player.legal_actions(match.match_id)
                return lambda: player.submit(match.match_id, tokens[legal.side_to_act], legal.actions[0],
                                             expected_version=legal.version)

            for index in (0, 1, 2, 0):  # four actions over three matches: all applied
                act(client, index)()
            before = client.get_match(matches[1][0].match_id).match.version
            error = refusal(act(client, 1))
            assert_rate_limited(error, "client_actions")
            assert "from this address" in error.message
            assert client.get_match(matches[1][0].match_id).match.version == before  # nothing committed
            assert_rate_limited(refusal(act(client, 2)), "client_actions")  # whichever seat
            act(another, 1)()  # another client with the same seat plays on
            assert client.get_match(matches[1][0].match_id).match.version == before + 1
    finally:
        service.stop()


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clients.cli", "serve", "--grpc-port", "0", "--http-port", "0",
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_limits_from_a_file_and_wrong_settings_refused_at_start(redis_url, tmp_path):
    toml = tmp_path / "limits.toml"
    toml.write_text('[limits]\ncreate_match = "1 per 9 minutes"\nwatch = { rates = "off", on_store_error = "closed" }\n')
    settings = LimitSettings.defaults().with_file(toml)
    assert settings.rates("create_match") == "1 per 9 minutes" and not settings.enabled("watch")
    assert settings.on_store_error["watch"] == "closed"
    as_json = tmp_path / "limits.json"
    as_json.write_text(json.dumps({"limits": {"resign": "3/minute"}}))
    assert LimitSettings.defaults().with_file(as_json).rates("resign") == "3/minute"
    service = ServiceProcess("--redis-url", redis_url, "--limits", str(toml), "--trusted-proxy", "127.0.0.1",
                             rate_limits=True).start()
    try:
        with client_from(service, new_address()) as client:
            client.create_match()
            assert "1 per 9 minutes" in refusal(client.create_match).message
    finally:
        service.stop()
    bad = tmp_path / "bad.toml"
    bad.write_text('[limits]\ncreate_match = "lots"\n')
    for args, said in [(("--limits", str(bad)), "'lots' is not a rate"), (("--limit", "nope=1/second"), "no limit 'nope'"),
                       (("--limit", "watch"), "NAME=RATES"), (("--trusted-proxy", "10.0.0.0/99"), "--trusted-proxy"),
                       (("--store-high-water", "2"), "--store-high-water"),
                       (("--redis-maxmemory", "lots"), "--redis-maxmemory")]:
        result = _serve("--redis-url", redis_url, *args)
        assert result.returncode == 2 and said in result.stdout, (args, result.stdout, result.stderr)


def test_every_key_checked_rpc_is_a_route_with_a_token_and_every_limit_is_used():
    # and JoinMatch, whose seat token is in the request (its guesses count too: test_service_key_guesses.py)
    assert KEY_CHECKED - TOKEN_IN_REQUEST == {route.rpc for route in ROUTES
                                              if route.authenticated or route.keys or route.token_optional}
    served = {method.name for descriptor, _ in SERVICES.values() for method in descriptor.methods}
    assert set(RPC_LIMITS) <= served
    client_limits = {row.client_limit for row in RPC_TABLE.values() if row.client_limit}
    assert {limit for limit, _ in RPC_LIMITS.values()} | client_limits | {"key_failures", "history", "history_calls",
                                                                          "stream_opens"} == \
        {limit.name for limit in LIMITS}


# --- the store's capacity ---------------------------------------------------------------------------

def test_new_matches_and_players_are_refused_before_redis_is_full_while_live_matches_go_on(tmp_path):
    embedded = EmbeddedRedis(tmp_path / "redis", maxmemory=0)
    url = embedded.start()
    service = ServiceProcess("--redis-url", url, "--store-high-water", "0.5").start()
    admin = redis.Redis.from_url(url)
    try:
        with service.client() as client, service.http() as http, \
                LadderClient(service.target, rate_limit_patience=0) as ladder:
            match, tokens = client.create_match(seats=["german", "soviet"])
            legal = client.legal_actions(match.match_id)
            player_key = ladder.register_with_owner("seeker").api_key
            used = admin.info("memory")["used_memory"]
            admin.config_set("maxmemory", str(int(used * 1.6)))  # 62 %: past the mark of 50 %
            error = wait_for(lambda: _refused(client.create_match), timeout=60, interval=0.5)
            assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL")
            assert "live matches go on" in error.message and error.metadata["retry_after_seconds"]
            reply = http.post("/v1/matches", json={})
            assert reply.status_code == 429 and reply.json()["error"]["reason"] == "STORE_FULL"
            assert "Retry-After" in reply.headers
            assert _refused(lambda: ladder.register_owner("too-late")).reason == "STORE_FULL"
            assert _refused(lambda: next(iter(ladder.seek(player_key)))).reason == "STORE_FULL"  # no ladder match
            bot = LadderBot("random", service.target, player_key)  # an unattended bot waits for room, and stays
            seeking = threading.Thread(target=bot.run, daemon=True)
            seeking.start()
            wait_for(lambda: bot.record.store_full_waits >= 1, timeout=60, interval=0.2)
            assert seeking.is_alive() and not bot.record.errors
            bot.stop_seeking()  # its wait ends at once
            seeking.join(30)
            assert not seeking.is_alive()
            # the live match goes on
            assert client.submit(match.match_id, tokens["german"], legal.actions[0],
                                 expected_version=legal.version).version == 1
            admin.config_set("maxmemory", "0")  # room again
            wait_for(lambda: _refused(client.create_match) is None, timeout=60, interval=0.5)
            with service.admin() as operations:  # /metrics: on the admin listener
                assert "typhoon_store_full_refused_total" in operations.get("/metrics").text
    finally:
        admin.close()
        service.stop()
        embedded.stop()


def _refused(call) -> TyphoonError | None:
    try:
        call()
    except TyphoonError as error:
        return error
    return None


def test_the_embedded_redis_has_a_maxmemory_and_never_evicts(tmp_path):
    for given, expected in (("64mb", 64 * 2**20), ("auto", None)):
        embedded = EmbeddedRedis(tmp_path / given, maxmemory=given)
        client = redis.Redis.from_url(embedded.start())
        try:
            most = int(client.config_get("maxmemory")["maxmemory"])
            assert most == expected if expected else most >= 256 * 2**20
            assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
        finally:
            client.close()
            embedded.stop()


# --- unused matches ---------------------------------------------------------------------------------

def test_matches_nobody_played_in_go_away_after_a_while(redis_url, service):
    admin = redis.Redis.from_url(redis_url, decode_responses=True)
    with service.client() as client:
        unused = client.create_match()[0].match_id
        seated = client.create_match(seats=["german"])[0].match_id
        played, tokens = client.create_match(seats=["german", "soviet"])
        legal = client.legal_actions(played.match_id)
        client.submit(played.match_id, tokens["german"], legal.actions[0])
        clocked = client.create_match(seats=["german", "soviet"], time_control="86400+0")[0].match_id
        recent = client.create_match()[0].match_id
        for match_id in (unused, seated, played.match_id, clocked):  # two hours without a change
            updated = int(admin.hget(key(match_id, "meta"), "updated_at"))
            admin.hset(key(match_id, "meta"), "updated_at", updated - 2 * 3_600_000)
        created = {m: admin.hget(key(m, "meta"), "created_at") for m in (unused, seated)}
        wait_until_unlocked(redis_url)

        async def sweep() -> int:
            store = Store.from_url(redis_url)
            try:
                unused_matches = UnusedMatches.after_hours(store, 1.0)
                await CompactionSweep(store, unused=unused_matches).sweep()
                return unused_matches.deleted
            finally:
                await store.close()

        assert asyncio.run(sweep()) >= 2
        for gone in (unused, seated):
            assert refusal(lambda: client.get_match(gone)).reason == "MATCH_NOT_FOUND"
            assert admin.zscore(INDEX_KEY, f"{int(created[gone]):015d}:{gone}") is None
            assert not admin.keys(f"typhoon:{{m:{gone}}}:*")
        for kept in (played.match_id, clocked, recent):
            assert client.get_match(kept).match.match_id == kept
    admin.close()
