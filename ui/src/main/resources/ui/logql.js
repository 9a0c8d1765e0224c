// LogQL in the native UI: with "LogQL" on, the query box's text goes to the Loki API (/loki/api/v1/query_range: the
// same engine, budget, deadline and tenant scope as every search) and its answer is shown in the results list: a log
// query's lines with their stream's labels, a metric query's series with their latest value.
const TOP = ["level", "service", "instance_id", "region"];

/** Milliseconds as the nanosecond string the Loki API takes. */
export function nanos(ms) {
  return (BigInt(Math.round(ms)) * 1000000n).toString();
}

/** The lines of a streams answer as the hits the results list shows, newest first (or oldest first for "asc"). */
export function streamHits(data, order) {
  const out = [];
  for (const s of (data && data.result) || []) {
    const labels = s.stream || {};
    const fields = {};
    for (const [k, v] of Object.entries(labels)) if (!TOP.includes(k)) fields[k] = v;
    for (const [ns, line] of s.values || []) {
      out.push({
        event_time: new Date(Number(BigInt(ns) / 1000000n)).toISOString(),
        level: labels.level || "UNKNOWN",
        service: labels.service,
        instance_id: labels.instance_id,
        region: labels.region,
        message: line,
        fields,
        ns,
      });
    }
  }
  const sign = order === "asc" ? -1 : 1;
  out.sort((a, b) => sign * (BigInt(b.ns) > BigInt(a.ns) ? 1 : BigInt(b.ns) < BigInt(a.ns) ? -1 : 0));
  return out;
}

/** A metric answer's series as text lines: "{labels} = value at time", the latest value of each. */
export function seriesLines(data) {
  const out = [];
  for (const s of (data && data.result) || []) {
    const labels = Object.entries(s.metric || {}).map(([k, v]) => k + "=" + JSON.stringify(v)).join(", ");
    const last = s.value || (s.values && s.values[s.values.length - 1]);
    if (!last) continue;
    out.push("{" + labels + "} = " + last[1] + " at " + new Date(Number(last[0]) * 1000).toISOString());
  }
  return out;
}
