// The results panel and status line: each check appears as soon as its event arrives.
import { byId, el, formatMs } from "./dom.js";

const STATUS_TEXT = { idle: "idle", sending: "sending…", queued: "queued", running: "running", pass: "passed", fail: "failed", error: "error" };
const ICONS = { pending: "•", pass: "✓", fail: "✗", error: "!" };
const CHECK_LABEL = { pending: "waiting", pass: "passed", fail: "failed", error: "error" };

export class ResultsPanel {
  constructor() {
    this.status = byId("run-status");
    this.summary = byId("run-summary");
    this.placeholder = byId("results-placeholder");
    this.runMessage = byId("run-message");
    this.list = byId("checks");
    this.outputSection = byId("output-section");
    this.output = byId("output");
    this.outputText = "";
  }

  /** @param {keyof typeof STATUS_TEXT} state @param {string} [detail] */
  setStatus(state, detail = "") {
    this.status.dataset.state = state;
    this.status.textContent = detail ? `${STATUS_TEXT[state]} (${detail})` : STATUS_TEXT[state];
  }

  begin() {
    this.setStatus("sending");
    this.summary.textContent = "";
    this.placeholder.hidden = true;
    this.runMessage.hidden = true;
    this.runMessage.classList.remove("mistake");
    this.runMessage.replaceChildren();
    this.list.replaceChildren();
    this.list.setAttribute("aria-busy", "true");
    this.outputText = "";
    this.output.textContent = "";
    this.outputSection.hidden = true;
  }

  queued(position) {
    this.setStatus("queued", position ? `position ${position}` : "");
  }

  /** @param {string[]} titles */
  started(titles) {
    this.setStatus("running");
    this.list.replaceChildren(...titles.map((title, index) => this.row(index, title)));
  }

  row(index, title) {
    const item = el("li", { className: "check", attrs: { "data-index": String(index), "data-status": "pending" } }, [
      el("div", { className: "check-head" }, [
        el("span", { className: "check-icon", text: ICONS.pending, attrs: { "aria-hidden": "true" } }),
        el("span", { className: "check-name", text: title }),
        el("span", { className: "visually-hidden check-state", text: CHECK_LABEL.pending }),
        el("span", { className: "check-meta" }),
      ]),
    ]);
    return item;
  }

  /** One finished check (a CheckResult of the results contract). */
  check(index, check) {
    let item = this.list.querySelector(`li[data-index="${index}"]`);
    if (!item) {
      item = this.row(index, check.name);
      this.list.append(item);
    }
    const state = check.status === "pass" ? "pass" : check.status === "fail" ? "fail" : "error";
    item.dataset.status = state;
    item.dataset.reason = check.reason;
    item.querySelector(".check-icon").textContent = ICONS[state];
    item.querySelector(".check-name").textContent = check.name;
    item.querySelector(".check-state").textContent = CHECK_LABEL[state];
    const visibility = check.public ? "public" : "hidden";
    const time = check.reason === "not_run" ? "" : ` · ${formatMs(check.duration_ms)}`;
    item.querySelector(".check-meta").textContent = `${visibility}${time}`;
    for (const old of item.querySelectorAll(".check-body")) old.remove();
    const body = el("div", { className: "check-body" });
    if (check.message) body.append(el("p", { className: "check-message", text: check.message }));
    if (check.hint) {
      body.append(el("p", { className: "check-hint" }, [el("strong", { text: "Hint: " }), document.createTextNode(check.hint)]));
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
    } else if (check.printed_lines) {
      // What a hidden check's run printed could reveal its inputs: only how much is said.
      const lines = check.printed_lines === 1 ? "1 line" : `${check.printed_lines} lines`;
      body.append(el("p", { className: "check-output-hidden", text: `Printed ${lines} (not shown: the check is hidden).` }));
    }
    if (body.childNodes.length) item.append(body);
  }

  appendOutput(text) {
    this.outputText += text;
    this.output.textContent = this.outputText;
    this.outputSection.hidden = false;
  }

  /**
   * The whole run is over.
   * @param {any} result the results contract
   * @param {(line: number, column?: number) => void} goToLine
   */
  done(result, goToLine) {
    this.list.removeAttribute("aria-busy");
    this.setStatus(result.status);
    for (const [index, check] of (result.tests ?? []).entries()) {
      const item = this.list.querySelector(`li[data-index="${index}"]`);
      if (!item || item.dataset.status === "pending") this.check(index, check);
    }
    if (!result.tests?.length) this.list.replaceChildren();
    const points = result.max_points ? ` · ${formatPoints(result.points)} / ${formatPoints(result.max_points)} points` : "";
    this.summary.textContent = `${result.message ?? ""}${points} · total ${formatMs(result.duration_ms)}`;
    if (result.status === "error" && !result.tests?.length) this.showRunMessage(result, goToLine);
    if (result.mistake) this.showMistake(result.mistake);
    if (result.output && !this.outputText) this.appendOutput(result.output);
    if (result.output_truncated) this.appendOutput("\n[output truncated]");
  }

  /** The most likely mistake, once for the run, above the checks. */
  showMistake(mistake) {
    const children = [el("p", { className: "mistake-text" }, [el("strong", { text: "Most likely mistake: " }), document.createTextNode(mistake.mistake)])];
    if (mistake.hint) {
      children.push(el("p", { className: "check-hint" }, [el("strong", { text: "Hint: " }), document.createTextNode(mistake.hint)]));
    }
    this.runMessage.replaceChildren(...children);
    this.runMessage.classList.add("mistake");
    this.runMessage.hidden = false;
  }

  showRunMessage(result, goToLine) {
    const children = [el("pre", { className: "run-message-text", text: result.message ?? "The run failed." })];
    if (result.location?.line) {
      const { line, column } = result.location;
      const button = el("button", { className: "button link", text: `Go to line ${line}`, attrs: { type: "button" } });
      button.addEventListener("click", () => goToLine(line, column ?? 1));
      children.push(button);
    }
    this.runMessage.replaceChildren(...children);
    this.runMessage.hidden = false;
  }

  /** The run could not start or lost its connection. */
  failure(message) {
    this.list.removeAttribute("aria-busy");
    this.setStatus("error");
    this.runMessage.replaceChildren(el("pre", { className: "run-message-text", text: message }));
    this.runMessage.hidden = false;
  }
}

function formatPoints(points) {
  return Number.isInteger(points) ? String(points) : points.toFixed(1);
}
