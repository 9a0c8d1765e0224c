import assert from "node:assert/strict";
import { test } from "node:test";
import { tiersText } from "../../main/resources/ui/tiers.js";

test("no tiers in the status (no archive tier) shows nothing", () => {
  assert.equal(tiersText({ newest_age_seconds: 3 }), null);
  assert.equal(tiersText(null), null);
});

test("a tenant without days yet shows nothing", () => {
  assert.equal(tiersText({ tiers: { hot: { days: 0, records: 0 }, archived: { days: 0, records: 0 } } }), null);
});

test("hot and archived days are counted with the archive's size and range in the title", () => {
  const t = tiersText({
    tiers: {
      hot: { days: 3, records: 120000 },
      archived: {
        days: 7, records: 410000, bytes: 9100000, source_bytes: 52000000,
        oldest_day: "2026-11-20", newest_day: "2026-11-26",
      },
    },
  });
  assert.equal(t.text, "10 days: 3 hot, 7 archived");
  assert.equal(t.title,
    "Hot (searchable at once): 3 days, 120000 records\n" +
    "Archived (searched through a local cache; the first search of a day is slower): 7 days, 410000 records, " +
    "9.1 MB (18% of their 52 MB of logs), 2026-11-20 to 2026-11-26");
});

test("one hot day and nothing archived says so in the singular", () => {
  const t = tiersText({ tiers: { hot: { days: 1, records: 1 }, archived: { days: 0, records: 0, bytes: 0 } } });
  assert.equal(t.text, "1 day: 1 hot, 0 archived");
  assert.equal(t.title, "Hot (searchable at once): 1 day, 1 record");
});
