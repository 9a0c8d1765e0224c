// Live tail: Server-Sent Events read with fetch, so the key goes in a header; new records go on top.
import { authHeader, errorMessage, refusedFor } from "./api.js";
import { banner, clearBanners } from "./banners.js";
import { $ } from "./dom.js";
import { deadRow } from "./dead-letters.js";
import { row } from "./results.js";
import { state } from "./state.js";

const MAX_ROWS = 2000;

/**
 * The complete events at the start of a buffer of an event stream, and what is left of it:
 * {events: [{type, data}], rest}. An event without a type is a "record".
 */
export function splitEvents(buf) {
  const events = [];
  let i;
  while ((i = buf.indexOf("\n\n")) >= 0) {
    const evt = buf.slice(0, i);
    buf = buf.slice(i + 2);
    const lines = evt.split("\n");
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
    const type = (lines.find((l) => l.startsWith("event:")) || "event: record").slice(6).trim();
    events.push({ type, data });
  }
  return { events, rest: buf };
}

let abort = null;
let skippedTotal = 0;
let onRecords = () => {};

/** Called after records arrived live (the histogram follows them). */
export function whenRecordsArrive(fn) {
  onRecords = fn;
}

export function tailing() {
  return abort !== null;
}

export async function startTail() {
  stopTail();
  const ctrl = new AbortController();
  abort = ctrl;
  const shown = banner("tail", "Starting live tail…");
  try {
    const url = new URL("/api/v1/tail", location.origin);
    if (state.q) url.searchParams.set("q", state.q);
    if (state.view === "dead-letters") url.searchParams.set("kind", "dead-letters");
    const res = await fetch(url, { headers: { Authorization: authHeader(), Accept: "text/event-stream" }, signal: ctrl.signal });
    if (!res.ok) {
      const b = await res.json().catch(() => ({}));
      throw new Error(res.status === 429 ? refusedFor(b, res.headers.get("Retry-After")) : (errorMessage(b) || "HTTP " + res.status));
    }
    // the server fixed the tail's starting point before answering: from here on, every new matching record comes
    shown.textContent = "Live tail on: new matching records appear at the top.";
    shown.dataset.live = "on";
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const split = splitEvents(buf + dec.decode(value, { stream: true }));
      buf = split.rest;
      for (const { type, data } of split.events) {
        if (type === "skipped") {
          skipped(data);
          continue;
        }
        if (!data || (type !== "record" && type !== "message" && type !== "hit")) continue;
        try {
          record(JSON.parse(data));
        } catch {
          /* not a record */
        }
      }
    }
    if (abort === ctrl) {
      clearBanners("tail");
      banner("error", "Live tail ended by the server.");
    }
  } catch (e) {
    if (ctrl.signal.aborted) return;
    clearBanners("tail");
    banner("error", "Live tail failed: " + e.message);
  }
}

// the server could not send every matching record in time: say so, never leave a silent gap
function skipped(data) {
  let n;
  try {
    n = Number(JSON.parse(data).skipped) || 0;
  } catch {
    return;
  }
  if (n <= 0) return;
  skippedTotal += n;
  clearBanners("tail-skipped");
  banner("tail-skipped", "Live tail skipped " + skippedTotal +
    " matching record(s) it could not send in time; search the time range to see them.");
}

function record(r) {
  const list = $("results");
  for (const h of (Array.isArray(r) ? r : (r.hits || [r]))) {
    list.insertBefore(state.view === "dead-letters" ? deadRow(h, true) : row(h, true), list.firstChild);
  }
  while (list.children.length > MAX_ROWS) list.lastChild.remove();
  onRecords();
}

export function stopTail() {
  if (abort) {
    const c = abort;
    abort = null;
    c.abort();
  }
  clearBanners("tail");
  clearBanners("tail-skipped");
  skippedTotal = 0;
}
