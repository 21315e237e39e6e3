"""Where a match stands after each change: the ``MatchUpdate`` that WatchMatch and the ladder's Seek send.

An update is the stream's envelope, not a log entry: it is made from the match's meta hash as the
store read it together with the change's entries (:class:`service.store.hub.MatchState`), once per
change and process whoever watches, and sent after those entries. Its ``legal_actions`` and
``state`` are added for one watcher only, the seat to act that asked for them
(:meth:`service.match.core.MatchService.seat_view`).
"""

from __future__ import annotations

import json

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
    """The update of a match state (a new message each call, made once per state)."""
    if state.cached is None:
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
        state.cached = update.SerializeToString()
    return api.MatchUpdate.FromString(state.cached)


__all__ = ["status_of", "update_of"]
