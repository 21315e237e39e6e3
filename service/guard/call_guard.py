"""What both transports ask before a call reaches the match core or the ladder, and tell after a refusal.

Per RPC (:data:`RPC_LIMITS`), before the call:

1. a call that adds to the store for good (:data:`ADDS_TO_STORE`) is refused with ``STORE_FULL`` while
   Redis is past its high-water mark (:mod:`service.guard.store_capacity`);
2. a call whose seat token or API key is checked (:data:`KEY_CHECKED`) is refused with ``RATE_LIMITED``
   (limit ``key_failures``) while its address has had too many tokens or keys refused lately, even if
   this one is right: a guesser waits, whatever it guesses;
3. the call is counted against its limit, by the hash of its seat token or API key where the limit
   counts credentials and the call has one, else by its client address.

After a call refused UNAUTHENTICATED for a token or key that is wrong (any reason but ``*_MISSING``),
its address is counted against ``key_failures``. The match core knows nothing of this: the
transports call :meth:`RpcGuard.admit` and :meth:`RpcGuard.refused` around every call.

>>> guard = CallGuard(limits=None, capacity=None)
>>> guard.for_rpc("GetMatch").active, guard.for_rpc("SubmitAction").limit
(False, None)
"""

from __future__ import annotations

from collections.abc import Iterable

from grpc import StatusCode

from service.errors import ServiceError
from service.guard.addresses import TrustedProxies, counted_as
from service.guard.in_commit import IN_COMMIT, InCommitAdmission
from service.guard.limit_settings import BY_NAME, LimitSettings
from service.guard.rate_limits import Check, RateLimits, credential_key, limiter_storage
from service.guard.store_capacity import StoreCapacity
from service.store.match_store import Store

#: RPC -> (its limit, how a refusal names the credential it counts by).
RPC_LIMITS: dict[str, tuple[str, str]] = {
    "CreateMatch": ("create_match", ""),
    "JoinMatch": ("join_match", ""),
    "RegisterPlayer": ("register_player", ""),
    "RegisterOwner": ("register_owner", ""),  # the ladder's owner accounts (issue 26, point 3)
    "Seek": ("seek", "with this API key"),
    "SubmitAction": ("submit_action", "for this seat"),
    "Resign": ("resign", "for this seat"),
    "WatchMatch": ("watch", ""),
}
#: RPC -> a limit counted by the client's address besides its own (issue 34, point 7: per client, not per seat).
BY_CLIENT_TOO: dict[str, str] = {"SubmitAction": "client_actions"}
#: The RPCs that check a seat token or a ladder key (the REST routes ``authenticated`` or taking ``keys``).
KEY_CHECKED = frozenset({"SubmitAction", "Resign", "Seek", "RegisterPlayer", "RotatePlayerKey", "RevokePlayerKey",
                         "RotateOwnerKey", "RevokeOwnerKey"})
#: The RPCs that add to the store for good, refused while it is nearly full (Seek: the ladder's matches).
ADDS_TO_STORE = frozenset({"CreateMatch", "RegisterPlayer", "RegisterOwner", "Seek"})
FROM_ADDRESS = "from this address"


class RpcGuard:
    """The guard of one RPC (see the module)."""

    def __init__(self, rpc: str, limits: RateLimits | None, capacity: StoreCapacity | None) -> None:
        self.rpc = rpc
        self.limits = limits
        self.capacity = capacity if rpc in ADDS_TO_STORE else None
        name, self._credential_words = RPC_LIMITS.get(rpc, (None, ""))
        self.limit = name if limits is not None and name and limits.enabled(name) else None
        self._by_credential = bool(self.limit) and BY_NAME[name].identity == "credential"
        self._key_checked = rpc in KEY_CHECKED and limits is not None and limits.enabled("key_failures")
        self._counts_failures = limits is not None and limits.enabled("key_failures")
        also = BY_CLIENT_TOO.get(rpc)
        self._by_client_too = also if limits is not None and also and limits.enabled(also) else None
        #: whether admit() has anything to do (the calls it has not cost nothing)
        self.active = bool(self.limit or self._key_checked or self.capacity or self._by_client_too)
        self._in_commit = rpc in IN_COMMIT and limits is not None and limits.lane is not None

    async def admit(self, token: str | None, address: str) -> InCommitAdmission | None:
        """Before the call: raises STORE_FULL or RATE_LIMITED (or STORE_UNAVAILABLE for a limit that is
        closed while Redis is away). Its checks go to Redis in one round trip; for an RPC whose commit
        checks them (:mod:`service.guard.in_commit`), they are returned instead, for the call's
        ``CallContext.admission``."""
        if not self.active:
            return None
        if self.capacity is not None:
            self.capacity.check(self.rpc)
        checks: list[Check] = []
        if self._key_checked and token:
            checks.append(("test", "key_failures", counted_as(address), FROM_ADDRESS))
        if self.limit:
            if self._by_credential and token:
                checks.append(("hit", self.limit, credential_key(token), self._credential_words))
            else:
                checks.append(("hit", self.limit, counted_as(address), FROM_ADDRESS))
        if self._by_client_too:
            checks.append(("hit", self._by_client_too, counted_as(address), FROM_ADDRESS))
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

    async def refused(self, error: ServiceError, address: str,
                      admission: InCommitAdmission | None = None) -> ServiceError:
        """After the call was refused with ``error``: a wrong token or key counts against its address.
        Returns the refusal to answer: that of the call's checks its commit did not make, if they refuse."""
        if admission is not None:
            try:
                await admission.settle()
            except ServiceError as refusal:
                return refusal
        if self._counts_failures and error.code == StatusCode.UNAUTHENTICATED and not error.reason.endswith("_MISSING"):
            await self.limits.record("key_failures", counted_as(address))
        return error


class CallGuard:
    """The guards of every RPC, and whose ``X-Forwarded-For`` to believe (:class:`TrustedProxies`).
    ``limits`` None: no rate limit; ``capacity`` None: the store is never judged full."""

    def __init__(self, limits: RateLimits | None, capacity: StoreCapacity | None,
                 trusted_proxies: Iterable[str] = ()) -> None:
        self.limits = limits
        self.capacity = capacity
        self.proxies = TrustedProxies(trusted_proxies)
        self._guards: dict[str, RpcGuard] = {}

    def for_rpc(self, rpc: str) -> RpcGuard:
        if rpc not in self._guards:
            self._guards[rpc] = RpcGuard(rpc, self.limits, self.capacity)
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
        limits = RateLimits(limiter_storage(store), settings, None if store.clustered else store.lane) if enabled else None
        return cls(limits, StoreCapacity(store, high_water), trusted_proxies)


#: A guard that limits nothing (a core served without one: some tests, tools).
NO_GUARD = CallGuard(limits=None, capacity=None)


__all__ = ["ADDS_TO_STORE", "BY_CLIENT_TOO", "CallGuard", "KEY_CHECKED", "NO_GUARD", "RPC_LIMITS", "RpcGuard"]
