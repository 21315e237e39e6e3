"""Example policies written against the environments, ready for ``typhoon bot --strategy module:callable``.

Each is a factory taking ``seed`` (``typhoon bot --seed``) that returns a strategy (:func:`.as_strategy`).
They show the shape of a policy, not a strong one: train your own (docs/RL.md).

``typhoon bot --strategy clients.rl.examples:attacker`` plays a seat with the first.

>>> from clients.arena import play_game
>>> from clients.strategies import make_strategy
>>> record = play_game(attacker(seed=1), make_strategy("random", seed=2), seed="doc")
>>> record.illegal, record.german
(0, 'attacker')
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

import engine

from .encoding import ActionEncoding
from .strategy import Observation, PolicyStrategy, as_strategy

#: the numbers of the ``attack`` block (the same in every scenario: they number the same counters)
ATTACKS: tuple[int, int] = ActionEncoding(engine.load_scenario("standard")).blocks["attack"]


def attacker(seed: Any = None) -> PolicyStrategy:
    """Declares an attack whenever the mask offers one (the first such number), otherwise picks a legal
    number at random with its own generator."""
    chooser = random.Random(seed)
    first, size = ATTACKS

    def policy(observation: Observation) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        offered = legal[(legal >= first) & (legal < first + size)]
        return int(offered[0]) if len(offered) else int(legal[chooser.randrange(len(legal))])

    return as_strategy(policy, name="attacker")


def random_number(seed: Any = None) -> PolicyStrategy:
    """A legal number at random: the environments' uniform random player."""
    chooser = random.Random(seed)

    def policy(observation: Observation) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[chooser.randrange(len(legal))])

    return as_strategy(policy, name="random-number")


__all__ = ["attacker", "random_number"]
