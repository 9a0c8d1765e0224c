import assert from "node:assert/strict";
import { test } from "node:test";
import { completions, lastWordStart } from "../../main/resources/ui/autocomplete.js";

const NAMES = ["service", "severity", "level", "fields.took_ms", "fields.http/path"];
const VALUES = { service: ["payments", "api-gateway", "auth service"], level: ["ERROR", "WARN"] };
const valuesOf = (n) => VALUES[n];

test("the word being typed starts after the last space outside quotes", () => {
  assert.equal(lastWordStart("level:ERROR serv"), 12);
  assert.equal(lastWordStart('message:"a b'), 0);
  assert.equal(lastWordStart(""), 0);
});

test("a word completes to the field names it starts, the query before it kept", () => {
  assert.deepEqual(completions("level:ERROR AND se", NAMES, valuesOf),
    ["level:ERROR AND service:", "level:ERROR AND severity:"]);
  assert.deepEqual(completions("-lev", NAMES, valuesOf), ["-level:"]);
  assert.deepEqual(completions("fields.http", NAMES, valuesOf), ["fields.http\\/path:"]);
});

test("after field: the word completes to the field's values, quoted when the syntax needs it", () => {
  assert.deepEqual(completions("service:pa", NAMES, valuesOf), ["service:payments"]);
  assert.deepEqual(completions("level:WARN service:", NAMES, valuesOf),
    ["level:WARN service:payments", "level:WARN service:api-gateway", 'level:WARN service:"auth service"']);
  assert.deepEqual(completions("service:\"au", NAMES, valuesOf), ['service:"auth service"']);
});

test("nothing is offered for an operator, an empty word, a complete query or an unknown field", () => {
  assert.deepEqual(completions("level:ERROR AND", NAMES, valuesOf), []);
  assert.deepEqual(completions("level:ERROR ", NAMES, valuesOf), []);
  assert.deepEqual(completions("service:payments", NAMES, valuesOf), []);
  assert.deepEqual(completions("nosuch:x", NAMES, valuesOf), []);
});
