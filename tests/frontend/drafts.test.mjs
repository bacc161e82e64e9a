// Drafts kept in step with the server (static/src/drafts.js): one save once typing pauses, on the revision
// last seen; what another tab or device saved, told; a busy server tried again, a refusal not; and what
// older versions left in the browser, handed to an anonymous learner's page only and removed either way.
import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";
import { DraftSync, legacyDrafts } from "../../static/src/drafts.js";

let sent;
let answers;

/** A fetch that records each request and gives the next of `answers` (an object: its JSON; a number: a status). */
function fakeFetch(url, options) {
  sent.push({ url, method: options?.method, body: options?.body ? JSON.parse(options.body) : null });
  const answer = answers.shift() ?? 200;
  if (answer instanceof Error) return Promise.reject(answer);
  const status = typeof answer === "number" ? answer : 200;
  const body = typeof answer === "number" ? { error: { message: `refused with ${answer}` } } : answer;
  return Promise.resolve({
    ok: status < 400,
    status,
    statusText: "",
    headers: { get: (name) => (name === "Retry-After" && status === 503 ? "3" : null) },
    json: () => Promise.resolve(body),
  });
}

/** Let every pending promise run (the fetch and its answer). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function draft({ revision = 0, source = "given", elsewhere = [] } = {}) {
  const status = { dataset: {}, textContent: "", title: "" };
  const sync = new DraftSync({
    url: "/api/exercises/kv/drafts/code",
    owner: "me",
    opening: { text: "starter", source, revision, saved_at: source === "draft" ? "2026-12-01T10:00:00Z" : null },
    status,
    onElsewhere: (other, replaced) => elsewhere.push({ other, replaced }),
  });
  return { sync, status };
}

beforeEach(() => {
  sent = [];
  answers = [];
  globalThis.fetch = /** @type {any} */ (fakeFetch);
  mock.timers.enable({ apis: ["setTimeout"] });
});

afterEach(() => {
  mock.timers.reset();
});

test("typing is saved once it pauses, as one save on the revision last seen, and then says Saved", async () => {
  const { sync, status } = draft({ revision: 4, source: "draft" });
  assert.equal(status.textContent, "Saved");
  sync.changed("a");
  sync.changed("ab");
  assert.equal(status.textContent, "Saving…");
  mock.timers.tick(799);
  assert.equal(sent.length, 0);
  answers.push({ revision: 5, saved_at: "2026-12-01T10:01:00Z", replaced: null });
  mock.timers.tick(1);
  await settle();
  assert.deepEqual(sent, [{ url: "/api/exercises/kv/drafts/code", method: "PUT", body: { text: "ab", base: 4, owner: "me" } }]);
  assert.equal(status.textContent, "Saved");
  assert.equal(status.dataset.state, "saved");
  assert.equal(sync.revision, 5);
  assert.equal(sync.unsaved, false);
});

test("an editor opened with the passing code or the starter says so, or nothing", () => {
  assert.equal(draft({ source: "solved" }).status.textContent, "Your passing code");
  assert.equal(draft({ source: "last run" }).status.textContent, "Your last run's code");
  assert.equal(draft({ source: "given" }).status.textContent, "");
});

test("a save that replaced another tab's or device's later one says so, unless that was the same text", async () => {
  const elsewhere = [];
  const { sync } = draft({ revision: 1, elsewhere });
  const other = { text: "from the desktop", revision: 2, saved_at: "2026-12-01T10:00:00Z" };
  answers.push({ revision: 3, saved_at: "2026-12-01T10:02:00Z", replaced: other });
  sync.changed("from the laptop");
  await sync.flush();
  assert.deepEqual(elsewhere, [{ other, replaced: true }]);
  answers.push({ revision: 5, saved_at: "2026-12-01T10:03:00Z", replaced: { ...other, text: "same", revision: 4 } });
  sync.changed("same");
  await sync.flush();
  assert.equal(elsewhere.length, 1);
});

test("a later save made elsewhere is offered when the page looks again; the same text is only taken as seen", () => {
  const elsewhere = [];
  const { sync } = draft({ revision: 2, elsewhere });
  sync.compare(null);
  sync.compare({ text: "older", revision: 2, saved_at: "2026-12-01T10:00:00Z" });
  assert.equal(elsewhere.length, 0);
  sync.compare({ text: "starter", revision: 3, saved_at: "2026-12-01T10:00:00Z" });
  assert.equal(elsewhere.length, 0);
  assert.equal(sync.revision, 3);
  const newer = { text: "newer", revision: 4, saved_at: "2026-12-01T10:00:00Z" };
  sync.compare(newer);
  assert.deepEqual(elsewhere, [{ other: newer, replaced: false }]);
  sync.seen(newer);
  assert.equal(sync.revision, 4); // the next save replaces it knowingly
});

test("a busy or unreachable server is tried again; a refusal waits for the next change", async () => {
  const { sync, status } = draft();
  answers.push(503);
  sync.changed("x");
  await sync.flush();
  assert.equal(status.dataset.state, "failed");
  assert.equal(status.textContent, "Not saved: refused with 503");
  assert.equal(sync.stuck, true);
  answers.push(new TypeError("Failed to fetch"));
  mock.timers.tick(3000); // the Retry-After of the 503
  await settle();
  assert.equal(sent.length, 2);
  assert.equal(status.textContent, "Not saved: the server cannot be reached. Trying again…");
  answers.push({ revision: 1, saved_at: "2026-12-01T10:00:00Z", replaced: null });
  mock.timers.tick(5000);
  await settle();
  assert.equal(sent.length, 3);
  assert.deepEqual(sent.map((s) => s.body.text), ["x", "x", "x"]);
  assert.equal(status.textContent, "Saved");

  answers.push(409);
  sync.changed("y");
  await sync.flush();
  assert.equal(status.textContent, "Not saved: refused with 409");
  mock.timers.tick(60_000);
  await settle();
  assert.equal(sent.length, 4); // not sent again by itself
  assert.equal(sync.unsaved, true);
});

/** A localStorage holding `items`. */
function storage(items) {
  const map = new Map(Object.entries(items));
  return {
    get length() {
      return map.size;
    },
    key: (n) => [...map.keys()][n] ?? null,
    getItem: (key) => map.get(key) ?? null,
    removeItem: (key) => map.delete(key),
    keys: () => [...map.keys()],
  };
}

test("what older versions left in the browser goes to an anonymous page only, and is removed either way", () => {
  const left = { "mlkata:draft:kv": "# left", "mlkata:try:kv": "f(1)", "mlkata:draft:other": "x", "mlkata:prefs": "{}" };
  globalThis.localStorage = /** @type {any} */ (storage(left));
  assert.deepEqual(legacyDrafts("kv", true), { code: "# left", inputs: "f(1)" });
  assert.deepEqual(/** @type {any} */ (localStorage).keys(), ["mlkata:draft:other", "mlkata:prefs"]);

  globalThis.localStorage = /** @type {any} */ (storage(left));
  assert.deepEqual(legacyDrafts("kv", false), {});
  assert.deepEqual(/** @type {any} */ (localStorage).keys(), ["mlkata:prefs"]); // an account's page removes them all
});
