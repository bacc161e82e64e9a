// "Try it": call your own functions on inputs you type, in the sandbox, and see what each line
// gives (its type, shape and dtype) and what was printed. Graded by nothing.
import { byId, el, formatMs } from "./dom.js";
import { createEditor } from "./editor.js";
import { run } from "./runs.js";

export class Playground {
  /**
   * @param {{url: string, example: string, doc: string, onChange: (text: string) => void, nonce: string,
   *   getCode: () => string, fontSize: number}} options
   */
  constructor({ url, example, doc, onChange, nonce, getCode, fontSize }) {
    this.url = url;
    this.example = example;
    this.getCode = getCode;
    this.button = byId("try-button");
    this.status = byId("try-status");
    this.message = byId("try-message");
    this.values = byId("try-values");
    this.outputSection = byId("try-output-section");
    this.output = byId("try-output");
    this.busy = false;
    this.editor = createEditor(byId("try-editor"), {
      doc,
      label: "Inputs to try",
      nonce,
      describedBy: "try-help",
      fontSize,
      onRun: () => this.run(),
      onChange,
    });
    this.button.addEventListener("click", () => this.run());
    byId("try-reset").addEventListener("click", () => this.editor.setText(this.example));
  }

  setStatus(state, text) {
    this.status.dataset.state = state;
    this.status.textContent = text;
  }

  async run() {
    if (this.busy) return;
    this.busy = true;
    this.button.setAttribute("aria-disabled", "true");
    this.values.replaceChildren();
    this.message.hidden = true;
    this.output.textContent = "";
    this.outputSection.hidden = true;
    this.setStatus("sending", "sending…");
    try {
      await run(this.url, { code: this.getCode(), inputs: this.editor.getText() }, {
        queued: () => this.setStatus("queued", "queued"),
        started: () => this.setStatus("running", "running"),
        check: () => {},
        value: (event) => this.values.append(this.valueItem(event.value)),
        output: (event) => this.appendOutput(event.text),
        done: (result) => this.done(result),
        failure: (message, how) => this.fail(message, true, how?.refused),
      });
    } finally {
      this.busy = false;
      this.button.removeAttribute("aria-disabled");
    }
  }

  valueItem(value) {
    const facts = [value.type, value.shape != null ? `shape ${value.shape}` : null, value.dtype ? `dtype ${value.dtype}` : null].filter(Boolean);
    return el("li", { className: "try-value" }, [
      el("div", { className: "try-value-head" }, [
        el("span", { className: "try-line", text: `line ${value.line}` }),
        el("code", { className: "try-source", text: value.source }),
      ]),
      el("p", { className: "try-facts", text: facts.join(" · ") }),
      el("pre", { className: "try-text", text: value.text }),
    ]);
  }

  appendOutput(text) {
    this.output.textContent += text;
    this.outputSection.hidden = false;
  }

  done(result) {
    const ok = result.status === "pass";
    this.setStatus(ok ? "pass" : "error", ok ? `done in ${formatMs(result.duration_ms)}` : result.reason === "stopped" ? "stopped" : "error");
    if (!this.values.childNodes.length) for (const value of result.values ?? []) this.values.append(this.valueItem(value));
    if (result.output && !this.output.textContent) this.appendOutput(result.output);
    if (!ok && result.message) this.fail(result.message, false);
  }

  fail(message, status = true, refused = false) {
    if (status) this.setStatus(refused ? "refused" : "error", refused ? "not run" : "error");
    this.message.replaceChildren(el("pre", { className: "run-message-text", text: message }));
    this.message.hidden = false;
  }
}
