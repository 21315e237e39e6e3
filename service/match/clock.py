"""Clocks: time controls, what a commit does to a match's clocks, and the sweeper that makes flags fall.

A match created with a :class:`TimeControl` keeps its clocks in its meta hash (``service.store.match_store``)::

    clock:control          {"preset", "initial_ms", "increment_ms", "first_action_ms"} (JSON)
    clock:left:<side>      ms left on the side's clock when the running one started
    clock:running          the side whose time runs (the side to act), "" once the match is over
    clock:first            "1" while the running side has not acted yet (its first-action time runs)
    clock:since            Redis ms when the running time started
    clock:deadline         Redis ms when it is up ("" once the match is over)
    clock:acted            the sides that have acted, comma-separated

and its deadline in a sorted set of deadlines (one of sixteen, in the match's Redis Cluster slot:
``service.store.deadlines``), written by the same Lua script as the match's commit
(:class:`service.store.match_store.Deadline`). Every time is Redis ``TIME``: one clock for every
service process. A move is on time when its commit runs before the deadline (the script checks
``TIME`` against ``clock:deadline`` and refuses it with FLAG otherwise); the side's clock is charged up
to the Redis time read just before that commit (the service's own few milliseconds between the two are
charged to nobody). The flag falls without anyone calling: every service process runs a
:class:`Sweeper` that claims expired deadlines from the sorted sets (with a lease, so a process that
dies mid-way leaves it to another) and applies the engine's ``TimeForfeit`` through the ordinary
commit, which only succeeds once the deadline has passed and only once (the version check). A side
that makes no first action within ``first_action`` gets the match aborted instead (no result).

The log records it all: ``match_created`` carries the time control and (with it) the Redis time the
clocks start; each ``action_submitted`` carries each side's time left and the Redis time of the
action, so anyone can recompute the clocks and check a flag fall (``clients.replay``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import structlog
from grpc import StatusCode
from redis.exceptions import RedisError

import engine
from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2
from engine.seat_entropy import REVEAL
from service.match import rulesets, seat_entropy
from service.match.time_control import PRESETS, SECOND, TimeControl
from service.store import deadlines
from service.store.match_store import LIVE, Deadline, Store, StoredEvent
from service.tasks import stop_task

#: The match service's TimeForfeit of (match id, side): what a flag fall does to a match.
Forfeit = Callable[[str, str], Awaitable[Any]]

log = structlog.get_logger("typhoon.clock")

@dataclass(frozen=True)
class ClockState:
    """A match's clocks as stored in its meta hash (see the module docstring)."""

    control: TimeControl
    left: dict[str, int]
    running: str
    first: bool
    since: int
    deadline: int | None
    acted: frozenset[str]

    @classmethod
    def start(cls, control: TimeControl, sides: list[str], first_side: str, now: int) -> ClockState:
        """The clocks of a new match: the first side's first-action time runs from ``now``."""
        return cls(control, {side: control.initial_ms for side in sides}, first_side, True, now,
                   now + control.first_action_ms, frozenset())

    @classmethod
    def of(cls, meta: dict[str, str]) -> ClockState | None:
        """The clocks of a match (None: it has no time control)."""
        if "clock:control" not in meta:
            return None
        sides = meta["sides"].split(",")
        deadline = meta.get("clock:deadline", "")
        return cls(TimeControl.from_json(json.loads(meta["clock:control"])),
                   {side: int(meta[f"clock:left:{side}"]) for side in sides}, meta.get("clock:running", ""),
                   meta.get("clock:first") == "1", int(meta.get("clock:since") or 0),
                   int(deadline) if deadline else None, frozenset(filter(None, meta.get("clock:acted", "").split(","))))

    def fields(self) -> dict[str, str]:
        out = {f"clock:left:{side}": str(ms) for side, ms in self.left.items()}
        return out | {"clock:control": json.dumps(self.control.to_json()), "clock:running": self.running,
                      "clock:first": "1" if self.first else "0", "clock:since": str(self.since),
                      "clock:deadline": "" if self.deadline is None else str(self.deadline),
                      "clock:acted": ",".join(sorted(self.acted))}

    def after(self, actor: str, next_side: str | None, now: int) -> ClockState:
        """The clocks once ``actor`` has acted at ``now`` and ``next_side`` is to act (None: the game
        is over): the running side is charged its time (unless it was awaiting its first action), the
        actor gains the increment if it was to act and the game goes on, and ``next_side``'s time (or
        first-action time) starts."""
        left = dict(self.left)
        if self.running and not self.first:
            left[self.running] = max(0, left[self.running] - max(0, now - self.since))
        acted = self.acted | {actor}
        if next_side is None:
            return replace(self, left=left, running="", first=False, since=now, deadline=None, acted=acted)
        if actor == self.running:
            left[actor] += self.control.increment_ms
        first = next_side not in acted
        deadline = now + (self.control.first_action_ms if first else left[next_side])
        return replace(self, left=left, running=next_side, first=first, since=now, deadline=deadline, acted=acted)

    def handed_to(self, next_side: str | None, now: int) -> ClockState:
        """The clocks once the game waits for ``next_side`` at ``now`` without an action: a seat's entropy
        commitment or reveal (service.match.seat_entropy), or its end. The running side is charged its
        time (unless it was awaiting its first action); nobody gains an increment or counts as having
        acted. The same clocks when ``next_side`` runs already.

        >>> clocks = ClockState.start(TimeControl(60_000), ["german", "soviet"], "german", 0)
        >>> waiting = clocks.handed_to("soviet", 1_000)
        >>> waiting.running, waiting.first, waiting.deadline, waiting.left
        ('soviet', True, 61000, {'german': 60000, 'soviet': 60000})
        """
        if next_side == self.running:
            return self
        left = dict(self.left)
        if self.running and not self.first:
            left[self.running] = max(0, left[self.running] - max(0, now - self.since))
        if next_side is None:
            return replace(self, left=left, running="", first=False, since=now, deadline=None)
        first = next_side not in self.acted
        deadline = now + (self.control.first_action_ms if first else left[next_side])
        return replace(self, left=left, running=next_side, first=first, since=now, deadline=deadline)

    def to_proto(self) -> match_pb2.Clock:
        clock = match_pb2.Clock(running=self.running, awaiting_first_action=self.first and bool(self.running))
        for side, ms in self.left.items():
            clock.remaining[side].FromMilliseconds(ms)
        clock.since.FromMilliseconds(self.since)
        if self.deadline is not None:
            clock.deadline.FromMilliseconds(self.deadline)
        return clock


def describe(meta: dict[str, str], match: match_pb2.Match) -> None:
    """Fill a Match's time control and clocks from its meta (nothing without a time control)."""
    state = ClockState.of(meta)
    if state is not None:
        match.time_control.CopyFrom(state.control.to_proto())
        match.clock.CopyFrom(state.to_proto())


def time_left_to_proto(data: dict[str, Any], event: match_pb2.MatchEvent.ActionSubmitted) -> None:
    for side, ms in data.get("time_left", {}).items():
        event.time_left[side].FromMilliseconds(ms)


def _refused(reason: str, message: str) -> ServiceError:
    return ServiceError(StatusCode.FAILED_PRECONDITION, reason, message)


class Clocks:
    """The clock steps of the match service's calls (see :class:`service.match.core.MatchService`)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def control_of(self, time_control: match_pb2.TimeControl | None) -> TimeControl | None:
        """A CreateMatch request's time control, checked (None: no clocks)."""
        if time_control is None:
            return None
        return TimeControl.from_proto(time_control)

    async def start(self, control: TimeControl, game: engine.Game, meta: dict[str, str],
                    events: list[StoredEvent]) -> Deadline:
        """Start the clocks of a match being created: its meta gets the clock fields, its first events
        the Redis time and the time control; returns the deadline to create it with."""
        now = await self.store.time_ms()
        state = ClockState.start(control, meta["sides"].split(","), game.current_player(), now)
        meta.update(state.fields())
        for event in events:
            event.time_ms = now
        events[0].data["time_control"] = control.to_json()
        return Deadline("", state.deadline)

    @staticmethod
    def check_not_aborted(meta: dict[str, str]) -> None:
        if meta.get("status") == "aborted":
            why = meta.get("aborted_reason")
            raise _refused("MATCH_ABORTED", f"match {meta['id']} was aborted" + (f": {why}" if why else ""))

    async def settle(self, meta: dict[str, str], side: str, action: engine.Action, game: engine.Game,
                     events: list[StoredEvent], meta_update: dict[str, str]) -> Deadline | None:
        """The clocks of a commit of ``action`` by ``side`` (``game`` is after it): adds the clock fields
        to ``meta_update``, the time left and the Redis time to ``events``; returns the commit's
        Deadline (None: the match has no clocks)."""
        state = ClockState.of(meta)
        if state is None:
            return None
        now = await self.store.time_ms()
        after = state.after(side, game.current_player(), now)
        meta_update.update(after.fields())
        for event in events:
            event.time_ms = now
        events[0].data["time_left"] = dict(after.left)
        return Deadline("expired" if isinstance(action, engine.TimeForfeit) else "live", after.deadline)

    async def hand_over(self, meta: dict[str, str], game: engine.Game, events: list[StoredEvent],
                        meta_update: dict[str, str]) -> Deadline | None:
        """The clocks of a commit that makes no action but may change the side the game waits for (a seat's
        entropy commitment or reveal, ``game`` after it): adds the clock fields to ``meta_update`` and the
        Redis time to ``events``; returns the commit's Deadline (None: the match has no clocks)."""
        state = ClockState.of(meta)
        if state is None:
            return None
        now = await self.store.time_ms()
        meta_update.update(state.handed_to(game.current_player(), now).fields())
        for event in events:
            event.time_ms = now
        return Deadline("live", ClockState.of(meta | meta_update).deadline)  # type: ignore[union-attr]

    async def expire(self, forfeit: Forfeit, match_id: str) -> str:
        """Act on a match whose deadline may have passed: the running side loses on time (``forfeit``,
        the match service's TimeForfeit), or the match is aborted if that side had not acted yet. Returns what happened: "flag", "abort", "early" (not
        due: its deadline is put back), "done" (already over, or someone else acted first)."""
        snapshot = await self.store.load(match_id)
        state = ClockState.of(snapshot.meta) if snapshot else None
        if snapshot is None or state is None or state.deadline is None \
                or snapshot.meta["status"] not in LIVE:
            await self.store.drop_deadline(match_id)
            return "done"
        now = await self.store.time_ms()
        if now < state.deadline:
            await self.store.lower_deadline(match_id, state.deadline)
            return "early"
        if not rulesets.playable(snapshot.meta):
            # a flag would end the game under other rules than it started with, and waiting keeps its
            # players (a ladder's among them) in a match nobody can continue: it ends without a result
            return await self._abort(snapshot, now, "", rulesets.changed_sentence(snapshot.meta))
        if state.first and seat_entropy.due(snapshot.meta, state.running) != REVEAL:
            # a seat due to reveal its entropy has seen the other's: it loses on time, not let off
            side = state.running
            seconds = f"{state.control.first_action_ms / SECOND:g} s"
            reason = (f"the {side} seat was not claimed within {seconds}" if f"seat:{side}:token" not in snapshot.meta
                      else f"the {side} side made no first action within {seconds}")
            return await self._abort(snapshot, now, side, reason)
        try:
            await forfeit(match_id, state.running)
        except ServiceError as error:
            if error.reason in ("GAME_OVER", "MATCH_ABORTED", "CLOCK_RUNNING"):
                return "done"  # another process was first (or a move made it just in time)
            raise
        log.info("flag_fell", match_id=match_id, side=state.running, late_ms=now - state.deadline)
        return "flag"

    async def too_late(self, forfeit: Forfeit, match_id: str) -> None:
        """A commit found the match's time up: end the match the way the clock says, then refuse the
        call (unless another process changed the match first: the caller reads it again)."""
        outcome = await self.expire(forfeit, match_id)
        if outcome == "abort":
            raise _refused("MATCH_ABORTED", f"match {match_id} was aborted: a side made no first action in time")
        if outcome == "flag":
            raise _refused("GAME_OVER", "the game is over: time ran out before the action was committed")

    async def _abort(self, snapshot, now: int, side: str, reason: str) -> str:
        """End the match without a result; ``side`` is the side to blame ("" for none). Only once its
        deadline has passed (a move meanwhile puts it off: the commit refuses then)."""
        ended = await end_without_result(self.store, snapshot, now, side, reason, Deadline("expired", None))
        return "abort" if ended else "done"


async def end_without_result(store: Store, snapshot, now: int, side: str, reason: str,
                             deadline: Deadline = Deadline("", None), by_operator: bool = False) -> bool:
    """Abort a live match in one commit: ``match_aborted`` (blaming ``side``, "" for none; marked
    ``by_operator`` for an operator's, service.run.admin), then ``seed_revealed``; its clocks, if it has
    any, stop. The commit is refused (False) if the match has changed since ``snapshot`` was read, or if
    ``deadline`` refuses it."""
    meta = snapshot.meta
    seq = snapshot.seq
    aborted = {"type": "match_aborted", "side": side, "reason": reason} | ({"by_operator": True} if by_operator else {})
    events = [StoredEvent(seq + 1, snapshot.version, now, "service", aborted),
              StoredEvent(seq + 2, snapshot.version, now, "service",
                          {"type": "seed_revealed", "seed": meta["seed"], "seed_commitment": meta["seed_commitment"]})]
    state = ClockState.of(meta)
    stopped = replace(state, running="", first=False, deadline=None).fields() if state else {}
    meta_update = stopped | {"status": "aborted", "aborted_side": side, "aborted_reason": reason,
                             "side_to_act": "", "last_sequence": str(seq + 2), "updated_at": str(now)}
    outcome = await store.commit(meta["id"], snapshot.version, seq, snapshot.version, snapshot.state_json,
                                 meta_update, events, deadline=deadline)
    if outcome.outcome != "OK":
        return False
    log.info("match_aborted", match_id=meta["id"], side=side, reason=reason, by_operator=by_operator)
    return True


class Sweeper:
    """Makes flags fall in every match, whoever calls: one per service process, all sharing the work.

    It sleeps until the earliest deadline, claims the due matches and expires each with ``clocks``,
    handing them ``forfeit`` (the match service's TimeForfeit: the sweeper is given it rather than
    importing the match service). Another process may add an earlier deadline meanwhile: the commit
    that does publishes it on the deadline set's wake channel, and :meth:`wake` (subscribed to those
    channels: :meth:`listen`) ends the sleep. Without them it sleeps at most ``max_sleep`` seconds;
    with them ``max_sleep`` is only a safety net, and an idle service sends Redis nothing for its clocks."""

    def __init__(self, clocks: Clocks, forfeit: Forfeit, max_sleep: float = 0.25, lease_ms: int = 5000,
                 batch: int = 20) -> None:
        self.clocks = clocks
        self.forfeit = forfeit
        self.store: Store = clocks.store
        self.max_sleep = max_sleep
        self.lease_ms = lease_ms
        self.batch = batch
        self.expired: dict[str, int] = {}
        self.sweeps = 0
        self._task: asyncio.Task | None = None
        self._stopping = False
        self._woken = asyncio.Event()

    def listen(self, subscribe: Callable[[str, Callable[[], None]], Any], max_sleep: float = 30.0) -> None:
        """Sleep until the next deadline, or until a commit publishes an earlier one: ``subscribe(channel,
        callback)`` (the stream hub's feed) to every deadline set's wake channel; ``max_sleep`` then
        bounds a sleep only in case a notice is lost some way the feed does not see."""
        for channel in deadlines.WAKE_CHANNELS:
            subscribe(channel, self.wake)
        self.max_sleep = max_sleep

    def wake(self) -> None:
        """Sweep now: a deadline earlier than those known may have been set."""
        self._woken.set()

    def start(self) -> None:
        self._stopping = False
        self._task = asyncio.create_task(self._run(), name="clock-sweeper")

    async def stop(self) -> None:
        self._stopping = True  # the loop ends by itself even if a cancellation is lost
        if self._task is not None:
            await stop_task(self._task)
            self._task = None

    async def sweep(self) -> float:
        """One round: expire what is due; returns the seconds to sleep before the next."""
        self.sweeps += 1
        now, first, due = await self.store.claim_due(self.lease_ms, self.batch)
        put_back = False
        for match_id, legacy in due:
            with structlog.contextvars.bound_contextvars(match_id=match_id):
                try:
                    outcome = await self.clocks.expire(self.forfeit, match_id)
                    if legacy:  # its deadline, if any, is in its shard now
                        await self.store.forget_legacy_deadline(match_id)
                except (RedisError, ServiceError, ConnectionError, TimeoutError) as error:
                    log.warning("expire_failed", match_id=match_id, error=repr(error))  # retried after the lease
                    continue
            self.expired[outcome] = self.expired.get(outcome, 0) + 1
            put_back = put_back or outcome == "early"  # its real deadline may come before `first`
        if len(due) >= self.batch or put_back:
            return 0.0
        if first is None:
            return self.max_sleep
        return min(self.max_sleep, max(0.005, (first - now) / SECOND))

    async def _run(self) -> None:
        while not self._stopping:
            try:
                pause = await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - Redis away, a bug: log, keep sweeping
                log.warning("sweep_failed", error=repr(error))
                pause = 1.0
            if pause > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(pause):
                        await self._woken.wait()
            self._woken.clear()  # before the next claim: a wake from now on is for a deadline it may miss


__all__ = ["PRESETS", "ClockState", "Clocks", "Sweeper", "TimeControl", "describe"]
