import { type ErrorInfo, HalError, type WebContextBlock, type WebContextErrorBlock } from '@hal-ai/spec';
import { capText, type WebPage } from './web-page.js';

/** Most characters of a page's text a message's context block carries (SPEC §10). */
export const CONTEXT_BLOCK_MAX_CHARS = 8_000;

/** A fetch failure as a block's or a tool result's error: a `web_*` code, never a crash. */
export function toWebErrorInfo(error: unknown): ErrorInfo {
  if (HalError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'web_fetch_failed', message: 'The page could not be fetched' };
}

/**
 * The context block of a linked page (SPEC §14): the page's text capped at 8,000 characters (`truncated` when the
 * page or the block cut it), or the failure with its code.
 *
 * @example
 * toWebContextBlock('https://example.com/x', { page }); // {type: 'context', source: 'web', url, finalUrl, title, text, truncated, fetchedAt}
 * toWebContextBlock('https://10.0.0.1/', { error }); // {type: 'context', source: 'web', url, error: {code: 'web_blocked', …}}
 */
export function toWebContextBlock(
  url: string,
  outcome: { page: WebPage } | { error: unknown },
  maxChars: number = CONTEXT_BLOCK_MAX_CHARS,
): WebContextBlock | WebContextErrorBlock {
  if ('error' in outcome)
    return { type: 'context', source: 'web', url, error: toWebErrorInfo(outcome.error) };
  const { page } = outcome;
  const capped = capText(page.text, maxChars);
  return {
    type: 'context',
    source: 'web',
    url,
    finalUrl: page.finalUrl,
    title: page.title,
    text: capped.text,
    truncated: page.truncated || capped.truncated,
    fetchedAt: page.fetchedAt,
  };
}
