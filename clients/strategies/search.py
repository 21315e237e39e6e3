"""The search player: the heuristic's plans, checked against the future by simulation.

At the start of each of its replacement and movement phases and of each battle declaration, it builds a
handful of candidate plans for the whole phase — what the heuristic would do, and what heuristic
variants would do (more or less aggressive or cautious, holding further forward or further back,
restoring rather than bringing back units, ...; for combat also the plan with its weakest battles left
out) — and plays each of them out on copies of the game (:meth:`engine.Game.clone`): the plan, then both
sides played by the heuristic until the same point of the next turn (``horizon`` turns later) or the end
of the game. A play-out that ends the game scores the victory point lead and a bonus for the win; one
that stops before is scored, for the Soviet side, by the final score the learned evaluation expects
from the position (:mod:`.evaluation`: victory points, strength and units on the map, the Germans'
distance to Moscow), and for the German side by victory points plus a little for strength on the map
(``evaluation``: ``auto``, the default, ``points`` or ``learned`` for both sides).

Every candidate is tried with the same dice (common random numbers: the copies get fresh dice seeds of
the searcher's own — never the match's seed, which would show the real future rolls), rounds of play-outs
are added until the work budget of the decision is spent (see below), the weaker half of the candidates is dropped
after every second round, and another plan replaces the heuristic's own only when it is clearly better
(its lead, paired round by round, is well above the noise of the dice). From the turn before the last,
play-outs go to the end of the game and score the real result. Pending battle decisions are the
heuristic's, so a game stays fast: about 25 searched decisions per side and game.

How much it searches is a deterministic amount of work by default, so that its strength does not depend
on how busy the machine is: ``playouts`` per searched decision (over all candidates). ``level`` picks a
preset of ``playouts`` and ``max_candidates`` (see :data:`LEVELS`; level 3, the default, takes about
0.8 s of CPU per searched decision on average, see docs/BOTS.md#levels). ``budget`` (seconds per
searched decision) replaces the play-out count by a wall-clock limit, which makes the bot weaker when
the machine is busy.

Parameters: ``level`` (1-3, default 3), ``playouts``, ``budget``, ``horizon`` (turns to look ahead,
default 1), ``max_candidates``, ``min_rounds`` (default 1), ``confidence`` (how many standard errors a plan
must beat the heuristic's own plan by, default 1.5), ``margin`` (the lead in points needed after a single
round, default 4), ``evaluation`` (see above), plus the heuristic's weights.
"""

from __future__ import annotations

import time
from dataclasses import fields, replace
from typing import Any

import engine
from engine import Action, CloseDeclarations, DeclareAttack

from .analysis import other
from .evaluation import predict
from .heuristic import HeuristicStrategy
from .tactics import Weights, plan_battles

#: weight variants tried as alternative plans: (side, phase) → overrides of the heuristic's weights
VARIANTS: dict[tuple[str, str], list[dict[str, float]]] = {
    ("german", "german_replacement"): [
        {"mat_german": 0.3},
    ],
    ("german", "german_panzer_movement"): [
        {"attack_threshold": 0.4},
        {"attack_threshold": -0.1, "economy": 0.0},
        {"mat_german": 0.25},
        {"hold": 0.9},
        {"g_progress": 0.8},
    ],
    ("german", "german_movement"): [
        {"g_risk": 2.0, "g_support": 0.3},
        {"g_risk": 0.5, "g_progress": 0.6},
        {"g_contact": 0.6, "g_progress": 0.2},
        {"g_garrison": 2.0},
        {"g_risk": 3.0, "g_contact": 0.1},
    ],
    ("german", "german_combat"): [
        {"attack_threshold": -0.2},
        {"attack_threshold": 0.4},
        {"mat_german": 0.25},
    ],
    ("soviet", "soviet_replacement"): [
        {"r_front": 4.0},
        {"r_count": 15, "r_needs": 8.0},
        {"r_front": 1.2, "r_count": 13},
    ],
    ("soviet", "soviet_rail_movement"): [
        {"s_attack_threshold": 0.7},
        {"s_attack_threshold": 0.0},
        {"s_concede": 0.2},
        {"s_concede": 0.7},
        {"s_ring": 12.0, "s_ring_distance": 9},
    ],
    ("soviet", "soviet_movement"): [
        {"s_concede": 0.2},
        {"s_concede": 0.7},
        {"s_exposure": 2.0},
        {"s_ring": 12.0, "s_ring_distance": 9},
        {"s_garrison": 2.0, "s_gap": 10.0},
        {"s_exposure": 0.5, "s_concede": 0.55},
        {"s_staging": 2.0},
    ],
    ("soviet", "soviet_combat"): [
        {"s_attack_threshold": -0.1},
        {"s_attack_threshold": 0.7},
        {"mat_soviet": 0.12},
    ],
}

#: ``evaluation`` → the sides whose play-outs are scored by the learned evaluation (:mod:`.evaluation`)
#: rather than by the victory points where they stop: by default the Soviet's, whose plans' victory
#: points a turn ahead say little about the end (see docs/BOTS.md)
EVALUATIONS: dict[str, tuple[str, ...]] = {"auto": ("soviet",), "points": (), "learned": ("german", "soviet")}

#: level → the search's work per decision: play-outs (over all candidates) and candidate plans
LEVELS: dict[int, dict[str, int]] = {
    1: {"playouts": 4, "max_candidates": 2},
    2: {"playouts": 10, "max_candidates": 4},
    3: {"playouts": 20, "max_candidates": 4},
}

_ORDER = {"german_supply": 0, "german_replacement": 1, "german_panzer_movement": 2, "german_combat": 3,
          "german_movement": 4, "soviet_supply": 5, "soviet_replacement": 6, "soviet_rail_movement": 7,
          "soviet_combat": 8, "soviet_movement": 9}


def phase_position(state: engine.Game) -> tuple[int, int]:
    """(turn, place of the phase in the turn), for comparing how far a game has got."""
    name = getattr(state.phase, "name", "")
    if name == "setup":
        return (0, 0)
    return (state.turn, _ORDER.get(name, 0 if state.phase.side == "german" else 5))


def evaluate(state: engine.Game, side: str, learned: bool = False) -> float:
    """Score of a position for ``side``: victory point lead, a little for strength on the map, and a
    bonus for the win when the game is over; with ``learned``, before the end, the final score the
    learned evaluation expects (:mod:`.evaluation`) where it has a model for the phase."""
    points = state.victory_points()
    enemy = other(side)
    score = float(points[side] - points[enemy])
    result = state.result()
    if result is not None:
        if result.winner == side:
            score += 10.0
        elif result.winner == enemy:
            score -= 10.0
        return score
    if learned:
        expected = predict(state)
        if expected is not None:
            return expected if side == "soviet" else -expected
    material = {"german": 0.0, "soviet": 0.0}
    for unit in state.hex_of:
        material[state.counters[unit].side] += state.strength(unit)
    weight = {"german": 0.12, "soviet": 0.05}
    score += weight[side] * material[side] - weight[enemy] * material[enemy]
    return score


class SearchStrategy(HeuristicStrategy):
    """Heuristic plans chosen by simulated play-outs (see the module docstring)."""

    name = "search"

    def __init__(self, seed: Any = None, **params: Any) -> None:
        self.refuse_unknown(params, {f.name for f in fields(Weights)}
                            | {"level", "playouts", "budget", "horizon", "max_candidates", "min_rounds", "confidence",
                               "margin", "evaluation"})
        level = int(params.pop("level", 3))
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(map(str, LEVELS))}, not {level}")
        preset = LEVELS[level]
        self.level = level
        budget = params.pop("budget", None)
        self.budget = float(budget) if budget is not None else None
        self.playouts = int(params.pop("playouts", preset["playouts"]))
        self.horizon = int(params.pop("horizon", 1))
        self.max_candidates = int(params.pop("max_candidates", preset["max_candidates"]))
        self.min_rounds = int(params.pop("min_rounds", 1))
        self.confidence = float(params.pop("confidence", 1.5))
        self.margin = float(params.pop("margin", 4.0))
        self.evaluation = str(params.pop("evaluation", "auto"))
        if self.evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation must be one of {', '.join(EVALUATIONS)}, not {self.evaluation}")
        super().__init__(seed, **params)
        self.searches = 0
        self.rollouts = 0
        self._script: list[Action] = []
        self._script_key: tuple | None = None

    # --- candidate plans ---

    def _weights(self, overrides: dict[str, float]) -> Weights:
        return replace(self.w, **overrides)

    def _params(self, w: Weights) -> dict[str, float]:
        return {f: getattr(w, f) for f in w.__dataclass_fields__}

    def phase_plan(self, state: engine.Game, w: Weights) -> list[Action]:
        """What the heuristic with weights ``w`` would play in this phase (a dice-free phase), found by
        playing it on a copy."""
        sim = state.clone()
        player = HeuristicStrategy(self.seed, **self._params(w))
        side, phase, turn = state.current_player(), state.phase.name, state.turn
        actions: list[Action] = []
        while (not sim.is_terminal() and sim.current_player() == side and sim.phase.name == phase
               and sim.turn == turn and len(actions) < 200):
            action = player.choose(sim, sim.legal_actions())
            actions.append(action)
            sim.apply(action)
        return actions

    def phase_candidates(self, state: engine.Game, side: str) -> list[list[Action]]:
        plans: list[list[Action]] = []
        seen = set()
        for overrides in [{}] + VARIANTS.get((side, state.phase.name), []):
            actions = self.phase_plan(state, self._weights(overrides))
            key = tuple(actions)
            if key not in seen:
                seen.add(key)
                plans.append(actions)
            if len(plans) >= self.max_candidates:
                break
        return plans

    def combat_candidates(self, state: engine.Game, side: str) -> list[list[Action]]:
        plans: list[list[Action]] = []
        seen = set()

        def add(battles):
            key = tuple(sorted((d, tuple(sorted(a))) for d, a in battles))
            if key in seen:
                return
            seen.add(key)
            actions: list[Action] = [DeclareAttack((a,), d) for d, attackers in battles for a in attackers]
            plans.append(actions + [CloseDeclarations()])

        base = plan_battles(state, side, self.w)
        add(base)
        if base:
            add(base[:-1])
        if len(base) > 2:
            add(base[:-2])
        for overrides in VARIANTS.get((side, state.phase.name), []):
            add(plan_battles(state, side, self._weights(overrides)))
        return plans[: self.max_candidates]

    # --- simulation ---

    def _rollout(self, state: engine.Game, plan: list[Action], side: str, round_index: int) -> float:
        sim = state.clone()
        sim.seed = f"search:{self.seed}:{self.searches}:{round_index}"
        sim.fixed_dice = ()
        params = self._params(self.w)
        policies = {s: HeuristicStrategy(f"{self.seed}:{round_index}:{s}", **params) for s in ("german", "soviet")}
        for action in plan:
            if sim.is_terminal() or sim.current_player() != side:
                break
            legal = sim.legal_actions()
            if action not in legal:
                break
            sim.apply(action)
        stop = (state.turn + self.horizon, phase_position(state)[1])
        if state.turn + self.horizon >= state.scenario.last_turn:
            stop = (10 ** 6, 0)  # the end is near: play to it and score the real result
        steps = 0
        while not sim.is_terminal() and steps < 5000 and phase_position(sim) < stop:
            player = sim.current_player()
            sim.apply(policies[player].choose(sim, sim.legal_actions()))
            steps += 1
        self.rollouts += 1
        return evaluate(sim, side, learned=side in EVALUATIONS[self.evaluation])

    def pick(self, state: engine.Game, plans: list[list[Action]], side: str) -> list[Action]:
        """The plan to play: the heuristic's own (candidate 0) unless another one beats it clearly.

        Every round plays each live candidate once with the same dice; the comparison is on the paired
        differences with candidate 0, so that the dice shared by both cancel out. A candidate replaces the
        heuristic's plan only when its mean lead is above ``confidence`` standard errors (and above
        ``margin`` points while there is only one round). The weaker half of the challengers is dropped
        after every second round; a round the budget cuts short is not counted.
        """
        if len(plans) <= 1 or (self.budget is not None and self.budget <= 0):
            return plans[0] if plans else []
        self.searches += 1
        deadline = time.perf_counter() + self.budget if self.budget is not None else None
        spent = 0

        def out_of_work() -> bool:
            if deadline is not None:
                return time.perf_counter() >= deadline
            return spent >= self.playouts

        alive = list(range(len(plans)))
        scores: list[list[float]] = [[] for _ in plans]
        rounds = 0
        while rounds < 200:
            if rounds >= self.min_rounds and deadline is None and spent + len(alive) > self.playouts:
                break  # a round the play-out budget cannot finish is not started
            partial = {}
            for i in alive:
                partial[i] = self._rollout(state, plans[i], side, rounds)
                spent += 1
                if rounds >= self.min_rounds and deadline is not None and out_of_work():
                    break
            if len(partial) < len(alive):
                break
            for i, v in partial.items():
                scores[i].append(v)
            rounds += 1
            if rounds >= self.min_rounds and out_of_work():
                break
            if rounds % 2 == 0 and len(alive) > 2:
                challengers = sorted((i for i in alive if i != 0), key=lambda i: (-sum(scores[i]), i))
                alive = [0] + sorted(challengers[: max(1, len(challengers) // 2)])
        if rounds == 0:
            return plans[0]
        best, best_lead = 0, 0.0
        for i in alive:
            if i == 0:
                continue
            diffs = [a - b for a, b in zip(scores[i], scores[0])]
            n = len(diffs)
            mean = sum(diffs) / n
            if n == 1:
                clear = mean > self.margin
            else:
                var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
                clear = mean > 0 and mean > self.confidence * (var / n) ** 0.5
            if clear and mean > best_lead:
                best, best_lead = i, mean
        return plans[best]

    # --- hooks into the heuristic ---

    def decide(self, state: engine.Game, legal: list[Action]) -> Action | None:
        side = state.current_player()
        kind = getattr(state.phase, "kind", None)
        if state.pending_decision() is None and kind in ("replacement", "movement"):
            key = (state.turn, state.phase.name, side)
            if self._script_key != key:
                self._script_key = key
                self._script = self.pick(state, self.phase_candidates(state, side), side)
            while self._script:
                action = self._script.pop(0)
                if action in legal:
                    return action
                self._script = []  # off the script: the heuristic takes over for the rest of the phase
        return super().decide(state, legal)

    def plan_declarations(self, state: engine.Game, side: str) -> list[tuple[str, str]]:
        chosen = self.pick(state, self.combat_candidates(state, side), side)
        return [(a.defender, a.attackers[0]) for a in chosen if isinstance(a, DeclareAttack)]
