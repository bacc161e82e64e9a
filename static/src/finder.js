// The roadmap's search and filters as plain data: which exercises pass them, and the page's URL that keeps them.
//
// A search matches an exercise when each of its words is found in the title, the slug, a tag or a
// function name (case aside), so "kv cache" finds "kv-cache" and "attend_step" the exercise that asks
// for it. Every filter is one value of the URL's query (?q=…&section=…&difficulty=…&tag=…&status=…).

/** The filters, in the order the URL lists them. */
export const FILTERS = /** @type {const} */ (["q", "section", "difficulty", "tag", "status"]);

/** @typedef {{q: string, section: string, difficulty: string, tag: string, status: string}} Filters */
/**
 * @typedef {object} Entry
 * @property {string} title
 * @property {string} slug
 * @property {string} section
 * @property {string} difficulty
 * @property {string[]} tags
 * @property {string[]} functions
 * @property {string} status "solved", "attempted", "not-started" (or "broken": an exercise that does not load)
 */

/** @param {URLSearchParams} params @returns {Filters} */
export function readFilters(params) {
  const filters = /** @type {Filters} */ ({});
  for (const name of FILTERS) filters[name] = (params.get(name) ?? "").trim();
  return filters;
}

/** The query string that keeps `filters` ("" with none set): what follows the path in the URL. */
export function filterQuery(filters) {
  const params = new URLSearchParams();
  for (const name of FILTERS) if (filters[name]) params.set(name, filters[name]);
  const query = params.toString();
  return query ? `?${query}` : "";
}

/** @param {Filters} filters */
export function isFiltered(filters) {
  return FILTERS.some((name) => filters[name] !== "");
}

/** A search's words, in lower case. @param {string} text */
export function words(text) {
  return text.toLowerCase().split(/\s+/).filter(Boolean);
}

/** @param {Entry} entry @returns {string[]} what a search looks in, lower case */
function haystack(entry) {
  return [entry.title, entry.slug, ...entry.tags].map((text) => text.toLowerCase());
}

/** Whether `entry` passes every filter that is set. @param {Entry} entry @param {Filters} filters */
export function matches(entry, filters) {
  if (filters.section && entry.section !== filters.section) return false;
  if (filters.difficulty && entry.difficulty !== filters.difficulty) return false;
  if (filters.tag && !entry.tags.includes(filters.tag)) return false;
  if (filters.status && entry.status !== filters.status) return false;
  const seen = [...haystack(entry), ...entry.functions.map((name) => name.toLowerCase())];
  return words(filters.q).every((word) => seen.some((text) => text.includes(word)));
}

/**
 * The functions that a search found and nothing the card shows did: the card names them, so that a
 * match on a name it does not show is not a mystery.
 * @param {Entry} entry @param {string} q
 */
export function functionsFound(entry, q) {
  const shown = haystack(entry);
  const hidden = words(q).filter((word) => !shown.some((text) => text.includes(word)));
  return entry.functions.filter((name) => hidden.some((word) => name.toLowerCase().includes(word)));
}
