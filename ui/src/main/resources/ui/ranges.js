// Relative time ranges the user can type ("now-3h"), their labels, and the absolute range a relative one is now.
const UNITS = { s: [1e3, "second"], m: [6e4, "minute"], h: [36e5, "hour"], d: [864e5, "day"], w: [6048e5, "week"] };
const RELATIVE = /^now-([1-9]\d{0,5})([smhdw])$/;

const MAX_SPAN_MS = 100 * 365.25 * 864e5; // a date further back than this is no log's

/** True when s is a relative range the picker takes: now-<n><s|m|h|d|w>, n from 1, at most 100 years back. */
export function isRelative(s) {
  const m = RELATIVE.exec(String(s || "").trim());
  return Boolean(m) && Number(m[1]) * UNITS[m[2]][0] <= MAX_SPAN_MS;
}

/** "Last 3 hours" for now-3h, "Last 1 minute" for now-1m; null for anything else. */
export function relativeLabel(s) {
  const m = RELATIVE.exec(String(s || "").trim());
  if (!m || !isRelative(s)) return null;
  const n = Number(m[1]);
  return "Last " + n + " " + UNITS[m[2]][1] + (n === 1 ? "" : "s");
}

/** The absolute [from, to] (epoch ms) a relative range covers at nowMs; null when it is not one. */
export function absoluteOf(s, nowMs) {
  const m = RELATIVE.exec(String(s || "").trim());
  return m && isRelative(s) ? [nowMs - Number(m[1]) * UNITS[m[2]][0], nowMs] : null;
}
