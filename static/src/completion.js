// Python completion for solution.py: keywords (ret → return), and numpy's names after np. / numpy.
// lang-python adds the names defined in the file and the builtins; this adds what it lacks.
import { syntaxTree } from "@codemirror/language";
import { GENERATOR, LINALG, NUMPY, RANDOM } from "./numpy-names.js";

const KEYWORDS = (
  "False None True and as assert async await break class continue def del elif else except finally for from " +
  "global if import in is lambda nonlocal not or pass raise return try while with yield"
).split(" ");

const MEMBERS = { "": NUMPY, linalg: LINALG, random: RANDOM };
const keywordOptions = KEYWORDS.map((label) => ({ label, type: "keyword", boost: -1 }));
const optionsOf = (names, type) => names.map((label) => ({ label, type: /^[A-Z]/.test(label) ? "class" : type }));
const memberOptions = Object.fromEntries(Object.entries(MEMBERS).map(([k, names]) => [k, optionsOf(names, "function")]));
const generatorOptions = optionsOf(GENERATOR, "method");

/** @param {import("@codemirror/autocomplete").CompletionContext} context */
export function pythonCompletions(context) {
  const node = syntaxTree(context.state).resolveInner(context.pos, -1);
  if (/String|Comment/.test(node.name)) return null;
  const member = context.matchBefore(/\b(?:np|numpy)(?:\.(linalg|random))?\.\w*$/);
  if (member) {
    const dot = member.text.lastIndexOf(".");
    return { from: member.from + dot + 1, options: memberOptions[member.text.split(".").length > 2 ? member.text.split(".")[1] : ""], validFor: /^\w*$/ };
  }
  // rng.normal(…): the methods of a Generator, for a name that looks like one.
  const generator = context.matchBefore(/\brng\.\w*$/);
  if (generator) return { from: generator.from + 4, options: generatorOptions, validFor: /^\w*$/ };
  const word = context.matchBefore(/\w+/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  if (context.matchBefore(/\.\w*$/)) return null; // some other object's attribute: nothing known to offer
  return { from: word.from, options: keywordOptions, validFor: /^\w*$/ };
}

const DEDENTING = /^(\s*)(return\b.*|pass|break|continue|raise\b.*)\s*(#.*)?$/;

/**
 * Enter at the end of a line that ends its block (return, pass, raise…): the new line is indented one level less.
 * @param {import("@codemirror/view").EditorView} view
 */
export function newlineAndDedent(view) {
  const { state } = view;
  const range = state.selection.main;
  if (!range.empty || state.selection.ranges.length > 1) return false;
  const line = state.doc.lineAt(range.head);
  if (range.head !== line.to) return false;
  const match = DEDENTING.exec(line.text);
  if (!match || !balanced(line.text)) return false;
  const indent = Math.max(0, match[1].length - 4);
  view.dispatch(state.update(state.replaceSelection(`\n${" ".repeat(indent)}`), { scrollIntoView: true, userEvent: "input" }));
  return true;
}

/** Whether a line closes every bracket it opens (a `return (a,` goes on, so it keeps its indent). */
function balanced(text) {
  let depth = 0;
  for (const char of text.replace(/(["'])(?:\\.|(?!\1).)*\1/g, "")) {
    if (char === "#") break;
    if ("([{".includes(char)) depth += 1;
    else if (")]}".includes(char)) depth -= 1;
  }
  return depth <= 0;
}
