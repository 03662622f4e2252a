// The check's tests: plain JavaScript on the compiled output (out/),
// run by node's own test runner.
const test = require("node:test");
const assert = require("node:assert/strict");
const d = require("../out/src/durations.js");

test("formatDuration", () => {
  assert.equal(typeof d.formatDuration, "function", "formatDuration is not exported");
  assert.equal(d.formatDuration(125), "2:05");
  assert.equal(d.formatDuration(0), "0:00");
  assert.equal(d.formatDuration(3600), "60:00");
});

test("descriptions unchanged", () => {
  assert.equal(d.describeTask("build", 61), "build took 1:01");
  assert.equal(d.describeTotal([30, 45]), "total 1:15");
});
