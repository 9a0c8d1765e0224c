import assert from "node:assert/strict";
import { test } from "node:test";
import { apiUrl, errorMessage, errorPosition, refusedFor, segment } from "../../main/resources/ui/api.js";

test("an error's message is read from each shape the API answers", () => {
  assert.equal(errorMessage({ error: "bad" }), "bad");
  assert.equal(errorMessage({ error: { message: "worse" } }), "worse");
  assert.equal(errorMessage({ message: "plain" }), "plain");
  assert.equal(errorMessage(null), "");
});

test("an error's position is an offset, or a 1-based column made 0-based", () => {
  assert.equal(errorPosition({ position: 7 }), 7);
  assert.equal(errorPosition({ error: { position: { offset: 3 } } }), 3);
  assert.equal(errorPosition({ position: { column: 1 } }), 0);
  assert.equal(errorPosition({ error: "no position" }), null);
});

test("a path segment from data is encoded and can never be a path step", () => {
  assert.equal(segment("a/b c"), "a%2Fb%20c");
  assert.throws(() => segment(".."));
  assert.throws(() => segment("."));
});

test("a 429 says which limit it was and when to retry", () => {
  assert.match(refusedFor({ reason: "tenant_concurrency" }, "3"), /Too many queries at once.*retry in 3 s/);
  assert.match(refusedFor({ reason: "tail_tenant_cap" }, null), /live tails.*retry in a few s/);
  assert.match(refusedFor({ reason: "new_one" }, "1"), /\(new_one\)/);
});

test("empty parameters stay out of an API URL", () => {
  const u = apiUrl("/api/v1/search", { q: "", limit: 100, cursor: null, from: "now-1h" }, "http://127.0.0.1:7070");
  assert.equal(u.search, "?limit=100&from=now-1h");
});
