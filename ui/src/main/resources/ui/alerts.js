// The tenant's alert rules at a glance (GET /api/v1/status's "rules"): how many fire, wait or fail, each on hover.

/** {text, title, state} for the header, or null when the tenant has no rules. */
export function alertsText(status) {
  const rules = Array.isArray(status && status.rules) ? status.rules : [];
  if (!rules.length) return null;
  const alerting = rules.filter((r) => !r.record);
  const firing = rules.filter((r) => r.state === "firing").length;
  const pending = rules.filter((r) => r.state === "pending").length;
  const failing = rules.filter((r) => r.last_error).length;
  const parts = [];
  if (firing) parts.push(firing + " firing");
  if (pending) parts.push(pending + " pending");
  if (failing) parts.push(failing + " failing to evaluate");
  const quiet = alerting.length ? "all " + alerting.length + " quiet" : "none (" + rules.length + " recording)";
  const title = rules.map((r) => r.group + " / " + (r.record || r.alert) + ": " + r.state
    + (r.active ? " (" + r.active + (r.record ? " series)" : " active)") : "")
    + (r.last_error ? "; last error: " + r.last_error : "")
    + (r.last_evaluation ? "; evaluated " + r.last_evaluation : "")).join("\n");
  return {
    text: "Alerts: " + (parts.length ? parts.join(", ") : quiet),
    title,
    state: firing ? "firing" : failing ? "failing" : pending ? "pending" : "quiet",
  };
}
