// A consumer of both server-sent event streams, typed by what openapi-typescript generates from
// /openapi.json (./api.ts). Compiled with `tsc --strict` by tests/service/test_service_typescript.py,
// then run against the service: node consumer.js BASE MATCH_ID SEAT_TOKEN SIDE API_KEY
import type { components, paths } from "./api";

type Schemas = components["schemas"];
type WatchEvent = Schemas["WatchEvent"];
type SeekEvent = Schemas["SeekEvent"];
// what a generated SSE client yields: one event's data
type WatchData = paths["/v1/matches/{match_id}/watch"]["get"]["responses"][200]["content"]["text/event-stream"];
type SeekData = paths["/v1/ladder/seek"]["get"]["responses"][200]["content"]["text/event-stream"];
type Status = Schemas["MatchUpdate"]["status"];
type Side = Schemas["MatchUpdate"]["side_to_act"];

interface Frame { event: string; id?: string; data: string }

/** The frames of a text/event-stream body. */
async function* frames(response: Response): AsyncGenerator<Frame> {
  if (!response.body) throw new Error(`no body: ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let frame: Partial<Frame> = {};
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line === "") {
        if (frame.event !== undefined && frame.data !== undefined) yield frame as Frame;
        frame = {};
        continue;
      }
      const colon = line.indexOf(": ");
      const [field, text] = [line.slice(0, colon), line.slice(colon + 2)];
      if (field === "event") frame.event = text;
      else if (field === "id") frame.id = text;
      else if (field === "data") frame.data = text;
    }
  }
}

function watchEvent(frame: Frame): WatchEvent {
  const data: WatchData = JSON.parse(frame.data);
  return { event: frame.event, id: frame.id, data } as WatchEvent;
}

function seekEvent(frame: Frame): SeekEvent {
  const data: SeekData = JSON.parse(frame.data);
  return { event: frame.event, data } as SeekEvent;
}

async function watch(base: string, matchId: string, token: string, side: Side): Promise<Record<string, unknown>> {
  const abort = new AbortController();
  const response = await fetch(`${base}/v1/matches/${matchId}/watch?include_legal_actions=true`, {
    headers: { Authorization: `Bearer ${token}` }, signal: abort.signal,
  });
  let cursor = 0;
  let submitted: number | null = null;
  const statuses: Status[] = [];
  try {
    for await (const frame of frames(response)) {
      const item = watchEvent(frame);
      switch (item.event) {
        case "match_event":
          cursor = Number(item.id);
          if (item.data.sequence !== cursor) throw new Error("the id is the sequence");
          break;
        case "match_update": {
          const update: Schemas["MatchUpdate"] = item.data;
          statuses.push(update.status);
          const remaining: Record<string, string> | undefined = update.clock?.remaining;
          if (remaining && !Object.values(remaining).every((left) => left.endsWith("s"))) throw new Error("durations");
          if (submitted !== null) return { cursor, submitted, version: update.version, statuses };
          if (update.side_to_act === side && update.legal_actions) {
            const body: Schemas["SubmitActionRequest"] = {
              action: update.legal_actions.actions[0], expected_version: update.version,
            };
            const reply = await fetch(`${base}/v1/matches/${matchId}/actions`, {
              method: "POST", body: JSON.stringify(body),
              headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
            });
            const answer: Schemas["SubmitActionResponse"] = await reply.json();
            submitted = answer.version;
          }
          break;
        }
        case "heartbeat":
          cursor = item.data.last_sequence;
          break;
        case "end":
          return { cursor, finished: item.data.finished, statuses };
        case "error":
          throw new Error(item.data.error.reason);
      }
    }
  } finally {
    abort.abort();  // closes the connection
  }
  throw new Error("the watch ended without an end event");
}

async function seek(base: string, key: string): Promise<Record<string, unknown>> {
  const abort = new AbortController();
  const response = await fetch(`${base}/v1/ladder/seek?heartbeat_seconds=1`, {
    headers: { Authorization: `Bearer ${key}` }, signal: abort.signal,
  });
  try {
    for await (const frame of frames(response)) {
      const item = seekEvent(frame);
      switch (item.event) {
        case "heartbeat":
          return { playing: item.data.playing };
        case "match":
          return { match: item.data.match_id, side: item.data.side };
        case "match_update":
          return { update: item.data.version };
        case "end":
        case "error":
          return { ended: item.event };
      }
    }
  } finally {
    abort.abort();
  }
  throw new Error("the seek stream ended");
}

declare const process: { argv: string[] };  // node's (no @types/node needed)
const [base, matchId, token, side, key] = process.argv.slice(2);
const watched = await watch(base, matchId, token, side as Side);
const sought = await seek(base, key);
console.log(JSON.stringify({ watched, sought }));
