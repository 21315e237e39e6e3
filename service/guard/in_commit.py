"""Rate limits checked by the script that commits the call: a SubmitAction is one Redis round trip.

A call whose RPC's row says so (``service.guard.call_guard.RPC_TABLE``: SubmitAction, Resign) is not
checked before it runs. The transport hands the match
core an :class:`InCommitAdmission` (``CallContext.admission``), and the core's commit script runs its
checks first, in the same script (``service.store.match_store.Precheck``): the library's own sliding
window scripts on the library's own keys (:data:`ADMIT_LUA`), then, if every check allows it, the commit.
A refused check writes nothing of the commit; the call is refused ``RATE_LIMITED`` as before.

A call that ends without a commit (an illegal action, a wrong token, the answer to a request id already
applied) has its checks made after it, as any other call's (:meth:`InCommitAdmission.settle`: one round
trip), and a refusal there replaces the call's own answer, so a client over its limit is told so
whatever it sent. A client refused is refused again in the process without Redis until its wait is over
(:meth:`service.guard.rate_limits.RateLimits.refused_lately`), so a flood over a limit costs the work
of at most one call per process and wait. On a Redis Cluster the limits' keys live in other slots than
the match's: the checks are made before the call there, as for every other RPC.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from limits.aio.storage.redis.bridge import RedisBridge

from service.errors import ServiceError
from service.guard.rate_limits import Check, RateLimits
from service.store.match_store import Precheck

def _library_script(name: str, source: bytes) -> str:
    return f"local function {name}(KEYS, ARGV)\n{source.decode()}\nend\n"


#: Lua: ``admit(KEYS, ARGV)`` runs the checks of a call: per check three ARGV (``hit`` or ``test``, the
#: rate's amount, its window in seconds) and two KEYS (the library's previous and current window).
#: Every ``hit`` is counted, as :meth:`RateLimits.check` counts them; returns the number (from 1) of
#: the first check that refuses, or nil. A ``test`` weighs the windows as the library's
#: ``SlidingWindowCounterRateLimiter.test`` does (``service.guard.rate_limits.RateLimits._allowed``).
ADMIT_LUA = (_library_script("acquire", RedisBridge.SCRIPT_ACQUIRE_SLIDING_WINDOW)
             + _library_script("window", RedisBridge.SCRIPT_SLIDING_WINDOW) + """
local function admit(KEYS, ARGV)
  local refused = nil
  for i = 1, #ARGV / 3 do
    local kind, amount, expiry = ARGV[3 * i - 2], tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
    local keys = {KEYS[2 * i - 1], KEYS[2 * i]}
    local allowed
    if kind == 'hit' then
      allowed = acquire(keys, {amount, expiry, 1})
    else
      local w = window(keys, {expiry})
      local previous_ttl = math.max(0, tonumber(w[2]) or 0)
      allowed = (tonumber(w[1]) or 0) * previous_ttl / (expiry * 1000) + (tonumber(w[3]) or 0) < amount
    end
    if not allowed and not refused then refused = i end
  end
  return refused
end
""")


class InCommitAdmission:
    """The rate-limit checks of one call, for its commit script to run (:meth:`take`) or, if the call
    commits nothing, for :meth:`settle`. Each check is counted once, whichever does it."""

    def __init__(self, limits: RateLimits, checks: Sequence[Check]) -> None:
        self.limits = limits
        self.checks = list(checks)
        self.planned = limits.plan(checks)
        self.sent = not self.planned

    def take(self) -> Precheck | None:
        """The checks for a commit script, the first time (later commits of the same call: None)."""
        if self.sent:
            return None
        self.sent = True
        keys: list[str] = []
        args: list[Any] = []
        for kind, name, item, client, _ in self.planned:
            keys += self.limits.window_keys(item, name, client)
            args += [kind, item.amount, item.get_expiry()]
        return Precheck(ADMIT_LUA, keys, args)

    async def refusal(self, check: int) -> ServiceError:
        """The refusal of the check numbered ``check`` (from 1) that the commit script refused."""
        _, name, item, client, who = self.planned[check - 1]
        return await self.limits.refusal(name, item, client, who)

    async def settle(self) -> None:
        """The checks of a call that committed nothing, made now (raises their refusal)."""
        if not self.sent:
            self.sent = True
            await self.limits.check(self.checks)


__all__ = ["ADMIT_LUA", "InCommitAdmission"]
