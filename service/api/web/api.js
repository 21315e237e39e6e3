// The REST API of the service that served this page (its own origin, or the one the service names in
// the document's <meta name="typhoon-api">), and its server-sent events.

function setting(name) {
  const meta = document.querySelector(`meta[name="${name}"]`);
  return meta ? meta.content.trim() : "";
}

// Where the API is: the page's origin unless the service says otherwise.
export const API_ORIGIN = setting("typhoon-api") || location.origin;

// The gRPC address a bot is told to connect to: the one the service names, else the API's host and the
// service's gRPC port.
export function grpcAddress() {
  const named = setting("typhoon-grpc-address");
  if (named) return named;
  const host = new URL(API_ORIGIN).hostname;
  return `${host}:${setting("typhoon-grpc-port") || 50051}`;  // an IPv6 hostname comes in brackets
}

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.reason = error.reason || "";
    this.code = error.status || "";
    this.metadata = error.metadata || {};
  }
}

// A request id makes a retried submit apply once. (crypto.randomUUID exists only in secure contexts;
// getRandomValues everywhere.)
function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function call(method, path, { query, body, token } = {}) {
  const url = new URL(path, API_ORIGIN);
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, value);
  }
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {  // the browser's own words ("TypeError: Failed to fetch") tell a person nothing
    throw new ApiError(0, { error: { reason: "UNREACHABLE", message: "The service cannot be reached: check the connection and try again." } });
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const api = {
  listMatches: (query) => call("GET", "/v1/matches", { query }),
  getMatch: (id, version) => call("GET", `/v1/matches/${id}`, { query: { version } }),
  legalActions: (id) => call("GET", `/v1/matches/${id}/legal-actions`),
  // the battle declaring these attackers against the defender would make (nothing is declared)
  previewBattle: (id, defender, attackers) => {
    const query = new URLSearchParams([["defender", defender], ...attackers.map((a) => ["attackers", a])]);
    return call("GET", `/v1/matches/${id}/battle-preview?${query}`);
  },
  submit: (id, token, action, expectedVersion) => call("POST", `/v1/matches/${id}/actions`, {
    token, body: { action, expected_version: expectedVersion, request_id: requestId() },
  }),
  resign: (id, token) => call("POST", `/v1/matches/${id}/resign`, { token, body: {} }),
  createMatch: (body) => call("POST", "/v1/matches", { body }),
  joinMatch: (id, body) => call("POST", `/v1/matches/${id}/join`, { body }),
  events: (id, afterSequence, pageSize = 1000) =>
    call("GET", `/v1/matches/${id}/events`, { query: { after_sequence: afterSequence, page_size: pageSize } }),
  scenario: (id) => call("GET", `/v1/scenarios/${id}`),
  verify: (id) => call("GET", `/v1/matches/${id}/verification`),
};

// The whole log, page by page.
export async function wholeLog(matchId) {
  const events = [];
  for (;;) {
    const page = await api.events(matchId, events.length ? events[events.length - 1].sequence : 0);
    events.push(...page.events);
    if (!page.has_more) return events;
  }
}

const scenarios = new Map();
export function scenario(id) {
  if (!scenarios.has(id)) scenarios.set(id, api.scenario(id).then((r) => r.scenario));
  return scenarios.get(id);
}

// Follow a match's log from `after` on: onEvent(matchEvent) for every entry, in order, once each.
// EventSource reconnects by itself with Last-Event-ID after a cut; after an `end` that says the server
// is shutting down, or an error the browser gave up on, we reconnect from our own cursor.
export function watch(matchId, after, { onEvent, onStatus }) {
  let cursor = after;
  let source = null;
  let closed = false;
  let retry = null;
  let status = "";
  const say = (now) => { if (now !== status) { status = now; onStatus && onStatus(now); } };
  const open = () => {
    if (closed) return;
    if (!status) say("connecting");
    source = new EventSource(new URL(`/v1/matches/${matchId}/watch?after_sequence=${cursor}&heartbeat_seconds=15`, API_ORIGIN));
    // "open" also follows the browser's own reconnections, which call nothing of ours
    source.addEventListener("open", () => say("live"));
    source.addEventListener("heartbeat", () => say("live"));
    source.addEventListener("match_event", (e) => {
      say("live");
      const event = JSON.parse(e.data);
      if (event.sequence <= cursor) return;
      cursor = event.sequence;
      onEvent(event);
    });
    source.addEventListener("end", (e) => {
      const end = JSON.parse(e.data);
      source.close();
      if (end.finished) {
        closed = true;
        say("finished");
      } else {
        say("reconnecting");
        reconnect(500);
      }
    });
    source.addEventListener("error", (e) => {
      if (e.data) {  // the service's own error event: do not hammer it
        source.close();
        say("error");
        reconnect(3000);
      } else if (source.readyState === EventSource.CLOSED) {
        say("reconnecting");
        reconnect(1000);
      } else {
        say("reconnecting");
      }
    });
  };
  const reconnect = (ms) => {
    if (closed) return;
    clearTimeout(retry);
    retry = setTimeout(open, ms);
  };
  open();
  return {
    close() { closed = true; clearTimeout(retry); source && source.close(); },
    get cursor() { return cursor; },
    // for tests and people: cut the connection as a network would; the watch resumes from its cursor
    drop() { source && source.close(); say("reconnecting"); reconnect(200); },
  };
}
