// The page's routes (in the URL's fragment): #/ the lobby, #/match/<id> a match live (and play with
// a seat token), #/replay/<id> a match step by step with its dice audit.

import { api, entropyCommitment, freshEntropy, plainly } from "./api.js";
import { showMatch } from "./match.js";
import { showReplay } from "./replay.js";
import { el, fill, resultText, statusLabel } from "./dom.js";
import { sideName, phaseName } from "./words.js";

const app = document.getElementById("app");
let leave = null;  // what the current view does when we leave it (close streams, timers)

// For tests and the curious: the view's state and the redraw times (ms) of the map (shown on the page
// to developers: localStorage "typhoon:debug" set, or "debug" in the address).
window.typhoon = { redraws: [], view: null };
if (localStorage.getItem("typhoon:debug") || /[?&]debug\b/.test(location.hash)) document.documentElement.classList.add("debug");

function route() {
  if (leave) { leave(); leave = null; }
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  const [view, id] = path.split("/");
  fill(app, );
  window.typhoon.view = view || "lobby";
  if (view === "match" && id) leave = showMatch(app, id, params);
  else if (view === "play" && id) leave = showMatch(app, id, params, true);
  else if (view === "replay" && id) leave = showReplay(app, id, params);
  else leave = showLobby(app);
}

// --- the lobby ------------------------------------------------------------------------------------

function seatCell(match) {
  return el("span", {}, ...match.seats.map((seat, i) => [
    i ? " · " : "",
    el("span", { class: `dot ${seat.side}` }),
    el("span", { class: `side-${seat.side}` }, seat.claimed ? (seat.player_name || sideName(seat.side)) : "open seat"),
  ]));
}

function showLobby(root) {
  let timer = null, stopped = false;
  const filter = el("select", { "aria-label": "which matches", onchange: () => refresh() },
    el("option", { value: "" }, "all matches"),
    el("option", { value: "MATCH_STATUS_ACTIVE" }, "live"),
    el("option", { value: "MATCH_STATUS_OPEN" }, "open seats"),
    el("option", { value: "MATCH_STATUS_FINISHED" }, "finished"));
  const body = el("tbody");
  const note = el("span", { class: "muted" });
  const create = el("button", { class: "primary", onclick: async () => {
    create.disabled = true;
    try {
      // the seat commits to fresh entropy for the dice (only its SHA-256 goes out), kept in this tab until the
      // match page reveals it, once the other seat has committed too; without WebCrypto the seat gives none
      const entropy = freshEntropy();
      const commitment = await entropyCommitment(entropy);
      const created = await api.createMatch({ scenario: "standard", seats: [{ side: "german", entropy_commitment: commitment || "" }] });
      const token = created.seat_tokens[0].token;
      const seat = commitment ? { side: "german", token, entropy } : { side: "german", token };
      sessionStorage.setItem(`typhoon:${created.match.match_id}:seat`, JSON.stringify(seat));
      location.hash = `#/play/${created.match.match_id}`;
    } catch (error) {
      note.textContent = plainly(error);
      create.disabled = false;
    }
  } }, "New match (play German)");
  root.append(
    el("h1", {}, "Matches"),
    el("div", { class: "lobby-bar" }, filter, create, note),
    el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "matches" }, el("table", { class: "matches", id: "matches" },
      el("thead", {}, el("tr", {}, el("th", {}, "Match"), el("th", {}, "Status"), el("th", {}, "Turn"),
        el("th", { class: "wide" }, "Phase"), el("th", {}, "Players"), el("th", { class: "wide" }, "Result"), el("th", {}, ""))),
      body)));

  async function refresh() {
    clearTimeout(timer);
    try {
      const { matches } = await api.listMatches({ page_size: 50, status: filter.value });
      if (stopped) return;
      fill(body, ...matches.map((m) => el("tr", { "data-match": m.match_id },
        el("td", { class: "mono" }, el("a", { href: `#/match/${m.match_id}` }, m.match_id)),
        el("td", {}, el("span", { class: `status ${m.status}` }, statusLabel(m.status))),
        el("td", {}, m.turn || "set-up"),
        el("td", { class: "wide" }, m.side_to_act ? `${phaseName(m.phase)} · ${sideName(m.side_to_act)} to act` : phaseName(m.phase)),
        el("td", {}, seatCell(m)),
        el("td", { class: "wide" }, resultText(m.result)),
        el("td", { class: "links" }, el("a", { href: `#/match/${m.match_id}` }, m.status === "MATCH_STATUS_FINISHED" ? "view" : "watch"),
          el("a", { href: `#/replay/${m.match_id}` }, "replay")))));
      if (!matches.length) fill(body, el("tr", {}, el("td", { colspan: 7, class: "muted" }, "No matches yet: create one, or run typhoon play.")));
      note.textContent = `updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      note.textContent = error.reason === "UNREACHABLE" ? "the service cannot be reached; retrying" : plainly(error);
    }
    if (!stopped) timer = setTimeout(refresh, 3000);  // live: the list is polled (ListMatches has no stream)
  }
  refresh();
  return () => { stopped = true; clearTimeout(timer); };
}

window.addEventListener("hashchange", route);
route();
