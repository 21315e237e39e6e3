"""A match's stored log entries as the API's ``MatchEvent`` messages: what GetEventLog, WatchMatch,
an answer's events and a match's history (``service.match.history``) all send.

Engine events (``source`` ``game``) go through ``service.match.convert``; the service's own events
(``source`` ``service``) are listed in ``service.match.core``.
"""

from __future__ import annotations

from service.gen.typhoon.v1 import match_pb2
from service.match import clock as clock_module
from service.match import convert, rulesets
from service.store.match_store import StoredEvent

#: The service event that closes a match's log.
FINAL_EVENT = "seed_revealed"


def match_event(event: StoredEvent) -> match_pb2.MatchEvent:
    """A stored log entry as the API's MatchEvent."""
    out = match_pb2.MatchEvent(sequence=event.seq, version=event.version, time=convert.timestamp(event.time_ms))
    data = event.data
    if event.source == "game":
        out.game_event.CopyFrom(convert.event_to_proto(data))
        return out
    kind = data["type"]
    if kind == "match_created":
        out.match_created.CopyFrom(match_pb2.MatchEvent.MatchCreated(
            scenario=data["scenario"], options=convert.dict_to_struct(data["options"]),
            seed_commitment=data["seed_commitment"], sides=data["sides"], ruleset=rulesets.of_logged(data)))
        if "time_control" in data:
            out.match_created.time_control.CopyFrom(clock_module.TimeControl.from_json(data["time_control"]).to_proto())
    elif kind == "seat_claimed":
        out.seat_claimed.CopyFrom(match_pb2.MatchEvent.SeatClaimed(side=data["side"],
                                                                  player_name=data.get("player_name", "")))
    elif kind == "entropy_contributed":  # the seats' part in the dice: service.match.seat_entropy
        out.entropy_contributed.CopyFrom(match_pb2.MatchEvent.EntropyContributed(side=data["side"],
                                                                                entropy=data["entropy"]))
    elif kind == "entropy_committed":
        out.entropy_committed.CopyFrom(match_pb2.MatchEvent.EntropyCommitted(side=data["side"],
                                                                            commitment=data["commitment"]))
    elif kind == "entropy_awaited":
        out.entropy_awaited.CopyFrom(match_pb2.MatchEvent.EntropyAwaited(side=data["side"]))
    elif kind == "action_submitted":
        out.action_submitted.CopyFrom(match_pb2.MatchEvent.ActionSubmitted(
            side=data["side"], action=convert.action_to_proto(data["action"]), state_hash=data["state_hash"]))
        clock_module.time_left_to_proto(data, out.action_submitted)
    elif kind == FINAL_EVENT:
        out.seed_revealed.CopyFrom(match_pb2.MatchEvent.SeedRevealed(seed=data["seed"],
                                                                    seed_commitment=data["seed_commitment"]))
    elif kind == "match_aborted":
        out.match_aborted.CopyFrom(match_pb2.MatchEvent.MatchAborted(side=data["side"], reason=data["reason"],
                                                                    by_operator=data.get("by_operator", False)))
    else:
        raise convert.ConversionError(f"unknown service event {kind!r}")
    return out


__all__ = ["FINAL_EVENT", "match_event"]
