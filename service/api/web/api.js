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
  // `retryAfter`: the seconds a refusal asks to wait before trying again (a rate limit), else null
  constructor(status, body, retryAfter = null) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.reason = error.reason || "";
    this.code = error.status || "";
    this.metadata = error.metadata || {};
    this.retryAfter = retryAfter;
  }

  get tooMany() { return this.status === 429; }
}

// What a person is told of a refusal: a rate limit's in plain words, with when to try again (the
// service's sentence names the limit, which says nothing to a player).
export function plainly(error) {
  if (error instanceof ApiError && error.tooMany) {
    return `Too many requests, try again in ${Math.max(1, Math.ceil(error.retryAfter ?? DEFAULT_WAIT))} s.`;
  }
  return error.message;
}

// A read refused for too many requests is tried again after the wait the refusal asks for (at most
// LONGEST_WAIT seconds), READ_RETRIES times; an action is not: the player is told, and chooses.
const READ_RETRIES = 4;
const LONGEST_WAIT = 60;
const DEFAULT_WAIT = 2;  // a 429 that does not say (a proxy's)

// The wait a refusal asks for: the Retry-After header (seconds), else the body's retry_after_seconds
// (a page on another origin may not be allowed to read the header); null when neither says.
function retryAfter(response, body) {
  const header = response.headers.get("Retry-After");
  if (header && /^\d+$/.test(header.trim())) return Number(header);
  const seconds = body && body.error && body.error.retry_after_seconds;
  if (Number.isFinite(Number(seconds)) && seconds !== null && seconds !== "") return Number(seconds);
  return response.status === 429 ? DEFAULT_WAIT : null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A request id makes a retried submit apply once. (crypto.randomUUID exists only in secure contexts;
// getRandomValues everywhere.)
function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// A seat's entropy for the dice (engine/dice.py): 256 bits from the browser's cryptographic generator, as hex.
export function freshEntropy() {
  return requestId() + requestId();
}

// What a seat commits to before it reveals `entropy` (engine/seat_entropy.py): its SHA-256, as hex; null
// where the browser has no SHA-256 (WebCrypto is only in secure contexts: https, or localhost), and the
// seat then gives no entropy.
export async function entropyCommitment(entropy) {
  if (!(window.isSecureContext && crypto.subtle)) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(entropy));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function call(method, path, { query, body, token } = {}) {
  const url = new URL(path, API_ORIGIN);
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, value);
  }
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {  // the browser's own words ("TypeError: Failed to fetch") tell a person nothing
      throw new ApiError(0, { error: { reason: "UNREACHABLE", message: "The service cannot be reached: check the connection and try again." } });
    }
    const data = await response.json().catch(() => null);
    if (response.ok) return data;
    const error = new ApiError(response.status, data, retryAfter(response, data));
    const again = method === "GET" && error.retryAfter !== null && (response.status === 429 || response.status === 503);
    if (!again || attempt >= READ_RETRIES) throw error;
    api.waits += 1;  // for tests and the curious: reads that waited
    await sleep(Math.min(error.retryAfter, LONGEST_WAIT) * 1000);
  }
}

export const api = {
  waits: 0,
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
  // the seat's part in the dice (engine/seat_entropy.py): its commitment ("none": it gives no entropy),
  // then, once every seat has committed, the entropy it committed to
  commitEntropy: (id, token, commitment) => call("POST", `/v1/matches/${id}/entropy`, { token, body: { commitment } }),
  revealEntropy: (id, token, entropy) => call("POST", `/v1/matches/${id}/entropy`, { token, body: { entropy } }),
  createMatch: (body) => call("POST", "/v1/matches", { body }),
  joinMatch: (id, body) => call("POST", `/v1/matches/${id}/join`, { body }),
  events: (id, afterSequence, pageSize = 1000) =>
    call("GET", `/v1/matches/${id}/events`, { query: { after_sequence: afterSequence, page_size: pageSize } }),
  scenario: (id) => call("GET", `/v1/scenarios/${id}`),
  // Whether `token` holds a seat of the match, asked without acting: a HEAD of the seat's own watch, which
  // the service answers after checking the token (401 for one that holds no seat), sending nothing.
  holdsSeat: async (id, token) => {
    const url = new URL(`/v1/matches/${id}/watch?include_legal_actions=true`, API_ORIGIN);
    let response;
    try {
      response = await fetch(url, { method: "HEAD", headers: { Authorization: `Bearer ${token}` } });
    } catch {
      throw new ApiError(0, { error: { reason: "UNREACHABLE", message: "The service cannot be reached: check the connection and try again." } });
    }
    if (response.status === 401) return false;
    if (response.ok) return true;
    throw new ApiError(response.status, null, retryAfter(response, null));
  },
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

// Follow a match's log from `after` on: onEvent(matchEvent) for every entry, in order, once each;
// onStatus("connecting" | "live" | "reconnecting" | "error" | "finished"). The stream is read with fetch
// (not EventSource, which hides a refusal's status and Retry-After): a stream refused for too many
// requests (429) is opened again after the wait the service asks for; a cut one, or a server away, after
// a wait that doubles with each failure in a row (up to 10 s); always from our own cursor.
export function watch(matchId, after, { onEvent, onStatus }) {
  let cursor = after;
  let closed = false;
  let retry = null;
  let status = "";
  let failures = 0;
  let refusals = 0;  // openings refused for too many requests
  let reading = null;  // the AbortController of the stream being read
  const say = (now) => { if (now !== status) { status = now; onStatus && onStatus(now); } };
  const reconnect = (ms) => {
    if (closed) return;
    clearTimeout(retry);
    retry = setTimeout(open, ms);
  };
  const backoff = () => Math.min(10000, 500 * 2 ** failures++);
  const stop = () => { if (reading) { reading.abort(); reading = null; } };

  // One server-sent event: returns false when the stream is over (the reader lets go of it).
  function handle(event, data) {
    if (event === "heartbeat") { say("live"); return true; }
    if (event === "match_event") {
      say("live");
      const entry = JSON.parse(data);
      if (entry.sequence > cursor) {
        cursor = entry.sequence;
        onEvent(entry);
      }
      return true;
    }
    if (event === "end") {
      stop();
      if (JSON.parse(data).finished) {
        closed = true;
        say("finished");
      } else {  // the server is shutting down: another will take us
        say("reconnecting");
        reconnect(500);
      }
      return false;
    }
    if (event === "error") {  // the service's own error event: do not hammer it
      stop();
      say("error");
      reconnect(3000);
      return false;
    }
    return true;
  }

  function dispatch(block) {
    let event = "message";
    const data = [];
    for (const raw of block.split("\n")) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    return handle(event, data.join("\n"));
  }

  async function open() {
    if (closed) return;
    if (!status) say("connecting");
    stop();
    const mine = reading = new AbortController();
    const url = new URL(`/v1/matches/${matchId}/watch?after_sequence=${cursor}&heartbeat_seconds=15`, API_ORIGIN);
    let response;
    try {
      response = await fetch(url, { headers: { Accept: "text/event-stream" }, cache: "no-store", signal: mine.signal });
    } catch {
      if (mine.signal.aborted) return;
      say("reconnecting");
      reconnect(backoff());
      return;
    }
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      const error = new ApiError(response.status, body, retryAfter(response, body));
      say(error.tooMany ? "reconnecting" : "error");
      if (error.tooMany) refusals += 1;
      reconnect(error.tooMany ? Math.min(error.retryAfter, LONGEST_WAIT) * 1000 : Math.max(3000, backoff()));
      return;
    }
    failures = 0;
    say("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (!dispatch(block)) return;
        }
      }
    } catch {
      if (mine.signal.aborted) return;  // closed, dropped, or over
    }
    if (mine !== reading || closed) return;
    reading = null;
    say("reconnecting");  // cut without an end: the network, or the server went away
    reconnect(backoff());
  }

  open();
  return {
    close() { closed = true; clearTimeout(retry); stop(); },
    get cursor() { return cursor; },
    get refusals() { return refusals; },
    // for tests and people: cut the connection as a network would; the watch resumes from its cursor
    drop() { stop(); say("reconnecting"); reconnect(200); },
  };
}
