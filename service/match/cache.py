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

The legal actions of a state are serialized once per state, and each action object once per process
(:class:`ActionTable`, ``ACTION_BYTES``).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Generic, Iterable, TypeVar

import engine
from service.gen.typhoon.v1 import match_service_pb2 as api
from service.match import convert

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
    aborted: bool = False  # no one acts in an aborted match (service.match.clock), whatever its game says
    ruleset: int = engine.RULESET  # the engine ruleset the match was started under (service.match.rulesets)
    _legal: api.ListLegalActionsResponse | None = None
    _legal_bytes: bytes | None = None
    _legal_json: bytes | None = None

    def same_state(self, version: int, seq: int, state_hash: str) -> bool:
        return (self.version, self.seq, self.state_hash) == (version, seq, state_hash)

    def legal_head(self) -> api.ListLegalActionsResponse:
        """The ListLegalActions answer for this state without its actions (a new message each call)."""
        if self.aborted:
            return api.ListLegalActionsResponse(version=self.version)
        game = self.game
        head = api.ListLegalActionsResponse(version=self.version, side_to_act=game.current_player() or "")
        pending = convert.pending_to_proto(game.pending_decision())
        if pending:
            head.pending_decision.CopyFrom(pending)
        return head

    def engine_actions(self) -> list[engine.Action]:
        """The legal actions of this state (none in an aborted match)."""
        return [] if self.aborted else self.game.legal_actions()

    def legal_bytes(self) -> bytes:
        """The ListLegalActions answer for this state, serialized (built once): the head's bytes, then
        each action's from ``ACTION_BYTES`` (messages of one type concatenate into their merge)."""
        if self._legal_bytes is None:
            self._legal_bytes = self.legal_head().SerializeToString() + b"".join(
                ACTION_BYTES.of(self.engine_actions()))
        return self._legal_bytes

    def legal_json(self, encode: Callable[["Known"], bytes]) -> bytes:
        """The ListLegalActions answer for this state as the REST transport sends it, built by ``encode``
        once (a client polling for its turn asks for the same state again and again)."""
        if self._legal_json is None:
            self._legal_json = encode(self)
        return self._legal_json

    def legal_actions(self) -> api.ListLegalActionsResponse:
        """The ListLegalActions answer for this state (built once; callers must not change it)."""
        if self._legal is None:
            self._legal = api.ListLegalActionsResponse.FromString(self.legal_bytes())
        return self._legal


T = TypeVar("T")


class ActionTable(Generic[T]):
    """What ``encode`` makes of each engine action, kept per action *object* for the process.

    The engine hands out the same action objects state after state (a unit's moves are made once
    per phase and shared by every copy of the game), so an action is looked up by its ``id()``
    (a C call) rather than hashed (a Python ``__hash__`` per action: ~0.15 µs, 900 of them in a
    movement phase). The table holds every action object it answered for, so no other object can
    take its id while its entry is there; past ``size`` objects, or ``size`` distinct values, it
    forgets them all and starts again.

    >>> table = ActionTable(lambda action: action.to_json()["type"])
    >>> move = engine.Move("XLVII", "0704")
    >>> table.of([move, engine.EndPhase(), move])
    ['move', 'end_phase', 'move']

    An action object not seen yet is first looked up by its value (the same move of another match, or
    of an earlier phase; ``EndPhase()``, which the engine makes afresh for each state): each distinct
    action is encoded once.
    """

    def __init__(self, encode: Callable[[engine.Action], T], size: int = 200_000) -> None:
        self.encode = encode
        self.size = size
        self._codes: dict[int, T] = {}
        self._actions: list[engine.Action] = []  # keeps each action in _codes (and so its id) alive
        self._by_value: dict[engine.Action, T] = {}

    def of(self, actions: Iterable[engine.Action]) -> list[T]:
        actions = list(actions)
        codes = list(map(self._codes.get, map(id, actions)))
        if None in codes:
            if len(self._codes) > self.size:
                self._codes.clear()
                self._actions.clear()
            if len(self._by_value) > self.size:
                self._by_value.clear()
            # a state's few new objects are found by list.index (in C), not by a Python loop over all of them
            i = codes.index(None)
            while True:
                action = actions[i]
                code = self._by_value.get(action)
                if code is None:
                    code = self._by_value[action] = self.encode(action)
                self._codes[id(action)] = codes[i] = code  # for the next states that share the object
                self._actions.append(action)
                try:
                    i = codes.index(None, i + 1)
                except ValueError:
                    return codes
        return codes


def action_bytes(action: engine.Action) -> bytes:
    """A ListLegalActionsResponse holding only ``action``, serialized. Serialized messages of one type
    concatenate into their merge, so the bytes of several actions joined parse as the list of them.

    >>> move = engine.Move("XLVII", "0704")
    >>> both = api.ListLegalActionsResponse.FromString(action_bytes(move) + action_bytes(engine.EndPhase()))
    >>> [a.WhichOneof("kind") for a in both.actions], both.actions[0].move.to
    (['move', 'end_phase'], '0704')
    """
    return api.ListLegalActionsResponse(actions=[convert.action_to_proto(action)]).SerializeToString()


#: Each action's ``action_bytes``, per action object.
ACTION_BYTES: ActionTable[bytes] = ActionTable(action_bytes)


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
