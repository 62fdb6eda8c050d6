/** A fetched page as the fetcher returns it. */
export interface WebPage {
  /** The normalised URL that was asked for (the cache key). */
  url: string;
  /** Where the last redirect led. */
  finalUrl: string;
  /** The media type the server declared (`text/html`, `text/plain`, `application/json`, …). */
  contentType: string;
  title: string;
  /** Readable text, at most the fetcher's `maxChars`. */
  text: string;
  /** The text was cut at `maxChars`. */
  truncated: boolean;
  /** ISO time of the fetch. */
  fetchedAt: string;
}

/**
 * Cuts text at `max` characters (never inside a surrogate pair) and says whether it did.
 *
 * @example
 * capText('abcdef', 4); // { text: 'abcd', truncated: true }
 */
export function capText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}
