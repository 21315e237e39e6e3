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

from .base import BaseStrategy, FunctionStrategy, Strategy
from .heuristic import HeuristicStrategy
from .random_strategy import RandomStrategy
from .search import SearchStrategy

STRATEGIES: dict[str, type] = {
    "random": RandomStrategy,
    "heuristic": HeuristicStrategy,
    "search": SearchStrategy,
}


def make_strategy(name: str, seed: Any = None, **params: Any) -> Strategy:
    """A new strategy of the registered kind ``name`` with its own seed and parameters; or, for a name
    ``package.module:callable``, the strategy that callable gives (see :func:`imported_strategy`).

    >>> make_strategy("heuristic", seed=1, g_risk=2.0).w.g_risk
    2.0
    >>> make_strategy("clients.strategies.random_strategy:RandomStrategy", seed=1).name
    'random'
    """
    if ":" in name:
        return imported_strategy(name, seed, params)
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(sorted(STRATEGIES))}, "
                         f"or package.module:callable") from None
    return cls(seed, **params)


def imported_strategy(spec: str, seed: Any = None, params: dict[str, Any] | None = None) -> Any:
    """The strategy named by ``package.module:callable`` (the module imported as Python imports it, the
    current directory included), where the callable is:

    - a class, or a function with a ``seed`` or ``**`` parameter: a factory, called as
      ``callable(seed=seed, **params)`` (a class like the built-in ones, a subclass of BaseStrategy);
    - an object with ``choose``: the strategy itself (no parameters then);
    - any other function: ``choose(state, legal_actions)`` itself (no parameters then).

    ValueError when it cannot be imported or does not take the parameters.

    >>> imported_strategy("clients.strategies.heuristic:HeuristicStrategy", 1, {"g_risk": 2.0}).w.g_risk
    2.0
    """
    import importlib
    import inspect
    import os
    import sys

    params = params or {}
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"a strategy to import is package.module:callable, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # as `python -m` would find it
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot import the strategy {spec!r}: {error}") from None
    try:
        if inspect.isclass(target):
            strategy = target(seed=seed, **params)
        elif hasattr(target, "choose"):
            strategy = _without_params(target, spec, params)
        elif callable(target):
            kinds = {p.kind for p in inspect.signature(target).parameters.values()}
            if "seed" in inspect.signature(target).parameters or inspect.Parameter.VAR_KEYWORD in kinds:
                strategy = target(seed=seed, **params)
            else:
                strategy = FunctionStrategy(_without_params(target, spec, params), name=spec)
        else:
            raise ValueError(f"{spec!r} is not a strategy: give a class, a factory or a choose(state, legal_actions)")
    except TypeError as error:
        raise ValueError(f"the strategy {spec!r} does not take {sorted(params) or 'a seed'}: {error}") from None
    if callable(strategy) and not hasattr(strategy, "choose"):
        strategy = FunctionStrategy(strategy, name=spec)
    return strategy


def _without_params(target: Any, spec: str, params: dict[str, Any]) -> Any:
    if params:
        raise ValueError(f"the strategy {spec!r} takes no parameters (give a class or a factory with a seed "
                         f"parameter to take some)")
    return target


__all__ = ["BaseStrategy", "HeuristicStrategy", "RandomStrategy", "STRATEGIES", "SearchStrategy", "Strategy",
           "imported_strategy", "make_strategy"]
