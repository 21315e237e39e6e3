"""The flood: one client, one address, as fast as it can: owners and players registered, illegal
actions from one seat, wrong seat tokens in a row (then the right one), matches created.

The registrations go first: the wrong tokens leave the address refused on every call that checks a key
(``key_failures``), a player's registration among them (it checks the owner's key), so registering
after them would measure that block, not the registration limits.

Each part runs for a quarter of the attack's time, through clients that never wait on a refusal
(``rate_limit_patience=0``), a few threads at once where that is faster. What each part got: the
calls sent, those the service did (created, registered, evaluated), the refusals by reason, and for
matches Redis's memory before and after (the embedded Redis of ``loadtests.abuse``).
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import redis

from clients.client import TyphoonClient, TyphoonError
from clients.ladder import LadderClient

if TYPE_CHECKING:  # the package lists this module: importing it back would make a circle
    from loadtests.attacks import Target

NAME = "flood"
SUMMARY = "one address: illegal actions from one seat, wrong tokens in a row, matches and players as fast as it can"
THREADS = 4
#: An action no position allows (no such unit): refused by the rules, never applied.
ILLEGAL = {"type": "move", "unit": "no-such-unit", "to": "0101"}


def _flood(seconds: float, call: Callable[[], Any], threads: int = 1) -> Counter:
    """Call ``call`` from ``threads`` threads until ``seconds`` have passed; the outcomes by reason
    (``OK`` for an answer)."""
    deadline = time.monotonic() + seconds

    def loop() -> Counter:
        outcomes: Counter = Counter()
        while time.monotonic() < deadline:
            try:
                call()
                outcomes["OK"] += 1
            except TyphoonError as error:
                outcomes[error.reason or error.code.name] += 1
        return outcomes

    with ThreadPoolExecutor(threads) as pool:
        return sum((future.result() for future in [pool.submit(loop) for _ in range(threads)]), Counter())


def _redis_memory_mb(target: Target) -> float | None:
    """The used memory of the service's embedded Redis (its socket in ``--data-dir``), in MB."""
    args = target.service.args
    if "--data-dir" not in args:
        return None
    sock = Path(args[args.index("--data-dir") + 1]) / "redis.sock"
    if not sock.exists():
        return None
    client = redis.Redis(unix_socket_path=str(sock))
    try:
        return round(client.info("memory")["used_memory"] / 2**20, 1)
    finally:
        client.close()


def _figures(prefix: str, outcomes: Counter, seconds: float, done: str) -> dict[str, Any]:
    sent = sum(outcomes.values())
    refused = {reason: count for reason, count in outcomes.most_common() if reason != "OK"}
    return {f"{prefix} sent": sent, f"{prefix} {done}": outcomes["OK"],
            f"{prefix} {done}/s": round(outcomes["OK"] / seconds, 1), f"{prefix} refused": refused or "none"}


def run(target: Target, seconds: float) -> dict[str, Any]:
    part = seconds / 4
    figures: dict[str, Any] = {}
    client = TyphoonClient(target.grpc, rate_limit_patience=0, retries=0)
    ladder = LadderClient(target.grpc, rate_limit_patience=0, retries=0)
    try:
        match, tokens = client.create_match(seats=["german", "soviet"])

        # 1. ladder players registered as fast as it can, each under an owner of its own (an owner may have
        # only a few players), so an owner and a player each
        registered = _flood(part, lambda: ladder.register_with_owner("flood-" + secrets.token_hex(6)), THREADS)
        figures |= _figures("owners and players:", registered, part, "registered")

        # 2. illegal actions from one seat (the German's: it is the German's turn)
        illegal = _flood(part, lambda: client.submit(match.match_id, tokens["german"], ILLEGAL), THREADS)
        figures |= _figures("illegal actions:", illegal, part, "evaluated")
        del figures["illegal actions: evaluated"], figures["illegal actions: evaluated/s"]
        evaluated = sum(count for reason, count in illegal.items() if reason != "RATE_LIMITED")
        figures["illegal actions: evaluated by the rules"] = evaluated

        # 3. wrong seat tokens in a row against that match, then the right one
        wrong = _flood(part, lambda: client.resign(match.match_id, secrets.token_urlsafe(32)))
        figures["wrong tokens: sent"] = sum(wrong.values())
        figures["wrong tokens: checked (UNAUTHENTICATED)"] = wrong["TOKEN_INVALID"]
        figures["wrong tokens: refused unchecked"] = {r: n for r, n in wrong.items() if r != "TOKEN_INVALID"} or "none"
        try:
            client.legal_actions(match.match_id)
            client.submit(match.match_id, tokens["german"], client.legal_actions(match.match_id).actions[0])
            figures["right token after them"] = "accepted"
        except TyphoonError as error:
            figures["right token after them"] = error.reason

        # 4. matches created as fast as it can
        before = _redis_memory_mb(target)
        created = _flood(part, lambda: client.create_match(), THREADS)
        figures |= _figures("matches:", created, part, "created")
        after = _redis_memory_mb(target)
        if before is not None and after is not None:
            figures["matches: Redis MB before/after"] = f"{before}/{after}"
    finally:
        client.close()
        ladder.close()
    return figures
