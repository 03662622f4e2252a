// The check's tests: plain JavaScript on the compiled output (out/),
// run by node's own test runner.
const test = require("node:test");
const assert = require("node:assert/strict");
const { Stack } = require("../out/src/stack.js");
const { History } = require("../out/src/undo.js");

test("peek", () => {
  const s = new Stack();
  s.push(1);
  s.push(2);
  assert.equal(s.peek(), 2);
  assert.equal(s.peekTop, undefined, "the old name is still there");
});

test("history", () => {
  const h = new History();
  h.record("a");
  h.record("b");
  assert.equal(h.current(), "b");
  assert.equal(h.undo(), "a");
});
