// Autocomplete in the query box: the word being typed completes to a field name ("serv" → "service:"), and after
// "field:" to the field's top values in the range ("service:pa" → "service:payments"). Offered through the box's
// datalist beside the query history, so the browser's own suggestion list (and its keys) show them.
import { api } from "./api.js";
import { fieldName, quote } from "./query.js";
import { state, timeParams } from "./state.js";

const MAX = 20;
const topCache = new Map(); // "<range>\u0000<field>" -> values, for the range being looked at

/** Where the word being typed starts: after the last space that is not inside quotes. */
export function lastWordStart(q) {
  let start = 0, quoted = false;
  for (let i = 0; i < q.length; i++) {
    if (q[i] === "\"" && q[i - 1] !== "\\") quoted = !quoted;
    else if (q[i] === " " && !quoted) start = i + 1;
  }
  return start;
}

/**
 * The queries the typed one completes to: its last word completed to a field name, or after "name:" to one of
 * the values (quoted when the query syntax needs it); at most MAX, the typed query itself left out.
 */
export function completions(q, names, valuesOf) {
  const start = lastWordStart(q);
  const head = q.slice(0, start);
  const word = q.slice(start);
  const out = [];
  const colon = word.indexOf(":");
  if (colon > 0) {
    const name = word.slice(0, colon);
    const partial = word.slice(colon + 1).replace(/^"/, "").toLowerCase();
    for (const v of valuesOf(name) || []) {
      if (String(v).toLowerCase().startsWith(partial)) out.push(head + name + ":" + quote(String(v)));
    }
  } else if (word.length > 0 && !/^(AND|OR|NOT)$/i.test(word)) {
    const lower = word.replace(/^[-+]/, "").toLowerCase();
    const sign = word.startsWith("-") || word.startsWith("+") ? word[0] : "";
    for (const n of names) {
      if (n.toLowerCase().startsWith(lower)) out.push(head + sign + fieldName(n) + ":");
    }
  }
  return out.filter((c) => c !== q).slice(0, MAX);
}

function rangeKey() {
  const t = timeParams(state);
  return t.from + "|" + t.to;
}

/** The top values of a field in the current range (cached for the range; empty when unavailable). */
export async function topValues(name) {
  const key = rangeKey() + "\u0000" + name;
  if (!topCache.has(key)) {
    topCache.set(key, []);
    try {
      const r = await api("/api/v1/fields/top", Object.assign({ field: name, size: 20 }, timeParams(state)));
      topCache.set(key, (r.values || r.top || []).map((v) => String(v.value ?? v.key)));
    } catch {
      topCache.delete(key); // tried again on the next keystroke
    }
  }
  return topCache.get(key) || [];
}

/** The cached values of a field (what completions read synchronously). */
export function cachedValues(name) {
  return topCache.get(rangeKey() + "\u0000" + name) || [];
}
