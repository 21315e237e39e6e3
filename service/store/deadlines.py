"""Where the clocks' deadlines are kept: :data:`SHARDS` sorted sets of match ids by the Redis time (ms)
of their next deadline, each in a Redis Cluster slot of its own, and a match with clocks in the slot of
one of them.

A match's commit writes its deadline in the same Lua script as the match (``service.store.match_store``),
and on a Redis Cluster a script touches one slot: so the match's keys (hash tag ``{m:<id>}``) must share
a slot with its deadline set. The id of a match with clocks is drawn for that (:func:`fit_to_shard`: its
last three characters chosen so that ``{m:<id>}`` falls in one of the shards' slots), and
:func:`shard_key` finds the set from the id. The sweepers (``service.match.clock.Sweeper``) claim due
entries from every shard.

Why shards, and sixteen: one set would put every match with clocks in one slot, on one node, whatever
the Cluster's size; a shard per slot would make each sweep read 16384 sets. Sixteen spread the ladder's
matches over sixteen slots (so over up to sixteen primaries) for sixteen small scripts a sweep (one
script on a single Redis). The number may grow, never shrink: the shards are numbered, and a match
keeps the one its id points at.

Matches created before the shards had their deadline in the one set ``typhoon:deadlines``
(:data:`LEGACY_KEY`, single Redis only): the sweepers still claim from it, and move what they find to
its shard.

>>> match_id = fit_to_shard("abcdefghijklmnop")
>>> match_id[:13], len(match_id)
('abcdefghijklm', 16)
>>> slot(f"typhoon:{{m:{match_id}}}:meta") == slot(shard_key(match_id))
True
>>> shard_key("anyoldid") in SHARD_KEYS  # an id not drawn for it still has a shard (single Redis)
True
"""

from __future__ import annotations

import binascii
import functools
import itertools
import secrets

#: Deadline sets: see the module's docstring (may grow, never shrink).
SHARDS = 16
SHARD_KEYS = tuple(f"typhoon:{{deadlines:{index}}}" for index in range(SHARDS))
#: The one deadline set of the matches created before the shards.
LEGACY_KEY = "typhoon:deadlines"
SLOTS = 16384
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"  # the match ids' (service.match.core)


def slot(name: str) -> int:
    """The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, or of all of it)."""
    start = name.find("{")
    if start >= 0:
        end = name.find("}", start + 1)
        if end > start + 1:
            name = name[start + 1:end]
    return binascii.crc_hqx(name.encode(), 0) % SLOTS


_SHARD_SLOTS = tuple(slot(key) for key in SHARD_KEYS)
_SHARD_OF_SLOT = {shard_slot: index for index, shard_slot in enumerate(_SHARD_SLOTS)}
assert len(_SHARD_OF_SLOT) == SHARDS, "two deadline shards share a slot"


def shard_key(match_id: str) -> str:
    """The deadline set of a match: the shard in its slot (its id was drawn for one), else (a match
    created before the shards, on a single Redis) one chosen from its slot."""
    match_slot = binascii.crc_hqx(f"m:{match_id}".encode(), 0) % SLOTS
    return SHARD_KEYS[_SHARD_OF_SLOT.get(match_slot, match_slot % SHARDS)]


def wake_channel(shard: str) -> str:
    """The pub/sub channel told when a deadline set gets a new earliest deadline, in the set's slot (a
    script may publish there on a Redis Cluster): the sweepers sleep until the earliest deadline they
    know of, or until this channel says there is an earlier one.

    >>> wake_channel(SHARD_KEYS[3])
    'typhoon:{deadlines:3}:wake'
    """
    return shard + ":wake"


WAKE_CHANNELS = tuple(wake_channel(shard) for shard in SHARD_KEYS)


def fit_to_shard(match_id: str) -> str:
    """``match_id`` with its last three characters chosen so that its keys share a slot with a deadline
    shard.

    A CRC is linear: the CRC of ``prefix + suffix`` is the CRC of ``suffix`` alone (from 0) XOR the
    CRC of as many zero bytes from the prefix's CRC. So the suffix is looked up, not searched for: in
    a table of the suffixes by the low 14 bits (the slot) of their own CRC, at the slot that XOR
    turns into a shard's.
    """
    prefix = match_id[:-3]
    shift = binascii.crc_hqx(b"\0\0\0", binascii.crc_hqx(f"m:{prefix}".encode(), 0)) % SLOTS
    table = _suffixes_by_slot()
    first = secrets.randbelow(SHARDS)  # a shard at random: the matches spread over all of them
    for index in range(first, first + SHARDS):
        suffix = table.get(_SHARD_SLOTS[index % SHARDS] ^ shift)
        if suffix is not None:
            return prefix + suffix
    raise AssertionError("no suffix fits")  # pragma: no cover - each shard misses 1 time in 17


@functools.cache
def _suffixes_by_slot() -> dict[int, str]:
    """Three letters of the ids' alphabet by the slot of their CRC from 0 (15,000 of the 16,384 slots)."""
    table: dict[int, str] = {}
    for letters in itertools.product(_ALPHABET, repeat=3):
        suffix = "".join(letters)
        table.setdefault(binascii.crc_hqx(suffix.encode(), 0) % SLOTS, suffix)
    return table


#: Lua: claims the due entries (score <= Redis time) of each deadline set of KEYS, at most ARGV[2] in
#: all, putting each back at now + lease (ARGV[1] ms): a process that dies holding one leaves it to
#: another after the lease. Returns {now, the earliest deadline left ('' if none), then per key its
#: claimed ids}.
CLAIM_DUE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local left = tonumber(ARGV[2])
local reply = {tostring(now), ''}
local earliest = nil
for _, key in ipairs(KEYS) do
  local due = {}
  local head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if left > 0 and head[2] and tonumber(head[2]) <= now then
    due = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'LIMIT', 0, left)
    for _, id in ipairs(due) do redis.call('ZADD', key, now + tonumber(ARGV[1]), id) end
    left = left - #due
    head = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  end
  if head[2] and (earliest == nil or tonumber(head[2]) < earliest) then
    earliest = tonumber(head[2])
    reply[2] = head[2]
  end
  reply[#reply + 1] = due
end
return reply
"""

__all__ = ["CLAIM_DUE", "LEGACY_KEY", "SHARDS", "SHARD_KEYS", "WAKE_CHANNELS", "fit_to_shard", "shard_key", "slot",
           "wake_channel"]
