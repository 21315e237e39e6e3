"""A policy of the environments as a Typhoon strategy: what ``typhoon bot --strategy module:callable``, the
arena and the ladder play.

A policy is a function of the observation the environments give (``{"observation": planes,
"action_mask": mask}``) to one action number. :func:`as_strategy` makes it a strategy
(:mod:`clients.strategies`): shown the live engine game, it builds the same observation, asks the policy,
and when the numbers picked spell an action (most at once; exchange losses and retreats a few, the policy
asked again for each), answers that engine action. Save this as ``mybot.py``::

    import numpy as np
    from clients.rl import as_strategy

    def policy(observation):
        return int(np.flatnonzero(observation["action_mask"])[-1])

    strategy = as_strategy(policy, name="last-number")

and play a seat with ``typhoon bot --strategy mybot:strategy`` (from the folder of ``mybot.py``).

>>> import engine
>>> from clients.arena import play_game
>>> from clients.strategies import make_strategy
>>> first = as_strategy(lambda observation: int(observation["action_mask"].argmax()), name="first-number")
>>> record = play_game(first, make_strategy("random", seed=1), seed="doc")
>>> record.illegal, record.winner in ("german", "soviet", "draw")
(0, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

import engine
from clients.strategies import BaseStrategy

from .numbered import IllegalNumber, NumberedGame

Observation = dict[str, npt.NDArray[Any]]
Policy = Callable[[Observation], int | np.integer[Any]]


class PolicyStrategy(BaseStrategy):
    """``policy`` as a strategy (see the module's text). A number the mask does not offer, or more picks
    than any decision takes, is the policy's mistake: the strategy then plays the fallback of
    :class:`clients.strategies.BaseStrategy` (end the phase, or the first legal action), or raises with
    ``strict=True``."""

    name = "policy"

    def __init__(self, policy: Policy, name: str | None = None, seed: Any = None, **params: Any) -> None:
        self.refuse_unknown(params, set())
        super().__init__(seed, **params)
        self.policy = policy
        self.name = name or str(getattr(policy, "__name__", "policy"))
        self._tables: dict[str, NumberedGame] = {}  # per scenario: the numbering and observation tables

    def decide(self, state: engine.Game, legal_actions: list[engine.Action]) -> engine.Action | None:
        side = state.current_player()
        if side is None:
            return None
        tables = self._tables.get(state.scenario.id)
        if tables is None:
            tables = self._tables[state.scenario.id] = NumberedGame(state)
        play = NumberedGame(state.clone(), tables.encoding, tables.observer)
        for _ in range(len(state.board.ids) + 2):  # the longest decision: a retreat through the whole map
            number = int(self.policy({"observation": play.observe(side), "action_mask": play.mask()}))
            action = play.pick(number)
            if action is not None:
                return action
        raise IllegalNumber("the policy's picks never completed an action")


def as_strategy(policy: Policy, name: str | None = None, strict: bool = False) -> PolicyStrategy:
    """The strategy that plays ``policy`` (see the module's text)."""
    return PolicyStrategy(policy, name=name, strict=strict) if strict else PolicyStrategy(policy, name=name)


__all__ = ["Observation", "Policy", "PolicyStrategy", "as_strategy"]
