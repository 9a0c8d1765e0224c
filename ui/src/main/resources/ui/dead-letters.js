// The dead-letters view: the tenant's rejected records and why.
import { api } from "./api.js";
import { banner, partialBanner } from "./banners.js";
import { $, span } from "./dom.js";
import { showQueryError } from "./query-box.js";
import { row } from "./results.js";
import { session, state, timeParams } from "./state.js";

/** What a dead letter's line shows: the rejected raw line (a dead letter has no message of its own). */
export function shownLine(h) {
  return h.message ?? h.raw ?? (h.raw_withheld ? "(raw line withheld: it could not be redacted)" : h.detail) ?? "";
}

export function reasonOf(h) {
  return h.reason || (h.fields && (h.fields.reason || h.fields["dead_letter.reason"])) || "";
}

/** A dead letter's row: its reason (the detail on hover) before the rejected line; fresh when it arrived live. */
export function deadRow(h, fresh) {
  // the level is the rejected record's own when it had one, never made up (a rejection is not an ERROR record)
  const li = row(Object.assign({}, h.record || {}, h, { message: shownLine(h) }), fresh);
  li._hit = h;
  li.dataset.context = "no"; // a dead letter is not in the index of records: it has no context to show
  li.classList.add("dead");
  const reason = span("reason", reasonOf(h));
  if (h.detail) reason.title = h.detail;
  li.querySelector(".line").insertBefore(reason, li.querySelector(".msg"));
  return li;
}

export async function deadLetters(gen) {
  $("status").textContent = "Loading…";
  try {
    const r = await api("/api/v1/dead-letters", Object.assign({ q: state.q }, timeParams(state)));
    if (gen !== session.generation) return;
    partialBanner(r);
    const hits = r.hits || r.dead_letters || [];
    $("summary").textContent = hits.length + " rejected record(s) in this range";
    for (const h of hits) $("results").appendChild(deadRow(h, false));
    $("status").textContent = hits.length ? "" : "No dead letters in this range.";
  } catch (e) {
    if (gen !== session.generation) return;
    $("status").textContent = "";
    if (e.status === 400) showQueryError(e);
    else if (e.status !== 401) banner("error", "Dead letters failed: " + e.message);
  }
}
