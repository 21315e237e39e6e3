"""Combat tactics: the value of a battle, the choice of battles, and the decisions inside a battle.

Values are in victory points as seen by one side: +1 for an enemy unit eliminated, a captured city is
worth the swing it makes (5 to me and 5 less to the enemy), strength points are worth a little (German
strength more than Soviet: the Germans get one replacement point a turn, the Soviets five).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace
from typing import Any, Iterable

import engine
from engine import (
    Action, Advance, ChooseAttackerLoss, ChooseLosses, ChooseRetreat, DeclineAdvance, ResolveBattle, combat,
)

from .analysis import BoardInfo, board_info, other, retreat_status, units_by_hex, zoc


@dataclass(frozen=True)
class Weights:
    """The numbers behind the heuristic's judgement (all overridable as strategy parameters)."""

    kill: float = 1.0  # an enemy unit eliminated (its victory point)
    mat_german: float = 0.14  # one German strength point
    mat_soviet: float = 0.06  # one Soviet strength point
    city: float = 10.0  # the swing of a city changing hands
    capital: float = 40.0  # the swing of Moscow changing hands (20 + 20)
    hold: float = 0.45  # share of a city's swing credited when it is taken before the last turn
    advance_gain: float = 0.15  # a defender pushed back (ground gained)
    attack_threshold: float = 0.05  # a German battle must be worth at least this much to be fought
    s_attack_threshold: float = 0.3  # the same for a Soviet battle (the Soviets need their units more)
    economy: float = 0.004  # per attacking strength point: use no more force than needed
    # movement (German)
    g_progress: float = 0.35  # per hex closer to the German objective
    g_contact: float = 0.25  # infantry next to a Soviet unit it could attack next turn
    g_risk: float = 1.0  # scale of the expected loss from a Soviet attack
    g_support: float = 0.12  # per friendly neighbour
    g_garrison: float = 1.0  # scale of the value of holding a city at the end of the move
    # movement (Soviet)
    s_concede: float = 0.4  # share of a city's swing charged to a line that leaves it to the Germans
    s_concede_near: float = 0.0  # if > 0: cities this close to the Germans count less in the concession
    s_exposure: float = 1.0  # scale of the expected loss of a line hex
    s_behind: float = 0.0  # per column a line hex lies west of a German unit in its rows (3 gave up far more)
    s_gap: float = 6.0  # cost of a line hex no unit can reach
    s_garrison: float = 1.0  # scale of city garrison values
    s_forward_city: float = 0.0  # holding a Soviet city in front of the line (for units cut off from it)
    s_staging: float = 0.0  # a spare unit on a rail hex a few hexes behind the front (counterattacks)
    s_ring: float = 6.0  # a unit next to Moscow on the German side, when the Germans are near
    s_ring_distance: float = 6  # "near": this many hexes from Moscow
    # replacements (Soviet)
    r_front: float = 2.5  # restoring a unit near the enemy, per strength point regained
    r_count: float = 11  # below this many units on the map, a new unit comes first
    r_needs: float = 5.0  # a new unit that can close a gap in the planned line

    def threshold(self, side: str) -> float:
        return self.attack_threshold if side == "german" else self.s_attack_threshold

    def mat(self, side: str) -> float:
        return self.mat_german if side == "german" else self.mat_soviet

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> "Weights":
        names = {f.name for f in fields(cls)}
        return replace(cls(), **{k: float(v) for k, v in params.items() if k in names})


# --- loss values ------------------------------------------------------------------------------------

def loss_value(state: engine.Game, unit: str, steps: int, w: Weights, reduced: bool | None = None) -> float:
    """What losing ``steps`` steps of ``unit`` costs its owner (positive)."""
    counter = state.counters[unit]
    side = counter.side
    if reduced is None:
        reduced = unit in state.reduced
    mat = w.mat(side)
    if reduced:
        return mat * counter.half + w.kill if steps >= 1 else 0.0
    if steps == 1:
        return mat * (counter.full - counter.half)
    if steps >= 2:
        return mat * counter.full + w.kill
    return 0.0


def city_swing(info: BoardInfo, state: engine.Game, hex_index: int, side: str, w: Weights) -> float:
    """What taking (or keeping) the city in ``hex_index`` is worth to ``side``; 0 if no city there."""
    if hex_index not in info.cities:
        return 0.0
    value = w.capital if hex_index == info.capital else w.city
    return value


def capture_gain(info: BoardInfo, state: engine.Game, hex_index: int, side: str, w: Weights) -> float:
    """The gain of ``side`` moving into ``hex_index`` now (a city it does not control), discounted."""
    if hex_index not in info.cities or state.control.get(hex_index) == side:
        return 0.0
    hold = 1.0 if state.turn >= state.scenario.last_turn else w.hold
    return city_swing(info, state, hex_index, side, w) * hold


# --- one battle -------------------------------------------------------------------------------------

class BattleJudge:
    """Values battles for ``side`` in one position; caches what does not depend on the attackers."""

    def __init__(self, state: engine.Game, side: str, w: Weights, my_hexes: dict[int, str] | None = None,
                 their_hexes: dict[int, str] | None = None) -> None:
        self.state = state
        self.side = side
        self.enemy = other(side)
        self.actual = my_hexes is None and their_hexes is None  # the position as it stands
        self.w = w
        self.info = board_info(state)
        self.mine = my_hexes if my_hexes is not None else units_by_hex(state, side)
        self.theirs = their_hexes if their_hexes is not None else units_by_hex(state, self.enemy)
        self.my_zoc = frozenset(zoc(self.info, self.mine))
        self._status: dict[str, str] = {}
        self._exchange: dict[tuple, float] = {}
        self.crt = state.scenario.crt
        self.factor = state.weather().attack_factor
        self.hex_of = {u: h for h, u in self.mine.items()}
        self.hex_of.update({u: h for h, u in self.theirs.items()})

    def status(self, defender: str) -> str:
        s = self._status.get(defender)
        if s is None:
            start = self.hex_of[defender]
            friendly = {h for h in self.theirs if h != start}
            s = retreat_status(self.info, start, friendly, self.mine, self.my_zoc)
            self._status[defender] = s
        return s

    def column(self, defender: str, attackers: Iterable[str]) -> int:
        state = self.state
        attackers = list(attackers)
        if self.actual:
            try:  # the engine's own odds, with every optional rule in force
                return state.battle_odds(defender, attackers).final
            except Exception:
                pass
        target = self.hex_of[defender]
        board = self.info.board
        attack = sum(state.strength(a) for a in attackers) * self.factor
        left = combat.defensive_shift(board, target, self.enemy)
        left += combat.river_shift(board, target, [self.hex_of[a] for a in attackers])
        return combat.compute_odds(self.crt, attack, state.strength(defender), left, 0).final

    def exchange_cost(self, attackers: tuple[str, ...], required: int) -> float:
        state = self.state
        key = (tuple((a, a in state.reduced) for a in attackers), required)
        cost = self._exchange.get(key)
        if cost is None:
            squad = [(a, state.counters[a], a not in state.reduced) for a in attackers]
            best = None
            for choice in combat.exchange_choices(squad, required):
                c = self.losses_cost(choice)
                if best is None or c < best:
                    best = c
            cost = best or 0.0
            self._exchange[key] = cost
        return cost

    def losses_cost(self, units: Iterable[str]) -> float:
        counts: dict[str, int] = {}
        for u in units:
            counts[u] = counts.get(u, 0) + 1
        return sum(loss_value(self.state, u, k, self.w) for u, k in counts.items())

    def attacker_loss_cost(self, attackers: Iterable[str]) -> float:
        return min(loss_value(self.state, a, 1, self.w) for a in attackers)

    def outcome_values(self, defender: str) -> tuple[float, float, float]:
        """(eliminated, step lost, retreated) values of the defender's fates."""
        state, w = self.state, self.w
        counter = state.counters[defender]
        hex_index = self.hex_of[defender]
        mat = w.mat(self.enemy)
        gain_hex = w.advance_gain + capture_gain(self.info, state, hex_index, self.side, w)
        kill = w.kill + mat * state.strength(defender) + gain_hex
        step = mat * (counter.full - counter.half)
        return kill, step, gain_hex

    def value(self, defender: str, attackers: Iterable[str], column: int | None = None,
              status: str | None = None) -> float:
        """Expected value of the battle for the attacking side."""
        attackers = tuple(attackers)
        if column is None:
            column = self.column(defender, attackers)
        if column < 0:
            return -0.01
        if status is None:
            status = self.status(defender)
        state = self.state
        reduced = defender in state.reduced
        counter = state.counters[defender]
        kill, step, retreat_gain = self.outcome_values(defender)
        crt = self.crt
        total = 0.0
        for roll in range(1, 7):
            r = crt.results[roll][column]
            if r == "DE":
                v = kill
            elif r in ("DRL", "EX"):
                if reduced or status != "free":
                    v = kill
                else:
                    v = step + retreat_gain
                if r == "EX":
                    required = counter.half if reduced else counter.full - counter.half
                    v -= self.exchange_cost(attackers, required)
            elif r == "DR":
                if status == "none" or (status == "zoc" and reduced):
                    v = kill
                elif status == "zoc":
                    v = step + retreat_gain
                else:
                    v = retreat_gain
            elif r == "AL":
                v = -self.attacker_loss_cost(attackers)
            else:
                v = 0.0
            total += v
        return total / 6


def plan_battles(state: engine.Game, side: str, w: Weights, available: Iterable[str] | None = None,
                 judge: BattleJudge | None = None, exclude: Iterable[str] = ()) -> list[tuple[str, list[str]]]:
    """Greedy battle plan: repeatedly the best (defender, attackers) by expected value, attackers used once.

    Returns [(defender, attackers)] best first.
    """
    judge = judge or BattleJudge(state, side, w)
    info = judge.info
    if available is None:
        attacking = attacking_units(state)
        available = [u for u in judge.mine.values() if u not in attacking]
    free = set(available)
    excluded = set(exclude)
    candidates: dict[str, list[str]] = {}
    for h, d in judge.theirs.items():
        if d in excluded:
            continue
        adj = [judge.mine[n] for n in info.neighbours[h] if n in judge.mine and judge.mine[n] in free]
        if adj:
            candidates[d] = sorted(adj, key=lambda u: -state.strength(u))
    cache: dict[tuple[str, frozenset], float] = {}

    def score(d: str, subset: tuple[str, ...]) -> float:
        key = (d, frozenset(subset))
        s = cache.get(key)
        if s is None:
            s = judge.value(d, subset) - w.economy * sum(state.strength(a) for a in subset)
            cache[key] = s
        return s

    plan: list[tuple[str, list[str]]] = []
    while candidates:
        best = None
        for d, adj in candidates.items():
            usable = [a for a in adj if a in free]
            for k in range(1, len(usable) + 1):
                for subset in itertools.combinations(usable, k):
                    s = score(d, subset)
                    if best is None or s > best[0]:
                        best = (s, d, subset)
        if best is None or best[0] < w.threshold(side):
            break
        _, d, subset = best
        plan.append((d, list(subset)))
        free.difference_update(subset)
        del candidates[d]
        candidates = {k: v for k, v in candidates.items() if any(a in free for a in v)}
    return plan


# --- decisions inside a battle ----------------------------------------------------------------------

def attacking_units(state: engine.Game) -> frozenset[str]:
    """Units that already attack in this combat phase."""
    return frozenset(state.ps.attacking)


def pending_battles(state: engine.Game) -> dict[str, list[str]]:
    ps = getattr(state, "ps", None)
    battles = getattr(ps, "battles", None)
    if isinstance(battles, dict):
        return battles
    try:
        return {b["defender"]: list(b["attackers"]) for b in state.to_json()["phase_state"]["battles"]}
    except Exception:
        return {}


def choose_battle_to_resolve(state: engine.Game, legal: list[Action], side: str, w: Weights) -> Action | None:
    """Resolve first the battle with the best odds (its advance may cut off the others' retreats)."""
    options = [a for a in legal if isinstance(a, ResolveBattle)]
    if not options:
        return None
    battles = pending_battles(state)
    judge = BattleJudge(state, side, w)
    rank = {"none": 0, "zoc": 1, "free": 2}

    def key(a: ResolveBattle):
        attackers = [u for u in battles.get(a.defender, []) if u in state.hex_of]
        col = judge.column(a.defender, attackers) if attackers and a.defender in state.hex_of else -9
        return (-col, rank.get(judge.status(a.defender), 3) if a.defender in state.hex_of else 3, a.defender)

    return min(options, key=key)


def choose_losses(state: engine.Game, legal: list[Action], side: str, w: Weights) -> Action | None:
    options = [a for a in legal if isinstance(a, ChooseLosses)]
    if not options:
        return None
    judge = BattleJudge(state, side, w)
    return min(options, key=lambda a: (judge.losses_cost(a.units), len(a.units), a.units))


def choose_attacker_loss(state: engine.Game, legal: list[Action], side: str, w: Weights) -> Action | None:
    options = [a for a in legal if isinstance(a, ChooseAttackerLoss)]
    if not options:
        return None
    return min(options, key=lambda a: (loss_value(state, a.unit, 1, w), a.unit))


def choose_retreat(state: engine.Game, legal: list[Action], side: str, w: Weights,
                   pending: dict | None) -> Action | None:
    """Retreat the enemy unit where it does the least good: not through my cities, into the open, next to my
    units, away from its friends and from Moscow (German attacker) or toward the west (Soviet attacker)."""
    options = [a for a in legal if isinstance(a, ChooseRetreat)]
    if not options:
        return None
    info = board_info(state)
    enemy = other(side)
    mine = units_by_hex(state, side)
    theirs = units_by_hex(state, enemy)
    my_zoc = zoc(info, mine)

    def score(a: ChooseRetreat) -> tuple:
        path = [info.by_id[h] for h in a.path]
        end = path[-1]
        s = 0.0
        for h in path:
            if h in info.cities and state.control.get(h) == side:
                s -= city_swing(info, state, h, side, w)
        if info.forest[end] or end == info.capital or (enemy == "soviet" and end in info.forts):
            s -= 0.6
        if end in info.cities:
            s -= 0.4
        s += 0.5 * sum(1 for n in info.neighbours[end] if n in mine)
        s -= 0.3 * sum(1 for n in info.neighbours[end] if n in theirs)
        # escape routes left to it: fewer is better for me
        free_exits = sum(1 for n in info.neighbours[end] if n not in mine and n not in theirs and n not in my_zoc)
        s -= 0.15 * free_exits
        if side == "german":
            s += 0.1 * info.to_capital[end]
        else:
            s += 0.1 * info.to_capital[end]
        return (-s, a.path)

    return min(options, key=score)


def choose_advance(state: engine.Game, legal: list[Action], side: str, w: Weights,
                   pending: dict | None) -> Action | None:
    """Advance into a city, or where the advance cuts off a retreat of a battle still to resolve; the German
    also advances toward Moscow when the hex is not a trap."""
    advances = [a for a in legal if isinstance(a, Advance)]
    decline = next((a for a in legal if isinstance(a, DeclineAdvance)), None)
    if not advances:
        return decline
    info = board_info(state)
    target = info.by_id[pending["hex"]] if pending and pending.get("hex") in info.by_id else None
    if target is None:
        return decline
    enemy = other(side)
    mine = units_by_hex(state, side)
    theirs = units_by_hex(state, enemy)
    battles = pending_battles(state)
    remaining = [d for d in battles if d in state.hex_of]
    rank = {"none": 2.0, "zoc": 1.0, "free": 0.0}

    def statuses(my_hexes: dict[int, str]) -> float:
        total = 0.0
        my_z = zoc(info, my_hexes)
        for d in remaining:
            start = state.hex_of[d]
            friendly = {h for h in theirs if h != start}
            total += rank[retreat_status(info, start, friendly, my_hexes, my_z)]
        return total

    base = statuses(mine) if remaining else 0.0
    city = capture_gain(info, state, target, side, w)
    threat = sum(state.strength(theirs[n]) for n in info.neighbours[target] if n in theirs)
    best, best_value = decline, 0.0
    for a in advances:
        if a.unit not in state.hex_of:
            continue
        start = state.hex_of[a.unit]
        value = city
        if remaining:
            moved = dict(mine)
            del moved[start]
            moved[target] = a.unit
            value += 1.2 * (statuses(moved) - base)
        if side == "german":
            value += 0.15 * (info.to_capital[start] - info.to_capital[target])
            if info.forest[target]:
                value += 0.1
            value -= 0.02 * max(0, threat - 2 * state.strength(a.unit))
        else:
            value -= 0.05
        if city:
            value += 0.01 * state.strength(a.unit)
        if value > best_value + 1e-9:
            best, best_value = a, value
    return best
