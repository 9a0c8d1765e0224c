import assert from "node:assert/strict";
import { test } from "node:test";
import { lagText, partialText } from "../../main/resources/ui/banners.js";

test("a complete answer has no partial banner", () => {
  assert.equal(partialText({ partial: false }), null);
});

test("a partial answer names its reasons once and its skipped shards, at most eight", () => {
  const days = Array.from({ length: 10 }, (_, i) => ({ day: "2026-12-0" + i, reason: "budget" }));
  const t = partialText({ partial: true, partial_reasons: ["max_shards", "max_shards"], shards: { skipped_shards: days } });
  assert.match(t, /^Partial results: max_shards \(skipped: 2026-12-00 budget/);
  assert.match(t, /\+2 more\)$/);
});

test("nothing behind, no lag banner; records behind are counted", () => {
  assert.equal(lagText({ indexer: { records_behind: 0 } }), null);
  assert.equal(lagText({ indexer: { records_behind: 4, queryable_age_seconds: 2.4 } }),
    "The pipeline is behind: 4 record(s) not searchable yet; indexed up to 2 s ago.");
});
