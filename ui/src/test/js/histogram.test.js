import assert from "node:assert/strict";
import { test } from "node:test";
import { buckets, cumulative, intervalMs, levelQuery, rangeMs, shifted, stack, zoomedOut } from "../../main/resources/ui/histogram-data.js";

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

test("a level's share of a query keeps the query whole", () => {
  assert.equal(levelQuery("", "ERROR"), "level:ERROR");
  assert.equal(levelQuery("a OR b", "WARN"), "(a OR b) AND level:WARN");
});

test("the stack adds up to the total: levels present bottom first, the rest as other", () => {
  const total = [{ start: 0, count: 5 }, { start: 1, count: 3 }];
  const s = stack(total, { INFO: [{ count: 2 }, { count: 1 }], ERROR: [{ count: 1 }, { count: 0 }], DEBUG: [{ count: 0 }, { count: 0 }] });
  assert.deepEqual(s.levels.map((l) => [l.level, l.total]), [["ERROR", 1], ["INFO", 3], ["other", 4]]);
  assert.equal(s.total, 8);
  assert.equal(s.levels.reduce((a, l) => a + l.total, 0), s.total);
  assert.deepEqual(cumulative(s.levels), [[1, 0], [3, 1], [5, 3]]);
});

test("moving the range goes half a span; zooming out doubles it; neither passes now", () => {
  assert.deepEqual(shifted(1000, 2000, -1, 5000), [500, 1500]);
  assert.deepEqual(shifted(3000, 4000, 1, 4200), [3200, 4200]);
  assert.deepEqual(zoomedOut(2000, 3000, 10000), [1500, 3500]);
  assert.deepEqual(zoomedOut(2000, 3000, 3000), [1000, 3000]);
});

test("a relative range resolves against now", () => {
  assert.deepEqual(rangeMs({ range: "now-15m" }, 1_000_000), [100_000, 1_000_000]);
  assert.deepEqual(rangeMs({ range: "absolute", from: "1970-01-01T00:00:01Z", to: "1970-01-01T00:00:02Z" }, 0), [1000, 2000]);
});
