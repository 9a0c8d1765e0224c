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

/** What a partial answer left out, in words, or null for a complete answer. */
export function partialText(r) {
  if (!r || !r.partial) return null;
  const reasons = [...new Set((r.partial_reasons || []).map((x) =>
    typeof x === "string" ? x : (x.reason || x.message || JSON.stringify(x))))];
  const skipped = r.shards && (r.shards.skipped_shards || r.shards.skipped);
  let s = "Partial results: " + (reasons.length ? reasons.join("; ") : "some shards were not searched");
  if (Array.isArray(skipped) && skipped.length) {
    s += " (skipped: " + skipped.slice(0, 8).map((k) =>
      typeof k === "string" ? k : (k.day || k.shard) + (k.reason ? " " + k.reason : "")).join(", ") +
      (skipped.length > 8 ? ", +" + (skipped.length - 8) + " more" : "") + ")";
  } else if (typeof skipped === "number" && skipped > 0) s += " (" + skipped + " shard(s) skipped)";
  if (r.range && r.range.clamped) s += "; the range was clamped to the last " + r.range.max_window_seconds + " s";
  return s;
}

export function partialBanner(r) {
  const s = partialText(r);
  if (s === null) return;
  clearBanners("partial");
  banner("partial", s);
}

/** The "pipeline is behind" sentence for a status answer, or null when nothing waits. */
export function lagText(s) {
  if (!s) return null;
  let behind = 0, age = null;
  if (s.indexer) {
    behind = s.indexer.records_behind || 0;
    age = s.indexer.queryable_age_seconds;
  } else if (s.totals) {
    behind = s.totals.lag_queryable || 0;
    for (const p of Object.values(s.partitions || {})) {
      const a = p.queryable && p.queryable.age_seconds;
      if (p.durable && p.queryable && p.durable.offset > p.queryable.offset && typeof a === "number") {
        age = Math.max(age || 0, a);
      }
    }
  }
  if (typeof s.newest_age_seconds === "number" && behind > 0) age = s.newest_age_seconds;
  if (behind <= 0) return null;
  return "The pipeline is behind: " + behind + " record(s) not searchable yet" +
    (typeof age === "number" ? "; indexed up to " + Math.round(age) + " s ago" : "") + ".";
}
