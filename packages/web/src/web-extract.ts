import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/** Readable text and title of a page. */
export interface ExtractedText {
  title: string;
  text: string;
}

/** Elements whose content is never text a reader sees. */
const DROPPED = 'script, style, noscript, template, iframe, object, embed, svg, canvas';

/** Elements that start a new line of text. */
const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BR',
  'DD',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'TR',
  'UL',
  'TD',
  'TH',
  'CAPTION',
  'SUMMARY',
  'DETAILS',
]);

interface TextNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<TextNode>;
}

function collectText(node: TextNode, out: string[]): void {
  if (node.nodeType === 3) {
    out.push(node.textContent ?? '');
    return;
  }
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
  const block = BLOCKS.has(node.nodeName.toUpperCase());
  if (block) out.push('\n');
  for (let index = 0; index < node.childNodes.length; index += 1) {
    const child = node.childNodes[index];
    if (child) collectText(child, out);
  }
  if (block) out.push('\n');
}

/** Collapses runs of spaces within lines and of blank lines between them. */
export function normaliseWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[\t\f\v \u00a0\u200b]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function textOfHtml(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const out: string[] = [];
  collectText(document.body as unknown as TextNode, out);
  return normaliseWhitespace(out.join(''));
}

/**
 * The readable text of an HTML page: `@mozilla/readability` over a `linkedom` DOM picks the article; a page it
 * finds no article in (a short page, a list) falls back to its whole body. Scripts, styles, noscript and embedded
 * objects are dropped first; the title is kept. linkedom only serves reading here, never sanitising: the text goes
 * to models as text, and the panel escapes it.
 *
 * @example
 * extractHtml('<title>Notes</title><p>Hello</p><script>x()</script>', 'https://example.com/').text; // 'Hello'
 */
export function extractHtml(html: string, url: string): ExtractedText {
  // linkedom builds no implied <html>/<body> around a bare fragment, as a browser would: wrap it ourselves.
  const source = /<body[\s>]/i.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html}</body></html>`;
  const { document } = parseHTML(source);
  const pageTitle = normaliseWhitespace(document.querySelector('title')?.textContent ?? '');
  for (const element of [...document.querySelectorAll(`${DROPPED}, title`)]) element.remove();
  const out: string[] = [];
  if (document.body) collectText(document.body as unknown as TextNode, out);
  const bodyText = normaliseWhitespace(out.join(''));
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    // Readability reads documentURI/baseURI for relative links; linkedom leaves them unset, which it tolerates.
    Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
    article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  } catch {
    article = null;
  }
  const articleText = article?.content ? textOfHtml(article.content) : '';
  // An "article" much shorter than the page is usually a fragment Readability guessed wrong.
  const text = articleText.length >= Math.min(200, bodyText.length) ? articleText : bodyText;
  const title = pageTitle || normaliseWhitespace(article?.title ?? '');
  return { title, text: text || bodyText };
}
