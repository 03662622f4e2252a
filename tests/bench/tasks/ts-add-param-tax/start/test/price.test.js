// The check's tests: plain JavaScript on the compiled output (out/),
// run by node's own test runner.
const test = require("node:test");
const assert = require("node:assert/strict");
const { total } = require("../out/src/price.js");
const { checkout } = require("../out/src/cart.js");

test("total with tax", () => {
  assert.equal(total([{ price: 10, qty: 2 }], 0.5), 30);
  assert.equal(total([], 0.2), 0);
});

test("checkout passes the tax rate", () => {
  assert.equal(checkout({ items: [{ price: 10, qty: 2 }], taxRate: 0.1 }), "due: 22.00");
});
