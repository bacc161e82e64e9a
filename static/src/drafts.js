// Drafts on the server: what you type in the editor and in "Try it" is saved a moment after you stop
// typing, for every browser you sign in on, and nothing of it stays in the browser. Last writer wins:
// a save counts even when another tab or device saved after this page last looked, and the page then
// says what it replaced; a newer save made elsewhere is offered when the page is looked at again.
import { byId } from "./dom.js";
import { errorMessage, getJson } from "./runs.js";

/** How long after the last change a draft is saved. */
const SAVE_AFTER_MS = 800;
/** Waits before saving again after the server could not be reached, or was busy. */
const RETRY_MS = [2000, 5000, 15000, 30000];
/** A request sent as the page goes away (keepalive) may carry at most 64 KiB. */
const KEEPALIVE_MAX = 60000;
/** Looking for saves made elsewhere: at most this often, when the page is shown or focused again. */
const LOOK_EVERY_MS = 1000;
/** Where older versions kept drafts in the browser, under the exercise's name alone. */
const LEGACY = { code: "mlkata:draft:", inputs: "mlkata:try:" };

/** What the status says of a text the page opened with, by where it came from (app.drafts.Source). */
const OPENED = { draft: "Saved", solved: "Your passing code", "last run": "Your last run's code", given: "" };

/**
 * @typedef {{text: string, revision: number, saved_at: string}} SavedDraft
 * @typedef {{text: string, source: string, revision: number, saved_at: string | null}} Opening
 */

/** One draft (the code, or the Try it inputs) kept in step with the server. */
export class DraftSync {
  /**
   * @param {{url: string, owner: string, opening: Opening, status: HTMLElement,
   *   onElsewhere: (other: SavedDraft, replaced: boolean) => void}} options
   */
  constructor({ url, owner, opening, status, onElsewhere }) {
    this.url = url;
    this.owner = owner;
    this.revision = opening.revision; // the server's revision this page last saw (0: none)
    this.status = status;
    this.onElsewhere = onElsewhere;
    this.current = opening.text; // the latest text typed
    this.pending = null; // text typed since the last save began
    this.saving = false;
    this.stuck = false; // the last save failed: what is typed is not on the server
    this.failures = 0;
    this.timer = 0;
    this.show(opening.source === "draft" ? "saved" : "idle", OPENED[opening.source] ?? "", opening.saved_at);
  }

  /** Whether some of what was typed is not saved yet. */
  get unsaved() {
    return this.pending !== null || this.saving;
  }

  /** The text changed: save it once typing pauses. */
  changed(text) {
    this.current = text;
    this.pending = text;
    this.stuck = false;
    this.show("saving", "Saving…");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save(), SAVE_AFTER_MS);
  }

  /** Save now what waits to be saved (as the page goes away: `keepalive`, and no answer awaited). */
  flush({ keepalive = false } = {}) {
    clearTimeout(this.timer);
    return this.save({ keepalive });
  }

  /** Another's save was shown to the learner: the next save replaces it knowingly. */
  seen(other) {
    this.revision = Math.max(this.revision, other.revision);
  }

  /** The draft as the server has it now (null: none). A later one saved elsewhere is offered, unless it is this text. */
  compare(server) {
    if (!server || server.revision <= this.revision || this.saving) return;
    if (server.text === this.current) this.revision = server.revision;
    else this.onElsewhere(server, false);
  }

  async save({ keepalive = false } = {}) {
    if (this.saving || this.pending === null) return;
    const text = this.pending;
    this.pending = null;
    this.saving = true;
    let retry = 0;
    try {
      const body = JSON.stringify({ text, base: this.revision, owner: this.owner });
      const response = await fetch(this.url, {
        method: "PUT",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body,
        keepalive: keepalive && body.length < KEEPALIVE_MAX,
      });
      if (response.ok) {
        const saved = await response.json();
        this.revision = saved.revision;
        this.failures = 0;
        if (saved.replaced && saved.replaced.text !== text) this.onElsewhere(saved.replaced, true);
        if (this.pending === null) this.show("saved", "Saved", saved.saved_at);
      } else {
        this.pending ??= text;
        this.stuck = true;
        // Busy or limited: the same text is sent again later. Refused (too large, signed out): it waits for the next change.
        if (response.status === 429 || response.status >= 500) retry = this.backoff(response);
        this.show("failed", `Not saved: ${await errorMessage(response)}`);
      }
    } catch {
      this.pending ??= text;
      this.stuck = true;
      retry = this.backoff(null);
      this.show("failed", "Not saved: the server cannot be reached. Trying again…");
    } finally {
      this.saving = false;
    }
    if (retry) this.timer = setTimeout(() => this.save(), retry);
    else if (this.pending !== null && !this.stuck) this.save(); // typed while this save was on its way
  }

  backoff(response) {
    const asked = Number(response?.headers.get("Retry-After"));
    const wait = asked > 0 ? asked * 1000 : RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
    this.failures += 1;
    return wait;
  }

  show(state, text, savedAt = null) {
    this.status.dataset.state = state;
    this.status.textContent = text;
    // The whole of a long message, which a narrow toolbar cuts short, or when it was saved.
    this.status.title = savedAt ? `Saved ${formatWhen(savedAt)}` : text;
  }
}

/** The notice that another tab or device saved this draft too, with what to do about it. */
export class DraftNotice {
  /**
   * @param {{id: string, what: string, sync: DraftSync, editor: {getText: () => string, setText: (text: string) => void},
   *   compare?: (text: string, title: string) => void}} options
   */
  constructor({ id, what, sync, editor, compare }) {
    this.box = byId(id);
    this.text = byId(`${id}-text`);
    this.what = what;
    this.sync = sync;
    this.other = null;
    this.replaced = false;
    byId(`${id}-use`).addEventListener("click", () => {
      const other = this.close();
      editor.setText(other.text); // one change: Ctrl/⌘+Z brings this page's text back
    });
    byId(`${id}-keep`).addEventListener("click", () => {
      const replaced = this.replaced;
      this.close();
      if (!replaced) {
        sync.changed(editor.getText());
        sync.flush();
      }
    });
    byId(`${id}-compare`, { optional: true })?.addEventListener("click", () => {
      const other = this.close();
      compare?.(other.text, `Saved elsewhere ${formatWhen(other.saved_at)}`);
    });
  }

  /** @param {SavedDraft} other @param {boolean} replaced whether this page's save already replaced it */
  show(other, replaced) {
    this.other = other;
    this.replaced = replaced;
    const when = formatWhen(other.saved_at);
    this.text.textContent = replaced
      ? `Another tab or device had saved ${this.what} ${when}, after this page last loaded it; what you typed here replaced it.`
      : `A newer version of ${this.what} was saved in another tab or on another device ${when}.`;
    this.box.hidden = false;
  }

  close() {
    const other = this.other;
    this.sync.seen(other);
    this.box.hidden = true;
    return other;
  }
}

/**
 * Look for saves made elsewhere when the page is shown or focused again, and save what waits as it goes away.
 * @param {{url: string, owner: string, syncs: Record<string, DraftSync>}} options
 */
export function watchDrafts({ url, owner, syncs }) {
  const all = Object.values(syncs);
  let looked = Date.now();
  const look = async () => {
    if (Date.now() - looked < LOOK_EVERY_MS || all.some((sync) => sync.saving)) return;
    looked = Date.now();
    const found = await getJson(`${url}?owner=${encodeURIComponent(owner)}`);
    for (const [field, sync] of Object.entries(syncs)) if (found) sync.compare(found[field]);
  };
  const flushAll = () => {
    for (const sync of all) sync.flush({ keepalive: true });
  };
  document.addEventListener("visibilitychange", () => (document.visibilityState === "visible" ? look() : flushAll()));
  window.addEventListener("focus", look);
  window.addEventListener("pagehide", flushAll);
  window.addEventListener("beforeunload", (event) => {
    if (all.some((sync) => sync.stuck)) event.preventDefault(); // the browser asks before what was typed is lost
  });
}

/**
 * What older versions kept in this browser under the exercise's name alone, whoever typed it: removed
 * from the browser, and handed back only to an anonymous learner's page (the text was this browser's, as
 * its anonymous learner is), never to an account's. An account's page removes every exercise's.
 * @param {string} slug @param {boolean} anonymous
 * @returns {Record<string, string>}
 */
export function legacyDrafts(slug, anonymous) {
  /** @type {Record<string, string>} */
  const found = {};
  try {
    for (const [field, prefix] of Object.entries(LEGACY)) {
      const text = localStorage.getItem(prefix + slug);
      if (text !== null && anonymous) found[field] = text;
      localStorage.removeItem(prefix + slug);
    }
    if (!anonymous) {
      const prefixes = Object.values(LEGACY);
      const keys = Array.from({ length: localStorage.length }, (_, n) => localStorage.key(n));
      for (const key of keys) if (key && prefixes.some((prefix) => key.startsWith(prefix))) localStorage.removeItem(key);
    }
  } catch {
    // storage disabled: nothing was kept there
  }
  return found;
}

function formatWhen(iso) {
  const when = new Date(iso);
  const today = when.toDateString() === new Date().toDateString();
  return today ? `at ${when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}` : `on ${when.toLocaleString()}`;
}
