import assert from "node:assert/strict";
import { test } from "node:test";
import { fieldName, queryTerms, quote, withFilter } from "../../main/resources/ui/query.js";

test("the words to highlight are free text and message terms, not fields, operators or negations", () => {
  assert.deepEqual(queryTerms('level:ERROR AND "upstream timeout" OR needle* -skip message:here NOT'),
    ["upstream timeout", "needle", "here"]);
});

test("a plain value stays bare; any other is quoted with its quotes and backslashes escaped", () => {
  assert.equal(quote("payments-1.2@x"), "payments-1.2@x");
  assert.equal(quote('a "b" \\c'), '"a \\"b\\" \\\\c"');
});

test("a field name's reserved characters are escaped", () => {
  assert.equal(fieldName("fields.http/path"), "fields.http\\/path");
  assert.equal(fieldName("fields.a:b"), "fields.a\\:b");
});

test("a filter is ANDed to the query; an exclusion alone matches everything else", () => {
  assert.equal(withFilter("", "service", "auth", false), "service:auth");
  assert.equal(withFilter(" level:ERROR ", "service", "auth", false), "level:ERROR AND service:auth");
  assert.equal(withFilter("level:ERROR", "service", "auth", true), "level:ERROR -service:auth");
  assert.equal(withFilter("", "service", "auth", true), "*:* -service:auth");
});
