// The pure functions of the results panel, the history and the DOM helpers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatMs } from "../../static/src/dom.js";
import { marksOf } from "../../static/src/results.js";

test("formatMs: milliseconds under a second, seconds past it, nothing for no time", () => {
  assert.equal(formatMs(12.4), "12 ms");
  assert.equal(formatMs(999.6), "1000 ms");
  assert.equal(formatMs(1000), "1.00 s");
  assert.equal(formatMs(2345), "2.35 s");
  assert.equal(formatMs(null), "");
  assert.equal(formatMs(undefined), "");
});

test("marksOf: where the run failed, then each check that points at a line", () => {
  const result = {
    message: "NameError: x",
    location: { line: 3, column: 5 },
    tests: [
      { name: "shape", message: "wrong shape", location: { line: 7 } },
      { name: "values", message: "wrong values" },
      { name: "dtype", location: { line: 9 } },
    ],
  };
  assert.deepEqual(marksOf(result), [
    { line: 3, column: 5, message: "NameError: x" },
    { line: 7, message: "shape:\nwrong shape" },
    { line: 9, message: "dtype:\n" },
  ]);
});

test("marksOf: nothing for a result without lines", () => {
  assert.deepEqual(marksOf({}), []);
  assert.deepEqual(marksOf({ location: {}, tests: [{ name: "a", location: null }] }), []);
});
