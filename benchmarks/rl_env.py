"""Benchmark of the RL environments (clients/rl, docs/RL.md): their steps per CPU second against the raw
engine in the same run, and OpenSpiel's MCTS bot against the built-in random and heuristic players.

    .venv/bin/python benchmarks/rl_env.py [--rounds 5] [--steps 4000]          # speed only
    .venv/bin/python benchmarks/rl_env.py --mcts [--games 20] [--simulations 10] [--depth 10]
    .venv/bin/python benchmarks/rl_env.py --mcts-only ...

**Speed.** Each loop plays random legal moves of the standard scenario, new games as they end, for
``--steps`` steps, counting the CPU seconds of this process (pinned to one core) over ``--rounds`` rounds,
the loops in a different order each round so that a machine growing busier weighs on all alike; the median
of the rounds is printed, and its ratio to the raw engine's:

- ``engine``: ``game.apply(choice(game.legal_actions()))``, the floor;
- ``numbered``: the same game by action numbers (``NumberedGame.legal_ids`` and ``play``): the numbering's
  cost, no observation;
- ``pettingzoo``: the AEC loop (``last()`` with the observation planes and the mask, ``step``);
- ``gymnasium``: the single-agent environment against the ``random`` strategy (a step is the agent's
  number; the opponent's moves between steps are in the time);
- ``openspiel``: ``state.apply_action`` of a random legal number, or of a random face at a chance node.

A step of the first two and of OpenSpiel is a number (or an engine action); the engine's actions are a
little fewer than the numbers (retreats and exchange losses take a few). The engine is whatever
``import engine`` gives (``engine`` in the output says which file: a compiled build imports an extension
module); ``--pure-too`` runs the rounds again in a child process with ``TYPHOON_PURE_ENGINE=1``.

**MCTS.** OpenSpiel's ``MCTSBot`` (UCT, c = 2) with ``--simulations`` simulations a decision and the
:class:`clients.rl.spiel.PointsRolloutEvaluator`: ``--depth`` random moves from the leaf, then the result
if the game ended, else tanh of the lead in victory points / 20. Both bounds keep a game to minutes: a
full random rollout is ~1,000 moves, and a decision of the standard scenario often has hundreds of legal
numbers, so the bot searches little of its tree (it is no strong player; the figure is a floor for
search on this game). It plays ``--games`` games from each side against ``random`` and ``heuristic``
(clients/strategies), whose choices go in as numbers; dice are chance nodes sampled from their
probabilities with a seeded generator. Win rates come with 95 % Wilson intervals; a draw counts half.

Measured 2026-11-28 (machine shared, load 12-30 on 2 cores; pure engine): engine 30,118 steps per CPU
second, numbered 13,453 (0.45x), PettingZoo 4,004 (0.13x), Gymnasium 3,000 (0.10x), OpenSpiel 8,516
(0.28x). A PettingZoo step is mostly its observation (~90 us: ``to_json``, each unit's communication from
the engine, ~25 numpy writes) and the numbering of the legal actions (~25 us). The communication of all
units at once (``Game.communication_of``, a call a side, instead of ``in_communication`` a unit): 21 -> 14 us a
position, and PettingZoo 0.175x -> 0.188x of the engine, Gymnasium 0.131x -> 0.142x (medians of 4 runs of
each commit alternated, machine shared). MCTS at 10 simulations and
rollouts of 10 moves (~14 CPU ms a decision): against random 9/20 as German (random in that seat: 3/20)
and 17/20 as Soviet (random: 18/20); against heuristic 0/20 from each side (random: 0/20).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline import one_core  # noqa: E402

import engine  # noqa: E402
from clients.rl import NumberedGame, TyphoonAEC, TyphoonSingle  # noqa: E402
from clients.strategies import make_strategy  # noqa: E402

LOOPS = ("engine", "numbered", "pettingzoo", "gymnasium", "openspiel")


# --- speed ---------------------------------------------------------------------------------------------

def run_engine(steps: int, seed: int) -> int:
    chooser = random.Random(seed)
    game = engine.new_game("standard", seed=f"bench-{seed}")
    for count in range(steps):
        if game.is_terminal():
            game = engine.new_game("standard", seed=f"bench-{seed}-{count}")
        game.apply(chooser.choice(game.legal_actions()))
    return steps


def run_numbered(steps: int, seed: int) -> int:
    chooser = random.Random(seed)
    play = NumberedGame(engine.new_game("standard", seed=f"bench-{seed}"))
    for count in range(steps):
        if play.game.is_terminal():
            play.moved_to(engine.new_game("standard", seed=f"bench-{seed}-{count}"))
        play.play(chooser.choice(play.legal_ids()))
    return steps


def run_pettingzoo(steps: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    aec = TyphoonAEC()
    aec.reset(seed=seed)
    done = 0
    while done < steps:
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            if not aec.agents:
                aec.reset()
            continue
        aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        done += 1
    return done


def run_gymnasium(steps: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    single = TyphoonSingle(side="german", opponent="random")
    observation, _ = single.reset(seed=seed)
    for _ in range(steps):
        observation, _, terminated, truncated, _ = single.step(
            int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if terminated or truncated:
            observation, _ = single.reset()
    return steps


def run_openspiel(steps: int, seed: int) -> int:
    import pyspiel

    import clients.rl.spiel  # noqa: F401  (registers the game)

    rng = np.random.default_rng(seed)
    game = pyspiel.load_game("python_typhoon_bfm")
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            state.apply_action(int(rng.integers(6)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return steps


RUNNERS: dict[str, Callable[[int, int], int]] = {
    "engine": run_engine, "numbered": run_numbered, "pettingzoo": run_pettingzoo, "gymnasium": run_gymnasium,
    "openspiel": run_openspiel,
}


def speed(rounds: int, steps: int) -> dict[str, object]:
    """Steps per CPU second of each loop: the median of ``rounds`` alternated rounds, and every round's."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {one_core()})
    per_loop: dict[str, list[float]] = {name: [] for name in LOOPS}
    for number in range(rounds):
        order = LOOPS[number % len(LOOPS):] + LOOPS[:number % len(LOOPS)]
        for name in order:
            start = time.process_time()
            done = RUNNERS[name](steps, 0)  # the same games each round
            per_loop[name].append(done / (time.process_time() - start))
    median = {name: statistics.median(values) for name, values in per_loop.items()}
    return {"engine_file": engine.game.__file__, "median": median, "rounds": per_loop}


def print_speed(figures: dict[str, object], label: str) -> None:
    median = figures["median"]
    assert isinstance(median, dict)
    floor = median["engine"]
    print(f"{label} (engine from {figures['engine_file']}): steps per CPU second, median of rounds")
    for name in LOOPS:
        rounds = ", ".join(f"{value:,.0f}" for value in figures["rounds"][name])  # type: ignore[index]
        print(f"  {name:<11} {median[name]:>9,.0f}   x{median[name] / floor:.3f} of the engine   ({rounds})")


# --- MCTS ----------------------------------------------------------------------------------------------

def mcts_games(opponent: str, side: str, games: int, simulations: int, depth: int,
               player: str = "mcts") -> list[tuple[float, int, float]]:
    """(score of the MCTS bot: 1 win, 0.5 draw, 0 loss; its decisions; CPU seconds) of each game. With
    ``player="random"`` a uniformly random number takes the bot's seat in the same games: the floor."""
    import pyspiel
    from open_spiel.python.algorithms import mcts

    from clients.rl.spiel import PLAYERS, PointsRolloutEvaluator

    game = pyspiel.load_game("python_typhoon_bfm")
    seat = PLAYERS.index(side)
    results = []
    for number in range(games):
        seed = f"mcts-{opponent}-{side}-{number}"
        evaluator = PointsRolloutEvaluator(depth=depth, random_state=np.random.RandomState(number))
        bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator,
                           random_state=np.random.RandomState(1000 + number))
        other = make_strategy(opponent, seed=seed)
        dice = np.random.default_rng(2000 + number)
        state = game.new_initial_state()
        decisions, start = 0, time.process_time()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(dice.integers(6)))
            elif state.current_player() == seat:
                legal = state.legal_actions()
                state.apply_action(bot.step(state) if player == "mcts" else int(dice.choice(legal)))
                decisions += 1
            else:
                inside = state.engine_game()
                for action_number in state.play.numbers_of(other.choose(inside, inside.legal_actions())):
                    state.apply_action(action_number)
        winner = state.engine_game().result().winner
        score = 0.5 if winner == "draw" else float(winner == side)
        results.append((score, decisions, time.process_time() - start))
        if player == "mcts":
            print(f"  mcts as {side} vs {opponent}, game {number + 1}: {winner} wins; {decisions} MCTS decisions, "
                  f"{results[-1][2]:.0f} CPU s", flush=True)
    return results


def wilson(wins: float, games: int) -> tuple[float, float]:
    from scipy.stats import binomtest

    interval = binomtest(round(wins), games).proportion_ci(confidence_level=0.95, method="wilson")
    return float(interval.low), float(interval.high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=4000, help="steps of each loop in a round")
    parser.add_argument("--pure-too", action="store_true", help="the speed rounds again with TYPHOON_PURE_ENGINE=1")
    parser.add_argument("--mcts", action="store_true", help="also MCTS against random and heuristic")
    parser.add_argument("--mcts-only", action="store_true", help="MCTS only, no speed rounds")
    parser.add_argument("--games", type=int, default=20, help="MCTS games from each side against each opponent")
    parser.add_argument("--simulations", type=int, default=10, help="MCTS simulations a decision")
    parser.add_argument("--depth", type=int, default=10, help="random moves of a rollout before the points count")
    parser.add_argument("--opponents", default="random,heuristic")
    parser.add_argument("--json", action="store_true", help="print the speed figures as JSON (the --pure-too child)")
    args = parser.parse_args(argv)
    print("machine shared with other sessions: figures are ratios within this run", flush=True)
    if not args.mcts_only:
        figures = speed(args.rounds, args.steps)
        if args.json:
            print(json.dumps(figures))
            return 0
        print_speed(figures, "default build")
        if args.pure_too:
            child = subprocess.run([sys.executable, __file__, "--json", "--rounds", str(args.rounds), "--steps",
                                    str(args.steps)], env=dict(os.environ, TYPHOON_PURE_ENGINE="1"), check=True,
                                   capture_output=True, text=True)
            print_speed(json.loads(child.stdout.strip().splitlines()[-1]), "TYPHOON_PURE_ENGINE=1")
    if args.mcts or args.mcts_only:
        print(f"MCTS: {args.simulations} simulations a decision, rollouts of {args.depth} moves then points; "
              f"{args.games} games from each side", flush=True)
        rows = []
        for opponent in args.opponents.split(","):
            for side in ("german", "soviet"):
                results = mcts_games(opponent, side, args.games, args.simulations, args.depth)
                score = sum(r[0] for r in results)
                low, high = wilson(score, len(results))
                seconds = sum(r[2] for r in results) / max(1, sum(r[1] for r in results))
                floor = sum(r[0] for r in mcts_games(opponent, side, args.games, 0, 0, player="random"))
                rows.append((opponent, side, score, len(results), low, high, seconds, floor))
        print("MCTS results (score: wins + draws / 2; floor: a uniformly random number in the same seat and games)")
        for opponent, side, score, games, low, high, seconds, floor in rows:
            print(f"  vs {opponent:<9} as {side:<6}: {score:4.1f}/{games}  {score / games:5.0%}  "
                  f"[{low:.0%}, {high:.0%}]   floor {floor:4.1f}/{games}   {seconds * 1000:.0f} CPU ms an MCTS "
                  f"decision (with the opponent's moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
