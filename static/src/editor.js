// The solution.py editor: CodeMirror 6 with Python, Tab to indent and Ctrl/⌘+Enter to run.
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { HighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { EditorSelection, EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { basicSetup } from "codemirror";

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
  "&": { height: "100%", fontSize: "14px", color: "var(--text)", backgroundColor: "var(--editor-bg)" },
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
  ".cm-errorLine": { backgroundColor: "var(--fail-soft)" },
  ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)" },
  ".cm-panels": { backgroundColor: "var(--surface-2)", color: "var(--text)" },
});

/**
 * Create the editor in `parent`.
 * @param {HTMLElement} parent
 * @param {{doc: string, onRun: () => void, onChange: (text: string) => void, label: string, nonce?: string}} options
 */
export function createEditor(parent, { doc, onRun, onChange, label, nonce }) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        // The page's Content-Security-Policy admits the editor's <style> element by this nonce.
        EditorView.cspNonce.of(nonce ?? ""),
        python(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        syntaxHighlighting(highlight),
        theme,
        // Highest precedence: the default keymap binds Mod-Enter to "insert blank line".
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (onRun(), true), preventDefault: true }])),
        keymap.of([indentWithTab]),
        EditorView.contentAttributes.of({ "aria-label": label, "aria-describedby": "editor-help" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
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
  };
}
