"""The strategy protocol and a base class with the fallbacks every strategy needs.

A strategy is any object with a ``name`` and a ``choose(state, legal_actions)`` method that returns one of
``legal_actions``. ``state`` is the live :class:`engine.Game`: a strategy may read it (and clone it), never
change it.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol, runtime_checkable

import engine
from engine import Action, EndPhase


@runtime_checkable
class Strategy(Protocol):
    """What the arena and the match runner need from a player."""

    name: str

    def choose(self, state: engine.Game, legal_actions: list[Action]) -> Action:
        """Return one action of ``legal_actions`` (never empty) for ``state.current_player()``."""
        ...


class FunctionStrategy:
    """A plain ``choose(state, legal_actions)`` function as a strategy."""

    def __init__(self, function: Callable[[engine.Game, list[Action]], Action], name: str | None = None) -> None:
        self.function = function
        self.name = name or getattr(function, "__name__", "function")

    def choose(self, state: engine.Game, legal_actions: list[Action]) -> Action:
        return self.function(state, legal_actions)


class BaseStrategy:
    """A strategy with its own random generator, its parameters and a safe default move.

    Subclasses override :meth:`choose` (or :meth:`decide`, which :meth:`choose` calls and checks). Anything
    the subclass does not understand — an action type or a phase added to the engine later — should go to
    :meth:`fallback`, which never fails: it ends the phase when that is allowed, otherwise picks the first
    legal action.

    ``seed`` seeds ``self.rng`` (a private ``random.Random``; never use the global ``random`` functions, so
    that two strategies with the same seed make the same choices). ``params`` are kept in ``self.params``.
    """

    name = "base"

    @staticmethod
    def refuse_unknown(params: dict[str, Any], known: set[str]) -> None:
        """A ValueError naming any of ``params`` not in ``known`` (``strict`` is always known): a
        misspelt parameter must not be silently ignored."""
        unknown = sorted(set(params) - known - {"strict"})
        if unknown:
            raise ValueError(f"unknown strategy parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(known | {'strict'}))}")

    def __init__(self, seed: Any = None, **params: Any) -> None:
        self.seed = seed
        self.rng = random.Random(seed if isinstance(seed, (int, str, bytes)) or seed is None else str(seed))
        self.params = dict(params)

    def choose(self, state: engine.Game, legal_actions: list[Action]) -> Action:
        if not legal_actions:
            raise ValueError("choose() needs at least one legal action")
        try:
            action = self.decide(state, legal_actions)
        except Exception:  # a strategy bug must not lose the game: play something legal
            if self.params.get("strict"):
                raise
            action = None
        if action is None or action not in legal_actions:
            action = self.fallback(state, legal_actions)
        return action

    def decide(self, state: engine.Game, legal_actions: list[Action]) -> Action | None:
        """The subclass's choice; None (or an action not in the list) means "use the fallback"."""
        return None

    def fallback(self, state: engine.Game, legal_actions: list[Action]) -> Action:
        """End the phase if that is allowed, else the first legal action (deterministic)."""
        for action in legal_actions:
            if isinstance(action, EndPhase):
                return action
        return legal_actions[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r}, params={self.params!r})"
