"""The Soviet heuristic's plans: a continuous line from the north edge to the south edge.

The line is the cheapest chain of adjacent hexes from row 1 to the last row, where a hex costs more when
the Germans can hit it hard next turn (infantry next to it, panzers in reach; less in forest, forts,
Moscow or behind a river), when it leaves Soviet cities on the German side, and when no Soviet unit can
get there. It is not pushed back behind the German spearheads (``Weights.s_behind``, 0 by default): a line
that ran east of every German unit in its rows gave up every city a lone panzer had driven past, and the
heuristic Soviet won 5 of 100 games against the heuristic German with it (3 per column), 32-36 of 100 without.
The units are matched to the line's hexes (the strongest where the blows will fall); a line hex nobody
stands on must at least be in a zone of control (a German unit entering it stops), else the line is planned
again around it. The other units garrison
threatened cities (Moscow always) or stand behind the line. Units that can retake a German-held city do
so when that is worth more than their place in the line; on the last turn that is all that matters.

The same plan, made in the replacement phase with where units could be at the end of the turn, tells
where new units are needed; made in the rail phase, it tells where the reserves should ride to.
"""

from __future__ import annotations

import heapq

import engine

from .analysis import BoardInfo, board_info, units_by_hex, zoc
from .german import column_for, plan_attack_setup
from .moves import MovePhase, assign
from .tactics import Weights, capture_gain, city_swing


def next_german_weather(state: engine.Game):
    turns = state.scenario.turns
    nxt = state.turn + 1 if state.phase.side == "soviet" else state.turn
    info = turns.get(nxt) or turns[state.turn]
    return state.scenario.weather[info.weather]


def distance_field(info: BoardInfo, sources) -> list[int]:
    dist = info.dist
    sources = list(sources)
    if not sources:
        return [99] * info.n
    return [min(dist[h][s] for s in sources) for h in range(info.n)]


def german_attack_potential(state: engine.Game, info: BoardInfo, germans: dict[int, str],
                            to_german: list[int]) -> list[float]:
    """Per hex: German attack strength that could hit a Soviet unit there in the next German combat.

    Units next to the hex attack from where they stand (infantry cannot move before combat); panzers in
    reach of a free hex on the German side of it move there first. At most six attackers.
    """
    weather = next_german_weather(state)
    factor = float(weather.attack_factor)
    mud = weather.max_hexes is not None
    allowance = 6 + weather.ma_modifier.get("panzer", 0)
    mcost = info.mcost()
    dist = info.dist
    counters = state.counters
    panzers = [(h, state.strength(u)) for h, u in germans.items() if counters[u].type == "panzer"]
    potential = [0.0] * info.n
    for h in range(info.n):
        if h in germans:
            continue
        adjacent = []
        slots = []
        for n in info.neighbours[h]:
            if n in germans:
                adjacent.append(state.strength(germans[n]))
            elif to_german[n] <= to_german[h]:
                slots.append(n)
        movers = []
        if slots:
            for ph, s in panzers:
                if dist[ph][h] == 1:
                    continue
                if any((dist[ph][n] <= 1) if mud else (mcost[ph][n] <= allowance) for n in slots):
                    movers.append(s)
            movers.sort(reverse=True)
            movers = movers[:len(slots)]
        potential[h] = (sum(adjacent) + sum(movers)) * factor
    return potential


def river_protected(info: BoardInfo, h: int, toward_enemy: list[int]) -> bool:
    """True when every neighbour on the enemy's side is across a river."""
    sides = [n for n in info.neighbours[h] if toward_enemy[n] < toward_enemy[h]]
    return bool(sides) and all(info.river(h, n) for n in sides)


def rail_reach(info: BoardInfo, start: int, allowance: int, enemies, enemy_zoc) -> set[int]:
    """Hexes a unit in ``start`` could reach by rail movement."""
    seen = {start: 0}
    frontier = [start]
    rail = info.rail
    while frontier:
        nxt = []
        for x in frontier:
            if x != start and x in enemy_zoc:
                continue
            for y in rail[x]:
                if y in enemies or y in seen or seen[x] + 1 > allowance:
                    continue
                seen[y] = seen[x] + 1
                nxt.append(y)
        frontier = nxt
    return set(seen)


def within(info: BoardInfo, starts, steps: int, blocked) -> set[int]:
    """Hexes within ``steps`` hexes of any of ``starts`` (not entering ``blocked``)."""
    out = set(starts)
    frontier = list(starts)
    for _ in range(steps):
        nxt = []
        for x in frontier:
            for y in info.neighbours[x]:
                if y not in out and y not in blocked:
                    out.add(y)
                    nxt.append(y)
        frontier = nxt
    return out


def forecast_final(state: engine.Game, info: BoardInfo, soviets: dict[int, str], germans: dict[int, str],
                   rail_stops: dict[str, set[int]] | None = None) -> dict[str, set[int]]:
    """Where each Soviet unit could roughly be at the end of this Soviet turn: after rail movement (if it
    stands on a rail hex) and normal movement. ``rail_stops`` overrides the rail movement options."""
    weather = state.weather()
    later = 1 if weather.max_hexes is not None else 4
    german_zoc = zoc(info, germans)
    blocked = set(germans)
    final = {}
    for h, u in soviets.items():
        if rail_stops is not None:
            stops = rail_stops.get(u, {h})
        elif info.rail[h]:
            stops = rail_reach(info, h, state.counters[u].ma, germans, german_zoc)
        else:
            stops = {h}
        final[u] = within(info, stops | {h}, later, blocked)
    return final


class SovietPlanner:
    """The line and who stands where at the end of the Soviet turn."""

    def __init__(self, state: engine.Game, w: Weights, final: dict[str, set[int]],
                 soviets: dict[int, str] | None = None, germans: dict[int, str] | None = None) -> None:
        self.state = state
        self.w = w
        self.info = info = board_info(state)
        self.soviets = soviets if soviets is not None else units_by_hex(state, "soviet")
        self.germans = germans if germans is not None else units_by_hex(state, "german")
        self.final = final
        self.last_turn = state.turn >= state.scenario.last_turn
        self.to_german = distance_field(info, self.germans)
        self.potential = german_attack_potential(state, info, self.germans, self.to_german)
        self.east: dict[int, int] = {}
        for h in self.germans:
            r = info.row[h]
            for rr in (r - 1, r, r + 1):
                self.east[rr] = max(self.east.get(rr, 0), info.col[h])
        units = list(self.soviets.values())
        self.full_share = sum(1 for u in units if u not in state.reduced) / max(1, len(units))
        self.cities_by_row: dict[int, list[int]] = {}
        for c in info.cities:
            if state.control.get(c) == "soviet":
                self.cities_by_row.setdefault(info.row[c], []).append(c)
        self._exposure: dict[tuple[int, int], float] = {}
        self.line_hexes: list[int] = []
        self.uncovered: list[int] = []

    # --- hex values ---

    def exposure(self, h: int, strength: int = 8) -> float:
        """Expected loss of a Soviet unit of ``strength`` in ``h`` next German turn (retreat assumed open)."""
        key = (h, strength)
        cached = self._exposure.get(key)
        if cached is not None:
            return cached
        info = self.info
        attack = self.potential[h]
        total = 0.0
        if attack > 0:
            shifts = 1 if (info.forest[h] or h in info.forts or h == info.capital) else 0
            if river_protected(info, h, self.to_german):
                shifts += 1
            col = column_for(self.state, attack, strength, shifts)
            if col >= 0:
                mat = self.w.mat_soviet
                kill = self.w.kill + mat * strength
                step = mat * strength / 2
                half = strength <= 5
                # next to several German units a retreat is likely cut off
                trapped = sum(1 for n in info.neighbours[h] if n in self.germans) >= 3
                crt = self.state.scenario.crt
                for roll in range(1, 7):
                    r = crt.results[roll][col]
                    if r == "DE":
                        total += kill
                    elif r in ("DRL", "EX"):
                        total += kill if (half or trapped) else step + 0.3
                    elif r == "DR":
                        total += kill if trapped else 0.3
                total /= 6
        self._exposure[key] = total
        return total

    def mixed_exposure(self, h: int) -> float:
        return self.full_share * self.exposure(h, 8) + (1 - self.full_share) * self.exposure(h, 4)

    def city_threat(self, c: int, front: dict[int, int]) -> float:
        """How likely the Germans take city ``c`` next turn if no Soviet unit stands in it (0..1)."""
        info, state = self.info, self.state
        weather = next_german_weather(state)
        mud = weather.max_hexes is not None
        mcost = info.mcost()
        dist = info.dist
        counters = state.counters
        p = 0.02
        behind_line = info.col[c] > front.get(info.row[c], 0)
        for g, u in self.germans.items():
            panzer = counters[u].type == "panzer"
            if mud:
                reach = dist[g][c] <= (2 if panzer else 1)
            else:
                reach = mcost[g][c] <= (2 * (6 + weather.ma_modifier.get("panzer", 0)) if panzer
                                         else 4 + weather.ma_modifier.get("infantry", 0))
            if not reach:
                continue
            intruder = info.col[g] >= front.get(info.row[g], 99)
            if intruder or not behind_line:
                return 0.9
            p = max(p, 0.35 if dist[g][c] <= 6 else 0.2)
        return p

    def concession(self, h: int) -> float:
        """Value of the Soviet cities a line through ``h`` leaves on the German side (same row, west)."""
        info, state = self.info, self.state
        total = 0.0
        near = self.w.s_concede_near
        for c in self.cities_by_row.get(info.row[h], ()):
            if info.col[c] < info.col[h]:
                # a city the Germans are already next to is hard to keep anyway
                keep = 1.0 if near <= 0 else min(1.0, max(0.2, (self.to_german[c] - 1) / near))
                total += city_swing(info, state, c, "soviet", self.w) * keep
        return total

    def line(self, extra: dict[int, float] | None = None) -> list[int]:
        """The cheapest chain of hexes from the north edge to the south edge."""
        info = self.info
        w = self.w
        reachable = set()
        for options in self.final.values():
            reachable.update(options)
        cost = [0.0] * info.n
        for h in range(info.n):
            if h in self.germans:
                cost[h] = float("inf")
                continue
            c = 1.5 + w.s_exposure * self.mixed_exposure(h)
            if h not in reachable:
                c += w.s_gap
            behind = self.east.get(info.row[h], 0) - info.col[h]
            if behind >= 0:
                c += w.s_behind * (behind + 1)
            if h in info.cities and self.state.control.get(h) == "soviet":
                c -= 0.3
            c += w.s_concede * self.concession(h)
            if extra:
                c += extra.get(h, 0.0)
            cost[h] = max(c, 0.1)
        self.cost = cost
        rows = info.rows
        start = [h for h in range(info.n) if info.row[h] == 1 and cost[h] < float("inf")]
        best = {h: cost[h] for h in start}
        parent: dict[int, int] = {}
        heap = [(cost[h], h) for h in start]
        heapq.heapify(heap)
        end = None
        while heap:
            c, h = heapq.heappop(heap)
            if c > best.get(h, float("inf")):
                continue
            if info.row[h] == rows:
                end = h
                break
            for n in info.neighbours[h]:
                nc = c + cost[n]
                if nc < best.get(n, float("inf")):
                    best[n] = nc
                    parent[n] = h
                    heapq.heappush(heap, (nc, n))
        if end is None:
            return []
        path = [end]
        while path[-1] in parent:
            path.append(parent[path[-1]])
        return list(reversed(path))

    # --- the whole deployment ---

    def plan(self) -> dict[str, int]:
        """Unit → hex where it should end the turn."""
        if self.last_turn:
            chosen, _ = self._deploy([])
            return chosen
        extra: dict[int, float] = {}
        best = None
        for _ in range(3):
            line = self.line(extra)
            chosen, uncovered = self._deploy(line)
            if best is None or len(uncovered) < len(best[2]):
                best = (chosen, line, uncovered)
            if not uncovered:
                break
            for h in uncovered:
                extra[h] = extra.get(h, 0.0) + self.w.s_gap
        chosen, line, uncovered = best
        self.line_hexes = line
        self.uncovered = uncovered
        return chosen

    def _deploy(self, line: list[int]) -> tuple[dict[str, int], list[int]]:
        info, state, w = self.info, self.state, self.w
        units = list(self.soviets.values())
        values: dict[tuple[str, int], float] = {}
        slots: list[int] = []
        allowed = {u: self.final[u] for u in units}
        line_set = set(line)
        max_exp = max([self.exposure(h) for h in line] + [0.01])
        front: dict[int, int] = {}
        for h in line:
            front[info.row[h]] = min(front.get(info.row[h], 99), info.col[h])
        # city slots: keep (garrison) or retake
        city_slot: dict[int, float] = {}
        for c in info.cities:
            if c in self.germans:
                continue
            swing = city_swing(info, state, c, "soviet", w)
            if state.control.get(c) != "soviet":
                city_slot[c] = capture_gain(info, state, c, "soviet", w) * 1.2
            elif not self.last_turn:
                p = self.city_threat(c, front)
                if c == info.capital:
                    p = max(p, 0.7)
                city_slot[c] = w.s_garrison * swing * p * 0.6
        slots.extend(line)
        for c in list(city_slot):
            if c in line_set:
                continue
            if info.col[c] < front.get(info.row[c], 0) and not self.last_turn:
                # in front of the line: a unit that cannot reach the line may as well hold it; retaking it
                # is only worth it where it is not a trap
                if state.control.get(c) == "soviet":
                    city_slot[c] = min(city_slot[c], w.s_forward_city)
                elif self.exposure(c, 8) > 0.3:
                    del city_slot[c]
                    continue
            slots.append(c)
        # Moscow's ring: the hexes around it facing the Germans, when they are near
        ring: dict[int, float] = {}
        capital = info.capital
        if not self.last_turn and state.control.get(capital) == "soviet" and self.to_german[capital] <= w.s_ring_distance:
            for n in info.neighbours[capital]:
                if n not in self.germans and self.to_german[n] <= self.to_german[capital]:
                    ring[n] = w.s_ring
        for n in ring:
            if n not in line_set and n not in city_slot:
                slots.append(n)
        # reserve hexes: just behind the line
        behind = []
        for h in line:
            for n in info.neighbours[h]:
                if n not in line_set and n not in self.germans and self.to_german[n] > self.to_german[h] \
                        and n not in behind and n not in city_slot and n not in ring:
                    behind.append(n)
        # rail hexes a little behind the front: from there a reserve rides to a counterattack next turn
        staging = []
        if w.s_staging > 0 and not self.last_turn:
            for h in range(info.n):
                if info.rail[h] and 2 <= self.to_german[h] <= 5 and h not in line_set and h not in self.germans \
                        and h not in city_slot and h not in ring:
                    staging.append(h)
        for h in staging:
            if h not in behind:
                slots.append(h)
        slots.extend(behind)
        behind_set = set(behind)
        staging_set = set(staging)
        for u in units:
            strength_now = state.strength(u)
            full = state.counters[u].full
            here = state.hex_of[u]
            for h in allowed[u]:
                v = 0.0
                if h in line_set:
                    exp = self.exposure(h, 8)
                    v += 8.0 + 2.0 * exp / max_exp * (strength_now / full)
                    v -= 0.6 * self.exposure(h, strength_now)
                if h in city_slot:
                    v += city_slot[h]
                if h in ring:
                    v += ring[h]
                if h in behind_set:
                    v += 1.0 + 0.1 * self.potential[h] / 10
                if h in staging_set:
                    v += w.s_staging * (strength_now / full)
                if v:
                    v -= 0.02 * info.dist[here][h]
                    if h == here:
                        v += 0.05
                    values[(u, h)] = v
        chosen = assign(units, slots, values, {u: [h for h in allowed[u] if (u, h) in values] for u in units})
        occupied = set(chosen.values())
        # line hexes that no unit stands on nor next to: let a reserve cover them
        def covered(h: int) -> bool:
            return h in occupied or any(n in occupied for n in info.neighbours[h])
        uncovered = [h for h in line if not covered(h)]
        if uncovered:
            spare = [u for u in units if u not in chosen or chosen[u] in behind_set]
            for h in list(uncovered):
                if covered(h):
                    continue
                options = []
                for u in spare:
                    for x in [h, *info.neighbours[h]]:
                        if x in allowed[u] and x not in occupied and x not in self.germans:
                            options.append((self.mixed_exposure(x) + (0.5 if x != h else 0.0), u, x))
                if options:
                    _, u, x = min(options)
                    if u in chosen:
                        occupied.discard(chosen[u])
                    chosen[u] = x
                    occupied.add(x)
                    spare.remove(u)
            uncovered = [h for h in line if not covered(h)]
        # the rest: toward the line (or Moscow), not next to the Germans for nothing
        targets = line or [info.capital]
        for u in units:
            if u in chosen:
                continue
            here = state.hex_of[u]
            best_h, best_s = None, None
            for h in allowed[u]:
                if h in occupied:
                    continue
                d = min(info.dist[h][t] for t in targets)
                s = -d - (1.5 if self.to_german[h] <= 1 else 0.0) + (0.05 if h == here else 0.0)
                if best_s is None or s > best_s:
                    best_h, best_s = h, s
            if best_h is not None:
                chosen[u] = best_h
                occupied.add(best_h)
        return chosen, uncovered


def plan_soviet_movement(state: engine.Game, phase: MovePhase, w: Weights) -> dict[str, int]:
    movable = set(phase.movable)
    final = {u: (set(phase.dests[u]) if u in movable else {h}) for h, u in phase.mine.items()}
    planner = SovietPlanner(state, w, final, phase.mine, phase.theirs)
    targets = planner.plan()
    return {u: h for u, h in targets.items() if u in movable and h in phase.dests[u]}


def plan_soviet_rail(state: engine.Game, phase: MovePhase, w: Weights) -> dict[str, int]:
    """Rail movement: units that can rail-move first set up counterattacks (when they can still reach
    their place in the line afterwards), the others go to the rail stop nearest the hex they should end
    the turn in (the line is planned for the end of the turn)."""
    info = phase.info
    stops = {u: set(phase.dests[u]) for u in phase.movable}
    final = forecast_final(state, info, phase.mine, phase.theirs, stops)
    planner = SovietPlanner(state, w, final, phase.mine, phase.theirs)
    targets = planner.plan()
    line = set(planner.line_hexes)
    mud = state.weather().max_hexes is not None
    attackers = [u for u in phase.movable if not mud or targets.get(u) not in line]
    plan, _free, _positions = plan_attack_setup(state, phase, w, "soviet", attackers)
    taken: set[int] = set(plan.values())
    later = 1 if mud else 4
    last_turn = state.turn >= state.scenario.last_turn
    for u in list(plan):
        target = targets.get(u)
        if target is not None and info.dist[plan[u]][target] > later and not last_turn:
            taken.discard(plan.pop(u))
    for u in sorted(phase.movable):
        if u in plan:
            continue
        target = targets.get(u)
        if target is None:
            continue
        here = state.hex_of[u]
        options = [h for h in phase.dests[u] if h not in taken]
        if not options:
            continue
        best_h = min(options, key=lambda h: (info.dist[h][target], h != here, planner.to_german[h] <= 1, h))
        if info.dist[best_h][target] < info.dist[here][target]:
            plan[u] = best_h
            taken.add(best_h)
    return plan


def replacement_needs(state: engine.Game, w: Weights) -> tuple[list[int], list[int]]:
    """(line hexes nobody can cover this turn, the planned line), for placing new units."""
    info = board_info(state)
    soviets = units_by_hex(state, "soviet")
    germans = units_by_hex(state, "german")
    final = forecast_final(state, info, soviets, germans)
    planner = SovietPlanner(state, w, final, soviets, germans)
    planner.plan()
    return planner.uncovered, planner.line_hexes
