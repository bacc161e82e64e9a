// The roadmap page: its search and filters applied as they change, without reloading, and kept in the
// page's URL (replaced, not pushed: Back leaves the roadmap rather than undoing a filter). A link with
// filters opens the roadmap filtered, scrolled to the list; "/" focuses the search box, as on GitHub. (Nothing of the exercise
// page's modules is imported: a chunk shared with it would cost that page a request.)
import { FILTERS, filterQuery, functionsFound, isFiltered, matches, readFilters } from "./finder.js";

const form = /** @type {HTMLFormElement | null} */ (document.getElementById("finder"));
if (form) start(form);

/** @param {string} id */
function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from the page`);
  return node;
}

/** @param {HTMLFormElement} form */
function start(form) {
  const items = Array.from(document.querySelectorAll("[data-finder-item]"), (node) => {
    const li = /** @type {HTMLElement} */ (node);
    const data = li.dataset;
    /** @type {import("./finder.js").Entry} */
    const entry = {
      title: li.querySelector(".card-title")?.textContent ?? "",
      slug: data.slug ?? "",
      section: data.section ?? "",
      difficulty: data.difficulty ?? "",
      tags: JSON.parse(data.tags ?? "[]"),
      functions: JSON.parse(data.functions ?? "[]"),
      status: data.status ?? "",
    };
    return { li, entry, note: /** @type {HTMLElement | null} */ (li.querySelector(".match-note")) };
  });
  const groups = Array.from(document.querySelectorAll(".exercise-group"), (node) => /** @type {HTMLElement} */ (node));
  const count = byId("finder-count");
  const empty = byId("finder-empty");
  const clear = byId("finder-clear");
  const search = /** @type {HTMLInputElement} */ (byId("finder-q"));

  /** @param {string} name */
  const control = (name) => /** @type {HTMLInputElement | HTMLSelectElement} */ (form.elements.namedItem(name));

  /** @returns {import("./finder.js").Filters} */
  function current() {
    const params = new URLSearchParams();
    for (const name of FILTERS) params.set(name, control(name).value);
    return readFilters(params);
  }

  /** @param {import("./finder.js").Filters} filters */
  function show(filters) {
    let shown = 0;
    for (const { li, entry, note } of items) {
      const passes = matches(entry, filters);
      li.hidden = !passes;
      if (passes) shown += 1;
      const found = passes ? functionsFound(entry, filters.q) : [];
      if (note) {
        note.textContent = found.length ? `Asks for ${found.map((name) => `${name}()`).join(", ")}` : "";
        note.hidden = found.length === 0;
      }
    }
    for (const group of groups) group.hidden = !group.querySelector("[data-finder-item]:not([hidden])");
    const filtered = isFiltered(filters);
    count.textContent = filtered ? `${shown} of ${items.length} exercises` : `${items.length} exercises`;
    empty.hidden = shown > 0;
    clear.hidden = !filtered;
  }

  function update() {
    const filters = current();
    show(filters);
    const url = location.pathname + filterQuery(filters) + location.hash;
    if (url !== location.pathname + location.search + location.hash) history.replaceState(history.state, "", url);
  }

  /** The filters the URL names; a value none of the choices has (a section renamed since) is left out. */
  function load() {
    const filters = readFilters(new URLSearchParams(location.search));
    for (const name of FILTERS) {
      const field = control(name);
      field.value = filters[name];
      if (field.value !== filters[name]) field.value = "";
    }
    update();
  }

  function clearAll() {
    for (const name of FILTERS) control(name).value = "";
    update();
    search.focus();
  }

  form.addEventListener("input", update);
  form.addEventListener("submit", (event) => {
    event.preventDefault(); // Enter in the search box: the list is already filtered
    update();
  });
  clear.addEventListener("click", (event) => {
    event.preventDefault(); // a reset button without script; with it, one update after clearing
    clearAll();
  });
  byId("finder-empty-clear").addEventListener("click", clearAll);
  window.addEventListener("popstate", load);
  document.addEventListener("keydown", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const typing = target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
    if (event.key !== "/" || typing || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    search.focus();
    search.select();
  });
  load();
  // Followed from a link with filters: show the list they made. (A reload or Back keeps where the page was.)
  const navigation = /** @type {PerformanceNavigationTiming | undefined} */ (performance.getEntriesByType("navigation")[0]);
  if (isFiltered(current()) && !location.hash && navigation?.type === "navigate") {
    byId("exercises-title").scrollIntoView();
  }
}
