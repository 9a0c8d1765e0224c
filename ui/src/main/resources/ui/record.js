// The expanded record: every field (each value can filter the query), the record as pretty JSON, Copy as JSON, and
// the records around it (context).
import { api, segment } from "./api.js";
import { button, text } from "./dom.js";
import { line } from "./line.js";
import { filterButtons } from "./record-filters.js";

/** A record's fields as [dotted name, value] pairs; arrays stay values. */
export function flatten(obj, prefix = "", out = []) {
  for (const [k, v] of Object.entries(obj)) {
    const name = prefix ? prefix + "." + k : k;
    if (v && typeof v === "object" && !Array.isArray(v)) flatten(v, name, out);
    else out.push([name, v]);
  }
  return out;
}

/** Opens or closes the detail of a result row. */
export function toggle(li) {
  const open = li.querySelector(".detail");
  if (open) {
    open.remove();
    li.classList.remove("open");
    return;
  }
  li.classList.add("open");
  const h = li._hit;
  const d = document.createElement("div");
  d.className = "detail";
  const actions = document.createElement("div");
  actions.className = "actions";
  const copy = button("copy-json", "Copy as JSON", "", async () => {
    const json = JSON.stringify(h, null, 2);
    try {
      await navigator.clipboard.writeText(json);
    } catch {
      fallbackCopy(json);
    }
    copy.textContent = "Copied";
    setTimeout(() => { copy.textContent = "Copy as JSON"; }, 1500);
  });
  actions.append(copy);
  if (li.dataset.context !== "no") actions.append(button("show-context", "Show context", "", () => context(li)));
  d.appendChild(actions);
  const table = document.createElement("table");
  for (const [k, v] of flatten(h)) {
    const tr = document.createElement("tr");
    const tk = document.createElement("td");
    tk.className = "k";
    tk.appendChild(text(k));
    const tv = document.createElement("td");
    tv.className = "v";
    tv.appendChild(text(typeof v === "string" ? v : JSON.stringify(v)));
    const tf = document.createElement("td");
    tf.className = "f";
    tf.append(...filterButtons(k, v));
    tr.append(tk, tv, tf);
    table.appendChild(tr);
  }
  const pretty = document.createElement("pre");
  pretty.className = "pretty-json";
  pretty.appendChild(text(JSON.stringify(h, null, 2))); // bidirectional controls as markers, as everywhere
  const views = document.createElement("div");
  views.className = "views";
  views.append(table, pretty);
  d.appendChild(views);
  li.appendChild(d);
}

function fallbackCopy(s) {
  const t = document.createElement("textarea");
  t.value = s;
  document.body.appendChild(t);
  t.select();
  try {
    document.execCommand("copy");
  } finally {
    t.remove();
  }
}

/** How many more records a "load more" of the context asks for on its side, and the most one side shows. */
export const CONTEXT_STEP = 20;
export const CONTEXT_MAX = 500;

/** The side's next count after a "load more": one step more, at most the most a side shows. */
export function moreContext(n) {
  return Math.min(CONTEXT_MAX, n + CONTEXT_STEP);
}

/** Shows (or hides) the records around a row's record, from the same file or instance, in source order. */
export async function context(li) {
  const h = li._hit;
  const d = li.querySelector(".detail");
  if (!d || li.dataset.context === "no") return;
  let box = d.querySelector(".context");
  if (box) {
    box.remove();
    return;
  }
  box = document.createElement("div");
  box.className = "context";
  box.textContent = "Loading context…";
  d.appendChild(box);
  await loadContext(box, h, 10, 10);
}

// "load more" asks for the side again with more records: a side that came back full may have more
async function loadContext(box, h, wantBefore, wantAfter) {
  try {
    const r = await api("/api/v1/context/" + segment(h.record_id), { before: wantBefore, after: wantAfter });
    box.textContent = "";
    const before = r.before || [], after = r.after || [];
    const all = r.hits || before.concat([r.record || h], after);
    if (before.length >= wantBefore && wantBefore < CONTEXT_MAX) {
      box.appendChild(button("context-earlier", "▲ " + CONTEXT_STEP + " earlier", "load earlier records",
        () => loadContext(box, h, moreContext(wantBefore), wantAfter)));
    }
    for (const x of all) {
      const l = line(x);
      if (x.record_id === h.record_id) l.classList.add("anchor");
      box.appendChild(l);
    }
    if (after.length >= wantAfter && wantAfter < CONTEXT_MAX) {
      box.appendChild(button("context-later", "▼ " + CONTEXT_STEP + " later", "load later records",
        () => loadContext(box, h, wantBefore, moreContext(wantAfter))));
    }
    if (!all.length) box.textContent = "No neighbouring records.";
  } catch (e) {
    box.textContent = "Context unavailable: " + e.message;
  }
}
