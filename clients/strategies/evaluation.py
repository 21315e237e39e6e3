"""A learned evaluation: the expected end of the game, predicted from a position.

The search's play-outs stop a turn ahead (or so); scoring them by the victory points of that moment
misjudges plans whose cost or gain comes later (a unit brought back now, a city given up for a better
line), and playing them to the end is much noisier. This model predicts the final score of the game —
the Soviet victory point lead at the end, plus 10 for the Soviet win (minus 10 for the German) — from a
few features of the position, with one linear model per turn and phase, fitted by least squares on
heuristic self-play (:mod:`clients.strategies.fit_evaluation` makes ``data/evaluation.json`` from a seed).

>>> import engine
>>> game = engine.new_game("standard", None, seed="doc")
>>> _ = game.apply(game.legal_actions()[0])  # the German set-up
>>> round(predict(game), 1) == round(predict(game.clone()), 1)
True
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import engine

from .analysis import board_info

MODEL_PATH = Path(__file__).with_name("data") / "evaluation.json"

#: the features, in the model's order
FEATURES = ("bias", "points", "soviet_strength", "german_strength", "soviet_units", "german_to_moscow",
            "germans_near_moscow")


def features(state: engine.Game) -> list[float]:
    """The position's features, Soviet minus German where it has two sides (see :data:`FEATURES`)."""
    info = board_info(state)
    points = state.victory_points()
    strength = {"german": 0, "soviet": 0}
    soviet_units = 0
    nearest = 20
    near = 0
    for unit, h in state.hex_of.items():
        side = state.counters[unit].side
        strength[side] += state.strength(unit)
        if side == "soviet":
            soviet_units += 1
        else:
            d = info.to_capital[h]
            nearest = min(nearest, d)
            near += d <= 4
    return [1.0, float(points["soviet"] - points["german"]), float(strength["soviet"]), float(strength["german"]),
            float(soviet_units), float(min(nearest, 20)), float(near)]


def phase_key(state: engine.Game) -> str:
    """The model's key for a position: turn and phase, e.g. ``"3:soviet_movement"``."""
    return f"{state.turn}:{getattr(state.phase, 'name', '')}"


@lru_cache(maxsize=4)
def load_model(path: str = str(MODEL_PATH)) -> dict[str, list[float]]:
    """Phase key → the coefficients of :data:`FEATURES` (empty if there is no model file)."""
    file = Path(path)
    if not file.exists():
        return {}
    data = json.loads(file.read_text(encoding="utf-8"))
    if tuple(data.get("features", ())) != FEATURES:
        raise ValueError(f"{path}: made for features {data.get('features')}, not {list(FEATURES)}")
    return {key: list(map(float, row)) for key, row in data["coefficients"].items()}


def predict(state: engine.Game, model: dict[str, list[float]] | None = None) -> float | None:
    """The expected final score for the Soviet side (see the module docstring), or None when the model
    has no coefficients for the position's turn and phase."""
    coefficients = (load_model() if model is None else model).get(phase_key(state))
    if coefficients is None:
        return None
    return sum(c * x for c, x in zip(coefficients, features(state)))
