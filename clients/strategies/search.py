"""The search player: the heuristic's plans, checked against the future by simulation.

At the start of each of its movement phases and of each battle declaration, it builds a handful of
candidate plans for the whole phase — the heuristic's own plan and the plans of heuristic variants (more
or less aggressive, cautious, holding further forward or further back; for combat also the plan with a
marginal battle left out or one more battle in) — and plays each of them out on copies of the game
(:meth:`engine.Game.clone`): the plan, then both sides played by the heuristic until the end of the
opponent's next turn (or the end of the game), scored by victory points plus a little for strength on
the map. Every candidate is tried with the same dice (common random numbers: the copies get fresh dice
seeds of the searcher's own, never the match's), rounds are added until the time budget of the decision
runs out, and the best average wins. Everything else (pending battle decisions, replacements) is the
heuristic's, so a game stays fast.

Parameters: ``budget`` (seconds per searched decision, default 0.2), ``horizon`` (turns to look ahead,
default 1), ``max_candidates`` (default 5), plus the heuristic's weights.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import engine
from engine import Action, CloseDeclarations, DeclareAttack, EndPhase, Move

from .analysis import other
from .heuristic import HeuristicStrategy
from .moves import MovePhase
from .tactics import BattleJudge, Weights, plan_battles

#: weight variants tried as alternative plans, per side and phase kind
VARIANTS: dict[tuple[str, str], list[dict[str, float]]] = {
    ("german", "movement"): [
        {"g_risk": 2.0, "g_support": 0.3},
        {"g_risk": 0.5, "g_progress": 0.6},
        {"g_contact": 0.6, "g_progress": 0.2},
        {"g_garrison": 2.0},
    ],
    ("soviet", "movement"): [
        {"s_concede": 0.2},
        {"s_concede": 0.7},
        {"s_exposure": 2.0},
        {"s_garrison": 2.0, "s_concede": 0.3},
    ],
    ("german", "combat"): [
        {"attack_threshold": -0.2},
        {"attack_threshold": 0.4},
        {"mat_german": 0.25},
    ],
    ("soviet", "combat"): [
        {"attack_threshold": -0.2},
        {"attack_threshold": 0.4},
        {"mat_soviet": 0.12},
    ],
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


def evaluate(state: engine.Game, side: str) -> float:
    """Score of a position for ``side``: victory point lead, a little for strength on the map, and a
    bonus for the win when the game is over."""
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
        self.budget = float(params.pop("budget", 0.2))
        self.horizon = int(params.pop("horizon", 1))
        self.max_candidates = int(params.pop("max_candidates", 5))
        self.min_rounds = int(params.pop("min_rounds", 1))
        super().__init__(seed, **params)
        self.searches = 0
        self.rollouts = 0

    # --- candidate plans ---

    def _variant(self, overrides: dict[str, float]) -> Weights:
        return replace(self.w, **overrides)

    def movement_candidates(self, state: engine.Game, legal: list[Action], side: str) -> list[list[Action]]:
        plans: list[list[Action]] = []
        seen = set()
        saved = self.w
        try:
            for overrides in [{}] + VARIANTS.get((side, "movement"), []):
                self.w = self._variant(overrides)
                moves = self.plan_movement(state, legal, side)
                key = tuple(moves)
                if key not in seen:
                    seen.add(key)
                    plans.append(list(moves) + [EndPhase()])
                if len(plans) >= self.max_candidates:
                    break
        finally:
            self.w = saved
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
        # the plan without its weakest battle, and without its two weakest
        if base:
            add(base[:-1])
        if len(base) > 2:
            add(base[:-2])
        for overrides in VARIANTS.get((side, "combat"), []):
            add(plan_battles(state, side, self._variant(overrides)))
            if len(plans) >= self.max_candidates:
                break
        return plans[: self.max_candidates]

    # --- simulation ---

    def _rollout(self, state: engine.Game, plan: list[Action], side: str, round_index: int) -> float:
        sim = state.clone()
        sim.seed = f"search:{self.seed}:{self.searches}:{round_index}"
        sim.fixed_dice = ()
        policies = {s: HeuristicStrategy(f"{self.seed}:{round_index}:{s}", **self._weight_params())
                    for s in ("german", "soviet")}
        # the plan itself (stop at the first action that is no longer legal)
        for action in plan:
            if sim.is_terminal() or sim.current_player() != side:
                break
            legal = sim.legal_actions()
            if action not in legal:
                if sim.pending_decision() is not None:
                    sim.apply(policies[side].choose(sim, legal))
                    if action in sim.legal_actions():
                        sim.apply(action)
                continue
            sim.apply(action)
        steps = 0
        stop = (state.turn + self.horizon, phase_position(state)[1])
        while not sim.is_terminal() and steps < 5000:
            if phase_position(sim) >= stop:
                break
            player = sim.current_player()
            legal = sim.legal_actions()
            sim.apply(policies[player].choose(sim, legal))
            steps += 1
        self.rollouts += 1
        return evaluate(sim, side)

    def _weight_params(self) -> dict[str, float]:
        return {f: getattr(self.w, f) for f in self.w.__dataclass_fields__}

    def pick(self, state: engine.Game, plans: list[list[Action]], side: str) -> list[Action]:
        """The plan with the best mean score over rounds of play-outs with shared dice."""
        if len(plans) <= 1 or self.budget <= 0:
            return plans[0] if plans else []
        self.searches += 1
        deadline = time.perf_counter() + self.budget
        totals = [0.0] * len(plans)
        rounds = 0
        while True:
            for i, plan in enumerate(plans):
                totals[i] += self._rollout(state, plan, side, rounds)
            rounds += 1
            if rounds >= self.min_rounds and time.perf_counter() >= deadline:
                break
            if rounds >= 200:
                break
        best = max(range(len(plans)), key=lambda i: (totals[i], -i))
        return plans[best]

    # --- hooks into the heuristic ---

    def decide_movement(self, state: engine.Game, legal: list[Action], side: str) -> Action | None:
        key = (state.turn, state.phase.name, side)
        if self._move_key != key or self._expect != state.hex_of:
            self._move_key = key
            plans = self.movement_candidates(state, legal, side)
            chosen = self.pick(state, plans, side)
            self._moves = [a for a in chosen if isinstance(a, Move)]
        while self._moves:
            move = self._moves.pop(0)
            if move in legal:
                expect = dict(state.hex_of)
                expect[move.unit] = state.board.index[move.to]
                self._expect = expect
                return move
        self._expect = None
        return next((a for a in legal if isinstance(a, EndPhase)), None)

    def decide_combat(self, state: engine.Game, legal: list[Action], side: str) -> Action | None:
        declaring = any(isinstance(a, (DeclareAttack, CloseDeclarations)) for a in legal)
        if declaring:
            key = (state.turn, state.phase.name, side)
            attacking = frozenset(getattr(state.ps, "attacking", ()))
            if self._battle_key != (key, attacking):
                plans = self.combat_candidates(state, side)
                chosen = self.pick(state, plans, side)
                self._battles = [(a.defender, a.attackers[0]) for a in chosen if isinstance(a, DeclareAttack)]
            while self._battles:
                d, a = self._battles.pop(0)
                action = DeclareAttack((a,), d)
                if action in legal:
                    self._battle_key = (key, attacking | {a})
                    return action
            return next((a for a in legal if isinstance(a, CloseDeclarations)), None)
        return super().decide_combat(state, legal, side)
