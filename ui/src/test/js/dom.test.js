import assert from "node:assert/strict";
import { test } from "node:test";
import { bidiSegments } from "../../main/resources/ui/dom.js";

test("bidirectional controls are cut out of the text and named", () => {
  assert.deepEqual(bidiSegments("user \u202Eevil\u202C"), [
    { text: "user " }, { code: "202E", name: "RIGHT-TO-LEFT OVERRIDE" }, { text: "evil" },
    { code: "202C", name: "POP DIRECTIONAL FORMATTING" }]);
  assert.deepEqual(bidiSegments(""), [{ text: "" }]);
});
