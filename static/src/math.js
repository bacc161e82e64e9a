// Typesets the statement's math (TeX in .math-inline / .math-display elements) with KaTeX.
import katex from "katex";

/** @param {ParentNode} root */
export function typesetMath(root) {
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".math-inline, .math-display"))) {
    const tex = element.textContent ?? "";
    try {
      // katex.render builds DOM nodes (no innerHTML), which the Content-Security-Policy allows.
      katex.render(tex, element, { displayMode: element.classList.contains("math-display"), throwOnError: false });
      element.setAttribute("data-typeset", "");
    } catch (error) {
      element.textContent = tex;
      element.classList.add("math-error");
      console.warn("KaTeX could not typeset", tex, error);
    }
  }
}
