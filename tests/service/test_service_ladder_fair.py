"""The ladder can't be farmed, and its keys can't be guessed or kept: each fair-play rule and each key
rule, on a real Redis of this module's own (no service process runs a ladder on it: the ladders here,
with the test's settings, are the only ones pairing and rating); a single Redis, then a Redis Cluster (the
``backend`` fixture)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import random
import uuid
from typing import Any

import grpc
import pytest

from service.client_identity import counted_as
from service.errors import ServiceError
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.ladder.accounts import PREFIX
from service.ladder.core import Ladder, LadderConfig
from service.ladder.fairness import FairPlay
from service.match.clock import TimeControl
from service.match.core import CallContext, MatchService

from service_helpers import Backend

#: Actions that bring the other side to act soonest (a match played "for a few actions of each side").
_HURRY = ("standard_setup", "end_phase", "close_declarations", "decline_advance")


@pytest.fixture(scope="module")
def redis_url(backend, tmp_path_factory):
    """A Redis of the module's own, of the backend's kind (its Backend: ladder_on takes it)."""
    redis = backend.fresh(tmp_path_factory.mktemp("ladder-fair") / "redis")
    yield redis
    redis.stop()


#: The longest a test waits for a stream's item or its closing (a busy machine is slow, a hang is a failure).
STREAM_WAIT = 60


async def bounded(awaitable):
    """``awaitable``'s result, or a clear failure after STREAM_WAIT seconds (never a hung suite)."""
    try:
        async with asyncio.timeout(STREAM_WAIT):
            return await awaitable
    except TimeoutError:
        raise AssertionError(f"nothing from the stream in {STREAM_WAIT} s") from None


async def cancelled(task: asyncio.Future) -> None:
    """Cancel ``task`` until it is done (a cancellation landing inside a Redis call may be swallowed by
    the client library, and the stream then reads on), or fail after STREAM_WAIT seconds."""
    for _ in range(STREAM_WAIT * 10):
        if task.done():
            return
        task.cancel()
        await asyncio.wait({task}, timeout=0.1)
    raise AssertionError(f"a stream's reader not cancelled in {STREAM_WAIT} s")


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def ladder_on(redis_url: Backend, address_key: bytes | None = None, **fair: Any) -> Ladder:
    config = LadderConfig(time_control=TimeControl(600_000, 0, 60_000), interval=0.05, rematch_wait_ms=0,
                          fair_play=FairPlay(**fair), address_key=address_key)
    return Ladder(MatchService(redis_url.store()), config)


async def owner(ladder: Ladder, name: str = "owner", client: str = "") -> tuple[str, str]:
    """An owner registered from the client address ``client`` (as the transports give it; "": none known)."""
    response = await ladder.register_owner(lapi.RegisterOwnerRequest(name=unique(name)), CallContext(client=client))
    return response.owner.owner_id, response.owner_key


async def player(ladder: Ladder, owner_key: str, name: str = "bot") -> tuple[str, str]:
    response = await ladder.register_player(lapi.RegisterPlayerRequest(name=unique(name)),
                                            CallContext(token=owner_key))
    return response.player.player_id, response.api_key


async def players_of_their_own(ladder: Ladder, count: int) -> list[tuple[str, str]]:
    return [await player(ladder, (await owner(ladder))[1]) for _ in range(count)]


class Seeking:
    """Players seeking on a ladder: each one's Seek stream, and the matches handed to them."""

    def __init__(self, ladder: Ladder, keys: dict[str, str]) -> None:
        self.ladder = ladder
        self.keys = dict(keys)
        self.streams: dict[str, Any] = {}
        self.waiting: dict[str, asyncio.Future] = {}

    async def start(self) -> Seeking:
        for player_id, key in self.keys.items():
            self.streams[player_id] = await self.ladder.seek(lapi.SeekRequest(), CallContext(token=key))
        return self

    def reading(self, *player_ids: str) -> None:
        """Read these players' streams, for a match that comes to one of them (a stream seeks once read)."""
        for player_id in player_ids:
            self._next(player_id)

    def _next(self, player_id: str) -> asyncio.Future:
        if player_id not in self.waiting:
            self.waiting[player_id] = asyncio.ensure_future(self._next_match(player_id))
        return self.waiting[player_id]

    async def _next_match(self, player_id: str) -> lapi.SeekResponse:
        """The stream's next match (past the updates of the matches handed before, and heartbeats)."""
        while (item := await anext(self.streams[player_id])).WhichOneof("kind") != "match":
            pass
        return item

    async def matches(self, *player_ids: str, rounds: int = 40) -> dict[str, lapi.LadderMatch]:
        """The next match of each of ``player_ids`` (pairing as needed); fails if one gets none."""
        for _ in range(rounds):
            futures = {pid: self._next(pid) for pid in player_ids}
            if all(f.done() for f in futures.values()):
                for pid in player_ids:
                    del self.waiting[pid]
                return {pid: f.result().match for pid, f in futures.items()}
            await asyncio.sleep(0.05)  # a stream just read says it is seeking before the pairing looks
            await self.ladder.pair_round()
        raise AssertionError(f"no match for {[pid for pid in player_ids if not self._next(pid).done()]}")

    async def none_for(self, *player_ids: str) -> None:
        """No match comes to any of ``player_ids`` over a few pairing rounds."""
        for _ in range(5):
            await self.ladder.pair_round()
            await asyncio.sleep(0.05)
        assert not any(self._next(pid).done() for pid in player_ids)

    async def reconnect(self, player_id: str, request: lapi.SeekRequest | None = None) -> None:
        """The player's Seek stream closed, and a new one opened (as a bot restarting does)."""
        future = self.waiting.pop(player_id, None)
        if future is not None:
            await cancelled(future)
        await bounded(self.streams[player_id].aclose())
        self.streams[player_id] = await self.ladder.seek(request or lapi.SeekRequest(),
                                                         CallContext(token=self.keys[player_id]))

    async def heartbeat(self, player_id: str) -> lapi.SeekHeartbeat:
        """The player's next heartbeat, on a new Seek stream that beats every second (pairing meanwhile;
        the matches it plays, sent again on the new stream, and their updates skipped)."""
        await self.reconnect(player_id, lapi.SeekRequest(heartbeat_seconds=1))
        item = asyncio.ensure_future(anext(self.streams[player_id]))
        for _ in range(STREAM_WAIT * 20):
            await asyncio.wait({item}, timeout=0.05)
            if item.done():
                if item.result().WhichOneof("kind") == "heartbeat":
                    return item.result().heartbeat
                item = asyncio.ensure_future(anext(self.streams[player_id]))
            await self.ladder.pair_round()
        raise AssertionError(f"no heartbeat in {STREAM_WAIT} s")

    async def close(self) -> None:
        for future in self.waiting.values():
            await cancelled(future)
        for stream in self.streams.values():
            await bounded(stream.aclose())


async def play(core: MatchService, match: dict[str, lapi.LadderMatch], actions: int, hurry: bool = True) -> None:
    """Play until each side has made ``actions`` actions of its own (hurrying to the other side's turn, or
    at random as a bot does)."""
    tokens = {m.side: m.seat_token for m in match.values()}
    match_id = next(iter(match.values())).match_id
    made = dict.fromkeys(tokens, 0)
    chooser = random.Random(match_id)
    while min(made.values()) < actions:
        legal = await core.list_legal_actions(api.ListLegalActionsRequest(match_id=match_id), CallContext())
        side = legal.side_to_act
        chosen = next((a for a in legal.actions if a.WhichOneof("kind") in _HURRY), legal.actions[0]) if hurry \
            else chooser.choice(legal.actions)
        await core.submit_action(api.SubmitActionRequest(match_id=match_id, action=chosen),
                                 CallContext(token=tokens[side]))
        made[side] += 1


async def resign(core: MatchService, match: lapi.LadderMatch) -> None:
    await core.resign(api.ResignRequest(match_id=match.match_id), CallContext(token=match.seat_token))


async def history(ladder: Ladder, player_id: str) -> list[lapi.LadderGame]:
    return list((await ladder.list_player_matches(lapi.ListPlayerMatchesRequest(player_id=player_id),
                                                  CallContext())).matches)


async def rating(ladder: Ladder, player_id: str) -> tuple[float, int]:
    found = (await ladder.get_player(lapi.GetPlayerRequest(player_id=player_id), CallContext())).player
    return found.mu, found.games


def run(scenario) -> None:
    asyncio.run(scenario())


# --- fair play -------------------------------------------------------------------------------------

def test_two_players_of_one_owner_are_never_paired_unless_the_ladder_is_private(redis_url):
    async def scenario() -> None:
        public, private = ladder_on(redis_url), ladder_on(redis_url, same_owner_pairs=True)
        _, owner_key = await owner(public)
        mine = dict([await player(public, owner_key, "mine"), await player(public, owner_key, "mine")])
        seeking = await Seeking(public, mine).start()
        await seeking.none_for(*mine)  # the two of one owner: never
        other = dict([await player(public, (await owner(public, "other"))[1], "theirs")])
        seeking.keys |= other
        seeking.streams |= {pid: await public.seek(lapi.SeekRequest(), CallContext(token=key))
                            for pid, key in other.items()}
        (theirs,) = other
        paired = await seeking.matches(theirs)
        assert paired[theirs].opponent_id in mine
        await resign(public.core, paired[theirs])
        assert await public.results_round() == 1
        await seeking.close()
        seeking = await Seeking(private, mine).start()  # a private ladder pairs them
        paired = await seeking.matches(*mine)
        assert {m.opponent_id for m in paired.values()} == set(mine)
        await seeking.close()
        await public.store.close()
        await private.store.close()

    run(scenario)


def test_a_pair_is_rated_at_most_n_times_a_window_and_others_come_first(redis_url):
    async def scenario() -> None:
        ladder = ladder_on(redis_url, pair_rated_max=2, min_actions=0)
        (a, a_key), (b, b_key), (c, c_key) = await players_of_their_own(ladder, 3)
        seeking = await Seeking(ladder, {a: a_key, b: b_key}).start()
        verdicts = []
        for _ in range(3):
            match = await seeking.matches(a, b)
            before = await rating(ladder, a)
            await resign(ladder.core, match[b])
            assert await ladder.results_round() == 1
            verdicts.append(((await history(ladder, a))[0].rated, (await history(ladder, a))[0].unrated_reason,
                             await rating(ladder, a) != before))
        assert verdicts == [(True, "", True), (True, "", True), (False, "pair_limit", False)]
        assert (await rating(ladder, a))[1] == 2  # two rated games
        # the pair's third: played, not rated, and not in the record; both players' histories say so
        assert [(g.rated, g.unrated_reason) for g in (await history(ladder, b))[:1]] == [(False, "pair_limit")]
        # a third player seeking: the capped pair waits for it, one of them gets the new opponent
        seeking.keys[c] = c_key
        seeking.streams[c] = await ladder.seek(lapi.SeekRequest(), CallContext(token=c_key))
        paired = await seeking.matches(c)
        assert paired[c].opponent_id in (a, b)
        # the window is by the matches' end times: outside it, the pair counts again
        pair = "%s:%s" % tuple(sorted((a, b)))
        assert len(json.loads(await ladder.redis.hget(PREFIX + "pairs", pair + ":rated"))) == 2
        await seeking.close()
        await ladder.store.close()

    run(scenario)


def test_an_early_end_is_not_rated_and_the_quitter_waits_however_it_reconnects(redis_url):
    async def scenario() -> None:
        ladder = ladder_on(redis_url, min_actions=2, abandon_cooldown_ms=1_500)
        (a, a_key), (b, b_key) = await players_of_their_own(ladder, 2)
        seeking = await Seeking(ladder, {a: a_key, b: b_key}).start()
        # 1. a resignation at once: not rated, and the one who resigned waits
        match = await seeking.matches(a, b)
        await resign(ladder.core, match[b])
        assert await ladder.results_round() == 1
        game = (await history(ladder, a))[0]
        assert (game.outcome, game.rated, game.unrated_reason) == ("win", False, "early")
        assert await rating(ladder, a) == (25.0, 0) and await rating(ladder, b) == (25.0, 0)
        # ... however it reconnects: a new Seek stream waits as the old one did
        await seeking.reconnect(b)
        await seeking.none_for(a, b)
        # 2. after its cooldown, a match where each side made two actions before one resigned: rated
        match = await seeking.matches(a, b)
        await play(ladder.core, match, 2)
        await resign(ladder.core, match[a])
        assert await ladder.results_round() == 1
        game = (await history(ladder, a))[0]
        assert (game.outcome, game.rated, game.unrated_reason) == ("loss", True, "")
        assert (await rating(ladder, a))[1] == 1 and (await rating(ladder, b))[1] == 1
        fields = await ladder.redis.hmget(f"{PREFIX}player:{b}", "abort_streak")
        assert fields == [b"0"]  # a rated match ends the run of abandoned ones
        await seeking.close()
        await ladder.store.close()

    run(scenario)


def test_a_seeking_player_hears_why_it_is_not_paired(redis_url):
    async def scenario() -> None:
        ladder = ladder_on(redis_url, min_actions=2, abandon_cooldown_ms=60_000)
        (a, a_key), (b, b_key) = await players_of_their_own(ladder, 2)
        seeking = await Seeking(ladder, {a: a_key, b: b_key}).start()
        match = await seeking.matches(a, b)
        seeking.reading(a)
        beat = await seeking.heartbeat(b)  # playing its one match
        assert (beat.playing, beat.waiting) == (1, lapi.SEEK_WAIT_REASON_PLAYING_ENOUGH)
        await resign(ladder.core, match[b])  # at once: b abandoned it
        assert await ladder.results_round() == 1
        beat = await seeking.heartbeat(b)
        assert beat.waiting == lapi.SEEK_WAIT_REASON_COOLDOWN, beat
        until = beat.cooldown_until.ToMilliseconds() - await ladder.store.time_ms()
        assert 0 < until <= 60_000 and "abandoned your last match" in beat.waiting_message
        beat = await seeking.heartbeat(a)  # its one possible opponent waits
        assert beat.waiting == lapi.SEEK_WAIT_REASON_OPPONENTS_BUSY, beat
        await seeking.close()
        await ladder.store.close()

    run(scenario)


def test_by_default_a_resignation_before_fifty_actions_a_side_is_not_rated(redis_url):
    """The default min_actions (50: about the Soviet's first two game turns; see fairness.py), played as
    bots play (at random), not hurried."""
    async def scenario() -> None:
        ladder = ladder_on(redis_url, abandon_cooldown_ms=0)
        assert ladder.fair_play.min_actions == 50
        (a, a_key), (b, b_key) = await players_of_their_own(ladder, 2)
        seeking = await Seeking(ladder, {a: a_key, b: b_key}).start()
        verdicts = []
        for actions in (49, 50):
            match = await seeking.matches(a, b)
            await play(ladder.core, match, actions, hurry=False)
            await resign(ladder.core, match[a])
            assert await ladder.results_round() == 1
            game = (await history(ladder, a))[0]
            verdicts.append((game.outcome, game.rated, game.unrated_reason))
        assert verdicts == [("loss", False, "early"), ("loss", True, "")]
        await seeking.close()
        await ladder.store.close()

    run(scenario)


_networks = itertools.count(random.randrange(512))


def random_ipv4() -> str:
    """An address of 198.18.0.0/15 (kept for benchmarks) in a /24 no other test uses (a client counts by its /24)."""
    n = next(_networks)
    return f"198.{18 + n // 256 % 2}.{n % 256}.{random.randrange(1, 255)}"


def neighbour_of(address: str) -> str:
    """Another address of ``address``'s /24."""
    head, _, last = address.rpartition(".")
    return f"{head}.{int(last) % 254 + 1}"


async def ladder_dump(ladder: Ladder) -> str:
    """Every key and value of the ladder in Redis, as one text."""
    parts = []
    async for name in ladder.redis.scan_iter(PREFIX + "*"):
        kind = (await ladder.redis.type(name)).decode()
        read = {"hash": ladder.redis.hgetall, "string": ladder.redis.get, "list": lambda n: ladder.redis.lrange(n, 0, -1),
                "zset": lambda n: ladder.redis.zrange(n, 0, -1), "set": ladder.redis.smembers}[kind]
        parts.append(f"{name!r} {await read(name)!r}")
    return "\n".join(parts)


def test_owners_registered_from_one_address_are_one_owner(redis_url):
    """Related owners (registered from one client network: an IPv4 /24, an IPv6 /64) are never paired,
    unless the ladder is private; owners from no known address, or with the relation off, are not related;
    Redis keeps a keyed hash of the address, for the window, and nothing else of it."""
    async def scenario() -> None:
        key = b"an operator's key of 32 bytes..."
        window = 3 * 86_400_000
        ladder = ladder_on(redis_url, address_key=key, min_actions=0, related_window_ms=window)
        here, there, network = random_ipv4(), random_ipv4(), f"2001:db8:{random.randrange(65536):x}:7"
        registered = {}
        for name, client in (("a", here), ("b", neighbour_of(here)), ("c", f"{network}::1"), ("d", f"{network}:ffff::9"),
                             ("e", there), ("f", ""), ("g", "")):
            owner_id, owner_key = await owner(ladder, name, client)
            registered[name] = (owner_id, *await player(ladder, owner_key, name))
        groups = {name: (await ladder.redis.hget(f"{PREFIX}owner:{owner_id}", "group")).decode()
                  for name, (owner_id, _, _) in registered.items()}
        first = {name: registered[name][0] for name in registered}
        assert groups == {"a": first["a"], "b": first["a"], "c": first["c"], "d": first["c"], "e": first["e"],
                          "f": first["f"], "g": first["g"]}
        keys = {name: (pid, api_key) for name, (_, pid, api_key) in registered.items()}
        # related: never paired, however long they seek; a stranger is
        seeking = await Seeking(ladder, dict(keys[n] for n in "ab")).start()
        await seeking.none_for(keys["a"][0], keys["b"][0])
        await seeking.close()
        seeking = await Seeking(ladder, dict(keys[n] for n in "cd")).start()
        await seeking.none_for(keys["c"][0], keys["d"][0])
        seeking.keys |= dict([keys["e"]])
        seeking.streams[keys["e"][0]] = await ladder.seek(lapi.SeekRequest(), CallContext(token=keys["e"][1]))
        paired = await seeking.matches(keys["e"][0])
        assert paired[keys["e"][0]].opponent_id in (keys["c"][0], keys["d"][0])
        await seeking.close()
        # no address known (the service's own call, a Unix socket): related to nobody
        seeking = await Seeking(ladder, dict(keys[n] for n in "fg")).start()
        assert (await seeking.matches(keys["f"][0], keys["g"][0]))[keys["f"][0]].opponent_id == keys["g"][0]
        await seeking.close()
        # a private ladder pairs related owners' players
        private = ladder_on(redis_url, address_key=key, min_actions=0, same_owner_pairs=True)
        seeking = await Seeking(private, dict(keys[n] for n in "ab")).start()
        assert (await seeking.matches(keys["a"][0], keys["b"][0]))[keys["a"][0]].opponent_id == keys["b"][0]
        await seeking.close()
        # stored: the address's keyed hash (HMAC-SHA256 of its counted form), expiring with the window
        tags = {hmac.new(key, form.encode(), hashlib.sha256).hexdigest()
                for form in (counted_as(here), counted_as(there), f"{network}::/64")}
        stored = {name.decode().rpartition(":")[2] async for name in ladder.redis.scan_iter(PREFIX + "address:*")}
        assert tags <= stored
        for tag in tags:
            assert window - 60_000 < await ladder.redis.pttl(f"{PREFIX}address:{tag}") <= window
        dump = await ladder_dump(ladder)
        assert here not in dump and there not in dump and network not in dump
        # the relation off: owners from one address are not related, and nothing of it is kept
        unrelated = ladder_on(redis_url, related_window_ms=0)
        elsewhere = random_ipv4()
        first_id, _ = await owner(unrelated, "h", elsewhere)
        second_id, _ = await owner(unrelated, "i", elsewhere)
        assert [await unrelated.redis.hget(f"{PREFIX}owner:{o}", "group") for o in (first_id, second_id)] == \
            [first_id.encode(), second_id.encode()]
        assert len([n async for n in ladder.redis.scan_iter(PREFIX + "address:*")]) == len(stored)
        for each in (ladder, private, unrelated):
            await each.store.close()

    run(scenario)


def test_the_players_of_two_owners_are_rated_a_few_times_between_them_all(redis_url):
    async def scenario() -> None:
        ladder = ladder_on(redis_url, min_actions=0, owner_pair_rated_max=2, pair_rated_max=3)
        _, first_key = await owner(ladder, "first")
        _, second_key = await owner(ladder, "second")
        a1, a2 = [await player(ladder, first_key, "a") for _ in range(2)]
        b1, b2 = [await player(ladder, second_key, "b") for _ in range(2)]
        keys = dict([a1, a2, b1, b2])
        verdicts = []
        for x, y in ((a1, b1), (a2, b2), (a1, b2)):  # three different pairs of players, one pair of owners
            seeking = await Seeking(ladder, {x[0]: x[1], y[0]: y[1]}).start()
            match = await seeking.matches(x[0], y[0])
            before = await rating(ladder, x[0])
            await resign(ladder.core, match[y[0]])
            assert await ladder.results_round() == 1
            game = (await history(ladder, x[0]))[0]
            verdicts.append((game.rated, game.unrated_reason, await rating(ladder, x[0]) != before))
            await seeking.close()
        assert verdicts == [(True, "", True), (True, "", True), (False, "owner_pair_limit", False)]
        # the owners' rated matches used up: their players meet others first, even one far from them in skill
        c = await player(ladder, (await owner(ladder, "third"))[1], "c")
        await ladder.redis.hset(f"{PREFIX}player:{c[0]}", "mu", "60.0")
        seeking = await Seeking(ladder, {a1[0]: keys[a1[0]], b2[0]: keys[b2[0]], c[0]: c[1]}).start()
        seeking.reading(a1[0], b2[0])
        paired = await seeking.matches(c[0])
        assert paired[c[0]].opponent_id in (a1[0], b2[0])
        await seeking.close()
        await ladder.store.close()

    run(scenario)


def test_fresh_sybils_are_worth_nothing_to_beat_from_any_number_of_networks(redis_url):
    """A player beating provisional players (fresh accounts, each an owner of its own network: nothing
    relates them) gains nothing: no rating, nor a step toward being established (once the ladder has its
    first established players); against an established one it does. Provisional players come after the
    established ones on the leaderboard, without a rank; every history entry says whether its opponent was
    provisional (the public audit needs it)."""
    async def scenario() -> None:
        ladder = ladder_on(redis_url, min_actions=0, established_games=2, established_owners=2,
                           related_window_ms=86_400_000)

        async def own_player(name: str) -> tuple[str, str]:
            _, owner_key = await owner(ladder, name, random_ipv4())  # each from a /24 of its own
            return await player(ladder, owner_key, name)

        async def beats(winner: tuple[str, str], loser: tuple[str, str]) -> lapi.LadderGame:
            seeking = await Seeking(ladder, dict([winner, loser])).start()
            match = await seeking.matches(winner[0], loser[0])
            await resign(ladder.core, match[loser[0]])
            assert await ladder.results_round() == 1
            await seeking.close()
            game = (await history(ladder, winner[0]))[0]
            assert game.rated and game.outcome == "win"
            return game

        async def standing(player_id: str) -> lapi.LadderPlayer:
            return (await ladder.get_player(lapi.GetPlayerRequest(player_id=player_id), CallContext())).player

        honest = [await own_player("honest") for _ in range(3)]
        provisional = [(await beats(honest[a], honest[b])).opponent_provisional  # a round: two rated matches
                       for a, b in ((0, 1), (0, 2), (1, 2))]                       # against two owners each
        assert provisional == [True, True, True]  # nobody was established before its second match
        assert not any([(await standing(pid)).provisional for pid, _ in honest])
        farmer = await own_player("farmer")
        sybils = [await own_player("sybil") for _ in range(4)]
        start = await standing(farmer[0])
        for sybil in sybils:
            game = await beats(farmer, sybil)
            assert game.opponent_provisional
            now = await standing(farmer[0])
            assert now.rating <= start.rating and (now.mu, now.sigma) == (game.mu, game.sigma)
        farmed = await standing(farmer[0])
        assert (farmed.games, farmed.rating, farmed.provisional) == (4, start.rating, True)  # gained nothing
        game = await beats(farmer, honest[2])  # an established opponent: a gain
        assert not game.opponent_provisional and (await standing(farmer[0])).rating > farmed.rating
        board = list((await ladder.get_leaderboard(lapi.GetLeaderboardRequest(page_size=200), CallContext())).players)
        ours = [p for p in board if p.player_id in {pid for pid, _ in (*honest, farmer, *sybils)}]
        established = [p for p in ours if not p.provisional]
        # the farmer too: one match against an established player of the two it needs
        assert {p.player_id for p in ours if p.provisional} == {pid for pid, _ in (*sybils, farmer)}
        assert all(p.rank == 0 for p in ours if p.provisional) and all(p.rank > 0 for p in established)
        assert board.index(ours[-1]) > max(board.index(p) for p in established)  # the provisional after
        assert [p.rank for p in established] == sorted(p.rank for p in established)
        for sybil, _ in sybils:
            assert (await standing(sybil)).rank == 0
        await ladder.store.close()

    run(scenario)


# --- keys ------------------------------------------------------------------------------------------

async def _refused(call, code: grpc.StatusCode, reason: str) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        await call
    assert (refused.value.code, refused.value.reason) == (code, reason), refused.value
    return refused.value


def test_keys_are_drawn_hashed_rotated_and_revoked(redis_url):
    async def scenario() -> None:
        ladder = ladder_on(redis_url, players_per_owner=2)
        owner_id, owner_key = await owner(ladder)
        player_id, key = await player(ladder, owner_key)
        # stored hashed: no key is in Redis, under any name or value
        everything = [k async for k in ladder.redis.scan_iter(PREFIX + "*")]
        for name in everything:
            kind = (await ladder.redis.type(name)).decode()
            dump = repr(await {"hash": ladder.redis.hgetall, "string": ladder.redis.get, "list":
                               lambda n: ladder.redis.lrange(n, 0, -1), "zset": lambda n: ladder.redis.zrange(n, 0, -1),
                               "set": ladder.redis.smembers}[kind](name))
            assert key not in dump and owner_key not in dump and key not in name.decode()
        # per owner, a quota of players
        await player(ladder, owner_key)
        await _refused(ladder.register_player(lapi.RegisterPlayerRequest(name=unique("third")),
                                              CallContext(token=owner_key)),
                       grpc.StatusCode.RESOURCE_EXHAUSTED, "PLAYER_QUOTA")
        # rotation by the player's own key: the old key is dead at once, an open Seek stream with it ends
        stream = await ladder.seek(lapi.SeekRequest(heartbeat_seconds=1), CallContext(token=key))
        await bounded(anext(stream))
        rotated = (await ladder.rotate_player_key(lapi.RotatePlayerKeyRequest(player_id=player_id),
                                                  CallContext(token=key))).api_key
        await _refused(bounded(anext(stream)), grpc.StatusCode.UNAUTHENTICATED, "KEY_INVALID")
        await _refused(ladder.seek(lapi.SeekRequest(), CallContext(token=key)), grpc.StatusCode.UNAUTHENTICATED,
                       "KEY_INVALID")
        await (await ladder.seek(lapi.SeekRequest(), CallContext(token=rotated))).aclose()
        # another owner's key, or another player's, rotates nothing (and says no more than KEY_INVALID)
        stranger_id, stranger_key = await player(ladder, (await owner(ladder, "stranger"))[1])
        await _refused(ladder.rotate_player_key(lapi.RotatePlayerKeyRequest(player_id=player_id),
                                                CallContext(token=stranger_key)),
                       grpc.StatusCode.UNAUTHENTICATED, "KEY_INVALID")
        # a rotation retried with its request id and the (now old) key: no key (it went to the first call
        # only, whoever sends the retry), and the first call's key stays the player's
        request = lapi.RotatePlayerKeyRequest(player_id=player_id, request_id=uuid.uuid4().hex)
        again = (await ladder.rotate_player_key(request, CallContext(token=rotated))).api_key
        retried = await ladder.rotate_player_key(request, CallContext(token=rotated))
        assert (retried.api_key, retried.key_withheld) == ("", True)
        await (await ladder.seek(lapi.SeekRequest(), CallContext(token=again))).aclose()
        await _refused(ladder.rotate_player_key(request, CallContext(token=stranger_key)),
                       grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
        # revoked by its owner: no key until the owner rotates one
        await ladder.revoke_player_key(lapi.RevokePlayerKeyRequest(player_id=player_id), CallContext(token=owner_key))
        await _refused(ladder.seek(lapi.SeekRequest(), CallContext(token=again)), grpc.StatusCode.UNAUTHENTICATED,
                       "KEY_INVALID")
        fresh = (await ladder.rotate_player_key(lapi.RotatePlayerKeyRequest(player_id=player_id),
                                                CallContext(token=owner_key))).api_key
        await (await ladder.seek(lapi.SeekRequest(), CallContext(token=fresh))).aclose()
        # the owner's key rotated, then revoked: the owner is closed, its players' keys with it
        new_owner_key = (await ladder.rotate_owner_key(lapi.RotateOwnerKeyRequest(owner_id=owner_id),
                                                       CallContext(token=owner_key))).owner_key
        await _refused(ladder.register_player(lapi.RegisterPlayerRequest(name=unique("x")),
                                              CallContext(token=owner_key)),
                       grpc.StatusCode.UNAUTHENTICATED, "KEY_INVALID")
        closed = await ladder.revoke_owner_key(lapi.RevokeOwnerKeyRequest(owner_id=owner_id),
                                               CallContext(token=new_owner_key))
        assert closed.player_keys_revoked == 2
        await _refused(ladder.seek(lapi.SeekRequest(), CallContext(token=fresh)), grpc.StatusCode.UNAUTHENTICATED,
                       "KEY_INVALID")
        found = (await ladder.get_owner(lapi.GetOwnerRequest(owner_id=owner_id), CallContext())).owner
        assert found.closed and len(found.player_ids) == 2
        assert (await ladder.get_player(lapi.GetPlayerRequest(player_id=player_id), CallContext())).player.name
        await ladder.store.close()

    run(scenario)


def test_a_player_registered_before_owners_is_its_own_owner(redis_url):
    """A player of the old registration (no owner_id; a key it chose, perhaps weak): paired with anyone, and
    its key of a form the service never draws can only rotate itself into a drawn one."""
    async def scenario() -> None:
        ladder = ladder_on(redis_url)
        old_id, weak_key = f"p{uuid.uuid4().hex[:15]}", "a" * 32
        from service.match.core import token_hash
        await ladder.redis.hset(f"{PREFIX}player:{old_id}", mapping={
            "id": old_id, "name": unique("old"), "description": "", "owner": "someone", "registered_at": "0",
            "key_hash": token_hash(weak_key), "concurrency": "1", "mu": "25.0", "sigma": "8.333333333333334",
            "rev": "0"})
        await ladder.redis.hset(PREFIX + "keys", token_hash(weak_key), old_id)
        found = (await ladder.get_player(lapi.GetPlayerRequest(player_id=old_id), CallContext())).player
        assert (found.owner, found.owner_id) == ("someone", "")
        await _refused(ladder.seek(lapi.SeekRequest(), CallContext(token=weak_key)), grpc.StatusCode.UNAUTHENTICATED,
                       "KEY_INVALID")
        drawn = (await ladder.rotate_player_key(lapi.RotatePlayerKeyRequest(player_id=old_id),
                                                CallContext(token=weak_key))).api_key
        assert drawn.startswith("tpk_") and len(drawn) == 47
        new_id, new_key = (await players_of_their_own(ladder, 1))[0]
        seeking = await Seeking(ladder, {old_id: drawn, new_id: new_key}).start()
        paired = await seeking.matches(old_id, new_id)
        assert paired[old_id].opponent_id == new_id
        await seeking.close()
        await ladder.store.close()

    run(scenario)
