// The pure functions of the results panel (and what it says once), the history and the DOM helpers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatMs } from "../../static/src/dom.js";
import { marksOf } from "../../static/src/results.js";
import { ownMessage, sharedFailures, summaryOf } from "../../static/src/said-once.js";

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

// A starter's run: attend_step raises in three checks (the first hidden), kv_cache_bytes in one.
const TRACEBACK = 'attend_step() raised NotImplementedError: write it (solution.py, line 12)\n  File "solution.py", line 12';
const HIDDEN = "attend_step() raised NotImplementedError on line 12 of solution.py (its message is not shown: this check is hidden).";
const STARTER = [
  { id: "shape", name: "shape", public: false, message: HIDDEN, location: { line: 12 }, same_as: null },
  { id: "example", name: "example", public: true, message: TRACEBACK, location: { line: 12 }, same_as: "shape" },
  { id: "cache", name: "cache", public: false, message: HIDDEN, location: { line: 12 }, same_as: "shape" },
  { id: "bytes", name: "bytes", public: true, message: "kv_cache_bytes() raised NotImplementedError", location: { line: 17 }, same_as: null },
];

test("sharedFailures: one failure per first check, said with a public check's traceback, listing its checks", () => {
  const [failure, ...others] = sharedFailures(STARTER);
  assert.deepEqual(others, []);
  assert.equal(failure.id, "shape");
  assert.equal(failure.message, TRACEBACK);
  assert.deepEqual(failure.location, { line: 12 });
  assert.deepEqual(failure.checks.map((check) => check.id), ["shape", "example", "cache"]);
});

test("sharedFailures: a check alone is no shared failure, and checks not finished yet are skipped", () => {
  assert.deepEqual(sharedFailures([STARTER[3]]), []);
  assert.deepEqual(sharedFailures([STARTER[0], undefined, STARTER[2]]).map((f) => f.checks.length), [2]);
  assert.deepEqual(sharedFailures([]), []);
});

test("marksOf: a failure several checks share is one mark on its line, not one per check", () => {
  assert.deepEqual(marksOf({ tests: STARTER }), [
    { line: 12, message: `3 checks failed this way:\n${TRACEBACK}` },
    { line: 17, message: "bytes:\nkv_cache_bytes() raised NotImplementedError" },
  ]);
});

test("summaryOf: counts, points and time; the likely mistake is not said again", () => {
  const failed = { status: "fail", message: "4 of 12 checks did not pass.", tests: [{}], points: 8, max_points: 13, duration_ms: 1660, mistake: { mistake: "Scores are not divided by √d." } };
  assert.equal(summaryOf(failed), "4 of 12 checks did not pass. · 8 / 13 points · total 1.66 s");
  // A result stored when the summary still named the mistake.
  const stored = { ...failed, message: "4 of 12 checks did not pass. Most likely mistake: Scores are not divided by √d." };
  assert.equal(summaryOf(stored), "4 of 12 checks did not pass. · 8 / 13 points · total 1.66 s");
});

test("summaryOf: a syntax error is left to the message below, whose caret drawing stays whole", () => {
  const syntax = { status: "error", reason: "syntax_error", message: "SyntaxError on line 3: expected ':'\n    def f()\n           ^", tests: [], points: 0, max_points: 13, duration_ms: 132 };
  assert.equal(summaryOf(syntax), "0 / 13 points · total 132 ms");
});

test("summaryOf: a run stopped before it ran says no time, never 0 ms", () => {
  const stopped = { status: "error", reason: "stopped", message: "Stopped: you stopped the run before it finished.", tests: [{}], points: 0, max_points: 13, duration_ms: 0 };
  assert.equal(summaryOf(stopped), "Stopped: you stopped the run before it finished. · 0 / 13 points");
  assert.match(summaryOf({ ...stopped, duration_ms: 2500 }), / · total 2.50 s$/);
});

test("ownMessage: a symptom's sentence an earlier check said is not said again; what differs always is", () => {
  const pattern = "Right on the first call, wrong on every later one: what changes after the first?";
  const first = { symptom: "first-call-only", message: `out (token 2 of 3) differs\n${pattern}` };
  const later = { symptom: "first-call-only", message: `out (token 2 of 5) differs\n${pattern}` };
  assert.equal(ownMessage(first, []), first.message);
  assert.equal(ownMessage(later, [first]), "out (token 2 of 5) differs");
  // Another symptom, or none, is its own.
  assert.equal(ownMessage({ ...later, symptom: "transpose" }, [first]), later.message);
  assert.equal(ownMessage({ message: "a\nb" }, [{ message: "c\nb" }]), "a\nb");
  assert.equal(ownMessage({ symptom: "x" }, []), "");
});
