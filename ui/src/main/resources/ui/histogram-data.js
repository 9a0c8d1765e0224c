// The histogram's data, apart from drawing it: buckets, levels stacked, ranges moved.

/** Levels bottom to top of the stack, each with its colour (the result rows' colours). */
export const LEVELS = [
  { level: "FATAL", color: "#7a0d12" },
  { level: "ERROR", color: "#c0262d" },
  { level: "WARN", color: "#d98b00" },
  { level: "INFO", color: "#2f9e63" },
  { level: "DEBUG", color: "#8a93a3" },
  { level: "TRACE", color: "#b7bcc6" },
  { level: "UNKNOWN", color: "#6f8fe6" },
];

/** The buckets of a histogram answer as [{start (ms), count}], in order. */
export function buckets(r) {
  const list = (r && (r.buckets || r.histogram || r.counts)) || [];
  return list.map((b) => ({
    start: Date.parse(b.start || b.key_as_string || b.from || b.time || b.key),
    count: b.count ?? b.doc_count ?? 0,
  })).filter((b) => !isNaN(b.start));
}

/** A bucket's width in ms, from interval_ms or an interval like "30s", "5m"; 0 when unknown. */
export function intervalMs(r) {
  if (r && typeof r.interval_ms === "number") return r.interval_ms;
  const m = /^(\d+)(ms|s|m|h|d)$/.exec((r && r.interval) || "");
  if (!m) return 0;
  return Number(m[1]) * { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2]];
}

/** The query for one level's share of a query's matches. */
export function levelQuery(q, level) {
  return q.trim() ? "(" + q.trim() + ") AND level:" + level : "level:" + level;
}

/**
 * The series of a stacked chart: for each level present (bottom first), its counts per bucket, and "other" for what
 * the levels' counts do not cover (so the stack's height is always the total's). {levels: [{level, color, counts,
 * total}], total}.
 */
export function stack(totalBuckets, byLevel) {
  const total = totalBuckets.map((b) => b.count);
  const covered = total.map(() => 0);
  const levels = [];
  for (const { level, color } of LEVELS) {
    const bs = byLevel[level];
    if (!bs) continue;
    const counts = total.map((_, i) => (bs[i] ? bs[i].count : 0));
    counts.forEach((c, i) => { covered[i] += c; });
    const sum = counts.reduce((a, b) => a + b, 0);
    if (sum > 0) levels.push({ level, color, counts, total: sum });
  }
  const rest = total.map((t, i) => Math.max(0, t - covered[i]));
  const restSum = rest.reduce((a, b) => a + b, 0);
  if (restSum > 0) levels.push({ level: "other", color: "#6f8fe6", counts: rest, total: restSum });
  return { levels, total: total.reduce((a, b) => a + b, 0) };
}

/** Cumulative sums, bottom first: what each level's bar reaches up to. */
export function cumulative(levels) {
  const out = [];
  let run = null;
  for (const l of levels) {
    run = run ? run.map((v, i) => v + l.counts[i]) : l.counts.slice();
    out.push(run);
  }
  return out;
}

/** The range a step left (-1) or right (+1) moves to: half its span; now is the furthest right it goes. */
export function shifted(fromMs, toMs, dir, nowMs) {
  const half = (toMs - fromMs) / 2;
  let from = fromMs + dir * half, to = toMs + dir * half;
  if (to > nowMs) {
    from -= to - nowMs;
    to = nowMs;
  }
  return [from, to];
}

/** The range zoomed out: twice its span around its middle, never past now. */
export function zoomedOut(fromMs, toMs, nowMs) {
  const span = toMs - fromMs;
  let from = fromMs - span / 2, to = toMs + span / 2;
  if (to > nowMs) {
    from -= to - nowMs;
    to = nowMs;
  }
  return [from, to];
}

const UNITS = { s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 };
/** The [from, to] in ms of a state's range at a given now (relative ranges like now-15m resolved). */
export function rangeMs(s, nowMs) {
  if (s.range === "absolute") return [Date.parse(s.from), Date.parse(s.to)];
  const m = /^now-(\d+)([smhdw])$/.exec(s.range);
  return [nowMs - (m ? Number(m[1]) * UNITS[m[2]] : 15 * 6e4), nowMs];
}
