/**
 * HAL's Content-Security-Policy is `style-src 'self'`, so the `<style>` elements xterm.js writes into the
 * terminal (row sizes, theme colours, selection) are not applied. Rather than allow inline styles on every page,
 * this mirrors their text into one constructable stylesheet adopted by the document (CSSOM, which the policy
 * does not govern) and keeps it in step as xterm rewrites them (resize, theme). The text comes from xterm.js,
 * never from the program's output.
 *
 * @returns what stops the mirror and removes the sheet
 */
export function mirrorTerminalStyles(document: Document, terminalRoot: HTMLElement): () => void {
  const window = document.defaultView;
  if (!window || typeof window.CSSStyleSheet !== 'function' || !('adoptedStyleSheets' in document)) {
    return () => {};
  }
  const sheet = new window.CSSStyleSheet();
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const sync = () => {
    const text = [...terminalRoot.querySelectorAll('style')]
      .map((style) => style.textContent ?? '')
      .join('\n');
    sheet.replaceSync(text);
  };
  sync();
  const observer = new window.MutationObserver(sync);
  observer.observe(terminalRoot, { subtree: true, childList: true, characterData: true });
  return () => {
    observer.disconnect();
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((candidate) => candidate !== sheet);
  };
}
