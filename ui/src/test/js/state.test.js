import assert from "node:assert/strict";
import { test } from "node:test";
import { fromLocalInput, hashOf, parseHash, timeParams, toggledColumn, toLocalInput } from "../../main/resources/ui/state.js";

test("an empty hash is the last 15 minutes of the search view", () => {
  assert.deepEqual(parseHash(""), { q: "", range: "now-15m", from: "", to: "", view: "search", tail: false,
    order: "desc", zone: "utc", cols: ["service"], refresh: "off", lang: "native" });
});

test("a state survives its own link", () => {
  const s = { q: "level:ERROR AND message:\"a&b=c\"", range: "absolute", from: "2026-12-01T10:00:00Z",
    to: "2026-12-01T11:00:00Z", view: "dead-letters", tail: true, order: "asc", zone: "local",
    cols: ["fields.took_ms", "host"], refresh: "1m", lang: "logql" };
  assert.deepEqual(parseHash(hashOf(s)), s);
});

test("a from without a range means an absolute range; an unknown view is the search view", () => {
  const s = parseHash("#from=2026-12-01T10:00:00Z&to=2026-12-01T11:00:00Z&view=admin-of-everything");
  assert.equal(s.range, "absolute");
  assert.equal(s.view, "search");
});

test("defaults stay out of the link", () => {
  assert.equal(hashOf(parseHash("")), "#range=now-15m");
});

test("a relative range asks the API from now-RANGE to now; an absolute one its two instants", () => {
  assert.deepEqual(timeParams({ range: "now-1h" }), { from: "now-1h", to: "now" });
  assert.deepEqual(timeParams({ range: "absolute", from: "a", to: "b" }), { from: "a", to: "b" });
});

test("datetime-local values are UTC and gain their seconds", () => {
  assert.equal(toLocalInput("2026-12-01T10:00:05Z"), "2026-12-01T10:00:05");
  assert.equal(fromLocalInput("2026-12-01T10:00"), "2026-12-01T10:00:00Z");
  assert.equal(fromLocalInput(""), "");
});

test("a column is added once and removed by the same toggle; no columns is a choice the link keeps", () => {
  assert.deepEqual(toggledColumn(["service"], "fields.took_ms"), ["service", "fields.took_ms"]);
  assert.deepEqual(toggledColumn(["service", "host"], "service"), ["host"]);
  assert.deepEqual(parseHash(hashOf({ ...parseHash(""), cols: [] })).cols, []);
});

import { remembered } from "../../main/resources/ui/history.js";

test("auto-refresh is off unless the link names a known interval", () => {
  assert.equal(parseHash("#refresh=5s").refresh, "5s");
  assert.equal(parseHash("#refresh=1ms").refresh, "off");
  assert.equal(hashOf(parseHash("#refresh=30s")), "#range=now-15m&refresh=30s");
});

test("the history keeps the newest query first, once, and at most twenty", () => {
  assert.deepEqual(remembered(["b", "a"], " a "), ["a", "b"]);
  assert.deepEqual(remembered(["a"], "  "), ["a"]);
  assert.equal(remembered(Array.from({ length: 20 }, (_, i) => "q" + i), "new").length, 20);
});
