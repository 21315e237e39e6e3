"""A match log's entries of the seats' part in the dice (``entropy_awaited``, ``entropy_committed``,
``entropy_contributed``) and the entropy a first die drew: how each is written, replayed on a game, and
what it sets in a match's meta. Pure, no store: the audit and the clients replay logs with it
(:mod:`service.match.seat_entropy` takes the steps in a live match)."""

from __future__ import annotations

from typing import Any

import engine
from engine.events import EntropyDrawn
from service.gen.typhoon.v1 import match_pb2

#: The log entries of the seats' part in the dice, in the order a seat makes them.
AWAITED = "entropy_awaited"
COMMITTED = "entropy_committed"
CONTRIBUTED = "entropy_contributed"
KINDS = (AWAITED, COMMITTED, CONTRIBUTED)

#: What ContributeEntropy.commitment says for a seat that gives no entropy.
NONE = "none"

#: The meta value of an awaited seat's commitment.
_AWAITED_META = "awaited"

def entry(kind: str, side: str, value: str = "") -> dict[str, Any]:
    """The log entry of a seat's step: ``kind`` is one of :data:`KINDS`."""
    if kind == AWAITED:
        return {"type": AWAITED, "side": side}
    return {"type": kind, "side": side, "commitment" if kind == COMMITTED else "entropy": value}


def replay_logged(game: engine.Game, data: dict[str, Any]) -> bool:
    """Replay a logged entry (its data) on ``game`` if it is a seat's step: True if it was one (raises
    IllegalAction if the game could not take it)."""
    kind = data.get("type")
    if kind == AWAITED:
        game.await_entropy(data["side"])
    elif kind == COMMITTED:
        game.commit_entropy(data["side"], data["commitment"])
    elif kind == CONTRIBUTED:
        game.contribute_entropy(data["side"], data["entropy"])
    else:
        return False
    return True


def replay_event(game: engine.Game, event: match_pb2.MatchEvent) -> bool:
    """:func:`replay_logged` for an API MatchEvent."""
    kind = event.WhichOneof("kind")
    if kind == "entropy_awaited":
        game.await_entropy(event.entropy_awaited.side)
    elif kind == "entropy_committed":
        game.commit_entropy(event.entropy_committed.side, event.entropy_committed.commitment)
    elif kind == "entropy_contributed":
        game.contribute_entropy(event.entropy_contributed.side, event.entropy_contributed.entropy)
    else:
        return False
    return True


def logged_fields(data: dict[str, Any]) -> dict[str, str]:
    """The meta fields a logged seat's step (or an ``entropy_drawn`` game event) sets."""
    side, kind = data["side"], data["type"]
    if kind == AWAITED:
        return {f"seat:{side}:entropy_commitment": _AWAITED_META}
    if kind == COMMITTED:
        return {f"seat:{side}:entropy_commitment": data["commitment"]}
    return {f"seat:{side}:entropy": data["entropy"]} | ({f"seat:{side}:entropy_drawn": "1"} if kind == "entropy_drawn" else {})


def drawn_fields(events: list[engine.Event]) -> dict[str, str]:
    """The meta fields of the entropy an action's first die drew for the seats that gave none."""
    fields: dict[str, str] = {}
    for event in events:
        if isinstance(event, EntropyDrawn):
            fields |= logged_fields(event.to_json())
    return fields


def restore_drawn(game: engine.Game, drawn: list[tuple[str, str]]) -> None:
    """Give ``game`` the entropy its first die drew, as the log says (a replay whose dice are the logged
    ones, the seed still secret, draws nothing itself)."""
    for side, entropy in drawn:
        game.entropy[side] = entropy


def drawn_in_log(events: list[match_pb2.MatchEvent]) -> dict[int, list[tuple[str, str]]]:
    """The entropy the first die drew, by the version of the action that rolled it: what a replay whose
    dice are the logged ones (the seed still secret) gives its game before that action (:func:`restore_drawn`)."""
    drawn: dict[int, list[tuple[str, str]]] = {}
    for event in events:
        if event.WhichOneof("kind") == "game_event" and event.game_event.WhichOneof("kind") == "entropy_drawn":
            given = event.game_event.entropy_drawn
            drawn.setdefault(event.version, []).append((given.side, given.entropy))
    return drawn


__all__ = ["AWAITED", "COMMITTED", "CONTRIBUTED", "KINDS", "NONE", "drawn_fields", "drawn_in_log", "entry",
           "logged_fields", "replay_event", "replay_logged", "restore_drawn"]
