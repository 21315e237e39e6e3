"""The match store: Redis is the single source of truth.

Keys (the ``{m:<id>}`` hash tag puts all of a match's keys in one Redis Cluster slot, so every Lua
script below touches a single slot):

``typhoon:{m:<id>}:meta``
    hash: the match's settings and summary — ``id scenario options sides seed seed_commitment
    created_at updated_at status version last_sequence turn phase side_to_act result`` and per seat
    ``seat:<side>:token`` (SHA-256 of the seat token, never the token), ``seat:<side>:player``,
    ``seat:<side>:claimed_at``. Times are Unix milliseconds.
``typhoon:{m:<id>}:state``
    hash: ``version`` (actions applied), ``seq`` (last event sequence), ``state`` (the engine's
    canonical position JSON) and ``hash`` (its SHA-256, the engine's state hash). ``version``, ``seq``
    and ``hash`` are what the commit script compares; every script that changes the meta hash also
    changes ``version`` or ``seq`` (the service keeps a copy of both per match, valid while they hold).
``typhoon:{m:<id>}:events``
    stream, append-only: entry id ``<seq>-0`` and fields ``seq version time source event`` where
    ``source`` is ``service`` or ``game`` and ``event`` is the JSON of the event (the engine's JSON
    for game events; see ``service.match.core`` for the service events).
``typhoon:{m:<id>}:requests``
    hash, request id -> ``<version> <first seq> <last seq> <fingerprint>``: what each SubmitAction/Resign
    request id did (the answer is rebuilt from the log, ``service.match.answers``), kept 24 h after the
    match's last action.
``typhoon:{m:<id>}:archive``
    string: once a match is over (finished or aborted), its events compressed into one value
    (``service.store.archive``); its ``events`` key is gone then. Only the read functions below know: they
    read either. (Archives written before ``request-archive`` existed hold the request records too.)
``typhoon:{m:<id>}:request-archive``
    string: the request records of a match that is over, compressed the same way, expiring when its
    ``requests`` hash would have (24 h after the last action); the ``requests`` key is gone then.
``typhoon:{m:<id>}:feed``
    pub/sub channel (not a key): each script that appends events publishes the new last sequence
    on it (``NOTIFY``; see ``service.store.notify``); the commit script publishes the change itself
    before it (``CHANGE_NOTICE``, :class:`Change`), so that watchers need not read it.
``typhoon:create:<SHA-256 of a CreateMatch request_id>``
    string ``<match id> <request fingerprint>``: the match that request creates (24 h), written before
    the match, so a retry finds it.
``typhoon:matches``
    sorted set (all scores 0) of ``<created_at ms, 15 digits>:<id>``: the ListMatches index, newest
    last. It is written after the match's own keys, so every id it lists exists.
``typhoon:{deadlines:<n>}``
    sorted sets of match ids by the Redis time (ms) of their clock's next deadline (matches with a time
    control, see ``service.match.clock``), sixteen of them, each in the Redis Cluster slot of the matches
    whose deadlines it holds (``service.store.deadlines``): written by the same script as the match's
    commit, so it never disagrees with the match. (``typhoon:deadlines``: the one set of older versions.)
``typhoon:compaction-sweep``
    string: the lock of the process sweeping for matches over but not compacted (``service.upkeep.compaction``).

All writes to a match are Lua scripts, so each is atomic: a commit checks the version and the
sequence, appends the events, writes the state and the summary, and records the request id — or
writes nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
import structlog

from service.metrics import observe_commit
from service.store import deadlines
from service.store.archive import Archive
from service.store.connection import (BARRIER_CHANNEL, MAX_CONNECTIONS, PROBE_OPTIONS, RedisSettings, client_of,
                                      not_replicated)
from service.store.lean_redis import Lane, Script

log = structlog.get_logger("typhoon.store")

INDEX_KEY = "typhoon:matches"
#: The statuses of a match that is over: a commit that sets one compacts the match.
ENDED = ("finished", "aborted")
#: The statuses of a match that is not over.
LIVE = ("open", "active")
REQUEST_TTL_SECONDS = 24 * 3600
DAY_MS = 86_400_000
#: The most bytes of a commit's notice that carries the change (its entries and the meta hash after it):
#: Redis copies a notice to every process watching the match, and holds it in the output buffer of each
#: that is slow to read. A larger change (a long combat, a whole turn's automatic events) is announced by
#: its last sequence alone, and the watchers read it (as every change was before).
NOTICE_MAX_BYTES = 16 * 1024


def key(match_id: str, part: str) -> str:
    return f"typhoon:{{m:{match_id}}}:{part}"


def commit_id() -> str:
    """A fresh id for one write of a match's state (see APPLIED)."""
    return secrets.token_hex(8)


def creation_key(request_id: str) -> str:
    """The key recording which match a CreateMatch request id created (the id hashed: any characters)."""
    return "typhoon:create:" + hashlib.sha256(request_id.encode()).hexdigest()


@dataclass
class StoredEvent:
    seq: int
    version: int
    time_ms: int
    source: str  # "service" | "game"
    data: dict[str, Any]
    #: the event as a transport sends it, made once for every watcher the hub hands this object to
    wire: bytes | None = field(default=None, repr=False, compare=False)

    def fields(self) -> list[str]:
        return [str(self.seq), str(self.version), str(self.time_ms), self.source,
                json.dumps(self.data, separators=(",", ":"))]

    @staticmethod
    def row_of(fields: dict) -> tuple[int, int, int, str, str]:
        """A stream entry's fields as an archive row, the event JSON as stored."""
        def get(name: str) -> str:
            return text_of(fields.get(name.encode(), fields.get(name)))

        return int(get("seq")), int(get("version")), int(get("time")), get("source"), get("event")

    @classmethod
    def from_entry(cls, fields: dict) -> "StoredEvent":
        def get(name: str) -> str:
            return text_of(fields.get(name.encode(), fields.get(name)))

        return cls(int(get("seq")), int(get("version")), int(get("time")), get("source"), json.loads(get("event")))


@dataclass
class Change:
    """What a commit's notice carries (``CHANGE_NOTICE``): the match's new last sequence, the entries the
    commit appended, and the match's meta hash as the commit left it, all as a read of them would give.

    >>> change = Change.parse(b'{"seq":8,"entries":[[8,3,1700,"game",{"type":"phase_ended"}]],'
    ...                       b'"meta":["last_sequence","8","version","3"]}')
    >>> change.seq, change.events[0].data, change.meta
    (8, {'type': 'phase_ended'}, {'last_sequence': '8', 'version': '3'})
    >>> Change.parse(b'{"seq":8,"entries":[[8,3]]}') is None  # not a notice of this version's
    True
    """

    seq: int
    events: list[StoredEvent]
    meta: dict[str, str]

    @classmethod
    def parse(cls, data: bytes | str) -> "Change | None":
        """The change a notice carries; None if it is not one this version can read (its watchers read)."""
        try:
            notice = json.loads(data)
            events = [StoredEvent(int(seq), int(version), int(time_ms), str(source), event)
                      for seq, version, time_ms, source, event in notice["entries"]]
            flat = notice["meta"]
            return cls(int(notice["seq"]), events, {str(k): str(v) for k, v in zip(flat[::2], flat[1::2])})
        except (ValueError, TypeError, KeyError):  # UnicodeDecodeError and json's errors are ValueErrors
            return None


@dataclass
class Snapshot:
    """A consistent read of a match: its meta hash (if asked for), state version, last sequence, state
    hash and state JSON (None when it has the hash the reader said it holds), and the record of a
    request id if one was asked for."""

    meta: dict[str, str]
    version: int
    seq: int
    state_json: str | None
    request: RequestRecord | None = None
    state_hash: str = ""
    status: str = ""
    ruleset: str = ""  # the engine ruleset the match was started under ("" before rulesets were recorded)


@dataclass(frozen=True)
class RequestRecord:
    """What a SubmitAction/Resign request id did: the version it made, the sequences of the events it
    appended, and (the first 16 hex digits of) its fingerprint.

    >>> RequestRecord.parse(RequestRecord(7, 20, 23, "ab12").text())
    RequestRecord(version=7, first_seq=20, last_seq=23, fingerprint='ab12')
    """

    version: int
    first_seq: int
    last_seq: int
    fingerprint: str

    def text(self) -> str:
        return f"{self.version} {self.first_seq} {self.last_seq} {self.fingerprint}"

    @classmethod
    def parse(cls, text: str) -> "RequestRecord":
        version, first_seq, last_seq, fingerprint = text.split(" ")
        return cls(int(version), int(first_seq), int(last_seq), fingerprint)


@dataclass
class CommitResult:
    outcome: str  # OK | STALE | MOVED | DUPLICATE | NOT_FOUND | FLAG | EARLY | REFUSED
    current_version: int | None = None
    record: RequestRecord | None = None  # DUPLICATE: what the request id did the first time
    refused_by: int = 0  # REFUSED: the number (from 1) of the Precheck check that refused the commit


@dataclass(frozen=True)
class Precheck:
    """Checks run by a commit's script before the commit, in the same round trip (the call's rate
    limits: ``service.guard.in_commit``): ``lua`` defines ``admit(KEYS, ARGV)``, which returns nil to let
    the commit run, else the number (from 1) of the check that refuses it (nothing of the commit is
    written then: outcome REFUSED). The same ``lua`` for every call, so the script is loaded once."""

    lua: str
    keys: list[str]
    args: list[Any]


@dataclass(frozen=True)
class Deadline:
    """The clock part of a commit (see ``service.match.clock``): ``mode`` "live" refuses the commit (FLAG)
    once the match's stored ``clock:deadline`` has passed by Redis time, "expired" refuses it (EARLY)
    before, "" checks nothing; on success the match's entry in its deadline set becomes ``deadline_ms``
    (None: removed)."""

    mode: str
    deadline_ms: int | None


@dataclass
class ClaimResult:
    outcome: str  # OK | SAME (the seat already has this token) | TAKEN | FINISHED | NOT_FOUND
    seq: int = 0
    version: int = 0


@dataclass
class Page:
    #: index members ("<created ms>:<id>"), newest first; each is the token of a page that ends after it
    members: list[str] = field(default_factory=list)
    next_token: str = ""

    @property
    def ids(self) -> list[str]:
        return [member.split(":", 1)[1] for member in self.members]


def state_hash(state_json: str) -> str:
    """The SHA-256 of a state JSON: the engine's ``Game.state_hash()`` of the state it describes."""
    return hashlib.sha256(state_json.encode()).hexdigest()


def text_of(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


#: Every script that appends to a match's events ends with this (KEYS[n] = the feed channel, SEQ = the
#: new last sequence), so watchers are told in the same atomic step (service.store.notify). Sharded pub/sub
#: where Redis has it (7.0+: redis.REDIS_VERSION is set), else classic.
NOTIFY = "redis.call(redis.REDIS_VERSION and 'SPUBLISH' or 'PUBLISH', {channel}, {seq})"
#: The commit script's notice with the change itself (see :class:`Change`), published before the plain
#: notice of its last sequence (which processes of older versions read, and which tells the others
#: nothing new then): ``{"seq": <new last sequence>, "entries": [[seq, version, time, source, event], ...],
#: "meta": [field, value, ...]}``, each entry's event JSON as the commit stores it, the meta hash as it is
#: after the commit. Left out when it would exceed ARGV[12] bytes (0: always): the watchers read then; and
#: when no process listens (ARGV[13] = '1', where the store knows its subscribers are on this Redis).
CHANGE_NOTICE = """
local limit = tonumber(ARGV[12])
if limit > 0 and ARGV[13] == '1' then
  local listeners = redis.call('PUBSUB', redis.REDIS_VERSION and 'SHARDNUMSUB' or 'NUMSUB', KEYS[5])
  if tonumber(listeners[2]) == 0 then limit = 0 end
end
if limit > 0 then
  local entries, size = {}, 0
  for j = first_event, #ARGV, 5 do
    local entry = '[' .. ARGV[j] .. ',' .. ARGV[j + 1] .. ',' .. ARGV[j + 2] .. ',' .. cjson.encode(ARGV[j + 3]) .. ','
                  .. ARGV[j + 4] .. ']'
    size = size + #entry
    if size > limit then entries = nil break end
    entries[#entries + 1] = entry
  end
  if entries then
    local notice = '{"seq":' .. ARGV[4] .. ',"entries":[' .. table.concat(entries, ',') .. '],"meta":'
                   .. cjson.encode(redis.call('HGETALL', KEYS[1])) .. '}'
    if #notice <= limit then """ + NOTIFY.format(channel="KEYS[5]", seq="notice") + """ end
  end
end
"""
#: A script that writes a match's state takes a commit id (fresh for each write, ``commit_id()``) as
#: its first argument and stores it in the state hash: when a connection breaks after Redis ran the
#: script, the client's retry sends the same script again, and the id tells it was already applied
#: (it must not apply twice, nor answer STALE for a write that happened).
APPLIED = "if redis.call('HGET', KEYS[2], 'commit') == {commit_id} then return {{'APPLIED'}} end"
TAKE_COMMIT_ID = "local commit_id = table.remove(ARGV, 1)\n" + APPLIED.format(commit_id="commit_id")

_CREATE = """
-- KEYS: meta, state, events, feed channel. ARGV: commit id, n meta pairs, pairs..., state json, version,
--       seq, state hash, then 5 per event.
""" + TAKE_COMMIT_ID + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = tonumber(ARGV[1])
local i = 2 + 2 * n
local state, version, seq, hash = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
i = i + 4
while i <= #ARGV do
  redis.call('XADD', KEYS[3], ARGV[i] .. '-0', 'seq', ARGV[i], 'version', ARGV[i + 1], 'time', ARGV[i + 2],
             'source', ARGV[i + 3], 'event', ARGV[i + 4])
  i = i + 5
end
local meta = {}
for j = 2, 1 + 2 * n do meta[#meta + 1] = ARGV[j] end
redis.call('HSET', KEYS[1], unpack(meta))
redis.call('HSET', KEYS[2], 'version', version, 'seq', seq, 'state', state, 'hash', hash, 'commit', commit_id)
""" + NOTIFY.format(channel="KEYS[4]", seq="seq") + """
return 1
"""

_LOAD = """
-- KEYS: meta, state, requests, archive.
-- ARGV: 1 request id ('' = none), 2 '1' = read the meta hash, 3 the state hash the reader
--       holds: the state JSON comes only if the stored state differs. The match's status and ruleset
--       come always.
local state = redis.call('HMGET', KEYS[2], 'version', 'seq', 'hash')
if not state[1] then return false end
local meta = {}
if ARGV[2] == '1' then meta = redis.call('HGETALL', KEYS[1]) end
local json = false
if state[3] ~= ARGV[3] then json = redis.call('HGET', KEYS[2], 'state') end
local request = false
if ARGV[1] ~= '' then
  request = redis.call('HGET', KEYS[3], ARGV[1])
  if not request and redis.call('EXISTS', KEYS[4]) == 1 then request = '-archived' end
end
return {meta, {state[1], state[2], json, state[3], redis.call('HGET', KEYS[1], 'status'),
               redis.call('HGET', KEYS[1], 'ruleset')}, request}
"""

_COMMIT = """
-- KEYS: meta, state, events, request record, feed channel.
-- ARGV: the commit id, then (numbered after it is taken off) 1 expected version, 2 expected seq, 3 new version, 4 new seq, 5 state json,
--       6 request id ('' = none), 7 its record, 8 ttl, 9 expected state hash,
--       10 new state hash, 11 n meta pairs, 12 the most bytes of a notice with the change (0: none),
--       13 '1' = that notice only if the channel has subscribers on this Redis, pairs..., then 5 per event
--       (seq version time source json).
""" + TAKE_COMMIT_ID + """
local cur = redis.call('HMGET', KEYS[2], 'version', 'seq', 'hash')
if not cur[1] then return {'NOT_FOUND'} end
if ARGV[6] ~= '' then
  local prev = redis.call('HGET', KEYS[4], ARGV[6])
  if prev then return {'DUPLICATE', prev} end
end
if cur[1] ~= ARGV[1] then return {'STALE', cur[1]} end
if cur[2] ~= ARGV[2] then return {'MOVED', cur[1]} end
if ARGV[9] ~= '' and cur[3] ~= ARGV[9] then return {'MOVED', cur[1]} end
local n = tonumber(ARGV[11])
local first_event = 14 + 2 * n
local i = first_event
-- appends first: they are the only writes that could fail, and they fail before anything is written
while i <= #ARGV do
  redis.call('XADD', KEYS[3], ARGV[i] .. '-0', 'seq', ARGV[i], 'version', ARGV[i + 1], 'time', ARGV[i + 2],
             'source', ARGV[i + 3], 'event', ARGV[i + 4])
  i = i + 5
end
redis.call('HSET', KEYS[2], 'version', ARGV[3], 'seq', ARGV[4], 'state', ARGV[5], 'hash', ARGV[10],
           'commit', commit_id)
if n > 0 then
  local meta = {}
  for j = 14, 13 + 2 * n do meta[#meta + 1] = ARGV[j] end
  redis.call('HSET', KEYS[1], unpack(meta))
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[6], ARGV[7])
  redis.call('EXPIRE', KEYS[4], tonumber(ARGV[8]))
end
""" + CHANGE_NOTICE + NOTIFY.format(channel="KEYS[5]", seq="ARGV[4]") + """
return {'OK'}
"""

_CLAIM = """
-- KEYS: meta, state, events, feed channel. ARGV: side, token hash, player, time, event json, then more
-- meta fields and values to set with the claim.
if redis.call('EXISTS', KEYS[1]) == 0 then return {'NOT_FOUND'} end
local side = ARGV[1]
local m = redis.call('HMGET', KEYS[1], 'status', 'seat:' .. side .. ':token', 'sides')
if m[1] == 'finished' or m[1] == 'aborted' then return {'FINISHED'} end
if m[2] then
  if m[2] == ARGV[2] then return {'SAME'} end
  return {'TAKEN'}
end
local st = redis.call('HMGET', KEYS[2], 'version', 'seq')
local seq = tostring(tonumber(st[2]) + 1)
redis.call('XADD', KEYS[3], seq .. '-0', 'seq', seq, 'version', st[1], 'time', ARGV[4], 'source', 'service',
           'event', ARGV[5])
redis.call('HSET', KEYS[2], 'seq', seq)
redis.call('HSET', KEYS[1], 'seat:' .. side .. ':token', ARGV[2], 'seat:' .. side .. ':player', ARGV[3],
           'seat:' .. side .. ':claimed_at', ARGV[4], 'last_sequence', seq, 'updated_at', ARGV[4])
for i = 6, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local all = true
for s in string.gmatch(m[3], '[^,]+') do
  if s ~= side and redis.call('HEXISTS', KEYS[1], 'seat:' .. s .. ':token') == 0 then all = false end
end
if all then redis.call('HSET', KEYS[1], 'status', 'active') end
""" + NOTIFY.format(channel="KEYS[4]", seq="seq") + """
return {'OK', seq, st[1]}
"""


_WAKE = """
-- KEYS: a wake channel of the service's own (service.store.notify.Feed.listen). ARGV: the message.
""" + NOTIFY.format(channel="KEYS[1]", seq="ARGV[1]")


def _with_deadline(body: str) -> str:
    """``body`` (a script above) run inside the clock check of :class:`Deadline`. KEYS: the body's,
    then the match's deadline set and its wake channel (service.store.deadlines). ARGV: mode, match id,
    new deadline ('' = none), then the body's (a commit id first: a write already applied is answered
    before the clock is looked at). A new deadline earlier than every other of its set is published on
    the wake channel: the sweepers sleep until the earliest deadline they know of."""
    return f"""
local function body(KEYS, ARGV)
{body}
end
{APPLIED.format(commit_id="ARGV[4]")}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[1] ~= '' then
  local deadline = tonumber(redis.call('HGET', KEYS[1], 'clock:deadline'))
  if ARGV[1] == 'live' and deadline and now >= deadline then return {{'FLAG', tostring(now)}} end
  if ARGV[1] == 'expired' and not (deadline and now >= deadline) then return {{'EARLY', tostring(now)}} end
end
local keys, args = {{}}, {{}}
for i = 1, #KEYS - 2 do keys[i] = KEYS[i] end
for i = 4, #ARGV do args[#args + 1] = ARGV[i] end
local reply = body(keys, args)
if reply == 1 or (type(reply) == 'table' and reply[1] == 'OK') then
  local set = KEYS[#KEYS - 1]
  if ARGV[3] == '' then redis.call('ZREM', set, ARGV[2])
  else
    local head = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
    redis.call('ZADD', set, ARGV[3], ARGV[2])
    if not head[2] or tonumber(ARGV[3]) < tonumber(head[2]) then
      {NOTIFY.format(channel="KEYS[#KEYS]", seq="ARGV[3]")}
    end
  end
end
return reply
"""


def _with_precheck(body: str, lua: str, commit_id_at: int) -> str:
    """``body`` (a commit script) after the checks of a :class:`Precheck` (``lua``). KEYS: the checks'
    (their number in ARGV[1]), then the body's; ARGV: the number of the checks' arguments, then them,
    then the body's, whose ``commit_id_at``-th is its commit id: a commit already applied (its answer
    lost, the call sent again) is answered so before the checks count it again."""
    return f"""
{lua}
local function body(KEYS, ARGV)
{body}
end
local key_count, arg_count = tonumber(ARGV[1]), tonumber(ARGV[2])
local check_keys, check_args, keys, args = {{}}, {{}}, {{}}, {{}}
for i = 1, #KEYS do
  if i <= key_count then check_keys[i] = KEYS[i] else keys[#keys + 1] = KEYS[i] end
end
for i = 3, #ARGV do
  if i <= 2 + arg_count then check_args[#check_args + 1] = ARGV[i] else args[#args + 1] = ARGV[i] end
end
if redis.call('HGET', keys[2], 'commit') == args[{commit_id_at}] then return {{'APPLIED'}} end
local refused = admit(check_keys, check_args)
if refused then return {{'REFUSED', refused}} end
return body(keys, args)
"""


def _deadline_keys(match_id: str) -> list[str]:
    shard = deadlines.shard_key(match_id)
    return [shard, deadlines.wake_channel(shard)]


def _deadline_args(match_id: str, deadline: Deadline) -> list[str]:
    return [deadline.mode, match_id, "" if deadline.deadline_ms is None else str(deadline.deadline_ms)]


_READ = """
-- KEYS: events, archive, and the meta to read with them (optional).
-- ARGV: first entry id, count. The entries, or the archive if the stream is gone; then the meta hash
-- as it is with them (one script: the meta's last_sequence is the stream's last entry).
local meta = {}
if KEYS[3] then meta = redis.call('HGETALL', KEYS[3]) end
if redis.call('EXISTS', KEYS[1]) == 0 then
  local archive = redis.call('GET', KEYS[2])
  if archive then return {'archive', archive, meta} end
end
return {'stream', redis.call('XRANGE', KEYS[1], ARGV[1], '+', 'COUNT', tonumber(ARGV[2])), meta}
"""

_COMPACT = """
-- KEYS: events, requests, archive, request archive. ARGV: events read, request records read, archive,
-- request archive ('' = no records). Only if nothing was added since they were read. The request
-- records expire when their hash would have.
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) or redis.call('HLEN', KEYS[2]) ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('SET', KEYS[3], ARGV[3])
local ttl = redis.call('PTTL', KEYS[2])
if ARGV[4] ~= '' and ttl > 0 then redis.call('SET', KEYS[4], ARGV[4], 'PX', ttl)
elseif ARGV[4] ~= '' and ttl == -1 then redis.call('SET', KEYS[4], ARGV[4]) end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
"""

#: Decoded archives each process keeps (a finished match's log is read in pages).
ARCHIVES_KEPT = 64
#: Stream entries read per round trip while compacting.
COMPACT_PAGE = 500


def _encode_both(archive: Archive, records: Archive | None) -> tuple[bytes, bytes]:
    """A match's archive and its request archive (b"": none), encoded (in the archiving thread)."""
    return archive.encode(), records.encode() if records is not None else b""


class Store:
    """Async access to the matches in Redis (a ``redis.asyncio`` Redis or RedisCluster client, made
    from :class:`RedisSettings`: :meth:`connect`)."""

    def __init__(self, client: aioredis.Redis, settings: RedisSettings = RedisSettings()) -> None:
        self.redis = client
        self.settings = settings
        #: Whether the client is a Redis Cluster's (keys of one call then share a hash slot).
        self.clustered = isinstance(client, aioredis.RedisCluster)
        #: The most bytes of a commit's notice with the change (NOTICE_MAX_BYTES); none when writes wait
        #: for replicas: a watcher must not see what a failover could take back (its read waits for them).
        self.notice_max_bytes = 0 if settings.min_replicas else NOTICE_MAX_BYTES
        lane = self.lane = Lane(client)  # the scripts' commands (and the rate limits'), on connections of the pool
        self._create = Script(lane, _CREATE)
        self._load = Script(lane, _LOAD)
        self._commit = Script(lane, _COMMIT)
        self._claim = Script(lane, _CLAIM)
        self._read = Script(lane, _READ)
        self._compact = Script(lane, _COMPACT)
        self._archives: dict[str, Archive] = {}
        self._compacting: set[asyncio.Task] = set()
        self._archiving: ThreadPoolExecutor | None = None
        self._claim_due = Script(lane, deadlines.CLAIM_DUE)
        self._create_clocked = Script(lane, _with_deadline(_CREATE))
        self._commit_clocked = Script(lane, _with_deadline(_COMMIT))
        self._wake = Script(lane, _WAKE)
        self._prechecked: dict[tuple[str, bool], Script] = {}
        #: after a write, on its connection: see service.store.connection (the replication barrier)
        self._barrier = (("PUBLISH", BARRIER_CHANNEL, ""), ("WAIT", settings.min_replicas, settings.wait_timeout_ms))

    @property
    def url(self) -> str:
        return self.settings.url

    async def time_ms(self) -> int:
        """Redis's clock, in Unix milliseconds: the one clock of every service process."""
        seconds, microseconds = await self.redis.time()
        return seconds * 1000 + microseconds // 1000

    @classmethod
    def connect(cls, settings: RedisSettings) -> "Store":
        return cls(client_of(settings), settings)

    @classmethod
    def from_url(cls, url: str, cluster: bool = False, max_connections: int = MAX_CONNECTIONS,
                 password: str | None = None) -> "Store":
        """A store on the Redis at ``url``; ``password`` (from a file: service.store.credentials) is
        given apart from the URL, so the URL can be logged and passed on a command line."""
        return cls.connect(RedisSettings(url, cluster, max_connections=max_connections, password=password))

    def probe_client(self) -> aioredis.Redis:
        """A client of the same Redis that never retries and answers within a second: for readiness,
        which must say at once that Redis is down, loading or frozen."""
        return client_of(self.settings, **PROBE_OPTIONS)

    # --- replication ---------------------------------------------------------------------------------

    async def _acknowledged(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """``script``'s reply once ``min_replicas`` replicas hold what it did and what it read
        (:class:`~service.store.connection.NotReplicated` if they do not confirm in time)."""
        if not self.settings.min_replicas:
            return await script(keys=keys, args=args)
        reply, barrier = await script.then(keys, args, *self._barrier)
        self._check_replicated(barrier)
        return reply

    async def confirm_replicated(self) -> None:
        """Returns once ``min_replicas`` replicas hold every write Redis had made when it was called
        (NotReplicated if they do not confirm in time); at once without ``--redis-min-replicas``."""
        if self.settings.min_replicas:
            self._check_replicated(await self.lane.execute_many(self._barrier))

    def _check_replicated(self, barrier: list[Any]) -> None:
        for reply in barrier:
            if isinstance(reply, Exception):
                raise reply
        needed = self.settings.min_replicas
        if barrier[-1] < needed:
            raise not_replicated(needed, barrier[-1], self.settings.wait_timeout_ms)

    def connections_in_use(self) -> tuple[int, int]:
        """(connections in use, the most there may be) of this process's pool (0, max on Cluster); in
        use includes the few the scripts' Lane keeps between commands."""
        pool = getattr(self.redis, "connection_pool", None)
        in_use = len(getattr(pool, "_in_use_connections", ())) if pool is not None else 0
        return in_use, self.settings.max_connections

    async def close(self) -> None:
        if self._compacting:
            await asyncio.gather(*self._compacting, return_exceptions=True)
        if self._archiving is not None:
            self._archiving.shutdown(wait=False)
        await self.redis.aclose()

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    # --- writes ------------------------------------------------------------------------------------

    async def create(self, match_id: str, meta: dict[str, str], state_json: str, version: int,
                     events: list[StoredEvent], created_ms: int, deadline: Deadline | None = None) -> bool:
        """Write a new match; False if the id is taken (nothing written then). With a ``deadline``, the
        match's clock deadline is recorded in the same script."""
        args: list[str] = [commit_id(), str(len(meta))]
        for name, value in meta.items():
            args += [name, value]
        args += [state_json, str(version), str(events[-1].seq if events else 0), state_hash(state_json)]
        for event in events:
            args += event.fields()
        keys = [key(match_id, "meta"), key(match_id, "state"), key(match_id, "events"),
                key(match_id, "feed")]
        if deadline is None:
            created = await self._create(keys=keys, args=args)
        else:
            created = await self._create_clocked(keys=keys + _deadline_keys(match_id),
                                                 args=_deadline_args(match_id, deadline) + args)
        if isinstance(created, list):  # APPLIED: this very create ran before its answer was lost
            created = 1
        if created:  # the last write of a creation: acknowledged once replicas hold it, and all before it
            member = f"{created_ms:015d}:{match_id}"
            if self.settings.min_replicas:
                self._check_replicated((await self.lane.execute_many([("ZADD", INDEX_KEY, 0, member),
                                                                      *self._barrier]))[1:])
            else:
                await self.redis.zadd(INDEX_KEY, {member: 0})
        return bool(created)

    async def commit(self, match_id: str, expected_version: int, expected_seq: int, new_version: int,
                     state_json: str, meta: dict[str, str], events: list[StoredEvent],
                     request_id: str = "", record: RequestRecord | None = None,
                     deadline: Deadline | None = None, expected_hash: str = "", new_hash: str = "",
                     commit: str | None = None, precheck: Precheck | None = None) -> CommitResult:
        """Apply a change to a match if it is still at ``expected_version`` and ``expected_seq`` (and has
        the state hash ``expected_hash``, if given); with a ``deadline``, also only if its clock allows
        (outcome FLAG or EARLY otherwise, see Deadline); with a ``precheck``, only if its checks allow
        (REFUSED otherwise), in the same script. ``commit`` is the write's commit id (default: a
        fresh one; see APPLIED)."""
        args: list[Any] = [commit or commit_id(), str(expected_version), str(expected_seq), str(new_version),
                           str(events[-1].seq if events else expected_seq), state_json,
                           request_id if record else "", record.text() if record else "", str(REQUEST_TTL_SECONDS),
                           expected_hash, new_hash or state_hash(state_json), str(len(meta)),
                           str(self.notice_max_bytes), "0" if self.clustered else "1"]
        for name, value in meta.items():
            args += [name, value]
        for event in events:
            args += event.fields()
        keys = [key(match_id, "meta"), key(match_id, "state"), key(match_id, "events"), key(match_id, "requests"),
                key(match_id, "feed")]
        script = self._commit
        if deadline is not None:
            script, keys, args = self._commit_clocked, keys + _deadline_keys(match_id), _deadline_args(match_id, deadline) + args
        if precheck is not None:  # never on a Cluster, which keeps the checks' keys in other slots
            script = self._prechecked_commit(precheck.lua, deadline is not None)
            keys = precheck.keys + keys
            args = [len(precheck.keys), len(precheck.args), *precheck.args, *args]
        reply = await self._acknowledged(script, keys, args)
        outcome = text_of(reply[0])
        if outcome == "REFUSED":
            return CommitResult(outcome, refused_by=int(reply[1]))
        observe_commit(match_id, outcome)
        if outcome in ("OK", "APPLIED") and meta.get("status") in ENDED:  # finished, resigned, flagged, aborted
            self.compact_soon(match_id)
        if outcome == "APPLIED":  # the connection broke after Redis had applied this very commit
            return CommitResult("OK")
        if outcome == "DUPLICATE":
            return CommitResult(outcome, record=RequestRecord.parse(text_of(reply[1])))
        if outcome in ("STALE", "MOVED"):
            return CommitResult(outcome, current_version=int(reply[1]))
        return CommitResult(outcome)

    def _prechecked_commit(self, lua: str, clocked: bool) -> Script:
        script = self._prechecked.get((lua, clocked))
        if script is None:
            body, commit_id_at = (_with_deadline(_COMMIT), 4) if clocked else (_COMMIT, 1)
            script = self._prechecked[lua, clocked] = Script(self.lane, _with_precheck(body, lua, commit_id_at))
        return script

    async def claim_seat(self, match_id: str, side: str, token_hash: str, player: str, time_ms: int,
                         event: dict[str, Any], meta: dict[str, str] | None = None) -> ClaimResult:
        """Claim ``side`` for ``token_hash`` and log ``event``, setting ``meta``'s fields too (in one step:
        what a claim says of the seat before anything else may read it)."""
        extra = [item for pair in (meta or {}).items() for item in pair]
        reply = await self._acknowledged(
            self._claim, [key(match_id, "meta"), key(match_id, "state"), key(match_id, "events"), key(match_id, "feed")],
            [side, token_hash, player, str(time_ms), json.dumps(event, separators=(",", ":")), *extra])
        outcome = text_of(reply[0])
        if outcome == "OK":
            return ClaimResult(outcome, int(reply[1]), int(reply[2]))
        return ClaimResult(outcome)

    async def reserve_creation(self, request_id: str, match_id: str, fingerprint: str) -> tuple[str, str] | None:
        """Record that CreateMatch ``request_id`` creates ``match_id`` (for REQUEST_TTL_SECONDS), before
        creating it; None if recorded, else the (match id, fingerprint) an earlier request recorded."""
        name = creation_key(request_id)
        value = f"{match_id} {fingerprint}"
        if await self.redis.set(name, value, nx=True, ex=REQUEST_TTL_SECONDS):
            return None
        recorded = text_of(await self.redis.get(name) or b"")
        if recorded == value:  # ours: the SET was retried after its answer was lost
            return None
        if not recorded:  # expired in between: take it
            await self.redis.set(name, value, ex=REQUEST_TTL_SECONDS)
            return None
        earlier_id, _, earlier_fingerprint = recorded.partition(" ")
        return earlier_id, earlier_fingerprint

    async def move_reservation(self, request_id: str, match_id: str, fingerprint: str) -> None:
        """Point a reservation at another match id (the first one drawn was taken)."""
        await self.redis.set(creation_key(request_id), f"{match_id} {fingerprint}", ex=REQUEST_TTL_SECONDS)

    # --- reads -------------------------------------------------------------------------------------

    async def load(self, match_id: str, request_id: str = "", meta: bool = True, known_hash: str = "") -> Snapshot | None:
        """The match (None if there is none): its state, its meta hash if ``meta``, the record of
        ``request_id`` if given; the state JSON is left out if its hash is ``known_hash``."""
        reply = await self._load(keys=[key(match_id, "meta"), key(match_id, "state"), key(match_id, "requests"),
                                       key(match_id, "archive")],
                                 args=[request_id, "1" if meta else "0", known_hash or "-"])
        if not reply:
            return None
        flat, state, request = reply
        fields = {text_of(flat[i]): text_of(flat[i + 1]) for i in range(0, len(flat), 2)}
        record = None
        if request == b"-archived":
            text = await self._archived_request(match_id, request_id)
            record = RequestRecord.parse(text) if text else None
        elif request:
            record = RequestRecord.parse(text_of(request))
        return Snapshot(fields, int(state[0]), int(state[1]), text_of(state[2]), record, text_of(state[3]) or "",
                        text_of(state[4]) or "", text_of(state[5]) or "")

    async def metas(self, match_ids: list[str]) -> list[dict[str, str] | None]:
        if not match_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.hgetall(key(match_id, "meta"))
            replies = await pipe.execute()
        return [{text_of(k): text_of(v) for k, v in reply.items()} or None for reply in replies]

    async def statuses(self, match_ids: list[str]) -> list[str | None]:
        """Each match's status (None: no such match), one field each: what a filtered list reads first."""
        if not match_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.hget(key(match_id, "meta"), "status")
            return [text_of(status) if status is not None else None for status in await pipe.execute()]

    async def read_events(self, match_id: str, after_seq: int, count: int) -> list[StoredEvent]:
        """Up to ``count`` events with a sequence above ``after_seq``, in order (from the stream, or from
        the archive of a finished match)."""
        events, _ = await self.read_events_and_meta(match_id, after_seq, count, meta=False)
        return events

    async def read_events_and_meta(self, match_id: str, after_seq: int, count: int,
                                   meta: bool = True) -> tuple[list[StoredEvent], dict[str, str] | None]:
        """:meth:`read_events`, and the match's meta hash read with them in one step (None without a
        match, or if not ``meta``): its ``last_sequence`` says whether more events follow."""
        keys = [key(match_id, "events"), key(match_id, "archive")] + ([key(match_id, "meta")] if meta else [])
        # with --redis-min-replicas, only events replicas hold: a watcher never sees one a failover takes back
        kind, reply, flat = await self._acknowledged(self._read, keys, [f"{after_seq + 1}-0", str(count)])
        fields = {text_of(flat[i]): text_of(flat[i + 1]) for i in range(0, len(flat), 2)} or None
        if kind == b"archive":
            return [StoredEvent(seq, version, time_ms, source, json.loads(data))
                    for seq, version, time_ms, source, data in
                    (await self._decoded(match_id, reply)).after(after_seq, count)], fields
        return [StoredEvent.from_entry(dict(zip(fields_[::2], fields_[1::2]))) for _, fields_ in reply], fields

    async def wait_events(self, match_id: str, after_seq: int, block_ms: int, count: int = 200) -> list[StoredEvent]:
        """Like read_events, but waits up to ``block_ms`` for the first one (XREAD BLOCK)."""
        reply = await self.redis.xread({key(match_id, "events"): f"{after_seq}-0"}, count=count, block=block_ms)
        events: list[StoredEvent] = []
        for _stream, entries in reply or []:
            events.extend(StoredEvent.from_entry(fields) for entry_id, fields in entries)
        return events

    async def last_sequence(self, match_id: str) -> int:
        entries = await self.redis.xrevrange(key(match_id, "events"), count=1)
        if entries:
            return int(text_of(entries[0][0]).split("-")[0])
        blob = await self.redis.get(key(match_id, "archive"))
        return (await self._decoded(match_id, blob)).last_sequence if blob else 0

    async def _archived_request(self, match_id: str, request_id: str) -> str | None:
        """The record of a request id of a compacted match: in its request archive (while it lasts),
        or in its archive (matches compacted before request archives)."""
        blob = await self.redis.get(key(match_id, "request-archive"))
        text = (await self._decoded(key(match_id, "request-archive"), blob)).requests.get(request_id) if blob else None
        return text if text is not None else (await self._archive(match_id)).requests.get(request_id)

    async def _archive(self, match_id: str) -> Archive:
        blob = await self.redis.get(key(match_id, "archive"))
        return await self._decoded(match_id, blob) if blob else Archive()

    async def _decoded(self, match_id: str, blob: bytes) -> Archive:
        """An archive, decoded once per process (archives never change), in a thread: a long match's takes
        ~10-60 ms (LZMA, then a line per entry); ``match_id`` names it."""
        archive = self._archives.get(match_id)
        if archive is None:
            archive = self._archives[match_id] = await asyncio.to_thread(Archive.decode, blob)
            while len(self._archives) > ARCHIVES_KEPT:
                self._archives.pop(next(iter(self._archives)))
        return archive

    async def wake(self, channel: str, message: str = "") -> None:
        """Publish on a wake channel (service.store.notify.Feed.listen), sharded where the feed listens
        sharded (Redis 7 and later), as the scripts publish their notices."""
        await self._wake(keys=[channel], args=[message])

    # --- the clocks' deadlines (service.store.deadlines) ----------------------------------------------

    async def claim_due(self, lease_ms: int, batch: int) -> tuple[int, int | None, list[tuple[str, bool]]]:
        """Claims the matches whose deadline is due, for ``lease_ms`` (deadlines.CLAIM_DUE): the Redis
        time, the earliest deadline left (None: none), and (match id, whether it came from the set of
        older versions: see :meth:`forget_legacy_deadline`) of each claimed. One script over every set
        on a single Redis; on a Cluster one a set (each its own slot), at once."""
        if self.clustered:
            replies = await asyncio.gather(*(self._claim_due(keys=[shard], args=[lease_ms, batch])
                                             for shard in deadlines.SHARD_KEYS))
            sets = [reply[2] for reply in replies]
            now = max(int(reply[0]) for reply in replies)
            firsts = [int(float(reply[1])) for reply in replies if reply[1]]
        else:
            reply = await self._claim_due(keys=[*deadlines.SHARD_KEYS, deadlines.LEGACY_KEY], args=[lease_ms, batch])
            sets, now = reply[2:], int(reply[0])
            firsts = [int(float(reply[1]))] if reply[1] else []
        legacy = len(deadlines.SHARD_KEYS)
        due = [(text_of(match_id), index == legacy) for index, ids in enumerate(sets) for match_id in ids]
        return now, min(firsts, default=None), due

    async def drop_deadline(self, match_id: str) -> None:
        """The match's entry off its deadline set (its clock stopped, or it is gone)."""
        await self.redis.zrem(deadlines.shard_key(match_id), match_id)

    async def lower_deadline(self, match_id: str, deadline_ms: int) -> None:
        """The match's entry in its deadline set at ``deadline_ms`` unless it is earlier already (a commit
        meanwhile may have set an earlier one)."""
        await self.redis.zadd(deadlines.shard_key(match_id), {match_id: deadline_ms}, lt=True)

    async def forget_legacy_deadline(self, match_id: str) -> None:
        """The match's entry off the deadline set of older versions, once a sweep has dealt with it (its
        deadline, if it still has one, is in its shard then)."""
        await self.redis.zrem(deadlines.LEGACY_KEY, match_id)

    # --- compaction ---------------------------------------------------------------------------------

    async def compact(self, match_id: str) -> bool:
        """Put a finished or aborted match's events into its archive, in one value, and its request
        records into its request archive. False if there is nothing to do (already done, or the match
        is not over)."""
        meta = key(match_id, "meta")
        status, last = await self.redis.hmget(meta, ["status", "last_sequence"])
        if text_of(status) not in ("finished", "aborted"):
            return False
        rows: list[tuple[int, int, int, str, str]] = []
        while True:  # a page at a time: a long match's whole stream decoded at once took the event loop ~10-30 ms
            page = await self.redis.xrange(key(match_id, "events"), min=f"{rows[-1][0] + 1}-0" if rows else "-",
                                           max="+", count=COMPACT_PAGE)
            rows += [StoredEvent.row_of(fields) for _, fields in page]
            if len(page) < COMPACT_PAGE:
                break
        if not rows:
            return False
        requests = await self.redis.hgetall(key(match_id, "requests"))
        archive = Archive(rows)
        if archive.last_sequence != int(text_of(last)):
            return False
        records = Archive(requests={text_of(k): text_of(v) for k, v in requests.items()}) if requests else None
        # LZMA took a long match's log ~0.1 s of CPU on the event loop (more on a busy machine): in this
        # store's one archiving thread (lzma lets go of the GIL), one archive at a time
        blobs = await asyncio.get_running_loop().run_in_executor(self._archiver(), _encode_both, archive, records)
        done = await self._compact(keys=[key(match_id, "events"), key(match_id, "requests"), key(match_id, "archive"),
                                         key(match_id, "request-archive")],
                                   args=[str(len(rows)), str(len(requests)), *blobs])
        return bool(done)

    def _archiver(self) -> ThreadPoolExecutor:
        if self._archiving is None:
            self._archiving = ThreadPoolExecutor(1, thread_name_prefix="archiver")
        return self._archiving

    def compact_soon(self, match_id: str) -> None:
        """Compact a match that just ended, in the background (it stays readable uncompacted if this
        fails or the process stops first); :meth:`close` waits for it."""
        async def compact() -> None:
            try:
                await self.compact(match_id)
            except Exception as error:  # noqa: BLE001 - the match stays readable uncompacted
                log.warning("compaction_failed", match_id=match_id, error=repr(error))

        task = asyncio.get_running_loop().create_task(compact(), name=f"compact-{match_id}")
        self._compacting.add(task)
        task.add_done_callback(self._compacting.discard)

    async def list_ids(self, page_token: str, count: int) -> Page:
        """Match ids, newest first, after ``page_token`` (an index member from a previous page)."""
        upper = f"({page_token}" if page_token else "+"
        members = await self.redis.zrevrangebylex(INDEX_KEY, upper, "-", start=0, num=count)
        members = [text_of(m) for m in members]
        return Page(members, members[-1] if len(members) == count else "")
