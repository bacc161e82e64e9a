// The workbench's layout: on wide screens two panes side by side with a draggable divider, and a
// console under the editor whose height is draggable too (both remembered); on phones, Statement /
// Code / Results tabs with the Run bar kept on screen.
import { byId } from "./dom.js";
import { pref, setPref } from "./prefs.js";

const PHONE = window.matchMedia("(max-width: 899px)");

/**
 * A separator that resizes a pane: dragged with a pointer, or moved with the arrow keys.
 * @param {HTMLElement} divider
 * @param {{name: string, initial: number, min: number, max: number, apply: (percent: number) => void, measure: (event: PointerEvent) => number}} options
 */
function resizer(divider, { name, initial, min, max, apply, measure }) {
  let value = clamp(pref(name, initial), min, max);
  const set = (next, remember) => {
    value = clamp(Math.round(next * 10) / 10, min, max);
    apply(value);
    divider.setAttribute("aria-valuenow", String(Math.round(value)));
    if (remember) setPref(name, value);
  };
  set(value, false);
  divider.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    divider.setPointerCapture(event.pointerId);
    divider.dataset.dragging = "";
    const move = (e) => set(measure(e), false);
    const up = () => {
      divider.removeEventListener("pointermove", move);
      divider.removeEventListener("pointerup", up);
      divider.removeEventListener("pointercancel", up);
      delete divider.dataset.dragging;
      setPref(name, value);
    };
    divider.addEventListener("pointermove", move);
    divider.addEventListener("pointerup", up);
    divider.addEventListener("pointercancel", up);
  });
  divider.addEventListener("keydown", (event) => {
    const step = event.shiftKey ? 10 : 2;
    const moves = { ArrowLeft: -step, ArrowUp: -step, ArrowRight: step, ArrowDown: step };
    if (event.key in moves) set(value + moves[event.key], true);
    else if (event.key === "Home") set(min, true);
    else if (event.key === "End") set(max, true);
    else return;
    event.preventDefault();
  });
  divider.addEventListener("dblclick", () => set(initial, true));
}

function clamp(value, min, max) {
  return Math.min(Math.max(Number(value) || min, min), max);
}

/** Tabs in a tablist: click or arrow keys select one, showing its panel and hiding the others. */
export function tabs(list, onSelect) {
  const all = [...list.querySelectorAll('[role="tab"]')];
  const select = (tab, focus = false) => {
    for (const other of all) {
      const selected = other === tab;
      other.setAttribute("aria-selected", String(selected));
      other.tabIndex = selected ? 0 : -1;
    }
    if (focus) tab.focus();
    onSelect(tab);
  };
  list.addEventListener("click", (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) select(tab);
  });
  list.addEventListener("keydown", (event) => {
    const index = all.indexOf(document.activeElement);
    if (index < 0) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
    let next = null;
    if (event.key in moves) next = all[(index + moves[event.key] + all.length) % all.length];
    else if (event.key === "Home") next = all[0];
    else if (event.key === "End") next = all[all.length - 1];
    if (!next) return;
    event.preventDefault();
    select(next, true);
  });
  return { select: (id) => select(all.find((tab) => tab.id === id) ?? all[0]) };
}

export class Layout {
  constructor() {
    /** Told the id of the console tab selected. @type {((id: string) => void) | undefined} */
    this.onConsoleTab = undefined;
    this.workspace = byId("workspace");
    this.work = byId("work-pane");
    this.paneTabs = byId("pane-tabs");
    this.panes = { statement: byId("pane-statement"), code: byId("pane-code"), results: byId("pane-results") };
    resizer(byId("split-divider"), {
      name: "statementWidth", initial: 42, min: 20, max: 75,
      apply: (percent) => this.workspace.style.setProperty("--statement-width", `${percent}%`),
      measure: (event) => {
        const box = this.workspace.getBoundingClientRect();
        return ((event.clientX - box.left) / box.width) * 100;
      },
    });
    resizer(byId("console-divider"), {
      name: "consoleHeight", initial: 42, min: 15, max: 80,
      apply: (percent) => this.work.style.setProperty("--console-height", `${percent}%`),
      measure: (event) => {
        const box = this.work.getBoundingClientRect();
        return ((box.bottom - event.clientY) / box.height) * 100;
      },
    });
    this.phoneTabs = tabs(this.paneTabs, (tab) => this.showPane(tab.dataset.pane));
    this.consoleTabs = tabs(byId("pane-results").querySelector('[role="tablist"]'), (tab) => {
      for (const other of byId("pane-results").querySelectorAll('[role="tab"]')) {
        byId(other.getAttribute("aria-controls")).hidden = other !== tab;
      }
      this.onConsoleTab?.(tab.id);
    });
    this.adapt();
    PHONE.addEventListener("change", () => this.adapt());
    const topbar = /** @type {HTMLElement | null} */ (document.querySelector(".topbar"));
    const measure = () => document.documentElement.style.setProperty("--topbar-height", `${topbar?.offsetHeight ?? 0}px`);
    measure();
    window.addEventListener("resize", measure);
  }

  get phone() {
    return PHONE.matches;
  }

  /** Roles follow the layout: the three panes are tab panels only while the phone's tabs show. */
  adapt() {
    for (const [name, pane] of Object.entries(this.panes)) {
      if (this.phone) {
        pane.setAttribute("role", "tabpanel");
        pane.setAttribute("aria-labelledby", `tab-${name}`);
      } else {
        pane.removeAttribute("role");
        if (name !== "statement") pane.removeAttribute("aria-labelledby");
        else pane.setAttribute("aria-labelledby", "exercise-title");
      }
    }
    if (this.phone && !this.workspace.dataset.pane) this.showPane("statement");
  }

  /** @param {"statement" | "code" | "results"} name */
  showPane(name) {
    this.workspace.dataset.pane = name;
    const tab = this.paneTabs.querySelector(`[data-pane="${name}"]`);
    for (const other of /** @type {NodeListOf<HTMLElement>} */ (this.paneTabs.querySelectorAll('[role="tab"]'))) {
      other.setAttribute("aria-selected", String(other === tab));
      other.tabIndex = other === tab ? 0 : -1;
    }
  }

  /** Bring the results into view: on a phone its tab, anywhere the Results panel of the console. */
  showResults() {
    this.consoleTabs.select("ctab-results");
    if (this.phone) this.showPane("results");
  }

  showConsole(id) {
    this.consoleTabs.select(id);
    if (this.phone) this.showPane("results");
  }
}
