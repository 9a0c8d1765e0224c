// The histogram: matches over time stacked by level (uPlot), with a legend of each level's count and a y-axis;
// drag across it to zoom, or move the range with the buttons beside it.
import { api } from "./api.js";
import { $, button, span } from "./dom.js";
import {
  buckets, cumulative, intervalMs, levelQuery, rangeMs, shifted, stack, zoomedOut,
} from "./histogram-data.js";
import { isoSeconds, navigate, session, state, timeParams } from "./state.js";
import uPlot from "./vendor/uPlot.esm.js";

let chart = null;

/** The histogram of the current query; resolves to its exact total (or null when unavailable). */
export async function histogram(gen) {
  const el = $("histogram");
  try {
    const r = await api("/api/v1/histogram", Object.assign({ q: state.q }, timeParams(state)));
    if (gen !== session.generation) return null;
    const all = buckets(r);
    const byLevel = {};
    const top = await api("/api/v1/fields/top", Object.assign({ field: "level", q: state.q, size: 10 }, timeParams(state)));
    // one histogram per level present, one after the other (a tenant's queries at once are limited)
    for (const v of (top.values || [])) {
      const level = String(v.value ?? v.key).toUpperCase();
      if (gen !== session.generation) return null;
      const lr = await api("/api/v1/histogram",
        Object.assign({ q: levelQuery(state.q, level), interval: r.interval }, timeParams(state)));
      byLevel[level] = buckets(lr);
    }
    if (gen !== session.generation) return null;
    draw(el, all, intervalMs(r), stack(all, byLevel));
    return r.partial ? null : r.total ?? null;
  } catch (e) {
    if (gen === session.generation) {
      clear(el);
      el.appendChild(span("histogram-error", "Histogram unavailable: " + e.message));
    }
    return null;
  }
}

/** Removes the chart of an earlier query. */
export function clearHistogram() {
  clear($("histogram"));
}

function clear(el) {
  if (chart) {
    chart.destroy();
    chart = null;
  }
  el.textContent = "";
}

function move(range) {
  navigate({ range: "absolute", from: isoSeconds(range[0]), to: isoSeconds(range[1]) });
}

function draw(el, all, step, stacked) {
  clear(el);
  const tools = document.createElement("div");
  tools.className = "histogram-tools";
  const legend = document.createElement("ul");
  legend.className = "legend";
  legend.id = "histogram-legend";
  for (const l of stacked.levels) {
    const li = document.createElement("li");
    li.dataset.level = l.level;
    li.dataset.count = l.total;
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = l.color;
    li.append(sw, span("name", l.level), span("count", l.total.toLocaleString("en")));
    legend.appendChild(li);
  }
  const now = Date.now();
  tools.append(legend,
    button("range-left", "◀", "earlier (half the range)", () => move(shifted(...rangeMs(state, now), -1, now))),
    button("range-out", "zoom out", "twice the range", () => move(zoomedOut(...rangeMs(state, now), now))),
    button("range-right", "▶", "later (half the range)", () => move(shifted(...rangeMs(state, now), 1, now))));
  el.appendChild(tools);
  const plot = document.createElement("div");
  plot.className = "plot";
  el.appendChild(plot);
  if (!all.length) return;
  if (!step) step = all.length > 1 ? all[1].start - all[0].start : 60000;
  const xs = all.map((b) => b.start / 1000);
  const tops = cumulative(stacked.levels);
  // drawn top first, so each lower level's bar paints over the part of the one above that is its own
  const order = stacked.levels.map((l, i) => i).reverse();
  const bars = uPlot.paths.bars({ size: [1, 100], align: 1, gap: 1 });
  const style = getComputedStyle(el);
  const ink = style.getPropertyValue("--muted").trim() || "#6b7280";
  const grid = style.getPropertyValue("--line").trim() || "#e3e6eb";
  const opts = {
    width: Math.max(200, plot.clientWidth || el.clientWidth || 800),
    height: 110,
    legend: { show: false },
    scales: { x: { time: true, range: () => [xs[0], xs[xs.length - 1] + step / 1000] }, y: { range: (u, min, max) => [0, Math.max(1, max)] } },
    cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
    axes: [
      { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
      { stroke: ink, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 44,
        values: (u, vals) => vals.map((v) => (Number.isInteger(v) ? v.toLocaleString("en") : "")) },
    ],
    series: [{}].concat(order.map((i) => ({
      label: stacked.levels[i].level, fill: stacked.levels[i].color, stroke: stacked.levels[i].color, width: 0,
      paths: bars, points: { show: false },
    }))),
    hooks: {
      setSelect: [(u) => {
        if (u.select.width < 3) return;
        const a = u.posToVal(u.select.left, "x") * 1000, b = u.posToVal(u.select.left + u.select.width, "x") * 1000;
        u.setSelect({ left: 0, width: 0 }, false);
        move([a, b]);
      }],
      setCursor: [(u) => {
        const i = u.cursor.idx;
        if (i === null || i === undefined) {
          plot.title = "";
          return;
        }
        plot.title = new Date(all[i].start).toISOString() + ": " + all[i].count.toLocaleString("en") +
          stacked.levels.map((l) => (l.counts[i] ? "\n" + l.level + " " + l.counts[i].toLocaleString("en") : "")).join("");
      }],
    },
  };
  chart = new uPlot(opts, [xs].concat(order.map((i) => tops[i])), plot);
  el.dataset.total = stacked.total;
}
