import assert from "node:assert/strict";
import { test } from "node:test";
import { absoluteOf, isRelative, relativeLabel } from "../../main/resources/ui/ranges.js";

test("relative ranges are now minus a count of seconds, minutes, hours, days or weeks", () => {
  assert.ok(isRelative("now-3h"));
  assert.ok(isRelative(" now-90m "));
  assert.ok(isRelative("now-5200w"));
  for (const bad of ["now", "now-0h", "now+1h", "now-3y", "3h", "now-1234567d", "now-999999w", "", null]) {
    assert.equal(isRelative(bad), false, String(bad));
  }
});

test("a relative range reads as words", () => {
  assert.equal(relativeLabel("now-3h"), "Last 3 hours");
  assert.equal(relativeLabel("now-1m"), "Last 1 minute");
  assert.equal(relativeLabel("now-2w"), "Last 2 weeks");
  assert.equal(relativeLabel("absolute"), null);
});

test("a relative range is the absolute span ending now", () => {
  assert.deepEqual(absoluteOf("now-3h", 10_800_000 * 2), [10_800_000, 21_600_000]);
  assert.equal(absoluteOf("absolute", 5), null);
});
