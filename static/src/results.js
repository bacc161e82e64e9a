// The results panel and status line: each check appears as soon as its event arrives; while a run
// goes on, the time it has taken and the check in progress; after it, the lines to look at.
import { byId, el, formatMs } from "./dom.js";
import { ownMessage, sharedFailures, summaryOf } from "./said-once.js";

const STATUS_TEXT = {
  idle: "idle", sending: "sending…", queued: "queued", running: "running", pass: "passed", fail: "failed",
  error: "error", stopped: "stopped", timeout: "timed out", refused: "not run",
};
const ICONS = { pending: "•", running: "▸", pass: "✓", fail: "✗", error: "!" };
const CHECK_LABEL = { pending: "waiting", running: "running", pass: "passed", fail: "failed", error: "error" };

export class ResultsPanel {
  /**
   * `moreHint` asks the server for a level of a hint: `{hint}` when it is open, `{refusal}` (why not, and what
   * opens it) when it is not.
   * @param {{goToLine: (line: number, column?: number) => void, moreHint: (hintId: string, level: number) => Promise<{hint?: any, refusal?: string}>}} actions
   */
  constructor(actions) {
    this.actions = actions;
    this.status = byId("run-status");
    this.progress = byId("run-progress");
    this.elapsed = byId("run-elapsed");
    this.summary = byId("run-summary");
    this.lastRun = byId("last-run");
    this.placeholder = byId("results-placeholder");
    this.runMessage = byId("run-message");
    this.list = byId("checks");
    // Failures several checks share, each said once above the checks (made here: the page's template has no place).
    this.shared = el("section", { className: "shared-failures", attrs: { "aria-label": "Failures several checks share" } });
    this.shared.hidden = true;
    this.list.before(this.shared);
    /** @type {any[]} the run's finished checks, by index */
    this.finishedChecks = [];
    /** The hints said while the run goes on: each once, as the finished run says them. */
    this.liveHints = new Set();
    this.outputSection = byId("output-section");
    this.output = byId("output");
    this.outputText = "";
    this.timer = 0;
    this.finished = false;
  }

  /** @param {keyof typeof STATUS_TEXT} state @param {string} [detail] */
  setStatus(state, detail = "") {
    this.status.dataset.state = state;
    this.status.textContent = detail ? `${STATUS_TEXT[state]} ${detail}` : STATUS_TEXT[state];
  }

  /** A new run: clear everything and start the clock (from `since`, for a run re-attached after a reload). */
  begin(since = Date.now()) {
    this.finished = false;
    this.setStatus("sending");
    this.summary.textContent = "";
    this.lastRun.hidden = true;
    this.placeholder.hidden = true;
    this.runMessage.hidden = true;
    this.runMessage.classList.remove("mistake");
    this.runMessage.replaceChildren();
    this.list.replaceChildren();
    this.clearShared();
    this.liveHints = new Set();
    this.list.setAttribute("aria-busy", "true");
    this.outputText = "";
    this.output.textContent = "";
    this.outputSection.hidden = true;
    this.progress.textContent = "";
    this.startClock(since);
  }

  startClock(since) {
    clearInterval(this.timer);
    const tick = () => {
      this.elapsed.textContent = `${((Date.now() - since) / 1000).toFixed(1)} s`;
    };
    tick();
    this.timer = setInterval(tick, 100);
  }

  stopClock() {
    clearInterval(this.timer);
    this.elapsed.textContent = "";
    this.progress.textContent = "";
  }

  queued(position) {
    this.setStatus("queued", position ? `(position ${position})` : "");
  }

  /** @param {string[]} titles */
  started(titles) {
    this.setStatus("running");
    this.list.replaceChildren(...titles.map((title, index) => this.row(index, title)));
    this.markInProgress();
  }

  /** The first check still waiting is the one running: say which, on the status line and in its row. */
  markInProgress() {
    const rows = [.../** @type {NodeListOf<HTMLLIElement>} */ (this.list.querySelectorAll("li.check"))];
    for (const row of rows) if (row.dataset.status === "running") this.setRowState(row, "pending");
    const next = rows.find((row) => row.dataset.status === "pending");
    if (!next) {
      this.progress.textContent = "";
      return;
    }
    this.setRowState(next, "running");
    const index = rows.indexOf(next) + 1;
    this.progress.textContent = `check ${index} of ${rows.length}: ${next.querySelector(".check-name").textContent}`;
  }

  setRowState(row, state) {
    row.dataset.status = state;
    row.querySelector(".check-icon").textContent = ICONS[state];
    row.querySelector(".check-state").textContent = CHECK_LABEL[state];
  }

  row(index, title) {
    return el("li", { className: "check", attrs: { "data-index": String(index), "data-status": "pending" } }, [
      el("div", { className: "check-head" }, [
        el("span", { className: "check-icon", text: ICONS.pending, attrs: { "aria-hidden": "true" } }),
        el("span", { className: "check-name", text: title }),
        el("span", { className: "visually-hidden check-state", text: CHECK_LABEL.pending }),
        el("span", { className: "check-meta" }),
      ]),
    ]);
  }

  /** One finished check (a CheckResult of the results contract). */
  check(index, check, shownHints = this.liveHints) {
    this.finishedChecks[index] = check;
    const shared = sharedFailures(this.finishedChecks);
    const failure = shared.find((group) => group.checks.includes(check));
    // The check this one failed like was shown on its own: now the failure is said once, above them both.
    const first = failure?.checks[0];
    if (failure && failure.checks.length === 2 && first !== check) this.renderCheck(this.finishedChecks.indexOf(first), first, shownHints, failure);
    this.renderCheck(index, check, shownHints, failure);
    if (failure) this.showShared(shared);
    this.markInProgress();
  }

  /** A check's row; a check of a shared failure says only what the failure, said above, does not. */
  renderCheck(index, check, shownHints, failure) {
    let item = /** @type {HTMLLIElement | null} */ (this.list.querySelector(`li[data-index="${index}"]`));
    if (!item) {
      item = this.row(index, check.name);
      this.list.append(item);
    }
    const state = check.status === "pass" ? "pass" : check.status === "fail" ? "fail" : "error";
    this.setRowState(item, state);
    item.dataset.reason = check.reason;
    item.querySelector(".check-name").textContent = check.name;
    const visibility = check.public ? "public" : "hidden";
    const time = check.reason === "not_run" ? "" : ` · ${formatMs(check.duration_ms)}`;
    item.querySelector(".check-meta").textContent = `${visibility}${time}`;
    for (const old of item.querySelectorAll(".check-body")) old.remove();
    const body = el("div", { className: "check-body" });
    // A public check that raised with words of its own (its inputs in the message) still says them.
    const said = failure && (!check.public || check.message === failure.message);
    const message = ownMessage(check, this.finishedChecks.slice(0, index));
    if (message && !said) body.append(el("pre", { className: "check-message", text: message }));
    if (check.location?.line && !failure) body.append(this.lineButton(check.location.line, check.location.column));
    // A hint is said once per run: under the first check it explains, not under every one.
    if (check.hint && !shownHints.has(check.hint_id ?? check.hint)) {
      shownHints.add(check.hint_id ?? check.hint);
      body.append(this.hint(check.hint, check.hint_id, check.hint_levels));
    }
    // Only public checks carry details; hidden checks never show their data.
    if (check.public && check.details && Object.keys(check.details).length) {
      const list = el("dl", { className: "check-details" });
      for (const [name, value] of Object.entries(check.details)) {
        list.append(el("dt", { text: name }), el("dd", {}, [el("code", { text: value })]));
      }
      body.append(list);
    }
    if (check.output) {
      body.append(el("details", { className: "check-output" }, [el("summary", { text: "Printed output" }), el("pre", { text: check.output })]));
    } else if (check.printed) {
      // What a hidden check's run printed could reveal its inputs, and so could how much it was: only that it printed.
      body.append(el("p", { className: "check-output-hidden", text: "Printed something (not shown: the check is hidden)." }));
    }
    if (body.childNodes.length) item.append(body);
  }

  /** Each failure several checks share, once: what it said (a traceback, when a public check shows one), its line, its checks. */
  showShared(shared) {
    const total = this.list.querySelectorAll("li.check").length;
    this.shared.replaceChildren(
      ...shared.map((failure) => {
        const count = failure.checks.length;
        const which = count === total ? `All ${count} checks failed this way: ` : `${count} checks failed this way: `;
        /** @type {HTMLElement[]} */
        const children = [
          el("pre", { className: "check-message", text: failure.message ?? "" }),
          el("p", { className: "shared-failure-checks" }, [el("strong", { text: which }), document.createTextNode(failure.checks.map((c) => c.name).join(" · "))]),
        ];
        if (failure.location?.line) children.push(this.lineButton(failure.location.line, failure.location.column));
        return el("div", { className: "shared-failure", attrs: { "data-check": failure.id } }, children);
      }),
    );
    this.shared.hidden = shared.length === 0;
  }

  clearShared() {
    this.finishedChecks = [];
    this.shared.replaceChildren();
    this.shared.hidden = true;
  }

  lineButton(line, column) {
    const button = el("button", { className: "button link go-to-line", text: `Go to line ${line}`, attrs: { type: "button" } });
    button.addEventListener("click", () => this.actions.goToLine(line, column ?? 1));
    return button;
  }

  /**
   * A hint's first level and, once the run is over, what comes next: a button for the next level when the
   * server says it is open, else when it opens (the server's words: level n after n failed runs that give it).
   */
  hint(text, hintId, levels = 1) {
    const box = el("div", { className: "check-hint" }, [el("p", {}, [el("strong", { text: "Hint: " }), document.createTextNode(text)])]);
    // Asked only for a finished run: while it runs, the run that may open the next level is not counted yet.
    // Level 1 is open to whoever a run gave the hint: its answer says whether level 2 is, without a refusal.
    if (hintId && levels > 1 && this.finished) {
      this.actions.moreHint(hintId, 1).then((answer) => answer.hint && this.offerLevel(box, hintId, 2, levels, answer.hint));
    }
    return box;
  }

  /** After a level (`before`, the server's answer for it): a button for `level` if it is open, else when it opens. */
  offerLevel(box, hintId, level, levels, before) {
    if (before.runs_until_next !== 0) {
      if (before.next_opens) box.append(el("p", { className: "hint-closed muted", text: before.next_opens }));
      return;
    }
    const more = el("button", { className: "button small more-hint", text: `More help (${level} of ${levels})`, attrs: { type: "button" } });
    more.addEventListener("click", async () => {
      more.disabled = true;
      const answer = await this.actions.moreHint(hintId, level);
      if (!answer.hint) {
        more.replaceWith(el("p", { className: "hint-closed muted", text: answer.refusal ?? "" }));
        return;
      }
      const next = answer.hint;
      more.replaceWith(el("p", { className: `hint-level hint-${next.kind.replace(/\s+/g, "-")}` }, [el("strong", { text: `${capitalize(next.kind)}: ` }), next.kind === "code" ? el("code", { text: next.text }) : document.createTextNode(next.text)]));
      if (level < levels) this.offerLevel(box, hintId, level + 1, levels, next);
    });
    box.append(more);
  }

  appendOutput(text) {
    this.outputText += text;
    this.output.textContent = this.outputText;
    this.outputSection.hidden = false;
  }

  /**
   * The whole run is over.
   * @param {any} result the results contract
   * @param {{restoredAt?: string}} [options] a result shown again after a reload says when it ran
   */
  done(result, { restoredAt } = {}) {
    this.finished = true;
    this.stopClock();
    this.list.removeAttribute("aria-busy");
    this.placeholder.hidden = true;
    const state = result.reason === "stopped" ? "stopped" : result.reason === "timeout" ? "timeout" : result.status;
    const timedOutIn = state === "timeout" ? (result.tests ?? []).find((t) => t.reason === "timeout")?.name : null;
    this.setStatus(state, timedOutIn ? `in “${timedOutIn}”` : "");
    const shownHints = new Set();
    if (result.mistake?.hint) shownHints.add(result.mistake.hint_id ?? result.mistake.hint);
    if (restoredAt) {
      this.list.replaceChildren();
      this.clearShared();
    }
    for (const [index, check] of (result.tests ?? []).entries()) {
      const item = /** @type {HTMLLIElement | null} */ (this.list.querySelector(`li[data-index="${index}"]`));
      // Shown again when the verdict changed what the check said as it finished: naming the run's mistake takes its
      // hint and its symptom off the checks it explains, which say them no more.
      const changed = JSON.stringify(this.finishedChecks[index]) !== JSON.stringify(check);
      if (!item || item.dataset.status === "pending" || item.dataset.status === "running" || check.hint || changed) this.check(index, check, shownHints);
    }
    if (!result.tests?.length) {
      this.list.replaceChildren();
      this.clearShared();
    } else {
      this.showShared(sharedFailures(this.finishedChecks)); // every row is there now: "all" is counted right
    }
    this.progress.textContent = "";
    this.summary.textContent = summaryOf(result);
    if (restoredAt) {
      this.lastRun.textContent = `Your last run, ${restoredAt}.`;
      this.lastRun.hidden = false;
    }
    if (result.status === "error" && !result.tests?.length) this.showRunMessage(result);
    if (result.mistake) this.showMistake(result.mistake);
    if (result.output && !this.outputText) this.appendOutput(result.output);
    if (result.output_truncated) this.appendOutput("\n[output truncated]");
  }

  /** The most likely mistake, once for the run, above the checks. */
  showMistake(mistake) {
    const children = [el("p", { className: "mistake-text" }, [el("strong", { text: "Most likely mistake: " }), document.createTextNode(mistake.mistake)])];
    if (mistake.hint) children.push(this.hint(mistake.hint, mistake.hint_id, mistake.hint_levels));
    this.runMessage.replaceChildren(...children);
    this.runMessage.classList.add("mistake");
    this.runMessage.hidden = false;
  }

  showRunMessage(result) {
    /** @type {HTMLElement[]} */
    const children = [el("pre", { className: "run-message-text", text: result.message ?? "The run failed." })];
    if (result.location?.line) children.push(this.lineButton(result.location.line, result.location.column));
    this.runMessage.replaceChildren(...children);
    this.runMessage.hidden = false;
  }

  /** The run could not start (`refused`: the server declined it, e.g. too many runs waiting) or lost its connection. */
  failure(message, { refused = false } = {}) {
    this.stopClock();
    this.list.removeAttribute("aria-busy");
    this.setStatus(refused ? "refused" : "error");
    this.runMessage.replaceChildren(el("pre", { className: "run-message-text", text: message }));
    this.runMessage.hidden = false;
  }
}

/** The lines of solution.py a result points at, for the editor's marks: a failure several checks share, once. */
export function marksOf(result) {
  const marks = [];
  if (result.location?.line) marks.push({ line: result.location.line, column: result.location.column, message: result.message ?? "" });
  const tests = result.tests ?? [];
  const shared = sharedFailures(tests);
  for (const check of tests) {
    const failure = shared.find((group) => group.checks.includes(check));
    if (failure && failure.checks[0] !== check) continue;
    const said = failure ? `${failure.checks.length} checks failed this way` : check.name;
    if (check.location?.line) marks.push({ line: check.location.line, message: `${said}:\n${(failure ?? check).message ?? ""}` });
  }
  return marks;
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
