"""What both transports ask before a call reaches the match core or the ladder, and tell after a refusal.

Every RPC has a row in :data:`RPC_TABLE`: its cost class (:class:`Cost`: what its work grows with)
and its admission. Per RPC, before the call:

1. a call that adds to the store for good (:data:`ADDS_TO_STORE`) is refused with ``STORE_FULL`` while
   Redis is past its high-water mark (:mod:`service.guard.store_capacity`);
2. a call whose seat token or API key is checked (:data:`KEY_CHECKED`) is refused with ``RATE_LIMITED``
   (limit ``key_failures``) while its address has had too many tokens or keys refused lately, even if
   this one is right: a guesser waits, whatever it guesses;
3. the call is counted against its limit, by the hash of its seat token or API key where the limit
   counts credentials and the call has one, else by its client address;
4. a call that opens a stream (:data:`STREAM_OPENS`), once its client is within its own limits, is
   counted against ``stream_opens``, what this process admits of every client together, in its own
   memory: a storm of watchers from many addresses is let in gradually (each refused one told its own
   turn to retry: :mod:`service.guard.stream_opens`), so the process's event loop, its Redis
   connections and its readiness stay with play. While the limit is reached a stream open is refused
   before any Redis check: a storm's refusals cost no round trip.

After a call refused UNAUTHENTICATED for a token or key that is wrong (any reason but ``*_MISSING``),
or refused for a token the core found holding nothing (``ServiceError.wrong_credential``: JoinMatch's
NO_FREE_SEAT or SEAT_TAKEN to a chosen token, the answer a right token would not get), its address is
counted against ``key_failures``, **once per wrong token** within the limit's window: a client that
retries a stale token forever does not lock its address (and the right token with it) out, while a
guesser, whose every try is a new token, is counted at each. JoinMatch is admitted only while its address
is not locked, whatever token it brings. The match core knows nothing of this: the transports call
:meth:`RpcGuard.admit` and :meth:`RpcGuard.refused` around every call.

A :attr:`Cost.HISTORY` call (VerifyMatch, GetMatch with a ``version``) is admitted where its cost is
known, once the match's length is read: by the history pool (:mod:`service.guard.history_pool`), which
the match core hands the work to.

>>> guard = CallGuard(limits=None, capacity=None)
>>> guard.for_rpc("GetMatch").active, guard.for_rpc("SubmitAction").limit
(False, None)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from grpc import StatusCode

from service.errors import ServiceError
from service.guard.addresses import TrustedProxies, counted_as
from service.guard.in_commit import InCommitAdmission
from service.guard.limit_settings import BY_NAME, LimitSettings
from service.guard.rate_limits import Check, RateLimits, credential_key, limiter_storage
from service.guard.store_capacity import StoreCapacity
from service.guard.stream_opens import StreamOpens
from service.store.match_store import Store


class Cost(StrEnum):
    """What the work of a call grows with (its cost class)."""

    #: a few keys read or written, bounded whatever the match or the caller
    FIXED = "fixed"
    #: one page of a list, bounded by its largest page size
    PAGE = "page"
    #: the engine on one position of one match (an action applied and committed, its legal actions)
    PLAY = "play"
    #: adds to the store for good (a match, a seat, an owner, a player): the store guard first
    WRITE = "write"
    #: grows with the match's length (its log re-simulated): off the event loop, in the history pool
    #: (service.guard.history_pool), cached where it cannot change, admitted by its own caps and budget
    HISTORY = "history"
    #: lasts while the client listens (a stream): admitted when it opens
    STREAM = "stream"


@dataclass(frozen=True)
class Admission:
    """One RPC's row of :data:`RPC_TABLE`: its cost class and what admits it before it reaches the core."""

    cost: Cost
    #: the rate limit a call counts against (service.guard.limit_settings), before the call
    limit: str | None = None
    #: how a refusal names the credential the limit counts by ("": the address, "from this address")
    counted_by: str = ""
    #: whether it checks a seat token or a ladder key (then ``key_failures`` applies)
    key_checked: bool = False
    #: whether it adds to the store for good (then ``STORE_FULL`` applies)
    adds_to_store: bool = False
    #: a request field which, when set, makes the call :attr:`Cost.HISTORY` (GetMatch's ``version``)
    history_if: str = ""
    #: admission made elsewhere than here, in words (docs/API.md's table says it)
    elsewhere: str = ""
    #: a limit counted by the client's address besides ``limit`` (a client's actions over all its seats)
    client_limit: str | None = None
    #: its checks run in the script that commits the call (service.guard.in_commit), not before it
    in_commit: bool = False

    def cost_of(self, request: Any) -> Cost:
        """The cost class of this call with ``request``.

        >>> from service.gen.typhoon.v1.match_service_pb2 import GetMatchRequest
        >>> RPC_TABLE["GetMatch"].cost_of(GetMatchRequest(match_id="m", version=3)), RPC_TABLE["GetMatch"].cost
        (<Cost.HISTORY: 'history'>, <Cost.FIXED: 'fixed'>)
        """
        if self.history_if and request is not None and request.HasField(self.history_if):
            return Cost.HISTORY
        return self.cost


_IN_COMMIT = ("its checks run in the script that commits it, before the commit (service.guard.in_commit): one Redis "
              "round trip for the call; one that commits nothing is checked after it; a client refused is refused "
              "again by the process without Redis until its retry time; a repeated request id's first answer is "
              "rebuilt in the history pool")
_STREAM_OPENS = ("stream opens admitted per client (its limit) and in total, each process at stream_opens with each "
                 "refusal's own turn (service.guard.stream_opens); a reader of nothing ended (the transports)")
_POOL = "the history pool: a per-client cap, the history budget, a bounded queue; finished matches cached"

#: Every RPC of the services in proto/typhoon/v1, its cost class and its admission (a test walks the
#: protos and the REST routes: a method without a row fails it).
RPC_TABLE: dict[str, Admission] = {
    # typhoon.v1.MatchService
    "CreateMatch": Admission(Cost.WRITE, "create_match", adds_to_store=True),
    "JoinMatch": Admission(Cost.WRITE, "join_match", key_checked=True, adds_to_store=True),
    "GetMatch": Admission(Cost.FIXED, history_if="version", elsewhere=_POOL + " (with a version)"),
    "ListMatches": Admission(Cost.PAGE),
    "ListLegalActions": Admission(Cost.PLAY),
    # issue 34, point 7: a client's actions are counted over all its seats too (client_actions)
    "SubmitAction": Admission(Cost.PLAY, "submit_action", "for this seat", key_checked=True, elsewhere=_IN_COMMIT,
                              client_limit="client_actions", in_commit=True),
    "Resign": Admission(Cost.PLAY, "resign", "for this seat", key_checked=True, elsewhere=_IN_COMMIT, in_commit=True),
    "GetEventLog": Admission(Cost.PAGE),
    "WatchMatch": Admission(Cost.STREAM, "watch", key_checked=True, elsewhere=_STREAM_OPENS),  # key: a seat's view
    "ListScenarios": Admission(Cost.FIXED),
    "GetScenario": Admission(Cost.FIXED),
    "VerifyMatch": Admission(Cost.HISTORY, elsewhere=_POOL),
    "PreviewBattle": Admission(Cost.PLAY),
    # once a seat, before the first die: counted with its actions
    "ContributeEntropy": Admission(Cost.PLAY, "submit_action", "for this seat", key_checked=True),
    # typhoon.v1.LadderService
    "RegisterOwner": Admission(Cost.WRITE, "register_owner", adds_to_store=True),
    "GetOwner": Admission(Cost.FIXED),
    "RegisterPlayer": Admission(Cost.WRITE, "register_player", key_checked=True, adds_to_store=True),
    "RotatePlayerKey": Admission(Cost.FIXED, key_checked=True),
    "RevokePlayerKey": Admission(Cost.FIXED, key_checked=True),
    "RotateOwnerKey": Admission(Cost.FIXED, key_checked=True),
    "RevokeOwnerKey": Admission(Cost.FIXED, key_checked=True),
    "GetLadder": Admission(Cost.FIXED),
    "Seek": Admission(Cost.STREAM, "seek", "with this API key", key_checked=True, adds_to_store=True,
                      elsewhere=_STREAM_OPENS),
    "GetLeaderboard": Admission(Cost.PAGE),
    "GetPlayer": Admission(Cost.FIXED),
    "ListPlayerMatches": Admission(Cost.PAGE),
}
#: The HTTP routes that are no RPC, all :attr:`Cost.FIXED` (the page's files, health, metrics, the API's description).
OTHER_ROUTES = ("/", "/web", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs", "/docs/static")

#: RPC -> (its limit, how a refusal names the credential it counts by): the rows of :data:`RPC_TABLE` with a limit.
RPC_LIMITS: dict[str, tuple[str, str]] = {rpc: (row.limit, row.counted_by) for rpc, row in RPC_TABLE.items() if row.limit}
#: The RPCs that check a seat token or a ladder key (the REST routes ``authenticated`` or taking ``keys``).
KEY_CHECKED = frozenset(rpc for rpc, row in RPC_TABLE.items() if row.key_checked)
#: Of those, the RPCs whose token is in the request, not the call's metadata: always checked.
TOKEN_IN_REQUEST = frozenset({"JoinMatch"})
#: The RPCs that add to the store for good, refused while it is nearly full (Seek: the ladder's matches).
ADDS_TO_STORE = frozenset(rpc for rpc, row in RPC_TABLE.items() if row.adds_to_store)
FROM_ADDRESS = "from this address"
#: The RPCs that open a stream (on both transports; the :attr:`Cost.STREAM` rows), admitted gradually on each
#: process in total (``stream_opens``).
STREAM_OPENS = frozenset(rpc for rpc, row in RPC_TABLE.items() if row.cost == Cost.STREAM)


class RpcGuard:
    """The guard of one RPC (see the module)."""

    def __init__(self, rpc: str, limits: RateLimits | None, capacity: StoreCapacity | None,
                 opens: StreamOpens | None = None) -> None:
        self.rpc = rpc
        self.limits = limits
        self.opens = opens if rpc in STREAM_OPENS else None
        self.capacity = capacity if rpc in ADDS_TO_STORE else None
        name, self._credential_words = RPC_LIMITS.get(rpc, (None, ""))
        self.limit = name if limits is not None and name and limits.enabled(name) else None
        self._by_credential = bool(self.limit) and BY_NAME[name].identity == "credential"
        self._key_checked = rpc in KEY_CHECKED and limits is not None and limits.enabled("key_failures")
        self._token_in_request = rpc in TOKEN_IN_REQUEST
        self._counts_failures = limits is not None and limits.enabled("key_failures")
        row = RPC_TABLE.get(rpc)
        also = row.client_limit if row else None
        self._by_client = also if limits is not None and also and limits.enabled(also) else None
        #: whether admit() has anything to do (the calls it has not cost nothing)
        self.active = bool(self.limit or self._key_checked or self.capacity or self.opens or self._by_client)
        # on a Redis Cluster (no lane) the limits' keys are in other slots than the match's: checked before
        self._in_commit = bool(row and row.in_commit) and limits is not None and limits.lane is not None

    async def admit(self, token: str | None, address: str) -> InCommitAdmission | None:
        """Before the call: raises STORE_FULL or RATE_LIMITED (or STORE_UNAVAILABLE for a limit that is
        closed while Redis is away). Its checks go to Redis in one round trip; for an RPC whose commit
        checks them (:attr:`Admission.in_commit`), they are returned instead, for the call's
        ``CallContext.admission`` (:mod:`service.guard.in_commit`)."""
        if not self.active:
            return None
        if self.capacity is not None:
            await self.capacity.admit(self.rpc)
        if self.opens is not None:
            await self.opens.reserve()
        try:
            admission = await self._check(token, address)
        except BaseException:
            if self.opens is not None:
                self.opens.release()
            raise
        if self.opens is not None:  # counted only once the client's own limits let it in
            await self.opens.admit()
        return admission

    async def _check(self, token: str | None, address: str) -> InCommitAdmission | None:
        checks: list[Check] = []
        if self._key_checked and (token or self._token_in_request):
            checks.append(("test", "key_failures", counted_as(address), FROM_ADDRESS))
        if self.limit:
            if self._by_credential and token:
                checks.append(("hit", self.limit, credential_key(token), self._credential_words))
            else:
                checks.append(("hit", self.limit, counted_as(address), FROM_ADDRESS))
        if self._by_client:
            checks.append(("hit", self._by_client, counted_as(address), FROM_ADDRESS))
        if not checks:
            return None
        if self._in_commit:
            self.limits.refused_lately(checks)
            return InCommitAdmission(self.limits, checks)
        await self.limits.check(checks)
        return None

    async def settle(self, admission: InCommitAdmission | None) -> None:
        """After a call that succeeded: the checks its commit did not make (raises their refusal)."""
        if admission is not None:
            await admission.settle()

    async def refused(self, error: ServiceError, address: str, token: str | None = None,
                      admission: InCommitAdmission | None = None) -> ServiceError:
        """After the call was refused with ``error``: a wrong token or key (``token``, the call's bearer
        token, or the one the error names) counts against its address, once per token. Returns the
        refusal to answer: that of the call's checks its commit did not make (``admission``), if they
        refuse (a client over its limit is told so, whatever it sent), else ``error``."""
        if admission is not None:
            try:
                await admission.settle()
            except ServiceError as refusal:
                return refusal
        if not self._counts_failures:
            return error
        wrong = error.wrong_credential
        if wrong is None and error.code == StatusCode.UNAUTHENTICATED and not error.reason.endswith("_MISSING"):
            wrong = credential_key(token or "")
        if wrong is not None:
            await self.limits.record_once("key_failures", counted_as(address), wrong)
        return error


class CallGuard:
    """The guards of every RPC, and whose ``X-Forwarded-For`` to believe (:class:`TrustedProxies`).
    ``limits`` None: no rate limit; ``capacity`` None: the store is never judged full."""

    def __init__(self, limits: RateLimits | None, capacity: StoreCapacity | None,
                 trusted_proxies: Iterable[str] = (), opens: StreamOpens | None = None) -> None:
        self.limits = limits
        self.capacity = capacity
        self.opens = opens
        self.proxies = TrustedProxies(trusted_proxies)
        self._guards: dict[str, RpcGuard] = {}

    def for_rpc(self, rpc: str) -> RpcGuard:
        if rpc not in self._guards:
            self._guards[rpc] = RpcGuard(rpc, self.limits, self.capacity, self.opens)
        return self._guards[rpc]

    def client(self, peer: str, forwarded_for: str | None) -> str:
        """The caller's address (see :class:`TrustedProxies`)."""
        return self.proxies.client(peer, forwarded_for)


    @classmethod
    def for_store(cls, store: Store, settings: LimitSettings, high_water: float,
                  trusted_proxies: Iterable[str] = ()) -> CallGuard:
        """The guard of ``typhoon serve``: the limits of ``settings`` counted in ``store``'s Redis, and
        its capacity judged against ``high_water`` (start it: ``guard.capacity.start()``)."""
        enabled = any(settings.enabled(name) for name in BY_NAME)
        limits = RateLimits(limiter_storage(store), settings, None if store.clustered else store.lane,
                            marks=store.redis) if enabled else None
        opens = StreamOpens(settings) if settings.enabled("stream_opens") else None  # on the running loop
        return cls(limits, StoreCapacity(store, high_water), trusted_proxies, opens)


#: A guard that limits nothing (a core served without one: some tests, tools).
NO_GUARD = CallGuard(limits=None, capacity=None)


__all__ = ["ADDS_TO_STORE", "Admission", "CallGuard", "Cost", "KEY_CHECKED", "NO_GUARD", "OTHER_ROUTES", "RPC_LIMITS",
           "RPC_TABLE", "RpcGuard", "STREAM_OPENS", "TOKEN_IN_REQUEST"]
