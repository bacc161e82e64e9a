// The exercise page: the layout, the editor with its draft (saved on the server) and options, runs with
// live results (shown again after a reload), Stop, hints on request, the run history and "Try it".
import { byId } from "./dom.js";
import { DraftNotice, DraftSync, legacyDrafts, watchDrafts } from "./drafts.js";
import { createEditor } from "./editor.js";
import { Comparison, History, relativeTime } from "./history.js";
import { Layout } from "./layout.js";
import { Playground } from "./playground.js";
import { pref, setPref } from "./prefs.js";
import { marksOf, ResultsPanel } from "./results.js";
import { errorMessage, follow, getJson, run, stop } from "./runs.js";

const data = JSON.parse(byId("page-data").textContent ?? "{}");
const legacy = legacyDrafts(data.slug, data.drafts.anonymous);
/** @param {string} field @param {string} status @param {() => DraftNotice} notice */
const draftSync = (field, status, notice) =>
  new DraftSync({
    url: `${data.drafts.url}/${field}`,
    owner: data.drafts.owner,
    opening: data.drafts[field],
    status: byId(status),
    onElsewhere: (other, replaced) => notice().show(other, replaced),
  });

// KaTeX is a chunk of its own, fetched only when the statement has math.
if (document.querySelector(".statement .math-inline, .statement .math-display")) {
  import("./math.js").then(({ typesetMath }) => typesetMath(byId("pane-statement")));
}

const isMac = /Mac|iPhone|iPad/.test(/** @type {any} */ (navigator).userAgentData?.platform ?? navigator.platform ?? "");
for (const key of document.querySelectorAll(".mod-key")) key.textContent = isMac ? "⌘" : "Ctrl";

const layout = new Layout();
const runButton = byId("run-button");
const stopButton = byId("stop-button");
const solvedMark = byId("solved-mark");
const nextExercise = byId("next-exercise");
const resultsBadge = byId("results-badge");
let running = null; // {stop_url} of the run in progress
let fontSize = pref("fontSize", 14);

const codeDraft = draftSync("code", "draft-status", () => codeNotice);
const editorHost = byId("editor");
editorHost.replaceChildren();
const editor = createEditor(editorHost, {
  doc: data.drafts.code.text,
  label: "solution.py",
  nonce: data.style_nonce,
  describedBy: "editor-help",
  fontSize,
  wrap: pref("wrap", false),
  onRun: () => startRun({ fromEditor: true }),
  onChange: (text) => codeDraft.changed(text),
});

const panel = new ResultsPanel({
  goToLine: (line, column) => {
    if (layout.phone) layout.showPane("code");
    editor.goToLine(line, column);
  },
  moreHint: (hintId, level) => hintLevel(`${data.hints_url}/${encodeURIComponent(hintId)}?level=${level}`),
});
const comparison = new Comparison({ editor, nonce: data.style_nonce, fontSize: () => fontSize });
const codeNotice = new DraftNotice({
  id: "draft-notice",
  what: "your code",
  sync: codeDraft,
  editor,
  compare: (code, title) => comparison.open(code, title),
});
const history = new History({
  url: data.submissions_url,
  comparison,
  showResult: (submission) => {
    layout.showResults();
    panel.begin();
    if (submission.result) show(submission.result, { restoredAt: relativeTime(new Date(submission.created_at)) });
  },
});
layout.onConsoleTab = (id) => {
  if (id === "ctab-history") history.refresh();
};
// Where a course page's "your runs" link leads: this exercise with its History open.
if (location.hash === "#history") layout.showConsole("ctab-history");
const inputsDraft = draftSync("inputs", "try-draft-status", () => inputsNotice);
const playground = new Playground({
  url: data.tries_url,
  example: data.try_example,
  doc: data.drafts.inputs.text,
  onChange: (text) => inputsDraft.changed(text),
  nonce: data.style_nonce,
  getCode: () => editor.getText(),
  fontSize,
});
const inputsNotice = new DraftNotice({ id: "try-draft-notice", what: "your Try it inputs", sync: inputsDraft, editor: playground.editor });
watchDrafts({ url: data.drafts.url, owner: data.drafts.owner, syncs: { code: codeDraft, inputs: inputsDraft } });
// What an older version kept in this browser, taken in where the server has no draft yet (one change each: undoable).
if (legacy.code != null && data.drafts.code.source !== "draft" && legacy.code !== editor.getText()) editor.setText(legacy.code);
if (legacy.inputs != null && data.drafts.inputs.source !== "draft" && legacy.inputs !== playground.editor.getText()) {
  playground.editor.setText(legacy.inputs);
}

settings();

byId("reset-button").addEventListener("click", () => {
  editor.setText(data.starter); // one change: Ctrl/⌘+Z brings the draft back
  editor.focus();
});
runButton.addEventListener("click", () => startRun({ fromEditor: false }));
stopButton.addEventListener("click", async () => {
  if (!running) return;
  stopButton.setAttribute("aria-disabled", "true");
  const problem = await stop(running.stop_url);
  if (problem) panel.failure(problem);
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
    event.preventDefault();
    startRun({ fromEditor: false });
  }
});
byId("reference-button", { optional: true })?.addEventListener("click", async () => {
  const reference = await getJson(data.reference_url);
  if (reference?.code != null) {
    if (layout.phone) layout.showPane("code");
    await comparison.open(reference.code, "The reference solution", { restorable: false });
  }
});

restoreLastRun();

/** The options under "Aa": wrap, vim keys, font size, each remembered. */
function settings() {
  const wrap = /** @type {HTMLInputElement} */ (byId("setting-wrap"));
  const vim = /** @type {HTMLInputElement} */ (byId("setting-vim"));
  const size = byId("font-size-value");
  wrap.checked = pref("wrap", false);
  vim.checked = pref("vim", false);
  size.textContent = `${fontSize} px`;
  if (vim.checked) editor.setVim(true);
  wrap.addEventListener("change", () => {
    editor.setWrap(wrap.checked);
    setPref("wrap", wrap.checked);
  });
  vim.addEventListener("change", () => {
    editor.setVim(vim.checked);
    setPref("vim", vim.checked);
  });
  const resize = (delta) => {
    fontSize = Math.min(24, Math.max(10, fontSize + delta));
    editor.setFontSize(fontSize);
    size.textContent = `${fontSize} px`;
    setPref("fontSize", fontSize);
  };
  byId("font-smaller").addEventListener("click", () => resize(-1));
  byId("font-larger").addEventListener("click", () => resize(1));
}

/** A level of a hint: `{hint}` when the server gives it, else `{refusal}`: when it opens, or what went wrong. */
async function hintLevel(url) {
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    return response.ok ? { hint: await response.json() } : { refusal: await errorMessage(response) };
  } catch {
    return { refusal: "More help could not be fetched: check your connection and run again." };
  }
}

/** @param {{onAccepted?: (accepted: any) => void}} [options] */
function handlers({ onAccepted } = {}) {
  return {
    accepted: onAccepted,
    queued: (event) => panel.queued(event.position),
    started: (event) => panel.started(event.checks),
    check: (event) => panel.check(event.index, event.check),
    output: (event) => panel.appendOutput(event.text),
    done: (result) => show(result),
    failure: (message, how) => panel.failure(message, how),
  };
}

/** A finished result: the panel, the editor's marks, the solved state. */
function show(result, options) {
  panel.done(result, options);
  editor.setMarks(marksOf(result));
  resultsBadge.hidden = false;
  resultsBadge.textContent = result.status === "pass" ? "✓" : "✗";
  resultsBadge.setAttribute("aria-label", result.status === "pass" ? "passed" : "not passed");
  if (result.status === "pass") {
    solvedMark.hidden = false;
    nextExercise.hidden = false;
  }
}

function setRunning(run) {
  running = run;
  runButton.toggleAttribute("aria-disabled", Boolean(run));
  if (run) runButton.setAttribute("aria-disabled", "true");
  runButton.toggleAttribute("data-busy", Boolean(run));
  stopButton.hidden = !run?.stop_url;
  stopButton.removeAttribute("aria-disabled");
}

async function startRun({ fromEditor }) {
  if (running) return;
  const code = editor.getText();
  codeDraft.flush();
  setRunning({ stop_url: null });
  editor.clearMarks();
  comparison.view && comparison.close();
  panel.begin();
  layout.showResults();
  try {
    await run(data.submissions_url, { code }, handlers({ onAccepted: (accepted) => setRunning(accepted) }));
  } finally {
    setRunning(null);
    // Focus goes back where the run was started from: the editor, or the Run button (which kept it).
    if (fromEditor) editor.focus();
  }
}

/** On load: the last run's result, or, while it is still graded, its live events. */
async function restoreLastRun() {
  const last = data.last_run;
  if (!last) return;
  const submission = await getJson(last.result_url);
  if (!submission || running) return;
  if (submission.result) {
    show(submission.result, { restoredAt: relativeTime(new Date(submission.created_at)) });
    return;
  }
  setRunning(last);
  panel.begin(new Date(submission.created_at).getTime());
  try {
    await follow(last, handlers());
  } finally {
    setRunning(null);
  }
}
