"""The ladder: players (bots) register, seek, are paired into matches with clocks, and are rated.

The RPCs of ``typhoon.v1.LadderService`` (proto/typhoon/v1/ladder_service.proto) over the match
service: a ladder match is an ordinary match (``MatchService.create_match`` with both seats claimed
and the ladder's time control), so its clocks, flag falls, aborts and log are the match service's.
Two background loops run in every service process, sharing the work through Redis:

* **pairing** (one process at a time, under a short lock): the players seeking (their Seek stream
  refreshes their presence) with a free slot are paired. Two players one of whom has been German
  more often against the other are owed the return match, and get it first, the other German (an
  aborted match does not count); the others are paired nearest skill first (mu, the rating before
  its uncertainty is taken off; ties: the pair that has met least), but two who have just
  played each other both ways are not paired again until they have waited ``rematch_wait_ms`` for
  someone else. At most two matches at a time between the same two (one each side). The match is
  created, then assigned to both players in one script (which re-checks their slots); a crash in
  between leaves a match nobody plays, which its clock aborts. Fair play (``service.ladder.fairness``):
  two players of one owner, or of related owners (``service.ladder.related``), are never paired
  (unless the ladder is private), a pair whose rated matches, or its owners', are used up for now is
  paired only when neither has anyone else, and a player that abandoned
  its last match (no first action in time, or gave up before a few actions of its own) waits before it
  is paired again (``abandon_cooldown_ms``, doubled for each such end in a row, at most an hour),
  however it reconnects: a bot that hangs would otherwise be handed match after match, each wasting
  its opponent's time.
* **results** (every process): the ladder matches not rated yet (``open``) whose match has ended are
  rated by one script that also closes them: it applies only if the match is still open (so exactly
  once, whoever sees the end first, even after a crash between the end and the rating) and only if
  the players' and sides' ratings are those the new ones were computed from (else it is computed
  again). A match is rated only if fair play says so (an aborted one never; one ended early by
  resignation or time, or one past its pair's or its owners' rated matches, neither); each player's history says
  whether, and why not.

Owners, players and keys are ``service.ladder.accounts``'s.

Keys (prefix ``typhoon:{ladder}:``: one hash tag, so on a Redis Cluster every ladder key is in one slot
and each script, which touches several players and the ladder's sets, touches that slot alone. The
ladder is small, a few keys a player, and its calls are few beside the matches' (whose keys spread over
the slots): one slot holds it, where sharding it would split the pairing's and the rating's scripts,
which see two players and the pairs, the board and the open matches at once. Keys of older versions,
``typhoon:ladder:...``, are renamed at start: :meth:`Ladder.move_older_keys`)::

    player:<id>             hash: id name description owner (its name) owner_id group (its owner's
                            group: service.ladder.related) registered_at key_hash
                            ('' once revoked) concurrency, the rating (mu sigma rev), the record (games
                            wins_german wins_soviet ...), last_opponent last_ended, seek_session (of its
                            latest Seek stream), commit_entropy ("1" if that Seek commits to its entropy:
                            its seats are taken awaiting its commitment), abort_streak (abandoned matches in a row),
                            blocked_until (it is not paired before that Redis time), established ("1"
                            once it is: service.ladder.fairness; "0" while provisional), standing_games
                            (its rated matches that count toward being established)
    player:<id>:opponents   set: the owner groups of its opponents in those matches
    player:<id>:assigned    hash: match id -> the LadderMatch JSON (with its seat token), while not rated
    player:<id>:history     list, newest first: the LadderGame JSON of each match
    side:<side>             hash: mu sigma rev, the rating of the side itself
    names                   hash: name key (service.match.names.name_key: NFKC, case-folded) -> id
    keys                    hash: SHA-256 of an API key -> id
    board                   sorted set: id by rating (mu - 3 sigma), less PROVISIONAL_OFFSET for a
                            provisional player (so the established come first)
    established_rule        string: "<games>:<owners>" the board's scores were last reckoned with
    seeking                 sorted set: id by the Redis ms until which it counts as seeking
    open                    hash: match id -> {"german": id, "soviet": id}: ladder matches not rated yet
    pairs                   hash: "<id>:<id>" (sorted) -> matches assigned to the two, aborted ones
                            left out; "<id>:<id>:german" -> of those, the ones the first was German in;
                            "<id>:<id>:rated" -> JSON list of the end times (ms) of their rated matches
                            within the pair window; "owners:<group>:<group>:rated" -> the same for all
                            the players of two owner groups (service.ladder.fairness.owners_field)
    pairing                 string: the pairing lock
    waiting                 hash: id -> why that seeking player was not paired in the last pairing round
                            (service.ladder.waiting), replaced each round, expiring if rounds stop
    rated                   counter: the ladder matches settled (rated or aborted) so far; each
                            history entry holds its match's number (``rating_sequence``)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable

import structlog
from grpc import StatusCode
from redis.exceptions import LockError, RedisError

import engine
from engine.data import SIDES
from service.errors import ServiceError
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.ladder.accounts import MAX_DESCRIPTION, MAX_NAME, OLDER_PREFIX, PREFIX, Accounts, ladder_key
from service.ladder.fairness import MAX_COOLDOWN_MS, FairPlay, group_of, own_actions, owners_field, without_gain
from service.ladder.ratings import FRESH, MODEL, ordinal, rate
from service.ladder.waiting import KINDS, WAITING_TTL_MS, Seeker, Waiting, sentence, waiting_reasons
from service.match import convert
from service.match.clock import TimeControl
from service.match.core import CallContext, MatchService, token_hash
from service.match.names import name_key
from service.store.match_store import text_of
from service.tasks import stop_task

log = structlog.get_logger("typhoon.ladder")

MAX_PAGE = 200
#: Taken off a provisional player's leaderboard score: every established player comes before it.
PROVISIONAL_OFFSET = 1_000_000.0
MAX_HEARTBEAT_SECONDS = 60
#: Events read from the store per round trip while counting a match's actions.
_LOG_PAGE = 1000
_key = ladder_key
#: The ladder's wake channel (service.store.notify.Feed.listen), in the ladder's slot.
WAKE_CHANNEL = ladder_key("wake")


def _err(code: StatusCode, reason: str, message: str) -> ServiceError:
    return ServiceError(code, reason, message)


def board_score(rating: float, established: bool) -> float:
    """A player's score in the leaderboard's sorted set: its rating, less PROVISIONAL_OFFSET while provisional.

    >>> board_score(12.5, True), board_score(12.5, False)
    (12.5, -999987.5)
    """
    return rating if established else rating - PROVISIONAL_OFFSET


@dataclass
class LadderConfig:
    """The ladder's matches and limits (``typhoon serve --ladder-time-control ...``)."""

    time_control: TimeControl = field(default_factory=lambda: TimeControl(300_000, 3_000, 30_000, "blitz"))
    scenario: str = "standard"
    options: dict[str, Any] = field(default_factory=dict)
    max_concurrency: int = 8
    interval: float = 0.5        # seconds between pairing rounds, results rounds and Seek's looks
    #: seconds between rounds while there is nothing to pair or rate (a Seek that starts and a match
    #: paired wake the rounds of every process at once: the ladder's wake channel)
    idle_interval: float = 30.0
    presence_ms: int = 5000      # a player counts as seeking this long after its stream last looked
    rematch_wait_ms: int = 3000  # how long two who just played each other both ways wait for others
    fair_play: FairPlay = field(default_factory=FairPlay)
    #: the key of the client addresses' hashes (service.ladder.related); None: drawn and kept in Redis
    address_key: bytes | None = field(default=None, repr=False)


#: Lua: the field of a pair's German games in the pairs hash, first made (as alternation left it) for a
#: pair counted before the service counted them.
_GERMAN_GAMES = """
local function german_games(pairs, pair)
  local field = pair .. ':german'
  if redis.call('HEXISTS', pairs, field) == 0 then
    local met = tonumber(redis.call('HGET', pairs, pair) or '0')
    redis.call('HSET', pairs, field, string.format('%d', math.floor((met + 1) / 2)))
  end
  return field
end
"""

#: The keys one of which an older version's ladder has as soon as it has a player or a match.
_OLDER_MARKS = ("names", "board", "open", "seeking", "pairs", "owner_names")

_MOVE_KEYS = """
-- KEYS: n older keys, then their new names. ARGV: n. Renames each older key that still exists; where
-- the new one exists too (this version wrote it meanwhile), adds what only the older one holds: a hash's
-- fields and a sorted set's members the new one lacks, a list's entries after the new one's (a history
-- is newest first); a string (the pairing lock) is dropped.
local n = tonumber(ARGV[1])
local moved = 0
for i = 1, n do
  local older, new = KEYS[i], KEYS[n + i]
  if redis.call('EXISTS', older) == 1 then
    if redis.call('EXISTS', new) == 0 then
      redis.call('RENAME', older, new)
    else
      local kind = redis.call('TYPE', older)['ok']
      if kind == 'hash' then
        local flat = redis.call('HGETALL', older)
        for j = 1, #flat, 2 do redis.call('HSETNX', new, flat[j], flat[j + 1]) end
      elseif kind == 'zset' then
        local flat = redis.call('ZRANGE', older, 0, -1, 'WITHSCORES')
        for j = 1, #flat, 2 do redis.call('ZADD', new, 'NX', flat[j + 1], flat[j]) end
      elseif kind == 'list' then
        for _, entry in ipairs(redis.call('LRANGE', older, 0, -1)) do redis.call('RPUSH', new, entry) end
      end
      redis.call('DEL', older)
    end
    moved = moved + 1
  end
end
return moved
"""

_ASSIGN = _GERMAN_GAMES + """
-- KEYS: open, german assigned, soviet assigned, pairs, german player, soviet player.
-- ARGV: match id, open entry, german assignment, soviet assignment, pair, '1' if the pair's first is German.
-- The pair's field counts its matches, "<pair>:german" those in which its first player was German.
for i = 0, 1 do
  local limit = tonumber(redis.call('HGET', KEYS[5 + i], 'concurrency') or '1')
  if redis.call('HLEN', KEYS[2 + i]) >= limit then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
local german = german_games(KEYS[4], ARGV[5])
redis.call('HINCRBY', KEYS[4], ARGV[5], 1)
if ARGV[6] == '1' then redis.call('HINCRBY', KEYS[4], german, 1) end
return 1
"""

#: What a history entry holds in place of its rating sequence until the settling script numbers it.
RATED_PLACEHOLDER = "@rating_sequence@"

_SETTLE = _GERMAN_GAMES + f"local RATED = '{RATED_PLACEHOLDER}'\n" + """
-- KEYS: open, board, then per team member (german player, soviet player, german side, soviet side)
-- its hash, then per player (german, soviet) its assigned hash and its history; then (KEYS[11], KEYS[12])
-- pairs and the counter of settled matches, then per player its set of opponents' owner groups.
-- ARGV: match id, then per team member its expected rev and its change (JSON {"set": {field: value},
-- "incr": {field: n}, "block": {"now": ms, "base": ms, "cap": ms} (it waits base * 2^(abandoned in a row - 1),
-- at most cap, however it reconnects), "opponent": the owner group of a rated match's opponent}, "" for none), then
-- per player its history entry and its rating ('' = keep), then (KEYS[11]: pairs) the pair of an aborted
-- match ('' = none) and '1' if its first player was German: an aborted match is not a meeting, and
-- does not count for whose turn it is to be German; then per field of rated end times (the pair's, and
-- their owner groups' if they are two) the field, its value as read (the verdict was drawn from it) and
-- its new value ('' = unchanged).
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 'DONE' end
for i = 0, 3 do
  if ARGV[3 + 2 * i] ~= '' and (redis.call('HGET', KEYS[3 + i], 'rev') or '') ~= ARGV[2 + 2 * i] then
    return 'RETRY'
  end
end
for i = 16, #ARGV, 3 do
  if (redis.call('HGET', KEYS[11], ARGV[i]) or '') ~= ARGV[i + 1] then return 'RETRY' end
end
for i = 0, 3 do
  local change = ARGV[3 + 2 * i]
  if change ~= '' then
    change = cjson.decode(change)
    for name, value in pairs(change['set'] or {}) do redis.call('HSET', KEYS[3 + i], name, value) end
    for name, value in pairs(change['incr'] or {}) do redis.call('HINCRBY', KEYS[3 + i], name, value) end
    if change['opponent'] then redis.call('SADD', KEYS[13 + i], change['opponent']) end
    local block = change['block']
    if block then
      local streak = redis.call('HINCRBY', KEYS[3 + i], 'abort_streak', 1)
      local wait = math.min(block['cap'], block['base'] * 2 ^ (streak - 1))
      redis.call('HSET', KEYS[3 + i], 'blocked_until', string.format('%d', block['now'] + wait))
    end
    redis.call('HINCRBY', KEYS[3 + i], 'rev', 1)
  end
end
local ids = {redis.call('HGET', KEYS[3], 'id'), redis.call('HGET', KEYS[4], 'id')}
-- the match's place in the order of rating (KEYS[12]: the counter), in both history entries
local rated = tostring(redis.call('INCR', KEYS[12]))
for i = 0, 1 do
  redis.call('HDEL', KEYS[7 + 2 * i], ARGV[1])
  redis.call('LPUSH', KEYS[8 + 2 * i], (string.gsub(ARGV[10 + 2 * i], '"' .. RATED .. '"', rated)))
  if ARGV[11 + 2 * i] ~= '' then redis.call('ZADD', KEYS[2], ARGV[11 + 2 * i], ids[i + 1]) end
end
if ARGV[14] ~= '' then
  local german = german_games(KEYS[11], ARGV[14])
  redis.call('HINCRBY', KEYS[11], ARGV[14], -1)
  if ARGV[15] == '1' then redis.call('HINCRBY', KEYS[11], german, -1) end
end
for i = 16, #ARGV, 3 do
  if ARGV[i + 2] ~= '' then redis.call('HSET', KEYS[11], ARGV[i], ARGV[i + 2]) end
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 'OK'
"""

@dataclass(frozen=True)
class Meetings:
    """The ladder matches two players have been assigned, aborted ones left out: ``games``, and in how
    many of them the first of the two (by id) was German.

    >>> Meetings.of(None, None).first_german, Meetings(1, 1).first_german, Meetings(1, 1).owed
    (True, False, True)
    >>> Meetings(2, 1).owed, Meetings.of(b"3", None)  # counted before the German games were: alternated
    (False, Meetings(games=3, german=2))
    """

    games: int = 0
    german: int = 0

    @classmethod
    def of(cls, games: bytes | str | None, german: bytes | str | None) -> "Meetings":
        count = int(games or 0)
        return cls(count, (count + 1) // 2 if german is None else int(german))

    @property
    def owed(self) -> bool:
        """One of the two has been German more often: the return match is owed."""
        return 2 * self.german != self.games

    @property
    def first_german(self) -> bool:
        """Whether the first of the two is German in their next match (the one German less often)."""
        return 2 * self.german <= self.games

    def after(self, first_german: bool) -> "Meetings":
        return Meetings(self.games + 1, self.german + first_german)


class Ladder:
    """``typhoon.v1.LadderService`` over a :class:`MatchService` (and its store)."""

    def __init__(self, core: MatchService, config: LadderConfig | None = None) -> None:
        self.core = core
        self.store = core.store
        self.redis = core.store.redis
        self.config = config or LadderConfig()
        self.admit = core.admit
        self.fair_play = self.config.fair_play
        fresh_established = self.fair_play.established(0, 0)
        self.accounts = Accounts(self.redis, self.store.time_ms, self.fair_play.players_per_owner,
                                 {"mu": repr(FRESH[0]), "sigma": repr(FRESH[1]), "rev": "0", "standing_games": "0",
                                  "established": "1" if fresh_established else "0"},
                                 repr(board_score(ordinal(*FRESH), fresh_established)), self._describe,
                                 self.fair_play.related_window_ms, self.config.address_key)
        for rpc in Accounts.RPCS:  # served as this service's own (the transports bind by name)
            setattr(self, rpc, self._replicated(getattr(self.accounts, rpc)))
        self._assign = self.redis.register_script(_ASSIGN)
        self._settle = self.redis.register_script(_SETTLE)
        self._move_keys = self.redis.register_script(_MOVE_KEYS)
        self._moved = False
        #: asked before each match the pairing creates: whether the store has room for it (``typhoon serve``:
        #: the guard's capacity, as for CreateMatch); None: always
        self.room: Callable[[], Awaitable[bool]] | None = None
        self._tasks: list[asyncio.Task] = []
        self._stopping = False
        self.settled = 0
        self._seekers = 0  # seeking at the last pairing round
        self._open = 0  # ladder matches not rated yet at the last results round
        self._wakes: dict[str, asyncio.Event] = {}
        options = engine.new_game(self.config.scenario, self.config.options).options.to_json()
        self._options = options

    def _replicated(self, rpc: Any) -> Any:
        """An account RPC answered only once a failover would keep what it did (a key given or taken
        back: ``--redis-min-replicas``)."""
        async def call(request: Any, ctx: CallContext) -> Any:
            answer = await rpc(request, ctx)
            await self.store.confirm_replicated()
            return answer
        call.__name__ = rpc.__name__
        return call

    async def _describe(self, player_id: str) -> lapi.LadderPlayer:
        (fields,) = await self._players([player_id])
        return _player(fields)

    # --- background --------------------------------------------------------------------------------

    async def prepare(self) -> None:
        """Before serving: the keys of an older version moved (:meth:`move_older_keys`); if Redis does
        not answer now, the pairing loop does it before its first round."""
        try:
            await self.move_older_keys()
            await self.reckon_established()
            self._moved = True
        except (RedisError, OSError) as error:
            log.warning("ladder_keys_not_moved", error=repr(error))

    def start(self) -> None:
        self._stopping = False
        self._wakes = {"pairing": asyncio.Event(), "results": asyncio.Event()}
        self.core.hub.feed.listen(WAKE_CHANNEL, self._wake)
        self._tasks = [asyncio.create_task(self._every(self._moved_then_pair, "pairing", lambda: self._seekers > 0),
                                           name="ladder-pairing"),
                       asyncio.create_task(self._every(self.results_round, "results", lambda: self._open > 0),
                                           name="ladder-results")]

    def _wake(self) -> None:
        for woken in self._wakes.values():
            woken.set()

    async def _moved_then_pair(self) -> int:
        if not self._moved:
            await self.move_older_keys()
            await self.reckon_established()
            self._moved = True
        return await self.pair_round()

    async def stop(self) -> None:
        self._stopping = True  # the loops end by themselves even if a cancellation is lost
        await asyncio.gather(*(stop_task(task) for task in self._tasks))
        self._tasks = []

    async def move_older_keys(self) -> int:
        """Rename the keys of an older version's ladder (``typhoon:ladder:...``) to this one's (merged into
        this version's where both exist); returns how many were moved. Every process runs it as it starts
        (:meth:`prepare`); with nothing to move it costs one command. Keys an older process still running
        writes afterwards are moved at the next start: stop the older processes first."""
        moved = 0
        if self.store.clustered or not await self.redis.exists(*(OLDER_PREFIX + name for name in _OLDER_MARKS)):
            return 0
        for _ in range(10):  # until a scan finds none (an older process may write meanwhile)
            older = [text_of(name) async for name in self.redis.scan_iter(match=OLDER_PREFIX + "*", count=1000)]
            if not older:
                break
            new = [PREFIX + name[len(OLDER_PREFIX):] for name in older]
            moved += await self._move_keys(keys=older + new, args=[len(older)])
        if moved:
            log.info("ladder_keys_moved", keys=moved, lifecycle=True)
        return moved

    async def reckon_established(self) -> int:
        """Reckon again which players are established, and their leaderboard scores, if the rule changed
        since the board was last reckoned (``established_rule``), or was never (players rated before this
        version: their opponents' groups are read from their histories). Returns the players reckoned."""
        rule = f"{self.fair_play.established_games}:{self.fair_play.established_owners}"
        if text_of(await self.redis.get(_key("established_rule"))) == rule:
            return 0
        ids = [text_of(i) for i in await self.redis.zrange(_key("board"), 0, -1)]
        for player_id in ids:
            games, mu, sigma, group, owner_id, standing_games = map(text_of, await self.redis.hmget(
                _key("player", player_id), "games", "mu", "sigma", "group", "owner_id", "standing_games"))
            if mu is None:
                continue
            if standing_games is None:  # rated before this version: every rated match counts
                standing_games = games or "0"
                await self.redis.hset(_key("player", player_id), "standing_games", standing_games)
            games = standing_games
            opponents = _key("player", player_id, "opponents")
            if int(games or 0) and not await self.redis.exists(opponents):
                for entry in await self.redis.lrange(_key("player", player_id, "history"), 0, -1):
                    game = json.loads(entry)
                    if game.get("rated", game.get("outcome") != "aborted"):
                        other = await self.redis.hmget(_key("player", game["opponent_id"]), "group", "owner_id")
                        await self.redis.sadd(opponents, group_of({"id": game["opponent_id"],
                                                                   "owner_id": text_of(other[1]),
                                                                   "group": text_of(other[0])}))
            own = group_of({"id": player_id, "owner_id": owner_id, "group": group})
            met = {text_of(g) for g in await self.redis.smembers(opponents)} - {own}
            established = self.fair_play.established(int(games or 0), len(met))
            await self.redis.hset(_key("player", player_id), "established", "1" if established else "0")
            await self.redis.zadd(_key("board"), {player_id: board_score(ordinal(float(mu), float(sigma or 0)),
                                                                         established)})
        await self.redis.set(_key("established_rule"), rule)
        log.info("ladder_established_reckoned", players=len(ids), rule=rule, lifecycle=True)
        return len(ids)

    async def _every(self, round_: Any, name: str, busy: Any) -> None:
        """``round_`` every ``interval`` while ``busy()``, else when woken (at most ``idle_interval`` apart)."""
        woken = self._wakes[name]
        while not self._stopping:
            woken.clear()  # before the round: a wake from now on may be for something it misses
            pause = self.config.interval
            try:
                await round_()
                pause = self.config.interval if busy() else self.config.idle_interval
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - Redis away, a bug: log, go on
                log.warning("ladder_round_failed", round=round_.__name__, error=repr(error))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await woken.wait()

    # --- pairing -----------------------------------------------------------------------------------

    async def pair_round(self) -> int:
        """Pair the seeking players with free slots (if no other process is doing it); returns the
        matches created."""
        lock = self.redis.lock(_key("pairing"), timeout=10, blocking=False)
        if not await lock.acquire():
            self._seekers = 2  # another process pairs them now: as many as it takes to look again soon
            return 0
        try:
            return await self._pair()
        finally:
            with contextlib.suppress(LockError):  # held too long: another process may have it now
                await lock.release()

    async def _pair(self) -> int:
        now = await self.store.time_ms()
        ids = [text_of(i) for i in await self.redis.zrangebyscore(_key("seeking"), now, "+inf")]
        self._seekers = len(ids)
        if not ids:
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in ids:
                pipe.hmget(_key("player", player_id), "mu", "concurrency", "name", "owner_id", "blocked_until",
                           "last_opponent", "last_ended", "group", "commit_entropy")
                pipe.hvals(_key("player", player_id, "assigned"))
            replies = await pipe.execute()
        players: dict[str, dict[str, Any]] = {}
        together: dict[tuple[str, str], int] = {}
        blocked: dict[str, Seeker] = {}
        for player_id, fields, assigned in zip(ids, replies[::2], replies[1::2]):
            mu, concurrency, name, owner_id, blocked_until, last_opponent, last_ended, group, commits = map(text_of, fields)
            if mu is None:
                continue
            playing = [json.loads(entry) for entry in assigned]
            if now < int(blocked_until or 0):  # abandoned its last match: it waits, however it seeks
                blocked[player_id] = Seeker(group_of({"id": player_id, "owner_id": owner_id, "group": group}),
                                            int(concurrency or 1) - len(playing), int(blocked_until or 0))
                continue
            players[player_id] = {"mu": float(mu), "free": int(concurrency or 1) - len(playing), "name": name,
                                  "group": group_of({"id": player_id, "owner_id": owner_id, "group": group}),
                                  "last_opponent": last_opponent, "commit_entropy": commits == "1",
                                  "last_ended": int(last_ended or 0)}
            for entry in playing:
                pair = _pair_of(player_id, entry["opponent_id"])
                together[pair] = together.get(pair, 0) + 1
        candidates = sorted(pid for pid, p in players.items() if p["free"] > 0)
        pairs = [_pair_of(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1:]
                 if self.fair_play.may_pair(players[a]["group"], players[b]["group"])]
        owners = {pair: owners_field(players[pair[0]]["group"], players[pair[1]]["group"]) for pair in pairs}
        counts = await self.redis.hmget(_key("pairs"), [field for a, b in pairs for field in (
            f"{a}:{b}", f"{a}:{b}:german", f"{a}:{b}:rated", owners[a, b] or f"{a}:{b}:rated")]) if pairs else []
        met = {pair: Meetings.of(counts[4 * i], counts[4 * i + 1]) for i, pair in enumerate(pairs)}
        # a pair whose rated matches, or its owners', are used up for now meets only when neither has anyone else
        full = {pair for i, pair in enumerate(pairs)
                if self.fair_play.pair_full(_rated_times(counts[4 * i + 2]), now)
                or (owners[pair] and self.fair_play.owner_pair_full(_rated_times(counts[4 * i + 3]), now))}
        created = 0

        def just_played(a: str, b: str) -> bool:
            """Both ways, and not long ago: give them a chance to meet someone else."""
            mutual = players[a]["last_opponent"] == b and players[b]["last_opponent"] == a
            waited = now - max(players[a]["last_ended"], players[b]["last_ended"])
            return mutual and not met[a, b].owed and waited < self.config.rematch_wait_ms

        def rematch_wait(a: str, b: str) -> bool:
            pair = _pair_of(a, b)
            return pair in met and together.get(pair, 0) < 4 and just_played(*pair)

        while True:
            # both counted from each side in `together`: two matches between them is 4
            open_pairs = [(a, b) for a, b in pairs if players[a]["free"] > 0 and players[b]["free"] > 0
                          and together.get((a, b), 0) < 4 and not just_played(a, b)]
            if not open_pairs:
                await self._keep_waiting_reasons(players, blocked, rematch_wait, now)
                return created
            a, b = min(open_pairs, key=lambda p: (p in full,
                                                  not met[p].owed,  # a return match first
                                                  abs(players[p[0]]["mu"] - players[p[1]]["mu"]),
                                                  met[p].games, p))
            meetings = met[a, b]
            german, soviet = (a, b) if meetings.first_german else (b, a)
            if self.room is not None and not await self.room():  # the store is full: they wait, seeking
                await self._keep_waiting_reasons(players, blocked, rematch_wait, now,
                                                 store_full={pid for pair in open_pairs for pid in pair})
                return created
            if await self._create(german, soviet, players, meetings.games):
                created += 1
            for pid in (a, b):
                players[pid]["free"] -= 1
            together[(a, b)] = together.get((a, b), 0) + 2
            met[a, b] = meetings.after(german == a)

    async def _keep_waiting_reasons(self, players: dict[str, dict[str, Any]], blocked: dict[str, Seeker],
                                    rematch_wait: Callable[[str, str], bool], now: int,
                                    store_full: set[str] | frozenset[str] = frozenset()) -> None:
        """Keep why each seeking player is not paired, after a round (service.ladder.waiting), for its
        heartbeats; those in ``store_full`` would have been paired, but the store has no room."""
        seekers = blocked | {pid: Seeker(p["group"], p["free"]) for pid, p in players.items()}
        reasons = waiting_reasons(
            seekers, lambda a, b: self.fair_play.may_pair(seekers[a].group, seekers[b].group),
            rematch_wait, now) | {pid: Waiting("store_full") for pid in store_full}
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(_key("waiting"))
            if reasons:
                pipe.hset(_key("waiting"), mapping={pid: reason.to_json() for pid, reason in reasons.items()})
                pipe.pexpire(_key("waiting"), WAITING_TTL_MS)
            await pipe.execute()

    async def _create(self, german: str, soviet: str, players: dict[str, dict[str, Any]], count: int) -> bool:
        """Create a ladder match and assign it to both players; False if it could not be assigned."""
        config = self.config
        ids = {"german": german, "soviet": soviet}
        request = api.CreateMatchRequest(scenario=config.scenario, time_control=config.time_control.to_request())
        request.options.CopyFrom(convert.dict_to_struct(self._options))
        for side in SIDES:
            # no seat_token: the service draws each (a chosen one would be screened and reserved); a player
            # whose Seek commits to its entropy is awaited: it commits once handed the match
            request.seats.add(side=side, player_name=players[ids[side]]["name"],
                              commit_entropy_later=players[ids[side]].get("commit_entropy", False))
        created = await self.core.create_match(request, CallContext())
        match, tokens = created.match, {seat.side: seat.token for seat in created.seat_tokens}
        assignments = {}
        for side, other in (("german", "soviet"), ("soviet", "german")):
            assignments[side] = json.dumps({
                "match_id": match.match_id, "side": side, "seat_token": tokens[side],
                "opponent_id": ids[other], "opponent_name": players[ids[other]]["name"],
                # the match's own: Seek sends it again after a restart, when the ladder's may have changed
                "time_control": config.time_control.to_json(), "scenario": config.scenario})
        assigned = await self._assign(
            keys=[_key("open"), _key("player", german, "assigned"), _key("player", soviet, "assigned"), _key("pairs"),
                  _key("player", german), _key("player", soviet)],
            args=[match.match_id, json.dumps(ids), assignments["german"], assignments["soviet"],
                  *_pair_args(german, soviet)])
        log.info("ladder_paired", match_id=match.match_id, german=german, soviet=soviet, assigned=bool(assigned),
                 meeting=count + 1)
        await self.store.wake(WAKE_CHANNEL)  # every process's results round follows the open matches
        return bool(assigned)

    # --- results -----------------------------------------------------------------------------------

    async def results_round(self) -> int:
        """Rate every ended ladder match not rated yet; returns how many this process rated."""
        entries = {text_of(k): json.loads(v) for k, v in (await self.redis.hgetall(_key("open"))).items()}
        self._open = len(entries)
        done = 0
        for match_id, meta in zip(entries, await self.store.metas(list(entries))):
            if meta is None or meta.get("status") in ("finished", "aborted"):
                done += await self.settle(match_id, entries[match_id], meta)
        return done

    async def settle(self, match_id: str, ids: dict[str, str], meta: dict[str, str] | None) -> int:
        """Settle one ended ladder match (once: 0 if it was already), rating it if fair play says so;
        returns 1 if this call did."""
        result = json.loads(meta["result"]) if meta and meta.get("result") else None
        finished_at = int(meta["updated_at"]) if meta else 0
        actions = await self._own_actions(match_id) if self.fair_play.needs_log(result) else None
        members = [_key("player", ids["german"]), _key("player", ids["soviet"]), _key("side", "german"),
                   _key("side", "soviet")]
        pair_field = "%s:%s:rated" % _pair_of(ids["german"], ids["soviet"])
        owners_pair_field = await self._owners_field(ids)
        rated_fields = [pair_field, *([owners_pair_field] if owners_pair_field else [])]
        for _ in range(16):
            async with self.redis.pipeline(transaction=False) as pipe:
                for member in members:
                    pipe.hmget(member, "mu", "sigma", "rev", "name")
                pipe.hmget(_key("pairs"), rated_fields)
                for side in SIDES:  # whether each player is established (a rev change settles again: the same)
                    pipe.hmget(_key("player", ids[side]), "standing_games", "group", "owner_id")
                    pipe.smembers(_key("player", ids[side], "opponents"))
                pipe.zcount(_key("board"), -PROVISIONAL_OFFSET / 2, "+inf")
                *current, read, german_games, german_met, soviet_games, soviet_met, settled_players = \
                    await pipe.execute()
            groups, standing = [], []
            for side, (games, group, owner_id), opponents in (("german", german_games, german_met),
                                                             ("soviet", soviet_games, soviet_met)):
                groups.append(group_of({"id": ids[side], "owner_id": text_of(owner_id), "group": text_of(group)}))
                standing.append((int(games or 0), {text_of(g) for g in opponents} - {groups[-1]}))
            established = [self.fair_play.established(games, len(opponents)) for games, opponents in standing]
            # a rated match counts toward being established against an established opponent (or any, on a
            # young ladder); after it: one more such game, against one more owner group maybe
            counts = [self.fair_play.counts_toward(established[1 - i], settled_players) for i in (0, 1)]
            established_after = [established[i] or self.fair_play.established(
                games + counts[i], len((opponents | ({groups[1 - i]} if counts[i] else set())) - {groups[i]}))
                for i, (games, opponents) in enumerate(standing)]
            read = [text_of(value) or "" for value in read]
            rated_at, *owners = [self.fair_play.recent(_rated_times(value), finished_at) for value in read]
            owners_rated_at = owners[0] if owners else None  # one owner group: a private ladder
            verdict = self.fair_play.verdict(result, actions, rated_at, finished_at, owners_rated_at)
            ratings = [(float(mu) if mu else FRESH[0], float(sigma) if sigma else FRESH[1])
                       for mu, sigma, _, _ in current]
            revs = [text_of(rev) or "" for _, _, rev, _ in current]
            names = {"german": text_of(current[0][3]) or "", "soviet": text_of(current[1][3]) or ""}
            settled_at = str(await self.store.time_ms())  # Redis time, as the pairing's
            met = [{"last_opponent": ids["soviet"], "last_ended": settled_at},
                   {"last_opponent": ids["german"], "last_ended": settled_at}]
            blamed = (meta.get("aborted_side") if meta else None) if result is None else verdict.blamed
            if not verdict.rated:
                new = ratings
                block = {"now": int(settled_at), "base": self.fair_play.abandon_cooldown_ms, "cap": MAX_COOLDOWN_MS}
                counted = {"aborted": 1} if result is None else {}
                changes = [json.dumps({"set": met[i], "incr": counted} | ({"block": block} if blamed == side else {}))
                           for i, side in enumerate(("german", "soviet"))] + ["", ""]
            else:
                winner = result["winner"]
                new = rate(*ratings, winner)
                for index in (0, 1):  # no gain from beating a provisional player
                    new[index] = without_gain(ratings[index], new[index], established[1 - index])
                changes = []
                for index, side in enumerate(("german", "soviet", "german", "soviet")):
                    mu, sigma = new[index]
                    change: dict[str, Any] = {"set": {"mu": repr(mu), "sigma": repr(sigma)}}
                    if index < 2:
                        change["set"] |= met[index] | {"abort_streak": "0",
                                                       "established": "1" if established_after[index] else "0"}
                        change["incr"] = _record_change(side, winner, result.get("reason", "")) | (
                            {"standing_games": 1} if counts[index] else {})
                        if counts[index]:
                            change["opponent"] = groups[1 - index]
                    changes.append(json.dumps(change))
            args: list[str] = [match_id]
            for rev, change in zip(revs, changes):
                args += [rev, change]
            for index, side in enumerate(("german", "soviet")):
                other = "soviet" if side == "german" else "german"
                mu, sigma = new[index]
                outcome = "aborted" if result is None else "draw" if result["winner"] == "draw" else \
                    "win" if result["winner"] == side else "loss"
                reason = _abort_reason(meta) if result is None else result.get("reason", "")
                args += [json.dumps({"match_id": match_id, "side": side, "opponent_id": ids[other],
                                     "opponent_name": names[other], "outcome": outcome, "reason": reason,
                                     "rating": ordinal(mu, sigma), "mu": mu, "sigma": sigma,
                                     "finished_at": finished_at, "rated": verdict.rated,
                                     "unrated_reason": verdict.reason, "rating_sequence": RATED_PLACEHOLDER,
                                     "opponent_provisional": verdict.rated and not established[1 - index]}),
                         repr(board_score(ordinal(mu, sigma), established_after[index])) if verdict.rated else ""]
            keys = [_key("open"), _key("board"), *members]
            for side in ("german", "soviet"):
                keys += [_key("player", ids[side], "assigned"), _key("player", ids[side], "history")]
            keys += [_key("pairs"), _key("rated"), *(_key("player", ids[side], "opponents") for side in SIDES)]
            args += _pair_args(ids["german"], ids["soviet"]) if result is None else ["", ""]
            for field_name, value, times in zip(rated_fields, read, (rated_at, owners_rated_at)):
                args += [field_name, value, json.dumps(times + [finished_at]) if verdict.rated else ""]
            reply = text_of(await self._settle(keys=keys, args=args))
            if reply == "OK":
                self.settled += 1
                log.info("ladder_settled", match_id=match_id, outcome="aborted" if result is None else result["winner"],
                         rated=verdict.rated, unrated=verdict.reason or None, blamed=blamed,
                         german=ids["german"], soviet=ids["soviet"])
                return 1
            if reply == "DONE":
                return 0
        raise _err(StatusCode.ABORTED, "CONTENTION", "the ratings changed too often while rating the match")

    async def _owners_field(self, ids: dict[str, str]) -> str | None:
        """The pairs hash's field of the rated matches between the two players' owner groups (None: one group)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for side in SIDES:
                pipe.hmget(_key("player", ids[side]), "owner_id", "group")
            replies = await pipe.execute()
        return owners_field(*(group_of({"id": ids[side], "owner_id": text_of(owner_id), "group": text_of(group)})
                              for side, (owner_id, group) in zip(SIDES, replies)))

    async def _own_actions(self, match_id: str) -> dict[str, int]:
        """The actions each side made of its own in a match (from its log)."""
        events, after = [], 0
        while True:
            page = await self.store.read_events(match_id, after, _LOG_PAGE)
            events.extend(page)
            if len(page) < _LOG_PAGE:
                return own_actions(events, SIDES)
            after = page[-1].seq

    # --- RPCs --------------------------------------------------------------------------------------


    async def get_ladder(self, request: lapi.GetLadderRequest, ctx: CallContext) -> lapi.GetLadderResponse:
        response = lapi.GetLadderResponse(time_control=self.config.time_control.to_proto(),
                                          scenario=self.config.scenario, options=convert.dict_to_struct(self._options),
                                          max_concurrency=self.config.max_concurrency,
                                          fair_play=self.fair_play.to_proto(), rating_model=lapi.RatingModel(**MODEL))
        async with self.redis.pipeline(transaction=False) as pipe:  # the ladder's keys: one slot on a Cluster
            for side in SIDES:
                pipe.hmget(_key("side", side), "mu", "sigma", "rev")
            replies = await pipe.execute()
        for side, (mu, sigma, rev) in zip(SIDES, replies):
            mu, sigma = (float(mu), float(sigma)) if mu else FRESH
            response.side_ratings.add(side=side, rating=ordinal(mu, sigma), mu=mu, sigma=sigma,
                                      games=int(rev or 0))
        return response

    async def seek(self, request: lapi.SeekRequest, ctx: CallContext) -> AsyncIterator[lapi.SeekResponse]:
        """Check the key and the request, then return the stream."""
        player_id = await self.accounts.player_of_key(ctx.token)
        concurrency = request.concurrency or 1
        if not 1 <= concurrency <= self.config.max_concurrency:
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_CONCURRENCY",
                       f"concurrency must be from 1 to {self.config.max_concurrency}")
        heartbeat = request.heartbeat_seconds or 15
        if not 1 <= heartbeat <= MAX_HEARTBEAT_SECONDS:
            raise _err(StatusCode.INVALID_ARGUMENT, "BAD_HEARTBEAT",
                       f"heartbeat_seconds must be from 1 to {MAX_HEARTBEAT_SECONDS}")
        structlog.contextvars.bind_contextvars(player_id=player_id)
        return self._seek(player_id, heartbeat, concurrency, token_hash(ctx.token or ""), request.include_legal_actions,
                          request.commit_entropy)

    async def _seek(self, player_id: str, heartbeat: float, concurrency: int, key_hash: str,
                    legal_actions: bool, commit_entropy: bool = False) -> AsyncIterator[lapi.SeekResponse]:
        # written once the stream is read, not when it is checked: a HEAD of the REST route (checked,
        # then closed unread) changes nothing
        await self.redis.hset(_key("player", player_id), mapping={"concurrency": str(concurrency),
                                                                  "seek_session": uuid.uuid4().hex,
                                                                  "commit_entropy": "1" if commit_entropy else "0"})
        sent: set[str] = set()
        followers: dict[str, asyncio.Task] = {}
        changes: asyncio.Queue[api.MatchUpdate] = asyncio.Queue()
        quiet_since = time.monotonic()
        woken = False
        ended = "shutdown"
        try:
            while not self.core.draining and not self.core.hub.closing:
                now = await self.store.time_ms()
                if text_of(await self.redis.hget(_key("player", player_id), "key_hash")) != key_hash:
                    ended = "key_replaced"  # rotated or revoked: whoever held the old key gets no more matches
                    raise _err(StatusCode.UNAUTHENTICATED, "KEY_INVALID",
                               "the player's API key was rotated or revoked while it was seeking")
                await self.redis.zadd(_key("seeking"), {player_id: now + self.config.presence_ms})
                if not woken:  # one more seeker: the pairing rounds of every process look again
                    woken = True
                    await self.store.wake(WAKE_CHANNEL)
                assigned = {text_of(k): text_of(v) for k, v in
                            (await self.redis.hgetall(_key("player", player_id, "assigned"))).items()}
                if assigned.keys() - sent:  # a match is handed out only once a failover keeps it
                    await self.store.confirm_replicated()
                for match_id, entry in assigned.items():
                    if match_id not in sent:
                        sent.add(match_id)
                        quiet_since = time.monotonic()
                        match = self._ladder_match(json.loads(entry))
                        yield lapi.SeekResponse(match=match)
                        followers[match_id] = asyncio.create_task(
                            self._follow(match_id, match.side if legal_actions else None, changes),
                            name=f"seek-{player_id}-{match_id}")
                sent &= assigned.keys()
                for match_id in [m for m, task in followers.items() if task.done() and m not in sent]:
                    del followers[match_id]
                if time.monotonic() - quiet_since >= heartbeat:
                    quiet_since = time.monotonic()
                    yield lapi.SeekResponse(heartbeat=await self._heartbeat(player_id, now, len(assigned),
                                                                            concurrency))
                # the matches' updates as they come, until it is time to look at the assignments again
                deadline = time.monotonic() + self.config.interval / 2
                while (left := deadline - time.monotonic()) > 0:
                    try:
                        # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancellation that
                        # lands as the queue hands an update, and a closed stream would then seek on forever
                        async with asyncio.timeout(left):
                            update = await changes.get()
                    except TimeoutError:
                        break
                    quiet_since = time.monotonic()
                    yield lapi.SeekResponse(match_update=update)
        except (GeneratorExit, asyncio.CancelledError):
            ended = "client_gone"
            raise
        finally:
            for task in followers.values():
                task.cancel()
            with contextlib.suppress(RedisError, ConnectionError, RuntimeError):
                await self.redis.zrem(_key("seeking"), player_id)
            log.info("seek_ended", player_id=player_id, reason=ended, matches=len(sent))

    async def _heartbeat(self, player_id: str, now: int, playing: int, concurrency: int) -> lapi.SeekHeartbeat:
        """A heartbeat, with why the player is not paired (more) as the last pairing round saw it."""
        waiting = Waiting.from_json(text_of(await self.redis.hget(_key("waiting"), player_id)))
        beat = lapi.SeekHeartbeat(time=convert.timestamp(now), playing=playing,
                                  waiting=KINDS[waiting.kind] if waiting else lapi.SEEK_WAIT_REASON_UNSPECIFIED,
                                  waiting_message=sentence(waiting, playing, concurrency))
        if waiting and waiting.until:
            beat.cooldown_until.CopyFrom(convert.timestamp(waiting.until))
        return beat

    async def _follow(self, match_id: str, seat: str | None, changes: asyncio.Queue) -> None:
        """Put each update of a ladder match into ``changes`` until the match is over (Redis away: try
        again, as long as the Seek stream lasts)."""
        delay = 0.1
        while not self.core.hub.closing:
            try:
                async for update in self.core.match_updates(match_id, seat):
                    delay = 0.1
                    changes.put_nowait(update)
                return
            except ServiceError:  # the match is gone
                return
            except (RedisError, ConnectionError, TimeoutError) as error:
                log.warning("seek_follow_failed", match_id=match_id, error=repr(error))
                await asyncio.sleep(delay)
                delay = min(2 * delay, 2.0)

    def _ladder_match(self, entry: dict[str, Any]) -> lapi.LadderMatch:
        # entries assigned before they recorded the match's time control and scenario: the ladder's
        control = TimeControl.from_json(entry["time_control"]) if "time_control" in entry else self.config.time_control
        return lapi.LadderMatch(match_id=entry["match_id"], side=entry["side"], seat_token=entry["seat_token"],
                                time_control=control.to_proto(), opponent_id=entry["opponent_id"],
                                opponent_name=entry["opponent_name"], scenario=entry.get("scenario", self.config.scenario))

    async def get_leaderboard(self, request: lapi.GetLeaderboardRequest,
                              ctx: CallContext) -> lapi.GetLeaderboardResponse:
        size, offset = _page(request.page_size, request.page_token)
        ids = [text_of(i) for i in await self.redis.zrevrange(_key("board"), offset, offset + size)]
        players = await self._players(ids[:size])
        response = lapi.GetLeaderboardResponse(next_page_token=str(offset + size) if len(ids) > size else "")
        for rank, fields in enumerate(players, offset + 1):  # the established first: their place is their rank
            if fields:
                response.players.append(_player(fields, rank))
        return response

    async def get_player(self, request: lapi.GetPlayerRequest, ctx: CallContext) -> lapi.GetPlayerResponse:
        player_id = "" if request.player_id == "-" else request.player_id  # "-": by name (a REST path needs an id)
        if not player_id and request.name:
            player_id = text_of(await self.redis.hget(_key("names"), name_key(request.name))) or ""
            if not player_id:
                raise _err(StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND", f"there is no player named {request.name!r}")
        if not player_id:
            raise _err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "give a player_id or a name")
        (fields,) = await self._players([player_id])
        if not fields:
            raise _err(StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND", f"there is no player {player_id!r}")
        rank = await self.redis.zrevrank(_key("board"), player_id)
        return lapi.GetPlayerResponse(player=_player(fields, rank + 1 if rank is not None else 0))

    async def list_player_matches(self, request: lapi.ListPlayerMatchesRequest,
                                  ctx: CallContext) -> lapi.ListPlayerMatchesResponse:
        if not request.player_id:
            raise _err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "player_id is required")
        size, offset = _page(request.page_size, request.page_token)
        (fields,) = await self._players([request.player_id])
        if not fields:
            raise _err(StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND", f"there is no player {request.player_id!r}")
        entries = await self.redis.lrange(_key("player", request.player_id, "history"), offset, offset + size)
        response = lapi.ListPlayerMatchesResponse(next_page_token=str(offset + size) if len(entries) > size else "")
        for entry in entries[:size]:
            game = json.loads(entry)
            finished_at = game.pop("finished_at")
            if "rated" not in game:  # settled before the verdicts were recorded: only aborted ones were not rated
                game |= {"rated": game["outcome"] != "aborted",
                         "unrated_reason": "aborted" if game["outcome"] == "aborted" else ""}
            message = response.matches.add(**game)
            message.finished_at.CopyFrom(convert.timestamp(finished_at))
        return response

    # --- helpers -----------------------------------------------------------------------------------

    async def check_key(self, key: str | None) -> str:
        """The player or owner whose key ``key`` is (REST checks it before reading the request; each RPC then
        checks that it is a key of the kind it needs)."""
        return await self.accounts.any_key(key)

    async def _players(self, ids: list[str]) -> list[dict[str, str]]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in ids:
                pipe.hgetall(_key("player", player_id))
            replies = await pipe.execute()
        return [{text_of(k): text_of(v) for k, v in reply.items()} for reply in replies]


def _record_change(side: str, winner: str, reason: str) -> dict[str, int]:
    change = {"games": 1, f"games_{side}": 1}
    if winner == side:
        change[f"wins_{side}"] = 1
    elif winner == "draw":
        change["draws"] = 1
    else:
        change["losses"] = 1
        if reason == "time":
            change["time_losses"] = 1
    return change


def _abort_reason(meta: dict[str, str] | None) -> str:
    if meta is None:
        return "the match is gone"
    return f"aborted: {meta.get('aborted_reason') or 'a side made no first action in time'}"


def _rated_times(field: bytes | str | None) -> list[int]:
    """The end times in a pair's field of rated matches (none if it has none)."""
    return [int(at) for at in json.loads(field)] if field else []


def _pair_of(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def _pair_args(german: str, soviet: str) -> list[str]:
    """A match's pair as the scripts take it: its field in the pairs hash, and '1' if the first of the
    two (by id) is German."""
    first, second = _pair_of(german, soviet)
    return [f"{first}:{second}", "1" if first == german else "0"]


def _page(size: int, token: str) -> tuple[int, int]:
    size = size or 50
    if not 1 <= size <= MAX_PAGE:
        raise _err(StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE", f"page_size must be from 1 to {MAX_PAGE}")
    if token and not re.fullmatch(r"[0-9]{1,18}", token):  # not \d, nor isdigit(): both take '¹' and '٣'
        raise _err(StatusCode.INVALID_ARGUMENT, "BAD_PAGE_TOKEN", "page_token is not one this service gave")
    return size, int(token or 0)


def _player(fields: dict[str, str], rank: int = 0) -> lapi.LadderPlayer:
    """A player from its hash's fields; ``rank`` its place on the board, kept only if it is established."""
    def number(name: str) -> int:
        return int(fields.get(name) or 0)

    provisional = fields.get("established") != "1"

    mu, sigma = float(fields["mu"]), float(fields["sigma"])
    player = lapi.LadderPlayer(
        player_id=fields["id"], name=fields["name"], description=fields.get("description", ""),
        owner=fields.get("owner", ""), owner_id=fields.get("owner_id", ""), rating=ordinal(mu, sigma), mu=mu, sigma=sigma, games=number("games"),
        wins_as_german=number("wins_german"), wins_as_soviet=number("wins_soviet"), losses=number("losses"),
        draws=number("draws"), games_as_german=number("games_german"), games_as_soviet=number("games_soviet"),
        time_losses=number("time_losses"), aborted=number("aborted"), rank=0 if provisional else rank,
        provisional=provisional)
    player.registered_at.CopyFrom(convert.timestamp(fields["registered_at"]))
    return player


__all__ = ["MAX_DESCRIPTION", "MAX_NAME", "FairPlay", "Ladder", "LadderConfig"]
