// Battles in words: the declared ones with their odds (a match live and its replay), the preview of one
// before it is declared (the service's PreviewBattle: odds, each shift and its cause, each die roll),
// and the outcome of one just resolved.

import { el } from "./dom.js";
import { columnName, oddsName, strengthText } from "./words.js";

const signed = (n) => `${n > 0 ? "+" : "−"}${Math.abs(n)}`;

// The card of the declared battles (GameState.battles); null when there are none.
export function battlesTable(declared, scenario) {
  if (!declared || !declared.length) return null;
  return el("table", { class: "battles" },
    el("caption", { class: "sr-only" }, "Declared battles: attackers, strengths and odds, the column fought on"),
    ...declared.map((b) => el("tr", { "data-defender": b.defender },
      el("td", {}, `${b.attackers.join(", ")} → ${b.defender} (${b.hex})`),
      el("td", { class: "muted" }, `${strengthText(b.attack)} to ${b.defence}`,
        b.shifts ? `: ${oddsName(b.odds, scenario)} ${signed(b.shifts)}` : ""),
      el("td", { class: "odds", title: `attack ${strengthText(b.attack)} against ${b.defence}; ${oddsName(b.odds, scenario)}, shift ${b.shifts}` },
        columnName(b.column, scenario)))));
}

// What a column shift of `columns` and a cause look like: "−1 forest: the defender is in a forest hex".
function shiftLine(shift) {
  const columns = `${signed(shift.columns)} column${Math.abs(shift.columns) === 1 ? "" : "s"}`;
  return el("li", { "data-cause": shift.cause }, el("b", {}, columns), ` (${shift.cause.replace(/_/g, " ")}): ${shift.description}`);
}

// The odds in one sentence: "11 → 5.5 in the mud against 4: 1:1, −1 forest → below 1:1 (no effect)".
export function oddsSentence(preview, scenario) {
  const b = preview.battle;
  const weather = preview.attack_factor !== "1"
    ? `${strengthText(preview.strength)} (${preview.weather}: × ${preview.attack_factor}) = ${strengthText(b.attack)}`
    : strengthText(b.attack);
  const shifts = preview.shift_causes.map((s) => `${signed(s.columns)} ${s.cause.replace(/_/g, " ")}`).join(", ");
  return `${weather} against ${b.defence}: ${oddsName(b.odds, scenario)}${shifts ? `, ${shifts}` : ""} → ${columnName(b.column, scenario)}`;
}

// The outcome of each die roll, as a table; rolls with the same result are one row ("1–2: DR").
function outcomesTable(preview) {
  const rows = [];
  for (const o of preview.outcomes) {
    const last = rows[rows.length - 1];
    if (last && last.result === o.result) last.to = o.roll;
    else rows.push({ from: o.roll, to: o.roll, result: o.result, description: o.description });
  }
  return el("table", { class: "outcomes", id: "outcomes" },
    el("caption", {}, "What each die roll would do"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Roll"), el("th", { scope: "col" }, "Result"),
      el("th", { scope: "col" }, "Chance"))),
    el("tbody", {}, ...rows.map((r) => el("tr", { class: `result-${r.result}` },
      el("td", {}, r.from === r.to ? String(r.from) : `${r.from}–${r.to}`),
      el("td", {}, el("b", {}, r.result), ` ${r.description}`),
      el("td", {}, `${r.to - r.from + 1} in 6`)))));
}

// The battle a declaration would make, with what to do next; `actions`: the confirm and cancel buttons.
export function previewCard(plan, scenario, { actions, touchWord }) {
  const parts = [el("h3", {}, `Battle for ${plan.defender}: ${plan.attackers.join(" and ")} attacking`)];
  if (plan.error) parts.push(el("p", { class: "banner refused", role: "alert" }, plan.error));
  else if (!plan.preview) parts.push(el("p", { class: "muted" }, "Working out the odds…"));
  else {
    const p = plan.preview;
    parts.push(el("p", { class: "odds-line", id: "preview-odds" }, oddsSentence(p, scenario)));
    if (p.shift_causes.length) parts.push(el("ul", { class: "shifts", id: "shifts" }, ...p.shift_causes.map(shiftLine)));
    else parts.push(el("p", { class: "muted", id: "shifts" }, "No column shifts: no forest, Moscow, fortification or river in the defender's favour."));
    parts.push(outcomesTable(p));
    if (!p.allowed) parts.push(el("p", { class: "banner refused" }, "The table does not allow an attack at these odds."));
  }
  parts.push(el("p", { class: "muted" }, `Add or drop attackers: ${touchWord} your units outlined green. A declared battle cannot be taken back.`));
  parts.push(el("div", { class: "actions" }, ...actions));
  return el("section", { class: "plan", id: "plan", "aria-label": "battle before declaring" }, ...parts);
}

// A battle just resolved (a BattleResolved event) and what it caused (the entries after it).
export function resolvedCard(event, effects, scenario) {
  const odds = `${strengthText(event.attack)} to ${event.defence}: ${oddsName(event.odds, scenario)}`
    + `${event.shifts ? ` ${signed(event.shifts)}` : ""} → ${columnName(event.column, scenario)}`;
  const roll = event.roll ? `roll ${event.roll}: ` : "";
  return el("div", { class: "resolved", id: "last-battle", role: "status" },
    el("h3", {}, `Battle for ${event.defender}`),
    el("p", {}, `${event.attackers.join(" and ")} attacked, ${odds}.`),
    el("p", { class: `verdict result-${event.result}` }, el("b", {}, `${roll}${event.result}`),
      ` ${((scenario && scenario.crt && scenario.crt.result_names) || {})[event.result] || ""}`),
    effects.length ? el("ul", {}, ...effects.map((text) => el("li", {}, text))) : null);
}
