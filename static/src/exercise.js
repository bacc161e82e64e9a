// The exercise page: statement math, the editor with its saved draft, and runs with live results.
import { byId } from "./dom.js";
import { createEditor } from "./editor.js";
import { typesetMath } from "./math.js";
import { ResultsPanel } from "./results.js";
import { run } from "./runs.js";

const data = JSON.parse(byId("page-data").textContent ?? "{}");
const draftKey = `mlkata:draft:${data.slug}`;

const storage = {
  get() {
    try {
      return localStorage.getItem(draftKey);
    } catch {
      return null; // storage disabled: drafts are simply not kept
    }
  },
  set(text) {
    try {
      if (text === data.starter) localStorage.removeItem(draftKey);
      else localStorage.setItem(draftKey, text);
    } catch {
      // storage full or disabled
    }
  },
};

typesetMath(document.querySelector(".statement") ?? document);

const isMac = /Mac|iPhone|iPad/.test(navigator.userAgentData?.platform ?? navigator.platform ?? "");
for (const key of document.querySelectorAll(".mod-key")) key.textContent = isMac ? "⌘" : "Ctrl";

const panel = new ResultsPanel();
const runButton = byId("run-button");
const resetButton = byId("reset-button");
const solvedMark = byId("solved-mark");
const nextExercise = byId("next-exercise");
let saveTimer = 0;
let running = false;

const editorHost = byId("editor");
editorHost.replaceChildren();
const editor = createEditor(editorHost, {
  doc: storage.get() ?? data.starter,
  label: "solution.py",
  nonce: data.style_nonce,
  onRun: () => startRun(),
  onChange: (text) => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => storage.set(text), 300);
  },
});

resetButton.addEventListener("click", () => {
  editor.setText(data.starter); // one change: Ctrl/⌘+Z brings the draft back
  storage.set(data.starter);
  editor.focus();
});
runButton.addEventListener("click", () => startRun());
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
    event.preventDefault();
    startRun();
  }
});

async function startRun() {
  if (running) return;
  running = true;
  clearTimeout(saveTimer);
  const code = editor.getText();
  storage.set(code);
  runButton.disabled = true;
  runButton.dataset.busy = "";
  panel.begin();
  try {
    await run(data.submissions_url, code, {
      queued: (event) => panel.queued(event.position),
      started: (event) => panel.started(event.checks),
      check: (event) => panel.check(event.index, event.check),
      output: (event) => panel.appendOutput(event.text),
      done: (result) => {
        panel.done(result, (line, column) => editor.goToLine(line, column));
        if (result.status === "pass") {
          solvedMark.hidden = false;
          nextExercise.hidden = false;
        }
      },
      failure: (message) => panel.failure(message),
    });
  } finally {
    running = false;
    runButton.disabled = false;
    delete runButton.dataset.busy;
  }
}
