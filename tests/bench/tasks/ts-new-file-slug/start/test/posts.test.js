// The check's tests: plain JavaScript on the compiled output (out/),
// run by node's own test runner.
const test = require("node:test");
const assert = require("node:assert/strict");
const lib = require("../out/src/index.js");

test("slugify", () => {
  assert.equal(typeof lib.slugify, "function", "slugify is not exported from src/index.ts");
  assert.equal(lib.slugify("Hello, World!"), "hello-world");
  assert.equal(lib.slugify("  TS 5.9  "), "ts-5-9");
});

test("makePost uses the slug", () => {
  assert.deepEqual(lib.makePost("A  B"), { title: "A  B", slug: "a-b" });
});
