"""Why a seeking player is not paired: the reason its Seek heartbeat carries (``SeekHeartbeat.waiting``).

A bot that seeks and is never paired must not be left guessing. The pairing round, which already reads
every seeking player, decides each one's reason once per round (:func:`waiting_reasons`) and keeps them
in Redis (``waiting``: one hash, replaced each round, expiring if pairing stops); a Seek stream reads its
own player's field for each heartbeat, one O(1) read, and words it (:func:`sentence`).

Which owners are related stays unshown (:mod:`service.ladder.fairness`): a seeker learns only that every
other player seeking now is of its own owner group (``only_related``), not which of them, nor why.

>>> seekers = {"a": Seeker("g1", 1), "b": Seeker("g1", 1), "c": Seeker("g2", 0)}
>>> reasons = waiting_reasons(seekers, lambda a, b: seekers[a].group != seekers[b].group, lambda a, b: False)
>>> {pid: reason.kind for pid, reason in sorted(reasons.items())}
{'a': 'opponents_busy', 'b': 'opponents_busy', 'c': 'playing_enough'}
>>> del seekers["c"]
>>> waiting_reasons(seekers, lambda a, b: seekers[a].group != seekers[b].group, lambda a, b: False)["a"].kind
'only_related'
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from service.gen.typhoon.v1 import ladder_service_pb2 as lapi

#: How long the reasons of a round stand if no round follows (the pairing loop stopped): then unknown.
WAITING_TTL_MS = 10_000

#: The proto's value of each reason.
KINDS: dict[str, int] = {
    "playing_enough": lapi.SEEK_WAIT_REASON_PLAYING_ENOUGH,
    "alone": lapi.SEEK_WAIT_REASON_ALONE,
    "only_related": lapi.SEEK_WAIT_REASON_ONLY_RELATED,
    "opponents_busy": lapi.SEEK_WAIT_REASON_OPPONENTS_BUSY,
    "cooldown": lapi.SEEK_WAIT_REASON_COOLDOWN,
    "rematch_wait": lapi.SEEK_WAIT_REASON_REMATCH_WAIT,
    "store_full": lapi.SEEK_WAIT_REASON_STORE_FULL,  # decided by the pairing round, not waiting_reasons
}


@dataclass(frozen=True)
class Seeker:
    """What the pairing knows of a seeking player: its owner group, its free match slots, and until when
    (Redis ms) it waits out an abandon cooldown (0: none)."""

    group: str
    free: int
    blocked_until: int = 0


@dataclass(frozen=True)
class Waiting:
    """One player's reason (a key of :data:`KINDS`), and the end of its cooldown (ms) for ``cooldown``."""

    kind: str
    until: int = 0

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "until": self.until} if self.until else {"kind": self.kind})

    @classmethod
    def from_json(cls, text: str | None) -> Waiting | None:
        """None for no reason recorded (or one this version does not know)."""
        if not text:
            return None
        data = json.loads(text)
        return cls(data["kind"], int(data.get("until", 0))) if data.get("kind") in KINDS else None


def waiting_reasons(seekers: dict[str, Seeker], may_pair: Callable[[str, str], bool],
                    rematch_wait: Callable[[str, str], bool], now: int = 0) -> dict[str, Waiting]:
    """Each seeking player's reason for not being paired (more), after a pairing round left ``seekers``
    as they are: ``may_pair(a, b)`` says whether fair play lets the two meet at all (not of one owner
    group), ``rematch_wait(a, b)`` whether two who may meet, both free, wait only because they have just
    played each other both ways.

    >>> one = {"a": Seeker("g1", 1, blocked_until=5000)}
    >>> waiting_reasons(one, lambda a, b: True, lambda a, b: False, now=1000)["a"]
    Waiting(kind='cooldown', until=5000)
    >>> two = {"a": Seeker("g1", 1), "b": Seeker("g2", 1)}
    >>> waiting_reasons(two, lambda a, b: True, lambda a, b: True)["b"].kind
    'rematch_wait'
    """
    reasons: dict[str, Waiting] = {}
    for pid, seeker in seekers.items():
        if seeker.blocked_until > now:
            reasons[pid] = Waiting("cooldown", seeker.blocked_until)
        elif seeker.free <= 0:
            reasons[pid] = Waiting("playing_enough")
        else:
            others = [other for other in seekers if other != pid]
            meetable = [other for other in others if may_pair(pid, other)]
            if not others:
                reasons[pid] = Waiting("alone")
            elif not meetable:
                reasons[pid] = Waiting("only_related")
            elif any(seekers[o].free > 0 and seekers[o].blocked_until <= now and rematch_wait(pid, o)
                     for o in meetable):
                reasons[pid] = Waiting("rematch_wait")
            else:
                reasons[pid] = Waiting("opponents_busy")
    return reasons


def sentence(waiting: Waiting | None, playing: int, concurrency: int) -> str:
    """The reason in words, for a player playing ``playing`` matches of the ``concurrency`` it asked for.

    >>> sentence(Waiting("only_related"), 0, 1)[:62]
    'every other player seeking is of your owner or a related owner'
    >>> sentence(Waiting("playing_enough"), 2, 2)
    'playing 2 matches, as many as this Seek asked for (concurrency 2): paired again when one ends'
    """
    kind = waiting.kind if waiting else ""
    if kind == "playing_enough":
        return (f"playing {playing} match{'es' if playing != 1 else ''}, as many as this Seek asked for "
                f"(concurrency {concurrency}): paired again when one ends")
    if kind == "alone":
        return "no other player is seeking: paired as soon as one does"
    if kind == "only_related":
        return ("every other player seeking is of your owner or a related owner (owners registered from one "
                "client address are related), and this ladder never pairs those; to try the ladder on one "
                "machine, run the service with --ladder-same-owner-pairs (a private ladder), or `make ladder`")
    if kind == "opponents_busy":
        return ("the players you may meet are busy (playing as many matches as they asked for, waiting out a "
                "cooldown, or already playing two against you): paired when one is free")
    if kind == "cooldown":
        return ("you abandoned your last match (no first action in time, or gave up before the ladder's "
                "min_actions): not paired before cooldown_until")
    if kind == "rematch_wait":
        return ("the only opponent free has just played you both ways: paired again in a few seconds unless "
                "someone else seeks")
    if kind == "store_full":
        return ("the service's store is full, so no new match can be created now: you stay seeking and are "
                "paired as soon as it has room again")
    return "not paired yet: the ladder pairs every half second or so"


__all__ = ["KINDS", "WAITING_TTL_MS", "Seeker", "Waiting", "sentence", "waiting_reasons"]
