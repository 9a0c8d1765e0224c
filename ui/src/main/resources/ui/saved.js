// Saved searches: kept server-side with the tenant's data (/api/v1/saved-searches), opened from the Saved panel or
// by a link "#saved=ID" that any user of the same tenant can follow (another tenant's key gets "not found").
import { api, segment } from "./api.js";
import { $, text } from "./dom.js";

const ID = /^[a-z2-7]{16}$/;

/** The saved search a link opens ("#saved=ID" and nothing else), or null. */
export function savedIdOf(hash) {
  const h = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const id = h.get("saved");
  return id && ID.test(id) && [...h.keys()].length === 1 ? id : null;
}

/** The link that opens a saved search. */
export function shareLink(origin, pathname, id) {
  return origin + pathname + "#saved=" + id;
}

/** What a list shows of a saved search besides its name: its query (or "everything") and its range. */
export function describe(state) {
  const h = new URLSearchParams(String(state || ""));
  const range = h.get("from") ? h.get("from") + " → " + (h.get("to") || "now") : h.get("range") || "now-15m";
  return (h.get("q") || "everything") + " · " + range + (h.get("lang") === "logql" ? " · LogQL" : "");
}

const PATH = "/api/v1/saved-searches";

/** The state a saved search holds, for a "#saved=ID" link; throws the API's error (404 for another tenant's). */
export async function savedState(id) {
  return (await api(PATH + "/" + segment(id))).state;
}

let currentHash = () => "";

function message(nodes) {
  const m = $("saved-message");
  m.textContent = "";
  for (const n of nodes) m.appendChild(typeof n === "string" ? text(n) : n);
}

function linkField(id) {
  const input = document.createElement("input");
  input.className = "saved-link";
  input.readOnly = true;
  input.value = shareLink(location.origin, location.pathname, id);
  input.setAttribute("aria-label", "link to the saved search");
  input.addEventListener("focus", () => input.select());
  return input;
}

function showLink(s, said) {
  message([said + " “" + s.name + "”. Link for this tenant's users: ", linkField(s.id)]);
  if (navigator.clipboard) navigator.clipboard.writeText(shareLink(location.origin, location.pathname, s.id))
    .catch(() => { /* the link is shown to copy by hand */ });
}

async function refresh() {
  const ul = $("saved-list");
  let list;
  try {
    list = (await api(PATH)).saved_searches || [];
  } catch (e) {
    if (e.status !== 401) message(["Could not list the saved searches: " + e.message]);
    return [];
  }
  ul.textContent = "";
  for (const s of list) {
    const li = document.createElement("li");
    li.dataset.id = s.id;
    const a = document.createElement("a");
    a.className = "saved-open";
    a.href = "#" + s.state;
    a.appendChild(text(s.name));
    a.addEventListener("click", () => close());
    const what = document.createElement("span");
    what.className = "muted saved-what";
    what.appendChild(text(describe(s.state)));
    const link = document.createElement("button");
    link.type = "button";
    link.className = "saved-copy link";
    link.textContent = "Link";
    link.addEventListener("click", () => showLink(s, "Saved search"));
    const del = document.createElement("button");
    del.type = "button";
    del.className = "saved-delete link";
    del.textContent = "Delete";
    del.addEventListener("click", () => remove(s));
    li.append(a, " ", what, " ", link, " ", del);
    ul.appendChild(li);
  }
  if (!list.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "No saved searches yet: name this one and press Save.";
    ul.appendChild(li);
  }
  return list;
}

async function remove(s) {
  try {
    await api(PATH + "/" + segment(s.id), null, { method: "DELETE" });
    message(["Deleted “" + s.name + "”."]);
  } catch (e) {
    if (e.status !== 401) message(["Could not delete “" + s.name + "”: " + e.message]);
  }
  refresh();
}

async function save(name, replacing) {
  const body = JSON.stringify({ name, state: currentHash().replace(/^#/, "") });
  const opts = { method: replacing ? "PUT" : "POST", body, headers: { "Content-Type": "application/json" } };
  try {
    const s = await api(replacing ? PATH + "/" + segment(replacing) : PATH, null, opts);
    showLink(s, replacing ? "Replaced" : "Saved");
    refresh();
  } catch (e) {
    if (e.status === 409 && e.body && e.body.reason === "saved_search_name_taken") {
      const replace = document.createElement("button");
      replace.type = "button";
      replace.id = "saved-replace";
      replace.textContent = "Replace it";
      replace.addEventListener("click", () => save(name, e.body.id));
      message([e.message + " ", replace]);
    } else if (e.status !== 401) {
      message(["Not saved: " + e.message]);
    }
  }
}

function close() {
  $("saved").hidden = true;
  $("saved-toggle").setAttribute("aria-expanded", "false");
}

/** Wires the Saved panel; {@code hashOfState} gives the current view's link state ("#q=..."). */
export function listenToSaved(hashOfState) {
  currentHash = hashOfState;
  $("saved-toggle").addEventListener("click", () => {
    const open = $("saved").hidden;
    $("saved").hidden = !open;
    $("saved-toggle").setAttribute("aria-expanded", String(open));
    if (open) {
      message([]);
      refresh();
      $("saved-name").focus();
    }
  });
  $("saved-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = $("saved-name").value.trim();
    if (name) save(name, null);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !$("saved").hidden) close();
  });
}
