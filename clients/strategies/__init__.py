"""Bot strategies for Battle for Moscow: ``random``, ``heuristic`` and ``search``.

A strategy is an object with a ``name`` and ``choose(state, legal_actions) -> action``; ``state`` is the
:class:`engine.Game` (read it, clone it, never change it) and the answer must be one of ``legal_actions``.
Build one by name with :func:`make_strategy`; every strategy takes a ``seed`` for its own
``random.Random`` and keyword parameters.

Writing your own takes a few lines: subclass :class:`BaseStrategy`, implement ``decide`` and return None
for whatever you do not handle (the base class then ends the phase or plays the first legal action, so
new action types added to the engine never crash a strategy):

>>> import engine
>>> from clients.strategies import BaseStrategy, make_strategy
>>> class Aggressive(BaseStrategy):
...     name = "aggressive"
...     def decide(self, state, legal_actions):
...         attacks = [a for a in legal_actions if isinstance(a, engine.DeclareAttack)]
...         return self.rng.choice(attacks) if attacks else None
>>> from clients.arena import play_game
>>> record = play_game(Aggressive(seed=1), make_strategy("heuristic", seed=2), seed="doc")
>>> record.winner in ("german", "soviet", "draw"), record.illegal
(True, 0)

Register it with ``STRATEGIES["aggressive"] = Aggressive`` to make it available by name.
"""

from __future__ import annotations

from typing import Any

from .base import BaseStrategy, Strategy
from .heuristic import HeuristicStrategy
from .random_strategy import RandomStrategy
from .search import SearchStrategy

STRATEGIES: dict[str, type] = {
    "random": RandomStrategy,
    "heuristic": HeuristicStrategy,
    "search": SearchStrategy,
}


def make_strategy(name: str, seed: Any = None, **params: Any) -> Strategy:
    """A new strategy of the registered kind ``name`` with its own seed and parameters."""
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(sorted(STRATEGIES))}") from None
    return cls(seed, **params)


__all__ = ["BaseStrategy", "HeuristicStrategy", "RandomStrategy", "STRATEGIES", "SearchStrategy", "Strategy",
           "make_strategy"]
