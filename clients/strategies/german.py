"""The German heuristic's movement plans: panzers set up the battles, everyone drives east.

* Panzer movement (before combat): for each Soviet unit in reach, the panzers that can get next to it
  are matched to the free hexes around it; the package (with the infantry already in contact) that adds
  the most expected value is taken, again and again. Hexes that cut the defender's retreat are preferred
  (a surrounded defender dies on a retreat result). Spare panzers grab empty Soviet cities, then move
  toward the objective.
* Movement (after combat): every unit picks, greedily, the hex that is best for it given the hexes
  already chosen: cities taken and garrisoned, progress toward the nearest Soviet city and Moscow,
  contact with weak Soviet units (infantry attack next turn only from where they stand), friendly
  neighbours, minus the expected loss from a Soviet attack there (odds from the Soviet units that can
  be next to it after their rail movement; a hex with no retreat is much worse).
"""

from __future__ import annotations

import engine

from .analysis import BoardInfo, retreat_status, zoc
from .moves import MovePhase
from .tactics import BattleJudge, Weights, capture_gain, city_swing


# --- what the Soviets could do to a hex next turn -----------------------------------------------------

def soviet_attack_reach(state: engine.Game, info: BoardInfo, soviets: dict[int, str],
                        germans: dict[int, str]) -> dict[int, list[int]]:
    """Hex → strengths of the Soviet units that could attack a German unit there in the coming Soviet
    combat phase (from where they stand or after rail movement), strongest first."""
    german_zoc = frozenset(zoc(info, germans))
    counters = state.counters
    attack: dict[int, list[int]] = {}
    rail = info.rail
    for h, u in soviets.items():
        c = counters[u]
        s = c.half if u in state.reduced else c.full
        if u in state.reduced:
            s = (c.half + c.full) / 2  # it may be restored first
        spots = {h}
        if rail[h]:
            # rail movement: along rail links, stopped by German units and zones of control
            frontier = [h]
            seen = {h: 0}
            while frontier:
                nxt = []
                for x in frontier:
                    if x != h and x in german_zoc:
                        continue
                    for y in rail[x]:
                        if y in germans or y in seen or seen[x] + 1 > c.ma:
                            continue
                        seen[y] = seen[x] + 1
                        nxt.append(y)
                frontier = nxt
            spots.update(seen)
        targets = set()
        for x in spots:
            targets.update(info.neighbours[x])
        for t in targets:
            attack.setdefault(t, []).append(s)
    for t in attack:
        attack[t].sort(reverse=True)
    return attack


def defender_loss(state: engine.Game, unit: str, column: int, status: str, w: Weights) -> float:
    """Expected loss (owner's view, positive) of ``unit`` attacked at CRT ``column`` with retreat ``status``."""
    if column < 0:
        return 0.0
    c = state.counters[unit]
    mat = w.mat(c.side)
    reduced = unit in state.reduced
    kill = w.kill + mat * (c.half if reduced else c.full)
    step = kill if reduced else mat * (c.full - c.half)
    crt = state.scenario.crt
    total = 0.0
    for roll in range(1, 7):
        r = crt.results[roll][column]
        if r == "DE":
            total += kill
        elif r in ("DRL", "EX"):
            total += kill if (reduced or status != "free") else step
        elif r == "DR":
            if status == "none" or (status == "zoc" and reduced):
                total += kill
            elif status == "zoc":
                total += step
    return total / 6


def column_for(state: engine.Game, attack: float, defence: int, shifts: int) -> int:
    crt = state.scenario.crt
    col = -1
    for i, (a, d) in enumerate(crt.ratios):
        if attack * d >= defence * a:
            col = i
    return min(col - shifts, len(crt.ratios) - 1) if col >= 0 else col - shifts


def objective_distance(state: engine.Game, info: BoardInfo) -> list[float]:
    """Per hex: distance to the nearest city the Germans do not control (Moscow counts 2 hexes closer)."""
    targets = [(c, 2.5 if c == info.capital else 0.0) for c in info.cities if state.control.get(c) != "german"]
    if not targets:
        targets = [(info.capital, 0.0)]
    dist = info.dist
    return [min(dist[h][c] - bonus for c, bonus in targets) for h in range(info.n)]


def soviet_city_threat(state: engine.Game, info: BoardInfo, soviets: dict[int, str]) -> dict[int, float]:
    """City hex → how likely the Soviets retake it next turn if it is left empty (0..1)."""
    weather = state.weather()
    ma = 1 if weather.max_hexes is not None else 4
    threat = {}
    for c in info.cities:
        d = min((info.dist[h][c] for h in soviets), default=99)
        near_rail = any(info.rail[h] and info.dist[h][c] <= 4 + ma for h in soviets)
        if d <= ma:
            threat[c] = 0.9
        elif d <= ma + 1 or near_rail and d <= 6:
            threat[c] = 0.5
        elif d <= ma + 3:
            threat[c] = 0.2
        else:
            threat[c] = 0.05
    return threat


# --- movement (after combat) ------------------------------------------------------------------------

def plan_german_movement(state: engine.Game, phase: MovePhase, w: Weights) -> dict[str, int]:
    info = phase.info
    soviets = phase.theirs
    germans = dict(phase.mine)
    last_turn = state.turn >= state.scenario.last_turn
    obj = objective_distance(state, info)
    attack = soviet_attack_reach(state, info, soviets, germans)
    threat = soviet_city_threat(state, info, soviets)
    factor = float(state.weather().attack_factor)
    hold = 1.0 if last_turn else 0.6
    counters = state.counters

    # attractiveness of standing next to a Soviet unit (infantry attack next turn from where they stand)
    contact = [0.0] * info.n
    for h, s in soviets.items():
        weak = 1.0 if s in state.reduced else 0.5
        if info.forest[h] or h in info.forts or h == info.capital:
            weak *= 0.6
        for n in info.neighbours[h]:
            contact[n] += weak
    movable = set(phase.movable)
    position = {u: h for h, u in germans.items()}
    claimed: dict[int, str] = {h: u for h, u in germans.items() if u not in movable}
    garrisoned = {c for c in info.cities if c in claimed}

    def risk(u: str, h: int, positions: dict[int, str]) -> float:
        strengths = attack.get(h)
        if not strengths:
            return 0.0
        free = sum(1 for n in info.neighbours[h] if n not in positions)
        total = sum(strengths[:max(1, free)]) * factor
        shifts = 1 if (info.forest[h] or h == info.capital) else 0
        col = column_for(state, total, state.strength(u), shifts)
        if col < 0:
            return 0.0
        friendly = {x for x in positions if x != h}
        status = retreat_status(info, h, friendly, soviets, phase.their_zoc)
        loss = defender_loss(state, u, col, status, w)
        if h in info.cities:  # pushed out of a city, it loses the city too
            loss += 0.3 * city_swing(info, state, h, "german", w) * (col + 1) / 8
        return loss

    def score(u: str, h: int, positions: dict[int, str]) -> float:
        panzer = counters[u].type == "panzer"
        s = -w.g_progress * obj[h]
        if h in info.cities and h not in garrisoned:
            swing = city_swing(info, state, h, "german", w)
            if state.control.get(h) != "german":
                s += swing * hold * w.g_garrison
            else:
                s += swing * threat.get(h, 0.0) * hold * w.g_garrison
        s += w.g_contact * min(contact[h], 2.0) * (0.5 if panzer else 1.0)
        if not last_turn:
            s -= w.g_risk * risk(u, h, positions)
        support = sum(1 for n in info.neighbours[h] if n in positions)
        s += w.g_support * min(support, 3)
        if h == position[u]:
            s += 0.05
        return s

    # order: units with the most to gain first
    positions = dict(germans)
    urgency = []
    for u in phase.movable:
        here = position[u]
        best = max(score(u, h, positions) for h in phase.dests[u])
        urgency.append((-(best - score(u, here, positions)), u))
    urgency.sort()
    plan: dict[str, int] = {}
    for _, u in urgency:
        here = position[u]
        del positions[here]
        best_h, best_s = here, None
        for h in phase.dests[u]:
            if h in claimed:
                continue
            s = score(u, h, positions)
            if best_s is None or s > best_s:
                best_h, best_s = h, s
        positions[best_h] = u
        claimed[best_h] = u
        if best_h in info.cities:
            garrisoned.add(best_h)
        plan[u] = best_h
    return plan


# --- panzer movement (before combat) ----------------------------------------------------------------

def plan_attack_setup(state: engine.Game, phase: MovePhase, w: Weights, side: str,
                      movers: list[str] | None = None) -> tuple[dict[str, int], set[str], dict[int, str]]:
    """Move units next to enemy units so that the coming combat phase has good battles.

    For each enemy unit in reach, the movers that can get next to it are matched to the free hexes around
    it (not across a river, closing its escape routes); the package that adds the most expected value
    (with the units already next to it) is taken, again and again. An empty enemy city in reach is taken
    when that is worth more. Returns (unit → hex for the movers used, the movers left, hex → unit after
    the plan).
    """
    info = phase.info
    soviets = phase.theirs
    positions = dict(phase.mine)  # hex -> unit, updated as the plan grows
    movable = list(phase.movable if movers is None else movers)
    where = {u: h for h, u in positions.items()}
    free = set(movable)
    committed: set[str] = set()  # units (infantry or panzers) already in a planned battle
    plan: dict[str, int] = {}

    def slots_for(target_hex: int) -> list[int]:
        return [n for n in info.neighbours[target_hex] if n not in soviets]

    def package_value(t: str, th: int, panzers: list[str], chosen_slots: list[int]) -> float:
        hyp = {h: u for h, u in positions.items() if u not in panzers}
        for p, s in zip(panzers, chosen_slots):
            hyp[s] = p
        judge = BattleJudge(state, side, w, hyp, soviets)
        attackers = [hyp[n] for n in info.neighbours[th] if n in hyp and hyp[n] not in committed]
        if not attackers:
            return 0.0
        return judge.value(t, attackers)

    def best_slots(th: int, panzers: list[str], taken: set[int]) -> list[int] | None:
        """Match panzers to free hexes around the target: prefer hexes not across a river and hexes that
        close the defender's escape."""
        out = []
        used = set(taken)
        for p in sorted(panzers, key=lambda x: len(phase.dests[x])):
            options = [s for s in slots_for(th) if s in phase.dests[p] and s not in used
                       and (s not in positions or positions[s] == p)]
            if not options:
                return None
            def slot_key(s: int) -> tuple:
                across = info.river(s, th)
                escape = sum(1 for n in info.neighbours[s] if info.dist[n][th] == 2 and n not in soviets)
                return (across, -escape, info.forest[s], s)
            s = min(options, key=slot_key)
            used.add(s)
            out.append(s)
        # keep the original order of panzers
        order = sorted(panzers, key=lambda x: len(phase.dests[x]))
        by_unit = dict(zip(order, out))
        return [by_unit[p] for p in panzers]

    for _ in range(len(movable) + 2):
        best = None
        taken = {h for h, u in positions.items() if u not in free}
        for th, t in soviets.items():
            base_attackers = [positions[n] for n in info.neighbours[th] if n in positions
                              and positions[n] not in committed and positions[n] not in free]
            candidates = [p for p in sorted(free) if any(s in phase.dests[p] for s in slots_for(th))]
            if not candidates:
                continue
            candidates.sort(key=lambda p: (-state.strength(p), p))
            candidates = candidates[:5]
            base = package_value(t, th, [], []) if base_attackers else 0.0
            chosen: list[str] = []
            # add panzers one at a time, keeping the best package seen
            best_pkg = None
            for _k in range(min(4, len(candidates))):
                step_best = None
                for p in candidates:
                    if p in chosen:
                        continue
                    trial = chosen + [p]
                    sl = best_slots(th, trial, taken - {where[x] for x in trial})
                    if sl is None:
                        continue
                    v = package_value(t, th, trial, sl)
                    if step_best is None or v > step_best[0]:
                        step_best = (v, trial, sl)
                if step_best is None:
                    break
                chosen = step_best[1]
                v = step_best[0] - 0.05 * len(chosen)
                if best_pkg is None or v > best_pkg[0]:
                    best_pkg = (v, list(chosen), step_best[2])
            if best_pkg is None:
                continue
            gain = best_pkg[0] - base
            if best is None or gain > best[0]:
                best = (gain, t, th, best_pkg[1], best_pkg[2])
        # an empty Soviet city within reach of a free panzer
        for p in sorted(free):
            for h in phase.dests[p]:
                if h in info.cities and state.control.get(h) != side and (h not in positions or positions[h] == p):
                    gain = capture_gain(info, state, h, side, w) * 0.8
                    if best is None or gain > best[0]:
                        best = (gain, None, h, [p], [h])
        if best is None or best[0] < w.threshold(side):
            break
        _, t, th, panzers, sl = best
        for p, s in zip(panzers, sl):
            del positions[where[p]]
            positions[s] = p
            where[p] = s
            plan[p] = s
            free.discard(p)
        if t is not None:
            for n in info.neighbours[th]:
                if n in positions:
                    committed.add(positions[n])
                    if positions[n] in free:  # a panzer already next to it stays and joins the battle
                        plan[positions[n]] = n
                        free.discard(positions[n])

    return plan, free, positions


def plan_panzer_movement(state: engine.Game, phase: MovePhase, w: Weights) -> dict[str, int]:
    """Panzer movement: set up the battles, then the spare panzers move toward the objective (they move
    again after combat, so they avoid stopping in a Soviet zone of control)."""
    info = phase.info
    obj = objective_distance(state, info)
    plan, free, positions = plan_attack_setup(state, phase, w, "german")
    where = {u: h for h, u in positions.items()}
    # spare panzers: move toward the objective, avoid ending in a Soviet zone of control (they move again)
    for p in sorted(free, key=lambda x: (-state.strength(x), x)):
        here = where[p]
        best_h, best_s = here, -w.g_progress * obj[here]
        for h in phase.dests[p]:
            if h in positions and positions[h] != p:
                continue
            s = -w.g_progress * obj[h] - (0.6 if h in phase.their_zoc else 0.0)
            if s > best_s + 1e-9:
                best_h, best_s = h, s
        del positions[here]
        positions[best_h] = p
        where[p] = best_h
        plan[p] = best_h
    return plan
