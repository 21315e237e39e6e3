// A match live (GetMatch + the WatchMatch stream), and play for the seat whose token the page holds.

import { api, ApiError, entropyCommitment, freshEntropy, grpcAddress, plainly, scenario as loadScenario, watch } from "./api.js";
import { battlesTable, oddsSentence, previewCard, resolvedCard } from "./battles.js";
import { draw, hexAt, prepare, step, unitAt, unitLabel } from "./board.js";
import { click, clicked, el, fill, keyboard, resultText, statusLabel, touch } from "./dom.js";
import { runs, summarize } from "./summary.js";
import { cap, columnName, describeAction, describeEntry, phaseName, sideName } from "./words.js";
import { TARGET_ZOOM, zoomable } from "./zoom.js";

const MAX_LOG = 200;  // entries kept on the page (the whole log is in the replay)
// Entries the page follows the stream from at first: the rest of the log (for the turns in brief and the
// log's older lines) is fetched once the page is drawn, so a long match opens as fast as a new one.
const TAIL = 40;

export function seatKey(matchId) { return `typhoon:${matchId}:seat`; }

// The seat this page acts for: from the URL (#/play/<id>?side=german&token=...: typhoon play opens
// that; the token is then moved out of the address bar into this tab's storage) or the tab's storage.
function takeSeat(matchId, params) {
  if (params.get("token")) {
    const seat = { side: params.get("side") || "", token: params.get("token") };
    sessionStorage.setItem(seatKey(matchId), JSON.stringify(seat));
    history.replaceState(null, "", `#/play/${matchId}`);
    return seat;
  }
  try { return JSON.parse(sessionStorage.getItem(seatKey(matchId)) || "null"); } catch { return null; }
}

// The units an action is done by: a unit "has actions" when it is among them.
function actorsOf(action) {
  const [kind, a] = Object.entries(action)[0];
  if (kind === "declare_attack") return a.attackers;
  if (kind === "choose_losses") return a.units;
  return a && a.unit ? [a.unit] : [];
}

export function turnTrack(scenario, state, match) {
  const phases = scenario.sequence.filter((p) => p.name !== "setup"
    && (!p.option || (match.options || {})[p.option]));
  return [
    el("div", { class: "track" }, ...scenario.turns.map((t) => el("div", {
      class: `turn ${t.weather}${t.turn === state.turn ? " now" : ""}${t.turn < state.turn ? " past" : ""}`,
      title: `${t.dates}: ${t.weather}`,
    }, el("b", {}, t.turn), t.turn === state.turn && state.weather ? state.weather : t.weather))),
    el("div", { class: "phases" }, ...phases.map((p) => el("span", {
      class: `${p.side}${p.name === state.phase ? " now" : ""}`, title: `${sideName(p.side)} ${p.kind}` },
    phaseName(p.name).replace(/^(german|soviet) /, "")))),
  ];
}

// The page's heading: the turn, the phase and whose move it is (or how the match ended), as text a
// screen reader lists among the headings, not only as colours.
export function turnHeading(state, ended) {
  const toAct = state.side_to_act;
  const comma = () => el("span", { class: "sr-only" }, ", ");
  return el("h1", { class: "turn-heading", id: "heading" },
    el("span", { class: "big" }, `Turn ${state.turn || "—"}`), comma(),
    el("span", {}, phaseName(state.phase)), comma(),
    toAct ? el("span", { class: `to-act side-${toAct}`, id: "to-act" }, `${sideName(toAct)} to act`)
      : el("span", { class: "to-act", id: "to-act" }, ended));
}

// The heading in one sentence, for the live region that says it when it changes.
export function headingText(state, ended) {
  const who = state.side_to_act ? `${sideName(state.side_to_act)} to act` : ended;
  return `Turn ${state.turn || "—"}, ${phaseName(state.phase)}: ${who}`;
}

export function pointsCard(state) {
  const vp = state.victory_points || {};
  return el("div", { class: "points" },
    el("div", { class: "german" }, "German", el("b", {}, vp.german ?? 0)),
    el("div", { class: "soviet" }, "Soviet", el("b", {}, vp.soviet ?? 0)));
}

export function cityList(scenario, state) {
  const control = state.city_control || {};
  return el("dl", { class: "kv" }, ...scenario.map.hexes.filter((h) => h.city).flatMap((h) => [
    el("dt", {}, h.city + (h.capital ? " ★" : "")),
    el("dd", {}, el("span", { class: `dot ${control[h.id] || ""}` }), sideName(control[h.id] || "") || "—"),
  ]));
}

function duration(text) {  // protobuf JSON Duration: "12.5s"
  return typeof text === "string" && text.endsWith("s") ? parseFloat(text) : Number(text) || 0;
}

function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + `:${String(r).padStart(2, "0")}`;
}

// The clocks of a match with a time control (Match.clock: remaining per side when the running clock
// started, the running side, since when), ticking; nothing for a match without one.
function clocksCard(match) {
  const clock = match.clock;
  if (!clock || !clock.remaining) return null;
  const cells = match.seats.map((seat) => {
    const cell = el("span", { class: "clock", "data-side": seat.side });
    return [cell, seat.side];
  });
  const tick = () => {
    for (const [cell, side] of cells) {
      let left = duration(clock.remaining[side]);
      const running = clock.running === side && clock.since;
      if (running && clock.awaiting_first_action && clock.deadline) {  // the first action's own time
        cell.textContent = `first move within ${clockText((Date.parse(clock.deadline) - Date.now()) / 1000)}`;
      } else {
        if (running) left -= (Date.now() - Date.parse(clock.since)) / 1000;
        cell.textContent = clockText(left);
      }
      cell.classList.toggle("running", Boolean(running));
    }
  };
  tick();
  return { node: el("dl", { class: "kv" }, ...cells.flatMap(([cell, side]) => [el("dt", {}, sideName(side)), el("dd", {}, cell)])), tick };
}

export function showMatch(root, matchId, params, playing = false) {
  const view = {
    matchId, match: null, state: null, board: null, scenario: null, version: -1, seat: takeSeat(matchId, params),
    legal: null, selected: null, retreat: null, plan: null, message: null, busy: false, status: "connecting", entries: 0,
    log: [], cursor: null, summary: null, caughtUp: false, history: false,
  };
  window.typhoon.match = view;
  let stopped = false, stream = null, ticker = null, clocks = null, zoom = null;

  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "board");
  svg.setAttribute("role", "application");
  svg.setAttribute("tabindex", "0");
  svg.setAttribute("aria-label", "Map");
  svg.setAttribute("aria-describedby", "map-help");
  const headline = el("div", { class: "headline" });
  const redraw = el("div", { class: "redraw", "aria-hidden": "true" });
  const facts = el("section", { class: "card", "aria-label": "victory points, clocks and seats" });
  const track = el("section", { class: "card later", "aria-label": "turns" });
  const play = el("section", { class: "card", id: "play", "aria-label": "play" });
  const battles = el("section", { class: "card", id: "battles", "aria-label": "declared battles" });
  const briefs = el("section", { class: "card later", id: "briefs", "aria-label": "turns in brief" });
  // the log is polite news once the page has caught up (not the hundreds of entries of a catch-up)
  const log = el("ol", { class: "log", id: "log", tabindex: "0", "aria-label": "match log" });
  const logRegion = el("div", { role: "log", "aria-live": "off", id: "log-region" }, log);
  const cities = el("section", { class: "card later", "aria-label": "cities" });
  const mapStatus = el("p", { class: "sr-only", id: "map-status", role: "status" });
  const announcer = el("p", { class: "sr-only", id: "announce", role: "status" });
  const turnStatus = el("p", { class: "sr-only", id: "turn-status", role: "status" });
  let heard = null;  // the heading last said
  const help = el("p", { class: "sr-only", id: "map-help" },
    "Arrow keys move across the hexes; Enter selects a unit or moves the selected one there; Escape lets go; plus and minus zoom.");
  const zoomBar = el("div", { class: "zoom-bar" },
    el("button", { type: "button", "aria-label": "zoom in", id: "zoom-in", onclick: () => zoom.zoomBy(1.4) }, "+"),
    el("button", { type: "button", "aria-label": "zoom out", id: "zoom-out", onclick: () => zoom.zoomBy(1 / 1.4) }, "−"),
    el("button", { type: "button", id: "zoom-fit", onclick: () => zoom.fit() }, "whole map"));
  // the turns in brief wait for the whole log (fetched after the rest): below the facts, so that their
  // coming moves nothing in view on a phone
  briefs.hidden = true;
  battles.hidden = true;
  const layout = [headline, el("div", { class: "match" },
    el("div", { class: "map-wrap" }, svg, zoomBar, redraw, help, mapStatus),
    el("div", { class: "side" }, play, battles, facts, briefs, track,
      el("section", { class: "card later", "aria-label": "log" }, el("h2", {}, "Log"), logRegion), cities, announcer, turnStatus))];
  // nothing but a word until the match is drawn: empty cards would be pushed about as they fill
  const loading = el("p", { class: "muted" }, "Loading the match…");
  root.append(loading);

  svg.addEventListener("click", (event) => onBoard(unitAt(event.target), hexAt(event.target)));
  svg.addEventListener("keydown", onMapKey);
  // the play card's words follow the player's hands: written again at the first key pressed after a mouse
  // ("choose" and the keys, not "click"); back to "click" at its next drawing (a redraw under a pointer
  // about to click would take the button away from it)
  let wordsShown = null;
  const reword = () => { if (wordsShown !== null && click() !== wordsShown && keyboard() && view.board && !view.busy) renderPlay(focusKey()); };
  const keys = (event) => {
    reword();
    if (event.key !== "Escape" || !mine()) return;
    if (view.plan) cancelPlan(); else if (view.selected || view.retreat) letGo();
  };
  document.addEventListener("keydown", keys);

  // --- drawing -------------------------------------------------------------------------------------

  // The battles resolved in the current phase, from the log: [{hex, result, roll, event, effects}].
  function resolvedNow() {
    const out = [];
    for (let i = view.log.length - 1; i >= 0; i--) {
      const event = view.log[i].game_event;
      if (!event) continue;
      if (event.phase_started) break;
      if (event.battle_resolved) {
        const b = event.battle_resolved;
        const hex = (view.log.slice(i + 1).map((x) => x.game_event && (x.game_event.unit_eliminated || x.game_event.step_lost
          || x.game_event.unit_retreated)).find((x) => x && x.unit === b.defender) || {}).hex
          || (view.state.units.find((u) => u.id === b.defender) || {}).hex || battleHex(b.defender);
        out.unshift({ hex, result: b.result, roll: b.roll, event: b, index: i });
      }
    }
    return out;
  }
  const declaredHex = new Map();  // where each declared defender stood (it may be gone after the battle)
  function battleHex(defender) { return declaredHex.get(defender); }

  function marks() {
    const m = { battles: view.state.battles || [], reachable: new Set(), results: resolvedNow(), cursor: view.cursor };
    for (const b of m.battles) declaredHex.set(b.defender, b.hex);
    if (!mine()) return m;
    const actions = view.legal.actions;
    m.movable = new Set(actions.flatMap(actorsOf));
    const retreating = retreats();
    if (retreating.length) {  // where a retreat may end, and the one picked, from the retreating unit's hex
      m.reachable = new Set(retreating.map((a) => endOf(a.choose_retreat.path)).filter(Boolean));
      const picked = view.retreat && retreating.find((a) => endOf(a.choose_retreat.path) === view.retreat);
      if (picked) m.path = [hexOf(view.legal.pending_decision.defender) || view.legal.pending_decision.hex, ...picked.choose_retreat.path];
    }
    if (view.plan) {  // the battle being planned: its attackers, the others who could join, its defender
      m.plan = { hex: hexOf(view.plan.defender), attackers: view.plan.attackers };
      m.attackers = new Set(view.plan.attackers);
      m.movable = new Set([...joiners(view.plan.defender), ...view.plan.attackers]);
      m.targets = new Set([view.plan.defender]);
    } else if (view.selected) {
      const choices = actionsOf(view.selected);
      m.selected = view.selected;
      m.reachable = reachableOf(view.selected);
      m.targets = new Set(choices.filter((a) => a.declare_attack).map((a) => a.declare_attack.defender));
    }
    return m;
  }

  function redrawMap() {
    const ms = draw(svg, view.board, view.state, marks());
    window.typhoon.redraws.push(ms);
    redraw.textContent = `map redrawn in ${ms.toFixed(1)} ms`;
  }

  function renderFacts() {
    const { match, state } = view;
    const ended = resultText(match.result) || "over";
    fill(headline,
      turnHeading(state, ended),
      el("span", {}, `weather ${state.weather}`),
      match.status === "MATCH_STATUS_ACTIVE" ? null : el("span", { class: `status ${match.status}` }, statusLabel(match.status)),
      view.status === "finished" ? null  // the stream ended with the match: its status badge says how
        : el("span", { class: `live live-${view.status}`, id: "live", title: "the event stream" }, view.status),
      el("span", { class: "muted mono" }, `${matchId} · v${match.version}`),
      el("a", { href: `#/replay/${matchId}` }, "replay"),
      playing || view.seat || over() ? null : el("a", { href: `#/play/${matchId}` }, "play a seat"));
    clocks = clocksCard(match);
    fill(facts,
      el("h2", {}, "Victory points"), pointsCard(state),
      clocks ? el("h2", { class: "gap" }, "Clocks", match.time_control && match.time_control.preset ? ` · ${match.time_control.preset}` : "") : null,
      clocks ? clocks.node : null,
      el("h2", { class: "gap" }, "Seats"),
      el("dl", { class: "kv" }, ...match.seats.flatMap((s) => [el("dt", {}, sideName(s.side)),
        el("dd", {}, s.claimed ? (s.player_name || "taken") : "open")])),
      match.result && match.result.winner ? el("p", { class: "banner info", id: "result" }, resultText(match.result)) : null);
    fill(track, el("h2", {}, "Turns"), ...turnTrack(view.scenario, state, match));
    fill(cities, el("h2", {}, "Cities"), cityList(view.scenario, state));
    // the heading said aloud when it changes (not on the first drawing: the page's heading is read then)
    const said = headingText(state, ended) + (mine() ? ". Your move." : ".");
    if (heard !== null && said !== heard) turnStatus.textContent = said;
    heard = said;
    const table = battlesTable(state.battles, view.scenario);
    battles.hidden = !table;
    fill(battles, el("h2", {}, "Battles"), table);
    renderBriefs();
  }

  // Each side's turns in brief, the newest first (the opponent's, when it ends, also in the play card).
  let briefsShown = -1;
  function renderBriefs() {
    if (!view.history || briefsShown === view.log.length) return;
    briefsShown = view.log.length;
    const all = runs(view.log).map(summarize).reverse();
    briefs.hidden = !all.length;
    fill(briefs, el("h2", {}, "Turns in brief"), el("div", { class: "brief-list", tabindex: "0", "aria-label": "turns in brief" },
      ...all.slice(0, 40).map((s, i) => el("details", { open: i === 0 },
        el("summary", {}, s.title), el("ul", {}, ...s.lines.map((line) => el("li", {}, line)))))));
  }

  // --- play ----------------------------------------------------------------------------------------

  function mine() { return view.seat && view.state && view.state.side_to_act === view.seat.side && view.legal; }

  function over() {
    return !view.state.side_to_act || ["MATCH_STATUS_FINISHED", "MATCH_STATUS_ABORTED"].includes(view.match.status);
  }

  // One message at a time, the newest: "refused" (the service's sentence), "hint" (the page's), "notice".
  function say(kind, text) { view.message = kind ? { kind, text } : null; }
  function announce(text) { announcer.textContent = ""; requestAnimationFrame(() => { announcer.textContent = text; }); }

  function refusal(error) {
    if (error instanceof ApiError && error.tooMany) return plainly(error);
    return error instanceof ApiError && error.reason && error.reason !== "UNREACHABLE"
      ? `${error.message} (${error.reason})` : error.message;
  }

  // A token the service does not know is no seat: forget it and ask for the seat again.
  function forgetSeat(error) {
    sessionStorage.removeItem(seatKey(matchId));
    view.seat = null;
    view.selected = null;
    view.retreat = null;
    view.plan = null;
    say("refused", `${refusal(error)}: open the seat again with its token.`);
  }

  const notASeat = () => new ApiError(401, { error: { reason: "TOKEN_INVALID", message: "That seat token holds no seat of this match" } });

  // The service said no: its sentence, after what the player asked for (`asked`), or, for a token it
  // does not know, the seat form again.
  function refused(error, asked) {
    if (["TOKEN_INVALID", "TOKEN_MISSING"].includes(error.reason)) forgetSeat(error);
    // too many requests: nothing was done, and nothing the player chose is lost (they try again)
    else if (error instanceof ApiError && error.tooMany) say("refused", asked ? `${cap(asked)}: not sent. ${refusal(error)}` : refusal(error));
    else say("refused", asked ? `${cap(asked)}: refused. ${refusal(error)}` : refusal(error));
  }

  // The element with focus in the play card, by what it does (and the group it is in), to focus it, or
  // its group, again after a redraw.
  function focusKey() {
    const active = document.activeElement;
    if (!active || !play.contains(active)) return null;
    const groups = [];
    for (let d = active.closest("details[data-key]"); d; d = d.parentElement.closest("details[data-key]")) groups.push(d.dataset.key);
    return { key: active.dataset.key || active.id || null, groups };
  }

  // `focusAfter`: where the focus goes once done (else where it is now)
  async function submit(action, asked, focusAfter = null) {
    if (view.busy || !view.seat) return;
    view.busy = true;  // until the answer and the new position are in: a second click would send it again
    const focused = focusAfter || focusKey();
    for (const b of play.querySelectorAll("button")) b.disabled = true;
    try {
      await api.submit(matchId, view.seat.token, action, view.legal ? view.legal.version : undefined);
      view.selected = null;
      view.retreat = null;
      view.plan = null;
      say("notice", `Done: ${describeAction(action, view.scenario, view.state)}`);
    } catch (error) {
      refused(error, asked);
      if (view.message && view.message.kind === "refused") announce(view.message.text);
    }
    try { await refresh(); } finally { view.busy = false; }
    show(focused);
  }

  async function resign() {
    if (view.busy || !confirm("Resign this match?")) return;
    try {
      await api.resign(matchId, view.seat.token);
    } catch (error) {
      refused(error);
    }
    await refresh();
    show();
  }

  function show(focused) { renderPlay(focused); redrawMap(); }
  function tell(text) { say("hint", text); renderPlay(focusKey()); }
  function select(unit) { view.selected = unit; view.retreat = null; view.plan = null; say(null); show(focusKey()); bringIntoView(reachableOf(unit)); }

  // Where a picked unit may go, brought into view when none of it is (a phone's map is zoomed in: the
  // set-up's hexes may be off screen when a unit is picked from the tray).
  function bringIntoView(hexes) {
    const points = [...hexes].map((id) => view.board.byId.get(id)).filter(Boolean);
    if (!zoom || !points.length || points.some((h) => zoom.shows(h.x, h.y))) return;
    zoom.centreOn(points.reduce((s, h) => s + h.x, 0) / points.length, points.reduce((s, h) => s + h.y, 0) / points.length);
  }
  function letGo() { view.selected = null; view.retreat = null; say(null); show(focusKey()); }

  function actionsOf(unit) { return view.legal.actions.filter((a) => actorsOf(a).includes(unit)); }
  function own(unit) { const c = view.board.counters.get(unit); return Boolean(c) && c.side === view.seat.side; }
  function hexOf(unit) { const u = view.state.units.find((x) => x.id === unit); return u ? u.hex : null; }
  function unitsIn(hex) { return view.state.units.filter((u) => u.hex === hex).map((u) => u.id); }
  const retreats = () => view.legal.actions.filter((a) => a.choose_retreat);
  const endOf = (path) => path[path.length - 1];
  function reachableOf(unit) {
    return new Set(actionsOf(unit).filter((a) => a.move || a.place_unit || a.replace)
      .map((a) => (a.move ? a.move.to : (a.place_unit || a.replace).hex)));
  }
  // Own units that may join a battle against `defender` (a declaration of theirs against it is legal).
  function joiners(defender) {
    return view.legal.actions.filter((a) => a.declare_attack && a.declare_attack.defender === defender)
      .flatMap((a) => a.declare_attack.attackers);
  }

  function onBoard(unit, hex) {
    if (!mine() || view.busy) return;
    if (hex) view.cursor = hex;
    if (retreats().length) return pickRetreat(hex);
    if (view.plan) return onPlan(unit, hex);
    const tap = click();
    if (view.selected) {
      const choices = actionsOf(view.selected);
      // where the selected unit may go, even onto a unit of ours (selecting that one is a click once this one is let go)
      if (hex && reachableOf(view.selected).has(hex) && (!unit || own(unit))) return moveTo(choices, hex);
      if (unit && choices.some((a) => a.declare_attack && a.declare_attack.defender === unit)) return openPlan(unit, [view.selected]);
      if (unit && own(unit)) {
        if (unit === view.selected) return letGo();
        if (actionsOf(unit).length) return select(unit);
        return tell(`${unit} has nothing to do now.`);
      }
      if (hex && choices.some((a) => a.move || a.place_unit || a.replace)) return moveTo(choices, hex);  // the engine says why not
      if (choices.some((a) => a.declare_attack)) {
        return tell(unit ? `${view.selected} may attack only the units outlined red.`
          : `${cap(tap)} an enemy unit outlined red to attack it with ${view.selected}.`);
      }
      return tell(`${view.selected} goes nowhere on the map now: its choices are the buttons in the play card.`);
    }
    if (unit && own(unit)) {
      if (actionsOf(unit).length) return select(unit);
      return tell(`${unit} has nothing to do now.`);
    }
    const here = unit ? [] : unitsIn(hex).filter((u) => own(u) && actionsOf(u).length);
    if (here.length) return select(here[here.length - 1]);
    return tell(view.legal.actions.some((a) => actorsOf(a).length)
      ? `First pick one of your units outlined green${hex ? ` (${hex} has none)` : ""}.` : "Nothing to pick on the map now: the choices are in the play card.");
  }

  function moveTo(choices, hex) {
    const onMap = choices.find((a) => a.move || a.place_unit || a.replace);
    const unit = view.selected;
    const asked = `${onMap.move ? "moving" : onMap.place_unit ? "placing" : "bringing back"} ${unit} to ${hex}, the hex you ${clicked()}`;
    if (onMap.move) return submit({ move: { unit, to: hex } }, asked);
    return submit({ [Object.keys(onMap)[0]]: { unit, hex } }, asked);
  }

  // --- a battle before it is declared ---------------------------------------------------------------

  // `origin`: where the focus was when the battle was chosen from the list (it goes back there after)
  function openPlan(defender, attackers, origin = null) {
    planOrigin = origin;
    view.plan = { defender, attackers, preview: null, error: null };
    view.selected = null;
    say(null);
    preview();
  }

  function onPlan(unit, hex) {
    const plan = view.plan;
    if (unit && own(unit)) {
      if (plan.attackers.includes(unit)) {
        if (plan.attackers.length === 1) return cancelPlan();
        plan.attackers = plan.attackers.filter((a) => a !== unit);
        return preview();
      }
      if (joiners(plan.defender).includes(unit)) { plan.attackers = [...plan.attackers, unit]; return preview(); }
      return tell(`${unit} cannot join the battle for ${plan.defender} (only units outlined green can).`);
    }
    if (unit && unit !== plan.defender && joiners(unit).length) {  // another defender: the attackers that can reach it
      const able = plan.attackers.filter((a) => joiners(unit).includes(a));
      if (able.length) return openPlan(unit, able);
    }
    if (unit === plan.defender) return tell(`${cap(click())} "Declare the battle" to declare it, or "Cancel".`);
    return tell(`${hex || "That"} is not part of the battle for ${plan.defender}.`);
  }

  let previewing = 0, focusPlan = false, planOrigin = null;  // focusPlan: the plan was opened from the list: its card takes the focus
  async function preview() {
    const plan = view.plan, ticket = ++previewing;
    plan.preview = null;
    plan.error = null;
    show(focusKey());
    try {
      const answer = await api.previewBattle(matchId, plan.defender, plan.attackers);
      if (ticket !== previewing || view.plan !== plan) return;
      plan.preview = answer;
      announce(`Battle for ${plan.defender}: ${oddsSentence(answer, view.scenario)}`);
    } catch (error) {
      if (ticket !== previewing || view.plan !== plan) return;
      plan.error = refusal(error);
    }
    show(focusKey());
  }

  function cancelPlan() { const back = planOrigin || focusKey(); view.plan = null; focusPlan = false; say(null); show(back); }

  function declare() {
    const plan = view.plan;
    submit({ declare_attack: { attackers: plan.attackers, defender: plan.defender } },
      `declaring ${plan.attackers.join(" and ")} against ${plan.defender}`, planOrigin);
  }

  function pickRetreat(hex) {
    if (!hex) return;
    if (retreats().some((a) => endOf(a.choose_retreat.path) === hex)) {
      view.retreat = hex;
      say(null);
      return show(focusKey());
    }
    tell(`A retreat of ${view.legal.pending_decision.defender} cannot end in ${hex}: ${click()} a hex outlined in amber.`);
  }

  // --- the map by keyboard -------------------------------------------------------------------------

  function describeHex(hex) {
    const h = view.board.byId.get(hex);
    if (!h) return "";
    const parts = [`${hex}${h.city ? ` ${h.city}` : ""}, ${h.terrain}${h.fort ? ", fortification" : ""}`];
    for (const u of view.state.units.filter((x) => x.hex === hex)) parts.push(unitLabel(view.board, u).replace(/, in \d+$/, ""));
    const m = marks();
    if (m.reachable.has(hex)) parts.push(retreats().length ? "a retreat may end here" : `${view.selected} may go here`);
    const targets = unitsIn(hex).filter((u) => m.targets && m.targets.has(u));
    if (targets.length) parts.push(`${view.plan ? "the defender" : "may be attacked"}`);
    return parts.join("; ");
  }

  function onMapKey(event) {
    const board = view.board;
    if (!board) return;
    if (event.key === "+" || event.key === "=") { zoom.zoomBy(1.4); event.preventDefault(); return; }
    if (event.key === "-") { zoom.zoomBy(1 / 1.4); event.preventDefault(); return; }
    if (event.key.startsWith("Arrow")) {
      event.preventDefault();
      const start = view.cursor || (view.selected && hexOf(view.selected))
        || (view.state.units.find((u) => own(u.id)) || view.state.units[0] || board.hexes[0]).hex;
      const next = view.cursor ? step(board, start, event.key) : board.byId.get(start);
      if (!next) return;
      view.cursor = next.id;
      redrawMap();
      zoom.reveal(next.x, next.y);
      mapStatus.textContent = describeHex(next.id);
      return;
    }
    if ((event.key === "Enter" || event.key === " ") && view.cursor) {
      event.preventDefault();
      const here = unitsIn(view.cursor);
      const m = mine() ? marks() : {};
      // the unit a click on the hex would find: a target, else one of ours that can act, else the one on top
      const unit = here.find((u) => m.targets && m.targets.has(u)) || [...here].reverse().find((u) => m.movable && m.movable.has(u))
        || here[here.length - 1] || null;
      if (!mine()) { mapStatus.textContent = describeHex(view.cursor); return; }
      onBoard(unit, view.cursor);
      mapStatus.textContent = view.message && view.message.kind === "hint" ? view.message.text
        : view.selected ? `${view.selected} selected. ${describeHex(view.cursor)}` : describeHex(view.cursor);
    }
  }

  // --- the play card -------------------------------------------------------------------------------

  function button(label, action, primary = false, key = JSON.stringify(action)) {
    return el("button", { class: primary ? "primary" : "", "data-action": Object.keys(action)[0], "data-key": key,
      disabled: view.busy, onclick: () => submit(action, describeAction(action, view.scenario, view.state)) }, label);
  }

  function renderPlay(focused = null) {
    play.hidden = !(playing || view.seat) || (!view.seat && over());
    if (play.hidden) return;
    const open = new Set([...play.querySelectorAll("details[open]")].map((d) => d.dataset.key));
    const parts = [el("h2", { id: "play-heading", tabindex: "-1" }, view.seat ? `Your seat: ${sideName(view.seat.side)}` : "Play")];
    const message = view.message;
    if (message) {
      parts.push(el("div", { class: `banner ${message.kind === "notice" ? "info" : message.kind}`, id: message.kind,
        role: message.kind === "refused" ? "alert" : "status" }, message.text));
    }
    if (!view.seat) {
      parts.push(seatForm());
    } else if (over()) {
      parts.push(el("p", {}, "The game is over."));
    } else {
      parts.push(...openSeats());
      const results = resolvedNow();
      if (results.length) parts.push(lastBattle(results[results.length - 1]));
      if (view.summary && mine()) parts.push(summaryCard(view.summary));
      const dice = view.state.pending_decision && String(view.state.pending_decision.stage || "").startsWith("entropy_");
      parts.push(dice ? el("p", { class: "muted", id: "waiting" }, `The dice wait for the ${sideName(view.state.side_to_act)} seat's entropy ${
        view.state.pending_decision.stage === "entropy_reveal" ? "reveal" : "commitment"}${
        view.seat.side === view.state.side_to_act && !view.seat.entropy && view.state.pending_decision.stage === "entropy_reveal"
          ? " — committed from elsewhere: this tab does not hold it" : ""}…`)
        : mine() ? choices()
        : el("p", { class: "muted", id: "waiting" }, `Waiting for the ${sideName(view.state.side_to_act)} player…`));
      parts.push(el("div", { class: "actions gap" },
        el("button", { id: "resign", "data-key": "resign", disabled: view.busy, onclick: resign }, "Resign")));
    }
    fill(play, ...parts);
    wordsShown = click();
    for (const details of play.querySelectorAll("details")) if (open.has(details.dataset.key)) details.open = true;
    const planCard = view.plan && document.getElementById("plan");
    if (focusPlan && planCard) {  // a battle chosen from the list: Declare once the odds are in, its card until then
      const declareButton = document.getElementById("declare");
      if (declareButton && !declareButton.disabled) { declareButton.focus({ preventScroll: true }); focusPlan = false; }
      else { planCard.setAttribute("tabindex", "-1"); planCard.focus({ preventScroll: true }); }
      planCard.scrollIntoView({ block: "nearest" });
    } else if (focused) {
      // focus stays where it was: the same control, else its group, else the card's heading, whose next
      // Tab is the card's next step: a keyboard is never sent back across the map to the buttons, nor
      // put on a button whose Enter would do something final
      const same = focused.key && [...play.querySelectorAll("[data-key], [id]")]
        .find((e) => (e.dataset.key || e.id) === focused.key && !e.disabled);
      const details = [...play.querySelectorAll("details[data-key]")];
      const group = (focused.groups || []).map((key) => details.find((d) => d.dataset.key === key)).find(Boolean);
      const target = same || (group && group.querySelector(":scope > summary")) || document.getElementById("play-heading");
      (target || svg).focus({ preventScroll: true });
    }
    // on a phone the card is below the map: why a tap there did nothing would go unseen (a success
    // shows on the map, which stays in view)
    if (message && message !== shownMessage && message.kind !== "notice") {
      document.getElementById(message.kind).scrollIntoView({ block: "nearest" });
    }
    shownMessage = message;
    // the opponent's turn in brief, when it comes (after the player ended a phase, scrolled down to its button)
    const summary = document.getElementById("summary");
    if (summary && view.summary !== shownSummary) summary.scrollIntoView({ block: "nearest" });
    shownSummary = summary ? view.summary : null;
  }
  let shownMessage = null, shownSummary = null;

  function lastBattle(result) {
    const effects = [];
    for (const entry of view.log.slice(result.index + 1)) {
      const event = entry.game_event;
      if (!event) continue;
      if (event.battle_resolved || event.phase_started) break;
      if (event.step_lost || event.unit_eliminated || event.unit_retreated || event.unit_advanced || event.city_captured) {
        effects.push(describeEntry(entry, view.scenario).text);
      }
    }
    return resolvedCard(result.event, effects, view.scenario);
  }

  function summaryCard(summary) {
    return el("div", { class: "summary", id: "summary" },
      el("h3", {}, `${summary.title}, in brief`),
      el("ul", {}, ...summary.lines.map((line) => el("li", {}, line))),
      el("button", { "data-key": "summary-close", onclick: () => { view.summary = null; show({ key: "resign" }); } }, "Close"));
  }

  // A seat nobody holds yet: how to bring in a player or a bot.
  function openSeats() {
    return view.match.seats.filter((s) => !s.claimed).map((s) => {
      const link = `${location.origin}${location.pathname}#/play/${matchId}`;
      return el("div", { class: "invite", id: "invite" },
        el("p", {}, `The ${sideName(s.side)} seat is open. Invite a player with this link (they take the seat there):`),
        el("input", { class: "mono", readonly: true, value: link, "aria-label": "invitation link", onfocus: (e) => e.target.select() }),
        el("p", {}, "or seat a bot:"),
        el("code", { class: "mono" },
          `typhoon bot --match ${matchId} --side ${s.side} --strategy heuristic --server ${grpcAddress()}`));
    });
  }

  function hint() {
    const { actions, pending_decision: pending } = view.legal;
    const kinds = new Set(actions.map((a) => Object.keys(a)[0]));
    const tap = click();
    const release = keyboard() ? " Press Escape to let go." : touch() ? ` Tap it again to let go.`
      : " Click it again, or press Escape, to let go.";
    if (view.selected) {
      const choices = actionsOf(view.selected);
      const has = (kind) => choices.some((a) => a[kind]);
      const reach = choices.filter((a) => a.move).length;
      const targets = choices.filter((a) => a.declare_attack).length;
      let what;
      if (has("place_unit")) what = `${cap(tap)} a hex to place it (hatched amber: where it may go).`;
      else if (has("replace")) what = `${cap(tap)} a hex to bring it back there (hatched amber: where it may go).`;
      else if (reach) what = `${reach} hex${reach > 1 ? "es" : ""} within reach (hatched amber): ${tap} one to move there, `
        + `even onto a unit of yours.${targets ? ` Or ${tap} an enemy unit outlined red to plan an attack.` : ""}`;
      else if (targets) what = `${cap(tap)} an enemy unit outlined red to see the odds of attacking it (${targets} within reach).`;
      else what = `Its choices: ${choices.map((a) => describeAction(a, view.scenario, view.state)).join("; ")} (buttons below).`;
      return el("p", { id: "selection" }, `${view.selected} selected. ${what}${release}`);
    }
    if (pending && pending.stage) {
      const required = pending.required;
      return el("p", { id: "decision" }, {
        exchange_losses: `Exchange in the battle for ${pending.defender}: the attackers must lose at least ${required} `
          + `strength point${required === 1 ? "" : "s"}. `
          + "Choose whose steps go (a unit that loses its last step is eliminated).",
        attacker_loss: `Attacker loss in the battle for ${pending.defender}: choose the unit that loses a step.`,
        retreat: view.retreat ? `${pending.defender} retreats to ${view.retreat}: confirm below, or ${tap} another hatched hex.`
          : `${pending.defender} must retreat: ${tap} the hatched hex where its retreat ends.`,
        advance: `${pending.defender}'s hex is empty: advance into it?`,
        unstack: `${pending.mover} and ${pending.unit} share ${pending.hex}: one must move on. ${cap(tap)} the one to move.`,
      }[pending.stage] || pending.stage);
    }
    if (kinds.has("place_unit")) return el("p", { class: "muted" }, `Place a unit: pick it below, then a hex.`);
    if (kinds.has("replace")) return el("p", { class: "muted" }, "Replacements: pick a unit below, then a hex.");
    // the keyboard's way, for whoever uses it (the map's own help is read when it takes the focus)
    const keys = keyboard() ? " On the map: arrow keys, then Enter; every action is also in the list below." : "";
    if (kinds.has("move")) return el("p", { class: "muted" }, `${cap(tap)} a unit outlined green, then where it goes.${keys}`);
    if (kinds.has("declare_attack")) {
      return el("p", { class: "muted" }, `Declare battles: ${tap} an attacker, then the enemy unit: the odds show before you `
        + `declare, and other attackers can join. A declaration is final: a battle cannot be withdrawn.${keys}`);
    }
    if (kinds.has("resolve_battle")) return el("p", { class: "muted" }, "Resolve the declared battles, one at a time.");
    return null;
  }

  function choices() {
    const { actions } = view.legal;
    const describe = (a) => describeAction(a, view.scenario, view.state);
    const out = [hint()];
    if (view.plan) {
      out.push(previewCard(view.plan, view.scenario, { touchWord: click(), actions: [
        el("button", { class: "primary", id: "declare", "data-key": "declare",
          disabled: view.busy || !view.plan.preview || !view.plan.preview.allowed, onclick: declare },
        view.plan.preview ? `Declare the battle (${columnName(view.plan.preview.battle.column, view.scenario)})` : "Declare the battle"),
        el("button", { id: "cancel-plan", "data-key": "cancel-plan", disabled: view.busy, onclick: cancelPlan }, "Cancel")] }));
    }
    const row = el("div", { class: "actions", id: "choices" });
    // while a battle is planned its Declare and Cancel stand alone: "close the declarations", as final, not beside them
    row.hidden = Boolean(view.plan);
    if (view.retreat) {
      retreats().filter((a) => endOf(a.choose_retreat.path) === view.retreat).forEach((a, i) =>
        row.append(button(`Retreat via ${a.choose_retreat.path.join(" → ")}`, a, i === 0)));
    }
    for (const a of actions) {
      const kind = Object.keys(a)[0];
      if (["move", "place_unit", "declare_attack", "replace"].includes(kind)) continue;
      if (kind === "choose_retreat") {
        if (!a.choose_retreat.path.length) row.append(button(describe(a), a));  // nowhere to go: no hex to click
      } else if (kind === "resolve_battle") {
        const battle = (view.state.battles || []).find((b) => b.defender === a.resolve_battle.defender);
        row.append(button(`Resolve ${a.resolve_battle.defender}${battle ? `: ${columnName(battle.column, view.scenario)}` : ""}`, a, true));
      } else {
        row.append(button(describe(a), a, ["end_phase", "close_declarations", "standard_setup"].includes(kind)));
      }
    }
    const trays = [...new Set(actions.filter((a) => a.place_unit || a.replace).map((a) => (a.place_unit || a.replace).unit))];
    if (trays.length) {
      out.push(el("div", { class: "actions", id: "tray" }, ...trays.map((unit) => el("button", {
        class: view.selected === unit ? "primary" : "", "data-unit": unit, "data-key": `tray:${unit}`, disabled: view.busy,
        "aria-pressed": view.selected === unit ? "true" : "false",
        onclick: () => (view.selected === unit ? letGo() : select(unit)) }, unit))));
    }
    out.push(row);
    out.push(everyAction(actions, describe));
    return out;
  }

  // Every legal action, grouped by the unit that does it (a battle's under its first attacker), none left out.
  function everyAction(actions, describe) {
    const groups = new Map();
    for (const a of actions) {
      const unit = actorsOf(a)[0] || "";
      if (!groups.has(unit)) groups.set(unit, []);
      groups.get(unit).push(a);
    }
    const ordered = [...groups].sort(([a], [b]) => (a === "") - (b === "") || a.localeCompare(b));
    return el("details", { id: "all-actions", "data-key": "all-actions" },
      el("summary", {}, `All ${actions.length} legal actions, by unit`),
      el("div", { class: "action-groups" }, ...ordered.map(([unit, list]) => el("details", { class: "action-group", "data-key": `group:${unit}`, "data-unit": unit },
        el("summary", {}, `${unit || "Not a unit's"} (${list.length})`),
        el("div", { class: "all-actions" }, ...list.map((a) => (a.declare_attack ? considerButton(describe(a), a)
          : button(describe(a), a))))))));
  }

  // A battle in the list is not declared at once: as on the map, its odds first, then Declare or Cancel
  // (a declaration is final); the focus goes to the battle's card.
  function considerButton(label, action) {
    const { attackers, defender } = action.declare_attack;
    return el("button", { "data-action": "declare_attack", "data-key": JSON.stringify(action), disabled: view.busy,
      onclick: () => { focusPlan = true; openPlan(defender, [...attackers], focusKey()); } }, `${label}: see the odds`);
  }

  function seatForm() {
    const token = el("input", { placeholder: "seat token", id: "seat-token", autocomplete: "off", "aria-label": "seat token" });
    const side = el("select", { id: "seat-side", "aria-label": "side" }, ...view.match.seats.map((s) => el("option", { value: s.side }, sideName(s.side))));
    const message = el("span", { class: "muted", role: "status" });
    const free = view.match.seats.filter((s) => !s.claimed);
    const take = (seat) => {
      view.seat = seat;
      sessionStorage.setItem(seatKey(matchId), JSON.stringify(seat));
      say(null);
      return refresh();
    };
    return el("div", {},
      el("div", { class: "seat-form" }, side, token, el("button", { class: "primary", id: "open-seat", onclick: async () => {
        const value = token.value.trim();
        if (!value) { message.textContent = "Paste the seat's token first."; return; }
        try {  // checked now, not at the first action
          if (!(await api.holdsSeat(matchId, value))) { forgetSeat(notASeat()); renderPlay(); return; }
        } catch (error) { message.textContent = refusal(error); return; }
        take({ side: side.value, token: value });
      } }, "Open seat")),
      free.length ? el("p", {}, "or ", el("button", { id: "take-seat", onclick: async () => {
        try {
          const entropy = freshEntropy();  // committed to here (its SHA-256), revealed when the match waits for it
          const commitment = await entropyCommitment(entropy);
          const joined = await api.joinMatch(matchId, { side: free[0].side, entropy_commitment: commitment || "" });
          await take(commitment ? { side: joined.side, token: joined.seat_token, entropy } : { side: joined.side, token: joined.seat_token });
        } catch (error) { message.textContent = refusal(error); }
      } }, `take the free ${sideName(free[0].side)} seat`)) : null,
      message);
  }

  // --- the stream ----------------------------------------------------------------------------------

  // New log entries go into the list once per frame, all together (a catch-up brings hundreds at once).
  let pending = [];
  function logItem(entry) {
    const { text, kind } = describeEntry(entry, view.scenario);
    return el("li", { class: kind, "data-seq": entry.sequence }, el("span", { class: "seq" }, `#${entry.sequence}`), text);
  }

  function flushLog() {
    const items = pending.slice(-MAX_LOG).reverse().map(logItem);
    pending = [];
    log.prepend(...items);
    while (log.childElementCount > MAX_LOG) log.lastElementChild.remove();
    if (!view.caughtUp && view.match && view.entries >= view.match.last_sequence) {
      view.caughtUp = true;
      logRegion.setAttribute("aria-live", "polite");
      if (!view.history) whenIdle(loadHistory);
    }
  }

  const whenIdle = (task) => (window.requestIdleCallback ? requestIdleCallback(task, { timeout: 1000 }) : setTimeout(task, 100));

  // The log before the stream's first entry (1 to view.historyFrom), fetched once the page is drawn: the
  // turns in brief need all of it, and the log's list shows its newest lines under the stream's.
  async function loadHistory() {
    const older = [];
    try {
      while (older.length < view.historyFrom) {
        const after = older.length ? older[older.length - 1].sequence : 0;
        const page = await api.events(matchId, after, Math.min(1000, view.historyFrom - after));
        older.push(...page.events.filter((e) => e.sequence <= view.historyFrom));
        if (!page.has_more || !page.events.length) break;
      }
    } catch {  // the service is unreachable or busy: the page works without it, and tries again
      if (!stopped) setTimeout(loadHistory, 3000);
      return;
    }
    if (stopped) return;
    view.log = older.concat(view.log);
    view.history = true;
    renderBriefs();
    const summed = owedSummary && mine();
    if (summed) sumUpTheirs();
    owedSummary = false;
    // the phase began before the stream's first entry: its battles resolved before it show now
    if (summed || !view.log.slice(older.length).some((e) => e.game_event && e.game_event.phase_started)) show(focusKey());
    await new Promise((resolve) => whenIdle(resolve));  // the log's older lines, in a task of their own
    if (stopped) return;
    const room = MAX_LOG - log.childElementCount;
    if (room > 0) log.append(...older.slice(-room).reverse().map(logItem));
  }

  function append(entry) {
    if (!pending.length) requestAnimationFrame(flushLog);
    pending.push(entry);
    view.log.push(entry);
    view.entries = entry.sequence;
    // a seat taken, or a seat's part in the dice, changes no version: refresh for one the page's match does
    // not show yet
    const unversioned = entry.seat_claimed || entry.entropy_awaited || entry.entropy_committed || entry.entropy_contributed;
    if (entry.version > view.version || (unversioned && entry.sequence > view.match.last_sequence)) refresh();
  }

  // The opponent's run of actions just ended and the seat has the move: its summary, said aloud.
  let lastToAct = null, owedSummary = false;
  function noticeTurnChange() {
    const toAct = view.state.side_to_act;
    const seat = view.seat && view.seat.side;
    if (seat && toAct === seat && lastToAct && lastToAct !== seat && view.caughtUp) {
      if (view.history) sumUpTheirs(); else owedSummary = true;  // a run's turn is in the older log
    }
    if (toAct) lastToAct = toAct;
  }

  function sumUpTheirs() {
    const theirs = runs(view.log).filter((r) => r.side !== view.seat.side).pop();
    if (theirs) {
      view.summary = summarize(theirs);
      announce(`${view.summary.title}: ${view.summary.lines.join(". ")}. Your move.`);
    }
  }

  // Ruleset 4 (engine/seat_entropy.py): the match waits for this seat's entropy commitment (a seat taken
  // for its player, as typhoon play's) or its reveal: give it, from this tab. True if something was given.
  async function entropyStep(match) {
    const seat = view.seat && match.seats.find((s) => s.side === view.seat.side);
    const due = seat && seat.entropy_due;
    const step = `${due}:${match.last_sequence}`;
    if (!due || step === lastEntropyStep) return false;  // once for each state of the log
    lastEntropyStep = step;
    if (due === "entropy_commitment") {
      const entropy = view.seat.entropy || freshEntropy();
      const commitment = await entropyCommitment(entropy);
      if (commitment) {  // kept before it is sent: a reload reveals it
        view.seat = { ...view.seat, entropy };
        sessionStorage.setItem(seatKey(matchId), JSON.stringify(view.seat));
      }
      await api.commitEntropy(matchId, view.seat.token, commitment || "none");
      return true;
    }
    if (!view.seat.entropy) return false;  // committed elsewhere: this tab does not hold the entropy
    await api.revealEntropy(matchId, view.seat.token, view.seat.entropy);
    return true;
  }

  let lastEntropyStep = null;
  let refreshing = null, again = false;
  // `known`: GetMatch's answer the caller has just fetched (the page's first one), not fetched again
  async function refresh(known = null) {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      do {
        again = false;
        const { match, state } = known || await api.getMatch(matchId);
        known = null;
        if (await entropyStep(match)) { again = true; continue; }
        let legal = null;  // read before anything changes: the page stays usable while it loads
        if (view.seat && state.side_to_act === view.seat.side) {
          legal = await api.legalActions(matchId);
          if (legal.version !== match.version) { legal = null; again = true; }
        }
        if (stopped) return;
        view.match = match;
        view.state = state;
        view.version = match.version;
        view.legal = legal;
        if (view.selected && !(mine() && actionsOf(view.selected).length)) view.selected = null;
        if (view.retreat && !(mine() && retreats().length)) view.retreat = null;
        if (view.plan && !(mine() && joiners(view.plan.defender).length)) view.plan = null;
        if (!mine() && view.summary) view.summary = null;
        noticeTurnChange();
        if (loading.isConnected) loading.replaceWith(...layout);  // the first drawing: all of it in one frame
        renderFacts();
        renderPlay(focusKey());
        redrawMap();
      } while (again && !stopped);
    })().catch((error) => {
      say("refused", refusal(error));
      if (view.state && view.board) renderPlay();
    }).finally(() => { refreshing = null; });
    return refreshing;
  }

  // On a phone the map opens zoomed in (counters are 44 px targets) on the units of the side to act.
  function firstZoom() {
    zoom = zoomable(svg, view.board, zoomIn);
    view.zoom = zoom;
  }
  function zoomIn() {
    // a desktop shows the whole map
    if (zoom.fitScale >= TARGET_ZOOM || (!touch() && innerWidth > 900)) { zoom.apply(); return; }
    const side = view.seat ? view.seat.side : view.state.side_to_act;
    // in the set-up, where the units go (none is on the map yet); else the side's units
    const placing = mine() ? view.legal.actions.filter((a) => a.place_unit).map((a) => a.place_unit.hex) : [];
    const hexes = (placing.length ? placing.map((id) => view.board.byId.get(id))
      : view.state.units.filter((u) => !side || (view.board.counters.get(u.id) || {}).side === side)
        .map((u) => view.board.byId.get(u.hex))).filter(Boolean);
    const around = hexes.length ? hexes : view.board.hexes;
    zoom.toTargets(around.reduce((s, h) => s + h.x, 0) / around.length, around.reduce((s, h) => s + h.y, 0) / around.length);
  }

  (async () => {
    try {
      const { match, state } = await api.getMatch(matchId);
      view.match = match; view.state = state; view.version = match.version;
      view.scenario = await loadScenario(match.scenario);
      view.board = prepare(view.scenario);
      // a seat token from the link or the tab: checked before the seat is shown as the player's
      if (view.seat && !(await api.holdsSeat(matchId, view.seat.token).catch(() => true))) forgetSeat(notASeat());
      svg.setAttribute("aria-label", `Map of ${view.scenario.map.name || "the battle"}: ${view.board.hexes.length} hexes`);
      await refresh({ match, state });
      firstZoom();
      const from = Math.max(0, match.last_sequence - TAIL);
      view.historyFrom = from;
      view.history = !from;
      stream = watch(matchId, from, {
        onEvent: append,
        onStatus: (status) => {
          view.status = status;
          const badge = document.getElementById("live");
          if (badge && status === "finished") badge.remove();
          else if (badge) { badge.textContent = status; badge.className = `live live-${status}`; }
        },
      });
      view.stream = stream;
      ticker = setInterval(() => clocks && clocks.tick(), 250);
    } catch (error) {
      fill(root, el("p", { class: "banner refused" }, error.message));
    }
  })();

  return () => { stopped = true; stream && stream.close(); clearInterval(ticker); document.removeEventListener("keydown", keys); };
}
