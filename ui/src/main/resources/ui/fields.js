// The fields sidebar: the field names of the range, each with its top values; a value filters the query.
import { api } from "./api.js";
import { $, span, text } from "./dom.js";
import { withFilter } from "./query.js";
import { navigate, session, state, timeParams, toggledColumn } from "./state.js";

const HIDDEN = new Set(["message", "record_id", "tenant_id"]);
let known = [];

/** The field names of the range as the sidebar last listed them (what the query box completes to). */
export function knownFields() {
  return known;
}

export async function fields(gen) {
  const ul = $("fields");
  ul.textContent = "";
  try {
    const r = await api("/api/v1/fields", timeParams(state));
    if (gen !== session.generation) return;
    const list = Array.isArray(r) ? r : (r.fields || []);
    known = list.map((f) => (typeof f === "string" ? f : f.name)).filter((n) => n && n !== "record_id" && n !== "tenant_id");
    for (const f of list) {
      const name = typeof f === "string" ? f : f.name;
      if (!name || HIDDEN.has(name)) continue;
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "field";
      b.dataset.field = name;
      b.appendChild(text(name));
      const type = f.type || (Array.isArray(f.types) ? f.types.join("|") : "");
      if (type) b.appendChild(span("type", type.toLowerCase()));
      b.addEventListener("click", () => topValues(li, name));
      const col = document.createElement("button");
      col.type = "button";
      col.className = "column";
      col.dataset.field = name;
      col.textContent = "col";
      col.title = "show " + name + " as a column of the results (saved in the link)";
      col.setAttribute("aria-pressed", state.cols.includes(name));
      col.addEventListener("click", () => navigate({ cols: toggledColumn(state.cols, name) }));
      li.append(b, col);
      ul.appendChild(li);
    }
  } catch {
    if (gen === session.generation) ul.textContent = "Fields unavailable.";
  }
}

async function topValues(li, name) {
  const open = li.querySelector(".top-values");
  if (open) {
    open.remove();
    return;
  }
  const ul = document.createElement("ul");
  ul.className = "top-values";
  ul.textContent = "…";
  li.appendChild(ul);
  try {
    // the name goes in the query string (encoded there by URLSearchParams): a path segment cannot carry a "/"
    const r = await api("/api/v1/fields/top", Object.assign({ field: name, q: state.q }, timeParams(state)));
    ul.textContent = "";
    for (const v of (r.values || r.top || [])) {
      const value = String(v.value ?? v.key);
      const item = document.createElement("li");
      const val = span("val", value);
      val.title = "filter: " + name + ":" + value;
      val.dataset.value = value;
      val.addEventListener("click", () => filter(name, value, false));
      const plus = document.createElement("button");
      plus.type = "button";
      plus.textContent = "+";
      plus.title = "only " + value;
      plus.className = "include";
      plus.addEventListener("click", () => filter(name, value, false));
      const minus = document.createElement("button");
      minus.type = "button";
      minus.textContent = "−";
      minus.title = "exclude " + value;
      minus.className = "exclude";
      minus.addEventListener("click", () => filter(name, value, true));
      item.append(val, span("count", String(v.count ?? v.doc_count ?? "")), plus, minus);
      ul.appendChild(item);
    }
    if (!ul.children.length) ul.textContent = "no values";
  } catch (e) {
    ul.textContent = "unavailable: " + e.message;
  }
}

export function filter(name, value, exclude) {
  navigate({ q: withFilter(state.q, name, value, exclude) });
}
