// Past runs of this exercise: a list (status, when, points), and any one's code opened beside the
// editor as a diff against what is in the editor now, to compare or to restore.
import { createViewer } from "./editor.js";
import { byId, el } from "./dom.js";
import { getJson } from "./runs.js";

const STATUS = { queued: "queued", running: "running", pass: "passed", fail: "failed", error: "error", stopped: "stopped", timeout: "timed out" };

export class Comparison {
  /** @param {{editor: any, nonce: string, fontSize: () => number}} options */
  constructor({ editor, nonce, fontSize }) {
    this.editor = editor;
    this.nonce = nonce;
    this.fontSize = fontSize;
    this.bar = byId("compare-bar");
    this.title = byId("compare-title");
    this.host = byId("compare-view");
    this.editorHost = byId("editor");
    this.view = null;
    this.code = "";
    byId("compare-close").addEventListener("click", () => this.close());
    byId("compare-restore").addEventListener("click", () => {
      this.editor.setText(this.code); // one change: Ctrl/⌘+Z brings the draft back
      this.close();
    });
  }

  /** Show `code` as a diff against the editor's text, read-only, in place of the editor. */
  async open(code, title, { restorable = true } = {}) {
    const { unifiedMergeView } = await import("./diff.js");
    this.view?.destroy();
    this.code = code;
    this.host.replaceChildren();
    this.view = createViewer(this.host, {
      doc: this.editor.getText(),
      label: `${title}, compared with your code`,
      nonce: this.nonce,
      fontSize: this.fontSize(),
      extensions: [unifiedMergeView({ original: code, mergeControls: false, highlightChanges: true })],
    });
    this.title.textContent = `${title}: lines it has are marked −, lines only your code has are marked +.`;
    byId("compare-restore").hidden = !restorable;
    this.bar.hidden = false;
    this.host.hidden = false;
    this.editorHost.hidden = true;
    this.view.focus();
  }

  close() {
    this.view?.destroy();
    this.view = null;
    this.bar.hidden = true;
    this.host.hidden = true;
    this.editorHost.hidden = false;
    this.editor.focus();
  }
}

export class History {
  /** @param {{url: string, comparison: Comparison, showResult: (submission: any) => void}} options */
  constructor({ url, comparison, showResult }) {
    this.url = url;
    this.comparison = comparison;
    this.showResult = showResult;
    this.list = byId("history");
    this.empty = byId("history-empty");
  }

  async refresh() {
    const data = await getJson(this.url);
    const runs = data?.submissions ?? [];
    this.empty.hidden = runs.length > 0;
    this.list.replaceChildren(...runs.map((run, n) => this.item(run, runs.length - n)));
  }

  item(run, number) {
    const state = run.reason === "stopped" ? "stopped" : run.reason === "timeout" ? "timeout" : run.status;
    const when = new Date(run.created_at);
    const points = run.max_points ? `${formatPoints(run.points ?? 0)} / ${formatPoints(run.max_points)} points` : "";
    const compare = el("button", { className: "button small", text: "Compare code", attrs: { type: "button" } });
    const result = el("button", { className: "button small", text: "Show result", attrs: { type: "button" } });
    compare.addEventListener("click", async () => {
      const submission = await getJson(run.url);
      if (submission?.code != null) await this.comparison.open(submission.code, `Run ${number} (${when.toLocaleTimeString()})`);
    });
    result.addEventListener("click", async () => {
      const submission = await getJson(run.url);
      if (submission) this.showResult(submission);
    });
    result.disabled = run.status === "queued" || run.status === "running";
    return el("li", { className: "history-item", attrs: { "data-status": state } }, [
      el("span", { className: "status", text: STATUS[state] ?? state, attrs: { "data-state": state } }),
      el("span", { className: "history-what" }, [
        el("strong", { text: `Run ${number}` }),
        el("time", { text: ` ${relativeTime(when)}`, attrs: { datetime: run.created_at, title: when.toLocaleString() } }),
      ]),
      el("span", { className: "history-points", text: points }),
      el("span", { className: "history-actions" }, [compare, result]),
    ]);
  }
}

export function relativeTime(when) {
  const seconds = Math.max(0, (Date.now() - when.getTime()) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return when.toLocaleDateString();
}

function formatPoints(points) {
  return Number.isInteger(points) ? String(points) : points.toFixed(1);
}
