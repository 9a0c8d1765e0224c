import assert from "node:assert/strict";
import { test } from "node:test";
import { lagText, partialText } from "../../main/resources/ui/banners.js";

test("a complete answer has no partial banner", () => {
  assert.equal(partialText({ partial: false }), null);
});

test("a partial answer says in words what it left out and why", () => {
  const skipped = Array.from({ length: 10 }, (_, i) => ({ day: "2026-11-0" + i, reason: "max_shards" }));
  assert.equal(partialText({ partial: true, partial_reasons: ["max_shards"], shards: { skipped } }),
    "Partial results: 10 day(s) were skipped to stay within the query budget (2026-11-00, 2026-11-01, 2026-11-02, " +
    "2026-11-03, 2026-11-04, 2026-11-05, 2026-11-06, 2026-11-07 and 2 more); narrow the range to search them.");
  assert.equal(partialText({ partial: true, partial_reasons: ["max_window"],
    range: { clamped: true, max_window_seconds: 2592000, from: "2026-11-06T10:00:00Z" }, shards: { skipped: [] } }),
  "Partial results: the range was limited to the last 30 days (the longest this tenant may search), from " +
    "2026-11-06 10:00:00 UTC.");
  assert.match(partialText({ partial: true, partial_reasons: ["timeout"], shards: { skipped: [{ day: "2026-12-01", reason: "timeout" }] } }),
    /1 day\(s\) did not answer in time \(2026-12-01\)/);
});

test("a lag under two seconds, or no lag, or no indexer, is no banner", () => {
  assert.equal(lagText({ indexer: { lag_seconds: 0 } }), null);
  assert.equal(lagText({ indexer: { lag_seconds: 1.9 } }), null);
  assert.equal(lagText({ source: "committed_shards", newest_age_seconds: 900 }), null);
});

test("a lag past the threshold is said in seconds, with the stages on hover and no counts", () => {
  const t = lagText({ indexer: { lag_seconds: 4.4, stage_age_seconds: { durable: 0.1, read: 0.1, indexed: 4.2, queryable: 4.4 } } });
  assert.equal(t.text, "Search is 4 s behind: the newest 4 s of logs may not be searchable yet (hover for the stages).");
  assert.equal(t.stages, "accepted → durable (newest 0.1 s ago) → read (newest 0.1 s ago) → indexed (newest 4.2 s ago) → " +
    "queryable (newest 4.4 s ago)");
});

test("a corrupt archive is named in the partial banner", () => {
  const skipped = [{ day: "2026-11-20", reason: "corrupt", detail: "archive records/acme/2026-11-20/g1.lpa is corrupt: block 3 checksum mismatch" }];
  assert.equal(partialText({ partial: true, partial_reasons: ["corrupt"], shards: { skipped } }),
    "Partial results: 1 day(s) could not be read because their archive is damaged (2026-11-20): " +
    "archive records/acme/2026-11-20/g1.lpa is corrupt: block 3 checksum mismatch; tell the operator.");
});

test("archived days over the archive read budget are named in the partial banner", () => {
  const skipped = [{ day: "2026-11-20", reason: "max_archive_bytes" }, { day: "2026-11-19", reason: "max_archive_bytes" }];
  assert.equal(partialText({ partial: true, partial_reasons: ["max_archive_bytes"], shards: { skipped } }),
    "Partial results: 2 archived day(s) were skipped to stay within the archive read budget (2026-11-20, " +
    "2026-11-19); narrow the range or the query, or search again once the newer days are cached.");
});
