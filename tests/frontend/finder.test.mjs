// The roadmap's search and filters (static/src/finder.js): what an exercise must match, and the URL that keeps them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { filterQuery, functionsFound, isFiltered, matches, readFilters } from "../../static/src/finder.js";

const KV = {
  title: "Decoding with a KV Cache",
  slug: "kv-cache-decoding",
  section: "efficient-inference-compression",
  difficulty: "medium",
  tags: ["inference", "attention"],
  functions: ["attend_step", "kv_cache_bytes"],
  status: "attempted",
};
const none = readFilters(new URLSearchParams());

/** @param {Record<string, string>} set */
const only = (set) => ({ ...none, ...set });

test("no filter lets everything through", () => {
  assert.deepEqual(none, { q: "", section: "", difficulty: "", tag: "", status: "" });
  assert.equal(isFiltered(none), false);
  assert.equal(matches(KV, none), true);
});

test("a search finds a title, a slug, a tag or a function name, whatever the case, each word anywhere", () => {
  for (const q of ["kv cache", "DECODING", "cache kv", "attention", "attend_step", "bytes", "kv-cache", " kv  "]) {
    assert.equal(matches(KV, only({ q })), true, q);
  }
  for (const q of ["kv paged", "softmax", "attend_steps"]) assert.equal(matches(KV, only({ q })), false, q);
});

test("each filter must match exactly, and all of them together", () => {
  assert.equal(matches(KV, only({ section: "efficient-inference-compression" })), true);
  assert.equal(matches(KV, only({ section: "serving-systems" })), false);
  assert.equal(matches(KV, only({ difficulty: "medium" })), true);
  assert.equal(matches(KV, only({ difficulty: "easy" })), false);
  assert.equal(matches(KV, only({ tag: "attention" })), true);
  assert.equal(matches(KV, only({ tag: "atten" })), false);
  assert.equal(matches(KV, only({ status: "attempted" })), true);
  assert.equal(matches(KV, only({ status: "solved" })), false);
  assert.equal(matches(KV, only({ q: "cache", tag: "inference", difficulty: "medium", status: "attempted" })), true);
  assert.equal(matches(KV, only({ q: "cache", tag: "inference", difficulty: "hard" })), false);
});

test("the functions a search found are named where nothing the card shows matched", () => {
  assert.deepEqual(functionsFound(KV, "attend"), ["attend_step"]);
  assert.deepEqual(functionsFound(KV, "bytes"), ["kv_cache_bytes"]);
  assert.deepEqual(functionsFound(KV, "kv cache"), []); // the title says it already
  assert.deepEqual(functionsFound(KV, ""), []);
});

test("filters go to the URL and come back from it, empty ones left out", () => {
  const filters = only({ q: "kv cache", tag: "linear algebra", status: "not-started" });
  const query = filterQuery(filters);
  assert.equal(query, "?q=kv+cache&tag=linear+algebra&status=not-started");
  assert.deepEqual(readFilters(new URLSearchParams(query)), filters);
  assert.equal(filterQuery(none), "");
  assert.equal(isFiltered(filters), true);
  assert.deepEqual(readFilters(new URLSearchParams("?q=%20x%20&other=1")), only({ q: "x" }));
});
