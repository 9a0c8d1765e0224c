// logpipe web UI: vanilla JS, no build step, talks only to its own origin (docs/ui.md).
// The whole view state lives in the URL hash (shareable links); the API key lives in sessionStorage.
"use strict";
(function () {
  const KEY = "logpipe.apiKey";
  const PAGE = 100;
  const $ = (id) => document.getElementById(id);
  const state = { q: "", range: "now-15m", from: "", to: "", view: "search", tail: false };
  let key = sessionStorage.getItem(KEY);
  let cursor = null, loading = false, generation = 0, selected = -1, tailAbort = null, tailCount = 0;
  let lastHits = [];

  // ---------- API ----------
  async function api(path, params, opts) {
    const url = new URL(path, location.origin);
    for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, v);
    const res = await fetch(url, Object.assign({ headers: { Authorization: "Bearer " + key, Accept: "application/json" } }, opts));
    let body = null;
    const text = await res.text();
    try { body = text ? JSON.parse(text) : null; } catch (e) { body = { error: text }; }
    if (res.status === 401) { signOut("Your key was refused (401). Sign in again."); throw new ApiError(401, body); }
    if (!res.ok) throw new ApiError(res.status, body, res.headers.get("Retry-After"));
    return body;
  }
  // One URL path segment from data (a record id, a field name): always encoded; "." and ".." are path steps that
  // every URL parser resolves, even encoded, so they can never name a segment (ids are checked at ingest for that).
  function segment(s) {
    s = String(s);
    if (s === "." || s === "..") throw new Error(JSON.stringify(s) + " cannot be part of a URL");
    return encodeURIComponent(s);
  }
  class ApiError extends Error {
    constructor(status, body, retryAfter) {
      super(errorMessage(body) || ("HTTP " + status));
      this.status = status; this.body = body; this.retryAfter = retryAfter;
    }
  }
  function errorMessage(b) {
    if (!b) return "";
    if (typeof b.error === "string") return b.error;
    if (b.error && typeof b.error.message === "string") return b.error.message;
    return b.message || "";
  }
  function errorPosition(b) {
    if (!b) return null;
    const p = b.position ?? (b.error && b.error.position);
    if (typeof p === "number") return p;
    if (p && typeof p.offset === "number") return p.offset;
    if (p && typeof p.column === "number") return Math.max(0, p.column - 1);
    return null;
  }

  // ---------- URL state ----------
  function readHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    state.q = h.get("q") || "";
    state.range = h.get("range") || (h.get("from") ? "absolute" : "now-15m");
    state.from = h.get("from") || "";
    state.to = h.get("to") || "";
    state.view = h.get("view") === "dead-letters" ? "dead-letters" : "search";
    state.tail = h.get("tail") === "1";
  }
  function writeHash() {
    const h = new URLSearchParams();
    if (state.q) h.set("q", state.q);
    if (state.range === "absolute") { h.set("from", state.from); h.set("to", state.to); } else h.set("range", state.range);
    if (state.view !== "search") h.set("view", state.view);
    if (state.tail) h.set("tail", "1");
    const next = "#" + h.toString();
    if (location.hash !== next) history.pushState(null, "", next);
  }
  function timeParams() {
    if (state.range === "absolute") return { from: state.from, to: state.to };
    return { from: state.range, to: "now" };
  }
  function syncControls() {
    $("q").value = state.q;
    $("range").value = state.range;
    $("absolute").hidden = state.range !== "absolute";
    $("from").value = toLocalInput(state.from);
    $("to").value = toLocalInput(state.to);
    $("tail").checked = state.tail;
    $("view-search").setAttribute("aria-selected", state.view === "search");
    $("view-dead").setAttribute("aria-selected", state.view === "dead-letters");
  }
  function toLocalInput(iso) { return iso ? iso.replace(/Z$/, "").slice(0, 19) : ""; }
  function fromLocalInput(v) { return v ? (v.length === 16 ? v + ":00" : v) + "Z" : ""; }

  // ---------- sign in ----------
  async function signIn(candidate) {
    const res = await fetch("/api/v1/whoami", { headers: { Authorization: "Bearer " + candidate } });
    if (res.status !== 200) {
      const b = await res.json().catch(() => ({}));
      throw new Error(res.status === 401 ? "This key was refused." : (errorMessage(b) || "Sign-in failed (HTTP " + res.status + ")."));
    }
    return res.json();
  }
  function signOut(message) {
    sessionStorage.removeItem(KEY);
    key = null;
    stopTail();
    $("app").hidden = true;
    $("signin").hidden = false;
    $("signin-key").value = "";
    const e = $("signin-error");
    e.hidden = !message; e.textContent = message || "";
    $("signin-key").focus();
  }
  async function enter() {
    try {
      const who = await signIn(key);
      $("tenant").textContent = ""; $("tenant").appendChild(text(who.tenant));
      $("signin").hidden = true;
      $("app").hidden = false;
      readHash(); syncControls(); run();
    } catch (e) { signOut(e.message); }
  }

  // ---------- banners ----------
  // What a 429 means, by its reason (docs/query.md, Errors): each is a different wait, so say which one it was
  function refusedFor(b, retryAfter) {
    const reason = b && b.reason;
    const retry = "retry in " + (retryAfter || "a few") + " s.";
    switch (reason) {
      case "tenant_concurrency": return "Too many queries at once for this tenant; " + retry;
      case "tenant_answer_memory": return "This tenant's answers in flight hold all the memory it may use for answers; " + retry + " A shorter range or a narrower query needs less.";
      case "auth_failures": return "Too many failed sign-ins from this address; " + retry;
      case "tail_tenant_cap": return "This tenant has as many live tails open as it may (another tab or user?); close one, or " + retry;
      case "tail_cap": return "The server has as many live tails open as it may; " + retry;
      default: return "The server refused for now" + (reason ? " (" + reason + ")" : "") + "; " + retry;
    }
  }
  function banner(kind, text) {
    const d = document.createElement("div");
    d.className = "banner " + kind; d.textContent = text; d.dataset.kind = kind;
    $("banners").appendChild(d);
  }
  function clearBanners(kind) {
    for (const b of [...$("banners").children]) if (!kind || b.dataset.kind === kind) b.remove();
  }
  function partialBanner(r) {
    if (!r || !r.partial) return;
    const reasons = [...new Set((r.partial_reasons || []).map((x) => typeof x === "string" ? x : (x.reason || x.message || JSON.stringify(x))))];
    const skipped = r.shards && (r.shards.skipped_shards || r.shards.skipped);
    let text = "Partial results: " + (reasons.length ? reasons.join("; ") : "some shards were not searched");
    if (Array.isArray(skipped) && skipped.length) {
      text += " (skipped: " + skipped.slice(0, 8).map((k) => typeof k === "string" ? k : (k.day || k.shard) + (k.reason ? " " + k.reason : "")).join(", ") +
        (skipped.length > 8 ? ", +" + (skipped.length - 8) + " more" : "") + ")";
    } else if (typeof skipped === "number" && skipped > 0) text += " (" + skipped + " shard(s) skipped)";
    if (r.range && r.range.clamped) text += "; the range was clamped to the last " + r.range.max_window_seconds + " s";
    clearBanners("partial");
    banner("partial", text);
  }
  async function lagBanner() {
    try {
      const s = await api("/api/v1/status");
      clearBanners("lag");
      if (!s) return;
      let behind = 0, age = null;
      if (s.indexer) { behind = s.indexer.records_behind || 0; age = s.indexer.queryable_age_seconds; }
      else if (s.totals) {
        behind = s.totals.lag_queryable || 0;
        for (const p of Object.values(s.partitions || {})) {
          const a = p.queryable && p.queryable.age_seconds;
          if (p.durable && p.queryable && p.durable.offset > p.queryable.offset && typeof a === "number") age = Math.max(age || 0, a);
        }
      }
      if (typeof s.newest_age_seconds === "number" && behind > 0) age = s.newest_age_seconds;
      if (behind > 0) {
        banner("lag", "The pipeline is behind: " + behind + " record(s) not searchable yet" +
          (typeof age === "number" ? "; indexed up to " + Math.round(age) + " s ago" : "") + ".");
      }
    } catch (e) { /* the status API is optional for the view */ }
  }

  // ---------- search ----------
  function showQueryError(err) {
    const box = $("q-error");
    const pos = errorPosition(err.body);
    $("q").classList.add("invalid");
    let text = err.message;
    if (pos !== null && pos >= 0) {
      text = state.q + "\n" + " ".repeat(Math.min(pos, state.q.length)) + "^ " + err.message;
      try { $("q").setSelectionRange(pos, Math.min(pos + 1, state.q.length)); } catch (e) { /* not focused */ }
    }
    box.textContent = text; box.hidden = false;
  }
  function clearQueryError() { $("q").classList.remove("invalid"); $("q-error").hidden = true; }

  async function run() {
    const gen = ++generation;
    clearQueryError(); clearBanners();
    $("results").innerHTML = ""; $("status").textContent = ""; $("summary").textContent = "";
    cursor = null; selected = -1; lastHits = [];
    stopTail();
    if (state.view === "dead-letters") { $("histogram").hidden = true; $("sidebar").hidden = true; return deadLetters(gen); }
    $("histogram").hidden = false; $("sidebar").hidden = false;
    lagBanner();
    const ok = await page(gen, true);
    if (!ok || gen !== generation) return;
    histogram(gen); fields(gen);
    if (state.tail) startTail();
  }

  async function page(gen, first) {
    if (loading && !first) return false;
    loading = true;
    $("status").textContent = "Loading…";
    try {
      const r = await api("/api/v1/search", Object.assign({ q: state.q, limit: PAGE, cursor: first ? null : cursor, order: "desc" }, timeParams()));
      if (gen !== generation) return false;
      partialBanner(r);
      const hits = r.hits || [];
      for (const h of hits) $("results").appendChild(row(h, false));
      lastHits = lastHits.concat(hits);
      cursor = r.next_cursor || null;
      if (first) {
        const t = r.total ? (r.total.relation === "gte" ? "≥ " : "") + r.total.value : hits.length;
        $("summary").textContent = t + " matches" + (typeof r.took_ms === "number" ? " · " + r.took_ms + " ms" : "");
      }
      $("status").textContent = cursor ? "" : (lastHits.length ? "End of results." : "No matches in this range.");
      return true;
    } catch (e) {
      if (gen !== generation) return false;
      $("status").textContent = "";
      if (e.status === 400 && first) showQueryError(e);
      else if (e.status === 429) banner("error", refusedFor(e.body, e.retryAfter));
      else if (e.status !== 401) banner("error", "Search failed: " + e.message);
      return false;
    } finally { loading = false; }
  }

  // ---------- result rows ----------
  function terms() {
    const out = [];
    const re = /(?:^|[\s(])(?:([A-Za-z_.]+):)?(?:"([^"]+)"|([^\s()"]+))/g;
    let m;
    while ((m = re.exec(state.q))) {
      const field = m[1], word = (m[2] || m[3] || "").replace(/[*?]$/, "");
      if (field && field !== "message") continue;
      if (!word || /^(AND|OR|NOT|TO)$/.test(word) || word.startsWith("-")) continue;
      out.push(word.replace(/[\\*?]/g, ""));
    }
    return out.filter((w) => w.length > 0);
  }
  // Bidirectional controls (LRE RLE PDF LRO RLO, LRI RLI FSI PDI, LRM RLM, ALM) in data would reorder what the
  // reader sees ("evil" shown as "live"): each is replaced by a visible, styled marker naming its code point.
  const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
  const BIDI_NAMES = { "202A": "LEFT-TO-RIGHT EMBEDDING", "202B": "RIGHT-TO-LEFT EMBEDDING", "202C": "POP DIRECTIONAL FORMATTING",
    "202D": "LEFT-TO-RIGHT OVERRIDE", "202E": "RIGHT-TO-LEFT OVERRIDE", "2066": "LEFT-TO-RIGHT ISOLATE",
    "2067": "RIGHT-TO-LEFT ISOLATE", "2068": "FIRST STRONG ISOLATE", "2069": "POP DIRECTIONAL ISOLATE",
    "200E": "LEFT-TO-RIGHT MARK", "200F": "RIGHT-TO-LEFT MARK", "061C": "ARABIC LETTER MARK" };
  function text(s) {
    s = String(s);
    const frag = document.createDocumentFragment();
    let last = 0, m;
    BIDI.lastIndex = 0;
    while ((m = BIDI.exec(s))) {
      frag.appendChild(document.createTextNode(s.slice(last, m.index)));
      const code = m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      const b = document.createElement("span"); b.className = "bidi"; b.textContent = "⟨U+" + code + "⟩";
      b.title = "U+" + code + " " + BIDI_NAMES[code] + " (a bidirectional control in the data, shown instead of applied)";
      frag.appendChild(b);
      last = m.index + m[0].length;
    }
    frag.appendChild(document.createTextNode(s.slice(last)));
    return frag;
  }
  function highlighted(raw) {
    const frag = document.createDocumentFragment();
    const ts = terms();
    if (!ts.length) { frag.appendChild(text(raw)); return frag; }
    const re = new RegExp(ts.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
    let last = 0, m;
    while ((m = re.exec(raw))) {
      if (m[0].length === 0) { re.lastIndex++; continue; }
      frag.appendChild(text(raw.slice(last, m.index)));
      const mark = document.createElement("mark"); mark.appendChild(text(m[0])); frag.appendChild(mark);
      last = m.index + m[0].length;
    }
    frag.appendChild(text(raw.slice(last)));
    return frag;
  }
  function span(cls, value) { const s = document.createElement("span"); s.className = cls; s.appendChild(text(value)); return s; }
  function line(h) {
    const d = document.createElement("div");
    d.className = "line";
    const lvl = (h.level || "UNKNOWN").toUpperCase();
    d.appendChild(span("time", (h.event_time || h.observed_time || "").replace("T", " ").replace("Z", "")));
    d.appendChild(span("lvl lvl-" + lvl, lvl));
    if (h.service) d.appendChild(span("svc", h.service));
    const m = span("msg", ""); m.appendChild(highlighted(String(h.message ?? ""))); d.appendChild(m);
    return d;
  }
  function row(h, fresh) {
    const li = document.createElement("li");
    li.className = "row lvl-row-" + (h.level || "UNKNOWN").toUpperCase() + (fresh ? " fresh" : "");
    li.tabIndex = -1;
    li.dataset.recordId = h.record_id || "";
    li._hit = h;
    const l = line(h);
    l.addEventListener("click", () => toggle(li));
    li.appendChild(l);
    return li;
  }
  function flatten(obj, prefix, out) {
    for (const [k, v] of Object.entries(obj)) {
      const name = prefix ? prefix + "." + k : k;
      if (v && typeof v === "object" && !Array.isArray(v)) flatten(v, name, out); else out.push([name, v]);
    }
    return out;
  }
  function toggle(li) {
    const open = li.querySelector(".detail");
    if (open) { open.remove(); li.classList.remove("open"); return; }
    li.classList.add("open");
    const h = li._hit;
    const d = document.createElement("div"); d.className = "detail";
    const actions = document.createElement("div"); actions.className = "actions";
    const copy = document.createElement("button"); copy.type = "button"; copy.className = "copy-json"; copy.textContent = "Copy as JSON";
    copy.addEventListener("click", async (e) => {
      e.stopPropagation();
      const json = JSON.stringify(h, null, 2);
      try { await navigator.clipboard.writeText(json); copy.textContent = "Copied"; }
      catch (err) { fallbackCopy(json); copy.textContent = "Copied"; }
      setTimeout(() => { copy.textContent = "Copy as JSON"; }, 1500);
    });
    const ctx = document.createElement("button"); ctx.type = "button"; ctx.className = "show-context"; ctx.textContent = "Show context";
    ctx.addEventListener("click", (e) => { e.stopPropagation(); context(li); });
    actions.append(copy, ctx);
    d.appendChild(actions);
    const table = document.createElement("table");
    for (const [k, v] of flatten(h, "", [])) {
      const tr = document.createElement("tr");
      const tk = document.createElement("td"); tk.className = "k"; tk.appendChild(text(k));
      const tv = document.createElement("td"); tv.className = "v"; tv.appendChild(text(typeof v === "string" ? v : JSON.stringify(v)));
      tr.append(tk, tv); table.appendChild(tr);
    }
    d.appendChild(table);
    li.appendChild(d);
  }
  function fallbackCopy(text) {
    const t = document.createElement("textarea"); t.value = text; document.body.appendChild(t); t.select();
    try { document.execCommand("copy"); } finally { t.remove(); }
  }
  async function context(li) {
    const h = li._hit;
    const d = li.querySelector(".detail");
    let box = d.querySelector(".context");
    if (box) { box.remove(); return; }
    box = document.createElement("div"); box.className = "context"; box.textContent = "Loading context…";
    d.appendChild(box);
    try {
      const r = await api("/api/v1/context/" + segment(h.record_id), { before: 10, after: 10 });
      box.textContent = "";
      const before = r.before || [], after = r.after || [];
      const all = r.hits || before.concat([r.record || h], after);
      for (const x of all) {
        const l = line(x);
        if (x.record_id === h.record_id) l.classList.add("anchor");
        box.appendChild(l);
      }
      if (!all.length) box.textContent = "No neighbouring records.";
    } catch (e) { box.textContent = "Context unavailable: " + e.message; }
  }

  // ---------- histogram ----------
  function buckets(r) {
    const list = (r && (r.buckets || r.histogram || r.counts)) || [];
    return list.map((b) => ({
      start: Date.parse(b.start || b.key_as_string || b.from || b.time || b.key),
      count: b.count ?? b.doc_count ?? 0,
    })).filter((b) => !isNaN(b.start));
  }
  async function histogram(gen) {
    const el = $("histogram");
    el.textContent = "";
    try {
      const r = await api("/api/v1/histogram", Object.assign({ q: state.q }, timeParams()));
      if (gen !== generation) return;
      draw(el, buckets(r), intervalMs(r));
    } catch (e) { if (gen === generation) el.textContent = "Histogram unavailable: " + e.message; }
  }
  function intervalMs(r) {
    if (r && typeof r.interval_ms === "number") return r.interval_ms;
    const m = /^(\d+)(ms|s|m|h|d)$/.exec((r && r.interval) || "");
    if (!m) return 0;
    return Number(m[1]) * { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2]];
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
      r.setAttribute("x", x(b.start)); r.setAttribute("width", Math.max(1, x(b.start + step) - x(b.start) - 1));
      r.setAttribute("y", H - pad - h); r.setAttribute("height", h);
      const title = document.createElementNS(ns, "title");
      title.textContent = new Date(b.start).toISOString() + ": " + b.count;
      r.appendChild(title); svg.appendChild(r);
    }
    for (const t of [t0, (t0 + t1) / 2, t1]) {
      const tx = document.createElementNS(ns, "text");
      tx.setAttribute("x", Math.min(W - 110, Math.max(2, x(t) - 50))); tx.setAttribute("y", H - 3);
      tx.textContent = new Date(t).toISOString().replace("T", " ").slice(0, 19);
      svg.appendChild(tx);
    }
    // brush to zoom: drag across the chart to make that span the absolute range
    let startX = null, brush = null;
    const pos = (e) => { const r = el.getBoundingClientRect(); return Math.max(0, Math.min(W, ((e.clientX - r.left) / r.width) * W)); };
    el.onmousedown = (e) => {
      startX = pos(e);
      brush = document.createElementNS(ns, "rect"); brush.setAttribute("class", "brush");
      brush.setAttribute("y", 0); brush.setAttribute("height", H); brush.setAttribute("x", startX); brush.setAttribute("width", 0);
      svg.appendChild(brush);
    };
    el.onmousemove = (e) => {
      if (startX === null) return;
      const p = pos(e); brush.setAttribute("x", Math.min(p, startX)); brush.setAttribute("width", Math.abs(p - startX));
    };
    el.onmouseup = (e) => {
      if (startX === null) return;
      const a = Math.min(startX, pos(e)), b = Math.max(startX, pos(e));
      startX = null; brush.remove();
      if (b - a < 3) return;
      const toT = (px) => new Date(t0 + (px / W) * (t1 - t0)).toISOString().replace(/\.\d+Z$/, "Z");
      state.range = "absolute"; state.from = toT(a); state.to = toT(b);
      writeHash(); syncControls(); run();
    };
    el.onmouseleave = () => { if (startX !== null) { startX = null; brush.remove(); } };
  }

  // ---------- fields ----------
  async function fields(gen) {
    const ul = $("fields");
    ul.textContent = "";
    try {
      const r = await api("/api/v1/fields", timeParams());
      if (gen !== generation) return;
      const list = Array.isArray(r) ? r : (r.fields || []);
      for (const f of list) {
        const name = typeof f === "string" ? f : f.name;
        if (!name || name === "message" || name === "record_id" || name === "tenant_id") continue;
        const li = document.createElement("li");
        const b = document.createElement("button"); b.type = "button"; b.className = "field"; b.dataset.field = name;
        b.appendChild(text(name));
        const type = f.type || (Array.isArray(f.types) ? f.types.join("|") : "");
        if (type) b.appendChild(span("type", type.toLowerCase()));
        b.addEventListener("click", () => topValues(li, name));
        li.appendChild(b); ul.appendChild(li);
      }
    } catch (e) { if (gen === generation) ul.textContent = "Fields unavailable."; }
  }
  async function topValues(li, name) {
    const open = li.querySelector(".top-values");
    if (open) { open.remove(); return; }
    const ul = document.createElement("ul"); ul.className = "top-values"; ul.textContent = "…";
    li.appendChild(ul);
    try {
      // the name goes in the query string (encoded there by URLSearchParams): a path segment cannot carry a "/"
      const r = await api("/api/v1/fields/top", Object.assign({ field: name, q: state.q }, timeParams()));
      ul.textContent = "";
      for (const v of (r.values || r.top || [])) {
        const value = String(v.value ?? v.key);
        const item = document.createElement("li");
        const val = span("val", value); val.title = "filter: " + name + ":" + value; val.dataset.value = value;
        val.addEventListener("click", () => addFilter(name, value, false));
        const plus = document.createElement("button"); plus.type = "button"; plus.textContent = "+"; plus.title = "only " + value; plus.className = "include";
        plus.addEventListener("click", () => addFilter(name, value, false));
        const minus = document.createElement("button"); minus.type = "button"; minus.textContent = "−"; minus.title = "exclude " + value; minus.className = "exclude";
        minus.addEventListener("click", () => addFilter(name, value, true));
        item.append(val, span("count", String(v.count ?? v.doc_count ?? "")), plus, minus);
        ul.appendChild(item);
      }
      if (!ul.children.length) ul.textContent = "no values";
    } catch (e) { ul.textContent = "unavailable: " + e.message; }
  }
  function quote(v) { return /^[A-Za-z0-9_.@-]+$/.test(v) ? v : '"' + v.replace(/["\\]/g, "\\$&") + '"'; }
  // a field name with a character the query syntax reserves (fields.http/path, fields.a:b) is escaped with a backslash
  function fieldName(n) { return n.replace(/[^A-Za-z0-9_.@#-]/g, "\\$&"); }
  function addFilter(field, value, exclude) {
    const clause = (exclude ? "-" : "") + fieldName(field) + ":" + quote(value);
    state.q = state.q.trim() ? state.q.trim() + (exclude ? " " : " AND ") + clause : (exclude ? "*:* " + clause : clause);
    writeHash(); syncControls(); run();
  }

  // ---------- live tail (SSE read with fetch, so the key goes in a header) ----------
  async function startTail() {
    stopTail();
    const ctrl = new AbortController(); tailAbort = ctrl;
    banner("tail", "Live tail on: new matching records appear at the top.");
    try {
      const url = new URL("/api/v1/tail", location.origin);
      if (state.q) url.searchParams.set("q", state.q);
      const res = await fetch(url, { headers: { Authorization: "Bearer " + key, Accept: "text/event-stream" }, signal: ctrl.signal });
      if (!res.ok) {
        const b = await res.json().catch(() => ({}));
        throw new Error(res.status === 429 ? refusedFor(b, res.headers.get("Retry-After")) : (errorMessage(b) || "HTTP " + res.status));
      }
      const reader = res.body.getReader(); const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const evt = buf.slice(0, i); buf = buf.slice(i + 2);
          const data = evt.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
          const type = (evt.split("\n").find((l) => l.startsWith("event:")) || "event: record").slice(6).trim();
          if (type === "skipped") { tailSkipped(data); continue; }
          if (!data || (type !== "record" && type !== "message" && type !== "hit")) continue;
          try { tailRecord(JSON.parse(data)); } catch (e) { /* not a record */ }
        }
      }
      if (tailAbort === ctrl) { clearBanners("tail"); banner("error", "Live tail ended by the server."); }
    } catch (e) {
      if (ctrl.signal.aborted) return;
      clearBanners("tail"); banner("error", "Live tail failed: " + e.message);
    }
  }
  // the server could not send every matching record in time: say so, never leave a silent gap
  let tailSkippedTotal = 0;
  function tailSkipped(data) {
    let n = 0;
    try { n = Number(JSON.parse(data).skipped) || 0; } catch (e) { return; }
    if (n <= 0) return;
    tailSkippedTotal += n;
    clearBanners("tail-skipped");
    banner("tail-skipped", "Live tail skipped " + tailSkippedTotal + " matching record(s) it could not send in time; search the time range to see them.");
  }
  function tailRecord(r) {
    const list = $("results");
    for (const h of (Array.isArray(r) ? r : (r.hits || [r]))) {
      list.insertBefore(row(h, true), list.firstChild);
      tailCount++;
    }
    while (list.children.length > 2000) list.lastChild.remove();
  }
  function stopTail() {
    if (tailAbort) { const c = tailAbort; tailAbort = null; c.abort(); }
    clearBanners("tail"); clearBanners("tail-skipped"); tailSkippedTotal = 0;
  }

  // ---------- dead letters ----------
  async function deadLetters(gen) {
    $("status").textContent = "Loading…";
    try {
      const r = await api("/api/v1/dead-letters", Object.assign({ q: state.q }, timeParams()));
      if (gen !== generation) return;
      partialBanner(r);
      const hits = r.hits || r.dead_letters || [];
      $("summary").textContent = hits.length + " rejected record(s) in this range";
      for (const h of hits) {
        // the line shows the rejected raw line (a dead letter has no message of its own); expanding shows all of it
        const shown = h.message ?? h.raw ?? (h.raw_withheld ? "(raw line withheld: it could not be redacted)" : h.detail);
        const li = row(Object.assign({ level: "ERROR" }, h.record || {}, h, { message: shown ?? "" }), false);
        li._hit = h;
        li.classList.add("dead");
        const reason = h.reason || (h.fields && (h.fields.reason || h.fields["dead_letter.reason"])) || "";
        const r = span("reason", reason); if (h.detail) r.title = h.detail;
        li.querySelector(".line").insertBefore(r, li.querySelector(".msg"));
        $("results").appendChild(li);
      }
      $("status").textContent = hits.length ? "" : "No dead letters in this range.";
    } catch (e) {
      if (gen !== generation) return;
      $("status").textContent = "";
      if (e.status === 400) showQueryError(e); else if (e.status !== 401) banner("error", "Dead letters failed: " + e.message);
    }
  }

  // ---------- keyboard ----------
  function rows() { return [...$("results").children]; }
  function select(i) {
    const rs = rows(); if (!rs.length) return;
    selected = Math.max(0, Math.min(rs.length - 1, i));
    rs.forEach((r, j) => r.classList.toggle("selected", j === selected));
    rs[selected].focus({ preventScroll: true }); rs[selected].scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("keydown", (e) => {
    if ($("app").hidden) return;
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
    if (e.key === "Escape") {
      if (typing) { document.activeElement.blur(); return; }
      const r = rows()[selected]; if (r && r.querySelector(".detail")) toggle(r);
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") { e.preventDefault(); $("q").focus(); $("q").select(); }
    else if (e.key === "j") select(selected + 1);
    else if (e.key === "k") select(selected - 1);
    else if (e.key === "Enter" || e.key === "o") { const r = rows()[selected]; if (r) toggle(r); }
    else if (e.key === "c") { const r = rows()[selected]; if (r) { if (!r.querySelector(".detail")) toggle(r); context(r); } }
    else if (e.key === "t") { state.tail = !state.tail; writeHash(); syncControls(); state.tail ? startTail() : stopTail(); }
  });

  // ---------- wiring ----------
  $("signin-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const candidate = $("signin-key").value.trim();
    if (!candidate) return;
    try {
      const who = await signIn(candidate);
      key = candidate; sessionStorage.setItem(KEY, key);
      $("signin-error").hidden = true;
      $("tenant").textContent = who.tenant;
      $("signin").hidden = true; $("app").hidden = false;
      readHash(); syncControls(); run();
    } catch (err) {
      const el = $("signin-error"); el.textContent = err.message; el.hidden = false;
    }
  });
  $("signout").addEventListener("click", () => signOut(""));
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    state.q = $("q").value;
    if (state.range === "absolute") { state.from = fromLocalInput($("from").value); state.to = fromLocalInput($("to").value); }
    writeHash(); run();
  });
  $("q").addEventListener("input", clearQueryError);
  $("range").addEventListener("change", () => {
    state.range = $("range").value;
    if (state.range === "absolute" && !state.from) {
      const now = new Date();
      state.to = now.toISOString().replace(/\.\d+Z$/, "Z");
      state.from = new Date(now - 3600e3).toISOString().replace(/\.\d+Z$/, "Z");
    }
    syncControls();
    if (state.range !== "absolute") { writeHash(); run(); }
  });
  $("tail").addEventListener("change", () => { state.tail = $("tail").checked; writeHash(); state.tail ? startTail() : stopTail(); });
  for (const b of document.querySelectorAll(".tab")) {
    b.addEventListener("click", () => { state.view = b.dataset.view; state.tail = false; writeHash(); syncControls(); run(); });
  }
  window.addEventListener("popstate", () => { if (key) { readHash(); syncControls(); run(); } });
  new IntersectionObserver((entries) => {
    if (entries.some((x) => x.isIntersecting) && cursor && !loading && state.view === "search") page(generation, false);
  }, { root: document.querySelector(".content"), rootMargin: "300px" }).observe($("sentinel"));

  if (key) enter(); else signOut("");
})();
