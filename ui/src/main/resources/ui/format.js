// How numbers and instants are written on the page.

/** "1,131 matches", or "at least 1,131 matches" when the count is a lower bound. */
export function matchesText(value, lowerBound, tookMs) {
  return (lowerBound ? "at least " : "") + Number(value).toLocaleString("en") + (value === 1 ? " match" : " matches") +
    (typeof tookMs === "number" ? " · " + tookMs + " ms" : "");
}

const pad = (n, w = 2) => String(n).padStart(w, "0");

/** An instant to the millisecond, "2026-12-01 10:00:00.120", in UTC or in the browser's zone ("local"). */
export function formatTime(iso, zone) {
  const ms = Date.parse(iso);
  if (isNaN(ms)) return iso || "";
  const d = new Date(ms);
  if (zone === "local") {
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" +
      pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
  }
  return d.toISOString().replace("T", " ").replace("Z", "");
}

/** The name of a zone as the toggle shows it: "UTC", or the browser's zone with its offset. */
export function zoneLabel(zone, now = new Date()) {
  if (zone !== "local") return "UTC";
  const off = -now.getTimezoneOffset();
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone || "local";
  return name + " (UTC" + (off >= 0 ? "+" : "−") + pad(Math.floor(Math.abs(off) / 60)) + ":" + pad(Math.abs(off) % 60) + ")";
}

/** The value of a dotted field name in a record ("fields.took_ms"), or undefined. */
export function valueAt(record, name) {
  if (record && Object.prototype.hasOwnProperty.call(record, name)) return record[name];
  let v = record;
  for (const part of name.split(".")) {
    if (v === null || typeof v !== "object" || !(part in v)) return undefined;
    v = v[part];
  }
  return v;
}
