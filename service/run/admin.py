"""``typhoon admin``: what an operator does to the matches of a Redis, beside the service.

``typhoon admin abort MATCH_ID...`` ends live matches without a result, as a clock does when a side
makes no first action: ``match_aborted`` (blaming no side, with the operator's reason), then
``seed_revealed``, in one commit (:func:`service.match.clock.end_without_result`). Their players' next calls
are refused ``MATCH_ABORTED``, the match is compacted like any ended match, and ``typhoon replay
verify`` checks it. A match already over is left as it is.

``typhoon admin abort --other-ruleset`` aborts every live match started under another ruleset than
this engine's (``service.match.rulesets``): the service shows such a match but can never continue it, and
one without a clock would otherwise stay live forever (a clocked one is aborted when its time runs
out).

It works on Redis directly, with the service running or not: ``--redis-url``, else the embedded
Redis of ``--data-dir`` (through the socket of the service running on it, or started here for the
command when none is).
"""

from __future__ import annotations

import argparse
import asyncio

from engine.ruleset import played
from service.match import rulesets
from service.match.clock import end_without_result
from service.run import backup
from service.run import operator_redis
from service.run.operator_redis import redis_of
from service.store.credentials import password_from_file
from service.store.match_store import INDEX_KEY, LIVE, Store, key, text_of

#: The reason recorded for an operator's abort when none is given.
DEFAULT_REASON = "aborted by the operator"
#: Tries of one abort against a match that keeps changing under it.
TRIES = 16
#: Matches read per round trip when looking for those of another ruleset.
CHUNK = 500


async def abort_match(store: Store, match_id: str, reason: str = "") -> str:
    """Abort a live match: "aborted", "over" (already finished or aborted: nothing is written),
    "not found", or "busy" (it changed under every try). Without a ``reason``, a match of another
    ruleset gets the clock's sentence for it, any other :data:`DEFAULT_REASON`."""
    for _ in range(TRIES):
        snapshot = await store.load(match_id)
        if snapshot is None:
            return "not found"
        if snapshot.meta.get("status") not in LIVE:
            return "over"
        why = reason or (DEFAULT_REASON if rulesets.playable(snapshot.meta)
                         else rulesets.changed_sentence(snapshot.meta))
        if await end_without_result(store, snapshot, await store.time_ms(), "", why, by_operator=True):
            return "aborted"
    return "busy"


async def live_of_other_rulesets(store: Store) -> list[str]:
    """Every live match started under another ruleset than this engine's, oldest first."""
    found, start = [], 0
    while True:
        members = await store.redis.zrange(INDEX_KEY, start, start + CHUNK - 1)
        if not members:
            return found
        ids = [text_of(member).partition(":")[2] for member in members]
        async with store.redis.pipeline(transaction=False) as pipe:
            for match_id in ids:
                pipe.hmget(key(match_id, "meta"), "status", "ruleset")
            replies = await pipe.execute()
        found += [match_id for match_id, (status, ruleset) in zip(ids, replies)
                  if text_of(status) in LIVE and not rulesets.known(rulesets.number(text_of(ruleset)))]
        start += CHUNK


async def _abort(url: str, match_ids: list[str], other_ruleset: bool, reason: str, password: str | None = None) -> int:
    store = Store.from_url(url, password=password)
    try:
        if other_ruleset:
            found = await live_of_other_rulesets(store)
            print(f"{len(found)} live match{'es' if len(found) != 1 else ''} of a ruleset this engine does not "
                  f"play (it plays {played()})")
            match_ids = [*match_ids, *(m for m in found if m not in match_ids)]
        outcomes = [(match_id, await abort_match(store, match_id, reason)) for match_id in match_ids]
    finally:
        await store.close()
    for match_id, outcome in outcomes:
        print(f"{match_id}: {'already over' if outcome == 'over' else outcome}")
    return 0 if all(outcome in ("aborted", "over") for _, outcome in outcomes) else 1


def _admin_abort(args: argparse.Namespace) -> int:
    if not args.match_ids and not args.other_ruleset:
        print("typhoon admin abort: name the matches to abort, or give --other-ruleset")
        return 2
    from service.run.server import configure_logging

    configure_logging("warning")  # the lines printed are the report; warnings go to stderr
    with redis_of(args.redis_url, args.data_dir) as url:
        return asyncio.run(_abort(url, args.match_ids, args.other_ruleset, args.reason,
                                  password_from_file(args.redis_password_file)))


def register(commands: argparse._SubParsersAction) -> None:
    admin = commands.add_parser("admin")
    actions = admin.add_subparsers(dest="action", required=True)
    abort = actions.add_parser("abort", help="end live matches without a result (match_aborted, no side blamed)")
    abort.add_argument("match_ids", nargs="*", metavar="MATCH_ID")
    abort.add_argument("--other-ruleset", action="store_true",
                       help=f"also every live match started under a ruleset this engine does not play "
                            f"(it plays {played()})")
    abort.add_argument("--reason", default="",
                       help=f"the reason recorded (default: '{DEFAULT_REASON}'; for a match of another "
                            "ruleset, the sentence saying so)")
    operator_redis.add_arguments(abort)
    abort.set_defaults(run=_admin_abort)
    backup.register(actions)
