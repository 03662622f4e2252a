// The check's tests: plain JavaScript on the compiled output (out/),
// run by node's own test runner.
const test = require("node:test");
const assert = require("node:assert/strict");
const users = require("../out/src/users.js");
const { hello } = require("../out/src/greet.js");

test("getUser", () => {
  assert.equal(users.getUser(1).name, "Ada");
  assert.equal(users.getUser(9), undefined);
  assert.equal(users.getUsr, undefined, "the old name is still exported");
});

test("hello", () => {
  assert.equal(hello(2), "Hello, Linus");
  assert.equal(hello(3), "Hello, stranger");
});
