"""The ladder's service side: registration, refusals, REST, and ratings applied exactly once; on a single
Redis and on a Redis Cluster (the ``backend`` fixture)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import re
import threading
import time
import uuid
from collections.abc import Awaitable, Callable

import grpc
import pytest

from clients.client import TyphoonClient, TyphoonError
from clients.ladder import LadderBot, LadderClient, leaderboard_table
from clients.ladder_audit import audit_ladder
from clients.replay import fetch_log, verify_log
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.ladder.core import OLDER_PREFIX, PREFIX, Ladder, LadderConfig
from service.ladder.fairness import FairPlay
from service.match.clock import Sweeper, TimeControl
from service.match.core import CallContext, MatchService
from service.store.embedded_redis import EmbeddedRedis, free_port
from service.store.match_store import Store, text_of

from service_helpers import STREAM_TIMEOUT, ServiceProcess, wait_for, within

FINISHED, ABORTED = match_pb2.MATCH_STATUS_FINISHED, match_pb2.MATCH_STATUS_ABORTED


@pytest.fixture(scope="module")
def service(backend_service):
    return backend_service


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


async def register_each(ladder: Ladder, *names: str) -> dict[str, str]:
    """Players of owners of their own (player id -> API key), registered straight on a Ladder."""
    players = {}
    for name in names:
        owner = await ladder.register_owner(lapi.RegisterOwnerRequest(name=unique(name)), CallContext())
        response = await ladder.register_player(lapi.RegisterPlayerRequest(name=unique(name)),
                                                CallContext(token=owner.owner_key))
        players[response.player.player_id] = response.api_key
    return players


async def matches_paired(ladder: Ladder, seeks) -> list[lapi.LadderMatch]:
    """The next match on each Seek stream (past its heartbeats), pairing rounds run until each has one."""
    async def a_match(seek) -> lapi.LadderMatch:
        while (item := await anext(seek)).WhichOneof("kind") != "match":
            pass
        return item.match

    waiting = [asyncio.ensure_future(a_match(seek)) for seek in seeks]
    for _ in range(600):
        if all(w.done() for w in waiting):
            break
        await within(ladder.pair_round(), "a pairing round")
        await within(asyncio.wait(waiting, timeout=0.2), "the matches")
    return [w.result() for w in waiting]


def run_with_a_ladder(tmp_path, scenario: Callable[[Store, Ladder], Awaitable[None]]) -> None:
    """``scenario(store, ladder)`` on a Redis of its own (no service process pairs its seekers), with
    pairing rounds run by the test; the store closed and Redis stopped after."""
    embedded = EmbeddedRedis(tmp_path / "redis")
    url = embedded.start()

    async def run() -> None:
        store = Store.from_url(url)
        try:
            await scenario(store, Ladder(MatchService(store), LadderConfig(interval=0.05)))
        finally:
            await store.close()

    try:
        asyncio.run(run())
    finally:
        embedded.stop()


def test_registration_and_refusals(service):
    with LadderClient(service.target, retries=0) as ladder:
        name = unique("Alpha")
        owner, owner_key = ladder.register_owner(unique("tests"))
        assert owner_key.startswith("tpo_") and owner.owner_id.startswith("o") and len(owner.owner_id) == 16
        player, key = ladder.register(name, "a test bot", owner_key=owner_key)
        assert key.startswith("tpk_") and player.player_id.startswith("p") and len(player.player_id) == 16
        assert (player.games, player.mu, player.rating) == (0, 25.0, 0.0)
        assert (player.owner, player.owner_id) == (owner.name, owner.owner_id)
        assert ladder.player(name=name.upper()).player_id == player.player_id
        assert list(ladder.owner(owner.owner_id).player_ids) == [player.player_id]
        register = functools.partial(ladder.register, owner_key=owner_key)
        refusals = [
            (lambda: register(name.lower()), grpc.StatusCode.ALREADY_EXISTS, "NAME_TAKEN"),
            (lambda: register("  "), grpc.StatusCode.INVALID_ARGUMENT, "MISSING_FIELD"),
            (lambda: register("x" * 65), grpc.StatusCode.INVALID_ARGUMENT, "NAME_TOO_LONG"),
            (lambda: register(name[:2] + "\u200b" + name[2:]), grpc.StatusCode.INVALID_ARGUMENT, "BAD_NAME"),
            (lambda: register(unique("ok"), "\x99"), grpc.StatusCode.INVALID_ARGUMENT, "BAD_NAME"),
            (lambda: ladder.register_owner("\x99"), grpc.StatusCode.INVALID_ARGUMENT, "BAD_NAME"),
            (lambda: ladder.register_owner(owner.name.upper()), grpc.StatusCode.ALREADY_EXISTS, "NAME_TAKEN"),
            # one name, however it is cased or composed: full-width letters are the same letters
            (lambda: register(name.upper().translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)})),
             grpc.StatusCode.ALREADY_EXISTS, "NAME_TAKEN"),
            # registering a player needs an owner key: none, a player's key, a made-up one
            (lambda: ladder.register(unique("x"), owner_key=""), grpc.StatusCode.UNAUTHENTICATED, "KEY_MISSING"),
            (lambda: ladder.register(unique("x"), owner_key=key), grpc.StatusCode.UNAUTHENTICATED, "KEY_INVALID"),
            (lambda: ladder.register(unique("x"), owner_key="tpo_" + "a" * 43), grpc.StatusCode.UNAUTHENTICATED,
             "KEY_INVALID"),
            (lambda: ladder.owner("onothere"), grpc.StatusCode.NOT_FOUND, "OWNER_NOT_FOUND"),
            (lambda: ladder.player("pnothere"), grpc.StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND"),
            (lambda: ladder.leaderboard(page_token="x"), grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_TOKEN"),
            # digits of other scripts, past Python's int() limit, past Redis's 64-bit offsets
            *((lambda token=token: ladder.leaderboard(page_token=token), grpc.StatusCode.INVALID_ARGUMENT,
               "BAD_PAGE_TOKEN") for token in ("\u00b9", "\u0663", "1" * 5000, str(2**63))),
            (lambda: ladder._call("ListPlayerMatches", lapi.ListPlayerMatchesRequest(
                player_id=player.player_id, page_token="\u00b2")), grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_TOKEN"),
            (lambda: ladder.leaderboard(page_size=500), grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE"),
            (lambda: next(iter(ladder.seek(""))), grpc.StatusCode.UNAUTHENTICATED, "KEY_MISSING"),
            (lambda: next(iter(ladder.seek("tpk_wrong"))), grpc.StatusCode.UNAUTHENTICATED, "KEY_INVALID"),
            (lambda: next(iter(ladder.seek(key, concurrency=99))), grpc.StatusCode.INVALID_ARGUMENT, "BAD_CONCURRENCY"),
        ]
        for call, code, reason in refusals:
            with pytest.raises(TyphoonError) as refused:
                call()
            assert (refused.value.code, refused.value.reason) == (code, reason)
        settings = ladder.ladder()
        assert settings.time_control.preset == "blitz" and settings.max_concurrency == 8
        fair = settings.fair_play
        assert (fair.same_owner_pairs, fair.pair_rated_max, fair.pair_window.seconds, fair.min_actions,
                fair.players_per_owner, fair.abandon_cooldown.seconds, fair.owner_pair_rated_max,
                fair.related_window.seconds) == (False, 3, 86400, 50, 10, 60, 3, 0)  # related owners: off in tests
        # nobody chooses a key: a request that brings one (or an owner's free text) is refused, whatever the key
        for retired in (lapi.RegisterPlayerRequest(name=unique("Chosen"), api_key="k" * 40),
                        lapi.RegisterPlayerRequest(name=unique("Chosen"), api_key="a" * 32),
                        lapi.RegisterPlayerRequest(name=unique("Chosen"), api_key=key),  # a key that exists: the same
                        lapi.RegisterPlayerRequest(name=unique("Chosen"), owner="me")):
            with pytest.raises(TyphoonError) as refused:
                ladder._call("RegisterPlayer", retired, key=owner_key)
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "FIELD_RETIRED")
            assert "api_key" not in refused.value.message or "request_id" in refused.value.message
        # a retry is made safe by the request id: the same player, a new key (the first one, lost, stops working)
        request = lapi.RegisterPlayerRequest(name=unique("Retry"), request_id=uuid.uuid4().hex)
        registered = ladder._call("RegisterPlayer", request, key=owner_key)
        again = ladder._call("RegisterPlayer", request, key=owner_key)
        assert again.player.player_id == registered.player.player_id and again.api_key != registered.api_key
        assert ladder.player(registered.player.player_id).name == request.name
        _refused(lambda: next(iter(ladder.seek(registered.api_key))), "KEY_INVALID")
        _refused(lambda: ladder._call("RegisterPlayer", lapi.RegisterPlayerRequest(
            name=unique("Other"), request_id=request.request_id), key=owner_key), "REQUEST_ID_REUSED")
        # ... scoped to the owner: another owner's request with the same id is its own
        _, other_key = ladder.register_owner(unique("other-owner"))
        elsewhere = ladder._call("RegisterPlayer", lapi.RegisterPlayerRequest(
            name=unique("Elsewhere"), request_id=request.request_id), key=other_key)
        assert elsewhere.player.player_id != registered.player.player_id
        # an owner's retry: the same owner, no key (the first caller's keeps working: tests/service/test_service_accounts.py)
        owner_request = lapi.RegisterOwnerRequest(name=unique("Retrying-owner"), request_id=uuid.uuid4().hex)
        first = ladder._call("RegisterOwner", owner_request)
        second = ladder._call("RegisterOwner", owner_request)
        assert first.owner.owner_id == second.owner.owner_id and (second.owner_key, second.key_withheld) == ("", True)
        assert ladder.register(unique("x"), owner_key=first.owner_key)[1]
        _refused(lambda: ladder._call("RegisterOwner", lapi.RegisterOwnerRequest(name=unique("o"), request_id="a b")),
                 "BAD_REQUEST_ID")


def _refused(call, reason: str) -> TyphoonError:
    with pytest.raises(TyphoonError) as refused:
        call()
    assert refused.value.reason == reason, refused.value
    return refused.value


def test_the_ladder_over_rest(service, http):
    owner = http.post("/v1/ladder/owners", json={"name": unique("curl")})
    assert owner.status_code == 200, owner.text
    owner_key = owner.json()["owner_key"]
    assert http.post("/v1/ladder/players", json={"name": unique("Rest")}).json()["error"]["reason"] == "KEY_MISSING"
    reply = http.post("/v1/ladder/players", json={"name": unique("Rest")},
                      headers={"Authorization": f"Bearer {owner_key}"})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    player_id, key = body["player"]["player_id"], body["api_key"]
    assert http.get(f"/v1/ladder/players/{player_id}").json()["player"]["owner"] == owner.json()["owner"]["name"]
    name = body["player"]["name"]
    assert http.get("/v1/ladder/players/-", params={"name": name.upper()}).json()["player"]["player_id"] == player_id
    twice = http.get("/v1/ladder/leaderboard?page_size=2&page_size=3")
    assert twice.status_code == 400 and "more than once" in twice.json()["error"]["message"]
    assert http.get(f"/v1/ladder/players/{player_id}/matches").json() == {"matches": [], "next_page_token": ""}
    assert any(p["player_id"] == player_id for p in http.get("/v1/ladder/leaderboard?page_size=200").json()["players"])
    assert http.get("/v1/ladder").json()["time_control"]["initial"] == "300s"
    assert http.get("/v1/ladder/seek").json()["error"]["reason"] == "KEY_MISSING"
    with http.stream("GET", "/v1/ladder/seek", params={"heartbeat_seconds": 1},
                     headers={"Authorization": f"Bearer {key}"}) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        assert next(line for line in lines if line.startswith("event:")) == "event: heartbeat"
    document = http.get("/openapi.json").json()
    assert document["paths"]["/v1/ladder/seek"]["get"]["security"] == [{"apiKey": []}]
    assert document["paths"]["/v1/ladder/players"]["post"]["security"] == [{"ownerKey": []}]
    assert "/v1/ladder/players/{player_id}/matches" in document["paths"]
    # keys rotated and revoked over REST: the old key is refused at once, the new one works
    rotated = http.post(f"/v1/ladder/players/{player_id}/rotate-key", json={},
                        headers={"Authorization": f"Bearer {key}"})
    assert rotated.status_code == 200, rotated.text
    new_key = rotated.json()["api_key"]
    assert http.get("/v1/ladder/seek", headers={"Authorization": f"Bearer {key}"}).json()["error"]["reason"] == \
        "KEY_INVALID"
    assert http.head("/v1/ladder/seek", headers={"Authorization": f"Bearer {new_key}"}).status_code == 200
    wrong = http.post(f"/v1/ladder/players/{player_id}/revoke-key", json={},
                      headers={"Authorization": f"Bearer {key}"})  # the old key revokes nothing
    assert (wrong.status_code, wrong.json()["error"]["reason"]) == (401, "KEY_INVALID")
    revoked = http.post(f"/v1/ladder/players/{player_id}/revoke-key", json={},
                        headers={"Authorization": f"Bearer {owner_key}"})
    assert revoked.status_code == 200, revoked.text
    assert http.head("/v1/ladder/seek", headers={"Authorization": f"Bearer {new_key}"}).status_code == 401


def test_each_ended_ladder_match_is_rated_exactly_once_whoever_sees_it(backend, tmp_path):
    """Two 'processes' (two cores and ladders on the same Redis) race to rate the same ended matches,
    one of them ended while no ladder was running (as after a crash); an aborted match changes no
    rating."""
    redis = backend.fresh(tmp_path / "redis")  # no service process runs a ladder on it

    async def scenario() -> None:
        stores = [redis.store(), redis.store()]
        cores = [MatchService(store) for store in stores]
        # resignations at once are rated here (min_actions 0); a short cooldown after an abandoned match; two
        # players only, each established from the start, so that a win moves ratings (provisional players and
        # their withheld gains: tests/service/test_service_ladder_fair.py)
        config = LadderConfig(time_control=TimeControl(60_000, 0, 1_000), interval=0.05,
                              fair_play=FairPlay(min_actions=0, abandon_cooldown_ms=3_000, established_games=0,
                                                 established_owners=0))
        first, second = Ladder(cores[0], config), Ladder(cores[1], config)
        players = await register_each(first, "north", "south")
        seeks = [await first.seek(lapi.SeekRequest(), CallContext(token=key)) for key in players.values()]

        async def next_match(seek) -> lapi.LadderMatch:
            """The stream's next match (past heartbeats, which come while a slow machine pairs them, and the
            updates of the matches handed before)."""
            async def heartbeats_then_a_match() -> lapi.LadderMatch:
                while (item := await anext(seek)).WhichOneof("kind") != "match":
                    pass
                return item.match
            return await within(heartbeats_then_a_match(), "a match on the Seek stream")

        async def paired() -> list[lapi.LadderMatch]:
            """Pairing rounds until both players have their match, for at most STREAM_TIMEOUT."""
            waiting = [asyncio.ensure_future(next_match(seek)) for seek in seeks]
            deadline = time.monotonic() + STREAM_TIMEOUT
            while not all(w.done() for w in waiting):
                if time.monotonic() > deadline:
                    for w in waiting:
                        w.cancel()
                    raise AssertionError(f"the two players were not paired within {STREAM_TIMEOUT:g} s")
                await within(first.pair_round(), "a pairing round")
                await asyncio.sleep(0.05)
            return [w.result() for w in waiting]

        async def board() -> list[lapi.LadderPlayer]:
            return [(await first.get_player(lapi.GetPlayerRequest(player_id=pid), CallContext())).player
                    for pid in players]

        # 1. a match ended by resignation, rated by both "processes" at once, twice over
        one = await paired()
        await cores[0].resign(api.ResignRequest(match_id=one[0].match_id), CallContext(token=one[0].seat_token))
        rated = await asyncio.gather(first.results_round(), second.results_round(), first.results_round(),
                                     second.results_round())
        assert sum(rated) == 1
        rated_once = await board()
        assert [p.games for p in rated_once] == [1, 1] and {p.mu > 25 for p in rated_once} == {True, False}
        # 2. a match that ends while no ladder runs (a crash between the end and the rating)
        two = await paired()
        await cores[1].resign(api.ResignRequest(match_id=two[0].match_id), CallContext(token=two[0].seat_token))
        after_crash = Ladder(MatchService(redis.store()), config)
        assert await after_crash.results_round() == 1
        assert await first.results_round() == 0 and await second.results_round() == 0
        # 3. an aborted match: nobody makes a first action within 1 s
        three = await paired()
        await asyncio.sleep(1.2)
        await Sweeper(cores[0].clocks, cores[0].forfeit_side_on_time).sweep()
        meta = (await stores[0].metas([three[0].match_id]))[0]
        assert meta["status"] == "aborted"
        before = await board()
        settling = await stores[0].time_ms()
        assert await second.results_round() == 1
        after = await board()
        assert [p.mu for p in after] == [p.mu for p in before] and [p.games for p in after] == [2, 2]
        assert [p.aborted for p in after] == [1, 1]
        for pid in players:
            history = (await first.list_player_matches(lapi.ListPlayerMatchesRequest(player_id=pid),
                                                       CallContext())).matches
            assert [g.outcome for g in history][0] == "aborted" and len(history) == 3
            assert {g.match_id for g in history} == {one[0].match_id, two[0].match_id, three[0].match_id}
        # the side that made no first action is not paired again for a while, unless it seeks anew
        blamed = next(m for m in three if m.side == "german").opponent_id
        blamed = next(pid for pid in players if pid != blamed)
        record = await stores[0].redis.hmget(f"{PREFIX}player:{blamed}", "abort_streak", "blocked_until")
        assert int(record[0]) == 1 and int(record[1]) >= settling + 3_000  # the cooldown from its settling
        assert await first.pair_round() == 0  # both still seeking, but one waits
        index = list(players).index(blamed)
        await seeks[index].aclose()
        # it holds across reconnects: a new Seek stream is not paired before the cooldown is over
        seeks[index] = await first.seek(lapi.SeekRequest(), CallContext(token=players[blamed]))
        waiting = asyncio.ensure_future(next_match(seeks[index]))
        await asyncio.sleep(0.3)
        assert await first.pair_round() == 0 and not waiting.done()
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        await seeks[index].aclose()
        # a Seek checked but never read (a REST HEAD) changes nothing: not the slots, not the session
        player_key = f"{PREFIX}player:{blamed}"
        before_head = await stores[0].redis.hmget(player_key, "concurrency", "seek_session")
        await (await first.seek(lapi.SeekRequest(concurrency=3), CallContext(token=players[blamed]))).aclose()
        assert await stores[0].redis.hmget(player_key, "concurrency", "seek_session") == before_head
        seeks[index] = await first.seek(lapi.SeekRequest(), CallContext(token=players[blamed]))
        four = await paired()  # once the cooldown is over
        assert await stores[0].time_ms() >= int(record[1])
        assert len(four) == 2
        # the aborted match is no meeting: whoever was German in it is German again (not the other,
        # as if the sides had alternated over it)
        german_in = {match.match_id: match.opponent_id for match in (*three, *four) if match.side == "soviet"}
        assert german_in[four[0].match_id] == german_in[three[0].match_id]
        # a match handed again (a bot reconnecting) keeps its own time control, whatever the ladder's is now
        changed = Ladder(cores[1], LadderConfig(time_control=TimeControl(120_000, 5_000, 9_000), interval=0.05))
        again = await changed.seek(lapi.SeekRequest(), CallContext(token=players[blamed]))
        handed = await asyncio.wait_for(next_match(again), 60)
        assert handed.match_id == four[index].match_id
        assert (handed.time_control.initial.seconds, handed.time_control.increment.seconds) == (60, 0)
        await again.aclose()
        for seek in seeks:
            await seek.aclose()
        for store in stores:
            await store.close()

    try:
        asyncio.run(scenario())
    finally:
        redis.stop()


# --- four bots, unattended -------------------------------------------------------------------------

class Silent:
    """A bot that plays at random, then, from game turn ``from_turn`` of its first match that gets there,
    stops answering (its strategy never returns again).

    A turn, not a count of answers: by the start of turn 5 each side has made more than ``min_actions``
    (50) actions of its own (a side makes at least 14 a game turn), so its loss on time is rated, and a
    game always gets there. A count could run out at the very end of a short game the bot lost on the
    board; then it fell silent before the first action of its next matches, which were aborted, and it
    never lost on time (a CI run under stress-ng)."""

    name = "silent"

    def __init__(self, from_turn: int = 5) -> None:
        self.from_turn = from_turn
        self.release = threading.Event()
        self.rng = random.Random("silent")

    def choose(self, state, legal_actions):
        if state.turn >= self.from_turn:
            self.release.wait()
        return self.rng.choice(legal_actions)


#: Each form plays for ~4.5 min on a quiet machine: the bounds leave room for one three times as slow
#: (under stress-ng --cpu 4 a form took 4-5.5 min, and a match the heuristic bot plays took more than
#: 2 min to finish once the bots stopped seeking).
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("restart", [False, True], ids=["steady", "killed-and-restarted"])
def test_four_bots_play_a_ladder_unattended(backend, tmp_path, restart):
    """Heuristic, two random bots and one that falls silent in its first match play a ladder with a
    short time control: the silent one loses on time, the others go on, no match is left open, every
    finished match changes the ratings once, and heuristic ends above both random bots. With
    ``restart`` the service is killed (SIGKILL) in the middle of the matches and started again."""
    if backend.cluster and not restart:
        pytest.skip("on a Cluster the killed-and-restarted form, which plays the steady one's part too, is "
                    "enough: each form plays for minutes")
    redis = backend.fresh(tmp_path / "redis")
    port = free_port()
    # an increment of a second a move: a bot that answers flags only if it thinks a second a move on
    # average, which not even a loaded machine makes the heuristic bot do; the silent one flags in 30 s
    # four bots can each meet 3 other owners, not 10 times within the run: each is established after its
    # first rated match (else every one stays provisional, unranked, and no win raises a rating)
    serve = (*redis.serve_args, "--ladder-time-control", "30+1", "--ladder-first-action", "15",
             "--ladder-established-games", "1", "--ladder-established-owners", "1")
    service = ServiceProcess(*serve, grpc_port=port).start()
    silent = Silent()  # past both sides' min_actions (50 by default): its loss on time is rated
    bots: dict[str, LadderBot] = {}
    threads = []
    try:
        with LadderClient(service.target) as ladder:
            for name, strategy in (("heuristic", "heuristic"), ("random-a", "random"), ("random-b", "random"),
                                   ("silent", silent)):
                key = ladder.register_with_owner(name).api_key
                bots[name] = LadderBot(strategy, service.target, key, seed=name, retry_seconds=60)
            threads = [threading.Thread(target=bot.run, daemon=True) for bot in bots.values()]
            for thread in threads:
                thread.start()
            restarted = not restart
            started_at = time.monotonic()
            while True:
                time.sleep(1)
                if not restarted and time.monotonic() - started_at > 4 and len(
                        {m for bot in bots.values() for m in bot.playing}) >= 2:
                    service.process.kill()  # in the middle of two matches: no shutdown at all
                    service.process.wait()
                    service = ServiceProcess(*serve, grpc_port=port).start()
                    restarted = True
                standings = {p.name: p for p in ladder.standings()}
                if (restarted and standings["heuristic"].games >= 2 and standings["silent"].time_losses
                        and standings["heuristic"].rank < min(standings["random-a"].rank, standings["random-b"].rank)):
                    break
                assert time.monotonic() < started_at + 900, ladder_table(ladder)
            for bot in bots.values():
                bot.stop_seeking()
            for name, bot in bots.items():
                if name != "silent":
                    assert bot.wait(480), f"{name} still plays {bot.playing}"
            started = {m.match_id for bot in bots.values() for m in bot.record.started}
            with TyphoonClient(service.target) as client:  # every match ends: the silent one's by its clock
                wait_for(lambda: all(client.get_match(m).match.status in (FINISHED, ABORTED) for m in started), 120)
                histories = {p.name: ladder.matches(p.player_id) for p in ladder.standings()}
                wait_for(lambda: sum(len(ladder.matches(p.player_id)) for p in ladder.standings())
                         == 2 * len(started), 120)  # the last results are rated
                histories = {p.name: ladder.matches(p.player_id) for p in ladder.standings()}
                flagged = [g.match_id for g in histories["silent"] if g.reason == "time" and g.outcome == "loss"]
                assert flagged
                report = verify_log(fetch_log(client, flagged[-1]), match_id=flagged[-1],
                                    final=client.get_match(flagged[-1]))
                assert report.ok, report.text()
            standings = {p.name: p for p in ladder.standings()}
            for name, player in standings.items():
                games = histories[name]
                assert len({g.match_id for g in games}) == len(games)  # each match once
                assert player.games == sum(g.rated for g in games)  # rated once per rated match
                assert all(g.rated == (g.unrated_reason == "") for g in games)
                assert player.aborted == sum(g.outcome == "aborted" for g in games)
                assert player.games_as_german + player.games_as_soviet == player.games
            assert all(not bot.record.errors for bot in bots.values()), [b.record.errors for b in bots.values()]
            assert standings["heuristic"].rank < min(standings["random-a"].rank, standings["random-b"].rank)
            rated = {g.match_id for games in histories.values() for g in games if g.rated}
            assert sum(p.games for p in standings.values()) == 2 * len(rated)
            assert rated <= {m for m in started if client_status(service.target, m) == FINISHED}
            # every rating recomputed from the public API (clients/ladder_audit.py): the same
            audit = audit_ladder(ladder)
            assert audit.ok and audit.rated == len(rated), audit.summary()
            assert audit.rated + audit.unrated == len({g.match_id for games in histories.values() for g in games})
            sides = {side.side: side for side in ladder.ladder().side_ratings}
            assert sides["german"].games == sides["soviet"].games == audit.rated
    finally:
        silent.release.set()
        for bot in bots.values():
            bot.stop()
        for thread in threads:
            thread.join(10)
        service.stop()
        redis.stop()



def client_status(target: str, match_id: str) -> int:
    with TyphoonClient(target) as client:
        return client.get_match(match_id).match.status


def ladder_table(ladder: LadderClient) -> str:
    return "the ladder did not get there in time:\n" + leaderboard_table(ladder.standings())


def test_the_operator_commands(service, capsys, monkeypatch):
    from clients.cli import main

    name, owner_name = unique("Operator"), unique("ops")
    assert main(["ladder", "owner", "register", "--server", service.target, "--name", owner_name]) == 0
    out = capsys.readouterr().out
    owner_id = re.search(r"registered owner \S+ as (o\w+)", out)[1]
    owner_key = re.search(r"owner key \(shown only now; keep it\): (tpo_\S+)", out)[1]
    assert main(["ladder", "register", "--server", service.target, "--name", name]) == 2
    assert "--owner-key" in capsys.readouterr().err
    assert main(["ladder", "register", "--server", service.target, "--name", name, "--owner-key", owner_key]) == 0
    out = capsys.readouterr().out
    assert f"registered {name} as p" in out and "API key (shown only now; keep it): tpk_" in out
    player_id = re.search(r" as (p\w+)", out)[1]
    monkeypatch.setenv("TYPHOON_OWNER_KEY", owner_key)  # a key from the environment, out of the process list
    assert main(["ladder", "register", "--server", service.target, "--name", name]) == 1
    assert "NAME_TAKEN" in capsys.readouterr().err
    assert main(["ladder", "owner", "show", owner_id, "--server", service.target]) == 0
    assert name in capsys.readouterr().out
    assert main(["ladder", "rotate-key", player_id, "--server", service.target, "--key", owner_key]) == 0
    new_key = re.search(r"new API key .*: (tpk_\S+)", capsys.readouterr().out)[1]
    assert main(["ladder", "revoke-key", player_id, "--server", service.target, "--key", new_key]) == 0
    assert "no longer works" in capsys.readouterr().out
    assert main(["ladder", "rotate-key", owner_id, "--owner", "--server", service.target, "--key", owner_key]) == 0
    owner_key = re.search(r"new owner key .*: (tpo_\S+)", capsys.readouterr().out)[1]
    assert main(["ladder", "revoke-key", owner_id, "--owner", "--server", service.target, "--key", owner_key]) == 0
    assert "closed" in capsys.readouterr().out
    assert main(["ladder", "leaderboard", "--server", service.target, "--all"]) == 0
    out = capsys.readouterr().out
    assert name in out and "rating" in out and "time control 300+3" in out
    assert main(["ladder", "player", name, "--server", service.target]) == 0
    assert f"{name} (p" in capsys.readouterr().out
    assert main(["bot", "--ladder", service.target, "--strategy", "random"]) == 2
    assert "--ladder needs --key" in capsys.readouterr().err


def test_a_pair_counted_before_german_games_were_goes_on_alternating(backend):
    """The pairs hash of an older service counts a pair's matches only: its German games are taken to
    be what alternation gave (the first of the two German in the 1st, 3rd... match) when first needed."""
    async def scenario() -> None:
        store = backend.store()
        ladder = Ladder(MatchService(store))
        prefix = f"{{test:{uuid.uuid4().hex}}}:"  # one slot, as the ladder's keys
        pairs, pair = prefix + "pairs", "pa:pb"
        await store.redis.hset(pairs, pair, 3)  # three matches, the first of the two German in two of them
        keys = [prefix + name for name in ("open", "a:assigned", "b:assigned")] + [pairs, prefix + "a", prefix + "b"]
        assert await ladder._assign(keys=keys, args=["m4", "{}", "{}", "{}", pair, "0"]) == 1
        assert await store.redis.hmget(pairs, pair, pair + ":german") == [b"4", b"2"]
        await store.redis.delete(*keys)
        await store.close()

    asyncio.run(scenario())


def test_the_keys_of_an_older_ladder_are_moved_under_the_ladders_hash_tag(backend, tmp_path):
    """An older version kept the ladder under ``typhoon:ladder:``: a service that starts moves it under
    ``typhoon:{ladder}:`` (one Cluster slot), merging it with keys this version wrote meanwhile."""
    if backend.cluster:
        pytest.skip("older versions refused the ladder on a Redis Cluster: nothing there to move")

    async def scenario() -> None:
        store = redis.store()
        ladder = Ladder(MatchService(store))
        older = await register_each(ladder, "Older")
        names = [text_of(name) async for name in store.redis.scan_iter(match=PREFIX + "*")]
        for name in names:  # as an older version wrote them
            await store.redis.rename(name, OLDER_PREFIX + name[len(PREFIX):])
        newer = await register_each(ladder, "Newer")
        assert await ladder.move_older_keys() >= 4  # names, keys, board, the player...
        assert [name async for name in store.redis.scan_iter(match=OLDER_PREFIX + "*")] == []
        for player_id, key in (older | newer).items():  # both there, keys and names merged
            assert await ladder.accounts.player_of_key(key) == player_id
            name = (await ladder.get_player(lapi.GetPlayerRequest(player_id=player_id), CallContext())).player.name
            found = await ladder.get_player(lapi.GetPlayerRequest(player_id="-", name=name), CallContext())
            assert found.player.player_id == player_id
        assert await ladder.move_older_keys() == 0
        await store.close()

    redis = backend.fresh(tmp_path / "redis")  # of its own: every ladder key of it is renamed
    try:
        asyncio.run(scenario())
    finally:
        redis.stop()


def test_the_ladder_draws_its_seat_tokens_unscreened_and_unremembered(tmp_path, monkeypatch):
    """A ladder match's seat tokens are the service's own draws (256 random bits): they are not screened
    for strength as a caller's chosen token is (zxcvbn costs milliseconds on the event loop), nor kept
    for 31 days as chosen tokens are, and each acts for its side."""
    def no_screening(token: str) -> None:
        raise AssertionError("a seat token the service drew was screened as a chosen one")

    monkeypatch.setattr("service.match.core.check_strength", no_screening)

    async def scenario(store: Store, ladder: Ladder) -> None:
        players = await register_each(ladder, "drawn-a", "drawn-b")
        seeks = [await ladder.seek(lapi.SeekRequest(), CallContext(token=key)) for key in players.values()]
        german, soviet = sorted(await matches_paired(ladder, seeks), key=lambda m: m.side)
        assert german.match_id == soviet.match_id and (german.side, soviet.side) == ("german", "soviet")
        assert await store.redis.keys("typhoon:seat-token:*") == []
        core = ladder.core
        await core.resign(api.ResignRequest(match_id=soviet.match_id), CallContext(token=soviet.seat_token))
        (meta,) = await store.metas([german.match_id])
        assert meta["status"] == "finished" and json.loads(meta["result"])["winner"] == "german"
        for seek in seeks:
            await seek.aclose()

    run_with_a_ladder(tmp_path, scenario)
