// One record as one line of the result list: time, level, service, the message with the query's words marked.
import { span, text } from "./dom.js";
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
  d.appendChild(span("time", (h.event_time || h.observed_time || "").replace("T", " ").replace("Z", "")));
  d.appendChild(span("lvl lvl-" + lvl, lvl));
  if (h.service) d.appendChild(span("svc", h.service));
  const m = span("msg", "");
  m.appendChild(highlighted(String(h.message ?? "")));
  d.appendChild(m);
  return d;
}
