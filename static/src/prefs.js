// Settings remembered in this browser (pane sizes, editor options). Storage may be off: then nothing is kept.

const KEY = "mlkata:prefs";

function readAll() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

/** @template T @param {string} name @param {T} fallback @returns {T} */
export function pref(name, fallback) {
  const value = readAll()[name];
  return value === undefined || typeof value !== typeof fallback ? fallback : value;
}

/** @param {string} name @param {unknown} value */
export function setPref(name, value) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...readAll(), [name]: value }));
  } catch {
    // storage full or disabled
  }
}
