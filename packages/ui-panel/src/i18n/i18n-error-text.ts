import { isMessageKey, type MessageValues, type Translator } from './i18n-catalogue.js';

/** An error as a reader sees it: the sentence in their language, and the server's own words for a bug report. */
export interface ErrorText {
  /** The catalogue's sentence for the code, or the server's message when this version has none for it. */
  text: string;
  /** The server's message and code as it sent them (`message (code)`), for a title or a details line. */
  raw: string;
}

/**
 * What to show for a stable error code (SPEC §12): the catalogue's `error_<code>` sentence in the reader's
 * language, since the server's message is English and written for developers. A code this version does not
 * know shows the server's message, so nothing is hidden. When the answer's `details.reason` names which rule
 * failed and the catalogue has `error_<code>_<reason>`, that finer sentence is said instead (its `{…}` values
 * from the details' strings and numbers).
 *
 * @example
 * errorText(createTranslator('ko'), 'release_exists', 'release portal@1.0.0 exists');
 * // { text: '같은 버전의 릴리스가 이미 있습니다.', raw: 'release portal@1.0.0 exists (release_exists)' }
 */
export function errorText(
  t: Translator,
  code: string,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
): ErrorText {
  const key = `error_${code}`;
  const raw = message ? `${message} (${code})` : code;
  const finer = typeof details.reason === 'string' ? `${key}_${details.reason}` : '';
  if (finer && isMessageKey(finer)) {
    const values: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(details)) {
      if (typeof value === 'string' || typeof value === 'number') values[name] = value;
    }
    return { text: t(finer, values as MessageValues), raw };
  }
  return { text: isMessageKey(key) ? t(key) : message || code, raw };
}
