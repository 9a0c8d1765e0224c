// The admin view: an admin key signs in to tenants, keys, limits and legal holds (the standalone's admin API).
import { api } from "./api.js";
import { $, button, text } from "./dom.js";

/** A limit as the table shows it: 0 is no limit. */
export function limitText(n) {
  return n > 0 ? Number(n).toLocaleString("en") : "unlimited";
}

function say(kind, message) {
  const d = document.createElement("div");
  d.className = "banner " + kind;
  d.textContent = message;
  $("admin-banners").textContent = "";
  $("admin-banners").appendChild(d);
}

function cell(tr, value) {
  const td = document.createElement("td");
  td.appendChild(typeof value === "string" ? text(value) : value);
  tr.appendChild(td);
  return td;
}

async function act(what, call) {
  try {
    await call();
    await load();
  } catch (e) {
    say("error", what + " failed: " + e.message);
  }
}

async function load() {
  const r = await api("/api/v1/admin/tenants");
  const body = $("admin-tenants").querySelector("tbody");
  body.textContent = "";
  for (const t of r.tenants || []) {
    const tr = document.createElement("tr");
    tr.dataset.tenant = t.id;
    cell(tr, t.id);
    cell(tr, String(t.created || "").replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC"));
    cell(tr, limitText(t.records_per_second));
    cell(tr, limitText(t.bytes_per_second));
    const keys = document.createElement("ul");
    keys.className = "keys-list";
    for (const id of t.key_ids || []) {
      const li = document.createElement("li");
      li.dataset.keyId = id;
      li.append(text(id), button("revoke", "revoke", "revoke key " + id, () => {
        if (confirm("Revoke key " + id + " of " + t.id + "? Its clients are refused from now on.")) {
          act("Revoking", () => api("/api/v1/admin/keys/" + encodeURIComponent(id), null, { method: "DELETE" }));
        }
      }));
      keys.appendChild(li);
    }
    cell(tr, keys);
    cell(tr, button("limits", "limits…", "set this tenant's ingest limits", () => {
      const rec = prompt("records per second for " + t.id + " (0 = unlimited)", String(t.records_per_second || 0));
      if (rec === null) return;
      const bytes = prompt("bytes per second for " + t.id + " (0 = unlimited)", String(t.bytes_per_second || 0));
      if (bytes === null) return;
      act("Setting limits", () => api("/api/v1/admin/tenants/" + encodeURIComponent(t.id) + "/limits", null, {
        method: "PUT", body: JSON.stringify({ records_per_second: Number(rec), bytes_per_second: Number(bytes) }),
      }));
    }));
    body.appendChild(tr);
  }
  const holds = $("admin-holds");
  holds.textContent = "";
  try {
    const h = await api("/api/v1/admin/legal-holds");
    for (const x of h.holds || []) {
      const li = document.createElement("li");
      li.dataset.holdId = x.id;
      li.appendChild(text(x.tenant_id + ": " + x.from + " → " + x.to + " — " + (x.reason || "") + " (" + (x.who || "") + ")"));
      li.appendChild(button("remove-hold", "remove", "remove this hold: its days fall under retention again", () => {
        if (confirm("Remove the hold on " + x.tenant_id + " (" + x.reason + ")? Its days fall under retention again.")) {
          act("Removing the hold", () =>
            api("/api/v1/admin/legal-holds/" + encodeURIComponent(x.id), null, { method: "DELETE" }));
        }
      }));
      holds.appendChild(li);
    }
    if (!holds.children.length) holds.textContent = "No legal holds.";
  } catch (e) {
    holds.textContent = "Legal holds unavailable: " + e.message;
  }
}

export async function showAdmin(who) {
  $("signin").hidden = true;
  $("app").hidden = true;
  $("admin").hidden = false;
  $("admin-key").textContent = "admin key " + who.key_id;
  try {
    await load();
  } catch (e) {
    say("error", "Tenants unavailable: " + e.message);
  }
}

/** The body of a new hold from the form's values (datetime-local values are UTC here). */
export function holdBody(tenant, from, to, reason, who) {
  const utc = (v) => (v.length === 16 ? v + ":00" : v) + "Z";
  return { tenant_id: tenant.trim(), from: utc(from), to: utc(to), reason: reason.trim(), who: who.trim() };
}

export function listenToAdmin(signOut) {
  $("admin-signout").addEventListener("click", () => signOut(""));
  $("admin-new-hold").addEventListener("submit", (e) => {
    e.preventDefault();
    const body = holdBody($("hold-tenant").value, $("hold-from").value, $("hold-to").value,
      $("hold-reason").value, $("hold-who").value);
    act("Placing the hold", async () => {
      await api("/api/v1/admin/legal-holds", null, { method: "POST", body: JSON.stringify(body) });
      $("admin-new-hold").reset();
    });
  });
  $("admin-new-key").addEventListener("submit", async (e) => {
    e.preventDefault();
    const tenant = $("admin-tenant").value.trim();
    try {
      const r = await api("/api/v1/admin/tenants/" + encodeURIComponent(tenant) + "/keys", null, { method: "POST" });
      const p = $("admin-issued");
      p.textContent = "";
      p.append(text("Key for " + r.tenant + " (" + r.key_id + "), shown only now: "));
      const code = document.createElement("code");
      code.id = "admin-issued-key";
      code.textContent = r.key;
      p.appendChild(code);
      p.hidden = false;
      $("admin-tenant").value = "";
      await load();
    } catch (err) {
      say("error", "Creating a key failed: " + err.message);
    }
  });
}
