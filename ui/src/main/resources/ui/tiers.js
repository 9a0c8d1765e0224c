// The tenant's days per storage tier, from the status API's "tiers" (docs/query.md#get-apiv1status).

function bytes(n) {
  const units = ["B", "KB", "MB", "GB", "TB", "PB"];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return (u === 0 ? String(v) : v.toFixed(v < 10 ? 1 : 0)) + " " + units[u];
}

function count(n, one, many) {
  return n + " " + (n === 1 ? one : many);
}

/**
 * {text, title} for the header ("10 days: 3 hot, 7 archived"), or null when the answer has no tiers (no archive
 * tier) or the tenant has no days yet. The title gives the sizes and the archived range.
 */
export function tiersText(s) {
  const t = s && s.tiers;
  if (!t || !t.hot || !t.archived) return null;
  const hot = Number(t.hot.days) || 0;
  const archived = Number(t.archived.days) || 0;
  if (hot + archived === 0) return null;
  const text = count(hot + archived, "day", "days") + ": " + hot + " hot, " + archived + " archived";
  const title = [
    "Hot (searchable at once): " + count(hot, "day", "days") + ", " + count(Number(t.hot.records) || 0, "record", "records"),
  ];
  if (archived > 0) {
    const a = t.archived;
    const ratio = a.source_bytes > 0 ? " (" + ((100 * a.bytes) / a.source_bytes).toFixed(0) + "% of their " +
      bytes(a.source_bytes) + " of logs)" : "";
    title.push("Archived (searched through a local cache; the first search of a day is slower): " +
      count(archived, "day", "days") + ", " + count(Number(a.records) || 0, "record", "records") + ", " +
      bytes(Number(a.bytes) || 0) + ratio + ", " + a.oldest_day + " to " + a.newest_day);
  }
  return { text, title: title.join("\n") };
}
