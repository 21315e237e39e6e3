"""The heuristic player: plans each phase once, then plays the plan move by move.

How it decides, phase by phase:

* **Set-up** (German): the scenario's standard set-up.
* **Replacements**: each point goes where it adds most: restoring a unit (a unit in contact with the
  enemy first; German panzers first) or bringing back an eliminated one (Soviets: into threatened
  cities, Moscow, or rail hexes of the east edge from which it can rail to the front; Germans: the
  entry hex nearest the objective).
* **Movement**: German panzers set up battles (see :mod:`.german`), the German movement phase drives
  for cities and Moscow without leaving units where they would die; the Soviets hold a continuous line
  (see :mod:`.soviet`), rail-moving reserves toward it first.
* **Combat**: greedy battle plan by expected value (:func:`.tactics.plan_battles`): odds from the
  engine's own rules, retreat results counted as eliminations when the defender has nowhere to go,
  exchanges and attacker losses counted against. Battles are resolved best odds first; retreats push
  the enemy where it is worst off; losses are taken where they cost least; advances take cities and
  close escape routes.

The plan of a phase is kept with the position it expects; if the position is not the one expected (or a
planned action is no longer legal) the phase is planned again from the current position.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import engine
from engine import (
    Action, CloseDeclarations, DeclareAttack, EndPhase, Move, PlaceUnit, Replace, Restore, StandardSetup,
)

from .analysis import board_info, other, units_by_hex, zoc
from .base import BaseStrategy
from .german import objective_distance, plan_german_movement, plan_panzer_movement
from .moves import MovePhase
from .soviet import distance_field, plan_soviet_movement, plan_soviet_rail, rail_reach, replacement_needs, within
from .tactics import (
    Weights, attacking_units, choose_advance, choose_attacker_loss, choose_battle_to_resolve, choose_losses,
    choose_retreat, plan_battles,
)


class HeuristicStrategy(BaseStrategy):
    """A rule-based opponent for either side. Parameters: any field of :class:`.tactics.Weights`."""

    name = "heuristic"

    def __init__(self, seed: Any = None, **params: Any) -> None:
        self.refuse_unknown(params, {f.name for f in fields(Weights)})
        super().__init__(seed, **params)
        self.w = Weights.from_params(params)
        self._moves: list[Move] = []
        self._move_key: tuple | None = None
        self._expect: dict | None = None
        self._battles: list[tuple[str, str]] = []
        self._battle_key: tuple | None = None
        self._needs_key: tuple | None = None
        self._needs: dict[int, float] = {}

    # --- dispatch ---

    def decide(self, state: engine.Game, legal: list[Action]) -> Action | None:
        saved = self.w
        if state.turn >= state.scenario.last_turn and state.current_player() == "soviet":
            # the last Soviet player turn: nothing comes after it, strength no longer counts, only points
            self.w = replace(saved, mat_soviet=0.0, mat_german=0.0, s_attack_threshold=min(0.0, saved.s_attack_threshold))
        try:
            return self._decide(state, legal)
        finally:
            self.w = saved

    def _decide(self, state: engine.Game, legal: list[Action]) -> Action | None:
        side = state.current_player()
        pending = state.pending_decision()
        if pending is not None:
            return self.decide_pending(state, legal, side, pending)
        kind = getattr(state.phase, "kind", None)
        if kind == "setup":
            return next((a for a in legal if isinstance(a, StandardSetup)), None) or \
                next((a for a in legal if isinstance(a, PlaceUnit)), None)
        if kind == "replacement":
            return self.decide_replacement(state, legal, side)
        if kind == "movement":
            return self.decide_movement(state, legal, side)
        if kind == "combat":
            return self.decide_combat(state, legal, side)
        return None

    def decide_pending(self, state: engine.Game, legal: list[Action], side: str, pending: dict) -> Action | None:
        stage = pending.get("stage")
        w = self.w
        if stage == "retreat":
            return choose_retreat(state, legal, side, w, pending)
        if stage == "exchange_losses":
            return choose_losses(state, legal, side, w)
        if stage == "attacker_loss":
            return choose_attacker_loss(state, legal, side, w)
        if stage == "advance":
            return choose_advance(state, legal, side, w, pending)
        if stage == "unstack":
            return self.decide_movement(state, legal, side)
        return None

    # --- replacements ---

    def decide_replacement(self, state: engine.Game, legal: list[Action], side: str) -> Action | None:
        info = board_info(state)
        enemy_hexes = units_by_hex(state, other(side))
        to_enemy = distance_field(info, enemy_hexes)
        mine = units_by_hex(state, side)
        counters = state.counters
        best, best_value = None, 0.0
        if side == "german":
            obj = objective_distance(state, info)
        needs: dict[int, float] = {}
        if side == "soviet" and any(isinstance(a, Replace) for a in legal):
            needs = self._soviet_needs(state, info, enemy_hexes)
        for a in legal:
            value = None
            if isinstance(a, Restore) and a.unit in state.hex_of:
                c = counters[a.unit]
                h = state.hex_of[a.unit]
                gain = c.full - c.half
                near = to_enemy[h]
                if side == "soviet":
                    factor = self.w.r_front if near <= 2 else 1.8 if near <= 4 else 0.8
                else:
                    factor = 2.0 if near <= 1 else 1.4 if near <= 3 else 0.8
                if side == "german" and c.type == "panzer":
                    factor += 0.3
                if side == "soviet" and h in info.cities and near <= 4:
                    factor += 1.0 if h == info.capital else 0.4
                value = gain * factor
            elif isinstance(a, Replace) and a.hex in info.by_id:
                c = counters[a.unit]
                h = info.by_id[a.hex]
                near = to_enemy[h]
                if side == "soviet":
                    count = len(mine)
                    value = c.half * (2.5 if count < self.w.r_count else 1.2 if count < self.w.r_count + 3 else 0.5)
                    if h == info.capital and state.control.get(h) == "soviet":
                        value += 12.0 if near <= 14 else 3.0
                    elif h in info.cities and near <= 6:
                        value += 1.5
                    value += needs.get(h, 0.0)
                    if info.rail[h]:
                        value += 1.0
                    if near <= 1:
                        value -= 2.0
                    value -= 0.05 * near
                    if c.half >= 5:
                        value += 0.2
                else:
                    value = c.half * 0.9 - 0.1 * obj[h]
                    if near <= 1:
                        value -= 1.5
                    if c.type == "panzer":
                        value += 0.5
            if value is not None and (best is None or value > best_value + 1e-9):
                best, best_value = a, value
        if best is None:
            return next((a for a in legal if isinstance(a, EndPhase)), None)
        return best

    def _soviet_needs(self, state: engine.Game, info, germans: dict[int, str]) -> dict[int, float]:
        """Entry hex → bonus for a new unit there: it can reach a line hex nobody else covers."""
        key = (state.turn, tuple(sorted(state.hex_of.items())))
        if self._needs_key == key:
            return self._needs
        uncovered, line = replacement_needs(state, self.w)
        needs: dict[int, float] = {}
        if uncovered:
            german_zoc = zoc(info, germans)
            weather = state.weather()
            later = 1 if weather.max_hexes is not None else 4
            for h in range(info.n):
                if h in state.at:
                    continue
                stops = rail_reach(info, h, 4, germans, german_zoc) if info.rail[h] else {h}
                final = within(info, stops, later, set(germans))
                hits = sum(1 for u in uncovered if u in final or any(n in final for n in info.neighbours[u]))
                if hits:
                    needs[h] = self.w.r_needs + 0.5 * hits
        self._needs_key, self._needs = key, needs
        return needs

    # --- movement ---

    def decide_movement(self, state: engine.Game, legal: list[Action], side: str) -> Action | None:
        key = (state.turn, state.phase.name, side)
        if self._move_key != key or self._expect != state.hex_of:
            self._move_key = key
            self._moves = self.plan_movement(state, legal, side)
        while self._moves:
            move = self._moves.pop(0)
            if move in legal:
                expect = dict(state.hex_of)
                expect[move.unit] = board_info(state).by_id[move.to]
                self._expect = expect
                return move
        self._expect = None
        return next((a for a in legal if isinstance(a, EndPhase)), None)

    def plan_movement(self, state: engine.Game, legal: list[Action], side: str) -> list[Move]:
        phase = MovePhase(state, legal)
        if not phase.movable:
            return []
        movers = getattr(state.phase, "movers", "all")
        if side == "german":
            if movers == "panzer":
                plan = plan_panzer_movement(state, phase, self.w)
            else:
                plan = plan_german_movement(state, phase, self.w)
        else:
            if movers == "rail":
                plan = plan_soviet_rail(state, phase, self.w)
            else:
                plan = plan_soviet_movement(state, phase, self.w)
        plan = {u: h for u, h in plan.items() if u in phase.dests and h in phase.dests[u]}
        return phase.order(plan)

    # --- combat ---

    def decide_combat(self, state: engine.Game, legal: list[Action], side: str) -> Action | None:
        declaring = any(isinstance(a, (DeclareAttack, CloseDeclarations)) for a in legal)
        if declaring:
            key = (state.turn, state.phase.name, side)
            attacking = attacking_units(state)
            if self._battle_key != (key, attacking):
                self._battles = self.plan_declarations(state, side)
            while self._battles:
                d, a = self._battles.pop(0)
                action = DeclareAttack((a,), d)
                if action in legal:
                    self._battle_key = (key, attacking | {a})
                    return action
            return next((a for a in legal if isinstance(a, CloseDeclarations)), None)
        return choose_battle_to_resolve(state, legal, side, self.w)

    def plan_declarations(self, state: engine.Game, side: str) -> list[tuple[str, str]]:
        """(defender, attacker) pairs to declare, one attacker at a time."""
        return [(d, a) for d, attackers in plan_battles(state, side, self.w) for a in attackers]
