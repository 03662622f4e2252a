// The check's tests: plain JavaScript on the compiled output (out/),
// run by node's own test runner.
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadAll } = require("../out/src/loader.js");

const later = (ms, v) => new Promise((resolve) => setTimeout(() => resolve(v), ms));

test("loadAll waits, in key order", async () => {
  const got = await loadAll(["a", "b", "c"], (k) => later(k === "a" ? 30 : 1, k.toUpperCase()));
  assert.deepEqual(got, ["A", "B", "C"]);
  assert.deepEqual(await loadAll([], (k) => later(1, k)), []);
});
