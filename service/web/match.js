// A match live (GetMatch + the WatchMatch stream), and play for the seat whose token the page holds.

import { api, ApiError, scenario as loadScenario, watch } from "./api.js";
import { draw, hexAt, prepare, unitAt } from "./board.js";
import { el, fill, resultText, statusLabel } from "./dom.js";
import { describeAction, describeEntry, phaseName, sideName } from "./words.js";

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
    legal: null, selected: null, refused: "", notice: "", status: "connecting", entries: 0,
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

  // --- drawing -------------------------------------------------------------------------------------

  function marks() {
    const m = { battles: view.state.battles || [] };
    const legal = mine() ? view.legal : null;
    if (!legal) return m;
    const actions = legal.actions;
    m.movable = new Set(actions.flatMap((a) => a.move ? [a.move.unit] : a.declare_attack ? a.declare_attack.attackers
      : a.restore ? [a.restore.unit] : a.designate_tank ? [a.designate_tank.unit] : []));
    if (view.selected) {
      m.selected = view.selected;
      m.reachable = new Set(actions.filter((a) => (a.move && a.move.unit === view.selected)
        || (a.place_unit && a.place_unit.unit === view.selected) || (a.replace && a.replace.unit === view.selected))
        .map((a) => (a.move ? a.move.to : (a.place_unit || a.replace).hex)));
      m.targets = new Set(actions.filter((a) => a.declare_attack && a.declare_attack.attackers.includes(view.selected))
        .map((a) => a.declare_attack.defender));
    }
    if (view.retreat) m.path = view.retreat;
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
      playing || view.seat ? null : el("a", { href: `#/play/${matchId}` }, "play a seat"));
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
      el("td", { class: "muted" }, `${b.attack} to ${b.defence}: ${b.odds}${b.shifts ? ` ${b.shifts > 0 ? "+" : "−"}${Math.abs(b.shifts)}` : ""}`),
      el("td", { class: "odds", title: `attack ${b.attack} against ${b.defence}; ${b.odds}, shift ${b.shifts}` },
        b.column === "below" ? "below the table" : b.column)))));
  }

  // --- play ----------------------------------------------------------------------------------------

  function mine() { return view.seat && view.state && view.state.side_to_act === view.seat.side && view.legal; }

  async function submit(action) {
    view.refused = "";
    try {
      await api.submit(matchId, view.seat.token, action, view.legal ? view.legal.version : undefined);
      view.selected = null;
      view.retreat = null;
      view.notice = `Done: ${describeAction(action, view.scenario)}`;
      await refresh();
    } catch (error) {
      view.refused = error instanceof ApiError ? `${error.message} (${error.reason})` : String(error);
      view.notice = "";
      if (error.reason === "STALE_VERSION") await refresh();
      renderPlay();
      redrawMap();
    }
  }

  function onBoard(unit, hex) {
    if (!mine()) return;
    const actions = view.legal.actions;
    if (view.selected && unit && unit !== view.selected) {
      const enemy = view.state.units.find((u) => u.id === unit);
      const side = enemy && view.board.counters.get(unit).side;
      if (side && side !== view.seat.side && phaseName(view.state.phase).endsWith("combat")) {
        return submit({ declare_attack: { attackers: [view.selected], defender: unit } });
      }
    }
    if (unit && !view.selected) {
      const own = view.board.counters.get(unit);
      if (own && own.side === view.seat.side) { view.selected = unit; view.refused = ""; renderPlay(); redrawMap(); return; }
    }
    if (unit === view.selected && unit) { view.selected = null; renderPlay(); redrawMap(); return; }
    if (view.selected && hex) {
      const placing = actions.find((a) => a.place_unit && a.place_unit.unit === view.selected);
      const replacing = actions.find((a) => a.replace && a.replace.unit === view.selected);
      if (placing) return submit({ place_unit: { unit: view.selected, hex } });
      if (replacing) return submit({ replace: { unit: view.selected, hex } });
      return submit({ move: { unit: view.selected, to: hex } });  // the engine judges; a refusal says why
    }
    if (hex) {
      const retreat = actions.find((a) => a.choose_retreat && a.choose_retreat.path[a.choose_retreat.path.length - 1] === hex);
      if (retreat) { view.retreat = retreat.choose_retreat.path; renderPlay(); redrawMap(); }
    }
  }

  function button(label, action, primary = false) {
    return el("button", { class: primary ? "primary" : "", "data-action": Object.keys(action)[0], onclick: () => submit(action) }, label);
  }

  function renderPlay() {
    play.hidden = !(playing || view.seat);
    if (play.hidden) return;
    const parts = [el("h2", {}, view.seat ? `Your seat: ${sideName(view.seat.side)}` : "Play")];
    if (!view.seat) {
      parts.push(seatForm());
      fill(play, ...parts);
      return;
    }
    if (view.refused) parts.push(el("div", { class: "banner refused", id: "refused" }, view.refused));
    else if (view.notice) parts.push(el("div", { class: "banner info", id: "notice" }, view.notice));
    if (!view.state.side_to_act) {
      parts.push(el("p", {}, "The game is over."));
    } else if (!mine()) {
      parts.push(el("p", { class: "muted", id: "waiting" }, `Waiting for the ${sideName(view.state.side_to_act)} player…`));
    } else {
      parts.push(...choices());
    }
    parts.push(el("div", { class: "actions", style: "margin-top:.6rem" },
      el("button", { id: "resign", onclick: () => { if (confirm("Resign this match?")) api.resign(matchId, view.seat.token).then(refresh, (e) => { view.refused = e.message; renderPlay(); }); } }, "Resign")));
    fill(play, ...parts);
  }

  function choices() {
    const { actions, pending_decision: pending } = view.legal;
    const kinds = new Set(actions.map((a) => Object.keys(a)[0]));
    const out = [];
    const describe = (a) => describeAction(a, view.scenario);
    if (pending && pending.stage) {
      out.push(el("p", {}, { exchange_losses: `Exchange: lose ${pending.required} step(s) among the attackers.`,
        attacker_loss: "Attacker loss: choose the unit that loses a step.",
        retreat: `${pending.defender} must retreat: choose the path (click its last hex on the map).`,
        advance: `${pending.defender}'s hex is empty: advance into it?`,
        unstack: `${pending.mover} and ${pending.unit} share ${pending.hex}: one must move on.` }[pending.stage] || pending.stage));
    }
    if (view.selected) {
      const reach = actions.filter((a) => a.move && a.move.unit === view.selected).length;
      const targets = actions.filter((a) => a.declare_attack && a.declare_attack.attackers.includes(view.selected)).length;
      out.push(el("p", { id: "selection" }, `${view.selected} selected: `,
        reach ? `${reach} hex${reach > 1 ? "es" : ""} within reach (green). ` : "",
        targets ? `It may attack the units outlined red. ` : "", "Click a hex to move, or the unit again to let go."));
    } else if (kinds.has("move")) {
      out.push(el("p", { class: "muted" }, "Click a unit outlined green, then where it goes."));
    } else if (kinds.has("declare_attack")) {
      out.push(el("p", { class: "muted" }, "Declare battles: click an attacker, then the enemy unit. Add attackers the same way; the odds show under Battles."));
    }
    const row = el("div", { class: "actions", id: "choices" });
    if (view.retreat) {
      row.append(button(`Retreat via ${view.retreat.join(" → ")}`, { choose_retreat: { path: view.retreat } }, true));
    }
    for (const a of actions) {
      const kind = Object.keys(a)[0];
      if (["move", "place_unit", "declare_attack", "replace", "choose_retreat"].includes(kind)) continue;
      if (kind === "resolve_battle") {
        const battle = (view.state.battles || []).find((b) => b.defender === a.resolve_battle.defender);
        row.append(button(`Resolve ${a.resolve_battle.defender}${battle ? ` at ${battle.column}` : ""}`, a, true));
      } else {
        row.append(button(describe(a), a, ["end_phase", "close_declarations", "standard_setup"].includes(kind)));
      }
    }
    const trays = [...new Set(actions.filter((a) => a.place_unit || a.replace).map((a) => (a.place_unit || a.replace).unit))];
    if (trays.length) {
      out.push(el("p", { class: "muted" }, kinds.has("place_unit") ? "Place a unit: pick it, then a hex." : "Replacements: pick a unit, then a hex."));
      out.push(el("div", { class: "actions", id: "tray" }, ...trays.map((unit) => el("button", {
        class: view.selected === unit ? "primary" : "", "data-unit": unit,
        onclick: () => { view.selected = view.selected === unit ? null : unit; renderPlay(); redrawMap(); } }, unit))));
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
    return el("div", {},
      el("div", { class: "seat-form" }, side, token, el("button", { class: "primary", id: "open-seat", onclick: async () => {
        try {
          await api.legalActions(matchId);
          view.seat = { side: side.value, token: token.value.trim() };
          sessionStorage.setItem(seatKey(matchId), JSON.stringify(view.seat));
          await refresh();
        } catch (error) { message.textContent = error.message; }
      } }, "Open seat")),
      free.length ? el("p", {}, "or ", el("button", { onclick: async () => {
        try {
          const joined = await api.joinMatch(matchId, { side: free[0].side });
          view.seat = { side: joined.side, token: joined.seat_token };
          sessionStorage.setItem(seatKey(matchId), JSON.stringify(view.seat));
          await refresh();
        } catch (error) { message.textContent = error.message; }
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
    if (entry.version > view.version) refresh();
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
        if (view.selected && !(mine() && view.legal.actions.some((a) => JSON.stringify(a).includes(`"${view.selected}"`)))) view.selected = null;
        renderFacts();
        renderPlay();
        redrawMap();
      } while (again && !stopped);
    })().catch((error) => { view.refused = error.message; }).finally(() => { refreshing = null; });
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

  return () => { stopped = true; stream && stream.close(); clearInterval(ticker); };
}
