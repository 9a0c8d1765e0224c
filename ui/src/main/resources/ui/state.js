// The view state: all of it lives in the URL hash (shareable links, Back/Forward); nothing else is kept between loads.
export const DEFAULT_RANGE = "now-15m";
export const VIEWS = ["search", "dead-letters"];
export const DEFAULT_COLUMNS = ["service"];

/** The state a hash ("#q=...&range=...") describes; unknown or missing keys take their defaults. */
export function parseHash(hash) {
  const h = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const from = h.get("from") || "";
  return {
    q: h.get("q") || "",
    range: h.get("range") || (from ? "absolute" : DEFAULT_RANGE),
    from,
    to: h.get("to") || "",
    view: VIEWS.includes(h.get("view")) ? h.get("view") : "search",
    tail: h.get("tail") === "1",
    order: h.get("order") === "asc" ? "asc" : "desc",
    zone: h.get("tz") === "local" ? "local" : "utc",
    cols: h.has("cols") ? h.get("cols").split(",").filter((c) => c) : DEFAULT_COLUMNS.slice(),
    refresh: ["5s", "30s", "1m"].includes(h.get("refresh")) ? h.get("refresh") : "off",
    lang: h.get("lang") === "logql" ? "logql" : "native",
  };
}

/** The hash of a state, defaults left out, so equal states give equal links. */
export function hashOf(s) {
  const h = new URLSearchParams();
  if (s.q) h.set("q", s.q);
  if (s.range === "absolute") {
    h.set("from", s.from);
    h.set("to", s.to);
  } else h.set("range", s.range);
  if (s.view !== "search") h.set("view", s.view);
  if (s.tail) h.set("tail", "1");
  if (s.order === "asc") h.set("order", "asc");
  if (s.zone === "local") h.set("tz", "local");
  if (s.cols.join(",") !== DEFAULT_COLUMNS.join(",")) h.set("cols", s.cols.join(","));
  if (s.refresh && s.refresh !== "off") h.set("refresh", s.refresh);
  if (s.lang === "logql") h.set("lang", "logql");
  return "#" + h.toString();
}

/** The columns with a field added, or without it when it was one already. */
export function toggledColumn(cols, field) {
  return cols.includes(field) ? cols.filter((c) => c !== field) : cols.concat([field]);
}

/** The API's from/to for a state. */
export function timeParams(s) {
  if (s.range === "absolute") return { from: s.from, to: s.to };
  return { from: s.range, to: "now" };
}

/** An ISO instant as a datetime-local input's value (UTC, seconds) and back. */
export function toLocalInput(iso) {
  return iso ? iso.replace(/Z$/, "").slice(0, 19) : "";
}
export function fromLocalInput(v) {
  return v ? (v.length === 16 ? v + ":00" : v) + "Z" : "";
}

/** An instant at whole seconds, as the API and the URL carry it. */
export function isoSeconds(ms) {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

// The one state of the page, and the generation of the search it shows: an answer for an older generation is dropped.
export const state = parseHash("");
export const session = { generation: 0 };

export function readHash() {
  Object.assign(state, parseHash(location.hash));
}
export function writeHash() {
  const next = hashOf(state);
  if (location.hash !== next) history.pushState(null, "", next);
}

const listeners = [];
/** Called (after the hash is written) each time the state changes by navigate(). */
export function onNavigate(fn) {
  listeners.push(fn);
}
/** Changes the state, records it in the URL and runs the listeners (the page syncs its controls and searches). */
export function navigate(patch) {
  Object.assign(state, patch);
  writeHash();
  for (const fn of listeners) fn();
}
