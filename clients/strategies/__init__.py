"""Bot strategies for Battle for Moscow: ``random``, ``heuristic`` and ``search``.

A strategy is an object with a ``name`` and ``choose(state, legal_actions) -> action`` (the
:class:`Strategy` protocol). ``state`` is the live :class:`engine.Game` — read it, clone it, never change
it — and the answer must be one of ``legal_actions``. Build one by name with :func:`make_strategy`; every
strategy takes a ``seed`` for its own ``random.Random`` (never the global one: the same seed gives the
same choices) and keyword parameters.

* ``random`` — uniform among the legal actions.
* ``heuristic`` — a rule-based player for either side (:mod:`.heuristic`): plans each phase once
  (battles by expected value with the engine's odds, panzers placed to surround, a continuous Soviet
  line, replacements where they matter) and replays the plan; parameters are the fields of
  :class:`.tactics.Weights`.
* ``search`` — the heuristic's candidate plans for each phase tried out on copies of the game and the
  best kept (:mod:`.search`); parameters ``level`` (1-3: how much it searches, a fixed number of
  play-outs per decision), ``playouts``, ``budget`` (seconds per searched decision instead), ``horizon``,
  ``max_candidates``.

Strategies never crash on what they do not know: an action type or a phase added to the engine later goes
to :meth:`BaseStrategy.fallback` (end the phase if allowed, else the first legal action), and an internal
error in ``decide`` is caught the same way (pass ``strict=True`` to let it raise while developing).

Writing your own takes a few lines: subclass :class:`BaseStrategy` and implement ``decide``, returning
None for whatever you do not handle:

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

Register it with ``STRATEGIES["aggressive"] = Aggressive`` to make it available by name, and measure it
with :func:`clients.arena.run_games`.
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
    """A new strategy of the registered kind ``name`` with its own seed and parameters.

    >>> make_strategy("heuristic", seed=1, g_risk=2.0).w.g_risk
    2.0
    """
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(sorted(STRATEGIES))}") from None
    return cls(seed, **params)


__all__ = ["BaseStrategy", "HeuristicStrategy", "RandomStrategy", "STRATEGIES", "SearchStrategy", "Strategy",
           "make_strategy"]
