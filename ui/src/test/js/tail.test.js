import assert from "node:assert/strict";
import { test } from "node:test";
import { splitEvents } from "../../main/resources/ui/tail.js";

test("complete events are split off, a partial one is kept for the next chunk", () => {
  const { events, rest } = splitEvents('event: skipped\ndata: {"skipped":2}\n\ndata: {"a":\ndata: 1}\n\ndata: par');
  assert.deepEqual(events, [{ type: "skipped", data: '{"skipped":2}' }, { type: "record", data: '{"a":\n1}' }]);
  assert.equal(rest, "data: par");
});
