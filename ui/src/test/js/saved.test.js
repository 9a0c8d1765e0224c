import assert from "node:assert/strict";
import { test } from "node:test";
import { describe, savedIdOf, shareLink } from "../../main/resources/ui/saved.js";

test("a link opens a saved search only when it names one and nothing else", () => {
  assert.equal(savedIdOf("#saved=abcdefghijklmnop"), "abcdefghijklmnop");
  assert.equal(savedIdOf("saved=abcdefghij234567"), "abcdefghij234567");
  assert.equal(savedIdOf("#saved=ABCDEFGHIJKLMNOP"), null);
  assert.equal(savedIdOf("#saved=abc"), null);
  assert.equal(savedIdOf("#saved=abcdefghijklmnop&q=x"), null);
  assert.equal(savedIdOf("#q=saved%3Dabcdefghijklmnop"), null);
  assert.equal(savedIdOf(""), null);
});

test("the share link is the page's own address with the id in the fragment", () => {
  assert.equal(shareLink("https://logs.example", "/", "abcdefghijklmnop"), "https://logs.example/#saved=abcdefghijklmnop");
});

test("a saved state is described by its query and range", () => {
  assert.equal(describe("q=level%3AERROR&range=now-1h"), "level:ERROR · now-1h");
  assert.equal(describe("from=2026-12-01T10:00:00Z&to=2026-12-01T11:00:00Z"),
    "everything · 2026-12-01T10:00:00Z → 2026-12-01T11:00:00Z");
  assert.equal(describe("q=%7Bservice%3D%22a%22%7D&lang=logql"), "{service=\"a\"} · now-15m · LogQL");
});
