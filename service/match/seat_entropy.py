"""The seats' entropy (ruleset 4 on): each seat commits to a secret entropy, then reveals it, and the dice
mix every entropy with the committed seed, so that no single party can bias them, not even the service's
operator playing a seat of its own (engine/seat_entropy.py has the rules and the argument for them;
engine/dice.py the formula; docs/API.md how to check it by hand).

The protocol, in the order of the match's log:

1. CreateMatch draws the seed and logs its SHA-256 in ``match_created`` (sequence 1): the seed
   commitment.
2. Each seat commits once, to the SHA-256 of its entropy or to none, when it takes its seat
   (``SeatClaim.entropy_commitment``, ``JoinMatchRequest.entropy_commitment``); a seat taken for its
   player (``SeatClaim.commit_entropy_later``, a ladder's Seek with ``commit_entropy``) is awaited
   first, and commits with ContributeEntropy's ``commitment``. Logged with the match's version::

       {"type": "entropy_awaited", "side": "soviet"}
       {"type": "entropy_committed", "side": "german", "commitment": "<64 hex digits, or empty: none>"}

   A seat claimed without a commitment gives none; its empty ``entropy_committed`` is logged once
   another seat's commitment comes in (a match where nobody takes part logs none of this).
3. Once every seat has committed, each committed seat reveals its entropy with ContributeEntropy's
   ``entropy`` (its SHA-256 must be the commitment)::

       {"type": "entropy_contributed", "side": "german", "entropy": "<32-128 characters>"}

   Once a seat has committed, the game waits for every seat's commitment too (a free seat's, until
   someone takes it). While the game waits for a commitment or a reveal, that seat is the side to act (``side_to_act``,
   its clock runs: it loses on time, and a seat that was due to reveal is not let off with an abort
   before its first action: it has seen the other's entropy); no action is taken meanwhile
   (ENTROPY_AWAITED).
4. The action that rolls the first die draws an entropy from the seed for every seat without one (the
   game event ``entropy_drawn``, just before the die). Later commitments and reveals are refused
   (DICE_ROLLED), and a JoinMatch that brings a commitment joins without it.
5. ``seed_revealed`` ends the log; every roll can then be recomputed from the seed and the entropy.

The meta hash keeps each seat's part: ``seat:<side>:entropy_commitment`` (the hash, "" for none,
"awaited"), ``seat:<side>:entropy`` and ``seat:<side>:entropy_drawn``; :func:`describe` shows them as
``Seat.entropy_commitment``, ``Seat.entropy``, ``Seat.entropy_drawn`` and ``Seat.entropy_due``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpc import StatusCode

import engine
from engine.dice import commitment_problem, entropy_problem
from engine.ruleset import MIXED_DICE
from engine.seat_entropy import COMMITMENT, REVEAL
from service.errors import ServiceError
from service.gen.typhoon.v1 import match_pb2
from service.match import rulesets
from service.match.cache import Known
from service.store import match_store as store_module
from service.match.entropy_log import (  # noqa: F401 - the log's part, kept importable from here
    _AWAITED_META, AWAITED, COMMITTED, CONTRIBUTED, KINDS, NONE, drawn_fields, drawn_in_log, entry, logged_fields,
    replay_event, replay_logged, restore_drawn)
from service.store.match_store import ENDED, StoredEvent

if TYPE_CHECKING:
    from service.match.core import MatchService

#: Engine refusals of a commitment or an entropy and the status each is answered with (the others:
#: FAILED_PRECONDITION, the match is not where it could take it).
_CODES = {engine.Reason.BAD_ENTROPY: StatusCode.INVALID_ARGUMENT, engine.Reason.UNKNOWN_SIDE: StatusCode.INVALID_ARGUMENT,
          engine.Reason.BAD_COMMITMENT: StatusCode.INVALID_ARGUMENT, engine.Reason.ENTROPY_MISMATCH: StatusCode.INVALID_ARGUMENT}


def check(entropy: str) -> None:
    """Refuse (INVALID_ARGUMENT ``BAD_ENTROPY``) what cannot be a seat's entropy; empty means none."""
    problem = entropy_problem(entropy) if entropy else None
    if problem:
        raise ServiceError(StatusCode.INVALID_ARGUMENT, engine.Reason.BAD_ENTROPY, problem)


def check_commitment(commitment: str) -> None:
    """Refuse (INVALID_ARGUMENT ``BAD_COMMITMENT``) what cannot be a commitment; empty means none."""
    problem = commitment_problem(commitment) if commitment else None
    if problem:
        raise ServiceError(StatusCode.INVALID_ARGUMENT, engine.Reason.BAD_COMMITMENT, problem)


def due(meta: dict[str, str], side: str) -> str:
    """What the match waits for from ``side`` (engine.seat_entropy.SeatEntropy.due), from its meta: the
    same as the game says, since the meta follows every step."""
    sides = meta["sides"].split(",")
    commitments = {s: meta.get(f"seat:{s}:entropy_commitment") for s in sides}
    if meta.get("status") in ENDED or any(f"seat:{s}:entropy_drawn" in meta for s in sides):
        return ""  # the match is over, or its first die rolled: nothing is taken any more
    if any(c is not None for c in commitments.values()) and commitments[side] in (None, _AWAITED_META):
        return COMMITMENT  # awaited, or undecided (free) once another seat took part
    if commitments[side] and f"seat:{side}:entropy" not in meta and \
            all(c is not None and c != _AWAITED_META for c in commitments.values()):
        return REVEAL
    return ""


def describe(meta: dict[str, str], seat: match_pb2.Seat) -> None:
    """Fill a Seat's entropy fields from the meta hash."""
    side = seat.side
    seat.entropy = meta.get(f"seat:{side}:entropy", "")
    seat.entropy_drawn = f"seat:{side}:entropy_drawn" in meta
    commitment = meta.get(f"seat:{side}:entropy_commitment", "")
    seat.entropy_commitment = "" if commitment == _AWAITED_META else commitment
    seat.entropy_due = due(meta, side)


def refusal(error: engine.IllegalAction) -> ServiceError:
    return ServiceError(_CODES.get(error.reason, StatusCode.FAILED_PRECONDITION), error.reason, error.message)


def claim_steps(game: engine.Game, claims: dict[str, tuple[str, bool]]) -> list[dict[str, Any]]:
    """The seats' steps of the claims of a new match (side → (commitment, commits later)), applied to
    ``game``: none when no seat takes part; else each claimed seat awaited, committed, or giving none."""
    if not any(commitment or later for commitment, later in claims.values()):
        return []
    steps = []
    for side, (commitment, later) in claims.items():
        steps.append(entry(AWAITED, side) if later else entry(COMMITTED, side, commitment))
        replay_logged(game, steps[-1])
    return steps


def claim_fields(meta: dict[str, str], side: str, commitment: str) -> dict[str, str]:
    """The meta fields a JoinMatch claim sets with the seat, before its commitment is taken: a seat claimed
    with a commitment is awaited meanwhile (another seat's commitment must not find it claimed without
    one, and take it for a seat that gives none)."""
    if not commitment or rulesets.of_meta(meta) < MIXED_DICE:
        return {}
    return {f"seat:{side}:entropy_commitment": _AWAITED_META}


def _claimed_undecided(game: engine.Game, meta: dict[str, str], side: str) -> list[str]:
    """The seats other than ``side`` claimed without a commitment and not yet logged as giving none."""
    return [other for other in meta["sides"].split(",")
            if other != side and f"seat:{other}:token" in meta and other not in game.seat_entropy.commitments
            and meta.get(f"seat:{other}:entropy_commitment") != _AWAITED_META]


async def step(service: MatchService, match_id: str, known: Known, side: str, kind: str,
               value: str) -> tuple[dict[str, str], list[StoredEvent]] | None:
    """``side``'s commitment (``kind`` COMMITTED, ``value`` the hash or "" for none) or reveal (CONTRIBUTED,
    ``value`` the entropy), taken into ``known``'s game and committed, with the empty commitments of the
    seats claimed without one that a commitment makes due: the match's meta after it and the log entries
    it appended, or None if the match moved on meanwhile (read it again and retry). The same step again
    is answered without a change (no entries)."""
    meta = known.meta or {}
    if known.aborted or meta.get("status") == "aborted":
        raise ServiceError(StatusCode.FAILED_PRECONDITION, "MATCH_ABORTED", f"match {match_id} was aborted")
    if known.game.is_terminal() or meta.get("status") in ENDED:
        raise ServiceError(StatusCode.FAILED_PRECONDITION, "GAME_OVER", "the game is over")
    rulesets.check_playable(match_id, known.ruleset, False)
    seats = known.game.seat_entropy
    if (kind == COMMITTED and seats.commitments.get(side) == value) or \
            (kind == CONTRIBUTED and seats.entropy.get(side) == value and f"seat:{side}:entropy_drawn" not in meta):
        return meta, []  # a repeat
    game = known.game.clone()
    steps = [entry(COMMITTED, other) for other in _claimed_undecided(game, meta, side)] if kind == COMMITTED else []
    steps.append(entry(kind, side, value))
    try:
        for data in steps:
            replay_logged(game, data)
    except engine.IllegalAction as error:
        raise refusal(error) from None
    state_json = game.canonical_json()
    new_hash = store_module.state_hash(state_json)
    now = service._now_ms()
    stored = [StoredEvent(known.seq + 1 + i, known.version, now, "service", data) for i, data in enumerate(steps)]
    meta_update = {"last_sequence": str(stored[-1].seq), "updated_at": str(now),
                   "side_to_act": game.current_player() or ""}
    for data in steps:
        meta_update |= logged_fields(data)
    deadline = await service.clocks.hand_over(meta, game, stored, meta_update)
    meta_update["updated_at"] = str(stored[0].time_ms)
    outcome = await service.store.commit(match_id, known.version, known.seq, known.version, state_json, meta_update,
                                         stored, deadline=deadline, expected_hash=known.state_hash, new_hash=new_hash)
    if outcome.outcome == "NOT_FOUND":
        raise ServiceError(StatusCode.NOT_FOUND, "MATCH_NOT_FOUND", f"there is no match {match_id!r}")
    if outcome.outcome == "FLAG":  # the clock ran out before this commit: the flag wins
        await service.clocks.too_late(service.forfeit_side_on_time, match_id)
    if outcome.outcome != "OK":
        service.cache.forget(match_id)
        return None
    meta = meta | meta_update
    service.cache.put(match_id, Known(known.version, stored[-1].seq, new_hash, game, meta, ruleset=known.ruleset))
    return meta, stored
