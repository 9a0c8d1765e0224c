import assert from "node:assert/strict";
import { test } from "node:test";
import { countRecords, exportColumns, exportedText, fileName } from "../../main/resources/ui/export.js";

test("a CSV export has time and level, the shown columns, then the message, each once", () => {
  assert.deepEqual(exportColumns(["service"]), ["event_time", "level", "service", "message"]);
  assert.deepEqual(exportColumns(["level", "fields.took_ms", "message"]), ["event_time", "level", "fields.took_ms", "message"]);
});

test("records are counted by NDJSON line, or by CSV row after the header with quoted line breaks kept", () => {
  assert.equal(countRecords('{"a":1}\n{"a":2}\n', "ndjson"), 2);
  assert.equal(countRecords("", "ndjson"), 0);
  assert.equal(countRecords('t,m\r\n1,"two\nlines ""quoted"""\r\n2,x\r\n', "csv"), 2);
  assert.equal(countRecords("t,m\r\n", "csv"), 0);
});

test("an export that reached the limit says only the first records were exported", () => {
  assert.equal(exportedText(12, 10000, "csv"), "Exported 12 record(s) as CSV");
  assert.match(exportedText(10000, 10000, "ndjson"), /^Exported 10,000 record\(s\) as NDJSON: the first 10,000 only/);
});

test("the server's file name is used when it proposes one", () => {
  assert.equal(fileName('attachment; filename="logpipe-acme-2026.csv"', "csv"), "logpipe-acme-2026.csv");
  assert.equal(fileName(null, "ndjson"), "logpipe-export.ndjson");
});
