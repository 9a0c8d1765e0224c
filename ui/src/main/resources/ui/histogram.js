// The histogram: matches over time; drag across it to zoom (the dragged span becomes the absolute range).
import { api } from "./api.js";
import { $ } from "./dom.js";
import { isoSeconds, navigate, session, state, timeParams } from "./state.js";

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

export async function histogram(gen) {
  const el = $("histogram");
  el.textContent = "";
  try {
    const r = await api("/api/v1/histogram", Object.assign({ q: state.q }, timeParams(state)));
    if (gen !== session.generation) return;
    draw(el, buckets(r), intervalMs(r));
  } catch (e) {
    if (gen === session.generation) el.textContent = "Histogram unavailable: " + e.message;
  }
}

function draw(el, bs, step) {
  const ns = "http://www.w3.org/2000/svg";
  const W = el.clientWidth || 800, H = el.clientHeight || 110, pad = 16;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("preserveAspectRatio", "none");
  el.appendChild(svg);
  if (!bs.length) return;
  if (!step) step = bs.length > 1 ? bs[1].start - bs[0].start : 60000;
  const t0 = bs[0].start, t1 = bs[bs.length - 1].start + step;
  const max = Math.max(1, ...bs.map((b) => b.count));
  const x = (t) => ((t - t0) / (t1 - t0)) * W;
  for (const b of bs) {
    const r = document.createElementNS(ns, "rect");
    const h = (b.count / max) * (H - pad);
    r.setAttribute("class", "bar");
    r.setAttribute("x", x(b.start));
    r.setAttribute("width", Math.max(1, x(b.start + step) - x(b.start) - 1));
    r.setAttribute("y", H - pad - h);
    r.setAttribute("height", h);
    const title = document.createElementNS(ns, "title");
    title.textContent = new Date(b.start).toISOString() + ": " + b.count;
    r.appendChild(title);
    svg.appendChild(r);
  }
  for (const t of [t0, (t0 + t1) / 2, t1]) {
    const tx = document.createElementNS(ns, "text");
    tx.setAttribute("x", Math.min(W - 110, Math.max(2, x(t) - 50)));
    tx.setAttribute("y", H - 3);
    tx.textContent = new Date(t).toISOString().replace("T", " ").slice(0, 19);
    svg.appendChild(tx);
  }
  let startX = null, brush = null;
  const pos = (e) => {
    const r = el.getBoundingClientRect();
    return Math.max(0, Math.min(W, ((e.clientX - r.left) / r.width) * W));
  };
  el.onmousedown = (e) => {
    startX = pos(e);
    brush = document.createElementNS(ns, "rect");
    brush.setAttribute("class", "brush");
    brush.setAttribute("y", 0);
    brush.setAttribute("height", H);
    brush.setAttribute("x", startX);
    brush.setAttribute("width", 0);
    svg.appendChild(brush);
  };
  el.onmousemove = (e) => {
    if (startX === null) return;
    const p = pos(e);
    brush.setAttribute("x", Math.min(p, startX));
    brush.setAttribute("width", Math.abs(p - startX));
  };
  el.onmouseup = (e) => {
    if (startX === null) return;
    const a = Math.min(startX, pos(e)), b = Math.max(startX, pos(e));
    startX = null;
    brush.remove();
    if (b - a < 3) return;
    const toT = (px) => isoSeconds(t0 + (px / W) * (t1 - t0));
    navigate({ range: "absolute", from: toT(a), to: toT(b) });
  };
  el.onmouseleave = () => {
    if (startX !== null) {
      startX = null;
      brush.remove();
    }
  };
}
