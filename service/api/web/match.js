// A match live (GetMatch + the WatchMatch stream), and play for the seat whose token the page holds.

import { api, ApiError, scenario as loadScenario, watch } from "./api.js";
import { draw, hexAt, prepare, unitAt } from "./board.js";
import { el, fill, resultText, statusLabel } from "./dom.js";
import { columnName, describeAction, describeEntry, oddsName, phaseName, sideName, strengthText } from "./words.js";

const MAX_LOG = 400;  // entries kept on the page (the whole log is in the replay)

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
    legal: null, selected: null, retreat: null, message: null, busy: false, status: "connecting", entries: 0,
  };
  window.typhoon.match = view;
  let stopped = false, stream = null, ticker = null, clocks = null;

  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "board");
  svg.setAttribute("role", "img");
  const headline = el("div", { class: "headline" });
  const redraw = el("div", { class: "redraw" });
  const facts = el("div", { class: "card" });
  const track = el("div", { class: "card" });
  const play = el("div", { class: "card", id: "play" });
  const battles = el("div", { class: "card", id: "battles" });
  const log = el("ol", { class: "log", id: "log" });
  const cities = el("div", { class: "card" });
  root.append(headline, el("div", { class: "match" },
    el("div", { class: "map-wrap" }, svg, redraw),
    el("div", { class: "side" }, facts, play, battles, track, el("div", { class: "card" }, el("h2", {}, "Log"), log), cities)));

  svg.addEventListener("click", (event) => onBoard(unitAt(event.target), hexAt(event.target)));
  const keys = (event) => { if (event.key === "Escape" && (view.selected || view.retreat) && mine()) letGo(); };
  document.addEventListener("keydown", keys);

  // --- drawing -------------------------------------------------------------------------------------

  function marks() {
    const m = { battles: view.state.battles || [], reachable: new Set() };
    if (!mine()) return m;
    const actions = view.legal.actions;
    m.movable = new Set(actions.flatMap(actorsOf));
    const retreating = retreats();
    if (retreating.length) {  // where a retreat may end, and the one picked, from the retreating unit's hex
      m.reachable = new Set(retreating.map((a) => endOf(a.choose_retreat.path)).filter(Boolean));
      const picked = view.retreat && retreating.find((a) => endOf(a.choose_retreat.path) === view.retreat);
      if (picked) m.path = [hexOf(view.legal.pending_decision.defender) || view.legal.pending_decision.hex, ...picked.choose_retreat.path];
    }
    if (view.selected) {
      const choices = actionsOf(view.selected);
      m.selected = view.selected;
      m.reachable = new Set(choices.filter((a) => a.move || a.place_unit || a.replace)
        .map((a) => (a.move ? a.move.to : (a.place_unit || a.replace).hex)));
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
    const toAct = state.side_to_act;
    fill(headline, 
      el("span", { class: "big" }, `Turn ${state.turn || "—"}`),
      el("span", {}, phaseName(state.phase)),
      el("span", {}, `weather ${state.weather}`),
      toAct ? el("span", { class: `to-act side-${toAct}`, id: "to-act" }, `${sideName(toAct)} to act`)
        : el("span", { class: "to-act", id: "to-act" }, resultText(match.result) || "over"),
      match.status === "MATCH_STATUS_ACTIVE" ? null : el("span", { class: `status ${match.status}` }, statusLabel(match.status)),
      view.status === "finished" ? null  // the stream ended with the match: its status badge says how
        : el("span", { class: `live live-${view.status}`, id: "live", title: "the event stream" }, view.status),
      el("span", { class: "muted mono" }, `${matchId} · v${match.version}`),
      el("a", { href: `#/replay/${matchId}` }, "replay"),
      playing || view.seat || over() ? null : el("a", { href: `#/play/${matchId}` }, "play a seat"));
    clocks = clocksCard(match);
    fill(facts, 
      el("h2", {}, "Victory points"), pointsCard(state),
      clocks ? el("h2", { style: "margin-top:.6rem" }, "Clocks", match.time_control && match.time_control.preset ? ` · ${match.time_control.preset}` : "") : null,
      clocks ? clocks.node : null,
      el("h2", { style: "margin-top:.6rem" }, "Seats"),
      el("dl", { class: "kv" }, ...match.seats.flatMap((s) => [el("dt", {}, sideName(s.side)),
        el("dd", {}, s.claimed ? (s.player_name || "taken") : "open")])),
      match.result && match.result.winner ? el("p", { class: "banner info", id: "result" }, resultText(match.result)) : null);
    fill(track, el("h2", {}, "Turns"), ...turnTrack(view.scenario, state, match));
    fill(cities, el("h2", {}, "Cities"), cityList(view.scenario, state));
    const declared = state.battles || [];
    battles.hidden = !declared.length;
    fill(battles, el("h2", {}, "Battles"), el("table", { class: "battles" }, ...declared.map((b) => el("tr", {},
      el("td", {}, `${b.attackers.join(", ")} → ${b.defender} (${b.hex})`),
      el("td", { class: "muted" }, `${strengthText(b.attack)} to ${b.defence}`,
        b.shifts ? `: ${oddsName(b.odds, view.scenario)} ${b.shifts > 0 ? "+" : "−"}${Math.abs(b.shifts)}` : ""),
      el("td", { class: "odds", title: `attack ${strengthText(b.attack)} against ${b.defence}; ${oddsName(b.odds, view.scenario)}, shift ${b.shifts}` },
        columnName(b.column, view.scenario))))));
  }

  // --- play ----------------------------------------------------------------------------------------

  function mine() { return view.seat && view.state && view.state.side_to_act === view.seat.side && view.legal; }

  function over() {
    return !view.state.side_to_act || ["MATCH_STATUS_FINISHED", "MATCH_STATUS_ABORTED"].includes(view.match.status);
  }

  // One message at a time, the newest: "refused" (the service's sentence), "hint" (the page's), "notice".
  function say(kind, text) { view.message = kind ? { kind, text } : null; }

  function refusal(error) {
    return error instanceof ApiError && error.reason && error.reason !== "UNREACHABLE"
      ? `${error.message} (${error.reason})` : error.message;
  }

  // A token the service does not know is no seat: forget it and ask for the seat again.
  function forgetSeat(error) {
    sessionStorage.removeItem(seatKey(matchId));
    view.seat = null;
    view.selected = null;
    view.retreat = null;
    say("refused", `${refusal(error)}: open the seat again with its token.`);
  }

  // The service said no: its sentence, or, for a token it does not know, the seat form again.
  function refused(error) {
    if (["TOKEN_INVALID", "TOKEN_MISSING"].includes(error.reason)) forgetSeat(error);
    else say("refused", refusal(error));
  }

  async function submit(action) {
    if (view.busy || !view.seat) return;
    view.busy = true;  // until the answer and the new position are in: a second click would send it again
    for (const b of play.querySelectorAll("button")) b.disabled = true;
    try {
      await api.submit(matchId, view.seat.token, action, view.legal ? view.legal.version : undefined);
      view.selected = null;
      view.retreat = null;
      say("notice", `Done: ${describeAction(action, view.scenario, view.state)}`);
    } catch (error) {
      refused(error);
    }
    try { await refresh(); } finally { view.busy = false; }
    show();
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

  function show() { renderPlay(); redrawMap(); }
  function tell(text) { say("hint", text); renderPlay(); }
  function select(unit) { view.selected = unit; view.retreat = null; say(null); show(); }
  function letGo() { view.selected = null; view.retreat = null; say(null); show(); }

  function actionsOf(unit) { return view.legal.actions.filter((a) => actorsOf(a).includes(unit)); }
  function own(unit) { const c = view.board.counters.get(unit); return Boolean(c) && c.side === view.seat.side; }
  function hexOf(unit) { const u = view.state.units.find((x) => x.id === unit); return u ? u.hex : null; }
  const retreats = () => view.legal.actions.filter((a) => a.choose_retreat);
  const endOf = (path) => path[path.length - 1];

  function onBoard(unit, hex) {
    if (!mine() || view.busy) return;
    if (retreats().length) return pickRetreat(hex);
    if (unit && own(unit)) {
      if (unit === view.selected) return letGo();
      if (actionsOf(unit).length) return select(unit);
      const onto = view.selected && marks().reachable.has(hexOf(unit))
        ? ` To move ${view.selected} onto its hex, click the hex beside the counter.` : "";
      return tell(`${unit} has nothing to do now.${onto}`);
    }
    if (!view.selected) {
      return tell(view.legal.actions.some((a) => actorsOf(a).length)
        ? "First pick one of your units outlined green." : "Nothing to pick on the map now: the choices are below.");
    }
    const choices = actionsOf(view.selected);
    const attack = unit && choices.find((a) => a.declare_attack && a.declare_attack.defender === unit);
    if (attack) return submit(attack);
    const onMap = choices.find((a) => a.move || a.place_unit || a.replace);
    if (onMap && hex) {  // where it may go is the engine's to judge: a refusal says why
      if (onMap.move) return submit({ move: { unit: view.selected, to: hex } });
      return submit({ [Object.keys(onMap)[0]]: { unit: view.selected, hex } });
    }
    if (choices.some((a) => a.declare_attack)) {
      return tell(unit ? `${view.selected} may attack only the units outlined red.`
        : `Click an enemy unit outlined red to attack it with ${view.selected}.`);
    }
    return tell(`${view.selected} goes nowhere on the map now: its choices are the buttons below.`);
  }

  function pickRetreat(hex) {
    if (!hex) return;
    if (retreats().some((a) => endOf(a.choose_retreat.path) === hex)) {
      view.retreat = hex;
      say(null);
      return show();
    }
    tell(`A retreat of ${view.legal.pending_decision.defender} cannot end in ${hex}: click a hex outlined green.`);
  }

  function button(label, action, primary = false) {
    return el("button", { class: primary ? "primary" : "", "data-action": Object.keys(action)[0], disabled: view.busy,
      onclick: () => submit(action) }, label);
  }

  function renderPlay() {
    play.hidden = !(playing || view.seat) || (!view.seat && over());
    if (play.hidden) return;
    const parts = [el("h2", {}, view.seat ? `Your seat: ${sideName(view.seat.side)}` : "Play")];
    const message = view.message;
    if (message) {
      parts.push(el("div", { class: `banner ${message.kind === "notice" ? "info" : message.kind}`, id: message.kind }, message.text));
    }
    if (!view.seat) {
      parts.push(seatForm());
    } else if (over()) {
      parts.push(el("p", {}, "The game is over."));
    } else {
      parts.push(...openSeats());
      parts.push(mine() ? choices()
        : el("p", { class: "muted", id: "waiting" }, `Waiting for the ${sideName(view.state.side_to_act)} player…`));
      parts.push(el("div", { class: "actions", style: "margin-top:.6rem" },
        el("button", { id: "resign", disabled: view.busy, onclick: resign }, "Resign")));
    }
    fill(play, ...parts);
    // on a phone the card is below the map: why a tap there did nothing would go unseen (a success
    // shows on the map, which stays in view)
    if (message && message !== shownMessage && message.kind !== "notice") {
      document.getElementById(message.kind).scrollIntoView({ block: "nearest" });
    }
    shownMessage = message;
  }
  let shownMessage = null;

  // A seat nobody holds yet: how to bring in a player or a bot.
  function openSeats() {
    return view.match.seats.filter((s) => !s.claimed).map((s) => {
      const link = `${location.origin}${location.pathname}#/play/${matchId}`;
      return el("div", { class: "invite", id: "invite" },
        el("p", {}, `The ${sideName(s.side)} seat is open. Invite a player with this link (they take the seat there):`),
        el("input", { class: "mono", readonly: true, value: link, "aria-label": "invitation link", onfocus: (e) => e.target.select() }),
        el("p", {}, "or seat a bot (the service's gRPC address: port 50051 unless it was started with another):"),
        el("code", { class: "mono" },
          `typhoon bot --match ${matchId} --side ${s.side} --strategy heuristic --server ${location.hostname}:50051`));
    });
  }

  function hint() {
    const { actions, pending_decision: pending } = view.legal;
    const kinds = new Set(actions.map((a) => Object.keys(a)[0]));
    const release = " Click it again, or press Escape, to let go.";
    if (view.selected) {
      const choices = actionsOf(view.selected);
      const has = (kind) => choices.some((a) => a[kind]);
      const reach = choices.filter((a) => a.move).length;
      const targets = choices.filter((a) => a.declare_attack).length;
      let what;
      if (has("place_unit")) what = "Click a hex to place it (green: where it may go).";
      else if (has("replace")) what = "Click a hex to bring it back there (green: where it may go).";
      else if (reach) what = `${reach} hex${reach > 1 ? "es" : ""} within reach (green): click one to move there `
        + "(onto a unit of yours: click beside its counter).";
      else if (targets) what = `Click an enemy unit outlined red to attack it (${targets} within reach).`;
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
        retreat: view.retreat ? `${pending.defender} retreats to ${view.retreat}: confirm below, or click another hex outlined green.`
          : `${pending.defender} must retreat: click the hex outlined green where its retreat ends.`,
        advance: `${pending.defender}'s hex is empty: advance into it?`,
        unstack: `${pending.mover} and ${pending.unit} share ${pending.hex}: one must move on. Click the one to move.`,
      }[pending.stage] || pending.stage);
    }
    if (kinds.has("place_unit")) return el("p", { class: "muted" }, "Place a unit: pick it below, then a hex.");
    if (kinds.has("replace")) return el("p", { class: "muted" }, "Replacements: pick a unit below, then a hex.");
    if (kinds.has("move")) return el("p", { class: "muted" }, "Click a unit outlined green, then where it goes.");
    if (kinds.has("declare_attack")) {
      return el("p", { class: "muted" }, "Declare battles: click an attacker, then the enemy unit. Add attackers the same way; "
        + "the odds show under Battles. A declaration is final: a battle cannot be withdrawn.");
    }
    if (kinds.has("resolve_battle")) return el("p", { class: "muted" }, "Resolve the declared battles, one at a time.");
    return null;
  }

  function choices() {
    const { actions } = view.legal;
    const describe = (a) => describeAction(a, view.scenario, view.state);
    const out = [hint()];
    const row = el("div", { class: "actions", id: "choices" });
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
        class: view.selected === unit ? "primary" : "", "data-unit": unit, disabled: view.busy,
        onclick: () => (view.selected === unit ? letGo() : select(unit)) }, unit))));
    }
    out.push(row);
    const all = el("div", { class: "all-actions" }, ...actions.slice(0, 400).map((a) => button(describe(a), a)));
    out.push(el("details", {}, el("summary", {}, `All ${actions.length} legal actions`), all));
    return out;
  }

  function seatForm() {
    const token = el("input", { placeholder: "seat token", id: "seat-token", autocomplete: "off" });
    const side = el("select", { id: "seat-side" }, ...view.match.seats.map((s) => el("option", { value: s.side }, sideName(s.side))));
    const message = el("span", { class: "muted" });
    const free = view.match.seats.filter((s) => !s.claimed);
    const take = (seat) => {
      view.seat = seat;
      sessionStorage.setItem(seatKey(matchId), JSON.stringify(seat));
      say(null);
      return refresh();
    };
    return el("div", {},
      el("div", { class: "seat-form" }, side, token, el("button", { class: "primary", id: "open-seat", onclick: () => {
        if (!token.value.trim()) { message.textContent = "Paste the seat's token first."; return; }
        take({ side: side.value, token: token.value.trim() });  // the service checks it on the first action
      } }, "Open seat")),
      free.length ? el("p", {}, "or ", el("button", { onclick: async () => {
        try {
          const joined = await api.joinMatch(matchId, { side: free[0].side });
          await take({ side: joined.side, token: joined.seat_token });
        } catch (error) { message.textContent = refusal(error); }
      } }, `take the free ${sideName(free[0].side)} seat`)) : null,
      message);
  }

  // --- the stream ----------------------------------------------------------------------------------

  // New log entries go into the list once per frame, all together (a catch-up brings hundreds at once).
  let pending = [];
  function flushLog() {
    const items = pending.slice(-MAX_LOG).reverse().map((entry) => {
      const { text, kind } = describeEntry(entry, view.scenario);
      return el("li", { class: kind, "data-seq": entry.sequence }, el("span", { class: "seq" }, `#${entry.sequence}`), text);
    });
    pending = [];
    log.prepend(...items);
    while (log.childElementCount > MAX_LOG) log.lastElementChild.remove();
  }

  function append(entry) {
    if (!pending.length) requestAnimationFrame(flushLog);
    pending.push(entry);
    view.entries = entry.sequence;
    if (entry.version > view.version || entry.seat_claimed) refresh();  // a seat taken changes no version
  }

  let refreshing = null, again = false;
  async function refresh() {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      do {
        again = false;
        const { match, state } = await api.getMatch(matchId);
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
        renderFacts();
        renderPlay();
        redrawMap();
      } while (again && !stopped);
    })().catch((error) => {
      say("refused", refusal(error));
      if (view.state && view.board) renderPlay();
    }).finally(() => { refreshing = null; });
    return refreshing;
  }

  (async () => {
    try {
      const { match, state } = await api.getMatch(matchId);
      view.match = match; view.state = state; view.version = match.version;
      view.scenario = await loadScenario(match.scenario);
      view.board = prepare(view.scenario);
      await refresh();
      stream = watch(matchId, 0, {
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
