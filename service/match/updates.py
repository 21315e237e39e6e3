"""Where a match stands after each change: the ``MatchUpdate`` that WatchMatch and the ladder's Seek send.

An update is the stream's envelope, not a log entry: it is made from the match's meta hash as the
store read it together with the change's entries (:class:`service.store.hub.MatchState`), once per
change and process whoever watches, and sent after those entries. Its ``legal_actions`` and
``state`` are added for one watcher only, the seat to act that asked for them
(:meth:`service.match.core.MatchService.seat_view`).
"""

from __future__ import annotations

import json
from collections import Counter

from grpc import StatusCode

from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import clock as clock_module
from service.match import convert
from service.store.hub import MatchState
from service.store.match_store import ENDED


def status_of(meta: dict[str, str]) -> int:
    """The MatchStatus of a meta hash.

    >>> status_of({"status": "aborted"}) == match_pb2.MATCH_STATUS_ABORTED
    True
    """
    return match_pb2.MatchStatus.Value("MATCH_STATUS_" + (meta.get("status") or "open").upper())


def update_of(state: MatchState) -> api.MatchUpdate:
    """The update of a match state, made once per state: shared, never change it (copy it first)."""
    if None not in state.cached:
        meta = state.meta
        ended = meta.get("status") in ENDED
        update = api.MatchUpdate(
            match_id=meta["id"], version=int(meta["version"]), last_sequence=int(meta["last_sequence"]),
            status=status_of(meta), side_to_act="" if ended else meta.get("side_to_act", ""),
            turn=int(meta["turn"]), phase=meta["phase"])
        match = match_pb2.Match()
        clock_module.describe(meta, match)
        if match.HasField("clock"):
            update.clock.CopyFrom(match.clock)
        result = convert.result_to_proto(json.loads(meta["result"]) if meta.get("result") else None)
        if result:
            update.result.CopyFrom(result)
        state.cached[None] = update
    return state.cached[None]


#: Watches of one seat asking for its legal actions, per process: a bot needs one (two while it reconnects).
MAX_SEAT_WATCHES = 4


class SeatWatches:
    """How many watches of each seat ask for its legal actions here. Each costs the sending of a position
    and a list of actions per change, so a seat token's holder may not multiply them (the view itself is
    made once per state, whoever asks).

    >>> watches = SeatWatches(limit=1)
    >>> release = watches.acquire("m1", "german")
    >>> watches.acquire("m1", "german")
    Traceback (most recent call last):
    service.errors.ServiceError: the german seat of match m1 is already watched with its legal actions 1 times here ...
    >>> release(); release(); watches.acquire("m1", "german") is not None
    True
    """

    def __init__(self, limit: int = MAX_SEAT_WATCHES) -> None:
        self.limit = limit
        self._held: Counter[tuple[str, str]] = Counter()

    def acquire(self, match_id: str, seat: str):
        """A place for one more watch of the seat (RESOURCE_EXHAUSTED if none); returns its release
        (idempotent)."""
        key = (match_id, seat)
        if self._held[key] >= self.limit:
            raise ServiceError(StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_SEAT_WATCHES",
                               f"the {seat} seat of match {match_id} is already watched with its legal actions "
                               f"{self.limit} times here (a bot needs one); close one, or watch without "
                               f"include_legal_actions", limit=self.limit)
        self._held[key] += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._held[key] -= 1
                if not self._held[key]:
                    del self._held[key]

        return release


__all__ = ["MAX_SEAT_WATCHES", "SeatWatches", "status_of", "update_of"]
