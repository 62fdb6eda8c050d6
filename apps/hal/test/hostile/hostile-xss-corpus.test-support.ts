/**
 * The XSS corpus of the hostile browser suite: classic payloads, each of which calls the marker function `__hx`
 * with its own id when it gets to run, and the DOM audit that finds what survived as live markup even where
 * nothing ran (a `javascript:` link nobody clicked, a handler on an element that never fired).
 */

/** The marker a payload calls when it runs (exposed to every page by the test). */
export const MARKER = '__hx';

/** One payload: its id (what the marker reports) and its text. */
export interface XssPayload {
  id: string;
  text: string;
}

const call = (id: string) => `${MARKER}('${id}')`;

/**
 * The corpus: script tags, event handlers, `javascript:`/`data:` URLs, SVG and MathML, mutation XSS, markdown
 * link and image tricks, broken and encoded entities, RTL and zero-width characters, template breaking. Every
 * entry is short (at most ~140 characters), so one fits a 200-character field.
 */
export const XSS_CORPUS: XssPayload[] = [
  ['script', (id: string) => `<script>${call(id)}</script>`],
  ['img-onerror', (id: string) => `<img src=x onerror="${call(id)}">`],
  ['svg-onload', (id: string) => `<svg onload="${call(id)}"><circle r=1></svg>`],
  ['svg-script', (id: string) => `<svg><script>${call(id)}</script></svg>`],
  ['svg-xlink', (id: string) => `<svg><a xlink:href="javascript:${call(id)}"><text y=9>x</text></a></svg>`],
  ['math-mxss', (id: string) => `<math><mtext><table><mglyph><style><img src=x onerror=${call(id)}>`],
  ['noscript-mxss', (id: string) => `<noscript><p title="</noscript><img src=x onerror=${call(id)}>">`],
  ['md-link', (id: string) => `[link](javascript:${call(id)})`],
  ['md-link-entity', (id: string) => `[tab](jav&#x09;ascript:${call(id)})`],
  ['md-link-angle', (id: string) => `[angle](<javascript:${call(id)}>)`],
  ['md-autolink', (id: string) => `<javascript:${call(id)}>`],
  ['md-image', (id: string) => `![img](javascript:${call(id)})`],
  ['md-image-onerror', (id: string) => `![x" onerror="${call(id)}](x)`],
  ['md-data', (id: string) => `[data](data:text/html;base64,${btoa(`<script>${call(id)}</script>`)})`],
  ['md-ref', (id: string) => `[ref][r]\n\n[r]: javascript:${call(id)}`],
  ['a-javascript', (id: string) => `<a href="javascript:${call(id)}">a</a>`],
  ['a-entities', (id: string) => `<a href="&#106;avascript&colon;${call(id)}">e</a>`],
  ['iframe-srcdoc', (id: string) => `<iframe srcdoc="<script>parent.${call(id)}</script>"></iframe>`],
  ['details-ontoggle', (id: string) => `<details open ontoggle="${call(id)}"><summary>d</summary></details>`],
  ['input-autofocus', (id: string) => `<input autofocus onfocus="${call(id)}">`],
  ['form-action', (id: string) => `<form action="javascript:${call(id)}"><button>go</button></form>`],
  ['object-data', (id: string) => `<object data="javascript:${call(id)}"></object>`],
  ['meta-refresh', (id: string) => `<meta http-equiv="refresh" content="0;url=javascript:${call(id)}">`],
  ['attribute-break', (id: string) => `"><img src=x onerror=${call(id)}>`],
  ['template-break', (id: string) => `'--></style></script></textarea><script>${call(id)}</script>`],
  ['template-expr', (id: string) => `{{constructor.constructor('${call(id)}')()}}\${${call(id)}}`],
  [
    'rtl-zero-width',
    (id: string) => `\u202e<img src=x one\u200brror=${call(id)}>[zw](java\u200bscript:${call(id)})`,
  ],
  ['unclosed', (id: string) => `<img src=x:x onerror=${call(id)} `],
].map(([name, build], index) => {
  const id = `p${index}-${name as string}`;
  return { id, text: (build as (id: string) => string)(id) };
});

/** The whole corpus as one text, one payload per paragraph (for fields of 4,000 characters and more). */
export function corpusText(tag: string): string {
  return [tag, ...XSS_CORPUS.map((payload) => payload.text)].join('\n\n');
}

/**
 * As many payloads as fit `limit` characters after `tag`, starting at `from` (so short fields still carry a
 * rotating share of the corpus).
 */
export function corpusSlice(tag: string, limit: number, from = 0): string {
  let text = tag;
  for (let offset = 0; offset < XSS_CORPUS.length; offset++) {
    const payload = XSS_CORPUS[(from + offset) % XSS_CORPUS.length] as XssPayload;
    if (text.length + 1 + payload.text.length > limit) break;
    text += ` ${payload.text}`;
  }
  return text;
}

/** What the DOM audit found live in a page: an element, the attribute (or `tag`) and its value. */
export interface DomFinding {
  element: string;
  what: string;
  value: string;
}

/**
 * The DOM audit, run inside the page (pass it to `page.evaluate`): every element of the document, its frames'
 * and open shadow roots', checked for an `on*` attribute, a URL attribute with a script-capable scheme
 * (`javascript:`, `vbscript:`, `data:text/html`, spelled with any whitespace or control characters in it), an
 * inline script or a script from elsewhere, a frame, object, embed, `base` or refresh `meta`.
 */
export function auditDom(): DomFinding[] {
  const findings: DomFinding[] = [];
  const urlAttributes = ['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc', 'poster'];
  const dangerous = /^(javascript|vbscript|data:text\/html)/i;
  const visit = (root: Document | ShadowRoot) => {
    for (const element of root.querySelectorAll('*')) {
      const tag = element.tagName.toLowerCase();
      for (const attribute of element.getAttributeNames()) {
        const value = element.getAttribute(attribute) ?? '';
        if (attribute.toLowerCase().startsWith('on')) findings.push({ element: tag, what: attribute, value });
        // Browsers ignore whitespace and control characters inside a scheme: so does the check.
        const scheme = value.replace(/[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028-\u202e]/g, '');
        if (urlAttributes.includes(attribute.toLowerCase()) && dangerous.test(scheme)) {
          findings.push({ element: tag, what: attribute, value });
        }
      }
      if (tag === 'script') {
        const source = element.getAttribute('src') ?? '';
        if (!source.startsWith('/ops/') || (element.textContent ?? '').trim() !== '') {
          findings.push({ element: tag, what: 'tag', value: `${source} ${element.textContent ?? ''}` });
        }
      }
      if (['iframe', 'frame', 'object', 'embed', 'base'].includes(tag)) {
        findings.push({ element: tag, what: 'tag', value: element.outerHTML.slice(0, 200) });
      }
      if (tag === 'meta' && /refresh/i.test(element.getAttribute('http-equiv') ?? '')) {
        findings.push({ element: tag, what: 'tag', value: element.getAttribute('content') ?? '' });
      }
      if (element.shadowRoot) visit(element.shadowRoot);
    }
  };
  visit(document);
  return findings;
}
