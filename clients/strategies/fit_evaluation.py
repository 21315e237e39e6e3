"""Make the learned evaluation (:mod:`clients.strategies.evaluation`) from heuristic self-play.

Plays ``--games`` games through the engine (no service), the heuristic on both sides with weights
varied per game and side (the search's plan variants, so the positions look like the ones its
play-outs reach), records the features at the start of every phase and the game's final score, and
fits one least-squares linear model per turn and phase. Reproducible: the same seed and games give the
same file.

    .venv/bin/python -m clients.strategies.fit_evaluation --games 600 --seed eval-1
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

import engine
import numpy as np

from .evaluation import FEATURES, MODEL_PATH, features, phase_key
from .heuristic import HeuristicStrategy
from .search import VARIANTS, evaluate


def final_score(state: engine.Game) -> float:
    """The Soviet victory point lead at the end, plus 10 for a Soviet win (minus 10 for a German one):
    the search's score of an ended game for the Soviet side."""
    return evaluate(state, "soviet")


def varied_weights(rng: random.Random, side: str) -> dict[str, float]:
    """One plan variant of each of the side's phases, or none, at random."""
    params: dict[str, float] = {}
    for (s, _phase), variants in sorted(VARIANTS.items()):
        if s == side and rng.random() < 0.5:
            params.update(rng.choice(variants))
    return params


def play(seed: str) -> tuple[list[tuple[str, list[float]]], float]:
    rng = random.Random(seed)
    game = engine.new_game("standard", None, seed=f"fit:{seed}")
    players = {side: HeuristicStrategy(f"{seed}:{side}", **varied_weights(rng, side)) for side in ("german", "soviet")}
    rows = []
    last = None
    while not game.is_terminal():
        key = phase_key(game)
        if key != last and game.pending_decision() is None:
            rows.append((key, features(game)))
            last = key
        game.apply(players[game.current_player()].choose(game, game.legal_actions()))
    return rows, final_score(game)


def fit(games: int, seed: str, ridge: float = 1.0, jobs: int = 1) -> dict:
    samples: dict[str, list[tuple[list[float], float]]] = defaultdict(list)
    seeds = [f"{seed}:{i}" for i in range(games)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        played = list(pool.map(play, seeds, chunksize=8))
    for rows, score in played:
        for key, x in rows:
            samples[key].append((x, score))
    coefficients = {}
    quality = {}
    for key, data in sorted(samples.items()):
        if len(data) < 4 * len(FEATURES):
            continue
        x = np.array([row for row, _ in data])
        y = np.array([score for _, score in data])
        penalty = ridge * np.eye(len(FEATURES))
        penalty[0, 0] = 0.0  # the bias is not shrunk
        beta = np.linalg.solve(x.T @ x + penalty, x.T @ y)
        residual = y - x @ beta
        coefficients[key] = [round(float(b), 5) for b in beta]
        quality[key] = {"samples": len(data), "residual_sd": round(float(residual.std()), 2),
                        "score_sd": round(float(y.std()), 2)}
    return {"features": list(FEATURES), "games": games, "seed": seed, "ridge": ridge,
            "coefficients": coefficients, "fit": quality}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", default="eval-1")
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=1, help="games played at a time (processes)")
    parser.add_argument("-o", "--output", default=str(MODEL_PATH))
    args = parser.parse_args(argv)
    started = time.monotonic()
    model = fit(args.games, args.seed, args.ridge, args.jobs)
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(model, out, indent=1)
        out.write("\n")
    for key, q in model["fit"].items():
        print(f"{key:28s} samples {q['samples']:5d}  final score sd {q['score_sd']:6.2f}  "
              f"residual sd {q['residual_sd']:6.2f}")
    print(f"{len(model['coefficients'])} models from {args.games} games in {time.monotonic() - started:.0f} s "
          f"-> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
