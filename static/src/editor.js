// The editors: CodeMirror 6 with Python, Tab to indent, Ctrl/⌘+Enter to run, completion, marks at
// the lines a run complains about, and the options a student can set (wrap, font size, vim keys).
import { autocompletion } from "@codemirror/autocomplete";
import { indentWithTab } from "@codemirror/commands";
import { python, pythonLanguage } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { Compartment, EditorSelection, EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { basicSetup } from "codemirror";
import { newlineAndDedent, pythonCompletions } from "./completion.js";

// Colours come from CSS variables, so the editor follows the page's light or dark scheme.
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword], color: "var(--syn-keyword)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--syn-string)" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--syn-number)" },
  { tag: [tags.comment, tags.lineComment], color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [tags.function(tags.variableName), tags.function(tags.definition(tags.variableName))], color: "var(--syn-function)" },
  { tag: [tags.definition(tags.variableName), tags.className], color: "var(--syn-definition)" },
  { tag: [tags.operator, tags.punctuation], color: "var(--syn-operator)" },
  { tag: tags.self, color: "var(--syn-keyword)" },
]);

const theme = EditorView.theme({
  "&": { height: "100%", color: "var(--text)", backgroundColor: "var(--editor-bg)" },
  ".cm-scroller": { fontFamily: "var(--font-mono)", lineHeight: "1.55" },
  ".cm-content": { caretColor: "var(--accent)", padding: "10px 0" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--accent)" },
  ".cm-gutters": { backgroundColor: "var(--editor-gutter)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--editor-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--editor-active-line)", color: "var(--text)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--editor-selection) !important",
  },
  ".cm-matchingBracket": { backgroundColor: "var(--editor-selection)", outline: "none" },
  ".cm-lintRange-error": { backgroundImage: "none", textDecoration: "underline wavy var(--fail)", textUnderlineOffset: "3px" },
  ".cm-lintRange-info": { backgroundImage: "none", textDecoration: "underline dotted var(--warn)", textUnderlineOffset: "3px" },
  ".cm-line.cm-errorLine": { backgroundColor: "var(--fail-soft)" },
  ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)" },
  ".cm-tooltip-lint": { fontFamily: "var(--font-mono)", fontSize: "12.5px", whiteSpace: "pre-wrap", maxWidth: "60ch" },
  ".cm-panels": { backgroundColor: "var(--surface-2)", color: "var(--text)" },
});

const fontTheme = (px) => EditorView.theme({ "&": { fontSize: `${px}px` } });

/**
 * What every view shares: the language, the colours, the CSP nonce, a focusable scroller.
 * @param {{nonce?: string, label: string, describedBy?: string}} options
 */
function common({ nonce, label, describedBy }) {
  return [
    // The page's Content-Security-Policy admits the editor's <style> element by this nonce.
    EditorView.cspNonce.of(nonce ?? ""),
    python(),
    indentUnit.of("    "),
    EditorState.tabSize.of(4),
    syntaxHighlighting(highlight),
    theme,
    EditorView.contentAttributes.of({ "aria-label": label, ...(describedBy ? { "aria-describedby": describedBy } : {}), tabindex: "0" }),
  ];
}

/**
 * The editor of a file in `parent`.
 * @param {HTMLElement} parent
 * @param {{doc: string, onRun: () => void, onChange?: (text: string) => void, label: string, nonce?: string, describedBy?: string, fontSize?: number, wrap?: boolean}} options
 */
export function createEditor(parent, { doc, onRun, onChange, label, nonce, describedBy, fontSize = 14, wrap = false }) {
  const wrapping = new Compartment();
  const font = new Compartment();
  const keys = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        keys.of([]), // vim's keymap, when chosen, must come before every other
        basicSetup,
        ...common({ nonce, label, describedBy }),
        pythonLanguage.data.of({ autocomplete: pythonCompletions }),
        autocompletion({ activateOnTyping: true }),
        lintGutter(),
        wrapping.of(wrap ? EditorView.lineWrapping : []),
        font.of(fontTheme(fontSize)),
        // Highest precedence: the default keymap binds Mod-Enter to "insert blank line".
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { onRun(); return true; }, preventDefault: true }])),
        Prec.high(keymap.of([{ key: "Enter", run: newlineAndDedent }])),
        keymap.of([indentWithTab]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange?.(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    /** Replace the whole text as one undoable change. */
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    /** Put the cursor on a 1-based line and show it. */
    goToLine(line, column = 1) {
      const doc = view.state.doc;
      const target = doc.line(Math.min(Math.max(line, 1), doc.lines));
      const pos = Math.min(target.from + Math.max(column - 1, 0), target.to);
      view.dispatch({ selection: EditorSelection.cursor(pos), effects: EditorView.scrollIntoView(pos, { y: "center" }) });
      view.focus();
    },
    focus: () => view.focus(),
    setWrap: (on) => view.dispatch({ effects: wrapping.reconfigure(on ? EditorView.lineWrapping : []) }),
    setFontSize: (px) => view.dispatch({ effects: font.reconfigure(fontTheme(px)) }),
    /** Vim keys, loaded the first time they are asked for (a chunk of their own). */
    async setVim(on) {
      const extension = on ? (await import("@replit/codemirror-vim")).vim() : [];
      view.dispatch({ effects: keys.reconfigure(extension) });
    },
    /**
     * Mark lines of the file: a gutter mark, an underline and the message on hover.
     * @param {{line: number, column?: number | null, message: string, severity?: "error" | "info"}[]} marks
     */
    setMarks(marks) {
      const doc = view.state.doc;
      const diagnostics = marks
        .filter((mark) => mark.line >= 1 && mark.line <= doc.lines)
        .map(({ line, column, message, severity = "error" }) => {
          const target = doc.line(line);
          const indent = target.text.length - target.text.trimStart().length;
          // From the column to the end of the line; a column at the line's end (a missing colon) marks the whole line.
          let from = column ? Math.min(target.from + column - 1, target.to) : target.from + indent;
          if (from >= target.to) from = target.from + indent;
          return { from, to: Math.max(target.to, from + 1), severity, message, source: "mlkata" };
        });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    clearMarks: () => view.dispatch(setDiagnostics(view.state, [])),
  };
}

/**
 * A read-only view of some code (a past run's, the reference): extra extensions add a diff.
 * @param {HTMLElement} parent
 * @param {{doc: string, label: string, nonce?: string, extensions?: any[], fontSize?: number}} options
 */
export function createViewer(parent, { doc, label, nonce, extensions = [], fontSize = 14 }) {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        ...common({ nonce, label }),
        EditorState.readOnly.of(true),
        EditorView.editable.of(false),
        fontTheme(fontSize),
        ...extensions,
      ],
    }),
  });
}
