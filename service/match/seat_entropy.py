"""The seats' entropy (ruleset 4 on): what each seat mixes into the dice with the committed seed, so that no
single party can bias them (engine/dice.py has the formula; docs/API.md how to check it by hand).

The protocol, in the order of the match's log:

1. CreateMatch draws the seed and logs its SHA-256 in ``match_created`` (sequence 1): the commitment.
2. Each seat may then give its entropy once, until the first die is rolled: in its seat claim
   (``SeatClaim.entropy``, ``JoinMatchRequest.entropy``) or with ContributeEntropy. Each is logged::

       {"type": "entropy_contributed", "side": "german", "entropy": "<32-128 characters>"}

   with the match's current version, and kept in the game state (the engine's ``Game.entropy``) and in
   the meta hash (``seat:<side>:entropy``, shown as ``Seat.entropy``). A seat's entropy in CreateMatch
   reaches the service before it draws the seed: it guards the seat against the other seat, not
   against the service; what reaches it after the commitment guards against both.
3. The action that rolls the first die closes it: the engine draws an entropy from the seed for a
   seat that gave none (the game event ``entropy_drawn``, just before the die; ``seat:<side>:entropy``
   and ``seat:<side>:entropy_drawn``). A seat that has not joined by then is such a seat. Later
   entropy is refused (DICE_ROLLED), and a JoinMatch that brings some joins without it.
4. ``seed_revealed`` ends the log; every roll can then be recomputed from the seed and the entropy.

Ladder matches (Seek) are created by the service with both seats claimed: each bot gives its entropy
with ContributeEntropy once Seek hands it the match (its commitment published). Seek itself takes
none: it comes before the match and its seed exist, so the service would see it before drawing the
seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpc import StatusCode

import engine
from engine.dice import entropy_problem
from engine.events import EntropyDrawn
from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import rulesets
from service.match.cache import Known
from service.match.log_entries import match_event
from service.store import match_store as store_module
from service.store.match_store import ENDED, StoredEvent

if TYPE_CHECKING:
    from service.match.core import MatchService

#: The log entry of a seat's entropy.
CONTRIBUTED = "entropy_contributed"

#: Engine refusals of an entropy and the status each is answered with.
_CODES = {engine.Reason.BAD_ENTROPY: StatusCode.INVALID_ARGUMENT, engine.Reason.UNKNOWN_SIDE: StatusCode.INVALID_ARGUMENT}


def check(entropy: str) -> None:
    """Refuse (INVALID_ARGUMENT ``BAD_ENTROPY``) what cannot be a seat's entropy; empty means none."""
    problem = entropy_problem(entropy) if entropy else None
    if problem:
        raise ServiceError(StatusCode.INVALID_ARGUMENT, engine.Reason.BAD_ENTROPY, problem)


def entry(side: str, entropy: str) -> dict[str, Any]:
    return {"type": CONTRIBUTED, "side": side, "entropy": entropy}


def seat_fields(side: str, entropy: str, drawn: bool = False) -> dict[str, str]:
    """The meta fields of a seat's entropy."""
    return {f"seat:{side}:entropy": entropy} | ({f"seat:{side}:entropy_drawn": "1"} if drawn else {})


def drawn_fields(events: list[engine.Event]) -> dict[str, str]:
    """The meta fields of the entropy an action's first die drew for the seats that gave none."""
    fields: dict[str, str] = {}
    for event in events:
        if isinstance(event, EntropyDrawn):
            fields |= seat_fields(event.side, event.entropy, drawn=True)
    return fields


def describe(meta: dict[str, str], seat: match_pb2.Seat) -> None:
    """Fill ``Seat.entropy`` from the meta hash."""
    seat.entropy = meta.get(f"seat:{seat.side}:entropy", "")
    seat.entropy_drawn = f"seat:{seat.side}:entropy_drawn" in meta


def contribute_logged(game: engine.Game, data: dict[str, Any]) -> None:
    """Replay a logged ``entropy_contributed`` entry on ``game`` (raises IllegalAction if it could not be)."""
    game.contribute_entropy(data["side"], data["entropy"])


def drawn_in_log(events: list[match_pb2.MatchEvent]) -> dict[int, list[tuple[str, str]]]:
    """The entropy the first die drew, by the version of the action that rolled it: what a replay whose
    dice are the logged ones (the seed still secret) gives its game before that action, since such a
    game draws nothing itself."""
    drawn: dict[int, list[tuple[str, str]]] = {}
    for event in events:
        if event.WhichOneof("kind") == "game_event" and event.game_event.WhichOneof("kind") == "entropy_drawn":
            given = event.game_event.entropy_drawn
            drawn.setdefault(event.version, []).append((given.side, given.entropy))
    return drawn


def refusal(error: engine.IllegalAction) -> ServiceError:
    return ServiceError(_CODES.get(error.reason, StatusCode.FAILED_PRECONDITION), error.reason, error.message)


async def contribute(service: MatchService, match_id: str, known: Known, side: str,
                     entropy: str) -> api.ContributeEntropyResponse | None:
    """Mix ``side``'s entropy into ``known``'s game and commit it: the answer, or None if the match moved
    on meanwhile (read it again and retry). The same entropy again is answered without a change."""
    meta = known.meta or {}
    if known.aborted or meta.get("status") == "aborted":
        raise ServiceError(StatusCode.FAILED_PRECONDITION, "MATCH_ABORTED", f"match {match_id} was aborted")
    if known.game.is_terminal() or meta.get("status") in ENDED:
        raise ServiceError(StatusCode.FAILED_PRECONDITION, "GAME_OVER", "the game is over")
    rulesets.check_playable(match_id, known.ruleset, False)
    if known.game.entropy.get(side) == entropy and f"seat:{side}:entropy_drawn" not in meta:
        return api.ContributeEntropyResponse(match=service._match(meta))  # a repeat
    game = known.game.clone()
    try:
        game.contribute_entropy(side, entropy)
    except engine.IllegalAction as error:
        raise refusal(error) from None
    state_json = game.canonical_json()
    new_hash = store_module.state_hash(state_json)
    now = service._now_ms()
    stored = [StoredEvent(known.seq + 1, known.version, now, "service", entry(side, entropy))]
    meta_update = {"last_sequence": str(known.seq + 1), "updated_at": str(now)} | seat_fields(side, entropy)
    outcome = await service.store.commit(match_id, known.version, known.seq, known.version, state_json, meta_update,
                                         stored, expected_hash=known.state_hash, new_hash=new_hash)
    if outcome.outcome == "NOT_FOUND":
        raise ServiceError(StatusCode.NOT_FOUND, "MATCH_NOT_FOUND", f"there is no match {match_id!r}")
    if outcome.outcome != "OK":
        service.cache.forget(match_id)
        return None
    meta = meta | meta_update
    service.cache.put(match_id, Known(known.version, known.seq + 1, new_hash, game, meta, ruleset=known.ruleset))
    return api.ContributeEntropyResponse(match=service._match(meta), events=[match_event(e) for e in stored])
