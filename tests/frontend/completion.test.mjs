// The editor's Python completion (static/src/completion.js): numpy's names after np., keywords
// elsewhere, nothing in strings and comments; Enter after a block's last statement dedents.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CompletionContext } from "@codemirror/autocomplete";
import { python } from "@codemirror/lang-python";
import { EditorSelection, EditorState } from "@codemirror/state";
import { newlineAndDedent, pythonCompletions } from "../../static/src/completion.js";
import { GENERATOR, LINALG, NUMPY } from "../../static/src/numpy-names.js";

/** The completions at the end of `doc`: where they start, and their labels (null: none). */
function complete(doc, { explicit = false } = {}) {
  const state = EditorState.create({ doc, extensions: [python()] });
  const found = pythonCompletions(new CompletionContext(state, doc.length, explicit));
  return found && { from: found.from, labels: found.options.map((option) => option.label) };
}

test("after np. come numpy's names, from the dot on", () => {
  const found = complete("y = np.li");
  assert.equal(found.from, "y = np.".length);
  assert.deepEqual(found.labels, NUMPY);
  assert.deepEqual(complete("y = numpy.").labels, NUMPY);
});

test("after np.linalg. come linalg's names, after rng. a Generator's methods", () => {
  assert.deepEqual(complete("q, r = np.linalg.q").labels, LINALG);
  const generator = complete("x = rng.nor");
  assert.equal(generator.from, "x = rng.".length);
  assert.deepEqual(generator.labels, GENERATOR);
});

test("names starting with a capital are classes, the others functions", () => {
  const state = EditorState.create({ doc: "np.", extensions: [python()] });
  const options = pythonCompletions(new CompletionContext(state, 3, false)).options;
  assert.equal(options.find((o) => o.label === "ndarray").type, "function");
  assert.equal(options.find((o) => o.label === "True_").type, "class");
});

test("a word elsewhere gets the keywords", () => {
  const found = complete("def f(x):\n    ret");
  assert.equal(found.from, "def f(x):\n    ".length);
  assert.ok(found.labels.includes("return"));
  assert.ok(found.labels.includes("lambda"));
});

test("nothing in a string, in a comment, after another object's dot, or before any word", () => {
  assert.equal(complete('s = "np.li'), null);
  assert.equal(complete("# np.li"), null);
  assert.equal(complete("x = model.we"), null);
  assert.equal(complete("x = "), null);
  assert.equal(complete("x = ", { explicit: true }), null);
});

/** What Enter does at the end of `line` (inside a function): the new line's indent, or null when it is not ours. */
function enterAfter(line) {
  const doc = `def f(x):\n${line}`;
  let state = EditorState.create({ doc, selection: EditorSelection.cursor(doc.length) });
  const view = {
    get state() {
      return state;
    },
    dispatch: (transaction) => {
      state = transaction.state;
    },
  };
  if (!newlineAndDedent(view)) return null;
  return state.doc.toString().slice(doc.length);
}

test("Enter after a statement that ends its block starts the next line one level less", () => {
  assert.equal(enterAfter("    return x"), "\n");
  assert.equal(enterAfter("        pass  # done"), "\n    ");
  assert.equal(enterAfter("    raise ValueError('no (')"), "\n");
});

test("Enter elsewhere is left to the default keymap", () => {
  assert.equal(enterAfter("    y = x"), null);
  assert.equal(enterAfter("    return (x,"), null, "an open bracket goes on");
  assert.equal(enterAfter("    returned = x"), null);
});
