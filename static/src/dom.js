// Small DOM helpers. Text always goes in with textContent: student output is never parsed as HTML.

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {{className?: string, text?: string, attrs?: Record<string, string>}} [options]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, { className, text, attrs } = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attrs ?? {})) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

/** @param {string} id @param {{optional?: boolean}} [options] */
export function byId(id, { optional = false } = {}) {
  const node = document.getElementById(id);
  if (!node && !optional) throw new Error(`#${id} is missing from the page`);
  return node;
}

/** @param {number | null | undefined} ms */
export function formatMs(ms) {
  if (ms == null) return "";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}
