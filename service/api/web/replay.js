// A match step by step: step n is the position after the n-th action (GetMatch at version n, which
// the service re-simulates from the log), with the dice audit: the service's (VerifyMatch) and, where
// the browser has WebCrypto, every roll recomputed here from the revealed seed and, from ruleset 4 on,
// each seat's entropy (engine/dice.py).

import { api, scenario as loadScenario, watch, wholeLog } from "./api.js";
import { battlesTable } from "./battles.js";
import { draw, prepare } from "./board.js";
import { el, fill, resultText } from "./dom.js";
import { cityList, pointsCard, turnHeading, turnTrack } from "./match.js";
import { describeEntry, sideName } from "./words.js";

// --- the dice, recomputed in the page --------------------------------------------------------------

async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

// Roll `index` of a match of rulesets 1-3 with this seed, as engine/dice.py describes it.
export async function dieRoll(seed, index) {
  for (let attempt = 0; ; attempt++) {
    for (const byte of await sha256(`typhoon-die-v1:${seed}:${index}:${attempt}`)) {
      if (byte < 252) return (byte % 6) + 1;
    }
  }
}

// HMAC-SHA-256 of `text` with the key `key` (bytes, or text taken as UTF-8).
async function hmac(key, text) {
  const raw = typeof key === "string" ? new TextEncoder().encode(key) : key;
  const secret = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", secret, new TextEncoder().encode(text)));
}

// Ruleset 4 on (engine/dice.py): the key of every roll, from the seed and each side's entropy (sides in
// alphabetical order), and roll `index` from that key.
export async function diceKey(seed, entropy) {
  const sides = Object.keys(entropy).sort();
  return hmac(seed, "typhoon-dice-v2" + sides.map((side) => `|${side}=${entropy[side]}`).join(""));
}
export async function mixedRoll(key, index) {
  for (let attempt = 0; ; attempt++) {
    for (const byte of await hmac(key, `${index}:${attempt}`)) {
      if (byte < 252) return (byte % 6) + 1;
    }
  }
}
// The entropy drawn from the seed for a side that gave none.
export async function drawnEntropy(seed, side) {
  return hex(await hmac(seed, `typhoon-drawn-entropy-v1|${side}`));
}

// `given`: VerifyMatch's entropy list ({side, entropy, drawn, commitment}); empty before ruleset 4. Each
// revealed entropy is checked against the seat's commitment (its SHA-256), each drawn one against the seed.
async function pageAudit(seed, commitment, rolls, ruleset, given) {
  if (!(window.isSecureContext && crypto.subtle)) {
    return { available: false, text: "This page is not in a secure context (plain http to another host than localhost), so the browser offers no SHA-256 here: the service's audit above is what there is. Over https, the page recomputes every roll itself." };
  }
  const seedOk = hex(await sha256(seed)) === commitment;
  const mixed = ruleset >= 4;
  const entropy = {};
  const wrongDrawn = [], wrongCommitted = [];
  for (const { side, entropy: value, drawn, commitment: committed } of given) {
    entropy[side] = value;
    if (drawn && value !== await drawnEntropy(seed, side)) wrongDrawn.push(side);
    if (!drawn && hex(await sha256(value)) !== committed) wrongCommitted.push(side);
  }
  const key = mixed ? await diceKey(seed, entropy) : null;
  let matching = 0;
  const wrong = [];
  for (const roll of rolls) {
    const value = mixed ? await mixedRoll(key, roll.index) : await dieRoll(seed, roll.index);
    if (value === roll.logged) matching++; else wrong.push(`#${roll.index}: log ${roll.logged}, seed ${value}`);
  }
  const sides = [...given].sort((a, b) => a.side.localeCompare(b.side))
    .map(({ side, drawn }) => `${sideName(side)}${drawn ? " (drawn from the seed)" : " (matching its commitment)"}`);
  const mixing = mixed ? ` the dice mix the seed with the entropy of ${sides.join(" and ") || "no side"}${
    wrongDrawn.length ? `, but the entropy drawn for ${wrongDrawn.join(" and ")} is NOT the seed's` : ""}${
    wrongCommitted.length ? `, but the entropy revealed for ${wrongCommitted.join(" and ")} does NOT match its commitment` : ""};` : "";
  return { available: true, seedOk: seedOk && !wrongDrawn.length && !wrongCommitted.length, matching, wrong,
    text: `Recomputed in this page: SHA-256(seed) ${seedOk ? "equals" : "DIFFERS FROM"} the commitment;${mixing} ${matching} of ${rolls.length} rolls match the log${wrong.length ? ` (wrong: ${wrong.slice(0, 5).join("; ")})` : ""}.` };
}

// --- the replay ------------------------------------------------------------------------------------

export function showReplay(root, matchId, params) {
  const view = { matchId, step: 0, last: 0, steps: [], cache: new Map(), board: null, scenario: null, log: [], turn: 0 };
  window.typhoon.replay = view;
  let stopped = false, timer = null, stream = null;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "board");
  // a group, not an image: its units (each an image with its name, strength and hex) are read one by one
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", "Map at the step shown");
  const redraw = el("div", { class: "redraw", "aria-hidden": "true" });
  const where = el("span", { class: "where", id: "where" });
  const slider = el("input", { type: "range", min: 0, max: 0, value: 0, id: "step-slider", "aria-label": "step",
    oninput: () => go(Number(slider.value)) });
  const stepInput = el("input", { type: "number", min: 0, value: 0, id: "step-input", style: "width:5rem", "aria-label": "go to step",
    onchange: () => go(Number(stepInput.value)) });
  const playButton = el("button", { id: "autoplay", onclick: () => autoplay() }, "▶ play");
  const headline = el("div", { class: "headline" });
  const facts = el("div", { class: "card" });
  const track = el("div", { class: "card" });
  const current = el("div", { class: "card", id: "step-events" });
  const battles = el("section", { class: "card", id: "battles", "aria-label": "declared battles" });
  const audit = el("div", { class: "card audit", id: "audit" }, el("h2", {}, "Dice audit"), el("p", { class: "muted" }, "Checking…"));
  const cities = el("div", { class: "card" });
  root.append(headline,
    el("div", { class: "scrubber" },
      el("button", { title: "the start", id: "first", onclick: () => go(0) }, "|◀"),
      el("button", { title: "previous turn", id: "prev-turn", onclick: () => go(turnStep(-1)) }, "◀◀ turn"),
      el("button", { title: "previous action", id: "prev", onclick: () => go(view.step - 1) }, "◀"),
      slider,
      el("button", { title: "next action", id: "next", onclick: () => go(view.step + 1) }, "▶"),
      el("button", { title: "next turn", id: "next-turn", onclick: () => go(turnStep(1)) }, "turn ▶▶"),
      el("button", { title: "the end", id: "last", onclick: () => go(view.last) }, "▶|"),
      stepInput, playButton, where),
    el("div", { class: "match" },
      el("div", { class: "map-wrap" }, svg, redraw),
      el("div", { class: "side" }, current, battles, facts, audit, track, cities)));

  const keys = (event) => {
    if (event.target.tagName === "INPUT") return;
    if (event.key === "ArrowRight") go(view.step + 1);
    if (event.key === "ArrowLeft") go(view.step - 1);
    if (event.key === "PageDown") go(turnStep(1));
    if (event.key === "PageUp") go(turnStep(-1));
  };
  document.addEventListener("keydown", keys);

  // the first step of the turn after (direction 1) or of the current/previous turn (-1)
  function turnStep(direction) {
    const turnOf = (k) => view.steps[k].turn;
    const here = turnOf(view.step);
    if (direction > 0) {
      for (let k = view.step + 1; k <= view.last; k++) if (turnOf(k) !== here) return k;
      return view.last;
    }
    let k = view.step;
    while (k > 0 && turnOf(k - 1) === here) k--;
    if (k === view.step && k > 0) { const before = turnOf(k - 1); while (k > 0 && turnOf(k - 1) === before) k--; }
    return k;
  }

  async function position(step) {
    if (!view.cache.has(step)) view.cache.set(step, api.getMatch(matchId, step).then((r) => r.state));
    return view.cache.get(step);
  }

  let wanted = 0;
  async function go(step) {
    step = Math.max(0, Math.min(view.last, Number.isFinite(step) ? step : 0));
    wanted = step;
    const state = await position(step);
    if (stopped || wanted !== step) return;
    view.step = step;
    view.state = state;
    slider.value = step;
    stepInput.value = step;
    history.replaceState(null, "", `#/replay/${matchId}?step=${step}`);
    const info = view.steps[step];
    where.textContent = `step ${step} / ${view.last}`;
    fill(headline, turnHeading(state, resultText(state.result) || "over"),
      el("span", {}, `weather ${state.weather}`),
      el("span", { class: "muted mono" }, `${matchId} · replay`), el("a", { href: `#/match/${matchId}` }, "live view"));
    const ms = draw(svg, view.board, state, { battles: state.battles || [], path: info.path });
    window.typhoon.redraws.push(ms);
    redraw.textContent = `map redrawn in ${ms.toFixed(1)} ms`;
    fill(current, el("h2", {}, step ? `Step ${step}: ${info.sideName} ` : "Step 0: the match at creation"),
      el("ol", { class: "log", tabindex: "0", "aria-label": "what this step did" }, ...info.entries.map((entry) => {
        const { text, kind } = describeEntry(entry, view.scenario);
        return el("li", { class: kind }, el("span", { class: "seq" }, `#${entry.sequence}`), text);
      })));
    const declared = battlesTable(state.battles, view.scenario);  // battles declared and not yet fought, with their odds
    battles.hidden = !declared;
    fill(battles, el("h2", {}, "Battles"), declared);
    fill(facts, el("h2", {}, "Victory points"), pointsCard(state));
    fill(track, el("h2", {}, "Turns"), ...turnTrack(view.scenario, state, view.match));
    fill(cities, el("h2", {}, "Cities"), cityList(view.scenario, state));
    for (const next of [step + 1, step - 1]) if (next >= 0 && next <= view.last) position(next);  // prefetch
  }

  function autoplay() {
    if (timer) { clearInterval(timer); timer = null; playButton.textContent = "▶ play"; return; }
    playButton.textContent = "❚❚ pause";
    timer = setInterval(() => { if (view.step >= view.last) autoplay(); else go(view.step + 1); }, 600);
  }

  async function showAudit() {
    const result = await api.verify(matchId);
    const mark = { passed: ["ok", "✓"], failed: ["fail", "✗"], not_checked: ["skip", "–"] };
    const parts = [el("h2", {}, "Dice audit"),
      el("p", { class: `verdict ${result.verified ? "ok" : result.finished ? "fail" : "skip"}`, id: "verdict" },
        result.verified ? `Verified by the service: the seed matches its commitment, every roll derives from it${(result.entropy || []).length ? " and the seats' entropy" : ""}, and the log re-simulates.`
          : result.finished ? "The audit found problems." : "The match is running: its seed stays secret until the end."),
      el("div", {}, ...result.checks.map((c) => el("div", { class: "check", "data-check": c.name, "data-outcome": c.outcome },
        el("span", { class: mark[c.outcome][0] }, mark[c.outcome][1]), el("span", {}, c.description, c.detail ? ` (${c.detail})` : "")))),
      el("dl", { class: "kv" }, el("dt", {}, "commitment"), el("dd", { class: "mono" }, result.seed_commitment),
        el("dt", {}, "seed"), el("dd", { class: "mono" }, result.seed || "secret until the end"),
        ...(result.entropy || []).flatMap((e) => [el("dt", {}, `${sideName(e.side)} entropy`),
          el("dd", { class: "mono", "data-entropy": e.side }, e.entropy + (e.drawn ? " (drawn from the seed)"
            : e.commitment ? ` (committed to as SHA-256 ${e.commitment.slice(0, 16)}…)` : ""))]))];
    if (result.rolls.length) {
      parts.push(el("div", { class: "rolls", tabindex: "0", role: "region", "aria-label": "every die roll",
        title: "index: logged value (the value the seed gives)" },
        ...result.rolls.map((r) => el("span", { class: r.recomputed && r.recomputed !== r.logged ? "bad" : "" },
          `#${r.index}: ${r.logged}${r.recomputed ? (r.recomputed === r.logged ? " ✓" : ` ≠ ${r.recomputed}`) : ""}`))));
    }
    const mine = el("p", { id: "page-audit", class: "muted" }, result.seed ? "Recomputing in the page…" : "");
    parts.push(mine);
    fill(audit, ...parts);
    if (result.seed) {
      const checked = await pageAudit(result.seed, result.seed_commitment, result.rolls, result.ruleset, result.entropy || []);
      mine.textContent = checked.text;
      mine.className = checked.available ? (checked.seedOk && !checked.wrong.length ? "ok" : "fail") : "muted";
      mine.dataset.available = checked.available;
    }
  }

  const audited = () => showAudit().catch((error) =>
    fill(audit, el("h2", {}, "Dice audit"), el("p", { class: "banner refused" }, error.message)));

  // step k: the action that made version k and what it caused; step 0: creation and set-up
  function addEntries(entries) {
    for (const entry of entries) {
      view.log.push(entry);
      if (entry.action_submitted) {
        view.steps.push({ entries: [], turn: view.turn, sideName: sideName(entry.action_submitted.side),
          path: entry.action_submitted.action.move ? [] : undefined });
      }
      if (entry.game_event && entry.game_event.turn_started) view.turn = entry.game_event.turn_started.turn;
      const step = view.steps[view.steps.length - 1];
      step.entries.push(entry);
      if (entry.game_event && entry.game_event.turn_started) step.turn = view.turn;
      const moved = entry.game_event && (entry.game_event.unit_moved || entry.game_event.unit_retreated);
      if (moved) step.path = [moved.start, ...moved.path];
    }
    view.last = view.steps.length - 1;
    slider.max = view.last;
    stepInput.max = view.last;
    where.textContent = `step ${view.step} / ${view.last}`;
  }

  // A running match goes on while it is replayed: its new steps come by its event stream (a
  // spectator's: no token) and are added as they are played, a frame's worth at a time, until the seed
  // is revealed (always the last entry of a log) and the audit is done again.
  let arriving = [];
  function follow(after) {
    stream = watch(matchId, after, { onEvent: (entry) => {
      if (!arriving.length) requestAnimationFrame(takeArrivals);
      arriving.push(entry);
    } });
    view.stream = stream;
  }

  function takeArrivals() {
    const entries = arriving;
    arriving = [];
    if (stopped || !entries.length) return;
    const before = view.last;
    addEntries(entries);
    if (view.step >= before) go(view.step);  // the step shown may have grown
    if (entries.some((e) => e.seed_revealed)) { stream.close(); audited(); }
  }

  (async () => {
    try {
      const { match } = await api.getMatch(matchId);
      view.match = match;
      view.scenario = await loadScenario(match.scenario);
      view.board = prepare(view.scenario);
      view.steps = [{ entries: [], turn: 0, sideName: "" }];
      addEntries(await wholeLog(matchId));
      const start = params.has("step") ? Number(params.get("step")) : 0;
      await go(start);
      audited();
      if (!view.log.some((e) => e.seed_revealed)) follow(view.log.length ? view.log[view.log.length - 1].sequence : 0);
    } catch (error) {
      fill(root, el("p", { class: "banner refused" }, error.message));
    }
  })();

  return () => { stopped = true; clearInterval(timer); stream && stream.close(); document.removeEventListener("keydown", keys); };
}
