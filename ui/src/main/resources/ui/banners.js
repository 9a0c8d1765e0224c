// The honest banners: partial answers, a pipeline that is behind, errors, live tail.
import { $ } from "./dom.js";

export function banner(kind, s) {
  const d = document.createElement("div");
  d.className = "banner " + kind;
  d.textContent = s;
  d.dataset.kind = kind;
  $("banners").appendChild(d);
  return d;
}

export function clearBanners(kind) {
  for (const b of [...$("banners").children]) if (!kind || b.dataset.kind === kind) b.remove();
}

function days(list) {
  const shown = list.slice(0, 8).join(", ");
  return list.length > 8 ? shown + " and " + (list.length - 8) + " more" : shown;
}

function span(seconds) {
  if (seconds % 86400 === 0) return seconds / 86400 === 1 ? "day" : seconds / 86400 + " days";
  if (seconds % 3600 === 0) return seconds / 3600 === 1 ? "hour" : seconds / 3600 + " hours";
  return seconds + " seconds";
}

/** What a partial answer left out, in words ("the range was limited to the last 30 days"), or null when complete. */
export function partialText(r) {
  if (!r || !r.partial) return null;
  const skipped = (r.shards && Array.isArray(r.shards.skipped) ? r.shards.skipped : [])
    .map((k) => (typeof k === "string" ? { day: k, reason: "" } : k));
  const dayList = (reason) => skipped.filter((k) => k.reason === reason).map((k) => k.day);
  const said = [];
  for (const reason of new Set(r.partial_reasons || [])) {
    const ds = dayList(reason);
    if (reason === "max_window" && r.range) {
      said.push("the range was limited to the last " + span(r.range.max_window_seconds || 0) +
        " (the longest this tenant may search), from " + String(r.range.from).replace("T", " ").replace("Z", " UTC"));
    } else if (reason === "max_shards") {
      said.push(ds.length + " day(s) were skipped to stay within the query budget (" + days(ds) +
        "); narrow the range to search them");
    } else if (reason === "max_archive_bytes") {
      said.push(ds.length + " archived day(s) were skipped to stay within the archive read budget (" + days(ds) +
        "); narrow the range or the query, or search again once the newer days are cached");
    } else if (reason === "timeout") {
      said.push(ds.length + " day(s) did not answer in time (" + days(ds) + ")");
    } else if (reason === "corrupt") {
      const details = skipped.filter((k) => k.reason === "corrupt" && k.detail).map((k) => k.detail);
      said.push(ds.length + " day(s) could not be read because their archive is damaged (" + days(ds) + ")" +
        (details.length ? ": " + details.slice(0, 2).join("; ") : "") + "; tell the operator");
    } else if (reason === "error") {
      said.push(ds.length + " day(s) could not be searched (" + days(ds) + ")");
    } else {
      said.push(reason + (ds.length ? " (" + days(ds) + ")" : ""));
    }
  }
  return "Partial results: " + (said.length ? said.join("; ") : "some days were not searched") + ".";
}

export function partialBanner(r) {
  const s = partialText(r);
  if (s === null) return;
  clearBanners("partial");
  banner("partial", s);
}

/** Below this lag the pipeline is not "behind": a record takes a fraction of a second from ingest to search. */
export const LAG_THRESHOLD_SECONDS = 2;

const STAGES = [["durable", "durable"], ["read", "read"], ["indexed", "indexed"], ["queryable", "queryable"]];

/**
 * The freshness banner for a status answer, {text, stages}, or null when search is fresh enough. Only the tenant's
 * own answer is read, and it carries time only (the pipeline is shared: no tenant sees another's counts).
 */
export function lagText(s) {
  const lag = s && s.indexer && s.indexer.lag_seconds;
  if (typeof lag !== "number" || lag < LAG_THRESHOLD_SECONDS) return null;
  const ages = (s.indexer && s.indexer.stage_age_seconds) || {};
  const stages = "accepted → " + STAGES.map(([k, label]) =>
    label + (typeof ages[k] === "number" ? " (newest " + ages[k].toFixed(1) + " s ago)" : "")).join(" → ");
  return {
    text: "Search is " + Math.round(lag) + " s behind: the newest " + Math.round(lag) +
      " s of logs may not be searchable yet (hover for the stages).",
    stages,
  };
}
