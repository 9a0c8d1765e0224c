// One record as one line of the result list: time, level, service, the message with the query's words marked.
import { span, text } from "./dom.js";
import { formatTime, valueAt } from "./format.js";
import { queryTerms } from "./query.js";
import { state } from "./state.js";

/** The [start, end) ranges of the terms in a text, case-insensitive, in order, not overlapping. */
export function marks(raw, terms) {
  if (!terms.length) return [];
  const re = new RegExp(terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
  const out = [];
  let m;
  while ((m = re.exec(raw))) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

export function highlighted(raw) {
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const [a, b] of marks(raw, queryTerms(state.q))) {
    frag.appendChild(text(raw.slice(last, a)));
    const mark = document.createElement("mark");
    mark.appendChild(text(raw.slice(a, b)));
    frag.appendChild(mark);
    last = b;
  }
  frag.appendChild(text(raw.slice(last)));
  return frag;
}

export function levelOf(h) {
  return (h.level || "UNKNOWN").toUpperCase();
}

export function line(h) {
  const d = document.createElement("div");
  d.className = "line";
  const lvl = levelOf(h);
  const time = span("time", formatTime(h.event_time || h.observed_time || "", state.zone));
  time.title = h.event_time || h.observed_time || "";
  d.appendChild(time);
  d.appendChild(span("lvl lvl-" + lvl, lvl));
  for (const c of state.cols) { // the chosen columns (service by default)
    const v = valueAt(h, c);
    if (v === undefined || v === null || v === "") continue;
    const cell = span((c === "service" ? "svc " : "") + "col", typeof v === "string" ? v : JSON.stringify(v));
    cell.dataset.field = c;
    cell.title = c;
    d.appendChild(cell);
  }
  const m = span("msg", "");
  m.appendChild(highlighted(String(h.message ?? "")));
  d.appendChild(m);
  return d;
}
