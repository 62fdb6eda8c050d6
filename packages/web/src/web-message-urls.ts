/** Most links of one message fetched as context (SPEC §10). */
export const MAX_MESSAGE_URLS = 2;

/** Punctuation that ends a sentence rather than a URL: "see https://example.com/notes." */
const TRAILING = /[.,;:!?'"`»…。、，！？」』】）]+$/u;

function trimTrailing(candidate: string): string {
  let url = candidate;
  for (;;) {
    const before = url;
    url = url.replace(TRAILING, '');
    // A closing bracket belongs to the URL only when the URL opened it: (https://en.wikipedia.org/wiki/A_(b)).
    for (const [open, close] of [
      ['(', ')'],
      ['[', ']'],
      ['{', '}'],
      ['<', '>'],
    ] as const) {
      while (url.endsWith(close) && url.split(open).length <= url.split(close).length - 1)
        url = url.slice(0, -1);
    }
    if (url === before) return url;
  }
}

/**
 * The links of an operator message that are fetched before the turn (SPEC §10): http and https only, at most
 * {@link MAX_MESSAGE_URLS}, trailing punctuation trimmed, duplicates (after normalisation) dropped, and none at
 * all from a slash command. The URLs are returned as written (trimmed), for the context block's `url`.
 *
 * @example
 * extractMessageUrls('compare https://a.example/x, and (https://b.example/y).'); // ['https://a.example/x', 'https://b.example/y']
 * extractMessageUrls('/servers https://a.example/'); // []
 */
export function extractMessageUrls(text: string, max: number = MAX_MESSAGE_URLS): string[] {
  if (text.trimStart().startsWith('/')) return [];
  const found: string[] = [];
  const seen = new Set<string>();
  // Full-width punctuation ends a URL even without a space after it, as Korean, Japanese and Chinese text writes it.
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"'`。、，「」『』【】（）！？]+/giu)) {
    const url = trimTrailing(match[0]);
    let key: string;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') continue;
      parsed.hash = '';
      key = parsed.href;
    } catch {
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(url);
    if (found.length >= max) break;
  }
  return found;
}
