// The log and the actions in words.

export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
export const sideName = (side) => ({ german: "German", soviet: "Soviet", draw: "Draw" })[side] || side;
export const phaseName = (phase) => (phase || "").replace(/_/g, " ");

// "XLVII" → "XLVII (XLVII Panzer Corps)" when the scenario names it differently.
function unitName(scenario, id) {
  const counter = scenario && scenario.counters.find((c) => c.id === id);
  return counter && counter.name && counter.name !== id ? `${id} (${counter.name})` : id;
}

// A strength as the service writes it, halved ones as fractions ("11/2"), as a person reads it: 5.5.
export function strengthText(value) {
  const fraction = /^(-?\d+)\/(\d+)$/.exec(String(value));
  return fraction ? String(Number((fraction[1] / fraction[2]).toFixed(2))) : String(value);
}

const firstColumn = (scenario) => ((scenario && scenario.crt && scenario.crt.columns) || [])[0] || "the table";

// The odds before shifts: "below" is under the table's first column.
export function oddsName(odds, scenario) {
  return odds === "below" ? `below ${firstColumn(scenario)}` : odds;
}

// The column a battle is fought on, and what the table makes of odds below its first column.
export function columnName(column, scenario) {
  if (column !== "below") return column;
  const notAllowed = scenario && scenario.crt && scenario.crt.below_lowest === "not_allowed";
  return `below ${firstColumn(scenario)} (${notAllowed ? "not allowed" : "no effect"})`;
}

// The exchange losses of a choice: each unit named once loses a step, twice (or at half strength
// already, in `state`) it is eliminated.
function lossesText(units, name, state) {
  const steps = new Map();
  for (const unit of units) steps.set(unit, (steps.get(unit) || 0) + 1);
  const half = (unit) => state && (state.units || []).some((u) => u.id === unit && u.strength === "half");
  return [...steps].map(([unit, n]) => `${name(unit)} ${n > 1 || half(unit) ? "is eliminated" : "loses a step"}`).join(", ");
}

function cityOf(scenario, hex) {
  const h = scenario && scenario.map.hexes.find((x) => x.id === hex);
  return h && h.city ? `${h.city} (${hex})` : hex;
}

export function describeAction(action, scenario, state) {
  const [kind, a] = Object.entries(action)[0] || ["?", {}];
  const u = (id) => unitName(scenario, id);
  switch (kind) {
    case "place_unit": return `place ${u(a.unit)} on ${a.hex}`;
    case "standard_setup": return "use the standard set-up";
    case "move": return `move ${u(a.unit)} to ${cityOf(scenario, a.to)}`;
    case "end_phase": return "end the phase";
    case "declare_attack": return `${a.attackers.map(u).join(" and ")} attack${a.attackers.length > 1 ? "" : "s"} ${u(a.defender)}`;
    case "close_declarations": return "close the declarations of battles";
    case "resolve_battle": return `resolve the battle against ${u(a.defender)}`;
    case "choose_retreat": return `retreat through ${a.path.join(" → ") || "nowhere"}`;
    case "choose_losses": return lossesText(a.units, u, state);
    case "choose_attacker_loss": return `${u(a.unit)} takes the loss`;
    case "advance": return `${u(a.unit)} advances`;
    case "decline_advance": return "do not advance";
    case "replace": return `bring ${u(a.unit)} back on ${a.hex}`;
    case "restore": return `restore ${u(a.unit)} to full strength`;
    case "resign": return `${sideName(a.side)} resigns`;
    case "buy_winter_gear": return "buy Winter Gear";
    case "roll_attrition": return "roll for winter attrition";
    case "choose_frostbite": return `${u(a.unit)} suffers the frostbite`;
    case "designate_tank": return `make ${u(a.unit)} the Tank unit`;
    case "buy_extra_supply": return "buy extra supply";
    case "assault": return `support ${u(a.unit)}'s attack with ${a.points || 1} supply`;
    case "time_forfeit": return `${sideName(a.side)} loses on time`;
    default: return `${kind.replace(/_/g, " ")} ${JSON.stringify(a)}`;
  }
}

export function describeGameEvent(event, scenario) {
  const [kind, e] = Object.entries(event)[0] || ["?", {}];
  const u = (id) => unitName(scenario, id);
  switch (kind) {
    case "turn_started": return `Turn ${e.turn} begins (${e.dates}), weather ${e.weather}`;
    case "phase_started": return `${cap(phaseName(e.phase))} phase`;
    case "unit_placed": return `${u(e.unit)} placed on ${e.hex}`;
    case "unit_moved": return `${u(e.unit)} moves ${[e.start, ...e.path].join(" → ")}`;
    case "city_captured": return `${sideName(e.side)} forces take ${cityOf(scenario, e.hex)}`;
    case "attack_declared": return `${e.attackers.map(u).join(" and ")} will attack ${u(e.defender)}`;
    case "declarations_closed": return `Declarations closed: ${e.battles} battle${e.battles === 1 ? "" : "s"}`;
    case "die_rolled": return `Die roll #${e.index}: ${e.value} (${e.purpose.replace(/_/g, " ")})`;
    case "battle_resolved": {
      const shift = e.shifts ? `, ${e.shifts > 0 ? "+" : "−"}${Math.abs(e.shifts)} column${Math.abs(e.shifts) > 1 ? "s" : ""}` : "";
      const roll = e.roll !== undefined ? `, roll ${e.roll}` : "";
      return `Battle for ${u(e.defender)}: ${strengthText(e.attack)} against ${e.defence}, ${oddsName(e.odds, scenario)}${shift}`
        + ` → ${columnName(e.column, scenario)}${roll}: ${e.result}`;
    }
    case "step_lost": return `${u(e.unit)} loses a step (${e.cause.replace(/_/g, " ")})`;
    case "unit_eliminated": return `${u(e.unit)} is eliminated in ${e.hex} (${e.cause.replace(/_/g, " ")})`;
    case "unit_retreated": return `${u(e.unit)} retreats ${[e.start, ...e.path].join(" → ")}${e.through_zoc ? " through a zone of control" : ""}`;
    case "unit_advanced": return `${u(e.unit)} advances into ${e.hex}`;
    case "replacement_points_received": return `${sideName(e.side)}: ${e.points} replacement point${e.points === 1 ? "" : "s"}`;
    case "unit_replaced": return `${u(e.unit)} returns at half strength on ${e.hex}`;
    case "unit_restored": return `${u(e.unit)} is back to full strength`;
    case "capital_occupied": return `${sideName(e.side)} forces occupy Moscow: +${e.points} points`;
    case "game_ended": return `The game is over: ${e.winner === "draw" ? "a draw" : `${sideName(e.winner)} victory`} (${e.reason}), ${e.german_points}–${e.soviet_points}`;
    case "weather_changed": return `Weather of turn ${e.turn}: ${e.weather} (${e.reason})`;
    case "winter_attrition": return `${sideName(e.side)} winter attrition: roll ${e.roll}, ${e.result.replace(/_/g, " ")}`;
    case "winter_gear_bought": return `${sideName(e.side)} buys Winter Gear for ${e.cost}`;
    case "unit_available": return `${u(e.unit)} may now be replaced (${e.reason})`;
    case "tank_designated": return `${u(e.unit)} becomes the Tank unit ${e.tank} in ${e.hex}`;
    case "supply_changed": return `${sideName(e.side)} supply ${e.supply} (${e.change >= 0 ? "+" : ""}${e.change}, ${e.reason})`;
    case "assault_supported": return `${u(e.unit)} attacks with ${e.points} more for ${e.cost} supply`;
    case "entropy_drawn": return `${sideName(e.side)} gave no entropy before the first die: drawn from the seed, ${e.entropy.slice(0, 16)}…`;
    default: return `${kind.replace(/_/g, " ")}`;
  }
}

// One entry of the log: {text, kind} where kind styles it ("action", "turn", "battle", "service"...).
export function describeEntry(entry, scenario) {
  if (entry.game_event) {
    const kind = Object.keys(entry.game_event)[0];
    const style = { turn_started: "turn", phase_started: "phase", battle_resolved: "battle", die_rolled: "die",
      game_ended: "end", city_captured: "city", unit_eliminated: "loss", step_lost: "loss" }[kind] || "event";
    return { text: describeGameEvent(entry.game_event, scenario), kind: style };
  }
  if (entry.action_submitted) {
    const a = entry.action_submitted;
    return { text: `${sideName(a.side)}: ${describeAction(a.action, scenario)}`, kind: `action ${a.side}` };
  }
  if (entry.match_created) return { text: `Match created (${entry.match_created.scenario}); seed commitment ${entry.match_created.seed_commitment.slice(0, 16)}…`, kind: "service" };
  if (entry.entropy_awaited) return { text: `The dice wait for the ${sideName(entry.entropy_awaited.side)} seat's entropy commitment`, kind: "service" };
  if (entry.entropy_committed) {
    const c = entry.entropy_committed;
    return { text: c.commitment ? `${sideName(c.side)} commits to its entropy for the dice: SHA-256 ${c.commitment.slice(0, 16)}…`
      : `${sideName(c.side)} gives no entropy for the dice`, kind: "service" };
  }
  if (entry.entropy_contributed) return { text: `${sideName(entry.entropy_contributed.side)} reveals its entropy for the dice: ${entry.entropy_contributed.entropy.slice(0, 16)}…`, kind: "service" };
  if (entry.seat_claimed) return { text: `${sideName(entry.seat_claimed.side)} seat taken${entry.seat_claimed.player_name ? ` by ${entry.seat_claimed.player_name}` : ""}`, kind: "service" };
  if (entry.match_aborted) {
    const aborted = entry.match_aborted;
    const by = aborted.by_operator ? "by an operator" : sideName(aborted.side);  // no side is blamed for some aborts
    return { text: `Match aborted${by ? `: ${by}` : ""} (${aborted.reason})`, kind: "end" };
  }
  if (entry.seed_revealed) return { text: `Seed revealed: ${entry.seed_revealed.seed.slice(0, 16)}…`, kind: "service" };
  return { text: "?", kind: "service" };
}
