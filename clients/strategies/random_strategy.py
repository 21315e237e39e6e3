"""The random player: a uniform choice among the legal actions."""

from __future__ import annotations

import engine
from engine import Action

from .base import BaseStrategy


class RandomStrategy(BaseStrategy):
    """Picks uniformly among the legal actions with its own seeded generator."""

    name = "random"

    def __init__(self, seed=None, **params) -> None:
        self.refuse_unknown(params, set())
        super().__init__(seed, **params)

    def decide(self, state: engine.Game, legal_actions: list[Action]) -> Action:
        return self.rng.choice(legal_actions)
