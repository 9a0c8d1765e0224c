// logpipe web UI: ES modules, no build step, talks only to its own origin (docs/ui.md). This module signs in and
// wires the page; each concern is a module of its own (state.js, api.js, query-box.js, histogram.js, results.js,
// record.js, fields.js, tail.js, dead-letters.js, keyboard.js).
import { listenToAdmin, showAdmin } from "./admin.js";
import { alertsText } from "./alerts.js";
import { api, refusedFor, setKey, storedKey, whenUnauthorized, whoami } from "./api.js";
import { banner, clearBanners, lagText, partialBanner } from "./banners.js";
import { cachedValues, completions, lastWordStart, topValues } from "./autocomplete.js";
import { deadLetters } from "./dead-letters.js";
import { $, text } from "./dom.js";
import { exportSearch } from "./export.js";
import { fields, knownFields } from "./fields.js";
import { matchesText, zoneLabel } from "./format.js";
import { clearHistogram, histogram } from "./histogram.js";
import { listenToKeys, resetSelection } from "./keyboard.js";
import { clearQueryError, showQueryError } from "./query-box.js";
import { clearResults, row } from "./results.js";
import {
  fromLocalInput, hashOf, isoSeconds, navigate, onNavigate, readHash, session, state, timeParams, toLocalInput,
  writeHash,
} from "./state.js";
import { startTail, stopTail, whenRecordsArrive } from "./tail.js";
import { listenToTheme } from "./theme.js";
import { tiersText } from "./tiers.js";
import * as queryHistory from "./history.js";
import { absoluteOf, isRelative, relativeLabel } from "./ranges.js";
import { rangeMs } from "./histogram-data.js";
import { nanos, seriesLines, streamHits } from "./logql.js";
import { schedule } from "./refresh.js";
import { listenToSaved, savedIdOf, savedState } from "./saved.js";

const PAGE = 100;
let cursor = null, loading = false, shown = 0, lowerBound = false, took = null;

/** The range picker shows a relative range it has no option for (now-3h from a link) as an option of its own. */
function rangeOption(range) {
  const select = $("range");
  if (!isRelative(range) || [...select.options].some((o) => o.value === range)) return;
  const o = document.createElement("option");
  o.value = range;
  o.textContent = relativeLabel(range);
  select.insertBefore(o, select.querySelector("option[value='custom']"));
}

function syncControls() {
  $("q").value = state.q;
  rangeOption(state.range);
  $("range").value = state.range;
  $("relative").hidden = true;
  $("absolute").hidden = state.range !== "absolute";
  $("from").value = toLocalInput(state.from);
  $("to").value = toLocalInput(state.to);
  $("tail").checked = state.tail;
  $("logql").checked = state.lang === "logql";
  // export and live tail speak the native language: off while the box holds LogQL
  $("export").disabled = state.lang === "logql";
  $("tail").disabled = state.lang === "logql";
  $("q").placeholder = state.lang === "logql"
    ? '{service="payments"} |= "timeout" | logfmt   (LogQL; press / to focus)'
    : "level:ERROR AND service:payments   (press / to focus)";
  $("view-search").setAttribute("aria-selected", state.view === "search");
  $("view-dead").setAttribute("aria-selected", state.view === "dead-letters");
  $("order").value = state.order;
  $("refresh").value = state.refresh;
  $("zone").textContent = zoneLabel(state.zone);
  $("zone").dataset.zone = state.zone;
}

/** The warnings of an answer (a field that exists nowhere in the range, ...), shown under the query box. */
function showWarnings(r) {
  const ul = $("q-warnings");
  ul.textContent = "";
  const list = (r && Array.isArray(r.warnings) ? r.warnings : []).filter((w) => typeof w === "string");
  for (const w of list) {
    const li = document.createElement("li");
    li.appendChild(text("⚠ " + w));
    ul.appendChild(li);
  }
  ul.hidden = list.length === 0;
}

// ---------- sign in ----------
function signOut(message) {
  setKey(null);
  stopTail();
  schedule("off");
  $("app").hidden = true;
  $("admin").hidden = true;
  $("signin").hidden = false;
  $("signin-key").value = "";
  const e = $("signin-error");
  e.hidden = !message;
  e.textContent = message || "";
  $("signin-key").focus();
}

let tenant = "";

async function show(who) {
  if (who.admin) {
    showAdmin(who);
    return;
  }
  tenant = who.tenant;
  queryHistory.show(queryHistory.load(tenant));
  $("tenant").textContent = "";
  $("tenant").appendChild(text(who.tenant));
  $("signin").hidden = true;
  $("app").hidden = false;
  await showFromUrl();
}

/** Shows what the URL says: its state, or first the state of the saved search a "#saved=ID" link names. */
async function showFromUrl() {
  let notice = null;
  const id = savedIdOf(location.hash);
  if (id) {
    try {
      history.replaceState(null, "", "#" + (await savedState(id)));
    } catch (e) {
      history.replaceState(null, "", "#");
      if (e.status === 401) return;
      notice = e.status === 404
        ? "The link's saved search is not one of this tenant's (deleted, or saved under another tenant)."
        : "Could not open the saved search: " + e.message;
    }
  }
  readHash();
  syncControls();
  run();
  if (notice) banner("error", notice); // after run() cleared the banners of the previous search
}

async function enter(key) {
  try {
    show(await whoami(key));
  } catch (e) {
    signOut(e.message);
  }
}

// ---------- search ----------
async function lagBanner() {
  try {
    const s = await api("/api/v1/status");
    clearBanners("lag");
    const t = lagText(s);
    if (t) banner("lag", t.text).title = t.stages;
    const tiers = tiersText(s);
    $("tiers").hidden = !tiers;
    $("tiers").textContent = tiers ? tiers.text : "";
    $("tiers").title = tiers ? tiers.title : "";
    const alerts = alertsText(s);
    $("alerts").hidden = !alerts;
    $("alerts").textContent = alerts ? alerts.text : "";
    $("alerts").title = alerts ? alerts.title : "";
    $("alerts").dataset.state = alerts ? alerts.state : "";
  } catch {
    /* the status API is optional for the view */
  }
}

async function run() {
  const gen = ++session.generation;
  clearQueryError();
  showWarnings(null);
  clearBanners();
  clearResults();
  clearHistogram();
  $("status").textContent = "";
  $("summary").textContent = "";
  cursor = null;
  shown = 0;
  resetSelection();
  stopTail();
  // auto-refresh (both views): the same search again, unless the user is typing a new one
  schedule(state.tail ? "off" : state.refresh, () => {
    if (!loading && gen === session.generation && !$("q").matches(":focus")) run();
  });
  if (state.view === "dead-letters") {
    $("histogram").hidden = true;
    $("sidebar").hidden = true;
    await deadLetters(gen);
    if (state.tail && gen === session.generation) startTail(); // live: new dead letters on top
    return;
  }
  if (state.lang === "logql") {
    $("histogram").hidden = true;
    $("sidebar").hidden = true;
    lagBanner();
    const done = await logqlRun(gen);
    if (done && state.q) queryHistory.remember(tenant, state.q);
    return;
  }
  $("histogram").hidden = false;
  $("sidebar").hidden = false;
  lagBanner();
  const ok = await page(gen, true);
  if (ok && state.q) queryHistory.remember(tenant, state.q);
  if (!ok || gen !== session.generation) return;
  // the histogram counts every match exactly: where the search gave a lower bound, the summary takes its number
  histogram(gen).then((exact) => {
    if (gen === session.generation && exact !== null && lowerBound) {
      $("summary").textContent = matchesText(exact, false, took);
    }
  });
  fields(gen);
  if (state.tail) startTail();
}

async function page(gen, first) {
  if (loading && !first) return false;
  loading = true;
  $("status").textContent = "Loading…";
  try {
    const r = await api("/api/v1/search",
      Object.assign({ q: state.q, limit: PAGE, cursor: first ? null : cursor, order: state.order }, timeParams(state)));
    if (gen !== session.generation) return false;
    partialBanner(r);
    if (first) showWarnings(r);
    const hits = r.hits || [];
    for (const h of hits) $("results").appendChild(row(h, false));
    shown += hits.length;
    cursor = r.next_cursor || null;
    if (first) {
      lowerBound = Boolean(r.total && r.total.relation === "gte");
      took = typeof r.took_ms === "number" ? r.took_ms : null;
      $("summary").textContent = matchesText(r.total ? r.total.value : hits.length, lowerBound, took);
    }
    $("status").textContent = cursor ? "" : (shown ? "End of results." : "No matches in this range.");
    return true;
  } catch (e) {
    if (gen !== session.generation) return false;
    $("status").textContent = "";
    if (e.status === 400 && first) showQueryError(e);
    else if (e.status === 429) banner("error", refusedFor(e.body, e.retryAfter));
    else if (e.status !== 401) banner("error", "Search failed: " + e.message);
    return false;
  } finally {
    loading = false;
  }
}

// LogQL mode: one answer of the Loki API (at most PAGE lines), no histogram, sidebar or paging
async function logqlRun(gen) {
  $("status").textContent = "Loading…";
  const [from, to] = rangeMs(state, Date.now());
  try {
    const r = await api("/loki/api/v1/query_range", {
      query: state.q, start: nanos(from), end: nanos(to), limit: PAGE,
      direction: state.order === "asc" ? "forward" : "backward",
    });
    if (gen !== session.generation) return false;
    for (const w of Array.isArray(r.warnings) ? r.warnings : []) banner("partial", w);
    const data = r.data || {};
    if (data.resultType === "streams") {
      const hits = streamHits(data, state.order);
      for (const h of hits) {
        const li = row(h, false);
        li.dataset.context = "no"; // a line of a stream: no record id to look around
        $("results").appendChild(li);
      }
      $("summary").textContent = hits.length + " line(s)" + (hits.length >= PAGE ? ", the first " + PAGE : "");
      $("status").textContent = hits.length ? "" : "No matches in this range.";
    } else {
      const lines = seriesLines(data);
      for (const l of lines) {
        const li = document.createElement("li");
        li.className = "row series";
        li.appendChild(text(l));
        $("results").appendChild(li);
      }
      $("summary").textContent = lines.length + " series";
      $("status").textContent = lines.length ? "" : "No series in this range.";
    }
    return true;
  } catch (e) {
    if (gen !== session.generation) return false;
    $("status").textContent = "";
    if (e.status === 400) showQueryError(e);
    else if (e.status === 429) banner("error", refusedFor(e.body, e.retryAfter));
    else if (e.status !== 401) banner("error", "Query failed: " + e.message);
    return false;
  }
}

// ---------- wiring ----------
whenUnauthorized(signOut);
listenToTheme();
// during live tail the histogram follows: counted again at most every two seconds while records arrive
let recount = null;
whenRecordsArrive(() => {
  if (recount || state.view !== "search") return; // the dead letters view has no histogram
  const gen = session.generation;
  recount = setTimeout(() => {
    recount = null;
    if (gen === session.generation) histogram(gen);
  }, 2000);
});
listenToAdmin(signOut);
$("fields-toggle").addEventListener("click", () => {
  const open = $("sidebar").classList.toggle("open");
  $("fields-toggle").setAttribute("aria-expanded", open);
});
onNavigate(() => {
  syncControls();
  run();
});
listenToKeys(syncControls);
$("signin-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const candidate = $("signin-key").value.trim();
  if (!candidate) return;
  try {
    const who = await whoami(candidate);
    setKey(candidate);
    $("signin-error").hidden = true;
    show(who);
  } catch (err) {
    const el = $("signin-error");
    el.textContent = err.message;
    el.hidden = false;
  }
});
$("signout").addEventListener("click", () => signOut(""));
$("search-form").addEventListener("submit", (e) => {
  e.preventDefault();
  state.q = $("q").value;
  if (state.range === "absolute") {
    state.from = fromLocalInput($("from").value);
    state.to = fromLocalInput($("to").value);
  }
  writeHash();
  run();
});
$("q").addEventListener("input", clearQueryError);
let completing = null;
$("q").addEventListener("input", () => {
  clearTimeout(completing);
  completing = setTimeout(suggest, 120); // after a pause in typing, not on every key
});

async function suggest() {
  const q = $("q").value;
  const word = q.slice(lastWordStart(q));
  if (word.indexOf(":") > 0) await topValues(word.slice(0, word.indexOf(":")));
  if ($("q").value !== q) return; // typed on meanwhile: the next pause suggests
  queryHistory.show(queryHistory.load(tenant), completions(q, knownFields(), cachedValues));
}
$("range").addEventListener("change", () => {
  if ($("range").value === "custom") { // typed in the box beside it; the search runs on Enter
    $("relative").value = isRelative(state.range) ? state.range : "";
    $("relative").hidden = false;
    $("relative").focus();
    return;
  }
  const span = absoluteOf(state.range, Date.now()); // the range being left, for Absolute… to start from
  state.range = $("range").value;
  if (state.range === "absolute") {
    const [from, to] = span || [Date.now() - 3600e3, Date.now()];
    if (span || !state.from) {
      state.from = isoSeconds(from);
      state.to = isoSeconds(to);
    }
  }
  syncControls();
  if (state.range !== "absolute") {
    writeHash();
    run();
  }
});
$("relative").addEventListener("keydown", (e) => {
  if (e.key === "Escape") {
    syncControls();
    return;
  }
  if (e.key !== "Enter") return;
  e.preventDefault();
  const v = $("relative").value.trim();
  if (!isRelative(v)) {
    $("relative").classList.add("invalid");
    return;
  }
  $("relative").classList.remove("invalid");
  state.range = v;
  syncControls();
  writeHash();
  run();
});
$("order").addEventListener("change", () => navigate({ order: $("order").value }));
$("export").addEventListener("change", () => {
  const format = $("export").value;
  $("export").value = "";
  if (format) exportSearch(format);
});
$("refresh").addEventListener("change", () => navigate({ refresh: $("refresh").value }));
$("zone").addEventListener("click", () => navigate({ zone: state.zone === "local" ? "utc" : "local" }));
$("logql").addEventListener("change", () => {
  state.q = $("q").value;
  navigate({ lang: $("logql").checked ? "logql" : "native" });
});
$("tail").addEventListener("change", () => {
  state.tail = $("tail").checked;
  writeHash();
  if (state.tail) startTail();
  else stopTail();
});
// each view keeps its own query: a dead letters' reason:... never becomes the log search's query
const queries = {};
for (const b of document.querySelectorAll(".tab")) {
  b.addEventListener("click", () => {
    if (b.dataset.view === state.view) return;
    queries[state.view] = state.q;
    navigate({ view: b.dataset.view, tail: false, q: queries[b.dataset.view] || "" });
  });
}
window.addEventListener("popstate", () => {
  if (storedKey()) showFromUrl();
});
listenToSaved(() => hashOf(state));
new IntersectionObserver((entries) => {
  if (entries.some((x) => x.isIntersecting) && cursor && !loading && state.view === "search") {
    page(session.generation, false);
  }
}, { root: document.querySelector(".content"), rootMargin: "300px" }).observe($("sentinel"));

const key = storedKey();
if (key) enter(key);
else signOut("");
