"""What this service process last knew of each match: a guess that saves work, never the truth.

Redis is the truth and the Lua commit its only arbiter. Several processes share one Redis, so what
one process remembers may be out of date at any moment. It is used only where being out of date is
caught:

- the Game of a state is kept with the state's hash (the SHA-256 of its JSON, which the store keeps
  beside the state): a read sends the hash it holds and gets the JSON only if the stored state
  differs, so a kept Game is used only for the state Redis has;
- a SubmitAction may be tried on the kept state and meta without reading them first: its commit
  checks the version, the sequence and the state hash, and an out-of-date guess is refused there
  (then the service reads and tries again). A refusal found on a guess (an illegal action, not your
  turn...) is never answered: the service reads the match and decides again.

The legal actions of a state are converted to protobuf once per state, and each action once per
process (``action_bytes``).
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass

import engine
from service import convert
from service.gen.typhoon.v1 import match_service_pb2 as api

#: Matches remembered per process (the least recently used are forgotten first).
DEFAULT_SIZE = 2000


@dataclass(eq=False)
class Known:
    """A match as this process last read or wrote it: the state at ``version`` (whose hash is
    ``state_hash``) and, if known, the meta hash at (``version``, ``seq``)."""

    version: int
    seq: int
    state_hash: str
    game: engine.Game  # shared by every call: never applied to (clone it first)
    meta: dict[str, str] | None = None
    aborted: bool = False  # no one acts in an aborted match (service.clock), whatever its game says
    ruleset: int = engine.RULESET  # the engine ruleset the match was started under (service.rulesets)
    _legal: api.ListLegalActionsResponse | None = None

    def same_state(self, version: int, seq: int, state_hash: str) -> bool:
        return (self.version, self.seq, self.state_hash) == (version, seq, state_hash)

    def legal_actions(self) -> api.ListLegalActionsResponse:
        """The ListLegalActions answer for this state (built once; callers must not change it)."""
        if self._legal is None and self.aborted:
            self._legal = api.ListLegalActionsResponse(version=self.version)
        if self._legal is None:
            game = self.game
            response = api.ListLegalActionsResponse.FromString(b"".join(map(action_bytes, game.legal_actions())))
            response.version = self.version
            response.side_to_act = game.current_player() or ""
            pending = convert.pending_to_proto(game.pending_decision())
            if pending:
                response.pending_decision.CopyFrom(pending)
            self._legal = response
        return self._legal


@functools.lru_cache(maxsize=100_000)
def action_bytes(action: engine.Action) -> bytes:
    """A ListLegalActionsResponse holding only ``action``, serialized. Serialized messages of one type
    concatenate into their merge, so the bytes of several actions joined parse as the list of them.

    >>> move = engine.Move("XLVII", "0704")
    >>> both = api.ListLegalActionsResponse.FromString(action_bytes(move) + action_bytes(engine.EndPhase()))
    >>> [a.WhichOneof("kind") for a in both.actions], both.actions[0].move.to
    (['move', 'end_phase'], '0704')
    """
    return api.ListLegalActionsResponse(actions=[convert.action_to_proto(action)]).SerializeToString()


class MatchCache:
    """The last :class:`Known` state of up to ``size`` matches."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._known: OrderedDict[str, Known] = OrderedDict()

    def __len__(self) -> int:
        return len(self._known)

    def get(self, match_id: str) -> Known | None:
        known = self._known.get(match_id)
        if known is not None:
            self._known.move_to_end(match_id)
        return known

    def put(self, match_id: str, known: Known) -> None:
        self._known[match_id] = known
        self._known.move_to_end(match_id)
        while len(self._known) > self.size:
            self._known.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._known.pop(match_id, None)
