import assert from "node:assert/strict";
import { test } from "node:test";
import { alertsText } from "../../main/resources/ui/alerts.js";

test("no rules, no alerts shown", () => {
  assert.equal(alertsText({}), null);
  assert.equal(alertsText({ rules: [] }), null);
  assert.equal(alertsText(null), null);
});

test("firing, pending and failing rules are counted, each named with its state on hover", () => {
  const a = alertsText({
    rules: [
      { group: "errors", alert: "ErrorBurst", state: "firing", active: 2, last_evaluation: "2026-12-06T10:00:00Z" },
      { group: "errors", alert: "Slow", state: "pending", active: 1, last_evaluation: "2026-12-06T10:00:00Z" },
      { group: "errors", alert: "Broken", state: "inactive", active: 0, last_error: "query_timeout" },
    ],
  });
  assert.equal(a.text, "Alerts: 1 firing, 1 pending, 1 failing to evaluate");
  assert.equal(a.state, "firing");
  assert.match(a.title, /^errors \/ ErrorBurst: firing \(2 active\); evaluated 2026-12-06T10:00:00Z\n/);
  assert.match(a.title, /Broken: inactive; last error: query_timeout$/);
});

test("quiet rules say so", () => {
  const a = alertsText({ rules: [{ group: "g", alert: "A", state: "inactive", active: 0 }] });
  assert.equal(a.text, "Alerts: all 1 quiet");
  assert.equal(a.state, "quiet");
});

test("recording rules are listed with their series but are not alerts", () => {
  const a = alertsText({
    rules: [
      { group: "rec", record: "service:log_errors:count1m", state: "recording", active: 3 },
      { group: "g", alert: "A", state: "inactive", active: 0 },
    ],
  });
  assert.equal(a.text, "Alerts: all 1 quiet");
  assert.match(a.title, /^rec \/ service:log_errors:count1m: recording \(3 series\)\n/);
  const only = alertsText({ rules: [{ group: "rec", record: "a:b", state: "recording", active: 0 }] });
  assert.equal(only.text, "Alerts: none (1 recording)");
});
