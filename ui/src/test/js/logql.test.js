import assert from "node:assert/strict";
import { test } from "node:test";
import { nanos, seriesLines, streamHits } from "../../main/resources/ui/logql.js";

test("milliseconds become the API's nanosecond strings", () => {
  assert.equal(nanos(1765000000123), "1765000000123000000");
});

test("a streams answer becomes hits with the stream's labels, newest first or oldest first", () => {
  const data = {
    resultType: "streams",
    result: [
      { stream: { level: "ERROR", service: "api", status: "500" }, values: [["1765000002000000000", "b"]] },
      { stream: { level: "INFO", service: "web" }, values: [["1765000003000000000", "c"], ["1765000001000000000", "a"]] },
    ],
  };
  const hits = streamHits(data, "desc");
  assert.deepEqual(hits.map((h) => h.message), ["c", "b", "a"]);
  assert.equal(hits[1].level, "ERROR");
  assert.equal(hits[1].service, "api");
  assert.deepEqual(hits[1].fields, { status: "500" });
  assert.equal(hits[0].event_time, "2025-12-06T05:46:43.000Z");
  assert.deepEqual(streamHits(data, "asc").map((h) => h.message), ["a", "b", "c"]);
});

test("a metric answer's series read as their latest value", () => {
  const lines = seriesLines({
    resultType: "matrix",
    result: [{ metric: { level: "ERROR" }, values: [[1765000000, "3"], [1765000060, "5"]] }],
  });
  assert.deepEqual(lines, ['{level="ERROR"} = 5 at 2025-12-06T05:47:40.000Z']);
});
