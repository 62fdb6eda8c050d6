/** Creates an element with attributes and children (strings become text nodes, never HTML). */
export function createElement(
  document: Document,
  tag: string,
  attributes: Record<string, string | undefined> = {},
  children: Array<Node | string | null | undefined> = [],
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}
