import assert from "node:assert/strict";
import { test } from "node:test";
import { buckets, intervalMs } from "../../main/resources/ui/histogram.js";

test("buckets are read in order with their counts, unparseable starts dropped", () => {
  assert.deepEqual(buckets({ buckets: [{ start: "2026-12-01T10:00:00Z", count: 3 }, { start: "x", count: 1 },
    { key_as_string: "2026-12-01T10:01:00Z", doc_count: 2 }] }),
  [{ start: Date.parse("2026-12-01T10:00:00Z"), count: 3 }, { start: Date.parse("2026-12-01T10:01:00Z"), count: 2 }]);
});

test("the interval is interval_ms, or parsed from its unit", () => {
  assert.equal(intervalMs({ interval_ms: 5000 }), 5000);
  assert.equal(intervalMs({ interval: "30s" }), 30000);
  assert.equal(intervalMs({ interval: "5m" }), 300000);
  assert.equal(intervalMs({ interval: "weekly" }), 0);
});
