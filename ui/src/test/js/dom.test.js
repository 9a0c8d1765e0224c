import assert from "node:assert/strict";
import { test } from "node:test";
import { bidiSegments } from "../../main/resources/ui/dom.js";

test("bidirectional controls are cut out of the text and named", () => {
  assert.deepEqual(bidiSegments("user \u202Eevil\u202C"), [
    { text: "user " }, { code: "202E", name: "RIGHT-TO-LEFT OVERRIDE" }, { text: "evil" },
    { code: "202C", name: "POP DIRECTIONAL FORMATTING" }]);
  assert.deepEqual(bidiSegments(""), [{ text: "" }]);
});

import { formatTime, matchesText } from "../../main/resources/ui/format.js";

test("instants are written to the millisecond in UTC", () => {
  assert.equal(formatTime("2026-12-01T10:00:00Z", "utc"), "2026-12-01 10:00:00.000");
  assert.equal(formatTime("2026-12-01T10:00:00.12+01:00", "utc"), "2026-12-01 09:00:00.120");
  assert.match(formatTime("2026-12-01T10:00:00.5Z", "local"), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.500$/);
});

test("a count says at least only when it is a lower bound", () => {
  assert.equal(matchesText(1131, false, 9), "1,131 matches · 9 ms");
  assert.equal(matchesText(10000, true, null), "at least 10,000 matches");
  assert.equal(matchesText(1, false), "1 match");
});

import { valueAt } from "../../main/resources/ui/format.js";

test("a dotted name reads nested fields, or a key with the dots in it", () => {
  assert.equal(valueAt({ fields: { took_ms: 5 } }, "fields.took_ms"), 5);
  assert.equal(valueAt({ "fields.took_ms": 6 }, "fields.took_ms"), 6);
  assert.equal(valueAt({ fields: {} }, "fields.took_ms"), undefined);
});

import { nextTheme } from "../../main/resources/ui/theme.js";

test("the theme toggle goes auto, dark, light and back to auto", () => {
  assert.deepEqual([nextTheme("auto"), nextTheme("dark"), nextTheme("light")], ["dark", "light", "auto"]);
});

import { limitText } from "../../main/resources/ui/admin.js";

test("a limit of 0 is shown as unlimited", () => {
  assert.equal(limitText(0), "unlimited");
  assert.equal(limitText(5000), "5,000");
});

test("a legal hold's form values become the admin API's body, times in UTC", async () => {
  const { holdBody } = await import("../../main/resources/ui/admin.js");
  assert.deepEqual(holdBody(" acme ", "2026-11-01T00:00", "2026-11-02T12:30:15", " case 42 ", " legal "), {
    tenant_id: "acme", from: "2026-11-01T00:00:00Z", to: "2026-11-02T12:30:15Z", reason: "case 42", who: "legal",
  });
});
