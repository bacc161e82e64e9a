// Settings remembered in the browser (static/src/prefs.js) and the history's times (static/src/history.js).
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { relativeTime } from "../../static/src/history.js";
import { pref, setPref } from "../../static/src/prefs.js";

/** A localStorage of a Map; `broken` throws on every use, as a browser with storage turned off. */
function storage({ broken = false } = {}) {
  const items = new Map();
  const refuse = () => {
    if (broken) throw new Error("SecurityError");
  };
  return {
    getItem: (key) => {
      refuse();
      return items.get(key) ?? null;
    },
    setItem: (key, value) => {
      refuse();
      items.set(key, String(value));
    },
  };
}

beforeEach(() => {
  globalThis.localStorage = storage();
});

test("a setting comes back as it was set, the fallback when unset", () => {
  assert.equal(pref("fontSize", 14), 14);
  setPref("fontSize", 16);
  setPref("wrap", true);
  assert.equal(pref("fontSize", 14), 16);
  assert.equal(pref("wrap", false), true);
});

test("a setting of another type than its fallback, or unreadable storage, gives the fallback", () => {
  setPref("fontSize", "huge");
  assert.equal(pref("fontSize", 14), 14);
  localStorage.setItem("mlkata:prefs", "{not json");
  assert.equal(pref("fontSize", 14), 14);
  localStorage.setItem("mlkata:prefs", "null");
  assert.equal(pref("fontSize", 14), 14);
});

test("with storage turned off nothing is kept and nothing fails", () => {
  globalThis.localStorage = storage({ broken: true });
  setPref("fontSize", 16);
  assert.equal(pref("fontSize", 14), 14);
});

test("relativeTime: just now, minutes, hours, then the date", () => {
  const ago = (seconds) => new Date(Date.now() - seconds * 1000);
  assert.equal(relativeTime(ago(5)), "just now");
  assert.equal(relativeTime(ago(-30)), "just now", "a clock a little ahead");
  assert.equal(relativeTime(ago(150)), "2 min ago");
  assert.equal(relativeTime(ago(3 * 3600 + 5)), "3 h ago");
  const old = ago(3 * 86400);
  assert.equal(relativeTime(old), old.toLocaleDateString());
});
