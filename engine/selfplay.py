"""Random self-play through the public API: both sides pick uniformly among the legal actions.

The same arguments give the same games: each game's seed is ``{seed}-{number}`` and each player draws
from its own ``random.Random`` seeded from it, never from global randomness.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from typing import Any, Iterator

from .game import Game, new_game


@dataclass(frozen=True)
class SelfplayGame:
    number: int
    seed: str
    winner: str
    points: dict[str, int]
    actions: int
    state_hash: str


def play_random_game(seed: str, scenario: str = "standard", options: dict[str, Any] | None = None
                     ) -> tuple[SelfplayGame, Game]:
    game = new_game(scenario, options, seed=seed)
    chooser = random.Random(f"{seed}-players")
    actions = 0
    while not game.is_terminal():
        game.apply(chooser.choice(game.legal_actions()))
        actions += 1
    result = game.result()
    assert result is not None  # the game is over
    return SelfplayGame(0, seed, result.winner, dict(result.points), actions, game.state_hash()), game


def selfplay(games: int, seed: str, scenario: str = "standard", options: dict[str, Any] | None = None
             ) -> Iterator[SelfplayGame]:
    for number in range(1, games + 1):
        played, _ = play_random_game(f"{seed}-{number}", scenario, options)
        yield SelfplayGame(number, played.seed, played.winner, played.points, played.actions, played.state_hash)


def run_cli(games: int, seed: str, scenario: str, options_text: str) -> int:
    """``typhoon selfplay``: one line per game, then the summary. Bad options are a one-line error."""
    from .errors import IllegalAction
    from .options import Options

    try:
        options = Options.parse(options_text).to_json()
        new_game(scenario, options)
    except IllegalAction as error:
        print(f"typhoon selfplay: {error.message}", file=sys.stderr)
        return 2
    results = []
    for game in selfplay(games, seed, scenario, options):
        results.append(game)
        print(f"game {game.number}: seed {game.seed} winner {game.winner} "
              f"VP german {game.points['german']} soviet {game.points['soviet']} "
              f"actions {game.actions} state {game.state_hash[:16]}", flush=True)
    print(summary(results))
    return 0


def summary(results: list[SelfplayGame]) -> str:
    count = len(results) or 1
    wins = {side: sum(r.winner == side for r in results) for side in ("german", "soviet", "draw")}
    mean = {side: sum(r.points[side] for r in results) / count for side in ("german", "soviet")}
    return (f"{len(results)} games: German wins {wins['german']}, Soviet wins {wins['soviet']}, "
            f"draws {wins['draw']}; mean VP German {mean['german']:.2f}, Soviet {mean['soviet']:.2f}")
