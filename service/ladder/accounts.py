"""Ladder accounts: owners, players and their keys (the registering and key RPCs of LadderService).

An **owner** is the person or team that runs bots: an account with its own key. A **player** (a bot)
is registered under an owner, with the owner key, and gets its own API key. The service draws every
key (:func:`new_key`: 256 random bits), shows it once, and keeps its SHA-256 only; nobody can choose a
key, so no answer ever tells whether some key exists. A key is rotated (a new one, the old one dead at
once) or revoked (none); revoking an owner's key closes the owner, its players' keys with it.

A retry is made safe by a request id (:mod:`service.request_ids`), and a request id proves nothing: the
first call records what it made under the hash of its request id (scoped to the caller: the owner for
RegisterPlayer, the key used for a rotation) for :data:`REQUEST_TTL_SECONDS`, and the same request id
again answers for the same owner or player. **A key is shown to the first caller only**: a retry gets a
key only when the key it carries could make the call afresh, so that replaying a call, from anywhere,
with everything it carried, takes no account over:

* RegisterOwner carries no key: its retry answers with the owner and no key (``key_withheld``). The
  service keeps no key it could show twice, and a new one would be the account to whoever sent the
  retry (the request's bytes are all a retry has: a proxy's log, a shared machine). An owner whose
  answer was lost is lost with it: register another name (it costs a second; nobody else gets it).
* RegisterPlayer carries the owner key, checked again on the retry: the owner may rotate its players'
  keys at any time, so its retry gets the same player with a new API key (the lost answer's stops
  working), as RotatePlayerKey would give it.
* RotatePlayerKey and RotateOwnerKey carry the key they replace, dead once the first call rotated it:
  their retry answers that the key was rotated, with no key (``key_withheld``). Rotate again, with a
  new request id, with a key that works: for a player, its owner's key.

Players registered before owners existed have no owner (``owner_id`` empty): each is its own owner,
keeps its key and can rotate or revoke it with that key.

An owner registered from a client address from which another owner was registered lately joins that
owner's group (:mod:`service.ladder.related`): the ladder treats related owners as one.

Keys (prefix ``typhoon:{ladder}:``, beside :mod:`service.ladder.core`'s, one Cluster slot: see there)::

    owner:<id>              hash: id name registered_at key_hash ('' once closed) closed group (the id of
                            the first owner of its group: itself, unless related)
    owner:<id>:players      list: its players' ids, oldest first
    owner_names             hash: name key (NFKC, case-folded) -> owner id
    owner_keys              hash: SHA-256 of an owner key -> owner id
    request:<SHA-256>       string, 15 minutes: "<owner or player id> <fingerprint>" of a request id
    address:<HMAC-SHA256>   string, expiring related_window after the last owner registered from the
                            address: the group of the owners registered from it
    address_key             string: the key of those hashes, drawn by the service (unless given)
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

import structlog
from grpc import StatusCode

from service.errors import ServiceError
from service.gen.typhoon.v1 import ladder_service_pb2 as lapi
from service.ladder.related import AddressTags
from service.match import convert
from service.match.core import CallContext, token_hash
from service.match.names import TEXT_LAYOUT, check_name, name_key
from service.request_ids import MAX_REQUEST_ID, check_request_id
from service.store.match_store import text_of

log = structlog.get_logger("typhoon.ladder")

PREFIX = "typhoon:{ladder}:"
#: The prefix of older versions (single Redis only: they refused the ladder on a Cluster).
OLDER_PREFIX = "typhoon:ladder:"
MAX_NAME = 64
MAX_DESCRIPTION = 500
#: How long a request id makes a retry answer for what the first call made.
REQUEST_TTL_SECONDS = 15 * 60
_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_KEY = re.compile(r"tp[ko]_[A-Za-z0-9_-]{43}")
#: The one answer to a key that does not do for a call, on both transports, whatever the key is (unknown,
#: revoked, another account's or of another kind): no answer tells whether a key exists.
KEY_INVALID_MESSAGE = "the key is not one this call accepts (a key is checked by its kind and its account)"


def ladder_key(*parts: str) -> str:
    """A Redis key of the ladder: ``typhoon:{ladder}:`` and the parts joined by ``:``."""
    return PREFIX + ":".join(parts)


def err(code: StatusCode, reason: str, message: str) -> ServiceError:
    return ServiceError(code, reason, message)


def new_key(kind: str = "player") -> str:
    """A fresh key: 256 random bits, ``tpk_`` for a player's API key, ``tpo_`` for an owner key.

    >>> key = new_key(); key.startswith("tpk_"), len(key), new_key("owner").startswith("tpo_")
    (True, 47, True)
    """
    return ("tpo_" if kind == "owner" else "tpk_") + secrets.token_urlsafe(32)


def new_id(letter: str) -> str:
    return letter + "".join(secrets.choice(_ID_ALPHABET) for _ in range(15))


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]


def key_invalid() -> ServiceError:
    return err(StatusCode.UNAUTHENTICATED, "KEY_INVALID", KEY_INVALID_MESSAGE)


def _check_text(label: str, value: str, limit: int, layout: frozenset[str] | None = None) -> None:
    if len(value) > limit:
        raise err(StatusCode.INVALID_ARGUMENT, "NAME_TOO_LONG",
                  f"{label} has {len(value)} characters; at most {limit} are allowed")
    if layout is None:
        check_name(label, value)
    else:
        check_name(label, value, allowed=layout)


_REGISTER_OWNER = """
-- KEYS: owner names, owner, owner keys, request, and the group of the caller's address if it is known.
-- ARGV: name key, id, key hash, request record ('' = none), its ttl, how long (ms) the address's group is
-- kept, then field pairs. The owner joins its address's group, or starts one (named by its id).
-- Returns {'OK'}, {'NAME_TAKEN'} or {'AGAIN', record}.
if ARGV[4] ~= '' then
  local earlier = redis.call('GET', KEYS[4])
  if earlier then return {'AGAIN', earlier} end
end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return {'NAME_TAKEN'} end
local fields = {'group', ARGV[2]}
if KEYS[5] then
  fields[2] = redis.call('GET', KEYS[5]) or ARGV[2]
  redis.call('SET', KEYS[5], fields[2], 'PX', ARGV[6])
end
for i = 7, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('HSET', KEYS[3], ARGV[3], ARGV[2])
if ARGV[4] ~= '' then redis.call('SET', KEYS[4], ARGV[4], 'EX', ARGV[5]) end
return {'OK'}
"""

_REGISTER_PLAYER = """
-- KEYS: names, player, keys, board, owner's players, request, owner.
-- ARGV: name key, id, key hash, rating, most players per owner, request record ('' = none), its ttl,
-- the owner key's hash, then field pairs. Returns {'OK'}, {'NAME_TAKEN'}, {'QUOTA'}, {'KEY_INVALID'} (the
-- owner key changed meanwhile) or {'AGAIN', record}.
if redis.call('HGET', KEYS[7], 'key_hash') ~= ARGV[8] then return {'KEY_INVALID'} end
if ARGV[6] ~= '' then
  local earlier = redis.call('GET', KEYS[6])
  if earlier then return {'AGAIN', earlier} end
end
if redis.call('LLEN', KEYS[5]) >= tonumber(ARGV[5]) then return {'QUOTA'} end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return {'NAME_TAKEN'} end
local fields = {}
for i = 9, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('HSET', KEYS[3], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
redis.call('RPUSH', KEYS[5], ARGV[2])
if ARGV[6] ~= '' then redis.call('SET', KEYS[6], ARGV[6], 'EX', ARGV[7]) end
return {'OK'}
"""

_SET_KEY = """
-- KEYS: the holder (player or owner hash), its keys hash, request. ARGV: id, the new key's hash ('' = revoke),
-- request record ('' = none), its ttl. Replaces the holder's key; 0 if the holder is gone or closed.
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'closed') == '1' then return 0 end
local old = redis.call('HGET', KEYS[1], 'key_hash')
if old and old ~= '' then redis.call('HDEL', KEYS[2], old) end
redis.call('HSET', KEYS[1], 'key_hash', ARGV[2])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[2], ARGV[2], ARGV[1]) end
if ARGV[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[4]) end
return 1
"""

_CLOSE_OWNER = """
-- KEYS: owner, owner keys, player keys, owner's players, then each of its players' hashes.
-- ARGV: the owner key's hash, its players' count. Returns the player keys revoked, or -1 (the players
-- changed: read them again), or -2 (the owner key changed meanwhile).
if redis.call('HGET', KEYS[1], 'key_hash') ~= ARGV[1] then return -2 end
if redis.call('LLEN', KEYS[4]) ~= tonumber(ARGV[2]) then return -1 end
local revoked = 0
for i = 5, #KEYS do
  local old = redis.call('HGET', KEYS[i], 'key_hash')
  if old and old ~= '' then
    redis.call('HDEL', KEYS[3], old)
    revoked = revoked + 1
  end
  redis.call('HSET', KEYS[i], 'key_hash', '')
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'key_hash', '', 'closed', '1')
return revoked
"""


class Accounts:
    """The account RPCs of ``typhoon.v1.LadderService`` (the :class:`service.ladder.core.Ladder` serves them)."""

    #: The RPCs (snake_case) this class serves.
    RPCS = ("register_owner", "get_owner", "register_player", "rotate_player_key", "revoke_player_key",
            "rotate_owner_key", "revoke_owner_key")

    def __init__(self, redis: Any, time_ms: Any, players_per_owner: int, fresh_fields: dict[str, str], fresh_score: str,
                 describe: Any, related_window_ms: int = 0, address_key: bytes | None = None) -> None:
        self.redis = redis
        #: owners registered from one address within this are related (0: never; no address is kept)
        self.related_window_ms = related_window_ms
        self.address_tags = AddressTags(redis, ladder_key("address_key"), address_key) if related_window_ms else None
        self.time_ms = time_ms  # async () -> the Redis time in ms
        self.players_per_owner = players_per_owner
        self.fresh_fields = fresh_fields  # the rating fields of a new player
        self.fresh_score = fresh_score  # its leaderboard score
        self.describe = describe  # async (player id) -> the LadderPlayer
        self._register_owner = redis.register_script(_REGISTER_OWNER)
        self._register_player = redis.register_script(_REGISTER_PLAYER)
        self._set_key = redis.register_script(_SET_KEY)
        self._close_owner = redis.register_script(_CLOSE_OWNER)

    # --- who is calling ----------------------------------------------------------------------------

    async def player_of_key(self, token: str | None) -> str:
        """The player whose API key ``token`` is. Only a key of the form the service draws counts: one a caller
        chose before keys were drawn (perhaps weak) can only rotate itself (RotatePlayerKey)."""
        return await self._holder(token, "keys", "this call needs the player's API key: send "
                                                 "'authorization: Bearer <key>'")

    async def owner_of_key(self, token: str | None) -> str:
        """The owner whose owner key ``token`` is."""
        return await self._holder(token, "owner_keys", "this call needs an owner key (from RegisterOwner): send "
                                                       "'authorization: Bearer <key>'")

    async def any_key(self, token: str | None) -> str:
        """The player or owner whose key ``token`` is (REST checks a key before reading the request)."""
        if not token:
            raise err(StatusCode.UNAUTHENTICATED, "KEY_MISSING", "this call needs a ladder key: send "
                      "'authorization: Bearer <key>'")
        digest = token_hash(token)
        for table in ("keys", "owner_keys"):
            holder = text_of(await self.redis.hget(ladder_key(table), digest))
            if holder:
                return holder
        raise key_invalid()

    async def _holder(self, token: str | None, table: str, missing: str) -> str:
        if not token:
            raise err(StatusCode.UNAUTHENTICATED, "KEY_MISSING", missing)
        holder = text_of(await self.redis.hget(ladder_key(table), token_hash(token))) if _KEY.fullmatch(token) else None
        if not holder:
            raise key_invalid()
        return holder

    # --- owners ------------------------------------------------------------------------------------

    async def register_owner(self, request: lapi.RegisterOwnerRequest, ctx: CallContext) -> lapi.RegisterOwnerResponse:
        name = request.name.strip()
        if not name:
            raise err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "an owner needs a name")
        _check_text("name", name, MAX_NAME)
        check_request_id(request.request_id)
        owner_id, key = new_id("o"), new_key("owner")
        fingerprint = _fingerprint(name_key(name))
        request_key = ladder_key("request", _fingerprint("owner", request.request_id) if request.request_id else "-")
        now = await self.time_ms()
        fields = {"id": owner_id, "name": name, "registered_at": str(now), "key_hash": token_hash(key), "closed": "0"}
        tag = await self.address_tags.tag(ctx.client) if self.address_tags else None
        reply = await self._register_owner(
            keys=[ladder_key("owner_names"), ladder_key("owner", owner_id), ladder_key("owner_keys"), request_key,
                  *([ladder_key("address", tag)] if tag else [])],
            args=[name_key(name), owner_id, token_hash(key), f"{owner_id} {fingerprint}" if request.request_id else "",
                  str(REQUEST_TTL_SECONDS), str(self.related_window_ms), *_flat(fields)])
        outcome = text_of(reply[0])
        if outcome == "NAME_TAKEN":
            raise err(StatusCode.ALREADY_EXISTS, "NAME_TAKEN", f"an owner named {name!r} is registered already")
        if outcome == "AGAIN":  # a retry: the same owner, no key (its key went to the first caller only)
            owner_id = self._same_request(text_of(reply[1]), fingerprint, request.request_id)
            log.info("ladder_owner_registered", owner_id=owner_id, again=True)
            return lapi.RegisterOwnerResponse(owner=await self._owner(owner_id), key_withheld=True)
        log.info("ladder_owner_registered", owner_id=owner_id, name=name, again=False)
        return lapi.RegisterOwnerResponse(owner=await self._owner(owner_id), owner_key=key)

    async def get_owner(self, request: lapi.GetOwnerRequest, ctx: CallContext) -> lapi.GetOwnerResponse:
        if not request.owner_id:
            raise err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "owner_id is required")
        return lapi.GetOwnerResponse(owner=await self._owner(request.owner_id))

    async def _owner(self, owner_id: str) -> lapi.LadderOwner:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(ladder_key("owner", owner_id))
            pipe.lrange(ladder_key("owner", owner_id, "players"), 0, -1)
            fields, players = await pipe.execute()
        fields = {text_of(k): text_of(v) for k, v in fields.items()}
        if not fields:
            raise err(StatusCode.NOT_FOUND, "OWNER_NOT_FOUND", f"there is no owner {owner_id!r}")
        owner = lapi.LadderOwner(owner_id=owner_id, name=fields["name"], player_ids=[text_of(p) for p in players],
                                 closed=fields.get("closed") == "1")
        owner.registered_at.CopyFrom(convert.timestamp(fields["registered_at"]))
        return owner

    async def rotate_owner_key(self, request: lapi.RotateOwnerKeyRequest, ctx: CallContext) -> lapi.RotateOwnerKeyResponse:
        owner_id, retried = await self._owner_caller(request.owner_id, ctx, request.request_id)
        if retried:  # the key went to the first caller only
            return lapi.RotateOwnerKeyResponse(key_withheld=True)
        key = new_key("owner")
        await self._replace_key("owner", owner_id, token_hash(key), self._rotation_record(
            "owner", owner_id, request.request_id, ctx))
        log.info("ladder_key_rotated", owner_id=owner_id)
        return lapi.RotateOwnerKeyResponse(owner_key=key)

    async def revoke_owner_key(self, request: lapi.RevokeOwnerKeyRequest, ctx: CallContext) -> lapi.RevokeOwnerKeyResponse:
        owner_id, _ = await self._owner_caller(request.owner_id, ctx)
        for _ in range(16):
            players = [text_of(p) for p in await self.redis.lrange(ladder_key("owner", owner_id, "players"), 0, -1)]
            revoked = await self._close_owner(
                keys=[ladder_key("owner", owner_id), ladder_key("owner_keys"), ladder_key("keys"),
                      ladder_key("owner", owner_id, "players"), *(ladder_key("player", p) for p in players)],
                args=[token_hash(ctx.token or ""), str(len(players))])
            if revoked == -2:
                raise key_invalid()
            if revoked >= 0:
                log.info("ladder_owner_closed", owner_id=owner_id, player_keys_revoked=revoked)
                return lapi.RevokeOwnerKeyResponse(player_keys_revoked=revoked)
        raise err(StatusCode.ABORTED, "CONTENTION", "the owner's players changed too often while closing it; retry")

    async def _owner_caller(self, owner_id: str, ctx: CallContext, request_id: str = "") -> tuple[str, bool]:
        """The owner a key call acts on, checked against the caller's key, and whether the call is the retry
        of a rotation (made with the same request id and the same, now old, key: it gets no key)."""
        if not owner_id:
            raise err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "owner_id is required")
        check_request_id(request_id)
        if await self._retried_rotation("owner", owner_id, request_id, ctx):
            return owner_id, True
        if await self.owner_of_key(ctx.token) != owner_id:
            raise key_invalid()
        return owner_id, False

    # --- players -----------------------------------------------------------------------------------

    async def register_player(self, request: lapi.RegisterPlayerRequest, ctx: CallContext) -> lapi.RegisterPlayerResponse:
        for retired, value, instead in (("owner", request.owner, "a player's owner is the owner whose key registers it"),
                                        ("api_key", request.api_key, "the service draws every API key; a retry is "
                                                                     "made safe by request_id")):
            if value:
                raise err(StatusCode.INVALID_ARGUMENT, "FIELD_RETIRED", f"{retired} is no longer taken: {instead}")
        name = request.name.strip()
        if not name:
            raise err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "a player needs a name")
        _check_text("name", name, MAX_NAME)
        _check_text("description", request.description, MAX_DESCRIPTION, TEXT_LAYOUT)
        check_request_id(request.request_id)
        owner_id = await self.owner_of_key(ctx.token)
        owner_name, group = map(text_of, await self.redis.hmget(ladder_key("owner", owner_id), "name", "group"))
        player_id, key = new_id("p"), new_key()
        fingerprint = _fingerprint(name_key(name), request.description)
        request_key = ladder_key("request", _fingerprint("player", owner_id, request.request_id)
                                 if request.request_id else "-")
        fields = {"id": player_id, "name": name, "description": request.description, "owner": owner_name or "",
                  "owner_id": owner_id, "group": group or owner_id, "registered_at": str(await self.time_ms()),
                  "key_hash": token_hash(key), "concurrency": "1", **self.fresh_fields}
        reply = await self._register_player(
            keys=[ladder_key("names"), ladder_key("player", player_id), ladder_key("keys"), ladder_key("board"),
                  ladder_key("owner", owner_id, "players"), request_key, ladder_key("owner", owner_id)],
            args=[name_key(name), player_id, token_hash(key), self.fresh_score, str(self.players_per_owner),
                  f"{player_id} {fingerprint}" if request.request_id else "", str(REQUEST_TTL_SECONDS),
                  token_hash(ctx.token or ""), *_flat(fields)])
        outcome = text_of(reply[0])
        if outcome == "NAME_TAKEN":
            raise err(StatusCode.ALREADY_EXISTS, "NAME_TAKEN", f"a player named {name!r} is registered already")
        if outcome == "QUOTA":
            raise err(StatusCode.RESOURCE_EXHAUSTED, "PLAYER_QUOTA",
                      f"this owner has registered {self.players_per_owner} players, the most one owner may")
        if outcome == "KEY_INVALID":
            raise key_invalid()
        if outcome == "AGAIN":  # a retry with the owner key (checked again): the same player, a new key, as
            # RotatePlayerKey would give the owner; the lost answer's key stops working
            player_id = self._same_request(text_of(reply[1]), fingerprint, request.request_id)
            key = new_key()
            await self._replace_key("player", player_id, token_hash(key))
        log.info("ladder_registered", player_id=player_id, owner_id=owner_id, name=name, again=outcome == "AGAIN")
        return lapi.RegisterPlayerResponse(player=await self.describe(player_id), api_key=key)

    async def rotate_player_key(self, request: lapi.RotatePlayerKeyRequest,
                                ctx: CallContext) -> lapi.RotatePlayerKeyResponse:
        player_id, retried = await self._player_caller(request.player_id, ctx, request.request_id)
        if retried:  # the key went to the first caller only
            return lapi.RotatePlayerKeyResponse(key_withheld=True)
        key = new_key()
        await self._replace_key("player", player_id, token_hash(key), self._rotation_record(
            "player", player_id, request.request_id, ctx))
        log.info("ladder_key_rotated", player_id=player_id)
        return lapi.RotatePlayerKeyResponse(api_key=key)

    async def revoke_player_key(self, request: lapi.RevokePlayerKeyRequest,
                                ctx: CallContext) -> lapi.RevokePlayerKeyResponse:
        player_id, _ = await self._player_caller(request.player_id, ctx)
        await self._replace_key("player", player_id, "")
        log.info("ladder_key_revoked", player_id=player_id)
        return lapi.RevokePlayerKeyResponse()

    async def _player_caller(self, player_id: str, ctx: CallContext, request_id: str = "") -> tuple[str, bool]:
        """The player a key call acts on, checked against the caller's key: the player's own, or its owner's;
        and whether the call is the retry of a rotation (made with the same request id and key: it gets no key)."""
        if not player_id:
            raise err(StatusCode.INVALID_ARGUMENT, "MISSING_FIELD", "player_id is required")
        check_request_id(request_id)
        owner_id = text_of(await self.redis.hget(ladder_key("player", player_id), "owner_id"))
        if owner_id is None and not await self.redis.exists(ladder_key("player", player_id)):
            raise err(StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND", f"there is no player {player_id!r}")
        if await self._retried_rotation("player", player_id, request_id, ctx):
            return player_id, True
        if ctx.token:  # any key, by its hash: a key chosen before keys were drawn may still rotate itself
            digest = token_hash(ctx.token)
            if text_of(await self.redis.hget(ladder_key("keys"), digest)) == player_id or (
                    owner_id and text_of(await self.redis.hget(ladder_key("owner_keys"), digest)) == owner_id):
                return player_id, False
        if not ctx.token:
            raise err(StatusCode.UNAUTHENTICATED, "KEY_MISSING", "this call needs the player's API key or its "
                      "owner's key: send 'authorization: Bearer <key>'")
        raise key_invalid()

    # --- keys and request ids ----------------------------------------------------------------------

    def _rotation_record(self, kind: str, holder: str, request_id: str, ctx: CallContext) -> tuple[str, str] | None:
        """(request key, record) of a rotation made with a request id: the key it was made with, hashed."""
        if not request_id:
            return None
        return (ladder_key("request", _fingerprint("rotate", kind, holder, request_id)),
                f"{holder} {_fingerprint(token_hash(ctx.token or ''))}")

    async def _retried_rotation(self, kind: str, holder: str, request_id: str, ctx: CallContext) -> bool:
        """Whether this call repeats a rotation made with the same request id and the same (now old) key."""
        if not request_id:
            return False
        request_key, record = self._rotation_record(kind, holder, request_id, ctx) or ("", "")
        earlier = text_of(await self.redis.get(request_key))
        if earlier is None:
            return False
        if not hmac.compare_digest(earlier, record):
            raise err(StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED",
                      f"request_id {request_id!r} was already used for a different request")
        log.info("request_replayed")
        return True

    async def _replace_key(self, kind: str, holder: str, digest: str, record: tuple[str, str] | None = None) -> None:
        table = "keys" if kind == "player" else "owner_keys"
        request_key, value = record or (ladder_key("request", "-"), "")
        if not await self._set_key(keys=[ladder_key(kind, holder), ladder_key(table), request_key],
                                   args=[holder, digest, value, str(REQUEST_TTL_SECONDS)]):
            raise err(StatusCode.FAILED_PRECONDITION, "OWNER_CLOSED",
                      f"the {kind} {holder!r} is closed: its owner revoked its key")

    @staticmethod
    def _same_request(record: str, fingerprint: str, request_id: str) -> str:
        """The id a request id made the first time, if this request is the same one."""
        made, _, earlier = record.partition(" ")
        if not hmac.compare_digest(earlier, fingerprint):
            raise err(StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED",
                      f"request_id {request_id!r} was already used for a different request")
        log.info("request_replayed")
        return made


def _flat(fields: dict[str, str]) -> list[str]:
    return [item for pair in fields.items() for item in pair]


__all__ = ["Accounts", "KEY_INVALID_MESSAGE", "MAX_DESCRIPTION", "MAX_NAME", "MAX_REQUEST_ID", "REQUEST_TTL_SECONDS",
           "key_invalid", "ladder_key", "new_key"]
