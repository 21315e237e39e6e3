// A side's turn in brief, from the log: its moves, its battles and their results, the losses on both
// sides and the cities that changed hands. The log is cut into runs of one side's actions (with what
// they caused); a run is what a player did before the other one had the move again.

import { sideName } from "./words.js";

// The runs of `entries` (log entries, in order): [{side, turn, setup, entries}], one per stretch of one
// side's actions; `turn` is the turn it was played in (the set-up's: the turn it played on into, turn 1),
// `setup` whether it began before turn 1.
export function runs(entries) {
  const out = [];
  let turn = 0, current = null;
  for (const entry of entries) {
    const event = entry.game_event;
    if (event && event.turn_started) {
      turn = event.turn_started.turn;
      if (current && current.setup && !current.turn) current.turn = turn;  // the set-up's run plays on into turn 1
    }
    const acted = entry.action_submitted;
    if (acted && (!current || current.side !== acted.side)) {
      current = { side: acted.side, turn, setup: !turn, entries: [] };
      out.push(current);
    }
    if (current) current.entries.push(entry);
  }
  return out;
}

// "German, turn 2"; "German, set-up and turn 1" for the run that set up and went on playing.
function runTitle(run) {
  const when = run.setup ? (run.turn ? `set-up and turn ${run.turn}` : "set-up") : `turn ${run.turn}`;
  return `${sideName(run.side)}, ${when}`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// One run in brief: {title, lines: [text], moves, battles, losses, cities}.
export function summarize(run) {
  const moved = new Map(), battles = [], losses = [], cities = [], other = [];
  for (const entry of run.entries) {
    const event = entry.game_event;
    if (!event) continue;
    const [kind, e] = Object.entries(event)[0];
    if (kind === "unit_moved") moved.set(e.unit, [moved.get(e.unit)?.[0] ?? e.start, e.path[e.path.length - 1]]);
    else if (kind === "battle_resolved") {
      battles.push(`${e.attackers.join(" and ")} against ${e.defender}: ${e.column === "below" ? "below the table" : e.column}`
        + `${e.roll ? `, roll ${e.roll}` : ""}, ${e.result}`);
    } else if (kind === "step_lost") losses.push(`${e.unit} loses a step`);
    else if (kind === "unit_eliminated") losses.push(`${e.unit} eliminated in ${e.hex}`);
    else if (kind === "unit_retreated") other.push(`${e.unit} retreats to ${e.path[e.path.length - 1]}`);
    else if (kind === "unit_advanced") other.push(`${e.unit} advances into ${e.hex}`);
    else if (kind === "city_captured") cities.push(`${sideName(e.side)} forces take ${e.city ? `${e.city} (${e.hex})` : e.hex}`);
    else if (kind === "unit_replaced") other.push(`${e.unit} returns on ${e.hex}`);
    else if (kind === "unit_restored") other.push(`${e.unit} back to full strength`);
    else if (kind === "unit_placed") other.push(`${e.unit} placed on ${e.hex}`);
  }
  const lines = [];
  if (moved.size) lines.push(`${plural(moved.size, "unit")} moved: ${[...moved].map(([u, [a, b]]) => `${u} ${a}→${b}`).join(", ")}`);
  if (battles.length) lines.push(`${plural(battles.length, "battle")}: ${battles.join("; ")}`);
  if (other.length) lines.push(other.join("; "));
  if (losses.length) lines.push(`Losses: ${losses.join(", ")}`);
  if (cities.length) lines.push(`Cities: ${cities.join(", ")}`);
  if (!lines.length) lines.push("Nothing moved or fought.");
  return { title: runTitle(run), lines, moves: moved.size, battles: battles.length,
    losses: losses.length, cities: cities.length };
}
