"""Random legal actions for both seats of a match: how the load tests, benchmarks and tests play a match
when what they need is a match played (its load, its size in Redis, its events), not a bot's choices.

Each action is chosen among the legal actions the service lists, with ``chooser`` (seeded by the
caller, so a run can be played again), and submitted at the version it was chosen for::

    with TyphoonClient("127.0.0.1:50051") as client:
        match, tokens = client.create_match(seats=["german", "soviet"])
        for played in play_at_random(client, match.match_id, tokens, random.Random("seed")):
            ...  # after each action: measure, report
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from clients.client import TyphoonClient


def play_at_random(client: TyphoonClient, match_id: str, tokens: Mapping[str, str], chooser: random.Random,
                   max_actions: int | None = None) -> Iterator[int]:
    """Submit a random legal action for whichever seat is to act, until the match is over (or
    ``max_actions`` were played); yields how many were played after each."""
    played = 0
    while max_actions is None or played < max_actions:
        legal = client.legal_actions(match_id)
        if not legal.side_to_act:
            return
        client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                      expected_version=legal.version)
        played += 1
        yield played


def play_out(client: TyphoonClient, match_id: str, tokens: Mapping[str, str], chooser: random.Random,
             max_actions: int | None = None) -> int:
    """:func:`play_at_random` to the end of the match (or ``max_actions``); how many actions were played."""
    played = 0
    for played in play_at_random(client, match_id, tokens, chooser, max_actions):
        pass
    return played


__all__ = ["play_at_random", "play_out"]
