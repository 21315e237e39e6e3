"""An engine-only arena: strategies play whole games against each other, no network involved.

>>> from clients.strategies import make_strategy
>>> record = play_game(make_strategy("random", 1), make_strategy("random", 2), seed="doc")
>>> record.winner in ("german", "soviet", "draw")
True
>>> tally = run_games("random", "random", games=2, seed="doc")
>>> tally.games
2
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import engine
from engine import IllegalAction

from clients.strategies import Strategy, make_strategy
from clients.wording import counted


@dataclass
class GameRecord:
    """The outcome of one game."""

    seed: str
    german: str
    soviet: str
    winner: str
    points: dict[str, int]
    actions: int
    seconds: float
    decision_seconds: dict[str, float] = field(default_factory=dict)
    max_decision_seconds: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    illegal: int = 0


def play_game(german: Strategy, soviet: Strategy, seed: str = "arena", scenario: str = "standard",
              options: dict | None = None, max_actions: int = 20000, check_legal: bool = True) -> GameRecord:
    """Play one game to its end: ``german`` and ``soviet`` choose every action of their side.

    An illegal choice is counted (``GameRecord.illegal``) and replaced by the first legal action, so a
    broken strategy shows up in the figures instead of stopping the arena.
    """
    game = engine.new_game(scenario, options, seed=seed)
    players = {"german": german, "soviet": soviet}
    spent = {"german": 0.0, "soviet": 0.0}
    longest = {"german": 0.0, "soviet": 0.0}
    counts = {"german": 0, "soviet": 0}
    illegal = 0
    actions = 0
    start = time.perf_counter()
    while not game.is_terminal() and actions < max_actions:
        side = game.current_player()
        legal = game.legal_actions()
        t0 = time.perf_counter()
        action = players[side].choose(game, legal)
        took = time.perf_counter() - t0
        spent[side] += took
        longest[side] = max(longest[side], took)
        counts[side] += 1
        if check_legal and action not in legal:
            illegal += 1
            action = legal[0]
        try:
            game.apply(action)
        except IllegalAction:
            illegal += 1
            game.apply(legal[0])
        actions += 1
    result = game.result()
    if result is None:  # cut off: score the position as it stands
        points = game.victory_points()
        winner = "draw" if points["german"] == points["soviet"] else max(points, key=points.get)
    else:
        points, winner = dict(result.points), result.winner
    return GameRecord(seed, getattr(german, "name", "?"), getattr(soviet, "name", "?"), winner, points, actions,
                      time.perf_counter() - start, spent, longest, counts, illegal)


@dataclass
class Tally:
    """Wins, draws and mean victory points over a series of games."""

    german: str
    soviet: str
    games: int = 0
    wins: dict[str, int] = field(default_factory=lambda: {"german": 0, "soviet": 0, "draw": 0})
    points: dict[str, float] = field(default_factory=lambda: {"german": 0.0, "soviet": 0.0})
    seconds: float = 0.0
    illegal: int = 0
    records: list[GameRecord] = field(default_factory=list)

    def add(self, record: GameRecord) -> None:
        self.games += 1
        self.wins[record.winner] += 1
        for side in ("german", "soviet"):
            self.points[side] += record.points[side]
        self.seconds += record.seconds
        self.illegal += record.illegal
        self.records.append(record)

    def mean_points(self) -> dict[str, float]:
        return {side: self.points[side] / max(1, self.games) for side in ("german", "soviet")}

    def summary(self) -> str:
        mean = self.mean_points()
        return (f"{self.german} (German) vs {self.soviet} (Soviet), {counted(self.games, 'game')}: German wins "
                f"{self.wins['german']}, Soviet wins {self.wins['soviet']}, draws {self.wins['draw']}; mean VP "
                f"German {mean['german']:.1f}, Soviet {mean['soviet']:.1f}; {self.seconds / max(1, self.games):.2f} s "
                f"per game" + (f"; {self.illegal} illegal choices" if self.illegal else ""))


def run_games(german: str | Callable[[Any], Strategy], soviet: str | Callable[[Any], Strategy], games: int = 10,
              seed: str = "arena", german_params: dict | None = None, soviet_params: dict | None = None,
              scenario: str = "standard", options: dict | None = None,
              progress: Callable[[int, GameRecord], None] | None = None) -> Tally:
    """Play ``games`` games and tally them. ``german``/``soviet`` are registry names (see
    :data:`clients.strategies.STRATEGIES`) or factories called with a per-game seed.

    Game ``i`` uses the match seed ``f"{seed}-{i}"``; each strategy gets its own seed derived from it, so the
    same call gives the same games.
    """
    def build(spec, params, game_seed, role):
        if isinstance(spec, str):
            return make_strategy(spec, f"{game_seed}-{role}", **(params or {}))
        return spec(f"{game_seed}-{role}")

    tally = None
    for i in range(1, games + 1):
        game_seed = f"{seed}-{i}"
        g = build(german, german_params, game_seed, "german")
        s = build(soviet, soviet_params, game_seed, "soviet")
        if tally is None:
            tally = Tally(getattr(g, "name", str(german)), getattr(s, "name", str(soviet)))
        record = play_game(g, s, game_seed, scenario, options)
        tally.add(record)
        if progress:
            progress(i, record)
    return tally or Tally(str(german), str(soviet))
