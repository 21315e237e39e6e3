"""The ``--strategy`` option, one for every command that runs a bot (``typhoon bot``, ``typhoon play``):
a built-in strategy by name, or one of yours as ``package.module:callable``, loaded by
:func:`clients.strategies.make_strategy` (one loader for all of them).

>>> strategy_label("heuristic"), strategy_label("my_bots.greedy:choose")
('heuristic', 'my_bots.greedy:choose')
>>> len(strategy_label("a" * 80 + ":Greedy")) <= MAX_LABEL, strategy_label("a" * 80 + ":Greedy")
(True, 'Greedy')
"""

from __future__ import annotations

import argparse

#: The longest label, so that "<label> bot" fits a seat's player name (64 characters).
MAX_LABEL = 56


def add_strategy_argument(parser: argparse.ArgumentParser, says: str = "the strategy") -> None:
    """``--strategy NAME|package.module:callable`` (default heuristic), the built-in names in its help."""
    from clients.strategies import STRATEGIES

    parser.add_argument("--strategy", default="heuristic", metavar="NAME|package.module:callable",
                        help=f"{says}: a built-in one ({', '.join(sorted(STRATEGIES))}; default heuristic) or one "
                             f"of your own: a strategy class or factory (called with seed= and the --param "
                             f"values), or a choose(state, legal_actions) function")


def strategy_label(name: str) -> str:
    """A strategy's name as a seat shows it: the name itself, or the callable's alone when the whole
    ``package.module:callable`` is too long."""
    return name if len(name) <= MAX_LABEL else name.rpartition(":")[2][:MAX_LABEL]


__all__ = ["MAX_LABEL", "add_strategy_argument", "strategy_label"]
