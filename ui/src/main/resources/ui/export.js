// Export of the current search (NDJSON or CSV): fetched with the key in a header (never in a URL), then handed to the
// browser as a file. A cut export (the server ends it early) fails while reading and is never saved as a whole one.
import { apiUrl, authHeader, errorMessage } from "./api.js";
import { banner, clearBanners } from "./banners.js";
import { $ } from "./dom.js";
import { state, timeParams } from "./state.js";

export const EXPORT_LIMIT = 10000;

/** The CSV columns of an export: time and level, the columns shown, then the message. */
export function exportColumns(cols) {
  const shown = cols.filter((c) => !["event_time", "level", "message"].includes(c));
  return ["event_time", "level"].concat(shown, ["message"]);
}

/** How many records an export's text holds: NDJSON lines, or CSV rows after the header (quoted line breaks kept). */
export function countRecords(text, format) {
  if (format === "ndjson") return text.split("\n").filter((l) => l !== "").length;
  let rows = 0, quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\"") quoted = !quoted;
    else if (c === "\n" && !quoted) rows++;
  }
  return Math.max(0, rows - 1);
}

/** What the status line says of an export of n records. */
export function exportedText(n, limit, format) {
  const said = "Exported " + n.toLocaleString("en") + " record(s) as " + format.toUpperCase();
  return n >= limit
    ? said + ": the first " + limit.toLocaleString("en") + " only (the export's limit); narrow the range for the rest"
    : said;
}

/** The file name the server proposes, or a plain one. */
export function fileName(disposition, format) {
  const m = /filename="([^"]+)"/.exec(disposition || "");
  return m ? m[1] : "logpipe-export." + format;
}

export async function exportSearch(format) {
  const params = Object.assign({ q: state.q, order: state.order, format, limit: EXPORT_LIMIT }, timeParams(state));
  if (format === "csv") params.columns = exportColumns(state.cols).join(",");
  clearBanners("export");
  $("status").textContent = "Exporting…";
  try {
    const res = await fetch(apiUrl("/api/v1/export", params, location.origin),
      { headers: { Authorization: authHeader() } });
    if (!res.ok) {
      const b = await res.json().catch(() => ({}));
      throw new Error(errorMessage(b) || "HTTP " + res.status);
    }
    const text = await res.text();
    const link = $("export-link");
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([text], { type: res.headers.get("Content-Type") || "text/plain" }));
    link.download = fileName(res.headers.get("Content-Disposition"), format);
    link.click();
    $("status").textContent = exportedText(countRecords(text, format), EXPORT_LIMIT, format);
  } catch (e) {
    $("status").textContent = "";
    banner("export", "Export failed: " + e.message);
  }
}
