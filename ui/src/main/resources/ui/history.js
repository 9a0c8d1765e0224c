// Query history: the tenant's last queries in this browser, offered by the query box as suggestions.
const MAX = 20;

/** The history with a query added at the front, once, at most MAX long; blank queries are not kept. */
export function remembered(list, q) {
  const t = q.trim();
  if (!t) return list;
  return [t].concat(list.filter((x) => x !== t)).slice(0, MAX);
}

function storageKey(tenant) {
  return "logpipe.history." + tenant;
}

export function load(tenant) {
  try {
    const v = JSON.parse(localStorage.getItem(storageKey(tenant)) || "[]");
    return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** Adds a query to the tenant's history and to the query box's suggestions. */
export function remember(tenant, q) {
  const list = remembered(load(tenant), q);
  localStorage.setItem(storageKey(tenant), JSON.stringify(list));
  show(list);
}

/** The box's suggestions: completions of what is being typed first, then the history. */
export function show(list, completions = []) {
  const dl = document.getElementById("q-history");
  dl.textContent = "";
  for (const q of completions.concat(list.filter((h) => !completions.includes(h)))) {
    const o = document.createElement("option");
    o.value = q;
    dl.appendChild(o);
  }
}
