import assert from "node:assert/strict";
import { test } from "node:test";
import { filterValue, MAX_FILTER_VALUE, shown } from "../../main/resources/ui/record-filters.js";
import { withFilter } from "../../main/resources/ui/query.js";

test("strings, numbers and booleans of a record can filter the query", () => {
  assert.equal(filterValue("auth"), "auth");
  assert.equal(filterValue(512), "512");
  assert.equal(filterValue(false), "false");
});

test("objects, arrays, nulls, empty and long text are offered no filter", () => {
  for (const v of [null, undefined, {}, ["a"], "", "x".repeat(MAX_FILTER_VALUE + 1)]) {
    assert.equal(filterValue(v), null, JSON.stringify(v));
  }
  assert.equal(filterValue("x".repeat(MAX_FILTER_VALUE)), "x".repeat(MAX_FILTER_VALUE));
});

test("a record's value with spaces and quotes becomes a quoted clause added to the query", () => {
  const v = filterValue('GET /a "b"');
  assert.equal(withFilter("level:ERROR", "fields.req", v, false), 'level:ERROR AND fields.req:"GET /a \\"b\\""');
  assert.equal(withFilter("", "fields.took_ms", filterValue(12), true), "*:* -fields.took_ms:12");
});

test("a value's bidirectional controls are shown as markers in the filter's tooltip, never applied", () => {
  assert.equal(shown("bidi\u2066svc"), "bidi⟨U+2066⟩svc");
  assert.equal(shown("plain"), "plain");
});
